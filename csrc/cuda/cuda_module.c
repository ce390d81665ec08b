/* csrc/cuda/cuda_module.c — the CUDA plug-in: lazy initialisation, the
 * device guard and per-thread current streams, the device allocators (the
 * generic stream-aware pool of csrc/alloc over cudaMalloc, one per device,
 * made on first use) and the page-locked host allocator (the pool over
 * cudaMallocHost), byte copies between host and devices (blocking or not),
 * and the CUDA row of core's device kernel table.  Every CUDA runtime call
 * goes through cuda_prim.h.  It owns the pools, the pinned allocator and
 * the lists of in-flight copies; core owns tensors and calls in through
 * the row only. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../alloc/block.h"
#include "cuda_internal.h"
#include "tensorlib/device_table.h"
#include "tensorlib/streams.h"

#define MAXDEV (TL_MAX_DEVICE_INDEX + 1)

/* Note [CUDA plug-in lifecycle]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * At import (tl_cuda_plugin_init) nothing touches the CUDA runtime: the
 * row of the kernel table goes in, and every (cuda:i, kind) slot of the
 * registry for Default, Persistent and KVCache gets device i's allocator,
 * a thin front whose pool is made on first allocation.  So importing a
 * CUDA build on a machine without a driver is cheap and cannot fail, and
 * a process that never touches CUDA never initialises it (which keeps
 * fork() usable, as PyTorch's lazy init does).
 *
 * The first use (a device count, an allocation, a copy,
 * tensorlib.cuda.is_available()) runs tl_cuda_lazy_init once: it counts
 * the devices (0 on any error: no driver, no device) and, when there is a
 * device, replaces the (cpu, HostPinned) allocator (page-locked memory
 * from mlock, registered by default) with a caching pool over
 * cudaMallocHost, whose memory the driver knows, so that copies from it
 * are truly asynchronous.  Blocks handed out earlier keep their owner.
 *
 * Allocations on a device with no GPU fail with "no CUDA device is
 * available"; pools live for the process (allocators outlive blocks). */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static atomic_int ndevices = -1;

/* ---- the device guard --------------------------------------------------- */

/* Makes dev current, remembering the previous device in *prev. */
static int guard_enter(int dev, int *prev)
{
    int rc = tl_cuda_get_device(prev);

    if (rc < 0) {
        return rc;
    }
    return *prev == dev ? TL_OK : tl_cuda_set_device(dev);
}

static void guard_exit(int dev, int prev)
{
    if (prev != dev) {
        (void)tl_cuda_set_device(prev);
    }
}

/* The thread's current stream per device (0: the default stream). */
static _Thread_local tl_stream current[MAXDEV];

static tl_cuda_stream stream_of(tl_stream s)
{
    return (tl_cuda_stream)(intptr_t)s;
}

/* ---- availability ------------------------------------------------------- */

static int check_device(int index)
{
    int n = tl_cuda_lazy_init();

    if (n == 0) {
        return tl_error(TL_ERR_RUNTIME, "no CUDA device is available");
    }
    if (index < 0 || index >= n) {
        return tl_error(TL_ERR_RUNTIME, "cuda:%d is not available (%d "
                        "CUDA device%s)", index, n, n == 1 ? "" : "s");
    }
    return TL_OK;
}

static int device_count(void)
{
    return tl_cuda_lazy_init();
}

/* ---- device memory ------------------------------------------------------ */

/* Device i's allocator: a front registered at import whose stream-aware
 * pool is made on the first allocation (Note [CUDA plug-in lifecycle]). */
typedef struct devalloc {
    tl_allocator base;
    int index;
    pthread_mutex_t mu;
    _Atomic(tl_allocator *) pool;
    char name[32];
} devalloc;

static devalloc devs[MAXDEV];

/* Segments whose cudaMalloc address was not 4096-aligned (the pool wants
 * that; cudaMalloc of the pool's 2 MiB multiples gives it in practice):
 * the original address, for cudaFree. */
typedef struct unaligned {
    struct unaligned *next;
    char *aligned, *orig;
} unaligned;
static pthread_mutex_t unaligned_mu = PTHREAD_MUTEX_INITIALIZER;
static unaligned *unaligned_list;

