/* csrc/core/linalg.c — the batched LAPACK drivers of tensorlib/linalg.h:
 * each checks its tensors (dtype, column-major layout, batch sizes), then
 * walks the batch calling one LAPACKE routine per matrix and records
 * LAPACK's info per batch element.  It decides nothing about what a
 * failure means: the Python layer turns info into LinAlgError naming the
 * batch element.  Also the conj copy the Python layer needs. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tensorlib/linalg.h"
#include "../alloc/fault.h"
#include "tensorlib/ops.h"
#include "tensorlib/view.h"
#include "blas.h"
#include "shape.h"
#include "tensor_impl.h"

/* ---- layout checks ------------------------------------------------------ */

/* One batch of column-major matrices. */
typedef struct fmat {
    char *data;
    int dt;
    int nb;                       /* batch dims */
    const int64_t *bsizes, *bstrides;
    int64_t nbatch, rows, cols, ld;
} fmat;

static bool lapack_dtype(int dt)
{
    return dt == TL_DTYPE_FLOAT32 || dt == TL_DTYPE_FLOAT64 ||
           dt == TL_DTYPE_COMPLEX64 || dt == TL_DTYPE_COMPLEX128;
}

static int real_of(int dt)
{
    return dt == TL_DTYPE_COMPLEX64 ? TL_DTYPE_FLOAT32
           : dt == TL_DTYPE_COMPLEX128 ? TL_DTYPE_FLOAT64 : dt;
}

static int fmat_init(const char *op, const char *what, tl_tensor_impl *t,
                     fmat *f)
{
    if (!t || t->ndim < 2) {
        return tl_error(TL_ERR_SHAPE, "%s: %s must have at least 2 dims",
                        op, what);
    }
    if (t->device.type != TL_DEVICE_CPU) {
        return tl_error(TL_ERR_NOT_IMPLEMENTED,
                        "%s: tensors on CUDA are not supported yet", op);
    }
    if (!lapack_dtype(t->dtype)) {
        return tl_error(TL_ERR_TYPE,
                        "%s: %s must be float32, float64, complex64 or "
                        "complex128, got %s", op, what,
                        tl_dtype_table[t->dtype].name);
    }
    int nd = t->ndim;
    f->data = tl_impl_data(t);
    f->dt = t->dtype;
    f->nb = nd - 2;
    f->bsizes = t->sizes;
    f->bstrides = t->strides;
    f->rows = t->sizes[nd - 2];
    f->cols = t->sizes[nd - 1];
    f->nbatch = 1;
    for (int d = 0; d < nd - 2; d++) {
        f->nbatch *= t->sizes[d];
    }
    int64_t r1 = f->rows > 1 ? f->rows : 1;
    f->ld = f->cols <= 1 ? r1 : t->strides[nd - 1];
    if ((f->rows > 1 && t->strides[nd - 2] != 1) || f->ld < r1) {
        return tl_error(TL_ERR_VALUE,
                        "%s: %s must be column major (strides %s for sizes "
                        "%s)", op, what,
                        tl_fmt_list(0, nd, t->strides),
                        tl_fmt_list(1, nd, t->sizes));
    }
    return tl_tensor_check_writable(t);
}

static char *fmat_at(const fmat *f, int64_t idx)
{
    int64_t off = 0;
    for (int d = f->nb - 1; d >= 0 && idx > 0; d--) {
        off += (idx % f->bsizes[d]) * f->bstrides[d];
        idx /= f->bsizes[d];
    }
    return f->data + off * tl_itemsize(f->dt);
}

/* A contiguous companion tensor: dtype dt, batch count nbatch, per
 * elements per batch element.  Returns: its data, or NULL (error set). */
