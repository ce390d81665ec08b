/* csrc/alloc/metacache.c — per-thread caches of freed tensor metadata
 * structs. */
#include "metacache.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "fault.h"
#include "sanitizer.h"
#include "tensorlib/base.h"

/* Note [Metadata caches]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * Every fresh tensor takes one malloc'd bundle (Note [Metadata bundles] in
 * csrc/core/tensor.c) and every view one impl struct; glibc's malloc +
 * free of them cost about 140 instructions a tensor, a twentieth of a
 * small `a + b` (issue 22).  So each thread keeps up to META_DEPTH freed
 * structs per kind (a slot: impls, bundles) and hands them out again
 * before asking malloc:
 *
 * - a struct goes to the cache of the thread that frees it, wherever it
 *   was made (memory is just memory; the refcount that decided its death
 *   ordered every earlier use before it);
 * - each slot has one size, so any cached struct fits;
 * - a get counts for the fault hook (tl_fault_hit) exactly as a malloc
 *   does, so the allocation-failure sweeps see the same sequence;
 * - ASan builds poison a cached struct whole and unpoison it when handed
 *   out: a use of a dead impl is still reported (as a use after poison);
 * - a thread's caches are freed when it exits (a pthread key's
 *   destructor); a put after that, from a later destructor, frees at once.
 *   The main thread's stay until the process ends (at most
 *   META_DEPTH * (impl + bundle) bytes, about 10 KiB).
 */

#define META_DEPTH 16

enum { FRESH, REGISTERED, DEAD };

typedef struct meta_cache {
    void *p[TL_META_NSLOTS][META_DEPTH];
    size_t bytes[TL_META_NSLOTS][META_DEPTH];
    int n[TL_META_NSLOTS];
    int state;
} meta_cache;

static _Thread_local meta_cache cache;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static bool key_ok;

static void flush(meta_cache *c)
{
    for (int s = 0; s < TL_META_NSLOTS; s++) {
        while (c->n[s] > 0) {
            c->n[s]--;
            TL_UNPOISON(c->p[s][c->n[s]], c->bytes[s][c->n[s]]);
            free(c->p[s][c->n[s]]);
        }
    }
}

static void thread_exit(void *arg)
{
    meta_cache *c = arg;

    flush(c);
    c->state = DEAD;
}

static void make_key(void)
{
    key_ok = pthread_key_create(&exit_key, thread_exit) == 0;
}

/* Arranges for this thread's caches to be freed at its exit.  Returns
 * false when they cannot be (then nothing is cached). */
static bool register_thread(meta_cache *c)
{
    (void)pthread_once(&key_once, make_key);
    if (!key_ok || pthread_setspecific(exit_key, c) != 0) {
        return false;
    }
    c->state = REGISTERED;
    return true;
}

void *tl_meta_get(int slot, size_t n)
{
    meta_cache *c = &cache;

    if (tl_fault_hit()) {
        return NULL;
    }
    if (c->n[slot] > 0) {
        int k = --c->n[slot];
        TL_UNPOISON(c->p[slot][k], n);
        return c->p[slot][k];
    }
    return malloc(n);
}

/* tl_meta_put's first put on a thread (which registers the thread's exit
 * destructor) and its puts to a full or dead cache.  Out of line, so that
 * the common put computes the thread-local cache's address once (each
 * address is a __tls_get_addr call in a dlopen'd module) and saves no
 * registers. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void put_slow(meta_cache *c, int slot, void *p, size_t n)
{
    if (c->n[slot] < META_DEPTH && c->state == FRESH && register_thread(c)) {
        int k = c->n[slot]++;
        c->p[slot][k] = p;
        c->bytes[slot][k] = n;
        TL_POISON(p, n);
        return;
    }
    free(p);
}

void tl_meta_put(int slot, void *p, size_t n)
{
    meta_cache *c = &cache;

    if (p == NULL) {
        return;
    }
    int k = c->n[slot];
    if (TL_LIKELY(k < META_DEPTH && c->state == REGISTERED)) {
        c->n[slot] = k + 1;
        c->p[slot][k] = p;
        c->bytes[slot][k] = n;
        TL_POISON(p, n);
        return;
    }
    put_slow(c, slot, p, n);
}

void tl_meta_flush(void)
{
    flush(&cache);
}
