/* tests/c/test_arena.c — the memory system seen from C: workspace arenas
 * (alignment, chaining, fixed arenas, generations, reset reusing memory or
 * leaving held chunks alone, closing), the per-thread stack and the
 * workspace allocator, pins and exports, the registry with an allocator
 * table of our own (tl_registry_set), the built-in allocators by name,
 * pinned memory, stale tensors refused by the iterator, and execution
 * plans (one allocation, offsets, alignment, locked metadata). */

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tensorlib/ops.h>
#include <tensorlib/tensorlib.h>

#include "harness.h"

static bool msg_has(const char *needle)
{
    bool ok = strstr(tl_error_message(), needle) != NULL;
    if (!ok) {
        fprintf(stderr, "  message was: %s\n", tl_error_message());
    }
    return ok;
}

static bool all_bytes(const void *p, size_t n, unsigned char v)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        if (c[i] != v) {
            return false;
        }
    }
    return true;
}

/* ---- arenas ------------------------------------------------------------- */

static void test_arena_basic(void)
{
    tl_arena *a = tl_arena_new(NULL, 8192, 0);
    tl_alloc_stats s;
    char *p1, *p2, *p3;

    CHECK(a != NULL);
    CHECK_EQ_I64(tl_arena_capacity(a), 8192);
    CHECK_EQ_I64(tl_arena_chunk_count(a), 1);
    CHECK_EQ_I64(tl_arena_generation(a), 1);
    CHECK(tl_device_eq(tl_arena_device(a), tl_device_cpu()));

    p1 = tl_arena_alloc(a, 100, 64);
    p2 = tl_arena_alloc(a, 10, 4096);
    p3 = tl_arena_alloc(a, 0, 1);
    CHECK(p1 != NULL && p2 != NULL && p3 != NULL);
    CHECK((uintptr_t)p1 % 64 == 0);
    CHECK((uintptr_t)p2 % 4096 == 0);
    CHECK(p3 != p2 && p3 > p2); /* zero bytes still get their own address */
    memset(p1, 1, 100);
    memset(p2, 2, 10);
    CHECK(all_bytes(p1, 100, 1));

    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.alloc_count, 3);
    CHECK_EQ_I64(s.active_bytes, 110);
    CHECK_EQ_I64(s.reserved_bytes, 8192);
    CHECK_EQ_I64(s.cache_hits, 3);
    CHECK_EQ_I64(s.cache_misses, 0);
    CHECK_EQ_I64(s.fragmentation_bytes, 8192 - 110);
    CHECK_EQ_I64(s.cached_bytes, 8192 - (int64_t)tl_arena_used(a));

    /* Reset: one new generation, everything released, the same memory
     * reused at once (nothing was exported or pinned). */
    tl_arena_reset(a);
    CHECK_EQ_I64(tl_arena_generation(a), 2);
    CHECK_EQ_I64(tl_arena_used(a), 0);
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.active_bytes, 0);
    CHECK_EQ_I64(s.free_count, 3);
    CHECK_EQ_I64(s.active_bytes_peak, 110);
    CHECK_EQ_I64(s.reserved_bytes, 8192);
    CHECK(tl_arena_alloc(a, 100, 64) == p1);
    tl_arena_decref(a);
}

