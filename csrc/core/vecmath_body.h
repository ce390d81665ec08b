/* csrc/core/vecmath_body.h — internal: the bodies of the vectorised
 * transcendental loops, included once per instruction set by
 * vecmath_base.c, vecmath_avx2.c and vecmath_avx512.c, each of which
 * first sets the target (#pragma GCC target) and defines
 *   VM_ISA       the suffix of its table (baseline, avx2, avx512),
 *   VM_ISA_NAME  the table's name string,
 *   VM_HAVE_FMA  1 where the target has fused multiply-add.
 * Everything here is static except the one table tl_vm_table_<VM_ISA>.
 * No Python, no allocation, no libm calls in the vector bodies (libm is
 * called only by the scalar fix-up of trigonometric arguments that the
 * fast reduction cannot handle). */
#ifndef TL_BUILDING_LIB
#error "csrc/core/vecmath_body.h is internal to tensorlib"
#endif
#ifndef VM_ISA
#error "define VM_ISA before including vecmath_body.h"
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "vecmath.h"

/* Note [Vectorised transcendental functions]
 * Each function is a branch-free kernel on one double (ternaries become
 * blends), so that gcc vectorises the loop around it; float32 loops
 * compute in float where a float kernel meets the bound (Note [float32 in
 * float]), else widen to double, run the same kernel and round once to
 * float (Note [float32 through double]), which keeps
 * them within 1 ulp of the correctly rounded float result (the double
 * result is within ~1 double ulp, 2^-29 of a float ulp).  Special values
 * (+-0, +-inf, NaN, subnormals, overflow and underflow) are selected at the
 * end of each kernel as C99 Annex F says.
 *
 * Accuracy comes from argument reduction done in double-double (a value
 * plus its rounding error, Dekker/Knuth two-sum and two-product) and
 * Taylor polynomials long enough that truncation is below 2^-60 on the
 * reduced interval, summed so that the large leading terms are added last
 * and exactly:
 *  - exp: x = n ln2 + r, |r| <= ln2/2 (ln2 in two parts, the first with
 *    trailing zeros so n * ln2_hi is exact), exp(r) = (1 + r) + r^2 P(r)
 *    with 1 + r formed exactly; 2^n applied as two factors so that
 *    subnormal results round once.
 *  - expm1: the same reduction; (2^n - 1) + 2^n expm1(r), all terms but
 *    one small one exact, the result kept as a double-double for tanh.
 *  - log, log2, log1p: x = 2^k m, m in [sqrt(1/2), sqrt 2), f = m - 1,
 *    log(m) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f), R the
 *    atanh series; hi/lo kept so that k ln2 (or k, for log2) is added
 *    last.  log1p adds the rounding error of 1 + x as (x - (u - 1)) / u.
 *  - sin, cos, tan: x = n pi/2 + r with pi/2 in three parts (33 + 33 + 53
 *    bits), r a double-double; sin and cos of r by Taylor series, tan as
 *    a double-double quotient.  Arguments above 1e5, and the rare ones
 *    whose reduced |r| is below 2^-40 (so close to a multiple of pi/2
 *    that the 119-bit pi/2 could lose digits) are recomputed afterwards
 *    by libm in a scalar pass, which is correctly reducing.
 *  - tanh: expm1(2|x|) / (expm1(2|x|) + 2) with a double-double quotient.
 *  - sigmoid: e = exp(-|x|), 1/(1 + e) or e/(1 + e) with a corrected
 *    quotient (no overflow, subnormal results where they belong).
 *  - erf: Taylor series below 0.75; above, 1 - t exp(-x^2 + h(t)) with
 *    t = 2/(2 + x) and h a degree-19 polynomial fitted (Chebyshev,
 *    mpmath, error 2e-19) on x in [0.75, 6]; erf(x) = +-1 beyond 6.  Both
 *    polynomials and exp's by Estrin's scheme (Note [Estrin]).
 *  - pow: exp(y log|x|) with log|x| as a double-double and y log|x| by an
 *    exact product, then the sign and the Annex F special cases.
 *  - atan2: atan(min/max), or pi/4 + atan((min - max)/(min + max)) above
 *    tan(pi/8) (one division either way), Taylor to degree 41, then the
 *    quadrant.
 * The FMA builds use fused multiply-adds in the reductions and two-products
 * (one rounding); the baseline build splits (Veltkamp) instead, so the two
 * paths may differ in the last bit but both keep the bounds (tested by
 * tests/test_vecmath.py on the selected and the forced baseline path). */

/* File-static names would collide across the three translation units only
 * at link time, which they do not (static), so no suffix is needed except
 * on the exported table. */
#define VM_CAT2(a, b) a##b
#define VM_CAT(a, b) VM_CAT2(a, b)
#define VM_TABLE VM_CAT(tl_vm_table_, VM_ISA)

#define VM_INLINE static inline __attribute__((always_inline))
#if defined(__clang__)
#define VM_IVDEP _Pragma("clang loop vectorize(enable)")
#else
#define VM_IVDEP _Pragma("GCC ivdep")
#endif

#if VM_HAVE_FMA
#define VM_FMA(a, b, c) __builtin_fma((a), (b), (c))
#else
#define VM_FMA(a, b, c) ((a) * (b) + (c))
#endif

