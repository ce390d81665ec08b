/* csrc/alloc/pool.c — the generic caching pool.  It carves segments got
 * from a tl_raw_allocator into blocks, keeps freed blocks for reuse, merges
 * free neighbours and gives whole free segments back beyond its cache
 * limit.  It owns its segments and all block metadata; it knows bytes only
 * (no tensors) and never calls a device API itself: the raw allocator does.
 * Also here: stream-aware pools (a device pool tags blocks with streams
 * and defers frees on events a backend records).  The structs are in
 * pool_impl.h, the consistency checker in pool_check.c, the stream
 * bookkeeping in pool_streams.c; the policies live with their owners: the
 * CPU pool's (and the byte-count parser behind TENSORLIB_CPU_CACHE_LIMIT)
 * in cpu_allocator.c, the CUDA pool's in pool_policy.c. */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pool_impl.h"
#include "fault.h"
#include "sanitizer.h"
#include "alloc_internal.h"

/* Note [Caching pool policy]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A pool hands out blocks carved from segments, which it gets from its raw
 * allocator, and gives back to it, in one piece.  A request of n bytes with
 * alignment a is planned as (plan_request):
 *
 *   size  = round_up(max(n, 1), granule), plus one granule of redzone in
 *           ASan builds (Note [Pool poisoning]);
 *   slack = a - granule when a > granule, else 0: the user pointer is
 *           rounded up inside the block and the pad stays part of it, so a
 *           free block of size + slack bytes always has room.  Segments
 *           are 4096-aligned, so a block at a segment's start needs no pad.
 *   small  (size + slack <= small_limit): best fit in the small pool; a
 *           miss maps a segment of small_segment bytes.
 *   medium (<= medium_limit, when medium_segment != 0): best fit in the
 *           large pool; a miss maps a segment of medium_segment bytes.
 *   large  (the rest): with large_round != 0 the block is size and a miss
 *           maps round_up(size, large_round); with large_round == 0 the
 *           block is rounded to a size class, four per power of two
 *           (2^k x 1, 1.25, 1.5, 1.75), so it exceeds the request by less
 *           than 25 % (tl_pool_round_size shows it), and a miss maps a
 *           segment of exactly the class.
 *
 * Splitting: the tail of a chosen block is split off as a new free block
 * when it is at least one granule in the small pool, and more than
 * small_limit in the large pool (as PyTorch does: a sliver there would only
 * pin a big segment); otherwise the whole block is handed out.
 *
 * Best fit: each pool (small, large) keeps its free blocks in size bins of
 * treaps ordered by (size, address) (Note [Free block index]); allocate
 * takes the smallest free block of at least size + slack bytes, the lowest
 * address among equals: O(log n) expected, usually a few nodes.  Blocks of
 * the small pool never serve large requests nor the other way round.
 * Handed-out blocks are found by user pointer in a chained hash
 * table (Fibonacci hashing, doubled at load 1).  Each segment lists its
 * blocks in address order; a freed block merges with a free neighbour on
 * either side, so no two free blocks are ever adjacent.
 *
 * Caching: a segment whose blocks are all free stays mapped, which is the
 * point: freeing and re-creating a tensor of the same size takes no raw
 * allocation.  It joins the list of fully free segments, least recently
 * freed first.  Whenever cached bytes (reserved minus the bytes of blocks
 * handed out) exceed cache_limit after a free, fully free segments go back
 * to the raw allocator from the head of that list (oldest first) until the
 * cache is within the limit or no fully free segment is left; free space
 * inside segments that still hold a live block cannot be given back.
 * empty_cache gives back every fully free segment; so does a failed raw
 * allocation, which is then retried once before the pool records
 * TL_ERR_MEMORY.
 *
 * The CPU policy (tl_pool_config_cpu): granule 64 (TL_CPU_ALIGNMENT);
 * requests up to 256 KiB come from 2 MiB segments (huge-page sized, which
 * the CPU raw allocator madvises), so a small tensor is a bin lookup in a
 * warm segment under one uncontended mutex; there is no medium class:
 * anything larger gets a segment of its size class, so that the cache limit
 * gives memory back to the system tensor by tensor instead of being pinned
 * by one live block in a shared segment.  The cache limit comes from
 * TENSORLIB_CPU_CACHE_LIMIT, else a quarter of physical memory.  The CUDA
 * policy (tl_pool_config_cuda, csrc/alloc/pool_policy.c) is PyTorch's:
 * granule 512, <= 1 MiB from 2 MiB segments, <= 10 MiB from 20 MiB
 * segments, larger rounded to 2 MiB.
 *
 * Locking: one lock per pool (Note [Pool lock] in lock.h) guards
 * everything below `mu` in struct pool; raw allocations happen under it.
 * pthread_atfork handlers hold every pool's lock across fork(), so a child
 * can allocate. */

/* Note [Pool poisoning]
 * ~~~~~~~~~~~~~~~~~~~~~
 * In ASan builds, for pools over host memory, every byte of a segment is
 * poisoned except the requested bytes of handed-out blocks: a fresh segment
 * is poisoned whole, allocate unpoisons [user pointer, + n), free poisons
 * the whole block again before it can be merged or handed out, and a
 * segment is unpoisoned just before it goes back to the raw allocator.
 * Each block gets one extra granule (>= 16 bytes, more than any element)
 * in those builds, so reading one element past a tensor's requested end is
 * caught even when the request is a multiple of the granule. */

