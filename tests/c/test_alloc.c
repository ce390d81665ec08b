/* tests/c/test_alloc.c — the alloc layer apart from the pool's policy: the
 * error record, device and memory-kind names, byte counts, memory blocks
 * (refcount, external deleters), the aligned CPU allocator, the CPU
 * caching allocator and the (device, kind) registry.  The pool itself is
 * tested in test_pool.c. */

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tensorlib/tensorlib.h>

#include "harness.h"

static bool msg_has(const char *needle)
{
    return strstr(tl_error_message(), needle) != NULL;
}

/* ---- the error record --------------------------------------------------- */

static void *error_in_thread(void *arg)
{
    (void)arg;
    /* A fresh thread starts with an empty record. */
    CHECK(tl_error_kind() == TL_OK);
    CHECK(strcmp(tl_error_message(), "") == 0);
    tl_error(TL_ERR_INDEX, "thread error");
    return NULL;
}

static void test_error_record(void)
{
    pthread_t t;
    char big[2000];

    tl_error_clear();
    CHECK(tl_error_kind() == TL_OK);
    CHECK(strcmp(tl_error_message(), "") == 0);
    CHECK(tl_error(TL_ERR_VALUE, "bad %s at %d", "thing", 7) ==
          TL_ERR_VALUE);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(strcmp(tl_error_message(), "bad thing at 7") == 0);

    /* Refining a message with the previous one is safe. */
    tl_error(TL_ERR_SHAPE, "while testing: %s", tl_error_message());
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    CHECK(strcmp(tl_error_message(), "while testing: bad thing at 7") == 0);

    /* The record is per thread. */
    pthread_create(&t, NULL, error_in_thread, NULL);
    pthread_join(t, NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);

    /* Long messages are truncated, marked and terminated. */
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    tl_error(TL_ERR_RUNTIME, "%s", big);
    CHECK(strlen(tl_error_message()) < 600);
    CHECK(strlen(tl_error_message()) > 400);
    CHECK(strstr(tl_error_message(), "...") != NULL);

    tl_error_clear();
    CHECK(tl_error_kind() == TL_OK);
    CHECK(strcmp(tl_error_message(), "") == 0);
}

/* ---- devices and memory kinds ------------------------------------------- */

static void test_device_parse_good(void)
{
    static const struct {
        const char *s;
        int type, index;
        const char *formatted;
    } good[] = {
        {"cpu", TL_DEVICE_CPU, 0, "cpu"},
        {"cpu:0", TL_DEVICE_CPU, 0, "cpu"},
        {"cuda", TL_DEVICE_CUDA, 0, "cuda:0"},
        {"cuda:0", TL_DEVICE_CUDA, 0, "cuda:0"},
        {"cuda:7", TL_DEVICE_CUDA, 7, "cuda:7"},
        {"cuda:10", TL_DEVICE_CUDA, 10, "cuda:10"},
        {"cuda:63", TL_DEVICE_CUDA, 63, "cuda:63"},
    };
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        tl_device d = {-1, -1};
        char buf[32];
        CHECK(tl_device_parse(good[i].s, &d) == 0);
        CHECK_EQ_I64(d.type, good[i].type);
        CHECK_EQ_I64(d.index, good[i].index);
        tl_device_format(d, buf, sizeof(buf));
        CHECK(strcmp(buf, good[i].formatted) == 0);
    }
}

