/* tests/c/test_api_refusals.c — the C API's refusals of arguments the
 * Python layer never passes (issue 23, "Coverage"): execution plans
 * (tensorlib/plan.h), advanced indexing (tensorlib/index.h) and fresh
 * tensors' shapes (tensorlib/tensor.h).  Each
 * refusal names what is wrong, changes nothing (a plan keeps its entries,
 * a tensor its values and version) and allocates nothing. */
#include <stdlib.h>

#include "harness.h"
#include "tensorlib/index.h"
#include "tensorlib/plan.h"
#include "tensorlib/tensorlib.h"

static bool msg_has(const char *s) { return strstr(tl_error_message(), s); }

static tl_tensor_impl *empty(int nd, const int64_t *sizes, tl_dtype dt)
{
    return tl_tensor_empty(nd, sizes, dt, tl_device_cpu(),
                           TL_MEMKIND_DEFAULT);
}

static tl_tensor_impl *arange_i64(int64_t n)
{
    tl_tensor_impl *t = empty(1, &n, TL_DTYPE_INT64);
    int64_t *p = tl_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        p[i] = i;
    }
    return t;
}

static tl_device cuda(int index)
{
    return (tl_device){TL_DEVICE_CUDA, index};
}

/* ---- plans ---------------------------------------------------------------- */

static void test_plan_buffer_refusals(void)
{
    tl_plan *p = tl_plan_new();
    const int64_t s2[2] = {3, 4}, neg[1] = {-1}, huge[2] = {INT64_MAX / 2, 4};
    const tl_device cpu = tl_device_cpu();
    CHECK(tl_plan_add_buffer(p, "a", 2, s2, TL_DTYPE_FLOAT32, cpu,
                             TL_MEMKIND_WORKSPACE, 64) == 0);
    CHECK(tl_plan_add_buffer(p, "b", 2, s2, (tl_dtype)99, cpu,
                             TL_MEMKIND_WORKSPACE, 64) == TL_ERR_TYPE &&
          msg_has("invalid dtype code 99"));
    CHECK(tl_plan_add_buffer(p, "b", -1, s2, TL_DTYPE_FLOAT32, cpu,
                             TL_MEMKIND_WORKSPACE, 64) == TL_ERR_VALUE &&
          msg_has("0 to 64 dims, not -1"));
    CHECK(tl_plan_add_buffer(p, "b", 65, s2, TL_DTYPE_FLOAT32, cpu,
                             TL_MEMKIND_WORKSPACE, 64) == TL_ERR_VALUE);
    CHECK(tl_plan_add_buffer(p, "b", 2, s2, TL_DTYPE_FLOAT32, cpu,
                             TL_MEMKIND_WORKSPACE, 48) == TL_ERR_VALUE);
    CHECK(tl_plan_add_buffer(p, "b", 2, s2, TL_DTYPE_FLOAT32, cpu,
                             (tl_memkind)TL_MEMKIND_COUNT, 64) ==
              TL_ERR_VALUE &&
          msg_has("out of range"));
    CHECK(tl_plan_add_buffer(p, "b", 2, s2, TL_DTYPE_FLOAT32, cpu,
                             (tl_memkind)-1, 64) == TL_ERR_VALUE);
    CHECK(tl_plan_add_buffer(p, "b", 2, s2, TL_DTYPE_FLOAT32, cuda(0),
                             TL_MEMKIND_HOST_PINNED, 64) == TL_ERR_VALUE &&
          msg_has("host kind") && msg_has("cuda:0"));
    CHECK(tl_plan_add_buffer(p, "b", 1, neg, TL_DTYPE_FLOAT32, cpu,
                             TL_MEMKIND_WORKSPACE, 64) != 0 &&
          msg_has("negative size"));
    CHECK(tl_plan_add_buffer(p, "b", 2, huge, TL_DTYPE_FLOAT64, cpu,
                             TL_MEMKIND_WORKSPACE, 64) == TL_ERR_OVERFLOW);
    /* each alone fits int64; after "a" the running total does not */
    const int64_t big[1] = {INT64_MAX - 16};
    CHECK(tl_plan_add_buffer(p, "b", 1, big, TL_DTYPE_UINT8, cpu,
                             TL_MEMKIND_WORKSPACE, 64) == TL_ERR_OVERFLOW &&
          msg_has("plan buffer 'b'") && msg_has("overflows int64"));
    CHECK(tl_plan_add_buffer(p, "a", 2, s2, TL_DTYPE_FLOAT32, cpu,
                             TL_MEMKIND_WORKSPACE, 64) == TL_ERR_VALUE);
    CHECK_EQ_I64(tl_plan_count(p), 1);
    CHECK_EQ_I64(tl_plan_workspace_bytes(p), 48);
    CHECK(tl_plan_name(p, 1) == NULL && tl_plan_name(p, -1) == NULL);
    CHECK(!tl_plan_is_view(p, 5) && !tl_plan_is_view(p, -1));
    CHECK_EQ_I64(tl_plan_offset(p, 1), -1);
    CHECK_EQ_I64(tl_plan_offset(p, -1), -1);
    tl_plan_free(p);
    tl_plan_free(NULL);
}

