/* tests/c/test_pool_streams.c — stream-aware caching pools (Note [Stream
 * aware pools] in csrc/alloc/pool.c) over a fake raw allocator and a fake
 * stream backend: streams are counters of queued and completed work, an
 * event completes when its stream's completed count reaches the queued
 * count it saw when recorded.  Checks: blocks remember their stream;
 * same-stream reuse is immediate; other streams never get a block freed
 * on another stream; record_stream defers the free until the events
 * recorded at free time complete (polled on allocation, waited for by
 * empty_cache, by the retry after a failed raw allocation and by
 * destroy); stats and the pool's invariants stay consistent throughout;
 * failures to record an event; threads. */

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tensorlib/tensorlib.h>
#include <tensorlib/streams.h>

#include "harness.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define NSTREAMS 8

/* ---- fakes -------------------------------------------------------------- */

typedef struct fake_raw {
    atomic_llong allocs, frees, live_bytes;
    atomic_int fail_next;
} fake_raw;

static void *raw_alloc(void *ctx, size_t n)
{
    fake_raw *f = ctx;
    void *p = NULL;

    if (atomic_load(&f->fail_next) > 0) {
        atomic_fetch_sub(&f->fail_next, 1);
        return NULL;
    }
    if (posix_memalign(&p, 4096, n) != 0) {
        return NULL;
    }
    atomic_fetch_add(&f->allocs, 1);
    atomic_fetch_add(&f->live_bytes, (long long)n);
    return p;
}

static void raw_free(void *ctx, void *p, size_t n)
{
    fake_raw *f = ctx;

    free(p);
    atomic_fetch_add(&f->frees, 1);
    atomic_fetch_sub(&f->live_bytes, (long long)n);
}

/* Streams 0..NSTREAMS-1: work is queued and completed in order. */
typedef struct fake_streams {
    atomic_llong queued[NSTREAMS];
    atomic_llong done[NSTREAMS];
    atomic_llong live_events, recorded, waits, queries;
    atomic_llong calls;      /* record_event calls */
    atomic_llong fail_at_record; /* this call fails (1-based; 0: none) */
    int poll_complete;       /* > 0: an event completes on that query */
    tl_stream current;       /* what current_stream returns */
} fake_streams;

typedef struct fake_event {
    tl_stream s;
    long long seq;
    int polls;
} fake_event;

static tl_stream fs_current(void *ctx)
{
    return ((fake_streams *)ctx)->current;
}

static void *fs_record(void *ctx, tl_stream s)
{
    fake_streams *f = ctx;
    fake_event *e;

    if (atomic_fetch_add(&f->calls, 1) + 1 ==
        atomic_load(&f->fail_at_record)) {
        tl_error(TL_ERR_RUNTIME, "fake: cannot record an event");
        return NULL;
    }
    e = malloc(sizeof(*e));
    if (e == NULL) {
        return NULL;
    }
    e->s = s;
    e->seq = atomic_load(&f->queued[s]);
    e->polls = 0;
    atomic_fetch_add(&f->live_events, 1);
    atomic_fetch_add(&f->recorded, 1);
    return e;
}

static int fs_query(void *ctx, void *ev)
{
    fake_streams *f = ctx;
    fake_event *e = ev;

    atomic_fetch_add(&f->queries, 1);
    if (f->poll_complete > 0 && ++e->polls >= f->poll_complete) {
        return 1;
    }
    return atomic_load(&f->done[e->s]) >= e->seq;
}

/* Blocking: the device finishes the stream's work up to the event. */
static int fs_wait(void *ctx, void *ev)
{
    fake_streams *f = ctx;
    fake_event *e = ev;
    long long d = atomic_load(&f->done[e->s]);

    atomic_fetch_add(&f->waits, 1);
    while (d < e->seq &&
           !atomic_compare_exchange_weak(&f->done[e->s], &d, e->seq)) {
    }
    return 0;
}

static void fs_destroy(void *ctx, void *ev)
{
    fake_streams *f = ctx;

    atomic_fetch_sub(&f->live_events, 1);
    free(ev);
}

static void queue_work(fake_streams *f, tl_stream s)
{
    atomic_fetch_add(&f->queued[s], 1);
}