static void test_device_parse_bad(void)
{
    static const char *const bad[] = {
        "gpu", "", "cpu:1", "cpu:", "cuda:", "cuda:64", "cuda:-1",
        "cuda:+1", "cuda:1x", "cuda:01", "cuda:99999999999999999999",
        "CUDA", "Cpu", " cpu", "cpu ", "cuda:1:2", "cudax", "cpu0",
        "cuda: 1",
    };
    size_t i;
    tl_device d = {TL_DEVICE_CUDA, 5};

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tl_error_clear();
        CHECK(tl_device_parse(bad[i], &d) == TL_ERR_VALUE);
        CHECK(tl_error_kind() == TL_ERR_VALUE);
        if (bad[i][0] != '\0') {
            CHECK(msg_has(bad[i]));
        }
        /* A failed parse leaves *out alone. */
        CHECK(d.type == TL_DEVICE_CUDA && d.index == 5);
    }
    CHECK(tl_device_parse("gpu", &d) == TL_ERR_VALUE);
    CHECK(strcmp(tl_error_message(),
                 "unknown device 'gpu': expected 'cpu', 'cuda' or "
                 "'cuda:N'") == 0);
    CHECK(tl_device_parse("cuda:64", &d) == TL_ERR_VALUE);
    CHECK(msg_has("63"));
    CHECK(tl_device_parse(NULL, &d) == TL_ERR_VALUE);
}

static void test_device_format_small_buffer(void)
{
    tl_device d = {TL_DEVICE_CUDA, 12};
    char buf[4];

    memset(buf, 'z', sizeof(buf));
    tl_device_format(d, buf, sizeof(buf));
    CHECK(strcmp(buf, "cud") == 0);
    tl_device_format(d, buf, 0); /* no write at all */
    CHECK(tl_device_eq(tl_device_cpu(), (tl_device){TL_DEVICE_CPU, 0}));
}

static void test_memkind_names(void)
{
    static const char *const names[] = {"Default",   "Persistent",
                                        "Workspace", "KVCache",
                                        "HostPinned", "HostPageable"};
    static const struct {
        const char *s;
        tl_memkind k;
    } spellings[] = {
        {"default", TL_MEMKIND_DEFAULT},
        {"DEFAULT", TL_MEMKIND_DEFAULT},
        {"Persistent", TL_MEMKIND_PERSISTENT},
        {"workspace", TL_MEMKIND_WORKSPACE},
        {"kvcache", TL_MEMKIND_KVCACHE},
        {"KV_CACHE", TL_MEMKIND_KVCACHE},
        {"KVCache", TL_MEMKIND_KVCACHE},
        {"host_pinned", TL_MEMKIND_HOST_PINNED},
        {"HostPinned", TL_MEMKIND_HOST_PINNED},
        {"HOST_PAGEABLE", TL_MEMKIND_HOST_PAGEABLE},
        {"hostpageable", TL_MEMKIND_HOST_PAGEABLE},
    };
    static const char *const bad[] = {"", "pinned", "host pinned",
                                      "HostPinnedX", "kv", "_",
                                      "defaultdefaultdefaultdefaultdefault"};
    size_t i;
    tl_memkind k;

    for (i = 0; i < TL_MEMKIND_COUNT; i++) {
        CHECK(strcmp(tl_memkind_name((tl_memkind)i), names[i]) == 0);
        CHECK(tl_memkind_parse(names[i], &k) == 0 && k == (tl_memkind)i);
    }
    CHECK(tl_memkind_name(TL_MEMKIND_COUNT) == NULL);
    CHECK(tl_memkind_name((tl_memkind)-1) == NULL);
    for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
        k = TL_MEMKIND_COUNT;
        CHECK(tl_memkind_parse(spellings[i].s, &k) == 0);
        CHECK(k == spellings[i].k);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        k = TL_MEMKIND_WORKSPACE;
        CHECK(tl_memkind_parse(bad[i], &k) == TL_ERR_VALUE);
        CHECK(k == TL_MEMKIND_WORKSPACE);
        CHECK(msg_has("unknown memory kind"));
        CHECK(msg_has("HostPinned"));
    }
    CHECK(tl_memkind_parse(NULL, &k) == TL_ERR_VALUE);
    CHECK(tl_memkind_is_host(TL_MEMKIND_HOST_PINNED));
    CHECK(!tl_memkind_is_host(TL_MEMKIND_KVCACHE));
}