static void test_plan_group_limit(void)
{
    /* (device, kind) pairs: the CPU's six kinds, then CUDA devices (a
     * plan may name devices this build lacks: prepare refuses them). */
    tl_plan *p = tl_plan_new();
    const int64_t one[1] = {1};
    char name[16];
    int added = 0, rc = 0;
    for (int k = 0; k < TL_MEMKIND_COUNT && rc == 0; k++) {
        snprintf(name, sizeof name, "cpu%d", k);
        rc = tl_plan_add_buffer(p, name, 1, one, TL_DTYPE_FLOAT32,
                                tl_device_cpu(), (tl_memkind)k, 1);
        added += rc == 0;
    }
    for (int d = 0; d < 64 && rc == 0; d++) {
        snprintf(name, sizeof name, "cuda%d", d);
        rc = tl_plan_add_buffer(p, name, 1, one, TL_DTYPE_FLOAT32, cuda(d),
                                TL_MEMKIND_DEFAULT, 1);
        added += rc == 0;
    }
    CHECK(rc == TL_ERR_VALUE && msg_has("at most 24 (device, memory kind)"));
    CHECK_EQ_I64(added, 24);
    CHECK_EQ_I64(tl_plan_allocation_count(p), 24);
    CHECK_EQ_I64(tl_plan_count(p), 24);
    /* a buffer in an existing group still goes */
    CHECK(tl_plan_add_buffer(p, "more", 1, one, TL_DTYPE_FLOAT32,
                             tl_device_cpu(), TL_MEMKIND_DEFAULT, 1) == 0);
    /* prepare validates every group's allocator first: a CUDA group in a
     * CPU-only build (or a missing device) refuses before any allocation */
    tl_tensor_impl *out[32];
    tl_alloc_stats before, after;
    CHECK(tl_registry_stats(tl_device_cpu(), -1, &before) == 0);
    CHECK(tl_plan_prepare(p, out) != 0);
    CHECK(tl_registry_stats(tl_device_cpu(), -1, &after) == 0);
    CHECK_EQ_I64(after.active_bytes, before.active_bytes);
    for (int i = 0; i < tl_plan_count(p); i++) {
        CHECK(out[i] == NULL);
    }
    tl_plan_free(p);
}

static void test_plan_view_refusals(void)
{
    tl_plan *p = tl_plan_new();
    const int64_t s2[2] = {3, 4}, s1[1] = {6}, neg[1] = {-2};
    const int64_t st1[1] = {2};
    CHECK(tl_plan_add_buffer(p, "a", 2, s2, TL_DTYPE_FLOAT32,
                             tl_device_cpu(), TL_MEMKIND_DEFAULT, 64) == 0);
    CHECK(tl_plan_add_view(p, "v", "a", 1, s1, st1, 0) == 0);
    CHECK(tl_plan_add_view(p, "w", NULL, 1, s1, NULL, 0) == TL_ERR_VALUE &&
          msg_has("(null)"));
    CHECK(tl_plan_add_view(p, "w", "nope", 1, s1, NULL, 0) == TL_ERR_VALUE &&
          msg_has("no buffer named 'nope'"));
    CHECK(tl_plan_add_view(p, "w", "v", 1, s1, NULL, 0) == TL_ERR_VALUE &&
          msg_has("is a view") && msg_has("name the buffer 'a'"));
    CHECK(tl_plan_add_view(p, "w", "a", 65, s1, NULL, 0) == TL_ERR_VALUE &&
          msg_has("0 to 64 dims, not 65"));
    CHECK(tl_plan_add_view(p, "w", "a", -1, s1, NULL, 0) == TL_ERR_VALUE);
    CHECK(tl_plan_add_view(p, "w", "a", 1, neg, NULL, 0) != 0 &&
          msg_has("negative size"));
    CHECK(tl_plan_add_view(p, "w", "a", 1, s1, st1, 2) == TL_ERR_SHAPE &&
          msg_has("does not fit buffer 'a'"));
    CHECK(tl_plan_add_view(p, "v", "a", 1, s1, NULL, 0) == TL_ERR_VALUE);
    CHECK_EQ_I64(tl_plan_count(p), 2);
    CHECK(tl_plan_is_view(p, 1) && !tl_plan_is_view(p, 0));
    tl_plan_free(p);
}

