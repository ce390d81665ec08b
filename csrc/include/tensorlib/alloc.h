/* tensorlib/alloc.h — allocators, memory blocks, the (device, memory kind)
 * registry, the generic caching pool and the statistics schema.
 *
 * This layer knows devices, memory kinds and bytes; it knows nothing of
 * tensors.  Allocators are small versioned function tables with a context
 * pointer and a sized free.  Allocators outlive every block they hand out:
 * anything registered stays alive for the rest of the process. */
#ifndef TENSORLIB_ALLOC_H
#define TENSORLIB_ALLOC_H

#include "tensorlib/base.h"
#include "tensorlib/device.h"
#include "tensorlib/status.h"

TL_EXTERN_C_BEGIN

/* One schema for every allocator.  All counts in bytes or events. */
typedef struct tl_alloc_stats {
    int64_t active_bytes;        /* requested bytes of live allocations */
    int64_t active_bytes_peak;   /* max of active_bytes since reset_peak */
    int64_t reserved_bytes;      /* bytes held from the system (segments) */
    int64_t cached_bytes;        /* reserved bytes not handed out */
    int64_t alloc_count;         /* allocate calls that succeeded */
    int64_t free_count;          /* deallocate calls */
    int64_t cache_hits;          /* allocations served from the cache */
    int64_t cache_misses;        /* allocations that needed new segments */
    int64_t largest_free_block;  /* largest cached block, bytes */
    int64_t fragmentation_bytes; /* reserved - active: rounding + cache */
    int64_t mapped_bytes;        /* file mappings (tensorlib/mapped.h);
                                    0 for allocators, filled in by
                                    tl_registry_stats for CPU */
} tl_alloc_stats;

#define TL_ALLOCATOR_ABI_VERSION 1

typedef struct tl_allocator tl_allocator;

/* An allocator: a function table and its context.  Thread-safe. */
struct tl_allocator {
    uint32_t abi_version; /* TL_ALLOCATOR_ABI_VERSION */
    const char *name;     /* static, e.g. "cpu_caching" */
    void *ctx;
    tl_device device;     /* where the memory lives */
    /* Returns: owned pointer aligned to `alignment` (a power of two, at
     * most 4096), or NULL after recording TL_ERR_MEMORY.  nbytes == 0
     * gives a unique non-NULL pointer. */
    void *(*allocate)(void *ctx, size_t nbytes, size_t alignment);
    /* Takes back ptr; nbytes is the size that was asked of allocate. */
    void (*deallocate)(void *ctx, void *ptr, size_t nbytes);
    /* (optional: NULL means all zero) */
    void (*stats)(void *ctx, tl_alloc_stats *out);
    /* Returns cached memory to the system; nothing in use is touched.
     * (optional: NULL means no-op) */
    void (*empty_cache)(void *ctx);
    /* Sets active_bytes_peak to active_bytes. (optional: NULL: no-op) */
    void (*reset_peak)(void *ctx);
};

/* ---- memory blocks ------------------------------------------------------ */

/* A memory block: one allocation with an intrusive atomic refcount.  Freed
 * by its owner allocator when the count hits 0, or, for external memory,
 * released through its deleter (never freed by tensorlib). */
typedef struct tl_block tl_block;

/* Allocates nbytes from the allocator registered for (dev, kind), aligned
 * to TL_CPU_ALIGNMENT.  Errors: TL_ERR_VALUE for a host kind on a non-CPU
 * device or a kind with no allocator; TL_ERR_MEMORY.
 * Returns: new reference, or NULL. */
TL_API tl_block *tl_block_alloc(tl_device dev, tl_memkind kind, size_t nbytes);

/* As tl_block_alloc from a given allocator, with an alignment that must
 * be a power of two (TL_ERR_VALUE otherwise).
 * Returns: new reference, or NULL. */
TL_API tl_block *tl_block_alloc_from(const tl_allocator *a, tl_memkind kind,
                                     size_t nbytes, size_t alignment);