static void *raw_alloc(void *ctx, size_t n)
{
    devalloc *d = ctx;
    void *p = NULL;
    int prev;

    if (guard_enter(d->index, &prev) < 0) {
        return NULL;
    }
    if (tl_cuda_malloc(&p, n) < 0) {
        p = NULL; /* the pool frees its cache and retries */
    }
    else if ((uintptr_t)p % 4096 != 0) {
        unaligned *u = malloc(sizeof(*u));
        (void)tl_cuda_free(p);
        p = NULL;
        if (u != NULL && n <= SIZE_MAX - 4096 &&
            tl_cuda_malloc(&p, n + 4096) == 0) {
            u->orig = p;
            u->aligned = (char *)(((uintptr_t)p + 4095) & ~(uintptr_t)4095);
            p = u->aligned;
            pthread_mutex_lock(&unaligned_mu);
            u->next = unaligned_list;
            unaligned_list = u;
            pthread_mutex_unlock(&unaligned_mu);
        }
        else {
            free(u);
            p = NULL;
        }
    }
    guard_exit(d->index, prev);
    return p;
}

static void raw_free(void *ctx, void *p, size_t n)
{
    devalloc *d = ctx;
    unaligned **link, *u = NULL;
    int prev;
    bool entered;

    (void)n;
    pthread_mutex_lock(&unaligned_mu);
    for (link = &unaligned_list; *link != NULL; link = &(*link)->next) {
        if ((*link)->aligned == p) {
            u = *link;
            *link = u->next;
            p = u->orig;
            break;
        }
    }
    pthread_mutex_unlock(&unaligned_mu);
    free(u);
    /* cudaFree takes a pointer of any device: when the device cannot be
     * made current, free from the current one rather than leak. */
    entered = guard_enter(d->index, &prev) == 0;
    if (!entered) {
        fprintf(stderr, "tensorlib: freeing CUDA memory %p without making "
                "cuda:%d current: %s\n", p, d->index, tl_error_message());
    }
    if (tl_cuda_free(p) < 0) {
        fprintf(stderr, "tensorlib: %s\n", tl_error_message());
    }
    if (entered) {
        guard_exit(d->index, prev);
    }
}

/* The pool's stream backend: CUDA events on device d's streams. */
static tl_stream be_current(void *ctx)
{
    return current[((devalloc *)ctx)->index];
}

static void *be_record(void *ctx, tl_stream s)
{
    devalloc *d = ctx;
    tl_cuda_event e = NULL;
    int prev;

    if (guard_enter(d->index, &prev) < 0) {
        return NULL;
    }
    if (tl_cuda_event_create(&e) == 0 &&
        tl_cuda_event_record(e, stream_of(s)) < 0) {
        (void)tl_cuda_event_destroy(e);
        e = NULL;
    }
    guard_exit(d->index, prev);
    return e;
}

static int be_query(void *ctx, void *ev)
{
    (void)ctx;
    return tl_cuda_event_query((tl_cuda_event)ev);
}

static int be_wait(void *ctx, void *ev)
{
    (void)ctx;
    return tl_cuda_event_synchronize((tl_cuda_event)ev);
}

static void be_destroy(void *ctx, void *ev)
{
    (void)ctx;
    (void)tl_cuda_event_destroy((tl_cuda_event)ev);
}

/* Returns: device d's pool (made now if need be), or NULL. */
static tl_allocator *dev_pool(devalloc *d)
{
    tl_allocator *p = atomic_load_explicit(&d->pool, memory_order_acquire);
    tl_raw_allocator raw;
    tl_stream_backend be;
    tl_pool_config cfg;
    char name[40];

    if (TL_LIKELY(p != NULL)) {
        return p;
    }
    if (check_device(d->index) < 0) {
        return NULL;
    }
    pthread_mutex_lock(&d->mu);
    p = atomic_load_explicit(&d->pool, memory_order_acquire);
    if (p == NULL) {
        raw.name = "cuda_malloc";
        raw.ctx = d;
        raw.device = d->base.device;
        raw.alloc = raw_alloc;
        raw.free = raw_free;
        be.ctx = d;
        be.current_stream = be_current;
        be.record_event = be_record;
        be.query_event = be_query;
        be.wait_event = be_wait;
        be.destroy_event = be_destroy;
        cfg = tl_pool_config_cuda();
        snprintf(name, sizeof(name), "cuda_caching:%d", d->index);
        p = tl_pool_new_streams(&raw, &cfg, name, &be);
        atomic_store_explicit(&d->pool, p, memory_order_release);
    }
    pthread_mutex_unlock(&d->mu);
    return p;
}