static void test_nbytes_parse(void)
{
    static const struct {
        const char *s;
        size_t v;
    } good[] = {
        {"0", 0},
        {"4096", 4096},
        {"1K", 1024},
        {"3k", 3072},
        {"512M", (size_t)512 << 20},
        {"2G", (size_t)2 << 30},
        {"2GiB", (size_t)2 << 30},
        {"2gb", (size_t)2 << 30},
        {"1T", (size_t)1 << 40},
        {"100B", 100},
    };
    static const char *const bad[] = {"", "-1", "1.5G", "G", "1X", " 1",
                                      "1 G", "1GG", "0x10"};
    size_t i, v;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        v = 12345;
        CHECK(tl_nbytes_parse(good[i].s, &v) == 0);
        CHECK(v == good[i].v);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = 12345;
        CHECK(tl_nbytes_parse(bad[i], &v) == TL_ERR_VALUE);
        CHECK(v == 12345);
    }
    CHECK(tl_nbytes_parse("99999999999999999999999", &v) ==
          TL_ERR_OVERFLOW);
    CHECK(tl_nbytes_parse("16777216T", &v) == TL_ERR_OVERFLOW);
}

static void test_cpu_cache_limit_env(void)
{
    tl_pool_config c;

    setenv("TENSORLIB_CPU_CACHE_LIMIT", "64M", 1);
    c = tl_pool_config_cpu();
    CHECK(c.cache_limit == (size_t)64 << 20);
    setenv("TENSORLIB_CPU_CACHE_LIMIT", "123456", 1);
    CHECK(tl_pool_config_cpu().cache_limit == 123456);
    unsetenv("TENSORLIB_CPU_CACHE_LIMIT");
    c = tl_pool_config_cpu();
    /* A quarter of physical memory: something sensible. */
    CHECK(c.cache_limit >= ((size_t)16 << 20));
    CHECK(c.granule == 64);
}

/* ---- memory blocks ------------------------------------------------------ */

static int deleter_calls;
static void *deleter_seen;

static void count_deleter(void *ctx)
{
    deleter_calls++;
    deleter_seen = ctx;
}

static void test_block_alloc_refcount(void)
{
    const tl_allocator *caching = tl_cpu_caching_allocator();
    tl_alloc_stats before, after;
    tl_block *b;

    caching->stats(caching->ctx, &before);
    b = tl_block_alloc(tl_device_cpu(), TL_MEMKIND_DEFAULT, 100);
    CHECK(b != NULL);
    if (b == NULL) {
        return;
    }
    CHECK(((uintptr_t)tl_block_ptr(b) % TL_CPU_ALIGNMENT) == 0);
    CHECK(tl_block_nbytes(b) == 100);
    CHECK(tl_device_eq(tl_block_device(b), tl_device_cpu()));
    CHECK(tl_block_memkind(b) == TL_MEMKIND_DEFAULT);
    CHECK(!tl_block_is_readonly(b));
    CHECK(tl_block_owner(b) == caching);
    CHECK_EQ_I64(tl_block_refcount(b), 1);
    memset(tl_block_ptr(b), 0xab, 100);
    tl_block_incref(b);
    tl_block_incref(b);
    CHECK_EQ_I64(tl_block_refcount(b), 3);
    tl_block_decref(b);
    tl_block_decref(b);
    CHECK_EQ_I64(tl_block_refcount(b), 1);
    caching->stats(caching->ctx, &after);
    CHECK_EQ_I64(after.free_count, before.free_count);
    CHECK_EQ_I64(after.active_bytes, before.active_bytes + 100);
    tl_block_decref(b);
    caching->stats(caching->ctx, &after);
    CHECK_EQ_I64(after.free_count, before.free_count + 1);
    CHECK_EQ_I64(after.active_bytes, before.active_bytes);
    tl_block_decref(NULL); /* a no-op */

    /* Zero bytes: a real, unique pointer. */
    {
        tl_block *z1 = tl_block_alloc(tl_device_cpu(), TL_MEMKIND_DEFAULT, 0);
        tl_block *z2 = tl_block_alloc(tl_device_cpu(), TL_MEMKIND_DEFAULT, 0);
        CHECK(z1 != NULL && z2 != NULL);
        if (z1 != NULL && z2 != NULL) {
            CHECK(tl_block_ptr(z1) != NULL);
            CHECK(tl_block_ptr(z1) != tl_block_ptr(z2));
            CHECK(tl_block_nbytes(z1) == 0);
        }
        tl_block_decref(z1);
        tl_block_decref(z2);
    }

    /* Pageable host memory comes from the aligned allocator. */
    b = tl_block_alloc(tl_device_cpu(), TL_MEMKIND_HOST_PAGEABLE, 1000);
    CHECK(b != NULL && tl_block_owner(b) == tl_cpu_aligned_allocator());
    CHECK(b != NULL && tl_block_memkind(b) == TL_MEMKIND_HOST_PAGEABLE);
    tl_block_decref(b);
}

