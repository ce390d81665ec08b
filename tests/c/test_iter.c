/* tests/c/test_iter.c — the TensorIterator's build steps one by one
 * (broadcasting, dimension order, coalescing, overlap policy, reductions,
 * output resizing), its loop driver, and the thread pool. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "tensorlib/iter.h"
#include "tensorlib/ops.h"
#include "tensorlib/tensorlib.h"

static tl_tensor_impl *empty(int nd, const int64_t *sizes, tl_dtype dt)
{
    return tl_tensor_empty(nd, sizes, dt, tl_device_cpu(),
                           TL_MEMKIND_DEFAULT);
}

/* A contiguous float32 tensor holding 0, 1, 2, ... */
static tl_tensor_impl *arange_f32(int nd, const int64_t *sizes)
{
    tl_tensor_impl *t = empty(nd, sizes, TL_DTYPE_FLOAT32);
    float *p = tl_tensor_data(t);
    for (int64_t i = 0; i < tl_tensor_numel(t); i++) {
        p[i] = (float)i;
    }
    return t;
}

static float at_f32(tl_tensor_impl *t, const int64_t *idx)
{
    const int64_t *st = tl_tensor_strides(t);
    int64_t off = 0;
    for (int d = 0; d < tl_tensor_ndim(t); d++) {
        off += idx[d] * st[d];
    }
    return ((float *)tl_tensor_data(t))[off];
}

static bool msg_has(const char *s) { return strstr(tl_error_message(), s); }

/* ---- broadcasting ------------------------------------------------------- */

static void test_infer_size(void)
{
    int64_t a[] = {2, 1, 4}, b[] = {3, 1}, out[TL_MAX_DIMS];
    int ndims[] = {3, 2}, nd;
    const int64_t *sizes[] = {a, b};
    CHECK(tl_iter_infer_size(2, ndims, sizes, &nd, out) == 0);
    CHECK_EQ_I64(nd, 3);
    CHECK_EQ_I64(out[0], 2);
    CHECK_EQ_I64(out[1], 3);
    CHECK_EQ_I64(out[2], 4);

    int64_t c[] = {2, 3}, d[] = {4};
    const int64_t *s2[] = {c, d};
    int nd2[] = {2, 1};
    CHECK(tl_iter_infer_size(2, nd2, s2, &nd, out) == TL_ERR_SHAPE);
    CHECK(msg_has("shapes [2, 3] and [4] do not broadcast: at dimension 1 "
                  "(counted in the result) the sizes are 3 and 4, and "
                  "neither is 1"));

    /* Three operands; the third conflicts at dim 0. */
    int64_t e[] = {5, 1, 1};
    const int64_t *s3[] = {c, d + 0, e};
    int nd3[] = {2, 0, 3};
    CHECK(tl_iter_infer_size(3, nd3, s3, &nd, out) == 0);
    CHECK_EQ_I64(nd, 3);
    CHECK_EQ_I64(out[0], 5);
    int64_t f[] = {2, 1, 1};
    const int64_t *s4[] = {e, f};
    int nd4[] = {3, 3};
    CHECK(tl_iter_infer_size(2, nd4, s4, &nd, out) == TL_ERR_SHAPE);
    CHECK(msg_has("shapes [5, 1, 1] and [2, 1, 1]") &&
          msg_has("at dimension 0") && msg_has("sizes are 5 and 2"));

    /* With three operands the first shape is the broadcast so far. */
    int64_t g[] = {3};
    const int64_t *s5[] = {g, c, d};
    int nd5[] = {1, 2, 1};
    CHECK(tl_iter_infer_size(3, nd5, s5, &nd, out) == TL_ERR_SHAPE);
    CHECK(msg_has("shapes [2, 3] and [4]") && msg_has("at dimension 1"));
}

static void test_broadcast_strides(void)
{
    int64_t sa[] = {2, 3}, sb[] = {3};
    tl_tensor_impl *a = arange_f32(2, sa), *b = arange_f32(1, sb);
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, a);
    tl_iter_config_add_input(&c, b);
    c.coalesce = false;
    tl_iter *it = tl_iter_new(&c);
    CHECK(it != NULL);
    CHECK(!tl_iter_is_fast_setup(it));
    CHECK_EQ_I64(tl_iter_ndim(it), 2);
    CHECK_EQ_I64(tl_iter_shape(it)[0], 3);
    CHECK_EQ_I64(tl_iter_shape(it)[1], 2);
    CHECK_EQ_I64(tl_iter_strides(it, 2)[0], 4);
    CHECK_EQ_I64(tl_iter_strides(it, 2)[1], 0); /* broadcast dim */
    CHECK_EQ_I64(tl_iter_strides(it, 1)[1], 12);
    tl_tensor_impl *o = tl_iter_output(it, 0);
    CHECK_EQ_I64(tl_tensor_ndim(o), 2);
    CHECK_EQ_I64(tl_tensor_sizes(o)[0], 2);
    CHECK(tl_tensor_is_contiguous(o, TL_FORMAT_CONTIGUOUS));
    tl_iter_free(it);
    CHECK_EQ_I64(tl_tensor_refcount(o), 1);
    tl_tensor_decref(o);

    /* A mismatch is reported before anything is allocated. */
    int64_t sc[] = {4};
    tl_tensor_impl *cc = arange_f32(1, sc);
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, a);
    tl_iter_config_add_input(&c, cc);
    CHECK(tl_iter_new(&c) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    CHECK(msg_has("shapes [2, 3] and [4]") &&
          msg_has("sizes are 3 and 4"));
    tl_tensor_decref(a);
    tl_tensor_decref(b);
    tl_tensor_decref(cc);
}

