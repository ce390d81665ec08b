/* csrc/core/scalar_math.h — internal: the one copy of tensorlib's scalar
 * numerics, shared by the CPU kernels (csrc/core/kernels_*.c, dtype.c,
 * compiled as C11) and the CUDA kernels (csrc/cuda/kernels.cuh, compiled
 * as CUDA C++ by nvcc, or as host C++ by the emulated build): float16 and
 * bfloat16 conversions, the defined float -> integer casts, integer floor
 * division / remainder / power / shifts, NaN-propagating maximum and
 * minimum, float floor division and remainder (NumPy's npy_divmod), and
 * complex products, quotients, reciprocals and the exact cases of pow on
 * plain structs.  Every function here is TL_HD: host-and-device inline.
 *
 * C/C++-neutral (DESIGN.md "Layers"): no _Atomic, restrict or
 * _Static_assert here, no C99 _Complex (CUDA has none): complex values are
 * tl_sm_c64 / tl_sm_c128 structs; the CPU kernels convert their _Complex
 * values at the call (the compiler removes the moves).  Functions are
 * named tl_sm_<what>_<dtype short name> (u8 i8 i16 u16 i32 u32 i64 u64
 * f32 f64 c64 c128); under C++ each also has an overload tl_sm_<what>()
 * for the templated CUDA functors.  No allocation, no errno, no state. */
#ifndef TENSORLIB_CSRC_CORE_SCALAR_MATH_H
#define TENSORLIB_CSRC_CORE_SCALAR_MATH_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/scalar_math.h is internal to tensorlib"
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Host-and-device inline: nvcc compiles these for both sides; C gets
 * static inline; host C++ (the emulated CUDA build) plain inline, so that
 * functor members marked TL_HD stay members. */
#ifndef TL_HD
#if defined(__CUDACC__) && !defined(TL_CUDA_EMULATE)
#define TL_HD __host__ __device__ __forceinline__
#define TL_ON_DEVICE 1
#elif defined(__cplusplus)
#define TL_HD inline
#else
#define TL_HD static inline
#endif
#endif

/* Overloads for C++ callers (templated functors); nothing in C. */
#ifdef __cplusplus
#define TL_SM_OVL1(NAME, N, R, T)                                           \
    TL_HD R tl_sm_##NAME(T a) { return tl_sm_##NAME##_##N(a); }
#define TL_SM_OVL2(NAME, N, R, T)                                           \
    TL_HD R tl_sm_##NAME(T a, T b) { return tl_sm_##NAME##_##N(a, b); }
#else
#define TL_SM_OVL1(NAME, N, R, T)
#define TL_SM_OVL2(NAME, N, R, T)
#endif

/* ---- bit casts ------------------------------------------------------- */

TL_HD float tl_sm_bits_to_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

TL_HD uint32_t tl_sm_f32_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* ---- float16 / bfloat16 ---------------------------------------------
 * Round to nearest even, once.  From float32 by integer arithmetic on the
 * bits; from float64 directly (Note [Rounding to small floats]), never
 * through float32, which would round twice. */

TL_HD float tl_sm_half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu;
    const uint32_t m = h & 0x3ffu;
    uint32_t f;
    if (e == 0x1f) {
        f = sign | 0x7f800000u | (m << 13);
    } else if (e != 0) {
        f = sign | ((e + 112u) << 23) | (m << 13);
    } else {
        f = tl_sm_f32_to_bits((float)m * 0x1p-24f) | sign;
    }
    return tl_sm_bits_to_f32(f);
}

TL_HD uint16_t tl_sm_half_from_float(float x)
{
    const uint32_t f = tl_sm_f32_to_bits(x);
    const uint32_t sign = (f >> 16) & 0x8000u;
    uint32_t a = f & 0x7fffffffu;
    if (a >= 0x7f800000u) { /* inf or NaN */
        return (uint16_t)(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
    }
    if (a >= 0x477ff000u) { /* >= 65520 rounds to infinity */
        return (uint16_t)(sign | 0x7c00u);
    }
    if (a < 0x38800000u) { /* below 2^-14: a half subnormal */
        /* Adding 0.5 puts the half-subnormal unit (2^-24) at the float's
         * last mantissa bit, so the FPU's own round-to-even does the
         * work. */
        const uint32_t r = tl_sm_f32_to_bits(tl_sm_bits_to_f32(a) + 0.5f);
        return (uint16_t)(sign | (r - 0x3f000000u));
    }
    const uint32_t odd = (a >> 13) & 1u;
    a += 0xc8000000u /* rebias (15 - 127) << 23 */ + 0xfffu + odd;
    return (uint16_t)(sign | (a >> 13));
}

TL_HD float tl_sm_bf16_to_float(uint16_t b)
{
    return tl_sm_bits_to_f32((uint32_t)b << 16);
}

TL_HD uint16_t tl_sm_bf16_from_float(float x)
{
    uint32_t f = tl_sm_f32_to_bits(x);
    if ((f & 0x7fffffffu) > 0x7f800000u) { /* NaN: keep it quiet */
        return (uint16_t)((f >> 16) | 0x40u);
    }
    f += 0x7fffu + ((f >> 16) & 1u);
    return (uint16_t)(f >> 16);
}

/* Note [Rounding to small floats]
 * A double is rounded once to a binary format with `ebits` exponent bits
 * and `mbits` stored mantissa bits: scale the magnitude so that the wanted
 * mantissa (including the implicit bit) becomes the integer part, then
 * rint() rounds half to even in the default rounding mode.  The scaling by
 * a power of two is exact, so there is exactly one rounding.  A carry into
 * the next binade is handled by the encoding itself (mantissa 2^mbits
 * reads as the next exponent); overflow gives infinity. */
TL_HD uint16_t tl_sm_small_float_from_double(double x, int ebits, int mbits)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t sign = (uint32_t)(bits >> 63) << (ebits + mbits);
    const uint32_t exp_all = (1u << ebits) - 1;
    if (x != x) {
        return (uint16_t)(sign | (exp_all << mbits) | (1u << (mbits - 1)));
    }
    const double a = fabs(x);
    if (a == (double)INFINITY) {
        return (uint16_t)(sign | (exp_all << mbits));
    }
    if (a == 0.0) {
        return (uint16_t)sign;
    }
    const int bias = (1 << (ebits - 1)) - 1;
    const int emin = 1 - bias;
    int e;
    (void)frexp(a, &e);
    int ex = e - 1; /* a in [2^ex, 2^(ex+1)) */
    if (ex < emin) {
        /* Subnormal: the unit is 2^(emin - mbits). */
        const double m = rint(ldexp(a, mbits - emin));
        return (uint16_t)(sign | (uint32_t)m);
    }
    const double m = rint(ldexp(a, mbits - ex)); /* [2^mbits, 2^(mbits+1)] */
    uint32_t mi = (uint32_t)m;
    if (mi == (1u << (mbits + 1))) {
        mi >>= 1;
        ex += 1;
    }
    if (ex > bias) {
        return (uint16_t)(sign | (exp_all << mbits));
    }
    return (uint16_t)(sign | ((uint32_t)(ex + bias) << mbits) |
                      (mi - (1u << mbits)));
}

TL_HD uint16_t tl_sm_half_from_double(double x)
{
    return tl_sm_small_float_from_double(x, 5, 10);
}

TL_HD uint16_t tl_sm_bf16_from_double(double x)
{
    return tl_sm_small_float_from_double(x, 8, 7);
}

/* ---- integers to double, rounded to odd -------------------------------
 * uint64 / int64 as a double rounded to odd at 53 bits: exact below 2^53;
 * above, the bits shifted out are folded into a sticky bit, so that a
 * second rounding to 24 bits or fewer (float16, bfloat16) is correct. */
TL_HD double tl_sm_u64_to_double_rto(uint64_t u)
{
    if (u < (UINT64_C(1) << 53)) {
        return (double)u;
    }
    int shift = 0;
    while ((u >> shift) >= (UINT64_C(1) << 53)) {
        shift++;
    }
    uint64_t m = u >> shift;
    if (u & ((UINT64_C(1) << shift) - 1)) {
        m |= 1;
    }
    return ldexp((double)m, shift);
}

TL_HD double tl_sm_i64_to_double_rto(int64_t i)
{
    const uint64_t mag = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    const double d = tl_sm_u64_to_double_rto(mag);
    return i < 0 ? -d : d;
}

/* ---- float -> integer: defined results --------------------------------
 * NaN gives 0; values at or beyond the type's range saturate at its
 * minimum or maximum (DESIGN.md "Numeric semantics"); no UB. */
#define TL_SM_DEF_SAT(N, T, MIN, MAX)                                       \
    TL_HD T tl_sm_sat_##N(double x)                                         \
    {                                                                       \
        if (x != x) {                                                       \
            return 0;                                                       \
        }                                                                   \
        if (x <= (double)(MIN)) {                                           \
            return (MIN);                                                   \
        }                                                                   \
        if (x >= (double)(MAX)) {                                           \
            return (MAX);                                                   \
        }                                                                   \
        return (T)x;                                                        \
    }
TL_SM_DEF_SAT(u8, uint8_t, 0, UINT8_MAX)
TL_SM_DEF_SAT(i8, int8_t, INT8_MIN, INT8_MAX)
TL_SM_DEF_SAT(i16, int16_t, INT16_MIN, INT16_MAX)
TL_SM_DEF_SAT(u16, uint16_t, 0, UINT16_MAX)
TL_SM_DEF_SAT(i32, int32_t, INT32_MIN, INT32_MAX)
TL_SM_DEF_SAT(u32, uint32_t, 0, UINT32_MAX)
TL_SM_DEF_SAT(i64, int64_t, INT64_MIN, INT64_MAX)
TL_SM_DEF_SAT(u64, uint64_t, 0, UINT64_MAX)
#undef TL_SM_DEF_SAT

