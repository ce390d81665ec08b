/* csrc/alloc/pool_impl.h — internal to the caching pool (pool.c) and its
 * consistency checker (pool_check.c): the pool, segment and block structs
 * with their invariants, and the few lookups both read.  Not part of the
 * public API (see tensorlib/alloc.h and tensorlib/streams.h). */
#ifndef TENSORLIB_CSRC_ALLOC_POOL_IMPL_H
#define TENSORLIB_CSRC_ALLOC_POOL_IMPL_H
#ifndef TL_BUILDING_LIB
#error "csrc/alloc/pool_impl.h is internal to tensorlib"
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "tensorlib/alloc.h"
#include "tensorlib/streams.h"
#include "lock.h"

/* The allocate and free paths (and what they call once per operation) are
 * inlined into the table's functions: creating a small tensor runs them,
 * and a call each would cost more than the stream checks they carry. */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#define COLD static __attribute__((noinline, cold))
#define COLD_EXTERN __attribute__((noinline, cold))
#else
#define HOT_INLINE static inline
#define COLD static
#define COLD_EXTERN
#endif

#define CLASSES_PER_DOUBLING 4 /* large size classes: waste < 1/4 */
#define HASH_BITS_INIT 8
#define SPARE_MAX 1024
#define QUICK_CLASSES 16 /* quick lists: blocks of 1..16 granules */
#define QUICK_DEPTH 8    /* blocks per quick list at most */

enum { SMALL = 0, LARGE = 1 };

typedef struct segment segment;
typedef struct pblock pblock;
typedef struct sbins sbins;

/* The streams besides its own that used a handed-out block. */
typedef struct stream_set {
    int n, cap;
    tl_stream s[];
} stream_set;

/* A block: a byte range of one segment, free or handed out.  Invariants:
 * a segment's blocks tile it in address order (b->next->ptr == b->ptr +
 * b->size); no two neighbours are both free; a free block is in its
 * pool's bin index, a handed-out one in the hash table. */
struct pblock {
    char *ptr;            /* start; a multiple of the granule */
    size_t size;          /* bytes; a multiple of the granule */
    char *uptr;           /* handed out: ptr + pad; free: ptr */
    size_t requested;     /* handed out: bytes asked for; free: 0 */
    segment *seg;
    pblock *prev, *next;  /* neighbours in address order, NULL at ends */
    pblock *child[2];     /* free: treap children; spare: child[1] links */
    pblock *hnext;        /* handed out: hash chain */
    stream_set *uses;     /* handed out: other streams' uses, or NULL */
    uint32_t prio;        /* treap priority (a max-heap) */
    bool allocated;       /* handed out, deferred or quick */
    bool deferred;        /* freed, waiting for events (also allocated) */
    bool quick;           /* freed onto a quick list (also allocated;
                           * hnext links the list) */
};

struct segment {
    char *base;             /* from raw.alloc; 4096-aligned */
    size_t size;            /* bytes asked of raw.alloc */
    pblock *first;          /* the block at base: lives as long as seg */
    segment *prev, *next;   /* every segment of the pool */
    segment *fprev, *fnext; /* fully free segments, oldest first */
    sbins *sb;              /* its stream's free indexes */
    int which;              /* SMALL or LARGE: where its free blocks go */
    bool fully_free;        /* on the fully free list */
};

#define EXACT_BINS 64
#define SUB_BITS 4 /* 16 bins per power of two above the exact ones */
#define NBINS 1024
#define NWORDS (NBINS / 64)

/* Free blocks by size: Note [Free block index]. */
typedef struct bin_index {
    pblock *root[NBINS];
    uint64_t bits[NWORDS]; /* bit k % 64 of word k / 64: root[k] != NULL */
    uint64_t summary;      /* bit w: bits[w] != 0 */
} bin_index;

/* The free blocks of one stream's segments (Note [Stream aware pools]). */
struct sbins {
    tl_stream stream;
    bin_index bins[2];     /* SMALL, LARGE */
    sbins *next;           /* the pool's streams, sb0 first */
};

/* A freed block waiting for events recorded on the streams that used it. */
typedef struct deferred {
    struct deferred *next;
    pblock *b;
    int nev;               /* events left */
    void *ev[];
} deferred;

