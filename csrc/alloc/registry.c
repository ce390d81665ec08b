/* csrc/alloc/registry.c — the process-wide (device, memory kind) ->
 * allocator table, its CPU defaults, and stats summed over the distinct
 * allocators of a device.  It routes and never owns: every allocator
 * registered here must outlive the process's use of it. */

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "tensorlib/alloc.h"
#include "tensorlib/arena.h"
#include "tensorlib/mapped.h"

/* Note [Registry reads]
 * Creating a small tensor asks the registry for an allocator, so a read is
 * one acquire load of an atomic pointer after a once-only check that the
 * defaults are in.  Writes (tl_registry_set) are rare and store with
 * release.  The CPU defaults are: Default, Persistent and KVCache -> the
 * CPU caching pool; HostPageable -> the aligned allocator; HostPinned ->
 * the pinned pool (mlock'd segments); Workspace -> the workspace
 * allocator, which carves from the calling thread's innermost arena.  CUDA
 * rows are filled by the CUDA plug-in, when built.  The built-ins can be
 * named (tl_allocator_builtin), which is how Python reroutes a kind.
 *
 * The device-wide stats, empty_cache and reset_peak of the CPU cover the
 * built-in allocators whether or not a kind is routed to them now: a kind
 * rerouted away from one leaves its blocks with it, so the totals still
 * add up after a reroute.  (Allocators registered from C are covered
 * while they are registered; the contract is that they outlive their use,
 * but tests unregister and destroy pools of their own.) */

#define NINDEX (TL_MAX_DEVICE_INDEX + 1)

static _Atomic(const tl_allocator *) table[TL_DEVICE_TYPE_COUNT][NINDEX]
                                          [TL_MEMKIND_COUNT];
/* The built-ins and every slot of a device. */
#define MAX_DISTINCT (TL_MEMKIND_COUNT + 4)

/* Set once anything registers for a CUDA device. */
static atomic_bool cuda_registered;
static atomic_bool defaults_in;
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;

static void defaults_init(void)
{
    const tl_allocator *caching = tl_cpu_caching_allocator();
    _Atomic(const tl_allocator *) *cpu = table[TL_DEVICE_CPU][0];

    if (caching != NULL) {
        atomic_store(&cpu[TL_MEMKIND_DEFAULT], caching);
        atomic_store(&cpu[TL_MEMKIND_PERSISTENT], caching);
        atomic_store(&cpu[TL_MEMKIND_KVCACHE], caching);
    }
    atomic_store(&cpu[TL_MEMKIND_HOST_PAGEABLE], tl_cpu_aligned_allocator());
    atomic_store(&cpu[TL_MEMKIND_HOST_PINNED], tl_cpu_pinned_allocator());
    atomic_store(&cpu[TL_MEMKIND_WORKSPACE], tl_workspace_allocator());
    atomic_store_explicit(&defaults_in, true, memory_order_release);
}

static void ensure_defaults(void)
{
    if (TL_UNLIKELY(
            !atomic_load_explicit(&defaults_in, memory_order_acquire))) {
        pthread_once(&defaults_once, defaults_init);
    }
}

/* Checks the device and kind of a registry call.  Returns 0 or
 * TL_ERR_VALUE naming them. */
static int check_slot(tl_device dev, int kind)
{
    char name[32];

    if (kind < 0 || kind >= TL_MEMKIND_COUNT) {
        return tl_error(TL_ERR_VALUE, "memory kind %d is out of range",
                        kind);
    }
    if (dev.type < 0 || dev.type >= TL_DEVICE_TYPE_COUNT || dev.index < 0 ||
        dev.index > TL_MAX_DEVICE_INDEX ||
        (dev.type == TL_DEVICE_CPU && dev.index != 0)) {
        return tl_error(TL_ERR_VALUE, "invalid device (type %d, index %d)",
                        (int)dev.type, (int)dev.index);
    }
    if (dev.type != TL_DEVICE_CPU && tl_memkind_is_host((tl_memkind)kind)) {
        tl_device_format(dev, name, sizeof(name));
        return tl_error(TL_ERR_VALUE,
                        "memory kind %s is a host kind and cannot be used "
                        "on device %s",
                        tl_memkind_name((tl_memkind)kind), name);
    }
    return TL_OK;
}