/* ---- advanced indexing ---------------------------------------------------- */

static void test_index_refusals(void)
{
    const int64_t s2[2] = {3, 4}, s1[1] = {2};
    tl_tensor_impl *src = empty(2, s2, TL_DTYPE_FLOAT32);
    tl_tensor_impl *i2 = arange_i64(2), *i3 = arange_i64(3);
    tl_tensor_impl *f = empty(1, s1, TL_DTYPE_FLOAT32);
    tl_tensor_impl *idx[3] = {i2, i2, i2};
    int dims[3] = {0, 1, 0};
    const uint64_t v0 = tl_tensor_version(src);

    CHECK(tl_index_gather(src, 0, dims, idx) == NULL &&
          tl_error_kind() == TL_ERR_INDEX && msg_has("too many indices (0)"));
    CHECK(tl_index_gather(src, 3, dims, idx) == NULL &&
          msg_has("too many indices (3) for a tensor of dimension 2"));
    idx[0] = f;
    CHECK(tl_index_gather(src, 1, dims, idx) == NULL &&
          tl_error_kind() == TL_ERR_TYPE && msg_has("must be int64"));
    idx[0] = i2;
    idx[1] = i3;
    CHECK(tl_index_gather(src, 2, dims, idx) == NULL &&
          tl_error_kind() == TL_ERR_SHAPE && msg_has("share one shape"));
    idx[1] = i2;
    dims[1] = 0; /* the same dim twice */
    CHECK(tl_index_gather(src, 2, dims, idx) == NULL &&
          tl_error_kind() == TL_ERR_INDEX &&
          msg_has("bad advanced index dim 0"));
    dims[0] = -1;
    CHECK(tl_index_gather(src, 1, dims, idx) == NULL &&
          msg_has("bad advanced index dim -1"));
    dims[0] = 2;
    CHECK(tl_index_gather(src, 1, dims, idx) == NULL &&
          msg_has("bad advanced index dim 2"));
    dims[0] = 0;
    dims[1] = 1;

    /* scatter: values of another dtype or shape, a read-only dst */
    tl_tensor_impl *vals = empty(1, s1, TL_DTYPE_FLOAT64);
    CHECK(tl_index_scatter_(src, 2, dims, idx, vals) == TL_ERR_TYPE &&
          msg_has("values must have the destination's dtype"));
    tl_tensor_impl *vals3 = empty(1, (int64_t[]){3}, TL_DTYPE_FLOAT32);
    CHECK(tl_index_scatter_(src, 2, dims, idx, vals3) == TL_ERR_SHAPE &&
          msg_has("do not match the indexed shape"));
    float buf[12] = {0};
    tl_tensor_impl *ro = tl_tensor_wrap(buf, sizeof buf, tl_device_cpu(),
                                        true, NULL, NULL, 0, 2, s2,
                                        (int64_t[]){4, 1}, TL_DTYPE_FLOAT32);
    CHECK(ro != NULL);
    tl_tensor_impl *good = empty(1, s1, TL_DTYPE_FLOAT32);
    CHECK(tl_index_scatter_(ro, 2, dims, idx, good) == TL_ERR_READONLY);
    CHECK_EQ_I64(tl_tensor_version(src), v0);

    /* more than TL_MAX_DIMS result dims: a 60-dim index over 5 more */
    int64_t isz[60], ssz[6];
    for (int d = 0; d < 60; d++) {
        isz[d] = 1;
    }
    for (int d = 0; d < 6; d++) {
        ssz[d] = 1;
    }
    tl_tensor_impl *wide = empty(60, isz, TL_DTYPE_INT64);
    memset(tl_tensor_data(wide), 0, 8);
    tl_tensor_impl *s6 = empty(6, ssz, TL_DTYPE_FLOAT32);
    tl_tensor_impl *widx[1] = {wide};
    int wdims[1] = {0};
    CHECK(tl_index_gather(s6, 1, wdims, widx) == NULL &&
          tl_error_kind() == TL_ERR_SHAPE && msg_has("more than 64 dims"));

    tl_tensor_decref(s6);
    tl_tensor_decref(wide);
    tl_tensor_decref(good);
    tl_tensor_decref(ro);
    tl_tensor_decref(vals3);
    tl_tensor_decref(vals);
    tl_tensor_decref(f);
    tl_tensor_decref(i3);
    tl_tensor_decref(i2);
    tl_tensor_decref(src);
}

