/* tensorlib/arena.h — workspace arenas: bump-pointer regions whose memory
 * is released all at once by a reset, and the per-thread stack of active
 * arenas that memory kind Workspace carves from.
 *
 * An arena holds a chain of chunks from a backing allocator.  Allocating
 * bumps a pointer in the current chunk, chaining a new chunk when it is
 * exhausted (unless the arena is fixed).  A reset starts a new generation:
 * every block carved before it is dead at once (touching a tensor over it
 * is TL_ERR_RUNTIME, never a read of recycled bytes), and the memory is
 * reused unless something of the old generation is still exported or
 * pinned by a running kernel, in which case that chunk lives until those
 * end and the arena continues in a fresh one.  Note [Arena generations]
 * in csrc/alloc/arena.c. */
#ifndef TENSORLIB_ARENA_H
#define TENSORLIB_ARENA_H

#include "tensorlib/alloc.h"
#include "tensorlib/base.h"
#include "tensorlib/device.h"
#include "tensorlib/status.h"

TL_EXTERN_C_BEGIN

typedef struct tl_arena tl_arena;

enum {
    /* Exhaustion is TL_ERR_MEMORY instead of chaining another chunk. */
    TL_ARENA_FIXED = 1u << 0,
};

/* A new arena whose first chunk (nbytes, rounded up to pages; none when
 * nbytes is 0) is taken at once.  backing == NULL: private host pages
 * (mmap), counted only in the arena's own stats; else chunks come from
 * backing (which must outlive the arena's memory) and its stats count them
 * too.  Errors: TL_ERR_VALUE for unknown flags; TL_ERR_MEMORY naming the
 * size.  Returns: new reference, or NULL. */
TL_API tl_arena *tl_arena_new(const tl_allocator *backing, size_t nbytes,
                              unsigned flags);

TL_API void tl_arena_incref(tl_arena *a);
/* Dropping the last reference closes the arena: as a reset, after which
 * nothing can be carved; held chunks live until their holds end.
 * No-op on NULL. */
TL_API void tl_arena_decref(tl_arena *a);

/* Bump-allocates nbytes aligned to alignment (a power of two, at most
 * 4096; TL_ERR_VALUE otherwise).  The bytes stay valid until the next
 * reset.  Errors: TL_ERR_MEMORY (a fixed arena is exhausted, or a new
 * chunk cannot be had; the message names the sizes).
 * Returns: owned-by-the-arena pointer, or NULL. */
TL_API void *tl_arena_alloc(tl_arena *a, size_t nbytes, size_t alignment);

/* As tl_arena_alloc, as a memory block of the given kind tagged with the
 * arena's generation: tensors over it have their metadata locked and
 * raise once the arena is reset.  Returns: new reference, or NULL. */
TL_API tl_block *tl_arena_alloc_block(tl_arena *a, tl_memkind kind,
                                      size_t nbytes, size_t alignment);

/* Starts a new generation; O(chunks), independent of how many blocks were
 * carved; never fails (a chunk to replace a held one is taken lazily). */
TL_API void tl_arena_reset(tl_arena *a);

/* The live generation (1 for a fresh arena, +1 per reset). */
TL_API uint64_t tl_arena_generation(const tl_arena *a);
TL_API tl_device tl_arena_device(const tl_arena *a);
/* Bytes of the chunks in the arena's chain (what it can carve from
 * without a new chunk), and bytes bumped in this generation. */
TL_API size_t tl_arena_capacity(const tl_arena *a);
TL_API size_t tl_arena_used(const tl_arena *a);
TL_API int tl_arena_chunk_count(const tl_arena *a);
/* The arena's own counters, in the schema of every allocator. */
TL_API void tl_arena_stats(const tl_arena *a, tl_alloc_stats *out);

/* ---- the per-thread stack of active arenas ------------------------------ */

/* Pushes a on this thread's stack (takes a reference).
 * Returns 0 or TL_ERR_MEMORY. */
TL_API int tl_arena_push(tl_arena *a);
/* Pops a, which must be the innermost arena of this thread
 * (TL_ERR_RUNTIME otherwise, and nothing changes).  Returns 0 or error. */
TL_API int tl_arena_pop(tl_arena *a);
/* Returns: borrowed innermost arena of this thread (valid while it stays
 * pushed), or NULL. */
TL_API tl_arena *tl_arena_current(void);
TL_API int tl_arena_depth(void);

TL_EXTERN_C_END

#endif /* TENSORLIB_ARENA_H */
