/* tests/c/test_joinindex.c — cat/stack, gather, scatter with repeated
 * indices, index_select/index_add and linspace through the public C API:
 * values, refusals before any write (operands unchanged, version not
 * bumped), and reference counts flat. */
#include <string.h>

#include "harness.h"
#include "tensorlib/joinindex.h"
#include "tensorlib/tensorlib.h"

static tl_tensor_impl *arange_f32(int nd, const int64_t *sizes)
{
    tl_tensor_impl *t = tl_tensor_empty(nd, sizes, TL_DTYPE_FLOAT32,
                                        tl_device_cpu(), TL_MEMKIND_DEFAULT);
    float *p = (float *)tl_tensor_data(t);
    for (int64_t i = 0; i < tl_tensor_numel(t); i++) {
        p[i] = (float)i;
    }
    return t;
}

static tl_tensor_impl *i64_1d(int64_t n, const int64_t *v)
{
    tl_tensor_impl *t = tl_tensor_empty(1, &n, TL_DTYPE_INT64,
                                        tl_device_cpu(), TL_MEMKIND_DEFAULT);
    memcpy(tl_tensor_data(t), v, (size_t)n * 8);
    return t;
}

static void test_cat_stack(void)
{
    int64_t s23[2] = {2, 3}, s13[2] = {1, 3}, s22[2] = {2, 2};
    tl_tensor_impl *a = arange_f32(2, s23), *b = arange_f32(2, s13);
    tl_tensor_impl *ts[2] = {a, b};
    tl_tensor_impl *r = tl_op_cat(NULL, 2, ts, 0);
    CHECK(r != NULL);
    CHECK_EQ_I64(tl_tensor_sizes(r)[0], 3);
    const float *p = (const float *)tl_tensor_data(r);
    CHECK(p[5] == 5.0f && p[6] == 0.0f && p[8] == 2.0f);
    tl_tensor_decref(r);
    tl_tensor_impl *c = arange_f32(2, s22);
    ts[1] = c;
    CHECK(tl_op_cat(NULL, 2, ts, 0) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    CHECK(tl_op_cat(NULL, 0, ts, 0) == NULL);
    CHECK(tl_op_cat(NULL, 2, ts, 3) == NULL);
    CHECK(tl_error_kind() == TL_ERR_INDEX);
    ts[1] = a;
    r = tl_op_stack(NULL, 2, ts, -1);
    CHECK(r != NULL && tl_tensor_ndim(r) == 3);
    CHECK_EQ_I64(tl_tensor_sizes(r)[2], 2);
    tl_tensor_decref(r);
    CHECK_EQ_I64(tl_tensor_refcount(a), 1);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
    tl_tensor_decref(c);
}

static void test_gather_scatter(void)
{
    int64_t s[1] = {4};
    tl_tensor_impl *a = arange_f32(1, s);
    int64_t iv[5] = {3, 3, 0, 1, 3};
    tl_tensor_impl *idx = i64_1d(5, iv);
    tl_tensor_impl *g = tl_op_gather(NULL, a, 0, idx);
    CHECK(g != NULL);
    const float *gp = (const float *)tl_tensor_data(g);
    CHECK(gp[0] == 3.0f && gp[2] == 0.0f && gp[4] == 3.0f);
    /* scatter_add of the gathered values: 3 lands three times on 3 */
    tl_tensor_impl *d = arange_f32(1, s);
    CHECK(tl_op_scatter_(d, 0, idx, g, NULL, TL_SCATTER_SUM, true) == 0);
    const float *dp = (const float *)tl_tensor_data(d);
    CHECK(dp[3] == 12.0f && dp[0] == 0.0f && dp[1] == 2.0f);
    /* a bad index: nothing written, version unchanged */
    uint64_t ver = tl_tensor_version(d);
    int64_t bad[2] = {0, 4};
    tl_tensor_impl *bi = i64_1d(2, bad);
    tl_tensor_impl *src2 = arange_f32(1, (int64_t[]){2});
    CHECK(tl_op_scatter_(d, 0, bi, src2, NULL, TL_SCATTER_SUM, true) < 0);
    CHECK(tl_error_kind() == TL_ERR_INDEX);
    CHECK(strstr(tl_error_message(), "size 4") != NULL);
    CHECK(dp[0] == 0.0f && tl_tensor_version(d) == ver);
    CHECK(tl_op_gather(NULL, a, 0, bi) == NULL);
    CHECK(tl_error_kind() == TL_ERR_INDEX);
    /* index_select / index_add */
    tl_tensor_impl *sel = tl_op_index_select(NULL, a, 0, idx);
    CHECK(sel != NULL && ((const float *)tl_tensor_data(sel))[1] == 3.0f);
    tl_tensor_impl *z = arange_f32(1, s);
    memset(tl_tensor_data(z), 0, 16);
    CHECK(tl_op_index_scatter_(z, 0, idx, sel, NULL, TL_SCATTER_SUM, true,
                               "index_add") == 0);
    CHECK(((const float *)tl_tensor_data(z))[3] == 9.0f);
    tl_tensor_decref(sel);
    tl_tensor_decref(z);
    tl_tensor_decref(src2);
    tl_tensor_decref(bi);
    tl_tensor_decref(d);
    tl_tensor_decref(g);
    CHECK_EQ_I64(tl_tensor_refcount(idx), 1);
    tl_tensor_decref(idx);
    tl_tensor_decref(a);
}

static void test_linspace(void)
{
    tl_scalar s0 = tl_scalar_float(-1.0), s1 = tl_scalar_float(1.0);
    tl_tensor_impl *r = tl_op_linspace(&s0, &s1, 5, 0.0, TL_DTYPE_FLOAT64);
    CHECK(r != NULL);
    const double *p = (const double *)tl_tensor_data(r);
    CHECK(p[0] == -1.0 && p[2] == 0.0 && p[4] == 1.0 && p[1] == -0.5);
    tl_tensor_decref(r);
    CHECK(tl_op_linspace(&s0, &s1, -1, 0.0, TL_DTYPE_FLOAT32) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    r = tl_op_linspace(&s0, &s1, 3, 10.0, TL_DTYPE_FLOAT64);
    p = (const double *)tl_tensor_data(r);
    CHECK(p[0] == 0.1 && p[1] == 1.0 && p[2] == 10.0);
    tl_tensor_decref(r);
}

int main(void)
{
    RUN(test_cat_stack);
    RUN(test_gather_scatter);
    RUN(test_linspace);
    DONE();
}
