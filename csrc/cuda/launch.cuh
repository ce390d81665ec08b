/* csrc/cuda/launch.cuh — the generic elementwise launcher: the plain
 * kernel arguments built from a tl_dev_loop (an offset calculator with
 * fast 32-bit division for strided operands, the operands' pointers and
 * dtypes, scalars), the grid-stride body (a contiguous vectorised path
 * and a strided path that converts dtypes per element), the __global__
 * wrapper, and its host emulation.  Included by the ew_*.cu files. */
#ifndef TENSORLIB_CSRC_CUDA_LAUNCH_CUH
#define TENSORLIB_CSRC_CUDA_LAUNCH_CUH

#include <stdlib.h>

#include "cuda_internal.h"
#include "cuda_prim.h"
#include "kernels.cuh"

/* Note [CUDA host emulation]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * This machine-independent code cannot run on a machine without a GPU,
 * and most of what can go wrong in it is not device-specific: indexing,
 * dtype conversions, op semantics, which kernel a dispatch picks, the
 * allocator, stream and copy logic.  So every csrc/cuda source also
 * builds with TL_CUDA_EMULATE (setup.py: TENSORLIB_CUDA=emulate): the
 * .cu files are compiled by the host C++ compiler, TL_HD functions become
 * plain inline functions, a "launch" runs the same grid-stride body on the
 * host for a handful of simulated threads (so the vectorised path and its
 * tails run too), and cuda_prim_emulated.c stands in for cudart: device
 * memory is host memory it tracks (every copy and kernel operand is
 * checked against the direction and the device ranges it must have),
 * streams are handles, and work completes when it is queued, so every
 * event is complete.  tests/test_cuda.py then runs its GPU tests against
 * that build on the CPU.  What emulation cannot show: real concurrency,
 * device code generation, the block-level reduction schedule (shared
 * memory), and cudart's own behaviour. */

namespace tlk {

#define TLK_MAX_DIMS 25
#define TLK_THREADS 256
#define TLK_MAX_BLOCKS 8192
#define TLK_EMULATED_THREADS 5

/* Unsigned division by a fixed divisor for dividends below 2^31, with a
 * multiply-high and a shift (Granlund and Montgomery). */
struct IntDiv {
    uint32_t d, m, s;

