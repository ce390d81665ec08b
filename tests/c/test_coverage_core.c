/* tests/c/test_coverage_core.c — the refusals of the core's C API that the
 * Python layer never provokes (it validates first): the device kernel
 * table (bad rows, missing rows, a row whose device check fails), the
 * caching pool's consistency checker on deliberately corrupted pools,
 * file mappings that cannot be made, and tensor/storage constructors
 * given out-of-range arguments.  Every refusal is checked for its status,
 * its message, and that nothing changed and nothing leaked (the CI runs
 * this under ASan+LSan). */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "tensorlib/arena.h"
#include "tensorlib/device_table.h"
#include "tensorlib/iter.h"
#include "tensorlib/joinindex.h"
#include "tensorlib/linalg.h"
#include "tensorlib/mapped.h"
#include "tensorlib/ops.h"
#include "tensorlib/reduce.h"
#include "tensorlib/sortscan.h"
#include "tensorlib/streams.h"
#include "tensorlib/tensorlib.h"
#include "tensorlib/view.h"

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
    /* a view past the storage's 24 bytes */
    CHECK(tl_tensor_new(s, 0, 1, (int64_t[]){7}, (int64_t[]){1},
                        TL_DTYPE_FLOAT32) == NULL);
    CHECK(tl_error_kind() < 0);
    CHECK(tl_tensor_new(s, 3, 2, sz, st, TL_DTYPE_FLOAT32) == NULL);
    CHECK(tl_error_kind() < 0);

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

    /* A storage over part of a block grows in place up to the block's
     * end (Note [Storage capacity]): the bytes stay where they are. */
    {
        tl_block *blk = tl_block_alloc(tl_device_cpu(), TL_MEMKIND_DEFAULT,
                                       10);
        s = blk ? tl_storage_from_block(blk, 0, 4) : NULL;
        CHECK(s != NULL);
        if (s != NULL) {
            char *p0 = tl_storage_data(s);
            memcpy(tl_block_ptr(blk), "abcdefghij", 10);
            CHECK_EQ_I64(tl_storage_resize(s, 8), TL_OK);
            CHECK_EQ_I64(tl_storage_nbytes(s), 8);
            CHECK(tl_storage_data(s) == p0);
            CHECK_EQ_I64(tl_storage_resize(s, 2), TL_OK);
            CHECK_EQ_I64(tl_storage_resize(s, 10), TL_OK);
            CHECK(tl_storage_data(s) == p0);
            CHECK(memcmp(p0, "abcdefghij", 10) == 0);
            /* past the block: not resizable (external memory) */
            CHECK_EQ_I64(tl_storage_resize(s, 11), TL_ERR_RUNTIME);
            CHECK(msg_has("cannot grow a storage that is not resizable"));
            CHECK_EQ_I64(tl_storage_nbytes(s), 10);
            tl_storage_decref(s);
        }
        tl_block_decref(blk);
    }
}


/* ---- views -------------------------------------------------------------- */

/* Every view refusal leaves t as it was (sizes, strides, offset, refs). */
static bool untouched(tl_tensor_impl *t, int nd, const int64_t *sizes,
                      const int64_t *strides, int64_t off)
{
    return tl_tensor_ndim(t) == nd &&
           memcmp(tl_tensor_sizes(t), sizes, (size_t)nd * 8) == 0 &&
           memcmp(tl_tensor_strides(t), strides, (size_t)nd * 8) == 0 &&
           tl_tensor_storage_offset(t) == off && tl_tensor_refcount(t) == 1;
}

