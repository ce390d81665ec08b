/* csrc/alloc/stress.c — a multi-threaded stress run of the allocation
 * layer, for the C tests and the Python tests (tensorlib._C, with the GIL
 * released) under the sanitizers: many threads allocate and free through
 * the registry on every CPU memory kind, hand blocks to each other, reset
 * their own workspace arenas, read stats and empty caches, and check that
 * no block's bytes were disturbed while it was live.  It owns only what it
 * allocates during a run and frees all of it before returning. */

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tensorlib/arena.h"

#define MAX_LIVE 64
#define EXCHANGE 16

typedef struct shared {
    const tl_alloc_stress_config *cfg;
    _Atomic(tl_block *) exchange[EXCHANGE];
    atomic_llong allocs, frees, resets, corruptions, failures, stale;
} shared;

typedef struct worker {
    shared *sh;
    int id;
} worker;

/* The byte every block is filled with: a function of where it is and how
 * large, so any thread can check a block it did not fill. */
static unsigned char tag_of(const tl_block *b)
{
    uintptr_t p = (uintptr_t)tl_block_ptr(b);

    return (unsigned char)((p >> 6) ^ (p >> 14) ^ tl_block_nbytes(b) ^ 0x5a);
}

/* Checks b's bytes (when it is still live: a reset workspace's block may
 * hold newer data) and drops the reference. */
static void check_and_drop(shared *sh, tl_block *b)
{
    if (b == NULL) {
        return;
    }
    /* Pin, then check: a reset that comes later keeps the memory. */
    tl_block_pin(b);
    if (tl_block_check_live(b) == TL_OK) {
        const unsigned char *p = tl_block_ptr(b);
        unsigned char tag = tag_of(b);
        size_t n = tl_block_nbytes(b);
        for (size_t i = 0; i < n; i++) {
            if (p[i] != tag) {
                atomic_fetch_add(&sh->corruptions, 1);
                break;
            }
        }
    }
    else {
        tl_error_clear();
        atomic_fetch_add(&sh->stale, 1);
    }
    tl_block_unpin(b);
    tl_block_decref(b);
    atomic_fetch_add(&sh->frees, 1);
}

static void *work(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    const tl_alloc_stress_config *cfg = sh->cfg;
    static const tl_memkind kinds[] = {
        TL_MEMKIND_DEFAULT,      TL_MEMKIND_PERSISTENT,
        TL_MEMKIND_KVCACHE,      TL_MEMKIND_HOST_PINNED,
        TL_MEMKIND_HOST_PAGEABLE, TL_MEMKIND_WORKSPACE,
    };
    const int nkinds = cfg->use_workspace ? 6 : 5;
    tl_block *live[MAX_LIVE] = {NULL};
    int nlive = cfg->live < 1 ? 1 : cfg->live > MAX_LIVE ? MAX_LIVE
                                                          : cfg->live;
    unsigned seed = cfg->seed * 7919u + (unsigned)w->id * 104729u + 1u;
    tl_arena *arena = NULL;

    if (cfg->use_workspace) {
        arena = tl_arena_new(NULL, 1 << 16, 0);
        if (arena == NULL || tl_arena_push(arena) < 0) {
            atomic_fetch_add(&sh->failures, 1);
            tl_arena_decref(arena);
            return NULL;
        }
    }
    for (int i = 0; i < cfg->iters; i++) {
        int slot = rand_r(&seed) % nlive;
        size_t n = cfg->max_bytes ? (size_t)rand_r(&seed) % cfg->max_bytes
                                  : 0;
        tl_memkind k = kinds[rand_r(&seed) % nkinds];
        tl_block *b;

        check_and_drop(sh, live[slot]);
        live[slot] = NULL;
        b = tl_block_alloc(tl_device_cpu(), k, n);
        if (b == NULL) {
            tl_error_clear();
            atomic_fetch_add(&sh->failures, 1);
            continue;
        }
        atomic_fetch_add(&sh->allocs, 1);
        memset(tl_block_ptr(b), tag_of(b), n);
        if (rand_r(&seed) % 8 == 0) {
            /* Hand it to whichever thread comes next; free what was
             * there (allocated, maybe, by another thread). */
            b = atomic_exchange(&sh->exchange[rand_r(&seed) % EXCHANGE], b);
            check_and_drop(sh, b);
        }
        else {
            live[slot] = b;
        }
        if (arena != NULL && i % 97 == 96) {
            tl_arena_reset(arena);
            atomic_fetch_add(&sh->resets, 1);
        }
        if (w->id == 0 && i % 61 == 0) {
            tl_alloc_stats s;
            (void)tl_registry_stats(tl_device_cpu(), -1, &s);
            if (i % 183 == 0) {
                tl_registry_empty_cache(tl_device_cpu());
            }
        }
    }
    for (int j = 0; j < nlive; j++) {
        check_and_drop(sh, live[j]);
    }
    if (arena != NULL) {
        (void)tl_arena_pop(arena);
        tl_arena_decref(arena);
    }
    return NULL;
}

int tl_alloc_stress(const tl_alloc_stress_config *cfg,
                    tl_alloc_stress_result *out)
{
    pthread_t tids[TL_ALLOC_STRESS_MAX_THREADS];
    worker ws[TL_ALLOC_STRESS_MAX_THREADS];
    shared sh;
    int started = 0;

    if (cfg->threads < 1 || cfg->threads > TL_ALLOC_STRESS_MAX_THREADS ||
        cfg->iters < 0 || cfg->max_bytes > ((size_t)1 << 30)) {
        return tl_error(TL_ERR_VALUE,
                        "stress: threads must be 1 to %d (got %d), iters "
                        ">= 0 (got %d), max_bytes <= 1 GiB (got %zu)",
                        TL_ALLOC_STRESS_MAX_THREADS, cfg->threads,
                        cfg->iters, cfg->max_bytes);
    }
    memset(&sh, 0, sizeof(sh));
    sh.cfg = cfg;
    for (int i = 0; i < EXCHANGE; i++) {
        atomic_init(&sh.exchange[i], NULL);
    }
    for (int t = 0; t < cfg->threads; t++) {
        ws[t].sh = &sh;
        ws[t].id = t;
        if (pthread_create(&tids[t], NULL, work, &ws[t]) != 0) {
            atomic_fetch_add(&sh.failures, 1);
            break;
        }
        started++;
    }
    for (int t = 0; t < started; t++) {
        pthread_join(tids[t], NULL);
    }
    for (int i = 0; i < EXCHANGE; i++) {
        check_and_drop(&sh, atomic_exchange(&sh.exchange[i], NULL));
    }
    out->allocs = atomic_load(&sh.allocs);
    out->frees = atomic_load(&sh.frees);
    out->resets = atomic_load(&sh.resets);
    out->corruptions = atomic_load(&sh.corruptions);
    out->failures = atomic_load(&sh.failures);
    out->stale = atomic_load(&sh.stale);
    if (out->corruptions != 0) {
        return tl_error(TL_ERR_RUNTIME,
                        "stress: %lld blocks were disturbed while live",
                        (long long)out->corruptions);
    }
    return TL_OK;
}
