/* tests/c/test_pool.c — the generic caching pool (Note [Caching pool
 * policy] in csrc/alloc/pool.c) over a fake raw allocator that counts its
 * calls and live bytes and can be told to fail: rounding, best fit,
 * splitting, merging, reuse, stats, the cache limit, empty_cache, failure
 * and retry, alignment, the CUDA segment policy, threads, fork, destroy,
 * and (in ASan builds) poisoning. */

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tensorlib/tensorlib.h>

#include "harness.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

/* ---- the fake raw allocator --------------------------------------------- */

typedef struct fake_raw {
    atomic_llong allocs;     /* successful alloc calls */
    atomic_llong frees;
    atomic_llong live_bytes;
    atomic_llong live_segments;
    atomic_int fail_next;    /* fail this many alloc calls */
    atomic_llong last_size;  /* nbytes of the last alloc call */
} fake_raw;

static void *fake_alloc(void *ctx, size_t n)
{
    fake_raw *f = ctx;
    void *p = NULL;

    atomic_store(&f->last_size, (long long)n);
    if (atomic_load(&f->fail_next) > 0) {
        atomic_fetch_sub(&f->fail_next, 1);
        return NULL;
    }
    if (posix_memalign(&p, 4096, n) != 0) {
        return NULL;
    }
    atomic_fetch_add(&f->allocs, 1);
    atomic_fetch_add(&f->live_bytes, (long long)n);
    atomic_fetch_add(&f->live_segments, 1);
    return p;
}

static void fake_free(void *ctx, void *p, size_t n)
{
    fake_raw *f = ctx;

    /* Every byte must be addressable again when a segment goes back. */
    memset(p, 0xdd, n);
    free(p);
    atomic_fetch_add(&f->frees, 1);
    atomic_fetch_sub(&f->live_bytes, (long long)n);
    atomic_fetch_sub(&f->live_segments, 1);
}

static tl_allocator *fake_pool(fake_raw *f, const tl_pool_config *cfg)
{
    tl_raw_allocator raw = {"fake", f, {TL_DEVICE_CPU, 0}, fake_alloc,
                            fake_free};

    memset(f, 0, sizeof(*f));
    return tl_pool_new(&raw, cfg, "test_pool");
}

/* A small config that is easy to reason about: granule 64, <= 4 KiB from
 * 64 KiB segments, no medium class, size classes above, no cache limit. */
static tl_pool_config small_config(void)
{
    tl_pool_config c;

    c.granule = 64;
    c.small_limit = 4 * KiB;
    c.small_segment = 64 * KiB;
    c.medium_limit = 4 * KiB;
    c.medium_segment = 0;
    c.large_round = 0;
    c.cache_limit = SIZE_MAX;
    return c;
}

static void *palloc(tl_allocator *a, size_t n)
{
    return a->allocate(a->ctx, n, 64);
}

static void pfree(tl_allocator *a, void *p, size_t n)
{
    a->deallocate(a->ctx, p, n);
}

static tl_alloc_stats stats_of(const tl_allocator *a)
{
    tl_alloc_stats s;

    memset(&s, 0xff, sizeof(s));
    a->stats(a->ctx, &s);
    return s;
}

/* The sanitizer redzone the pool adds to each block (0 outside ASan). */
static size_t redzone_of(const tl_allocator *a, size_t granule)
{
    return tl_pool_round_size(a, granule) - granule;
}

/* ---- config validation -------------------------------------------------- */

static void test_config_validation(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a;

    c.granule = 48;
    CHECK(fake_pool(&f, &c) == NULL && tl_error_kind() == TL_ERR_VALUE);
    c = small_config();
    c.small_segment = 2 * KiB; /* below small_limit */
    CHECK(fake_pool(&f, &c) == NULL && tl_error_kind() == TL_ERR_VALUE);
    c = small_config();
    c.large_round = 100;
    CHECK(fake_pool(&f, &c) == NULL && tl_error_kind() == TL_ERR_VALUE);
    c = small_config();
    c.medium_segment = 1 * KiB; /* below medium_limit */
    CHECK(fake_pool(&f, &c) == NULL && tl_error_kind() == TL_ERR_VALUE);
    CHECK(tl_pool_new(NULL, &c, "x") == NULL);

    /* Non-pools are refused by the pool functions. */
    CHECK(tl_pool_segment_count(tl_cpu_aligned_allocator()) < 0);
    CHECK(tl_pool_check(tl_cpu_aligned_allocator()) == TL_ERR_VALUE);
    CHECK(tl_pool_round_size(tl_cpu_aligned_allocator(), 10) == 0);

    c = small_config();
    a = fake_pool(&f, &c);
    CHECK(a != NULL);
    if (a != NULL) {
        CHECK(strcmp(a->name, "test_pool") == 0);
        CHECK(a->abi_version == TL_ALLOCATOR_ABI_VERSION);
        CHECK(tl_pool_destroy(a) == 0);
    }
    CHECK_EQ_I64(f.allocs, 0);
}

/* ---- rounding ----------------------------------------------------------- */

