/* csrc/cuda/cuda_prim_emulated.c — the CUDA primitive layer emulated on
 * the host, for testing the plug-in on machines without a GPU (Note [CUDA
 * host emulation] in launch.cuh).  "Device memory" is host memory that
 * this file hands out and tracks, so that every copy and every kernel
 * operand can be checked for being on the side it claims; work completes
 * when it is queued, so every stream is idle and every event complete.
 * TENSORLIB_CUDA_EMULATE_DEVICES sets the device count (default 1, at
 * most 8; 0 emulates a machine without a device).  Built with
 * TENSORLIB_CUDA=emulate only.
 *
 * Note [Emulated CUDA faults]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The real runtime can fail any call; the emulation fails one only when a
 * test asks (tl_cuda_emu_fault_arm, tl_cuda_emu_fault_stick; Python:
 * tensorlib._C._testing.cuda_fail_call and cuda_fail_always, bound in
 * cuda_testing.c), so that the error paths above this layer run:
 * - one-shot: the n-th counted call from now (n = 0: the next) fails
 *   once, then the counter is disarmed;
 * - sticky: every call of one primitive fails until unstuck (a broken
 *   context, or a device that stays out of memory).
 * Every primitive is counted except tl_cuda_prim_name, the device count
 * (read once at initialisation: a failure would hide the device for the
 * rest of the process) and tl_cuda_check_pointer (the emulation's own
 * check).  A fault records what cuda_prim.c records for a real error of
 * that call: TL_ERR_MEMORY for cudaMalloc and cudaMallocHost
 * (cudaErrorMemoryAllocation), TL_ERR_RUNTIME naming the call otherwise;
 * the failed call has no effect, except that the releasing calls (cudaFree,
 * cudaFreeHost, cudaStreamDestroy, cudaEventDestroy) release and then
 * report, as cudart does when it returns an error of earlier asynchronous
 * work, so that leak checks stay exact.  tl_cuda_emu_live counts what is
 * alive (tracked ranges, streams, events) for those checks. */
#if defined(TL_WITH_CUDA) && defined(TL_CUDA_EMULATE)

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
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

/* ---- injected faults (Note [Emulated CUDA faults]) ---------------------- */

static const char *const call_names[TL_CUDA_EMU_NCALLS] = {
    [TL_CUDA_EMU_GET_DEVICE] = "cudaGetDevice",
    [TL_CUDA_EMU_SET_DEVICE] = "cudaSetDevice",
    [TL_CUDA_EMU_DEVICE_SYNCHRONIZE] = "cudaDeviceSynchronize",
    [TL_CUDA_EMU_DEVICE_PROPERTIES] = "cudaGetDeviceProperties",
    [TL_CUDA_EMU_RUNTIME_VERSION] = "cudaRuntimeGetVersion",
    [TL_CUDA_EMU_DRIVER_VERSION] = "cudaDriverGetVersion",
    [TL_CUDA_EMU_MALLOC] = "cudaMalloc",
    [TL_CUDA_EMU_FREE] = "cudaFree",
    [TL_CUDA_EMU_MALLOC_HOST] = "cudaMallocHost",
    [TL_CUDA_EMU_FREE_HOST] = "cudaFreeHost",
    [TL_CUDA_EMU_MEMCPY] = "cudaMemcpyAsync",
    [TL_CUDA_EMU_MEMCPY_PEER] = "cudaMemcpyPeerAsync",
    [TL_CUDA_EMU_MEMSET] = "cudaMemsetAsync",
    [TL_CUDA_EMU_STREAM_CREATE] = "cudaStreamCreateWithPriority",
    [TL_CUDA_EMU_STREAM_DESTROY] = "cudaStreamDestroy",
    [TL_CUDA_EMU_STREAM_QUERY] = "cudaStreamQuery",
    [TL_CUDA_EMU_STREAM_SYNCHRONIZE] = "cudaStreamSynchronize",
    [TL_CUDA_EMU_STREAM_WAIT_EVENT] = "cudaStreamWaitEvent",
    [TL_CUDA_EMU_EVENT_CREATE] = "cudaEventCreateWithFlags",
    [TL_CUDA_EMU_EVENT_RECORD] = "cudaEventRecord",
    [TL_CUDA_EMU_EVENT_QUERY] = "cudaEventQuery",
    [TL_CUDA_EMU_EVENT_SYNCHRONIZE] = "cudaEventSynchronize",
    [TL_CUDA_EMU_EVENT_DESTROY] = "cudaEventDestroy",
    [TL_CUDA_EMU_LAUNCH] = "cudaLaunchKernel",
};

static pthread_mutex_t fault_mu = PTHREAD_MUTEX_INITIALIZER;
static long long fault_at = -1;  /* the counted call that fails; -1: none */
static long long fault_calls;    /* calls counted since arming */
static int fault_fired = -1;     /* the call the one-shot fault hit */
static uint32_t fault_sticky;    /* bit c: every call c fails */
static atomic_long live_streams, live_events;