/* ---- dimension order ---------------------------------------------------- */

static void test_reorder_transposed(void)
{
    int64_t s[] = {3, 4};
    tl_tensor_impl *base = arange_f32(2, s);
    int64_t ts[] = {4, 3}, tst[] = {1, 4};
    tl_tensor_impl *t = tl_tensor_as_strided(base, 2, ts, tst, 0);
    for (int fast = 0; fast < 2; fast++) {
        tl_iter_config c;
        tl_iter_config_init(&c);
        tl_iter_config_add_output(&c, NULL);
        tl_iter_config_add_input(&c, t);
        c.coalesce = false;
        c.allow_fast_setup = fast;
        tl_iter *it = tl_iter_new(&c);
        CHECK(it != NULL);
        int pn;
        const int *perm = tl_iter_perm(it, &pn);
        if (!fast) {
            /* Fastest first: tensor dim 0 (stride 1). */
            CHECK_EQ_I64(pn, 2);
            CHECK_EQ_I64(perm[0], 0);
            CHECK_EQ_I64(perm[1], 1);
            CHECK_EQ_I64(tl_iter_strides(it, 1)[0], 4);
            CHECK_EQ_I64(tl_iter_strides(it, 1)[1], 16);
        }
        tl_tensor_impl *o = tl_iter_output(it, 0);
        /* The output keeps the input's (transposed) layout. */
        CHECK_EQ_I64(tl_tensor_strides(o)[0], 1);
        CHECK_EQ_I64(tl_tensor_strides(o)[1], 4);
        tl_iter_free(it);
        tl_tensor_decref(o);
    }
    /* Through an op, values too. */
    tl_tensor_impl *n = tl_op_unary(TL_UNARY_NEG, NULL, t);
    CHECK_EQ_I64(tl_tensor_strides(n)[0], 1);
    for (int64_t i = 0; i < 4; i++) {
        for (int64_t j = 0; j < 3; j++) {
            int64_t idx[] = {i, j};
            CHECK(at_f32(n, idx) == -(float)(j * 4 + i));
        }
    }
    tl_tensor_decref(n);
    tl_tensor_decref(t);
    tl_tensor_decref(base);
}

static void test_reorder_channels_last(void)
{
    int64_t s[] = {2, 3, 4, 5};
    tl_tensor_impl *x = tl_tensor_empty_format(
        4, s, TL_DTYPE_FLOAT32, tl_device_cpu(), TL_MEMKIND_DEFAULT,
        TL_FORMAT_CHANNELS_LAST);
    float *p = tl_tensor_data(x);
    for (int i = 0; i < 120; i++) {
        p[i] = (float)i;
    }
    /* A broadcast contiguous operand does not decide the order. */
    int64_t bs[] = {5};
    tl_tensor_impl *b = arange_f32(1, bs);
    for (int fast = 0; fast < 2; fast++) {
        tl_iter_config c;
        tl_iter_config_init(&c);
        tl_iter_config_add_output(&c, NULL);
        tl_iter_config_add_input(&c, x);
        c.allow_fast_setup = fast;
        tl_iter *it = tl_iter_new(&c);
        tl_tensor_impl *o = tl_iter_output(it, 0);
        CHECK(tl_tensor_is_contiguous(o, TL_FORMAT_CHANNELS_LAST));
        CHECK_EQ_I64(tl_iter_ndim(it), 1); /* dense: coalesced */
        CHECK(tl_iter_is_fast_setup(it) == (bool)fast);
        tl_iter_free(it);
        tl_tensor_decref(o);
    }
    tl_tensor_impl *y = tl_op_binary(TL_BINARY_ADD, NULL, x, b, NULL);
    CHECK(tl_tensor_is_contiguous(y, TL_FORMAT_CHANNELS_LAST));
    int64_t idx[] = {1, 2, 3, 4};
    CHECK(at_f32(y, idx) == at_f32(x, idx) + 4.0f);
    tl_tensor_decref(y);
    tl_tensor_decref(b);
    tl_tensor_decref(x);
}

/* ---- coalescing --------------------------------------------------------- */

static void test_coalesce(void)
{
    int64_t s[] = {2, 3, 4};
    tl_tensor_impl *a = arange_f32(3, s), *b = arange_f32(3, s);
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, a);
    tl_iter_config_add_input(&c, b);
    c.allow_fast_setup = false;
    tl_iter *it = tl_iter_new(&c);
    CHECK_EQ_I64(tl_iter_ndim(it), 1);
    CHECK_EQ_I64(tl_iter_shape(it)[0], 24);
    tl_iter_free(it);

    /* The fast set-up gives the same without per-dim work. */
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, a);
    tl_iter_config_add_input(&c, b);
    it = tl_iter_new(&c);
    CHECK(tl_iter_is_fast_setup(it));
    CHECK_EQ_I64(tl_iter_ndim(it), 1);
    tl_iter_free(it);

    /* A sliced operand: columns 0..2 of a 4x6 -> two dims. */
    int64_t bs[] = {4, 6};
    tl_tensor_impl *base = arange_f32(2, bs);
    int64_t vs[] = {4, 3}, vst[] = {6, 1};
    tl_tensor_impl *v = tl_tensor_as_strided(base, 2, vs, vst, 0);
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, v);
    it = tl_iter_new(&c);
    CHECK_EQ_I64(tl_iter_ndim(it), 2);
    CHECK_EQ_I64(tl_iter_shape(it)[0], 3);
    CHECK_EQ_I64(tl_iter_shape(it)[1], 4);
    CHECK_EQ_I64(tl_iter_strides(it, 1)[1], 24);
    tl_iter_free(it);

    /* Size-1 dims merge away. */
    int64_t os[] = {1, 4, 1, 6}, ost[] = {99, 6, 99, 1};
    tl_tensor_impl *w = tl_tensor_as_strided(base, 4, os, ost, 0);
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, w);
    c.allow_fast_setup = false;
    it = tl_iter_new(&c);
    CHECK(it != NULL);
    CHECK_EQ_I64(tl_iter_ndim(it), 1);
    CHECK_EQ_I64(tl_iter_shape(it)[0], 24);
    tl_iter_free(it);
    tl_tensor_decref(w);
    tl_tensor_decref(v);
    tl_tensor_decref(base);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