int tl_registry_set(tl_device dev, tl_memkind kind, const tl_allocator *a)
{
    if (check_slot(dev, (int)kind) < 0) {
        return TL_ERR_VALUE;
    }
    if (a != NULL) {
        if (a->abi_version != TL_ALLOCATOR_ABI_VERSION ||
            a->allocate == NULL || a->deallocate == NULL) {
            return tl_error(TL_ERR_VALUE,
                            "allocator '%s' has ABI version %u (expected "
                            "%d) or lacks allocate/deallocate",
                            a->name != NULL ? a->name : "?",
                            (unsigned)a->abi_version,
                            TL_ALLOCATOR_ABI_VERSION);
        }
        if (!tl_device_eq(a->device, dev)) {
            char want[32], have[32];
            tl_device_format(dev, want, sizeof(want));
            tl_device_format(a->device, have, sizeof(have));
            return tl_error(TL_ERR_VALUE,
                            "allocator '%s' serves device %s and cannot be "
                            "registered for %s",
                            a->name != NULL ? a->name : "?", have, want);
        }
    }
    ensure_defaults();
    if (a != NULL && dev.type == TL_DEVICE_CUDA) {
        atomic_store(&cuda_registered, true);
    }

    atomic_store_explicit(&table[dev.type][dev.index][kind], a,
                          memory_order_release);
    return TL_OK;
}

/* tl_registry_get for every request but an initialised table's CPU
 * slot that holds an allocator: the checks, the first use's defaults and
 * the errors. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static const tl_allocator *registry_get_slow(tl_device dev, tl_memkind kind)
{
    const tl_allocator *a;
    char name[32];

    if (TL_UNLIKELY(check_slot(dev, (int)kind) < 0)) {
        return NULL;
    }
    ensure_defaults();
    a = atomic_load_explicit(&table[dev.type][dev.index][kind],
                             memory_order_acquire);
    if (TL_LIKELY(a != NULL)) {
        return a;
    }
    tl_device_format(dev, name, sizeof(name));
    if (dev.type == TL_DEVICE_CUDA && !atomic_load(&cuda_registered)) {
        tl_error(TL_ERR_RUNTIME,
                 "no allocator registered for (%s, %s): tensorlib was built "
                 "without CUDA", name, tl_memkind_name(kind));
    }
    else {
        tl_error(TL_ERR_RUNTIME, "no allocator registered for (%s, %s)",
                 name, tl_memkind_name(kind));
    }
    return NULL;
}

const tl_allocator *tl_registry_get(tl_device dev, tl_memkind kind)
{
    /* Every fresh CPU tensor asks here (issue 22): a CPU device with index
     * 0 and a kind in range pass all of check_slot's tests, so only the
     * table's readiness and the slot are read. */
    if (TL_LIKELY(dev.type == TL_DEVICE_CPU && dev.index == 0 &&
                  (unsigned)kind < (unsigned)TL_MEMKIND_COUNT &&
                  atomic_load_explicit(&defaults_in,
                                       memory_order_acquire))) {
        const tl_allocator *a = atomic_load_explicit(
            &table[TL_DEVICE_CPU][0][kind], memory_order_acquire);
        if (TL_LIKELY(a != NULL)) {
            return a;
        }
    }
    return registry_get_slow(dev, kind);
}

/* Collects the distinct allocators registered for dev (one kind, or all
 * when kind < 0, the CPU built-ins included: Note [Registry reads]) into
 * out.  Returns how many, or an error. */
static int distinct(tl_device dev, int kind,
                    const tl_allocator *out[MAX_DISTINCT])
{
    int n = 0;
    int lo = kind < 0 ? 0 : kind;
    int hi = kind < 0 ? TL_MEMKIND_COUNT : kind + 1;
    int k;

    if (check_slot(dev, kind < 0 ? TL_MEMKIND_DEFAULT : kind) < 0) {
        return TL_ERR_VALUE;
    }
    ensure_defaults();
    for (k = lo; k < hi; k++) {
        const tl_allocator *a;
        int i;
        if (dev.type != TL_DEVICE_CPU && tl_memkind_is_host((tl_memkind)k)) {
            continue;
        }
        a = atomic_load_explicit(&table[dev.type][dev.index][k],
                                 memory_order_acquire);
        if (a == NULL) {
            continue;
        }
        for (i = 0; i < n && out[i] != a; i++) {
        }
        if (i == n) {
            out[n++] = a;
        }
    }
    if (kind < 0 && dev.type == TL_DEVICE_CPU) {
        const tl_allocator *builtins[4] = {
            tl_cpu_caching_allocator(), tl_cpu_aligned_allocator(),
            tl_cpu_pinned_allocator(), tl_workspace_allocator()};
        for (k = 0; k < 4; k++) {
            const tl_allocator *a = builtins[k];
            int i;
            for (i = 0; i < n && out[i] != a; i++) {
            }
            if (a != NULL && i == n) {
                out[n++] = a;
            }
        }
    }
    return n;
}