static void *dev_allocate(void *ctx, size_t n, size_t alignment)
{
    tl_allocator *p = dev_pool(ctx);

    return p != NULL ? p->allocate(p->ctx, n, alignment) : NULL;
}

static void dev_deallocate(void *ctx, void *ptr, size_t n)
{
    tl_allocator *p = atomic_load(&((devalloc *)ctx)->pool);

    p->deallocate(p->ctx, ptr, n);
}

static void dev_stats(void *ctx, tl_alloc_stats *out)
{
    tl_allocator *p = atomic_load(&((devalloc *)ctx)->pool);

    if (p != NULL) {
        p->stats(p->ctx, out);
    }
    else {
        memset(out, 0, sizeof(*out));
    }
}

static void dev_empty_cache(void *ctx)
{
    tl_allocator *p = atomic_load(&((devalloc *)ctx)->pool);

    if (p != NULL) {
        p->empty_cache(p->ctx);
    }
}

static void dev_reset_peak(void *ctx)
{
    tl_allocator *p = atomic_load(&((devalloc *)ctx)->pool);

    if (p != NULL) {
        p->reset_peak(p->ctx);
    }
}

/* ---- page-locked host memory ------------------------------------------- */

static void *pinned_alloc(void *ctx, size_t n)
{
    void *p = NULL;

    (void)ctx;
    if (tl_cuda_malloc_host(&p, n) < 0) {
        return NULL;
    }
    return p;
}

static void pinned_free(void *ctx, void *p, size_t n)
{
    (void)ctx;
    (void)n;
    if (tl_cuda_free_host(p) < 0) {
        fprintf(stderr, "tensorlib: %s\n", tl_error_message());
    }
}

static tl_allocator *pinned_pool;

static void do_init(void)
{
    int n = 0;
    tl_raw_allocator raw;
    tl_pool_config cfg;

    (void)tl_cuda_device_count(&n);
    if (n > MAXDEV) {
        n = MAXDEV;
    }
    if (n > 0) {
        raw.name = "cuda_malloc_host";
        raw.ctx = NULL;
        raw.device = tl_device_cpu();
        raw.alloc = pinned_alloc;
        raw.free = pinned_free;
        cfg = tl_pool_config_cpu();
        pinned_pool = tl_pool_new(&raw, &cfg, "cuda_pinned");
        if (pinned_pool == NULL ||
            tl_registry_set(tl_device_cpu(), TL_MEMKIND_HOST_PINNED,
                            pinned_pool) < 0) {
            fprintf(stderr, "tensorlib: page-locked memory from CUDA is "
                    "not available: %s\n", tl_error_message());
        }
    }
    tl_error_clear();
    atomic_store(&ndevices, n);
}

int tl_cuda_lazy_init(void)
{
    pthread_once(&init_once, do_init);
    return atomic_load(&ndevices);
}

/* ---- copies ------------------------------------------------------------- */

/* Note [Non-blocking CUDA copies]
 * A non-blocking copy queues cudaMemcpyAsync on the current stream of the
 * device involved and records an event after it:
 * - host to device: the source block gets a reference that the keep-alive
 *   list drops once the event completed (polled by later copies and by
 *   synchronize), so the host memory cannot be freed and reused while the
 *   DMA reads it;
 * - device to host: the destination block gets the event as its pending
 *   write (Note [Pending host reads] in csrc/alloc/block.c), so its first
 *   host read waits, and freeing it waits too; the device source needs
 *   nothing: freeing it on the host returns it to the pool of its stream,
 *   and later work on that stream is ordered after the copy.
 * A blocking copy synchronises the stream instead.  Copies between two
 * devices are cudaMemcpyPeerAsync on the source's stream, synchronised. */