static void test_round_size_bounds(void)
{
    fake_raw f;
    tl_pool_config c = tl_pool_config_cpu();
    tl_allocator *a = fake_pool(&f, &c);
    size_t rz, n, prev = 0;
    uint64_t x = 0x12345678;
    int i;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    rz = redzone_of(a, c.granule);
    CHECK(rz == 0 || rz >= 16);
    /* Small sizes: a multiple of the granule, less than one granule over. */
    for (n = 0; n <= 70000; n += 7) {
        size_t r = tl_pool_round_size(a, n);
        CHECK(r % c.granule == 0);
        CHECK(r >= n + rz && r < n + rz + c.granule + (n == 0) * 64);
        CHECK(r >= prev);
        prev = r;
    }
    CHECK(tl_pool_round_size(a, 0) == c.granule + rz);
    CHECK(tl_pool_round_size(a, 1) == c.granule + rz);
    CHECK(tl_pool_round_size(a, 64) == 64 + rz);
    CHECK(tl_pool_round_size(a, 65) == 128 + rz);
    /* Large sizes: waste under 25 % (plus the redzone), over many sizes,
     * both random and around powers of two. */
    for (i = 0; i < 20000; i++) {
        size_t r;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        n = c.small_limit + 1 + (size_t)((x >> 11) % ((size_t)4 << 30));
        r = tl_pool_round_size(a, n);
        CHECK(r >= n + rz);
        CHECK(r - n <= n / 4 + rz);
        CHECK(r % c.granule == 0);
    }
    for (i = 19; i < 40; i++) {
        size_t p2 = (size_t)1 << i;
        size_t cand[] = {p2 - 1, p2, p2 + 1, p2 + p2 / 8, p2 + p2 / 4 + 1,
                         p2 + p2 / 2 + 1, p2 + 3 * p2 / 4 + 1};
        size_t j;
        for (j = 0; j < sizeof(cand) / sizeof(cand[0]); j++) {
            size_t r = tl_pool_round_size(a, cand[j]);
            CHECK(r >= cand[j] && r - cand[j] <= cand[j] / 4 + rz);
        }
        if (rz == 0) {
            /* Exact classes: 2^k x 1, 1.25, 1.5, 1.75. */
            CHECK(tl_pool_round_size(a, p2) == p2);
            CHECK(tl_pool_round_size(a, p2 + 1) == p2 + p2 / 4);
            CHECK(tl_pool_round_size(a, p2 + p2 / 4 + 1) == p2 + p2 / 2);
        }
    }
    /* Monotonic over the boundary between the pools. */
    prev = 0;
    for (n = c.small_limit - 4096; n < c.small_limit + 3 * MiB; n += 4093) {
        size_t r = tl_pool_round_size(a, n);
        CHECK(r >= prev);
        prev = r;
    }
    CHECK(tl_pool_destroy(a) == 0);
}

/* ---- best fit, split, merge, reuse -------------------------------------- */

static void test_split_and_best_fit(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    char *A, *B, *C, *D, *E, *F, *X, *Y, *Z;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    /* Carved one after another from one segment: splitting at work. */
    A = palloc(a, 1000);
    B = palloc(a, 64);
    C = palloc(a, 3000);
    D = palloc(a, 64);
    E = palloc(a, 2000);
    F = palloc(a, 64);
    CHECK_EQ_I64(f.allocs, 1);
    CHECK_EQ_I64(tl_pool_segment_count(a), 1);
    CHECK(B == A + tl_pool_round_size(a, 1000));
    CHECK(C == B + tl_pool_round_size(a, 64));
    CHECK(D == C + tl_pool_round_size(a, 3000));
    CHECK(E == D + tl_pool_round_size(a, 64));
    CHECK(F == E + tl_pool_round_size(a, 2000));
    CHECK(tl_pool_check(a) == 0);

    /* Holes of rs(1000), rs(3000) and rs(2000) between live blocks, and
     * the big tail of the segment. */
    pfree(a, A, 1000);
    pfree(a, C, 3000);
    pfree(a, E, 2000);
    CHECK(tl_pool_check(a) == 0);

    /* 1900 fits rs(2000) best (not rs(3000), not the tail)... */
    X = palloc(a, 1900);
    CHECK(X == E);
    /* ...which splits: the rest of E's hole is the best fit for 60. */
    CHECK(tl_pool_round_size(a, 2000) - tl_pool_round_size(a, 1900) == 128);
    Y = palloc(a, 60);
    CHECK(Y == E + tl_pool_round_size(a, 1900));
    /* 900 fits A's hole, 2500 fits C's. */
    Z = palloc(a, 900);
    CHECK(Z == A);
    pfree(a, Z, 900);
    Z = palloc(a, 2500);
    CHECK(Z == C);
    CHECK_EQ_I64(f.allocs, 1);
    CHECK(tl_pool_check(a) == 0);

    pfree(a, Z, 2500);
    pfree(a, X, 1900);
    pfree(a, Y, 60);
    pfree(a, B, 64);
    pfree(a, D, 64);
    pfree(a, F, 64);
    CHECK(tl_pool_check(a) == 0);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
}

