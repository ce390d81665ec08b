/* csrc/core/kernels_unary.c — the CPU loops of the unary ops (one per op
 * and dtype) and of the ternary ones, where and clamp.  Loops over memory
 * the iterator handed over (aligned, in the loop's dtypes, no partial
 * overlap); no allocation. */
#include "kernel_optimize.h" /* first of all: see its Note */

#include <stdint.h>

#include "kernels.h"
#include "vecmath.h"

/* UN_LOOP(NAME, T, OT, F): out[i] = F(a[i]); a contiguous (or in-place:
 * out == a exactly) row takes a vectorisable loop. */
#define UN_LOOP(NAME, T, OT, F)                                             \
    TL_MULTIVERSION                                                         \
    static void NAME(char **data, const int64_t *st, int64_t n0,            \
                     int64_t n1, void *vctx)                                \
    {                                                                       \
        (void)vctx;                                                         \
        char *po = data[0], *pa = data[1];                                  \
        const int64_t so = st[0], sa = st[1];                               \
        for (int64_t j = 0; j < n1; j++, po += st[2], pa += st[3]) {        \
            if (so == (int64_t)sizeof(OT) && sa == (int64_t)sizeof(T)) {    \
                OT *o = (OT *)po;                                           \
                const T *a = (const T *)pa;                                 \
                TL_IVDEP                                                    \
                for (int64_t i = 0; i < n0; i++) {                          \
                    o[i] = F(a[i]);                                         \
                }                                                           \
            } else {                                                        \
                for (int64_t i = 0; i < n0; i++) {                          \
                    *(OT *)(po + i * so) = F(*(const T *)(pa + i * sa));    \
                }                                                           \
            }                                                               \
        }                                                                   \
    }

/* ---- element functions -------------------------------------------------- */

#define DEF_UINT(N, T, WU)                                                  \
    static inline T neg_##N(T a) { return (T)((WU)0 - (WU)a); }             \
    static inline T abs_##N(T a) { return a; }                              \
    static inline T sign_##N(T a) { return (T)(a > 0); }                    \
    static inline T relu_##N(T a) { return a; }                             \
    static inline T square_##N(T a) { return (T)((WU)a * (WU)a); }          \
    static inline T bitwise_not_##N(T a) { return (T)~a; }                  \
    static inline T sgn_##N(T a) { return sign_##N(a); }                    \
    static inline uint8_t isnan_##N(T a) { (void)a; return 0; }             \
    static inline uint8_t isinf_##N(T a) { (void)a; return 0; }             \
    static inline uint8_t isfinite_##N(T a) { (void)a; return 1; }
#define DEF_SINT(N, T, WU)                                                  \
    static inline T neg_##N(T a) { return (T)((WU)0 - (WU)a); }             \
    static inline T abs_##N(T a) { return a < 0 ? neg_##N(a) : a; }         \
    static inline T sign_##N(T a) { return (T)((a > 0) - (a < 0)); }        \
    static inline T relu_##N(T a) { return a > 0 ? a : 0; }                 \
    static inline T square_##N(T a) { return (T)((WU)a * (WU)a); }          \
    static inline T bitwise_not_##N(T a) { return (T)~a; }                  \
    static inline T sgn_##N(T a) { return sign_##N(a); }                    \
    static inline uint8_t isnan_##N(T a) { (void)a; return 0; }             \
    static inline uint8_t isinf_##N(T a) { (void)a; return 0; }             \
    static inline uint8_t isfinite_##N(T a) { (void)a; return 1; }
DEF_UINT(u8, uint8_t, uint32_t)
DEF_SINT(i8, int8_t, uint32_t)
DEF_SINT(i16, int16_t, uint32_t)
DEF_UINT(u16, uint16_t, uint32_t)
DEF_SINT(i32, int32_t, uint32_t)
DEF_UINT(u32, uint32_t, uint32_t)
DEF_SINT(i64, int64_t, uint64_t)
DEF_UINT(u64, uint64_t, uint64_t)

static inline uint8_t sign_b(uint8_t a) { return a; }
static inline uint8_t sgn_b(uint8_t a) { return a; }
static inline uint8_t logical_not_b(uint8_t a) { return !a; }
static inline uint8_t bitwise_not_b(uint8_t a) { return !a; }
static inline uint8_t isnan_b(uint8_t a) { (void)a; return 0; }
static inline uint8_t isinf_b(uint8_t a) { (void)a; return 0; }
static inline uint8_t isfinite_b(uint8_t a) { (void)a; return 1; }

/* Note [float32 exp and log]
 * libm's expf/logf are calls the vectoriser cannot see through (about 5 ns
 * an element).  These compute in double without a branch, so that the
 * loops vectorise, and round to float once: exp by 2^n * exp(r) with
 * |r| <= ln2/2 (Taylor to degree 9, error < 1e-11 relative), log by
 * e ln2 + 2 atanh((m - 1) / (m + 1)) with m in [sqrt(1/2), sqrt(2))
 * (series to s^15).  Checked against glibc on all 2^32 inputs: at most 1
 * ulp apart (0.004% of exp results, 0.01% of log results; both are within
 * about half an ulp of the true value), special values identical. */