static void test_view_refusals(void)
{
    int64_t sz[3] = {2, 3, 4}, st[3] = {12, 4, 1};
    int64_t many[TL_MAX_DIMS + 1];
    tl_tensor_impl *t = cpu_empty(3, sz, TL_DTYPE_FLOAT32);
    tl_tensor_impl *s0 = cpu_empty(0, NULL, TL_DTYPE_FLOAT32);
    tl_tensor_impl *big;

    for (int i = 0; i <= TL_MAX_DIMS; i++) {
        many[i] = 1;
    }
    /* more dims than a tensor has */
    CHECK(tl_view_view(t, TL_MAX_DIMS + 1, many) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_SHAPE);
    CHECK(msg_has("a tensor has at most 64 dims, got 65"));
    CHECK(tl_view_expand(t, TL_MAX_DIMS + 1, many) == NULL);
    CHECK(msg_has("a tensor has at most 64 dims"));
    big = tl_view_view(t, TL_MAX_DIMS, (int64_t[TL_MAX_DIMS]){2, 3, 4, 1});
    CHECK(big == NULL); /* (the rest are 0: 24 elements do not fit) */
    {
        int64_t s64[TL_MAX_DIMS];
        for (int i = 0; i < TL_MAX_DIMS; i++) {
            s64[i] = 1;
        }
        s64[0] = 24;
        big = tl_view_view(t, TL_MAX_DIMS, s64);
        CHECK(big != NULL);
        if (big != NULL) {
            CHECK(tl_view_unsqueeze(big, 0) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_INDEX);
            CHECK(msg_has("unsqueeze: dim 0 out of range for a 64-dim"));
            CHECK(tl_view_unfold(big, 0, 2, 1) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_SHAPE);
            CHECK(msg_has("unfold: too many dims"));
            tl_tensor_decref(big);
        }
    }
    /* a shape whose product overflows */
    {
        int64_t huge[3] = {INT64_MAX / 2, 4, -1}, out[3];
        CHECK_EQ_I64(tl_infer_view_shape(0, 3, huge, out), TL_ERR_OVERFLOW);
        CHECK(msg_has("overflows int64"));
    }
    /* expand to a negative size of an existing dim */
    CHECK(tl_view_expand(t, 3, (int64_t[]){2, -2, 4}) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_SHAPE);
    CHECK(msg_has("expand: invalid size -2 at dimension 1"));
    /* 0-dim tensors cannot be selected from or narrowed */
    CHECK(tl_view_select(s0, 0, 0) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_INDEX);
    CHECK(msg_has("select() cannot be applied to a 0-dim tensor"));
    CHECK(tl_view_narrow(s0, 0, 0, 1) == NULL);
    CHECK(msg_has("narrow() cannot be applied to a 0-dim tensor"));
    CHECK(tl_view_diagonal(s0, 0, 0, 1) == NULL);
    CHECK(msg_has("diagonal() needs at least 2 dims, got 0"));
    /* slices: step 0, a start out of range, a last element past the end */
    CHECK(tl_view_slice(t, 1, 0, 0, 1) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    CHECK(msg_has("slice step cannot be zero"));
    CHECK(tl_view_slice(t, 1, 3, 1, 1) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_INDEX);
    CHECK(msg_has("slice start 3 and length 1 out of range for dimension 1 "
                  "with size 3"));
    CHECK(tl_view_slice(t, 1, -1, 1, 0) == NULL);
    CHECK(tl_view_slice(t, 2, 1, 2, 3) == NULL);
    CHECK(msg_has("slice of 3 elements from 1 by 2 leaves dimension 2 of "
                  "size 4"));
    CHECK(tl_view_slice(t, 2, 3, -2, 3) == NULL);
    CHECK(tl_view_slice(t, 2, 1, INT64_MAX, 2) == NULL);
    CHECK(untouched(t, 3, sz, st, 0));
    /* the edges that work: an empty slice at the end, a negative step */
    {
        tl_tensor_impl *v = tl_view_slice(t, 2, 4, 1, 0);
        CHECK(v != NULL && tl_tensor_sizes(v)[2] == 0);
        tl_tensor_decref(v);
        v = tl_view_slice(t, 2, 3, -2, 2);
        CHECK(v != NULL && tl_tensor_strides(v)[2] == -2 &&
              tl_tensor_storage_offset(v) == 3);
        tl_tensor_decref(v);
    }
    CHECK(untouched(t, 3, sz, st, 0));

    /* Empty tensors may carry strides no element is addressed through:
     * the views of them that would have to add or scale such strides
     * past int64, or onto INT64_MIN (no tensor has that stride: its
     * negation overflows), refuse. */
    {
        tl_storage *es = tl_storage_new(tl_device_cpu(), TL_MEMKIND_DEFAULT,
                                        0);
        const int64_t h = INT64_MAX / 2 + 1; /* 2**62 */
        int64_t esz[3] = {0, 4, 4}, est[3] = {1, h, h};
        int64_t nst[3] = {1, -h, -h};
        tl_tensor_impl *e = tl_tensor_new(es, 0, 3, esz, est,
                                          TL_DTYPE_UINT8);
        tl_tensor_impl *n = tl_tensor_new(es, 0, 3, esz, nst,
                                          TL_DTYPE_UINT8);
        tl_tensor_impl *v;
        CHECK(e != NULL && n != NULL);
        if (e != NULL && n != NULL) {
            /* 2**62 + 2**62 overflows; -2**62 + -2**62 is INT64_MIN */
            CHECK(tl_view_diagonal(e, 0, 1, 2) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_OVERFLOW);
            CHECK(msg_has("diagonal: stride overflows int64"));
            CHECK(tl_view_diagonal(n, 0, 1, 2) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_OVERFLOW);
            /* 2**62 * -2 and -2**62 * 2 are INT64_MIN; * 1 and * -1 fine */
            CHECK(tl_view_slice(e, 1, 3, -2, 2) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_OVERFLOW);
            CHECK(msg_has("slice: stride 4611686018427387904 times step -2 "
                          "overflows int64"));
            CHECK(tl_view_slice(n, 1, 0, 2, 2) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_OVERFLOW);
            v = tl_view_slice(e, 1, 3, -1, 4);
            CHECK(v != NULL && tl_tensor_strides(v)[1] == -h);
            tl_tensor_decref(v);
            CHECK(tl_view_unfold(n, 1, 1, 2) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_OVERFLOW);
            CHECK(msg_has("unfold: stride overflows int64"));
            v = tl_view_unfold(n, 1, 2, 1);
            CHECK(v != NULL && tl_tensor_strides(v)[1] == -h);
            tl_tensor_decref(v);
            CHECK(untouched(e, 3, esz, est, 0));
            CHECK(untouched(n, 3, esz, nst, 0));
        }
        tl_tensor_decref(e);
        tl_tensor_decref(n);
        tl_storage_decref(es);
    }
    tl_tensor_decref(s0);
    tl_tensor_decref(t);
}


/* ---- the LAPACK drivers' argument checks ------------------------------- */

/* A column-major (..., r, c) float64 tensor holding 1, 2, 3, ... */
static tl_tensor_impl *fmat_of(int nd, const int64_t *sizes, int dt)
{
    tl_tensor_impl *a = cpu_empty(nd, sizes, TL_DTYPE_FLOAT64), *f;
    double *p = tl_tensor_data(a);
    for (int64_t i = 0; i < tl_tensor_numel(a); i++) {
        p[i] = (double)(i + 1);
    }
    f = tl_lapack_fortran_copy(a, (tl_dtype)dt);
    tl_tensor_decref(a);
    return f;
}

static tl_tensor_impl *vec_of(int64_t n, int dt)
{
    tl_tensor_impl *t = cpu_empty(1, &n, dt);
    memset(tl_tensor_data(t), 0, (size_t)(n * tl_dtype_itemsize(dt)));
    return t;
}

typedef struct lapack_case {
    const char *what;
    int kind;
    const char *msg;
} lapack_case;

/* Runs one refused call: the status, the message, and that A kept its
 * values, version and references. */
#define REFUSED(call, a, k, m)                                              \
    do {                                                                    \
        size_t nb_ = (size_t)(tl_tensor_numel(a) *                          \
                              tl_dtype_itemsize(tl_tensor_dtype(a)));       \
        char *copy_ = malloc(nb_ + 1);                                      \
        memcpy(copy_, tl_tensor_data(a), nb_);                              \
        CHECK_EQ_I64((call), (k));                                          \
        CHECK(msg_has(m));                                                  \
        CHECK(memcmp(copy_, tl_tensor_data(a), nb_) == 0);                  \
        CHECK_EQ_I64(tl_tensor_version(a), 0);                              \
        CHECK_EQ_I64(tl_tensor_refcount(a), 1);                             \
        free(copy_);                                                        \
    } while (0)

static void test_lapack_refusals(void)
{
    const int F64 = TL_DTYPE_FLOAT64, C128 = TL_DTYPE_COMPLEX128;
    int64_t n3 = 3;
    tl_tensor_impl *v1 = vec_of(3, F64);              /* a 1-D "matrix" */
    tl_tensor_impl *sq = fmat_of(2, (int64_t[]){3, 3}, F64);
    tl_tensor_impl *tall = fmat_of(2, (int64_t[]){4, 2}, F64);
    tl_tensor_impl *wide = fmat_of(2, (int64_t[]){2, 4}, F64);
    tl_tensor_impl *bsq = fmat_of(3, (int64_t[]){2, 3, 3}, F64);
    tl_tensor_impl *b32 = fmat_of(2, (int64_t[]){3, 2}, F64);
    tl_tensor_impl *piv3 = vec_of(3, TL_DTYPE_INT64);
    tl_tensor_impl *piv2 = vec_of(2, TL_DTYPE_INT64);
    tl_tensor_impl *piv32 = vec_of(3, TL_DTYPE_INT32);
    tl_tensor_impl *info = vec_of(1, TL_DTYPE_INT64);
    tl_tensor_impl *w3 = vec_of(3, F64), *w2 = vec_of(2, F64);
    tl_tensor_impl *wc3 = vec_of(3, C128);
    tl_tensor_impl *i32 = cpu_empty(2, (int64_t[]){3, 3}, TL_DTYPE_INT32);
    int64_t pbuf[3] = {0, 0, 0};
    tl_tensor_impl *ro = tl_tensor_wrap(pbuf, sizeof(pbuf), tl_device_cpu(),
                                        true, NULL, NULL, 0, 1, &n3,
                                        (int64_t[]){1}, TL_DTYPE_INT64);
    const char *notmat = "must have at least 2 dims";

    memset(tl_tensor_data(i32), 0, 36);
    /* fortran_copy of a vector */
    CHECK(tl_lapack_fortran_copy(v1, TL_DTYPE_FLOAT64) == NULL);
    CHECK(msg_has("expected a tensor of at least 2 dims, got shape [3]"));

    /* getrf: A, then each companion (missing, dtype, size, read-only) */
    REFUSED(tl_lapack_getrf(v1, piv3, info), v1, TL_ERR_SHAPE,
            "lu_factor: A must have at least 2 dims");
    REFUSED(tl_lapack_getrf(i32, piv3, info), i32, TL_ERR_TYPE,
            "lu_factor: A must be float32, float64, complex64 or "
            "complex128, got int32");
    REFUSED(tl_lapack_getrf(sq, NULL, info), sq, TL_ERR_VALUE,
            "lu_factor: pivots is missing");
    REFUSED(tl_lapack_getrf(sq, piv32, info), sq, TL_ERR_TYPE,
            "lu_factor: pivots must be int64, got int32");
    REFUSED(tl_lapack_getrf(sq, piv2, info), sq, TL_ERR_SHAPE,
            "lu_factor: pivots must be contiguous with 3 elements (3 per "
            "matrix), got shape [2]");
    REFUSED(tl_lapack_getrf(sq, ro, info), sq, TL_ERR_READONLY, "");
    CHECK(pbuf[0] == 0 && pbuf[1] == 0 && pbuf[2] == 0);
    REFUSED(tl_lapack_getrf(sq, piv3, NULL), sq, TL_ERR_VALUE,
            "lu_factor: info is missing");

    /* getrs / getri / potrf / trtrs: shapes */
    REFUSED(tl_lapack_getrs(v1, piv3, b32, 'N', info), v1, TL_ERR_SHAPE,
            notmat);
    REFUSED(tl_lapack_getrs(bsq, piv3, b32, 'N', info), bsq, TL_ERR_SHAPE,
            "lu_solve: batch sizes [2] and [] differ");
    REFUSED(tl_lapack_getrs(tall, piv2, b32, 'N', info), tall, TL_ERR_SHAPE,
            "lu_solve");
    REFUSED(tl_lapack_getrs(sq, NULL, b32, 'N', info), sq, TL_ERR_VALUE,
            "pivots is missing");
    REFUSED(tl_lapack_getri(v1, piv3, info), v1, TL_ERR_SHAPE, notmat);
    REFUSED(tl_lapack_getri(tall, piv2, info), tall, TL_ERR_SHAPE,
            "LU must be square");
    REFUSED(tl_lapack_getri(sq, NULL, info), sq, TL_ERR_VALUE,
            "pivots is missing");
    REFUSED(tl_lapack_potrf(tall, false, info), tall, TL_ERR_SHAPE,
            "A must be square");
    REFUSED(tl_lapack_trtrs(v1, b32, true, 'N', false, info), v1,
            TL_ERR_SHAPE, notmat);
    REFUSED(tl_lapack_trtrs(tall, b32, true, 'N', false, info), tall,
            TL_ERR_SHAPE, "");

    /* QR */
    REFUSED(tl_lapack_geqrf(v1, w3, info), v1, TL_ERR_SHAPE, notmat);
    REFUSED(tl_lapack_geqrf(tall, NULL, info), tall, TL_ERR_VALUE,
            "tau is missing");
    REFUSED(tl_lapack_orgqr(v1, w2, info), v1, TL_ERR_SHAPE, notmat);
    REFUSED(tl_lapack_orgqr(wide, w2, info), wide, TL_ERR_SHAPE, "");
    REFUSED(tl_lapack_orgqr(tall, w3, info), tall, TL_ERR_SHAPE, "");
    REFUSED(tl_lapack_orgqr(tall, NULL, info), tall, TL_ERR_VALUE,
            "tau is missing");

    /* eigen-decompositions */
    REFUSED(tl_lapack_syevd(v1, w3, true, true, info), v1, TL_ERR_SHAPE,
            notmat);
    REFUSED(tl_lapack_syevd(tall, w2, true, true, info), tall, TL_ERR_SHAPE,
            "A must be square");
    REFUSED(tl_lapack_syevd(sq, NULL, true, true, info), sq, TL_ERR_VALUE,
            "eigenvalues is missing");
    REFUSED(tl_lapack_geev(v1, wc3, NULL, info), v1, TL_ERR_SHAPE, notmat);
    REFUSED(tl_lapack_geev(tall, wc3, NULL, info), tall, TL_ERR_SHAPE,
            "A must be square");
    REFUSED(tl_lapack_geev(sq, wc3, v1, info), sq, TL_ERR_SHAPE, notmat);
    REFUSED(tl_lapack_geev(sq, wc3, sq, info), sq, TL_ERR_SHAPE,
            "V has the wrong shape or");
    REFUSED(tl_lapack_geev(sq, NULL, NULL, info), sq, TL_ERR_VALUE,
            "eigenvalues is missing");

    /* SVD */
    REFUSED(tl_lapack_gesdd(v1, w3, NULL, NULL, 'N', info), v1,
            TL_ERR_SHAPE, notmat);
    REFUSED(tl_lapack_gesdd(tall, w2, NULL, NULL, 'X', info), tall,
            TL_ERR_VALUE, "svd: jobz must be N, S or A");
    REFUSED(tl_lapack_gesdd(tall, w2, NULL, NULL, 'S', info), tall,
            TL_ERR_SHAPE, "svd: U must have at least 2 dims");
    REFUSED(tl_lapack_gesdd(tall, w2, sq, sq, 'S', info), tall,
            TL_ERR_SHAPE, "svd: U or Vh has the wrong shape or dtype");
    REFUSED(tl_lapack_gesdd(tall, NULL, NULL, NULL, 'N', info), tall,
            TL_ERR_VALUE, "svd: S is missing");

    /* least squares */
    REFUSED(tl_lapack_gelsd(v1, b32, w2, info, -1.0, info), v1,
            TL_ERR_SHAPE, notmat);
    REFUSED(tl_lapack_gelsd(tall, b32, w2, info, -1.0, info), tall,
            TL_ERR_SHAPE, "lstsq: B must have max(m, n) = 4 rows");
    REFUSED(tl_lapack_gelsd(sq, b32, w3, NULL, -1.0, info), sq,
            TL_ERR_VALUE, "lstsq: rank is missing");
    REFUSED(tl_lapack_gelsd(sq, b32, NULL, info, -1.0, info), sq,
            TL_ERR_VALUE, "lstsq: S is missing");

    /* conj of a real tensor: a copy */
    {
        tl_tensor_impl *c = tl_linalg_conj(sq);
        CHECK(c != NULL && c != sq);
        if (c != NULL) {
            CHECK(tl_tensor_dtype(c) == TL_DTYPE_FLOAT64);
            CHECK(memcmp(tl_tensor_data(c), tl_tensor_data(sq), 72) == 0 ||
                  tl_tensor_is_contiguous(c, TL_FORMAT_CONTIGUOUS));
        }
        tl_tensor_decref(c);
    }

    tl_tensor_decref(v1);
    tl_tensor_decref(sq);
    tl_tensor_decref(tall);
    tl_tensor_decref(wide);
    tl_tensor_decref(bsq);
    tl_tensor_decref(b32);
    tl_tensor_decref(piv3);
    tl_tensor_decref(piv2);
    tl_tensor_decref(piv32);
    tl_tensor_decref(info);
    tl_tensor_decref(w3);
    tl_tensor_decref(w2);
    tl_tensor_decref(wc3);
    tl_tensor_decref(i32);
    tl_tensor_decref(ro);
}


/* ---- copies, fills, conversions, scalars -------------------------------- */

static tl_scalar uint_scalar(uint64_t u)
{
    tl_scalar s;
    s.kind = TL_KIND_UINT;
    s.v.u = u;
    return s;
}

static void test_copy_fill_scalar_refusals(void)
{
    int64_t n4 = 4;
    tl_tensor_impl *t = cpu_empty(1, &n4, TL_DTYPE_UINT8);
    tl_scalar s7 = tl_scalar_int(7), s;

    CHECK_EQ_I64(tl_op_fill_(t, &s7), TL_OK);
    /* NULL operands */
    CHECK_EQ_I64(tl_op_copy_(NULL, t), TL_ERR_VALUE);
    CHECK(msg_has("copy_: an operand is NULL"));
    CHECK_EQ_I64(tl_op_copy_(t, NULL), TL_ERR_VALUE);
    CHECK_EQ_I64(tl_op_fill_(NULL, &s7), TL_ERR_VALUE);
    CHECK(msg_has("fill_: an operand is NULL"));
    CHECK_EQ_I64(tl_op_fill_(t, NULL), TL_ERR_VALUE);
    CHECK(tl_op_to_dtype(NULL, TL_DTYPE_FLOAT32, false) == NULL);
    CHECK(msg_has("to: the operand is NULL"));
    CHECK(tl_op_to_dtype(t, (tl_dtype)TL_DTYPE_COUNT, true) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_TYPE);
    CHECK(tl_op_contiguous(NULL, TL_FORMAT_CONTIGUOUS) == NULL);
    CHECK(msg_has("contiguous: the operand is NULL"));
    CHECK(tl_op_contiguous(t, (tl_memory_format)(TL_FORMAT_PRESERVE + 1)) ==
          NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    CHECK(msg_has("contiguous: unknown memory format"));
    CHECK(tl_op_contiguous(t, (tl_memory_format)-1) == NULL);
    CHECK(tl_op_clone(NULL, TL_FORMAT_PRESERVE) == NULL);
    CHECK(msg_has("clone: the operand is NULL"));
    CHECK(tl_op_empty_like(t, TL_DTYPE_UINT8, tl_device_cpu(),
                           TL_MEMKIND_DEFAULT,
                           (tl_memory_format)(TL_FORMAT_PRESERVE + 1)) ==
          NULL);
    CHECK(msg_has("unknown memory format"));

    /* unsigned scalars beyond int64 against each dtype's range */
    s = uint_scalar(200);
    CHECK_EQ_I64(tl_scalar_check_fill(&s, TL_DTYPE_UINT8), TL_OK);
    s = uint_scalar(300);
    CHECK(tl_scalar_check_fill(&s, TL_DTYPE_UINT8) < 0);
    CHECK(msg_has("uint8"));
    s = uint_scalar(UINT64_MAX);
    CHECK_EQ_I64(tl_scalar_check_fill(&s, TL_DTYPE_UINT64), TL_OK);
    CHECK(tl_scalar_check_fill(&s, TL_DTYPE_INT64) < 0);
    CHECK(tl_scalar_check_fill(&s, TL_DTYPE_INT32) < 0);
    CHECK_EQ_I64(tl_scalar_check_fill(&s, TL_DTYPE_FLOAT32), TL_OK);
    CHECK_EQ_I64(tl_scalar_check_fill(&s, TL_DTYPE_FLOAT16), TL_ERR_OVERFLOW);
    CHECK(msg_has("is out of range for float16"));
    s = uint_scalar(65504);
    CHECK_EQ_I64(tl_scalar_check_fill(&s, TL_DTYPE_FLOAT16), TL_OK);
    /* a refused fill writes nothing */
    s = uint_scalar(256);
    CHECK(tl_op_fill_(t, &s) < 0);
    {
        const uint8_t *p = tl_tensor_data(t);
        CHECK(p[0] == 7 && p[1] == 7 && p[2] == 7 && p[3] == 7);
    }
    CHECK_EQ_I64(tl_tensor_version(t), 1);

    /* a scalar of an unknown kind; item of a tensor of many elements */
    s.kind = 99;
    CHECK(tl_scalar_to_tensor(&s) == NULL);
    CHECK(msg_has("unknown scalar kind 99"));
    CHECK_EQ_I64(tl_tensor_item(t, &s), TL_ERR_VALUE);
    CHECK(msg_has("a tensor of 4 elements is not one number"));

    /* item of each kind, read back from a one-element tensor */
    {
        static const int dts[] = {TL_DTYPE_BOOL, TL_DTYPE_UINT16,
                                  TL_DTYPE_INT8, TL_DTYPE_BFLOAT16,
                                  TL_DTYPE_COMPLEX64, TL_DTYPE_COMPLEX128};
        for (size_t i = 0; i < sizeof(dts) / sizeof(dts[0]); i++) {
            int64_t one = 1;
            tl_tensor_impl *e = cpu_empty(1, &one, dts[i]);
            tl_scalar in = dts[i] >= TL_DTYPE_COMPLEX64
                               ? tl_scalar_complex(1.5, -2.0)
                               : tl_scalar_int(1);
            CHECK_EQ_I64(tl_op_fill_(e, &in), TL_OK);
            CHECK_EQ_I64(tl_tensor_item(e, &s), TL_OK);
            if (dts[i] >= TL_DTYPE_COMPLEX64) {
                CHECK(s.kind == TL_KIND_COMPLEX && s.v.c[0] == 1.5 &&
                      s.v.c[1] == -2.0);
            }
            else if (dts[i] == TL_DTYPE_BFLOAT16) {
                CHECK(s.kind == TL_KIND_FLOAT && s.v.f == 1.0);
            }
            else if (dts[i] == TL_DTYPE_UINT16) {
                CHECK(s.kind == TL_KIND_UINT && s.v.u == 1);
            }
            else {
                CHECK(s.v.i == 1);
            }
            tl_tensor_decref(e);
        }
    }
    CHECK_EQ_I64(tl_tensor_refcount(t), 1);
    tl_tensor_decref(t);
}


/* ---- searches: NULL operands and out= of the wrong shape --------------- */

static void test_search_refusals(void)
{
    int64_t n3 = 3, n2 = 2;
    tl_tensor_impl *seq = cpu_empty(1, &n3, TL_DTYPE_FLOAT32);
    tl_tensor_impl *v = cpu_empty(1, &n2, TL_DTYPE_FLOAT32);
    tl_tensor_impl *bad = cpu_empty(1, &n3, TL_DTYPE_INT64);
    tl_tensor_impl *badb = cpu_empty(1, &n3, TL_DTYPE_BOOL);
    tl_tensor_impl *u = NULL, *inv = NULL, *cnt = NULL;
    float *sp = tl_tensor_data(seq), *vp = tl_tensor_data(v);

    sp[0] = 1, sp[1] = 2, sp[2] = 3;
    vp[0] = 2, vp[1] = 0;
    memset(tl_tensor_data(bad), 0, 24);
    memset(tl_tensor_data(badb), 0, 3);
    CHECK_EQ_I64(tl_unique(NULL, false, NULL, &u, &inv, &cnt), TL_ERR_VALUE);
    CHECK(msg_has("unique(): an operand is NULL"));
    CHECK(u == NULL && inv == NULL && cnt == NULL);
    CHECK(tl_searchsorted(NULL, NULL, v, false, NULL, false) == NULL);
    CHECK(msg_has("searchsorted(): an operand is NULL"));
    CHECK(tl_searchsorted(NULL, seq, NULL, false, NULL, false) == NULL);
    CHECK(tl_isin(NULL, NULL, seq, false) == NULL);
    CHECK(msg_has("isin(): an operand is NULL"));
    CHECK(tl_isin(NULL, seq, NULL, false) == NULL);
    CHECK(tl_count_nonzero(NULL, 0, NULL) == NULL);
    CHECK(msg_has("count_nonzero(): an operand is NULL"));
    CHECK(tl_nonzero(NULL, NULL) == NULL);
    CHECK(msg_has("nonzero(): an operand is NULL"));
    /* out= of another shape (a view: not resizable) */
    CHECK(tl_searchsorted(bad, seq, v, false, NULL, false) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_SHAPE);
    CHECK(msg_has("searchsorted(): out= has shape [3] but the result has "
                  "shape [2]"));
    CHECK(tl_isin(badb, v, seq, false) == NULL);
    CHECK(msg_has("isin(): out= has shape [3] but the result has shape [2]"));
    CHECK(tl_nonzero(bad, v) == NULL);
    CHECK(msg_has("nonzero(): out= has shape [3] but the result has shape "
                  "[1, 1]"));
    /* the out= tensors were not written */
    {
        const int64_t *bp = tl_tensor_data(bad);
        const uint8_t *bb = tl_tensor_data(badb);
        CHECK(bp[0] == 0 && bp[1] == 0 && bp[2] == 0);
        CHECK(bb[0] == 0 && bb[1] == 0 && bb[2] == 0);
        CHECK_EQ_I64(tl_tensor_version(bad), 0);
        CHECK_EQ_I64(tl_tensor_version(badb), 0);
    }
    /* and the same calls with a good out= work */
    {
        tl_tensor_impl *o = cpu_empty(1, &n2, TL_DTYPE_INT64);
        tl_tensor_impl *r = tl_searchsorted(o, seq, v, false, NULL, false);
        CHECK(r == o);
        if (r != NULL) {
            const int64_t *op = tl_tensor_data(o);
            CHECK(op[0] == 1 && op[1] == 0);
        }
        tl_tensor_decref(r);
        tl_tensor_decref(o);
    }
    tl_tensor_decref(seq);
    tl_tensor_decref(v);
    tl_tensor_decref(bad);
    tl_tensor_decref(badb);
}


/* ---- elementwise ops: result types and refusals ------------------------ */

/* A one-element tensor of dtype dt holding 1 (0-dim when zero_dim). */
static tl_tensor_impl *one_of(int dt, bool zero_dim)
{
    int64_t n2 = 2;
    tl_tensor_impl *t = zero_dim ? cpu_empty(0, NULL, dt)
                                 : cpu_empty(1, &n2, dt);
    tl_scalar one = tl_scalar_int(1);
    tl_op_fill_(t, &one);
    return t;
}

static void test_result_types_agree_with_ops(void)
{
    int checked = 0;
    tl_dtype r;

    /* Every binary op over dtype pairs (tensor, tensor and tensor,
     * 0-dim): result_type says what the op gives, or refuses as it. */
    for (int op = 0; op < TL_BINARY_OP_COUNT; op++) {
        for (int da = 0; da < TL_DTYPE_COUNT; da += 3) {
            for (int db = 0; db < TL_DTYPE_COUNT; db += 2) {
                tl_tensor_impl *a = one_of(da, false);
                tl_tensor_impl *b = one_of(db, db % 4 == 0);
                tl_tensor_impl *c = tl_op_binary(op, NULL, a, b, NULL);
                int kind = c ? TL_OK : tl_error_kind();
                int rc = tl_op_binary_result_type(op, a, b, &r);
                if (c != NULL) {
                    CHECK_EQ_I64(rc, TL_OK);
                    CHECK_EQ_I64(r, tl_tensor_dtype(c));
                    checked++;
                }
                else if (kind == TL_ERR_TYPE) {
                    CHECK_EQ_I64(rc, TL_ERR_TYPE);
                }
                tl_tensor_decref(c);
                tl_tensor_decref(a);
                tl_tensor_decref(b);
            }
        }
    }
    for (int op = 0; op < TL_UNARY_OP_COUNT; op++) {
        for (int da = 0; da < TL_DTYPE_COUNT; da++) {
            tl_tensor_impl *a = one_of(da, false);
            tl_tensor_impl *c = tl_op_unary(op, NULL, a);
            int kind = c ? TL_OK : tl_error_kind();
            int rc = tl_op_unary_result_type(op, (tl_dtype)da, &r);
            if (c != NULL) {
                CHECK_EQ_I64(rc, TL_OK);
                CHECK_EQ_I64(r, tl_tensor_dtype(c));
                checked++;
            }
            else if (kind == TL_ERR_TYPE) {
                CHECK_EQ_I64(rc, TL_ERR_TYPE);
            }
            tl_tensor_decref(c);
            tl_tensor_decref(a);
        }
    }
    CHECK(checked > 500);
    /* unknown ops and dtypes */
    {
        tl_tensor_impl *a = one_of(TL_DTYPE_FLOAT32, false);
        CHECK_EQ_I64(tl_op_binary_result_type(-1, a, a, &r), TL_ERR_VALUE);
        CHECK(msg_has("unknown binary op -1"));
        CHECK_EQ_I64(tl_op_binary_result_type(TL_BINARY_OP_COUNT, a, a, &r),
                     TL_ERR_VALUE);
        CHECK_EQ_I64(tl_op_unary_result_type(TL_UNARY_OP_COUNT,
                                             TL_DTYPE_FLOAT32, &r),
                     TL_ERR_VALUE);
        CHECK_EQ_I64(tl_op_unary_result_type(0, (tl_dtype)-1, &r),
                     TL_ERR_VALUE);
        CHECK(tl_op_binary(TL_BINARY_OP_COUNT, NULL, a, a, NULL) == NULL);
        CHECK(msg_has("unknown binary op"));
        CHECK(tl_op_binary(0, NULL, a, NULL, NULL) == NULL);
        CHECK(msg_has("an operand is NULL"));
        CHECK(tl_op_unary(-2, NULL, a) == NULL);
        CHECK(msg_has("unknown unary op -2"));
        CHECK(tl_op_unary(0, NULL, NULL) == NULL);
        CHECK(msg_has("the operand is NULL"));
        {
            /* mode TRUE is true division */
            tl_tensor_impl *q = tl_op_div_rounding(NULL, a, a,
                                                   TL_DIV_TRUE);
            CHECK(q != NULL && tl_tensor_dtype(q) == TL_DTYPE_FLOAT32 &&
                  ((const float *)tl_tensor_data(q))[0] == 1.0f);
            tl_tensor_decref(q);
        }
        CHECK(tl_op_div_rounding(NULL, a, a, 77) == NULL);
        CHECK(msg_has("div: unknown rounding mode 77"));
        CHECK(tl_op_div_rounding(NULL, NULL, a, TL_DIV_TRUNC) == NULL);
        CHECK(msg_has("div: an operand is NULL"));
        CHECK(tl_op_where(NULL, NULL, a, a) == NULL);
        CHECK(msg_has("where: an operand is NULL"));
        CHECK(tl_op_clamp(NULL, NULL, a, a) == NULL);
        CHECK(msg_has("clamp: the operand is NULL"));
        CHECK(tl_op_round_decimals(NULL, NULL, 2) == NULL);
        CHECK_EQ_I64(tl_op_unary_from_name("no such op"), -1);
        CHECK_EQ_I64(tl_op_binary_from_name("no such op"), -1);
        CHECK(tl_op_unary_name(-1) == NULL);
        CHECK_EQ_I64(tl_tensor_version(a), 1);  /* (the fill) */
        CHECK_EQ_I64(tl_tensor_refcount(a), 1);
        tl_tensor_decref(a);
    }
}


/* ---- reductions: result types and refusals ----------------------------- */

static void test_reduce_result_types_and_refusals(void)
{
    static const int dtypes[] = {-1, TL_DTYPE_INT64, TL_DTYPE_FLOAT32,
                                 TL_DTYPE_FLOAT64, TL_DTYPE_COMPLEX64,
                                 TL_DTYPE_BOOL};
    int checked = 0;
    tl_dtype r;
    int64_t dim0 = 0;

    for (int op = 0; op < TL_REDUCE_OP_COUNT; op++) {
        bool arg = op == TL_REDUCE_ARGMAX || op == TL_REDUCE_ARGMIN;
        bool var = op == TL_REDUCE_VAR || op == TL_REDUCE_STD;
        bool plain = !(op >= TL_REDUCE_ARGMAX && op <= TL_REDUCE_STD);
        for (int da = 0; da < TL_DTYPE_COUNT; da++) {
            for (size_t k = 0; k < sizeof(dtypes) / sizeof(dtypes[0]); k++) {
                int dt = dtypes[k];
                tl_tensor_impl *a = one_of(da, false), *c = NULL;
                int rc = tl_reduce_result_type(op, (tl_dtype)da, dt, &r);
                if (plain) {
                    c = tl_reduce(op, NULL, a, 1, &dim0, false, dt);
                }
                else if (dt < 0 && arg) {
                    c = tl_reduce_arg(op, NULL, a, &dim0, false);
                }
                else if (dt < 0 && var) {
                    c = tl_reduce_var(NULL, a, 1, &dim0, 1.0, false,
                                      op == TL_REDUCE_STD);
                }
                else {
                    /* arg/var/std take no dtype= */
                    CHECK_EQ_I64(rc, TL_ERR_TYPE);
                    CHECK(msg_has("takes no dtype"));
                    tl_tensor_decref(a);
                    continue;
                }
                if (c != NULL) {
                    CHECK_EQ_I64(rc, TL_OK);
                    CHECK_EQ_I64(r, tl_tensor_dtype(c));
                    checked++;
                }
                else {
                    int kind = tl_error_kind();
                    /* A dtype refusal, which result_type shares, except
                     * for float8 inputs: the dtype rule gives a result
                     * type, but no reduction has a float8 kernel. */
                    if (kind == TL_ERR_TYPE && rc == 0) {
                        CHECK(da == TL_DTYPE_FLOAT8_E4M3FN ||
                              da == TL_DTYPE_FLOAT8_E5M2);
                        CHECK(msg_has(" is not supported for float8_e"));
                    }
                    else if (kind == TL_ERR_TYPE) {
                        CHECK(rc == TL_ERR_TYPE);
                    }
                }
                tl_tensor_decref(c);
                tl_tensor_decref(a);
            }
        }
    }
    CHECK(checked > 200);
    CHECK_EQ_I64(tl_reduce_result_type(TL_REDUCE_OP_COUNT, TL_DTYPE_FLOAT32,
                                       -1, &r), TL_ERR_VALUE);
    CHECK(msg_has("unknown reduction"));
    CHECK_EQ_I64(tl_reduce_result_type(0, (tl_dtype)99, -1, &r),
                 TL_ERR_VALUE);
    CHECK_EQ_I64(tl_reduce_result_type(0, TL_DTYPE_FLOAT32, 99, &r),
                 TL_ERR_TYPE);
    CHECK(msg_has("invalid dtype 99"));
    CHECK_EQ_I64(tl_reduce_from_name("no such reduction"), -1);
    CHECK(tl_reduce_name(-1) == NULL);
    {
        tl_tensor_impl *a = one_of(TL_DTYPE_FLOAT32, false);
        tl_tensor_impl *v = NULL, *ix = NULL;
        CHECK(tl_reduce(-1, NULL, a, 0, NULL, false, -1) == NULL);
        CHECK(msg_has("tl_reduce: bad reduction -1"));
        CHECK(tl_reduce(TL_REDUCE_ARGMAX, NULL, a, 0, NULL, false, -1) ==
              NULL);
        CHECK(tl_reduce(TL_REDUCE_SUM, NULL, NULL, 0, NULL, false, -1) ==
              NULL);
        CHECK(msg_has("sum: the input is NULL"));
        CHECK(tl_reduce(TL_REDUCE_SUM, NULL, a, -1, &dim0, false, -1) ==
              NULL);
        CHECK(msg_has("negative number of dims -1"));
        CHECK(tl_reduce_var(NULL, NULL, 0, NULL, 1.0, false, false) == NULL);
        CHECK(msg_has("var: the input is NULL"));
        CHECK(tl_reduce_var(NULL, a, 0, NULL, NAN, false, true) == NULL);
        CHECK(msg_has("std(): correction must not be NaN"));
        CHECK(tl_reduce_arg(TL_REDUCE_SUM, NULL, a, NULL, false) == NULL);
        CHECK(msg_has("tl_reduce_arg: bad reduction"));
        CHECK(tl_reduce_arg(TL_REDUCE_ARGMIN, NULL, NULL, NULL, false) ==
              NULL);
        CHECK(msg_has("argmin: the input is NULL"));
        CHECK_EQ_I64(tl_reduce_minmax_dim(TL_REDUCE_SUM, NULL, NULL, a, 0,
                                          false, &v, &ix), TL_ERR_VALUE);
        CHECK(msg_has("tl_reduce_minmax_dim: bad reduction"));
        CHECK_EQ_I64(tl_reduce_minmax_dim(TL_REDUCE_MAX, NULL, NULL, NULL, 0,
                                          false, &v, &ix), TL_ERR_VALUE);
        CHECK(msg_has("max: the input is NULL"));
        CHECK(v == NULL && ix == NULL);
        /* out= of the wrong shape (a view: not resizable) */
        {
            tl_tensor_impl *big = cpu_empty(1, (int64_t[]){3},
                                            TL_DTYPE_FLOAT32);
            tl_tensor_impl *o = tl_view_slice(big, 0, 0, 1, 3);
            tl_tensor_impl *oi = cpu_empty(1, (int64_t[]){3},
                                           TL_DTYPE_INT64);
            tl_tensor_impl *oiv = tl_view_slice(oi, 0, 0, 1, 3);
            CHECK(tl_reduce_var(o, a, 1, &dim0, 1.0, false, false) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_SHAPE);
            CHECK(tl_reduce_arg(TL_REDUCE_ARGMAX, oiv, a, &dim0, false) ==
                  NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_SHAPE);
            CHECK_EQ_I64(tl_tensor_version(big), 0);
            CHECK_EQ_I64(tl_tensor_version(oi), 0);
            tl_tensor_decref(o);
            tl_tensor_decref(big);
            tl_tensor_decref(oiv);
            tl_tensor_decref(oi);
        }
        /* max along a dim of float8: no kernel */
        {
            tl_tensor_impl *f8 = cpu_empty(1, (int64_t[]){4},
                                           TL_DTYPE_FLOAT8_E4M3FN);
            memset(tl_tensor_data(f8), 0, 4);
            CHECK(tl_reduce_minmax_dim(TL_REDUCE_MAX, NULL, NULL, f8, 0,
                                       false, &v, &ix) < 0);
            CHECK(msg_has("is not supported for float8_e4m3fn"));
            tl_tensor_decref(f8);
        }
        /* argmax of a float32 input that is not aligned to 4 bytes */
        {
            tl_block *blk = tl_block_alloc(tl_device_cpu(),
                                           TL_MEMKIND_DEFAULT, 64);
            tl_storage *st = tl_storage_from_block(blk, 1, 40);
            tl_tensor_impl *u = tl_tensor_new(st, 0, 1, (int64_t[]){9},
                                              (int64_t[]){1},
                                              TL_DTYPE_FLOAT32);
            CHECK(u != NULL);
            if (u != NULL) {
                float vals[9] = {3, 1, 4, 1, 5, 9, 2, 6, 5};
                tl_tensor_impl *r;
                memcpy(tl_tensor_data(u), vals, sizeof(vals));
                CHECK(!(tl_tensor_flags(u) & TL_FLAG_ALIGNED));
                r = tl_reduce_arg(TL_REDUCE_ARGMAX, NULL, u, NULL, false);
                CHECK(r != NULL && *(const int64_t *)tl_tensor_data(r) == 5);
                tl_tensor_decref(r);
                r = tl_reduce_arg(TL_REDUCE_ARGMIN, NULL, u, &dim0, false);
                CHECK(r != NULL && *(const int64_t *)tl_tensor_data(r) == 1);
                tl_tensor_decref(r);
                tl_tensor_decref(u);
            }
            tl_storage_decref(st);
            tl_block_decref(blk);
        }
        CHECK_EQ_I64(tl_tensor_refcount(a), 1);
        tl_tensor_decref(a);
    }
}


/* ---- iterator configuration refusals ----------------------------------- */

static void test_iter_config_refusals(void)
{
    tl_iter_config c;
    tl_tensor_impl *a = one_of(TL_DTYPE_FLOAT32, false);
    tl_tensor_impl *i = one_of(TL_DTYPE_INT32, false);
    tl_iter *it;

    tl_iter_free(NULL);
    /* an output after an input; a NULL input; too many operands */
    tl_iter_config_init(&c);
    CHECK_EQ_I64(tl_iter_config_add_input(&c, a), TL_OK);
    CHECK_EQ_I64(tl_iter_config_add_output(&c, NULL), TL_ERR_VALUE);
    CHECK(msg_has("iterator"));
    CHECK_EQ_I64(tl_iter_config_add_input(&c, NULL), TL_ERR_VALUE);
    CHECK(msg_has("iterator: an input may not be NULL"));
    tl_iter_config_init(&c);
    for (int k = 0; k < TL_ITER_MAX_OPERANDS; k++) {
        CHECK_EQ_I64(tl_iter_config_add_output(&c, NULL), TL_OK);
    }
    CHECK_EQ_I64(tl_iter_config_add_output(&c, NULL), TL_ERR_VALUE);
    CHECK(msg_has("iterator: at most"));
    CHECK_EQ_I64(tl_iter_config_add_input(&c, a), TL_ERR_VALUE);
    CHECK(msg_has("iterator: at most"));
    /* only outputs to allocate: no shape */
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, NULL);
    CHECK(tl_iter_new(&c) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    CHECK(msg_has("no operand gives a shape"));
    /* no operands at all */
    tl_iter_config_init(&c);
    CHECK(tl_iter_new(&c) == NULL);
    CHECK(msg_has("iterator: no operands"));
    /* all the same dtype, without promotion */
    tl_iter_config_init(&c);
    c.check_all_same_dtype = true;
    c.promote_inputs_to_common_dtype = false;
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, a);
    tl_iter_config_add_input(&c, i);
    CHECK(tl_iter_new(&c) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_TYPE);
    CHECK(msg_has("expected all operands to have dtype float32, but operand "
                  "2 has dtype int32"));
    /* an invalid output dtype */
    tl_iter_config_init(&c);
    c.output_dtype = 99;
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, a);
    CHECK(tl_iter_new(&c) == NULL);
    CHECK(msg_has("iterator: invalid dtype"));
    /* a broadcast shape whose element count overflows int64 */
    {
        int64_t big = (int64_t)1 << 40, one = 1;
        tl_tensor_impl *s1 = cpu_empty(1, &one, TL_DTYPE_UINT8);
        tl_tensor_impl *s11 = cpu_empty(2, (int64_t[]){1, 1},
                                        TL_DTYPE_UINT8);
        tl_tensor_impl *e1 = tl_view_expand(s1, 1, &big);
        tl_tensor_impl *e2 = tl_view_expand(s11, 2, (int64_t[]){big, 1});
        CHECK(e1 != NULL && e2 != NULL);
        tl_iter_config_init(&c);
        c.check_all_same_dtype = false;
        tl_iter_config_add_output(&c, NULL);
        tl_iter_config_add_input(&c, e1);
        tl_iter_config_add_input(&c, e2);
        CHECK(tl_iter_new(&c) == NULL);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_OVERFLOW);
        tl_tensor_decref(e1);
        tl_tensor_decref(e2);
        tl_tensor_decref(s1);
        tl_tensor_decref(s11);
    }
    /* integer inputs promoted to float */
    tl_iter_config_init(&c);
    c.check_all_same_dtype = false;
    c.promote_inputs_to_common_dtype = true;
    c.promote_integer_inputs_to_float = true;
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, i);
    it = tl_iter_new(&c);
    CHECK(it != NULL);
    if (it != NULL) {
        CHECK_EQ_I64(tl_iter_common_dtype(it), TL_DTYPE_FLOAT32);
        CHECK_EQ_I64(tl_iter_noutputs(it), 1);
        CHECK_EQ_I64(tl_tensor_dtype(tl_iter_operand(it, 0)),
                     TL_DTYPE_FLOAT32);
        tl_iter_free(it);
    }
    /* a good one: the accessors */
    tl_iter_config_init(&c);
    c.check_all_same_dtype = false;
    c.promote_inputs_to_common_dtype = true;
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, a);
    tl_iter_config_add_input(&c, i);
    it = tl_iter_new(&c);
    CHECK(it != NULL);
    if (it != NULL) {
        int nd = -1;
        const int64_t *bs = tl_iter_broadcast_shape(it, &nd);
        CHECK_EQ_I64(tl_iter_ntensors(it), 3);
        CHECK_EQ_I64(nd, 1);
        CHECK(bs != NULL && bs[0] == 2);
        CHECK_EQ_I64(tl_iter_common_dtype(it), TL_DTYPE_FLOAT32);
        tl_iter_free(it);
    }
    CHECK_EQ_I64(tl_tensor_refcount(a), 1);
    CHECK_EQ_I64(tl_tensor_refcount(i), 1);
    tl_tensor_decref(a);
    tl_tensor_decref(i);
}