static char *side(const char *op, const char *what, tl_tensor_impl *t,
                  int dt, int64_t nbatch, int64_t per)
{
    if (!t) {
        tl_error(TL_ERR_VALUE, "%s: %s is missing", op, what);
        return NULL;
    }
    if (t->dtype != dt) {
        tl_error(TL_ERR_TYPE, "%s: %s must be %s, got %s", op, what,
                 tl_dtype_table[dt].name, tl_dtype_table[t->dtype].name);
        return NULL;
    }
    if (!tl_tensor_is_contiguous(t, TL_FORMAT_CONTIGUOUS) ||
        t->numel != nbatch * per) {
        tl_error(TL_ERR_SHAPE,
                 "%s: %s must be contiguous with %" PRId64 " elements (%"
                 PRId64 " per matrix), got shape %s", op, what,
                 nbatch * per, per, tl_fmt_list(0, t->ndim, t->sizes));
        return NULL;
    }
    if (tl_tensor_check_writable(t) < 0) {
        return NULL;
    }
    return tl_impl_data(t);
}

static int same_batch(const char *op, const fmat *a, const fmat *b)
{
    if (a->nb != b->nb ||
        memcmp(a->bsizes, b->bsizes, sizeof(int64_t) * (size_t)a->nb)) {
        return tl_error(TL_ERR_SHAPE, "%s: batch sizes %s and %s differ", op,
                        tl_fmt_list(0, a->nb, a->bsizes),
                        tl_fmt_list(1, b->nb, b->bsizes));
    }
    return 0;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

#define DISPATCH4(dt, s_call, d_call, c_call, z_call)                       \
    ((dt) == TL_DTYPE_FLOAT32 ? (s_call)                                    \
     : (dt) == TL_DTYPE_FLOAT64 ? (d_call)                                  \
     : (dt) == TL_DTYPE_COMPLEX64 ? (c_call) : (z_call))

/* ---- drivers ------------------------------------------------------------ */

tl_tensor_impl *tl_lapack_fortran_copy(tl_tensor_impl *a, tl_dtype dt)
{
    int nd = a->ndim;
    if (nd < 2) {
        tl_error(TL_ERR_SHAPE, "expected a tensor of at least 2 dims, got "
                 "shape %s", tl_fmt_list(0, nd, a->sizes));
        return NULL;
    }
    int64_t sz[TL_MAX_DIMS], st[TL_MAX_DIMS];
    memcpy(sz, a->sizes, sizeof(int64_t) * (size_t)nd);
    int64_t s = 1;
    st[nd - 2] = 1;
    st[nd - 1] = max64(sz[nd - 2], 1);
    s = sz[nd - 2] * sz[nd - 1];
    for (int d = nd - 3; d >= 0; d--) {
        st[d] = max64(s, 1);
        s *= sz[d];
    }
    tl_tensor_impl *r = tl_tensor_empty_strided(nd, sz, st, dt, a->device,
                                                TL_MEMKIND_DEFAULT);
    if (!r) {
        return NULL;
    }
    if (tl_copy_unchecked(r, a) < 0) {
        tl_tensor_decref(r);
        return NULL;
    }
    return r;
}

#define INFO(nbatch)                                                        \
    int64_t *inf = (int64_t *)side(op, "info", info, TL_DTYPE_INT64,        \
                                   nbatch, 1);                              \
    if (!inf) {                                                             \
        return tl_error_kind();                                             \
    }

/* LAPACK's info for batch element i.  A negative info is an argument
 * LAPACKE refused; our arguments are valid by construction, so it is
 * LAPACKE's NaN check: recorded like a failure, for the caller to report
 * (the matrix is left as it was). */
#define FINISH_ONE(i, r)                                                    \
    do {                                                                    \
        inf[i] = (r);                                                       \
    } while (0)

int tl_lapack_getrf(tl_tensor_impl *a, tl_tensor_impl *ipiv,
                    tl_tensor_impl *info)
{
    const char *op = "lu_factor";
    fmat f;
    if (fmat_init(op, "A", a, &f) < 0) {
        return tl_error_kind();
    }
    int64_t k = min64(f.rows, f.cols);
    int64_t *piv = (int64_t *)side(op, "pivots", ipiv, TL_DTYPE_INT64,
                                   f.nbatch, k);
    if (!piv) {
        return tl_error_kind();
    }
    INFO(f.nbatch)
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i);
        int64_t *P = piv + i * k;
        int64_t r = 0;
        if (k > 0) {
            r = DISPATCH4(f.dt,
                TL_LAPACKE(sgetrf)(TL_LAPACK_COL_MAJOR, f.rows, f.cols,
                                   (float *)A, f.ld, P),
                TL_LAPACKE(dgetrf)(TL_LAPACK_COL_MAJOR, f.rows, f.cols,
                                   (double *)A, f.ld, P),
                TL_LAPACKE(cgetrf)(TL_LAPACK_COL_MAJOR, f.rows, f.cols, A,
                                   f.ld, P),
                TL_LAPACKE(zgetrf)(TL_LAPACK_COL_MAJOR, f.rows, f.cols, A,
                                   f.ld, P));
        }
        FINISH_ONE(i, r);
    }
    return 0;
}

