/* csrc/cuda/reduce.cu — the CUDA reductions sum, prod, mean, amax/max,
 * amin/min, any and all over the layout core computed (tl_dev_reduce):
 * the accumulators follow tensorlib/reduce.h ("Values"): integer sums and
 * products wrap in 64 bits, float16/bfloat16/float32 accumulate in float64
 * and round once, complex in complex128, max/min propagate NaN.  Four
 * schedules (Note [Reduction schedules]); every one is deterministic for
 * a given shape (no atomics), and float sums may differ from the CPU's in
 * the last bits (another summation order). */
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

/* Note [Reduction schedules]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * nout outputs, each over M reduced elements.  "Inner" layouts (the
 * reduced elements move fastest, M >= 64) give each output a block of
 * TLK_THREADS threads: strided partials, then a tree in shared memory.
 * Other layouts give each output one thread, so that neighbouring
 * threads read neighbouring outputs' elements.
 *
 * Either alone leaves an H100 idle when there are few outputs: one block
 * summed 2^24 floats in 33 ms (the copy engine moves them in 25 us), and
 * the 4096 threads of a (4096, 4096).sum(0) took 2.1 ms.  So when the
 * outputs are too few to fill the device, each output's reduced range is
 * cut into G chunks of `chunk` elements (split_plan): a first kernel
 * writes one partial per (output, chunk) to scratch memory, a second
 * folds each output's G partials in chunk order and finishes.
 * - inner, nout < SPLIT_BLOCKS: a block per (output, chunk), chunks of at
 *   least SPLIT_INNER_CHUNK elements, about SPLIT_BLOCKS blocks in all;
 *   partials at scratch[o G + g], folded by a block per output (strided,
 *   then the tree).
 * - outer, nout < SPLIT_THREADS / 2: a thread per (output, chunk), chunks
 *   of at least SPLIT_OUTER_CHUNK elements, about SPLIT_THREADS threads in
 *   all.  Chunk g holds the reduced elements g, g + G, g + 2 G, ..., so
 *   that a warp's threads read neighbouring rows even for a handful of
 *   outputs ((2^21, 8).sum(0) took 1.2 ms with contiguous chunks, where
 *   each warp touched four distant rows).  Partials at scratch[g nout + o]
 *   (neighbouring threads write neighbouring partials), folded by a
 *   thread per output in chunk order, or, for fewer than SPLIT_BLOCKS
 *   outputs (G is then large), by a block per output as above.
 * The plan depends on the shape alone, never on the device, so a result
 * is the same on every GPU and in the emulation, which runs the same
 * arithmetic one simulated thread at a time. */
#define SPLIT_BLOCKS 1024
#define SPLIT_INNER_CHUNK (16 * TLK_THREADS)
#define SPLIT_THREADS (1 << 18)
#define SPLIT_OUTER_CHUNK 16
/* Bytes of scratch per partial: the largest accumulator (c128). */
#define SPLIT_PARTIAL_BYTES 16

struct Plan {
    bool inner;
    int64_t G;       /* chunks per output (1: no split) */
    int64_t chunk;   /* reduced elements per chunk (inner) */
    bool fold_block; /* partials folded by a block per output */
    int64_t so, sg;  /* partial (o, g) is scratch[o so + g sg] */
};