typedef struct keepalive {
    struct keepalive *next;
    tl_cuda_event ev;
    tl_block *block;
} keepalive;

static pthread_mutex_t ka_mu = PTHREAD_MUTEX_INITIALIZER;
static keepalive *ka_list;   /* guarded by ka_mu */
static atomic_int ka_count;  /* its length, read without the lock */

/* Drops the references of completed copies. */
static void keepalive_poll(void)
{
    keepalive *done = NULL, **link;

    pthread_mutex_lock(&ka_mu);
    link = &ka_list;
    while (*link != NULL) {
        keepalive *k = *link;
        /* An error is a broken context: nothing will read the memory. */
        if (tl_cuda_event_query(k->ev) != 0) {
            *link = k->next;
            k->next = done;
            done = k;
            atomic_fetch_sub(&ka_count, 1);
        }
        else {
            link = &k->next;
        }
    }
    pthread_mutex_unlock(&ka_mu);
    while (done != NULL) {
        keepalive *k = done;
        done = k->next;
        (void)tl_cuda_event_destroy(k->ev);
        tl_block_decref(k->block);
        free(k);
    }
    tl_error_clear();
}

/* Keeps b alive until ev completes.  Steals: ev.  On failure waits. */
static int keepalive_add(tl_block *b, tl_cuda_event ev)
{
    keepalive *k = malloc(sizeof(*k));

    if (k == NULL) {
        int rc = tl_cuda_event_synchronize(ev);
        (void)tl_cuda_event_destroy(ev);
        return rc;
    }
    tl_block_incref(b);
    k->block = b;
    k->ev = ev;
    pthread_mutex_lock(&ka_mu);
    k->next = ka_list;
    ka_list = k;
    atomic_fetch_add(&ka_count, 1);
    pthread_mutex_unlock(&ka_mu);
    return TL_OK;
}

typedef struct pending {
    tl_block_pending base;
    tl_cuda_event ev;
} pending;

static void pending_wait(tl_block_pending *bp)
{
    pending *p = (pending *)bp;

    if (tl_cuda_event_synchronize(p->ev) < 0) {
        fprintf(stderr, "tensorlib: waiting for a non-blocking copy to the "
                "host failed: %s\n", tl_error_message());
    }
    (void)tl_cuda_event_destroy(p->ev);
    free(p);
}

/* After a copy queued on s: blocking, or an event handed to the
 * keep-alive list (src) or the pending slot (dst). */
static int finish_copy(tl_cuda_stream s, unsigned flags, tl_block *keep,
                       tl_block *pend)
{
    tl_cuda_event ev = NULL;
    int rc;

    if (!(flags & TL_DEV_NON_BLOCKING)) {
        return tl_cuda_stream_synchronize(s);
    }
    if ((rc = tl_cuda_event_create(&ev)) < 0) {
        goto wait;
    }
    if ((rc = tl_cuda_event_record(ev, s)) < 0) {
        (void)tl_cuda_event_destroy(ev);
        goto wait;
    }
    if (keep != NULL) {
        return keepalive_add(keep, ev);
    }
    if (pend != NULL) {
        pending *p = malloc(sizeof(*p));
        if (p == NULL) {
            rc = tl_cuda_event_synchronize(ev);
            (void)tl_cuda_event_destroy(ev);
            return rc;
        }
        p->base.wait = pending_wait;
        p->ev = ev;
        tl_block_set_pending(pend, &p->base);
        return TL_OK;
    }
    (void)tl_cuda_event_destroy(ev);
    return TL_OK;

wait:
    /* Nothing will track the queued copy: wait for it before reporting,
     * or the caller frees the destination (or drops the source) while
     * the DMA still writes (reads) it. */
    (void)tl_cuda_stream_synchronize(s);
    return rc;
}