static void finish_work(fake_streams *f, tl_stream s)
{
    atomic_store(&f->done[s], atomic_load(&f->queued[s]));
}

/* granule 512, <= 4 KiB from 64 KiB segments, larger in their own. */
static tl_pool_config test_config(void)
{
    tl_pool_config c;

    c.granule = 512;
    c.small_limit = 4 * KiB;
    c.small_segment = 64 * KiB;
    c.medium_limit = 4 * KiB;
    c.medium_segment = 0;
    c.large_round = 64 * KiB;
    c.cache_limit = SIZE_MAX;
    return c;
}

static tl_allocator *make_pool(fake_raw *r, fake_streams *f, bool wait,
                               const tl_pool_config *cfg)
{
    tl_raw_allocator raw = {"fake_device", r, {TL_DEVICE_CUDA, 0},
                            raw_alloc, raw_free};
    tl_stream_backend be = {f, fs_current, fs_record, fs_query,
                            wait ? fs_wait : NULL, fs_destroy};
    tl_pool_config c = cfg != NULL ? *cfg : test_config();

    memset(r, 0, sizeof(*r));
    memset(f, 0, sizeof(*f));
    return tl_pool_new_streams(&raw, &c, "test_stream_pool", &be);
}

static void *alloc_on(tl_allocator *a, size_t n, tl_stream s)
{
    return tl_pool_allocate_on(a, n, 512, s);
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

/* The schema's identities, and the pool's own invariants. */
static void check_consistent(const tl_allocator *a)
{
    tl_alloc_stats s = stats_of(a);

    CHECK(tl_pool_check(a) == 0);
    CHECK(s.cached_bytes >= 0 && s.cached_bytes <= s.reserved_bytes);
    CHECK_EQ_I64(s.fragmentation_bytes, s.reserved_bytes - s.active_bytes);
    CHECK(s.largest_free_block <= s.cached_bytes);
    CHECK(s.active_bytes <= s.active_bytes_peak);
}

/* ---- tests -------------------------------------------------------------- */

static void test_backend_validation(void)
{
    fake_raw r;
    tl_raw_allocator raw = {"fake", &r, {TL_DEVICE_CUDA, 0}, raw_alloc,
                            raw_free};
    tl_stream_backend be = {NULL, fs_current, NULL, fs_query, NULL,
                            fs_destroy};
    tl_pool_config c = test_config();

    CHECK(tl_pool_new_streams(&raw, &c, "x", NULL) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(tl_pool_new_streams(&raw, &c, "x", &be) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(strstr(tl_error_message(), "record_event") != NULL);
}

static void test_block_remembers_stream(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *p, *q;
    tl_stream s = -1;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    /* The table's allocate uses the backend's current stream. */
    f.current = 3;
    p = a->allocate(a->ctx, 1000, 64);
    CHECK(p != NULL);
    CHECK(tl_pool_block_stream(a, p, &s) == 0);
    CHECK_EQ_I64(s, 3);
    q = alloc_on(a, 1000, 5);
    CHECK(tl_pool_block_stream(a, q, &s) == 0);
    CHECK_EQ_I64(s, 5);
    /* Different streams never share a segment. */
    CHECK_EQ_I64(tl_pool_segment_count(a), 2);
    CHECK(tl_pool_block_stream(a, (char *)p + 1, &s) == TL_ERR_VALUE);
    pfree(a, p, 1000);
    pfree(a, q, 1000);
    CHECK(tl_pool_block_stream(a, p, &s) == TL_ERR_VALUE);
    check_consistent(a);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(r.live_bytes, 0);
}

static void test_same_stream_reuse_is_immediate(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *p, *q;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    p = alloc_on(a, 2 * KiB, 1);
    queue_work(&f, 1); /* a kernel on stream 1 still uses p */
    pfree(a, p, 2 * KiB);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 0);
    q = alloc_on(a, 2 * KiB, 1);
    CHECK(q == p); /* stream order makes this safe */
    CHECK_EQ_I64(r.allocs, 1);
    CHECK_EQ_I64(f.recorded, 0); /* no event needed */
    pfree(a, q, 2 * KiB);
    check_consistent(a);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_other_stream_never_reuses(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *p, *q;
    tl_alloc_stats s;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    p = alloc_on(a, 2 * KiB, 1);
    pfree(a, p, 2 * KiB);
    s = stats_of(a);
    CHECK_EQ_I64(s.cached_bytes, 64 * KiB);
    /* Stream 2 gets its own segment, even though stream 1's is free. */
    q = alloc_on(a, 2 * KiB, 2);
    CHECK(q != NULL && q != p);
    CHECK_EQ_I64(r.allocs, 2);
    CHECK_EQ_I64(tl_pool_segment_count(a), 2);
    s = stats_of(a);
    CHECK_EQ_I64(s.cache_misses, 2);
    CHECK_EQ_I64(s.cache_hits, 0);
    pfree(a, q, 2 * KiB);
    /* empty_cache gives back every stream's free segments. */
    a->empty_cache(a->ctx);
    CHECK_EQ_I64(tl_pool_segment_count(a), 0);
    CHECK_EQ_I64(r.live_bytes, 0);
    check_consistent(a);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_deferred_until_event(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *x, *y, *z;
    tl_alloc_stats s;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    x = alloc_on(a, 1 * KiB, 1);
    CHECK(x != NULL);
    /* Stream 2 reads x; the work is queued after the record. */
    CHECK(tl_pool_record_stream(a, x, 2) == 0);
    queue_work(&f, 2);
    pfree(a, x, 1 * KiB);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 1);
    CHECK_EQ_I64(f.recorded, 1);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 0);    /* freed for the user */
    CHECK_EQ_I64(s.free_count, 1);
    CHECK_EQ_I64(s.cached_bytes, 63 * KiB); /* but not reusable */
    check_consistent(a);

    /* While stream 2's event is pending, x is not handed out, not even
     * to its own stream. */
    y = alloc_on(a, 1 * KiB, 1);
    CHECK(y != NULL && y != x);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 1);
    CHECK(tl_pool_process_events(a) == 0);
    CHECK(f.queries >= 2);
    check_consistent(a);

    /* Stream 2 finishes: the next allocation polls, frees x, and best fit
     * hands it out (the exact size, lowest address). */
    finish_work(&f, 2);
    z = alloc_on(a, 1 * KiB, 1);
    CHECK(z == x);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 0);
    CHECK_EQ_I64(f.live_events, 0);
    CHECK_EQ_I64(f.waits, 0); /* only polled, never blocked */
    CHECK_EQ_I64(r.allocs, 1);
    check_consistent(a);
    pfree(a, y, 1 * KiB);
    pfree(a, z, 1 * KiB);
    s = stats_of(a);
    CHECK_EQ_I64(s.cached_bytes, s.reserved_bytes);
    CHECK_EQ_I64(s.alloc_count, 3);
    CHECK_EQ_I64(s.free_count, 3);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_event_recorded_at_free_time(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *x;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    x = alloc_on(a, 1 * KiB, 1);
    CHECK(tl_pool_record_stream(a, x, 2) == 0);
    finish_work(&f, 2);
    /* Work queued on stream 2 after record_stream but before the free
     * must hold the block too. */
    queue_work(&f, 2);
    queue_work(&f, 2);
    pfree(a, x, 1 * KiB);
    CHECK(tl_pool_process_events(a) == 0);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 1);
    atomic_store(&f.done[2], 1);
    CHECK(tl_pool_process_events(a) == 0);
    atomic_store(&f.done[2], 2);
    CHECK(tl_pool_process_events(a) == 1);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 0);
    CHECK_EQ_I64(f.live_events, 0);
    check_consistent(a);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_several_streams(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *x;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    x = alloc_on(a, 1 * KiB, 1);
    CHECK(tl_pool_record_stream(a, x, 2) == 0);
    CHECK(tl_pool_record_stream(a, x, 3) == 0);
    CHECK(tl_pool_record_stream(a, x, 2) == 0); /* twice: one event */
    CHECK(tl_pool_record_stream(a, x, 1) == 0); /* its own: no-op */
    CHECK(tl_pool_record_stream(a, x, 4) == 0);
    queue_work(&f, 2);
    queue_work(&f, 3);
    queue_work(&f, 4);
    pfree(a, x, 1 * KiB);
    CHECK_EQ_I64(f.recorded, 3);
    finish_work(&f, 3);
    finish_work(&f, 4);
    CHECK(tl_pool_process_events(a) == 0);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 1);
    finish_work(&f, 2);
    CHECK(tl_pool_process_events(a) == 1);
    CHECK_EQ_I64(f.live_events, 0);
    check_consistent(a);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_own_stream_record_frees_at_once(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *x;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    x = alloc_on(a, 1 * KiB, 6);
    CHECK(tl_pool_record_stream(a, x, 6) == 0);
    pfree(a, x, 1 * KiB);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 0);
    CHECK_EQ_I64(f.recorded, 0);
    check_consistent(a);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_empty_cache_waits(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *x;
    tl_alloc_stats s;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    x = alloc_on(a, 100 * KiB, 1); /* its own 128 KiB segment */
    CHECK(tl_pool_record_stream(a, x, 2) == 0);
    queue_work(&f, 2);
    pfree(a, x, 100 * KiB);
    a->empty_cache(a->ctx); /* can't give back what is deferred: waits */
    CHECK_EQ_I64(f.waits, 1);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 0);
    CHECK_EQ_I64(tl_pool_segment_count(a), 0);
    CHECK_EQ_I64(r.live_bytes, 0);
    s = stats_of(a);
    CHECK_EQ_I64(s.reserved_bytes, 0);
    check_consistent(a);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_polling_backend(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, false, NULL);
    void *x;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    f.poll_complete = 3; /* no wait_event: synchronize polls */
    x = alloc_on(a, 1 * KiB, 1);
    CHECK(tl_pool_record_stream(a, x, 2) == 0);
    queue_work(&f, 2);
    pfree(a, x, 1 * KiB);
    CHECK(tl_pool_synchronize_events(a) == 0);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 0);
    CHECK_EQ_I64(f.waits, 0);
    CHECK(f.queries >= 3);
    check_consistent(a);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_oom_retry_processes_deferred(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *x, *y;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    x = alloc_on(a, 100 * KiB, 1);
    CHECK(tl_pool_record_stream(a, x, 2) == 0);
    queue_work(&f, 2);
    pfree(a, x, 100 * KiB);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 1);
    /* The device is "full": the raw allocator fails once, so the pool
     * waits for the deferred frees, gives back its cache and retries. */
    atomic_store(&r.fail_next, 1);
    y = alloc_on(a, 200 * KiB, 1);
    CHECK(y != NULL);
    CHECK_EQ_I64(f.waits, 1);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 0);
    CHECK_EQ_I64(r.frees, 1);            /* x's segment went back */
    CHECK_EQ_I64(tl_pool_segment_count(a), 1);
    check_consistent(a);
    /* Failing twice is an error, with everything consistent. */
    atomic_store(&r.fail_next, 2);
    CHECK(alloc_on(a, 300 * KiB, 1) == NULL);
    CHECK(tl_error_kind() == TL_ERR_MEMORY);
    check_consistent(a);
    pfree(a, y, 200 * KiB);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(r.live_bytes, 0);
}