/* ---- integer arithmetic -----------------------------------------------
 * Computed in a wide unsigned type WU (uint32_t below 64 bits, so that
 * uint8_t/uint16_t never promote to int), so overflow wraps without UB.
 * Floor division and Python's remainder (sign of the divisor); INT_MIN //
 * -1 == INT_MIN, INT_MIN % -1 == 0; a zero divisor (the op entry point
 * refuses one before any kernel runs) gives 0 rather than a trap.  pow:
 * exponentiation by squaring, wrapping; a negative exponent gives
 * PyTorch's powi (1 ** -n == 1, (-1) ** -n == +-1, else 0).  Shifts by a
 * count < 0 or >= the bit width give 0, or -1 for a right shift of a
 * negative (NumPy). */
#define TL_SM_DEF_INT_ANY(N, T, WU, BITS)                                   \
    TL_HD T tl_sm_upow_##N(T a, T b)                                        \
    {                                                                       \
        WU r = 1, x = (WU)a;                                                \
        while (b) {                                                         \
            if (b & 1) {                                                    \
                r *= x;                                                     \
            }                                                               \
            x *= x;                                                         \
            b = (T)(b >> 1);                                                \
        }                                                                   \
        return (T)r;                                                        \
    }                                                                       \
    TL_HD T tl_sm_maximum_##N(T a, T b) { return a > b ? a : b; }           \
    TL_HD T tl_sm_minimum_##N(T a, T b) { return a < b ? a : b; }           \
    TL_SM_OVL2(maximum, N, T, T)                                            \
    TL_SM_OVL2(minimum, N, T, T)

#define TL_SM_DEF_SIGNED(N, T, WU, BITS)                                    \
    TL_SM_DEF_INT_ANY(N, T, WU, BITS)                                       \
    TL_HD T tl_sm_floor_divide_##N(T a, T b)                                \
    {                                                                       \
        if (b == 0) {                                                       \
            return 0;                                                       \
        }                                                                   \
        if (b == -1) {                                                      \
            return (T)((WU)0 - (WU)a);                                      \
        }                                                                   \
        T q = (T)(a / b);                                                   \
        if ((T)(a % b) != 0 && ((a < 0) != (b < 0))) {                      \
            q = (T)(q - 1);                                                 \
        }                                                                   \
        return q;                                                           \
    }                                                                       \
    TL_HD T tl_sm_remainder_##N(T a, T b)                                   \
    {                                                                       \
        if (b == 0 || b == -1) {                                            \
            return 0;                                                       \
        }                                                                   \
        T r = (T)(a % b);                                                   \
        if (r != 0 && ((r < 0) != (b < 0))) {                               \
            r = (T)(r + b);                                                 \
        }                                                                   \
        return r;                                                           \
    }                                                                       \
    TL_HD T tl_sm_pow_##N(T a, T b)                                         \
    {                                                                       \
        if (b < 0) {                                                        \
            return (T)(a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0);      \
        }                                                                   \
        return tl_sm_upow_##N(a, b);                                        \
    }                                                                       \
    TL_HD T tl_sm_lshift_##N(T a, T b)                                      \
    {                                                                       \
        if (b < 0 || b >= (BITS)) {                                         \
            return 0;                                                       \
        }                                                                   \
        return (T)((WU)a << b);                                             \
    }                                                                       \
    TL_HD T tl_sm_rshift_##N(T a, T b)                                      \
    {                                                                       \
        if (b < 0 || b >= (BITS)) {                                         \
            return (T)(a < 0 ? -1 : 0);                                     \
        }                                                                   \
        return (T)(a >> b);                                                 \
    }                                                                       \
    TL_SM_OVL2(floor_divide, N, T, T)                                       \
    TL_SM_OVL2(remainder, N, T, T)                                          \
    TL_SM_OVL2(pow, N, T, T)                                                \
    TL_SM_OVL2(lshift, N, T, T)                                             \
    TL_SM_OVL2(rshift, N, T, T)

#define TL_SM_DEF_UNSIGNED(N, T, WU, BITS)                                  \
    TL_SM_DEF_INT_ANY(N, T, WU, BITS)                                       \
    TL_HD T tl_sm_floor_divide_##N(T a, T b)                                \
    {                                                                       \
        return b ? (T)(a / b) : (T)0;                                       \
    }                                                                       \
    TL_HD T tl_sm_remainder_##N(T a, T b) { return b ? (T)(a % b) : (T)0; } \
    TL_HD T tl_sm_pow_##N(T a, T b) { return tl_sm_upow_##N(a, b); }        \
    TL_HD T tl_sm_lshift_##N(T a, T b)                                      \
    {                                                                       \
        return b >= (BITS) ? (T)0 : (T)((WU)a << b);                        \
    }                                                                       \
    TL_HD T tl_sm_rshift_##N(T a, T b)                                      \
    {                                                                       \
        return b >= (BITS) ? (T)0 : (T)(a >> b);                            \
    }                                                                       \
    TL_SM_OVL2(floor_divide, N, T, T)                                       \
    TL_SM_OVL2(remainder, N, T, T)                                          \
    TL_SM_OVL2(pow, N, T, T)                                                \
    TL_SM_OVL2(lshift, N, T, T)                                             \
    TL_SM_OVL2(rshift, N, T, T)

TL_SM_DEF_UNSIGNED(u8, uint8_t, uint32_t, 8)
TL_SM_DEF_SIGNED(i8, int8_t, uint32_t, 8)
TL_SM_DEF_SIGNED(i16, int16_t, uint32_t, 16)
TL_SM_DEF_UNSIGNED(u16, uint16_t, uint32_t, 16)
TL_SM_DEF_SIGNED(i32, int32_t, uint32_t, 32)
TL_SM_DEF_UNSIGNED(u32, uint32_t, uint32_t, 32)
TL_SM_DEF_SIGNED(i64, int64_t, uint64_t, 64)
TL_SM_DEF_UNSIGNED(u64, uint64_t, uint64_t, 64)
#undef TL_SM_DEF_SIGNED
#undef TL_SM_DEF_UNSIGNED
#undef TL_SM_DEF_INT_ANY

/* Note [float32 fmod through double]
 * fmod is exact, and glibc's fmodf works through the operands' bits: 18
 * ns an element here, which made float32 fmod, remainder and
 * floor_divide 12-17x PyTorch's time.  For floats the remainder can be
 * formed in double instead.  With A = |a|, B = |b| (24-bit significands)
 * and n an integer, A - n B is 0 or at least 2^min(ea, eb) in size, so
 * A / B is n exactly or at least 2^-48 away from n relatively, far more
 * than the 2^-53 of rounding q = A / B to double: t = trunc(q) is the
 * true quotient's integer part (rounding is monotonic, so never below
 * it either).  With q < 2^24, t * B is exact (24 x 24 bits) and A - t B
 * is exact (a multiple of ulp(B) below B), so the float is fmodf's
 * result bit for bit, signed as a (-0 included).  Larger quotients, zero,
 * infinite and NaN operands take fmodf.  Devices keep their fmodf. */
TL_HD float tl_sm_fmodf_(float a, float b)
{
#ifdef TL_ON_DEVICE
    return fmodf(a, b);
#else
    const double A = fabs((double)a), B = fabs((double)b);
    const double q = A / B;
    if (q < 0x1p24 && B < INFINITY) {
        return copysignf((float)(A - (double)(int64_t)q * B), a);
    }
    return fmodf(a, b);
#endif
}
TL_HD double tl_sm_fmod_(double a, double b) { return fmod(a, b); }

/* ---- real floating point ----------------------------------------------
 * maximum/minimum propagate NaN (a NaN b fails a >= b and is taken; a NaN
 * a is kept by the second test: two blends, which vectorise).  floor
 * division and remainder follow NumPy's npy_divmod: the quotient is
 * (a - fmod(a, b)) / b corrected toward -inf and snapped to an integer;
 * the remainder takes the divisor's sign (+0 or -0 as b). */
#define TL_SM_DEF_FLOAT(N, T, SFX)                                          \
    TL_HD T tl_sm_maximum_##N(T a, T b)                                     \
    {                                                                       \
        const T m = a >= b ? a : b;                                         \
        return a != a ? a : m;                                              \
    }                                                                       \
    TL_HD T tl_sm_minimum_##N(T a, T b)                                     \
    {                                                                       \
        const T m = a <= b ? a : b;                                         \
        return a != a ? a : m;                                              \
    }                                                                       \
    TL_HD T tl_sm_floor_divide_##N(T a, T b)                                \
    {                                                                       \
        if (b == 0) {                                                       \
            return a / b;                                                   \
        }                                                                   \
        const T mod = tl_sm_fmod##SFX##_(a, b);                             \
        T div = (a - mod) / b;                                              \
        if (mod != 0 && ((b < 0) != (mod < 0))) {                           \
            div -= 1;                                                       \
        }                                                                   \
        if (div != 0) {                                                     \
            T fl = floor##SFX(div);                                         \
            if (div - fl > (T)0.5) {                                        \
                fl += 1;                                                    \
            }                                                               \
            return fl;                                                      \
        }                                                                   \
        return copysign##SFX((T)0, a / b);                                  \
    }                                                                       \
    TL_HD T tl_sm_remainder_##N(T a, T b)                                   \
    {                                                                       \
        T mod = tl_sm_fmod##SFX##_(a, b);                                   \
        if (b == 0) {                                                       \
            return mod;                                                     \
        }                                                                   \
        if (mod != 0) {                                                     \
            if ((b < 0) != (mod < 0)) {                                     \
                mod += b;                                                   \
            }                                                               \
        } else {                                                            \
            mod = copysign##SFX((T)0, b);                                   \
        }                                                                   \
        return mod;                                                         \
    }                                                                       \
    TL_SM_OVL2(maximum, N, T, T)                                            \
    TL_SM_OVL2(minimum, N, T, T)                                            \
    TL_SM_OVL2(floor_divide, N, T, T)                                       \
    TL_SM_OVL2(remainder, N, T, T)
