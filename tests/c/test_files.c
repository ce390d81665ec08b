/* tests/c/test_files.c — file mappings (tensorlib/mapped.h) and
 * copy-on-write clones (tensorlib/cow.h) through the public C API: the
 * mapping lives exactly as long as its blocks, mapped_bytes follows it,
 * read-only mappings give read-only tensors, and a lazy clone shares
 * bytes until a write, after which each side has its own. */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "tensorlib/tensorlib.h"

static char path[64];

static void write_file(size_t n)
{
    strcpy(path, "/tmp/tl_test_files_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unsigned char *buf = malloc(n);
    for (size_t i = 0; i < n; i++) {
        buf[i] = (unsigned char)i;
    }
    CHECK(write(fd, buf, n) == (ssize_t)n);
    free(buf);
    close(fd);
}

static void test_mapping_lifetime(void)
{
    write_file(4096 + 100);
    int64_t before = tl_mapped_bytes();
    tl_mapping *m = tl_mapping_open(path, TL_MAP_READ);
    CHECK(m != NULL);
    CHECK_EQ_I64(tl_mapping_size(m), 4196);
    CHECK_EQ_I64(tl_mapped_bytes() - before, 4196);
    tl_block *b = tl_mapping_block(m, 4000, 100);
    CHECK(b != NULL);
    CHECK(tl_block_is_readonly(b));
    CHECK(tl_block_memkind(b) == TL_MEMKIND_HOST_PAGEABLE);
    CHECK(tl_block_is_private_mapping(b));
    CHECK(((unsigned char *)tl_block_ptr(b))[0] == (unsigned char)4000);
    CHECK(tl_mapping_block(m, 4100, 97) == NULL); /* past the end */
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    tl_error_clear();
    tl_mapping_decref(m); /* the block keeps it */
    CHECK_EQ_I64(tl_mapped_bytes() - before, 4196);
    tl_storage *s = tl_storage_from_block(b, 0, 100);
    tl_block_decref(b);
    int64_t size = 100, stride = 1;
    tl_tensor_impl *t = tl_tensor_new(s, 0, 1, &size, &stride,
                                      TL_DTYPE_UINT8);
    tl_storage_decref(s);
    CHECK(!tl_tensor_is_writable(t));
    CHECK(tl_tensor_check_writable(t) == TL_ERR_READONLY);
    tl_error_clear();
    /* A lazy clone of a read-only mapping is writable and shares. */
    tl_tensor_impl *c = tl_tensor_lazy_clone(t);
    CHECK(c != NULL);
    CHECK(tl_tensor_data(c) == tl_tensor_data(t));
    CHECK(tl_tensor_is_writable(c));
    CHECK(tl_tensor_check_writable(c) == 0); /* materialises */
    CHECK(tl_tensor_data(c) != tl_tensor_data(t));
    CHECK(((unsigned char *)tl_tensor_data(c))[5] == (unsigned char)4005);
    tl_tensor_decref(t);
    CHECK_EQ_I64(tl_mapped_bytes() - before, 0); /* unmapped */
    tl_tensor_decref(c);
    CHECK(tl_mapping_open("/nonexistent/x", TL_MAP_READ) == NULL);
    CHECK(tl_error_kind() == TL_ERR_RUNTIME);
    tl_error_clear();
    unlink(path);
}

static void test_lazy_clone_takeover(void)
{
    int64_t n = 16;
    tl_tensor_impl *a = tl_tensor_empty(1, &n, TL_DTYPE_FLOAT32,
                                        tl_device_cpu(), TL_MEMKIND_DEFAULT);
    float *p = tl_tensor_data(a);
    for (int i = 0; i < 16; i++) {
        p[i] = (float)i;
    }
    tl_tensor_impl *b = tl_tensor_lazy_clone(a);
    CHECK(tl_storage_is_cow(tl_tensor_storage(a)));
    CHECK(tl_storage_is_cow(tl_tensor_storage(b)));
    CHECK(tl_shares_memory(a, b, -1) == 0);
    CHECK(tl_tensor_check_writable(b) == 0); /* b copies */
    float *q = tl_tensor_data(b);
    CHECK(q != p);
    q[0] = 100.0f;
    CHECK(p[0] == 0.0f);
    CHECK(tl_tensor_check_writable(a) == 0); /* a is the last: no copy */
    CHECK(tl_tensor_data(a) == p);
    CHECK(!tl_storage_is_cow(tl_tensor_storage(a)));
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

int main(void)
{
    RUN(test_mapping_lifetime);
    RUN(test_lazy_clone_takeover);
    DONE();
}
