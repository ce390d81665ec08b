/* csrc/cuda/ew_binary.cu — the CUDA binary ops: dispatch only.  The cases
 * come from the op table (TL_BINARY_OPS, tensorlib/op_table.h): for each
 * op, the functor op_<name> of kernels.cuh over exactly the compute dtypes
 * of the op's set (the dtype lists of dtype_cases.cuh), the same set the
 * CPU table of csrc/core/kernels_binary.c is built from; launch.cuh launches
 * it. */
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

    if (o->op == TL_BINARY_NEXTAFTER && dt == TL_DTYPE_FLOAT16) {
        return run<op_nextafter_half, f16>(L, s);
    }
    if (o->op == TL_BINARY_NEXTAFTER && dt == TL_DTYPE_BFLOAT16) {
        return run<op_nextafter_half, bf16>(L, s);
    }

    /* One case per op of the table, over exactly the compute dtypes of its
     * set (the CPU table's rows come from the same set). */
#define C_(D_, T_, F_) case D_: return run<F_, T_>(L, s);
#define A_(D_, T_, F_) case D_: return run_alpha<T_>(L, o, s);
#define CLASS_(F_, cls) TLK_DT_##cls(C_, F_)
#define OP_CASE(ID, name, py, set, res, impl, form, flags, hint, doc)       \
    case TL_BINARY_##ID:                                                    \
        switch (dt) { TL_OPSET_##set(CLASS_, op_##name) }                   \
        break;
    switch (o->op) {
        TL_BINARY_OPS(OP_CASE)
    case TL_DEV_ADD_ALPHA:
        switch (dt) {
            TLK_DT_B(A_, 0) TLK_DT_Z(A_, 0) TLK_DT_F(A_, 0) TLK_DT_C(A_, 0)
        }
        break;
    default:
        return tl_error(TL_ERR_VALUE, "CUDA: unknown binary op %d", o->op);
    }
#undef OP_CASE
#undef CLASS_
#undef A_
#undef C_
    return unsupported(o->op, dt);
}