int tl_registry_stats(tl_device dev, int kind, tl_alloc_stats *out)
{
    const tl_allocator *all[MAX_DISTINCT];
    int n = distinct(dev, kind, all);
    int i;

    if (n < 0) {
        return n;
    }
    memset(out, 0, sizeof(*out));
    for (i = 0; i < n; i++) {
        tl_alloc_stats s;
        memset(&s, 0, sizeof(s));
        if (all[i]->stats != NULL) {
            all[i]->stats(all[i]->ctx, &s);
        }
        out->active_bytes += s.active_bytes;
        /* Each allocator's own peak: the sum bounds the device's peak. */
        out->active_bytes_peak += s.active_bytes_peak;
        out->reserved_bytes += s.reserved_bytes;
        out->cached_bytes += s.cached_bytes;
        out->alloc_count += s.alloc_count;
        out->free_count += s.free_count;
        out->cache_hits += s.cache_hits;
        out->cache_misses += s.cache_misses;
        /* The largest block any one of them could hand out at once. */
        if (s.largest_free_block > out->largest_free_block) {
            out->largest_free_block = s.largest_free_block;
        }
        out->fragmentation_bytes += s.fragmentation_bytes;
    }
    /* File mappings belong to no allocator: HostPageable memory of the
     * CPU, counted apart from allocated bytes (csrc/alloc/mapped.c). */
    if (dev.type == TL_DEVICE_CPU &&
        (kind < 0 || kind == TL_MEMKIND_HOST_PAGEABLE)) {
        out->mapped_bytes = tl_mapped_bytes();
    }
    return TL_OK;
}

void tl_registry_empty_cache(tl_device dev)
{
    const tl_allocator *all[MAX_DISTINCT];
    int n = distinct(dev, -1, all);
    int i;

    for (i = 0; i < n; i++) {
        if (all[i]->empty_cache != NULL) {
            all[i]->empty_cache(all[i]->ctx);
        }
    }
}

void tl_registry_reset_peak(tl_device dev)
{
    const tl_allocator *all[MAX_DISTINCT];
    int n = distinct(dev, -1, all);
    int i;

    for (i = 0; i < n; i++) {
        if (all[i]->reset_peak != NULL) {
            all[i]->reset_peak(all[i]->ctx);
        }
    }
}

/* ---- the built-ins by name ---------------------------------------------- */

static const char *const builtin_names[] = {
    "cpu_caching",
    "cpu_aligned",
    "cpu_pinned",
    "workspace_arena",
};
#define NBUILTIN ((int)(sizeof(builtin_names) / sizeof(builtin_names[0])))

const tl_allocator *tl_allocator_builtin(const char *name)
{
    if (name == NULL) {
        tl_error(TL_ERR_VALUE, "allocator name is NULL");
        return NULL;
    }
    if (strcmp(name, "cpu_caching") == 0) {
        return tl_cpu_caching_allocator();
    }
    if (strcmp(name, "cpu_aligned") == 0) {
        return tl_cpu_aligned_allocator();
    }
    if (strcmp(name, "cpu_pinned") == 0) {
        return tl_cpu_pinned_allocator();
    }
    if (strcmp(name, "workspace_arena") == 0) {
        return tl_workspace_allocator();
    }
    tl_error(TL_ERR_VALUE,
             "unknown allocator '%.64s': the built-ins are 'cpu_caching', "
             "'cpu_aligned', 'cpu_pinned' and 'workspace_arena' (register "
             "others from C with tl_registry_set)", name);
    return NULL;
}

int tl_allocator_builtin_names(const char **names, int cap)
{
    for (int i = 0; i < NBUILTIN && i < cap; i++) {
        names[i] = builtin_names[i];
    }
    return NBUILTIN;
}