/* ---- sorts and selections: refusals of the C API ----------------------- */

static void test_sort_select_refusals(void)
{
    tl_tensor_impl *a = one_of(TL_DTYPE_FLOAT32, false);
    tl_tensor_impl *q = one_of(TL_DTYPE_FLOAT32, true);
    tl_tensor_impl *v = NULL, *ix = NULL;

    CHECK_EQ_I64(tl_sort(NULL, NULL, NULL, 0, false, &v, &ix),
                 TL_ERR_VALUE);
    CHECK(msg_has("sort(): the input is NULL"));
    CHECK_EQ_I64(tl_select(TL_SELECT_MODE + 1, NULL, NULL, a, 1, 0, false,
                           &v, &ix), TL_ERR_VALUE);
    CHECK(msg_has("tl_select: bad op 4"));
    CHECK_EQ_I64(tl_select(-1, NULL, NULL, a, 1, 0, false, &v, &ix),
                 TL_ERR_VALUE);
    CHECK(v == NULL && ix == NULL);
    CHECK(tl_quantile(NULL, NULL, q, NULL, false, TL_INTERP_LINEAR,
                      false) == NULL);
    CHECK(msg_has("quantile(): an operand is NULL"));
    CHECK(tl_quantile(NULL, a, NULL, NULL, false, TL_INTERP_LINEAR,
                      true) == NULL);
    CHECK(msg_has("nanquantile(): an operand is NULL"));
    CHECK(tl_quantile(NULL, a, q, NULL, false, TL_INTERP_NEAREST + 1,
                      false) == NULL);
    CHECK(msg_has("quantile(): bad interpolation 5"));
    CHECK(tl_quantile(NULL, a, q, NULL, false, -1, false) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    /* a 1-D q over a 64-dim input with keepdim: 65 result dims */
    {
        int64_t s64[TL_MAX_DIMS], n2 = 2, d0 = 0;
        tl_tensor_impl *q2 = cpu_empty(1, &n2, TL_DTYPE_FLOAT32);
        tl_tensor_impl *big;
        for (int i = 0; i < TL_MAX_DIMS; i++) {
            s64[i] = 1;
        }
        s64[0] = 2;
        big = tl_view_view(a, TL_MAX_DIMS, s64);
        ((float *)tl_tensor_data(q2))[0] = 0.25f;
        ((float *)tl_tensor_data(q2))[1] = 0.75f;
        CHECK(big != NULL);
        if (big != NULL) {
            CHECK(tl_quantile(NULL, big, q2, &d0, true, TL_INTERP_LINEAR,
                              false) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_SHAPE);
            CHECK(msg_has("quantile(): the result would have 65 dims"));
            tl_tensor_decref(big);
        }
        tl_tensor_decref(q2);
    }
    CHECK_EQ_I64(tl_tensor_refcount(a), 1);
    CHECK_EQ_I64(tl_tensor_refcount(q), 1);
    tl_tensor_decref(a);
    tl_tensor_decref(q);
}


/* ---- the pool's refusals of bad arguments ------------------------------ */

static void test_pool_argument_refusals(void)
{
    tl_raw_allocator raw = {"raw", NULL, {TL_DEVICE_CPU, 0}, raw_alloc,
                            raw_free};
    tl_pool_config c;
    tl_allocator *a = small_pool();
    pool *p;
    void *u;
    const tl_allocator *cpu = tl_cpu_aligned_allocator();

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    p = (pool *)a->ctx;
    /* limits past SIZE_MAX / 4 */
    c = tl_pool_config_cpu();
    c.large_round = SIZE_MAX / 2;
    CHECK(tl_pool_new(&raw, &c, "big") == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    CHECK(msg_has("pool limits are too large"));
    /* not a pool */
    CHECK_EQ_I64(tl_pool_destroy(NULL), TL_ERR_VALUE);
    CHECK(msg_has("tl_pool_destroy: not a pool"));
    CHECK_EQ_I64(tl_pool_destroy((tl_allocator *)cpu), TL_ERR_VALUE);
    CHECK(tl_pool_allocate_on(cpu, 64, 64, (tl_stream)0) == NULL);
    CHECK(msg_has("tl_pool_allocate_on: not a pool"));
    CHECK_EQ_I64(tl_pool_round_size(cpu, 64), 0);
    CHECK(msg_has("tl_pool_round_size: not a pool"));
    /* a size no request can have */
    CHECK_EQ_I64(tl_pool_round_size(a, SIZE_MAX - 10), 0);
    CHECK(tl_error_kind() != TL_OK);
    /* deallocating NULL or a pointer the pool never handed out touches
     * nothing (the second warns on stderr) */
    u = a->allocate(a->ctx, 100, 64);
    CHECK(u != NULL);
    {
        int64_t live = (int64_t)p->nlive, active = p->active;
        a->deallocate(a->ctx, NULL, 0);
        a->deallocate(a->ctx, (char *)u + 64, 100);
        CHECK_EQ_I64((int64_t)p->nlive, live);
        CHECK_EQ_I64(p->active, active);
        CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    }
    /* without streams, allocate_on is allocate */
    {
        void *w = tl_pool_allocate_on(a, 100, 64, (tl_stream)0);
        CHECK(w != NULL && w != u);
        a->deallocate(a->ctx, w, 100);
    }
    /* Many small blocks freed: their bookkeeping structs outnumber the
     * spare list (SPARE_MAX), the rest are freed; the pool stays whole. */
    {
        enum { N = 1500 };
        static void *many[N];
        for (int i = 0; i < N; i++) {
            many[i] = a->allocate(a->ctx, 64, 64);
            CHECK(many[i] != NULL);
        }
        CHECK_EQ_I64(tl_pool_check(a), TL_OK);
        for (int i = 0; i < N; i++) {
            a->deallocate(a->ctx, many[i], 64);
        }
        CHECK_EQ_I64(tl_pool_check(a), TL_OK);
        CHECK(p->nspare <= SPARE_MAX);
    }
    /* destroy refuses while a block is out */
    CHECK_EQ_I64(tl_pool_destroy(a), TL_ERR_RUNTIME);
    a->deallocate(a->ctx, u, 100);
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    /* the older pool destroyed while a newer one lives (the live list
     * is unlinked in the middle) */
    {
        tl_allocator *newer = small_pool();
        CHECK(newer != NULL);
        CHECK_EQ_I64(tl_pool_destroy(a), TL_OK);
        if (newer != NULL) {
            void *w = newer->allocate(newer->ctx, 64, 64);
            CHECK(w != NULL);
            newer->deallocate(newer->ctx, w, 64);
            CHECK_EQ_I64(tl_pool_check(newer), TL_OK);
            CHECK_EQ_I64(tl_pool_destroy(newer), TL_OK);
        }
    }
}


/* ---- workspace arenas over a backing allocator ------------------------- */

typedef struct counting {
    tl_allocator base;
    int allocs, frees;
    long long live;
} counting;

static void *counting_allocate(void *ctx, size_t n, size_t alignment)
{
    counting *c = ctx;
    void *p = NULL;
    if (posix_memalign(&p, alignment < sizeof(void *) ? sizeof(void *)
                                                       : alignment,
                       n ? n : 1) != 0) {
        tl_error(TL_ERR_MEMORY, "counting: out of memory");
        return NULL;
    }
    c->allocs++;
    c->live += (long long)n;
    return p;
}

static void counting_deallocate(void *ctx, void *p, size_t n)
{
    counting *c = ctx;
    c->frees++;
    c->live -= (long long)n;
    free(p);
}

static void *fail_allocate(void *ctx, size_t n, size_t alignment)
{
    (void)ctx;
    (void)alignment;
    tl_error(TL_ERR_MEMORY, "failing: no %zu bytes", n);
    return NULL;
}

static void counting_init(counting *c, tl_device dev)
{
    memset(c, 0, sizeof(*c));
    c->base.abi_version = TL_ALLOCATOR_ABI_VERSION;
    c->base.name = "counting";
    c->base.ctx = c;
    c->base.device = dev;
    c->base.allocate = counting_allocate;
    c->base.deallocate = counting_deallocate;
}

static void test_arena_backing_and_device_refusals(void)
{
    counting cpu_back, dev_back;
    tl_allocator bad;
    tl_arena *a;

    /* a backing allocator of another ABI, or without deallocate */
    counting_init(&cpu_back, tl_device_cpu());
    bad = cpu_back.base;
    bad.abi_version = TL_ALLOCATOR_ABI_VERSION + 1;
    CHECK(tl_arena_new(&bad, 4096, 0) == NULL);
    CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
    CHECK(msg_has("the backing allocator of a workspace arena has ABI "
                  "version 2 (expected 1)"));
    bad = cpu_back.base;
    bad.deallocate = NULL;
    CHECK(tl_arena_new(&bad, 4096, 0) == NULL);
    CHECK(msg_has("lacks allocate / deallocate"));

    /* chunks come from and go back to the backing allocator */
    a = tl_arena_new(&cpu_back.base, 4096, 0);
    CHECK(a != NULL);
    if (a != NULL) {
        char *p = tl_arena_alloc(a, 1000, 64);
        char *q = tl_arena_alloc(a, 100000, 64);  /* a second chunk */
        CHECK(p != NULL && q != NULL);
        if (p != NULL && q != NULL) {
            memset(p, 1, 1000);
            memset(q, 2, 100000);
            CHECK(p[999] == 1 && q[99999] == 2);
        }
        CHECK(cpu_back.allocs >= 2);
        CHECK(cpu_back.live >= 100000);
        tl_arena_decref(a);
    }
    CHECK_EQ_I64(cpu_back.allocs, cpu_back.frees);
    CHECK_EQ_I64(cpu_back.live, 0);

    /* a backing allocator that has no memory: its error comes back */
    {
        counting failing;
        counting_init(&failing, tl_device_cpu());
        failing.base.allocate = fail_allocate;
        a = tl_arena_new(&failing.base, 0, 0);
        CHECK(a != NULL);
        if (a != NULL) {
            CHECK(tl_arena_alloc(a, 1000, 64) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_MEMORY);
            CHECK(msg_has("failing: no"));
            CHECK_EQ_I64(tl_arena_used(a), 0);
            tl_arena_decref(a);
        }
        a = tl_arena_new(&failing.base, 4096, 0);
        CHECK(a == NULL);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_MEMORY);
    }
    /* an arena on a (fake) device: host kinds are refused, and the
     * workspace allocator of the CPU refuses it as the innermost */
    counting_init(&dev_back, CUDA0);
    a = tl_arena_new(&dev_back.base, 4096, 0);
    CHECK(a != NULL);
    if (a != NULL) {
        tl_block *b;
        CHECK(tl_device_eq(tl_arena_device(a), CUDA0));
        CHECK(tl_arena_alloc_block(a, TL_MEMKIND_HOST_PINNED, 64, 64) ==
              NULL);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_VALUE);
        CHECK(msg_has("memory kind HostPinned is a host kind and cannot be "
                      "used on device cuda:0"));
        CHECK_EQ_I64(tl_arena_push(a), TL_OK);
        b = tl_block_alloc(tl_device_cpu(), TL_MEMKIND_WORKSPACE, 64);
        CHECK(b == NULL);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_RUNTIME);
        CHECK(msg_has("the innermost workspace is on cuda:0, not cpu"));
        tl_block_decref(b);
        CHECK_EQ_I64(tl_arena_pop(a), TL_OK);
        CHECK_EQ_I64(tl_arena_used(a), 0);
        tl_arena_decref(a);
    }
    CHECK_EQ_I64(dev_back.allocs, dev_back.frees);
    CHECK_EQ_I64(dev_back.live, 0);
}


