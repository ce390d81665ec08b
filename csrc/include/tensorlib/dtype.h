/* tensorlib/dtype.h — element types, their properties, and the scalar
 * conversions every kernel shares (float16/bfloat16 round to nearest even,
 * directly from float64; float to integer saturates, NaN gives 0). */
#ifndef TENSORLIB_DTYPE_H
#define TENSORLIB_DTYPE_H

#include "tensorlib/base.h"

TL_EXTERN_C_BEGIN

typedef enum tl_dtype {
    TL_DTYPE_BOOL = 0,
    TL_DTYPE_UINT8,
    TL_DTYPE_INT8,
    TL_DTYPE_INT16,
    TL_DTYPE_UINT16,
    TL_DTYPE_INT32,
    TL_DTYPE_UINT32,
    TL_DTYPE_INT64,
    TL_DTYPE_UINT64,
    TL_DTYPE_FLOAT16,
    TL_DTYPE_BFLOAT16,
    TL_DTYPE_FLOAT32,
    TL_DTYPE_FLOAT64,
    TL_DTYPE_COMPLEX64,
    TL_DTYPE_COMPLEX128,
    /* Storage dtypes (Note [Float8 conversions] in csrc/core/float8.h):
     * casts, copies, views, printing and files; no arithmetic. */
    TL_DTYPE_FLOAT8_E4M3FN,
    TL_DTYPE_FLOAT8_E5M2,
    TL_DTYPE_COUNT
} tl_dtype;

/* The category of a dtype (core reads it with tl_dtype_kind_of(dt), in
 * csrc/core/dtype_impl.h). */
enum tl_dtype_kind {
    TL_KIND_BOOL = 0,
    TL_KIND_UINT = 1,
    TL_KIND_INT = 2,
    TL_KIND_FLOAT = 3,
    TL_KIND_COMPLEX = 4,
};

typedef struct tl_dtype_info {
    const char *name;    /* "float32" */
    int32_t itemsize;    /* bytes */
    int32_t kind;        /* an enum tl_dtype_kind */
    /* PEP 3118 format code in native byte order ("f", "Zd"), or "" when
     * the buffer protocol has none (bfloat16). */
    const char *format;
    /* NumPy type character ('f', 'e', ...), or 0 when NumPy has none. */
    char numpy_char;
} tl_dtype_info;

/* Returns: borrowed pointer to static information; dt must be valid. */
TL_API const tl_dtype_info *tl_dtype_info_of(tl_dtype dt);

static inline bool tl_dtype_valid(int dt)
{
    return dt >= 0 && dt < TL_DTYPE_COUNT;
}

/* Parses "float32", "float", "int64", "long", "half", "bfloat16", ... .
 * Returns 0 or TL_ERR_TYPE naming the string. */
TL_API int tl_dtype_parse(const char *s, tl_dtype *out);

TL_API int32_t tl_dtype_itemsize(tl_dtype dt);
TL_API bool tl_dtype_is_floating(tl_dtype dt); /* float16..float64 */
TL_API bool tl_dtype_is_complex(tl_dtype dt);
TL_API bool tl_dtype_is_signed(tl_dtype dt);   /* ints, floats, complex */
TL_API bool tl_dtype_is_integral(tl_dtype dt, bool include_bool);
/* float8_e4m3fn or float8_e5m2: storage only, no arithmetic. */
TL_API bool tl_dtype_is_float8(tl_dtype dt);

/* Scalar conversions (round to nearest even; NaN stays NaN; overflow goes
 * to infinity).  The from_double forms round once, from the double. */
TL_API uint16_t tl_half_from_double(double x);
TL_API uint16_t tl_half_from_float(float x);
TL_API float tl_half_to_float(uint16_t h);
TL_API uint16_t tl_bf16_from_double(double x);
TL_API uint16_t tl_bf16_from_float(float x);
TL_API float tl_bf16_to_float(uint16_t b);

TL_EXTERN_C_END

#endif /* TENSORLIB_DTYPE_H */