int tl_lapack_getrs(tl_tensor_impl *lu, tl_tensor_impl *ipiv,
                    tl_tensor_impl *b, char trans, tl_tensor_impl *info)
{
    const char *op = "lu_solve";
    fmat f, g;
    if (fmat_init(op, "LU", lu, &f) < 0 || fmat_init(op, "B", b, &g) < 0 ||
        same_batch(op, &f, &g) < 0) {
        return tl_error_kind();
    }
    if (f.rows != f.cols || g.rows != f.rows || g.dt != f.dt) {
        return tl_error(TL_ERR_SHAPE,
                        "%s: LU must be square and B have as many rows, of "
                        "one dtype (LU %" PRId64 "x%" PRId64 ", B %" PRId64
                        "x%" PRId64 ")", op, f.rows, f.cols, g.rows, g.cols);
    }
    int64_t *piv = (int64_t *)side(op, "pivots", ipiv, TL_DTYPE_INT64,
                                   f.nbatch, f.rows);
    if (!piv) {
        return tl_error_kind();
    }
    INFO(f.nbatch)
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i), *B = fmat_at(&g, i);
        int64_t *P = piv + i * f.rows;
        int64_t r = 0;
        if (f.rows > 0 && g.cols > 0) {
            r = DISPATCH4(f.dt,
                TL_LAPACKE(sgetrs)(TL_LAPACK_COL_MAJOR, trans, f.rows,
                                   g.cols, (float *)A, f.ld, P, (float *)B,
                                   g.ld),
                TL_LAPACKE(dgetrs)(TL_LAPACK_COL_MAJOR, trans, f.rows,
                                   g.cols, (double *)A, f.ld, P,
                                   (double *)B, g.ld),
                TL_LAPACKE(cgetrs)(TL_LAPACK_COL_MAJOR, trans, f.rows,
                                   g.cols, A, f.ld, P, B, g.ld),
                TL_LAPACKE(zgetrs)(TL_LAPACK_COL_MAJOR, trans, f.rows,
                                   g.cols, A, f.ld, P, B, g.ld));
        }
        FINISH_ONE(i, r);
    }
    return 0;
}

int tl_lapack_getri(tl_tensor_impl *lu, tl_tensor_impl *ipiv,
                    tl_tensor_impl *info)
{
    const char *op = "inv";
    fmat f;
    if (fmat_init(op, "LU", lu, &f) < 0) {
        return tl_error_kind();
    }
    if (f.rows != f.cols) {
        return tl_error(TL_ERR_SHAPE, "%s: LU must be square", op);
    }
    int64_t *piv = (int64_t *)side(op, "pivots", ipiv, TL_DTYPE_INT64,
                                   f.nbatch, f.rows);
    if (!piv) {
        return tl_error_kind();
    }
    INFO(f.nbatch)
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i);
        int64_t *P = piv + i * f.rows;
        int64_t r = 0;
        if (f.rows > 0) {
            r = DISPATCH4(f.dt,
                TL_LAPACKE(sgetri)(TL_LAPACK_COL_MAJOR, f.rows, (float *)A,
                                   f.ld, P),
                TL_LAPACKE(dgetri)(TL_LAPACK_COL_MAJOR, f.rows, (double *)A,
                                   f.ld, P),
                TL_LAPACKE(cgetri)(TL_LAPACK_COL_MAJOR, f.rows, A, f.ld, P),
                TL_LAPACKE(zgetri)(TL_LAPACK_COL_MAJOR, f.rows, A, f.ld, P));
        }
        FINISH_ONE(i, r);
    }
    return 0;
}