TL_SM_DEF_FLOAT(f32, float, f)
TL_SM_DEF_FLOAT(f64, double, )
#undef TL_SM_DEF_FLOAT

/* ---- complex ------------------------------------------------------------
 * NumPy's formulas: the schoolbook product, Smith's quotient (a zero
 * divisor divides by the zero magnitude, giving NumPy's inf/NaN), and
 * exact repeated multiplication for small integer powers. */
typedef struct tl_sm_c64 {
    float re, im;
} tl_sm_c64;
typedef struct tl_sm_c128 {
    double re, im;
} tl_sm_c128;

#define TL_SM_DEF_COMPLEX(N, CT, R)                                         \
    TL_HD CT tl_sm_cmake_##N(R re, R im)                                    \
    {                                                                       \
        CT z;                                                               \
        z.re = re;                                                          \
        z.im = im;                                                          \
        return z;                                                           \
    }                                                                       \
    TL_HD CT tl_sm_cmul_##N(CT a, CT b)                                     \
    {                                                                       \
        return tl_sm_cmake_##N(a.re * b.re - a.im * b.im,                   \
                               a.re * b.im + a.im * b.re);                  \
    }                                                                       \
    TL_HD CT tl_sm_cdiv_##N(CT a, CT b)                                     \
    {                                                                       \
        const R abr = fabs(b.re), abi = fabs(b.im);                         \
        if (abr >= abi) {                                                   \
            if (abr == 0 && abi == 0) {                                     \
                return tl_sm_cmake_##N(a.re / abr, a.im / abr);             \
            }                                                               \
            const R rat = b.im / b.re, scl = (R)1.0 / (b.re + b.im * rat);  \
            return tl_sm_cmake_##N((a.re + a.im * rat) * scl,               \
                                   (a.im - a.re * rat) * scl);              \
        }                                                                   \
        const R rat = b.re / b.im, scl = (R)1.0 / (b.im + b.re * rat);      \
        return tl_sm_cmake_##N((a.re * rat + a.im) * scl,                   \
                               (a.im * rat - a.re) * scl);                  \
    }                                                                       \
    TL_HD CT tl_sm_crecip_##N(CT b)                                         \
    {                                                                       \
        const R abr = fabs(b.re), abi = fabs(b.im);                         \
        if (abr >= abi) {                                                   \
            if (abr == 0 && abi == 0) {                                     \
                return tl_sm_cmake_##N((R)1 / abr, (R)0 / abr);             \
            }                                                               \
            const R rat = b.im / b.re, scl = (R)1 / (b.re + b.im * rat);    \
            return tl_sm_cmake_##N(scl, -rat * scl);                        \
        }                                                                   \
        const R rat = b.re / b.im, scl = (R)1 / (b.im + b.re * rat);        \
        return tl_sm_cmake_##N(rat * scl, -scl);                            \
    }                                                                       \
    /* a ** b where the answer is exact or special (NumPy's cpow): b == 0   \
     * gives 1; a == 0 gives 0 for Re b > 0 (NumPy 2), else NaN; a real     \
     * integer b in (-100, 100) multiplies by squaring.  Returns 1 with     \
     * *r set, or 0: the caller computes exp(b log a) (libm's cpow on the   \
     * CPU, the same formula in CUDA). */                                   \
    TL_HD int tl_sm_cpow_exact_##N(CT a, CT b, CT *r)                       \
    {                                                                       \
        if (b.re == 0 && b.im == 0) {                                       \
            *r = tl_sm_cmake_##N(1, 0);                                     \
            return 1;                                                       \
        }                                                                   \
        if (a.re == 0 && a.im == 0) {                                       \
            *r = b.re > 0 ? tl_sm_cmake_##N(0, 0)                           \
                          : tl_sm_cmake_##N((R)NAN, (R)NAN);                \
            return 1;                                                       \
        }                                                                   \
        if (!(b.im == 0 && b.re > -100 && b.re < 100 &&                     \
              b.re == (R)(int)b.re)) {                                      \
            return 0;                                                       \
        }                                                                   \
        const int n = (int)b.re;                                            \
        if (n == 1) {                                                       \
            *r = a;                                                         \
        } else if (n == 2) {                                                \
            *r = tl_sm_cmul_##N(a, a);                                      \
        } else if (n == 3) {                                                \
            *r = tl_sm_cmul_##N(a, tl_sm_cmul_##N(a, a));                   \
        } else {                                                            \
            unsigned m = (unsigned)(n < 0 ? -n : n);                        \
            CT acc = tl_sm_cmake_##N(1, 0), p = a;                          \
            for (;;) {                                                      \
                if (m & 1u) {                                               \
                    acc = tl_sm_cmul_##N(acc, p);                           \
                }                                                           \
                m >>= 1;                                                    \
                if (!m) {                                                   \
                    break;                                                  \
                }                                                           \
                p = tl_sm_cmul_##N(p, p);                                   \
            }                                                               \
            *r = n < 0 ? tl_sm_cdiv_##N(tl_sm_cmake_##N(1, 0), acc) : acc;  \
        }                                                                   \
        return 1;                                                           \
    }                                                                       \
    TL_SM_OVL2(cmul, N, CT, CT)                                             \
    TL_SM_OVL2(cdiv, N, CT, CT)                                             \
    TL_SM_OVL1(crecip, N, CT, CT)
TL_SM_DEF_COMPLEX(c64, tl_sm_c64, float)
TL_SM_DEF_COMPLEX(c128, tl_sm_c128, double)
#undef TL_SM_DEF_COMPLEX

/* ---- unary functions of the op table (impl SM) -------------------------
 * tl_sm_<name>_<N> for each compute dtype of the row's set, each followed
 * by its TL_SM_OVL1 (docs/adding-an-op.md). */

/* exp2: 2 ** x.  Reals: libm's exp2.  Complex: NumPy's exp(z ln 2), the
 * imaginary part kept exactly when it is 0. */
TL_HD float tl_sm_exp2_f32(float x) { return exp2f(x); }
TL_SM_OVL1(exp2, f32, float, float)
TL_HD double tl_sm_exp2_f64(double x) { return exp2(x); }
TL_SM_OVL1(exp2, f64, double, double)
#define TL_SM_DEF_CEXP2(N, CT, R, SFX)                                      \
    TL_HD CT tl_sm_exp2_##N(CT z)                                           \
    {                                                                       \
        const R ln2 = (R)0.693147180559945309417;                           \
        const R x = z.re * ln2, y = z.im * ln2;                             \
        const R e = exp##SFX(x);                                            \
        if (y == 0) {                                                       \
            return tl_sm_cmake_##N(e, y);                                   \
        }                                                                   \
        return tl_sm_cmake_##N(e * cos##SFX(y), e * sin##SFX(y));           \
    }                                                                       \
    TL_SM_OVL1(exp2, N, CT, CT)
TL_SM_DEF_CEXP2(c64, tl_sm_c64, float, f)
TL_SM_DEF_CEXP2(c128, tl_sm_c128, double, )
#undef TL_SM_DEF_CEXP2

/* ---- double-double: log10, atanh, acosh, sinh, cosh, asinh ----------- */
/* Note [Double-double]
 * Where libm's double function can be 2 ulps off (log10, atanh, acosh,
 * sinh, cosh, asinh: measured with glibc), tensorlib evaluates it as an
 * unevaluated sum hi + lo of two doubles and rounds once at the end, so
 * the result is within 1 ulp (correctly rounded but for arguments whose
 * value lies within about 2^-60 relative of a rounding midpoint).  The
 * blocks are
 * error-free: two_sum gives the rounding error of a sum, fast_two_sum
 * the same when |a| >= |b| (or a == 0), two_prod that of a product
 * through fma (C99 and CUDA both have it; the build's -ffp-contract=off
 * keeps the compiler from fusing anything else, which would break
 * two_sum).
 * log's core follows fdlibm's: x = 2^k m with m in [sqrt(1/2), sqrt(2)),
 * f = m - 1 exact, s = f / (2 + f) as a double-double, and
 * log m = f - f^2/2 + s (f^2/2 + R(s^2)), R(z) = sum 2 z^j / (2j + 1) to
 * j = 12: the truncation is below 2^-70 of log m, the double-double
 * arithmetic far below that.  exp as a double-double corrects libm's
 * E = exp(y) by r = y - log(E) (exact subtraction, log(E) from the core):
 * exp(y) = E (1 + r + r^2/2), |r| ~ 2^-53. */
TL_HD double tl_sm_dd_two_sum_(double a, double b, double *e)
{
    const double s = a + b;
    const double bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}

TL_HD double tl_sm_dd_fast_two_sum_(double a, double b, double *e)
{
    const double s = a + b;
    *e = b - (s - a);
    return s;
}

TL_HD double tl_sm_dd_two_prod_(double a, double b, double *e)
{
    const double p = a * b;
    *e = fma(a, b, -p);
    return p;
}

/* ln 2 as LN2HI + LN2LO, LN2HI with 32 significant bits so that k LN2HI
 * is exact for every binary exponent k; and as a rounded pair. */
#define TL_SM_LN2HI_ 0x1.62e42fee00000p-1
#define TL_SM_LN2LO_ 0x1.a39ef35793c76p-33
#define TL_SM_LN2_ 0x1.62e42fefa39efp-1
#define TL_SM_LN2E_ 0x1.abc9e3b39803fp-56

/* log m, m = x 2^-k in [sqrt(1/2), sqrt(2)), as hi + *lo; writes k.  x
 * positive and finite (subnormals included); else unspecified. */