static void test_best_fit_ties_by_address(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    char *p[8];
    int i;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    for (i = 0; i < 8; i++) {
        p[i] = palloc(a, 500);
    }
    /* Equal holes at p[5], p[1], p[3]: the lowest address wins. */
    pfree(a, p[5], 500);
    pfree(a, p[1], 500);
    pfree(a, p[3], 500);
    CHECK(palloc(a, 500) == p[1]);
    CHECK(palloc(a, 500) == p[3]);
    CHECK(palloc(a, 500) == p[5]);
    for (i = 0; i < 8; i++) {
        pfree(a, p[i], 500);
    }
    CHECK(tl_pool_check(a) == 0);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_merge_neighbours(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    char *A, *B, *C, *D;
    tl_alloc_stats s;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    A = palloc(a, 256);
    B = palloc(a, 512);
    C = palloc(a, 1024);
    CHECK(B == A + tl_pool_round_size(a, 256));
    CHECK(C == B + tl_pool_round_size(a, 512));
    pfree(a, A, 256);
    pfree(a, C, 1024); /* merges with the segment's free tail */
    CHECK(tl_pool_check(a) == 0);
    s = stats_of(a);
    CHECK_EQ_I64(s.largest_free_block,
                 64 * KiB - tl_pool_round_size(a, 256) -
                     tl_pool_round_size(a, 512));
    /* Not fully free yet: empty_cache keeps the segment. */
    a->empty_cache(a->ctx);
    CHECK_EQ_I64(tl_pool_segment_count(a), 1);

    pfree(a, B, 512); /* merges with both: one block, the whole segment */
    CHECK(tl_pool_check(a) == 0);
    s = stats_of(a);
    CHECK_EQ_I64(s.largest_free_block, 64 * KiB);
    CHECK_EQ_I64(s.cached_bytes, 64 * KiB);
    /* The merged block serves a request as large as the segment allows. */
    D = palloc(a, 4 * KiB - tl_pool_round_size(a, 0) + 1);
    CHECK(D == A);
    pfree(a, D, 4 * KiB - tl_pool_round_size(a, 0) + 1);
    CHECK_EQ_I64(tl_pool_segment_count(a), 1);
    CHECK_EQ_I64(f.allocs, 1);
    a->empty_cache(a->ctx);
    CHECK_EQ_I64(tl_pool_segment_count(a), 0);
    CHECK_EQ_I64(f.frees, 1);
    CHECK_EQ_I64(f.live_bytes, 0);
    CHECK(tl_pool_destroy(a) == 0);
}

/* Note [Sole block fast path] in pool.c: a block carved off a free block
 * alone in its bin, and freed back next to one, skips the treap.  The
 * outcomes must be the general path's: same addresses, same stats. */
static void test_sole_block_paths(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    char *A, *B, *X, *Y, *Z, *W;
    tl_alloc_stats s;
    size_t r128;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    r128 = tl_pool_round_size(a, 128);
    /* Carve off the tail, free back into it: the same block each time. */
    A = palloc(a, 64);
    pfree(a, A, 64);
    CHECK(tl_pool_check(a) == 0);
    s = stats_of(a);
    CHECK_EQ_I64(s.largest_free_block, 64 * KiB);
    CHECK_EQ_I64(s.active_bytes, 0);
    B = palloc(a, 64);
    CHECK(B == A);
    pfree(a, B, 64);
    /* A free block alone in its bin grows in place when its right
     * neighbour is freed (the next block is still live). */
    X = palloc(a, 128);
    Y = palloc(a, 128);
    Z = palloc(a, 128);
    pfree(a, X, 128);
    pfree(a, Y, 128);
    CHECK(tl_pool_check(a) == 0);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 128);
    CHECK_EQ_I64(s.largest_free_block, 64 * KiB - 3 * r128);
    /* Best fit takes the merged 2 x 128 block, not the tail. */
    W = palloc(a, 2 * r128 - tl_pool_round_size(a, 0));
    CHECK(W == X);
    CHECK(tl_pool_check(a) == 0);
    pfree(a, W, 2 * r128 - tl_pool_round_size(a, 0));
    pfree(a, Z, 128); /* merges on both sides: the whole segment */
    CHECK(tl_pool_check(a) == 0);
    s = stats_of(a);
    CHECK_EQ_I64(s.largest_free_block, 64 * KiB);
    CHECK_EQ_I64(s.cached_bytes, 64 * KiB);
    CHECK_EQ_I64(f.allocs, 1);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
}

/* Random small allocations and frees, the pool's invariants checked after
 * every step: walks both sides of the sole-block fast path many times. */
static void churn_invariants(bool quick)
{
    enum { SLOTS = 48, OPS = 4000 };
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    unsigned char *ptr[SLOTS] = {0};
    size_t len[SLOTS] = {0};
    int64_t active = 0;
    unsigned x = 12345u;
    int op, i, bad = 0;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    CHECK(tl_pool_set_quick_lists(a, quick) == 0);
    for (op = 0; op < OPS && !bad; op++) {
        x = x * 1103515245u + 12345u;
        i = (int)((x >> 8) % SLOTS);
        if (ptr[i] != NULL) {
            for (size_t k = 0; k < len[i]; k++) {
                bad |= ptr[i][k] != (unsigned char)i;
            }
            pfree(a, ptr[i], len[i]);
            active -= (int64_t)len[i];
            ptr[i] = NULL;
        }
        else {
            /* Mostly one size (the loop of a benchmark), some others. */
            len[i] = (x >> 20) % 4 != 0 ? 48 : 1 + (x >> 12) % 3000;
            ptr[i] = palloc(a, len[i]);
            bad |= ptr[i] == NULL;
            if (ptr[i] != NULL) {
                memset(ptr[i], i, len[i]);
                active += (int64_t)len[i];
            }
        }
        bad |= tl_pool_check(a) != 0;
        bad |= stats_of(a).active_bytes != active;
    }
    CHECK(!bad);
    CHECK_EQ_I64(op, OPS);
    for (i = 0; i < SLOTS; i++) {
        if (ptr[i] != NULL) {
            pfree(a, ptr[i], len[i]);
        }
    }
    CHECK(tl_pool_check(a) == 0);
    CHECK_EQ_I64(stats_of(a).active_bytes, 0);
    a->empty_cache(a->ctx);
    CHECK_EQ_I64(tl_pool_segment_count(a), 0);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
}

static void test_random_churn_invariants(void)
{
    churn_invariants(false);
    churn_invariants(true); /* Note [Quick lists] */
}

/* Note [Quick lists]: a freed small block is kept for the next request of
 * its size, without merging; every path that gives cache back drains the
 * lists first. */
