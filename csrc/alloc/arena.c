/* csrc/alloc/arena.c — workspace arenas: chunks of memory from private
 * pages or a backing allocator, bump-pointer carving with chaining,
 * generations and reset, holds that keep exported or pinned chunks alive,
 * the per-thread stack of active arenas, and the "workspace_arena"
 * allocator that memory kind Workspace is routed to.  It owns the arena,
 * core and chunk structs and the chunk memory; it knows bytes, never
 * tensors, and it never gives back memory that a hold still covers. */

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tensorlib/arena.h"
#include "fault.h"
#include "block.h"
#include "alloc_internal.h"
#include "sanitizer.h"

/* Note [Arena generations]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * Three objects: the arena (what its creator holds), its core (the chain
 * of chunks, the live generation and the counters) and the chunks.  The
 * core outlives the arena for as long as a chunk lives; a chunk's struct
 * lives while the arena chains it or any block carved from it lives (each
 * carved block holds a chunk reference), so a stale block can always ask
 * its core which generation is live.  Chunk *memory* has a shorter life:
 *
 *   - every block carved in generation g is tagged g; reset makes g + 1
 *     live, so every older block is dead at once, whatever its refcount:
 *     tl_block_check_live (and so tl_tensor_check_live, which the Python
 *     layer and the iterator call before touching data) refuses it;
 *   - a chunk counts holds: exports of storages over its blocks
 *     (tl_storage_export_begin/_end) and pins by running kernels
 *     (tl_block_pin/_unpin, taken before the GIL is released);
 *   - reset rewinds every chunk without holds (the same memory is reused
 *     by the next generation at once) and lets go of every held one: it
 *     leaves the chain and its memory goes back when the last hold ends,
 *     so an exported NumPy array or a running kernel never sees its bytes
 *     recycled.  The arena continues in the chunks it kept, or in a fresh
 *     chunk taken at the next allocation; reset itself never allocates and
 *     never fails.  Its cost grows with the chunks, not with the blocks.
 *
 * Closing the arena (its last reference) is a reset after which nothing
 * can be carved and no chunk is kept.  Counters: active bytes are the
 * requested bytes of this generation's carvings not yet released (a
 * block's release after a reset changes nothing: the reset released it);
 * reserved bytes are the chunks' memory, held ones included.  A reset
 * racing with a kernel starting on a block of the same arena in another
 * thread is the caller's race (Python's GIL serialises both).
 *
 * Note [Pin, then check]
 * A thread that wants to use a block while another may reset its arena
 * pins it first (tl_block_pin: a hold) and then checks that it is live.
 * Reset bumps the generation and then reads the holds; the pin adds a
 * hold and then reads the generation; all four are seq_cst, so either the
 * check sees the new generation (the user backs off) or the reset sees
 * the hold (the chunk is not reused).  The iterator checks at build time
 * and pins before it releases the GIL, which no reset from Python can
 * come between. */


typedef struct core core;

struct tl_arena_chunk {
    atomic_llong refcnt; /* the chain's, plus one per carved block */
    core *core;          /* strong */
    atomic_llong holds;  /* exports and pins of its blocks */
    /* Below: under core->mu. */
    char *base;          /* page-aligned; NULL once the memory went back */
    size_t cap;          /* bytes at base */
    size_t used;         /* bytes bumped in this generation */
    bool chained;        /* in core's chain */
    struct tl_arena_chunk *next;
};
typedef struct tl_arena_chunk chunk;

struct core {
    atomic_llong refcnt;           /* the arena's, plus one per chunk */
    atomic_ullong generation;      /* the live one, >= 1 */
    atomic_bool closed;
    const tl_allocator *backing;   /* NULL: private pages */
    tl_device device;
    size_t chunk_bytes;            /* size of a fresh chunk */
    unsigned flags;                /* TL_ARENA_* */
    pthread_mutex_t mu;
    /* Below: under mu. */
    chunk *head;                   /* the chain, in carving order */
    chunk *cur;                    /* where the next carving starts */
    int64_t active, peak, reserved;
    int64_t allocs, frees, hits, misses;
    int64_t live;                  /* this generation's unreleased carvings */
    /* Every core, for the workspace allocator's stats: under g_mu. */
    core *gprev, *gnext;
};