TL_HD double tl_sm_dd_log_core_(double x, double *lo, int *kout)
{
    int kadj = 0;
    if (x < 0x1p-1022) {
        x *= 0x1p54;
        kadj = -54;
    }
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    /* Adding 1 - frac(sqrt 2) to the fraction carries into the exponent
     * exactly when m would be >= sqrt 2. */
    u += UINT64_C(0x3ff0000000000000) - UINT64_C(0x3fe6a09e667f3bcd);
    *kout = (int)(u >> 52) - 1023 + kadj;
    u = (u & UINT64_C(0x000fffffffffffff)) + UINT64_C(0x3fe6a09e667f3bcd);
    double m;
    memcpy(&m, &u, sizeof m);
    const double f = m - 1.0; /* exact */
    double ffe;
    const double ff = tl_sm_dd_two_prod_(f, f, &ffe);
    const double hfsq = 0.5 * ff, hfsqe = 0.5 * ffe;
    const double d = 2.0 + f; /* d + de == 2 + f exactly */
    const double de = (2.0 - d) + f;
    const double s = f / d;
    double rem;
    const double sp = tl_sm_dd_two_prod_(s, d, &rem);
    const double sl = (((f - sp) - rem) - s * de) / d; /* s + sl = f/(2+f) */
    const double z = s * s;
    double R = 2.0 / 25.0;
    R = R * z + 2.0 / 23.0;
    R = R * z + 2.0 / 21.0;
    R = R * z + 2.0 / 19.0;
    R = R * z + 2.0 / 17.0;
    R = R * z + 2.0 / 15.0;
    R = R * z + 2.0 / 13.0;
    R = R * z + 2.0 / 11.0;
    R = R * z + 2.0 / 9.0;
    R = R * z + 2.0 / 7.0;
    R = R * z + 2.0 / 5.0;
    R = R * z + 2.0 / 3.0;
    R = R * z;
    const double T = hfsq + R;
    double te;
    const double st = tl_sm_dd_two_prod_(s, T, &te);
    const double tail = te + (s * hfsqe + sl * T);
    double l1, l2;
    const double h1 = tl_sm_dd_fast_two_sum_(f, -hfsq, &l1);
    const double h2 = tl_sm_dd_two_sum_(h1, st, &l2);
    *lo = (l1 - hfsqe) + l2 + tail;
    return h2;
}

/* log x as hi + *lo, x positive and finite. */
TL_HD double tl_sm_dd_log_(double x, double *lo)
{
    double l, e;
    int k;
    const double h = tl_sm_dd_log_core_(x, &l, &k);
    const double kd = (double)k;
    const double s = tl_sm_dd_two_sum_(kd * TL_SM_LN2HI_, h, &e);
    return tl_sm_dd_fast_two_sum_(s, e + (l + kd * TL_SM_LN2LO_), lo);
}

/* log1p(xh + xl) as hi + *lo, for xh + xl > -1 with 1 + xh finite:
 * log(u) + log1p(d / u), u = 1 + xh rounded, d what u left out;
 * |d / u| <= 2^-53 + |xl|, so its square is below the pair's accuracy. */
TL_HD double tl_sm_dd_log1p_(double xh, double xl, double *lo)
{
    double d, l, e;
    const double u = tl_sm_dd_two_sum_(1.0, xh, &d);
    d += xl;
    const double h = tl_sm_dd_log_(u, &l);
    const double s = tl_sm_dd_two_sum_(h, d / u, &e);
    return tl_sm_dd_fast_two_sum_(s, e + l, lo);
}

/* exp(y) as hi + *lo; hi is libm's exp(y) (inf or 0 out of range, *lo
 * 0 then). */
TL_HD double tl_sm_dd_exp_(double y, double *lo)
{
    const double E = exp(y);
    if (!(E > 0x1p-1022 && E <= 0x1.fffffffffffffp1023)) {
        *lo = 0.0;
        return E;
    }
    double l;
    const double h = tl_sm_dd_log_(E, &l);
    const double r = (y - h) - l; /* y - h exact: h is within an ulp */
    *lo = E * (r + 0.5 * r * r);
    return E;
}

/* log10: log x as a double-double times 1/ln 10 as one, rounded once;
 * exact powers of ten give their exponent exactly, 1 gives +0. */
TL_HD double tl_sm_log10_f64(double x)
{
    if (!(x > 0.0 && x <= 0x1.fffffffffffffp1023)) {
        if (x == 0.0) {
            return -(double)INFINITY;
        }
        return x < 0.0 ? (double)NAN : x + x; /* inf, NaN */
    }
    const double ivhi = 0x1.bcb7b1526e50ep-2, ivlo = 0x1.95355baaafad3p-57;
    double l, pe;
    const double h = tl_sm_dd_log_(x, &l);
    const double ph = tl_sm_dd_two_prod_(h, ivhi, &pe);
    return ph + (pe + (l * ivhi + h * ivlo));
}
TL_SM_OVL1(log10, f64, double, double)

/* atanh x = (log1p(|x|) - log1p(-|x|)) / 2 with the sign of x, each
 * log1p a double-double; |x| < 2^-28 gives x (x^3/3 is below half an
 * ulp); +-1 give +-inf, |x| > 1 NaN (C99 Annex F). */
TL_HD double tl_sm_atanh_f64(double x)
{
    const double a = fabs(x);
    if (!(a < 1.0)) {
        if (a == 1.0) {
            return x * (double)INFINITY;
        }
        return x != x ? x + x : (double)NAN;
    }
    if (a < 0x1p-28) {
        return x;
    }
    double pl, ml, e;
    const double ph = tl_sm_dd_log1p_(a, 0.0, &pl);
    const double mh = tl_sm_dd_log1p_(-a, 0.0, &ml);
    const double s = tl_sm_dd_fast_two_sum_(-mh, ph, &e); /* -mh >= ph */
    return copysign(0.5 * (s + (e + (pl - ml))), x);
}
TL_SM_OVL1(atanh, f64, double, double)
TL_HD float tl_sm_atanh_f32(float x) { return (float)atanh((double)x); }
TL_SM_OVL1(atanh, f32, float, float)

/* The double-double square root of w + we (w > 0): r + *rl. */
TL_HD double tl_sm_dd_sqrt_(double w, double we, double *rl)
{
    const double r = sqrt(w);
    *rl = (fma(-r, r, w) + we) / (2.0 * r);
    return r;
}

/* acosh x = log(x + sqrt(x^2 - 1)); near 1 as log1p(t + sqrt(2t + t^2)),
 * t = x - 1 exact; above 2^28 log x + ln 2 (the dropped 1 / (4 x^2) is
 * below 2^-58).  All in double-doubles.  x < 1 gives NaN, 1 gives +0,
 * inf inf. */
TL_HD double tl_sm_acosh_f64(double x)
{
    if (!(x > 1.0)) {
        if (x == 1.0) {
            return 0.0;
        }
        return x != x ? x + x : (double)NAN;
    }
    double h, l, e, we, ae, rl;
    if (x > 0x1p28) {
        if (x == (double)INFINITY) {
            return x;
        }
        h = tl_sm_dd_log_(x, &l);
        const double s = tl_sm_dd_fast_two_sum_(h, TL_SM_LN2_, &e);
        return s + (e + (l + TL_SM_LN2E_));
    }
    if (x < 2.0) {
        const double t = x - 1.0;
        double pe;
        const double p = tl_sm_dd_two_prod_(t, t, &pe);
        const double w = tl_sm_dd_fast_two_sum_(2.0 * t, p, &we);
        const double r = tl_sm_dd_sqrt_(w, we + pe, &rl);
        const double a = tl_sm_dd_two_sum_(t, r, &ae);
        h = tl_sm_dd_log1p_(a, ae + rl, &l);
        return h + l;
    }
    double pe;
    const double p = tl_sm_dd_two_prod_(x, x, &pe);
    const double w = tl_sm_dd_fast_two_sum_(p, -1.0, &we);
    const double r = tl_sm_dd_sqrt_(w, we + pe, &rl);
    const double a = tl_sm_dd_fast_two_sum_(x, r, &ae);
    h = tl_sm_dd_log_(a, &l);
    return h + (l + (ae + rl) / a);
}
TL_SM_OVL1(acosh, f64, double, double)
TL_HD float tl_sm_acosh_f32(float x) { return (float)acosh((double)x); }
TL_SM_OVL1(acosh, f32, float, float)

/* e^a / 2 for a >= 22 (e^-a is below half an ulp of it): 2 exp(y)
 * exp(-2 LN2LO), y = a - 2 LN2HI exact, the sum rounded once and doubled
 * exactly, so the result overflows exactly where e^a / 2 does (exp(y)
 * itself stays finite past that).  sinh's and cosh's large branch. */
TL_HD double tl_sm_half_exp_big_(double a)
{
    double el;
    const double eh = tl_sm_dd_exp_(a - 2.0 * TL_SM_LN2HI_, &el);
    if (eh == (double)INFINITY) {
        return eh;
    }
    return 2.0 * (eh + (el - eh * (2.0 * TL_SM_LN2LO_)));
}

/* (e^a + sign e^-a) / 2 for a below 22, both exponentials as
 * double-doubles (e^-a = 1 / (eh + el) = (q + ql)(1 - el / eh)); sign is
 * -1 (sinh) or +1 (cosh). */
TL_HD double tl_sm_half_exp_sum_(double a, double sign)
{
    double el, e;
    const double eh = tl_sm_dd_exp_(a, &el);
    const double q = 1.0 / eh;
    const double ql = fma(-q, eh, 1.0) / eh - q * (el / eh);
    const double s = tl_sm_dd_fast_two_sum_(eh, sign * q, &e);
    return 0.5 * (s + (e + (el + sign * ql)));
}

/* sinh: x below 2^-26; an odd Taylor polynomial below 1/2 (the tail
 * beyond x is under 5% of it, so its rounding costs under 0.2 ulp);
 * (e^a - e^-a) / 2 up to 22, e^a / 2 above.  Odd; NaN, +-0 and +-inf
 * kept. */