int tl_lapack_potrf(tl_tensor_impl *a, bool upper, tl_tensor_impl *info)
{
    const char *op = "cholesky";
    fmat f;
    if (fmat_init(op, "A", a, &f) < 0) {
        return tl_error_kind();
    }
    if (f.rows != f.cols) {
        return tl_error(TL_ERR_SHAPE, "%s: A must be square", op);
    }
    INFO(f.nbatch)
    char uplo = upper ? 'U' : 'L';
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i);
        int64_t r = 0;
        if (f.rows > 0) {
            r = DISPATCH4(f.dt,
                TL_LAPACKE(spotrf)(TL_LAPACK_COL_MAJOR, uplo, f.rows,
                                   (float *)A, f.ld),
                TL_LAPACKE(dpotrf)(TL_LAPACK_COL_MAJOR, uplo, f.rows,
                                   (double *)A, f.ld),
                TL_LAPACKE(cpotrf)(TL_LAPACK_COL_MAJOR, uplo, f.rows, A,
                                   f.ld),
                TL_LAPACKE(zpotrf)(TL_LAPACK_COL_MAJOR, uplo, f.rows, A,
                                   f.ld));
        }
        FINISH_ONE(i, r);
    }
    return 0;
}

int tl_lapack_geqrf(tl_tensor_impl *a, tl_tensor_impl *tau,
                    tl_tensor_impl *info)
{
    const char *op = "qr";
    fmat f;
    if (fmat_init(op, "A", a, &f) < 0) {
        return tl_error_kind();
    }
    int64_t k = min64(f.rows, f.cols), isz = tl_itemsize(f.dt);
    char *T = side(op, "tau", tau, f.dt, f.nbatch, k);
    if (!T) {
        return tl_error_kind();
    }
    INFO(f.nbatch)
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i), *Ti = T + i * k * isz;
        int64_t r = 0;
        if (k > 0) {
            r = DISPATCH4(f.dt,
                TL_LAPACKE(sgeqrf)(TL_LAPACK_COL_MAJOR, f.rows, f.cols,
                                   (float *)A, f.ld, (float *)Ti),
                TL_LAPACKE(dgeqrf)(TL_LAPACK_COL_MAJOR, f.rows, f.cols,
                                   (double *)A, f.ld, (double *)Ti),
                TL_LAPACKE(cgeqrf)(TL_LAPACK_COL_MAJOR, f.rows, f.cols, A,
                                   f.ld, Ti),
                TL_LAPACKE(zgeqrf)(TL_LAPACK_COL_MAJOR, f.rows, f.cols, A,
                                   f.ld, Ti));
        }
        FINISH_ONE(i, r);
    }
    return 0;
}