/* ---- overlap ------------------------------------------------------------ */

static void test_overlap_detection(void)
{
    int64_t s[] = {6};
    tl_tensor_impl *x = arange_f32(1, s);
    int64_t hs[] = {3}, one[] = {1}, neg[] = {-1};
    tl_tensor_impl *lo = tl_tensor_as_strided(x, 1, hs, one, 0);
    tl_tensor_impl *hi = tl_tensor_as_strided(x, 1, hs, one, 3);
    tl_tensor_impl *mid = tl_tensor_as_strided(x, 1, hs, one, 2);
    tl_tensor_impl *flip = tl_tensor_as_strided(x, 1, s, neg, 5);
    tl_tensor_impl *same = tl_tensor_as_strided(x, 1, s, one, 0);
    CHECK(tl_iter_overlap(x, x) == TL_OVERLAP_FULL);
    CHECK(tl_iter_overlap(x, same) == TL_OVERLAP_FULL);
    CHECK(tl_iter_overlap(lo, hi) == TL_OVERLAP_NO);
    CHECK(tl_iter_overlap(lo, mid) == TL_OVERLAP_PARTIAL);
    CHECK(tl_iter_overlap(x, flip) == TL_OVERLAP_PARTIAL);
    tl_tensor_impl *other = arange_f32(1, s);
    CHECK(tl_iter_overlap(x, other) == TL_OVERLAP_NO);

    CHECK(!tl_iter_has_internal_overlap(x));
    CHECK(!tl_iter_has_internal_overlap(flip));
    int64_t es[] = {3, 6}, est[] = {0, 1};
    tl_tensor_impl *expanded = tl_tensor_as_strided(x, 2, es, est, 0);
    CHECK(tl_iter_has_internal_overlap(expanded));
    int64_t ws[] = {3, 3}, wst[] = {1, 1};
    tl_tensor_impl *win = tl_tensor_as_strided(x, 2, ws, wst, 0);
    CHECK(tl_iter_has_internal_overlap(win));

    /* An output overlapping itself is an error, before any write. */
    int64_t bs[] = {3, 6};
    tl_tensor_impl *big = arange_f32(2, bs);
    tl_tensor_impl *r = tl_op_binary(TL_BINARY_ADD, expanded, big, big, NULL);
    CHECK(r == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    CHECK(msg_has("elements share memory") && msg_has("[0, 1]"));
    CHECK(((float *)tl_tensor_data(x))[0] == 0.0f);
    CHECK_EQ_I64(tl_tensor_version(x), 0);

    tl_tensor_decref(big);
    tl_tensor_decref(win);
    tl_tensor_decref(expanded);
    tl_tensor_decref(other);
    tl_tensor_decref(same);
    tl_tensor_decref(flip);
    tl_tensor_decref(mid);
    tl_tensor_decref(hi);
    tl_tensor_decref(lo);
    tl_tensor_decref(x);
}

static void test_partial_overlap_copy(void)
{
    /* x += x.flip(0): the flipped input is copied first. */
    int64_t s[] = {6}, neg[] = {-1};
    tl_tensor_impl *x = arange_f32(1, s);
    tl_tensor_impl *flip = tl_tensor_as_strided(x, 1, s, neg, 5);
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, x);
    tl_iter_config_add_input(&c, x);
    tl_iter_config_add_input(&c, flip);
    tl_iter *it = tl_iter_new(&c);
    CHECK(!tl_iter_input_was_copied(it, 1)); /* exact alias: no copy */
    CHECK(tl_iter_input_was_copied(it, 2));
    tl_iter_free(it);

    tl_tensor_impl *r = tl_op_binary(TL_BINARY_ADD, x, x, flip, NULL);
    CHECK(r == x);
    tl_tensor_decref(r);
    const float *p = tl_tensor_data(x);
    for (int i = 0; i < 6; i++) {
        CHECK(p[i] == 5.0f);
    }
    CHECK_EQ_I64(tl_tensor_version(x), 1);

    /* 2-D: x[1:] += x[:-1] (shifted rows). */
    int64_t s2[] = {4, 3};
    tl_tensor_impl *y = arange_f32(2, s2);
    int64_t vs[] = {3, 3}, vst[] = {3, 1};
    tl_tensor_impl *dst = tl_tensor_as_strided(y, 2, vs, vst, 3);
    tl_tensor_impl *src = tl_tensor_as_strided(y, 2, vs, vst, 0);
    r = tl_op_binary(TL_BINARY_ADD, dst, dst, src, NULL);
    tl_tensor_decref(r);
    const float *q = tl_tensor_data(y);
    for (int i = 3; i < 12; i++) {
        CHECK(q[i] == (float)i + (float)(i - 3));
    }
    /* Same with copy_: y[1:] = y[:-1] reads the old rows. */
    tl_tensor_impl *z = arange_f32(2, s2);
    tl_tensor_impl *zd = tl_tensor_as_strided(z, 2, vs, vst, 3);
    tl_tensor_impl *zs = tl_tensor_as_strided(z, 2, vs, vst, 0);
    CHECK(tl_op_copy_(zd, zs) == 0);
    const float *zp = tl_tensor_data(z);
    for (int i = 3; i < 12; i++) {
        CHECK(zp[i] == (float)(i - 3));
    }
    CHECK_EQ_I64(tl_tensor_refcount(x), 2); /* x and flip's base ref */
    tl_tensor_decref(zs);
    tl_tensor_decref(zd);
    tl_tensor_decref(z);
    tl_tensor_decref(src);
    tl_tensor_decref(dst);
    tl_tensor_decref(y);
    tl_tensor_decref(flip);
    CHECK_EQ_I64(tl_tensor_refcount(x), 1);
    tl_tensor_decref(x);
}

