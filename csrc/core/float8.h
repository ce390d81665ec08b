/* csrc/core/float8.h — internal: scalar conversions of the two float8
 * storage dtypes, float8_e4m3fn and float8_e5m2, as static inline
 * functions that compile as C and as CUDA C++ (no _Atomic, restrict or
 * _Static_assert here).
 *
 * Note [Float8 conversions]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * float8_e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no
 * infinities; S.1111.111 is NaN; the largest finite value is 448.
 * float8_e5m2: 1 sign, 5 exponent (bias 15), 2 mantissa bits: the top
 * byte of a float16 (infinities; NaN where the exponent is all ones and
 * the mantissa is not zero); the largest finite value is 57344.
 *
 * To float8, from a double, rounding once to nearest even (the scaling
 * by a power of two is exact, then rint() rounds in the default mode),
 * with PyTorch's rules for what does not fit: e4m3fn saturates (a value
 * that rounds beyond 448, infinity included, gives +-448); for e5m2 a
 * value that rounds beyond 57344 gives infinity.  NaN gives S.1111111 (0x7f with the
 * sign of the input), as PyTorch.  PyTorch converts a float64 by way of
 * float32 (two roundings); tensorlib rounds once, from the float64, so a
 * float64 that lies within half a float32 ulp of a float8 rounding
 * boundary can come out one float8 step apart (docs/differences.md).
 * Every float8 value is exact in float32, so the way back is exact. */
#ifndef TENSORLIB_CSRC_CORE_FLOAT8_H
#define TENSORLIB_CSRC_CORE_FLOAT8_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define TL_F8_FN static inline __host__ __device__
#else
#define TL_F8_FN static inline
#endif

/* Rounds x once to a float8 with mbits mantissa bits and the given bias;
 * e4m3fn selects e4m3fn's NaN-instead-of-infinity encoding. */
TL_F8_FN uint8_t tl_f8_from_double_(double x, int mbits, int bias,
                                    int e4m3fn)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint8_t sign = (uint8_t)((bits >> 63) << 7);
    if (x != x) {
        return (uint8_t)(sign | 0x7f);
    }
    const double a = fabs(x);
    if (a == 0.0) {
        return sign;
    }
    if (a > 1e300) { /* infinity, and keeps frexp's exponent small */
        return (uint8_t)(sign | (e4m3fn ? 0x7e : 0x7c));
    }
    const int emin = 1 - bias;
    int e;
    (void)frexp(a, &e);
    int exp = e - 1; /* a in [2^exp, 2^(exp+1)) */
    if (exp < emin) {
        /* Subnormal: the unit is 2^(emin - mbits); a carry to 2^mbits
         * reads as the smallest normal number. */
        const double m = rint(ldexp(a, mbits - emin));
        return (uint8_t)(sign | (uint8_t)m);
    }
    unsigned mi = (unsigned)rint(ldexp(a, mbits - exp));
    if (mi == (1u << (mbits + 1))) {
        mi >>= 1;
        exp += 1;
    }
    const int ef = exp + bias;
    const unsigned mant = mi - (1u << mbits);
    if (e4m3fn) {
        if (ef > 15 || (ef == 15 && mant == 7)) {
            return (uint8_t)(sign | 0x7e); /* saturates at 448 */
        }
    } else if (ef > 30) {
        return (uint8_t)(sign | 0x7c);
    }
    return (uint8_t)(sign | ((unsigned)ef << mbits) | mant);
}

TL_F8_FN uint8_t tl_f8e4m3fn_from_double(double x)
{
    return tl_f8_from_double_(x, 3, 7, 1);
}

TL_F8_FN uint8_t tl_f8e5m2_from_double(double x)
{
    return tl_f8_from_double_(x, 2, 15, 0);
}

TL_F8_FN float tl_f8_bits_to_float_(uint32_t f)
{
    float out;
    memcpy(&out, &f, sizeof out);
    return out;
}

TL_F8_FN float tl_f8e4m3fn_to_float(uint8_t v)
{
    const uint32_t sign = (uint32_t)(v & 0x80u) << 24;
    const uint32_t e = (v >> 3) & 0xfu, m = v & 0x7u;
    if (e == 0xf && m == 0x7) {
        return tl_f8_bits_to_float_(sign | 0x7fc00000u);
    }
    if (e == 0) { /* subnormal: m * 2^-9, exact */
        float r = (float)m * 0x1p-9f;
        return (v & 0x80u) ? -r : r;
    }
    return tl_f8_bits_to_float_(sign | ((e + 120u) << 23) | (m << 20));
}

TL_F8_FN float tl_f8e5m2_to_float(uint8_t v)
{
    const uint32_t sign = (uint32_t)(v & 0x80u) << 24;
    const uint32_t e = (v >> 2) & 0x1fu, m = v & 0x3u;
    if (e == 0x1f) {
        return tl_f8_bits_to_float_(sign | 0x7f800000u | (m << 21) |
                                    (m ? 0x00400000u : 0u));
    }
    if (e == 0) { /* subnormal: m * 2^-16, exact */
        float r = (float)m * 0x1p-16f;
        return (v & 0x80u) ? -r : r;
    }
    return tl_f8_bits_to_float_(sign | ((e + 112u) << 23) | (m << 21));
}

#endif /* TENSORLIB_CSRC_CORE_FLOAT8_H */