/* Note [Stream aware pools]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Device memory is used by work queued on streams, which runs after the
 * host has moved on: freeing a block on the host does not mean the device
 * is done with it.  Work on one stream runs in order, so a block freed on
 * the stream it was allocated on may be handed out again at once to that
 * stream (the new user's work queues behind the old user's).  Any other
 * stream must wait.  A pool made by tl_pool_new_streams therefore:
 *
 * - tags every segment, and so every block carved from it, with the
 *   stream of the allocation that mapped it (the backend's current stream,
 *   or the stream given to tl_pool_allocate_on), and keeps one pair of
 *   free-block indexes (small, large) per stream: a request on stream s
 *   takes only blocks of s's segments, and maps a new segment for s on a
 *   miss.  Segments of different streams never merge (blocks merge only
 *   within a segment anyway);
 * - records, per handed-out block, the other streams that used it
 *   (tl_pool_record_stream: a tensor read or written by a kernel on
 *   another stream);
 * - on free of a block with such users, records one event on each of
 *   them (after whatever was queued there up to the free) and parks the
 *   block on the deferred list instead of the free index: the block is no
 *   longer active (active_bytes and free_count change at once) but still
 *   handed (not cached, not reusable) until every event completed;
 * - polls the deferred list (query_event, never blocking) at the start of
 *   every allocation while it is non-empty, and waits for all of it
 *   (wait_event) in empty_cache, in the retry after a failed raw
 *   allocation, and in tl_pool_destroy and tl_pool_synchronize_events.
 *
 * Errors: a query error leaves the block deferred (the safe answer); a
 * wait error frees it anyway (a device whose events fail is in a sticky
 * error state, where nothing queued runs any more) and is returned.  A
 * free that cannot record its events (no memory, a backend error) waits
 * for the events it did record and frees the block at once, with a
 * warning on stderr, since a free cannot fail.
 *
 * A pool without a backend has exactly one stream (the embedded sb0), no
 * stream sets and an empty deferred list; its table's allocate is a copy
 * of the allocation path with the stream work compiled out, and its free
 * path pays one predictable branch (measured: the same instruction count
 * per allocate + free as before streams existed). */

static void *pool_allocate(void *ctx, size_t nbytes, size_t alignment);
static void *pool_allocate_streams(void *ctx, size_t nbytes,
                                   size_t alignment);

/* ---- small helpers ------------------------------------------------------ */

/* m is a power of two; x + m - 1 must not overflow (callers bound x). */
static size_t round_up(size_t x, size_t m)
{
    return (x + m - 1) & ~(m - 1);
}

static size_t size_class(size_t x, size_t granule)
{
    size_t p = (size_t)1 << (63 - __builtin_clzll((unsigned long long)x));
    size_t step = p / CLASSES_PER_DOUBLING;

    return round_up(x, step > granule ? step : granule);
}

static uint32_t next_prio(pool *p)
{
    uint32_t x = p->rng;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p->rng = x;
    return x;
}

static int64_t cached_bytes(const pool *p)
{
    return p->reserved - p->handed;
}

pool *tl_pool_of(const tl_allocator *a)
{
    if (a == NULL || (a->allocate != pool_allocate &&
                      a->allocate != pool_allocate_streams)) {
        return NULL;
    }
    return (pool *)a->ctx;
}

/* ---- free blocks: size bins of treaps keyed by (size, address) ---------- */

/* Note [Free block index]
 * Each pool (small, large) files its free blocks in NBINS size bins: one
 * bin per size for the first EXACT_BINS granules, then 16 bins per power
 * of two (TLSF's mapping), so a bin's sizes differ by less than 1/16.  A
 * bin holds a treap ordered by (size, address), and a two-level bitmap says
 * which bins are non-empty.  Best fit looks in the bin of the needed size
 * (the smallest key >= (need, 0) there), else takes the smallest block of
 * the next non-empty bin, found with two count-trailing-zeros: every block
 * there is larger than anything in the first bin, so this is exact best
 * fit with ties broken by address.  Bins keep the treaps small (usually a
 * handful of blocks), so the common paths touch few nodes and mispredict
 * few branches; many free blocks of one size still cost O(log n). */

/* Splits t into the keys below k (*l) and above k (*r); k is not in t. */
static void tree_split(pblock *t, const pblock *k, pblock **l, pblock **r)
{
    while (t != NULL) {
        bool below = key_less(t, k);
        pblock ***side = below ? &l : &r;
        **side = t;
        *side = &t->child[below];
        t = t->child[below];
    }
    *l = NULL;
    *r = NULL;
}

/* Joins l and r, every key of l being below every key of r. */
static pblock *tree_join(pblock *l, pblock *r)
{
    pblock *root = NULL;
    pblock **link = &root;

    while (l != NULL && r != NULL) {
        bool take_l = l->prio > r->prio;
        pblock *t = take_l ? l : r;
        *link = t;
        link = &t->child[take_l];
        if (take_l) {
            l = l->child[1];
        }
        else {
            r = r->child[0];
        }
    }
    *link = l != NULL ? l : r;
    return root;
}

static void tree_insert(pblock **root, pblock *n)
{
    pblock **link = root;

    while (*link != NULL && (*link)->prio >= n->prio) {
        link = &(*link)->child[!key_less(n, *link)];
    }
    tree_split(*link, n, &n->child[0], &n->child[1]);
    *link = n;
}

/* n must be in the tree, with the key it was inserted with. */
static void tree_remove(pblock **root, pblock *n)
{
    pblock **link = root;

    while (*link != n) {
        link = &(*link)->child[!key_less(n, *link)];
    }
    *link = tree_join(n->child[0], n->child[1]);
}

/* Returns: borrowed smallest block with size >= need (lowest address among
 * equals), or NULL. */
static pblock *tree_best_fit(pblock *t, size_t need)
{
    pblock *best = NULL;

    while (t != NULL) {
        bool fits = t->size >= need;
        best = fits ? t : best;
        t = t->child[!fits];
    }
    return best;
}

static pblock *tree_extreme(pblock *t, int side)
{
    while (t != NULL && t->child[side] != NULL) {
        t = t->child[side];
    }
    return t;
}

