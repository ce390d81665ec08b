/* csrc/cuda/cuda_prim_emulated.c — the CUDA primitive layer emulated on
 * the host, for testing the plug-in on machines without a GPU (Note [CUDA
 * host emulation] in launch.cuh).  "Device memory" is host memory that
 * this file hands out and tracks, so that every copy and every kernel
 * operand can be checked for being on the side it claims; work completes
 * when it is queued, so every stream is idle and every event complete.
 * TENSORLIB_CUDA_EMULATE_DEVICES sets the device count (default 1, at
 * most 8; 0 emulates a machine without a device).  Built with
 * TENSORLIB_CUDA=emulate only. */
#if defined(TL_WITH_CUDA) && defined(TL_CUDA_EMULATE)

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_prim.h"

#define MAX_EMULATED 8

typedef struct range {
    struct range *next;
    char *p;
    size_t n;
    int dev; /* -1: page-locked host memory */
} range;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static range *ranges;
static _Thread_local int current_device;

const char *tl_cuda_prim_name(void)
{
    return "emulated";
}

static int ndev(void)
{
    const char *e = getenv("TENSORLIB_CUDA_EMULATE_DEVICES");
    int n = e != NULL && *e != '\0' ? atoi(e) : 1;

    return n < 0 ? 0 : n > MAX_EMULATED ? MAX_EMULATED : n;
}

/* The tracked range holding p, or NULL.  Call with mu held. */
static range *find(const void *p)
{
    const char *c = p;
    range *r;

    for (r = ranges; r != NULL; r = r->next) {
        if (c >= r->p && c < r->p + r->n) {
            return r;
        }
    }
    return NULL;
}

static int track(void **out, size_t n, int dev)
{
    range *r = malloc(sizeof(*r));
    void *p = NULL;

    if (r == NULL || posix_memalign(&p, 4096, n != 0 ? n : 1) != 0) {
        free(r);
        return tl_error(TL_ERR_MEMORY, "CUDA error cudaErrorMemoryAllocation "
                        "(out of memory) in emulated cudaMalloc of %zu "
                        "bytes", n);
    }
    /* Garbage, as fresh device memory holds: reading it uninitialised is
     * a bug the tests should see. */
    memset(p, 0xa5, n);
    r->p = p;
    r->n = n != 0 ? n : 1;
    r->dev = dev;
    pthread_mutex_lock(&mu);
    r->next = ranges;
    ranges = r;
    pthread_mutex_unlock(&mu);
    *out = p;
    return TL_OK;
}

static int untrack(void *p, int dev, const char *call)
{
    range **link;

    pthread_mutex_lock(&mu);
    for (link = &ranges; *link != NULL; link = &(*link)->next) {
        range *r = *link;
        if (r->p == p && r->dev == dev) {
            *link = r->next;
            pthread_mutex_unlock(&mu);
            free(r->p);
            free(r);
            return TL_OK;
        }
    }
    pthread_mutex_unlock(&mu);
    return tl_error(TL_ERR_RUNTIME, "CUDA error cudaErrorInvalidValue "
                    "(invalid argument) in emulated %s(%p)", call, p);
}

int tl_cuda_check_pointer(const void *p, size_t n, int on_device)
{
    range *r;
    int ok;

    pthread_mutex_lock(&mu);
    r = find(p);
    ok = on_device ? r != NULL && r->dev >= 0 &&
                         (size_t)((const char *)p - r->p) + n <= r->n
                   : r == NULL || r->dev < 0;
    pthread_mutex_unlock(&mu);
    if (!ok) {
        return tl_error(TL_ERR_RUNTIME, "emulated CUDA: %p (%zu bytes) is "
                        "not %s memory", p, n,
                        on_device ? "device" : "host");
    }
    return TL_OK;
}

int tl_cuda_device_count(int *count)
{
    *count = ndev();
    return TL_OK;
}

int tl_cuda_get_device(int *dev)
{
    *dev = current_device;
    return TL_OK;
}

int tl_cuda_set_device(int dev)
{
    if (dev < 0 || dev >= ndev()) {
        return tl_error(TL_ERR_RUNTIME, "CUDA error cudaErrorInvalidDevice "
                        "(invalid device ordinal) in emulated "
                        "cudaSetDevice(%d)", dev);
    }
    current_device = dev;
    return TL_OK;
}

