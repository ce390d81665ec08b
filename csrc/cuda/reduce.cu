/* csrc/cuda/reduce.cu — the CUDA reductions sum, prod, mean, amax/max,
 * amin/min, any and all over the layout core computed (tl_dev_reduce):
 * the accumulators follow tensorlib/reduce.h ("Values"): integer sums and
 * products wrap in 64 bits, float16/bfloat16/float32 accumulate in float64
 * and round once, complex in complex128, max/min propagate NaN.  Two
 * schedules: one thread per output (outputs move fastest in memory, or
 * few reduced elements), one block per output with a shared-memory tree
 * (reduced elements move fastest).  Both are deterministic for a given
 * shape; float sums may differ from the CPU's in the last bits (another
 * summation order). */
#include "launch.cuh"

namespace tlk {

#define TLK_MAX_RDIMS 16

struct RedArgs {
    const char *in;
    char *out;
    int in_dtype;
    int res_dtype;
    int nk, nr;
    int mean;
    int64_t nout, M;
    int64_t ksize[TLK_MAX_RDIMS], kin[TLK_MAX_RDIMS], kout[TLK_MAX_RDIMS];
    int64_t rsize[TLK_MAX_RDIMS], rstride[TLK_MAX_RDIMS];
};

/* ---- families: accumulator type, identity, load, combine, finish -------- */

/* sum / mean */
struct sum_int {
    typedef uint64_t A;
    TL_HD static A init() { return 0; }
    TL_HD static A load_(const char *p, int dt)
    {
        return (uint64_t)load<int64_t>(p, dt);
    }
    TL_HD static A comb(A a, A b) { return a + b; }
    TL_HD static void finish(const RedArgs &r, char *p, A a)
    {
        store<int64_t>(p, r.res_dtype, (int64_t)a);
    }
};
struct sum_flt {
    typedef double A;
    TL_HD static A init() { return 0; }
    TL_HD static A load_(const char *p, int dt) { return load<double>(p, dt); }
    TL_HD static A comb(A a, A b) { return a + b; }
    TL_HD static void finish(const RedArgs &r, char *p, A a)
    {
        store<double>(p, r.res_dtype, r.mean ? a / (double)r.M : a);
    }
};
struct sum_cplx {
    typedef c128 A;
    TL_HD static A init() { return A{0, 0}; }
    TL_HD static A load_(const char *p, int dt) { return load<c128>(p, dt); }
    TL_HD static A comb(A a, A b) { return c_add(a, b); }
    TL_HD static void finish(const RedArgs &r, char *p, A a)
    {
        if (r.mean) {
            a = A{a.re / (double)r.M, a.im / (double)r.M};
        }
        store<c128>(p, r.res_dtype, a);
    }
};
/* prod */
struct prod_int {
    typedef uint64_t A;
    TL_HD static A init() { return 1; }
    TL_HD static A load_(const char *p, int dt)
    {
        return (uint64_t)load<int64_t>(p, dt);
    }
    TL_HD static A comb(A a, A b) { return a * b; }
    TL_HD static void finish(const RedArgs &r, char *p, A a)
    {
        store<int64_t>(p, r.res_dtype, (int64_t)a);
    }
};
struct prod_flt {
    typedef double A;
    TL_HD static A init() { return 1; }
    TL_HD static A load_(const char *p, int dt) { return load<double>(p, dt); }
    TL_HD static A comb(A a, A b) { return a * b; }
    TL_HD static void finish(const RedArgs &r, char *p, A a)
    {
        store<double>(p, r.res_dtype, a);
    }
};
struct prod_cplx {
    typedef c128 A;
    TL_HD static A init() { return A{1, 0}; }
    TL_HD static A load_(const char *p, int dt) { return load<c128>(p, dt); }
    TL_HD static A comb(A a, A b) { return c_mul(a, b); }
    TL_HD static void finish(const RedArgs &r, char *p, A a)
    {
        store<c128>(p, r.res_dtype, a);
    }
};
/* max / min: T is int64_t (signed, bool), uint64_t or double (floats,
 * exactly: every float16/bfloat16/float32 is a double). */
template <class T, bool MAX> struct minmax {
    typedef T A;
    TL_HD static A init()
    {
        if constexpr (std::is_same<T, double>::value) {
            return MAX ? -INFINITY : INFINITY;
        }
        else {
            return MAX ? std::numeric_limits<T>::min()
                       : std::numeric_limits<T>::max();
        }
    }
    TL_HD static A load_(const char *p, int dt) { return load<T>(p, dt); }
    /* NaN propagating (scalar_math.h, as the CPU kernels). */
    TL_HD static A comb(A a, A b)
    {
        return MAX ? tl_sm_maximum(a, b) : tl_sm_minimum(a, b);
    }
    TL_HD static void finish(const RedArgs &r, char *p, A a)
    {
        store<T>(p, r.res_dtype, a);
    }
};
/* any / all */
template <bool ANY> struct anyall {
    typedef uint8_t A;
    TL_HD static A init() { return ANY ? 0 : 1; }
    TL_HD static A load_(const char *p, int dt)
    {
        return load<b8>(p, dt).v;
    }
    TL_HD static A comb(A a, A b) { return ANY ? (a | b) : (a & b); }
    TL_HD static void finish(const RedArgs &r, char *p, A a)
    {
        store<b8>(p, r.res_dtype, b8{a});
    }
};

/* ---- the schedules ---------------------------------------------------- */

/* Input and output byte offsets of output element o. */
TL_HD void out_offsets(const RedArgs &r, int64_t o, int64_t *in_off,
                       int64_t *out_off)
{
    *in_off = 0;
    *out_off = 0;
    for (int d = 0; d < r.nk; d++) {
        const int64_t q = o / r.ksize[d];
        const int64_t i = o - q * r.ksize[d];
        *in_off += i * r.kin[d];
        *out_off += i * r.kout[d];
        o = q;
    }
}

TL_HD int64_t red_offset(const RedArgs &r, int64_t j)
{
    if (r.nr == 1) {
        return j * r.rstride[0];
    }
    int64_t off = 0;
    for (int d = 0; d < r.nr; d++) {
        const int64_t q = j / r.rsize[d];
        off += (j - q * r.rsize[d]) * r.rstride[d];
        j = q;
    }
    return off;
}

/* The partial result over reduced indices t, t + nt, t + 2 nt, ... of
 * the output whose input starts at base. */
template <class F>
TL_HD typename F::A partial(const RedArgs &r, const char *base, int64_t t,
                            int64_t nt)
{
    typename F::A acc = F::init();
    for (int64_t j = t; j < r.M; j += nt) {
        acc = F::comb(acc, F::load_(base + red_offset(r, j), r.in_dtype));
    }
    return acc;
}

/* One thread per output. */
template <class F>
TL_HD void per_thread_body(const RedArgs &r, int64_t tid, int64_t nthreads)
{
    for (int64_t o = tid; o < r.nout; o += nthreads) {
        int64_t io, oo;
        out_offsets(r, o, &io, &oo);
        F::finish(r, r.out + oo, partial<F>(r, r.in + io, 0, 1));
    }
}

/* One block of TLK_THREADS threads per output: strided partials, then a
 * tree in shared memory (TLK_THREADS is a power of two). */
template <class F>
TL_HD typename F::A tree(typename F::A *part, int n)
{
    for (int w = n / 2; w > 0; w /= 2) {
        for (int t = 0; t < w; t++) {
            part[t] = F::comb(part[t], part[t + w]);
        }
    }
    return part[0];
}

#ifdef TL_ON_DEVICE
template <class F>
__global__ void __launch_bounds__(TLK_THREADS)
    per_thread_kernel(const RedArgs r)
{
    per_thread_body<F>(r, (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                       (int64_t)gridDim.x * blockDim.x);
}

template <class F>
__global__ void __launch_bounds__(TLK_THREADS)
    per_block_kernel(const RedArgs r)
{
    __shared__ typename F::A part[TLK_THREADS];
    for (int64_t o = blockIdx.x; o < r.nout; o += gridDim.x) {
        int64_t io, oo;
        out_offsets(r, o, &io, &oo);
        part[threadIdx.x] =
            partial<F>(r, r.in + io, threadIdx.x, TLK_THREADS);
        __syncthreads();
        for (int w = TLK_THREADS / 2; w > 0; w /= 2) {
            if ((int)threadIdx.x < w) {
                part[threadIdx.x] =
                    F::comb(part[threadIdx.x], part[threadIdx.x + w]);
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            F::finish(r, r.out + oo, part[0]);
        }
        __syncthreads();
    }
}
#endif

static int64_t iabs(int64_t x)
{
    return x < 0 ? -x : x;
}

template <class F> static int run(const RedArgs &r, tl_cuda_stream s)
{
    /* Reduced elements moving fastest, and enough of them: a block each. */
    const bool inner = r.nr > 0 && r.M >= 64 &&
                       (r.nk == 0 || iabs(r.rstride[0]) < iabs(r.kin[0]));
#ifdef TL_ON_DEVICE
    if (inner) {
        const int64_t blocks =
            r.nout < TLK_MAX_BLOCKS ? r.nout : TLK_MAX_BLOCKS;
        per_block_kernel<F><<<(unsigned)blocks, TLK_THREADS, 0,
                              (cudaStream_t)s>>>(r);
    }
    else {
        int64_t blocks = (r.nout + TLK_THREADS - 1) / TLK_THREADS;
        if (blocks > TLK_MAX_BLOCKS) {
            blocks = TLK_MAX_BLOCKS;
        }
        per_thread_kernel<F><<<(unsigned)blocks, TLK_THREADS, 0,
                               (cudaStream_t)s>>>(r);
    }
    return tl_cuda_check_launch("reduction");
#else
    (void)s;
    if (inner) {
        /* The block schedule's arithmetic, one simulated block at a
         * time. */
        typename F::A part[TLK_THREADS];
        for (int64_t o = 0; o < r.nout; o++) {
            int64_t io, oo;
            out_offsets(r, o, &io, &oo);
            for (int t = 0; t < TLK_THREADS; t++) {
                part[t] = partial<F>(r, r.in + io, t, TLK_THREADS);
            }
            F::finish(r, r.out + oo, tree<F>(part, TLK_THREADS));
        }
    }
    else {
        for (int64_t t = 0; t < TLK_EMULATED_THREADS; t++) {
            per_thread_body<F>(r, t, TLK_EMULATED_THREADS);
        }
    }
    /* The launch check, so that its error path runs emulated too. */
    return tl_cuda_check_launch("reduction");
#endif
}

static int kind_of_dtype(int dt)
{
    return tl_dtype_info_of((tl_dtype)dt)->kind;
}

} /* namespace tlk */

using namespace tlk;

int tl_cuda_reduce(const tl_dev_reduce *d, tl_cuda_stream s)
{
    RedArgs r;
    memset(&r, 0, sizeof(r));
    if (d->nk > TLK_MAX_RDIMS || d->nr > TLK_MAX_RDIMS) {
        return tl_error(TL_ERR_NOT_IMPLEMENTED, "CUDA reductions take at "
                        "most %d kept and %d reduced dims (got %d and %d)",
                        TLK_MAX_RDIMS, TLK_MAX_RDIMS, (int)d->nk,
                        (int)d->nr);
    }
    if (d->out_dtype != d->res_dtype) {
        return tl_error(TL_ERR_VALUE, "CUDA reduction: the output must "
                        "have the result dtype (%d, got %d)",
                        (int)d->res_dtype, (int)d->out_dtype);
    }
    if (tl_cuda_check_pointer(d->in, 0, 1) < 0 ||
        tl_cuda_check_pointer(d->out, 0, 1) < 0) {
        return tl_error_kind();
    }
    r.in = d->in;
    r.out = d->out;
    r.in_dtype = d->in_dtype;
    r.res_dtype = d->res_dtype;
    r.nk = d->nk;
    r.nr = d->nr;
    r.mean = d->op == TL_REDUCE_MEAN;
    r.nout = d->nout;
    r.M = d->M;
    for (int i = 0; i < d->nk; i++) {
        r.ksize[i] = d->ksize[i];
        r.kin[i] = d->kin[i];
        r.kout[i] = d->kout[i];
    }
    for (int i = 0; i < d->nr; i++) {
        r.rsize[i] = d->rsize[i];
        r.rstride[i] = d->rstride[i];
    }
    const int k = kind_of_dtype(d->in_dtype);
    const bool intlike = k == TL_KIND_BOOL || k == TL_KIND_INT ||
                         k == TL_KIND_UINT;
    switch (d->op) {
    case TL_REDUCE_SUM:
    case TL_REDUCE_MEAN:
        if (intlike && !r.mean) {
            return run<sum_int>(r, s);
        }
        if (k == TL_KIND_COMPLEX) {
            return run<sum_cplx>(r, s);
        }
        if (k == TL_KIND_FLOAT) {
            return run<sum_flt>(r, s);
        }
        break;
    case TL_REDUCE_PROD:
        if (intlike) {
            return run<prod_int>(r, s);
        }
        return k == TL_KIND_COMPLEX ? run<prod_cplx>(r, s)
                                    : run<prod_flt>(r, s);
    case TL_REDUCE_AMAX:
    case TL_REDUCE_MAX:
    case TL_REDUCE_AMIN:
    case TL_REDUCE_MIN: {
        const bool mx = d->op == TL_REDUCE_AMAX || d->op == TL_REDUCE_MAX;
        if (k == TL_KIND_COMPLEX) {
            break;
        }
        if (d->in_dtype == TL_DTYPE_UINT64) {
            return mx ? run<minmax<uint64_t, true>>(r, s)
                      : run<minmax<uint64_t, false>>(r, s);
        }
        if (intlike) {
            return mx ? run<minmax<int64_t, true>>(r, s)
                      : run<minmax<int64_t, false>>(r, s);
        }
        return mx ? run<minmax<double, true>>(r, s)
                  : run<minmax<double, false>>(r, s);
    }
    case TL_REDUCE_ANY:
        return run<anyall<true>>(r, s);
    case TL_REDUCE_ALL:
        return run<anyall<false>>(r, s);
    default:
        break;
    }
    return tl_error(TL_ERR_NOT_IMPLEMENTED, "%s is not implemented on CUDA "
                    "for %s", tl_reduce_name(d->op) ? tl_reduce_name(d->op)
                                                    : "this reduction",
                    tl_dtype_info_of((tl_dtype)d->in_dtype)->name);
}
