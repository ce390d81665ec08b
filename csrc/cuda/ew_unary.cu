/* csrc/cuda/ew_unary.cu — the CUDA unary ops: picks the functor of
 * kernels.cuh for (op, compute dtype) -- the pairs the CPU table of
 * csrc/core/kernels_unary.c has -- and launches it (launch.cuh). */
#include "launch.cuh"

namespace tlk {

template <template <class> class OP, class C>
static int run(const tl_dev_loop *L, tl_cuda_stream s)
{
    return launch_ew<C, OP<C>, 1>(L, OP<C>(), s);
}

#define G_BOOL(X) X(TL_DTYPE_BOOL, b8)
#define G_INTS(X)                                                           \
    X(TL_DTYPE_UINT8, uint8_t) X(TL_DTYPE_INT8, int8_t)                     \
    X(TL_DTYPE_INT16, int16_t) X(TL_DTYPE_UINT16, uint16_t)                 \
    X(TL_DTYPE_INT32, int32_t) X(TL_DTYPE_UINT32, uint32_t)                 \
    X(TL_DTYPE_INT64, int64_t) X(TL_DTYPE_UINT64, uint64_t)
#define G_FLOATS(X) X(TL_DTYPE_FLOAT32, float) X(TL_DTYPE_FLOAT64, double)
#define G_CPLX(X) X(TL_DTYPE_COMPLEX64, c64) X(TL_DTYPE_COMPLEX128, c128)

} /* namespace tlk */

using namespace tlk;

int tl_cuda_ew_unary(const tl_dev_loop *L, const tl_dev_op *o,
                     tl_cuda_stream s)
{
    const int dt = L->ops[1].target_dtype;

#define C_(D_, T_) case D_: return run<OPNAME, T_>(L, s);
#define OP_CASE(CODE, FN, GROUPS)                                           \
    case CODE:                                                              \
        switch (dt) { GROUPS }                                              \
        break;
#define FLOATING(FN) G_FLOATS(C_) G_CPLX(C_)
    switch (o->op) {
#define OPNAME op_neg
    OP_CASE(TL_UNARY_NEG, op_neg, G_INTS(C_) G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_abs
    OP_CASE(TL_UNARY_ABS, op_abs,
            G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_sign
    OP_CASE(TL_UNARY_SIGN, op_sign, G_BOOL(C_) G_INTS(C_) G_FLOATS(C_))
#undef OPNAME
#define OPNAME op_sgn
    OP_CASE(TL_UNARY_SGN, op_sgn,
            G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_sqrt
    OP_CASE(TL_UNARY_SQRT, op_sqrt, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_rsqrt
    OP_CASE(TL_UNARY_RSQRT, op_rsqrt, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_exp
    OP_CASE(TL_UNARY_EXP, op_exp, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_expm1
    OP_CASE(TL_UNARY_EXPM1, op_expm1, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_log
    OP_CASE(TL_UNARY_LOG, op_log, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_log1p
    OP_CASE(TL_UNARY_LOG1P, op_log1p, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_log2
    OP_CASE(TL_UNARY_LOG2, op_log2, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_log10
    OP_CASE(TL_UNARY_LOG10, op_log10, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_sin
    OP_CASE(TL_UNARY_SIN, op_sin, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_cos
    OP_CASE(TL_UNARY_COS, op_cos, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_tan
    OP_CASE(TL_UNARY_TAN, op_tan, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_tanh
    OP_CASE(TL_UNARY_TANH, op_tanh, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_sigmoid
    OP_CASE(TL_UNARY_SIGMOID, op_sigmoid, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_relu
    OP_CASE(TL_UNARY_RELU, op_relu, G_INTS(C_) G_FLOATS(C_))
#undef OPNAME
#define OPNAME op_floor
    OP_CASE(TL_UNARY_FLOOR, op_floor, G_FLOATS(C_))
#undef OPNAME
#define OPNAME op_ceil
    OP_CASE(TL_UNARY_CEIL, op_ceil, G_FLOATS(C_))
#undef OPNAME
#define OPNAME op_round
    OP_CASE(TL_UNARY_ROUND, op_round, G_FLOATS(C_))
#undef OPNAME
#define OPNAME op_trunc
    OP_CASE(TL_UNARY_TRUNC, op_trunc, G_FLOATS(C_))
#undef OPNAME
#define OPNAME op_reciprocal
    OP_CASE(TL_UNARY_RECIPROCAL, op_reciprocal, G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_square
    OP_CASE(TL_UNARY_SQUARE, op_square, G_INTS(C_) G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_logical_not
    OP_CASE(TL_UNARY_LOGICAL_NOT, op_logical_not, G_BOOL(C_))
#undef OPNAME
#define OPNAME op_bitwise_not
    OP_CASE(TL_UNARY_BITWISE_NOT, op_bitwise_not, G_BOOL(C_) G_INTS(C_))
#undef OPNAME
#define OPNAME op_isnan
    OP_CASE(TL_UNARY_ISNAN, op_isnan,
            G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_isinf
    OP_CASE(TL_UNARY_ISINF, op_isinf,
            G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_isfinite
    OP_CASE(TL_UNARY_ISFINITE, op_isfinite,
            G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) G_CPLX(C_))
#undef OPNAME
#define OPNAME op_identity
    OP_CASE(TL_DEV_UNARY_COPY, op_identity, G_BOOL(C_) G_INTS(C_))
#undef OPNAME
    default:
        return tl_error(TL_ERR_VALUE, "CUDA: unknown unary op %d", o->op);
    }
#undef OP_CASE
#undef FLOATING
#undef C_
    return tl_error(TL_ERR_TYPE, "%s is not supported for %s on CUDA",
                    o->op == TL_DEV_UNARY_COPY
                        ? "copy"
                        : tl_op_unary_name(o->op),
                    tl_dtype_info_of((tl_dtype)dt)->name);
}