static void test_quick_lists(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    tl_alloc_stats s;
    char *p[12], *q, *r;
    size_t r100;
    int i;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    r100 = tl_pool_round_size(a, 100); /* 128, or 192 with a redzone */
    CHECK(tl_pool_set_quick_lists(a, true) == 0);
    p[0] = palloc(a, 100);
    p[1] = palloc(a, 100);
    pfree(a, p[0], 100);
    CHECK(tl_pool_check(a) == 0);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 100);
    CHECK_EQ_I64(s.cached_bytes, 64 * KiB - (int64_t)r100);
    /* Not merged: the tail after p[1] is the largest free block. */
    CHECK_EQ_I64(s.largest_free_block, 64 * KiB - 2 * (int64_t)r100);
    /* Another size does not take it; the same size (any request that
     * rounds to it) does, with stats as for any hit. */
    q = palloc(a, 300);
    CHECK(q != p[0]);
    r = palloc(a, 70);
    CHECK(r100 != tl_pool_round_size(a, 70) || r == p[0]);
    if (r100 == tl_pool_round_size(a, 70)) {
        s = stats_of(a);
        CHECK_EQ_I64(s.active_bytes, 100 + 300 + 70);
        CHECK_EQ_I64(s.cache_hits, 3);
        CHECK_EQ_I64(s.cache_misses, 1);
    }
    CHECK(tl_pool_check(a) == 0);
    pfree(a, r, 70);
    pfree(a, q, 300);
    /* An over-aligned request of the same size never pops one. */
    q = a->allocate(a->ctx, 100, 256);
    CHECK(q != NULL && q != p[0] && ((uintptr_t)q & 255) == 0);
    CHECK(tl_pool_check(a) == 0);
    pfree(a, q, 100);
    pfree(a, p[1], 100);
    CHECK(tl_pool_check(a) == 0);
    /* Depth: of twelve freed blocks of one size, eight are listed, the
     * rest merge as usual; the newest listed comes back first. */
    for (i = 0; i < 12; i++) {
        p[i] = palloc(a, 100);
    }
    for (i = 0; i < 12; i++) {
        pfree(a, p[i], 100);
        CHECK(tl_pool_check(a) == 0);
    }
    q = palloc(a, 100);
    CHECK(q == p[7] || q == p[11]);
    pfree(a, q, 100);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 0);
    CHECK_EQ_I64(s.cached_bytes, s.reserved_bytes);
    /* empty_cache drains the lists, so the segment goes back. */
    a->empty_cache(a->ctx);
    CHECK_EQ_I64(tl_pool_segment_count(a), 0);
    CHECK(tl_pool_check(a) == 0);
    /* Turning them off drains them too: one free block again. */
    p[0] = palloc(a, 100);
    p[1] = palloc(a, 100);
    pfree(a, p[0], 100);
    CHECK(tl_pool_set_quick_lists(a, false) == 0);
    CHECK(tl_pool_check(a) == 0);
    pfree(a, p[1], 100);
    CHECK_EQ_I64(stats_of(a).largest_free_block, 64 * KiB);
    /* Destroy drains them. */
    CHECK(tl_pool_set_quick_lists(a, true) == 0);
    p[0] = palloc(a, 100);
    pfree(a, p[0], 100);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
    CHECK_EQ_I64(f.allocs, f.frees);
    CHECK(tl_pool_set_quick_lists(NULL, true) == TL_ERR_VALUE);
}

static void test_reuse_without_raw_alloc(void)
{
    static const size_t sizes[] = {1, 64, 100, 4000, 5000, 100 * KiB,
                                   3 * MiB};
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    size_t i;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        void *p = palloc(a, n), *q;
        long long raw_before;
        tl_alloc_stats s0, s1;
        int k;
        CHECK(p != NULL);
        memset(p, 1, n);
        pfree(a, p, n);
        raw_before = atomic_load(&f.allocs);
        s0 = stats_of(a);
        for (k = 0; k < 100; k++) {
            q = palloc(a, n);
            CHECK(q == p);
            pfree(a, q, n);
        }
        s1 = stats_of(a);
        CHECK_EQ_I64(atomic_load(&f.allocs), raw_before);
        CHECK_EQ_I64(s1.cache_hits, s0.cache_hits + 100);
        CHECK_EQ_I64(s1.cache_misses, s0.cache_misses);
        CHECK_EQ_I64(s1.reserved_bytes, s0.reserved_bytes);
    }
    CHECK(tl_pool_check(a) == 0);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
    CHECK_EQ_I64(f.allocs, f.frees);
}

/* ---- stats -------------------------------------------------------------- */