VM_INLINE uint64_t asu64(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

VM_INLINE double asf64(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* 1.5 * 2^52: adding and subtracting it rounds |x| < 2^51 to an integer
 * (ties to even), and the sum's low mantissa bits hold that integer. */
#define VM_MAGIC 6755399441055744.0
#define VM_MAGIC_BITS UINT64_C(0x4338000000000000)

VM_INLINE double round_int(double x)
{
    return (x + VM_MAGIC) - VM_MAGIC;
}

/* 2^n for an integral double n in [-1022, 1023]. */
VM_INLINE double pow2i(double n)
{
    return asf64((asu64(n + VM_MAGIC) - VM_MAGIC_BITS + 1023) << 52);
}

/* trunc(x) without SSE4.1's roundpd (so that the baseline build
 * vectorises too). */
VM_INLINE double vm_trunc(double x)
{
    double ax = fabs(x);
    double f = round_int(ax);
    f = f > ax ? f - 1.0 : f;
    f = ax >= 0x1p52 ? ax : f; /* already integral (or inf/NaN) */
    return __builtin_copysign(f, x);
}

/* s + e == a + b exactly (Knuth's two-sum, any magnitudes). */
VM_INLINE double two_sum(double a, double b, double *e)
{
    double s = a + b;
    double bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}

/* s + e == a + b exactly, given |a| >= |b| (or a == 0). */
VM_INLINE double fast_two_sum(double a, double b, double *e)
{
    double s = a + b;
    *e = (a - s) + b;
    return s;
}

/* p + e == a * b exactly (no overflow/underflow assumed). */
VM_INLINE double two_prod(double a, double b, double *e)
{
    double p = a * b;
#if VM_HAVE_FMA
    *e = __builtin_fma(a, b, -p);
#else
    const double split = 134217729.0; /* 2^27 + 1 */
    double ca = split * a, cb = split * b;
    double ah = ca - (ca - a), bh = cb - (cb - b);
    double al = a - ah, bl = b - bh;
    *e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
    return p;
}

/* ln 2 in two parts; LN2HI has 21 trailing zero bits, so n * LN2HI is
 * exact for |n| < 2^21. */
#define VM_LN2HI 0x1.62e42fee00000p-1
#define VM_LN2LO 0x1.a39ef35793c76p-33
#define VM_LOG2E 0x1.71547652b82fep+0
#define VM_IVLN2HI 0x1.71547652b82fep+0
#define VM_IVLN2LO 0x1.777d0ffda0d24p-56

/* exp(x + xl), |xl| tiny beside x (0 for plain exp). */
VM_INLINE double k_exp_dd(double x, double xl)
{
    double xc = x > 709.8 ? 709.8 : x;
    xc = xc < -746.0 ? -746.0 : xc;
    xl = x > 709.8 ? 0.0 : xl;
    xl = x < -746.0 ? 0.0 : xl;
    double n = round_int(xc * VM_LOG2E);
    double r = xc - n * VM_LN2HI;          /* exact */
    double rl = xl - n * VM_LN2LO;
    double rr = r + rl;
    /* exp(rr) - 1 - rr = rr^2 (1/2 + rr/6 + ... + rr^11/13!), by
     * Estrin's scheme (Note [Estrin]) */
    double r2 = rr * rr, r4 = r2 * r2, r8 = r4 * r4;
    double b0 = VM_FMA(1.0 / 6.0, rr, 0.5);
    double b1 = VM_FMA(1.0 / 120.0, rr, 1.0 / 24.0);
    double b2 = VM_FMA(1.0 / 5040.0, rr, 1.0 / 720.0);
    double b3 = VM_FMA(1.0 / 362880.0, rr, 1.0 / 40320.0);
    double b4 = VM_FMA(1.0 / 39916800.0, rr, 1.0 / 3628800.0);
    double b5 = VM_FMA(1.0 / 6227020800.0, rr, 1.0 / 479001600.0);
    double c0 = VM_FMA(b1, r2, b0), c1 = VM_FMA(b3, r2, b2);
    double c2 = VM_FMA(b5, r2, b4);
    double p = VM_FMA(c2, r8, VM_FMA(c1, r4, c0));
    double q = r2 * p;
    double e1;
    double s1 = fast_two_sum(1.0, r, &e1);
    double res = s1 + (e1 + (rl + q));
    double n1 = round_int(n * 0.5);
    double n2 = n - n1;
    res = (res * pow2i(n1)) * pow2i(n2);
    return x != x ? x + x : res;
}

VM_INLINE double k_exp(double x)
{
    return k_exp_dd(x, 0.0);
}

/* expm1(x) as hi + *lo. */
VM_INLINE double k_expm1_dd(double x, double *lo)
{
    double xc = x > 709.8 ? 709.8 : x;
    xc = xc < -40.0 ? -40.0 : xc;
    double n = round_int(xc * VM_LOG2E);
    double r = xc - n * VM_LN2HI;          /* exact */
    double rle;
    double rh = two_sum(r, -n * VM_LN2LO, &rle);
    double p = 1.0 / 6227020800.0;
    p = VM_FMA(p, rh, 1.0 / 479001600.0);
    p = VM_FMA(p, rh, 1.0 / 39916800.0);
    p = VM_FMA(p, rh, 1.0 / 3628800.0);
    p = VM_FMA(p, rh, 1.0 / 362880.0);
    p = VM_FMA(p, rh, 1.0 / 40320.0);
    p = VM_FMA(p, rh, 1.0 / 5040.0);
    p = VM_FMA(p, rh, 1.0 / 720.0);
    p = VM_FMA(p, rh, 1.0 / 120.0);
    p = VM_FMA(p, rh, 1.0 / 24.0);
    p = VM_FMA(p, rh, 1.0 / 6.0);
    p = VM_FMA(p, rh, 0.5);
    double q = rh * rh * p;
    /* expm1(rh + rle) = rh + (rle + q + rle * rh) to well below an ulp. */
    double tail = rle + (q + rle * rh);
    /* Above n = 60 the "- 1" is far below an ulp: scale by 2^(n-1) and
     * double at the end, so that n = 1024 does not overflow 2^n. */
    double nn = n > 60.0 ? n - 1.0 : n;
    double s = pow2i(nn);
    double c = n > 60.0 ? s : s - 1.0;
    double cl = n > 60.0 ? 0.0 : (s - c) - 1.0; /* exact: -1 for n 54..60 */
    double a = s * rh;                     /* exact */
    double l1;
    double h = two_sum(c, a, &l1);
    double l = l1 + (cl + s * tail);
    double res = h + l;
    double el = (h - res) + l;
    double m = n > 60.0 ? 2.0 : 1.0;
    res *= m;
    el *= m;
    /* Special values: NaN, +-0 keep their bits; +inf/-inf come out of the
     * clamps as inf and -1 already. */
    el = x == 0.0 ? 0.0 : el;
    *lo = x != x ? 0.0 : el;
    res = x == 0.0 ? x : res;
    return x != x ? x + x : res;
}

VM_INLINE double k_expm1(double x)
{
    double lo;
    double h = k_expm1_dd(x, &lo);
    return x == 0.0 ? x : h;
}

/* log of a positive finite (normal or subnormal) x as k ln 2 + hi + lo.
 * Writes k; returns hi.  Other inputs give unspecified values (the callers
 * select their special results). */
VM_INLINE double k_log_core(double x, double *lo, double *kout)
{
    double xs = x < 0x1p-1022 ? x * 0x1p54 : x;
    double kadj = x < 0x1p-1022 ? -54.0 : 0.0;
    uint64_t u = asu64(xs) +
                 (UINT64_C(0x3ff0000000000000) - UINT64_C(0x3fe6a09e667f3bcd));
    double ke = asf64((u >> 52) | UINT64_C(0x4330000000000000)) - 0x1p52;
    *kout = ke - 1023.0 + kadj;
    double m = asf64((u & UINT64_C(0x000fffffffffffff)) +
                     UINT64_C(0x3fe6a09e667f3bcd));
    double f = m - 1.0; /* exact */
    double ffe;
    double ff = two_prod(f, f, &ffe);
    double hfsq = 0.5 * ff, hfsqe = 0.5 * ffe;
    double d = 2.0 + f;
    double de = (2.0 - d) + f;
    double s = f / d;
    double rem;
    double sp = two_prod(s, d, &rem);
    double sl = (((f - sp) - rem) - s * de) / d;
    double z = s * s;
    /* R(z) = sum_{j>=1} 2 z^j / (2j + 1), to z^10 */
    double R = 2.0 / 21.0;
    R = VM_FMA(R, z, 2.0 / 19.0);
    R = VM_FMA(R, z, 2.0 / 17.0);
    R = VM_FMA(R, z, 2.0 / 15.0);
    R = VM_FMA(R, z, 2.0 / 13.0);
    R = VM_FMA(R, z, 2.0 / 11.0);
    R = VM_FMA(R, z, 2.0 / 9.0);
    R = VM_FMA(R, z, 2.0 / 7.0);
    R = VM_FMA(R, z, 2.0 / 5.0);
    R = VM_FMA(R, z, 2.0 / 3.0);
    R = R * z;
    double T = hfsq + R;
    double te;
    double st = two_prod(s, T, &te);
    double tail = te + (s * hfsqe + sl * T);
    /* log(m) = f - hfsq + st + tail */
    double l1;
    double hi = fast_two_sum(f, -hfsq, &l1);
    double l2;
    double hi2 = two_sum(hi, st, &l2);
    *lo = (l1 - hfsqe) + l2 + tail;
    return hi2;
}

VM_INLINE double k_log(double x)
{
    double lo, k;
    double hi = k_log_core(x, &lo, &k);
    double e;
    double s = fast_two_sum(k * VM_LN2HI, hi, &e);
    double res = s + (e + (lo + k * VM_LN2LO));
    res = k == 0.0 ? hi + lo : res;
    res = x == 1.0 ? 0.0 : res;
    res = x == 0.0 ? -INFINITY : res;
    res = x < 0.0 ? NAN : res;
    res = x == INFINITY ? x : res;
    return x != x ? x + x : res;
}

VM_INLINE double k_log2(double x)
{
    double lo, k;
    double hi = k_log_core(x, &lo, &k);
    double pe;
    double ph = two_prod(hi, VM_IVLN2HI, &pe);
    double pl = pe + (lo * VM_IVLN2HI + hi * VM_IVLN2LO);
    double se;
    double sh = two_sum(k, ph, &se);
    double res = sh + (se + pl);
    res = x == 0.0 ? -INFINITY : res;
    res = x < 0.0 ? NAN : res;
    res = x == INFINITY ? x : res;
    return x != x ? x + x : res;
}

VM_INLINE double k_log1p(double x)
{
    double u = 1.0 + x;
    double c = (x - (u - 1.0)) / u;
    c = x > 0x1p53 ? 0.0 : c;
    double lo, k;
    double hi = k_log_core(u, &lo, &k);
    lo += c;
    double e;
    double s = fast_two_sum(k * VM_LN2HI, hi, &e);
    double res = s + (e + (lo + k * VM_LN2LO));
    res = k == 0.0 ? hi + lo : res;
    res = x == -1.0 ? -INFINITY : res;
    res = x < -1.0 ? NAN : res;
    res = x == INFINITY ? x : res;
    res = x == 0.0 ? x : res;
    return x != x ? x + x : res;
}

/* pi/2 in three parts: the first two with 33 significant bits (so that
 * n * part is exact for |n| < 2^20), the third rounded to 53 bits. */
#define VM_PIO2_1 0x1.921fb54400000p+0
#define VM_PIO2_2 0x1.0b4611a600000p-34
#define VM_PIO2_3 0x1.3198a2e037073p-69
#define VM_TRIG_MAX 1e5

/* sin and cos of x - n pi/2 as double-doubles; *bad set where libm must
 * redo the element.  Returns the quadrant n mod 4. */
VM_INLINE double k_trig(double x, double *sh, double *sl, double *ch,
                     double *cl, double *bad)
{
    double ax = fabs(x);
    double xc = ax > VM_TRIG_MAX ? 0.0 : x; /* inf, NaN, huge: redone */
    double n = round_int(xc * 0x1.45f306dc9c883p-1); /* 2/pi */
    double r = xc - n * VM_PIO2_1;          /* exact */
    double w = n * VM_PIO2_2;               /* exact */
    double rle;
    double rh = two_sum(r, -w, &rle);
    rle -= n * VM_PIO2_3;
    double rl;
    rh = two_sum(rh, rle, &rl);
    /* Below 2^-40 marks the element for libm (VM_TRIG): |reduced
     * argument| where the reduction could have lost digits (n nonzero),
     * 0 for finite arguments above VM_TRIG_MAX, 1 otherwise. */
    double bd = n == 0.0 ? 1.0 : fabs(rh);
    bd = ax > VM_TRIG_MAX ? 0.0 : bd;
    *bad = ax == INFINITY ? 1.0 : bd;
    double z = rh * rh;
    double ze = VM_FMA(rh, rh, -z);
#if !VM_HAVE_FMA
    two_prod(rh, rh, &ze);
#endif
    /* sin(r) = r + r z S(z), S = sum_{k=1..8} (-1)^k z^(k-1) / (2k+1)! */
    double S = 1.0 / 355687428096000.0;
    S = VM_FMA(S, z, -1.0 / 1307674368000.0);
    S = VM_FMA(S, z, 1.0 / 6227020800.0);
    S = VM_FMA(S, z, -1.0 / 39916800.0);
    S = VM_FMA(S, z, 1.0 / 362880.0);
    S = VM_FMA(S, z, -1.0 / 5040.0);
    S = VM_FMA(S, z, 1.0 / 120.0);
    S = VM_FMA(S, z, -1.0 / 6.0);
    double stail = rh * z * S + (rl - rl * z * 0.5);
    *sh = fast_two_sum(rh, stail, sl);
    /* cos(r) = 1 - z/2 + z^2 C(z), C = sum_{k=2..9} (-1)^k z^(k-2)/(2k)! */
    double C = -1.0 / 6402373705728000.0;
    C = VM_FMA(C, z, 1.0 / 20922789888000.0);
    C = VM_FMA(C, z, -1.0 / 87178291200.0);
    C = VM_FMA(C, z, 1.0 / 479001600.0);
    C = VM_FMA(C, z, -1.0 / 3628800.0);
    C = VM_FMA(C, z, 1.0 / 40320.0);
    C = VM_FMA(C, z, -1.0 / 720.0);
    C = VM_FMA(C, z, 1.0 / 24.0);
    double hz = 0.5 * z;
    double wv = 1.0 - hz;
    double ctail = ((1.0 - wv) - hz) + (z * z * C - (rh * rl + 0.5 * ze));
    *ch = fast_two_sum(wv, ctail, cl);
    /* n mod 4 in double: SSE2 has no 64-bit integer compare */
    double n4 = round_int(n * 0.25);
    n4 = n4 * 4.0 > n ? n4 - 1.0 : n4;
    return n - 4.0 * n4;
}

VM_INLINE double k_sin(double x, double *bad)
{
    double sh, sl, ch, cl;
    double q = k_trig(x, &sh, &sl, &ch, &cl, bad);
    double v = q == 1.0 ? ch : sh;
    v = q == 3.0 ? ch : v;
    v = q >= 2.0 ? -v : v;
    v = x == 0.0 ? x : v;
    return (x - x != 0.0) ? x - x : v; /* inf, NaN: NaN */
}

VM_INLINE double k_cos(double x, double *bad)
{
    double sh, sl, ch, cl;
    double q = k_trig(x, &sh, &sl, &ch, &cl, bad);
    double v = q == 1.0 ? sh : ch;
    v = q == 3.0 ? sh : v;
    v = q == 1.0 ? -v : v;
    v = q == 2.0 ? -v : v;
    return (x - x != 0.0) ? x - x : v;
}

VM_INLINE double k_tan(double x, double *bad)
{
    double sh, sl, ch, cl;
    double q = k_trig(x, &sh, &sl, &ch, &cl, bad);
    double oddq = q == 3.0 ? 1.0 : q; /* 1 for odd quadrants */
#define ODD (oddq == 1.0)
    double nh = ODD ? ch : sh, nl = ODD ? cl : sl;
    double dh = ODD ? sh : ch, dl = ODD ? sl : cl;
    double t = nh / dh;
    double pe;
    double p = two_prod(t, dh, &pe);
    double rem = (((nh - p) - pe) + nl) - t * dl;
    double v = t + rem / dh;
    v = ODD ? -v : v;
#undef ODD
    v = x == 0.0 ? x : v;
    return (x - x != 0.0) ? x - x : v;
}

VM_INLINE double k_tanh(double x)
{
    double ax = fabs(x);
    double t = ax > 22.0 ? 22.0 : ax;
    double el;
    double eh = k_expm1_dd(2.0 * t, &el);
    double dl0;
    double dh = fast_two_sum(2.0, eh, &dl0);
    double dl = dl0 + el;
    double q = eh / dh;
    double pe;
    double p = two_prod(q, dh, &pe);
    double rem = (((eh - p) - pe) + el) - q * dl;
    double v = q + rem / dh;
    v = ax > 22.0 ? 1.0 : v;
    v = __builtin_copysign(v, x);
    v = x == 0.0 ? x : v;
    return x != x ? x + x : v;
}

VM_INLINE double k_sigmoid(double x)
{
    double e = k_exp(-fabs(x));
    double dl;
    double dh = fast_two_sum(1.0, e, &dl);
    double num = x >= 0.0 ? 1.0 : e;
    double q = num / dh;
    double pe;
    double p = two_prod(q, dh, &pe);
    double rem = ((num - p) - pe) - q * dl;
    double v = q + rem / dh;
    return x != x ? x + x : v;
}

/* Note [Estrin]: a polynomial by Horner's rule is a chain of dependent
 * fused multiply-adds, each waiting about 4 cycles for the last; the
 * float64 erf loop (a degree-16 series, a degree-19 fit and exp's degree
 * 11, one after another) was bound by that latency, not by its operation
 * count.  Estrin's scheme pairs the coefficients (c0 + c1 x, c2 + c3 x,
 * ...), then the pairs with x^2, those with x^4 and so on: about as many
 * operations, log2(n) levels deep.  Its rounding differs from Horner's in
 * the last bits of terms that are themselves far below the result's ulp
 * here (each use multiplies the polynomial by r^2 or adds it to a larger
 * term).  The helpers take the coefficients lowest degree first. */
VM_INLINE double vm_estrin16(const double *c, double x, double x2, double x4,
                             double x8)
{
    double b0 = VM_FMA(c[1], x, c[0]), b1 = VM_FMA(c[3], x, c[2]);
    double b2 = VM_FMA(c[5], x, c[4]), b3 = VM_FMA(c[7], x, c[6]);
    double b4 = VM_FMA(c[9], x, c[8]), b5 = VM_FMA(c[11], x, c[10]);
    double b6 = VM_FMA(c[13], x, c[12]), b7 = VM_FMA(c[15], x, c[14]);
    double d0 = VM_FMA(VM_FMA(b3, x2, b2), x4, VM_FMA(b1, x2, b0));
    double d1 = VM_FMA(VM_FMA(b7, x2, b6), x4, VM_FMA(b5, x2, b4));
    return VM_FMA(d1, x8, d0);
}

/* sum c[i] x^i, i < 20 */
VM_INLINE double vm_estrin20(const double *c, double x)
{
    double x2 = x * x, x4 = x2 * x2, x8 = x4 * x4;
    double hi = VM_FMA(VM_FMA(c[19], x, c[18]), x2, VM_FMA(c[17], x, c[16]));
    return VM_FMA(hi, x8 * x8, vm_estrin16(c, x, x2, x4, x8));
}

/* erf's Taylor series below 0.75: erf(x) = 2/sqrt(pi) (x + x z P(z)),
 * z = x^2, P(z) = sum_k (-1)^(k+1) z^k / ((k + 1)! (2k + 3)) to k = 15:
 * the series alternates, and the first term left out is below 2^-62 of
 * the result at z = 0.5625. */
static const double erf_taylor[16] = {
    -1.0 / 3.0, 1.0 / (2.0 * 5.0), -1.0 / (6.0 * 7.0), 1.0 / (24.0 * 9.0),
    -1.0 / (120.0 * 11.0), 1.0 / (720.0 * 13.0), -1.0 / (5040.0 * 15.0),
    1.0 / (40320.0 * 17.0), -1.0 / (362880.0 * 19.0),
    1.0 / (3628800.0 * 21.0), -1.0 / (39916800.0 * 23.0),
    1.0 / (479001600.0 * 25.0), -1.0 / (6227020800.0 * 27.0),
    1.0 / (87178291200.0 * 29.0), -1.0 / (1307674368000.0 * 31.0),
    1.0 / (20922789888000.0 * 33.0),
};

/* erfc(x) = t exp(-x^2 + h(u)), t = 2 / (2 + x), u = (t - MID) * IHALF,
 * for x in [0.75, 6]; h's coefficients lowest degree first. */
static const double erfc_h[20] = {
    -0x1.5fc5dc31d4e0bp-1, 0x1.47a6eeb2a4181p-2, 0x1.79028fdf2f621p-7,
    -0x1.4769308d7c428p-8, -0x1.27769cd89d36ap-11, 0x1.bc8dcf46a6358p-13,
    0x1.a63f171972b38p-16, -0x1.b499cc48b3bd5p-17, -0x1.9d3869491b405p-21,
    0x1.dbe93628d6d71p-21, -0x1.f80ca894350c1p-26, -0x1.e3ae424521e54p-25,
    0x1.22e79bd006982p-27, 0x1.7a8d3078d1bdcp-29, -0x1.038535c4cdcb9p-30,
    -0x1.ae3a4716e36bdp-35, 0x1.304c433c44abbp-34, -0x1.0457a90fcbea7p-37,
    -0x1.9a865fc4da6d4p-39, 0x1.a0f1f4daac43bp-41,
};
#define VM_ERFC_MID 0x1.f45d1745d1746p-2
#define VM_ERFC_IHALF 0x1.0c30c30c30c31p+2

VM_INLINE double k_erf(double x)
{
    double ax = fabs(x);
    /* Taylor (erf_taylor) */
    double z = x * x;
    double z2 = z * z, z4 = z2 * z2;
    double P = vm_estrin16(erf_taylor, z, z2, z4, z4 * z4);
    double small = VM_FMA(x * z, P * 0x1.20dd750429b6dp+0,
                          x * 0x1.20dd750429b6dp+0);
    double xa = ax > 6.0 ? 6.0 : ax;
    xa = xa < 0.75 ? 0.75 : xa;
    double t = 2.0 / (2.0 + xa);
    double u = (t - VM_ERFC_MID) * VM_ERFC_IHALF;
    double h = vm_estrin20(erfc_h, u);
    double xxe;
    double xx = two_prod(xa, xa, &xxe);
    double ee;
    double eh = two_sum(h, -xx, &ee);
    double erfc = t * k_exp_dd(eh, ee - xxe);
    double big = __builtin_copysign(1.0 - erfc, x);
    double v = ax < 0.75 ? small : big;
    v = ax > 6.0 ? __builtin_copysign(1.0, x) : v;
    v = x == 0.0 ? x : v; /* erf(-0) = -0 (small's sum gives +0) */
    return x != x ? x + x : v;
}

/* log of a positive finite x as hi + *lo to about 2^-64 relative (for
 * pow, whose result's error is |y log x| times this): k_log_core with the
 * two leading terms of R, the s^2 and hfsq terms and the product s T kept
 * as double-doubles. */
VM_INLINE double k_log_dd(double x, double *lo)
{
    double xs = x < 0x1p-1022 ? x * 0x1p54 : x;
    double kadj = x < 0x1p-1022 ? -54.0 : 0.0;
    uint64_t u = asu64(xs) +
                 (UINT64_C(0x3ff0000000000000) - UINT64_C(0x3fe6a09e667f3bcd));
    double k = asf64((u >> 52) | UINT64_C(0x4330000000000000)) - 0x1p52;
    k = k - 1023.0 + kadj;
    double m = asf64((u & UINT64_C(0x000fffffffffffff)) +
                     UINT64_C(0x3fe6a09e667f3bcd));
    double f = m - 1.0; /* exact */
    double ffe;
    double ff = two_prod(f, f, &ffe);
    double hfsq = 0.5 * ff, hfsqe = 0.5 * ffe;
    double d = 2.0 + f;
    double de = (2.0 - d) + f;
    double sh = f / d;
    double rem;
    double sp = two_prod(sh, d, &rem);
    /* 1/d = (1 - s)/2: a product, not a second division */
    double sl = (((f - sp) - rem) - sh * de) * VM_FMA(-0.5, sh, 0.5);
    double ze;
    double zh = two_prod(sh, sh, &ze);
    double zl = ze + 2.0 * sh * sl;
    /* R = (2/3) z + z^2 P2(z), P2 = sum_{j>=2} 2 z^(j-2) / (2j + 1) */
    double P2 = 2.0 / 23.0;
    P2 = VM_FMA(P2, zh, 2.0 / 21.0);
    P2 = VM_FMA(P2, zh, 2.0 / 19.0);
    P2 = VM_FMA(P2, zh, 2.0 / 17.0);
    P2 = VM_FMA(P2, zh, 2.0 / 15.0);
    P2 = VM_FMA(P2, zh, 2.0 / 13.0);
    P2 = VM_FMA(P2, zh, 2.0 / 11.0);
    P2 = VM_FMA(P2, zh, 2.0 / 9.0);
    P2 = VM_FMA(P2, zh, 2.0 / 7.0);
    P2 = VM_FMA(P2, zh, 2.0 / 5.0);
    double R2 = zh * zh * P2;
    const double c23h = 0x1.5555555555555p-1, c23l = 0x1.5555555555555p-55;
    double ae;
    double ah = two_prod(c23h, zh, &ae);
    ae += c23h * zl + c23l * zh;
    double tl0;
    double th = two_sum(hfsq, ah, &tl0);
    double tl = tl0 + (hfsqe + ae + R2);
    double ste;
    double sth = two_prod(sh, th, &ste);
    double stl = ste + (sh * tl + sl * th);
    /* log(m) = f - hfsq + st */
    double l1;
    double h1 = fast_two_sum(f, -hfsq, &l1);
    l1 -= hfsqe;
    double l2;
    double h2 = two_sum(h1, sth, &l2);
    double lo2 = l1 + l2 + stl;
    /* + k ln 2 */
    double l3;
    double h3 = two_sum(k * VM_LN2HI, h2, &l3);
    /* renormalise: stl may hold R2's share, beyond h's last bit */
    return two_sum(h3, l3 + (lo2 + k * VM_LN2LO), lo);
}

/* exp(y log ax) for a positive finite (normal or subnormal) ax and a
 * finite y: pow's value where no special case applies (y = 0 and ax = 1
 * give exactly 1 here too). */
VM_INLINE double k_pow_core(double ax, double y)
{
    double ll;
    double lh = k_log_dd(ax, &ll);
    double pe;
    double ph = two_prod(y, lh, &pe);
    double pl = pe + y * ll;
    /* y * log|x| beyond the exp range: keep the product's sign only */
    pl = fabs(ph) > 800.0 ? 0.0 : pl;
    ph = fabs(ph) > 800.0 ? __builtin_copysign(800.0, ph) : ph;
    return k_exp_dd(ph, pl);
}

/* 1 where k_pow_core(x, y) is pow(x, y): x positive and finite, y
 * finite; else 0. */
VM_INLINE uint64_t pow_generic(double x, double y)
{
    return (uint64_t)((x > 0.0) & (x < INFINITY) & (y - y == 0.0));
}

/* pow(x, y) from v = k_pow_core(|x|, y): the sign and the Annex F
 * special cases. */
VM_INLINE double pow_special(double x, double y, double v)
{
    double ax = fabs(x);
    double yt = vm_trunc(y);
    double yh = y * 0.5;
    double yht = vm_trunc(yh);

    v = ax == 0.0 ? (y < 0.0 ? INFINITY : 0.0) : v;
    v = ax == INFINITY ? (y < 0.0 ? 0.0 : INFINITY) : v;
    v = ax == 1.0 ? (y - y != 0.0 ? 1.0 : v) : v; /* (+-1) ** +-inf */
    v = y != y ? y + y : v;
    v = x != x ? x + x : v;
    double sx = __builtin_copysign(1.0, x);
    v = sx < 0.0 ? (y == yt ? (yht != yh ? -v : v) : v) : v;
    v = x < 0.0 ? (ax != INFINITY ? (y != yt ? (y == y ? NAN : v) : v) : v)
                : v;

    v = x == 1.0 ? 1.0 : v;
    v = y == 0.0 ? 1.0 : v;
    return v;
}

VM_INLINE double k_pow(double x, double y)
{
    return pow_special(x, y, k_pow_core(fabs(x), y));
}

#define VM_PI_HI 0x1.921fb54442d18p+1
#define VM_PI_LO 0x1.1a62633145c07p-53
#define VM_PIO2_HI 0x1.921fb54442d18p+0
#define VM_PIO2_LO 0x1.1a62633145c07p-54
#define VM_PIO4_HI 0x1.921fb54442d18p-1
#define VM_PIO4_LO 0x1.1a62633145c07p-55

/* atan2(y, x) as C: the angle of (x, y). */
/* atan's Taylor series: atan(t) = t + t z P(z), z = t^2, P(z) = sum_k
 * (-1)^(k+1) z^k / (2k + 3), k < 20 (|t| <= tan(pi/8) after the
 * reduction of k_atan2, so the first term left out is below 2^-56 of
 * the result). */
static const double atan_taylor[20] = {
    -1.0 / 3.0,  1.0 / 5.0,   -1.0 / 7.0,  1.0 / 9.0,   -1.0 / 11.0,
    1.0 / 13.0,  -1.0 / 15.0, 1.0 / 17.0,  -1.0 / 19.0, 1.0 / 21.0,
    -1.0 / 23.0, 1.0 / 25.0,  -1.0 / 27.0, 1.0 / 29.0,  -1.0 / 31.0,
    1.0 / 33.0,  -1.0 / 35.0, 1.0 / 37.0,  -1.0 / 39.0, 1.0 / 41.0,
};

VM_INLINE double k_atan2(double y, double x)
{
    double ax = fabs(x), ay = fabs(y);
    double mx = ax > ay ? ax : ay;
    double mn = ax > ay ? ay : ax;
    /* one division: mn/mx, or (mn - mx)/(mn + mx) above tan(pi/8) (both
     * infinite: pi/4 + 0; both zero: 0), on moduli scaled so that
     * mn + mx is finite and tan(pi/8) mx does not underflow */
    double sc = mx > 0x1p1020 ? 0.25 : 1.0;
    sc = mx < 0x1p-960 ? 0x1p60 : sc;
    double mxs = mx * sc, mns = mn * sc;
#define RED ((mns >= 0x1.a827999fcef32p-2 * mxs) & (mx > 0.0))
    double num = RED ? mns - mxs : mns;
    double den = RED ? mns + mxs : mxs;
    double t = num / den;
    t = mx == INFINITY ? 0.0 : t;
    t = mx == 0.0 ? 0.0 : t;
    double z = t * t;
    /* atan(t) = t + t z P(z) (atan_taylor, Note [Estrin]) */
    double P = vm_estrin20(atan_taylor, z);
    double tail = t * z * P;
    /* angle = base + t + tail, as hi + lo */
    double bh = RED ? VM_PIO4_HI : 0.0, bl = RED ? VM_PIO4_LO : 0.0;
#undef RED
    double e1;
    double h = fast_two_sum(bh, t, &e1); /* |bh| >= |t| or bh = 0 */
    double l = e1 + tail + bl;
    /* |y| > |x|: pi/2 - angle */
    double sh2 = fast_two_sum(VM_PIO2_HI, -h, &e1);
    double sl2 = e1 + (VM_PIO2_LO - l);
    h = ay > ax ? sh2 : h;
    l = ay > ax ? sl2 : l;
    /* x < 0 (or -0): pi - angle */
    double nh = fast_two_sum(VM_PI_HI, -h, &e1);
    double nl = e1 + (VM_PI_LO - l);
    double sx = __builtin_copysign(1.0, x);
    h = sx < 0.0 ? nh : h;
    l = sx < 0.0 ? nl : l;
    double v = __builtin_copysign(h + l, y);
    v = y != y ? y + y : v;
    return x != x ? x + x : v;
}

/* ---- float32 kernels ------------------------------------------------
 * Note [float32 through double]: a float32 result only needs its double
 * value within about 2^-30 relative before the one rounding to float (the
 * rounding then stays within 1 ulp of the correctly rounded float; in
 * practice it is the correctly rounded float almost always).  So the
 * float32 loops run the same reductions in double with shorter Taylor
 * polynomials (truncation below 2^-34) and no double-double corrections:
 * about half the work of the float64 kernels.  Overflow and underflow come
 * out of the final conversion to float (float's range is well inside
 * double's), so the clamps only keep the double arithmetic finite.
 * Where a kernel in float meets the same bound (Note [float32 in float])
 * it replaces the one here in the float32 loop; only k32_sin/cos/tan
 * remain, for the arguments the float reduction hands over (pow and
 * atan2 have their float kernels below the trigonometric loops). */

/* sin and cos of x - n pi/2 (pi/2 as a double-double: the reduced
 * argument is good to 2^-100 absolute for |x| <= 1e5); returns n mod 4
 * and the reduction's size in *bad as k_trig. */
VM_INLINE double k32_trig(double x, double *sv, double *cv, double *bad)
{
    double ax = fabs(x);
    double xc = ax > VM_TRIG_MAX ? 0.0 : x;
    double n = round_int(xc * 0x1.45f306dc9c883p-1);
    double r = (xc - n * VM_PIO2_1) - n * VM_PIO2_2;
    r = r - n * VM_PIO2_3;
    double bd = n == 0.0 ? 1.0 : fabs(r); /* as in k_trig */
    bd = ax > VM_TRIG_MAX ? 0.0 : bd;
    *bad = ax == INFINITY ? 1.0 : bd;
    double z = r * r;
    /* sin: Taylor to r^13; cos: to r^14 (error < 2^-40 on pi/4) */
    double S = -1.0 / 6227020800.0;
    S = VM_FMA(S, z, 1.0 / 39916800.0);
    S = VM_FMA(S, z, -1.0 / 362880.0);
    S = VM_FMA(S, z, 1.0 / 5040.0);
    S = VM_FMA(S, z, -1.0 / 120.0);
    S = VM_FMA(S, z, 1.0 / 6.0);
    *sv = VM_FMA(-r * z, S, r);
    double C = 1.0 / 87178291200.0;
    C = VM_FMA(C, z, -1.0 / 479001600.0);
    C = VM_FMA(C, z, 1.0 / 3628800.0);
    C = VM_FMA(C, z, -1.0 / 40320.0);
    C = VM_FMA(C, z, 1.0 / 720.0);
    C = VM_FMA(C, z, -1.0 / 24.0);
    C = VM_FMA(C, z, 0.5);
    *cv = VM_FMA(-z, C, 1.0);
    double n4 = round_int(n * 0.25);
    n4 = n4 * 4.0 > n ? n4 - 1.0 : n4;
    return n - 4.0 * n4;
}

VM_INLINE double k32_sin(double x, double *bad)
{
    double sv, cv;
    double q = k32_trig(x, &sv, &cv, bad);
    double v = q == 1.0 ? cv : sv;
    v = q == 3.0 ? cv : v;
    v = q >= 2.0 ? -v : v;
    v = x == 0.0 ? x : v;
    return (x - x != 0.0) ? x - x : v;
}

VM_INLINE double k32_cos(double x, double *bad)
{
    double sv, cv;
    double q = k32_trig(x, &sv, &cv, bad);
    double v = q == 1.0 ? sv : cv;
    v = q == 3.0 ? sv : v;
    v = q == 1.0 ? -v : v;
    v = q == 2.0 ? -v : v;
    return (x - x != 0.0) ? x - x : v;
}

VM_INLINE double k32_tan(double x, double *bad)
{
    double sv, cv;
    double q = k32_trig(x, &sv, &cv, bad);
    double oddq = q == 3.0 ? 1.0 : q;
    double num = oddq == 1.0 ? -cv : sv;
    double den = oddq == 1.0 ? sv : cv;
    double v = num / den;
    v = x == 0.0 ? x : v;
    return (x - x != 0.0) ? x - x : v;
}

/* ---- float32 kernels in float -----------------------------------------
 * Note [float32 in float]: the float32 loops of exp, expm1, log, log1p,
 * log2, sin, cos, tan, tanh, sigmoid and erf compute in float (8 lanes on
 * AVX2, 16 on AVX-512, where the widening kernels of Note [float32
 * through double] run 4 or 8).  A result within 1 ulp of the correctly
 * rounded float (every one but sigmoid, held to 2)
 * needs an error below about 1.5 ulp of the exact value (the correctly
 * rounded one is itself within 0.5), so each kernel keeps its roundings
 * to about one ulp: the reductions are exact or carried as float-floats
 * (a value plus its rounding error), the polynomials' truncation is below
 * 2^-27 relative, and the last operation adds a small correction to a
 * leading term formed exactly.
 *  - exp: x = n ln2 + r (ln2 in two parts, the first with 9 trailing zero
 *    bits so n * LN2HI is exact), exp(r) = 1 + (r + r^2 P(r)) with P the
 *    Taylor series to r^7; 2^n applied as two factors, so that subnormal
 *    results round once.
 *  - expm1: the same reduction with n LN2LO's rounding kept, then
 *    (2^n - 1) + 2^n expm1(r) as float-floats; tanh: expm1(2|x|) /
 *    (expm1(2|x|) + 2), float-float numerator and denominator, the
 *    quotient corrected by its remainder.
 *  - erf: a fitted odd polynomial below 1, 1 - t exp(-x^2 + h) above
 *    (kf_erf), with no float-float steps (the erfc branch starts where
 *    its few roundings stay below erf's last bit); 1 ulp on every
 *    argument (the recorded bound for erf stays 2).
 *  - sigmoid: e = exp(-|x|) and 1 + e each rounded once, then 1 / (1 + e)
 *    or e / (1 + e) by one division (kf_sigmoid): 2 ulp, sigmoid's
 *    recorded bound.  A 1-ulp kernel that kept both rounding errors and
 *    corrected the quotient ran 1.4 of PyTorch's time, and one through
 *    double (one division on 4 lanes) slower still.
 *  - log, log2, log1p: fdlibm's reduction as in k_log_core (m in
 *    [sqrt(1/2), sqrt 2), s = f / (2 + f)), f^2/2 exact as a float-float,
 *    the atanh series to s^11, k ln2 added last in two parts (log2: the
 *    product by 1/ln2 as a float-float); log1p folds in the rounding
 *    error of 1 + x as (x - (u - 1)) / u.
 *  - sin, cos, tan: x = n pi/2 + r with pi/2 = A + B + C (floats, 72
 *    bits), n A exact (an FMA: the difference x - n A is a multiple of
 *    x's ulp below 2; without FMA a Veltkamp two-product), r as a
 *    float-float; sin and cos by Taylor to r^9 and r^10; tan the
 *    corrected quotient.  Arguments above 2^16, infinities, and those
 *    whose reduced |r| is below 2^-27 (so near a multiple of pi/2 that
 *    the 72-bit pi/2 could lose digits) are flagged and recomputed
 *    afterwards by the double kernels (k32_*), which hand their own hard
 *    cases to libm.
 * tools/vecmath_exhaustive.c checks every float32 argument against the
 * double kernels (docs/accuracy.md has the command and the results). */

VM_INLINE uint32_t asu32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

VM_INLINE float asf32(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

#if VM_HAVE_FMA
#define VM_FMAF(a, b, c) __builtin_fmaf((a), (b), (c))
#else
#define VM_FMAF(a, b, c) ((a) * (b) + (c))
#endif

/* 1.5 * 2^23: rounds |x| < 2^22 to an integer; the sum's low bits hold
 * it (two's complement). */
#define VM_MAGICF 12582912.0f
#define VM_MAGICF_BITS 0x4b400000u

VM_INLINE float round_intf(float x)
{
    return (x + VM_MAGICF) - VM_MAGICF;
}

/* The integral float n (|n| < 2^22) as a two's complement int. */
VM_INLINE uint32_t intbitsf(float n)
{
    return asu32(n + VM_MAGICF) - VM_MAGICF_BITS;
}

/* 2^n for an integral float n in [-126, 127]. */
VM_INLINE float pow2if(float n)
{
    return asf32((intbitsf(n) + 127u) << 23);
}

VM_INLINE float two_sumf(float a, float b, float *e)
{
    float s = a + b;
    float bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}

VM_INLINE float fast_two_sumf(float a, float b, float *e)
{
    float s = a + b;
    *e = (a - s) + b;
    return s;
}

/* p + e == a * b exactly (|a|, |b| below 2^100, no underflow). */
VM_INLINE float two_prodf(float a, float b, float *e)
{
    float p = a * b;
#if VM_HAVE_FMA
    *e = __builtin_fmaf(a, b, -p);
#else
    const float split = 4097.0f; /* 2^12 + 1 */
    float ca = split * a, cb = split * b;
    float ah = ca - (ca - a), bh = cb - (cb - b);
    float al = a - ah, bl = b - bh;
    *e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
    return p;
}

#define VM_LN2HIF 0x1.62e4p-1f     /* 15 significant bits */
#define VM_LN2LOF 0x1.7f7d1cp-20f
#define VM_LOG2EF 0x1.715476p+0f
#define VM_IVLN2LOF 0x1.4ae0c0p-26f

VM_INLINE float kf_exp(float x)
{
    float xc = x > 89.0f ? 89.0f : x;
    xc = xc < -104.0f ? -104.0f : xc;
    float n = round_intf(xc * VM_LOG2EF);
    float r1 = xc - n * VM_LN2HIF;              /* exact */
    float r = VM_FMAF(-n, VM_LN2LOF, r1);
    /* exp(r) - 1 - r = r^2 (1/2 + r/6 + ... + r^5/7!) */
    float p = 1.0f / 5040.0f;
    p = VM_FMAF(p, r, 1.0f / 720.0f);
    p = VM_FMAF(p, r, 1.0f / 120.0f);
    p = VM_FMAF(p, r, 1.0f / 24.0f);
    p = VM_FMAF(p, r, 1.0f / 6.0f);
    p = VM_FMAF(p, r, 0.5f);
    float em = VM_FMAF(r * r, p, r);
    float res = 1.0f + em;
    float n1 = round_intf(n * 0.5f);
    float n2 = n - n1;
    res = (res * pow2if(n1)) * pow2if(n2);
    return x != x ? x + x : res;
}

/* nh - q * dh exactly, for q within a few ulps of nh / dh (the
 * remainder of a quotient is a float): one fused multiply-add, or a
 * two-product whose head cancels against nh (Sterbenz) without FMA. */
VM_INLINE float quot_remf(float nh, float q, float dh)
{
#if VM_HAVE_FMA
    return __builtin_fmaf(-q, dh, nh);
#else
    float pe;
    float p = two_prodf(q, dh, &pe);
    return (nh - p) - pe;
#endif
}

/* sigmoid in float: m = -|x| = n ln2 + r + rl (r + rl exact to 2^-45),
 * exp(r + rl) = 1 + em with em = r + r^2 P(r) + rl (P of degree 4
 * fitted, relative error 2^-28.3), s = 2^n, so e = exp(m) = s + s em
 * and 1 + e = (1 + s) + s em each rounded once (1 + s is exact while it
 * matters), and sigmoid(x) = 1 / (1 + e) for x >= 0, e / (1 + e) below:
 * one division.  Three roundings and the fit: within 2 ulps of the
 * correctly rounded result (tools/vecmath_exhaustive.c measures 1 on
 * every float32 but a few thousand arguments), the recorded bound for
 * sigmoid (issue 18 holds the basic functions, not sigmoid, to 1).  The
 * 1-ulp kernel that kept e's and 1 + e's rounding errors and corrected
 * the quotient (about 50 operations per lane against 30) was 1.4 of
 * PyTorch's time.  S = 2^(n + 64) keeps e normal until the last scaling
 * by 2^-64 (n >= -150 after the clamp), which rounds subnormal results;
 * |x| is clamped at 104 (sigmoid rounds to 0 below -103.9), NaN selected
 * at the end. */
VM_INLINE float kf_sigmoid(float x)
{
    /* |x| clamped at 104 on its bits (an integer min, as kf_erf) */
    uint32_t ab = asu32(fabsf(x));
    ab = ab > 0x42d00000u ? 0x42d00000u : ab;
    float m = -asf32(ab);
    float n = round_intf(m * VM_LOG2EF);
    float r1 = m - n * VM_LN2HIF;               /* exact */
    float r = VM_FMAF(-n, VM_LN2LOF, r1);
    float rl = VM_FMAF(-n, VM_LN2LOF, r1 - r);
    float p = 0x1.6a23c02c762c0p-10f;
    p = VM_FMAF(p, r, 0x1.123a210f8f05cp-7f);
    p = VM_FMAF(p, r, 0x1.5558f30f74638p-5f);
    p = VM_FMAF(p, r, 0x1.555491011637ap-3f);
    p = VM_FMAF(p, r, 0x1.fffffb977db42p-2f);
    float em = r + VM_FMAF(r * r, p, rl);       /* exp(m) = s (1 + em) */
    float S = pow2if(n + 64.0f);
    float e = VM_FMAF(S, em, S) * 0x1p-64f;
    float s = S * 0x1p-64f;
    float d = VM_FMAF(s, em, 1.0f + s);
    float num = x >= 0.0f ? 1.0f : e;
    float v = num / d;
    return x != x ? x + x : v;
}

/* expm1 in float as hi + *lo: the reduction of kf_exp with r + rl
 * carrying n LN2LO's rounding, expm1(r + rl) = r + (q + rl (1 + r)),
 * q = r^2 P(r), then (2^n - 1) + 2^n r + 2^n (...) with 2^n - 1 an exact
 * float-float and 2^n r exact; above n = 64 the "- 1" is far below an ulp
 * and 2^(n-1) is used, doubled at the end (2^128 overflows). */
VM_INLINE float kf_expm1_ff(float x, float *lo)
{
    float xc = x > 89.0f ? 89.0f : x;
    xc = xc < -18.0f ? -18.0f : xc;
    float n = round_intf(xc * VM_LOG2EF);
    float r1 = xc - n * VM_LN2HIF;              /* exact */
    float r = VM_FMAF(-n, VM_LN2LOF, r1);
    float rl = VM_FMAF(-n, VM_LN2LOF, r1 - r);
    float p = 1.0f / 5040.0f;
    p = VM_FMAF(p, r, 1.0f / 720.0f);
    p = VM_FMAF(p, r, 1.0f / 120.0f);
    p = VM_FMAF(p, r, 1.0f / 24.0f);
    p = VM_FMAF(p, r, 1.0f / 6.0f);
    p = VM_FMAF(p, r, 0.5f);
    float tail = VM_FMAF(rl, r, rl) + r * r * p;
    float big = n > 64.0f ? 1.0f : 0.0f;
    float s = pow2if(n - big);
    float cl;
    float c = two_sumf(s, big - 1.0f, &cl);     /* s - 1, or s when big */
    float l1;
    float h = two_sumf(c, s * r, &l1);          /* s r exact */
    float l = l1 + VM_FMAF(s, tail, cl);
    float res = h + l;
    float m = big + 1.0f;
    *lo = ((h - res) + l) * m;
    return res * m;
}

VM_INLINE float kf_expm1(float x)
{
    float lo;
    float v = kf_expm1_ff(x, &lo);
    v = x == 0.0f ? x : v;
    return x != x ? x + x : v;
}

/* tanh in float: expm1(2|x|) / (expm1(2|x|) + 2) with the float-float
 * expm1 and a corrected quotient; x itself below 2^-13 (tanh x rounds to
 * x there), +-1 from 9.5 on (it rounds to 1 above 9.01). */
VM_INLINE float kf_tanh(float x)
{
    float ax = fabsf(x);
    float t = ax > 9.5f ? 9.5f : ax;
    float el;
    float eh = kf_expm1_ff(2.0f * t, &el);
    float dl0;
    float dh = two_sumf(2.0f, eh, &dl0);
    float dl = dl0 + el;
    float rinv = 1.0f / dh;
    float q = eh * rinv;
    float pe;
    float p = two_prodf(q, dh, &pe);
    float rem = (((eh - p) - pe) + el) - q * dl;
    float v = VM_FMAF(rem, rinv, q);
    v = __builtin_copysignf(v, x);
    v = ax < 0x1p-13f ? x : v;
    return x != x ? x + x : v;
}

/* log of a positive finite (normal or subnormal) float x as
 * k ln2 + hi + *lo; writes k.  Other inputs: unspecified values. */
VM_INLINE float kf_log_core(float x, float *lo, float *kout)
{
    float xs = x < 0x1p-126f ? x * 0x1p23f : x;
    float kadj = x < 0x1p-126f ? -23.0f : 0.0f;
    uint32_t u = asu32(xs) + (0x3f800000u - 0x3f3504f3u);
    *kout = (float)(int32_t)(u >> 23) - 127.0f + kadj;
    float m = asf32((u & 0x007fffffu) + 0x3f3504f3u);
    float f = m - 1.0f; /* exact */
    float ffe;
    float ff = two_prodf(f, f, &ffe);
    float hfsq = 0.5f * ff, hfsqe = 0.5f * ffe;
    float s = f / (2.0f + f);
    float z = s * s;
    /* R(z) = sum_{j>=1} 2 z^j / (2j + 1), to z^5 */
    float R = 2.0f / 11.0f;
    R = VM_FMAF(R, z, 2.0f / 9.0f);
    R = VM_FMAF(R, z, 2.0f / 7.0f);
    R = VM_FMAF(R, z, 2.0f / 5.0f);
    R = VM_FMAF(R, z, 2.0f / 3.0f);
    R = R * z;
    /* log(m) = f - hfsq + s (hfsq + R) */
    float l1;
    float hi = fast_two_sumf(f, -hfsq, &l1);
    *lo = (l1 - hfsqe) + s * (hfsq + R);
    return hi;
}

VM_INLINE float kf_logspecial(float x, float v)
{
    v = x == 0.0f ? -INFINITY : v;
    v = x < 0.0f ? NAN : v;
    v = x == INFINITY ? x : v;
    return x != x ? x + x : v;
}

VM_INLINE float kf_log(float x)
{
    float lo, k;
    float hi = kf_log_core(x, &lo, &k);
    float e;
    float s = fast_two_sumf(k * VM_LN2HIF, hi, &e);
    return kf_logspecial(x, s + (e + VM_FMAF(k, VM_LN2LOF, lo)));
}

VM_INLINE float kf_log2(float x)
{
    float lo, k;
    float hi = kf_log_core(x, &lo, &k);
    float pe;
    float ph = two_prodf(hi, VM_LOG2EF, &pe);
    float pl = pe + (lo * VM_LOG2EF + hi * VM_IVLN2LOF);
    float se;
    float sh = two_sumf(k, ph, &se);
    return kf_logspecial(x, sh + (se + pl));
}

VM_INLINE float kf_log1p(float x)
{
    float u = 1.0f + x;
    float c = (x - (u - 1.0f)) / u;
    c = x > 0x1p24f ? 0.0f : c;
    float lo, k;
    float hi = kf_log_core(u, &lo, &k);
    lo += c;
    float e;
    float s = fast_two_sumf(k * VM_LN2HIF, hi, &e);
    float v = s + (e + VM_FMAF(k, VM_LN2LOF, lo));
    v = x == -1.0f ? -INFINITY : v;
    v = x < -1.0f ? NAN : v;
    v = x == INFINITY ? x : v;
    v = x == 0.0f ? x : v;
    return x != x ? x + x : v;
}

/* erf in float: erf(|x|) = |x| (c + z Q(z)), z = x^2, below 1, with c =
 * 2/sqrt(pi) as the float-float ch + cl (cl folded into z Q), Q of degree
 * 5 fitted to (erf(x)/x - c)/z on [0, 1] (relative error 2^-29.5); from
 * 1 to 4, 1 - erfc(|x|) with erfc(x) = t exp(-x^2 + h(u)), t = 2 / (2 +
 * x), u = 6 t - 3 (t's range mapped to [-1, 1]), h of degree 6 fitted to
 * log(erfc(x) / t) + x^2 (absolute error 2^-25.9; both fits weighted
 * least squares against mpmath), and exp(a) = 2^n (1 + em) applied as
 * 2^n t + 2^n t em, so that 1 + em is never rounded; above 4 the clamped
 * argument gives erfc(4) = 1.5e-8, whose 1 - erfc rounds to 1 (erf rounds
 * to 1 above 3.92).  The erfc branch starts at 1, not lower, because its
 * relative error (a few float roundings: -x^2 + h, t, the product)
 * reaches erf's last bit as erfc(x) / erf(x) grows; the sign is applied
 * last (erf(-0) = -0). */
VM_INLINE float kf_erf(float x)
{
    float ax = fabsf(x);
#if VM_HAVE_FMA
    float z = ax * ax;
    float Q = 0x1.4b4c38e664000p-14f;
    Q = VM_FMAF(Q, z, -0x1.a4bb8611d89c0p-11f);
    Q = VM_FMAF(Q, z, 0x1.5424822a8a028p-8f);
    Q = VM_FMAF(Q, z, -0x1.b7fdaf88119ccp-6f);
    Q = VM_FMAF(Q, z, 0x1.ce2d4dc844a2bp-4f);
    Q = VM_FMAF(Q, z, -0x1.81274097f5d0ep-2f);
    const float ch = 0x1.20dd76p+0f, cl = -0x1.f7ac92p-25f; /* 2/sqrt(pi) */
    /* z's rounding error enters as (ax^2 - z) Q */
    float w = __builtin_fmaf(z, Q, __builtin_fmaf(__builtin_fmaf(ax, ax, -z),
                                                  Q, cl));
    float small = __builtin_fmaf(ax, ch, ax * w);
#else
    /* without FMA the float roundings of the products reach 2 ulp near
     * 1: the same polynomial in double, rounded once */
    double axd = (double)ax, zd = axd * axd;
    double Qd = 0x1.4b4c38e664000p-14;
    Qd = Qd * zd - 0x1.a4bb8611d89c0p-11;
    Qd = Qd * zd + 0x1.5424822a8a028p-8;
    Qd = Qd * zd - 0x1.b7fdaf88119ccp-6;
    Qd = Qd * zd + 0x1.ce2d4dc844a2bp-4;
    Qd = Qd * zd - 0x1.81274097f5d0ep-2;
    float small = (float)(axd * (0x1.20dd750429b6dp+0 + zd * Qd));
#endif
    /* ax clamped to [1, 4] on its bits (ordered as integers, ax >= 0):
     * an integer max and min, where float compares become blends that gcc
     * then spreads over everything computed from xa (NaN: see the end) */
    uint32_t ab = asu32(ax);
    ab = ab < 0x3f800000u ? 0x3f800000u : ab;
    ab = ab > 0x40800000u ? 0x40800000u : ab;
    float xa = asf32(ab);
    float t = 2.0f / (2.0f + xa);
    float u = VM_FMAF(t, 6.0f, -3.0f);
    float h = 0x1.3c784805c0000p-19f;
    h = VM_FMAF(h, u, 0x1.218ab67bd0600p-15f);
    h = VM_FMAF(h, u, -0x1.ff0d7d1dee000p-14f);
    h = VM_FMAF(h, u, -0x1.c7142d1f48baap-10f);
    h = VM_FMAF(h, u, 0x1.58be27e583f20p-8f);
    h = VM_FMAF(h, u, 0x1.cb30ddb2034d6p-3f);
    h = VM_FMAF(h, u, -0x1.57f564e5fc8c1p-1f);
    float a = VM_FMAF(-xa, xa, h);              /* in [-16.2, -1.4] */
    float n = round_intf(a * VM_LOG2EF);
    float r1 = a - n * VM_LN2HIF;               /* exact */
    float r = VM_FMAF(-n, VM_LN2LOF, r1);
    /* exp(r) - 1 - r = r^2 P(r), fitted (relative error 2^-28.3) */
    float p = 0x1.6a23c02c762c0p-10f;
    p = VM_FMAF(p, r, 0x1.123a210f8f05cp-7f);
    p = VM_FMAF(p, r, 0x1.5558f30f74638p-5f);
    p = VM_FMAF(p, r, 0x1.555491011637ap-3f);
    p = VM_FMAF(p, r, 0x1.fffffb977db42p-2f);
    float em = VM_FMAF(r * r, p, r);
    float ts = t * pow2if(n);                   /* exact, n in [-24, -2] */
    float big = 1.0f - VM_FMAF(ts, em, ts);
    float v = ax < 1.0f ? small : big;
    v = x != x ? x : v;
    return __builtin_copysignf(v, x);
}

/* pi/2 = A + B + C to 2^-72 (A the float nearest pi/2). */
#define VM_PIO2AF 0x1.921fb6p+0f
#define VM_PIO2BF -0x1.777a5cp-25f
#define VM_PIO2CF -0x1.ee59dap-50f
#define VM_TRIGF_MAX 0x1p16f
#define VM_TRIGF_TINY 0x1p-27f

/* sin and cos of x - n pi/2 as unnormalised float-floats (the low part
 * below a tenth of the high one); *bad below VM_TRIGF_TINY
 * where the double kernel must redo the element.  Returns n mod 4 (an
 * integer, so that the quadrant selections are bit operations: gcc does
 * not vectorise the boolean selects it would otherwise thread through the
 * clamp of x). */
VM_INLINE uint32_t kf_trig(float x, float *sh, float *sl, float *ch, float *cl,
                        float *bad)
{
    float ax = fabsf(x);
    float xc = ax <= VM_TRIGF_MAX ? x : 0.0f; /* NaN, inf, large: 0 */
    float n = round_intf(xc * 0x1.45f306p-1f);
#if VM_HAVE_FMA
    float u = __builtin_fmaf(-n, VM_PIO2AF, xc); /* exact */
    float ue = 0.0f;
#else
    float pe;
    float ph = two_prodf(n, VM_PIO2AF, &pe);
    float ue;
    float u = two_sumf(xc - ph, -pe, &ue); /* xc - ph exact (Sterbenz) */
#endif
    float qe;
    float qh = two_prodf(n, VM_PIO2BF, &qe);
    float ve;
    float v = two_sumf(u, -qh, &ve);
    /* r = rh + rl, unnormalised: |rl| is below 2^-24 |rh| except where
     * |rh| < 2^-10, and there the terms rl multiplies are tiny */
    float rh = v;
    float rl = (ue + ve) - VM_FMAF(n, VM_PIO2CF, qe);
    /* NaN: xc = 0, n = 0, not flagged (the result is x - x) */
    float bd = n == 0.0f ? 1.0f : fabsf(rh);
    *bad = ax <= VM_TRIGF_MAX ? bd : (ax != ax ? 1.0f : 0.0f);
    float ze;
    float z = two_prodf(rh, rh, &ze);
    /* sin(r) = r + r z S(z), S = -1/3! + z/5! - z^2/7! + z^3/9! */
    float S = 1.0f / 362880.0f;
    S = VM_FMAF(S, z, -1.0f / 5040.0f);
    S = VM_FMAF(S, z, 1.0f / 120.0f);
    S = VM_FMAF(S, z, -1.0f / 6.0f);
    *sh = rh;
    *sl = VM_FMAF(rh * z, S, VM_FMAF(-0.5f * z, rl, rl));
    /* cos(r) = 1 - z/2 + z^2 C(z), C = 1/4! - z/6! + z^2/8! - z^3/10! */
    float C = -1.0f / 3628800.0f;
    C = VM_FMAF(C, z, 1.0f / 40320.0f);
    C = VM_FMAF(C, z, -1.0f / 720.0f);
    C = VM_FMAF(C, z, 1.0f / 24.0f);
    float hz = 0.5f * z;
    float w = 1.0f - hz;
    *ch = w;
    *cl = ((1.0f - w) - hz) + VM_FMAF(z * z, C, -VM_FMAF(rh, rl, 0.5f * ze));
    return intbitsf(n) & 3u;
}

/* m ? b : a for a mask m of all ones or zeros. */
VM_INLINE float selectf(uint32_t m, float a, float b)
{
    return asf32((asu32(a) & ~m) | (asu32(b) & m));
}

VM_INLINE float kf_sin(float x, float *bad)
{
    float sh, sl, ch, cl;
    uint32_t q = kf_trig(x, &sh, &sl, &ch, &cl, bad);
    uint32_t odd = 0u - (q & 1u);
    float v = asf32(asu32(selectf(odd, sh + sl, ch + cl)) ^ ((q & 2u) << 30));
    v = x == 0.0f ? x : v;
    return (x - x != 0.0f) ? x - x : v; /* inf, NaN: NaN */
}

VM_INLINE float kf_cos(float x, float *bad)
{
    float sh, sl, ch, cl;
    uint32_t q = kf_trig(x, &sh, &sl, &ch, &cl, bad);
    uint32_t odd = 0u - (q & 1u);
    float v = asf32(asu32(selectf(odd, ch + cl, sh + sl)) ^
                    (((q + 1u) & 2u) << 30)); /* negative in quadrants 1, 2 */
    return (x - x != 0.0f) ? x - x : v;
}

VM_INLINE float kf_tan(float x, float *bad)
{
    float sh, sl, ch, cl;
    uint32_t q = kf_trig(x, &sh, &sl, &ch, &cl, bad);
    uint32_t odd = 0u - (q & 1u);
    /* odd quadrants: -cos / sin */
    float nh = selectf(odd, sh, ch), nl = selectf(odd, sl, cl);
    float dl;
    float dh = fast_two_sumf(selectf(odd, ch, sh), selectf(odd, cl, sl), &dl);
    float rinv = 1.0f / dh; /* dh normalised: dl below half its ulp */
    float t = nh * rinv;
    float pe;
    float p = two_prodf(t, dh, &pe);
    float rem = (((nh - p) - pe) + nl) - t * dl;
    float v = asf32(asu32(VM_FMAF(rem, rinv, t)) ^ ((q & 1u) << 31));
    v = x == 0.0f ? x : v;
    return (x - x != 0.0f) ? x - x : v;
}

#define VM_UNARY(name, kern, kern32)                                       \
    static void name##_f64(const void *a_, void *o_, int64_t n)            \
    {                                                                      \
        const double *a = a_;                                              \
        double *o = o_;                                                    \
        VM_IVDEP for (int64_t i = 0; i < n; i++)               \
        {                                                                  \
            o[i] = kern(a[i]);                                             \
        }                                                                  \
    }                                                                      \
    static void name##_f32(const void *a_, void *o_, int64_t n)            \
    {                                                                      \
        const float *a = a_;                                               \
        float *o = o_;                                                     \
        VM_IVDEP for (int64_t i = 0; i < n; i++)               \
        {                                                                  \
            o[i] = (float)kern32((double)a[i]);                            \
        }                                                                  \
    }

/* The same with a float32 loop in float (Note [float32 in float]). */
#define VM_UNARYF(name, kern, kernf)                                       \
    static void name##_f64(const void *a_, void *o_, int64_t n)            \
    {                                                                      \
        const double *a = a_;                                              \
        double *o = o_;                                                    \
        VM_IVDEP for (int64_t i = 0; i < n; i++)                           \
        {                                                                  \
            o[i] = kern(a[i]);                                             \
        }                                                                  \
    }                                                                      \
    static void name##_f32(const void *a_, void *o_, int64_t n)            \
    {                                                                      \
        const float *a = a_;                                               \
        float *o = o_;                                                     \
        VM_IVDEP for (int64_t i = 0; i < n; i++)                           \
        {                                                                  \
            o[i] = kernf(a[i]);                                            \
        }                                                                  \
    }

VM_UNARYF(loop_exp, k_exp, kf_exp)
VM_UNARYF(loop_expm1, k_expm1, kf_expm1)
VM_UNARYF(loop_log, k_log, kf_log)
VM_UNARYF(loop_log1p, k_log1p, kf_log1p)
VM_UNARYF(loop_log2, k_log2, kf_log2)
VM_UNARYF(loop_tanh, k_tanh, kf_tanh)
VM_UNARYF(loop_sigmoid, k_sigmoid, kf_sigmoid)
VM_UNARYF(loop_erf, k_erf, kf_erf)

/* Trigonometric loops run in chunks through a stack buffer: the vector
 * pass flags elements the fast reduction cannot take (huge, or unluckily
 * close to a multiple of pi/2: never for |x| <= 1e5 except within 2^-40
 * of one); a scalar pass recomputes exactly those with libm from the
 * input, which is still intact because the chunk is written to out only
 * afterwards (out may be the input). */
#define VM_CHUNK 256

/* The bits of 2^-40: a reduced argument below it (as |r| bits) marks an
 * element for libm; see k_trig. */
#define VM_TRIG_THRESHOLD_BITS UINT64_C(0x3d70000000000000)

#define VM_TRIG(name, kern, libm, T)                                       \
    static void name(const void *a_, void *o_, int64_t n)                  \
    {                                                                      \
        const T *a = a_;                                                   \
        T *o = o_;                                                         \
        for (int64_t base = 0; base < n; base += VM_CHUNK) {               \
            int64_t m = n - base < VM_CHUNK ? n - base : VM_CHUNK;         \
            const T *ab = a + base;                                        \
            T tmp[VM_CHUNK];                                               \
            /* top bit set iff some element's bad value is below 2^-40 */  \
            uint64_t acc = 0;                                              \
            VM_IVDEP for (int64_t i = 0; i < m; i++)           \
            {                                                              \
                double bad;                                                \
                tmp[i] = (T)kern((double)ab[i], &bad);                     \
                acc |= asu64(bad) - VM_TRIG_THRESHOLD_BITS;                \
            }                                                              \
            if (acc >> 63) {                                               \
                for (int64_t i = 0; i < m; i++) {                          \
                    double bad;                                            \
                    (void)kern((double)ab[i], &bad);                       \
                    if (bad < 0x1p-40) {                                   \
                        tmp[i] = (T)libm((double)ab[i]);                   \
                    }                                                      \
                }                                                          \
            }                                                              \
            memcpy(o + base, tmp, (size_t)m * sizeof(T));                  \
        }                                                                  \
    }

/* The float32 loops in float: the vector pass flags (bad below
 * VM_TRIGF_TINY, whose bits are VM_TRIGF_TINY_BITS) the elements that
 * kf_trig cannot take; the scalar pass runs the widening kernel on them,
 * and libm where that one flags them in turn. */
#define VM_TRIGF_TINY_BITS 0x32000000u

#define VM_TRIGF(name, kernf, kern32, libm)                                \
    static void name(const void *a_, void *o_, int64_t n)                  \
    {                                                                      \
        const float *a = a_;                                               \
        float *o = o_;                                                     \
        for (int64_t base = 0; base < n; base += VM_CHUNK) {               \
            int64_t m = n - base < VM_CHUNK ? n - base : VM_CHUNK;         \
            const float *ab = a + base;                                    \
            float tmp[VM_CHUNK];                                           \
            uint32_t acc = 0;                                              \
            VM_IVDEP for (int64_t i = 0; i < m; i++)                       \
            {                                                              \
                float bad;                                                 \
                tmp[i] = kernf(ab[i], &bad);                               \
                acc |= asu32(bad) - VM_TRIGF_TINY_BITS;                    \
            }                                                              \
            if (acc >> 31) {                                               \
                for (int64_t i = 0; i < m; i++) {                          \
                    float bad;                                             \
                    (void)kernf(ab[i], &bad);                              \
                    if (bad < VM_TRIGF_TINY) {                             \
                        double bad2;                                       \
                        double v = kern32((double)ab[i], &bad2);           \
                        tmp[i] = (float)(bad2 < 0x1p-40                    \
                                             ? libm((double)ab[i])         \
                                             : v);                         \
                    }                                                      \
                }                                                          \
            }                                                              \
            memcpy(o + base, tmp, (size_t)m * sizeof(float));              \
        }                                                                  \
    }

VM_TRIG(loop_sin_f64, k_sin, sin, double)
VM_TRIGF(loop_sin_f32, kf_sin, k32_sin, sin)
VM_TRIG(loop_cos_f64, k_cos, cos, double)
VM_TRIGF(loop_cos_f32, kf_cos, k32_cos, cos)
VM_TRIG(loop_tan_f64, k_tan, tan, double)
VM_TRIGF(loop_tan_f32, kf_tan, k32_tan, tan)

/* ---- pow in float -------------------------------------------------------
 * The float32 pow loops compute in float (8 lanes on AVX2) as exp(y
 * log|x|).  The result's relative error is the absolute error of y log|x|
 * (below 104 in size wherever the result is finite and nonzero), so
 * log|x| is a float-float good to about 2^-36 relative: fdlibm's
 * reduction (x = 2^k m, m in [sqrt(1/2), sqrt 2), f = m - 1 exact),
 * s = f / (2 + f) as a float-float (the quotient's remainder times
 * 1/(2 + f) = (1 - s)/2, no second division), log m = 2s + s T with
 * T = (2/3) z + z^2 P(z), z = s^2, the series to s^13 (truncation below
 * 2^-39) and its (2/3) z term a float-float product; k ln2 in two parts.
 * y log|x| is an exact float-float product plus y times the low part;
 * exp of it takes the reduction of kf_exp (n ln2 + r, r1 = ph - n LN2HI
 * exact) with the product's low part and n LN2LO summed into r as a
 * float-float (r + rl), 1 + r exact and r^2 P(r) + rl (1 + r) added last,
 * 2^n as two factors so that subnormal results round once.  Error before
 * the last rounding: about 0.3 ulp, so every result is within 1 ulp of
 * the correctly rounded one (tools/vecmath_pow_check.c).  The special
 * cases are k_pow's, on floats. */

/* trunc(x) in float without SSE4.1's roundps. */
VM_INLINE float vm_truncf(float x)
{
    float ax = fabsf(x);
    float f = (ax + 0x1p23f) - 0x1p23f; /* ax rounded, for ax < 2^23 */
    f = f > ax ? f - 1.0f : f;
    f = ax >= 0x1p23f ? ax : f; /* already integral (or inf/NaN) */
    return __builtin_copysignf(f, x);
}

VM_INLINE float kf_pow(float x, float y)
{
    float ax = fabsf(x);
    /* log|x| = k ln2 + log m */
    float xs = ax < 0x1p-126f ? ax * 0x1p23f : ax;
    float kadj = ax < 0x1p-126f ? -23.0f : 0.0f;
    uint32_t u = asu32(xs) + (0x3f800000u - 0x3f3504f3u);
    float k = (float)(int32_t)(u >> 23) - 127.0f + kadj;
    float m = asf32((u & 0x007fffffu) + 0x3f3504f3u);
    float f = m - 1.0f; /* exact */
    float d = 2.0f + f;
    float de = (2.0f - d) + f; /* d + de == 2 + f */
    float sh = f / d;
    float qe;
    float q = two_prodf(sh, d, &qe);
    float sl = (((f - q) - qe) - sh * de) * VM_FMAF(-0.5f, sh, 0.5f);
    float ze;
    float zh = two_prodf(sh, sh, &ze);
    float zl = VM_FMAF(2.0f * sh, sl, ze);
    /* P = sum_{j>=2} 2 z^(j-2) / (2j + 1), to j = 6 */
    float P = 0x1.3b13b2p-3f;        /* 2/13 */
    P = VM_FMAF(P, zh, 0x1.745d18p-3f); /* 2/11 */
    P = VM_FMAF(P, zh, 0x1.c71c72p-3f); /* 2/9 */
    P = VM_FMAF(P, zh, 0x1.24924ap-2f); /* 2/7 */
    P = VM_FMAF(P, zh, 0x1.99999ap-2f); /* 2/5 */
    const float c23h = 0x1.555556p-1f, c23l = -0x1.555556p-26f; /* 2/3 */
    float te;
    float th = two_prodf(c23h, zh, &te);
    float tl = te + VM_FMAF(c23h, zl, c23l * zh) + zh * zh * P;
    float ste;
    float sth = two_prodf(sh, th, &ste);
    float stl = ste + VM_FMAF(sh, tl, sl * th);
    float e1;
    float h1 = fast_two_sumf(2.0f * sh, sth, &e1);
    float l1 = e1 + (2.0f * sl + stl);
    float e2;
    float lh = two_sumf(k * VM_LN2HIF, h1, &e2);
    float ll = e2 + VM_FMAF(k, VM_LN2LOF, l1);
    /* y log|x| = ph + pl; beyond the float range of exp: its sign only */
    float pe;
    float ph = two_prodf(y, lh, &pe);
    float pl = VM_FMAF(y, ll, pe);
    float pc = ph > 89.0f ? 89.0f : ph;
    pc = pc < -104.0f ? -104.0f : pc;
    pl = pc != ph ? 0.0f : pl;
    /* exp(pc + pl) */
    float n = round_intf(pc * VM_LOG2EF);
    float r1 = pc - n * VM_LN2HIF; /* exact */
    float rl;
    float r = two_sumf(r1, VM_FMAF(-n, VM_LN2LOF, pl), &rl);
    float p = 1.0f / 5040.0f;
    p = VM_FMAF(p, r, 1.0f / 720.0f);
    p = VM_FMAF(p, r, 1.0f / 120.0f);
    p = VM_FMAF(p, r, 1.0f / 24.0f);
    p = VM_FMAF(p, r, 1.0f / 6.0f);
    p = VM_FMAF(p, r, 0.5f);
    float el0;
    float eh0 = fast_two_sumf(1.0f, r, &el0);
    float v = eh0 + (el0 + VM_FMAF(r * r, p, VM_FMAF(rl, r, rl)));
    float n1 = round_intf(n * 0.5f);
    v = (v * pow2if(n1)) * pow2if(n - n1);
    /* special cases as k_pow */
    float yt = vm_truncf(y);
    float yh = y * 0.5f;
    float yht = vm_truncf(yh);
    v = ax == 0.0f ? (y < 0.0f ? INFINITY : 0.0f) : v;
    v = ax == INFINITY ? (y < 0.0f ? 0.0f : INFINITY) : v;
    /* (+-1) ** y: 1 before the sign (the baseline's split product may
     * overflow on a huge y times log 1 = 0) */
    v = ax == 1.0f ? 1.0f : v;
    v = y != y ? y + y : v;
    v = x != x ? x + x : v;
    float sx = __builtin_copysignf(1.0f, x);
    v = sx < 0.0f ? (y == yt ? (yht != yh ? -v : v) : v) : v;
    v = x < 0.0f
            ? (ax != INFINITY ? (y != yt ? (y == y ? NAN : v) : v) : v)
            : v;
    v = x == 1.0f ? 1.0f : v;
    v = y == 0.0f ? 1.0f : v;
    return v;
}

/* ---- atan2 in float ----------------------------------------------------
 * The float32 atan2 loops compute in float.  With mn <= mx the moduli of
 * the arguments, atan(mn/mx) = atan(t) with t = mn/mx, or pi/4 + atan(t)
 * with t = (mn - mx)/(mn + mx) above tan(pi/8); numerator and denominator
 * are float-floats (exact sums), t = n (1/d) corrected by its remainder
 * times 1/d (t + tl to about 2^-46; one division), atan(t) = t + tl +
 * t z P(z), z = t^2, P a 6-term fit (within 2^-28 relative on |t| <=
 * tan(pi/8)); the exact sums are fast two-sums (the larger term known);
 * the angle stays a float-float through pi/4 +, pi/2 - and pi - (each
 * constant in two parts), so the one rounding is the last: within 1 ulp
 * (tools/vecmath_pow_check.c).  Moduli above 2^100 are scaled by 2^-40
 * and below 2^-60 (or mn below 2^-100 with mx below 2^40) by 2^64 first:
 * no overflow in mn + mx nor in the baseline's split product, and the
 * remainder does not underflow where the division by a small mn + mx
 * would magnify its error (mn only loses bits where mn/mx is below
 * 2^-186 and the angle is 0 or pi).  Special values as k_atan2. */
#define VM_PIHF 0x1.921fb6p+1f
#define VM_PILF -0x1.777a5cp-24f
#define VM_PIO2HF 0x1.921fb6p+0f
#define VM_PIO2LF -0x1.777a5cp-25f
#define VM_PIO4HF 0x1.921fb6p-1f
#define VM_PIO4LF -0x1.777a5cp-26f

VM_INLINE float kf_atan2(float y, float x)
{
    float ax = fabsf(x), ay = fabsf(y);
    float mx = ax > ay ? ax : ay;
    float mn = ax > ay ? ay : ax;
    float sc = mx > 0x1p100f ? 0x1p-40f : 1.0f;
    sc = mx < 0x1p-60f || (mn < 0x1p-100f && mx < 0x1p40f) ? 0x1p64f : sc;
    mx = mx * sc;
    mn = mn * sc;
    int red = mn > 0x1.a8279ap-2f * mx; /* tan(pi/8) */
    float nl0, dl0;
    float nh0 = fast_two_sumf(-mx, mn, &nl0); /* mx >= mn >= 0 */
    float dh0 = fast_two_sumf(mx, mn, &dl0);
    float nh = red ? nh0 : mn, nl = red ? nl0 : 0.0f;
    float dh = red ? dh0 : mx, dl = red ? dl0 : 0.0f;
    float rinv = 1.0f / dh;
    float t = nh * rinv;
    float pe;
    float p = two_prodf(t, dh, &pe);
    float tl = ((((nh - p) - pe) + nl) - t * dl) * rinv;
    float z = t * t;
    /* (atan(t)/t - 1)/z, Chebyshev fit on z in [0, 0.1765] (mpmath
     * chebyfit, 6 terms, error 6e-10; with the float coefficients atan(t)
     * is within 2^-28.7 relative) */
    float P = 0x1.98d8d2p-5f;
    P = VM_FMAF(P, z, -0x1.6057f6p-4f);
    P = VM_FMAF(P, z, 0x1.c55b88p-4f);
    P = VM_FMAF(P, z, -0x1.248936p-3f);
    P = VM_FMAF(P, z, 0x1.999976p-3f);
    P = VM_FMAF(P, z, -0x1.555556p-2f);
    float tail = VM_FMAF(t * z, P, tl);
    /* angle = base + t + tail */
    float bh = red ? VM_PIO4HF : 0.0f, bl = red ? VM_PIO4LF : 0.0f;
    float e1;
    float h = fast_two_sumf(bh, t, &e1); /* |bh| >= |t| or bh = 0 */
    float l = e1 + (tail + bl);
    /* infinite moduli: 0 or pi/4; both zero: 0 */
    int inf = mx == INFINITY;
    h = inf ? (mn == INFINITY ? VM_PIO4HF : 0.0f) : h;
    l = inf ? (mn == INFINITY ? VM_PIO4LF : 0.0f) : l;
    h = mx == 0.0f ? 0.0f : h;
    l = mx == 0.0f ? 0.0f : l;
    /* |y| > |x|: pi/2 - angle */
    float sh2 = fast_two_sumf(VM_PIO2HF, -h, &e1);
    float sl2 = e1 + (VM_PIO2LF - l);
    h = ay > ax ? sh2 : h;
    l = ay > ax ? sl2 : l;
    /* x < 0 (or -0): pi - angle */
    float nh2 = fast_two_sumf(VM_PIHF, -h, &e1);
    float nl2 = e1 + (VM_PILF - l);
    float sx = __builtin_copysignf(1.0f, x);
    h = sx < 0.0f ? nh2 : h;
    l = sx < 0.0f ? nl2 : l;
    float v = __builtin_copysignf(h + l, y);
    v = y != y ? y + y : v;
    return x != x ? x + x : v;
}

/* float64 pow runs in chunks through a stack buffer: the vector pass
 * computes k_pow_core(|x|, y) (no sign, no special cases: about a tenth
 * of k_pow's time) and notes whether every pair was generic (positive
 * finite x, finite y); where one was not, a second vector pass applies
 * pow_special to the chunk, reading the input, which is intact because
 * the chunk is written to out only afterwards (out may be an input). */
static void loop_pow_f64(const void *a_, const void *b_, void *o_, int64_t n)
{
    const double *a = a_, *b = b_;
    double *o = o_;
    for (int64_t base = 0; base < n; base += VM_CHUNK) {
        int64_t m = n - base < VM_CHUNK ? n - base : VM_CHUNK;
        const double *ab = a + base, *bb = b + base;
        double tmp[VM_CHUNK];
        uint64_t ok = 1;
        VM_IVDEP for (int64_t i = 0; i < m; i++)
        {
            tmp[i] = k_pow_core(fabs(ab[i]), bb[i]);
            ok &= pow_generic(ab[i], bb[i]);
        }
        if (!ok) {
            VM_IVDEP for (int64_t i = 0; i < m; i++)
            {
                tmp[i] = pow_special(ab[i], bb[i], tmp[i]);
            }
        }
        memcpy(o + base, tmp, (size_t)m * sizeof(double));
    }
}

/* Two-argument loops: the double kernel, and the float one for float32. */
#define VM_BINARY(name, kern, kernf)                                      \
    static void name##_f64(const void *a_, const void *b_, void *o_,       \
                           int64_t n)                                      \
    {                                                                      \
        const double *a = a_, *b = b_;                                     \
        double *o = o_;                                                    \
        VM_IVDEP for (int64_t i = 0; i < n; i++)                           \
        {                                                                  \
            o[i] = kern(a[i], b[i]);                                       \
        }                                                                  \
    }                                                                      \
    static void name##_f32(const void *a_, const void *b_, void *o_,       \
                           int64_t n)                                      \
    {                                                                      \
        const float *a = a_, *b = b_;                                      \
        float *o = o_;                                                     \
        VM_IVDEP for (int64_t i = 0; i < n; i++)                           \
        {                                                                  \
            o[i] = kernf(a[i], b[i]);                                      \
        }                                                                  \
    }

/* The float32 half alone. */
#define VM_BINARYF32(name, kernf)                                          \
    static void name##_f32(const void *a_, const void *b_, void *o_,       \
                           int64_t n)                                      \
    {                                                                      \
        const float *a = a_, *b = b_;                                      \
        float *o = o_;                                                     \
        VM_IVDEP for (int64_t i = 0; i < n; i++)                           \
        {                                                                  \
            o[i] = kernf(a[i], b[i]);                                      \
        }                                                                  \
    }