/* ---- a fake device: host memory behind a device kernel table row ------- */

/* The row moves bytes with memcpy and runs same-dtype copies only; every
 * other launch is refused, so that the test sees what core asked for. */
static int fake_launches, fake_copies;

static int fake_count(void) { return 1; }

static int fake_check(int index)
{
    return index == 0 ? 0
                      : tl_error(TL_ERR_RUNTIME, "cuda:%d is not available "
                                 "(1 fake device)", index);
}

static int fake_copy_bytes(tl_block *dst, size_t dst_offset, tl_block *src,
                           size_t src_offset, size_t nbytes, unsigned flags)
{
    (void)flags;
    fake_copies++;
    memcpy((char *)tl_block_ptr(dst) + dst_offset,
           (char *)tl_block_ptr(src) + src_offset, nbytes);
    return 0;
}

static int fake_elementwise(const tl_dev_loop *L, const tl_dev_op *op)
{
    int64_t idx[TL_MAX_DIMS] = {0};
    const tl_dev_operand *o = &L->ops[0], *in = &L->ops[1];
    int64_t isz;

    fake_launches++;
    if (op->kind != TL_DEV_COPY || L->ntensors != 2 ||
        o->dtype != in->dtype || in->data == NULL) {
        return tl_error(TL_ERR_NOT_IMPLEMENTED, "fake device: launch kind "
                        "%d is not implemented", (int)op->kind);
    }
    isz = tl_dtype_itemsize((tl_dtype)o->dtype);
    for (int64_t n = 0; n < L->numel; n++) {
        int64_t so = 0, si = 0;
        for (int d = 0; d < L->ndim; d++) {
            so += idx[d] * o->strides[d];
            si += idx[d] * in->strides[d];
        }
        memcpy(o->data + so, in->data + si, (size_t)isz);
        for (int d = 0; d < L->ndim && ++idx[d] == L->shape[d]; d++) {
            idx[d] = 0;
        }
    }
    return 0;
}