const char *tl_cuda_emu_call_name(int call)
{
    return call >= 0 && call < TL_CUDA_EMU_NCALLS ? call_names[call] : NULL;
}

void tl_cuda_emu_fault_arm(long long n)
{
    pthread_mutex_lock(&fault_mu);
    fault_at = n < 0 ? -1 : n;
    fault_calls = 0;
    fault_fired = -1;
    pthread_mutex_unlock(&fault_mu);
}

int tl_cuda_emu_fault_stick(int call, int on)
{
    if (call < 0 || call >= TL_CUDA_EMU_NCALLS) {
        return tl_error(TL_ERR_VALUE, "emulated CUDA: no call %d", call);
    }
    pthread_mutex_lock(&fault_mu);
    if (on) {
        fault_sticky |= (uint32_t)1 << call;
    }
    else {
        fault_sticky &= ~((uint32_t)1 << call);
    }
    pthread_mutex_unlock(&fault_mu);
    return TL_OK;
}

void tl_cuda_emu_fault_unstick_all(void)
{
    pthread_mutex_lock(&fault_mu);
    fault_sticky = 0;
    pthread_mutex_unlock(&fault_mu);
}

long long tl_cuda_emu_fault_state(int *fired)
{
    long long n;

    pthread_mutex_lock(&fault_mu);
    n = fault_calls;
    *fired = fault_fired;
    pthread_mutex_unlock(&fault_mu);
    return n;
}

long tl_cuda_emu_live(size_t *bytes, long *streams, long *events)
{
    const range *r;
    long n = 0;
    size_t b = 0;

    pthread_mutex_lock(&mu);
    for (r = ranges; r != NULL; r = r->next) {
        n++;
        b += r->n;
    }
    pthread_mutex_unlock(&mu);
    *bytes = b;
    *streams = atomic_load(&live_streams);
    *events = atomic_load(&live_events);
    return n;
}

/* Counts call c; true when it is to fail now. */
static bool fault_hit(int c)
{
    bool hit;

    pthread_mutex_lock(&fault_mu);
    hit = (fault_sticky >> c) & 1u;
    if (fault_at >= 0 && fault_calls++ == fault_at) {
        fault_at = -1;
        fault_fired = c;
        hit = true;
    }
    pthread_mutex_unlock(&fault_mu);
    return hit;
}

/* Records what cuda_prim.c records for a real error of call c. */
static int fault_error(int c)
{
    if (c == TL_CUDA_EMU_MALLOC || c == TL_CUDA_EMU_MALLOC_HOST) {
        return tl_error(TL_ERR_MEMORY, "CUDA error cudaErrorMemoryAllocation "
                        "(out of memory) in emulated %s (injected fault)",
                        call_names[c]);
    }
    return tl_error(TL_ERR_RUNTIME, "CUDA error cudaErrorUnknown (unknown "
                    "error) in emulated %s (injected fault)", call_names[c]);
}

#define FAULT_POINT(c)                                                      \
    do {                                                                    \
        if (fault_hit(c)) {                                                 \
            return fault_error(c);                                          \
        }                                                                   \
    } while (0)

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
    FAULT_POINT(TL_CUDA_EMU_GET_DEVICE);
    *dev = current_device;
    return TL_OK;
}

int tl_cuda_set_device(int dev)
{
    FAULT_POINT(TL_CUDA_EMU_SET_DEVICE);
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
    FAULT_POINT(TL_CUDA_EMU_DEVICE_SYNCHRONIZE);
    return TL_OK;
}

int tl_cuda_device_properties(int dev, char *name, size_t n, int *sm_count,
                              int *major, int *minor)
{
    FAULT_POINT(TL_CUDA_EMU_DEVICE_PROPERTIES);
    if (dev < 0 || dev >= ndev()) {
        return tl_error(TL_ERR_RUNTIME, "CUDA error cudaErrorInvalidDevice "
                        "in emulated cudaGetDeviceProperties(%d)", dev);
    }
    if (name != NULL && n > 0) {
        snprintf(name, n, "tensorlib emulated CUDA device %d", dev);
    }
    *sm_count = 1;
    *major = 8;
    *minor = 0;
    return TL_OK;
}

int tl_cuda_runtime_version(int *v)
{
    FAULT_POINT(TL_CUDA_EMU_RUNTIME_VERSION);
    *v = 0;
    return TL_OK;
}

int tl_cuda_driver_version(int *v)
{
    FAULT_POINT(TL_CUDA_EMU_DRIVER_VERSION);
    *v = 0;
    return TL_OK;
}

int tl_cuda_malloc(void **p, size_t n)
{
    FAULT_POINT(TL_CUDA_EMU_MALLOC);
    return track(p, n, current_device);
}

/* The releasing calls release, then report an injected fault. */
int tl_cuda_free(void *p)
{
    int rc = p == NULL ? TL_OK : untrack(p, current_device, "cudaFree");

    return rc == 0 && fault_hit(TL_CUDA_EMU_FREE)
               ? fault_error(TL_CUDA_EMU_FREE)
               : rc;
}