static int copy_bytes(tl_block *dst, size_t doff, tl_block *src, size_t soff,
                      size_t n, unsigned flags)
{
    const tl_device dd = dst->device, sd = src->device;
    char *dp = (char *)dst->ptr + doff;
    const char *sp = (const char *)src->ptr + soff;
    int dev, prev, rc;
    tl_cuda_stream s;

    if (n == 0) {
        return TL_OK;
    }
    if (doff + n > dst->nbytes || soff + n > src->nbytes) {
        return tl_error(TL_ERR_VALUE, "CUDA copy of %zu bytes outside its "
                        "blocks", n);
    }
    if (atomic_load(&ka_count) > 0) {
        keepalive_poll();
    }
    if (dd.type == TL_DEVICE_CPU && sd.type == TL_DEVICE_CPU) {
        tl_block_sync(src);
        tl_block_sync(dst);
        memmove(dp, sp, n);
        return TL_OK;
    }
    dev = dd.type == TL_DEVICE_CUDA ? dd.index : sd.index;
    if ((rc = check_device(dev)) < 0 ||
        (sd.type == TL_DEVICE_CUDA && (rc = check_device(sd.index)) < 0)) {
        return rc;
    }
    if ((rc = guard_enter(dev, &prev)) < 0) {
        return rc;
    }
    s = stream_of(current[dev]);
    if (sd.type == TL_DEVICE_CPU) {
        /* Host to device: a pending device-to-host write into the source
         * must land first. */
        tl_block_sync(src);
        rc = tl_cuda_memcpy_async(dp, sp, n, TL_CUDA_H2D, s);
        if (rc == 0) {
            rc = finish_copy(s, flags, src, NULL);
        }
    }
    else if (dd.type == TL_DEVICE_CPU) {
        /* Device to host; an earlier pending write into dst lands first
         * (tl_block_set_pending waits for it). */
        tl_block_sync(dst);
        rc = tl_cuda_memcpy_async(dp, sp, n, TL_CUDA_D2H, s);
        if (rc == 0) {
            rc = finish_copy(s, flags, NULL, dst);
        }
    }
    else if (dd.index == sd.index) {
        rc = tl_cuda_memcpy_async(dp, sp, n, TL_CUDA_D2D, s);
    }
    else {
        guard_exit(dev, prev);
        dev = sd.index;
        if ((rc = guard_enter(dev, &prev)) < 0) {
            return rc;
        }
        s = stream_of(current[dev]);
        rc = tl_cuda_memcpy_peer_async(dp, dd.index, sp, sd.index, n, s);
        if (rc == 0) {
            rc = tl_cuda_stream_synchronize(s);
        }
    }
    guard_exit(dev, prev);
    return rc;
}

/* ---- kernels ------------------------------------------------------------ */

/* One dim, dense, of one dtype: a copy that is a memcpy. */
static bool plain_copy(const tl_dev_loop *L)
{
    const tl_dev_operand *o = &L->ops[0], *i = &L->ops[1];
    const int64_t isz = tl_dtype_itemsize((tl_dtype)o->dtype);

    return L->ndim == 1 && i->data != NULL && o->dtype == i->dtype &&
           o->strides[0] == isz && i->strides[0] == isz;
}

static int elementwise(const tl_dev_loop *L, const tl_dev_op *op)
{
    const int dev = L->device.index;
    tl_cuda_stream s;
    int prev, rc;

    if ((rc = check_device(dev)) < 0 || (rc = guard_enter(dev, &prev)) < 0) {
        return rc;
    }
    s = stream_of(current[dev]);
    switch (op->kind) {
    case TL_DEV_COPY:
        if (plain_copy(L)) {
            const size_t n = (size_t)L->numel *
                             (size_t)tl_dtype_itemsize(
                                 (tl_dtype)L->ops[0].dtype);
            rc = L->ops[0].data == L->ops[1].data
                     ? 0
                     : tl_cuda_memcpy_async(L->ops[0].data, L->ops[1].data,
                                            n, TL_CUDA_D2D, s);
        }
        else {
            rc = tl_cuda_ew_copy(L, s);
        }
        break;
    case TL_DEV_FILL:
        rc = tl_cuda_ew_fill(L, op, s);
        break;
    case TL_DEV_BINARY:
        rc = tl_cuda_ew_binary(L, op, s);
        break;
    case TL_DEV_UNARY:
        rc = tl_cuda_ew_unary(L, op, s);
        break;
    case TL_DEV_WHERE:
        rc = tl_cuda_ew_where(L, s);
        break;
    case TL_DEV_CLAMP:
        rc = tl_cuda_ew_clamp(L, s);
        break;
    default:
        rc = tl_error(TL_ERR_VALUE, "CUDA: unknown elementwise kind %d",
                      (int)op->kind);
        break;
    }
    guard_exit(dev, prev);
    return rc;
}