/* The first non-empty bin >= k, or NBINS. */
HOT_INLINE unsigned bin_next(const bin_index *x, unsigned k)
{
    unsigned w = k / 64;
    uint64_t m, sw;

    if (k >= NBINS) {
        return NBINS;
    }
    m = x->bits[w] & (~(uint64_t)0 << (k % 64));
    if (m != 0) {
        return w * 64 + (unsigned)__builtin_ctzll(m);
    }
    sw = w + 1 < 64 ? x->summary & (~(uint64_t)0 << (w + 1)) : 0;
    if (sw == 0) {
        return NBINS;
    }
    w = (unsigned)__builtin_ctzll(sw);
    return w * 64 + (unsigned)__builtin_ctzll(x->bits[w]);
}

static void bin_insert(pool *p, bin_index *x, pblock *b)
{
    unsigned k = bin_of(p, b->size);

    tree_insert(&x->root[k], b);
    x->bits[k / 64] |= (uint64_t)1 << (k % 64);
    x->summary |= (uint64_t)1 << (k / 64);
}

/* Clears bin k's bits once its tree is empty. */
static void bin_note_removal(bin_index *x, unsigned k)
{
    if (x->root[k] == NULL) {
        x->bits[k / 64] &= ~((uint64_t)1 << (k % 64));
        if (x->bits[k / 64] == 0) {
            x->summary &= ~((uint64_t)1 << (k / 64));
        }
    }
}

static void bin_remove(pool *p, bin_index *x, pblock *b)
{
    unsigned k = bin_of(p, b->size);

    tree_remove(&x->root[k], b);
    bin_note_removal(x, k);
}

/* Note [Sole block fast path]
 * A small tensor made and dropped in a loop carves its block off the
 * front of a segment's free tail and, when freed, merges back into it.
 * The tail is usually the only block of its bin, and the shrunk or grown
 * tail usually stays in that bin (bins are 1/16 of a power of two wide):
 * then the node that takes its place (the remainder after a carve, the
 * merged block after a free) simply becomes the bin's root, with no treap
 * work and no bitmap change.  Anything else takes the general path. */

/* Whether b, a free block in x, is alone in its bin; *k gets the bin. */
HOT_INLINE bool bin_sole(const pool *p, const bin_index *x, const pblock *b,
                         unsigned *k)
{
    *k = bin_of(p, b->size);
    return x->root[*k] == b && b->child[0] == NULL && b->child[1] == NULL;
}

/* Puts n, not in x, in place of old, the sole block of bin k; n's size
 * must be in bin k too. */
HOT_INLINE void bin_put_sole(bin_index *x, unsigned k, const pblock *old,
                             pblock *n)
{
    n->prio = old->prio;
    n->child[0] = n->child[1] = NULL;
    x->root[k] = n;
}

/* Returns: borrowed smallest free block with size >= need (lowest address
 * among equals), or NULL. */
HOT_INLINE pblock *bin_best_fit(const pool *p, const bin_index *x,
                                size_t need)
{
    unsigned k = bin_of(p, need);
    pblock *b = tree_best_fit(x->root[k], need);

    if (b != NULL) {
        return b;
    }
    k = bin_next(x, k + 1);
    return k < NBINS ? tree_extreme(x->root[k], 0) : NULL;
}

static size_t bin_max_size(const bin_index *x)
{
    unsigned w, k;

    if (x->summary == 0) {
        return 0;
    }
    w = 63u - (unsigned)__builtin_clzll(x->summary);
    k = w * 64 + 63u - (unsigned)__builtin_clzll(x->bits[w]);
    return tree_extreme(x->root[k], 1)->size;
}

/* ---- handed-out blocks by user pointer ---------------------------------- */

/* Doubles the table; on failure keeps the old one (chains get longer). */
static void hash_grow(pool *p)
{
    unsigned bits = p->hbits + 1;
    size_t n = (size_t)1 << p->hbits;
    pblock **nb = tl_fault_calloc((size_t)1 << bits, sizeof(*nb));
    size_t i;

    if (nb == NULL) {
        return;
    }
    for (i = 0; i < n; i++) {
        pblock *b = p->buckets[i];
        while (b != NULL) {
            pblock *next = b->hnext;
            size_t s = hash_slot(b->uptr, bits);
            b->hnext = nb[s];
            nb[s] = b;
            b = next;
        }
    }
    free(p->buckets);
    p->buckets = nb;
    p->hbits = bits;
}

HOT_INLINE void hash_insert(pool *p, pblock *b)
{
    size_t s;

    if (p->nlive >= ((size_t)1 << p->hbits) && p->hbits < 40) {
        hash_grow(p);
    }
    s = hash_slot(b->uptr, p->hbits);
    b->hnext = p->buckets[s];
    p->buckets[s] = b;
    p->nlive++;
}

/* Returns: the block handed out at uptr, taken out of the table, or NULL. */
static pblock *hash_remove(pool *p, const void *uptr)
{
    pblock **link = &p->buckets[hash_slot(uptr, p->hbits)];

    for (; *link != NULL; link = &(*link)->hnext) {
        pblock *b = *link;
        if (b->uptr == uptr) {
            *link = b->hnext;
            p->nlive--;
            return b;
        }
    }
    return NULL;
}

/* ---- block structs and segment lists ------------------------------------ */

static pblock *struct_get(pool *p)
{
    pblock *b = p->spare;

    if (b != NULL) {
        p->spare = b->child[1];
        p->nspare--;
        return b;
    }
    return tl_fault_malloc(sizeof(*b));
}

static void struct_put(pool *p, pblock *b)
{
    if (p->nspare < SPARE_MAX) {
        b->child[1] = p->spare;
        p->spare = b;
        p->nspare++;
        return;
    }
    free(b);
}

static void fully_free_push(pool *p, segment *s)
{
    s->fully_free = true;
    s->fnext = NULL;
    s->fprev = p->flast;
    if (p->flast != NULL) {
        p->flast->fnext = s;
    }
    else {
        p->ffirst = s;
    }
    p->flast = s;
}