static void test_stats_sequence(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    size_t ra, rb, rc;
    void *A, *B, *C;
    tl_alloc_stats s;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 0);
    CHECK_EQ_I64(s.active_bytes_peak, 0);
    CHECK_EQ_I64(s.reserved_bytes, 0);
    CHECK_EQ_I64(s.cached_bytes, 0);
    CHECK_EQ_I64(s.alloc_count, 0);
    CHECK_EQ_I64(s.free_count, 0);
    CHECK_EQ_I64(s.cache_hits, 0);
    CHECK_EQ_I64(s.cache_misses, 0);
    CHECK_EQ_I64(s.largest_free_block, 0);
    CHECK_EQ_I64(s.fragmentation_bytes, 0);

    ra = tl_pool_round_size(a, 100);
    rb = tl_pool_round_size(a, 1000);
    rc = tl_pool_round_size(a, 10000); /* large: its own segment */
    A = palloc(a, 100);   /* miss: a 64 KiB small segment */
    B = palloc(a, 1000);  /* hit */
    C = palloc(a, 10000); /* miss: a segment of rc bytes */
    CHECK(A && B && C);
    CHECK_EQ_I64(f.last_size, rc);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 11100);
    CHECK_EQ_I64(s.active_bytes_peak, 11100);
    CHECK_EQ_I64(s.reserved_bytes, 64 * KiB + rc);
    CHECK_EQ_I64(s.cached_bytes, 64 * KiB - ra - rb);
    CHECK_EQ_I64(s.alloc_count, 3);
    CHECK_EQ_I64(s.free_count, 0);
    CHECK_EQ_I64(s.cache_hits, 1);
    CHECK_EQ_I64(s.cache_misses, 2);
    CHECK_EQ_I64(s.largest_free_block, 64 * KiB - ra - rb);
    CHECK_EQ_I64(s.fragmentation_bytes, 64 * KiB + rc - 11100);

    pfree(a, B, 1000);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 10100);
    CHECK_EQ_I64(s.active_bytes_peak, 11100);
    CHECK_EQ_I64(s.reserved_bytes, 64 * KiB + rc);
    CHECK_EQ_I64(s.cached_bytes, 64 * KiB - ra);
    CHECK_EQ_I64(s.alloc_count, 3);
    CHECK_EQ_I64(s.free_count, 1);
    CHECK_EQ_I64(s.cache_hits, 1);
    CHECK_EQ_I64(s.cache_misses, 2);
    CHECK_EQ_I64(s.largest_free_block, 64 * KiB - ra);
    CHECK_EQ_I64(s.fragmentation_bytes, 64 * KiB + rc - 10100);

    a->reset_peak(a->ctx);
    pfree(a, C, 10000);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 100);
    CHECK_EQ_I64(s.active_bytes_peak, 10100);
    CHECK_EQ_I64(s.cached_bytes, 64 * KiB - ra + rc);
    CHECK_EQ_I64(s.largest_free_block, 64 * KiB - ra);
    CHECK_EQ_I64(s.free_count, 2);

    C = palloc(a, 9000); /* served by C's cached segment: a hit */
    s = stats_of(a);
    CHECK_EQ_I64(s.cache_hits, 2);
    CHECK_EQ_I64(s.cache_misses, 2);
    CHECK_EQ_I64(s.alloc_count, 4);
    CHECK_EQ_I64(s.active_bytes, 9100);
    CHECK_EQ_I64(s.cached_bytes, 64 * KiB - ra);
    pfree(a, C, 9000);

    a->empty_cache(a->ctx); /* the large segment goes; A's stays */
    s = stats_of(a);
    CHECK_EQ_I64(s.reserved_bytes, 64 * KiB);
    CHECK_EQ_I64(s.cached_bytes, 64 * KiB - ra);
    CHECK_EQ_I64(s.fragmentation_bytes, 64 * KiB - 100);
    pfree(a, A, 100);
    a->reset_peak(a->ctx);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 0);
    CHECK_EQ_I64(s.active_bytes_peak, 0);
    CHECK_EQ_I64(s.cached_bytes, 64 * KiB);
    CHECK_EQ_I64(s.largest_free_block, 64 * KiB);
    CHECK(tl_pool_check(a) == 0);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
}

/* ---- the cache limit and empty_cache ------------------------------------ */

static void test_cache_limit(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a;
    char *p[6], *q;
    size_t n = MiB - 4096, seg;
    tl_alloc_stats s;
    int i;

    c.cache_limit = 2 * MiB + MiB / 2;
    a = fake_pool(&f, &c);
    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    seg = tl_pool_round_size(a, n); /* large: one segment each */
    CHECK_EQ_I64(seg, MiB);
    for (i = 0; i < 6; i++) {
        p[i] = palloc(a, n);
        CHECK(p[i] != NULL);
    }
    CHECK_EQ_I64(f.allocs, 6);
    for (i = 0; i < 6; i++) {
        pfree(a, p[i], n);
        s = stats_of(a);
        CHECK(s.cached_bytes <= (int64_t)c.cache_limit);
    }
    /* Two segments fit under 2.5 MiB; the oldest freed went first. */
    CHECK_EQ_I64(tl_pool_segment_count(a), 2);
    CHECK_EQ_I64(f.frees, 4);
    s = stats_of(a);
    CHECK_EQ_I64(s.reserved_bytes, 2 * seg);
    CHECK_EQ_I64(s.cached_bytes, 2 * seg);
    CHECK(tl_pool_check(a) == 0);
    /* The two most recently freed stay, and reusing one costs nothing:
     * equal sizes, so the lower address wins. */
    q = palloc(a, n);
    CHECK(q == (p[4] < p[5] ? p[4] : p[5]));
    CHECK_EQ_I64(f.allocs, 6);
    a->empty_cache(a->ctx);
    CHECK_EQ_I64(tl_pool_segment_count(a), 1); /* the live one */
    CHECK_EQ_I64(f.frees, 5);
    CHECK(tl_pool_destroy(a) == TL_ERR_RUNTIME);
    CHECK(strstr(tl_error_message(), "still in use") != NULL);
    pfree(a, q, n);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
    CHECK_EQ_I64(f.allocs, f.frees);
}

/* With quick lists on, a quick block may not pin its segment either. */
static void cache_limit_zero(bool quick)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a;
    void *p, *q;

    c.cache_limit = 0;
    a = fake_pool(&f, &c);
    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    CHECK(tl_pool_set_quick_lists(a, quick) == 0);
    p = palloc(a, 100);
    q = palloc(a, 100);
    pfree(a, p, 100);
    CHECK_EQ_I64(tl_pool_segment_count(a), 1); /* q still lives */
    CHECK(tl_pool_check(a) == 0);
    pfree(a, q, 100);
    CHECK_EQ_I64(tl_pool_segment_count(a), 0); /* nothing cached */
    CHECK_EQ_I64(stats_of(a).cached_bytes, 0);
    CHECK_EQ_I64(f.frees, 1);
    CHECK(tl_pool_check(a) == 0);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_cache_limit_zero(void)
{
    cache_limit_zero(false);
    cache_limit_zero(true); /* Note [Quick lists] */
}