struct tl_arena {
    atomic_llong refcnt;
    core *core; /* strong */
};

/* ---- process-wide: every core, counters of dead ones, fork -------------- */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static core *g_cores;
static int64_t g_dead_allocs, g_dead_frees, g_dead_hits, g_dead_misses;
static atomic_llong g_active;
static atomic_llong g_peak;
static pthread_once_t g_fork_once = PTHREAD_ONCE_INIT;

/* Holds every arena lock across fork(), so the child can use arenas. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&g_mu);
    for (core *c = g_cores; c != NULL; c = c->gnext) {
        pthread_mutex_lock(&c->mu);
    }
}

static void fork_release(void)
{
    for (core *c = g_cores; c != NULL; c = c->gnext) {
        pthread_mutex_unlock(&c->mu);
    }
    pthread_mutex_unlock(&g_mu);
}

static void fork_register(void)
{
    (void)pthread_atfork(fork_prepare, fork_release, fork_release);
}

static bool is_host(const core *c)
{
    return c->device.type == TL_DEVICE_CPU;
}

/* Adds delta to the active bytes of c and of all arenas.  Under c->mu. */
static void add_active(core *c, int64_t delta)
{
    long long g, peak;

    c->active += delta;
    if (c->active > c->peak) {
        c->peak = c->active;
    }
    g = atomic_fetch_add_explicit(&g_active, delta, memory_order_relaxed) +
        delta;
    peak = atomic_load_explicit(&g_peak, memory_order_relaxed);
    while (g > peak && !atomic_compare_exchange_weak_explicit(
                           &g_peak, &peak, g, memory_order_relaxed,
                           memory_order_relaxed)) {
    }
}

/* ---- chunk memory ------------------------------------------------------- */

/* Returns: owned memory of n bytes (n a multiple of the page size),
 * 4096-aligned, poisoned for ASan, or NULL after recording TL_ERR_MEMORY. */
static char *mem_get(core *c, size_t n)
{
    char *p;

    if (c->backing != NULL) {
        p = c->backing->allocate(c->backing->ctx, n, TL_MAX_ALIGNMENT);
        if (p == NULL) {
            return NULL; /* the backing allocator recorded the error */
        }
    }
    else {
        p = mmap(NULL, n, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            tl_error(TL_ERR_MEMORY,
                     "failed to reserve a workspace chunk of %zu bytes", n);
            return NULL;
        }
    }
    if (is_host(c)) {
        TL_POISON(p, n);
    }
    return p;
}

static void mem_put(core *c, char *p, size_t n)
{
    if (is_host(c)) {
        TL_UNPOISON(p, n);
    }
    if (c->backing != NULL) {
        c->backing->deallocate(c->backing->ctx, p, n);
    }
    else {
        munmap(p, n);
    }
}

/* Gives a chunk's memory back.  Under c->mu. */
static void chunk_release_memory(core *c, chunk *k)
{
    if (k->base != NULL) {
        mem_put(c, k->base, k->cap);
        c->reserved -= (int64_t)k->cap;
        k->base = NULL;
        k->used = 0;
    }
}

static void core_decref(core *c);

/* A chained chunk of n bytes (a multiple of the page size) with refcount 1
 * (the chain's), appended to c's chain.  Under c->mu.
 * Returns: borrowed (the chain owns it), or NULL after recording an error. */
static chunk *chunk_new(core *c, size_t n)
{
    chunk *k = tl_fault_malloc(sizeof(*k));
    chunk **tail;

    if (k == NULL) {
        tl_error(TL_ERR_MEMORY, "failed to allocate a workspace chunk "
                 "record");
        return NULL;
    }
    k->base = mem_get(c, n);
    if (k->base == NULL) {
        free(k);
        return NULL;
    }
    atomic_init(&k->refcnt, 1);
    atomic_init(&k->holds, 0);
    atomic_fetch_add_explicit(&c->refcnt, 1, memory_order_relaxed);
    k->core = c;
    k->cap = n;
    k->used = 0;
    k->chained = true;
    k->next = NULL;
    for (tail = &c->head; *tail != NULL; tail = &(*tail)->next) {
    }
    *tail = k;
    c->reserved += (int64_t)n;
    return k;
}