int tl_cuda_device_synchronize(void)
{
    return TL_OK;
}

int tl_cuda_device_properties(int dev, char *name, size_t n, int *sm_count,
                              int *major, int *minor)
{
    if (dev < 0 || dev >= ndev()) {
        return tl_error(TL_ERR_RUNTIME, "CUDA error cudaErrorInvalidDevice "
                        "in emulated cudaGetDeviceProperties(%d)", dev);
    }
    snprintf(name, n, "tensorlib emulated CUDA device %d", dev);
    *sm_count = 1;
    *major = 8;
    *minor = 0;
    return TL_OK;
}

int tl_cuda_runtime_version(int *v)
{
    *v = 0;
    return TL_OK;
}

int tl_cuda_driver_version(int *v)
{
    *v = 0;
    return TL_OK;
}

int tl_cuda_malloc(void **p, size_t n)
{
    return track(p, n, current_device);
}

int tl_cuda_free(void *p)
{
    return p == NULL ? TL_OK : untrack(p, current_device, "cudaFree");
}

int tl_cuda_malloc_host(void **p, size_t n)
{
    return track(p, n, -1);
}

int tl_cuda_free_host(void *p)
{
    return p == NULL ? TL_OK : untrack(p, -1, "cudaFreeHost");
}

int tl_cuda_memcpy_async(void *dst, const void *src, size_t n,
                         tl_cuda_copy_kind kind, tl_cuda_stream s)
{
    (void)s;
    if (tl_cuda_check_pointer(dst, n, kind != TL_CUDA_D2H) < 0 ||
        tl_cuda_check_pointer(src, n, kind != TL_CUDA_H2D) < 0) {
        return TL_ERR_RUNTIME;
    }
    memmove(dst, src, n);
    return TL_OK;
}

int tl_cuda_memcpy_peer_async(void *dst, int dst_dev, const void *src,
                              int src_dev, size_t n, tl_cuda_stream s)
{
    (void)dst_dev;
    (void)src_dev;
    return tl_cuda_memcpy_async(dst, src, n, TL_CUDA_D2D, s);
}

int tl_cuda_memset_async(void *p, int value, size_t n, tl_cuda_stream s)
{
    (void)s;
    if (tl_cuda_check_pointer(p, n, 1) < 0) {
        return TL_ERR_RUNTIME;
    }
    memset(p, value, n);
    return TL_OK;
}

/* Streams and events are distinct heap handles; all work is done. */
int tl_cuda_stream_create(tl_cuda_stream *s, int priority)
{
    (void)priority;
    *s = malloc(16);
    return *s != NULL ? TL_OK
                      : tl_error(TL_ERR_MEMORY, "emulated stream: no memory");
}

int tl_cuda_stream_destroy(tl_cuda_stream s)
{
    free(s);
    return TL_OK;
}

int tl_cuda_stream_query(tl_cuda_stream s)
{
    (void)s;
    return 1;
}

int tl_cuda_stream_synchronize(tl_cuda_stream s)
{
    (void)s;
    return TL_OK;
}

int tl_cuda_stream_wait_event(tl_cuda_stream s, tl_cuda_event e)
{
    (void)s;
    (void)e;
    return TL_OK;
}

int tl_cuda_event_create(tl_cuda_event *e)
{
    *e = malloc(16);
    return *e != NULL ? TL_OK
                      : tl_error(TL_ERR_MEMORY, "emulated event: no memory");
}

int tl_cuda_event_record(tl_cuda_event e, tl_cuda_stream s)
{
    (void)e;
    (void)s;
    return TL_OK;
}

int tl_cuda_event_query(tl_cuda_event e)
{
    (void)e;
    return 1;
}

int tl_cuda_event_synchronize(tl_cuda_event e)
{
    (void)e;
    return TL_OK;
}

int tl_cuda_event_destroy(tl_cuda_event e)
{
    free(e);
    return TL_OK;
}

int tl_cuda_check_launch(const char *what)
{
    (void)what;
    return TL_OK;
}

#endif /* TL_WITH_CUDA && TL_CUDA_EMULATE */