static void test_arena_bad_input(void)
{
    tl_arena *a = tl_arena_new(NULL, 4096, 0);
    tl_alloc_stats s;

    CHECK(tl_arena_alloc(a, 8, 3) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE && msg_has("power of two"));
    CHECK(tl_arena_alloc(a, 8, 8192) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(tl_arena_alloc(a, 8, 0) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(tl_arena_alloc(a, SIZE_MAX, 64) == NULL);
    CHECK(tl_error_kind() == TL_ERR_MEMORY);
    CHECK(tl_arena_alloc_block(a, (tl_memkind)99, 8, 64) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.alloc_count, 0); /* nothing was carved by a failure */
    CHECK_EQ_I64(tl_arena_used(a), 0);
    tl_arena_decref(a);

    CHECK(tl_arena_new(NULL, SIZE_MAX, 0) == NULL);
    CHECK(tl_error_kind() == TL_ERR_MEMORY && msg_has("bytes"));
    CHECK(tl_arena_new(NULL, 4096, 0x80) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(tl_arena_new(tl_workspace_allocator(), 4096, 0) == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE);

    /* An arena of 0 bytes takes its chunks lazily. */
    a = tl_arena_new(NULL, 0, 0);
    CHECK(a != NULL && tl_arena_capacity(a) == 0);
    CHECK(tl_arena_alloc(a, 100, 64) != NULL);
    CHECK(tl_arena_capacity(a) >= 100);
    tl_arena_decref(a);
}

static void test_arena_chain(void)
{
    tl_arena *a = tl_arena_new(NULL, 4096, 0);
    tl_alloc_stats s;
    char *p1 = tl_arena_alloc(a, 3000, 64);
    char *p2;

    memset(p1, 7, 3000);
    p2 = tl_arena_alloc(a, 3000, 64); /* does not fit: a second chunk */
    CHECK(p2 != NULL);
    memset(p2, 8, 3000);
    CHECK(all_bytes(p1, 3000, 7)); /* earlier memory stays valid */
    CHECK_EQ_I64(tl_arena_chunk_count(a), 2);
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.cache_misses, 1);
    CHECK_EQ_I64(s.cache_hits, 1);
    CHECK_EQ_I64(s.reserved_bytes, 8192);

    /* A request larger than a chunk gets a chunk of its own size. */
    CHECK(tl_arena_alloc(a, 20000, 64) != NULL);
    CHECK_EQ_I64(tl_arena_chunk_count(a), 3);

    /* Reset keeps every chunk and carves them again in order. */
    tl_arena_reset(a);
    CHECK_EQ_I64(tl_arena_chunk_count(a), 3);
    CHECK(tl_arena_alloc(a, 3000, 64) == p1);
    CHECK(tl_arena_alloc(a, 3000, 64) == p2);
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.cache_misses, 2);
    tl_arena_decref(a);
}

static void test_arena_fixed(void)
{
    tl_arena *a = tl_arena_new(NULL, 4096, TL_ARENA_FIXED);
    tl_alloc_stats s;

    CHECK(tl_arena_alloc(a, 3000, 64) != NULL);
    CHECK(tl_arena_alloc(a, 3000, 64) == NULL);
    CHECK(tl_error_kind() == TL_ERR_MEMORY);
    CHECK(msg_has("exhausted") && msg_has("3000 bytes"));
    CHECK_EQ_I64(tl_arena_chunk_count(a), 1);
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.alloc_count, 1);
    tl_arena_reset(a);
    CHECK(tl_arena_alloc(a, 3000, 64) != NULL);
    tl_arena_decref(a);
}

static void test_arena_generations(void)
{
    tl_arena *a = tl_arena_new(NULL, 4096, 0);
    tl_block *b = tl_arena_alloc_block(a, TL_MEMKIND_WORKSPACE, 64, 64);
    tl_block *c;
    tl_alloc_stats s;

    CHECK(b != NULL);
    CHECK_EQ_I64(tl_block_generation(b), 1);
    CHECK(tl_block_memkind(b) == TL_MEMKIND_WORKSPACE);
    CHECK(tl_block_owner(b) == NULL);
    CHECK(tl_block_check_live(b) == TL_OK);

    /* Released before a reset: leaves the active count at once. */
    c = tl_arena_alloc_block(a, TL_MEMKIND_WORKSPACE, 100, 64);
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.active_bytes, 164);
    tl_block_decref(c);
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.active_bytes, 64);
    CHECK_EQ_I64(s.free_count, 1);

    tl_arena_reset(a);
    tl_arena_reset(a);
    CHECK(tl_block_check_live(b) == TL_ERR_RUNTIME);
    CHECK(msg_has("reset (generation 1, now 3)"));
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.free_count, 2); /* the reset released b */
    tl_block_decref(b);            /* ... so this changes no counter */
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.free_count, 2);
    CHECK_EQ_I64(s.active_bytes, 0);
    CHECK_EQ_I64(s.alloc_count, s.free_count);

    /* Closing: a block that outlives its arena is dead ("closed"). */
    b = tl_arena_alloc_block(a, TL_MEMKIND_WORKSPACE, 64, 64);
    tl_arena_decref(a);
    CHECK(tl_block_check_live(b) == TL_ERR_RUNTIME && msg_has("closed"));
    tl_block_decref(b); /* frees the last of the arena (LSan checks) */
}