static int fake_scan(const tl_dev_loop *L, const tl_dev_op *op, int *found)
{
    (void)L;
    (void)op;
    (void)found;
    fake_launches++;
    return tl_error(TL_ERR_NOT_IMPLEMENTED, "fake device: no scans");
}

static int fake_reductions;

static int fake_reduce(const tl_dev_reduce *r)
{
    fake_reductions++;
    return tl_error(TL_ERR_NOT_IMPLEMENTED, "fake device: reduction %d "
                    "over %lld x %lld", (int)r->op, (long long)r->nout,
                    (long long)r->M);
}

static int fake_record(tl_block *b, tl_stream s)
{
    (void)b;
    return s == (tl_stream)7 ? 0 : tl_error(TL_ERR_VALUE, "fake: stream");
}

static tl_tensor_impl *dev_empty(int nd, const int64_t *sizes, int dt)
{
    return tl_tensor_empty(nd, sizes, (tl_dtype)dt, CUDA0,
                           TL_MEMKIND_DEFAULT);
}

static void fill_iota(tl_tensor_impl *t)
{
    float *p = tl_tensor_data(t);
    for (int64_t i = 0; i < tl_tensor_numel(t); i++) {
        p[i] = (float)i;
    }
}

static void test_fake_device_copies(void)
{
    static tl_device_ops row;
    counting mem;
    int64_t s23[2] = {2, 3}, s6 = 6, s32[2] = {3, 2};
    tl_tensor_impl *x, *d, *t;

    memset(&row, 0, sizeof(row));
    row.abi_version = TL_DEVICE_OPS_ABI_VERSION;
    row.name = "fake";
    row.device_count = fake_count;
    row.check_device = fake_check;
    row.copy_bytes = fake_copy_bytes;
    row.elementwise = fake_elementwise;
    row.scan = fake_scan;
    row.record_stream = fake_record;
    row.reduce = fake_reduce;
    counting_init(&mem, CUDA0);
    CHECK_EQ_I64(tl_registry_set(CUDA0, TL_MEMKIND_DEFAULT, &mem.base),
                 TL_OK);
    CHECK_EQ_I64(tl_device_ops_register(TL_DEVICE_CUDA, &row), TL_OK);

    x = cpu_empty(2, s23, TL_DTYPE_FLOAT32);
    fill_iota(x);
    /* CPU -> device, dense: one byte copy, no launch */
    fake_copies = fake_launches = 0;
    d = tl_op_to_device(x, CUDA0, -1, false, false);
    CHECK(d != NULL);
    CHECK_EQ_I64(fake_copies, 1);
    CHECK_EQ_I64(fake_launches, 0);
    if (d != NULL) {
        const float *p = tl_tensor_data(d);
        CHECK(p[0] == 0 && p[5] == 5);
        /* item(): one element read through the row */
        tl_tensor_impl *row1 = tl_view_select(d, 0, 1);
        tl_tensor_impl *e = tl_view_select(row1, 0, 2);
        tl_scalar v;
        CHECK(e != NULL);
        CHECK_EQ_I64(tl_tensor_item(e, &v), TL_OK);
        CHECK(v.kind == TL_KIND_FLOAT && v.v.f == 5.0);
        tl_tensor_decref(e);
        tl_tensor_decref(row1);
        /* record_stream goes to the row */
        CHECK_EQ_I64(tl_tensor_record_stream(d, (tl_stream)7), TL_OK);
        CHECK_EQ_I64(tl_tensor_record_stream(d, (tl_stream)8), TL_ERR_VALUE);
        CHECK(msg_has("fake: stream"));
    }
    /* CPU -> a strided device view: bytes into a twin, then a copy
     * kernel on the device */
    t = dev_empty(1, (int64_t[]){12}, TL_DTYPE_FLOAT32);
    CHECK(t != NULL);
    if (t != NULL) {
        tl_tensor_impl *dst = tl_view_slice(t, 0, 0, 2, 6);
        tl_tensor_impl *src = tl_view_view(x, 1, &s6);
        memset(tl_tensor_data(t), 0, 48);
        fake_copies = fake_launches = 0;
        CHECK_EQ_I64(tl_op_copy_nb_(dst, src, true), TL_OK);
        CHECK_EQ_I64(fake_copies, 1);
        CHECK_EQ_I64(fake_launches, 1);
        {
            const float *p = tl_tensor_data(t);
            CHECK(p[0] == 0 && p[1] == 0 && p[2] == 1 && p[10] == 5 &&
                  p[11] == 0);
        }
        CHECK_EQ_I64(tl_tensor_version(dst), 1);
        /* refusals: a shape the source does not broadcast to, a
         * destination that overlaps itself, a device that is missing */
        {
            tl_tensor_impl *wide = cpu_empty(2, (int64_t[]){1, 6},
                                             TL_DTYPE_FLOAT32);
            CHECK_EQ_I64(tl_op_copy_nb_(dst, wide, false), TL_ERR_SHAPE);
            CHECK(msg_has("cannot copy into shape [6]: the source "
                          "broadcasts to [1, 6]"));
            tl_tensor_decref(wide);
        }
        {
            tl_tensor_impl *one = tl_view_slice(t, 0, 0, 1, 1);
            tl_tensor_impl *ex = tl_view_expand(one, 1, &s6);
            CHECK(ex != NULL);
            CHECK(tl_op_copy_nb_(ex, src, false) < 0);
            CHECK(msg_has("cannot write into a tensor whose elements share "
                          "memory"));
            tl_tensor_decref(ex);
            tl_tensor_decref(one);
        }
        {
            tl_device d1 = {TL_DEVICE_CUDA, 1};
            CHECK(tl_op_to_device(x, d1, -1, false, false) == NULL);
            CHECK(msg_has("cuda:1 is not available (1 fake device)"));
        }
        /* device -> CPU into a transposed (non-dense-alike) view */
        {
            tl_tensor_impl *host = cpu_empty(2, s32, TL_DTYPE_FLOAT32);
            tl_tensor_impl *ht = tl_view_transpose(host, 0, 1);
            tl_tensor_impl *dv = tl_view_view(dst, 2, s23);
            CHECK(dv != NULL);
            fake_copies = fake_launches = 0;
            CHECK_EQ_I64(tl_op_copy_nb_(ht, dv, false), TL_OK);
            {
                const float *h = tl_tensor_data(host);
                /* host[j][i] = x[i][j] */
                CHECK(h[0] == 0 && h[1] == 3 && h[2] == 1 && h[5] == 5);
            }
            tl_tensor_decref(dv);
            tl_tensor_decref(ht);
            tl_tensor_decref(host);
        }
        /* a device operand not aligned to its element size */
        {
            tl_tensor_impl *t2 = dev_empty(1, (int64_t[]){12},
                                           TL_DTYPE_FLOAT32);
            tl_storage *st = tl_tensor_storage(t2);
            tl_storage *odd = tl_storage_from_block(tl_storage_block(st), 1,
                                                    40);
            tl_tensor_impl *mis = odd ? tl_tensor_new(odd, 0, 1, &s6,
                                                      (int64_t[]){1},
                                                      TL_DTYPE_FLOAT32)
                                      : NULL;
            CHECK(mis != NULL);
            if (mis != NULL) {
                fake_launches = 0;
                CHECK_EQ_I64(tl_op_copy_(mis, dst), TL_ERR_NOT_IMPLEMENTED);
                CHECK(msg_has("device kernels need memory aligned to the "
                              "element size (operand 0, float32"));
                CHECK_EQ_I64(fake_launches, 0);
                tl_tensor_decref(mis);
            }
            tl_storage_decref(odd);
            tl_tensor_decref(t2);
        }
        tl_tensor_decref(src);
        tl_tensor_decref(dst);
        tl_tensor_decref(t);
    }
    /* CPU sources whose layout differs from a dense device destination
     * (fewer dims, other strides, another dtype into a strided view):
     * converted on the CPU first */
    {
        tl_tensor_impl *dd = dev_empty(2, s23, TL_DTYPE_FLOAT32);
        tl_tensor_impl *row3 = cpu_empty(1, (int64_t[]){3},
                                         TL_DTYPE_FLOAT32);
        tl_tensor_impl *x32 = cpu_empty(2, s32, TL_DTYPE_FLOAT32);
        tl_tensor_impl *xt = tl_view_transpose(x32, 0, 1);
        tl_tensor_impl *x64 = cpu_empty(1, &s6, TL_DTYPE_FLOAT64);
        tl_tensor_impl *t12 = dev_empty(1, (int64_t[]){12},
                                        TL_DTYPE_FLOAT32);
        tl_tensor_impl *strided = tl_view_slice(t12, 0, 1, 2, 6);
        fill_iota(row3);
        fill_iota(x32);
        for (int k = 0; k < 6; k++) {
            ((double *)tl_tensor_data(x64))[k] = 10.0 + k;
        }
        memset(tl_tensor_data(t12), 0, 48);
        CHECK_EQ_I64(tl_op_copy_(dd, row3), TL_OK);
        {
            const float *p = tl_tensor_data(dd);
            CHECK(p[0] == 0 && p[2] == 2 && p[3] == 0 && p[5] == 2);
        }
        CHECK_EQ_I64(tl_op_copy_(dd, xt), TL_OK);
        {
            const float *p = tl_tensor_data(dd);
            /* dd[i][j] = x32[j][i] = 2 * j + i */
            CHECK(p[0] == 0 && p[1] == 2 && p[2] == 4 && p[3] == 1 &&
                  p[5] == 5);
        }
        CHECK_EQ_I64(tl_op_copy_(strided, x64), TL_OK);
        {
            const float *p = tl_tensor_data(t12);
            CHECK(p[0] == 0 && p[1] == 10 && p[3] == 11 && p[11] == 15);
        }
        /* the device check fails: nothing is copied */
        row.check_device = check_refuses;
        CHECK(tl_op_copy_(dd, row3) < 0);
        CHECK(msg_has("the fake driver is asleep (cuda:0 requested)"));
        {
            tl_tensor_impl *h23 = cpu_empty(2, s23, TL_DTYPE_FLOAT32);
            CHECK(tl_op_copy_(h23, dd) < 0);
            CHECK(msg_has("the fake driver is asleep"));
            CHECK_EQ_I64(tl_tensor_version(h23), 0);
            tl_tensor_decref(h23);
        }
        row.check_device = fake_check;
        CHECK(((const float *)tl_tensor_data(dd))[1] == 2);
        tl_tensor_decref(strided);
        tl_tensor_decref(t12);
        tl_tensor_decref(x64);
        tl_tensor_decref(xt);
        tl_tensor_decref(x32);
        tl_tensor_decref(row3);
        tl_tensor_decref(dd);
    }
    /* an empty tensor with a negative stride (flagged dense: it has no
     * elements) goes to the device as an empty tensor of its sizes */
    {
        tl_storage *es = tl_storage_new(tl_device_cpu(), TL_MEMKIND_DEFAULT,
                                        0);
        int64_t esz[2] = {0, 2}, est[2] = {1, -1};
        tl_tensor_impl *e = tl_tensor_new(es, 0, 2, esz, est,
                                          TL_DTYPE_FLOAT32);
        tl_tensor_impl *de;
        CHECK(e != NULL);
        fake_copies = fake_launches = 0;
        de = e ? tl_op_to_device(e, CUDA0, -1, false, false) : NULL;
        CHECK(de != NULL);
        if (de != NULL) {
            CHECK(tl_device_eq(tl_tensor_device(de), CUDA0));
            CHECK(tl_tensor_ndim(de) == 2 && tl_tensor_sizes(de)[1] == 2 &&
                  tl_tensor_numel(de) == 0);
            CHECK_EQ_I64(fake_copies + fake_launches, 0);
        }
        tl_tensor_decref(de);
        tl_tensor_decref(e);
        tl_storage_decref(es);
    }
    /* fill_: nothing to launch for an empty device tensor; the row's
     * refusal of a launch comes back and leaves the tensor alone */
    {
        int64_t z = 0;
        tl_tensor_impl *e = dev_empty(1, &z, TL_DTYPE_FLOAT32);
        tl_tensor_impl *f = dev_empty(1, &s6, TL_DTYPE_FLOAT32);
        tl_scalar two = tl_scalar_float(2.0);
        CHECK(e != NULL && f != NULL);
        fake_launches = 0;
        CHECK_EQ_I64(tl_op_fill_(e, &two), TL_OK);
        CHECK_EQ_I64(fake_launches, 0);
        memset(tl_tensor_data(f), 0, 24);
        CHECK_EQ_I64(tl_op_fill_(f, &two), TL_ERR_NOT_IMPLEMENTED);
        CHECK(msg_has("fake device: launch kind 1 is not implemented"));
        CHECK_EQ_I64(fake_launches, 1);
        CHECK(((const float *)tl_tensor_data(f))[0] == 0);
        CHECK_EQ_I64(tl_tensor_version(f), 0);
        tl_tensor_decref(e);
        tl_tensor_decref(f);
    }
    /* the iterator: device operands need device kernels, and a usable
     * device */
    {
        tl_tensor_impl *f = dev_empty(1, &s6, TL_DTYPE_FLOAT32);
        tl_iter_config c;
        tl_iter_config_init(&c);
        tl_iter_config_add_output(&c, NULL);
        tl_iter_config_add_input(&c, f);
        CHECK(tl_iter_new(&c) == NULL);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_NOT_IMPLEMENTED);
        CHECK(msg_has("this operation is not implemented for cuda:0 "
                      "tensors"));
        c.device_kernels = true;
        row.check_device = check_refuses;
        CHECK(tl_iter_new(&c) == NULL);
        CHECK(msg_has("the fake driver is asleep (cuda:0 requested)"));
        row.check_device = fake_check;
        tl_tensor_decref(f);
    }
    /* reductions: sum goes to the row (kept dims of size 1 dropped from
     * the layout); count_nonzero, max along a dim and a CPU out= are
     * refused */
    {
        int64_t s213[3] = {2, 1, 3}, dims[1] = {2};
        tl_tensor_impl *f = dev_empty(3, s213, TL_DTYPE_FLOAT32);
        tl_tensor_impl *hout = cpu_empty(2, (int64_t[]){2, 1},
                                         TL_DTYPE_FLOAT32);
        tl_tensor_impl *v = NULL, *ix = NULL;
        fake_reductions = 0;
        CHECK(tl_reduce(TL_REDUCE_SUM, NULL, f, 1, dims, false, -1) ==
              NULL);
        CHECK(msg_has("fake device: reduction 0 over 2 x 3"));
        CHECK_EQ_I64(fake_reductions, 1);
        CHECK(tl_reduce(TL_REDUCE_COUNT_NONZERO, NULL, f, 1, dims, false,
                        -1) == NULL);
        CHECK(msg_has("count_nonzero: tensors on the CPU only"));
        CHECK(tl_reduce(TL_REDUCE_SUM, hout, f, 1, dims, false, -1) == NULL);
        CHECK(msg_has("operands on different devices (cuda:0 and cpu)"));
        CHECK(tl_reduce_minmax_dim(TL_REDUCE_MAX, NULL, NULL, f, 2, false,
                                   &v, &ix) < 0);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_NOT_IMPLEMENTED);
        CHECK(v == NULL && ix == NULL);
        CHECK_EQ_I64(fake_reductions, 1);
        CHECK_EQ_I64(tl_tensor_version(hout), 0);
        tl_tensor_decref(f);
        tl_tensor_decref(hout);
    }
    /* LAPACK and complex() refuse device operands */
    {
        tl_tensor_impl *m = dev_empty(2, (int64_t[]){2, 2},
                                      TL_DTYPE_FLOAT64);
        tl_tensor_impl *piv = cpu_empty(1, (int64_t[]){2}, TL_DTYPE_INT64);
        tl_tensor_impl *inf = cpu_empty(1, (int64_t[]){1}, TL_DTYPE_INT64);
        tl_tensor_impl *re = cpu_empty(1, &s6, TL_DTYPE_FLOAT32);
        tl_tensor_impl *im = dev_empty(1, &s6, TL_DTYPE_FLOAT32);
        {
            tl_tensor_impl *hm = cpu_empty(2, (int64_t[]){2, 2},
                                           TL_DTYPE_FLOAT64);
            memset(tl_tensor_data(hm), 0, 32);
            CHECK(tl_op_matmul(NULL, m, m) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_NOT_IMPLEMENTED);
            CHECK(tl_op_matmul(m, hm, hm) == NULL);
            CHECK_EQ_I64(tl_error_kind(), TL_ERR_NOT_IMPLEMENTED);
            CHECK(msg_has("matmul: tensors on CUDA are not supported yet"));
            CHECK_EQ_I64(tl_tensor_version(m), 0);
            tl_tensor_decref(hm);
        }
        CHECK_EQ_I64(tl_lapack_getrf(m, piv, inf), TL_ERR_NOT_IMPLEMENTED);
        CHECK(msg_has("lu_factor: tensors on CUDA are not supported yet"));
        CHECK(tl_op_complex(re, im) == NULL);
        CHECK_EQ_I64(tl_error_kind(), TL_ERR_RUNTIME);
        CHECK(msg_has("complex(): expected both inputs on the same device"));
        tl_tensor_decref(m);
        tl_tensor_decref(piv);
        tl_tensor_decref(inf);
        tl_tensor_decref(re);
        tl_tensor_decref(im);
    }
    /* integer division on the device scans for zero divisors through
     * the row: the row's refusal comes back, nothing is launched after */
    {
        tl_tensor_impl *ia = dev_empty(1, &s6, TL_DTYPE_INT32);
        tl_tensor_impl *r;
        CHECK(ia != NULL);
        memset(tl_tensor_data(ia), 0, 24);
        fake_launches = 0;
        r = tl_op_binary(TL_BINARY_FLOOR_DIVIDE, NULL, ia, ia, NULL);
        CHECK(r == NULL);
        CHECK(msg_has("fake device: no scans"));
        CHECK_EQ_I64(fake_launches, 1);
        tl_tensor_decref(r);
        tl_tensor_decref(ia);

    }
    /* device -> CPU, non-blocking: into page-locked memory when there is
     * an allocator for it, else (none registered, or it fails) plain */
    if (d != NULL) {
        static counting failing;
        const tl_allocator *pinned = tl_cpu_pinned_allocator();
        tl_tensor_impl *h;
        for (int round = 0; round < 3; round++) {
            if (round == 1) {
                CHECK_EQ_I64(tl_registry_set(tl_device_cpu(),
                                             TL_MEMKIND_HOST_PINNED, NULL),
                             TL_OK);
            }
            if (round == 2) {
                counting_init(&failing, tl_device_cpu());
                failing.base.allocate = fail_allocate;
                CHECK_EQ_I64(tl_registry_set(tl_device_cpu(),
                                             TL_MEMKIND_HOST_PINNED,
                                             &failing.base), TL_OK);
            }
            h = tl_op_to_device(d, tl_device_cpu(), -1, false, true);
            CHECK(h != NULL);
            if (h != NULL) {
                const float *p = tl_tensor_data(h);
                CHECK(p[0] == 0 && p[4] == 4);
                CHECK_EQ_I64(tl_block_memkind(tl_storage_block(
                                 tl_tensor_storage(h))),
                             round == 0 ? TL_MEMKIND_HOST_PINNED
                                        : TL_MEMKIND_DEFAULT);
            }
            tl_tensor_decref(h);
        }
        CHECK_EQ_I64(tl_registry_set(tl_device_cpu(), TL_MEMKIND_HOST_PINNED,
                                     pinned), TL_OK);
        /* a flipped (negative stride) device view to the CPU: converted
         * on the device first */
        {
            tl_tensor_impl *f = tl_view_flip(d, 2u);
            fake_launches = 0;
            h = f ? tl_op_to_device(f, tl_device_cpu(), -1, false, false)
                  : NULL;
            CHECK(h != NULL);
            if (h != NULL) {
                const float *p = tl_tensor_data(h);
                CHECK(p[0] == 2 && p[2] == 0 && p[3] == 5);
                CHECK_EQ_I64(fake_launches, 1);
            }
            tl_tensor_decref(h);
            tl_tensor_decref(f);
        }
    }
    /* a conversion on the device that the row refuses: the copy to the
     * host fails and the destination is left alone */
    if (d != NULL) {
        tl_tensor_impl *h64 = cpu_empty(2, s23, TL_DTYPE_FLOAT64);
        memset(tl_tensor_data(h64), 0, 48);
        CHECK_EQ_I64(tl_op_copy_(h64, d), TL_ERR_NOT_IMPLEMENTED);
        CHECK(msg_has("fake device: launch kind 0 is not implemented"));
        CHECK(((const double *)tl_tensor_data(h64))[5] == 0);
        CHECK_EQ_I64(tl_tensor_version(h64), 0);
        tl_tensor_decref(h64);
    }
    /* Device tensors outliving their row (uninstalled): what reaches the
     * table says "built without CUDA" instead of calling through it. */
    CHECK_EQ_I64(tl_device_ops_register(TL_DEVICE_CUDA, NULL), TL_OK);
    if (d != NULL) {
        tl_tensor_impl *one = tl_view_select(d, 0, 0);
        tl_tensor_impl *e = one ? tl_view_select(one, 0, 0) : NULL;
        tl_scalar v;
        CHECK_EQ_I64(tl_tensor_record_stream(d, (tl_stream)7),
                     TL_ERR_RUNTIME);
        CHECK(msg_has("tensorlib was built without CUDA"));
        CHECK(e != NULL);
        if (e != NULL) {
            CHECK_EQ_I64(tl_tensor_item(e, &v), TL_ERR_RUNTIME);
            CHECK(msg_has("tensorlib was built without CUDA"));
        }
        CHECK_EQ_I64(tl_op_copy_nb_(d, x, false), TL_ERR_RUNTIME);
        CHECK(msg_has("tensorlib was built without CUDA"));
        CHECK(((const float *)tl_tensor_data(d))[5] == 5);
        tl_tensor_decref(e);
        tl_tensor_decref(one);
    }
    tl_tensor_decref(d);
    tl_tensor_decref(x);
    CHECK_EQ_I64(tl_registry_set(CUDA0, TL_MEMKIND_DEFAULT, NULL), TL_OK);
    CHECK_EQ_I64(mem.live, 0);
    CHECK_EQ_I64(mem.allocs, mem.frees);
}