static void test_block_alloc_errors(void)
{
    tl_device cuda0 = {TL_DEVICE_CUDA, 0};
    const tl_allocator *a = tl_cpu_aligned_allocator();

    tl_error_clear();
    CHECK(tl_block_alloc(cuda0, TL_MEMKIND_HOST_PINNED, 16) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(msg_has("HostPinned") && msg_has("cuda:0"));
    CHECK(tl_block_alloc(cuda0, TL_MEMKIND_DEFAULT, 16) == NULL);
    CHECK(tl_error_kind() == TL_ERR_RUNTIME);
    CHECK(msg_has("without CUDA"));
    CHECK(tl_block_alloc(tl_device_cpu(), TL_MEMKIND_WORKSPACE, 16) == NULL);
    CHECK(tl_error_kind() == TL_ERR_RUNTIME);
    CHECK(tl_block_alloc(tl_device_cpu(), TL_MEMKIND_COUNT, 16) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);

    CHECK(tl_block_alloc_from(a, TL_MEMKIND_DEFAULT, 16, 3) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE && msg_has("alignment 3"));
    CHECK(tl_block_alloc_from(a, TL_MEMKIND_DEFAULT, 16, 0) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(tl_block_alloc_from(a, TL_MEMKIND_DEFAULT, 16, 8192) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(tl_block_alloc_from(NULL, TL_MEMKIND_DEFAULT, 16, 64) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);

    /* Allocation failure surfaces as TL_ERR_MEMORY. */
    CHECK(tl_block_alloc_from(a, TL_MEMKIND_DEFAULT,
                              (size_t)PTRDIFF_MAX + 1, 64) == NULL);
    CHECK(tl_error_kind() == TL_ERR_MEMORY);
    CHECK(msg_has("bytes on cpu"));
}

static void test_block_alloc_from_alignment(void)
{
    const tl_allocator *caching = tl_cpu_caching_allocator();
    size_t align;

    for (align = 1; align <= 4096; align *= 2) {
        tl_block *b = tl_block_alloc_from(caching, TL_MEMKIND_PERSISTENT,
                                          777, align);
        CHECK(b != NULL);
        if (b != NULL) {
            CHECK((uintptr_t)tl_block_ptr(b) % align == 0);
            CHECK(tl_block_memkind(b) == TL_MEMKIND_PERSISTENT);
            memset(tl_block_ptr(b), 1, 777);
        }
        tl_block_decref(b);
    }
}

static void test_block_wrap_deleter_once(void)
{
    char buf[64];
    tl_block *b;
    int i;

    deleter_calls = 0;
    b = tl_block_wrap(buf, sizeof(buf), tl_device_cpu(), true,
                      count_deleter, buf + 1);
    CHECK(b != NULL);
    if (b == NULL) {
        return;
    }
    CHECK(tl_block_ptr(b) == buf);
    CHECK(tl_block_nbytes(b) == sizeof(buf));
    CHECK(tl_block_is_readonly(b));
    CHECK(tl_block_owner(b) == NULL);
    for (i = 0; i < 10; i++) {
        tl_block_incref(b);
    }
    for (i = 0; i < 10; i++) {
        tl_block_decref(b);
    }
    CHECK(deleter_calls == 0);
    tl_block_decref(b);
    CHECK(deleter_calls == 1);
    CHECK(deleter_seen == buf + 1);

    /* No deleter: memory the caller keeps alive. */
    b = tl_block_wrap(buf, 8, tl_device_cpu(), false, NULL, NULL);
    CHECK(b != NULL && !tl_block_is_readonly(b));
    tl_block_decref(b);
    CHECK(deleter_calls == 1);

    /* Bad arguments: nothing is wrapped, the deleter is not called. */
    CHECK(tl_block_wrap(NULL, 8, tl_device_cpu(), false, count_deleter,
                        NULL) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(tl_block_wrap(buf, 8, (tl_device){TL_DEVICE_CPU, 3}, false,
                        count_deleter, NULL) == NULL);
    CHECK(deleter_calls == 1);
    /* NULL with 0 bytes is fine (an empty DLPack tensor). */
    b = tl_block_wrap(NULL, 0, (tl_device){TL_DEVICE_CUDA, 2}, false,
                      count_deleter, NULL);
    CHECK(b != NULL);
    tl_block_decref(b);
    CHECK(deleter_calls == 2);
}

#define REF_THREADS 4
#define REF_ITERS 100000

static void *refcount_worker(void *arg)
{
    tl_block *b = arg;
    int i;

    for (i = 0; i < REF_ITERS; i++) {
        tl_block_incref(b);
        tl_block_decref(b);
    }
    tl_block_decref(b); /* the reference main gave this thread */
    return NULL;
}

static void test_block_refcount_threads(void)
{
    static char mem[16];
    pthread_t t[REF_THREADS];
    tl_block *b;
    int i;

    deleter_calls = 0;
    b = tl_block_wrap(mem, sizeof(mem), tl_device_cpu(), false,
                      count_deleter, NULL);
    CHECK(b != NULL);
    if (b == NULL) {
        return;
    }
    for (i = 0; i < REF_THREADS; i++) {
        tl_block_incref(b);
        pthread_create(&t[i], NULL, refcount_worker, b);
    }
    for (i = 0; i < REF_THREADS; i++) {
        pthread_join(t[i], NULL);
    }
    CHECK(deleter_calls == 0);
    CHECK_EQ_I64(tl_block_refcount(b), 1);
    tl_block_decref(b);
    CHECK(deleter_calls == 1);
}

/* ---- the aligned allocator ---------------------------------------------- */

static void test_aligned_allocator(void)
{
    const tl_allocator *a = tl_cpu_aligned_allocator();
    tl_alloc_stats s0, s1;
    void *p[13];
    void *z1, *z2;
    size_t align;
    int i = 0;

    CHECK(a->abi_version == TL_ALLOCATOR_ABI_VERSION);
    CHECK(strcmp(a->name, "cpu_aligned") == 0);
    CHECK(tl_device_eq(a->device, tl_device_cpu()));
    a->stats(a->ctx, &s0);
    for (align = 1; align <= 4096; align *= 2, i++) {
        p[i] = a->allocate(a->ctx, 100, align);
        CHECK(p[i] != NULL);
        CHECK((uintptr_t)p[i] % (align > 64 ? align : 64) == 0);
        memset(p[i], 0x5a, 100);
    }
    z1 = a->allocate(a->ctx, 0, 64);
    z2 = a->allocate(a->ctx, 0, 64);
    CHECK(z1 != NULL && z2 != NULL && z1 != z2);
    a->stats(a->ctx, &s1);
    CHECK_EQ_I64(s1.active_bytes - s0.active_bytes, 100 * i);
    CHECK_EQ_I64(s1.alloc_count - s0.alloc_count, i + 2);
    CHECK_EQ_I64(s1.reserved_bytes, s1.active_bytes);
    CHECK_EQ_I64(s1.cached_bytes, 0);
    CHECK(s1.active_bytes_peak >= s1.active_bytes);
    while (i-- > 0) {
        a->deallocate(a->ctx, p[i], 100);
    }
    a->deallocate(a->ctx, z1, 0);
    a->deallocate(a->ctx, z2, 0);
    a->stats(a->ctx, &s1);
    CHECK_EQ_I64(s1.active_bytes, s0.active_bytes);
    CHECK_EQ_I64(s1.free_count - s0.free_count, 15);
    a->reset_peak(a->ctx);
    a->stats(a->ctx, &s1);
    CHECK_EQ_I64(s1.active_bytes_peak, s1.active_bytes);

    tl_error_clear();
    CHECK(a->allocate(a->ctx, 10, 48) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(a->allocate(a->ctx, (size_t)PTRDIFF_MAX + 1, 64) == NULL);
    CHECK(tl_error_kind() == TL_ERR_MEMORY);
    CHECK(msg_has("failed to allocate") && msg_has("bytes on cpu"));
}

/* ---- the CPU caching allocator ------------------------------------------ */

static void test_cpu_caching_allocator(void)
{
    const tl_allocator *c = tl_cpu_caching_allocator();
    tl_alloc_stats s0, s1;
    void *p, *q;

    CHECK(c != NULL && c == tl_cpu_caching_allocator());
    if (c == NULL) {
        return;
    }
    CHECK(strcmp(c->name, "cpu_caching") == 0);
    CHECK(tl_pool_check(c) == 0);
    /* A small block freed and asked for again: same memory, a cache hit. */
    p = c->allocate(c->ctx, 256, 64);
    CHECK(p != NULL && (uintptr_t)p % 64 == 0);
    c->deallocate(c->ctx, p, 256);
    c->stats(c->ctx, &s0);
    q = c->allocate(c->ctx, 256, 64);
    c->stats(c->ctx, &s1);
    CHECK(q == p);
    CHECK_EQ_I64(s1.cache_hits, s0.cache_hits + 1);
    CHECK_EQ_I64(s1.reserved_bytes, s0.reserved_bytes);
    c->deallocate(c->ctx, q, 256);

    /* A large one too (its own huge-page segment). */
    p = c->allocate(c->ctx, (size_t)5 << 20, 4096);
    CHECK(p != NULL && (uintptr_t)p % 4096 == 0);
    if (p != NULL) {
        memset(p, 7, (size_t)5 << 20);
        c->deallocate(c->ctx, p, (size_t)5 << 20);
    }
    c->stats(c->ctx, &s0);
    q = c->allocate(c->ctx, (size_t)5 << 20, 64);
    c->stats(c->ctx, &s1);
    CHECK(q == p);
    CHECK_EQ_I64(s1.cache_misses, s0.cache_misses);
    c->deallocate(c->ctx, q, (size_t)5 << 20);
    CHECK(tl_pool_check(c) == 0);

    /* Far too much: TL_ERR_MEMORY naming the bytes, the pool intact. */
    tl_error_clear();
    CHECK(c->allocate(c->ctx, (size_t)1 << 62, 64) == NULL);
    CHECK(tl_error_kind() == TL_ERR_MEMORY);
    CHECK(msg_has("4611686018427387904"));
    CHECK(c->allocate(c->ctx, SIZE_MAX, 64) == NULL);
    CHECK(tl_error_kind() == TL_ERR_MEMORY);
    CHECK(tl_pool_check(c) == 0);
}

/* ---- the registry ------------------------------------------------------- */

static void *fake_raw_alloc(void *ctx, size_t n)
{
    void *p = NULL;
    (void)ctx;
    return posix_memalign(&p, 4096, n) == 0 ? p : NULL;
}

static void fake_raw_free(void *ctx, void *p, size_t n)
{
    (void)ctx;
    (void)n;
    free(p);
}

static void add_stats(tl_alloc_stats *sum, const tl_allocator *a)
{
    tl_alloc_stats s;

    a->stats(a->ctx, &s);
    sum->active_bytes += s.active_bytes;
    sum->reserved_bytes += s.reserved_bytes;
    sum->cached_bytes += s.cached_bytes;
    sum->alloc_count += s.alloc_count;
    sum->free_count += s.free_count;
    sum->cache_hits += s.cache_hits;
    sum->cache_misses += s.cache_misses;
    sum->fragmentation_bytes += s.fragmentation_bytes;
}

static void test_registry_defaults(void)
{
    tl_device cpu = tl_device_cpu();
    tl_device cuda1 = {TL_DEVICE_CUDA, 1};
    const tl_allocator *caching = tl_cpu_caching_allocator();

    CHECK(tl_registry_get(cpu, TL_MEMKIND_DEFAULT) == caching);
    CHECK(tl_registry_get(cpu, TL_MEMKIND_PERSISTENT) == caching);
    CHECK(tl_registry_get(cpu, TL_MEMKIND_KVCACHE) == caching);
    CHECK(tl_registry_get(cpu, TL_MEMKIND_HOST_PAGEABLE) ==
          tl_cpu_aligned_allocator());

    /* The memory system's allocators (test_arena.c tests them). */
    CHECK(tl_registry_get(cpu, TL_MEMKIND_HOST_PINNED) ==
          tl_cpu_pinned_allocator());
    CHECK(tl_registry_get(cpu, TL_MEMKIND_WORKSPACE) ==
          tl_workspace_allocator());
    tl_error_clear();
    CHECK(tl_registry_get(cuda1, TL_MEMKIND_DEFAULT) == NULL);
    CHECK(tl_error_kind() == TL_ERR_RUNTIME);
    CHECK(msg_has("(cuda:1, Default)") && msg_has("built without CUDA"));
    CHECK(tl_registry_get(cuda1, TL_MEMKIND_HOST_PINNED) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(strcmp(tl_error_message(),
                 "memory kind HostPinned is a host kind and cannot be used "
                 "on device cuda:1") == 0);
    CHECK(tl_registry_get((tl_device){TL_DEVICE_CUDA, 64},
                          TL_MEMKIND_DEFAULT) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(tl_registry_get((tl_device){7, 0}, TL_MEMKIND_DEFAULT) == NULL);
    CHECK(tl_registry_get(cpu, (tl_memkind)99) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
}

static void test_registry_set_and_stats(void)
{
    tl_device cpu = tl_device_cpu();
    tl_device cuda0 = {TL_DEVICE_CUDA, 0};
    tl_raw_allocator raw = {"fake", NULL, {TL_DEVICE_CPU, 0}, fake_raw_alloc,
                            fake_raw_free};
    tl_pool_config cfg = tl_pool_config_cpu();
    tl_allocator *ws = tl_pool_new(&raw, &cfg, "test_workspace");
    const tl_allocator *caching = tl_cpu_caching_allocator();
    const tl_allocator *aligned = tl_cpu_aligned_allocator();
    tl_alloc_stats expect, got;
    tl_block *b1, *b2, *b3, *b4;

    CHECK(ws != NULL);
    if (ws == NULL) {
        return;
    }
    CHECK(tl_registry_set(cpu, TL_MEMKIND_WORKSPACE, ws) == 0);
    CHECK(tl_registry_get(cpu, TL_MEMKIND_WORKSPACE) == ws);
    /* Refused: a host kind on CUDA, a CPU allocator for a CUDA slot. */
    CHECK(tl_registry_set(cuda0, TL_MEMKIND_HOST_PINNED, aligned) ==
          TL_ERR_VALUE);
    CHECK(msg_has("host kind"));
    CHECK(tl_registry_set(cuda0, TL_MEMKIND_DEFAULT, aligned) ==
          TL_ERR_VALUE);
    CHECK(tl_registry_get(cuda0, TL_MEMKIND_DEFAULT) == NULL);

    b1 = tl_block_alloc(cpu, TL_MEMKIND_DEFAULT, 1000);
    b2 = tl_block_alloc(cpu, TL_MEMKIND_KVCACHE, 3000);
    b3 = tl_block_alloc(cpu, TL_MEMKIND_WORKSPACE, 5000);
    b4 = tl_block_alloc(cpu, TL_MEMKIND_HOST_PAGEABLE, 7000);
    CHECK(b1 && b2 && b3 && b4);
    CHECK(b3 != NULL && tl_block_owner(b3) == ws);

    /* The caching pool serves three kinds and is counted once. */
    memset(&expect, 0, sizeof(expect));
    add_stats(&expect, caching);
    add_stats(&expect, aligned);
    add_stats(&expect, ws);
    CHECK(tl_registry_stats(cpu, -1, &got) == 0);
    CHECK_EQ_I64(got.active_bytes, expect.active_bytes);
    CHECK_EQ_I64(got.reserved_bytes, expect.reserved_bytes);
    CHECK_EQ_I64(got.cached_bytes, expect.cached_bytes);
    CHECK_EQ_I64(got.alloc_count, expect.alloc_count);
    CHECK_EQ_I64(got.free_count, expect.free_count);
    CHECK_EQ_I64(got.cache_hits, expect.cache_hits);
    CHECK_EQ_I64(got.cache_misses, expect.cache_misses);
    CHECK_EQ_I64(got.fragmentation_bytes, expect.fragmentation_bytes);

    /* One kind only. */
    memset(&expect, 0, sizeof(expect));
    add_stats(&expect, ws);
    CHECK(tl_registry_stats(cpu, TL_MEMKIND_WORKSPACE, &got) == 0);
    CHECK_EQ_I64(got.active_bytes, 5000);
    CHECK_EQ_I64(got.reserved_bytes, expect.reserved_bytes);
    CHECK(tl_registry_stats(cpu, TL_MEMKIND_COUNT, &got) == TL_ERR_VALUE);
    /* Nothing on CUDA: all zero. */
    CHECK(tl_registry_stats(cuda0, -1, &got) == 0);
    CHECK_EQ_I64(got.reserved_bytes, 0);
    CHECK_EQ_I64(got.alloc_count, 0);

    tl_block_decref(b1);
    tl_block_decref(b2);
    tl_block_decref(b3);
    tl_block_decref(b4);

    /* reset_peak and empty_cache reach every distinct allocator. */
    tl_registry_reset_peak(cpu);
    CHECK(tl_registry_stats(cpu, TL_MEMKIND_WORKSPACE, &got) == 0);
    CHECK_EQ_I64(got.active_bytes_peak, 0);
    tl_registry_empty_cache(cpu);
    CHECK(tl_registry_stats(cpu, TL_MEMKIND_WORKSPACE, &got) == 0);
    CHECK_EQ_I64(got.reserved_bytes, 0);
    CHECK_EQ_I64(tl_pool_segment_count(ws), 0);

    /* Unregister before the pool goes away. */
    CHECK(tl_registry_set(cpu, TL_MEMKIND_WORKSPACE, NULL) == 0);
    CHECK(tl_registry_get(cpu, TL_MEMKIND_WORKSPACE) == NULL);
    CHECK(tl_pool_destroy(ws) == 0);
    CHECK(tl_registry_set(cpu, TL_MEMKIND_WORKSPACE,
                          tl_workspace_allocator()) == 0);
}

int main(void)
{
    RUN(test_error_record);
    RUN(test_device_parse_good);
    RUN(test_device_parse_bad);
    RUN(test_device_format_small_buffer);
    RUN(test_memkind_names);
    RUN(test_nbytes_parse);
    RUN(test_cpu_cache_limit_env);
    RUN(test_block_alloc_refcount);
    RUN(test_block_alloc_errors);
    RUN(test_block_alloc_from_alignment);
    RUN(test_block_wrap_deleter_once);
    RUN(test_block_refcount_threads);
    RUN(test_aligned_allocator);
    RUN(test_cpu_caching_allocator);
    RUN(test_registry_defaults);
    RUN(test_registry_set_and_stats);
    DONE();
}