static void fully_free_remove(pool *p, segment *s)
{
    if (s->fprev != NULL) {
        s->fprev->fnext = s->fnext;
    }
    else {
        p->ffirst = s->fnext;
    }
    if (s->fnext != NULL) {
        s->fnext->fprev = s->fprev;
    }
    else {
        p->flast = s->fprev;
    }
    s->fully_free = false;
    s->fprev = s->fnext = NULL;
}

/* ---- planning ----------------------------------------------------------- */

static bool should_split(const pool *p, int which, size_t remainder)
{
    if (which == SMALL) {
        return remainder >= p->cfg.granule;
    }
    return remainder > p->cfg.small_limit;
}

/* Fills r for a request (Note [Caching pool policy]).  alignment is a
 * power of two <= TL_MAX_ALIGNMENT.  Returns false when nbytes is too large
 * for any segment. */
static bool plan_request(const pool *p, size_t nbytes, size_t alignment,
                         request *r)
{
    const tl_pool_config *c = &p->cfg;
    size_t g = c->granule;
    size_t slack = alignment > g ? alignment - g : 0;
    size_t size;

    /* Bounds every sum and rounding below away from overflow. */
    if (nbytes > SIZE_MAX / 4) {
        return false;
    }
    size = round_up(nbytes != 0 ? nbytes : 1, g) + p->redzone;
    r->align = alignment > g ? alignment : g;
    if (size + slack <= c->small_limit) {
        r->which = SMALL;
        r->size = size;
        r->segment = c->small_segment;
    }
    else if (c->medium_segment != 0 && size + slack <= c->medium_limit) {
        r->which = LARGE;
        r->size = size;
        r->segment = c->medium_segment;
    }
    else if (c->large_round != 0) {
        r->which = LARGE;
        r->size = size;
        r->segment = round_up(size, c->large_round);
    }
    else {
        r->which = LARGE;
        r->size = size_class(size, g);
        r->segment = r->size;
    }
    r->need = r->size + slack;
    return true;
}

/* ---- segments ----------------------------------------------------------- */

/* Gives a fully free segment back to the raw allocator. */
static void segment_release(pool *p, segment *s)
{
    pblock *b = s->first;

    TL_ASSERT(s->fully_free && b->prev == NULL && b->next == NULL);
    bin_remove(p, seg_bins(s), b);
    fully_free_remove(p, s);
    if (s->prev != NULL) {
        s->prev->next = s->next;
    }
    else {
        p->segs = s->next;
    }
    if (s->next != NULL) {
        s->next->prev = s->prev;
    }
    p->nsegs--;
    p->reserved -= (int64_t)s->size;
    if (p->poison) {
        TL_UNPOISON(s->base, s->size);
    }
    p->raw.free(p->raw.ctx, s->base, s->size);
    struct_put(p, b);
    free(s);
}

static void trim_cache(pool *p, int64_t limit);

/* Gives back fully free segments, oldest first, while the cache holds more
 * than limit bytes. */
static void trim(pool *p, int64_t limit)
{
    while (p->ffirst != NULL && cached_bytes(p) > limit) {
        segment_release(p, p->ffirst);
    }
}


/* Maps a new segment for r on sb's stream.  Returns: its one block, free
 * and in no tree, or NULL after recording TL_ERR_MEMORY. */
static pblock *segment_new(pool *p, const request *r, size_t nbytes,
                           sbins *sb)
{
    segment *s = tl_fault_malloc(sizeof(*s));
    pblock *b = struct_get(p);
    char *mem = NULL;

    if (s == NULL || b == NULL) {
        tl_error(TL_ERR_MEMORY, "failed to allocate %zu bytes: no memory "
                 "for the pool's bookkeeping", nbytes);
        goto fail;
    }
    mem = p->raw.alloc(p->raw.ctx, r->segment);
    if (mem == NULL) {
        /* Give the cache back (deferred frees included) and try once
         * more. */
        if (p->dfirst != NULL) {
            (void)tl_pool_process_deferred(p, true);
        }
        trim_cache(p, 0);
        mem = p->raw.alloc(p->raw.ctx, r->segment);
    }
    if (mem == NULL) {
        char dev[32];
        tl_device_format(p->raw.device, dev, sizeof(dev));
        tl_error(TL_ERR_MEMORY,
                 "failed to allocate %zu bytes on %s: pool '%s' could not "
                 "get a segment of %zu bytes (%lld bytes reserved, %lld in "
                 "use)",
                 nbytes, dev, p->name, r->segment, (long long)p->reserved,
                 (long long)p->active);
        goto fail;
    }
    TL_ASSERT(((uintptr_t)mem & (TL_MAX_ALIGNMENT - 1)) == 0);
    s->base = mem;
    s->size = r->segment;
    s->first = b;
    s->sb = sb;
    s->which = r->which;
    s->fully_free = false;
    s->fprev = s->fnext = NULL;
    s->prev = NULL;
    s->next = p->segs;
    if (p->segs != NULL) {
        p->segs->prev = s;
    }
    p->segs = s;
    p->nsegs++;
    p->reserved += (int64_t)r->segment;

    b->ptr = mem;
    b->size = r->segment;
    b->uptr = mem;
    b->requested = 0;
    b->seg = s;
    b->prev = b->next = NULL;
    b->child[0] = b->child[1] = NULL;
    b->hnext = NULL;
    b->uses = NULL;
    b->prio = next_prio(p);
    b->allocated = false;
    b->deferred = false;
    b->quick = false;
    if (p->poison) {
        TL_POISON(mem, r->segment);
    }
    return b;

fail:
    free(s);
    if (b != NULL) {
        struct_put(p, b);
    }
    return NULL;
}

/* Hands out b (free, in no tree) for r: places the user pointer and splits
 * off the tail when it is worth keeping. */