static void test_empty_cache_keeps_live_blocks(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    unsigned char *live;
    void *other[20];
    void *big;
    size_t i;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    live = palloc(a, 3000);
    /* Enough small blocks for a second segment, and a large one. */
    for (i = 0; i < 20; i++) {
        other[i] = palloc(a, 4000);
    }
    big = palloc(a, 200 * KiB);
    CHECK(tl_pool_segment_count(a) >= 3);
    memset(live, 0x3c, 3000);
    for (i = 0; i < 20; i++) {
        pfree(a, other[i], 4000);
    }
    pfree(a, big, 200 * KiB);
    a->empty_cache(a->ctx);
    /* Only the segment holding the live block is left. */
    CHECK_EQ_I64(tl_pool_segment_count(a), 1);
    CHECK_EQ_I64(f.live_segments, 1);
    for (i = 0; i < 3000; i++) {
        if (live[i] != 0x3c) {
            break;
        }
    }
    CHECK(i == 3000);
    CHECK(tl_pool_check(a) == 0);
    CHECK(tl_pool_destroy(a) == TL_ERR_RUNTIME);
    pfree(a, live, 3000);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
}

/* ---- failure and retry -------------------------------------------------- */

static void test_raw_failure_retry(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    void *p, *q;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    /* Cache one large segment and one small one. */
    p = palloc(a, 100 * KiB);
    q = palloc(a, 100);
    pfree(a, p, 100 * KiB);
    pfree(a, q, 100);
    CHECK_EQ_I64(tl_pool_segment_count(a), 2);

    /* The first try fails: the cache goes back, the retry succeeds. */
    atomic_store(&f.fail_next, 1);
    p = palloc(a, 300 * KiB);
    CHECK(p != NULL);
    CHECK_EQ_I64(f.frees, 2);
    CHECK_EQ_I64(tl_pool_segment_count(a), 1);
    CHECK(tl_pool_check(a) == 0);

    /* Both tries fail: TL_ERR_MEMORY naming the bytes, nothing changed. */
    atomic_store(&f.fail_next, 2);
    tl_error_clear();
    q = palloc(a, 500 * KiB);
    CHECK(q == NULL);
    CHECK(tl_error_kind() == TL_ERR_MEMORY);
    CHECK(strstr(tl_error_message(), "512000 bytes") != NULL);
    CHECK(strstr(tl_error_message(), "test_pool") != NULL);
    CHECK_EQ_I64(atomic_load(&f.fail_next), 0);
    CHECK_EQ_I64(stats_of(a).alloc_count, 3);
    CHECK(tl_pool_check(a) == 0);

    /* Too large to plan at all. */
    CHECK(palloc(a, SIZE_MAX) == NULL);
    CHECK(tl_error_kind() == TL_ERR_MEMORY);
    /* A bad alignment. */
    CHECK(a->allocate(a->ctx, 10, 3) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(a->allocate(a->ctx, 10, 8192) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);

    /* And it still works. */
    q = palloc(a, 500 * KiB);
    CHECK(q != NULL);
    pfree(a, q, 500 * KiB);
    pfree(a, p, 300 * KiB);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
}

/* ---- alignment ---------------------------------------------------------- */

static void test_alignment(void)
{
    static const size_t sizes[] = {0, 1, 63, 64, 100, 1000, 3000, 5000,
                                   70 * KiB};
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    void *keep[16 * 13];
    size_t nkeep = 0;
    size_t align, i;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    /* Misalign the small segment first. */
    keep[nkeep++] = palloc(a, 64);
    for (align = 1; align <= 4096; align *= 2) {
        for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            unsigned char *p = a->allocate(a->ctx, sizes[i], align);
            CHECK(p != NULL);
            if (p == NULL) {
                continue;
            }
            CHECK((uintptr_t)p % align == 0);
            memset(p, 0xee, sizes[i]);
            if (i % 2 == 0) {
                pfree(a, p, sizes[i]); /* a hole with odd alignment */
            }
            else {
                keep[nkeep++] = p;
            }
        }
        CHECK(tl_pool_check(a) == 0);
    }
    /* Free what was kept, in the same walk. */
    nkeep = 1;
    for (align = 1; align <= 4096; align *= 2) {
        for (i = 1; i < sizeof(sizes) / sizeof(sizes[0]); i += 2) {
            pfree(a, keep[nkeep++], sizes[i]);
        }
    }
    pfree(a, keep[0], 64);
    CHECK(tl_pool_check(a) == 0);
    CHECK_EQ_I64(stats_of(a).active_bytes, 0);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
}

/* ---- the CUDA segment policy -------------------------------------------- */

static void test_cuda_config(void)
{
    fake_raw f;
    tl_pool_config c = tl_pool_config_cuda();
    tl_allocator *a;
    void *p, *q, *r;
    tl_alloc_stats s;

    CHECK(c.granule == 512);
    CHECK(c.small_limit == MiB && c.small_segment == 2 * MiB);
    CHECK(c.medium_limit == 10 * MiB && c.medium_segment == 20 * MiB);
    CHECK(c.large_round == 2 * MiB);

    /* Two 512 KiB requests share one 2 MiB segment. */
    a = fake_pool(&f, &c);
    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    CHECK(tl_pool_round_size(a, 1000) % 512 == 0);
    p = palloc(a, 512 * KiB);
    q = palloc(a, 512 * KiB);
    CHECK(p && q);
    CHECK_EQ_I64(f.allocs, 1);
    CHECK_EQ_I64(f.last_size, 2 * MiB);
    CHECK_EQ_I64(tl_pool_segment_count(a), 1);
    CHECK((char *)q == (char *)p + tl_pool_round_size(a, 512 * KiB));
    pfree(a, p, 512 * KiB);
    pfree(a, q, 512 * KiB);

    /* 5 MiB: from a 20 MiB medium segment, the rest split off. */
    p = palloc(a, 5 * MiB);
    CHECK(p != NULL);
    CHECK_EQ_I64(f.allocs, 2);
    CHECK_EQ_I64(f.last_size, 20 * MiB);
    CHECK(tl_pool_round_size(a, 5 * MiB) < 6 * MiB);
    s = stats_of(a);
    CHECK_EQ_I64(s.reserved_bytes, 22 * MiB);
    CHECK(s.largest_free_block >= (int64_t)(14 * MiB));
    /* A second medium request comes from the same segment. */
    q = palloc(a, 7 * MiB);
    CHECK(q != NULL);
    CHECK_EQ_I64(f.allocs, 2);
    pfree(a, p, 5 * MiB);
    pfree(a, q, 7 * MiB);
    CHECK(tl_pool_check(a) == 0);
    CHECK(tl_pool_destroy(a) == 0);

    /* 11 MiB: its own segment, rounded to 12 MiB, handed out whole. */
    a = fake_pool(&f, &c);
    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    CHECK_EQ_I64(tl_pool_round_size(a, 11 * MiB), 12 * MiB);
    CHECK_EQ_I64(tl_pool_round_size(a, 21 * MiB), 22 * MiB);
    r = palloc(a, 11 * MiB);
    CHECK(r != NULL);
    CHECK_EQ_I64(f.last_size, 12 * MiB);
    s = stats_of(a);
    CHECK_EQ_I64(s.reserved_bytes, 12 * MiB);
    CHECK_EQ_I64(s.cached_bytes, 0);
    pfree(a, r, 11 * MiB);
    /* Cached: 12 MiB serves 11.5 MiB again without the raw allocator. */
    r = palloc(a, 11 * MiB + MiB / 2);
    CHECK(r != NULL);
    CHECK_EQ_I64(f.allocs, 1);
    pfree(a, r, 11 * MiB + MiB / 2);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
}

