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
    /* Arena generation when carved (memory-system issue); 0 otherwise. */
    uint64_t generation;
    /* Last-use stream slot for stream-aware frees (CUDA); -1: none. */
    int64_t stream;
};

#endif /* TENSORLIB_CSRC_ALLOC_BLOCK_H */
