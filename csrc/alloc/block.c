/* csrc/alloc/block.c — memory blocks: making one from an allocator, around
 * external memory or for an owner that supplies hooks, the intrusive
 * atomic refcount and pins, and the single release through the owner's
 * sized deallocate, the external deleter or the owner's release hook.  It
 * owns the block structs (metadata, from malloc), never the bytes they
 * describe: those belong to the owner allocator, the hooks' owner (the
 * workspace arena), or whoever supplied the deleter.  It knows no
 * particular owner (Note [Block owners]). */

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "block.h"
#include "fault.h"
#include "alloc_internal.h"

static bool device_valid(tl_device d)
{
    if (d.type == TL_DEVICE_CPU) {
        return d.index == 0;
    }
    return d.type >= 0 && d.type < TL_DEVICE_TYPE_COUNT && d.index >= 0 &&
           d.index <= TL_MAX_DEVICE_INDEX;
}

/* Note [Block structs come from malloc]
 * Creating a small tensor costs one block struct.  Freelists of our own
 * were measured and lost: glibc's per-thread tcache already recycles the
 * struct in ~10 ns for malloc + free; a _Thread_local list in a shared
 * library pays __tls_get_addr on every access and came out slower than
 * that; a mutex-protected list costs a lock.  (initial-exec TLS would save
 * ~4 ns but can make dlopen of the extension fail when static TLS runs
 * short.)  Plain malloc also lets ASan catch any use of a dead block. */

/* Fills *b as a block with refcount 1 and no memory. */
static void block_init(tl_block *b, tl_device dev, tl_bundle *bundle)
{
    atomic_init(&b->refcnt, 1);
    b->ptr = NULL;
    b->nbytes = 0;
    b->device = dev;
    b->kind = TL_MEMKIND_DEFAULT;
    b->flags = 0;
    b->owner = NULL;
    b->deleter = NULL;
    b->deleter_ctx = NULL;
    b->generation = 0;
    b->hooks = NULL;
    b->owner_ctx = NULL;
    b->stream = -1;
    atomic_init(&b->pending, NULL);
    b->bundle = bundle;
}

/* Returns: a block struct with refcount 1 and no memory, or NULL after
 * recording TL_ERR_MEMORY. */
static tl_block *block_new(tl_device dev)
{
    tl_block *b = tl_fault_malloc(sizeof(*b));

    if (b == NULL) {
        tl_error(TL_ERR_MEMORY, "failed to allocate a memory block record");
        return NULL;
    }
    block_init(b, dev, NULL);
    return b;
}

tl_block *tl_block_alloc(tl_device dev, tl_memkind kind, size_t nbytes)
{
    /* tl_registry_get refuses host kinds on other devices and bad kinds. */
    const tl_allocator *a = tl_registry_get(dev, kind);

    if (a == NULL) {
        return NULL;
    }
    return tl_block_alloc_from(a, kind, nbytes, TL_CPU_ALIGNMENT);
}

/* Note [Block owners]
 * Dependencies in csrc/alloc run one way: registry -> arena -> block.  A
 * block is released through one of three owners: an allocator (sized
 * deallocate), an external deleter, or an owner that manages the bytes
 * itself and supplies tl_block_hooks (the workspace arena: a carved block
 * holds its chunk, goes back to the arena's counters, is held by exports
 * and running kernels so that reset does not reuse its chunk, and dies
 * with its generation).  Such an owner makes its blocks with
 * tl_block_new_owned and, when it is also an allocator that the registry
 * hands out, registers a maker so that tl_block_alloc_from reaches it:
 * block.c calls hooks and makers, and never names the arena. */

static struct {
    _Atomic(const tl_allocator *) a;
    _Atomic(tl_block_maker) make;
} makers[TL_BLOCK_MAKERS];
static atomic_int nmakers;
static pthread_mutex_t makers_mu = PTHREAD_MUTEX_INITIALIZER;