TL_HD double tl_sm_sinh_f64(double x)
{
    const double a = fabs(x);
    if (!(a < 22.0)) {
        return a != a ? x + x : copysign(tl_sm_half_exp_big_(a), x);
    }
    if (a < 0x1p-26) {
        return x;
    }
    if (a < 0.5) {
        const double z = a * a;
        double p = 1.0 / 355687428096000.0; /* 1/17! */
        p = p * z + 1.0 / 1307674368000.0;
        p = p * z + 1.0 / 6227020800.0;
        p = p * z + 1.0 / 39916800.0;
        p = p * z + 1.0 / 362880.0;
        p = p * z + 1.0 / 5040.0;
        p = p * z + 1.0 / 120.0;
        p = p * z + 1.0 / 6.0;
        return copysign(a + a * z * p, x);
    }
    return copysign(tl_sm_half_exp_sum_(a, -1.0), x);
}
TL_SM_OVL1(sinh, f64, double, double)
TL_HD float tl_sm_sinh_f32(float x) { return (float)sinh((double)x); }
TL_SM_OVL1(sinh, f32, float, float)

/* cosh: (e^a + e^-a) / 2 below 22, e^a / 2 above (sinh's helpers);
 * even; NaN kept, +-inf give inf. */
TL_HD double tl_sm_cosh_f64(double x)
{
    const double a = fabs(x);
    if (!(a < 22.0)) {
        return a != a ? x + x : tl_sm_half_exp_big_(a);
    }
    return tl_sm_half_exp_sum_(a, 1.0);
}
TL_SM_OVL1(cosh, f64, double, double)
TL_HD float tl_sm_cosh_f32(float x) { return (float)cosh((double)x); }
TL_SM_OVL1(cosh, f32, float, float)

/* asinh |x| = log1p(a + (r - 1)) below 1.5 (r - 1 exact there), else
 * log(a + r), r = sqrt(a^2 + 1), all double-doubles; below 2^-28 x
 * itself (a^3/6 is below half an ulp), above 2^28 log a + ln 2 (the
 * dropped 1 / (4 a^2) is below 2^-58).  Odd; NaN, +-0 and +-inf kept. */
TL_HD double tl_sm_asinh_f64(double x)
{
    const double a = fabs(x);
    double h, l, e, we, pe, rl, te;
    if (!(a <= 0x1p28)) {
        if (!(a <= 0x1.fffffffffffffp1023)) {
            return x + x; /* NaN, +-inf */
        }
        h = tl_sm_dd_log_(a, &l);
        const double s = tl_sm_dd_fast_two_sum_(h, TL_SM_LN2_, &e);
        return copysign(s + (e + (l + TL_SM_LN2E_)), x);
    }
    if (a < 0x1p-28) {
        return x;
    }
    const double p = tl_sm_dd_two_prod_(a, a, &pe);
    const double w = tl_sm_dd_two_sum_(1.0, p, &we);
    const double r = tl_sm_dd_sqrt_(w, we + pe, &rl);
    if (a < 1.5) {
        const double t = tl_sm_dd_two_sum_(a, r - 1.0, &te);
        h = tl_sm_dd_log1p_(t, te + rl, &l);
        return copysign(h + l, x);
    }
    const double t = tl_sm_dd_fast_two_sum_(r, a, &te);
    h = tl_sm_dd_log_(t, &l);
    return copysign(h + (l + (te + rl) / t), x);
}
TL_SM_OVL1(asinh, f64, double, double)
TL_HD float tl_sm_asinh_f32(float x) { return (float)asinh((double)x); }
TL_SM_OVL1(asinh, f32, float, float)

/* ---- issue 18: more real functions (set F unless noted) ---------------
 * One TL_SM_DEF_F1(name, f32 expr, f64 expr) per function: libm where C99
 * and CUDA both have it (Annex F special values come from it); the float32
 * versions of sinc and digamma compute in double and round once. */
#define TL_SM_DEF_F1(NAME, E32, E64)                                        \
    TL_HD float tl_sm_##NAME##_f32(float x) { return (E32); }               \
    TL_SM_OVL1(NAME, f32, float, float)                                     \
    TL_HD double tl_sm_##NAME##_f64(double x) { return (E64); }             \
    TL_SM_OVL1(NAME, f64, double, double)
/* The float32 inverse and hyperbolic functions (these three here, the
 * others beside their double-double float64 versions above) compute in
 * double with libm and round once: libm's double functions are within 2 double ulps, so the
 * float is within 1 float ulp (glibc's sinhf, coshf, acoshf and atanhf
 * reach 2).  The double's range covers float32's overflow: cosh(89.5f)
 * rounds to inf as a float. */
TL_SM_DEF_F1(asin, (float)asin((double)x), asin(x))
TL_SM_DEF_F1(acos, (float)acos((double)x), acos(x))
TL_SM_DEF_F1(atan, (float)atan((double)x), atan(x))
TL_SM_DEF_F1(deg2rad, x * (float)(3.14159265358979323846 / 180.0),
             x * (3.14159265358979323846 / 180.0))
TL_SM_DEF_F1(rad2deg, x * (float)(180.0 / 3.14159265358979323846),
             x * (180.0 / 3.14159265358979323846))
TL_SM_DEF_F1(erf, erff(x), erf(x))
TL_SM_DEF_F1(erfc, erfcf(x), erfc(x))
/* lgamma: glibc's also stores the sign in the global signgam (a benign
 * write; the value returned does not depend on it). */
TL_SM_DEF_F1(lgamma, lgammaf(x), lgamma(x))
/* logit: log(x / (1 - x)) (eps=None): 0 -> -inf, 1 -> inf, outside
 * [0, 1] NaN.  PyTorch's formula as written loses everything near x =
 * 1/2, where the quotient is 1 + (2x - 1) / (1 - x) and its rounding is
 * all of the tiny result (131,022 float32 ulps at 0.5 + 2^-24): on
 * [1/4, 3/4] it is log1p((2x - 1) / (1 - x)) with 2x - 1 exact (and
 * 1 - x exact above 1/2), elsewhere the result is beyond log 3 and the
 * plain quotient is fine.  float32 computes in double, rounded once. */
TL_HD double tl_sm_logit_f64(double x)
{
    if (x >= 0.25 && x <= 0.75) {
        return log1p((2.0 * x - 1.0) / (1.0 - x));
    }
    return log(x / (1.0 - x));
}
TL_SM_OVL1(logit, f64, double, double)
TL_HD float tl_sm_logit_f32(float x) { return (float)tl_sm_logit_f64(x); }
TL_SM_OVL1(logit, f32, float, float)
/* frac: x - trunc(x) with the sign of x; +-inf give NaN (PyTorch). */
TL_SM_DEF_F1(frac, x - truncf(x), x - trunc(x))

/* sinc: sin(pi x) / (pi x), 1 at 0 (NumPy's np.sinc); +-inf give NaN.
 * sin(pi x) is sin(pi t) for t = x reduced exactly into [-1/2, 1/2]
 * (x - 2 round(x / 2), then 1 - r or -1 - r: both exact), so the rounding
 * of pi x never reaches the sine: NumPy's and PyTorch's sin(pi x) with x
 * = 10^5 lose about 18 bits, and give 3.9e-17 for sinc(1), which is 0.
 * Every double from 2^52 up is an integer: +0, as every integer. */
TL_HD double tl_sm_sinc_f64(double x)
{
    if (x == 0) {
        return 1.0;
    }
    if (!(fabs(x) < 0x1p52)) {
        return x - x == 0 ? 0.0 : x - x; /* NaN for +-inf and NaN */
    }
    const double r = x - 2.0 * round(x * 0.5);       /* [-1, 1], exact */
    const double t = r > 0.5 ? 1.0 - r : r < -0.5 ? -1.0 - r : r;
    if (t == 0) {
        return 0.0; /* an integer: +0 on both sides */
    }
    return sin(3.14159265358979323846 * t) / (3.14159265358979323846 * x);
}
TL_SM_OVL1(sinc, f64, double, double)
TL_HD float tl_sm_sinc_f32(float x) { return (float)tl_sm_sinc_f64(x); }
TL_SM_OVL1(sinc, f32, float, float)

/* erfinv: the inverse of erf on [-1, 1]; +-1 give +-inf, outside NaN.
 * Giles' single-precision polynomial ("Approximating the erfinv function",
 * GPU Gems 4) as the start, then Newton steps on erf (or erfc for |y| >
 * 0.5, where 1 - |y| is exact) in double: converged to double accuracy. */
TL_HD double tl_sm_erfinv_f64(double y)
{
    const double ay = fabs(y);
    if (!(ay <= 1.0)) {
        return NAN;
    }
    if (ay == 1.0) {
        return copysign((double)INFINITY, y);
    }
    if (y == 0) {
        return y;
    }
    double w = -log((1.0 - y) * (1.0 + y)), p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    } else {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    double x = p * ay;
    const double two_over_sqrtpi = 1.12837916709551257390;
    /* The start is good to float precision where Giles fitted it (1 - |y|
     * above about 2^-30); closer to 1 it is off by up to 3 %, which three
     * fixed steps did not mend (erfinv(1 - 2^-53) came out 5.709 for
     * 5.864).  So iterate until the step is below an ulp: Halley's
     * cubic convergence takes 2-3 steps from a good start, 5-6 from the
     * worst. */
    for (int k = 0; k < 10; k++) {
        const double d = two_over_sqrtpi * exp(-x * x);
        if (!(d > 0)) {
            break;
        }
        const double f = ay > 0.5 ? (1.0 - ay) - erfc(x) : erf(x) - ay;
        const double step = f / (d + x * f); /* Halley: erf''/erf' = -2x */
        x -= step;
        if (!(fabs(step) > 0x1p-53 * x)) {
            break;
        }
    }
    return copysign(x, y);
}
TL_SM_OVL1(erfinv, f64, double, double)
TL_HD float tl_sm_erfinv_f32(float y) { return (float)tl_sm_erfinv_f64(y); }
TL_SM_OVL1(erfinv, f32, float, float)