/* ---- reductions --------------------------------------------------------- */

static void test_reduction_layout(void)
{
    int64_t is[] = {4, 5, 6}, os[] = {4, 1, 6};
    tl_tensor_impl *in = arange_f32(3, is);
    tl_tensor_impl *out = empty(3, os, TL_DTYPE_FLOAT32);
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, out);
    tl_iter_config_add_input(&c, in);
    c.is_reduction = true;
    c.resize_outputs = false;
    c.coalesce = false;
    tl_iter *it = tl_iter_new(&c);
    CHECK(it != NULL);
    int pn;
    const int *perm = tl_iter_perm(it, &pn);
    CHECK_EQ_I64(pn, 3);
    CHECK_EQ_I64(perm[0], 1); /* the reduced dim first */
    CHECK_EQ_I64(perm[1], 2);
    CHECK_EQ_I64(perm[2], 0);
    CHECK_EQ_I64(tl_iter_strides(it, 0)[0], 0);
    CHECK_EQ_I64(tl_iter_strides(it, 0)[1], 4);
    CHECK_EQ_I64(tl_iter_strides(it, 1)[0], 24);
    tl_iter_free(it);

    c.coalesce = true;
    it = tl_iter_new(&c);
    CHECK_EQ_I64(tl_iter_ndim(it), 3); /* nothing merges */
    tl_iter_free(it);

    /* Reducing the last dim of a [4, 5]: reduced dim first, out stride 0;
     * sum it with a serial loop to check the layout is usable. */
    int64_t is2[] = {4, 5}, os2[] = {4, 1};
    tl_tensor_impl *in2 = arange_f32(2, is2);
    tl_tensor_impl *out2 = empty(2, os2, TL_DTYPE_FLOAT32);
    memset(tl_tensor_data(out2), 0, 16);
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, out2);
    tl_iter_config_add_input(&c, in2);
    c.is_reduction = true;
    c.resize_outputs = false;
    it = tl_iter_new(&c);
    CHECK_EQ_I64(tl_iter_ndim(it), 2);
    CHECK_EQ_I64(tl_iter_shape(it)[0], 5);
    CHECK_EQ_I64(tl_iter_strides(it, 0)[0], 0);
    tl_iter_free(it);
    tl_tensor_decref(out2);
    tl_tensor_decref(in2);
    tl_tensor_decref(out);
    tl_tensor_decref(in);
}

/* out[i] += in[i] in float64, for a reduction over buffered operands. */
static void sum_loop_f64(char **data, const int64_t *st, int64_t n0,
                         int64_t n1, void *ctx)
{
    (void)ctx;
    for (int64_t j = 0; j < n1; j++) {
        for (int64_t i = 0; i < n0; i++) {
            *(double *)(data[0] + i * st[0] + j * st[2]) +=
                *(double *)(data[1] + i * st[1] + j * st[3]);
        }
    }
}

static void test_reduction_buffered(void)
{
    /* Row sums of a float16 [64, 700] into a float32 [64, 1], the kernel
     * working in float64: both operands go through the buffers, and the
     * output chunks must be loaded before accumulating. */
    int64_t is[] = {64, 700}, os[] = {64, 1};
    tl_tensor_impl *in = empty(2, is, TL_DTYPE_FLOAT16);
    uint16_t *p = tl_tensor_data(in);
    for (int i = 0; i < 64 * 700; i++) {
        p[i] = tl_half_from_float((float)(i % 700));
    }
    tl_tensor_impl *out = empty(2, os, TL_DTYPE_FLOAT32);
    memset(tl_tensor_data(out), 0, 64 * 4);
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, out);
    tl_iter_config_add_input(&c, in);
    c.is_reduction = true;
    c.resize_outputs = false;
    c.check_all_same_dtype = false;
    tl_iter *it = tl_iter_new(&c);
    CHECK(it != NULL);
    tl_iter_set_target_dtype(it, 0, TL_DTYPE_FLOAT64);
    tl_iter_set_target_dtype(it, 1, TL_DTYPE_FLOAT64);
    CHECK(tl_iter_needs_buffering(it));
    tl_iter_for_each(it, sum_loop_f64, NULL);
    tl_iter_free(it);
    const float *o = tl_tensor_data(out);
    int bad = 0;
    for (int r = 0; r < 64; r++) {
        bad += o[r] != 699.0f * 700.0f / 2.0f;
    }
    CHECK_EQ_I64(bad, 0);
    tl_tensor_decref(out);
    tl_tensor_decref(in);
}

/* ---- outputs ------------------------------------------------------------ */

