/* tests/c/test_coverage_core.c — the refusals of the core's C API that the
 * Python layer never provokes (it validates first): the device kernel
 * table (bad rows, missing rows, a row whose device check fails), the
 * caching pool's consistency checker on deliberately corrupted pools,
 * file mappings that cannot be made, and tensor/storage constructors
 * given out-of-range arguments.  Every refusal is checked for its status,
 * its message, and that nothing changed and nothing leaked (the CI runs
 * this under ASan+LSan). */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "tensorlib/device_table.h"
#include "tensorlib/mapped.h"
#include "tensorlib/ops.h"
#include "tensorlib/tensorlib.h"

/* White-box: tl_pool_check exists to find corrupted pool metadata, which
 * only a test that corrupts it can show.  The pool's structs are internal
 * (csrc/alloc/pool_impl.h); the test reads and restores them while no
 * other thread uses the pool.  No internal function is called. */
#define TL_BUILDING_LIB
#include "../../csrc/alloc/pool_impl.h"
#undef TL_BUILDING_LIB

static bool msg_has(const char *s)
{
    if (strstr(tl_error_message(), s) != NULL) {
        return true;
    }
    fprintf(stderr, "  message was: %s\n  expected to contain: %s\n",
            tl_error_message(), s);
    return false;
}

static const tl_device CUDA0 = {TL_DEVICE_CUDA, 0};

static tl_tensor_impl *cpu_empty(int nd, const int64_t *sizes, int dt)
{
    return tl_tensor_empty(nd, sizes, (tl_dtype)dt, tl_device_cpu(),
                           TL_MEMKIND_DEFAULT);
}

/* ---- the device kernel table -------------------------------------------- */

static int check_refuses(int index)
{
    (void)index;
    /* A row's message that does not name the device asked for. */
    return tl_error(TL_ERR_RUNTIME, "the fake driver is asleep");
}

static int check_names(int index)
{
    return tl_error(TL_ERR_RUNTIME, "cuda:%d is not available (0 fake "
                    "devices)", index);
}