typedef struct pool {
    tl_allocator base;          /* first: ctx points back at the pool */
    tl_raw_allocator raw;
    tl_pool_config cfg;
    unsigned gshift;            /* log2(granule) */
    bool poison;                /* host memory in an ASan build */
    size_t redzone;             /* extra bytes per block (poison only) */
    uintptr_t lprev, lnext;     /* every live pool: hidden links */
    bool streams;               /* has a stream backend */
    bool quick_on;              /* Note [Quick lists]; set under mu */
    tl_stream_backend backend;  /* when streams */
    tl_lock mu;                 /* Note [Pool lock] in lock.h */
    /* ---- everything below is guarded by mu ---- */
    /* Free blocks (Note [Free block index]) of the default stream's
     * segments: every segment's when the pool has no backend.  Other
     * streams' indexes follow in sb0.next (Note [Stream aware pools]). */
    sbins sb0;
    deferred *dfirst;           /* deferred frees, newest first */
    int64_t ndeferred;
    segment *segs;
    segment *ffirst, *flast;    /* fully free segments, oldest first */
    int64_t nsegs;
    pblock **buckets;           /* handed-out blocks by uptr */
    unsigned hbits;             /* 1 << hbits buckets */
    size_t nlive;               /* handed-out blocks */
    /* Note [Quick lists]: freed small blocks, by size in granules - 1 */
    pblock *quick[QUICK_CLASSES];
    uint8_t nquick[QUICK_CLASSES];
    pblock *spare;              /* recycled block structs */
    size_t nspare;
    uint32_t rng;               /* xorshift state for treap priorities */
    int64_t active, active_peak, reserved, handed;
    int64_t alloc_count, free_count, hits, misses;
    char name[64];
} pool;

/* What allocate will do for one request (Note [Caching pool policy]). */
typedef struct request {
    size_t size;    /* bytes of block from the aligned user pointer on */
    size_t need;    /* size + slack: the smallest free block that fits */
    size_t align;   /* max(alignment, granule) */
    size_t segment; /* bytes of a new segment on a miss */
    int which;      /* SMALL or LARGE */
} request;

/* The pool behind a, or NULL when a is not a pool's table. */
pool *tl_pool_of(const tl_allocator *a);

/* ---- between pool.c and pool_streams.c (all under p->mu) ---- */

/* pool.c: gives a freed (or no longer deferred) block back to the free
 * indexes, merging neighbours. */
COLD_EXTERN void tl_pool_release_block_slow(pool *p, pblock *b);

/* pool_streams.c: frees the deferred blocks whose events completed,
 * waiting for them all when wait.  Returns the number freed, or the first
 * wait error (the blocks are freed anyway). */
int64_t tl_pool_process_deferred(pool *p, bool wait);

/* pool_streams.c: parks b (handed out, out of the hash table, with other
 * streams' uses) until events recorded now on those streams complete. */
COLD_EXTERN void tl_pool_defer_free(pool *p, pblock *b);

/* pool_streams.c: the stream work of an allocation (polls the deferred
 * frees, finds s's free indexes).  Returns: borrowed, or NULL after
 * recording an error. */
COLD_EXTERN sbins *tl_pool_stream_prepare(pool *p, tl_stream s);

static inline bin_index *seg_bins(const segment *s)
{
    return &s->sb->bins[s->which];
}

/* Orders by size, then address, without short-circuit branches. */
static inline bool key_less(const pblock *a, const pblock *b)
{
    return (a->size < b->size) | ((a->size == b->size) & (a->ptr < b->ptr));
}

/* The bin of a size (a multiple of the granule; monotonic in size). */
static inline unsigned bin_of(const pool *p, size_t size)
{
    size_t u = size >> p->gshift;
    unsigned level;

    if (u < EXACT_BINS) {
        return (unsigned)u;
    }
    level = 63u - (unsigned)__builtin_clzll((unsigned long long)u);
    return EXACT_BINS + (level - 6u) * (1u << SUB_BITS) +
           (unsigned)((u >> (level - SUB_BITS)) & ((1u << SUB_BITS) - 1));
}

static inline size_t hash_slot(const void *ptr, unsigned bits)
{
    return (size_t)(((uint64_t)(uintptr_t)ptr * 0x9E3779B97F4A7C15ull) >>
                    (64 - bits));
}

static inline pblock *hash_find(const pool *p, const void *uptr)
{
    pblock *b = p->buckets[hash_slot(uptr, p->hbits)];

    while (b != NULL && b->uptr != uptr) {
        b = b->hnext;
    }
    return b;
}

#endif /* TENSORLIB_CSRC_ALLOC_POOL_IMPL_H */
