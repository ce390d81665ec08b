/* tests/c/test_reduce.c — the reductions through the public C API: the
 * reduction layout the TensorIterator builds (is_reduction, stride 0 on
 * reduced dims, mixed output/input dtypes), values on contiguous, permuted,
 * sliced, flipped and expanded inputs against naive loops, NaN and
 * first-occurrence rules, empty and 0-dim inputs, out=, errors, and
 * bit-identical results for any thread count. */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "tensorlib/iter.h"
#include "tensorlib/ops.h"
#include "tensorlib/reduce.h"
#include "tensorlib/tensorlib.h"
#include "tensorlib/view.h"

static tl_tensor_impl *empty(int nd, const int64_t *sizes, tl_dtype dt)
{
    return tl_tensor_empty(nd, sizes, dt, tl_device_cpu(),
                           TL_MEMKIND_DEFAULT);
}

static bool msg_has(const char *s) { return strstr(tl_error_message(), s); }

/* A contiguous float64 tensor of pseudo-random values in [-1, 1). */
static uint64_t rng_state = 88172645463325252ull;
static double rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * 0x1p-52 - 1.0;
}

static tl_tensor_impl *random_f64(int nd, const int64_t *sizes)
{
    tl_tensor_impl *t = empty(nd, sizes, TL_DTYPE_FLOAT64);
    double *p = tl_tensor_data(t);
    for (int64_t i = 0; i < tl_tensor_numel(t); i++) {
        p[i] = rnd();
    }
    return t;
}

/* Element at a multi-index of any strided float64 tensor. */
static double at(tl_tensor_impl *t, const int64_t *idx)
{
    const int64_t *st = tl_tensor_strides(t);
    int64_t off = 0;
    for (int d = 0; d < tl_tensor_ndim(t); d++) {
        off += idx[d] * st[d];
    }
    return ((double *)tl_tensor_data(t))[off];
}

/* Naive reference: sum (op 0) or max (op 1) of t over mask, keepdim
 * layout; result written into ref (contiguous keepdim order). */
static void naive(tl_tensor_impl *t, uint64_t mask, int op, double *ref)
{
    const int nd = tl_tensor_ndim(t);
    const int64_t *sz = tl_tensor_sizes(t);
    int64_t ks[TL_MAX_DIMS], nout = 1;
    for (int d = 0; d < nd; d++) {
        ks[d] = (mask >> d) & 1 ? 1 : sz[d];
        nout *= ks[d];
    }
    for (int64_t o = 0; o < nout; o++) {
        ref[o] = op == 0 ? 0 : -INFINITY;
    }
    int64_t idx[TL_MAX_DIMS] = {0};
    for (int64_t i = 0; i < tl_tensor_numel(t); i++) {
        int64_t rem = i, o = 0, mul = 1;
        for (int d = nd - 1; d >= 0; d--) {
            idx[d] = rem % sz[d];
            rem /= sz[d];
        }
        for (int d = nd - 1; d >= 0; d--) {
            o += ((mask >> d) & 1 ? 0 : idx[d]) * mul;
            mul *= ks[d];
        }
        double v = at(t, idx);
        if (op == 0) {
            ref[o] += v;
        } else if (v > ref[o]) {
            ref[o] = v;
        }
    }
}

/* Compares a reduction result (any layout, keepdim shape or not) with the
 * contiguous keepdim-ordered reference. */
static bool matches(tl_tensor_impl *r, const double *ref, double tol)
{
    tl_tensor_impl *c = tl_op_to_dtype(r, TL_DTYPE_FLOAT64, true);
    tl_tensor_impl *cc = tl_op_contiguous(c, TL_FORMAT_CONTIGUOUS);
    const double *p = tl_tensor_data(cc);
    bool ok = true;
    for (int64_t i = 0; i < tl_tensor_numel(cc); i++) {
        if (!(fabs(p[i] - ref[i]) <= tol * (1 + fabs(ref[i])))) {
            fprintf(stderr, "  element %" PRId64 ": %.17g vs %.17g\n", i,
                    p[i], ref[i]);
            ok = false;
            break;
        }
    }
    tl_tensor_decref(cc);
    tl_tensor_decref(c);
    return ok;
}