static void test_out_resize(void)
{
    int64_t s[] = {2, 3}, zero[] = {0};
    tl_tensor_impl *a = arange_f32(2, s);
    tl_tensor_impl *out = empty(1, zero, TL_DTYPE_FLOAT32);
    tl_tensor_impl *r = tl_op_binary(TL_BINARY_ADD, out, a, a, NULL);
    CHECK(r == out);
    CHECK_EQ_I64(tl_tensor_ndim(out), 2);
    CHECK_EQ_I64(tl_tensor_sizes(out)[1], 3);
    CHECK(((float *)tl_tensor_data(out))[5] == 10.0f);
    tl_tensor_decref(r);

    /* A non-empty out of another shape is an error. */
    int64_t s3[] = {3};
    tl_tensor_impl *bad = empty(1, s3, TL_DTYPE_FLOAT32);
    CHECK(tl_op_binary(TL_BINARY_ADD, bad, a, a, NULL) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    CHECK(msg_has("the output has shape [3] but the result has shape "
                  "[2, 3]"));
    /* An empty view is not resized. */
    tl_tensor_impl *view = tl_tensor_as_strided(bad, 1, zero, s3, 1);
    CHECK(tl_op_binary(TL_BINARY_ADD, view, a, a, NULL) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    /* In-place with a broadcast beyond self's shape. */
    int64_t s23[] = {2, 3};
    tl_tensor_impl *big = arange_f32(2, s23);
    tl_tensor_impl *row = arange_f32(1, s3);
    CHECK(tl_op_binary(TL_BINARY_ADD, row, row, big, NULL) == NULL);
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    tl_tensor_decref(big);
    tl_tensor_decref(row);
    tl_tensor_decref(view);
    tl_tensor_decref(bad);
    tl_tensor_decref(out);
    tl_tensor_decref(a);
}

/* ---- the loop driver ---------------------------------------------------- */

typedef struct {
    int hits[256];
    int calls;
} visit_ctx;

/* Records, per element, how often the loop visited it (operand 1 holds
 * each element's own index as a float). */
static void visit_loop(char **data, const int64_t *st, int64_t n0,
                       int64_t n1, void *vctx)
{
    visit_ctx *v = vctx;
    v->calls++;
    for (int64_t j = 0; j < n1; j++) {
        for (int64_t i = 0; i < n0; i++) {
            float f = *(float *)(data[1] + i * st[1] + j * st[3]);
            v->hits[(int)f]++;
            *(float *)(data[0] + i * st[0] + j * st[2]) = f;
        }
    }
}

static void test_serial_ranges(void)
{
    /* A non-contiguous 3-D input: every sub-range visits each element
     * once. */
    int64_t bs[] = {4, 5, 7};
    tl_tensor_impl *base = arange_f32(3, bs);
    int64_t vs[] = {3, 5, 6}, vst[] = {35, 7, 1};
    tl_tensor_impl *v = tl_tensor_as_strided(base, 3, vs, vst, 0);
    tl_iter_config c;
    tl_iter_config_init(&c);
    tl_iter_config_add_output(&c, NULL);
    tl_iter_config_add_input(&c, v);
    tl_iter *it = tl_iter_new(&c);
    CHECK_EQ_I64(tl_iter_ndim(it), 2);
    const int64_t n = tl_iter_numel(it);
    CHECK_EQ_I64(n, 90);
    int64_t cuts[][2] = {{0, 90}, {0, 1}, {5, 6}, {3, 29}, {6, 12},
                         {13, 90}, {89, 90}, {7, 7}};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        visit_ctx vc;
        memset(&vc, 0, sizeof vc);
        CHECK(tl_iter_serial_for_each(it, visit_loop, &vc, cuts[k][0],
                                      cuts[k][1]) == 0);
        int total = 0, dup = 0;
        for (int i = 0; i < 256; i++) {
            total += vc.hits[i];
            dup += vc.hits[i] > 1;
        }
        CHECK_EQ_I64(total, cuts[k][1] - cuts[k][0]);
        CHECK_EQ_I64(dup, 0);
    }
    CHECK(tl_iter_serial_for_each(it, visit_loop, NULL, 0, 91) ==
          TL_ERR_INDEX);
    visit_ctx all;
    memset(&all, 0, sizeof all);
    tl_iter_for_each(it, visit_loop, &all);
    tl_tensor_impl *o = tl_iter_operand(it, 0);
    for (int64_t i = 0; i < 3; i++) {
        for (int64_t j = 0; j < 5; j++) {
            for (int64_t k = 0; k < 6; k++) {
                int64_t idx[] = {i, j, k};
                CHECK(at_f32(o, idx) == (float)(i * 35 + j * 7 + k));
            }
        }
    }
    tl_iter_free(it);
    tl_tensor_decref(v);
    tl_tensor_decref(base);
}

/* ---- threads ------------------------------------------------------------ */

static int64_t covered[1 << 16];

static void mark_range(void *ctx, int64_t b, int64_t e)
{
    (void)ctx;
    for (int64_t i = b; i < e; i++) {
        __atomic_fetch_add(&covered[i], 1, __ATOMIC_RELAXED);
    }
}

/* mark_range, counting the ranges run off the thread in ctx and taking
 * 2 ms a range: long enough for a woken worker to claim a share. */
static int off_caller;

static void mark_range_where(void *ctx, int64_t b, int64_t e)
{
    if (!pthread_equal(pthread_self(), *(const pthread_t *)ctx)) {
        __atomic_fetch_add(&off_caller, 1, __ATOMIC_RELAXED);
    }
    mark_range(NULL, b, e);
    usleep(2000);
}

static int all_covered_once(int64_t n)
{
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        bad += covered[i] != 1;
    }
    return bad == 0;
}