static void test_record_stream_errors(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    tl_raw_allocator raw = {"fake", &r, {TL_DEVICE_CPU, 0}, raw_alloc,
                            raw_free};
    tl_pool_config c = test_config();
    tl_allocator *plain = tl_pool_new(&raw, &c, "plain");
    void *x;

    if (a == NULL || plain == NULL) {
        CHECK(a != NULL && plain != NULL);
        return;
    }
    x = plain->allocate(plain->ctx, 100, 64);
    CHECK(tl_pool_record_stream(plain, x, 1) == TL_ERR_VALUE);
    CHECK(strstr(tl_error_message(), "does not track streams") != NULL);
    /* A pool without a backend ignores the stream. */
    plain->deallocate(plain->ctx, x, 100);
    x = tl_pool_allocate_on(plain, 100, 64, 7);
    CHECK(x != NULL);
    plain->deallocate(plain->ctx, x, 100);
    CHECK(tl_pool_destroy(plain) == 0);

    CHECK(tl_pool_record_stream(a, &r, 1) == TL_ERR_VALUE);
    CHECK(tl_pool_record_stream(a, NULL, 1) == TL_ERR_VALUE);
    CHECK(tl_pool_record_stream(NULL, &r, 1) == TL_ERR_VALUE);
    x = alloc_on(a, 10, 1);
    pfree(a, x, 10);
    CHECK(tl_pool_record_stream(a, x, 2) == TL_ERR_VALUE); /* freed */
    CHECK(tl_pool_pending_frees(NULL) < 0);
    CHECK(tl_pool_process_events(NULL) < 0);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_record_event_failure_frees_now(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *x;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    x = alloc_on(a, 1 * KiB, 1);
    CHECK(tl_pool_record_stream(a, x, 2) == 0);
    CHECK(tl_pool_record_stream(a, x, 3) == 0);
    queue_work(&f, 2);
    queue_work(&f, 3);
    /* The first record succeeds, the second fails: the pool waits for
     * the first event and frees the block at once (with a warning). */
    atomic_store(&f.fail_at_record, 2);
    pfree(a, x, 1 * KiB);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 0);
    CHECK_EQ_I64(f.waits, 1);
    CHECK_EQ_I64(f.live_events, 0);
    check_consistent(a);
    x = alloc_on(a, 1 * KiB, 1);
    CHECK(x != NULL);
    pfree(a, x, 1 * KiB);
    CHECK(tl_pool_destroy(a) == 0);
}

