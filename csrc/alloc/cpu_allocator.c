/* csrc/alloc/cpu_allocator.c — the built-in CPU allocators: the aligned
 * allocator (posix_memalign/free, no cache), the raw segment allocator the
 * CPU pool carves (mmap, huge pages for segments of 2 MiB and more), the
 * process-lifetime CPU caching allocator, a pool over those segments, and
 * the pinned allocator, a pool over mlock'd segments; and the CPU pool's
 * policy with its environment variable (TENSORLIB_CPU_CACHE_LIMIT, parsed
 * by tl_nbytes_parse's byte-count grammar).  All of them live for the
 * whole process and are never torn down. */

#include <ctype.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tensorlib/alloc.h"
#include "fault.h"
#include "alloc_internal.h"

#define HUGE_PAGE ((size_t)2 << 20)

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
    if (tl_check_alignment(alignment) < 0) {
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

/* Maps nbytes (rounded up to pages) of fresh zeroed memory.  Segments of
 * 2 MiB or more are placed on a 2 MiB boundary and madvise'd for
 * transparent huge pages (best effort).  Returns: owned, page-aligned, or
 * NULL. */
static void *segment_alloc(void *ctx, size_t nbytes)
{
    size_t page = tl_page_bytes();
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
    size_t page = tl_page_bytes();

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
    if (caching_pool != NULL) {
        (void)tl_pool_set_quick_lists(caching_pool, true);
    }
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

/* ---- the pinned (page-locked) allocator --------------------------------- */

/* Note [Pinned memory fallback]
 * Page-locked memory is what a DMA engine can read without the kernel
 * paging it out; tensorlib locks it with mlock (the CUDA plug-in may
 * register cudaMallocHost for (cpu, HostPinned) instead).  mlock is
 * refused beyond RLIMIT_MEMLOCK without privilege; the segment is then
 * kept as plain memory rather than failing the allocation, and the
 * refusal is counted (tl_pinned_info: unlocked_bytes, lock_failures,
 * last_locked), so a caller can see that the memory is not locked.  Each
 * segment's locked state is recorded so the counters stay exact as
 * segments go back. */

typedef struct pinned_seg {
    void *ptr;
    size_t len;
    bool locked;
    struct pinned_seg *next;
} pinned_seg;

static pthread_mutex_t pinned_mu = PTHREAD_MUTEX_INITIALIZER;
static pinned_seg *pinned_segs;       /* under pinned_mu */
static int64_t pinned_locked_bytes;   /* under pinned_mu */
static int64_t pinned_unlocked_bytes; /* under pinned_mu */
static int64_t pinned_failures;       /* under pinned_mu */
static int pinned_last = -1;          /* -1 unknown, 0 refused, 1 locked */
static atomic_bool pinned_refuse;     /* fault injection: refuse mlock */

static void *pinned_segment_alloc(void *ctx, size_t nbytes)
{
    size_t page = tl_page_bytes();
    pinned_seg *rec;
    size_t len;
    void *p;
    bool locked;

    (void)ctx;
    if (nbytes == 0 || nbytes > SIZE_MAX - page) {
        return NULL;
    }
    len = (nbytes + page - 1) / page * page;
    rec = tl_fault_malloc(sizeof(*rec));
    if (rec == NULL) {
        return NULL;
    }
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    if (p == MAP_FAILED) {
        free(rec);
        return NULL;
    }
    locked = !atomic_load(&pinned_refuse) && mlock(p, len) == 0;
    rec->ptr = p;
    rec->len = len;
    rec->locked = locked;
    pthread_mutex_lock(&pinned_mu);
    rec->next = pinned_segs;
    pinned_segs = rec;
    if (locked) {
        pinned_locked_bytes += (int64_t)len;
    }
    else {
        pinned_unlocked_bytes += (int64_t)len;
        pinned_failures++;
    }
    pinned_last = locked;
    pthread_mutex_unlock(&pinned_mu);
    return p;
}

static void pinned_segment_free(void *ctx, void *ptr, size_t nbytes)
{
    pinned_seg **pp, *rec = NULL;

    (void)ctx;
    (void)nbytes;
    pthread_mutex_lock(&pinned_mu);
    for (pp = &pinned_segs; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->ptr == ptr) {
            rec = *pp;
            *pp = rec->next;
            if (rec->locked) {
                pinned_locked_bytes -= (int64_t)rec->len;
            }
            else {
                pinned_unlocked_bytes -= (int64_t)rec->len;
            }
            break;
        }
    }
    pthread_mutex_unlock(&pinned_mu);
    if (rec == NULL) {
        return; /* not ours: never happens */
    }
    if (rec->locked) {
        munlock(rec->ptr, rec->len);
    }
    munmap(rec->ptr, rec->len);
    free(rec);
}

static pthread_once_t pinned_once = PTHREAD_ONCE_INIT;
static tl_allocator *pinned_pool;

static void pinned_init(void)
{
    tl_raw_allocator raw = {
        .name = "cpu_pinned_segments",
        .ctx = NULL,
        .device = {TL_DEVICE_CPU, 0},
        .alloc = pinned_segment_alloc,
        .free = pinned_segment_free,
    };
    tl_pool_config cfg = tl_pool_config_cpu();

    pinned_pool = tl_pool_new(&raw, &cfg, "cpu_pinned");
    if (pinned_pool != NULL) {
        (void)tl_pool_set_quick_lists(pinned_pool, true);
    }
}

const tl_allocator *tl_cpu_pinned_allocator(void)
{
    pthread_once(&pinned_once, pinned_init);
    if (pinned_pool == NULL) {
        tl_error(TL_ERR_MEMORY, "the cpu pinned allocator could not be "
                 "created");
    }
    return pinned_pool;
}

void tl_pinned_info_get(tl_pinned_info *out)
{
    int last;

    pthread_mutex_lock(&pinned_mu);
    out->locked_bytes = pinned_locked_bytes;
    out->unlocked_bytes = pinned_unlocked_bytes;
    out->lock_failures = pinned_failures;
    last = pinned_last;
    pthread_mutex_unlock(&pinned_mu);
    if (last < 0 && !atomic_load(&pinned_refuse)) {
        /* Nothing pinned yet: probe one page. */
        size_t page = tl_page_bytes();
        void *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        last = 0;
        if (p != MAP_FAILED) {
            last = mlock(p, page) == 0;
            if (last) {
                munlock(p, page);
            }
            munmap(p, page);
        }
    }
    out->last_locked = last > 0;
}

void tl_pinned_refuse_lock(bool refuse)
{
    atomic_store(&pinned_refuse, refuse);
}

/* ---- the CPU pool's policy and TENSORLIB_CPU_CACHE_LIMIT ---------------- */

/* Parses s as tl_nbytes_parse does, without recording.  Returns 0, or
 * TL_ERR_VALUE / TL_ERR_OVERFLOW. */
static int parse_nbytes(const char *s, size_t *out)
{
    size_t v = 0, mult = 1;
    const char *c = s;

    if (s == NULL || !isdigit((unsigned char)*c)) {
        return TL_ERR_VALUE;
    }
    for (; isdigit((unsigned char)*c); c++) {
        if (tl_mul_overflow_size(v, 10, &v) ||
            tl_add_overflow_size(v, (size_t)(*c - '0'), &v)) {
            return TL_ERR_OVERFLOW;
        }
    }
    switch (tolower((unsigned char)*c)) {
    case 'k':
        mult = (size_t)1 << 10;
        break;
    case 'm':
        mult = (size_t)1 << 20;
        break;
    case 'g':
        mult = (size_t)1 << 30;
        break;
    case 't':
        mult = (size_t)1 << 40;
        break;
    default:
        break;
    }
    if (mult != 1) {
        c++;
        if (tolower((unsigned char)c[0]) == 'i' &&
            tolower((unsigned char)c[1]) == 'b') {
            c += 2;
        }
        else if (tolower((unsigned char)c[0]) == 'b') {
            c++;
        }
    }
    else if (tolower((unsigned char)c[0]) == 'b') {
        c++;
    }
    if (*c != '\0') {
        return TL_ERR_VALUE;
    }
    if (tl_mul_overflow_size(v, mult, &v)) {
        return TL_ERR_OVERFLOW;
    }
    *out = v;
    return TL_OK;
}

int tl_nbytes_parse(const char *s, size_t *out)
{
    int rc = parse_nbytes(s, out);

    if (rc == TL_ERR_OVERFLOW) {
        return tl_error(TL_ERR_OVERFLOW, "byte count '%.64s' does not fit "
                        "in size_t", s);
    }
    if (rc < 0) {
        return tl_error(TL_ERR_VALUE, "invalid byte count '%.64s': expected "
                        "an integer with an optional K, M, G or T suffix",
                        s != NULL ? s : "(null)");
    }
    return TL_OK;
}

static size_t cpu_cache_limit(void)
{
    const char *env = getenv("TENSORLIB_CPU_CACHE_LIMIT");
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = (long)tl_page_bytes();
    size_t v;

    if (env != NULL && *env != '\0') {
        if (parse_nbytes(env, &v) == TL_OK) {
            return v;
        }
        fprintf(stderr, "tensorlib: ignoring TENSORLIB_CPU_CACHE_LIMIT="
                "'%.64s': expected bytes, e.g. 1073741824 or 1G\n", env);
    }
    if (pages <= 0 || page <= 0) {
        return (size_t)1 << 30;
    }
    return (size_t)pages / 4 * (size_t)page;
}

tl_pool_config tl_pool_config_cpu(void)
{
    tl_pool_config c;

    c.granule = TL_CPU_ALIGNMENT;
    c.small_limit = (size_t)256 << 10;
    c.small_segment = (size_t)2 << 20;
    c.medium_limit = c.small_limit;
    c.medium_segment = 0;
    c.large_round = 0;
    c.cache_limit = cpu_cache_limit();
    return c;
}