/* digamma: 0 gives -inf with the sign of -x (PyTorch), a negative integer
 * NaN, -inf NaN, +inf inf.  Reflection psi(1-x) - pi / tan(pi x) below 0,
 * the recurrence up to x >= 10, then the asymptotic series. */
TL_HD double tl_sm_digamma_f64(double x)
{
    const double pi = 3.14159265358979323846;
    if (x == 0) {
        return copysign((double)INFINITY, -x);
    }
    if (x != x || x == -(double)INFINITY) {
        return NAN;
    }
    if (x == (double)INFINITY) {
        return x;
    }
    double r = 0;
    if (x < 0) {
        if (x == floor(x)) {
            return NAN;
        }
        /* tan has period pi: reduce x exactly to q = x - round(x) in
         * [-0.5, 0.5] first (tiny x stays itself, so -pi / tan(pi x) is
         * -1 / x there). */
        const double q = x - floor(x + 0.5);
        r = -pi / tan(pi * q);
        x = 1.0 - x;
    }
    while (x < 10.0) {
        r -= 1.0 / x;
        x += 1.0;
    }
    const double z = 1.0 / (x * x);
    const double s =
        z * (1.0 / 12 -
             z * (1.0 / 120 -
                  z * (1.0 / 252 -
                       z * (1.0 / 240 -
                            z * (1.0 / 132 - z * (691.0 / 32760 -
                                                  z * (1.0 / 12)))))));
    return r + log(x) - 0.5 / x - s;
}
TL_SM_OVL1(digamma, f64, double, double)
TL_HD float tl_sm_digamma_f32(float x) { return (float)tl_sm_digamma_f64(x); }
TL_SM_OVL1(digamma, f32, float, float)
#undef TL_SM_DEF_F1

/* Bit tests, set BZF with a bool result: signbit (-0.0 and -NaN too),
 * isposinf, isneginf; isreal (set BZFC): true for every real dtype, for
 * complex where the imaginary part is 0.  (positive is not a table op:
 * it returns its input itself, as PyTorch; tensorlib/_complex.py.) */
#define TL_SM_DEF_TESTS(N, T, SGN)                                          \
    TL_HD uint8_t tl_sm_signbit_##N(T x) { return (uint8_t)(SGN); }         \
    TL_HD uint8_t tl_sm_isposinf_##N(T x) { return (void)x, 0; }            \
    TL_HD uint8_t tl_sm_isneginf_##N(T x) { return (void)x, 0; }            \
    TL_HD uint8_t tl_sm_isreal_##N(T x) { return (void)x, 1; }              \
    TL_SM_OVL1(signbit, N, uint8_t, T)                                      \
    TL_SM_OVL1(isposinf, N, uint8_t, T)                                     \
    TL_SM_OVL1(isneginf, N, uint8_t, T)                                     \
    TL_SM_OVL1(isreal, N, uint8_t, T)
TL_SM_DEF_TESTS(u8, uint8_t, x & 0u)
TL_SM_DEF_TESTS(i8, int8_t, x < 0)
TL_SM_DEF_TESTS(i16, int16_t, x < 0)
TL_SM_DEF_TESTS(u16, uint16_t, x & 0u)
TL_SM_DEF_TESTS(i32, int32_t, x < 0)
TL_SM_DEF_TESTS(u32, uint32_t, x & 0u)
TL_SM_DEF_TESTS(i64, int64_t, x < 0)
TL_SM_DEF_TESTS(u64, uint64_t, x & 0u)
#undef TL_SM_DEF_TESTS
/* bool (T_b is uint8_t, as u8): its own names, no C++ overload (the
 * functor's bool instantiation would collide with u8's). */
TL_HD uint8_t tl_sm_signbit_b(uint8_t x) { return (void)x, 0; }
TL_HD uint8_t tl_sm_isposinf_b(uint8_t x) { return (void)x, 0; }
TL_HD uint8_t tl_sm_isneginf_b(uint8_t x) { return (void)x, 0; }
TL_HD uint8_t tl_sm_isreal_b(uint8_t x) { return (void)x, 1; }
#define TL_SM_DEF_FTESTS(N, T, SFX)                                         \
    TL_HD uint8_t tl_sm_signbit_##N(T x) { return signbit(x) != 0; }        \
    TL_HD uint8_t tl_sm_isposinf_##N(T x) { return x == (T)INFINITY; }      \
    TL_HD uint8_t tl_sm_isneginf_##N(T x) { return x == -(T)INFINITY; }     \
    TL_HD uint8_t tl_sm_isreal_##N(T x) { return (void)x, 1; }              \
    TL_SM_OVL1(signbit, N, uint8_t, T)                                      \
    TL_SM_OVL1(isposinf, N, uint8_t, T)                                     \
    TL_SM_OVL1(isneginf, N, uint8_t, T)                                     \
    TL_SM_OVL1(isreal, N, uint8_t, T)
TL_SM_DEF_FTESTS(f32, float, f)
TL_SM_DEF_FTESTS(f64, double, )
#undef TL_SM_DEF_FTESTS
#define TL_SM_DEF_CTESTS(N, CT)                                             \
    TL_HD uint8_t tl_sm_isreal_##N(CT z) { return z.im == 0; }              \
    TL_SM_OVL1(isreal, N, uint8_t, CT)
TL_SM_DEF_CTESTS(c64, tl_sm_c64)
TL_SM_DEF_CTESTS(c128, tl_sm_c128)
#undef TL_SM_DEF_CTESTS

/* ---- issue 18: binary functions ---------------------------------------
 * Reals (set F) through libm where C99 and CUDA share the function;
 * logaddexp/logaddexp2 are NumPy's (equal arguments give x + log 2, so
 * inf + inf stays inf); xlogy is PyTorch's (0 * log(y) is 0 unless y is
 * NaN); ldexp(x, e) scales by 2**e exactly for an integral e (PyTorch
 * accepts any e: x * 2**e); fmax/fmin ignore one NaN as C's fmax does,
 * written as selects that vectorise (a libm call per element did not:
 * 1.9 ns per float against NumPy's 0.12), with glibc's answers for
 * equal operands (the second one: fmax(-0.0, +0.0) is +0.0, as x86's
 * maxsd gives it); heaviside gives `other` at 0 and keeps a NaN input. */
#define TL_SM_DEF_F2(N, T, SFX, LN2)                                        \
    TL_HD T tl_sm_atan2_##N(T a, T b) { return atan2##SFX(a, b); }          \
    TL_HD T tl_sm_hypot_##N(T a, T b) { return hypot##SFX(a, b); }          \
    TL_HD T tl_sm_copysign_##N(T a, T b) { return copysign##SFX(a, b); }    \
    TL_HD T tl_sm_nextafter_##N(T a, T b) { return nextafter##SFX(a, b); }  \
    TL_HD T tl_sm_fmax_##N(T a, T b) { return a > b || b != b ? a : b; }    \
    TL_HD T tl_sm_fmin_##N(T a, T b) { return a < b || b != b ? a : b; }    \
    TL_HD T tl_sm_fmod_##N(T a, T b) { return tl_sm_fmod##SFX##_(a, b); }   \
    TL_HD T tl_sm_logaddexp_##N(T a, T b)                                   \
    {                                                                       \
        if (a == b) {                                                       \
            return a + (T)LN2;                                              \
        }                                                                   \
        const T d = a - b;                                                  \
        if (d > 0) {                                                        \
            return a + log1p##SFX(exp##SFX(-d));                            \
        }                                                                   \
        if (d <= 0) {                                                       \
            return b + log1p##SFX(exp##SFX(d));                             \
        }                                                                   \
        return d; /* NaN */                                                 \
    }                                                                       \
    TL_HD T tl_sm_logaddexp2_##N(T a, T b)                                  \
    {                                                                       \
        if (a == b) {                                                       \
            return a + 1;                                                   \
        }                                                                   \
        const T d = a - b;                                                  \
        if (d > 0) {                                                        \
            return a + log1p##SFX(exp2##SFX(-d)) / (T)LN2;                  \
        }                                                                   \
        if (d <= 0) {                                                       \
            return b + log1p##SFX(exp2##SFX(d)) / (T)LN2;                   \
        }                                                                   \
        return d;                                                           \
    }                                                                       \
    TL_HD T tl_sm_xlogy_##N(T a, T b)                                       \
    {                                                                       \
        if (b != b) {                                                       \
            return b;                                                       \
        }                                                                   \
        if (a == 0) {                                                       \
            return 0;                                                       \
        }                                                                   \
        return a * log##SFX(b);                                             \
    }                                                                       \
    TL_HD T tl_sm_ldexp_##N(T a, T b)                                       \
    {                                                                       \
        if (b == floor##SFX(b)) {                                           \
            const T c = b > 9999 ? (T)9999 : b < -9999 ? (T)-9999 : b;      \
            return ldexp##SFX(a, (int)c);                                   \
        }                                                                   \
        return a * exp2##SFX(b);                                            \
    }                                                                       \
    TL_HD T tl_sm_heaviside_##N(T a, T b)                                   \
    {                                                                       \
        return a == 0 ? b : a != a ? a : (T)(a > 0);                        \
    }                                                                       \
    TL_SM_OVL2(atan2, N, T, T)                                              \
    TL_SM_OVL2(hypot, N, T, T)                                              \
    TL_SM_OVL2(copysign, N, T, T)                                           \
    TL_SM_OVL2(nextafter, N, T, T)                                          \
    TL_SM_OVL2(fmax, N, T, T)                                               \
    TL_SM_OVL2(fmin, N, T, T)                                               \
    TL_SM_OVL2(fmod, N, T, T)                                               \
    TL_SM_OVL2(logaddexp, N, T, T)                                          \
    TL_SM_OVL2(logaddexp2, N, T, T)                                         \
    TL_SM_OVL2(xlogy, N, T, T)                                              \
    TL_SM_OVL2(ldexp, N, T, T)                                              \
    TL_SM_OVL2(heaviside, N, T, T)