/* A pinned (or exported) block keeps its chunk out of reuse. */
static void test_arena_holds(void)
{
    tl_arena *a = tl_arena_new(NULL, 4096, 0);
    tl_block *b = tl_arena_alloc_block(a, TL_MEMKIND_WORKSPACE, 256, 64);
    char *old = tl_block_ptr(b);
    char *fresh;
    tl_alloc_stats s;

    memset(old, 0xab, 256);
    tl_block_pin(b); /* as the iterator does before releasing the GIL */
    tl_arena_reset(a);
    CHECK(tl_block_check_live(b) == TL_ERR_RUNTIME);
    CHECK_EQ_I64(tl_arena_chunk_count(a), 0); /* let go, not reused */
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.reserved_bytes, 4096);     /* ... but still there */
    fresh = tl_arena_alloc(a, 256, 64);
    CHECK(fresh != NULL && (fresh < old || fresh >= old + 4096));
    memset(fresh, 0xcd, 256);
    CHECK(all_bytes(old, 256, 0xab)); /* the pinned bytes were not reused */
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.reserved_bytes, 8192);
    tl_block_unpin(b); /* the last hold: the old chunk goes back */
    tl_arena_stats(a, &s);
    CHECK_EQ_I64(s.reserved_bytes, 4096);
    tl_block_decref(b);

    /* Unheld chunks are reused at once. */
    tl_arena_reset(a);
    CHECK(tl_arena_alloc(a, 256, 64) == fresh);
    tl_arena_decref(a);
}

static void test_arena_tensors_and_exports(void)
{
    tl_arena *a = tl_arena_new(NULL, 1 << 16, 0);
    int64_t sizes[2] = {4, 8}, strides[2] = {8, 1}, big[1] = {100};
    tl_block *b = tl_arena_alloc_block(a, TL_MEMKIND_WORKSPACE, 128, 64);
    tl_storage *s = tl_storage_from_block(b, 0, 128);
    tl_tensor_impl *t = tl_tensor_new(s, 0, 2, sizes, strides,
                                      TL_DTYPE_FLOAT32);
    tl_alloc_stats st;
    float *p;

    tl_block_decref(b);
    CHECK(t != NULL);
    CHECK(!(tl_tensor_flags(t) & TL_FLAG_ALLOW_METADATA_CHANGE));
    CHECK(tl_tensor_resize_(t, 1, big) == TL_ERR_RUNTIME);
    CHECK(tl_tensor_set_(t, s, 0, 2, sizes, strides) == TL_ERR_RUNTIME);
    CHECK(tl_tensor_check_live(t) == TL_OK);
    p = tl_tensor_data(t);
    for (int i = 0; i < 32; i++) {
        p[i] = (float)i;
    }
    /* An export (a NumPy array, a memoryview) keeps the bytes past a reset
     * while the tensor itself is dead. */
    tl_storage_export_begin(s);
    tl_arena_reset(a);
    CHECK(tl_tensor_check_live(t) == TL_ERR_RUNTIME);
    CHECK(msg_has("this tensor's workspace was reset (generation 1, now 2)"));
    CHECK(tl_storage_check_live(s) == TL_ERR_RUNTIME);
    CHECK(tl_arena_alloc(a, 128, 64) != (void *)p);
    CHECK(p[31] == 31.0f);
    tl_arena_stats(a, &st);
    CHECK_EQ_I64(st.reserved_bytes, 2 << 16);
    tl_storage_export_end(s);
    tl_arena_stats(a, &st);
    CHECK_EQ_I64(st.reserved_bytes, 1 << 16);
    tl_tensor_decref(t);
    tl_storage_decref(s);
    tl_arena_decref(a);
}