HOT_INLINE void carve(pool *p, pblock *b, bool in_bin, const request *r,
                      size_t nbytes)
{
    char *uptr = (char *)round_up((size_t)(uintptr_t)b->ptr, r->align);
    size_t used = (size_t)(uptr - b->ptr) + r->size;
    size_t rem;
    bin_index *x = seg_bins(b->seg);
    unsigned k = 0;
    /* b's bin slot, still to be given up (Note [Sole block fast path]). */
    bool sole = in_bin && bin_sole(p, x, b, &k);

    if (in_bin && !sole) {
        bin_remove(p, x, b);
    }
    TL_ASSERT(used <= b->size);
    rem = b->size - used;
    if (should_split(p, b->seg->which, rem)) {
        /* No struct for the tail: hand out the whole block instead. */
        pblock *t = struct_get(p);
        if (t != NULL) {
            t->ptr = b->ptr + used;
            t->size = rem;
            t->uptr = t->ptr;
            t->requested = 0;
            t->seg = b->seg;
            t->prev = b;
            t->next = b->next;
            t->hnext = NULL;
            t->uses = NULL;
            t->prio = next_prio(p);
            t->allocated = false;
            t->deferred = false;
            t->quick = false;
            if (b->next != NULL) {
                b->next->prev = t;
            }
            b->next = t;
            b->size = used;
            if (sole && bin_of(p, t->size) == k) {
                bin_put_sole(x, k, b, t);
                sole = false;
            }
            else {
                bin_insert(p, x, t); /* another bin than b's slot, if sole */
            }
        }
    }
    if (sole) {
        x->root[k] = NULL;
        bin_note_removal(x, k);
    }
    b->allocated = true;
    b->uptr = uptr;
    b->requested = nbytes;
    b->child[0] = b->child[1] = NULL;
    hash_insert(p, b);
}

/* ---- quick lists --------------------------------------------------------- */

/* Note [Quick lists]
 * ~~~~~~~~~~~~~~~~~~
 * A loop over small tensors frees a block and asks for one of the same
 * size a moment later.  The general path merges the freed block into its
 * free neighbour and carves it off again: a bin look-up, a split, a merge
 * and their bookkeeping each time.  So a pool with quick lists on (the
 * CPU pools; tl_pool_set_quick_lists, never a pool with streams) keeps freed
 * blocks of at most QUICK_CLASSES granules, whose user pointer is the
 * block's start (no alignment pad), on a LIFO list per size, at most
 * QUICK_DEPTH each: free pushes the block without merging it, and a
 * request of exactly that block size (no slack) pops it.
 *
 * A quick block is in between: for its neighbours it is `allocated` (they
 * never merge into it), for the counters it is cached (not active, not
 * handed), it is in no tree and not in the hash table (hnext links its
 * list), and ASan builds poison it whole as they do a free block.  Every
 * path that gives cache back -- empty_cache, the cache limit, a failed raw
 * allocation's retry, tl_pool_destroy -- first releases the quick lists
 * into the trees (quick_flush), so quick blocks never keep a segment from
 * going back.  Their bytes are at most QUICK_CLASSES * QUICK_DEPTH * 8.5
 * granules (17 KiB for the CPU pool's 64-byte granule), counted in
 * cached_bytes like any free block; tl_pool_check counts them too. */

/* Whether the pool keeps a quick list for blocks of size bytes, and which
 * (*q).  Pools with streams never do: their blocks carry stream state the
 * lists do not (tl_pool_set_quick_lists). */
HOT_INLINE bool quick_class(const pool *p, size_t size, unsigned *q)
{
    size_t u = size >> p->gshift;

    *q = (unsigned)u - 1;
    return p->quick_on && u <= QUICK_CLASSES;
}

/* Pops a quick block of exactly size bytes (a multiple of the granule),
 * or returns NULL.  The block is handed out by the caller. */
HOT_INLINE pblock *quick_pop(pool *p, size_t size)
{
    unsigned q;
    pblock *b;

    if (!quick_class(p, size, &q) || (b = p->quick[q]) == NULL) {
        return NULL;
    }
    p->quick[q] = b->hnext;
    p->nquick[q]--;
    b->quick = false;
    p->handed += (int64_t)b->size;
    return b;
}

/* Pushes b (just taken out of the hash table, no stream uses) onto its
 * quick list when it qualifies.  Returns whether it did. */
HOT_INLINE bool quick_push(pool *p, pblock *b)
{
    unsigned q;

    if (!quick_class(p, b->size, &q) || b->uptr != b->ptr ||
        p->nquick[q] >= QUICK_DEPTH) {
        return false;
    }
    p->handed -= (int64_t)b->size;
    b->requested = 0;
    b->quick = true;
    b->hnext = p->quick[q];
    p->quick[q] = b;
    p->nquick[q]++;
    if (p->poison) {
        TL_POISON(b->ptr, b->size);
    }
    return true;
}

/* Releases every quick block into the free trees (merging as a free
 * does).  The lists are detached first: a release may trim, which
 * flushes again. */
static void quick_flush(pool *p)
{
    for (unsigned q = 0; q < QUICK_CLASSES; q++) {
        pblock *b = p->quick[q];
        p->quick[q] = NULL;
        p->nquick[q] = 0;
        while (b != NULL) {
            pblock *next = b->hnext;
            b->quick = false;
            b->hnext = NULL;
            p->handed += (int64_t)b->size; /* release_block subtracts it */
            tl_pool_release_block_slow(p, b);
            b = next;
        }
    }
}

/* Gives cache back until at most limit bytes are cached: the quick lists
 * first, then fully free segments, oldest first. */
static void trim_cache(pool *p, int64_t limit)
{
    quick_flush(p);
    trim(p, limit);
}

/* ---- the allocator table ------------------------------------------------ */


/* Allocates on stream s when streams (p->streams), else on the pool's one
 * stream.  Two copies: the table's allocate of pools without streams
 * (where the stream work folds away) and allocate_streams. */