/* nonzero reads every dtype's zero its own way: -0.0 is zero, NaN is
 * not, a complex number is nonzero when either part is. */
static void test_nonzero_every_float_kind(void)
{
    const tl_dtype dts[] = {TL_DTYPE_FLOAT16, TL_DTYPE_BFLOAT16,
                            TL_DTYPE_FLOAT32, TL_DTYPE_FLOAT64,
                            TL_DTYPE_COMPLEX64, TL_DTYPE_COMPLEX128};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        const int64_t n = 5;
        tl_tensor_impl *t = empty(1, &n, dts[k]);
        const int64_t isz = tl_dtype_itemsize(dts[k]);
        char *p = tl_tensor_data(t);
        memset(p, 0, (size_t)(n * isz));
        /* element 1: -0.0 (sign bit only, in the real part); element 3:
         * a nonzero pattern in the last part (the imaginary part of a
         * complex, the value itself otherwise) */
        const bool cplx = dts[k] == TL_DTYPE_COMPLEX64 ||
                          dts[k] == TL_DTYPE_COMPLEX128;
        const int64_t part = cplx ? isz / 2 : isz;
        p[1 * isz + part - 1] = (char)0x80;
        p[3 * isz + isz - 1] = 0x3c;
        tl_tensor_impl *nz = tl_index_nonzero(t);
        CHECK(nz != NULL);
        if (nz) {
            CHECK_EQ_I64(tl_tensor_sizes(nz)[0], 1);
            CHECK_EQ_I64(((int64_t *)tl_tensor_data(nz))[0], 3);
        }
        tl_tensor_decref(nz);
        tl_tensor_decref(t);
    }
}

/* Fresh tensors: empty's one-pass path for small row-major shapes (Note
 * [Small row-major shapes] in csrc/core/tensor.c) leaves every shape it
 * does not take -- a negative ndim among them -- to the checked passes. */
static void test_empty_shape_refusals(void)
{
    const int64_t sizes[3] = {2, 3, 4};
    CHECK(tl_tensor_empty(-1, sizes, TL_DTYPE_FLOAT32, tl_device_cpu(),
                          TL_MEMKIND_DEFAULT) == NULL);
    CHECK(msg_has("dimensions, got -1"));
    const int64_t neg[2] = {3, -2};
    CHECK(empty(2, neg, TL_DTYPE_FLOAT32) == NULL);
    CHECK(msg_has("negative size -2"));
    tl_tensor_impl *t = empty(3, sizes, TL_DTYPE_COMPLEX128);
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_I64(tl_tensor_strides(t)[0], 12);
        CHECK_EQ_I64(tl_tensor_strides(t)[1], 4);
        CHECK_EQ_I64(tl_tensor_strides(t)[2], 1);
        CHECK_EQ_I64(tl_tensor_numel(t), 24);
    }
    tl_tensor_decref(t);
}

int main(void)
{
    RUN(test_empty_shape_refusals);
    RUN(test_plan_buffer_refusals);
    RUN(test_plan_group_limit);
    RUN(test_plan_view_refusals);
    RUN(test_index_refusals);
    RUN(test_nonzero_every_float_kind);
    DONE();
}