int tl_lapack_orgqr(tl_tensor_impl *a, tl_tensor_impl *tau,
                    tl_tensor_impl *info)
{
    const char *op = "qr";
    fmat f;
    if (fmat_init(op, "A", a, &f) < 0) {
        return tl_error_kind();
    }
    int64_t k = tau && tau->ndim > 0 ? tau->sizes[tau->ndim - 1] : 0;
    int64_t isz = tl_itemsize(f.dt);
    if (k > f.cols || f.cols > f.rows) {
        return tl_error(TL_ERR_SHAPE,
                        "%s: orgqr needs k <= n <= m (m %" PRId64 ", n %"
                        PRId64 ", k %" PRId64 ")", op, f.rows, f.cols, k);
    }
    char *T = side(op, "tau", tau, f.dt, f.nbatch, k);
    if (!T) {
        return tl_error_kind();
    }
    INFO(f.nbatch)
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i), *Ti = T + i * k * isz;
        int64_t r = 0;
        if (f.rows > 0 && f.cols > 0) {
            r = DISPATCH4(f.dt,
                TL_LAPACKE(sorgqr)(TL_LAPACK_COL_MAJOR, f.rows, f.cols, k,
                                   (float *)A, f.ld, (float *)Ti),
                TL_LAPACKE(dorgqr)(TL_LAPACK_COL_MAJOR, f.rows, f.cols, k,
                                   (double *)A, f.ld, (double *)Ti),
                TL_LAPACKE(cungqr)(TL_LAPACK_COL_MAJOR, f.rows, f.cols, k,
                                   A, f.ld, Ti),
                TL_LAPACKE(zungqr)(TL_LAPACK_COL_MAJOR, f.rows, f.cols, k,
                                   A, f.ld, Ti));
        }
        FINISH_ONE(i, r);
    }
    return 0;
}

int tl_lapack_syevd(tl_tensor_impl *a, tl_tensor_impl *w, bool upper,
                    bool vectors, tl_tensor_impl *info)
{
    const char *op = "eigh";
    fmat f;
    if (fmat_init(op, "A", a, &f) < 0) {
        return tl_error_kind();
    }
    if (f.rows != f.cols) {
        return tl_error(TL_ERR_SHAPE, "%s: A must be square", op);
    }
    int rdt = real_of(f.dt);
    int64_t n = f.rows, rsz = tl_itemsize(rdt);
    char *W = side(op, "eigenvalues", w, rdt, f.nbatch, n);
    if (!W) {
        return tl_error_kind();
    }
    INFO(f.nbatch)
    char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i), *Wi = W + i * n * rsz;
        int64_t r = 0;
        if (n > 0) {
            r = DISPATCH4(f.dt,
                TL_LAPACKE(ssyevd)(TL_LAPACK_COL_MAJOR, jobz, uplo, n,
                                   (float *)A, f.ld, (float *)Wi),
                TL_LAPACKE(dsyevd)(TL_LAPACK_COL_MAJOR, jobz, uplo, n,
                                   (double *)A, f.ld, (double *)Wi),
                TL_LAPACKE(cheevd)(TL_LAPACK_COL_MAJOR, jobz, uplo, n, A,
                                   f.ld, (float *)Wi),
                TL_LAPACKE(zheevd)(TL_LAPACK_COL_MAJOR, jobz, uplo, n, A,
                                   f.ld, (double *)Wi));
        }
        FINISH_ONE(i, r);
    }
    return 0;
}