/* Wraps memory owned by someone else (a NumPy array, a DLPack producer).
 * deleter(ctx) runs exactly once, when the last reference goes; it may be
 * NULL for memory the caller keeps alive by other means.  On failure the
 * deleter is NOT called: the caller still owns the memory.
 * Returns: new reference, or NULL. */
TL_API tl_block *tl_block_wrap(void *ptr, size_t nbytes, tl_device dev,
                               bool readonly, void (*deleter)(void *ctx),
                               void *ctx);

TL_API void tl_block_incref(tl_block *b);
/* No-op on NULL. */
TL_API void tl_block_decref(tl_block *b);

TL_API void *tl_block_ptr(const tl_block *b);
TL_API size_t tl_block_nbytes(const tl_block *b);
TL_API tl_device tl_block_device(const tl_block *b);
TL_API tl_memkind tl_block_memkind(const tl_block *b);
TL_API bool tl_block_is_readonly(const tl_block *b);
/* Returns: borrowed owner allocator, or NULL for external memory. */
TL_API const tl_allocator *tl_block_owner(const tl_block *b);
TL_API int64_t tl_block_refcount(const tl_block *b);

/* Pins b for as long as a kernel runs on it (or an export uses it): a
 * reference, and for memory carved from a workspace arena a hold that
 * makes tl_arena_reset leave the memory alone (the arena continues in a
 * fresh chunk) until the matching tl_block_unpin.  Take pins before the
 * GIL is released.  tl_block_unpin(NULL) is a no-op. */
TL_API void tl_block_pin(tl_block *b);
TL_API void tl_block_unpin(tl_block *b);

/* The workspace generation b was carved in (>= 1), or 0 when b does not
 * come from a workspace arena. */
TL_API uint64_t tl_block_generation(const tl_block *b);

/* 0 when b's memory may be touched; TL_ERR_RUNTIME when b was carved from
 * a workspace arena that has been reset or closed since (its bytes may
 * belong to newer tensors).  Blocks not from an arena are always live. */
TL_API int tl_block_check_live(const tl_block *b);

/* ---- registry ----------------------------------------------------------- */

/* Routes (dev, kind) to allocator a, which must stay valid for the rest of
 * the process: any table of TL_ALLOCATOR_ABI_VERSION with allocate and
 * deallocate may be registered, from C or through the C API capsule.
 * Blocks already handed out keep their own owner, so a registry change
 * never frees memory that tensors still use; they go back to the
 * allocator that made them.  (Addition: a == NULL empties the slot;
 * a->device must equal dev.)
 * Errors: TL_ERR_VALUE (host kind on a non-CPU device, bad kind/device,
 * wrong ABI version or a table without allocate/deallocate). */
TL_API int tl_registry_set(tl_device dev, tl_memkind kind,
                           const tl_allocator *a);

/* Returns: borrowed allocator for (dev, kind), or NULL after recording
 * TL_ERR_VALUE (host kind on a non-CPU device) or TL_ERR_RUNTIME (none
 * registered, e.g. CUDA in a CPU-only build). */
TL_API const tl_allocator *tl_registry_get(tl_device dev, tl_memkind kind);

/* Sums the stats of the distinct allocators registered for dev (all kinds
 * when kind < 0, else that kind only); an allocator serving several kinds
 * is counted once.  Returns 0 or an error.
 * (Addition: largest_free_block is the largest of theirs, not a sum.) */
TL_API int tl_registry_stats(tl_device dev, int kind, tl_alloc_stats *out);

/* empty_cache / reset_peak on every distinct allocator of dev. */
TL_API void tl_registry_empty_cache(tl_device dev);
TL_API void tl_registry_reset_peak(tl_device dev);

/* ---- built-in CPU allocators -------------------------------------------- */

/* Returns: borrowed, process-lifetime.  posix_memalign/free, no cache. */
TL_API const tl_allocator *tl_cpu_aligned_allocator(void);

