/* csrc/cuda/ew_unary.cu — the CUDA unary ops: dispatch only.  The cases
 * come from the op table (TL_UNARY_OPS, tensorlib/op_table.h): for each
 * op, the functor op_<name> of kernels.cuh over exactly the compute dtypes
 * of the op's set (the dtype lists of dtype_cases.cuh), the same set the
 * CPU table of csrc/core/kernels_unary.c is built from; launch.cuh launches
 * it. */
#include "launch.cuh"

namespace tlk {

template <template <class> class OP, class C>
static int run(const tl_dev_loop *L, tl_cuda_stream s)
{
    return launch_ew<C, OP<C>, 1>(L, OP<C>(), s);
}

} /* namespace tlk */

using namespace tlk;

int tl_cuda_ew_unary(const tl_dev_loop *L, const tl_dev_op *o,
                     tl_cuda_stream s)
{
    const int dt = L->ops[1].target_dtype;

    /* One case per op of the table, over exactly the compute dtypes of its
     * set (the CPU table's rows come from the same set). */
#define C_(D_, T_, F_) case D_: return run<F_, T_>(L, s);
#define CLASS_(F_, cls) TLK_DT_##cls(C_, F_)
#define OP_CASE(ID, name, py, set, res, impl, form, flags, hint, doc)       \
    case TL_UNARY_##ID:                                                     \
        switch (dt) { TL_OPSET_##set(CLASS_, op_##name) }                   \
        break;
    switch (o->op) {
        TL_UNARY_OPS(OP_CASE)
    case TL_DEV_UNARY_COPY: /* floor/ceil/round/trunc of integers */
        switch (dt) { TLK_DT_B(C_, op_identity) TLK_DT_Z(C_, op_identity) }
        break;
    default:
        return tl_error(TL_ERR_VALUE, "CUDA: unknown unary op %d", o->op);
    }
#undef OP_CASE
#undef CLASS_
#undef C_
    return tl_error(TL_ERR_TYPE, "%s is not supported for %s on CUDA",
                    o->op == TL_DEV_UNARY_COPY
                        ? "copy"
                        : tl_op_unary_name(o->op),
                    tl_dtype_info_of((tl_dtype)dt)->name);
}