/* ---- the layout through the iterator ----------------------------------------- */

static void test_iter_reduction_layout(void)
{
    /* An int8 [4, 5, 6] input reduced over dim 1 into an int64 keepdim
     * output, as reduce.c builds it: different dtypes, outputs given. */
    int64_t is[] = {4, 5, 6}, os[] = {4, 1, 6};
    tl_tensor_impl *in = empty(3, is, TL_DTYPE_INT8);
    tl_tensor_impl *out = empty(3, os, TL_DTYPE_INT64);
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, out);
    tl_iter_config_add_input(&c, in);
    c.is_reduction = true;
    c.resize_outputs = false;
    c.check_all_same_dtype = false;
    c.check_mem_overlap = false;
    tl_iter *it = tl_iter_new(&c);
    CHECK(it != NULL);
    CHECK_EQ_I64(tl_iter_ndim(it), 3);
    CHECK_EQ_I64(tl_iter_shape(it)[0], 5);      /* the reduced dim first */
    CHECK_EQ_I64(tl_iter_strides(it, 0)[0], 0); /* output stride 0 */
    CHECK_EQ_I64(tl_iter_strides(it, 1)[0], 6); /* int8 bytes */
    CHECK_EQ_I64(tl_iter_strides(it, 0)[1], 8); /* int64 bytes */
    CHECK_EQ_I64(tl_iter_strides(it, 1)[1], 1);
    CHECK(tl_iter_target_dtype(it, 0) == TL_DTYPE_INT64);
    CHECK(tl_iter_target_dtype(it, 1) == TL_DTYPE_INT8);
    tl_iter_free(it);

    /* A transposed input: the reduced dim keeps stride 0 in the output and
     * the kept dims follow the output's order. */
    int perm[] = {2, 1, 0};
    tl_tensor_impl *tin = tl_view_permute(in, perm); /* [6, 5, 4] */
    int64_t tos[] = {6, 5, 1};
    tl_tensor_impl *tout = empty(3, tos, TL_DTYPE_INT64);
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, tout);
    tl_iter_config_add_input(&c, tin);
    c.is_reduction = true;
    c.resize_outputs = false;
    c.check_all_same_dtype = false;
    it = tl_iter_new(&c);
    CHECK(it != NULL);
    CHECK_EQ_I64(tl_iter_shape(it)[0], 4);
    CHECK_EQ_I64(tl_iter_strides(it, 0)[0], 0);
    CHECK_EQ_I64(tl_iter_strides(it, 1)[0], 30);
    /* The kept dims follow the output's order (its dim 1, stride 8 bytes,
     * before its dim 0, 40 bytes) and do not coalesce (the input's strides
     * 6 and 1 do not chain): reduce.c re-sorts them by input stride. */
    CHECK_EQ_I64(tl_iter_ndim(it), 3);
    CHECK_EQ_I64(tl_iter_shape(it)[1], 5);
    CHECK_EQ_I64(tl_iter_shape(it)[2], 6);
    CHECK_EQ_I64(tl_iter_strides(it, 1)[1], 6);
    CHECK_EQ_I64(tl_iter_strides(it, 1)[2], 1);
    CHECK_EQ_I64(tl_iter_strides(it, 0)[1], 8);
    CHECK_EQ_I64(tl_iter_strides(it, 0)[2], 40);
    tl_iter_free(it);

    /* The keepdim output of another ndim is refused. */
    int64_t bad[] = {4, 6};
    tl_tensor_impl *bout = empty(2, bad, TL_DTYPE_INT64);
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, bout);
    tl_iter_config_add_input(&c, in);
    c.is_reduction = true;
    c.check_all_same_dtype = false;
    CHECK(tl_iter_new(&c) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    tl_tensor_decref(bout);
    tl_tensor_decref(tout);
    tl_tensor_decref(tin);
    tl_tensor_decref(out);
    tl_tensor_decref(in);
}

/* ---- values on layouts ----------------------------------------------------------- */

