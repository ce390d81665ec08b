/* tests/c/test_linalg.c — matmul and the LAPACK drivers from C, through
 * libtensorlib (which links scipy-openblas64): values against naive loops,
 * transposed views without copies, integer wrap-around, refusals before
 * writes, per-matrix info, reference counts. */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "tensorlib/linalg.h"
#include "tensorlib/ops.h"
#include "tensorlib/tensorlib.h"
#include "tensorlib/view.h"

static tl_tensor_impl *empty(int nd, const int64_t *sizes, int dt)
{
    return tl_tensor_empty(nd, sizes, (tl_dtype)dt, tl_device_cpu(),
                           TL_MEMKIND_DEFAULT);
}

static tl_tensor_impl *filled_f64(int64_t r, int64_t c, unsigned seed)
{
    int64_t sz[2] = {r, c};
    tl_tensor_impl *t = empty(2, sz, TL_DTYPE_FLOAT64);
    double *p = tl_tensor_data(t);
    for (int64_t i = 0; i < r * c; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (double)(seed >> 16 & 0x7fff) / 32768.0 - 0.5;
    }
    return t;
}

static double at(tl_tensor_impl *t, int64_t i, int64_t j)
{
    const int64_t *st = tl_tensor_strides(t);
    return ((double *)tl_tensor_data(t))[i * st[0] + j * st[1]];
}

static void test_matmul_f64_and_transposed(void)
{
    for (int64_t n = 2; n <= 40; n += 19) {
        tl_tensor_impl *a = filled_f64(n, n + 1, 1), *b = filled_f64(n + 1,
                                                                   n, 2);
        tl_tensor_impl *bt = tl_view_transpose(b, 0, 1); /* (n, n+1) */
        tl_tensor_impl *c = tl_op_matmul(NULL, a, b);
        tl_tensor_impl *c2 = tl_op_matmul(NULL, bt, a); /* (n,n+1)@... */
        CHECK(c != NULL);
        CHECK(c2 == NULL);  /* (n, n+1) @ (n, n+1): shape error */
        CHECK(tl_error_kind() == TL_ERR_SHAPE);
        tl_tensor_impl *at_ = tl_view_transpose(a, 0, 1); /* (n+1, n) */
        tl_tensor_impl *c3 = tl_op_matmul(NULL, bt, at_); /* (B A)^T */
        double err = 0;
        for (int64_t i = 0; i < n; i++) {
            for (int64_t j = 0; j < n; j++) {
                double s = 0, s3 = 0;
                for (int64_t k = 0; k < n + 1; k++) {
                    s += at(a, i, k) * at(b, k, j);
                    s3 += at(b, k, i) * at(a, j, k);
                }
                err = fmax(err, fabs(s - at(c, i, j)));
                err = fmax(err, fabs(s3 - at(c3, i, j)));
            }
        }
        CHECK(err < 1e-12);
        CHECK_EQ_I64(tl_tensor_refcount(a), 2); /* a and its view */
        tl_tensor_decref(c);
        tl_tensor_decref(c3);
        tl_tensor_decref(at_);
        tl_tensor_decref(bt);
        tl_tensor_decref(a);
        tl_tensor_decref(b);
    }
}