/* Returns: borrowed, process-lifetime.  The caching pool over aligned
 * system memory (large segments madvise'd for huge pages), bounded by
 * TL_CPU_CACHE_LIMIT bytes of cache (environment variable
 * TENSORLIB_CPU_CACHE_LIMIT, default a quarter of physical memory). */
TL_API const tl_allocator *tl_cpu_caching_allocator(void);

/* Returns: borrowed, process-lifetime.  Page-locked host memory for
 * (cpu, HostPinned): a caching pool over mmap'd segments that are mlock'd;
 * where locking is refused (RLIMIT_MEMLOCK, no privilege) the segment is
 * kept as plain memory and counted in tl_pinned_info. */
TL_API const tl_allocator *tl_cpu_pinned_allocator(void);

/* What the pinned allocator managed to lock. */
typedef struct tl_pinned_info {
    int64_t locked_bytes;   /* bytes of segments held now that are locked */
    int64_t unlocked_bytes; /* bytes of segments held now that fell back */
    int64_t lock_failures;  /* segments whose mlock was refused, ever */
    bool last_locked;       /* did the most recent mlock succeed (or a
                               probe of one page, before any segment) */
} tl_pinned_info;

TL_API void tl_pinned_info_get(tl_pinned_info *out);

/* Test hook (fault injection): while refuse is true the pinned allocator
 * behaves as if every mlock were refused. */
TL_API void tl_pinned_refuse_lock(bool refuse);

/* Returns: borrowed, process-lifetime.  The allocator registered for
 * (cpu, Workspace): every request is carved from this thread's innermost
 * workspace arena (tensorlib/arena.h), and TL_ERR_RUNTIME when the thread
 * has none.  Blocks made through tl_block_alloc* carry the arena's
 * generation; raw pointers from its allocate slot are valid until the
 * arena's next reset and its deallocate is a no-op. */
TL_API const tl_allocator *tl_workspace_allocator(void);

/* The built-in allocators by name: "cpu_caching", "cpu_aligned",
 * "cpu_pinned", "workspace_arena".  Returns: borrowed, process-lifetime,
 * or NULL after recording TL_ERR_VALUE naming the known ones. */
TL_API const tl_allocator *tl_allocator_builtin(const char *name);

/* Writes up to cap built-in names into names (static strings).
 * Returns: how many built-ins there are. */
TL_API int tl_allocator_builtin_names(const char **names, int cap);

/* ---- the generic caching pool ------------------------------------------- */

/* A raw allocator hands out whole segments; the pool carves them. */
typedef struct tl_raw_allocator {
    const char *name;
    void *ctx;
    tl_device device;
    /* Returns: owned pointer aligned to at least 4096 bytes, or NULL (the
     * pool then releases its cache and retries once). */
    void *(*alloc)(void *ctx, size_t nbytes);
    void (*free)(void *ctx, void *ptr, size_t nbytes);
} tl_raw_allocator;

/* Pool policy.  See Note [Caching pool policy] in csrc/alloc/pool.c. */
typedef struct tl_pool_config {
    size_t granule;        /* every block size is a multiple (power of 2) */
    size_t small_limit;    /* requests <= this come from small segments */
    size_t small_segment;  /* size of segments for small requests */
    size_t medium_limit;   /* requests <= this come from medium segments */
    size_t medium_segment; /* 0: medium requests get their own segment */
    size_t large_round;    /* 0: bounded-waste size classes (<= 25 %);
                              else round large requests to a multiple */
    size_t cache_limit;    /* cached bytes kept at most (SIZE_MAX: all) */
} tl_pool_config;

/* The CPU policy (csrc/alloc/cpu_allocator.c: cache limit from
 * TENSORLIB_CPU_CACHE_LIMIT), and PyTorch's CUDA segment policy
 * (csrc/alloc/pool_policy.c: <= 1 MiB from 2 MiB segments, <= 10 MiB from
 * 20 MiB segments, larger rounded to 2 MiB).  Both are plain values; the
 * CPU-only library has both, so tests can run the CUDA policy on a fake
 * device. */