typedef tl_tensor_impl *(*view_fn)(tl_tensor_impl *);

static tl_tensor_impl *v_same(tl_tensor_impl *t)
{
    tl_tensor_incref(t);
    return t;
}

static tl_tensor_impl *v_permute(tl_tensor_impl *t)
{
    int perm[] = {2, 0, 1};
    return tl_view_permute(t, perm);
}

static tl_tensor_impl *v_slice(tl_tensor_impl *t)
{
    return tl_view_slice(t, 2, 1, 2, 3); /* every other, from 1 */
}

static tl_tensor_impl *v_flip(tl_tensor_impl *t)
{
    return tl_view_flip(t, 5); /* dims 0 and 2 */
}

static tl_tensor_impl *v_expand(tl_tensor_impl *t)
{
    tl_tensor_impl *s = tl_view_slice(t, 1, 0, 1, 1); /* [6, 1, 7] */
    int64_t sizes[] = {6, 4, 7};
    tl_tensor_impl *e = tl_view_expand(s, 3, sizes);
    tl_tensor_decref(s);
    return e;
}

static void test_values_on_layouts(void)
{
    int64_t sizes[] = {6, 5, 7};
    tl_tensor_impl *base = random_f64(3, sizes);
    view_fn views[] = {v_same, v_permute, v_slice, v_flip, v_expand};
    double ref[512];
    for (int v = 0; v < 5; v++) {
        tl_tensor_impl *t = views[v](base);
        CHECK(t != NULL);
        for (uint64_t mask = 0; mask < 8; mask++) {
            int64_t dims[3];
            int nd = 0;
            for (int d = 0; d < 3; d++) {
                if ((mask >> d) & 1) {
                    dims[nd++] = d - (d == 2 ? 3 : 0); /* -1 for dim 2 */
                }
            }
            for (int keep = 0; keep < 2; keep++) {
                /* an empty list means every dim for sum and amax */
                uint64_t eff = nd ? mask : 7;
                tl_tensor_impl *s =
                    tl_reduce(TL_REDUCE_SUM, NULL, t, nd, dims, keep, -1);
                naive(t, eff, 0, ref);
                CHECK(s != NULL && matches(s, ref, 1e-13));
                CHECK(s && tl_tensor_is_contiguous(s, TL_FORMAT_CONTIGUOUS));
                tl_tensor_decref(s);
                tl_tensor_impl *m =
                    tl_reduce(TL_REDUCE_AMAX, NULL, t, nd, dims, keep, -1);
                naive(t, eff, 1, ref);
                CHECK(m != NULL && matches(m, ref, 0));
                tl_tensor_decref(m);
            }
        }
        tl_tensor_decref(t);
    }
    tl_tensor_decref(base);
}

static void test_integer_sums(void)
{
    int64_t n = 1000;
    tl_tensor_impl *t = empty(1, &n, TL_DTYPE_INT8);
    int8_t *p = tl_tensor_data(t);
    int64_t ref = 0;
    for (int i = 0; i < n; i++) {
        p[i] = (int8_t)(i * 37 % 256 - 128);
        ref += p[i];
    }
    tl_tensor_impl *s = tl_reduce(TL_REDUCE_SUM, NULL, t, 0, NULL, false, -1);
    CHECK(s && tl_tensor_dtype(s) == TL_DTYPE_INT64);
    CHECK(s && *(int64_t *)tl_tensor_data(s) == ref);
    tl_tensor_decref(s);
    /* int64 sums wrap, without undefined behaviour */
    int64_t two = 2;
    tl_tensor_impl *big = empty(1, &two, TL_DTYPE_INT64);
    ((int64_t *)tl_tensor_data(big))[0] = INT64_MAX;
    ((int64_t *)tl_tensor_data(big))[1] = 1;
    s = tl_reduce(TL_REDUCE_SUM, NULL, big, 0, NULL, false, -1);
    CHECK(s && *(int64_t *)tl_tensor_data(s) == INT64_MIN);
    tl_tensor_decref(s);
    s = tl_reduce(TL_REDUCE_PROD, NULL, big, 0, NULL, false, -1);
    CHECK(s && *(int64_t *)tl_tensor_data(s) == INT64_MAX);
    tl_tensor_decref(s);
    /* any/all of uint8 stay uint8 */
    s = tl_reduce(TL_REDUCE_ANY, NULL, t, 0, NULL, false, -1);
    CHECK(s && tl_tensor_dtype(s) == TL_DTYPE_BOOL);
    tl_tensor_decref(s);
    tl_tensor_decref(big);
    tl_tensor_decref(t);
}

