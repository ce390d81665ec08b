/* csrc/alloc/block.c — memory blocks: making one from an allocator or around
 * external memory, the intrusive atomic refcount, and the single release
 * through the owner's sized deallocate or the external deleter.  It owns
 * the block structs (metadata, from malloc), never the bytes they describe:
 * those belong to the owner allocator or to whoever supplied the deleter. */

#include <stdatomic.h>
#include <stdlib.h>

#include "block.h"

static bool is_pow2(size_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

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

/* Returns: a block struct with refcount 1 and no memory, or NULL after
 * recording TL_ERR_MEMORY. */
static tl_block *block_new(tl_device dev)
{
    tl_block *b = malloc(sizeof(*b));

    if (b == NULL) {
        tl_error(TL_ERR_MEMORY, "failed to allocate a memory block record");
        return NULL;
    }
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
    b->stream = -1;
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

tl_block *tl_block_alloc_from(const tl_allocator *a, tl_memkind kind,
                              size_t nbytes, size_t alignment)
{
    tl_block *b = NULL;
    void *p;

    if (a == NULL) {
        tl_error(TL_ERR_VALUE, "allocator is NULL");
        return NULL;
    }
    if ((int)kind < 0 || kind >= TL_MEMKIND_COUNT) {
        tl_error(TL_ERR_VALUE, "memory kind %d is out of range", (int)kind);
        return NULL;
    }
    if (tl_memkind_is_host(kind) && a->device.type != TL_DEVICE_CPU) {
        char dev[32];
        tl_device_format(a->device, dev, sizeof(dev));
        tl_error(TL_ERR_VALUE,
                 "memory kind %s is a host kind and cannot be used on "
                 "device %s",
                 tl_memkind_name(kind), dev);
        return NULL;
    }
    if (!is_pow2(alignment) || alignment > 4096) {
        tl_error(TL_ERR_VALUE,
                 "alignment %zu is not a power of two from 1 to 4096",
                 alignment);
        return NULL;
    }
    b = block_new(a->device);
    if (b == NULL) {
        return NULL;
    }
    p = a->allocate(a->ctx, nbytes, alignment);
    if (p == NULL) {
        goto fail; /* the allocator recorded the error */
    }
    b->ptr = p;
    b->nbytes = nbytes;
    b->kind = (uint8_t)kind;
    b->owner = a;
    return b;

fail:
    free(b);
    return NULL;
}

tl_block *tl_block_wrap(void *ptr, size_t nbytes, tl_device dev,
                        bool readonly, void (*deleter)(void *ctx), void *ctx)
{
    tl_block *b;

    if (ptr == NULL && nbytes != 0) {
        tl_error(TL_ERR_VALUE, "cannot wrap NULL memory of %zu bytes",
                 nbytes);
        return NULL;
    }
    if (!device_valid(dev)) {
        tl_error(TL_ERR_VALUE, "cannot wrap memory on invalid device "
                 "(type %d, index %d)", (int)dev.type, (int)dev.index);
        return NULL;
    }
    b = block_new(dev);
    if (b == NULL) {
        return NULL; /* the caller still owns ptr */
    }
    b->ptr = ptr;
    b->nbytes = nbytes;
    b->flags = readonly ? TL_BLOCK_READONLY : 0;
    b->deleter = deleter;
    b->deleter_ctx = ctx;
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
     * memory goes back. */
    if (atomic_fetch_sub_explicit(&b->refcnt, 1, memory_order_acq_rel) != 1) {
        return;
    }
    if (b->owner != NULL) {
        b->owner->deallocate(b->owner->ctx, b->ptr, b->nbytes);
    }
    else if (b->deleter != NULL) {
        b->deleter(b->deleter_ctx);
    }
    free(b);
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