static void test_device_table_refusals(void)
{
    tl_device_ops bad;
    int64_t n3 = 3;
    tl_tensor_impl *x = cpu_empty(1, &n3, TL_DTYPE_FLOAT32);

    /* Rows exist only for non-CPU types below the count. */
    CHECK_EQ_I64(tl_device_ops_register(TL_DEVICE_CPU, NULL), TL_ERR_VALUE);
    CHECK(msg_has("device type 0 has no kernel table row"));
    CHECK_EQ_I64(tl_device_ops_register(TL_DEVICE_TYPE_COUNT, NULL),
                 TL_ERR_VALUE);
    CHECK_EQ_I64(tl_device_ops_register(-1, NULL), TL_ERR_VALUE);
    CHECK(msg_has("device type -1"));

    /* A row of another ABI is refused and not installed. */
    memset(&bad, 0, sizeof(bad));
    bad.abi_version = TL_DEVICE_OPS_ABI_VERSION + 1;
    bad.name = "future";
    CHECK_EQ_I64(tl_device_ops_register(TL_DEVICE_CUDA, &bad), TL_ERR_VALUE);
    CHECK(msg_has("device table row 'future' has ABI version 3, expected 2"));
    bad.name = NULL;
    CHECK_EQ_I64(tl_device_ops_register(TL_DEVICE_CUDA, &bad), TL_ERR_VALUE);
    CHECK(msg_has("device table row '?'"));
    CHECK(!tl_device_ops_present(TL_DEVICE_CUDA));

    /* No row: present says no without an error; get and require say why. */
    tl_error_clear();
    CHECK(!tl_device_ops_present(TL_DEVICE_CPU));
    CHECK(!tl_device_ops_present(TL_DEVICE_TYPE_COUNT));
    CHECK(!tl_device_ops_present(-3));
    CHECK_EQ_I64(tl_error_kind(), TL_OK);
    CHECK(tl_device_ops_get(TL_DEVICE_CUDA) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_RUNTIME);
    CHECK(msg_has("tensorlib was built without CUDA"));
    CHECK(tl_device_ops_get(TL_DEVICE_TYPE_COUNT) == NULL);
    CHECK(msg_has("built without this device type"));
    CHECK(tl_device_ops_get(TL_DEVICE_CPU) == NULL);
    CHECK_EQ_I64(tl_device_require(tl_device_cpu()), TL_OK);
    CHECK_EQ_I64(tl_device_require(CUDA0), TL_ERR_RUNTIME);
    CHECK(msg_has("built without CUDA (cuda:0 requested)"));

    /* to(): NULL operand, bad dtype, no row for the target. */
    CHECK(tl_op_to_device(NULL, tl_device_cpu(), -1, false, false) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    CHECK(msg_has("to: the operand is NULL"));
    CHECK(tl_op_to_device(x, tl_device_cpu(), TL_DTYPE_COUNT, false,
                          false) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_TYPE);
    CHECK(msg_has("invalid dtype code"));
    CHECK(tl_op_to_device(x, CUDA0, -1, false, false) == NULL);
    CHECK(msg_has("built without CUDA (cuda:0 requested)"));
    CHECK_EQ_I64(tl_tensor_refcount(x), 1);
    {
        /* Same device: the dtype conversion (or x itself). */
        tl_tensor_impl *y = tl_op_to_device(x, tl_device_cpu(), -1, false,
                                            false);
        CHECK(y == x);
        tl_tensor_decref(y);
        y = tl_op_to_device(x, tl_device_cpu(), TL_DTYPE_FLOAT64, false,
                            false);
        CHECK(y != NULL && y != x &&
              tl_tensor_dtype(y) == TL_DTYPE_FLOAT64);
        tl_tensor_decref(y);
    }

    /* copy_ with a NULL operand; record_stream of a CPU tensor. */
    CHECK_EQ_I64(tl_op_copy_nb_(NULL, x, false), TL_ERR_VALUE);
    CHECK(msg_has("copy_: an operand is NULL"));
    CHECK_EQ_I64(tl_op_copy_nb_(x, NULL, true), TL_ERR_VALUE);
    CHECK_EQ_I64(tl_tensor_record_stream(x, (tl_stream)1), TL_ERR_VALUE);
    CHECK(msg_has("record_stream: a cpu tensor is not used by device "
                  "streams"));
    CHECK_EQ_I64(tl_tensor_version(x), 0);
    CHECK_EQ_I64(tl_tensor_refcount(x), 1);
    tl_tensor_decref(x);
}

/* A row whose device check fails: require keeps the row's message and
 * adds the device asked for when the row did not name it. */
static void test_device_row_check_fails(void)
{
    static tl_device_ops row;

    memset(&row, 0, sizeof(row));
    row.abi_version = TL_DEVICE_OPS_ABI_VERSION;
    row.name = "fake";
    row.check_device = check_refuses;
    CHECK_EQ_I64(tl_device_ops_register(TL_DEVICE_CUDA, &row), TL_OK);
    CHECK(tl_device_ops_present(TL_DEVICE_CUDA));
    CHECK(tl_device_ops_get(TL_DEVICE_CUDA) == &row);
    CHECK_EQ_I64(tl_device_require(CUDA0), TL_ERR_RUNTIME);
    CHECK(msg_has("the fake driver is asleep (cuda:0 requested)"));
    {
        tl_device d1 = {TL_DEVICE_CUDA, 1};
        int64_t n2 = 2;
        tl_tensor_impl *x = cpu_empty(1, &n2, TL_DTYPE_INT32);
        CHECK(tl_op_to_device(x, d1, -1, true, false) == NULL);
        CHECK(msg_has("the fake driver is asleep (cuda:1 requested)"));
        CHECK_EQ_I64(tl_tensor_refcount(x), 1);
        tl_tensor_decref(x);
    }
    /* A message that names the device is kept as it is. */
    row.check_device = check_names;
    CHECK_EQ_I64(tl_device_require(CUDA0), TL_ERR_RUNTIME);
    CHECK_EQ_I64(strcmp(tl_error_message(),
                        "cuda:0 is not available (0 fake devices)"), 0);
    /* A NULL row uninstalls. */
    CHECK_EQ_I64(tl_device_ops_register(TL_DEVICE_CUDA, NULL), TL_OK);
    CHECK(!tl_device_ops_present(TL_DEVICE_CUDA));
    CHECK_EQ_I64(tl_device_require(CUDA0), TL_ERR_RUNTIME);
    CHECK(msg_has("built without CUDA"));
}

/* ---- the pool checker on corrupted pools -------------------------------- */

static void *raw_alloc(void *ctx, size_t n)
{
    void *p = NULL;

    (void)ctx;
    return posix_memalign(&p, 4096, n) == 0 ? p : NULL;
}

static void raw_free(void *ctx, void *p, size_t n)
{
    (void)ctx;
    (void)n;
    free(p);
}

static tl_allocator *small_pool(void)
{
    tl_raw_allocator raw = {"raw", NULL, {TL_DEVICE_CPU, 0}, raw_alloc,
                            raw_free};
    tl_pool_config c;

    c.granule = 64;
    c.small_limit = 4096;
    c.small_segment = 65536;
    c.medium_limit = 4096;
    c.medium_segment = 0;
    c.large_round = 0;
    c.cache_limit = SIZE_MAX;
    return tl_pool_new(&raw, &c, "corrupt");
}

/* Runs the checker on a corrupted pool: TL_ERR_RUNTIME naming `what`. */
#define EXPECT_BROKEN(a, what)                                              \
    do {                                                                    \
        CHECK_EQ_I64(tl_pool_check(a), TL_ERR_RUNTIME);                     \
        CHECK(msg_has("pool 'corrupt': "));                                 \
        CHECK(msg_has(what));                                               \
    } while (0)

/* The block of the pool's only segment whose user pointer is u. */
static pblock *block_at(pool *p, void *u)
{
    for (pblock *b = p->segs->first; b != NULL; b = b->next) {
        if (b->uptr == u) {
            return b;
        }
    }
    return NULL;
}

static void test_pool_check_detects_corruption(void)
{
    tl_allocator *a = small_pool();
    pool *p;
    void *u[4];
    pblock *b0, *b1, *b2, *rest;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    p = (pool *)a->ctx;
    CHECK_EQ_I64(tl_pool_check(NULL), TL_ERR_VALUE);
    CHECK(msg_has("not a pool"));
    /* One segment: [u0][u1][u2][u3][free rest]. */
    for (int i = 0; i < 4; i++) {
        u[i] = a->allocate(a->ctx, 100, 64);
        CHECK(u[i] != NULL);
    }
    CHECK_EQ_I64(p->nsegs, 1);
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    b0 = block_at(p, u[0]);
    b1 = block_at(p, u[1]);
    b2 = block_at(p, u[2]);
    CHECK(b0 == p->segs->first && b1 != NULL && b2 != NULL);
    rest = b2->next->next;
    CHECK(rest != NULL && !rest->allocated && rest->next == NULL);

    /* segment does not start with its first block */
    b0->prev = b1;
    EXPECT_BROKEN(a, "does not start with its first block");
    b0->prev = NULL;
    /* a block's size breaks the tiling */
    b1->size += 64;
    EXPECT_BROKEN(a, "is misplaced");
    b1->size -= 64;
    /* a handed-out block overflows its block */
    b1->requested = b1->size + 1;
    EXPECT_BROKEN(a, "is not findable or overflows");
    b1->requested = 100;
    /* a free block with stream uses */
    rest->uses = (stream_set *)b0;
    EXPECT_BROKEN(a, "is marked deferred or has stream uses");
    rest->uses = NULL;
    /* two adjacent free blocks (u3's block, then the free rest) */
    b2->next->allocated = false;
    EXPECT_BROKEN(a, "are adjacent");
    b2->next->allocated = true;
    /* a free block (u1's, between handed-out ones) in no tree */
    b1->allocated = false;
    EXPECT_BROKEN(a, "is not in its tree");
    b1->allocated = true;
    /* a segment of a stream in a pool without streams */
    {
        /* (a copy of the default stream's index: the free blocks are
         * still found in it) */
        static sbins other;
        other = p->sb0;
        p->segs->sb = &other;
    }
    EXPECT_BROKEN(a, "belongs to a stream in a pool without streams");
    p->segs->sb = &p->sb0;
    /* blocks do not cover the segment */
    p->segs->size += 64;
    EXPECT_BROKEN(a, "blocks cover");
    p->segs->size -= 64;
    /* the fully free flag disagrees */
    p->segs->fully_free = true;
    EXPECT_BROKEN(a, "is on the fully free list");
    p->segs->fully_free = false;
    /* a deferred entry whose block is not deferred */
    {
        deferred *d = calloc(1, sizeof(*d));
        d->b = b1;
        p->dfirst = d;
        EXPECT_BROKEN(a, "is not a deferred block with events");
        p->dfirst = NULL;
        free(d);
    }
    /* the deferred count disagrees */
    p->ndeferred = 1;
    EXPECT_BROKEN(a, "0 deferred blocks listed, 1 counted");
    p->ndeferred = 0;
    /* a bin bit without a tree: the free index is out of order */
    p->sb0.bins[SMALL].bits[0] ^= 2;
    EXPECT_BROKEN(a, "the free trees are out of order");
    p->sb0.bins[SMALL].bits[0] ^= 2;
    /* a counter disagrees */
    p->active += 1;
    EXPECT_BROKEN(a, "counters disagree with the segments");
    p->active -= 1;
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);

    /* Two free blocks of one bin (u0's and u2's): a treap whose child
     * outranks its parent. */
    a->deallocate(a->ctx, u[0], 100);
    a->deallocate(a->ctx, u[2], 100);
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    {
        bin_index *x = &p->sb0.bins[SMALL];
        unsigned k = bin_of(p, b0->size);
        pblock *root = x->root[k];
        pblock *child = root->child[0] ? root->child[0] : root->child[1];
        uint32_t saved = child->prio;
        CHECK(child != NULL && b0->size == b2->size);
        child->prio = root->prio + 1;
        if (root->prio != UINT32_MAX) {
            EXPECT_BROKEN(a, "the free trees are out of order");
        }
        child->prio = saved;
    }
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    a->deallocate(a->ctx, u[1], 100);
    a->deallocate(a->ctx, u[3], 100);
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    CHECK_EQ_I64(tl_pool_destroy(a), TL_OK);
}