HOT_INLINE void *allocate_impl(pool *p, size_t nbytes, size_t alignment,
                               tl_stream s, const bool streams)
{
    request r;
    pblock *b;
    sbins *sb;
    void *out;

    if (tl_check_alignment(alignment) < 0) {
        return NULL;
    }
    if (!plan_request(p, nbytes, alignment, &r)) {
        char dev[32];
        tl_device_format(p->raw.device, dev, sizeof(dev));
        tl_error(TL_ERR_MEMORY, "failed to allocate %zu bytes on %s: "
                 "too large", nbytes, dev);
        return NULL;
    }
    tl_lock_acquire(&p->mu);
    sb = &p->sb0;
    if (streams) {
        sb = tl_pool_stream_prepare(p, s);
        if (sb == NULL) {
            tl_lock_release(&p->mu);
            return NULL;
        }
    }
    if (!streams && r.need == r.size &&
        (b = quick_pop(p, r.size)) != NULL) {
        /* Note [Quick lists]: b's user pointer is its start. */
        p->hits++;
        b->allocated = true;
        b->requested = nbytes;
        hash_insert(p, b);
        goto handed;
    }
    b = bin_best_fit(p, &sb->bins[r.which], r.need);
    if (b != NULL) {
        if (b->seg->fully_free) {
            fully_free_remove(p, b->seg);
        }
        p->hits++;
        carve(p, b, true, &r, nbytes); /* takes b out of its bin */
    }
    else {
        b = segment_new(p, &r, nbytes, sb);
        if (b == NULL) {
            tl_lock_release(&p->mu);
            return NULL;
        }
        p->misses++;
        carve(p, b, false, &r, nbytes);
    }
    p->handed += (int64_t)b->size;
handed:
    p->active += (int64_t)nbytes;
    if (p->active > p->active_peak) {
        p->active_peak = p->active;
    }
    p->alloc_count++;
    if (p->poison) {
        TL_UNPOISON(b->uptr, nbytes);
    }
    out = b->uptr;
    tl_lock_release(&p->mu);
    return out;
}

static void *pool_allocate(void *ctx, size_t nbytes, size_t alignment)
{
    return allocate_impl(ctx, nbytes, alignment, 0, false);
}

static __attribute__((noinline)) void *
allocate_streams(pool *p, size_t nbytes, size_t alignment, tl_stream s)
{
    return allocate_impl(p, nbytes, alignment, s, true);
}

/* The table's allocate of pools with streams. */
static void *pool_allocate_streams(void *ctx, size_t nbytes,
                                   size_t alignment)
{
    pool *p = ctx;

    return allocate_streams(p, nbytes, alignment,
                            p->backend.current_stream(p->backend.ctx));
}

/* a takes in its right neighbour, a free block out of the bins: one
 * block of both sizes at a's address. */
HOT_INLINE void absorb_next(pool *p, pblock *a)
{
    pblock *n = a->next;

    a->size += n->size;
    a->next = n->next;
    if (n->next != NULL) {
        n->next->prev = a;
    }
    struct_put(p, n);
}

/* Trims the cache after a free when it holds more than its limit. */
HOT_INLINE void trim_if_over(pool *p)
{
    if (p->cfg.cache_limit < (size_t)INT64_MAX &&
        cached_bytes(p) > (int64_t)p->cfg.cache_limit) {
        trim_cache(p, (int64_t)p->cfg.cache_limit);
    }
}

/* Returns b (handed out or deferred, out of the hash table, no longer
 * active) to its stream's free index, merging it with free neighbours, and
 * trims the cache to its limit. */
HOT_INLINE void release_block(pool *p, pblock *b)
{
    bin_index *x = seg_bins(b->seg);

    p->handed -= (int64_t)b->size;
    b->allocated = false;
    b->requested = 0;
    b->uptr = b->ptr;
    if (p->poison) {
        TL_POISON(b->ptr, b->size);
    }
    bool prev_free = b->prev != NULL && !b->prev->allocated;
    bool next_free = b->next != NULL && !b->next->allocated;
    unsigned k;
    if (next_free && !prev_free && bin_sole(p, x, b->next, &k) &&
        bin_of(p, b->size + b->next->size) == k) {
        /* Note [Sole block fast path]: b takes the free tail's place. */
        bin_put_sole(x, k, b->next, b);
        absorb_next(p, b);
        goto merged;
    }
    if (prev_free && !next_free && bin_sole(p, x, b->prev, &k) &&
        bin_of(p, b->prev->size + b->size) == k) {
        /* The free block before b grows in place: same address, same
         * bin, still alone there. */
        b = b->prev;
        absorb_next(p, b);
        goto merged;
    }
    if (prev_free) {
        bin_remove(p, x, b->prev);
        b = b->prev;
        absorb_next(p, b);
    }
    if (next_free) {
        bin_remove(p, x, b->next);
        absorb_next(p, b);
    }
    bin_insert(p, x, b);
merged:
    if (b->prev == NULL && b->next == NULL) {
        fully_free_push(p, b->seg);
    }
    trim_if_over(p);
}

COLD_EXTERN void tl_pool_release_block_slow(pool *p, pblock *b)
{
    release_block(p, b);
}

static void pool_deallocate(void *ctx, void *ptr, size_t nbytes)
{
    pool *p = ctx;
    pblock *b;

    (void)nbytes; /* the block knows what was requested */
    if (ptr == NULL) {
        return;
    }
    tl_lock_acquire(&p->mu);
    b = hash_remove(p, ptr);
    if (b == NULL) {
        tl_lock_release(&p->mu);
        /* A bug in the caller; touching nothing is the safe answer. */
        fprintf(stderr, "tensorlib: pool '%s': ignoring deallocate of %p, "
                "which it did not hand out\n", p->name, ptr);
        return;
    }
    TL_ASSERT(nbytes == b->requested);
    p->active -= (int64_t)b->requested;
    p->free_count++;
    if (TL_UNLIKELY(b->uses != NULL)) {
        tl_pool_defer_free(p, b);
    }
    else if (quick_push(p, b)) {
        trim_if_over(p);
    }
    else {
        release_block(p, b);
    }
    tl_lock_release(&p->mu);
}