TL_SM_DEF_F2(f32, float, f, 0.693147180559945309417f)
TL_SM_DEF_F2(f64, double, , 0.693147180559945309417)
#undef TL_SM_DEF_F2

/* nextafter of float16 / bfloat16 in the dtype itself (issue 18: the
 * bit-level functions step in their own format, as PyTorch; a float32
 * step would round back to the input).  Both formats are sign and
 * magnitude, so one step away from zero adds 1 to the bits and one step
 * toward zero subtracts 1; from a zero the step is the smallest
 * subnormal with the sign of y; x == y gives y (C99: nextafter(0, -0) is
 * -0); a NaN operand gives a NaN.  fx, fy are the operands' exact float
 * values. */
TL_HD uint16_t tl_sm_nextafter_bits16(uint16_t x, uint16_t y, float fx,
                                      float fy)
{
    if (fx != fx) {
        return x;
    }
    if (fy != fy) {
        return y;
    }
    if (fx == fy) {
        return y;
    }
    if (fx == 0.0f) {
        return (uint16_t)((y & 0x8000u) | 1u);
    }
    const int away = (fx < fy) == (fx > 0.0f);
    return (uint16_t)(away ? x + 1u : x - 1u);
}

TL_HD uint16_t tl_sm_nextafter_f16(uint16_t x, uint16_t y)
{
    return tl_sm_nextafter_bits16(x, y, tl_sm_half_to_float(x),
                                  tl_sm_half_to_float(y));
}

TL_HD uint16_t tl_sm_nextafter_bf16(uint16_t x, uint16_t y)
{
    return tl_sm_nextafter_bits16(x, y, tl_sm_bf16_to_float(x),
                                  tl_sm_bf16_to_float(y));
}

/* Integers: fmod truncates (C's %: the sign of the dividend; x % -1 and
 * the zero divisor the entry point refuses give 0); gcd >= 0 by Euclid on
 * magnitudes (wrapping at the minimum, as PyTorch); lcm |a| / gcd * |b|
 * wrapping in the type (NumPy), 0 when either is 0; fmax/fmin/heaviside as for floats. */