static void test_cold_pool(void)
{
    /* Note [Cold pool]: a loop of fewer than 16 shares that finds every
     * worker asleep runs on the calling thread; a loop right after it, or
     * a big one, may wake them.  Every index is covered once either way.
     * Each range takes 2 ms, so a woken worker would claim the second
     * share: without the rule the cold loop runs off the caller.  Workers
     * fall asleep within ~100 us of spinning (later on a loaded machine),
     * so the cold case is retried after a pause until it is seen. */
    const int saved = tl_get_num_threads();
    pthread_t self = pthread_self();
    tl_set_num_threads(2);
    memset(covered, 0, sizeof covered);
    tl_parallel_for(1 << 16, 100, mark_range, NULL); /* workers exist */
    CHECK(all_covered_once(1 << 16));
    int inline_seen = 0;
    for (int tries = 0; tries < 200 && !inline_seen; tries++) {
        usleep(3000); /* past the spin and the 1 ms window */
        memset(covered, 0, sizeof covered);
        __atomic_store_n(&off_caller, 0, __ATOMIC_RELAXED);
        tl_parallel_for(8 * 1024, 1024, mark_range_where, &self);
        CHECK(all_covered_once(8 * 1024));
        inline_seen = __atomic_load_n(&off_caller, __ATOMIC_RELAXED) == 0;
    }
    CHECK(inline_seen);
    /* right after it: within the window, the loop may take the workers */
    memset(covered, 0, sizeof covered);
    tl_parallel_for(8 * 1024, 1024, mark_range_where, &self);
    CHECK(all_covered_once(8 * 1024));
    /* a big loop wakes them whatever their state */
    usleep(3000);
    memset(covered, 0, sizeof covered);
    tl_parallel_for(1 << 16, 4096, mark_range_where, &self);
    CHECK(all_covered_once(1 << 16));
    tl_set_num_threads(saved);
}

static void mark_chunk(void *ctx, int64_t c)
{
    int64_t *sums = ctx;
    sums[c] = c * c; /* depends only on the chunk */
}

static void test_parallel_for(void)
{
    int saved = tl_get_num_threads();
    CHECK(saved >= 1);
    CHECK(tl_set_num_threads(0) == TL_ERR_VALUE);
    for (int nt = 1; nt <= 5; nt++) {
        tl_set_num_threads(nt);
        CHECK_EQ_I64(tl_get_num_threads(), nt);
        memset(covered, 0, sizeof covered);
        tl_parallel_for(1 << 16, 100, mark_range, NULL);
        int bad = 0;
        for (int i = 0; i < (1 << 16); i++) {
            bad += covered[i] != 1;
        }
        CHECK_EQ_I64(bad, 0);
        int64_t sums[37] = {0};
        tl_parallel_chunks(37, mark_chunk, sums);
        for (int i = 0; i < 37; i++) {
            CHECK_EQ_I64(sums[i], (int64_t)i * i);
        }
    }
    tl_set_num_threads(saved);
}

/* Note [Task ranges]: the caller owns the first range of a job's tasks.
 * When task 0 holds the caller for 20 ms, the worker runs its own range
 * (tasks 4-7) first and then the rest of the caller's (1-3); each task
 * runs once.  With one shared counter the worker would take 1-3 first. */
static pthread_t chunk_caller;
static int chunk_off_caller[8];
static int chunk_order[8];
static int chunk_seq;

static void slow_first_chunk(void *ctx, int64_t c)
{
    (void)ctx;
    __atomic_fetch_add(&covered[c], 1, __ATOMIC_RELAXED);
    chunk_order[c] = __atomic_fetch_add(&chunk_seq, 1, __ATOMIC_RELAXED);
    if (!pthread_equal(pthread_self(), chunk_caller)) {
        __atomic_store_n(&chunk_off_caller[c], 1, __ATOMIC_RELAXED);
    }
    if (c == 0) {
        usleep(20000);
    }
}

static void test_task_ranges(void)
{
    const int saved = tl_get_num_threads();
    tl_set_num_threads(2);
    chunk_caller = pthread_self();
    int stolen = 0;
    for (int tries = 0; tries < 20 && !stolen; tries++) {
        memset(covered, 0, sizeof covered);
        memset(chunk_off_caller, 0, sizeof chunk_off_caller);
        chunk_seq = 0;
        tl_parallel_chunks(8, slow_first_chunk, NULL);
        CHECK(all_covered_once(8));
        /* tasks 1-3 are the caller's range; the worker took them after
         * its own */
        stolen = chunk_off_caller[1] && chunk_off_caller[2] &&
                 chunk_off_caller[3] && !chunk_off_caller[0] &&
                 chunk_order[4] < chunk_order[1];
    }
    CHECK(stolen);
    /* more threads than ranges (64), and fewer tasks than threads */
    tl_set_num_threads(70);
    for (int n = 1; n <= 300; n += 37) {
        memset(covered, 0, sizeof covered);
        tl_parallel_for(n, 1, mark_range, NULL);
        CHECK(all_covered_once(n));
        int64_t sums[300] = {0};
        tl_parallel_chunks(n, mark_chunk, sums);
        for (int i = 0; i < n; i++) {
            CHECK_EQ_I64(sums[i], (int64_t)i * i);
        }
    }
    tl_set_num_threads(saved);
}