/* ---- threads ------------------------------------------------------------ */

#define STRESS_THREADS 4
#define STRESS_OPS 20000
#define STRESS_SLOTS 64

typedef struct stress_arg {
    tl_allocator *a;
    unsigned seed;
    int errors;
} stress_arg;

static size_t stress_size(unsigned *x)
{
    unsigned r;

    *x = *x * 1103515245u + 12345u;
    r = (*x >> 8) % 100;
    if (r < 70) {
        return (*x >> 4) % 512;            /* tiny */
    }
    if (r < 95) {
        return (*x >> 4) % (16 * KiB);     /* small */
    }
    return (*x >> 4) % (600 * KiB);        /* large */
}

static void *stress_worker(void *arg)
{
    stress_arg *s = arg;
    unsigned char *ptr[STRESS_SLOTS] = {0};
    size_t len[STRESS_SLOTS] = {0};
    unsigned char tag[STRESS_SLOTS] = {0};
    unsigned x = s->seed;
    int op, i;

    for (op = 0; op < STRESS_OPS; op++) {
        x = x * 1103515245u + 12345u;
        i = (int)((x >> 10) % STRESS_SLOTS);
        if (ptr[i] != NULL) {
            size_t k;
            for (k = 0; k < len[i]; k++) {
                if (ptr[i][k] != tag[i]) {
                    s->errors++;
                    break;
                }
            }
            s->a->deallocate(s->a->ctx, ptr[i], len[i]);
            ptr[i] = NULL;
        }
        else {
            size_t align = (size_t)1 << ((x >> 20) % 13);
            len[i] = stress_size(&x);
            ptr[i] = s->a->allocate(s->a->ctx, len[i], align);
            if (ptr[i] == NULL || (uintptr_t)ptr[i] % align != 0) {
                s->errors++;
                ptr[i] = NULL;
                continue;
            }
            tag[i] = (unsigned char)(s->seed + (unsigned)op);
            memset(ptr[i], tag[i], len[i]);
        }
    }
    for (i = 0; i < STRESS_SLOTS; i++) {
        if (ptr[i] != NULL) {
            s->a->deallocate(s->a->ctx, ptr[i], len[i]);
        }
    }
    return NULL;
}

static void run_stress(tl_allocator *a)
{
    pthread_t t[STRESS_THREADS];
    stress_arg arg[STRESS_THREADS];
    int i;

    for (i = 0; i < STRESS_THREADS; i++) {
        arg[i].a = a;
        arg[i].seed = 17u + 7919u * (unsigned)i;
        arg[i].errors = 0;
        pthread_create(&t[i], NULL, stress_worker, &arg[i]);
    }
    for (i = 0; i < STRESS_THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ_I64(arg[i].errors, 0);
    }
}

static void test_threads_stress(void)
{
    fake_raw f;
    tl_pool_config c = tl_pool_config_cpu();
    tl_allocator *a;
    tl_alloc_stats s;

    c.cache_limit = 4 * MiB; /* exercise trimming under contention */
    a = fake_pool(&f, &c);
    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    CHECK(tl_pool_set_quick_lists(a, true) == 0);
    run_stress(a);
    CHECK(tl_pool_check(a) == 0);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 0);
    CHECK_EQ_I64(s.alloc_count, s.free_count);
    CHECK_EQ_I64(s.cache_hits + s.cache_misses, s.alloc_count);
    CHECK(s.cached_bytes <= (int64_t)c.cache_limit);
    CHECK_EQ_I64(s.reserved_bytes, f.live_bytes);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_bytes, 0);
    CHECK_EQ_I64(f.allocs, f.frees);

    /* The process's CPU caching pool too. */
    run_stress((tl_allocator *)tl_cpu_caching_allocator());
    CHECK(tl_pool_check(tl_cpu_caching_allocator()) == 0);
}

/* ---- fork --------------------------------------------------------------- */

static atomic_int fork_stop;

static void *fork_churn(void *arg)
{
    tl_allocator *a = arg;

    while (!atomic_load(&fork_stop)) {
        void *p = palloc(a, 200);
        pfree(a, p, 200);
    }
    return NULL;
}

