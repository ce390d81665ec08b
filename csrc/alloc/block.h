/* csrc/alloc/block.h — internal: the memory block struct, so that core can
 * read a block's pointer without a call.  Not part of the public API. */
#ifndef TENSORLIB_CSRC_ALLOC_BLOCK_H
#define TENSORLIB_CSRC_ALLOC_BLOCK_H
#ifndef TL_BUILDING_LIB
#error "csrc/alloc/block.h is internal to tensorlib"
#endif

#include <stdatomic.h>

#include "tensorlib/alloc.h"

enum {
    TL_BLOCK_READONLY = 1u << 0, /* the memory may not be written */
};

struct tl_block {
    atomic_llong refcnt;
    void *ptr;                 /* start of the usable bytes */
    size_t nbytes;             /* usable bytes (the size asked for) */
    tl_device device;
    uint8_t kind;              /* a tl_memkind */
    uint8_t flags;             /* TL_BLOCK_* */
    /* Exactly one of owner / deleter describes how the memory goes back:
     * owner != NULL: owner->deallocate(owner->ctx, ptr, nbytes);
     * owner == NULL: deleter(deleter_ctx) if deleter != NULL. */
    const tl_allocator *owner;
    void (*deleter)(void *ctx);
    void *deleter_ctx;
    /* The arena generation this block was carved in (>= 1); 0 for every
     * block not carved from a workspace arena. */
    uint64_t generation;
    /* For a carved block: the arena chunk it lies in (a strong reference,
     * dropped when the block goes), whose arena says which generation is
     * live.  NULL otherwise.  Note [Arena generations] in arena.c. */
    struct tl_arena_chunk *chunk;
    /* Last-use stream slot for stream-aware frees (CUDA); -1: none. */
    int64_t stream;
    /* A device copy still writing into this host block, or NULL (Note
     * [Pending host reads] in block.c).  Set by a device plug-in; the
     * first host access waits for it. */
    _Atomic(struct tl_block_pending *) pending;
};

/* ---- pending host reads (Note [Pending host reads] in block.c) ---------- */

typedef struct tl_block_pending tl_block_pending;
struct tl_block_pending {
    /* Blocks until the device finished writing, then frees self. */
    void (*wait)(tl_block_pending *self);
};

/* Makes p the write b waits for (b: a host block the caller just queued a
 * device copy into; an earlier pending write is waited for first).
 * Steals: p. */
void tl_block_set_pending(tl_block *b, tl_block_pending *p);

/* Waits for b's pending write, if any, and clears it. */
void tl_block_wait_pending(tl_block *b);

/* The check every host access makes: one load when nothing is pending. */
static inline void tl_block_sync(tl_block *b)
{
    if (TL_UNLIKELY(atomic_load_explicit(&b->pending,
                                         memory_order_acquire) != NULL)) {
        tl_block_wait_pending(b);
    }
}

/* ---- between block.c and arena.c ---------------------------------------- */

struct tl_arena_chunk;

/* A block with refcount 1, no memory and no owner, which the arena fills
 * in (ptr, nbytes, kind, chunk, generation) once it has carved the bytes;
 * a plain tl_block_decref frees it while it is still bare.
 * Returns: new reference, or NULL (TL_ERR_MEMORY). */
tl_block *tl_block_bare(tl_device dev);

/* arena.c: the last reference to carved block b went (b is freed by the
 * caller afterwards); updates the arena's counters and drops b's chunk
 * reference. */
void tl_arena_block_released(tl_block *b);

/* arena.c: an export or a running kernel starts / stops using the memory
 * of a chunk: while any hold is on, reset does not reuse the chunk and an
 * arena that let it go keeps its memory until the last hold ends. */
void tl_arena_chunk_hold(struct tl_arena_chunk *c);
void tl_arena_chunk_unhold(struct tl_arena_chunk *c);

/* arena.c: TL_ERR_RUNTIME unless carved block b is of its arena's live
 * generation; `what` names the object in the message ("tensor"). */
int tl_arena_block_check_live(const tl_block *b, const char *what);

/* arena.c: carves a block from this thread's innermost workspace, for
 * tl_block_alloc_from with the workspace allocator.  TL_ERR_RUNTIME when
 * the thread has none.  Returns: new reference, or NULL. */
tl_block *tl_arena_carve_current(tl_device dev, tl_memkind kind,
                                 size_t nbytes, size_t alignment);

#endif /* TENSORLIB_CSRC_ALLOC_BLOCK_H */