static void test_threads_equal(void)
{
    /* A big strided add gives the same bits on 1 and 4 threads. */
    int64_t s[] = {300, 700};
    tl_tensor_impl *a = arange_f32(2, s);
    int64_t ts[] = {700, 300}, tst[] = {1, 700};
    tl_tensor_impl *at = tl_tensor_as_strided(a, 2, ts, tst, 0);
    tl_tensor_impl *b = tl_op_unary(TL_UNARY_SIN, NULL, at);
    tl_set_num_threads(1);
    tl_tensor_impl *r1 = tl_op_binary(TL_BINARY_MUL, NULL, at, b, NULL);
    tl_tensor_impl *c1 = tl_op_contiguous(at, TL_FORMAT_CONTIGUOUS);
    tl_set_num_threads(4);
    tl_tensor_impl *r4 = tl_op_binary(TL_BINARY_MUL, NULL, at, b, NULL);
    tl_tensor_impl *c4 = tl_op_contiguous(at, TL_FORMAT_CONTIGUOUS);
    CHECK(memcmp(tl_tensor_data(r1), tl_tensor_data(r4), 4 * 210000) == 0);
    CHECK(memcmp(tl_tensor_data(c1), tl_tensor_data(c4), 4 * 210000) == 0);
    int64_t idx[] = {699, 299};
    CHECK(at_f32(c4, idx) == at_f32(at, idx));
    tl_tensor_decref(r1);
    tl_tensor_decref(r4);
    tl_tensor_decref(c1);
    tl_tensor_decref(c4);
    tl_tensor_decref(b);
    CHECK_EQ_I64(tl_tensor_refcount(at), 1);
    CHECK_EQ_I64(tl_block_refcount(tl_storage_block(tl_tensor_storage(a))),
                 1);
    tl_tensor_decref(at);
    tl_tensor_decref(a);
}

static void *token_seen;
static int releases, reacquires;
static void *hook_release(void)
{
    releases++;
    return &releases;
}
static void hook_reacquire(void *t)
{
    token_seen = t;
    reacquires++;
}

static void test_release_hooks(void)
{
    tl_parallel_set_release_hooks(hook_release, hook_reacquire);
    int64_t small[] = {100}, big[] = {1 << 16};
    tl_tensor_impl *a = arange_f32(1, small), *b = arange_f32(1, big);
    tl_tensor_decref(tl_op_unary(TL_UNARY_NEG, NULL, a));
    CHECK_EQ_I64(releases, 0);
    tl_tensor_decref(tl_op_unary(TL_UNARY_NEG, NULL, b));
    CHECK_EQ_I64(releases, 1);
    CHECK_EQ_I64(reacquires, 1);
    CHECK(token_seen == &releases);
    tl_parallel_set_release_hooks(NULL, NULL);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

static void test_hooks_not_inside_build(void)
{
    /* x += x.flip(0) on a big x: the flipped input is copied inside the
     * build (no hooks there), then one loop runs with the hooks. */
    int64_t s[] = {1 << 16}, neg[] = {-1};
    tl_tensor_impl *x = arange_f32(1, s);
    tl_tensor_impl *f = tl_tensor_as_strided(x, 1, s, neg, (1 << 16) - 1);
    releases = reacquires = 0;
    tl_parallel_set_release_hooks(hook_release, hook_reacquire);
    tl_tensor_impl *r = tl_op_binary(TL_BINARY_ADD, x, x, f, NULL);
    tl_parallel_set_release_hooks(NULL, NULL);
    CHECK_EQ_I64(releases, 1);
    CHECK_EQ_I64(reacquires, 1);
    const float *p = tl_tensor_data(x);
    int bad = 0;
    for (int i = 0; i < (1 << 16); i++) {
        bad += p[i] != (float)((1 << 16) - 1);
    }
    CHECK_EQ_I64(bad, 0);
    tl_tensor_decref(r);
    tl_tensor_decref(f);
    tl_tensor_decref(x);
}

static void test_threaded_buffered_cast(void)
{
    /* int32 (every other element of a strided view) * float64 -> float64
     * through the conversion buffers, on 1 and 3 threads. */
    int64_t bs[] = {1 << 18};
    tl_tensor_impl *base = empty(1, bs, TL_DTYPE_INT32);
    int32_t *bp = tl_tensor_data(base);
    for (int i = 0; i < (1 << 18); i++) {
        bp[i] = i - 1000;
    }
    int64_t vs[] = {1 << 17}, two[] = {2};
    tl_tensor_impl *v = tl_tensor_as_strided(base, 1, vs, two, 1);
    tl_tensor_impl *d = empty(1, vs, TL_DTYPE_FLOAT64);
    double *dp = tl_tensor_data(d);
    for (int i = 0; i < (1 << 17); i++) {
        dp[i] = 0.25 * (i % 7);
    }
    for (int nt = 1; nt <= 3; nt += 2) {
        tl_set_num_threads(nt);
        tl_tensor_impl *r = tl_op_binary(TL_BINARY_MUL, NULL, v, d, NULL);
        CHECK(tl_tensor_dtype(r) == TL_DTYPE_FLOAT64);
        const double *rp = tl_tensor_data(r);
        int bad = 0;
        for (int i = 0; i < (1 << 17); i++) {
            bad += rp[i] != (double)(2 * i + 1 - 1000) * (0.25 * (i % 7));
        }
        CHECK_EQ_I64(bad, 0);
        /* and into a float16 out (cast on write) */
        tl_tensor_impl *h = empty(1, vs, TL_DTYPE_FLOAT16);
        tl_tensor_impl *r2 = tl_op_binary(TL_BINARY_MUL, h, v, d, NULL);
        CHECK(r2 == h);
        const uint16_t *hp = tl_tensor_data(h);
        bad = 0;
        for (int i = 0; i < (1 << 17); i++) {
            bad += hp[i] != tl_half_from_double(rp[i]);
        }
        CHECK_EQ_I64(bad, 0);
        tl_tensor_decref(r2);
        tl_tensor_decref(h);
        tl_tensor_decref(r);
    }
    tl_tensor_decref(d);
    tl_tensor_decref(v);
    tl_tensor_decref(base);
}

static void test_resize_exported(void)
{
    int64_t s[] = {2, 3}, zero[] = {0};
    tl_tensor_impl *a = arange_f32(2, s);
    tl_tensor_impl *out = empty(1, zero, TL_DTYPE_FLOAT32);
    tl_storage_export_begin(tl_tensor_storage(out));
    CHECK(tl_op_binary(TL_BINARY_ADD, out, a, a, NULL) == NULL);
    CHECK(tl_error_kind() == TL_ERR_BUFFER);
    CHECK_EQ_I64(tl_tensor_ndim(out), 1); /* unchanged */
    tl_storage_export_end(tl_tensor_storage(out));
    tl_tensor_impl *r = tl_op_binary(TL_BINARY_ADD, out, a, a, NULL);
    CHECK(r == out && tl_tensor_numel(out) == 6);
    tl_tensor_decref(r);
    tl_tensor_decref(out);
    tl_tensor_decref(a);
}

static void test_fork(void)
{
    /* Use the pool, fork, and use it again in the child. */
    tl_set_num_threads(3);
    memset(covered, 0, sizeof covered);
    tl_parallel_for(1 << 16, 10, mark_range, NULL);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        memset(covered, 0, sizeof covered);
        tl_parallel_for(1 << 16, 10, mark_range, NULL);
        int bad = 0;
        for (int i = 0; i < (1 << 16); i++) {
            bad += covered[i] != 1;
        }
        int64_t s[] = {1 << 17};
        tl_tensor_impl *a = arange_f32(1, s);
        tl_tensor_impl *r = tl_op_binary(TL_BINARY_ADD, NULL, a, a, NULL);
        bad += ((float *)tl_tensor_data(r))[(1 << 17) - 1] !=
               2.0f * (float)((1 << 17) - 1);
        tl_tensor_decref(r);
        tl_tensor_decref(a);
        _exit(bad ? 1 : 0);
    }
    int status = 0;
    CHECK(pid > 0);
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    memset(covered, 0, sizeof covered);
    tl_parallel_for(1 << 16, 10, mark_range, NULL);
    CHECK_EQ_I64(covered[(1 << 16) - 1], 1);
}

