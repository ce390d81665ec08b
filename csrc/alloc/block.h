/* csrc/alloc/block.h — internal: the memory block struct, so that core can
 * read a block's pointer without a call.  Not part of the public API. */
#ifndef TENSORLIB_CSRC_ALLOC_BLOCK_H
#define TENSORLIB_CSRC_ALLOC_BLOCK_H
#ifndef TL_BUILDING_LIB
#error "csrc/alloc/block.h is internal to tensorlib"
#endif

#include <stdatomic.h>
#include <stdlib.h>

#include "tensorlib/alloc.h"
#include "metacache.h"

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
    /* A block whose owner manages its bytes beyond allocate/deallocate (a
     * workspace arena's carved block): the owner's hooks and its context
     * (for the arena, a strong reference to the chunk the block lies in,
     * dropped by the release hook).  NULL / NULL for every other block.
     * Note [Block owners]. */
    const struct tl_block_hooks *hooks;
    void *owner_ctx;
    /* Last-use stream slot for stream-aware frees (CUDA); -1: none. */
    int64_t stream;
    /* A device copy still writing into this host block, or NULL (Note
     * [Pending host reads] in block.c).  Set by a device plug-in; the
     * first host access waits for it. */
    _Atomic(struct tl_block_pending *) pending;
    /* The bundle this struct lies in (Note [Metadata bundles] in
     * csrc/core/tensor.c), or NULL for a struct of its own. */
    struct tl_bundle *bundle;
};

/* ---- metadata bundles (Note [Metadata bundles] in csrc/core/tensor.c) --- */

/* The head of one malloc'd allocation that holds several refcounted
 * metadata structs (its parts) which may die at different times: each
 * part's death puts one part, and the last put frees the allocation, of
 * which the head is the first member. */
typedef struct tl_bundle {
    atomic_int parts; /* parts not yet dead */
    uint32_t bytes;   /* of the whole allocation (a TL_META_BUNDLE) */
} tl_bundle;

/* One part of h died; frees h's allocation when it was the last.  A count
 * of 1 is the caller's alone (Note [Last-reference fast path]). */
static inline void tl_bundle_put(tl_bundle *h)
{
    if (atomic_load_explicit(&h->parts, memory_order_acquire) == 1 ||
        atomic_fetch_sub_explicit(&h->parts, 1, memory_order_acq_rel) == 1) {
        tl_meta_put(TL_META_BUNDLE, h, h->bytes);
    }
}

/* Fills *b, a struct inside bundle h, as a block of nbytes from a with
 * refcount 1: tl_block_alloc_from without the struct's malloc.  Returns 0;
 * 1 when a makes its own blocks (a workspace arena: b is untouched, make
 * the block with tl_block_alloc_from); or an error (recorded), with
 * nothing in b to release. */
int tl_block_alloc_embedded(tl_block *b, tl_bundle *h, const tl_allocator *a,
                            tl_memkind kind, size_t nbytes, size_t alignment);

/* Fills *b, a struct inside bundle h, as tl_block_wrap would make it.
 * Returns 0, or TL_ERR_VALUE (recorded; the deleter is not called). */
int tl_block_wrap_embedded(tl_block *b, tl_bundle *h, void *ptr,
                           size_t nbytes, tl_device dev, bool readonly,
                           void (*deleter)(void *ctx), void *ctx);

/* Gives b's bytes back to their owner (allocator, deleter or owner hooks)
 * once its pending device write is done; the struct stays.  For the owner
 * of b's last reference, which frees the struct itself (a bundle dying
 * whole). */
void tl_block_release_bytes(tl_block *b);

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

/* ---- blocks made by their owner (Note [Block owners] in block.c) -------- */

/* What the owner of a block does for it.  Called by block.c only. */
typedef struct tl_block_hooks {
    /* The last reference went: the owner takes the bytes back and drops
     * what owner_ctx holds (block.c frees the struct afterwards). */
    void (*release)(tl_block *b);
    /* An export or a running kernel starts / stops using b's memory
     * (tl_block_pin / tl_block_hold).  (optional: NULL means no-op) */
    void (*hold)(tl_block *b);
    void (*unhold)(tl_block *b);
    /* TL_OK, or TL_ERR_RUNTIME when the owner took b's memory back while
     * b lives; `what` names the object in the message ("tensor").
     * (optional: NULL means always live) */
    int (*check_live)(const tl_block *b, const char *what);
} tl_block_hooks;

/* A block over nbytes at ptr that its owner gives back through hooks
 * (static, all for the process), with owner_ctx and generation stored for
 * it.  Returns: new reference, or NULL (TL_ERR_MEMORY; the caller still
 * owns the bytes and ctx). */
tl_block *tl_block_new_owned(void *ptr, size_t nbytes, tl_device dev,
                             tl_memkind kind, uint64_t generation,
                             const tl_block_hooks *hooks, void *owner_ctx);

/* An allocator whose blocks its owner makes (the workspace allocator:
 * carved blocks carry a chunk and a generation): tl_block_alloc_from
 * calls make instead of a->allocate.  Kind and alignment are validated. */
typedef tl_block *(*tl_block_maker)(const tl_allocator *a, tl_memkind kind,
                                    size_t nbytes, size_t alignment);

/* Registers make for a (idempotent; at most TL_BLOCK_MAKERS allocators).
 * Returns 0 or TL_ERR_VALUE when the table is full. */
#define TL_BLOCK_MAKERS 4
int tl_block_set_maker(const tl_allocator *a, tl_block_maker make);

/* Whether b's owner manages it through hooks (b is not plain allocator
 * or external memory). */
static inline bool tl_block_has_owner_hooks(const tl_block *b)
{
    return b->hooks != NULL;
}

/* The owner's hold / unhold hooks without touching the refcount (a
 * storage export: the storage holds the block already). */
void tl_block_hold(tl_block *b);
void tl_block_unhold(tl_block *b);

/* tl_block_check_live naming `what` in its message. */
int tl_block_check_live_as(const tl_block *b, const char *what);

#endif /* TENSORLIB_CSRC_ALLOC_BLOCK_H */