/* A deferred free (a block another stream used, freed before that
 * stream's work completed) that still carries its stream uses. */
static tl_stream ev_current(void *ctx)
{
    (void)ctx;
    return (tl_stream)1;
}

static void *ev_record(void *ctx, tl_stream s)
{
    int *done = calloc(1, sizeof(int));
    (void)ctx;
    (void)s;
    if (done == NULL) {
        tl_error(TL_ERR_MEMORY, "no event");
    }
    *(int **)ctx = done; /* the test completes it */
    return done;
}

static int ev_query(void *ctx, void *ev)
{
    (void)ctx;
    return *(int *)ev;
}

static void ev_destroy(void *ctx, void *ev)
{
    (void)ctx;
    free(ev);
}

static void test_pool_check_deferred_block(void)
{
    static int *last_event;
    tl_raw_allocator raw = {"raw", NULL, {TL_DEVICE_CPU, 0}, raw_alloc,
                            raw_free};
    tl_stream_backend be = {&last_event, ev_current, ev_record, ev_query,
                            NULL, ev_destroy};
    tl_pool_config c = tl_pool_config_cuda();
    tl_allocator *a = tl_pool_new_streams(&raw, &c, "corrupt", &be);
    pool *p;
    void *u;
    pblock *b = NULL;

    CHECK(a != NULL);
    if (a == NULL) {
        return;
    }
    p = (pool *)a->ctx;
    u = a->allocate(a->ctx, 1000, 64);
    CHECK(u != NULL);
    CHECK_EQ_I64(tl_pool_record_stream(a, u, (tl_stream)2), TL_OK);
    a->deallocate(a->ctx, u, 1000);
    CHECK_EQ_I64(p->ndeferred, 1);
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    for (pblock *x = p->segs->first; x != NULL; x = x->next) {
        if (x->deferred) {
            b = x;
        }
    }
    CHECK(b != NULL && last_event != NULL);
    if (b != NULL) {
        b->uses = (stream_set *)p;
        EXPECT_BROKEN(a, "deferred block");
        CHECK(msg_has("is findable or still has stream uses"));
        b->uses = NULL;
    }
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    /* the event completes: the block is freed */
    *last_event = 1;
    CHECK_EQ_I64(tl_pool_process_events(a), 1);
    CHECK_EQ_I64(p->ndeferred, 0);
    CHECK_EQ_I64(tl_pool_check(a), TL_OK);
    CHECK_EQ_I64(tl_pool_destroy(a), TL_OK);
}

int main(void)
{
    RUN(test_device_table_refusals);
    RUN(test_device_row_check_fails);
    RUN(test_pool_check_detects_corruption);
    RUN(test_pool_check_quick_lists);
    RUN(test_pool_check_deferred_block);
    RUN(test_mapping_refusals);
    RUN(test_tensor_constructor_refusals);
    RUN(test_view_refusals);
    RUN(test_lapack_refusals);
    RUN(test_copy_fill_scalar_refusals);
    RUN(test_search_refusals);
    RUN(test_result_types_agree_with_ops);
    RUN(test_reduce_result_types_and_refusals);
    RUN(test_iter_config_refusals);
    RUN(test_sort_select_refusals);
    RUN(test_pool_argument_refusals);
    RUN(test_arena_backing_and_device_refusals);
    RUN(test_fake_device_copies);
    DONE();
}