static void test_destroy_waits_for_deferred(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    void *x, *y;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    x = alloc_on(a, 1 * KiB, 1);
    y = alloc_on(a, 9 * KiB, 1);
    CHECK(tl_pool_record_stream(a, x, 2) == 0);
    queue_work(&f, 2);
    pfree(a, x, 1 * KiB);
    /* A live block: refused. */
    CHECK(tl_pool_destroy(a) == TL_ERR_RUNTIME);
    pfree(a, y, 9 * KiB);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(f.live_events, 0);
    CHECK_EQ_I64(r.live_bytes, 0);
}

static void test_cuda_policy_with_streams(void)
{
    fake_raw r;
    fake_streams f;
    tl_pool_config c = tl_pool_config_cuda();
    tl_allocator *a = make_pool(&r, &f, true, &c);
    void *p[4];
    tl_alloc_stats s;
    int i;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    /* Small, medium and large classes per stream, PyTorch's segments. */
    p[0] = alloc_on(a, 300 * KiB, 1);
    p[1] = alloc_on(a, 300 * KiB, 2);
    p[2] = alloc_on(a, 5 * MiB, 1);
    p[3] = alloc_on(a, 11 * MiB, 2);
    s = stats_of(a);
    CHECK_EQ_I64(s.reserved_bytes, 2 * 2 * MiB + 20 * MiB + 12 * MiB);
    CHECK_EQ_I64(tl_pool_segment_count(a), 4);
    for (i = 0; i < 4; i++) {
        CHECK(p[i] != NULL);
        CHECK(tl_pool_record_stream(a, p[i], 7) == 0);
    }
    queue_work(&f, 7);
    pfree(a, p[0], 300 * KiB);
    pfree(a, p[1], 300 * KiB);
    pfree(a, p[2], 5 * MiB);
    pfree(a, p[3], 11 * MiB);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 4);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 0);
    CHECK_EQ_I64(s.largest_free_block, 15 * MiB); /* the medium tail */
    check_consistent(a);
    finish_work(&f, 7);
    CHECK(tl_pool_process_events(a) == 4);
    s = stats_of(a);
    CHECK_EQ_I64(s.cached_bytes, s.reserved_bytes);
    CHECK_EQ_I64(s.largest_free_block, 20 * MiB);
    check_consistent(a);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(r.live_bytes, 0);
}

