/* csrc/core/vecmath_pragmas.h — internal: the optimisation settings of the
 * vecmath translation units, set before anything else is included.  -O3
 * and the dynamic cost model let gcc vectorise loops of unknown trip count
 * (gcc's -O2 "very cheap" model does not); no-trapping-math lets
 * compare-and-select become blends; no-math-errno keeps the few libm
 * calls (the trigonometric fix-up) from blocking anything.  Never
 * fast-math: the kernels depend on exact IEEE rounding (two-sum, the
 * 1.5 * 2^52 rounding trick). */
#ifndef TENSORLIB_CSRC_CORE_VECMATH_PRAGMAS_H
#define TENSORLIB_CSRC_CORE_VECMATH_PRAGMAS_H
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-math-errno", "no-trapping-math", \
                     "vect-cost-model=dynamic")
#endif
#endif