/* Quick lists: freed small blocks kept per size. */
static void test_pool_check_quick_lists(void)
{
    tl_allocator *a = small_pool();
    pool *p;
    void *u1, *u2, *keep;
    pblock *q;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    p = (pool *)a->ctx;
    CHECK_EQ_I64(tl_pool_set_quick_lists(a, true), TL_OK);
    /* u2 (two granules, when there is no redzone) goes to a quick list. */
    u1 = a->allocate(a->ctx, 64, 64);
    u2 = a->allocate(a->ctx, 100, 64);
    keep = a->allocate(a->ctx, 64, 64);
    a->deallocate(a->ctx, u2, 100);
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    q = NULL;
    unsigned k = 0;
    for (unsigned i = 0; i < QUICK_CLASSES; i++) {
        if (p->quick[i] != NULL) {
            q = p->quick[i];
            k = i;
        }
    }
    CHECK(q != NULL);
    if (q != NULL) {
        /* a quick block with a requested size */
        q->requested = 1;
        EXPECT_BROKEN(a, "is findable, offset, in use or too large");
        q->requested = 0;
        /* the list counter disagrees */
        p->nquick[k]++;
        EXPECT_BROKEN(a, "holds 1 blocks, counted 2");
        p->nquick[k]--;
        /* a quick block on no list */
        p->quick[k] = NULL;
        p->nquick[k] = 0;
        EXPECT_BROKEN(a, "1 quick blocks are on no quick list");
        /* on the list of another size */
        unsigned w = k == 0 ? 1 : k - 1;
        p->quick[w] = q;
        p->nquick[w] = 1;
        EXPECT_BROKEN(a, "that is not a quick block of its size");
        p->quick[w] = NULL;
        p->nquick[w] = 0;
        p->quick[k] = q;
        p->nquick[k] = 1;
    }
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    a->deallocate(a->ctx, u1, 64);
    a->deallocate(a->ctx, keep, 64);
    CHECK_EQ_I64(tl_pool_set_quick_lists(a, false), TL_OK);
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    CHECK_EQ_I64(tl_pool_destroy(a), TL_OK);
}