int tl_lapack_gesdd(tl_tensor_impl *a, tl_tensor_impl *s, tl_tensor_impl *u,
                    tl_tensor_impl *vt, char jobz, tl_tensor_impl *info)
{
    const char *op = "svd";
    fmat f, fu, fv;
    if (fmat_init(op, "A", a, &f) < 0) {
        return tl_error_kind();
    }
    int64_t m = f.rows, n = f.cols, k = min64(m, n);
    int rdt = real_of(f.dt);
    int64_t rsz = tl_itemsize(rdt);
    if (jobz != 'N' && jobz != 'S' && jobz != 'A') {
        return tl_error(TL_ERR_VALUE, "%s: jobz must be N, S or A", op);
    }
    if (jobz != 'N') {
        int64_t ucols = jobz == 'A' ? m : k, vrows = jobz == 'A' ? n : k;
        if (fmat_init(op, "U", u, &fu) < 0 ||
            fmat_init(op, "Vh", vt, &fv) < 0 ||
            same_batch(op, &f, &fu) < 0 || same_batch(op, &f, &fv) < 0) {
            return tl_error_kind();
        }
        if (fu.rows != m || fu.cols != ucols || fv.rows != vrows ||
            fv.cols != n || fu.dt != f.dt || fv.dt != f.dt) {
            return tl_error(TL_ERR_SHAPE, "%s: U or Vh has the wrong shape "
                            "or dtype", op);
        }
    }
    char *S = side(op, "S", s, rdt, f.nbatch, k);
    if (!S) {
        return tl_error_kind();
    }
    INFO(f.nbatch)
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i), *Si = S + i * k * rsz;
        char *U = jobz == 'N' ? NULL : fmat_at(&fu, i);
        char *V = jobz == 'N' ? NULL : fmat_at(&fv, i);
        int64_t ldu = jobz == 'N' ? 1 : fu.ld, ldv = jobz == 'N' ? 1 : fv.ld;
        int64_t r = 0;
        if (k > 0) {
            r = DISPATCH4(f.dt,
                TL_LAPACKE(sgesdd)(TL_LAPACK_COL_MAJOR, jobz, m, n,
                                   (float *)A, f.ld, (float *)Si,
                                   (float *)U, ldu, (float *)V, ldv),
                TL_LAPACKE(dgesdd)(TL_LAPACK_COL_MAJOR, jobz, m, n,
                                   (double *)A, f.ld, (double *)Si,
                                   (double *)U, ldu, (double *)V, ldv),
                TL_LAPACKE(cgesdd)(TL_LAPACK_COL_MAJOR, jobz, m, n, A, f.ld,
                                   (float *)Si, U, ldu, V, ldv),
                TL_LAPACKE(zgesdd)(TL_LAPACK_COL_MAJOR, jobz, m, n, A, f.ld,
                                   (double *)Si, U, ldu, V, ldv));
        }
        FINISH_ONE(i, r);
    }
    return 0;
}

/* Note [Real geev]
 * For real input, LAPACK returns eigenvalues as (wr, wi) and a conjugate
 * pair's vectors as two real columns (re, im) for the first of the pair.
 * They are unpacked here into the complex w and v the caller asked for:
 * column j = re + i im, column j+1 = re - i im. */
#define REAL_GEEV(sfx, T, ROUTINE)                                          \
    static int64_t geev_##sfx(int64_t n, T *A, int64_t lda, T *w, T *v,     \
                              int64_t ldv, T *scratch)                      \
    {                                                                       \
        T *wr = scratch, *wi = scratch + n, *vr = scratch + 2 * n;          \
        int64_t r = ROUTINE(TL_LAPACK_COL_MAJOR, 'N', v ? 'V' : 'N', n, A,  \
                            lda, wr, wi, NULL, 1, v ? vr : NULL,            \
                            v ? n : 1);                                     \
        if (r != 0) {                                                       \
            return r;                                                       \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            w[2 * j] = wr[j];                                               \
            w[2 * j + 1] = wi[j];                                           \
        }                                                                   \
        if (!v) {                                                           \
            return 0;                                                       \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            T *col = v + 2 * j * ldv;                                       \
            if (wi[j] != 0 && j + 1 < n) {                                  \
                T *nxt = v + 2 * (j + 1) * ldv;                             \
                for (int64_t q = 0; q < n; q++) {                           \
                    T re = vr[j * n + q], im = vr[(j + 1) * n + q];         \
                    col[2 * q] = re;                                        \
                    col[2 * q + 1] = im;                                    \
                    nxt[2 * q] = re;                                        \
                    nxt[2 * q + 1] = -im;                                   \
                }                                                           \
                j++;                                                        \
            } else {                                                        \
                for (int64_t q = 0; q < n; q++) {                           \
                    col[2 * q] = vr[j * n + q];                             \
                    col[2 * q + 1] = 0;                                     \
                }                                                           \
            }                                                               \
        }                                                                   \
        return 0;                                                           \
    }
REAL_GEEV(s, float, TL_LAPACKE(sgeev))
REAL_GEEV(d, double, TL_LAPACKE(dgeev))