VM_BINARYF32(loop_pow, kf_pow)
VM_BINARY(loop_atan2, k_atan2, kf_atan2)

static void loop_pow_scalar_f64(const void *a_, double y, void *o_,
                                int64_t n)
{
    const double *a = a_;
    double *o = o_;
    for (int64_t base = 0; base < n; base += VM_CHUNK) {
        int64_t m = n - base < VM_CHUNK ? n - base : VM_CHUNK;
        const double *ab = a + base;
        double tmp[VM_CHUNK];
        uint64_t ok = 1;
        VM_IVDEP for (int64_t i = 0; i < m; i++)
        {
            tmp[i] = k_pow_core(fabs(ab[i]), y);
            ok &= pow_generic(ab[i], y);
        }
        if (!ok) {
            VM_IVDEP for (int64_t i = 0; i < m; i++)
            {
                tmp[i] = pow_special(ab[i], y, tmp[i]);
            }
        }
        memcpy(o + base, tmp, (size_t)m * sizeof(double));
    }
}

static void loop_pow_scalar_f32(const void *a_, double y, void *o_,
                                int64_t n)
{
    const float *a = a_;
    float *o = o_;
    float yf = (float)y; /* the exponent in the tensor's dtype, as NumPy */
    VM_IVDEP for (int64_t i = 0; i < n; i++)
    {
        o[i] = kf_pow(a[i], yf);
    }
}

