/* csrc/core/dtype.c — the dtype table, dtype names, and the scalar
 * float16/bfloat16 conversions (round to nearest even, once, from the
 * source type: no double rounding through float32). */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "dtype_impl.h"
#include "tensorlib/status.h"

const tl_dtype_info tl_dtype_table[TL_DTYPE_COUNT] = {
    [TL_DTYPE_BOOL] = {"bool", 1, TL_KIND_BOOL, "?", '?'},
    [TL_DTYPE_UINT8] = {"uint8", 1, TL_KIND_UINT, "B", 'B'},
    [TL_DTYPE_INT8] = {"int8", 1, TL_KIND_INT, "b", 'b'},
    [TL_DTYPE_INT16] = {"int16", 2, TL_KIND_INT, "h", 'h'},
    [TL_DTYPE_UINT16] = {"uint16", 2, TL_KIND_UINT, "H", 'H'},
    [TL_DTYPE_INT32] = {"int32", 4, TL_KIND_INT, "i", 'i'},
    [TL_DTYPE_UINT32] = {"uint32", 4, TL_KIND_UINT, "I", 'I'},
    [TL_DTYPE_INT64] = {"int64", 8, TL_KIND_INT, "q", 'q'},
    [TL_DTYPE_UINT64] = {"uint64", 8, TL_KIND_UINT, "Q", 'Q'},
    [TL_DTYPE_FLOAT16] = {"float16", 2, TL_KIND_FLOAT, "e", 'e'},
    [TL_DTYPE_BFLOAT16] = {"bfloat16", 2, TL_KIND_FLOAT, "", 0},
    [TL_DTYPE_FLOAT32] = {"float32", 4, TL_KIND_FLOAT, "f", 'f'},
    [TL_DTYPE_FLOAT64] = {"float64", 8, TL_KIND_FLOAT, "d", 'd'},
    [TL_DTYPE_COMPLEX64] = {"complex64", 8, TL_KIND_COMPLEX, "Zf", 'F'},
    [TL_DTYPE_COMPLEX128] = {"complex128", 16, TL_KIND_COMPLEX, "Zd", 'D'},
    [TL_DTYPE_FLOAT8_E4M3FN] = {"float8_e4m3fn", 1, TL_KIND_FLOAT, "", 0},
    [TL_DTYPE_FLOAT8_E5M2] = {"float8_e5m2", 1, TL_KIND_FLOAT, "", 0},
};

const tl_dtype_info *tl_dtype_info_of(tl_dtype dt)
{
    return &tl_dtype_table[dt];
}

static const struct {
    const char *alias;
    tl_dtype dt;
} aliases[] = {
    {"float", TL_DTYPE_FLOAT32},     {"double", TL_DTYPE_FLOAT64},
    {"half", TL_DTYPE_FLOAT16},      {"long", TL_DTYPE_INT64},
    {"int", TL_DTYPE_INT32},         {"short", TL_DTYPE_INT16},
    {"cfloat", TL_DTYPE_COMPLEX64},  {"cdouble", TL_DTYPE_COMPLEX128},
};

int tl_dtype_parse(const char *s, tl_dtype *out)
{
    const char *name = s;
    if (strncmp(name, "tensorlib.", 10) == 0) {
        name += 10;
    }
    for (int i = 0; i < TL_DTYPE_COUNT; i++) {
        if (strcmp(name, tl_dtype_table[i].name) == 0) {
            *out = (tl_dtype)i;
            return 0;
        }
    }
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
        if (strcmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].dt;
            return 0;
        }
    }
    return tl_error(TL_ERR_TYPE,
                    "unknown dtype '%s': expected one of bool, uint8, int8, "
                    "int16, uint16, int32, uint32, int64, uint64, float16, "
                    "bfloat16, float32, float64, complex64, complex128, "
                    "float8_e4m3fn, float8_e5m2", s);
}

int32_t tl_dtype_itemsize(tl_dtype dt) { return tl_dtype_table[dt].itemsize; }

bool tl_dtype_is_floating(tl_dtype dt)
{
    return tl_dtype_table[dt].kind == TL_KIND_FLOAT;
}

bool tl_dtype_is_complex(tl_dtype dt)
{
    return tl_dtype_table[dt].kind == TL_KIND_COMPLEX;
}