/* The iterator refuses a stale operand before touching it. */
static void test_stale_tensor_in_ops(void)
{
    tl_arena *a = tl_arena_new(NULL, 1 << 16, 0);
    int64_t n[1] = {1000};
    tl_tensor_impl *x, *y, *z, *d;
    tl_scalar one = tl_scalar_float(1.0);

    CHECK(tl_arena_push(a) == TL_OK);
    x = tl_tensor_empty(1, n, TL_DTYPE_FLOAT32, tl_device_cpu(),
                        TL_MEMKIND_WORKSPACE);
    CHECK(x != NULL);
    CHECK(!(tl_tensor_flags(x) & TL_FLAG_ALLOW_METADATA_CHANGE));
    CHECK(tl_op_fill_(x, &one) == TL_OK);
    d = tl_tensor_empty(1, n, TL_DTYPE_FLOAT32, tl_device_cpu(),
                        TL_MEMKIND_DEFAULT);
    z = tl_op_binary(TL_BINARY_ADD, NULL, x, x, NULL);
    CHECK(z != NULL && ((float *)tl_tensor_data(z))[999] == 2.0f);
    tl_tensor_decref(z);
    tl_arena_reset(a);
    CHECK(tl_op_copy_(d, x) == TL_ERR_RUNTIME && msg_has("workspace"));
    CHECK(tl_op_copy_(x, d) == TL_ERR_RUNTIME);
    CHECK(tl_op_fill_(x, &one) == TL_ERR_RUNTIME);
    y = tl_op_binary(TL_BINARY_MUL, NULL, d, x, NULL);
    CHECK(y == NULL && tl_error_kind() == TL_ERR_RUNTIME);
    CHECK(tl_op_clone(x, TL_FORMAT_CONTIGUOUS) == NULL);
    CHECK(tl_arena_pop(a) == TL_OK);
    tl_tensor_decref(x);
    tl_tensor_decref(d);
    tl_arena_decref(a);
}

/* ---- the per-thread stack and the workspace allocator ------------------- */

static atomic_int thread_saw_none;

static void *other_thread(void *arg)
{
    tl_arena *mine = tl_arena_new(NULL, 4096, 0);
    (void)arg;
    /* The main thread's workspace is not this thread's. */
    atomic_store(&thread_saw_none, tl_arena_current() == NULL &&
                                       tl_arena_depth() == 0);
    CHECK(tl_block_alloc(tl_device_cpu(), TL_MEMKIND_WORKSPACE, 8) == NULL);
    /* Ends with an arena pushed: the thread's stack drops it (LSan). */
    tl_arena_push(mine);
    tl_arena_decref(mine);
    return NULL;
}

static void test_stack(void)
{
    tl_arena *a = tl_arena_new(NULL, 4096, 0);
    tl_arena *b = tl_arena_new(NULL, 4096, 0);
    tl_block *blk;
    pthread_t th;

    CHECK(tl_arena_current() == NULL && tl_arena_depth() == 0);
    CHECK(tl_arena_pop(a) == TL_ERR_RUNTIME && msg_has("empty"));
    CHECK(tl_arena_push(a) == TL_OK);
    CHECK(tl_arena_push(b) == TL_OK);
    CHECK(tl_arena_current() == b && tl_arena_depth() == 2);
    CHECK(tl_arena_pop(a) == TL_ERR_RUNTIME && msg_has("innermost"));
    CHECK(tl_arena_depth() == 2);

    blk = tl_block_alloc(tl_device_cpu(), TL_MEMKIND_WORKSPACE, 32);
    CHECK(blk != NULL && tl_block_generation(blk) == tl_arena_generation(b));
    pthread_create(&th, NULL, other_thread, NULL);
    pthread_join(th, NULL);
    CHECK(atomic_load(&thread_saw_none));

    CHECK(tl_arena_pop(b) == TL_OK);
    tl_arena_reset(b);
    CHECK(tl_block_check_live(blk) == TL_ERR_RUNTIME);
    CHECK(tl_arena_current() == a);
    CHECK(tl_arena_pop(a) == TL_OK);
    CHECK(tl_arena_current() == NULL);
    tl_block_decref(blk);
    tl_arena_decref(a);
    tl_arena_decref(b);
}

