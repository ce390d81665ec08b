/* csrc/core/dtype.c — the dtype table, dtype names, and the scalar
 * float16/bfloat16 conversions (round to nearest even, once, from the
 * source type: no double rounding through float32). */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "dtype_impl.h"
#include "scalar_math.h"
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

int tl_dtype_check_computable(const char *op, int dt)
{
    if (tl_dtype_valid(dt) && tl_dtype_is_float8((tl_dtype)dt)) {
        return tl_error(TL_ERR_TYPE, "%s(): %s is not supported (float8 "
                        "dtypes are storage only: convert with .float() "
                        "first)", op, tl_dtype_table[dt].name);
    }
    return 0;
}

bool tl_dtype_is_integral(tl_dtype dt, bool include_bool)
{
    int k = tl_dtype_table[dt].kind;
    return k == TL_KIND_INT || k == TL_KIND_UINT ||
           (include_bool && k == TL_KIND_BOOL);
}

/* The conversions are csrc/core/scalar_math.h's (one copy for the CPU
 * and CUDA kernels; Note [Rounding to small floats] there); these are
 * their public, out-of-line names. */
uint16_t tl_half_from_double(double x) { return tl_sm_half_from_double(x); }
uint16_t tl_bf16_from_double(double x) { return tl_sm_bf16_from_double(x); }
uint16_t tl_half_from_float(float x) { return tl_sm_half_from_float(x); }
float tl_half_to_float(uint16_t h) { return tl_sm_half_to_float(h); }
uint16_t tl_bf16_from_float(float x) { return tl_sm_bf16_from_float(x); }
float tl_bf16_to_float(uint16_t b) { return tl_sm_bf16_to_float(b); }