/* ---- file mappings ------------------------------------------------------ */

static void test_mapping_refusals(void)
{
    char dir[] = "/tmp/tl_cov_XXXXXX";
    char path[64];
    int64_t before = tl_mapped_bytes();
    tl_mapping *m;
    int fd;

    CHECK(mkdtemp(dir) != NULL);
    /* an unknown mode */
    CHECK(tl_mapping_open(dir, (tl_map_mode)7) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    CHECK(msg_has("unknown mapping mode 7"));
    /* a directory */
    CHECK(tl_mapping_open(dir, TL_MAP_READ) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    CHECK(msg_has("is not a regular file and cannot be mapped"));
    /* an empty file */
    snprintf(path, sizeof(path), "%s/empty", dir);
    fd = open(path, O_CREAT | O_WRONLY, 0600);
    CHECK(fd >= 0);
    close(fd);
    CHECK(tl_mapping_open(path, TL_MAP_COPY) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    CHECK(msg_has("is empty: nothing to map"));
    CHECK_EQ_I64(tl_mapped_bytes(), before);
    /* a file: its size, data, mode; a block past its end */
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && write(fd, "0123456789", 10) == 10);
    close(fd);
    m = tl_mapping_open(path, TL_MAP_READ);
    CHECK(m != NULL);
    if (m != NULL) {
        CHECK_EQ_I64(tl_mapping_size(m), 10);
        CHECK_EQ_I64(tl_mapping_mode(m), TL_MAP_READ);
        CHECK(memcmp(tl_mapping_data(m), "0123456789", 10) == 0);
        CHECK_EQ_I64(tl_mapped_bytes(), before + 10);
        CHECK(tl_mapping_block(m, 8, 3) == NULL);
        CHECK(msg_has("bytes [8, 8 + 3) are outside a mapped file of 10"));
        CHECK(tl_mapping_block(m, SIZE_MAX, 2) == NULL);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
        tl_mapping_decref(m);
    }
    tl_mapping_decref(NULL);
    CHECK_EQ_I64(tl_mapped_bytes(), before);
    unlink(path);
    rmdir(dir);
}

/* ---- tensor and storage constructors ------------------------------------ */

static void test_tensor_constructor_refusals(void)
{
    int64_t sz[2] = {2, 3}, st[2] = {3, 1};
    float buf[6] = {0, 1, 2, 3, 4, 5};
    tl_storage *s;
    tl_tensor_impl *t;

    CHECK(tl_storage_new(tl_device_cpu(), TL_MEMKIND_DEFAULT, -1) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    CHECK(msg_has("storage size must be non-negative, got -1"));

    s = tl_storage_new(tl_device_cpu(), TL_MEMKIND_DEFAULT, 24);
    CHECK(s != NULL);
    CHECK(tl_storage_sub(s, 20, 8) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_SHAPE);
    CHECK(msg_has("sub-storage [20, 20 + 8) is outside a storage of 24"));
    CHECK(tl_storage_sub(s, -1, 4) == NULL);
    CHECK(tl_storage_sub(s, INT64_MAX, 2) == NULL);
    CHECK_EQ_I64(tl_storage_refcount(s), 1);

    /* invalid dtypes */
    CHECK(tl_tensor_empty(2, sz, (tl_dtype)TL_DTYPE_COUNT, tl_device_cpu(),
                          TL_MEMKIND_DEFAULT) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_TYPE);
    CHECK(tl_tensor_empty_strided(2, sz, st, (tl_dtype)-1, tl_device_cpu(),
                                  TL_MEMKIND_DEFAULT) == NULL);
    CHECK(msg_has("invalid dtype code -1"));
    CHECK(tl_tensor_wrap(buf, sizeof(buf), tl_device_cpu(), false, NULL,
                         NULL, 0, 2, sz, st, (tl_dtype)99) == NULL);
    CHECK(msg_has("invalid dtype code 99"));
    CHECK(tl_tensor_new(s, 0, 2, sz, st, (tl_dtype)TL_DTYPE_COUNT) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_TYPE);

    /* empty_strided: negative stride, spans and bytes past int64 */
    {
        int64_t neg[2] = {3, -1}, huge[2] = {INT64_MAX / 2, 1};
        int64_t big[2] = {INT64_MAX / 8, 1}, one[2] = {2, 1};
        CHECK(tl_tensor_empty_strided(2, sz, neg, TL_DTYPE_FLOAT32,
                                      tl_device_cpu(),
                                      TL_MEMKIND_DEFAULT) == NULL);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_SHAPE);
        CHECK(msg_has("empty_strided: negative stride -1 at dim 1"));
        CHECK(tl_tensor_empty_strided(2, (int64_t[]){4, 2}, huge,
                                      TL_DTYPE_FLOAT32, tl_device_cpu(),
                                      TL_MEMKIND_DEFAULT) == NULL);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_OVERFLOW);
        CHECK(msg_has("sizes [4, 2] with strides"));
        CHECK(tl_tensor_empty_strided(2, one, big, TL_DTYPE_FLOAT64,
                                      tl_device_cpu(),
                                      TL_MEMKIND_DEFAULT) == NULL);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_OVERFLOW);
        CHECK(msg_has("empty_strided: byte size overflows int64"));
    }

    /* wrap: more bytes than a storage holds; a view past the memory */
    CHECK(tl_tensor_wrap(buf, (size_t)INT64_MAX + 1, tl_device_cpu(), false,
                         NULL, NULL, 0, 2, sz, st,
                         TL_DTYPE_FLOAT32) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_OVERFLOW);
    CHECK(msg_has("a storage holds at most INT64_MAX"));
    CHECK(tl_tensor_wrap(buf, sizeof(buf) - 1, tl_device_cpu(), false, NULL,
                         NULL, 0, 2, sz, st, TL_DTYPE_FLOAT32) == NULL);
    CHECK(tl_error_kind() != TL_OK);

    /* accessors of a good tensor; set_ onto a storage of another device
     * needs a block of that device: a wrapped one is enough to refuse. */
    t = tl_tensor_new(s, 1, 2, (int64_t[]){2, 2}, (int64_t[]){1, 2},
                      TL_DTYPE_FLOAT32);
    CHECK(t != NULL);
    if (t != NULL) {
        CHECK_EQ_I64(tl_tensor_numel(t), 4);
        CHECK_EQ_I64(tl_tensor_storage_offset(t), 1);
        /* resize_ whose bytes past the offset overflow int64 */
        {
            int64_t n = INT64_MAX / 4;
            tl_tensor_impl *u = tl_tensor_new(s, 5, 1, (int64_t[]){1},
                                              (int64_t[]){1},
                                              TL_DTYPE_FLOAT32);
            CHECK(u != NULL);
            CHECK_EQ_I64(tl_tensor_resize_(u, 1, &n), TL_ERR_OVERFLOW);
            CHECK(msg_has("resize_: size overflows int64"));
            CHECK_EQ_I64(tl_tensor_numel(u), 1);
            CHECK_EQ_I64(tl_tensor_version(u), 0);
            tl_tensor_decref(u);
        }
        {
            tl_block *b = tl_block_wrap(buf, sizeof(buf), CUDA0, false, NULL,
                                        NULL);
            tl_storage *cs = b ? tl_storage_from_block(b, 0, sizeof(buf))
                               : NULL;
            CHECK(cs != NULL);
            if (cs != NULL) {
                CHECK_EQ_I64(tl_tensor_set_(t, cs, 0, 1, (int64_t[]){2},
                                            (int64_t[]){1}),
                             TL_ERR_RUNTIME);
                CHECK(msg_has("set_: storage and tensor are on different "
                              "devices"));
                CHECK(tl_tensor_storage(t) == s);
                CHECK_EQ_I64(tl_tensor_numel(t), 4);
                tl_storage_decref(cs);
            }
            tl_block_decref(b);
        }
        tl_tensor_decref(t);
    }
    CHECK_EQ_I64(tl_storage_refcount(s), 1);
    tl_storage_decref(s);
}

int main(void)
{
    RUN(test_device_table_refusals);
    RUN(test_device_row_check_fails);
    RUN(test_pool_check_detects_corruption);
    RUN(test_pool_check_quick_lists);
    RUN(test_mapping_refusals);
    RUN(test_tensor_constructor_refusals);
    DONE();
}