/* ---- threads ------------------------------------------------------------ */

#define THREADS 4
#define OPS 20000
#define SLOTS 32

typedef struct worker_arg {
    tl_allocator *a;
    fake_streams *f;
    unsigned seed;
    int errors;
} worker_arg;

static atomic_int stop_device;

/* The "device": completes queued work on every stream, over and over. */
static void *device_thread(void *arg)
{
    fake_streams *f = arg;
    int s;

    while (!atomic_load(&stop_device)) {
        for (s = 0; s < NSTREAMS; s++) {
            finish_work(f, s);
        }
        sched_yield();
    }
    return NULL;
}

static void *worker(void *arg)
{
    worker_arg *w = arg;
    unsigned char *ptr[SLOTS] = {0};
    size_t len[SLOTS] = {0};
    unsigned char tag[SLOTS] = {0};
    unsigned x = w->seed;
    int op, i;

    for (op = 0; op < OPS; op++) {
        x = x * 1103515245u + 12345u;
        i = (int)((x >> 10) % SLOTS);
        if (ptr[i] != NULL) {
            size_t k;
            for (k = 0; k < len[i]; k++) {
                if (ptr[i][k] != tag[i]) {
                    w->errors++;
                    break;
                }
            }
            if ((x >> 4) % 3 == 0) {
                tl_stream s = (tl_stream)((x >> 7) % NSTREAMS);
                if (tl_pool_record_stream(w->a, ptr[i], s) != 0) {
                    w->errors++;
                }
                queue_work(w->f, s);
            }
            w->a->deallocate(w->a->ctx, ptr[i], len[i]);
            ptr[i] = NULL;
        }
        else {
            tl_stream s = (tl_stream)((x >> 13) % 3);
            len[i] = (x >> 4) % ((x >> 20) % 4 == 0 ? 40000 : 3000);
            ptr[i] = tl_pool_allocate_on(w->a, len[i], 256, s);
            if (ptr[i] == NULL || (uintptr_t)ptr[i] % 256 != 0) {
                w->errors++;
                ptr[i] = NULL;
                continue;
            }
            tag[i] = (unsigned char)(w->seed + (unsigned)op);
            memset(ptr[i], tag[i], len[i]);
        }
    }
    for (i = 0; i < SLOTS; i++) {
        if (ptr[i] != NULL) {
            w->a->deallocate(w->a->ctx, ptr[i], len[i]);
        }
    }
    return NULL;
}