/* |v| as U (wrapping at the minimum); SIGNED is 1 or 0. */
#define TL_SM_ABS_1(T, U, v) ((v) < (T)0 ? (U)0 - (U)(v) : (U)(v))
#define TL_SM_ABS_0(T, U, v) ((U)(v))
#define TL_SM_DEF_Z2(N, T, U, SIGNED)                                       \
    TL_HD T tl_sm_fmod_##N(T a, T b)                                        \
    {                                                                       \
        if (b == 0 || (SIGNED && b == (T)-1)) { /* -1: INT_MIN % -1 */      \
            return 0;                                                       \
        }                                                                   \
        return (T)(a % b);                                                  \
    }                                                                       \
    TL_HD T tl_sm_gcd_##N(T a, T b)                                         \
    {                                                                       \
        U x = TL_SM_ABS_##SIGNED(T, U, a), y = TL_SM_ABS_##SIGNED(T, U, b);  \
        while (y) {                                                         \
            const U t = x % y;                                              \
            x = y;                                                          \
            y = t;                                                          \
        }                                                                   \
        return (T)x;                                                        \
    }                                                                       \
    TL_HD T tl_sm_lcm_##N(T a, T b)                                         \
    {                                                                       \
        const T g = tl_sm_gcd_##N(a, b);                                    \
        if (g == 0) {                                                       \
            return 0;                                                       \
        }                                                                   \
        return (T)(TL_SM_ABS_##SIGNED(T, U, a) / (U)g *                     \
                   TL_SM_ABS_##SIGNED(T, U, b));                            \
    }                                                                       \
    TL_HD T tl_sm_fmax_##N(T a, T b) { return a > b ? a : b; }              \
    TL_HD T tl_sm_fmin_##N(T a, T b) { return a < b ? a : b; }              \
    TL_HD T tl_sm_heaviside_##N(T a, T b)                                   \
    {                                                                       \
        return a == 0 ? b : (T)(a > 0);                                     \
    }                                                                       \
    TL_SM_OVL2(fmod, N, T, T)                                               \
    TL_SM_OVL2(gcd, N, T, T)                                                \
    TL_SM_OVL2(lcm, N, T, T)                                                \
    TL_SM_OVL2(fmax, N, T, T)                                               \
    TL_SM_OVL2(fmin, N, T, T)                                               \
    TL_SM_OVL2(heaviside, N, T, T)
TL_SM_DEF_Z2(u8, uint8_t, uint32_t, 0)
TL_SM_DEF_Z2(i8, int8_t, uint32_t, 1)
TL_SM_DEF_Z2(i16, int16_t, uint32_t, 1)
TL_SM_DEF_Z2(u16, uint16_t, uint32_t, 0)
TL_SM_DEF_Z2(i32, int32_t, uint32_t, 1)
TL_SM_DEF_Z2(u32, uint32_t, uint32_t, 0)
TL_SM_DEF_Z2(i64, int64_t, uint64_t, 1)
TL_SM_DEF_Z2(u64, uint64_t, uint64_t, 0)
#undef TL_SM_DEF_Z2
#undef TL_SM_ABS_1
#undef TL_SM_ABS_0
TL_HD uint8_t tl_sm_fmax_b(uint8_t a, uint8_t b) { return a | b; }
TL_HD uint8_t tl_sm_fmin_b(uint8_t a, uint8_t b) { return a & b; }
TL_HD uint8_t tl_sm_heaviside_b(uint8_t a, uint8_t b) { return a ? 1 : b; }

/* ---- complex inverse trigonometric and hyperbolic functions -----------
 * asin, acos, atan, asinh, acosh, atanh of complex64/complex128 with the
 * branch cuts and special values of C99 Annex G (as NumPy).  Finite
 * arguments take Kahan's formulas ("Branch cuts for complex elementary
 * functions", 1987), which never square z (no overflow below the largest
 * double) and get the side of a cut from the sign of a zero through
 * sqrt(1 - z) and sqrt(1 + z); infinities and NaNs take Annex G's tables
 * (casinh, cacos, cacosh, catanh; asin(z) = -i asinh(iz), atan(z) =
 * -i atanh(iz)).  complex64 computes in double and rounds once. */
#define TL_SM_PI_ 3.14159265358979323846
/* sqrt of a finite z, principal branch; sqrt(x - 0i) = conj sqrt(x + 0i). */
TL_HD tl_sm_c128 tl_sm_csqrt_fin_c128(tl_sm_c128 z)
{
    double x = z.re, y = z.im, sc = 1;
    if (x == 0 && y == 0) {
        return tl_sm_cmake_c128(0, y);
    }
    if (fabs(x) > 1e300 || fabs(y) > 1e300) { /* |x| + hypot overflows */
        x *= 0.25;
        y *= 0.25;
        sc = 2;
    } else if (fabs(x) < 1e-300 && fabs(y) < 1e-300) { /* subnormal bits */
        x *= 0x1p600;
        y *= 0x1p600;
        sc = 0x1p-300;
    }
    const double t = sqrt((fabs(x) + hypot(x, y)) * 0.5);
    if (x >= 0) {
        return tl_sm_cmake_c128(sc * t, sc * (y / (2 * t)));
    }
    return tl_sm_cmake_c128(sc * (fabs(y) / (2 * t)), sc * copysign(t, y));
}
/* Annex G casinh on |x| + i|y| (signs restored by the caller); finite
 * arguments never reach it. */
TL_HD tl_sm_c128 tl_sm_casinh_special_(double x, double y)
{
    const double nan = (double)NAN, inf = (double)INFINITY;
    if (isnan(x)) {
        if (isinf(y)) {
            return tl_sm_cmake_c128(inf, nan);
        }
        return tl_sm_cmake_c128(nan, y == 0 ? y : nan);
    }
    if (isinf(x)) {
        if (isnan(y)) {
            return tl_sm_cmake_c128(inf, nan);
        }
        return tl_sm_cmake_c128(inf, isinf(y) ? TL_SM_PI_ / 4 : 0.0);
    }
    /* finite x */
    if (isinf(y)) {
        return tl_sm_cmake_c128(inf, TL_SM_PI_ / 2);
    }
    return tl_sm_cmake_c128(nan, nan); /* y NaN */
}
TL_HD tl_sm_c128 tl_sm_asinh_c128(tl_sm_c128 z)
{
    const double x = z.re, y = z.im;
    if (!isfinite(x) || !isfinite(y)) {
        const tl_sm_c128 r = tl_sm_casinh_special_(fabs(x), fabs(y));
        return tl_sm_cmake_c128(copysign(r.re, x), copysign(r.im, y));
    }
    if (fabs(x) < 1e-9 && fabs(y) < 1e-9) {
        return z; /* asinh(z) = z - z^3/6 + ...: z to within 2^-59 */
    }
    /* asinh(z) = -i asin(iz); asin(w): re = atan2(Re w, Re(s1 s2)),
     * im = asinh(Im(conj(s1) s2)), s1 = sqrt(1 - w), s2 = sqrt(1 + w). */
    const tl_sm_c128 w = tl_sm_cmake_c128(-y, x);
    const tl_sm_c128 s1 = tl_sm_csqrt_fin_c128(tl_sm_cmake_c128(1 - w.re, -w.im));
    const tl_sm_c128 s2 = tl_sm_csqrt_fin_c128(tl_sm_cmake_c128(1 + w.re, w.im));
    const double are = atan2(w.re, s1.re * s2.re - s1.im * s2.im);
    const double aim = asinh(s1.re * s2.im - s1.im * s2.re);
    return tl_sm_cmake_c128(aim, -are);
}
TL_HD tl_sm_c128 tl_sm_asin_c128(tl_sm_c128 z)
{
    /* asin(z) = -i asinh(iz) */
    const tl_sm_c128 r = tl_sm_asinh_c128(tl_sm_cmake_c128(-z.im, z.re));
    return tl_sm_cmake_c128(r.im, -r.re);
}
TL_HD tl_sm_c128 tl_sm_acos_c128(tl_sm_c128 z)
{
    const double x = z.re, y = z.im, nan = (double)NAN, inf = (double)INFINITY;
    if (!isfinite(x) || !isfinite(y)) { /* Annex G cacos */
        double re, im;
        if (isnan(x)) {
            re = nan;
            im = isinf(y) ? -inf : nan;
        } else if (isinf(x)) {
            if (isnan(y)) {
                re = nan;
                im = inf; /* sign unspecified */
            } else if (isinf(y)) {
                re = x > 0 ? TL_SM_PI_ / 4 : 3 * TL_SM_PI_ / 4;
                im = -inf;
            } else {
                re = x > 0 ? 0.0 : TL_SM_PI_;
                im = -inf;
            }
        } else if (isinf(y)) {
            re = TL_SM_PI_ / 2;
            im = -inf;
        } else { /* finite x, NaN y */
            re = x == 0 ? TL_SM_PI_ / 2 : nan;
            im = nan;
        }
        /* cacos(conj z) = conj cacos(z) */
        return tl_sm_cmake_c128(re, signbit(y) ? -im : im);
    }
    if (fabs(x) < 1e-9 && fabs(y) < 1e-9) { /* pi/2 - z */
        return tl_sm_cmake_c128(TL_SM_PI_ / 2 - x, -y);
    }
    /* re = 2 atan2(Re s1, Re s2), im = asinh(Im(conj(s2) s1)),
     * s1 = sqrt(1 - z), s2 = sqrt(1 + z). */
    const tl_sm_c128 s1 = tl_sm_csqrt_fin_c128(tl_sm_cmake_c128(1 - x, -y));
    const tl_sm_c128 s2 = tl_sm_csqrt_fin_c128(tl_sm_cmake_c128(1 + x, y));
    return tl_sm_cmake_c128(2 * atan2(s1.re, s2.re),
                            asinh(s2.re * s1.im - s2.im * s1.re));
}
TL_HD tl_sm_c128 tl_sm_acosh_c128(tl_sm_c128 z)
{
    const double x = z.re, y = z.im, nan = (double)NAN, inf = (double)INFINITY;
    if (!isfinite(x) || !isfinite(y)) { /* Annex G cacosh */
        double re, im;
        if (isnan(x)) {
            re = isinf(y) ? inf : nan;
            im = nan;
        } else if (isinf(x)) {
            re = inf;
            if (isnan(y)) {
                im = nan;
            } else if (isinf(y)) {
                im = x > 0 ? TL_SM_PI_ / 4 : 3 * TL_SM_PI_ / 4;
            } else {
                im = x > 0 ? 0.0 : TL_SM_PI_;
            }
        } else if (isinf(y)) {
            re = inf;
            im = TL_SM_PI_ / 2;
        } else if (x == 0) { /* NumPy: acosh(+-0 + NaN i) = NaN + pi/2 i */
            return tl_sm_cmake_c128(nan, TL_SM_PI_ / 2);
        } else {
            re = nan;
            im = nan;
        }
        return tl_sm_cmake_c128(re, signbit(y) ? -im : im);
    }
    if (fabs(x) < 1e-9 && fabs(y) < 1e-9) { /* i acos(z), conj-symmetric */
        return tl_sm_cmake_c128(fabs(y), copysign(TL_SM_PI_ / 2 - x, y));
    }
    /* re = asinh(Re(conj(s1) s2)), im = 2 atan2(Im s1, Re s2),
     * s1 = sqrt(z - 1), s2 = sqrt(z + 1). */
    const tl_sm_c128 s1 = tl_sm_csqrt_fin_c128(tl_sm_cmake_c128(x - 1, y));
    const tl_sm_c128 s2 = tl_sm_csqrt_fin_c128(tl_sm_cmake_c128(x + 1, y));
    return tl_sm_cmake_c128(asinh(s1.re * s2.re + s1.im * s2.im),
                            2 * atan2(s1.im, s2.re));
}
TL_HD tl_sm_c128 tl_sm_atanh_c128(tl_sm_c128 z)
{
    const double x = z.re, y = z.im, nan = (double)NAN;
    const double ax = fabs(x), ay = fabs(y);
    double re, im;
    if (!isfinite(x) || !isfinite(y)) { /* Annex G catanh on |x| + i|y| */
        if (isnan(x)) {
            re = isinf(y) ? 0.0 : nan;
            im = isinf(y) ? TL_SM_PI_ / 2 : nan;
        } else if (isinf(x)) {
            re = 0.0;
            im = isnan(y) ? nan : TL_SM_PI_ / 2;
        } else if (isinf(y)) {
            re = 0.0;
            im = TL_SM_PI_ / 2;
        } else { /* finite x, NaN y */
            re = x == 0 ? 0.0 : nan;
            im = nan;
        }
    } else if (ax > 1e150 || ay > 1e150) {
        /* atanh(z) = 1/z + i pi/2 + O(1/z^3): Re(1/z) without squaring */
        const double s = ax > ay ? ax : ay;
        const double u = ax / s, v = ay / s;
        re = (u / (u * u + v * v)) / s;
        im = TL_SM_PI_ / 2;
    } else if (ax < 1e-9 && ay < 1e-9) {
        return z; /* atanh(z) = z + z^3/3 + ... */
    } else {
        /* re = log1p(4|x| / ((1 - |x|)^2 + y^2)) / 4,
         * im = atan2(2|y|, (1 - |x|)(1 + |x|) - y^2) / 2; near z = +-1
         * the squares would underflow: re = log(4|x|) / 4 - log(h) / 2
         * with h = hypot(1 - |x|, y). */
        const double h = hypot(1 - ax, ay);
        if (h == 0) {
            re = (double)INFINITY;
        } else if (h < 1e-100) {
            re = 0.25 * log(4 * ax) - 0.5 * log(h);
        } else {
            re = 0.25 * log1p(4 * ax / ((1 - ax) * (1 - ax) + ay * ay));
        }
        im = 0.5 * atan2(2 * ay, (1 - ax) * (1 + ax) - ay * ay);
    }
    return tl_sm_cmake_c128(copysign(re, x), copysign(im, y));
}
TL_HD tl_sm_c128 tl_sm_atan_c128(tl_sm_c128 z)
{
    /* atan(z) = -i atanh(iz) */
    const tl_sm_c128 r = tl_sm_atanh_c128(tl_sm_cmake_c128(-z.im, z.re));
    return tl_sm_cmake_c128(r.im, -r.re);
}
#define TL_SM_DEF_CINV_C64(NAME)                                            \
    TL_HD tl_sm_c64 tl_sm_##NAME##_c64(tl_sm_c64 z)                         \
    {                                                                       \
        const tl_sm_c128 r =                                                \
            tl_sm_##NAME##_c128(tl_sm_cmake_c128(z.re, z.im));              \
        return tl_sm_cmake_c64((float)r.re, (float)r.im);                   \
    }                                                                       \
    TL_SM_OVL1(NAME, c128, tl_sm_c128, tl_sm_c128)                          \
    TL_SM_OVL1(NAME, c64, tl_sm_c64, tl_sm_c64)
TL_SM_DEF_CINV_C64(asin)
TL_SM_DEF_CINV_C64(acos)
TL_SM_DEF_CINV_C64(atan)
TL_SM_DEF_CINV_C64(asinh)
TL_SM_DEF_CINV_C64(acosh)
TL_SM_DEF_CINV_C64(atanh)
#undef TL_SM_DEF_CINV_C64
#undef TL_SM_PI_

/* float_power (result rule DOUBLE): only the float64 and complex128
 * functions run (the op computes in them); the float32/complex64 ones
 * exist because the set names the class.  Complex: NumPy's cpow, the
 * exact cases of tl_sm_cpow_exact, else exp(b log a). */
TL_HD float tl_sm_float_power_f32(float a, float b) { return powf(a, b); }
TL_SM_OVL2(float_power, f32, float, float)
TL_HD double tl_sm_float_power_f64(double a, double b) { return pow(a, b); }
TL_SM_OVL2(float_power, f64, double, double)
#define TL_SM_DEF_FLOAT_POWER_C(N, CT, R, SFX)                              \
    TL_HD CT tl_sm_float_power_##N(CT a, CT b)                              \
    {                                                                       \
        CT r;                                                               \
        if (tl_sm_cpow_exact_##N(a, b, &r)) {                               \
            return r;                                                       \
        }                                                                   \
        const R lr = log##SFX(hypot##SFX(a.re, a.im));                      \
        const R li = atan2##SFX(a.im, a.re);                                \
        const R wr = b.re * lr - b.im * li, wi = b.re * li + b.im * lr;     \
        const R e = exp##SFX(wr);                                           \
        return tl_sm_cmake_##N(e * cos##SFX(wi), e * sin##SFX(wi));         \
    }                                                                       \
    TL_SM_OVL2(float_power, N, CT, CT)
TL_SM_DEF_FLOAT_POWER_C(c64, tl_sm_c64, float, f)
TL_SM_DEF_FLOAT_POWER_C(c128, tl_sm_c128, double, )
#undef TL_SM_DEF_FLOAT_POWER_C

#ifdef __cplusplus
TL_HD int tl_sm_cpow_exact(tl_sm_c64 a, tl_sm_c64 b, tl_sm_c64 *r)
{
    return tl_sm_cpow_exact_c64(a, b, r);
}
TL_HD int tl_sm_cpow_exact(tl_sm_c128 a, tl_sm_c128 b, tl_sm_c128 *r)
{
    return tl_sm_cpow_exact_c128(a, b, r);
}
#endif

#endif /* TENSORLIB_CSRC_CORE_SCALAR_MATH_H */
