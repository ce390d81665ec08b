/* csrc/core/blas.h — internal: the few BLAS and LAPACK routines tensorlib
 * calls, from scipy-openblas64 (the ILP64 OpenBLAS that NumPy's wheels
 * bundle a private copy of), and the thread-count link between tensorlib
 * and that library.  Only csrc/core/matmul.c and csrc/core/linalg.c
 * include it; nothing outside core sees these names.
 *
 * Note [OpenBLAS symbols]
 * Every symbol of libscipy_openblas64_ carries the prefix `scipy_` and the
 * suffix `64_` (scipy_cblas_sgemm64_, scipy_LAPACKE_dgesv64_,
 * scipy_openblas_set_num_threads64_): checked with `nm -D`.  The prototypes
 * are declared here rather than taken from the package's cblas.h/lapacke.h
 * so that the core builds without those headers' complex-type and
 * name-mangling configuration: integers are int64_t (ILP64), complex
 * arrays are void * (interleaved re, im pairs, as C99 complex and
 * tensorlib's complex64/complex128 lay them out), LAPACKE's layout is
 * always column major (we hand LAPACK Fortran-ordered copies) and its
 * jobs are chars.  The library is linked by name (-lscipy_openblas64_);
 * the Python package imports scipy_openblas64 first, which loads it with
 * RTLD_GLOBAL, so no rpath into the build environment is needed. */
#ifndef TENSORLIB_CSRC_CORE_BLAS_H
#define TENSORLIB_CSRC_CORE_BLAS_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/blas.h is internal to tensorlib"
#endif

#include <stdint.h>

#define TL_CBLAS(name) scipy_cblas_##name##64_
#define TL_LAPACKE(name) scipy_LAPACKE_##name##64_

enum { TL_CBLAS_ROW_MAJOR = 101, TL_CBLAS_COL_MAJOR = 102 };
enum { TL_CBLAS_NO_TRANS = 111, TL_CBLAS_TRANS = 112,
       TL_CBLAS_CONJ_TRANS = 113 };
#define TL_LAPACK_COL_MAJOR 102

/* ---- BLAS ---------------------------------------------------------------- */

void scipy_openblas_set_num_threads64_(int num_threads);
int scipy_openblas_get_num_threads64_(void);

void TL_CBLAS(sgemm)(int order, int ta, int tb, int64_t m, int64_t n,
                     int64_t k, float alpha, const float *a, int64_t lda,
                     const float *b, int64_t ldb, float beta, float *c,
                     int64_t ldc);
void TL_CBLAS(dgemm)(int order, int ta, int tb, int64_t m, int64_t n,
                     int64_t k, double alpha, const double *a, int64_t lda,
                     const double *b, int64_t ldb, double beta, double *c,
                     int64_t ldc);
void TL_CBLAS(cgemm)(int order, int ta, int tb, int64_t m, int64_t n,
                     int64_t k, const void *alpha, const void *a,
                     int64_t lda, const void *b, int64_t ldb,
                     const void *beta, void *c, int64_t ldc);
void TL_CBLAS(zgemm)(int order, int ta, int tb, int64_t m, int64_t n,
                     int64_t k, const void *alpha, const void *a,
                     int64_t lda, const void *b, int64_t ldb,
                     const void *beta, void *c, int64_t ldc);
void TL_CBLAS(sgemv)(int order, int ta, int64_t m, int64_t n, float alpha,
                     const float *a, int64_t lda, const float *x,
                     int64_t incx, float beta, float *y, int64_t incy);
void TL_CBLAS(dgemv)(int order, int ta, int64_t m, int64_t n, double alpha,
                     const double *a, int64_t lda, const double *x,
                     int64_t incx, double beta, double *y, int64_t incy);
void TL_CBLAS(cgemv)(int order, int ta, int64_t m, int64_t n,
                     const void *alpha, const void *a, int64_t lda,
                     const void *x, int64_t incx, const void *beta, void *y,
                     int64_t incy);
void TL_CBLAS(zgemv)(int order, int ta, int64_t m, int64_t n,
                     const void *alpha, const void *a, int64_t lda,
                     const void *x, int64_t incx, const void *beta, void *y,
                     int64_t incy);

/* ---- LAPACKE (column major only) ---------------------------------------- */

void TL_LAPACKE(set_nancheck)(int flag);

/* One declaration per precision: T is the element type (void for
 * complex), R the real type of the precision. */