static void pool_stats(void *ctx, tl_alloc_stats *out)
{
    pool *p = ctx;
    size_t largest = 0;
    const sbins *x;

    tl_lock_acquire(&p->mu);
    for (x = &p->sb0; x != NULL; x = x->next) {
        size_t small = bin_max_size(&x->bins[SMALL]);
        size_t large = bin_max_size(&x->bins[LARGE]);
        largest = small > largest ? small : largest;
        largest = large > largest ? large : largest;
    }
    out->active_bytes = p->active;
    out->active_bytes_peak = p->active_peak;
    out->reserved_bytes = p->reserved;
    out->cached_bytes = cached_bytes(p);
    out->alloc_count = p->alloc_count;
    out->free_count = p->free_count;
    out->cache_hits = p->hits;
    out->cache_misses = p->misses;
    out->largest_free_block = (int64_t)largest;
    out->fragmentation_bytes = p->reserved - p->active;
    tl_lock_release(&p->mu);
}

static void pool_empty_cache(void *ctx)
{
    pool *p = ctx;

    tl_lock_acquire(&p->mu);
    if (p->dfirst != NULL) {
        (void)tl_pool_process_deferred(p, true);
    }
    trim_cache(p, 0);
    tl_lock_release(&p->mu);
}

static void pool_reset_peak(void *ctx)
{
    pool *p = ctx;

    tl_lock_acquire(&p->mu);
    p->active_peak = p->active;
    tl_lock_release(&p->mu);
}

/* ---- fork safety -------------------------------------------------------- */

/* Every live pool, for the fork handlers, in a list guarded by pools_mu.
 * Its links are stored complemented (hide/unhide) so that the list does not
 * make pools reachable: LeakSanitizer still reports a pool that nobody
 * destroyed, and everything it holds. */
static pthread_mutex_t pools_mu = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t pools = ~(uintptr_t)0; /* hide(NULL) */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static uintptr_t hide(pool *p)
{
    return ~(uintptr_t)p;
}

static pool *unhide(uintptr_t link)
{
    return (pool *)~link;
}

static void pools_link(pool *p)
{
    p->lprev = hide(NULL);
    p->lnext = pools;
    if (unhide(pools) != NULL) {
        unhide(pools)->lprev = hide(p);
    }
    pools = hide(p);
}

static void pools_unlink(pool *p)
{
    if (unhide(p->lprev) != NULL) {
        unhide(p->lprev)->lnext = p->lnext;
    }
    else {
        pools = p->lnext;
    }
    if (unhide(p->lnext) != NULL) {
        unhide(p->lnext)->lprev = p->lprev;
    }
}

/* Lock order: pools_mu, then each pool's mu. */
static void fork_prepare(void)
{
    pool *p;

    pthread_mutex_lock(&pools_mu);
    for (p = unhide(pools); p != NULL; p = unhide(p->lnext)) {
        tl_lock_acquire(&p->mu);
    }
}

static void fork_release(void)
{
    pool *p;

    for (p = unhide(pools); p != NULL; p = unhide(p->lnext)) {
        tl_lock_release(&p->mu);
    }
    pthread_mutex_unlock(&pools_mu);
}

static void atfork_register(void)
{
    /* Unlocking in the child is valid: the forking thread, which holds
     * every lock, is the child's only thread. */
    (void)pthread_atfork(fork_prepare, fork_release, fork_release);
}

/* ---- public API --------------------------------------------------------- */

static int check_config(const tl_pool_config *c)
{
    size_t g = c->granule;

    if (!tl_is_pow2(g) || g < 16 || g > TL_MAX_ALIGNMENT) {
        return tl_error(TL_ERR_VALUE, "pool granule %zu is not a power of "
                        "two from 16 to %d", g, TL_MAX_ALIGNMENT);
    }
    if (c->small_limit > 0 &&
        (c->small_segment < c->small_limit || c->small_segment % g != 0)) {
        return tl_error(TL_ERR_VALUE, "pool small_segment %zu must be a "
                        "multiple of the granule %zu and at least "
                        "small_limit %zu", c->small_segment, g,
                        c->small_limit);
    }
    if (c->small_limit > SIZE_MAX / 4 || c->medium_limit > SIZE_MAX / 4 ||
        c->small_segment > SIZE_MAX / 4 || c->medium_segment > SIZE_MAX / 4 ||
        c->large_round > SIZE_MAX / 4) {
        return tl_error(TL_ERR_VALUE, "pool limits are too large");
    }
    if (c->medium_segment != 0 &&
        (c->medium_limit < c->small_limit ||
         c->medium_segment < c->medium_limit ||
         c->medium_segment % g != 0)) {
        return tl_error(TL_ERR_VALUE, "pool medium_segment %zu must be a "
                        "multiple of the granule %zu and at least "
                        "medium_limit %zu (>= small_limit %zu)",
                        c->medium_segment, g, c->medium_limit,
                        c->small_limit);
    }
    if (c->large_round % g != 0) {
        return tl_error(TL_ERR_VALUE, "pool large_round %zu is not a "
                        "multiple of the granule %zu", c->large_round, g);
    }
    return TL_OK;
}