static int scan(const tl_dev_loop *L, const tl_dev_op *op, int *found)
{
    const int dev = L->device.index;
    tl_device d = {TL_DEVICE_CUDA, (int16_t)dev};
    tl_block *flag = NULL;
    tl_cuda_stream s;
    int prev, rc, host = 0;

    if ((rc = check_device(dev)) < 0) {
        return rc;
    }
    flag = tl_block_alloc(d, TL_MEMKIND_DEFAULT, sizeof(int));
    if (flag == NULL) {
        return tl_error_kind();
    }
    if ((rc = guard_enter(dev, &prev)) < 0) {
        tl_block_decref(flag);
        return rc;
    }
    s = stream_of(current[dev]);
    rc = tl_cuda_memset_async(flag->ptr, 0, sizeof(int), s);
    if (rc == 0) {
        rc = tl_cuda_ew_scan(L, op, (int *)flag->ptr, s);
    }
    if (rc == 0) {
        rc = tl_cuda_memcpy_async(&host, flag->ptr, sizeof(int),
                                  TL_CUDA_D2H, s);
    }
    if (rc == 0) {
        rc = tl_cuda_stream_synchronize(s);
    }
    guard_exit(dev, prev);
    tl_block_decref(flag);
    *found = host != 0;
    return rc;
}

/* The scratch block of a split reduction is allocated on the current
 * stream after the device guard is entered, and freed once the kernels are
 * queued: the pool hands it out again only to work queued behind them on
 * that stream (Note [Stream aware pools] in csrc/alloc/pool.c). */
static int reduce(const tl_dev_reduce *r)
{
    const int dev = r->device.index;
    const size_t nscratch = tl_cuda_reduce_scratch(r);
    tl_device d = {TL_DEVICE_CUDA, (int16_t)dev};
    tl_block *scratch = NULL;
    int prev, rc;

    if ((rc = check_device(dev)) < 0 || (rc = guard_enter(dev, &prev)) < 0) {
        return rc;
    }
    if (nscratch > 0) {
        scratch = tl_block_alloc(d, TL_MEMKIND_DEFAULT, nscratch);
        if (scratch == NULL) {
            rc = tl_error_kind();
            goto out;
        }
    }
    rc = tl_cuda_reduce(r, scratch ? scratch->ptr : NULL,
                        stream_of(current[dev]));
out:
    guard_exit(dev, prev);
    if (scratch != NULL) {
        tl_block_decref(scratch);
    }
    return rc;
}

/* ---- streams ------------------------------------------------------------ */

static int synchronize(int index)
{
    int prev, rc;

    if ((rc = check_device(index)) < 0 ||
        (rc = guard_enter(index, &prev)) < 0) {
        return rc;
    }
    rc = tl_cuda_device_synchronize();
    guard_exit(index, prev);
    if (rc == 0 && atomic_load(&ka_count) > 0) {
        keepalive_poll();
    }
    return rc;
}

static int stream_new(int index, int priority, tl_stream *out)
{
    tl_cuda_stream s = NULL;
    int prev, rc;

    if ((rc = check_device(index)) < 0 ||
        (rc = guard_enter(index, &prev)) < 0) {
        return rc;
    }
    rc = tl_cuda_stream_create(&s, priority);
    guard_exit(index, prev);
    if (rc == 0) {
        *out = (tl_stream)(intptr_t)s;
    }
    return rc;
}

static int stream_free(int index, tl_stream s)
{
    int prev, rc;

    if (s == 0) {
        return TL_OK; /* the default stream is not ours */
    }
    if ((rc = check_device(index)) < 0) {
        return rc;
    }
    /* The handle goes whatever happens (its owner cannot retry, and
     * cudaStreamDestroy needs no current device): a failed device switch
     * is reported after the destroy, not instead of it. */
    if ((rc = guard_enter(index, &prev)) < 0) {
        (void)tl_cuda_stream_destroy(stream_of(s));
        return rc;
    }
    rc = tl_cuda_stream_destroy(stream_of(s));
    guard_exit(index, prev);
    return rc;
}

