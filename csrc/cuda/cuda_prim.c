/* csrc/cuda/cuda_prim.c — the CUDA primitive layer over the real CUDA
 * runtime (cudart, linked statically): one function per runtime call,
 * each turning a CUDA error into a recorded tl_status.  It owns no state;
 * it never aborts.  Built with TENSORLIB_CUDA=1 (TL_WITH_CUDA without
 * TL_CUDA_EMULATE); the emulated build uses cuda_prim_emulated.c. */
#if defined(TL_WITH_CUDA) && !defined(TL_CUDA_EMULATE)

#include <cuda_runtime_api.h>

#include "cuda_prim.h"

/* Records e (raised by `call`) and returns its status.  A "sticky" error
 * leaves the context unusable; a non-sticky one is cleared here, so the
 * next call does not see it again. */
static int fail(cudaError_t e, const char *call)
{
    (void)cudaGetLastError();
    return tl_error(e == cudaErrorMemoryAllocation ? TL_ERR_MEMORY
                                                   : TL_ERR_RUNTIME,
                    "CUDA error %s (%s) in %s", cudaGetErrorName(e),
                    cudaGetErrorString(e), call);
}

/* STYLE.md habit 9: convert and return, never abort. */
#define TL_CUDA_CHECK(expr)                                                 \
    do {                                                                    \
        cudaError_t tl_e_ = (expr);                                         \
        if (tl_e_ != cudaSuccess) {                                         \
            return fail(tl_e_, #expr);                                      \
        }                                                                   \
    } while (0)

const char *tl_cuda_prim_name(void)
{
    return "cudart";
}

int tl_cuda_device_count(int *count)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);

    if (e != cudaSuccess) {
        /* No driver, no device, a driver too old: none usable. */
        (void)cudaGetLastError();
        n = 0;
    }
    *count = n;
    return TL_OK;
}

int tl_cuda_get_device(int *dev)
{
    TL_CUDA_CHECK(cudaGetDevice(dev));
    return TL_OK;
}

int tl_cuda_set_device(int dev)
{
    TL_CUDA_CHECK(cudaSetDevice(dev));
    return TL_OK;
}

int tl_cuda_device_synchronize(void)
{
    TL_CUDA_CHECK(cudaDeviceSynchronize());
    return TL_OK;
}

int tl_cuda_device_properties(int dev, char *name, size_t n, int *sm_count,
                              int *major, int *minor)
{
    struct cudaDeviceProp p;

    TL_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    if (name != NULL && n > 0) {
        size_t i;
        for (i = 0; i + 1 < n && p.name[i] != '\0'; i++) {
            name[i] = p.name[i];
        }
        name[i] = '\0';
    }
    *sm_count = p.multiProcessorCount;
    *major = p.major;
    *minor = p.minor;
    return TL_OK;
}

int tl_cuda_runtime_version(int *v)
{
    TL_CUDA_CHECK(cudaRuntimeGetVersion(v));
    return TL_OK;
}

int tl_cuda_driver_version(int *v)
{
    TL_CUDA_CHECK(cudaDriverGetVersion(v));
    return TL_OK;
}

int tl_cuda_malloc(void **p, size_t n)
{
    TL_CUDA_CHECK(cudaMalloc(p, n));
    return TL_OK;
}

int tl_cuda_free(void *p)
{
    TL_CUDA_CHECK(cudaFree(p));
    return TL_OK;
}

int tl_cuda_malloc_host(void **p, size_t n)
{
    TL_CUDA_CHECK(cudaMallocHost(p, n));
    return TL_OK;
}

int tl_cuda_free_host(void *p)
{
    TL_CUDA_CHECK(cudaFreeHost(p));
    return TL_OK;
}

int tl_cuda_memcpy_async(void *dst, const void *src, size_t n,
                         tl_cuda_copy_kind kind, tl_cuda_stream s)
{
    enum cudaMemcpyKind k = kind == TL_CUDA_H2D   ? cudaMemcpyHostToDevice
                            : kind == TL_CUDA_D2H ? cudaMemcpyDeviceToHost
                                                  : cudaMemcpyDeviceToDevice;

    TL_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, k, (cudaStream_t)s));
    return TL_OK;
}

int tl_cuda_memcpy_peer_async(void *dst, int dst_dev, const void *src,
                              int src_dev, size_t n, tl_cuda_stream s)
{
    TL_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, n,
                                      (cudaStream_t)s));
    return TL_OK;
}

int tl_cuda_memset_async(void *p, int value, size_t n, tl_cuda_stream s)
{
    TL_CUDA_CHECK(cudaMemsetAsync(p, value, n, (cudaStream_t)s));
    return TL_OK;
}

int tl_cuda_stream_create(tl_cuda_stream *s, int priority)
{
    cudaStream_t st;

    TL_CUDA_CHECK(cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking,
                                               priority));
    *s = (tl_cuda_stream)st;
    return TL_OK;
}

int tl_cuda_stream_destroy(tl_cuda_stream s)
{
    TL_CUDA_CHECK(cudaStreamDestroy((cudaStream_t)s));
    return TL_OK;
}

int tl_cuda_stream_query(tl_cuda_stream s)
{
    cudaError_t e = cudaStreamQuery((cudaStream_t)s);

    if (e == cudaSuccess) {
        return 1;
    }
    if (e == cudaErrorNotReady) {
        (void)cudaGetLastError();
        return 0;
    }
    return fail(e, "cudaStreamQuery");
}

int tl_cuda_stream_synchronize(tl_cuda_stream s)
{
    TL_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)s));
    return TL_OK;
}

int tl_cuda_stream_wait_event(tl_cuda_stream s, tl_cuda_event e)
{
    TL_CUDA_CHECK(cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0));
    return TL_OK;
}

int tl_cuda_event_create(tl_cuda_event *e)
{
    cudaEvent_t ev;

    TL_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    *e = (tl_cuda_event)ev;
    return TL_OK;
}

int tl_cuda_event_record(tl_cuda_event e, tl_cuda_stream s)
{
    TL_CUDA_CHECK(cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s));
    return TL_OK;
}

int tl_cuda_event_query(tl_cuda_event e)
{
    cudaError_t r = cudaEventQuery((cudaEvent_t)e);

    if (r == cudaSuccess) {
        return 1;
    }
    if (r == cudaErrorNotReady) {
        (void)cudaGetLastError();
        return 0;
    }
    return fail(r, "cudaEventQuery");
}

int tl_cuda_event_synchronize(tl_cuda_event e)
{
    TL_CUDA_CHECK(cudaEventSynchronize((cudaEvent_t)e));
    return TL_OK;
}

int tl_cuda_event_destroy(tl_cuda_event e)
{
    TL_CUDA_CHECK(cudaEventDestroy((cudaEvent_t)e));
    return TL_OK;
}

int tl_cuda_check_launch(const char *what)
{
    cudaError_t e = cudaGetLastError();

    if (e != cudaSuccess) {
        return tl_error(TL_ERR_RUNTIME, "CUDA error %s (%s) launching the "
                        "%s kernel", cudaGetErrorName(e),
                        cudaGetErrorString(e), what);
    }
    return TL_OK;
}

int tl_cuda_check_pointer(const void *p, size_t n, int on_device)
{
    (void)p;
    (void)n;
    (void)on_device;
    return TL_OK;
}

#endif /* TL_WITH_CUDA && !TL_CUDA_EMULATE */