bool tl_dtype_is_signed(tl_dtype dt)
{
    int k = tl_dtype_table[dt].kind;
    return k == TL_KIND_INT || k == TL_KIND_FLOAT || k == TL_KIND_COMPLEX;
}

bool tl_dtype_is_float8(tl_dtype dt)
{
    return dt == TL_DTYPE_FLOAT8_E4M3FN || dt == TL_DTYPE_FLOAT8_E5M2;
}

bool tl_dtype_is_integral(tl_dtype dt, bool include_bool)
{
    int k = tl_dtype_table[dt].kind;
    return k == TL_KIND_INT || k == TL_KIND_UINT ||
           (include_bool && k == TL_KIND_BOOL);
}

/* Note [Rounding to small floats]
 * A double is rounded once to a binary format with `ebits` exponent bits and
 * `mbits` stored mantissa bits: scale the magnitude so that the wanted
 * mantissa (including the implicit bit) becomes the integer part, then rint()
 * rounds half to even in the default rounding mode.  The scaling by a power
 * of two is exact, so there is exactly one rounding.  A carry into the next
 * binade is handled by the encoding itself (mantissa 2^mbits reads as the
 * next exponent); overflow gives infinity. */
static uint16_t round_to_small_float(double x, int ebits, int mbits)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t sign = (uint32_t)(bits >> 63) << (ebits + mbits);
    const uint32_t exp_all = (1u << ebits) - 1;
    if (isnan(x)) {
        return (uint16_t)(sign | (exp_all << mbits) | (1u << (mbits - 1)));
    }
    const double a = fabs(x);
    if (isinf(a)) {
        return (uint16_t)(sign | (exp_all << mbits));
    }
    if (a == 0.0) {
        return (uint16_t)sign;
    }
    const int bias = (1 << (ebits - 1)) - 1;
    const int emin = 1 - bias;
    int e;
    (void)frexp(a, &e);
    int exp = e - 1; /* a in [2^exp, 2^(exp+1)) */
    if (exp < emin) {
        /* Subnormal: the unit is 2^(emin - mbits). */
        double m = rint(ldexp(a, mbits - emin));
        return (uint16_t)(sign | (uint32_t)m);
    }
    double m = rint(ldexp(a, mbits - exp)); /* in [2^mbits, 2^(mbits+1)] */
    uint32_t mi = (uint32_t)m;
    if (mi == (1u << (mbits + 1))) {
        mi >>= 1;
        exp += 1;
    }
    if (exp > bias) {
        return (uint16_t)(sign | (exp_all << mbits));
    }
    return (uint16_t)(sign | ((uint32_t)(exp + bias) << mbits) |
                      (mi - (1u << mbits)));
}

uint16_t tl_half_from_double(double x)
{
    return round_to_small_float(x, 5, 10);
}

uint16_t tl_bf16_from_double(double x)
{
    return round_to_small_float(x, 8, 7);
}

uint16_t tl_half_from_float(float x)
{
    uint32_t f;
    memcpy(&f, &x, sizeof f);
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
         * last mantissa bit, so the FPU's own round-to-even does the work. */
        float fa;
        memcpy(&fa, &a, sizeof fa);
        fa += 0.5f;
        uint32_t r;
        memcpy(&r, &fa, sizeof r);
        return (uint16_t)(sign | (r - 0x3f000000u));
    }
    const uint32_t odd = (a >> 13) & 1u;
    a += 0xc8000000u /* rebias (15 - 127) << 23 */ + 0xfffu + odd;
    return (uint16_t)(sign | (a >> 13));
}

float tl_half_to_float(uint16_t h)
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
        float v = (float)m * 0x1p-24f;
        memcpy(&f, &v, sizeof f);
        f |= sign;
    }
    float out;
    memcpy(&out, &f, sizeof out);
    return out;
}

uint16_t tl_bf16_from_float(float x)
{
    uint32_t f;
    memcpy(&f, &x, sizeof f);
    if ((f & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)((f >> 16) | 0x40u);
    }
    f += 0x7fffu + ((f >> 16) & 1u);
    return (uint16_t)(f >> 16);
}

float tl_bf16_to_float(uint16_t b)
{
    uint32_t f = (uint32_t)b << 16;
    float out;
    memcpy(&out, &f, sizeof out);
    return out;
}
