/* tests/c/test_memory_stress.c — many threads allocating and freeing at
 * once: tl_alloc_stress (every CPU memory kind through the registry,
 * blocks handed between threads, arena resets, stats and empty_cache
 * racing with allocations), then threads of our own creating tensors in
 * their own workspaces and in the caching pool (and views of them), and
 * the counters adding up afterwards; the threads' exits free their
 * metadata caches (Note [Metadata caches]: LSan reports what they keep).  Run under ASan/UBSan/LSan by `make SAN=1 ctest`. */

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <tensorlib/ops.h>
#include <tensorlib/tensorlib.h>

#include "harness.h"

#define NTHREADS 8

static void test_alloc_stress(void)
{
    tl_alloc_stress_config cfg = {NTHREADS, 3000, 1 << 15, 16, 7, true};
    tl_alloc_stress_result r;
    tl_alloc_stats before, after;

    tl_registry_empty_cache(tl_device_cpu());
    CHECK(tl_registry_stats(tl_device_cpu(), -1, &before) == 0);
    CHECK(tl_alloc_stress(&cfg, &r) == TL_OK);
    CHECK_EQ_I64(r.corruptions, 0);
    CHECK_EQ_I64(r.failures, 0);
    CHECK_EQ_I64(r.allocs, r.frees);
    CHECK(r.allocs == (int64_t)NTHREADS * 3000);
    CHECK(r.resets > 0 && r.stale > 0);
    CHECK(tl_registry_stats(tl_device_cpu(), -1, &after) == 0);
    /* Everything went back: live counts and active bytes as before. */
    CHECK_EQ_I64(after.active_bytes, before.active_bytes);
    CHECK_EQ_I64(after.alloc_count - after.free_count,
                 before.alloc_count - before.free_count);
    tl_registry_empty_cache(tl_device_cpu());
    CHECK(tl_registry_stats(tl_device_cpu(), -1, &after) == 0);
    CHECK_EQ_I64(after.cached_bytes, 0);

    /* A bad configuration is an error, not a crash. */
    cfg.threads = 0;
    CHECK(tl_alloc_stress(&cfg, &r) == TL_ERR_VALUE);
}

static atomic_int bad;

/* Each thread: tensors in its own workspace (checked, reset, dead), and
 * tensors of the caching pool, freed in another order. */
static void *tensor_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    tl_arena *a = tl_arena_new(NULL, 1 << 14, 0);
    tl_tensor_impl *keep[8] = {NULL};

    if (a == NULL || tl_arena_push(a) < 0) {
        atomic_fetch_add(&bad, 1);
        return NULL;
    }
    for (int i = 0; i < 400; i++) {
        int64_t n[1] = {1 + (i * 37 + id) % 700};
        tl_scalar v = tl_scalar_float((double)(id * 1000 + i));
        tl_tensor_impl *w = tl_tensor_empty(1, n, TL_DTYPE_FLOAT64,
                                            tl_device_cpu(),
                                            TL_MEMKIND_WORKSPACE);
        tl_tensor_impl *d = tl_tensor_empty(1, n, TL_DTYPE_FLOAT64,
                                            tl_device_cpu(),
                                            i % 3 ? TL_MEMKIND_DEFAULT
                                                  : TL_MEMKIND_PERSISTENT);
        if (w == NULL || d == NULL || tl_op_fill_(w, &v) < 0 ||
            tl_op_copy_(d, w) < 0 ||
            ((double *)tl_tensor_data(d))[n[0] - 1] != v.v.f) {
            atomic_fetch_add(&bad, 1);
        }
        /* A view: its impl comes from, and goes back to, this thread's
         * metadata cache, which the thread's exit must free (LSan). */
        const int perm[1] = {0};
        tl_tensor_impl *view = d ? tl_view_permute(d, perm) : NULL;
        if (view == NULL || tl_tensor_data(view) != tl_tensor_data(d)) {
            atomic_fetch_add(&bad, 1);
        }
        tl_tensor_decref(view);
        tl_tensor_decref(keep[i % 8]);
        keep[i % 8] = d;
        if (i % 10 == 9) {
            tl_arena_reset(a);
            if (tl_tensor_check_live(w) != TL_ERR_RUNTIME) {
                atomic_fetch_add(&bad, 1);
            }
            tl_error_clear();
        }
        tl_tensor_decref(w);
    }
    for (int j = 0; j < 8; j++) {
        tl_tensor_decref(keep[j]);
    }
    tl_arena_pop(a);
    tl_arena_decref(a);
    return NULL;
}

static void test_threads_with_workspaces(void)
{
    pthread_t th[NTHREADS];
    tl_alloc_stats before, after;

    CHECK(tl_registry_stats(tl_device_cpu(), -1, &before) == 0);
    for (int t = 0; t < NTHREADS; t++) {
        pthread_create(&th[t], NULL, tensor_worker, (void *)(intptr_t)t);
    }
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
    }
    CHECK_EQ_I64(atomic_load(&bad), 0);
    CHECK(tl_registry_stats(tl_device_cpu(), -1, &after) == 0);
    CHECK_EQ_I64(after.active_bytes, before.active_bytes);
    CHECK_EQ_I64(after.alloc_count - after.free_count,
                 before.alloc_count - before.free_count);
    CHECK(after.reserved_bytes >= after.cached_bytes);
    CHECK_EQ_I64(after.fragmentation_bytes,
                 after.reserved_bytes - after.active_bytes);
}

int main(void)
{
    RUN(test_alloc_stress);
    RUN(test_threads_with_workspaces);
    DONE();
}
