/* csrc/cuda/ew_misc.cu — the CUDA copies and casts (copy_: any dtype to
 * any dtype, float8 included, any layout), fill_, where (float8 too, as
 * on the CPU), clamp, and the integer scan that ops use to refuse a
 * division by zero before they write anything. */
#include "launch.cuh"

namespace tlk {

/* A constant of a raw storage type (fill_ writes bit patterns). */
template <class S> struct op_const {
    typedef S R;
    S v;
    TL_HD R operator()() const
    {
        return v;
    }
};

template <class S>
static int fill_as(const tl_dev_loop *L, const tl_dev_op *o,
                   tl_cuda_stream s)
{
    /* Write S's bits: the output is relabelled with the dtype of S. */
    tl_dev_loop *M = (tl_dev_loop *)malloc(sizeof(*M));
    if (M == nullptr) {
        return tl_error(TL_ERR_MEMORY, "out of memory for a CUDA fill");
    }
    memcpy(M, L, sizeof(*M));
    M->ops[0].dtype = dtype_of<S>::value;
    op_const<S> f;
    memcpy(&f.v, o->value.b, sizeof(S));
    const int rc = launch_ew<S, op_const<S>, 0>(M, f, s);
    free(M);
    return rc;
}

/* ---- scans -------------------------------------------------------------- */

template <class C> struct ScanArgs {
    EwArgs<1> a; /* operand 0 is the input */
    int *flag;   /* device int set to 1 on a zero */
};

template <class C>
TL_HD void scan_body(const ScanArgs<C> &sa, int64_t tid, int64_t nthreads)
{
    for (int64_t i = tid; i < sa.a.numel; i += nthreads) {
        int64_t off[1];
        offsets<1>(sa.a, i, off);
        const C x = load<C>(sa.a.data[0] + off[0], sa.a.dtype[0]);
        if (x == 0) {
            *sa.flag = 1; /* every writer stores the same value */
        }
    }
}

#ifdef TL_ON_DEVICE
template <class C>
__global__ void __launch_bounds__(TLK_THREADS)
    scan_kernel(const ScanArgs<C> sa)
{
    scan_body<C>(sa, (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                 (int64_t)gridDim.x * blockDim.x);
}
#endif

template <class C>
static int scan_as(const tl_dev_loop *L, int *flag, tl_cuda_stream s)
{
    ScanArgs<C> sa;
    memset(&sa, 0, sizeof(sa));
    if (L->ntensors != 1 || L->ndim > TLK_MAX_DIMS || L->ops[0].data == 0) {
        return tl_error(TL_ERR_VALUE, "CUDA scan: expected one strided "
                        "input of at most %d dims", TLK_MAX_DIMS);
    }
    sa.a.ndim = L->ndim;
    sa.a.numel = L->numel;
    sa.a.small = L->numel < ((int64_t)1 << 31);
    for (int d = 0; d < L->ndim; d++) {
        sa.a.size[d] = L->shape[d];
        if (sa.a.small) {
            sa.a.div[d].init((uint32_t)L->shape[d]);
        }
        sa.a.stride[d][0] = L->ops[0].strides[d];
    }
    sa.a.data[0] = L->ops[0].data;
    sa.a.dtype[0] = L->ops[0].dtype;
    sa.flag = flag;
    if (tl_cuda_check_pointer(sa.a.data[0], 0, 1) < 0 ||
        tl_cuda_check_pointer(flag, sizeof(int), 1) < 0) {
        return tl_error_kind();
    }
#ifdef TL_ON_DEVICE
    int64_t blocks = (L->numel + TLK_THREADS - 1) / TLK_THREADS;
    if (blocks > TLK_MAX_BLOCKS) {
        blocks = TLK_MAX_BLOCKS;
    }
    scan_kernel<C><<<(unsigned)blocks, TLK_THREADS, 0, (cudaStream_t)s>>>(
        sa);
    return tl_cuda_check_launch("scan");
#else
    (void)s;
    for (int64_t t = 0; t < TLK_EMULATED_THREADS; t++) {
        scan_body<C>(sa, t, TLK_EMULATED_THREADS);
    }
    /* The launch check, so that its error path runs emulated too. */
    return tl_cuda_check_launch("scan");
#endif
}

/* Records the TypeError of a dtype that op has no CUDA kernel for. */
static int unsupported(const char *op, int dt)
{
    if (!tl_dtype_valid(dt)) {
        return tl_error(TL_ERR_TYPE, "CUDA %s: unknown dtype code %d", op,
                        dt);
    }
    return tl_error(TL_ERR_TYPE, "%s is not supported for %s on CUDA", op,
                    tl_dtype_info_of((tl_dtype)dt)->name);
}

} /* namespace tlk */

using namespace tlk;

int tl_cuda_ew_copy(const tl_dev_loop *L, tl_cuda_stream s)
{
#define C_(D_, T_, a_)                                                      \
    case D_:                                                                \
        return launch_ew<T_, op_identity<T_>, 1>(L, op_identity<T_>(), s);
    switch (L->ops[0].dtype) {
        TLK_DT_ALL(C_, 0)
    default:
        break;
    }
#undef C_
    return unsupported("copy", L->ops[0].dtype);
}

int tl_cuda_ew_fill(const tl_dev_loop *L, const tl_dev_op *o,
                    tl_cuda_stream s)
{
    switch (itemsize_of(L->ops[0].dtype)) {
    case 1:
        return fill_as<uint8_t>(L, o, s);
    case 2:
        return fill_as<uint16_t>(L, o, s);
    case 4:
        return fill_as<uint32_t>(L, o, s);
    case 8:
        return fill_as<uint64_t>(L, o, s);
    case 16:
        return fill_as<c128>(L, o, s);
    default:
        return unsupported("fill_", L->ops[0].dtype);
    }
}

int tl_cuda_ew_where(const tl_dev_loop *L, tl_cuda_stream s)
{
#define C_(D_, T_, a_)                                                      \
    case D_:                                                                \
        return launch_ew<T_, op_where<T_>, 3>(L, op_where<T_>(), s);
    switch (L->ops[2].target_dtype) {
        TLK_DT_ALL(C_, 0)
    default:
        break;
    }
#undef C_
    return unsupported("where", L->ops[2].target_dtype);
}

int tl_cuda_ew_clamp(const tl_dev_loop *L, tl_cuda_stream s)
{
#define C_(D_, T_, a_)                                                      \
    case D_:                                                                \
        return launch_ew<T_, op_clamp<T_>, 3>(L, op_clamp<T_>(), s);
    switch (L->ops[1].target_dtype) {
        TLK_DT_B(C_, 0) TLK_DT_Z(C_, 0) TLK_DT_F(C_, 0)
    default:
        break;
    }
#undef C_
    return unsupported("clamp", L->ops[1].target_dtype);
}

int tl_cuda_ew_scan(const tl_dev_loop *L, const tl_dev_op *o, int *dflag,
                    tl_cuda_stream s)
{
    (void)o; /* the one scan: for zeros */
#define C_(D_, T_, a_)                                                      \
    case D_:                                                                \
        return scan_as<T_>(L, dflag, s);
    switch (L->ops[0].target_dtype) {
        TLK_DT_Z(C_, 0)
    default:
        break;
    }
#undef C_
    return unsupported("the zero-divisor scan", L->ops[0].target_dtype);
}