int tl_lapack_geev(tl_tensor_impl *a, tl_tensor_impl *w, tl_tensor_impl *v,
                   tl_tensor_impl *info)
{
    const char *op = "eig";
    fmat f, fv;
    if (fmat_init(op, "A", a, &f) < 0) {
        return tl_error_kind();
    }
    int64_t n = f.rows;
    if (f.rows != f.cols) {
        return tl_error(TL_ERR_SHAPE, "%s: A must be square", op);
    }
    int cdt = f.dt == TL_DTYPE_FLOAT32 ? TL_DTYPE_COMPLEX64
              : f.dt == TL_DTYPE_FLOAT64 ? TL_DTYPE_COMPLEX128 : f.dt;
    int64_t csz = tl_itemsize(cdt);
    if (v) {
        if (fmat_init(op, "V", v, &fv) < 0 || same_batch(op, &f, &fv) < 0) {
            return tl_error_kind();
        }
        if (fv.rows != n || fv.cols != n || fv.dt != cdt) {
            return tl_error(TL_ERR_SHAPE, "%s: V has the wrong shape or "
                            "dtype", op);
        }
    }
    char *W = side(op, "eigenvalues", w, cdt, f.nbatch, n);
    if (!W) {
        return tl_error_kind();
    }
    INFO(f.nbatch)
    void *scratch = NULL;
    if (f.dt == TL_DTYPE_FLOAT32 || f.dt == TL_DTYPE_FLOAT64) {
        /* wr, wi and the real vectors: LAPACK workspace, not tensor data */
        scratch = tl_fault_malloc((size_t)((2 * n + n * n + 1) *
                                  tl_itemsize(f.dt)));
        if (!scratch) {
            return tl_error(TL_ERR_MEMORY, "%s: out of memory", op);
        }
    }
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i), *Wi = W + i * n * csz;
        char *V = v ? fmat_at(&fv, i) : NULL;
        int64_t ldv = v ? fv.ld : 1;
        int64_t r = 0;
        if (n > 0) {
            r = DISPATCH4(f.dt,
                geev_s(n, (float *)A, f.ld, (float *)Wi, (float *)V, ldv,
                       scratch),
                geev_d(n, (double *)A, f.ld, (double *)Wi, (double *)V, ldv,
                       scratch),
                TL_LAPACKE(cgeev)(TL_LAPACK_COL_MAJOR, 'N', V ? 'V' : 'N', n,
                                  A, f.ld, Wi, NULL, 1, V, ldv),
                TL_LAPACKE(zgeev)(TL_LAPACK_COL_MAJOR, 'N', V ? 'V' : 'N', n,
                                  A, f.ld, Wi, NULL, 1, V, ldv));
        }
        inf[i] = r;
    }
    free(scratch);
    return 0;
}

int tl_lapack_gelsd(tl_tensor_impl *a, tl_tensor_impl *b, tl_tensor_impl *s,
                    tl_tensor_impl *rank, double rcond, tl_tensor_impl *info)
{
    const char *op = "lstsq";
    fmat f, g;
    if (fmat_init(op, "A", a, &f) < 0 || fmat_init(op, "B", b, &g) < 0 ||
        same_batch(op, &f, &g) < 0) {
        return tl_error_kind();
    }
    int64_t m = f.rows, n = f.cols, k = min64(m, n);
    if (g.rows != max64(m, n) || g.dt != f.dt) {
        return tl_error(TL_ERR_SHAPE, "%s: B must have max(m, n) = %" PRId64
                        " rows and A's dtype", op, max64(m, n));
    }
    int rdt = real_of(f.dt);
    int64_t rsz = tl_itemsize(rdt);
    char *S = side(op, "S", s, rdt, f.nbatch, k);
    int64_t *R = S ? (int64_t *)side(op, "rank", rank, TL_DTYPE_INT64,
                                     f.nbatch, 1) : NULL;
    if (!R) {
        return tl_error_kind();
    }
    INFO(f.nbatch)
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i), *B = fmat_at(&g, i), *Si = S + i * k * rsz;
        int64_t r = 0;
        R[i] = 0;
        if (k > 0 && g.cols > 0) {
            r = DISPATCH4(f.dt,
                TL_LAPACKE(sgelsd)(TL_LAPACK_COL_MAJOR, m, n, g.cols,
                                   (float *)A, f.ld, (float *)B, g.ld,
                                   (float *)Si, (float)rcond, R + i),
                TL_LAPACKE(dgelsd)(TL_LAPACK_COL_MAJOR, m, n, g.cols,
                                   (double *)A, f.ld, (double *)B, g.ld,
                                   (double *)Si, rcond, R + i),
                TL_LAPACKE(cgelsd)(TL_LAPACK_COL_MAJOR, m, n, g.cols, A,
                                   f.ld, B, g.ld, (float *)Si, (float)rcond,
                                   R + i),
                TL_LAPACKE(zgelsd)(TL_LAPACK_COL_MAJOR, m, n, g.cols, A,
                                   f.ld, B, g.ld, (double *)Si, rcond,
                                   R + i));
        } else if (k > 0) {
            memset(Si, 0, (size_t)(k * rsz));
        }
        FINISH_ONE(i, r);
    }
    return 0;
}