const tl_vm_table VM_TABLE = {
    .isa = VM_ISA_NAME,
    .unary = {
        [TL_VM_EXP] = {loop_exp_f32, loop_exp_f64},
        [TL_VM_EXPM1] = {loop_expm1_f32, loop_expm1_f64},
        [TL_VM_LOG] = {loop_log_f32, loop_log_f64},
        [TL_VM_LOG1P] = {loop_log1p_f32, loop_log1p_f64},
        [TL_VM_LOG2] = {loop_log2_f32, loop_log2_f64},
        [TL_VM_SIN] = {loop_sin_f32, loop_sin_f64},
        [TL_VM_COS] = {loop_cos_f32, loop_cos_f64},
        [TL_VM_TAN] = {loop_tan_f32, loop_tan_f64},
        [TL_VM_TANH] = {loop_tanh_f32, loop_tanh_f64},
        [TL_VM_SIGMOID] = {loop_sigmoid_f32, loop_sigmoid_f64},
        [TL_VM_ERF] = {loop_erf_f32, loop_erf_f64},
    },
    .binary = {
        [TL_VM_POW - TL_VM_NUNARY] = {loop_pow_f32, loop_pow_f64},
        [TL_VM_ATAN2 - TL_VM_NUNARY] = {loop_atan2_f32, loop_atan2_f64},
    },
    .pow_scalar = {loop_pow_scalar_f32, loop_pow_scalar_f64},
};