/* ---- NaN and first occurrence ------------------------------------------------------- */

static void test_nan_and_ties(void)
{
    int64_t n = 100000;
    tl_tensor_impl *t = empty(1, &n, TL_DTYPE_FLOAT32);
    float *p = tl_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        p[i] = (float)(i % 100);
    }
    tl_tensor_impl *r = tl_reduce_arg(TL_REDUCE_ARGMAX, NULL, t, NULL, false);
    CHECK(r && *(int64_t *)tl_tensor_data(r) == 99); /* first of the ties */
    tl_tensor_decref(r);
    p[77777] = NAN;
    p[88888] = NAN;
    r = tl_reduce_arg(TL_REDUCE_ARGMIN, NULL, t, NULL, false);
    CHECK(r && *(int64_t *)tl_tensor_data(r) == 77777);
    tl_tensor_decref(r);
    r = tl_reduce(TL_REDUCE_AMAX, NULL, t, 0, NULL, false, -1);
    CHECK(r && isnan(*(float *)tl_tensor_data(r)));
    tl_tensor_decref(r);
    r = tl_reduce(TL_REDUCE_SUM, NULL, t, 0, NULL, false, -1);
    CHECK(r && isnan(*(float *)tl_tensor_data(r)));
    tl_tensor_decref(r);
    tl_tensor_impl *v = NULL, *ix = NULL;
    int64_t dim = 0;
    CHECK(tl_reduce_minmax_dim(TL_REDUCE_MAX, NULL, NULL, t, dim, true, &v,
                               &ix) == 0);
    CHECK(v && isnan(*(float *)tl_tensor_data(v)));
    CHECK(ix && *(int64_t *)tl_tensor_data(ix) == 77777);
    CHECK(ix && tl_tensor_ndim(ix) == 1);
    tl_tensor_decref(v);
    tl_tensor_decref(ix);
    tl_tensor_decref(t);
}

/* ---- empty, 0-dim, var ----------------------------------------------------------------- */