    TL_HD void init(uint32_t divisor)
    {
        d = divisor;
        for (s = 0; s < 32; s++) {
            if ((1ull << s) >= divisor) {
                break;
            }
        }
        const uint64_t one = 1;
        m = (uint32_t)(((one << 32) * ((one << s) - divisor)) / divisor + 1);
    }
    TL_HD uint32_t div(uint32_t n) const
    {
#if defined(TL_ON_DEVICE) && defined(__CUDA_ARCH__)
        const uint32_t t = __umulhi(n, m);
#else
        const uint32_t t = (uint32_t)(((uint64_t)n * m) >> 32);
#endif
        return (t + n) >> s;
    }
};

/* The kernel's arguments (N = outputs + inputs = 1 + NIN). */
template <int N> struct EwArgs {
    int ndim;
    int small;  /* numel < 2^31: 32-bit index arithmetic */
    int contig; /* one dim, every memory operand dense and of the type the
                   op reads or writes: no conversion, no index math */
    int vec;    /* elements per thread step on the contiguous path: 1, 4 */
    int64_t numel;
    int64_t size[TLK_MAX_DIMS];
    IntDiv div[TLK_MAX_DIMS];
    int64_t stride[TLK_MAX_DIMS][N]; /* bytes */
    char *data[N];                   /* NULL: a scalar input */
    int32_t dtype[N];
};

/* Inputs that are one value (host numbers), already in the compute type. */
template <class C, int NIN> struct Scalars {
    C v[NIN > 0 ? NIN : 1];
};

/* Byte offsets of flat index i for every operand. */
template <int N> TL_HD void offsets(const EwArgs<N> &a, int64_t i,
                                    int64_t *off)
{
    for (int k = 0; k < N; k++) {
        off[k] = 0;
    }
    if (a.ndim == 1) {
        for (int k = 0; k < N; k++) {
            off[k] = i * a.stride[0][k];
        }
        return;
    }
    if (a.small) {
        uint32_t idx = (uint32_t)i;
        for (int d = 0; d < a.ndim; d++) {
            const uint32_t q = a.div[d].div(idx);
            const int64_t r = (int64_t)(idx - q * a.div[d].d);
            for (int k = 0; k < N; k++) {
                off[k] += r * a.stride[d][k];
            }
            idx = q;
        }
        return;
    }
    for (int d = 0; d < a.ndim; d++) {
        const int64_t q = i / a.size[d];
        const int64_t r = i - q * a.size[d];
        for (int k = 0; k < N; k++) {
            off[k] += r * a.stride[d][k];
        }
        i = q;
    }
}

template <class F, class C, int NIN>
TL_HD typename F::R apply(const F &f, const C *in)
{
    if constexpr (NIN == 0) {
        return f();
    }
    else if constexpr (NIN == 1) {
        return f(in[0]);
    }
    else if constexpr (NIN == 2) {
        return f(in[0], in[1]);
    }
    else {
        return f(in[0], in[1], in[2]);
    }
}

/* A run of V elements, aligned as one (or, above 16 bytes, a few) vector
 * accesses. */
template <class T, int V> struct alignas((sizeof(T) * V < 16 ? sizeof(T) * V
                                                             : 16)) Vec {
    T v[V];
};

/* The grid-stride body: thread tid of nthreads. */
template <class C, class F, int NIN>
TL_HD void ew_body(const EwArgs<NIN + 1> &a, const Scalars<C, NIN> &sc,
                   const F &f, int64_t tid, int64_t nthreads)
{
    typedef typename F::R R;
    constexpr int N = NIN + 1;
    const int64_t n = a.numel;
    C in[NIN > 0 ? NIN : 1];

    if (a.contig) {
        int64_t start = 0;
        if (a.vec == 4) {
            const int64_t nv = n / 4;
            for (int64_t v = tid; v < nv; v += nthreads) {
                C x[NIN > 0 ? NIN : 1][4];
                for (int k = 0; k < NIN; k++) {
                    if (a.data[k + 1] != nullptr) {
                        const Vec<C, 4> w = reinterpret_cast<
                            const Vec<C, 4> *>(a.data[k + 1])[v];
                        for (int j = 0; j < 4; j++) {
                            x[k][j] = w.v[j];
                        }
                    }
                    else {
                        for (int j = 0; j < 4; j++) {
                            x[k][j] = sc.v[k];
                        }
                    }
                }
                Vec<R, 4> out;
                for (int j = 0; j < 4; j++) {
                    for (int k = 0; k < NIN; k++) {
                        in[k] = x[k][j];
                    }
                    out.v[j] = apply<F, C, NIN>(f, in);
                }
                reinterpret_cast<Vec<R, 4> *>(a.data[0])[v] = out;
            }
            start = nv * 4;
        }
        for (int64_t i = start + tid; i < n; i += nthreads) {
            for (int k = 0; k < NIN; k++) {
                in[k] = a.data[k + 1] != nullptr
                            ? reinterpret_cast<const C *>(a.data[k + 1])[i]
                            : sc.v[k];
            }
            reinterpret_cast<R *>(a.data[0])[i] = apply<F, C, NIN>(f, in);
        }
        return;
    }
    for (int64_t i = tid; i < n; i += nthreads) {
        int64_t off[N];
        offsets<N>(a, i, off);
        for (int k = 0; k < NIN; k++) {
            in[k] = a.data[k + 1] != nullptr
                        ? load<C>(a.data[k + 1] + off[k + 1], a.dtype[k + 1])
                        : sc.v[k];
        }
        store<R>(a.data[0] + off[0], a.dtype[0], apply<F, C, NIN>(f, in));
    }
}

#ifdef TL_ON_DEVICE
template <class C, class F, int NIN>
__global__ void __launch_bounds__(TLK_THREADS)
    ew_kernel(const EwArgs<NIN + 1> a, const Scalars<C, NIN> sc, const F f)
{
    ew_body<C, F, NIN>(a, sc, f,
                       (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                       (int64_t)gridDim.x * blockDim.x);
}
#endif

static inline int itemsize_of(int dt)
{
    return (int)tl_dtype_itemsize((tl_dtype)dt);
}

/* Builds the arguments of an elementwise launch from L, reading inputs as
 * C and writing R.  Returns 0 or an error. */
template <class C, class R, int NIN>
int make_args(const tl_dev_loop *L, EwArgs<NIN + 1> *a,
              Scalars<C, NIN> *sc)
{
    constexpr int N = NIN + 1;
    if (L->ntensors != N || L->noutputs != 1) {
        return tl_error(TL_ERR_VALUE, "CUDA launch: expected 1 output and "
                        "%d inputs, got %d operands", NIN, L->ntensors);
    }
    if (L->ndim > TLK_MAX_DIMS || L->ndim < 1) {
        return tl_error(TL_ERR_NOT_IMPLEMENTED, "CUDA kernels take at most "
                        "%d dims after coalescing (this loop has %d)",
                        TLK_MAX_DIMS, L->ndim);
    }
    memset(a, 0, sizeof(*a));
    a->ndim = L->ndim;
    a->numel = L->numel;
    a->small = L->numel < ((int64_t)1 << 31);
    for (int d = 0; d < L->ndim; d++) {
        a->size[d] = L->shape[d];
        if (a->small) {
            a->div[d].init((uint32_t)L->shape[d]);
        }
        for (int k = 0; k < N; k++) {
            a->stride[d][k] = L->ops[k].strides[d];
        }
    }
    bool contig = L->ndim == 1, aligned = true;
    for (int k = 0; k < N; k++) {
        const tl_dev_operand *o = &L->ops[k];
        a->data[k] = o->data;
        a->dtype[k] = o->dtype;
        if (o->data == nullptr) {
            if (k == 0) {
                return tl_error(TL_ERR_VALUE, "CUDA launch: the output is "
                                "a scalar");
            }
            sc->v[k - 1] = load<C>((const char *)o->scalar.b, o->dtype);
            continue;
        }
        const int want = k == 0 ? dtype_of<R>::value : dtype_of<C>::value;
        const int isz = itemsize_of(o->dtype);
        contig = contig && o->dtype == want && o->strides[0] == isz;
        const int va = isz * 4 < 16 ? isz * 4 : 16;
        aligned = aligned && ((uintptr_t)o->data % (uintptr_t)va) == 0;
        if (tl_cuda_check_pointer(o->data, 0, 1) < 0) {
            return tl_error_kind();
        }
    }
    a->contig = contig;
    a->vec = contig && aligned ? 4 : 1;
    return 0;
}

/* Runs F over L on stream s: the kernel on a GPU, the same body for a few
 * simulated threads in the host emulation.  Returns 0 or an error. */
template <class C, class F, int NIN>
int launch_ew(const tl_dev_loop *L, const F &f, tl_cuda_stream s)
{
    EwArgs<NIN + 1> a;
    Scalars<C, NIN> sc;
    int rc = make_args<C, typename F::R, NIN>(L, &a, &sc);
    if (rc < 0) {
        return rc;
    }
#ifdef TL_ON_DEVICE
    const int64_t per = a.contig && a.vec == 4 ? 4 * TLK_THREADS
                                               : TLK_THREADS;
    int64_t blocks = (a.numel + per - 1) / per;
    if (blocks > TLK_MAX_BLOCKS) {
        blocks = TLK_MAX_BLOCKS;
    }
    ew_kernel<C, F, NIN><<<(unsigned)blocks, TLK_THREADS, 0,
                           (cudaStream_t)s>>>(a, sc, f);
    return tl_cuda_check_launch("elementwise");
#else
    (void)s;
    for (int64_t t = 0; t < TLK_EMULATED_THREADS; t++) {
        ew_body<C, F, NIN>(a, sc, f, t, TLK_EMULATED_THREADS);
    }
    /* The launch check, so that its error path runs emulated too. */
    return tl_cuda_check_launch("elementwise");
#endif
}

} /* namespace tlk */

#endif /* TENSORLIB_CSRC_CUDA_LAUNCH_CUH */