#define TL_LAPACKE_DECLS(p, T, R)                                           \
    int64_t TL_LAPACKE(p##getrf)(int lay, int64_t m, int64_t n, T *a,       \
                                 int64_t lda, int64_t *ipiv);               \
    int64_t TL_LAPACKE(p##getrs)(int lay, char trans, int64_t n,            \
                                 int64_t nrhs, const T *a, int64_t lda,     \
                                 const int64_t *ipiv, T *b, int64_t ldb);   \
    int64_t TL_LAPACKE(p##getri)(int lay, int64_t n, T *a, int64_t lda,     \
                                 const int64_t *ipiv);                      \
    int64_t TL_LAPACKE(p##potrf)(int lay, char uplo, int64_t n, T *a,       \
                                 int64_t lda);                              \
    int64_t TL_LAPACKE(p##geqrf)(int lay, int64_t m, int64_t n, T *a,       \
                                 int64_t lda, T *tau);                      \
    int64_t TL_LAPACKE(p##gesdd)(int lay, char jobz, int64_t m, int64_t n,  \
                                 T *a, int64_t lda, R *s, T *u,             \
                                 int64_t ldu, T *vt, int64_t ldvt);         \
    int64_t TL_LAPACKE(p##gelsd)(int lay, int64_t m, int64_t n,             \
                                 int64_t nrhs, T *a, int64_t lda, T *b,     \
                                 int64_t ldb, R *s, R rcond,                \
                                 int64_t *rank);                            \
    int64_t TL_LAPACKE(p##trtrs)(int lay, char uplo, char trans,            \
                                 char diag, int64_t n, int64_t nrhs,        \
                                 const T *a, int64_t lda, T *b,             \
                                 int64_t ldb);

TL_LAPACKE_DECLS(s, float, float)
TL_LAPACKE_DECLS(d, double, double)
TL_LAPACKE_DECLS(c, void, float)
TL_LAPACKE_DECLS(z, void, double)

int64_t TL_LAPACKE(sorgqr)(int lay, int64_t m, int64_t n, int64_t k,
                           float *a, int64_t lda, const float *tau);
int64_t TL_LAPACKE(dorgqr)(int lay, int64_t m, int64_t n, int64_t k,
                           double *a, int64_t lda, const double *tau);
int64_t TL_LAPACKE(cungqr)(int lay, int64_t m, int64_t n, int64_t k,
                           void *a, int64_t lda, const void *tau);
int64_t TL_LAPACKE(zungqr)(int lay, int64_t m, int64_t n, int64_t k,
                           void *a, int64_t lda, const void *tau);
int64_t TL_LAPACKE(ssyevd)(int lay, char jobz, char uplo, int64_t n,
                           float *a, int64_t lda, float *w);
int64_t TL_LAPACKE(dsyevd)(int lay, char jobz, char uplo, int64_t n,
                           double *a, int64_t lda, double *w);
int64_t TL_LAPACKE(cheevd)(int lay, char jobz, char uplo, int64_t n,
                           void *a, int64_t lda, float *w);
int64_t TL_LAPACKE(zheevd)(int lay, char jobz, char uplo, int64_t n,
                           void *a, int64_t lda, double *w);
int64_t TL_LAPACKE(sgeev)(int lay, char jobvl, char jobvr, int64_t n,
                          float *a, int64_t lda, float *wr, float *wi,
                          float *vl, int64_t ldvl, float *vr, int64_t ldvr);
int64_t TL_LAPACKE(dgeev)(int lay, char jobvl, char jobvr, int64_t n,
                          double *a, int64_t lda, double *wr, double *wi,
                          double *vl, int64_t ldvl, double *vr,
                          int64_t ldvr);
int64_t TL_LAPACKE(cgeev)(int lay, char jobvl, char jobvr, int64_t n,
                          void *a, int64_t lda, void *w, void *vl,
                          int64_t ldvl, void *vr, int64_t ldvr);
int64_t TL_LAPACKE(zgeev)(int lay, char jobvl, char jobvr, int64_t n,
                          void *a, int64_t lda, void *w, void *vl,
                          int64_t ldvl, void *vr, int64_t ldvr);

/* Makes OpenBLAS's thread count equal tl_get_num_threads() (Note [BLAS
 * threads] in matmul.c).  Cheap when nothing changed: call it before every
 * BLAS or LAPACK call. */
void tl_blas_sync_threads(void);

#endif /* TENSORLIB_CSRC_CORE_BLAS_H */