int tl_block_set_maker(const tl_allocator *a, tl_block_maker make)
{
    int rc = 0;

    pthread_mutex_lock(&makers_mu);
    int n = atomic_load_explicit(&nmakers, memory_order_relaxed);
    int i = 0;
    while (i < n && atomic_load_explicit(&makers[i].a,
                                         memory_order_relaxed) != a) {
        i++;
    }
    if (i == TL_BLOCK_MAKERS) {
        rc = tl_error(TL_ERR_VALUE, "at most %d allocators make their own "
                      "blocks", TL_BLOCK_MAKERS);
    } else {
        atomic_store_explicit(&makers[i].make, make, memory_order_relaxed);
        atomic_store_explicit(&makers[i].a, a, memory_order_relaxed);
        if (i == n) {
            /* release: a reader that sees the count sees the entry. */
            atomic_store_explicit(&nmakers, n + 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&makers_mu);
    return rc;
}

static tl_block_maker maker_of(const tl_allocator *a)
{
    int n = atomic_load_explicit(&nmakers, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        if (atomic_load_explicit(&makers[i].a, memory_order_relaxed) == a) {
            return atomic_load_explicit(&makers[i].make,
                                        memory_order_relaxed);
        }
    }
    return NULL;
}

/* The checks of a block request of a: 0 or an error (recorded).  Last,
 * the choke point for data bytes (Note [Fault injection]). */
static int alloc_check(const tl_allocator *a, tl_memkind kind, size_t nbytes,
                       size_t alignment)
{
    if (a == NULL) {
        return tl_error(TL_ERR_VALUE, "allocator is NULL");
    }
    if ((int)kind < 0 || kind >= TL_MEMKIND_COUNT) {
        return tl_error(TL_ERR_VALUE, "memory kind %d is out of range",
                        (int)kind);
    }
    if (tl_memkind_is_host(kind) && a->device.type != TL_DEVICE_CPU) {
        char dev[32];
        tl_device_format(a->device, dev, sizeof(dev));
        return tl_error(TL_ERR_VALUE,
                        "memory kind %s is a host kind and cannot be used "
                        "on device %s",
                        tl_memkind_name(kind), dev);
    }
    int rc = tl_check_alignment(alignment);
    if (rc < 0) {
        return rc;
    }
    if (tl_fault_hit()) {
        return tl_error(TL_ERR_MEMORY, "failed to allocate %zu bytes "
                        "(injected allocation failure)", nbytes);
    }
    return 0;
}

/* Takes nbytes from a into b (a fresh struct without memory).  Returns 0
 * or an error (the allocator recorded it). */
static int alloc_bytes(tl_block *b, const tl_allocator *a, tl_memkind kind,
                       size_t nbytes, size_t alignment)
{
    void *p = a->allocate(a->ctx, nbytes, alignment);
    if (p == NULL) {
        int rc = tl_error_kind();
        return rc < 0 ? rc : tl_error(TL_ERR_MEMORY, "failed to allocate "
                                      "%zu bytes", nbytes);
    }
    b->ptr = p;
    b->nbytes = nbytes;
    b->kind = (uint8_t)kind;
    b->owner = a;
    return 0;
}

tl_block *tl_block_alloc_from(const tl_allocator *a, tl_memkind kind,
                              size_t nbytes, size_t alignment)
{
    tl_block *b = NULL;

    if (alloc_check(a, kind, nbytes, alignment) < 0) {
        return NULL;
    }
    tl_block_maker make = maker_of(a);
    if (make != NULL) {
        return make(a, kind, nbytes, alignment);
    }
    b = block_new(a->device);
    if (b == NULL) {
        return NULL;
    }
    if (alloc_bytes(b, a, kind, nbytes, alignment) < 0) {
        free(b);
        return NULL;
    }
    return b;
}

int tl_block_alloc_embedded(tl_block *b, tl_bundle *h, const tl_allocator *a,
                            tl_memkind kind, size_t nbytes, size_t alignment)
{
    int rc;
    if (a != NULL && maker_of(a) != NULL) {
        return 1;
    }
    if ((rc = alloc_check(a, kind, nbytes, alignment)) < 0) {
        return rc;
    }
    block_init(b, a->device, h);
    return alloc_bytes(b, a, kind, nbytes, alignment);
}

/* The checks of tl_block_wrap: 0 or TL_ERR_VALUE (recorded). */
static int wrap_check(const void *ptr, size_t nbytes, tl_device dev)
{
    if (ptr == NULL && nbytes != 0) {
        return tl_error(TL_ERR_VALUE, "cannot wrap NULL memory of %zu bytes",
                        nbytes);
    }
    if (!device_valid(dev)) {
        return tl_error(TL_ERR_VALUE, "cannot wrap memory on invalid device "
                        "(type %d, index %d)", (int)dev.type,
                        (int)dev.index);
    }
    return 0;
}

static void wrap_fill(tl_block *b, void *ptr, size_t nbytes, bool readonly,
                      void (*deleter)(void *ctx), void *ctx)
{
    b->ptr = ptr;
    b->nbytes = nbytes;
    b->flags = readonly ? TL_BLOCK_READONLY : 0;
    b->deleter = deleter;
    b->deleter_ctx = ctx;
}

tl_block *tl_block_wrap(void *ptr, size_t nbytes, tl_device dev,
                        bool readonly, void (*deleter)(void *ctx), void *ctx)
{
    tl_block *b;

    if (wrap_check(ptr, nbytes, dev) < 0) {
        return NULL;
    }
    b = block_new(dev);
    if (b == NULL) {
        return NULL; /* the caller still owns ptr */
    }
    wrap_fill(b, ptr, nbytes, readonly, deleter, ctx);
    return b;
}

int tl_block_wrap_embedded(tl_block *b, tl_bundle *h, void *ptr,
                           size_t nbytes, tl_device dev, bool readonly,
                           void (*deleter)(void *ctx), void *ctx)
{
    int rc = wrap_check(ptr, nbytes, dev);
    if (rc < 0) {
        return rc;
    }
    block_init(b, dev, h);
    wrap_fill(b, ptr, nbytes, readonly, deleter, ctx);
    return 0;
}

tl_block *tl_block_new_owned(void *ptr, size_t nbytes, tl_device dev,
                             tl_memkind kind, uint64_t generation,
                             const tl_block_hooks *hooks, void *owner_ctx)
{
    tl_block *b = block_new(dev);

    if (b == NULL) {
        return NULL;
    }
    b->ptr = ptr;
    b->nbytes = nbytes;
    b->kind = (uint8_t)kind;
    b->generation = generation;
    b->hooks = hooks;
    b->owner_ctx = owner_ctx;
    return b;
}

void tl_block_incref(tl_block *b)
{
    atomic_fetch_add_explicit(&b->refcnt, 1, memory_order_relaxed);
}

void tl_block_decref(tl_block *b)
{
    if (b == NULL) {
        return;
    }
    /* acq_rel: every write through other references happens before the
     * memory goes back.  A count of 1 is the caller's alone: no RMW needed
     * (Note [Last-reference fast path] in csrc/core/tensor.c). */
    if (atomic_load_explicit(&b->refcnt, memory_order_acquire) != 1 &&
        atomic_fetch_sub_explicit(&b->refcnt, 1, memory_order_acq_rel) != 1) {
        return;
    }
    tl_block_release_bytes(b);
    if (b->bundle != NULL) {
        tl_bundle_put(b->bundle);
    } else {
        free(b);
    }
}

void tl_block_release_bytes(tl_block *b)
{
    /* A device copy may still be writing into the memory. */
    tl_block_sync(b);
    if (b->hooks != NULL) {
        b->hooks->release(b);
    }
    else if (b->owner != NULL) {
        b->owner->deallocate(b->owner->ctx, b->ptr, b->nbytes);
    }
    else if (b->deleter != NULL) {
        b->deleter(b->deleter_ctx);
    }
}

void *tl_block_ptr(const tl_block *b)
{
    return b->ptr;
}

size_t tl_block_nbytes(const tl_block *b)
{
    return b->nbytes;
}

tl_device tl_block_device(const tl_block *b)
{
    return b->device;
}

tl_memkind tl_block_memkind(const tl_block *b)
{
    return (tl_memkind)b->kind;
}

bool tl_block_is_readonly(const tl_block *b)
{
    return (b->flags & TL_BLOCK_READONLY) != 0;
}

const tl_allocator *tl_block_owner(const tl_block *b)
{
    return b->owner;
}

int64_t tl_block_refcount(const tl_block *b)
{
    return atomic_load_explicit(&((tl_block *)b)->refcnt,
                                memory_order_relaxed);
}

void tl_block_hold(tl_block *b)
{
    if (b->hooks != NULL && b->hooks->hold != NULL) {
        b->hooks->hold(b);
    }
}

void tl_block_unhold(tl_block *b)
{
    if (b->hooks != NULL && b->hooks->unhold != NULL) {
        b->hooks->unhold(b);
    }
}

void tl_block_pin(tl_block *b)
{
    tl_block_incref(b);
    tl_block_hold(b);
}

void tl_block_unpin(tl_block *b)
{
    if (b == NULL) {
        return;
    }
    tl_block_unhold(b);
    tl_block_decref(b);
}

uint64_t tl_block_generation(const tl_block *b)
{
    return b->generation;
}

int tl_block_check_live_as(const tl_block *b, const char *what)
{
    if (TL_LIKELY(b->hooks == NULL) || b->hooks->check_live == NULL) {
        return TL_OK;
    }
    return b->hooks->check_live(b, what);
}

int tl_block_check_live(const tl_block *b)
{
    return tl_block_check_live_as(b, "memory block");
}

/* Note [Pending host reads]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * A non-blocking copy from a device into host memory returns before the
 * bytes arrived.  Reading the destination before synchronising is the
 * classic mistake (it returns stale data); here it cannot happen: the
 * device plug-in marks the destination block pending (tl_block_set_pending,
 * with an object that waits on the copy's event), and every host access
 * to a block's bytes goes through tl_block_sync first -- tl_impl_data (the
 * address of a tensor's data, which every CPU kernel, the iterator, item(),
 * tolist(), NumPy and buffer exports compute) and tl_storage_data.  So the
 * first host read waits once and clears the slot; later reads pay one
 * load.  Freeing the block waits too (the copy must not land in recycled
 * memory).  A global mutex serialises waiters: whoever comes second finds
 * the slot cleared after the first one's wait completed, never a write in
 * flight.  Only host blocks are ever marked. */

static pthread_mutex_t pending_mu = PTHREAD_MUTEX_INITIALIZER;

void tl_block_wait_pending(tl_block *b)
{
    tl_block_pending *p;

    pthread_mutex_lock(&pending_mu);
    p = atomic_load_explicit(&b->pending, memory_order_acquire);
    if (p != NULL) {
        p->wait(p);
        atomic_store_explicit(&b->pending, NULL, memory_order_release);
    }
    pthread_mutex_unlock(&pending_mu);
}

void tl_block_set_pending(tl_block *b, tl_block_pending *p)
{
    tl_block_sync(b);
    atomic_store_explicit(&b->pending, p, memory_order_release);
}