/* ---- buffering ---------------------------------------------------------- */

static void test_unaligned_and_cast(void)
{
    /* float32 data at an odd address: read through buffers. */
    char *raw = malloc(4 * 1000 + 1);
    tl_block *blk = tl_block_wrap(raw, 4 * 1000 + 1, tl_device_cpu(), false,
                                  NULL, NULL);
    tl_storage *st = tl_storage_from_block(blk, 1, 4000);
    int64_t s[] = {1000}, one[] = {1};
    tl_tensor_impl *u = tl_tensor_new(st, 0, 1, s, one, TL_DTYPE_FLOAT32);
    CHECK(!(tl_tensor_flags(u) & TL_FLAG_ALIGNED));
    for (int i = 0; i < 1000; i++) {
        float f = (float)i * 0.5f;
        memcpy(raw + 1 + 4 * i, &f, 4);
    }
    tl_tensor_impl *r = tl_op_binary(TL_BINARY_MUL, NULL, u, u, NULL);
    const float *p = tl_tensor_data(r);
    int bad = 0;
    for (int i = 0; i < 1000; i++) {
        bad += p[i] != (float)i * 0.5f * ((float)i * 0.5f);
    }
    CHECK_EQ_I64(bad, 0);
    /* And written: u = u + 1 in place. */
    tl_scalar one_s = tl_scalar_int(1);
    tl_tensor_impl *w = tl_scalar_to_tensor(&one_s);
    tl_tensor_impl *r2 = tl_op_binary(TL_BINARY_ADD, u, u, w, NULL);
    CHECK(r2 == u);
    float f;
    memcpy(&f, raw + 1 + 4 * 999, 4);
    CHECK(f == 999 * 0.5f + 1.0f);
    tl_tensor_decref(r2);
    tl_tensor_decref(w);
    tl_tensor_decref(r);
    tl_tensor_decref(u);
    tl_storage_decref(st);
    tl_block_decref(blk);
    free(raw);

    /* Mixed dtypes: int32 tensor * float64 0-dim tensor -> int32 (the
     * 0-dim tensor is of a lower priority), int32 * float32 -> float32. */
    int64_t n[] = {5};
    tl_tensor_impl *i32 = empty(1, n, TL_DTYPE_INT32);
    for (int i = 0; i < 5; i++) {
        ((int32_t *)tl_tensor_data(i32))[i] = i - 2;
    }
    tl_tensor_impl *f32 = arange_f32(1, n);
    tl_tensor_impl *m = tl_op_binary(TL_BINARY_MUL, NULL, i32, f32, NULL);
    CHECK(tl_tensor_dtype(m) == TL_DTYPE_FLOAT32);
    CHECK(((float *)tl_tensor_data(m))[4] == 8.0f);
    tl_tensor_decref(m);
    tl_tensor_decref(f32);
    tl_tensor_decref(i32);
}

int main(void)
{
    RUN(test_infer_size);
    RUN(test_broadcast_strides);
    RUN(test_reorder_transposed);
    RUN(test_reorder_channels_last);
    RUN(test_coalesce);
    RUN(test_overlap_detection);
    RUN(test_partial_overlap_copy);
    RUN(test_reduction_layout);
    RUN(test_reduction_buffered);
    RUN(test_out_resize);
    RUN(test_serial_ranges);
    RUN(test_parallel_for);
    RUN(test_task_ranges);
    RUN(test_cold_pool);
    RUN(test_threads_equal);
    RUN(test_release_hooks);
    RUN(test_hooks_not_inside_build);
    RUN(test_threaded_buffered_cast);
    RUN(test_resize_exported);
    RUN(test_fork);
    RUN(test_unaligned_and_cast);
    DONE();
}