static void test_fork_while_allocating(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    pthread_t t;
    int i, ok = 1;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    atomic_store(&fork_stop, 0);
    pthread_create(&t, NULL, fork_churn, a);
    /* Without the atfork handlers a child forked while the churning
     * thread holds the lock would deadlock on its first allocation. */
    for (i = 0; i < 20 && ok; i++) {
        int status = 0;
        pid_t pid = fork();
        if (pid == 0) {
            void *p;
            alarm(10);
            p = palloc(a, 1000);
            pfree(a, p, 1000);
            _exit(p != NULL && tl_pool_check(a) == 0 ? 0 : 3);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid ||
            !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            ok = 0;
        }
    }
    atomic_store(&fork_stop, 1);
    pthread_join(t, NULL);
    CHECK(ok);
    CHECK(tl_pool_destroy(a) == 0);
}

/* ---- destroy ------------------------------------------------------------ */

static void test_destroy(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    void *p, *q;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    p = palloc(a, 10);
    q = palloc(a, 1 * MiB);
    CHECK(tl_pool_destroy(a) == TL_ERR_RUNTIME);
    CHECK(strstr(tl_error_message(), "2 blocks") != NULL);
    /* Refused destroys change nothing. */
    pfree(a, q, 1 * MiB);
    CHECK(tl_pool_destroy(a) == TL_ERR_RUNTIME);
    CHECK(strstr(tl_error_message(), "1 blocks (10 bytes)") != NULL);
    pfree(a, p, 10);
    CHECK_EQ_I64(f.live_segments, 2);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_segments, 0);
    CHECK_EQ_I64(f.live_bytes, 0);
    CHECK_EQ_I64(f.allocs, f.frees);
}

/* ---- poisoning (ASan builds only) --------------------------------------- */

#ifdef TEST_ASAN
static void test_asan_poisoning(void)
{
    fake_raw f;
    tl_pool_config c = small_config();
    tl_allocator *a = fake_pool(&f, &c);
    char *p, *q, *big;
    size_t i;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    /* The slack after a request is poisoned, the request is not. */
    p = palloc(a, 100);
    for (i = 0; i < 100; i++) {
        CHECK(!__asan_address_is_poisoned(p + i));
    }
    CHECK(__asan_address_is_poisoned(p + 100));
    CHECK(__asan_address_is_poisoned(p + 127));
    /* Even an exact multiple of the granule gets a poisoned redzone of at
     * least one element of any dtype. */
    q = palloc(a, 128);
    CHECK(!__asan_address_is_poisoned(q + 127));
    for (i = 128; i < 128 + 16; i++) {
        CHECK(__asan_address_is_poisoned(q + i));
    }
    /* float32 x 3: reading element 3 is caught. */
    {
        char *t = palloc(a, 12);
        CHECK(!__asan_address_is_poisoned(t + 11));
        CHECK(__asan_address_is_poisoned(t + 12));
        pfree(a, t, 12);
    }
    /* Large blocks too, and an aligned one's pad. */
    big = a->allocate(a->ctx, 100 * KiB, 4096);
    CHECK(!__asan_address_is_poisoned(big + 100 * KiB - 1));
    CHECK(__asan_address_is_poisoned(big + 100 * KiB));
    /* A cached free block is poisoned whole. */
    pfree(a, p, 100);
    CHECK(__asan_address_is_poisoned(p));
    CHECK(__asan_address_is_poisoned(p + 50));
    pfree(a, big, 100 * KiB);
    CHECK(__asan_address_is_poisoned(big));
    CHECK(__asan_address_is_poisoned(big + 50 * KiB));
    /* Reused: exactly the new request is addressable. */
    p = palloc(a, 40);
    CHECK(!__asan_address_is_poisoned(p + 39));
    CHECK(__asan_address_is_poisoned(p + 40));
    pfree(a, p, 40);
    /* A quick block (Note [Quick lists]) is poisoned whole too, and a pop
     * unpoisons exactly the new request. */
    CHECK(tl_pool_set_quick_lists(a, true) == 0);
    p = palloc(a, 100);
    pfree(a, p, 100);
    CHECK(__asan_address_is_poisoned(p));
    CHECK(__asan_address_is_poisoned(p + 99));
    {
        char *r = palloc(a, 90);
        CHECK(r == p);
        CHECK(!__asan_address_is_poisoned(r + 89));
        CHECK(__asan_address_is_poisoned(r + 90));
        pfree(a, r, 90);
    }
    pfree(a, q, 128);
    /* fake_free memsets whole segments: it would fault if the pool did
     * not unpoison them before giving them back (quick blocks included). */
    CHECK(tl_pool_destroy(a) == 0);

    /* The process's CPU pool poisons as well. */
    {
        const tl_allocator *cpu = tl_cpu_caching_allocator();
        char *t = cpu->allocate(cpu->ctx, 64, 64);
        CHECK(__asan_address_is_poisoned(t + 64));
        cpu->deallocate(cpu->ctx, t, 64);
        CHECK(__asan_address_is_poisoned(t));
    }
}
#endif

int main(void)
{
    RUN(test_config_validation);
    RUN(test_round_size_bounds);
    RUN(test_split_and_best_fit);
    RUN(test_best_fit_ties_by_address);
    RUN(test_merge_neighbours);
    RUN(test_sole_block_paths);
    RUN(test_random_churn_invariants);
    RUN(test_quick_lists);
    RUN(test_reuse_without_raw_alloc);
    RUN(test_stats_sequence);
    RUN(test_cache_limit);
    RUN(test_cache_limit_zero);
    RUN(test_empty_cache_keeps_live_blocks);
    RUN(test_raw_failure_retry);
    RUN(test_alignment);
    RUN(test_cuda_config);
    RUN(test_threads_stress);
    RUN(test_fork_while_allocating);
    RUN(test_destroy);
#ifdef TEST_ASAN
    RUN(test_asan_poisoning);
#endif
    DONE();
}
