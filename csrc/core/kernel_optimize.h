/* csrc/core/kernel_optimize.h — the optimisation options of the kernel
 * files.  Include it FIRST, before any other header: it changes how the
 * rest of the translation unit is compiled, and takes no include guard
 * because of that (a second include repeats the same pragma).
 *
 * Kernels are compiled with the vectoriser on (gcc's -O2 keeps it at the
 * "very cheap" cost model, which leaves loops of unknown trip count
 * scalar), without errno from libm (so sqrt vectorises) and without
 * trapping math (so float compare-and-select becomes a blend; no value
 * changes, only floating-point exception flags, which tensorlib never
 * reads).
 *
 * Note [Kernel options before the headers]
 * gcc does not inline a function compiled with other optimisation
 * options than its caller's.  When the pragma came after the includes,
 * every element function of scalar_math.h (maximum, deg2rad, copysign,
 * signbit, frac, heaviside, fmax, ...) kept -O2's options and stayed an
 * out-of-line call per element inside the vectorised loops: maximum of
 * 2^15 float32 took 1.37 ns per element against add's 0.14 (11x NumPy).
 * Before the headers, the header's functions get the kernels' options
 * and inline into them. */
#if defined(__GNUC__) && !defined(__clang__)
/* (One string: _Pragma takes a single literal, hence the long line.) */
_Pragma("GCC optimize(\"O3\", \"no-math-errno\", \"no-trapping-math\", \"vect-cost-model=dynamic\")")
#endif