static int64_t iabs(int64_t x)
{
    return x < 0 ? -x : x;
}

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t imin(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static Plan split_plan(const tl_dev_reduce *d)
{
    Plan p;
    /* Reduced elements moving fastest, and enough of them: a block each. */
    p.inner = d->nr > 0 && d->M >= 64 &&
              (d->nk == 0 || iabs(d->rstride[0]) < iabs(d->kin[0]));
    p.G = 1;
    p.chunk = d->M;
    if (p.inner && d->nout < SPLIT_BLOCKS && d->M >= 2 * SPLIT_INNER_CHUNK) {
        p.G = imin(d->M / SPLIT_INNER_CHUNK, cdiv(SPLIT_BLOCKS, d->nout));
    }
    else if (!p.inner && d->nout < SPLIT_THREADS / 2 &&
             d->M >= 2 * SPLIT_OUTER_CHUNK) {
        p.G = imin(d->M / SPLIT_OUTER_CHUNK, cdiv(SPLIT_THREADS, d->nout));
    }
    if (p.G > 1) {
        p.chunk = cdiv(d->M, p.G);
        p.G = cdiv(d->M, p.chunk); /* no empty chunk */
    }
    p.fold_block = p.inner || d->nout < SPLIT_BLOCKS;
    p.so = p.inner ? p.G : 1;
    p.sg = p.inner ? 1 : d->nout;
    return p;
}

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

/* The partial result over reduced indices j, j + step, ... below end of
 * the output whose input starts at base.  Four loads are issued before
 * their values are combined, into four accumulators (plain variables:
 * an array indexed at run time would live in local memory): a GPU thread
 * stalls at the first use of a load, so one accumulator keeps a single
 * load of each thread in flight. */
template <class F>
TL_HD typename F::A partial(const RedArgs &r, const char *base, int64_t j,
                            int64_t end, int64_t step)
{
    typedef typename F::A A;
    A a0 = F::init(), a1 = F::init(), a2 = F::init(), a3 = F::init();
    for (; j + 3 * step < end; j += 4 * step) {
        const A v0 = F::load_(base + red_offset(r, j), r.in_dtype);
        const A v1 = F::load_(base + red_offset(r, j + step), r.in_dtype);
        const A v2 = F::load_(base + red_offset(r, j + 2 * step),
                              r.in_dtype);
        const A v3 = F::load_(base + red_offset(r, j + 3 * step),
                              r.in_dtype);
        a0 = F::comb(a0, v0);
        a1 = F::comb(a1, v1);
        a2 = F::comb(a2, v2);
        a3 = F::comb(a3, v3);
    }
    for (; j < end; j += step) {
        a0 = F::comb(a0, F::load_(base + red_offset(r, j), r.in_dtype));
    }
    return F::comb(F::comb(a0, a1), F::comb(a2, a3));
}

/* Thread tid of nthreads: outputs tid, tid + nthreads, ... (G == 1), or
 * the partials of (output, chunk) pairs (G > 1: Note [Reduction
 * schedules]). */
template <class F>
TL_HD void per_thread_body(const RedArgs &r, const Plan &p,
                           typename F::A *scratch, int64_t tid,
                           int64_t nthreads)
{
    for (int64_t i = tid; i < r.nout * p.G; i += nthreads) {
        const int64_t g = i / r.nout, o = i - g * r.nout;
        int64_t io, oo;
        out_offsets(r, o, &io, &oo);
        /* Chunk g of the outer split is every G-th reduced element from
         * g on: a warp's threads then read neighbouring rows even when
         * the outputs are few (one row each). */
        const typename F::A a = partial<F>(r, r.in + io, g, r.M, p.G);
        if (p.G == 1) {
            F::finish(r, r.out + oo, a);
        }
        else {
            scratch[i] = a;
        }
    }
}

/* Folds output o's G partials in chunk order and finishes it (the second
 * kernel of outer splits with many outputs). */
template <class F>
TL_HD void fold_thread_body(const RedArgs &r, const Plan &p,
                            const typename F::A *scratch, int64_t tid,
                            int64_t nthreads)
{
    for (int64_t o = tid; o < r.nout; o += nthreads) {
        int64_t io, oo;
        out_offsets(r, o, &io, &oo);
        typename F::A acc = F::init();
        for (int64_t g = 0; g < p.G; g++) {
            acc = F::comb(acc, scratch[o * p.so + g * p.sg]);
        }
        F::finish(r, r.out + oo, acc);
    }
}

/* The shared-memory tree of the block schedules, run sequentially (the
 * emulation; TLK_THREADS is a power of two). */
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
    per_thread_kernel(const RedArgs r, const Plan p, typename F::A *scratch)
{
    per_thread_body<F>(r, p, scratch,
                       (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                       (int64_t)gridDim.x * blockDim.x);
}

template <class F>
__global__ void __launch_bounds__(TLK_THREADS)
    fold_thread_kernel(const RedArgs r, const Plan p,
                       const typename F::A *scratch)
{
    fold_thread_body<F>(r, p, scratch,
                        (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                        (int64_t)gridDim.x * blockDim.x);
}

/* Block b of the inner schedules: part[] holds each thread's value; the
 * tree leaves the block's result in part[0]. */
template <class F> __device__ void block_tree(typename F::A *part)
{
    __syncthreads();
    for (int w = TLK_THREADS / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) {
            part[threadIdx.x] =
                F::comb(part[threadIdx.x], part[threadIdx.x + w]);
        }
        __syncthreads();
    }
}

/* One block per (output, chunk): finishes the output (G == 1) or writes
 * the chunk's partial to scratch[o G + g]. */
template <class F>
__global__ void __launch_bounds__(TLK_THREADS)
    per_block_kernel(const RedArgs r, const Plan p, typename F::A *scratch)
{
    __shared__ typename F::A part[TLK_THREADS];
    for (int64_t b = blockIdx.x; b < r.nout * p.G; b += gridDim.x) {
        const int64_t o = b / p.G, g = b - o * p.G;
        int64_t io, oo;
        out_offsets(r, o, &io, &oo);
        const int64_t lo = g * p.chunk;
        const int64_t hi = lo + p.chunk < r.M ? lo + p.chunk : r.M;
        part[threadIdx.x] = partial<F>(r, r.in + io, lo + threadIdx.x, hi,
                                       TLK_THREADS);
        block_tree<F>(part);
        if (threadIdx.x == 0) {
            if (p.G == 1) {
                F::finish(r, r.out + oo, part[0]);
            }
            else {
                scratch[b] = part[0];
            }
        }
        __syncthreads();
    }
}

/* One block per output folding its G partials (strided, then the tree):
 * inner splits, and outer splits of few outputs, whose G is then in the
 * thousands (a thread per output took 1.5 ms to fold the 32768 partials
 * of each of 8 outputs). */
template <class F>
__global__ void __launch_bounds__(TLK_THREADS)
    fold_block_kernel(const RedArgs r, const Plan p,
                      const typename F::A *scratch)
{
    __shared__ typename F::A part[TLK_THREADS];
    for (int64_t o = blockIdx.x; o < r.nout; o += gridDim.x) {
        int64_t io, oo;
        out_offsets(r, o, &io, &oo);
        typename F::A acc = F::init();
        for (int64_t g = threadIdx.x; g < p.G; g += TLK_THREADS) {
            acc = F::comb(acc, scratch[o * p.so + g * p.sg]);
        }
        part[threadIdx.x] = acc;
        block_tree<F>(part);
        if (threadIdx.x == 0) {
            F::finish(r, r.out + oo, part[0]);
        }
        __syncthreads();
    }
}

static unsigned grid(int64_t blocks)
{
    return (unsigned)(blocks < 1 ? 1
                      : blocks > TLK_MAX_BLOCKS ? TLK_MAX_BLOCKS : blocks);
}
#endif

template <class F>
static int run(const RedArgs &r, const Plan &p, void *scratch_bytes,
               tl_cuda_stream s)
{
    typename F::A *scratch = (typename F::A *)scratch_bytes;
    const int64_t work = r.nout * p.G;
#ifdef TL_ON_DEVICE
    cudaStream_t cs = (cudaStream_t)s;
    if (p.inner) {
        per_block_kernel<F><<<grid(work), TLK_THREADS, 0, cs>>>(r, p,
                                                               scratch);
    }
    else {
        per_thread_kernel<F><<<grid(cdiv(work, TLK_THREADS)), TLK_THREADS,
                               0, cs>>>(r, p, scratch);
    }
    if (p.G > 1 && p.fold_block) {
        fold_block_kernel<F><<<grid(r.nout), TLK_THREADS, 0, cs>>>(r, p,
                                                                  scratch);
    }
    else if (p.G > 1) {
        fold_thread_kernel<F><<<grid(cdiv(r.nout, TLK_THREADS)),
                                TLK_THREADS, 0, cs>>>(r, p, scratch);
    }
    return tl_cuda_check_launch("reduction");
#else
    (void)s;
    typename F::A part[TLK_THREADS];
    if (p.inner) {
        /* The block schedules' arithmetic, one simulated block at a
         * time. */
        for (int64_t b = 0; b < work; b++) {
            const int64_t o = b / p.G, g = b - o * p.G;
            int64_t io, oo;
            out_offsets(r, o, &io, &oo);
            const int64_t lo = g * p.chunk;
            const int64_t hi = lo + p.chunk < r.M ? lo + p.chunk : r.M;
            for (int t = 0; t < TLK_THREADS; t++) {
                part[t] = partial<F>(r, r.in + io, lo + t, hi, TLK_THREADS);
            }
            if (p.G == 1) {
                F::finish(r, r.out + oo, tree<F>(part, TLK_THREADS));
            }
            else {
                scratch[b] = tree<F>(part, TLK_THREADS);
            }
        }
    }
    else {
        for (int64_t t = 0; t < TLK_EMULATED_THREADS; t++) {
            per_thread_body<F>(r, p, scratch, t, TLK_EMULATED_THREADS);
        }
    }
    for (int64_t o = 0; p.G > 1 && p.fold_block && o < r.nout; o++) {
        int64_t io, oo;
        out_offsets(r, o, &io, &oo);
        for (int t = 0; t < TLK_THREADS; t++) {
            typename F::A acc = F::init();
            for (int64_t g = t; g < p.G; g += TLK_THREADS) {
                acc = F::comb(acc, scratch[o * p.so + g * p.sg]);
            }
            part[t] = acc;
        }
        F::finish(r, r.out + oo, tree<F>(part, TLK_THREADS));
    }
    for (int64_t t = 0; p.G > 1 && !p.fold_block &&
                        t < TLK_EMULATED_THREADS; t++) {
        fold_thread_body<F>(r, p, scratch, t, TLK_EMULATED_THREADS);
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

size_t tl_cuda_reduce_scratch(const tl_dev_reduce *d)
{
    const Plan p = split_plan(d);
    return p.G > 1 ? (size_t)(d->nout * p.G) * SPLIT_PARTIAL_BYTES : 0;
}

int tl_cuda_reduce(const tl_dev_reduce *d, void *scratch, tl_cuda_stream s)
{
    const Plan p = split_plan(d);
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
    if (p.G > 1 && scratch == NULL) {
        return tl_error(TL_ERR_VALUE, "CUDA reduction: %lld partials need "
                        "scratch memory (tl_cuda_reduce_scratch)",
                        (long long)(d->nout * p.G));
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
            return run<sum_int>(r, p, scratch, s);
        }
        if (k == TL_KIND_COMPLEX) {
            return run<sum_cplx>(r, p, scratch, s);
        }
        if (k == TL_KIND_FLOAT) {
            return run<sum_flt>(r, p, scratch, s);
        }
        break;
    case TL_REDUCE_PROD:
        if (intlike) {
            return run<prod_int>(r, p, scratch, s);
        }
        return k == TL_KIND_COMPLEX ? run<prod_cplx>(r, p, scratch, s)
                                    : run<prod_flt>(r, p, scratch, s);
    case TL_REDUCE_AMAX:
    case TL_REDUCE_MAX:
    case TL_REDUCE_AMIN:
    case TL_REDUCE_MIN: {
        const bool mx = d->op == TL_REDUCE_AMAX || d->op == TL_REDUCE_MAX;
        if (k == TL_KIND_COMPLEX) {
            break;
        }
        if (d->in_dtype == TL_DTYPE_UINT64) {
            return mx ? run<minmax<uint64_t, true>>(r, p, scratch, s)
                      : run<minmax<uint64_t, false>>(r, p, scratch, s);
        }
        if (intlike) {
            return mx ? run<minmax<int64_t, true>>(r, p, scratch, s)
                      : run<minmax<int64_t, false>>(r, p, scratch, s);
        }
        return mx ? run<minmax<double, true>>(r, p, scratch, s)
                  : run<minmax<double, false>>(r, p, scratch, s);
    }
    case TL_REDUCE_ANY:
        return run<anyall<true>>(r, p, scratch, s);
    case TL_REDUCE_ALL:
        return run<anyall<false>>(r, p, scratch, s);
    default:
        break;
    }
    return tl_error(TL_ERR_NOT_IMPLEMENTED, "%s is not implemented on CUDA "
                    "for %s", tl_reduce_name(d->op) ? tl_reduce_name(d->op)
                                                    : "this reduction",
                    tl_dtype_info_of((tl_dtype)d->in_dtype)->name);
}
