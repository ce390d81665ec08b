/* csrc/cuda/dtype_cases.cuh — the one list of the dtypes the CUDA kernels
 * know, grouped by the dtype classes of the op table (TL_OPSET_*,
 * tensorlib/op_table.h), each dtype with the type its kernels instantiate.
 * Every dtype switch of csrc/cuda (loads and stores, the op dispatch of
 * ew_unary.cu / ew_binary.cu, copies and fills of ew_misc.cu) expands
 * these lists, so a dtype cannot be known to one switch and forgotten by
 * another.  Macros only; the types are spelt ::tlk:: since the lists
 * expand where kernels.cuh has declared them. */
#ifndef TENSORLIB_CSRC_CUDA_DTYPE_CASES_CUH
#define TENSORLIB_CSRC_CUDA_DTYPE_CASES_CUH

#include "tensorlib/dtype.h"

/* TLK_DT_<class>(X, a) calls X(dtype code, type, a) for each dtype of the
 * class.  The type is the storage type, which is also the compute type of
 * the classes the op table names (B, Z, F, C); float16 and bfloat16 (H)
 * and the float8 storage dtypes (F8) are never compute types of an op
 * (ops compute the first in float32 and refuse the second). */
#define TLK_DT_B(X, a) X(TL_DTYPE_BOOL, ::tlk::b8, a)
#define TLK_DT_Z(X, a)                                                      \
    X(TL_DTYPE_UINT8, uint8_t, a) X(TL_DTYPE_INT8, int8_t, a)               \
    X(TL_DTYPE_INT16, int16_t, a) X(TL_DTYPE_UINT16, uint16_t, a)           \
    X(TL_DTYPE_INT32, int32_t, a) X(TL_DTYPE_UINT32, uint32_t, a)           \
    X(TL_DTYPE_INT64, int64_t, a) X(TL_DTYPE_UINT64, uint64_t, a)
#define TLK_DT_H(X, a)                                                      \
    X(TL_DTYPE_FLOAT16, ::tlk::f16, a) X(TL_DTYPE_BFLOAT16, ::tlk::bf16, a)
#define TLK_DT_F(X, a)                                                      \
    X(TL_DTYPE_FLOAT32, float, a) X(TL_DTYPE_FLOAT64, double, a)
#define TLK_DT_C(X, a)                                                      \
    X(TL_DTYPE_COMPLEX64, ::tlk::c64, a)                                    \
    X(TL_DTYPE_COMPLEX128, ::tlk::c128, a)
#define TLK_DT_F8(X, a)                                                     \
    X(TL_DTYPE_FLOAT8_E4M3FN, ::tlk::f8e4, a)                               \
    X(TL_DTYPE_FLOAT8_E5M2, ::tlk::f8e5, a)

/* Every dtype with a value (what copies, loads and stores take). */
#define TLK_DT_ALL(X, a)                                                    \
    TLK_DT_B(X, a) TLK_DT_Z(X, a) TLK_DT_H(X, a) TLK_DT_F(X, a)             \
    TLK_DT_C(X, a) TLK_DT_F8(X, a)

#endif /* TENSORLIB_CSRC_CUDA_DTYPE_CASES_CUH */