TL_API tl_pool_config tl_pool_config_cpu(void);
TL_API tl_pool_config tl_pool_config_cuda(void);

/* Makes a caching pool over raw (copied).  Returns: owned pointer, to be
 * released with tl_pool_destroy, or NULL. */
TL_API tl_allocator *tl_pool_new(const tl_raw_allocator *raw,
                                 const tl_pool_config *cfg, const char *name);

/* Frees every segment.  Only valid when no block is outstanding (tests);
 * returns TL_ERR_RUNTIME (and frees nothing) otherwise. */
TL_API int tl_pool_destroy(tl_allocator *pool);

/* Number of segments the pool holds from its raw allocator. */
TL_API int64_t tl_pool_segment_count(const tl_allocator *pool);

/* The size the pool would hand out for a request of nbytes. */
TL_API size_t tl_pool_round_size(const tl_allocator *pool, size_t nbytes);

/* Turns the pool's quick lists on or off (Note [Quick lists] in
 * csrc/alloc/pool.c: freed blocks of up to 16 granules are kept per size
 * for the next request of that size instead of merging with their
 * neighbours).  New pools have them off; the CPU pools turn them on.
 * Turning them off gives the listed blocks back to the free trees.
 * Returns 0, or TL_ERR_VALUE for a pool with streams or not a pool. */
TL_API int tl_pool_set_quick_lists(tl_allocator *pool, bool on);

/* ---- additions (alloc layer) -------------------------------------------- */

/* Test and debug hook: walks every segment, block, tree and counter of the
 * pool and checks the invariants of Note [Caching pool policy].  Takes the
 * pool's lock; O(blocks).  Returns 0, or TL_ERR_RUNTIME naming the first
 * broken invariant (TL_ERR_VALUE when pool is not a pool). */
TL_API int tl_pool_check(const tl_allocator *pool);

/* Parses a byte count as TENSORLIB_CPU_CACHE_LIMIT is read: decimal digits
 * with an optional binary suffix K, M, G or T (case-insensitive, optionally
 * followed by "B" or "iB"), e.g. "1073741824", "512M", "2GiB".
 * Returns 0, TL_ERR_VALUE or TL_ERR_OVERFLOW. */
TL_API int tl_nbytes_parse(const char *s, size_t *out);

/* Test hook: a multi-threaded stress run of the allocation layer.  Each of
 * `threads` threads makes `iters` allocations of up to max_bytes through
 * the registry on every CPU memory kind (Workspace from an arena of its
 * own, when use_workspace), keeps up to `live` of them, hands some to
 * other threads, resets its arena now and then, and checks every block's
 * bytes before it goes; thread 0 also reads stats and empties caches.
 * Everything is freed before it returns.  Thread-safe; call it without
 * holding locks the allocators need (in Python: with the GIL released).
 * Returns 0, TL_ERR_VALUE (bad config) or TL_ERR_RUNTIME (a block was
 * disturbed while live). */
#define TL_ALLOC_STRESS_MAX_THREADS 64
typedef struct tl_alloc_stress_config {
    int threads;
    int iters;
    size_t max_bytes;
    int live;            /* blocks each thread keeps, 1 to 64 */
    unsigned seed;
    bool use_workspace;
} tl_alloc_stress_config;
typedef struct tl_alloc_stress_result {
    int64_t allocs, frees, resets;
    int64_t corruptions;  /* blocks whose bytes changed while live */
    int64_t failures;     /* allocations that failed */
    int64_t stale;        /* blocks found dead after an arena reset */
} tl_alloc_stress_result;
TL_API int tl_alloc_stress(const tl_alloc_stress_config *cfg,
                           tl_alloc_stress_result *out);

TL_EXTERN_C_END

#endif /* TENSORLIB_ALLOC_H */