static void test_matmul_int_wraps_and_refusals(void)
{
    int64_t sz[2] = {1, 2}, sz2[2] = {2, 1};
    tl_tensor_impl *a = empty(2, sz, TL_DTYPE_INT32);
    tl_tensor_impl *b = empty(2, sz2, TL_DTYPE_INT32);
    int32_t *pa = tl_tensor_data(a), *pb = tl_tensor_data(b);
    pa[0] = INT32_MAX;
    pa[1] = 1;
    pb[0] = 2;
    pb[1] = 2;
    tl_tensor_impl *c = tl_op_matmul(NULL, a, b);
    CHECK(c != NULL);
    /* 2 * INT32_MAX + 2 wraps to 0 */
    CHECK_EQ_I64(((int32_t *)tl_tensor_data(c))[0], 0);
    tl_tensor_impl *f = filled_f64(2, 1, 3);
    CHECK(tl_op_matmul(NULL, a, f) == NULL);
    CHECK(tl_error_kind() == TL_ERR_TYPE);
    tl_tensor_impl *out = empty(2, sz, TL_DTYPE_INT32);
    ((int32_t *)tl_tensor_data(out))[0] = 7;
    CHECK(tl_op_matmul(out, a, b) == NULL);   /* (1,1) into (1,2) */
    CHECK(tl_error_kind() == TL_ERR_SHAPE);
    CHECK_EQ_I64(((int32_t *)tl_tensor_data(out))[0], 7);
    tl_tensor_decref(out);
    tl_tensor_decref(f);
    tl_tensor_decref(c);
    tl_tensor_decref(a);
    tl_tensor_decref(b);
}

static void test_lapack_solve_and_info(void)
{
    int64_t n = 5, two[2] = {5, 5}, one = 1, pv = 5, bsz[2] = {5, 1};
    tl_tensor_impl *a = filled_f64(n, n, 4);
    double *pa = tl_tensor_data(a);
    for (int64_t i = 0; i < n; i++) {
        pa[i * n + i] += n;   /* well conditioned */
    }
    tl_tensor_impl *lu = tl_lapack_fortran_copy(a, TL_DTYPE_FLOAT64);
    tl_tensor_impl *piv = empty(1, &pv, TL_DTYPE_INT64);
    tl_tensor_impl *info = empty(1, &one, TL_DTYPE_INT64);
    CHECK(tl_lapack_getrf(lu, piv, info) == 0);
    CHECK_EQ_I64(((int64_t *)tl_tensor_data(info))[0], 0);
    tl_tensor_impl *rhs = empty(2, bsz, TL_DTYPE_FLOAT64);
    for (int64_t i = 0; i < n; i++) {
        ((double *)tl_tensor_data(rhs))[i] = (double)i;
    }
    tl_tensor_impl *x = tl_lapack_fortran_copy(rhs, TL_DTYPE_FLOAT64);
    CHECK(tl_lapack_getrs(lu, piv, x, 'N', info) == 0);
    tl_tensor_impl *ax = tl_op_matmul(NULL, a, x);
    double err = 0;
    for (int64_t i = 0; i < n; i++) {
        err = fmax(err, fabs(((double *)tl_tensor_data(ax))[i] - i));
    }
    CHECK(err < 1e-12);
    /* not positive definite: info > 0, no error */
    tl_tensor_impl *neg = empty(2, two, TL_DTYPE_FLOAT64);
    for (int64_t i = 0; i < n * n; i++) {
        ((double *)tl_tensor_data(neg))[i] = i % (n + 1) ? 0.0 : -1.0;
    }
    tl_tensor_impl *negf = tl_lapack_fortran_copy(neg, TL_DTYPE_FLOAT64);
    CHECK(tl_lapack_potrf(negf, false, info) == 0);
    CHECK_EQ_I64(((int64_t *)tl_tensor_data(info))[0], 1);
    /* a row-major tensor is refused before anything is written */
    CHECK(tl_lapack_potrf(neg, false, info) < 0);
    CHECK(tl_error_kind() == TL_ERR_VALUE);
    CHECK(tl_blas_get_num_threads() >= 1);
    tl_tensor_decref(negf);
    tl_tensor_decref(neg);
    tl_tensor_decref(ax);
    tl_tensor_decref(x);
    tl_tensor_decref(rhs);
    tl_tensor_decref(info);
    tl_tensor_decref(piv);
    tl_tensor_decref(lu);
    tl_tensor_decref(a);
}

int main(void)
{
    RUN(test_matmul_f64_and_transposed);
    RUN(test_matmul_int_wraps_and_refusals);
    RUN(test_lapack_solve_and_info);
    DONE();
}