int tl_lapack_trtrs(tl_tensor_impl *a, tl_tensor_impl *b, bool upper,
                    char trans, bool unit, tl_tensor_impl *info)
{
    const char *op = "solve_triangular";
    fmat f, g;
    if (fmat_init(op, "A", a, &f) < 0 || fmat_init(op, "B", b, &g) < 0 ||
        same_batch(op, &f, &g) < 0) {
        return tl_error_kind();
    }
    if (f.rows != f.cols || g.rows != f.rows || g.dt != f.dt) {
        return tl_error(TL_ERR_SHAPE,
                        "%s: A must be square and B have as many rows, of "
                        "one dtype", op);
    }
    INFO(f.nbatch)
    char uplo = upper ? 'U' : 'L', diag = unit ? 'U' : 'N';
    tl_blas_sync_threads();
    for (int64_t i = 0; i < f.nbatch; i++) {
        char *A = fmat_at(&f, i), *B = fmat_at(&g, i);
        int64_t r = 0;
        if (f.rows > 0 && g.cols > 0) {
            r = DISPATCH4(f.dt,
                TL_LAPACKE(strtrs)(TL_LAPACK_COL_MAJOR, uplo, trans, diag,
                                   f.rows, g.cols, (float *)A, f.ld,
                                   (float *)B, g.ld),
                TL_LAPACKE(dtrtrs)(TL_LAPACK_COL_MAJOR, uplo, trans, diag,
                                   f.rows, g.cols, (double *)A, f.ld,
                                   (double *)B, g.ld),
                TL_LAPACKE(ctrtrs)(TL_LAPACK_COL_MAJOR, uplo, trans, diag,
                                   f.rows, g.cols, A, f.ld, B, g.ld),
                TL_LAPACKE(ztrtrs)(TL_LAPACK_COL_MAJOR, uplo, trans, diag,
                                   f.rows, g.cols, A, f.ld, B, g.ld));
        }
        FINISH_ONE(i, r);
    }
    return 0;
}

tl_tensor_impl *tl_linalg_conj(tl_tensor_impl *a)
{
    tl_tensor_impl *r = tl_op_clone(a, TL_FORMAT_CONTIGUOUS);
    if (!r || !tl_dtype_is_complex((tl_dtype)a->dtype)) {
        return r;
    }
    int64_t n = r->numel;
    if (a->dtype == TL_DTYPE_COMPLEX64) {
        float *p = (float *)tl_impl_data(r);
        for (int64_t i = 0; i < n; i++) {
            p[2 * i + 1] = -p[2 * i + 1];
        }
    } else {
        double *p = (double *)tl_impl_data(r);
        for (int64_t i = 0; i < n; i++) {
            p[2 * i + 1] = -p[2 * i + 1];
        }
    }
    return r;
}