/* Drops a chunk reference; the last one frees the struct (and any memory
 * still there).  Never called under the core's lock. */
static void chunk_decref(chunk *k)
{
    core *c = k->core;

    if (atomic_fetch_sub_explicit(&k->refcnt, 1, memory_order_acq_rel) !=
        1) {
        return;
    }
    pthread_mutex_lock(&c->mu);
    chunk_release_memory(c, k); /* normally gone already */
    pthread_mutex_unlock(&c->mu);
    free(k);
    core_decref(c);
}

static void chunk_hold(chunk *k)
{
    /* seq_cst, as the generation bump and the holds read in core_reset:
     * a pin followed by a check of the generation either sees the reset
     * or makes the reset see the hold (Note [Pin, then check]). */
    atomic_fetch_add(&k->holds, 1);
}

static void chunk_unhold(chunk *k)
{
    core *c = k->core;

    if (atomic_fetch_sub(&k->holds, 1) != 1) {
        return;
    }
    /* The last hold of a chunk the arena let go: its memory goes back. */
    pthread_mutex_lock(&c->mu);
    if (!k->chained &&
        atomic_load_explicit(&k->holds, memory_order_acquire) == 0) {
        chunk_release_memory(c, k);
    }
    pthread_mutex_unlock(&c->mu);
}

/* ---- cores -------------------------------------------------------------- */