static inline float exp_via_double(float xf)
{
    double x = xf;
    x = x < -104.0 ? -104.0 : x; /* exp(-104) rounds to 0 */
    x = x > 89.0 ? 89.0 : x;     /* exp(89) overflows to inf */
    x = xf != xf ? 0.0 : x;
    const double magic = 6755399441055744.0; /* 1.5 * 2^52: round to int */
    const double t = x * 1.4426950408889634 + magic;
    const double n = t - magic;
    double r = x - n * 0.6931471805599453;
    r = r - n * 2.3190468138462996e-17;
    double p = 1.0 / 362880;
    p = p * r + 1.0 / 40320;
    p = p * r + 1.0 / 5040;
    p = p * r + 1.0 / 720;
    p = p * r + 1.0 / 120;
    p = p * r + 1.0 / 24;
    p = p * r + 1.0 / 6;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    uint64_t tb;
    memcpy(&tb, &t, sizeof tb);
    /* t's low mantissa bits hold n: 2^n has exponent field n + 1023. */
    const uint64_t sb = (tb - UINT64_C(0x4338000000000000) + 1023) << 52;
    double s;
    memcpy(&s, &sb, sizeof s);
    const float res = (float)(p * s);
    return xf != xf ? xf : res;
}

/* Natural log of xf, in double (before the final rounding). */
static inline double log_in_double(float xf)
{
    const double x = xf;
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    /* The exponent field as a double without an int64 -> double
     * conversion (none in AVX2): 2^52 + E, minus 2^52. */
    const uint64_t eb = ((b >> 52) & 0x7ff) | UINT64_C(0x4330000000000000);
    double e;
    memcpy(&e, &eb, sizeof e);
    e = e - 4503599627370496.0 - 1023.0;
    const uint64_t mb = (b & UINT64_C(0x000fffffffffffff)) |
                        UINT64_C(0x3ff0000000000000);
    double m;
    memcpy(&m, &mb, sizeof m);
    const bool big = m > 1.4142135623730951;
    m = big ? m * 0.5 : m;
    e = big ? e + 1.0 : e;
    const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double p = 1.0 / 15;
    p = p * s2 + 1.0 / 13;
    p = p * s2 + 1.0 / 11;
    p = p * s2 + 1.0 / 9;
    p = p * s2 + 1.0 / 7;
    p = p * s2 + 1.0 / 5;
    p = p * s2 + 1.0 / 3;
    p = p * s2 + 1.0;
    return e * 0.6931471805599453 + 2.0 * s * p;
}

/* The special values of log: 0 -> -inf, < 0 -> NaN, inf and NaN kept. */
static inline float log_special(float xf, float res)
{
    res = xf == 0.0f ? -INFINITY : res;
    res = xf < 0.0f ? NAN : res;
    return (xf == INFINITY || xf != xf) ? xf + xf : res;
}

static inline float fast_expf(float x) { return exp_via_double(x); }
static inline float fast_logf(float x)
{
    return log_special(x, (float)log_in_double(x));
}
static inline float fast_log2f(float x)
{
    return log_special(x, (float)(log_in_double(x) * 1.4426950408889634));
}
static inline float fast_log10f(float x)
{
    return log_special(x, (float)(log_in_double(x) * 0.4342944819032518));
}

/* Which exp/log each float type uses: float32 the vectorisable ones above,
 * float64 libm's (SFX is empty for double), but log10: scalar_math.h's
 * double-double (Note [Double-double]), within 1 ulp where glibc's is 2. */
#define ROUND_BIG_f 0x1p23f
#define ROUND_BIG_ 0x1p52
#define EXPFN_f fast_expf
#define LOGFN_f fast_logf
#define LOG2FN_f fast_log2f
#define LOG10FN_f fast_log10f
#define EXPFN_ exp
#define LOGFN_ log
#define LOG2FN_ log2
#define LOG10FN_ tl_sm_log10_f64