static void test_workspace_allocator(void)
{
    const tl_allocator *w = tl_registry_get(tl_device_cpu(),
                                            TL_MEMKIND_WORKSPACE);
    int64_t n[1] = {16};
    tl_alloc_stats before, after;
    tl_arena *a;
    tl_block *b;
    void *raw;

    CHECK(w == tl_workspace_allocator());
    CHECK(strcmp(w->name, "workspace_arena") == 0);
    CHECK(tl_block_alloc(tl_device_cpu(), TL_MEMKIND_WORKSPACE, 8) == NULL);
    CHECK(tl_error_kind() == TL_ERR_RUNTIME);
    CHECK(msg_has("tensorlib.workspace") && msg_has("8 bytes"));
    CHECK(tl_tensor_empty(1, n, TL_DTYPE_FLOAT32, tl_device_cpu(),
                          TL_MEMKIND_WORKSPACE) == NULL);
    CHECK(w->allocate(w->ctx, 8, 64) == NULL);

    tl_registry_stats(tl_device_cpu(), TL_MEMKIND_WORKSPACE, &before);
    a = tl_arena_new(NULL, 4096, 0);
    tl_arena_push(a);
    b = tl_block_alloc(tl_device_cpu(), TL_MEMKIND_WORKSPACE, 100);
    raw = w->allocate(w->ctx, 10, 64); /* through the table: untracked */
    CHECK(b != NULL && raw != NULL);
    tl_registry_stats(tl_device_cpu(), TL_MEMKIND_WORKSPACE, &after);
    CHECK_EQ_I64(after.active_bytes - before.active_bytes, 110);
    CHECK_EQ_I64(after.reserved_bytes - before.reserved_bytes, 4096);
    CHECK_EQ_I64(after.alloc_count - before.alloc_count, 2);
    w->deallocate(w->ctx, raw, 10); /* a no-op: the reset frees it */
    tl_arena_pop(a);
    tl_block_decref(b);
    tl_arena_decref(a);
    tl_registry_stats(tl_device_cpu(), TL_MEMKIND_WORKSPACE, &after);
    CHECK_EQ_I64(after.active_bytes, before.active_bytes);
    CHECK_EQ_I64(after.reserved_bytes, before.reserved_bytes);
    CHECK_EQ_I64(after.alloc_count - after.free_count,
                 before.alloc_count - before.free_count);
}

/* ---- the registry with a table of our own ------------------------------- */

static atomic_llong my_allocs, my_frees, my_active;

static void *my_allocate(void *ctx, size_t nbytes, size_t alignment)
{
    void *p = NULL;
    (void)ctx;
    if (alignment < sizeof(void *)) {
        alignment = sizeof(void *);
    }
    if (posix_memalign(&p, alignment, nbytes ? nbytes : 1) != 0) {
        tl_error(TL_ERR_MEMORY, "my_allocate: %zu bytes", nbytes);
        return NULL;
    }
    atomic_fetch_add(&my_allocs, 1);
    atomic_fetch_add(&my_active, (long long)nbytes);
    return p;
}

static void my_deallocate(void *ctx, void *ptr, size_t nbytes)
{
    (void)ctx;
    free(ptr);
    atomic_fetch_add(&my_frees, 1);
    atomic_fetch_sub(&my_active, (long long)nbytes);
}

static void my_stats(void *ctx, tl_alloc_stats *out)
{
    (void)ctx;
    memset(out, 0, sizeof(*out));
    out->active_bytes = atomic_load(&my_active);
    out->reserved_bytes = out->active_bytes;
    out->alloc_count = atomic_load(&my_allocs);
    out->free_count = atomic_load(&my_frees);
}