static void core_decref(core *c)
{
    if (atomic_fetch_sub_explicit(&c->refcnt, 1, memory_order_acq_rel) !=
        1) {
        return;
    }
    pthread_mutex_lock(&g_mu);
    if (c->gprev != NULL) {
        c->gprev->gnext = c->gnext;
    }
    else {
        g_cores = c->gnext;
    }
    if (c->gnext != NULL) {
        c->gnext->gprev = c->gprev;
    }
    g_dead_allocs += c->allocs;
    g_dead_frees += c->frees;
    g_dead_hits += c->hits;
    g_dead_misses += c->misses;
    pthread_mutex_unlock(&g_mu);
    TL_ASSERT(c->head == NULL && c->reserved == 0 && c->active == 0);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* Ends the live generation: see Note [Arena generations].  close: keep no
 * chunk and refuse later carvings. */
static void core_reset(core *c, bool close)
{
    chunk *keep = NULL, **keep_tail = &keep, *drop = NULL, *k, *next;

    pthread_mutex_lock(&c->mu);
    atomic_fetch_add(&c->generation, 1); /* seq_cst: Note [Pin, then check] */
    if (close) {
        atomic_store(&c->closed, true);
    }
    c->frees += c->live;
    c->live = 0;
    add_active(c, -c->active);
    for (k = c->head; k != NULL; k = next) {
        next = k->next;
        if (!close && atomic_load(&k->holds) == 0) {
            if (is_host(c)) {
                TL_POISON(k->base, k->used);
            }
            k->used = 0;
            k->next = NULL;
            *keep_tail = k;
            keep_tail = &k->next;
        }
        else {
            k->chained = false;
            if (atomic_load_explicit(&k->holds, memory_order_acquire) ==
                0) {
                chunk_release_memory(c, k);
            }
            k->next = drop;
            drop = k;
        }
    }
    c->head = keep;
    c->cur = keep;
    pthread_mutex_unlock(&c->mu);
    for (k = drop; k != NULL; k = next) {
        next = k->next;
        chunk_decref(k);
    }
}

/* Rounds n up to whole pages.  Returns false on overflow. */
static bool round_pages(size_t n, size_t *out)
{
    size_t page = tl_page_bytes();

    if (n > (size_t)PTRDIFF_MAX - page) {
        return false;
    }
    *out = (n + page - 1) / page * page;
    return true;
}

/* Bump-allocates nbytes at alignment from c.  On success *out is the
 * pointer, *gen the generation and, when kout is not NULL, *kout a new
 * reference to the chunk.  Returns 0 or an error. */
static int carve(core *c, size_t nbytes, size_t alignment, char **out,
                 chunk **kout, uint64_t *gen)
{
    size_t need = nbytes != 0 ? nbytes : 1; /* distinct pointers */
    size_t off = 0, fresh;
    chunk *k;
    int rc = TL_OK;

    if ((rc = tl_check_alignment(alignment)) < 0) {
        return rc;
    }
    if (nbytes > (size_t)PTRDIFF_MAX - TL_MAX_ALIGNMENT) {
        return tl_error(TL_ERR_MEMORY,
                        "cannot carve %zu bytes from a workspace arena: "
                        "more than any system can give", nbytes);
    }
    pthread_mutex_lock(&c->mu);
    if (atomic_load(&c->closed)) {
        rc = tl_error(TL_ERR_RUNTIME,
                      "cannot carve %zu bytes from a closed workspace "
                      "arena", nbytes);
        goto done;
    }
    for (k = c->cur != NULL ? c->cur : c->head; k != NULL; k = k->next) {
        uintptr_t base = (uintptr_t)k->base;
        uintptr_t start = (base + k->used + alignment - 1) &
                          ~(uintptr_t)(alignment - 1);
        off = (size_t)(start - base);
        if (off <= k->cap && k->cap - off >= need) {
            break;
        }
    }
    if (k != NULL) {
        c->hits++;
    }
    else {
        size_t free_now = 0;
        if (c->cur != NULL) {
            free_now = c->cur->cap - c->cur->used;
        }
        if (c->flags & TL_ARENA_FIXED) {
            rc = tl_error(TL_ERR_MEMORY,
                          "workspace arena exhausted: %zu bytes (alignment "
                          "%zu) asked, %zu of its %zu bytes free; the arena "
                          "is fixed (growable=False): make it larger or "
                          "reset it",
                          nbytes, alignment, free_now, c->chunk_bytes);
            goto done;
        }
        if (!round_pages(need + alignment - 1 > c->chunk_bytes
                             ? need + alignment - 1
                             : c->chunk_bytes,
                         &fresh)) {
            rc = tl_error(TL_ERR_MEMORY, "cannot carve %zu bytes from a "
                          "workspace arena", nbytes);
            goto done;
        }
        k = chunk_new(c, fresh);
        if (k == NULL) {
            rc = tl_error_kind();
            goto done;
        }
        off = 0; /* a fresh chunk is 4096-aligned */
        c->misses++;
    }
    c->cur = k;
    k->used = off + need;
    c->allocs++;
    c->live++;
    add_active(c, (int64_t)nbytes);
    if (is_host(c)) {
        TL_UNPOISON(k->base + off, nbytes);
    }
    *out = k->base + off;
    *gen = atomic_load_explicit(&c->generation, memory_order_relaxed);
    if (kout != NULL) {
        atomic_fetch_add_explicit(&k->refcnt, 1, memory_order_relaxed);
        *kout = k;
    }
done:
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/* ---- hooks of carved blocks (Note [Block owners] in block.c) ---------- */

/* A carving of nbytes of generation gen from chunk k goes: counted as a
 * free (freed) or as never made (the block struct could not be had);
 * drops the carving's chunk reference. */
static void carving_gone(chunk *k, uint64_t gen, size_t nbytes, bool freed)
{
    core *c = k->core;

    pthread_mutex_lock(&c->mu);
    if (gen == atomic_load_explicit(&c->generation, memory_order_acquire)) {
        /* Released before any reset: its bytes leave the active count
         * (the bump space itself comes back at the next reset). */
        add_active(c, -(int64_t)nbytes);
        if (freed) {
            c->frees++;
        } else {
            c->allocs--;
        }
        c->live--;
    }
    pthread_mutex_unlock(&c->mu);
    chunk_decref(k);
}

static void carved_release(tl_block *b)
{
    carving_gone(b->owner_ctx, b->generation, b->nbytes, true);
}

static void carved_hold(tl_block *b) { chunk_hold(b->owner_ctx); }

static void carved_unhold(tl_block *b) { chunk_unhold(b->owner_ctx); }

static int carved_check_live(const tl_block *b, const char *what)
{
    const core *c = ((const chunk *)b->owner_ctx)->core;
    uint64_t now = atomic_load(&((core *)c)->generation); /* seq_cst */

    if (TL_LIKELY(b->generation == now)) {
        return TL_OK;
    }
    return tl_error(TL_ERR_RUNTIME,
                    "this %s's workspace was reset (generation %" PRIu64
                    ", now %" PRIu64 "%s): its %zu bytes may belong to newer "
                    "tensors; copy what must outlive a workspace out of it "
                    "(t.clone() gives Default memory) before the reset",
                    what, b->generation, now,
                    atomic_load(&((core *)c)->closed) ? "; it is closed"
                                                      : "",
                    b->nbytes);
}

static const tl_block_hooks carved_hooks = {
    .release = carved_release,
    .hold = carved_hold,
    .unhold = carved_unhold,
    .check_live = carved_check_live,
};

/* ---- arenas ------------------------------------------------------------- */

tl_arena *tl_arena_new(const tl_allocator *backing, size_t nbytes,
                       unsigned flags)
{
    tl_arena *a = NULL;
    core *c = NULL;
    size_t first = 0;

    if (flags & ~(unsigned)TL_ARENA_FIXED) {
        tl_error(TL_ERR_VALUE, "unknown workspace arena flags 0x%x", flags);
        return NULL;
    }
    if (backing != NULL &&
        (backing->abi_version != TL_ALLOCATOR_ABI_VERSION ||
         backing->allocate == NULL || backing->deallocate == NULL)) {
        tl_error(TL_ERR_VALUE, "the backing allocator of a workspace arena "
                 "has ABI version %u (expected %d) or lacks allocate / "
                 "deallocate", (unsigned)backing->abi_version,
                 TL_ALLOCATOR_ABI_VERSION);
        return NULL;
    }
    if (backing != NULL && backing == tl_workspace_allocator()) {
        tl_error(TL_ERR_VALUE, "a workspace arena cannot be backed by the "
                 "workspace allocator itself");
        return NULL;
    }
    if (nbytes != 0 && (nbytes > (size_t)PTRDIFF_MAX - TL_MAX_ALIGNMENT ||
                        !round_pages(nbytes, &first))) {
        tl_error(TL_ERR_MEMORY, "cannot reserve a workspace of %zu bytes: "
                 "more than any system can give", nbytes);
        return NULL;
    }
    pthread_once(&g_fork_once, fork_register);
    a = tl_fault_malloc(sizeof(*a));
    c = tl_fault_calloc(1, sizeof(*c));
    if (a == NULL || c == NULL || pthread_mutex_init(&c->mu, NULL) != 0) {
        free(a);
        free(c);
        tl_error(TL_ERR_MEMORY, "failed to allocate a workspace arena");
        return NULL;
    }
    atomic_init(&a->refcnt, 1);
    a->core = c;
    atomic_init(&c->refcnt, 1); /* the arena's */
    atomic_init(&c->generation, 1);
    atomic_init(&c->closed, false);
    c->backing = backing;
    c->device = backing != NULL ? backing->device : tl_device_cpu();
    c->chunk_bytes = first;
    c->flags = flags;
    pthread_mutex_lock(&g_mu);
    c->gnext = g_cores;
    if (g_cores != NULL) {
        g_cores->gprev = c;
    }
    g_cores = c;
    pthread_mutex_unlock(&g_mu);
    if (first != 0) {
        chunk *k;
        pthread_mutex_lock(&c->mu);
        k = chunk_new(c, first);
        c->cur = k;
        pthread_mutex_unlock(&c->mu);
        if (k == NULL) {
            char msg[512];
            strncpy(msg, tl_error_message(), sizeof(msg) - 1);
            msg[sizeof(msg) - 1] = '\0';
            tl_arena_decref(a);
            tl_error(TL_ERR_MEMORY, "cannot reserve a workspace of %zu "
                     "bytes: %s", nbytes, msg);
            return NULL;
        }
    }
    return a;
}

void tl_arena_incref(tl_arena *a)
{
    atomic_fetch_add_explicit(&a->refcnt, 1, memory_order_relaxed);
}

void tl_arena_decref(tl_arena *a)
{
    core *c;

    if (a == NULL ||
        atomic_fetch_sub_explicit(&a->refcnt, 1, memory_order_acq_rel) !=
            1) {
        return;
    }
    c = a->core;
    core_reset(c, true);
    free(a);
    core_decref(c);
}

void *tl_arena_alloc(tl_arena *a, size_t nbytes, size_t alignment)
{
    char *p = NULL;
    uint64_t gen;

    if (carve(a->core, nbytes, alignment, &p, NULL, &gen) < 0) {
        return NULL;
    }
    return p;
}

tl_block *tl_arena_alloc_block(tl_arena *a, tl_memkind kind, size_t nbytes,
                               size_t alignment)
{
    core *c = a->core;
    tl_block *b;
    chunk *k = NULL;
    char *p = NULL;
    uint64_t gen = 0;

    if ((int)kind < 0 || kind >= TL_MEMKIND_COUNT) {
        tl_error(TL_ERR_VALUE, "memory kind %d is out of range", (int)kind);
        return NULL;
    }
    if (tl_memkind_is_host(kind) && c->device.type != TL_DEVICE_CPU) {
        char dev[32];
        tl_device_format(c->device, dev, sizeof(dev));
        tl_error(TL_ERR_VALUE, "memory kind %s is a host kind and cannot be "
                 "used on device %s", tl_memkind_name(kind), dev);
        return NULL;
    }
    if (carve(c, nbytes, alignment, &p, &k, &gen) < 0) {
        return NULL;
    }
    b = tl_block_new_owned(p, nbytes, c->device, kind, gen, &carved_hooks,
                           k);
    if (b == NULL) {
        carving_gone(k, gen, nbytes, false);
    }
    return b;
}

void tl_arena_reset(tl_arena *a)
{
    core_reset(a->core, false);
}

uint64_t tl_arena_generation(const tl_arena *a)
{
    return atomic_load_explicit(&a->core->generation, memory_order_acquire);
}

tl_device tl_arena_device(const tl_arena *a)
{
    return a->core->device;
}

size_t tl_arena_capacity(const tl_arena *a)
{
    core *c = a->core;
    size_t n = 0;

    pthread_mutex_lock(&c->mu);
    for (const chunk *k = c->head; k != NULL; k = k->next) {
        n += k->cap;
    }
    pthread_mutex_unlock(&c->mu);
    return n;
}

size_t tl_arena_used(const tl_arena *a)
{
    core *c = a->core;
    size_t n = 0;

    pthread_mutex_lock(&c->mu);
    for (const chunk *k = c->head; k != NULL; k = k->next) {
        n += k->used;
    }
    pthread_mutex_unlock(&c->mu);
    return n;
}

int tl_arena_chunk_count(const tl_arena *a)
{
    core *c = a->core;
    int n = 0;

    pthread_mutex_lock(&c->mu);
    for (const chunk *k = c->head; k != NULL; k = k->next) {
        n++;
    }
    pthread_mutex_unlock(&c->mu);
    return n;
}

/* c's counters into out.  Under c->mu. */
static void core_stats(const core *c, tl_alloc_stats *out)
{
    const chunk *k;
    bool from_cur = false;

    memset(out, 0, sizeof(*out));
    out->active_bytes = c->active;
    out->active_bytes_peak = c->peak;
    out->reserved_bytes = c->reserved;
    out->alloc_count = c->allocs;
    out->free_count = c->frees;
    out->cache_hits = c->hits;
    out->cache_misses = c->misses;
    for (k = c->head; k != NULL; k = k->next) {
        int64_t free_bytes = (int64_t)(k->cap - k->used);
        out->cached_bytes += free_bytes;
        from_cur |= k == c->cur;
        /* Chunks before the current one wait for the next reset. */
        if (from_cur && free_bytes > out->largest_free_block) {
            out->largest_free_block = free_bytes;
        }
    }
    out->fragmentation_bytes = c->reserved - c->active;
}

void tl_arena_stats(const tl_arena *a, tl_alloc_stats *out)
{
    core *c = a->core;

    pthread_mutex_lock(&c->mu);
    core_stats(c, out);
    pthread_mutex_unlock(&c->mu);
}

/* ---- the per-thread stack of active arenas ------------------------------ */

typedef struct stack_node {
    tl_arena *arena; /* strong */
    struct stack_node *next;
} stack_node;

static pthread_key_t stack_key;
static pthread_once_t stack_once = PTHREAD_ONCE_INIT;
static bool stack_ok;

/* A thread that ends with arenas pushed drops them. */
static void stack_destroy(void *p)
{
    stack_node *n = p;

    while (n != NULL) {
        stack_node *next = n->next;
        tl_arena_decref(n->arena);
        free(n);
        n = next;
    }
}

static void stack_init(void)
{
    stack_ok = pthread_key_create(&stack_key, stack_destroy) == 0;
}

static stack_node *stack_top(void)
{
    pthread_once(&stack_once, stack_init);
    return stack_ok ? pthread_getspecific(stack_key) : NULL;
}

int tl_arena_push(tl_arena *a)
{
    stack_node *n;

    pthread_once(&stack_once, stack_init);
    if (!stack_ok) {
        return tl_error(TL_ERR_MEMORY, "no thread-local slot is left for "
                        "the workspace stack");
    }
    n = tl_fault_malloc(sizeof(*n));
    if (n == NULL) {
        return tl_error(TL_ERR_MEMORY, "failed to push a workspace");
    }
    n->next = pthread_getspecific(stack_key);
    if (pthread_setspecific(stack_key, n) != 0) {
        free(n);
        return tl_error(TL_ERR_MEMORY, "failed to push a workspace");
    }
    tl_arena_incref(a);
    n->arena = a;
    return TL_OK;
}

int tl_arena_pop(tl_arena *a)
{
    stack_node *n = stack_top();

    if (n == NULL || n->arena != a) {
        return tl_error(TL_ERR_RUNTIME,
                        "cannot pop a workspace that is not this thread's "
                        "innermost one (%s)",
                        n == NULL ? "the stack is empty"
                                  : "another workspace is above it");
    }
    (void)pthread_setspecific(stack_key, n->next);
    tl_arena_decref(n->arena);
    free(n);
    return TL_OK;
}

tl_arena *tl_arena_current(void)
{
    stack_node *n = stack_top();

    return n != NULL ? n->arena : NULL;
}

int tl_arena_depth(void)
{
    int d = 0;

    for (stack_node *n = stack_top(); n != NULL; n = n->next) {
        d++;
    }
    return d;
}

/* The workspace allocator's maker (registered with block.c): carves from
 * this thread's innermost workspace, tagged with its generation (Note
 * [Arena generations]).  TL_ERR_RUNTIME when the thread has none.
 * Returns: new reference, or NULL. */
static tl_block *carve_current(const tl_allocator *alloc, tl_memkind kind,
                               size_t nbytes, size_t alignment)
{
    const tl_device dev = alloc->device;
    tl_arena *a = tl_arena_current();

    if (a == NULL) {
        tl_error(TL_ERR_RUNTIME,
                 "memory kind %s needs an active workspace on this thread "
                 "(asked for %zu bytes): create the tensor inside `with "
                 "tensorlib.workspace(nbytes):` (C: tl_arena_push), or "
                 "route the kind elsewhere with "
                 "tensorlib.memory.set_allocator",
                 tl_memkind_name(kind), nbytes);
        return NULL;
    }
    if (!tl_device_eq(a->core->device, dev)) {
        char want[32], have[32];
        tl_device_format(dev, want, sizeof(want));
        tl_device_format(a->core->device, have, sizeof(have));
        tl_error(TL_ERR_RUNTIME, "the innermost workspace is on %s, not %s",
                 have, want);
        return NULL;
    }
    return tl_arena_alloc_block(a, kind, nbytes, alignment);
}

/* ---- the workspace allocator -------------------------------------------- */

static void *ws_allocate(void *ctx, size_t nbytes, size_t alignment)
{
    tl_arena *a = tl_arena_current();

    (void)ctx;
    if (a == NULL) {
        tl_error(TL_ERR_RUNTIME,
                 "the workspace allocator needs an active workspace on "
                 "this thread (asked for %zu bytes)", nbytes);
        return NULL;
    }
    return tl_arena_alloc(a, nbytes, alignment);
}

static void ws_deallocate(void *ctx, void *ptr, size_t nbytes)
{
    /* Bump memory comes back all at once, at the arena's reset. */
    (void)ctx;
    (void)ptr;
    (void)nbytes;
}

static void ws_stats(void *ctx, tl_alloc_stats *out)
{
    (void)ctx;
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&g_mu);
    for (core *c = g_cores; c != NULL; c = c->gnext) {
        tl_alloc_stats s;
        pthread_mutex_lock(&c->mu);
        core_stats(c, &s);
        pthread_mutex_unlock(&c->mu);
        out->active_bytes += s.active_bytes;
        out->reserved_bytes += s.reserved_bytes;
        out->cached_bytes += s.cached_bytes;
        out->alloc_count += s.alloc_count;
        out->free_count += s.free_count;
        out->cache_hits += s.cache_hits;
        out->cache_misses += s.cache_misses;
        if (s.largest_free_block > out->largest_free_block) {
            out->largest_free_block = s.largest_free_block;
        }
    }
    out->alloc_count += g_dead_allocs;
    out->free_count += g_dead_frees;
    out->cache_hits += g_dead_hits;
    out->cache_misses += g_dead_misses;
    pthread_mutex_unlock(&g_mu);
    out->active_bytes_peak =
        atomic_load_explicit(&g_peak, memory_order_relaxed);
    if (out->active_bytes_peak < out->active_bytes) {
        out->active_bytes_peak = out->active_bytes;
    }
    out->fragmentation_bytes = out->reserved_bytes - out->active_bytes;
}

/* Gives back every chunk that nothing of the live generation was carved
 * from and that nothing holds; what is in use is never touched. */
static void ws_empty_cache(void *ctx)
{
    chunk *drop = NULL, *k, *next;

    (void)ctx;
    pthread_mutex_lock(&g_mu);
    for (core *c = g_cores; c != NULL; c = c->gnext) {
        chunk *keep = NULL, **tail = &keep;
        bool cur_kept = false;
        pthread_mutex_lock(&c->mu);
        for (k = c->head; k != NULL; k = next) {
            next = k->next;
            if (k->used == 0 &&
                atomic_load_explicit(&k->holds, memory_order_acquire) ==
                    0) {
                k->chained = false;
                chunk_release_memory(c, k);
                k->next = drop;
                drop = k;
                continue;
            }
            cur_kept |= k == c->cur;
            k->next = NULL;
            *tail = k;
            tail = &k->next;
        }
        c->head = keep;
        if (!cur_kept) {
            c->cur = keep;
        }
        pthread_mutex_unlock(&c->mu);
    }
    pthread_mutex_unlock(&g_mu);
    /* The chain's references, dropped outside g_mu: the last one of a
     * core unlinks it under g_mu. */
    for (k = drop; k != NULL; k = next) {
        next = k->next;
        chunk_decref(k);
    }
}

static void ws_reset_peak(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&g_mu);
    for (core *c = g_cores; c != NULL; c = c->gnext) {
        pthread_mutex_lock(&c->mu);
        c->peak = c->active;
        pthread_mutex_unlock(&c->mu);
    }
    atomic_store_explicit(
        &g_peak, atomic_load_explicit(&g_active, memory_order_relaxed),
        memory_order_relaxed);
    pthread_mutex_unlock(&g_mu);
}

static const tl_allocator workspace_allocator = {
    .abi_version = TL_ALLOCATOR_ABI_VERSION,
    .name = "workspace_arena",
    .ctx = NULL,
    .device = {TL_DEVICE_CPU, 0},
    .allocate = ws_allocate,
    .deallocate = ws_deallocate,
    .stats = ws_stats,
    .empty_cache = ws_empty_cache,
    .reset_peak = ws_reset_peak,
};

static pthread_once_t maker_once = PTHREAD_ONCE_INIT;

static void register_maker(void)
{
    /* The first maker registered: the table has room. */
    (void)tl_block_set_maker(&workspace_allocator, carve_current);
}

const tl_allocator *tl_workspace_allocator(void)
{
    pthread_once(&maker_once, register_maker);
    return &workspace_allocator;
}