/* Floats: sign keeps NaN (NumPy) and gives +0 for +-0; relu keeps NaN. */
#define DEF_FLT(N, T, SFX)                                                  \
    static inline T neg_##N(T a) { return -a; }                             \
    static inline T abs_##N(T a) { return fabs##SFX(a); }                   \
    static inline T sign_##N(T a)                                           \
    {                                                                       \
        return a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a;            \
    }                                                                       \
    static inline T sgn_##N(T a) { return sign_##N(a); }                    \
    static inline T sqrt_##N(T a) { return sqrt##SFX(a); }                  \
    static inline T rsqrt_##N(T a) { return (T)1 / sqrt##SFX(a); }          \
    static inline T exp_##N(T a) { return EXPFN_##SFX(a); }                 \
    static inline T expm1_##N(T a) { return expm1##SFX(a); }                \
    static inline T log_##N(T a) { return LOGFN_##SFX(a); }                 \
    static inline T log1p_##N(T a) { return log1p##SFX(a); }                \
    static inline T log2_##N(T a) { return LOG2FN_##SFX(a); }               \
    static inline T log10_##N(T a) { return LOG10FN_##SFX(a); }             \
    static inline T sin_##N(T a) { return sin##SFX(a); }                    \
    static inline T cos_##N(T a) { return cos##SFX(a); }                    \
    static inline T tan_##N(T a) { return tan##SFX(a); }                    \
    static inline T tanh_##N(T a) { return tanh##SFX(a); }                  \
    static inline T sigmoid_##N(T a)                                        \
    {                                                                       \
        return (T)1 / ((T)1 + EXPFN_##SFX(-a));                             \
    }                                                                       \
    static inline T relu_##N(T a) { return a < 0 ? (T)0 : a; }              \
    static inline T floor_##N(T a) { return floor##SFX(a); }                \
    static inline T ceil_##N(T a) { return ceil##SFX(a); }                  \
    /* Half to even, as nearbyint in the default rounding mode: adding      \
     * and subtracting 2^(mantissa bits) rounds |a| at the units place;     \
     * values that large are integers already (and NaN stays). */           \
    static inline T round_##N(T a)                                          \
    {                                                                       \
        const T big = ROUND_BIG_##SFX;                                      \
        T m = fabs##SFX(a);                                                 \
        T r = copysign##SFX((m + big) - big, a);                            \
        return m < big ? r : a;                                             \
    }                                                                       \
    static inline T trunc_##N(T a) { return trunc##SFX(a); }                \
    static inline T reciprocal_##N(T a) { return (T)1 / a; }                \
    static inline T square_##N(T a) { return a * a; }                       \
    static inline uint8_t isnan_##N(T a) { return a != a; }                 \
    static inline uint8_t isinf_##N(T a) { return isinf(a) != 0; }          \
    static inline uint8_t isfinite_##N(T a) { return isfinite(a) != 0; }
DEF_FLT(f32, float, f)
DEF_FLT(f64, double, )

/* Complex: C99's functions where they exist; products and reciprocals
 * from scalar_math.h (NumPy's formulas, shared with CUDA). */
#define DEF_CPX(N, T, R, SFX, MK)                                           \
    static inline T cmul_##N(T a, T b)                                      \
    {                                                                       \
        const tl_sm_##N r = tl_sm_cmul_##N(tl_k_to_sm_##N(a),               \
                                         tl_k_to_sm_##N(b));                \
        return MK(r.re, r.im);                                              \
    }                                                                       \
    static inline T crecip_##N(T b)                                         \
    {                                                                       \
        const tl_sm_##N r = tl_sm_crecip_##N(tl_k_to_sm_##N(b));            \
        return MK(r.re, r.im);                                              \
    }                                                                       \
    static inline T neg_##N(T a) { return -a; }                             \
    static inline R abs_##N(T a)                                            \
    {                                                                       \
        return hypot##SFX(creal##SFX(a), cimag##SFX(a));                    \
    }                                                                       \
    static inline T sgn_##N(T a)                                            \
    {                                                                       \
        R m = abs_##N(a);                                                   \
        return m == 0 ? MK(0, 0)                                            \
                      : MK(creal##SFX(a) / m, cimag##SFX(a) / m);           \
    }                                                                       \
    static inline T sqrt_##N(T a) { return csqrt##SFX(a); }                 \
    static inline T rsqrt_##N(T a) { return crecip_##N(csqrt##SFX(a)); }    \
    static inline T exp_##N(T a) { return cexp##SFX(a); }                   \
    static inline T expm1_##N(T a)                                          \
    {                                                                       \
        R x = creal##SFX(a), y = cimag##SFX(a);                             \
        R s = sin##SFX(y / 2);                                              \
        return MK(expm1##SFX(x) * cos##SFX(y) - 2 * s * s,                  \
                  exp##SFX(x) * sin##SFX(y));                               \
    }                                                                       \
    static inline T log_##N(T a) { return clog##SFX(a); }                   \
    static inline T log1p_##N(T a)                                          \
    {                                                                       \
        R x = creal##SFX(a), y = cimag##SFX(a);                             \
        R l = hypot##SFX(x + 1, y);                                         \
        return MK(log##SFX(l), atan2##SFX(y, x + 1));                       \
    }                                                                       \
    static inline T log2_##N(T a)                                           \
    {                                                                       \
        T l = clog##SFX(a);                                                 \
        return MK(creal##SFX(l) / (R)M_LN2, cimag##SFX(l) / (R)M_LN2);      \
    }                                                                       \
    static inline T log10_##N(T a)                                          \
    {                                                                       \
        T l = clog##SFX(a);                                                 \
        return MK(creal##SFX(l) / (R)M_LN10, cimag##SFX(l) / (R)M_LN10);    \
    }                                                                       \
    static inline T sin_##N(T a) { return csin##SFX(a); }                   \
    static inline T cos_##N(T a) { return ccos##SFX(a); }                   \
    static inline T tan_##N(T a) { return ctan##SFX(a); }                   \
    static inline T tanh_##N(T a) { return ctanh##SFX(a); }                 \
    static inline T sigmoid_##N(T a)                                        \
    {                                                                       \
        return crecip_##N(MK(1, 0) + cexp##SFX(-a));                        \
    }                                                                       \
    static inline T reciprocal_##N(T a) { return crecip_##N(a); }           \
    static inline T square_##N(T a) { return cmul_##N(a, a); }              \
    static inline uint8_t isnan_##N(T a)                                    \
    {                                                                       \
        return isnan(creal##SFX(a)) || isnan(cimag##SFX(a));                \
    }                                                                       \
    static inline uint8_t isinf_##N(T a)                                    \
    {                                                                       \
        return isinf(creal##SFX(a)) || isinf(cimag##SFX(a));                \
    }                                                                       \
    static inline uint8_t isfinite_##N(T a)                                 \
    {                                                                       \
        return isfinite(creal##SFX(a)) && isfinite(cimag##SFX(a));          \
    }
DEF_CPX(c64, tl_c64, float, f, CMPLXF)
DEF_CPX(c128, tl_c128, double, , CMPLX)

/* ---- loops: one per (op, compute dtype of its set), from the table ---- */

/* An SM row's complex element function: scalar_math.h's on structs. */
#define TL_OP_SM_COMPLEX(name, N, T, res)                                   \
    static inline TL_OP_OUT(res, N) name##_smc_##N(T a)                     \
    {                                                                       \
        return TL_OP_SMC_RET(res, N,                                        \
                             tl_sm_##name##_##N(tl_k_to_sm_##N(a)));        \
    }
#define TABLE_LOOPS(ID, name, py, set, res, impl, form, flags, hint, doc)   \
    TL_OP_LOOPS(UN_LOOP, name, set, res, impl)
TL_UNARY_OPS(TABLE_LOOPS)
#undef TABLE_LOOPS

/* Note [sqrt without errno]
 * gcc keeps libm's errno for sqrt unless -fno-math-errno is on the command
 * line (the optimize pragma does not reach the builtin), and then a loop of
 * sqrtf calls neither vectorises nor stays cheap on negative inputs.  On
 * x86-64 the SSE2 instructions (baseline there) are IEEE sqrt exactly, so
 * the real sqrt and rsqrt loops use them directly; elsewhere libm. */
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
static inline float sse_sqrt_f32(float x)
{
    return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x)));
}
static inline double sse_sqrt_f64(double x)
{
    return _mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(), _mm_set_sd(x)));
}
#define SQRT_ROWS(N, T, VT, LOADU, STOREU, VSQRT, VSET1, VDIV, SQRT1, W)    \
    static inline void sqrt_rows_##N(char **data, const int64_t *st,        \
                                     int64_t n0, int64_t n1, void *vctx,    \
                                     bool recip)                            \
    {                                                                       \
        (void)vctx;                                                         \
        char *po = data[0], *pa = data[1];                                  \
        const VT one = VSET1(1);                                            \
        for (int64_t j = 0; j < n1; j++, po += st[2], pa += st[3]) {        \
            int64_t i = 0;                                                  \
            if (st[0] == sizeof(T) && st[1] == sizeof(T)) {                 \
                T *o = (T *)po;                                             \
                const T *a = (const T *)pa;                                 \
                for (; i + W <= n0; i += W) {                               \
                    VT v = VSQRT(LOADU(a + i));                             \
                    STOREU(o + i, recip ? VDIV(one, v) : v);                \
                }                                                           \
            }                                                               \
            for (; i < n0; i++) {                                           \
                T v = SQRT1(*(const T *)(pa + i * st[1]));                  \
                *(T *)(po + i * st[0]) = recip ? (T)1 / v : v;              \
            }                                                               \
        }                                                                   \
    }
SQRT_ROWS(f32, float, __m128, _mm_loadu_ps, _mm_storeu_ps, _mm_sqrt_ps,
          _mm_set1_ps, _mm_div_ps, sse_sqrt_f32, 4)
SQRT_ROWS(f64, double, __m128d, _mm_loadu_pd, _mm_storeu_pd, _mm_sqrt_pd,
          _mm_set1_pd, _mm_div_pd, sse_sqrt_f64, 2)
#define SQRT_LOOP_PAIR(N)                                                   \
    TL_MULTIVERSION                                                         \
    static void sqrt_fast_loop_##N(char **data, const int64_t *st,          \
                                   int64_t n0,                              \
                              int64_t n1, void *vctx)                       \
    {                                                                       \
        sqrt_rows_##N(data, st, n0, n1, vctx, false);                       \
    }                                                                       \
    TL_MULTIVERSION                                                         \
    static void rsqrt_fast_loop_##N(char **data, const int64_t *st,         \
                                    int64_t n0,                             \
                               int64_t n1, void *vctx)                      \
    {                                                                       \
        sqrt_rows_##N(data, st, n0, n1, vctx, true);                        \
    }
SQRT_LOOP_PAIR(f32)
SQRT_LOOP_PAIR(f64)
#endif

/* The table: the loops of each op's set (tensorlib/op_table.h).  Ops
 * whose result rule is FLOAT never see an integer compute dtype (the op
 * computes in float32); floor/ceil/round/trunc of integers are copies,
 * chosen by the op entry point (TL_OPF_INT_IDENTITY). */
static const tl_iter_loop2d unary_table[TL_UNARY_OP_COUNT][TL_DTYPE_COUNT] = {
#define TABLE_ROW(ID, name, py, set, res, impl, form, flags, hint, doc)     \
    [TL_UNARY_##ID] = {TL_OP_ROWS(name, set)},
    TL_UNARY_OPS(TABLE_ROW)
#undef TABLE_ROW
};

/* Note [Vectorised transcendental loops]
 * The float32/float64 loops of the hot transcendental ops come from
 * vecmath.h: the clone for the best instruction set the CPU has (chosen
 * once; TENSORLIB_VECMATH=baseline forces the baseline), within the
 * bounds docs/accuracy.md records.  They take contiguous rows (or exactly
 * in place, which the iterator guarantees when out aliases the input);
 * a strided row runs the table's element loop, whose scalar function
 * stays the reference definition (and CUDA's). */
#define VM_LOOP(ID, FN, DT, T)                                              \
    static void vm_##ID##_##DT(char **data, const int64_t *st, int64_t n0,  \
                               int64_t n1, void *vctx)                      \
    {                                                                       \
        if (st[0] != (int64_t)sizeof(T) || st[1] != (int64_t)sizeof(T)) {  \
            unary_table[TL_UNARY_##ID][TL_DTYPE_##DT](data, st, n0, n1,     \
                                                      vctx);                \
            return;                                                         \
        }                                                                   \
        const tl_vm_unary_loop f = tl_vecmath_table(false)->unary[FN]       \
            [tl_vecmath_slot(TL_DTYPE_##DT)];                               \
        char *po = data[0], *pa = data[1];                                  \
        for (int64_t j = 0; j < n1; j++, po += st[2], pa += st[3]) {        \
            f(pa, po, n0);                                                  \
        }                                                                   \
    }
#define VM_OPS(X)                                                           \
    X(EXP, TL_VM_EXP)                                                       \
    X(EXPM1, TL_VM_EXPM1)                                                   \
    X(LOG, TL_VM_LOG)                                                       \
    X(LOG1P, TL_VM_LOG1P)                                                   \
    X(LOG2, TL_VM_LOG2)                                                     \
    X(SIN, TL_VM_SIN)                                                       \
    X(COS, TL_VM_COS)                                                       \
    X(TAN, TL_VM_TAN)                                                       \
    X(TANH, TL_VM_TANH)                                                     \
    X(SIGMOID, TL_VM_SIGMOID)                                               \
    X(ERF, TL_VM_ERF)
#define VM_PAIR(ID, FN)                                                     \
    VM_LOOP(ID, FN, FLOAT32, float)                                         \
    VM_LOOP(ID, FN, FLOAT64, double)
VM_OPS(VM_PAIR)
#undef VM_PAIR

/* Note [float32 hyperbolics through the float64 loops]
 * float32 sinh, cosh, asinh, acosh and atanh are computed in double and
 * rounded once (docs/accuracy.md: libm's float functions miss
 * the 1-ulp bound).  Calling libm's double function per element cost 6 to
 * 20 ns an element (sinh of 2^16 floats: 794 us, PyTorch 89).  Contiguous
 * rows now go through the vectorised float64 loops of vecmath.h in
 * chunks: the floats widened into a stack buffer, one of exp, expm1,
 * log or log1p over it, and a closing formula in double:
 *   sinh  u = expm1(|x|), (u + u / (u + 1)) / 2 with x's sign (no
 *         cancellation near 0); |x| > 89.5 is inf (sinh overflows float
 *         from 89.416; expm1 would give inf / inf),
 *   cosh  e = exp(|x|), (e + 1 / e) / 2,
 *   asinh log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) with x's sign (inf
 *         passes through),
 *   acosh log1p(d + sqrt(d (x + 1))), d = x - 1 exact (NaN below 1),
 *   atanh log1p(2 x / (1 - x)) / 2.
 * Times for 2^16 floats, one thread, Zen 4: sinh 794 -> 192 us, cosh
 * 375 -> 146, asinh 538 -> 430, atanh 1367 -> 229 (PyTorch 86-100, NumPy
 * 21-45); the float64 loops (2-2.5 ns an element) bound them.  log10
 * stays on libm: the float64 log loop is slower than libm's log10.
 * Each closing formula adds a few float64 ulps to the loop's one, far
 * below half a float32 ulp, so results stay within the 1-ulp bound
 * (tests/test_accuracy_hyp.py checks it against long double); they may
 * differ in the last bit from a strided row's libm path where the true
 * value lies within ~1e-16 of a rounding midpoint. */
#define F32D_CHUNK 256

typedef enum { F32D_SINH, F32D_COSH, F32D_ASINH, F32D_ACOSH,
               F32D_ATANH } f32d_fn;

static void f32d_row(f32d_fn fn, const float *a, float *out, int64_t n)
{
    static const tl_vm_fn inner[] = {
        [F32D_SINH] = TL_VM_EXPM1, [F32D_COSH] = TL_VM_EXP,
        [F32D_ASINH] = TL_VM_LOG1P, [F32D_ACOSH] = TL_VM_LOG1P,
        [F32D_ATANH] = TL_VM_LOG1P};
    const tl_vm_unary_loop f =
        tl_vecmath_table(false)->unary[inner[fn]][1];
    double x[F32D_CHUNK], y[F32D_CHUNK];
    for (int64_t i = 0; i < n; i += F32D_CHUNK) {
        const int m = (int)(n - i < F32D_CHUNK ? n - i : F32D_CHUNK);
        const float *p = a + i;
        float *q = out + i;
        switch (fn) {
        case F32D_SINH:
        case F32D_COSH:
            for (int k = 0; k < m; k++) {
                x[k] = fabs((double)p[k]);
            }
            break;
        case F32D_ASINH:
            for (int k = 0; k < m; k++) {
                const double ax = fabs((double)p[k]);
                const double t = ax + ax * ax / (1.0 + sqrt(1.0 + ax * ax));
                x[k] = ax < INFINITY ? t : ax;
            }
            break;
        case F32D_ACOSH:
            for (int k = 0; k < m; k++) {
                const double d = (double)p[k] - 1.0;
                /* below 1 (and NaN): NaN, not the log1p of a cancelled
                 * d + sqrt(d (x + 1)) */
                x[k] = (double)p[k] >= 1.0 ? d + sqrt(d * ((double)p[k] + 1.0))
                                           : NAN;
            }
            break;
        case F32D_ATANH:
            for (int k = 0; k < m; k++) {
                const double v = (double)p[k];
                x[k] = 2.0 * v / (1.0 - v);
            }
            break;
        }
        f(x, y, m);
        switch (fn) {
        case F32D_SINH:
            for (int k = 0; k < m; k++) {
                const double u = y[k];
                const double r = x[k] > 89.5 ? INFINITY
                                             : 0.5 * (u + u / (u + 1.0));
                q[k] = (float)copysign(r, (double)p[k]);
            }
            break;
        case F32D_COSH:
            for (int k = 0; k < m; k++) {
                q[k] = (float)(0.5 * (y[k] + 1.0 / y[k]));
            }
            break;
        case F32D_ASINH:
            for (int k = 0; k < m; k++) {
                q[k] = (float)copysign(y[k], (double)p[k]);
            }
            break;
        case F32D_ACOSH:
            for (int k = 0; k < m; k++) {
                q[k] = (float)y[k];
            }
            break;
        case F32D_ATANH:
            for (int k = 0; k < m; k++) {
                q[k] = (float)(0.5 * y[k]);
            }
            break;
        }
    }
}

#define F32D_LOOP(ID, FN)                                                   \
    static void f32d_##ID(char **data, const int64_t *st, int64_t n0,       \
                          int64_t n1, void *vctx)                           \
    {                                                                       \
        if (st[0] != (int64_t)sizeof(float) ||                              \
            st[1] != (int64_t)sizeof(float)) {                              \
            unary_table[TL_UNARY_##ID][TL_DTYPE_FLOAT32](data, st, n0, n1,  \
                                                         vctx);             \
            return;                                                         \
        }                                                                   \
        char *po = data[0], *pa = data[1];                                  \
        for (int64_t j = 0; j < n1; j++, po += st[2], pa += st[3]) {        \
            f32d_row(FN, (const float *)pa, (float *)po, n0);               \
        }                                                                   \
    }
F32D_LOOP(SINH, F32D_SINH)
F32D_LOOP(COSH, F32D_COSH)
F32D_LOOP(ASINH, F32D_ASINH)
F32D_LOOP(ACOSH, F32D_ACOSH)
F32D_LOOP(ATANH, F32D_ATANH)
#undef F32D_LOOP

/* logit of contiguous rows (tl_sm_logit_f64's two formulas, scalar_math.h)
 * through the vectorised float64 log1p and log loops: both over each
 * chunk, then the element's formula picked; float32 widened and rounded
 * once.  2^16 elements, one thread, Zen 4: float32 1224 -> ~330 us,
 * float64 1212 -> ~330 (PyTorch 87 and 198, whose formula loses the
 * result near 1/2). */
#define LOGIT_LOOP(DT, T)                                                   \
    static void logit_fast_##DT(char **data, const int64_t *st, int64_t n0, \
                                int64_t n1, void *vctx)                     \
    {                                                                       \
        if (st[0] != (int64_t)sizeof(T) || st[1] != (int64_t)sizeof(T)) {  \
            unary_table[TL_UNARY_LOGIT][TL_DTYPE_##DT](data, st, n0, n1,    \
                                                       vctx);               \
            return;                                                         \
        }                                                                   \
        const tl_vm_table *vt = tl_vecmath_table(false);                    \
        double u[F32D_CHUNK], v[F32D_CHUNK];                                \
        char *po = data[0], *pa = data[1];                                  \
        for (int64_t j = 0; j < n1; j++, po += st[2], pa += st[3]) {        \
            for (int64_t i = 0; i < n0; i += F32D_CHUNK) {                  \
                const int m = (int)(n0 - i < F32D_CHUNK ? n0 - i            \
                                                        : F32D_CHUNK);      \
                const T *p = (const T *)pa + i;                             \
                for (int k = 0; k < m; k++) {                               \
                    const double x = (double)p[k];                          \
                    u[k] = (2.0 * x - 1.0) / (1.0 - x);                     \
                    v[k] = x / (1.0 - x);                                   \
                }                                                           \
                vt->unary[TL_VM_LOG1P][1](u, u, m);                         \
                vt->unary[TL_VM_LOG][1](v, v, m);                           \
                T *q = (T *)po + i;                                         \
                for (int k = 0; k < m; k++) {                               \
                    const double x = (double)p[k];                          \
                    q[k] = (T)(x >= 0.25 && x <= 0.75 ? u[k] : v[k]);       \
                }                                                           \
            }                                                               \
        }                                                                   \
    }
LOGIT_LOOP(FLOAT32, float)
LOGIT_LOOP(FLOAT64, double)
#undef LOGIT_LOOP

/* Hand-vectorised loops that replace a table loop (Note [sqrt without
 * errno], Note [Vectorised transcendental loops]); NULL: the table's. */
static const tl_iter_loop2d unary_fast[TL_UNARY_OP_COUNT][TL_DTYPE_COUNT] = {
#if defined(__x86_64__) && defined(__SSE2__)
    [TL_UNARY_SQRT] = {[TL_DTYPE_FLOAT32] = sqrt_fast_loop_f32,
                       [TL_DTYPE_FLOAT64] = sqrt_fast_loop_f64},
    [TL_UNARY_RSQRT] = {[TL_DTYPE_FLOAT32] = rsqrt_fast_loop_f32,
                        [TL_DTYPE_FLOAT64] = rsqrt_fast_loop_f64},
#endif
#define VM_ROW(ID, FN)                                                      \
    [TL_UNARY_##ID] = {[TL_DTYPE_FLOAT32] = vm_##ID##_FLOAT32,              \
                       [TL_DTYPE_FLOAT64] = vm_##ID##_FLOAT64},
    VM_OPS(VM_ROW)
#undef VM_ROW
    [TL_UNARY_SINH] = {[TL_DTYPE_FLOAT32] = f32d_SINH},
    [TL_UNARY_COSH] = {[TL_DTYPE_FLOAT32] = f32d_COSH},
    [TL_UNARY_ASINH] = {[TL_DTYPE_FLOAT32] = f32d_ASINH},
    [TL_UNARY_ACOSH] = {[TL_DTYPE_FLOAT32] = f32d_ACOSH},
    [TL_UNARY_ATANH] = {[TL_DTYPE_FLOAT32] = f32d_ATANH},
    [TL_UNARY_LOGIT] = {[TL_DTYPE_FLOAT32] = logit_fast_FLOAT32,
                        [TL_DTYPE_FLOAT64] = logit_fast_FLOAT64},
};
#undef VM_OPS
#undef VM_LOOP

tl_iter_loop2d tl_unary_kernel_get(int op, int dt)
{
    if (op < 0 || op >= TL_UNARY_OP_COUNT || !tl_dtype_valid(dt)) {
        return NULL;
    }
    return unary_fast[op][dt] ? unary_fast[op][dt] : unary_table[op][dt];
}

/* ---- where ----------------------------------------------------------------
 * A pure selection: only the element size matters.  data: out, cond, a, b. */
typedef struct {
    uint64_t w[2];
} where16_t;

#define WHERE_LOOP(W, T)                                                    \
    TL_MULTIVERSION                                                         \
    static void where_loop_##W(char **data, const int64_t *st, int64_t n0,  \
                               int64_t n1, void *vctx)                      \
    {                                                                       \
        (void)vctx;                                                         \
        char *po = data[0], *pc = data[1], *pa = data[2], *pb = data[3];    \
        const int64_t so = st[0], sc = st[1], sa = st[2], sb = st[3];       \
        const int64_t w = sizeof(T);                                        \
        for (int64_t j = 0; j < n1; j++, po += st[4], pc += st[5],          \
                     pa += st[6], pb += st[7]) {                            \
            if (so == w && sc == 1 && sa == w && sb == w) {                 \
                T *o = (T *)po;                                             \
                const uint8_t *c = (const uint8_t *)pc;                     \
                const T *a = (const T *)pa, *b = (const T *)pb;             \
                TL_IVDEP                                                    \
                for (int64_t i = 0; i < n0; i++) {                          \
                    o[i] = c[i] ? a[i] : b[i];                              \
                }                                                           \
            } else {                                                        \
                for (int64_t i = 0; i < n0; i++) {                          \
                    *(T *)(po + i * so) = *(const uint8_t *)(pc + i * sc)   \
                                              ? *(const T *)(pa + i * sa)   \
                                              : *(const T *)(pb + i * sb);  \
                }                                                           \
            }                                                               \
        }                                                                   \
    }
WHERE_LOOP(1, uint8_t)
WHERE_LOOP(2, uint16_t)
WHERE_LOOP(4, uint32_t)
WHERE_LOOP(8, uint64_t)
WHERE_LOOP(16, where16_t)

tl_iter_loop2d tl_where_kernel_get(int itemsize)
{
    switch (itemsize) {
    case 1: return where_loop_1;
    case 2: return where_loop_2;
    case 4: return where_loop_4;
    case 8: return where_loop_8;
    case 16: return where_loop_16;
    default: return NULL;
    }
}

/* ---- clamp ----------------------------------------------------------------
 * min(max(a, lo), hi) as PyTorch: a NaN lo or hi gives NaN, a NaN a stays
 * NaN, lo > hi gives hi.  data: out, a, lo, hi. */
#define CLAMP_INT(N, T)                                                     \
    static inline T clamp_##N(T a, T lo, T hi)                              \
    {                                                                       \
        T m = a < lo ? lo : a;                                              \
        return m > hi ? hi : m;                                             \
    }
#define CLAMP_FLT(N, T)                                                     \
    static inline T clamp_##N(T a, T lo, T hi)                              \
    {                                                                       \
        if (lo != lo) {                                                     \
            return lo;                                                      \
        }                                                                   \
        if (hi != hi) {                                                     \
            return hi;                                                      \
        }                                                                   \
        T m = a < lo ? lo : a;                                              \
        return m > hi ? hi : m;                                             \
    }
FOR_INTS(CLAMP_INT)
CLAMP_INT(b, uint8_t)
FOR_FLOATS(CLAMP_FLT)

#define CLAMP_LOOP(N, T)                                                    \
    TL_MULTIVERSION                                                         \
    static void clamp_loop_##N(char **data, const int64_t *st, int64_t n0,  \
                               int64_t n1, void *vctx)                      \
    {                                                                       \
        (void)vctx;                                                         \
        char *po = data[0], *pa = data[1], *pl = data[2], *ph = data[3];    \
        const int64_t so = st[0], sa = st[1], sl = st[2], sh = st[3];       \
        const int64_t w = sizeof(T);                                        \
        for (int64_t j = 0; j < n1; j++, po += st[4], pa += st[5],          \
                     pl += st[6], ph += st[7]) {                            \
            if (so == w && sa == w && sl == 0 && sh == 0) {                 \
                T *o = (T *)po;                                             \
                const T *a = (const T *)pa;                                 \
                const T lo = *(const T *)pl, hi = *(const T *)ph;           \
                TL_IVDEP                                                    \
                for (int64_t i = 0; i < n0; i++) {                          \
                    o[i] = clamp_##N(a[i], lo, hi);                         \
                }                                                           \
            } else {                                                        \
                for (int64_t i = 0; i < n0; i++) {                          \
                    *(T *)(po + i * so) =                                   \
                        clamp_##N(*(const T *)(pa + i * sa),                \
                                  *(const T *)(pl + i * sl),                \
                                  *(const T *)(ph + i * sh));               \
                }                                                           \
            }                                                               \
        }                                                                   \
    }
FOR_INTS(CLAMP_LOOP)
CLAMP_LOOP(b, uint8_t)
FOR_FLOATS(CLAMP_LOOP)

static const tl_iter_loop2d clamp_table[TL_DTYPE_COUNT] = {
    ROW_BOOL(clamp) ROW_ALL_INTS(clamp) ROW_FLOATS(clamp)};

tl_iter_loop2d tl_clamp_kernel_get(int dt)
{
    return tl_dtype_valid(dt) ? clamp_table[dt] : NULL;
}