int tl_cuda_malloc_host(void **p, size_t n)
{
    FAULT_POINT(TL_CUDA_EMU_MALLOC_HOST);
    return track(p, n, -1);
}

int tl_cuda_free_host(void *p)
{
    int rc = p == NULL ? TL_OK : untrack(p, -1, "cudaFreeHost");

    return rc == 0 && fault_hit(TL_CUDA_EMU_FREE_HOST)
               ? fault_error(TL_CUDA_EMU_FREE_HOST)
               : rc;
}

static int memcpy_checked(void *dst, const void *src, size_t n,
                          tl_cuda_copy_kind kind)
{
    if (tl_cuda_check_pointer(dst, n, kind != TL_CUDA_D2H) < 0 ||
        tl_cuda_check_pointer(src, n, kind != TL_CUDA_H2D) < 0) {
        return TL_ERR_RUNTIME;
    }
    memmove(dst, src, n);
    return TL_OK;
}

int tl_cuda_memcpy_async(void *dst, const void *src, size_t n,
                         tl_cuda_copy_kind kind, tl_cuda_stream s)
{
    (void)s;
    FAULT_POINT(TL_CUDA_EMU_MEMCPY);
    return memcpy_checked(dst, src, n, kind);
}

int tl_cuda_memcpy_peer_async(void *dst, int dst_dev, const void *src,
                              int src_dev, size_t n, tl_cuda_stream s)
{
    (void)dst_dev;
    (void)src_dev;
    (void)s;
    FAULT_POINT(TL_CUDA_EMU_MEMCPY_PEER);
    return memcpy_checked(dst, src, n, TL_CUDA_D2D);
}

int tl_cuda_memset_async(void *p, int value, size_t n, tl_cuda_stream s)
{
    (void)s;
    FAULT_POINT(TL_CUDA_EMU_MEMSET);
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
    FAULT_POINT(TL_CUDA_EMU_STREAM_CREATE);
    *s = malloc(16);
    if (*s == NULL) {
        return tl_error(TL_ERR_MEMORY, "emulated stream: no memory");
    }
    atomic_fetch_add(&live_streams, 1);
    return TL_OK;
}

int tl_cuda_stream_destroy(tl_cuda_stream s)
{
    if (s != NULL) {
        free(s);
        atomic_fetch_sub(&live_streams, 1);
    }
    FAULT_POINT(TL_CUDA_EMU_STREAM_DESTROY);
    return TL_OK;
}

int tl_cuda_stream_query(tl_cuda_stream s)
{
    (void)s;
    FAULT_POINT(TL_CUDA_EMU_STREAM_QUERY);
    return 1;
}

int tl_cuda_stream_synchronize(tl_cuda_stream s)
{
    (void)s;
    FAULT_POINT(TL_CUDA_EMU_STREAM_SYNCHRONIZE);
    return TL_OK;
}

int tl_cuda_stream_wait_event(tl_cuda_stream s, tl_cuda_event e)
{
    (void)s;
    (void)e;
    FAULT_POINT(TL_CUDA_EMU_STREAM_WAIT_EVENT);
    return TL_OK;
}

int tl_cuda_event_create(tl_cuda_event *e)
{
    FAULT_POINT(TL_CUDA_EMU_EVENT_CREATE);
    *e = malloc(16);
    if (*e == NULL) {
        return tl_error(TL_ERR_MEMORY, "emulated event: no memory");
    }
    atomic_fetch_add(&live_events, 1);
    return TL_OK;
}

int tl_cuda_event_record(tl_cuda_event e, tl_cuda_stream s)
{
    (void)e;
    (void)s;
    FAULT_POINT(TL_CUDA_EMU_EVENT_RECORD);
    return TL_OK;
}

int tl_cuda_event_query(tl_cuda_event e)
{
    (void)e;
    FAULT_POINT(TL_CUDA_EMU_EVENT_QUERY);
    return 1;
}

int tl_cuda_event_synchronize(tl_cuda_event e)
{
    (void)e;
    FAULT_POINT(TL_CUDA_EMU_EVENT_SYNCHRONIZE);
    return TL_OK;
}

int tl_cuda_event_destroy(tl_cuda_event e)
{
    if (e != NULL) {
        free(e);
        atomic_fetch_sub(&live_events, 1);
    }
    FAULT_POINT(TL_CUDA_EMU_EVENT_DESTROY);
    return TL_OK;
}

int tl_cuda_check_launch(const char *what)
{
    if (fault_hit(TL_CUDA_EMU_LAUNCH)) {
        return tl_error(TL_ERR_RUNTIME, "CUDA error cudaErrorLaunchFailure "
                        "(unspecified launch failure) launching the %s "
                        "kernel (injected fault in emulated %s)", what,
                        call_names[TL_CUDA_EMU_LAUNCH]);
    }
    return TL_OK;
}

#endif /* TL_WITH_CUDA && TL_CUDA_EMULATE */
