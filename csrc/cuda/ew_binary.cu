/* csrc/cuda/ew_binary.cu — the CUDA binary ops: picks the functor of
 * kernels.cuh for (op, compute dtype) -- exactly the pairs the CPU table
 * of csrc/core/kernels_binary.c has -- and launches it (launch.cuh). */
#include "launch.cuh"

namespace tlk {

template <template <class> class OP, class C>
static int run(const tl_dev_loop *L, tl_cuda_stream s)
{
    return launch_ew<C, OP<C>, 2>(L, OP<C>(), s);
}

template <class C>
static int run_alpha(const tl_dev_loop *L, const tl_dev_op *o,
                     tl_cuda_stream s)
{
    op_add_alpha<C> f;
    f.al = load<C>((const char *)o->value.b, dtype_of<C>::value);
    return launch_ew<C, op_add_alpha<C>, 2>(L, f, s);
}

/* Case lists by dtype class: X(dtype code, compute type). */
#define G_BOOL(X) X(TL_DTYPE_BOOL, b8)
#define G_INTS(X)                                                           \
    X(TL_DTYPE_UINT8, uint8_t) X(TL_DTYPE_INT8, int8_t)                     \
    X(TL_DTYPE_INT16, int16_t) X(TL_DTYPE_UINT16, uint16_t)                 \
    X(TL_DTYPE_INT32, int32_t) X(TL_DTYPE_UINT32, uint32_t)                 \
    X(TL_DTYPE_INT64, int64_t) X(TL_DTYPE_UINT64, uint64_t)
#define G_FLOATS(X) X(TL_DTYPE_FLOAT32, float) X(TL_DTYPE_FLOAT64, double)
#define G_CPLX(X) X(TL_DTYPE_COMPLEX64, c64) X(TL_DTYPE_COMPLEX128, c128)

static int unsupported(int op, int dt)
{
    return tl_error(TL_ERR_TYPE, "%s is not supported for %s on CUDA",
                    tl_op_binary_name(op) ? tl_op_binary_name(op) : "add",
                    tl_dtype_info_of((tl_dtype)dt)->name);
}

} /* namespace tlk */

using namespace tlk;

int tl_cuda_ew_binary(const tl_dev_loop *L, const tl_dev_op *o,
                      tl_cuda_stream s)
{
    const int dt = L->ops[1].target_dtype;

    /* One switch per op over its dtype classes. */
#define C_(D_, T_) case D_: return run<OPNAME, T_>(L, s);
    switch (o->op) {
    case TL_BINARY_ADD:
#define OPNAME op_add
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) G_CPLX(C_) }
#undef OPNAME
        break;
    case TL_BINARY_SUB:
#define OPNAME op_sub
        switch (dt) { G_INTS(C_) G_FLOATS(C_) G_CPLX(C_) }
#undef OPNAME
        break;
    case TL_BINARY_MUL:
#define OPNAME op_mul
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) G_CPLX(C_) }
#undef OPNAME
        break;
    case TL_BINARY_DIV:
#define OPNAME op_div
        switch (dt) { G_FLOATS(C_) G_CPLX(C_) }
#undef OPNAME
        break;
    case TL_BINARY_FLOOR_DIVIDE:
#define OPNAME op_floor_divide
        switch (dt) { G_INTS(C_) G_FLOATS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_REMAINDER:
#define OPNAME op_remainder
        switch (dt) { G_INTS(C_) G_FLOATS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_POW:
#define OPNAME op_pow
        switch (dt) { G_INTS(C_) G_FLOATS(C_) G_CPLX(C_) }
#undef OPNAME
        break;
    case TL_BINARY_MAXIMUM:
#define OPNAME op_maximum
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_MINIMUM:
#define OPNAME op_minimum
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_EQ:
#define OPNAME op_eq
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) G_CPLX(C_) }
#undef OPNAME
        break;
    case TL_BINARY_NE:
#define OPNAME op_ne
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) G_CPLX(C_) }
#undef OPNAME
        break;
    case TL_BINARY_LT:
#define OPNAME op_lt
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_LE:
#define OPNAME op_le
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_GT:
#define OPNAME op_gt
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_GE:
#define OPNAME op_ge
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_LOGICAL_AND:
#define OPNAME op_logical_and
        switch (dt) { G_BOOL(C_) }
#undef OPNAME
        break;
    case TL_BINARY_LOGICAL_OR:
#define OPNAME op_logical_or
        switch (dt) { G_BOOL(C_) }
#undef OPNAME
        break;
    case TL_BINARY_LOGICAL_XOR:
#define OPNAME op_logical_xor
        switch (dt) { G_BOOL(C_) }
#undef OPNAME
        break;
    case TL_BINARY_BITWISE_AND:
#define OPNAME op_bitwise_and
        switch (dt) { G_BOOL(C_) G_INTS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_BITWISE_OR:
#define OPNAME op_bitwise_or
        switch (dt) { G_BOOL(C_) G_INTS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_BITWISE_XOR:
#define OPNAME op_bitwise_xor
        switch (dt) { G_BOOL(C_) G_INTS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_LSHIFT:
#define OPNAME op_lshift
        switch (dt) { G_INTS(C_) }
#undef OPNAME
        break;
    case TL_BINARY_RSHIFT:
#define OPNAME op_rshift
        switch (dt) { G_INTS(C_) }
#undef OPNAME
        break;
    case TL_DEV_ADD_ALPHA:
#undef C_
#define C_(D_, T_) case D_: return run_alpha<T_>(L, o, s);
        switch (dt) { G_BOOL(C_) G_INTS(C_) G_FLOATS(C_) G_CPLX(C_) }
        break;
    default:
        return tl_error(TL_ERR_VALUE, "CUDA: unknown binary op %d", o->op);
    }
#undef C_
    return unsupported(o->op, dt);
}