static const tl_allocator my_allocator = {
    .abi_version = TL_ALLOCATOR_ABI_VERSION,
    .name = "test_counting",
    .device = {TL_DEVICE_CPU, 0},
    .allocate = my_allocate,
    .deallocate = my_deallocate,
    .stats = my_stats,
};

static void test_registry_custom_allocator(void)
{
    const tl_device cpu = tl_device_cpu();
    const tl_allocator *old = tl_registry_get(cpu, TL_MEMKIND_PERSISTENT);
    int64_t n[1] = {250};
    tl_tensor_impl *t;
    tl_alloc_stats s;
    tl_allocator bad = my_allocator;
    tl_device cuda = {TL_DEVICE_CUDA, 0};

    CHECK(tl_registry_set(cpu, TL_MEMKIND_PERSISTENT, &my_allocator) == 0);
    CHECK(strcmp(tl_registry_get(cpu, TL_MEMKIND_PERSISTENT)->name,
                 "test_counting") == 0);
    t = tl_tensor_empty(1, n, TL_DTYPE_FLOAT32, cpu, TL_MEMKIND_PERSISTENT);
    CHECK(t != NULL && tl_block_owner(tl_storage_block(
                           tl_tensor_storage(t))) == &my_allocator);
    CHECK_EQ_I64(atomic_load(&my_allocs), 1);
    CHECK(tl_registry_stats(cpu, TL_MEMKIND_PERSISTENT, &s) == 0);
    CHECK_EQ_I64(s.active_bytes, 1000);

    /* Rerouting never frees memory in use: t goes back to its maker. */
    CHECK(tl_registry_set(cpu, TL_MEMKIND_PERSISTENT, old) == 0);
    CHECK_EQ_I64(atomic_load(&my_frees), 0);
    ((float *)tl_tensor_data(t))[249] = 3.0f;
    tl_tensor_decref(t);
    CHECK_EQ_I64(atomic_load(&my_frees), 1);
    CHECK_EQ_I64(atomic_load(&my_active), 0);

    /* Tables the registry refuses. */
    bad.abi_version = 99;
    CHECK(tl_registry_set(cpu, TL_MEMKIND_DEFAULT, &bad) == TL_ERR_VALUE);
    CHECK(msg_has("ABI version 99"));
    bad = my_allocator;
    bad.allocate = NULL;
    CHECK(tl_registry_set(cpu, TL_MEMKIND_DEFAULT, &bad) == TL_ERR_VALUE);
    bad = my_allocator;
    CHECK(tl_registry_set(cuda, TL_MEMKIND_DEFAULT, &bad) == TL_ERR_VALUE);
    CHECK(msg_has("serves device cpu"));
    CHECK(tl_registry_set(cuda, TL_MEMKIND_HOST_PINNED, NULL) ==
          TL_ERR_VALUE);
    CHECK(msg_has("host kind"));
    CHECK(tl_registry_set(cpu, (tl_memkind)42, &my_allocator) ==
          TL_ERR_VALUE);
    CHECK(tl_registry_get(cpu, TL_MEMKIND_DEFAULT) ==
          tl_cpu_caching_allocator());
}

static void test_builtins(void)
{
    const char *names[8];
    int n = tl_allocator_builtin_names(names, 8);

    CHECK_EQ_I64(n, 4);
    for (int i = 0; i < n; i++) {
        const tl_allocator *a = tl_allocator_builtin(names[i]);
        CHECK(a != NULL && strcmp(a->name, names[i]) == 0);
    }
    CHECK(tl_allocator_builtin("cpu_pinned") == tl_cpu_pinned_allocator());
    CHECK(tl_allocator_builtin("nope") == NULL);
    CHECK(tl_error_kind() == TL_ERR_VALUE && msg_has("cpu_caching"));
    CHECK(tl_registry_get(tl_device_cpu(), TL_MEMKIND_HOST_PINNED) ==
          tl_cpu_pinned_allocator());
    CHECK(tl_registry_get(tl_device_cpu(), TL_MEMKIND_HOST_PAGEABLE) ==
          tl_cpu_aligned_allocator());
}