static int stream_query(int index, tl_stream s)
{
    int prev, rc;

    if ((rc = check_device(index)) < 0 ||
        (rc = guard_enter(index, &prev)) < 0) {
        return rc;
    }
    rc = tl_cuda_stream_query(stream_of(s));
    guard_exit(index, prev);
    return rc;
}

static int stream_synchronize(int index, tl_stream s)
{
    int prev, rc;

    if ((rc = check_device(index)) < 0 ||
        (rc = guard_enter(index, &prev)) < 0) {
        return rc;
    }
    rc = tl_cuda_stream_synchronize(stream_of(s));
    guard_exit(index, prev);
    if (rc == 0 && atomic_load(&ka_count) > 0) {
        keepalive_poll();
    }
    return rc;
}

static tl_stream current_stream(int index)
{
    return index >= 0 && index < MAXDEV ? current[index] : 0;
}

static int set_current_stream(int index, tl_stream s)
{
    int rc = check_device(index);

    if (rc == 0) {
        current[index] = s;
    }
    return rc;
}

static int record_stream(tl_block *b, tl_stream s)
{
    const tl_allocator *owner = b->owner;
    tl_allocator *p;

    if (owner == NULL || owner->allocate != dev_allocate) {
        return tl_error(TL_ERR_VALUE, "record_stream: the tensor's memory "
                        "does not come from tensorlib's CUDA caching "
                        "allocator (it is imported or from another "
                        "allocator)");
    }
    p = atomic_load(&((devalloc *)owner->ctx)->pool);
    return tl_pool_record_stream(p, b->ptr, s);
}

/* ---- registration ------------------------------------------------------- */

static const tl_device_ops cuda_row = {
    .abi_version = TL_DEVICE_OPS_ABI_VERSION,
    .name = "cuda",
    .device_count = device_count,
    .check_device = check_device,
    .synchronize = synchronize,
    .copy_bytes = copy_bytes,
    .elementwise = elementwise,
    .scan = scan,
    .reduce = reduce,
    .stream_new = stream_new,
    .stream_free = stream_free,
    .stream_query = stream_query,
    .stream_synchronize = stream_synchronize,
    .current_stream = current_stream,
    .set_current_stream = set_current_stream,
    .record_stream = record_stream,
};

static pthread_once_t plugin_once = PTHREAD_ONCE_INIT;
static int plugin_status;

static void plugin_init(void)
{
    static const tl_memkind kinds[] = {TL_MEMKIND_DEFAULT,
                                       TL_MEMKIND_PERSISTENT,
                                       TL_MEMKIND_KVCACHE};
    int rc = tl_device_ops_register(TL_DEVICE_CUDA, &cuda_row);

    for (int i = 0; rc == 0 && i < MAXDEV; i++) {
        devalloc *d = &devs[i];
        d->index = i;
        pthread_mutex_init(&d->mu, NULL);
        atomic_init(&d->pool, NULL);
        snprintf(d->name, sizeof(d->name), "cuda_caching");
        d->base.abi_version = TL_ALLOCATOR_ABI_VERSION;
        d->base.name = d->name;
        d->base.ctx = d;
        d->base.device.type = TL_DEVICE_CUDA;
        d->base.device.index = (int16_t)i;
        d->base.allocate = dev_allocate;
        d->base.deallocate = dev_deallocate;
        d->base.stats = dev_stats;
        d->base.empty_cache = dev_empty_cache;
        d->base.reset_peak = dev_reset_peak;
        for (size_t k = 0; rc == 0 && k < sizeof(kinds) / sizeof(kinds[0]);
             k++) {
            rc = tl_registry_set(d->base.device, kinds[k], &d->base);
        }
    }
    plugin_status = rc;
}

int tl_cuda_plugin_init(void)
{
    pthread_once(&plugin_once, plugin_init);
    return plugin_status;
}