static void test_empty_and_scalar(void)
{
    int64_t s[] = {0, 3};
    tl_tensor_impl *e = empty(2, s, TL_DTYPE_FLOAT32);
    tl_tensor_impl *r = tl_reduce(TL_REDUCE_SUM, NULL, e, 0, NULL, false, -1);
    CHECK(r && *(float *)tl_tensor_data(r) == 0);
    tl_tensor_decref(r);
    r = tl_reduce(TL_REDUCE_PROD, NULL, e, 0, NULL, false, -1);
    CHECK(r && *(float *)tl_tensor_data(r) == 1);
    tl_tensor_decref(r);
    int64_t d0 = 0, d1 = 1;
    r = tl_reduce(TL_REDUCE_MEAN, NULL, e, 1, &d0, false, -1);
    CHECK(r && tl_tensor_numel(r) == 3 &&
          isnan(((float *)tl_tensor_data(r))[2]));
    tl_tensor_decref(r);
    CHECK(tl_reduce(TL_REDUCE_AMAX, NULL, e, 1, &d0, false, -1) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    CHECK(msg_has("amax(): dim 0 of shape [0, 3] has size 0"));
    CHECK(tl_reduce(TL_REDUCE_MAX, NULL, e, 0, NULL, false, -1) == NULL);
    CHECK(msg_has("max(): the input of shape [0, 3] is empty"));
    r = tl_reduce(TL_REDUCE_AMAX, NULL, e, 1, &d1, false, -1);
    CHECK(r && tl_tensor_numel(r) == 0);
    tl_tensor_decref(r);
    r = tl_reduce(TL_REDUCE_ALL, NULL, e, 0, NULL, false, -1);
    CHECK(r && *(uint8_t *)tl_tensor_data(r) == 1);
    tl_tensor_decref(r);

    tl_tensor_impl *z = empty(0, NULL, TL_DTYPE_FLOAT64);
    *(double *)tl_tensor_data(z) = 2.5;
    int64_t m1 = -1;
    r = tl_reduce(TL_REDUCE_SUM, NULL, z, 1, &m1, true, -1);
    CHECK(r && tl_tensor_ndim(r) == 0 && *(double *)tl_tensor_data(r) == 2.5);
    tl_tensor_decref(r);
    r = tl_reduce_var(NULL, z, 0, NULL, 0.0, false, false);
    CHECK(r && *(double *)tl_tensor_data(r) == 0);
    tl_tensor_decref(r);
    r = tl_reduce_var(NULL, z, 0, NULL, 1.0, false, false);
    CHECK(r && isnan(*(double *)tl_tensor_data(r)));
    tl_tensor_decref(r);
    tl_tensor_decref(z);
    tl_tensor_decref(e);
}

static void test_var_offset(void)
{
    int64_t n = 4097;
    tl_tensor_impl *t = empty(1, &n, TL_DTYPE_FLOAT64);
    double *p = tl_tensor_data(t);
    double mean = 0;
    for (int64_t i = 0; i < n; i++) {
        p[i] = (double)(i % 7) - 3.0;
        mean += p[i];
    }
    mean /= (double)n;
    double ss = 0;
    for (int64_t i = 0; i < n; i++) {
        ss += (p[i] - mean) * (p[i] - mean);
        p[i] += 1e9;
    }
    tl_tensor_impl *r = tl_reduce_var(NULL, t, 0, NULL, 1.0, false, false);
    CHECK(r && fabs(*(double *)tl_tensor_data(r) - ss / (double)(n - 1)) <
                   1e-9);
    tl_tensor_decref(r);
    r = tl_reduce_var(NULL, t, 0, NULL, 0.0, false, true);
    CHECK(r && fabs(*(double *)tl_tensor_data(r) - sqrt(ss / (double)n)) <
                   1e-9);
    tl_tensor_decref(r);
    tl_tensor_decref(t);
}

/* ---- out= and errors -------------------------------------------------------------------- */

static void test_out_and_errors(void)
{
    int64_t sizes[] = {3, 4};
    tl_tensor_impl *t = random_f64(2, sizes);
    int64_t d0 = 0, four = 4, zero = 0, three = 3;
    tl_tensor_impl *out = empty(1, &four, TL_DTYPE_FLOAT64);
    uint64_t ver = tl_tensor_version(out);
    tl_tensor_impl *r = tl_reduce(TL_REDUCE_SUM, out, t, 1, &d0, false, -1);
    CHECK(r == out && tl_tensor_version(out) > ver);
    tl_tensor_decref(r);
    /* empty and owning: resized */
    tl_tensor_impl *eo = empty(1, &zero, TL_DTYPE_FLOAT32);
    r = tl_reduce(TL_REDUCE_MEAN, eo, t, 1, &d0, true, -1);
    CHECK(r == eo && tl_tensor_ndim(eo) == 2 && tl_tensor_sizes(eo)[1] == 4);
    tl_tensor_decref(r);
    /* wrong shape, wrong dtype */
    tl_tensor_impl *bad = empty(1, &three, TL_DTYPE_FLOAT64);
    CHECK(tl_reduce(TL_REDUCE_SUM, bad, t, 1, &d0, false, -1) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    tl_tensor_impl *iout = empty(1, &four, TL_DTYPE_INT64);
    CHECK(tl_reduce(TL_REDUCE_SUM, iout, t, 1, &d0, false, -1) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    CHECK(msg_has("the result has dtype float64, which an output of dtype "
                  "int64 cannot hold"));
    /* dims */
    int64_t d2 = 2, rep[] = {1, -1};
    CHECK(tl_reduce(TL_REDUCE_SUM, NULL, t, 1, &d2, false, -1) == NULL);
    CHECK(tl_error_kind() == TL_ERR_INDEX);
    CHECK(msg_has("dim 2 is out of range for a 2-d tensor: valid dims are "
                  "-2 to 1"));
    CHECK(tl_reduce(TL_REDUCE_AMIN, NULL, t, 2, rep, false, -1) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    CHECK(msg_has("dim 1 is named twice in dims="));
    /* dtypes */
    tl_tensor_impl *ci = empty(1, &four, TL_DTYPE_INT32);
    CHECK(tl_reduce(TL_REDUCE_MEAN, NULL, ci, 0, NULL, false, -1) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE && msg_has("dtype int32 needs a floating point"));
    CHECK(tl_reduce_var(NULL, ci, 0, NULL, 1, false, false) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    tl_tensor_impl *cz = empty(1, &four, TL_DTYPE_COMPLEX64);
    CHECK(tl_reduce(TL_REDUCE_AMAX, NULL, cz, 0, NULL, false, -1) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    CHECK(tl_reduce_arg(TL_REDUCE_ARGMAX, NULL, cz, NULL, false) == NULL);
    tl_dtype rt;
    CHECK(tl_reduce_result_type(TL_REDUCE_SUM, TL_DTYPE_UINT8, -1, &rt) == 0
          && rt == TL_DTYPE_INT64);
    CHECK(tl_reduce_result_type(TL_REDUCE_ANY, TL_DTYPE_UINT8, -1, &rt) == 0
          && rt == TL_DTYPE_UINT8);
    CHECK(tl_reduce_result_type(TL_REDUCE_STD, TL_DTYPE_COMPLEX128, -1,
                                &rt) == 0 && rt == TL_DTYPE_FLOAT64);
    CHECK(tl_reduce_from_name("argmin") == TL_REDUCE_ARGMIN);
    CHECK(strcmp(tl_reduce_name(TL_REDUCE_MEAN), "mean") == 0);
    tl_tensor_decref(cz);
    tl_tensor_decref(ci);
    tl_tensor_decref(iout);
    tl_tensor_decref(bad);
    tl_tensor_decref(eo);
    tl_tensor_decref(out);
    tl_tensor_decref(t);
}

/* ---- determinism -------------------------------------------------------------------------- */

static void test_thread_independence(void)
{
    int64_t sizes[] = {700, 3001};
    tl_tensor_impl *t = random_f64(2, sizes);
    tl_tensor_impl *f = tl_op_to_dtype(t, TL_DTYPE_FLOAT32, false);
    const int old = tl_get_num_threads();
    unsigned char first[4][8 * 3001];
    int64_t d0 = 0, d1 = 1;
    for (int n = 1; n <= 4; n++) {
        tl_set_num_threads(n);
        tl_tensor_impl *r[4] = {
            tl_reduce(TL_REDUCE_SUM, NULL, t, 0, NULL, false, -1),
            tl_reduce(TL_REDUCE_SUM, NULL, f, 1, &d0, false, -1),
            tl_reduce(TL_REDUCE_MEAN, NULL, f, 1, &d1, false, -1),
            tl_reduce_var(NULL, t, 0, NULL, 1.0, false, true),
        };
        for (int k = 0; k < 4; k++) {
            CHECK(r[k] != NULL);
            size_t nb = (size_t)tl_tensor_numel(r[k]) *
                        (size_t)tl_dtype_itemsize(tl_tensor_dtype(r[k]));
            if (n == 1) {
                memcpy(first[k], tl_tensor_data(r[k]), nb);
            } else {
                CHECK(memcmp(first[k], tl_tensor_data(r[k]), nb) == 0);
            }
            tl_tensor_decref(r[k]);
        }
    }
    tl_set_num_threads(old);
    tl_tensor_decref(f);
    tl_tensor_decref(t);
}

int main(void)
{
    RUN(test_iter_reduction_layout);
    RUN(test_values_on_layouts);
    RUN(test_integer_sums);
    RUN(test_nan_and_ties);
    RUN(test_empty_and_scalar);
    RUN(test_var_offset);
    RUN(test_out_and_errors);
    RUN(test_thread_independence);
    DONE();
}