static void test_pinned(void)
{
    tl_pinned_info before, after;
    tl_block *b;

    tl_pinned_info_get(&before);
    b = tl_block_alloc(tl_device_cpu(), TL_MEMKIND_HOST_PINNED, 5000);
    CHECK(b != NULL);
    CHECK(tl_block_owner(b) == tl_cpu_pinned_allocator());
    memset(tl_block_ptr(b), 1, 5000);
    tl_pinned_info_get(&after);
    CHECK(after.locked_bytes + after.unlocked_bytes >= 5000);
    /* A refused mlock is counted and reported, not an error. */
    if (after.lock_failures > before.lock_failures) {
        CHECK(!after.last_locked && after.unlocked_bytes > 0);
    }
    else {
        CHECK(after.last_locked && after.locked_bytes > 0);
    }
    tl_block_decref(b);
    tl_registry_empty_cache(tl_device_cpu());
    tl_pinned_info_get(&after);
    CHECK_EQ_I64(after.locked_bytes + after.unlocked_bytes, 0);
}

/* ---- execution plans ---------------------------------------------------- */

static void test_plan(void)
{
    const tl_device cpu = tl_device_cpu();
    const tl_allocator *old = tl_registry_get(cpu, TL_MEMKIND_PERSISTENT);
    tl_plan *p = tl_plan_new();
    int64_t s1[2] = {3, 5}, s2[1] = {7}, s3[2] = {2, 2}, v[1] = {5};
    int64_t vs[1] = {1}, big[1] = {16}, one[1] = {1};
    tl_tensor_impl *out[4] = {NULL};
    long long allocs;
    char *base;

    CHECK(tl_registry_set(cpu, TL_MEMKIND_PERSISTENT, &my_allocator) == 0);
    CHECK(tl_plan_add_buffer(p, "a", 2, s1, TL_DTYPE_FLOAT32, cpu,
                             TL_MEMKIND_PERSISTENT, 64) == 0);
    CHECK(tl_plan_add_buffer(p, "b", 1, s2, TL_DTYPE_INT8, cpu,
                             TL_MEMKIND_PERSISTENT, 128) == 0);
    CHECK(tl_plan_add_buffer(p, "c", 2, s3, TL_DTYPE_FLOAT64, cpu,
                             TL_MEMKIND_PERSISTENT, 4096) == 0);
    /* Row 1 of a, as a view. */
    CHECK(tl_plan_add_view(p, "a1", "a", 1, v, vs, 5) == 0);

    /* Bad declarations change nothing. */
    CHECK(tl_plan_add_buffer(p, "a", 1, s2, TL_DTYPE_INT8, cpu,
                             TL_MEMKIND_PERSISTENT, 64) == TL_ERR_VALUE);
    CHECK(tl_plan_add_buffer(p, "d", 1, s2, TL_DTYPE_INT8, cpu,
                             TL_MEMKIND_PERSISTENT, 3) == TL_ERR_VALUE);
    CHECK(msg_has("power of two"));
    CHECK(tl_plan_add_buffer(p, "d", 1, s2, TL_DTYPE_INT8, cpu,
                             TL_MEMKIND_PERSISTENT, 8192) == TL_ERR_VALUE);
    CHECK(tl_plan_add_view(p, "x", "nope", 1, v, NULL, 0) == TL_ERR_VALUE);
    CHECK(tl_plan_add_view(p, "x", "a1", 1, one, NULL, 0) == TL_ERR_VALUE);
    CHECK(tl_plan_add_view(p, "x", "a", 1, big, NULL, 0) == TL_ERR_SHAPE);
    CHECK(msg_has("does not fit buffer 'a'"));
    CHECK(tl_plan_add_view(p, "x", "a", 1, v, NULL, 11) == TL_ERR_SHAPE);
    CHECK_EQ_I64(tl_plan_count(p), 4);

    CHECK_EQ_I64(tl_plan_offset(p, 0), 0);
    CHECK_EQ_I64(tl_plan_offset(p, 1), 128);  /* 60 bytes, then 128-aligned */
    CHECK_EQ_I64(tl_plan_offset(p, 2), 4096);
    CHECK_EQ_I64(tl_plan_offset(p, 3), 20);   /* 5 floats into a */
    CHECK_EQ_I64(tl_plan_workspace_bytes(p), 4096 + 32);
    CHECK_EQ_I64(tl_plan_allocation_count(p), 1);
    CHECK(tl_plan_is_view(p, 3) && !tl_plan_is_view(p, 0));

    allocs = atomic_load(&my_allocs);
    CHECK(tl_plan_prepare(p, out) == 0);
    CHECK_EQ_I64(atomic_load(&my_allocs) - allocs, 1); /* one allocation */
    base = tl_tensor_data(out[0]);
    CHECK((uintptr_t)base % 4096 == 0);
    CHECK((char *)tl_tensor_data(out[1]) == base + 128);
    CHECK((char *)tl_tensor_data(out[2]) == base + 4096);
    CHECK((char *)tl_tensor_data(out[3]) == base + 20);
    for (int i = 0; i < 4; i++) {
        CHECK(!(tl_tensor_flags(out[i]) & TL_FLAG_ALLOW_METADATA_CHANGE));
    }
    CHECK(tl_tensor_resize_(out[0], 1, big) == TL_ERR_RUNTIME);
    CHECK(tl_storage_nbytes(tl_tensor_storage(out[1])) == 7);
    ((float *)tl_tensor_data(out[0]))[7] = 42.0f;
    CHECK(((float *)tl_tensor_data(out[3]))[2] == 42.0f);
    CHECK(tl_registry_set(cpu, TL_MEMKIND_PERSISTENT, old) == 0);
    for (int i = 0; i < 4; i++) {
        tl_tensor_decref(out[i]);
    }
    CHECK_EQ_I64(atomic_load(&my_active), 0); /* the one block went back */
    tl_plan_free(p);

    /* Two kinds: two allocations; Workspace outside a workspace fails
     * before anything is allocated. */
    p = tl_plan_new();
    CHECK(tl_plan_add_buffer(p, "w", 1, s2, TL_DTYPE_INT8, cpu,
                             TL_MEMKIND_WORKSPACE, 64) == 0);
    CHECK(tl_plan_add_buffer(p, "d", 1, s2, TL_DTYPE_INT8, cpu,
                             TL_MEMKIND_DEFAULT, 64) == 0);
    CHECK_EQ_I64(tl_plan_allocation_count(p), 2);
    CHECK(tl_plan_prepare(p, out) == TL_ERR_RUNTIME);
    CHECK(out[0] == NULL && out[1] == NULL);
    {
        tl_arena *a = tl_arena_new(NULL, 4096, 0);
        tl_arena_push(a);
        CHECK(tl_plan_prepare(p, out) == 0);
        CHECK_EQ_I64(tl_block_generation(tl_storage_block(
                         tl_tensor_storage(out[0]))), 1);
        tl_arena_pop(a);
        tl_arena_decref(a);
        CHECK(tl_tensor_check_live(out[0]) == TL_ERR_RUNTIME);
        CHECK(tl_tensor_check_live(out[1]) == TL_OK);
        tl_tensor_decref(out[0]);
        tl_tensor_decref(out[1]);
    }
    tl_plan_free(p);
}

int main(void)
{
    RUN(test_arena_basic);
    RUN(test_arena_bad_input);
    RUN(test_arena_chain);
    RUN(test_arena_fixed);
    RUN(test_arena_generations);
    RUN(test_arena_holds);
    RUN(test_arena_tensors_and_exports);
    RUN(test_stale_tensor_in_ops);
    RUN(test_stack);
    RUN(test_workspace_allocator);
    RUN(test_registry_custom_allocator);
    RUN(test_builtins);
    RUN(test_pinned);
    RUN(test_plan);
    DONE();
}