static void test_threads(void)
{
    fake_raw r;
    fake_streams f;
    tl_allocator *a = make_pool(&r, &f, true, NULL);
    pthread_t t[THREADS], dev;
    worker_arg w[THREADS];
    tl_alloc_stats s;
    int i;

    if (a == NULL) {
        CHECK(a != NULL);
        return;
    }
    atomic_store(&stop_device, 0);
    pthread_create(&dev, NULL, device_thread, &f);
    for (i = 0; i < THREADS; i++) {
        w[i].a = a;
        w[i].f = &f;
        w[i].seed = 31u + 7919u * (unsigned)i;
        w[i].errors = 0;
        pthread_create(&t[i], NULL, worker, &w[i]);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ_I64(w[i].errors, 0);
    }
    atomic_store(&stop_device, 1);
    pthread_join(dev, NULL);
    check_consistent(a);
    CHECK(tl_pool_synchronize_events(a) == 0);
    CHECK_EQ_I64(tl_pool_pending_frees(a), 0);
    s = stats_of(a);
    CHECK_EQ_I64(s.active_bytes, 0);
    CHECK_EQ_I64(s.cached_bytes, s.reserved_bytes);
    CHECK_EQ_I64(s.alloc_count, s.free_count);
    CHECK(f.recorded > 0);
    CHECK_EQ_I64(f.live_events, 0);
    check_consistent(a);
    CHECK(tl_pool_destroy(a) == 0);
    CHECK_EQ_I64(r.live_bytes, 0);
}

int main(void)
{
    RUN(test_backend_validation);
    RUN(test_block_remembers_stream);
    RUN(test_same_stream_reuse_is_immediate);
    RUN(test_other_stream_never_reuses);
    RUN(test_deferred_until_event);
    RUN(test_event_recorded_at_free_time);
    RUN(test_several_streams);
    RUN(test_own_stream_record_frees_at_once);
    RUN(test_empty_cache_waits);
    RUN(test_polling_backend);
    RUN(test_oom_retry_processes_deferred);
    RUN(test_record_stream_errors);
    RUN(test_record_event_failure_frees_now);
    RUN(test_destroy_waits_for_deferred);
    RUN(test_cuda_policy_with_streams);
    RUN(test_threads);
    DONE();
}