static tl_allocator *pool_new(const tl_raw_allocator *raw,
                              const tl_pool_config *cfg, const char *name,
                              const tl_stream_backend *backend)
{
    pool *p = NULL;

    if (raw == NULL || raw->alloc == NULL || raw->free == NULL ||
        cfg == NULL) {
        tl_error(TL_ERR_VALUE, "tl_pool_new needs a raw allocator with "
                 "alloc and free, and a config");
        return NULL;
    }
    if (backend != NULL &&
        (backend->current_stream == NULL || backend->record_event == NULL ||
         backend->query_event == NULL || backend->destroy_event == NULL)) {
        tl_error(TL_ERR_VALUE, "tl_pool_new_streams needs a stream backend "
                 "with current_stream, record_event, query_event and "
                 "destroy_event");
        return NULL;
    }
    if (check_config(cfg) < 0) {
        return NULL;
    }
    p = tl_fault_calloc(1, sizeof(*p));
    if (p == NULL) {
        goto nomem;
    }
    p->buckets =
        tl_fault_calloc((size_t)1 << HASH_BITS_INIT, sizeof(*p->buckets));
    if (p->buckets == NULL) {
        goto nomem;
    }
    tl_lock_init(&p->mu);
    p->hbits = HASH_BITS_INIT;
    p->gshift = (unsigned)__builtin_ctzll((unsigned long long)cfg->granule);
    p->raw = *raw;
    p->cfg = *cfg;
    if (backend != NULL) {
        p->streams = true;
        p->backend = *backend;
    }
#ifdef TL_ASAN
    p->poison = raw->device.type == TL_DEVICE_CPU;
#endif
    p->redzone = p->poison ? cfg->granule : 0;
    p->rng = 0x9E3779B9u ^ (uint32_t)((uintptr_t)p >> 4);
    if (p->rng == 0) {
        p->rng = 1;
    }
    snprintf(p->name, sizeof(p->name), "%s", name != NULL ? name : "pool");
    p->base.abi_version = TL_ALLOCATOR_ABI_VERSION;
    p->base.name = p->name;
    p->base.ctx = p;
    p->base.device = raw->device;
    p->base.allocate = p->streams ? pool_allocate_streams : pool_allocate;
    p->base.deallocate = pool_deallocate;
    p->base.stats = pool_stats;
    p->base.empty_cache = pool_empty_cache;
    p->base.reset_peak = pool_reset_peak;

    pthread_once(&atfork_once, atfork_register);
    pthread_mutex_lock(&pools_mu);
    pools_link(p);
    pthread_mutex_unlock(&pools_mu);
    return &p->base;

nomem:
    if (p != NULL) {
        free(p->buckets);
        free(p);
    }
    tl_error(TL_ERR_MEMORY, "failed to create pool '%s'",
             name != NULL ? name : "pool");
    return NULL;
}

tl_allocator *tl_pool_new(const tl_raw_allocator *raw,
                          const tl_pool_config *cfg, const char *name)
{
    return pool_new(raw, cfg, name, NULL);
}

tl_allocator *tl_pool_new_streams(const tl_raw_allocator *raw,
                                  const tl_pool_config *cfg,
                                  const char *name,
                                  const tl_stream_backend *backend)
{
    if (backend == NULL) {
        tl_error(TL_ERR_VALUE, "tl_pool_new_streams needs a stream "
                 "backend");
        return NULL;
    }
    return pool_new(raw, cfg, name, backend);
}

int tl_pool_destroy(tl_allocator *a)
{
    pool *p = tl_pool_of(a);
    pblock *b;

    if (p == NULL) {
        return tl_error(TL_ERR_VALUE, "tl_pool_destroy: not a pool");
    }
    pthread_mutex_lock(&pools_mu);
    tl_lock_acquire(&p->mu);
    if (p->dfirst != NULL) {
        (void)tl_pool_process_deferred(p, true);
    }
    if (p->nlive != 0) {
        int64_t live = p->active;
        size_t n = p->nlive;
        tl_lock_release(&p->mu);
        pthread_mutex_unlock(&pools_mu);
        return tl_error(TL_ERR_RUNTIME, "cannot destroy pool '%s': %zu "
                        "blocks (%lld bytes) are still in use", p->name, n,
                        (long long)live);
    }
    pools_unlink(p);
    tl_lock_release(&p->mu);
    pthread_mutex_unlock(&pools_mu);

    /* Nothing is handed out, so every segment is fully free once the
     * quick lists are back in the trees. */
    trim_cache(p, -1);
    TL_ASSERT(p->segs == NULL && p->nsegs == 0);
    while ((b = p->spare) != NULL) {
        p->spare = b->child[1];
        free(b);
    }
    while (p->sb0.next != NULL) {
        sbins *x = p->sb0.next;
        p->sb0.next = x->next;
        free(x);
    }
    free(p->buckets);
    free(p);
    return TL_OK;
}

int tl_pool_set_quick_lists(tl_allocator *a, bool on)
{
    pool *p = tl_pool_of(a);

    if (p == NULL || p->streams) {
        return tl_error(TL_ERR_VALUE, "tl_pool_set_quick_lists: %s",
                        p == NULL ? "not a pool" : "a pool with streams");
    }
    tl_lock_acquire(&p->mu);
    if (!on) {
        quick_flush(p);
    }
    p->quick_on = on;
    tl_lock_release(&p->mu);
    return TL_OK;
}

int64_t tl_pool_segment_count(const tl_allocator *a)
{
    pool *p = tl_pool_of(a);
    int64_t n;

    if (p == NULL) {
        return tl_error(TL_ERR_VALUE, "tl_pool_segment_count: not a pool");
    }
    tl_lock_acquire(&p->mu);
    n = p->nsegs;
    tl_lock_release(&p->mu);
    return n;
}

size_t tl_pool_round_size(const tl_allocator *a, size_t nbytes)
{
    pool *p = tl_pool_of(a);
    request r;

    if (p == NULL) {
        tl_error(TL_ERR_VALUE, "tl_pool_round_size: not a pool");
        return 0;
    }
    if (!plan_request(p, nbytes, 1, &r)) {
        return 0;
    }
    /* What carve does with a fresh segment. */
    if (!should_split(p, r.which, r.segment - r.size)) {
        return r.segment;
    }
    return r.size;
}

/* ---- stream calls (tensorlib/streams.h) --------------------------------- */

void *tl_pool_allocate_on(const tl_allocator *a, size_t nbytes,
                          size_t alignment, tl_stream s)
{
    pool *p = tl_pool_of(a);

    if (p == NULL) {
        tl_error(TL_ERR_VALUE, "tl_pool_allocate_on: not a pool");
        return NULL;
    }
    if (!p->streams) {
        return pool_allocate(p, nbytes, alignment);
    }
    return allocate_streams(p, nbytes, alignment, s);
}
