/* csrc/alloc/cpu_allocator.c — the built-in CPU allocators: the aligned
 * allocator (posix_memalign/free, no cache), the raw segment allocator the
 * CPU pool carves (mmap, huge pages for segments of 2 MiB and more), and
 * the process-lifetime CPU caching allocator, a pool over those segments.
 * All three live for the whole process and are never torn down. */

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tensorlib/alloc.h"

#define MAX_ALIGNMENT 4096
#define HUGE_PAGE ((size_t)2 << 20)

static bool is_pow2(size_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* ---- the aligned allocator ---------------------------------------------- */

/* Counters of the aligned allocator.  It has no cache: reserved_bytes is
 * active_bytes and every allocation is a miss. */
static atomic_llong aligned_active;
static atomic_llong aligned_peak;
static atomic_llong aligned_allocs;
static atomic_llong aligned_frees;

static void *aligned_allocate(void *ctx, size_t nbytes, size_t alignment)
{
    void *p = NULL;
    long long active;
    long long peak;

    (void)ctx;
    if (!is_pow2(alignment) || alignment > MAX_ALIGNMENT) {
        tl_error(TL_ERR_VALUE,
                 "alignment %zu is not a power of two from 1 to %d",
                 alignment, MAX_ALIGNMENT);
        return NULL;
    }
    if (alignment < TL_CPU_ALIGNMENT) {
        alignment = TL_CPU_ALIGNMENT;
    }
    /* Refuse sizes no system can give before asking (a sanitizer's
     * malloc would abort on them); 0 bytes still get a unique pointer. */
    if (nbytes > (size_t)PTRDIFF_MAX ||
        posix_memalign(&p, alignment, nbytes != 0 ? nbytes : 1) != 0) {
        tl_error(TL_ERR_MEMORY, "failed to allocate %zu bytes on cpu",
                 nbytes);
        return NULL;
    }
    active = atomic_fetch_add_explicit(&aligned_active, (long long)nbytes,
                                       memory_order_relaxed) +
             (long long)nbytes;
    peak = atomic_load_explicit(&aligned_peak, memory_order_relaxed);
    while (active > peak &&
           !atomic_compare_exchange_weak_explicit(&aligned_peak, &peak,
                                                  active,
                                                  memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
    atomic_fetch_add_explicit(&aligned_allocs, 1, memory_order_relaxed);
    return p;
}

static void aligned_deallocate(void *ctx, void *ptr, size_t nbytes)
{
    (void)ctx;
    if (ptr == NULL) {
        return;
    }
    free(ptr);
    atomic_fetch_sub_explicit(&aligned_active, (long long)nbytes,
                              memory_order_relaxed);
    atomic_fetch_add_explicit(&aligned_frees, 1, memory_order_relaxed);
}

static void aligned_stats(void *ctx, tl_alloc_stats *out)
{
    (void)ctx;
    out->active_bytes =
        atomic_load_explicit(&aligned_active, memory_order_relaxed);
    out->active_bytes_peak =
        atomic_load_explicit(&aligned_peak, memory_order_relaxed);
    out->reserved_bytes = out->active_bytes;
    out->cached_bytes = 0;
    out->alloc_count =
        atomic_load_explicit(&aligned_allocs, memory_order_relaxed);
    out->free_count =
        atomic_load_explicit(&aligned_frees, memory_order_relaxed);
    out->cache_hits = 0;
    out->cache_misses = out->alloc_count;
    out->largest_free_block = 0;
    out->fragmentation_bytes = 0;
}

static void aligned_reset_peak(void *ctx)
{
    (void)ctx;
    atomic_store_explicit(
        &aligned_peak,
        atomic_load_explicit(&aligned_active, memory_order_relaxed),
        memory_order_relaxed);
}

static const tl_allocator aligned_allocator = {
    .abi_version = TL_ALLOCATOR_ABI_VERSION,
    .name = "cpu_aligned",
    .ctx = NULL,
    .device = {TL_DEVICE_CPU, 0},
    .allocate = aligned_allocate,
    .deallocate = aligned_deallocate,
    .stats = aligned_stats,
    .empty_cache = NULL,
    .reset_peak = aligned_reset_peak,
};

const tl_allocator *tl_cpu_aligned_allocator(void)
{
    return &aligned_allocator;
}

/* ---- raw segments for the CPU pool -------------------------------------- */

static size_t page_bytes(void)
{
    long v = sysconf(_SC_PAGESIZE); /* glibc: a read, not a system call */

    return v > 0 ? (size_t)v : 4096;
}

/* Maps nbytes (rounded up to pages) of fresh zeroed memory.  Segments of
 * 2 MiB or more are placed on a 2 MiB boundary and madvise'd for
 * transparent huge pages (best effort).  Returns: owned, page-aligned, or
 * NULL. */
static void *segment_alloc(void *ctx, size_t nbytes)
{
    size_t page = page_bytes();
    size_t len, map_len, head, tail;
    char *p, *aligned;

    (void)ctx;
    if (nbytes == 0 || nbytes > SIZE_MAX - HUGE_PAGE - page) {
        return NULL;
    }
    len = (nbytes + page - 1) / page * page;
    if (len < HUGE_PAGE) {
        p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    map_len = len + HUGE_PAGE;
    p = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        return NULL;
    }
    aligned = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
    head = (size_t)(aligned - p);
    tail = map_len - head - len;
    if (head != 0) {
        munmap(p, head);
    }
    if (tail != 0) {
        munmap(aligned + len, tail);
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(aligned, len, MADV_HUGEPAGE);
#endif
    return aligned;
}

static void segment_free(void *ctx, void *ptr, size_t nbytes)
{
    size_t page = page_bytes();

    (void)ctx;
    munmap(ptr, (nbytes + page - 1) / page * page);
}

/* ---- the CPU caching allocator ------------------------------------------ */

static pthread_once_t caching_once = PTHREAD_ONCE_INIT;
static tl_allocator *caching_pool;

static void caching_init(void)
{
    tl_raw_allocator raw = {
        .name = "cpu_segments",
        .ctx = NULL,
        .device = {TL_DEVICE_CPU, 0},
        .alloc = segment_alloc,
        .free = segment_free,
    };
    tl_pool_config cfg = tl_pool_config_cpu();

    caching_pool = tl_pool_new(&raw, &cfg, "cpu_caching");
}

const tl_allocator *tl_cpu_caching_allocator(void)
{
    pthread_once(&caching_once, caching_init);
    if (caching_pool == NULL) {
        tl_error(TL_ERR_MEMORY, "the cpu caching allocator could not be "
                 "created");
    }
    return caching_pool;
}
