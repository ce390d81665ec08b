/* csrc/core/matmul.c — matrix products: tl_op_matmul with NumPy's and
 * PyTorch's rules (1-D operands, broadcast batch dimensions), run through
 * OpenBLAS for float32/float64/complex64/complex128, through float32 for
 * float16/bfloat16, and through a packed kernel of our own for the
 * integers and bool (exact, wrapping).  Also owns the link between
 * tensorlib's thread count and OpenBLAS's (Note [BLAS threads]).  It never
 * writes an operand before every check has passed. */
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>

#include "tensorlib/alloc.h"
#include "tensorlib/linalg.h"
#include "tensorlib/ops.h"
#include "tensorlib/view.h"
#include "blas.h"
#include "iter_impl.h"
#include "parallel.h"
#include "shape.h"
#include "tensor_impl.h"

/* Note [BLAS threads]
 * OpenBLAS keeps its own pool.  tensorlib's pool and OpenBLAS's never run
 * at once (a BLAS call is made from the calling thread, outside any
 * tensorlib parallel loop), so the one rule that prevents oversubscription
 * is that OpenBLAS uses tl_get_num_threads() threads.  Rather than a hook
 * inside tl_set_num_threads, every BLAS/LAPACK call first compares the
 * count OpenBLAS was last given with tl_get_num_threads() (one relaxed
 * atomic load) and tells OpenBLAS when it differs; so the default (the
 * affinity core count) and every later set_num_threads reach OpenBLAS
 * before its next call.  After fork() the child inherits the count;
 * OpenBLAS's own pthread_atfork handlers rebuild its pool. */
static atomic_int blas_threads;

void tl_blas_sync_threads(void)
{
    int n = tl_get_num_threads();
    if (atomic_load_explicit(&blas_threads, memory_order_relaxed) != n) {
        scipy_openblas_set_num_threads64_(n);
        atomic_store(&blas_threads, n);
    }
}

int tl_blas_get_num_threads(void)
{
    tl_blas_sync_threads();
    return scipy_openblas_get_num_threads64_();
}

/* ---- problem description --------------------------------------------- */

/* One operand seen as a batch of (rows x cols) matrices. */
typedef struct mm_operand {
    const char *data;             /* element 0 */
    int64_t rs, cs;               /* matrix strides in elements */
    int64_t bst[TL_MAX_DIMS];     /* per broadcast batch dim; 0 broadcast */
} mm_operand;

typedef struct mm_problem {
    int dt;
    int nb;                       /* batch dims */
    int64_t bsizes[TL_MAX_DIMS];
    int64_t nbatch, m, n, k;
} mm_problem;

static void operand_setup(const tl_tensor_impl *t, bool left,
                          const mm_problem *p, mm_operand *op)
{
    int nd = t->ndim;
    op->data = tl_impl_data(t);
    memset(op->bst, 0, sizeof op->bst);
    if (nd == 1) {
        op->rs = left ? 0 : t->strides[0];
        op->cs = left ? t->strides[0] : 0;
        return;
    }
    op->rs = t->strides[nd - 2];
    op->cs = t->strides[nd - 1];
    int tb = nd - 2;
    for (int d = 0; d < tb; d++) {
        int pd = p->nb - tb + d;
        op->bst[pd] = t->sizes[d] == 1 ? 0 : t->strides[d];
    }
}

static int64_t batch_offset(const mm_problem *p, const mm_operand *op,
                            int64_t idx)
{
    int64_t off = 0;
    for (int d = p->nb - 1; d >= 0 && idx > 0; d--) {
        int64_t s = p->bsizes[d];
        off += (idx % s) * op->bst[d];
        idx /= s;
    }
    return off;
}

/* Whether BLAS can read a (rows x cols) matrix with strides (rs, cs) as
 * it is: row major (trans 'N', ld = rs) or as the transpose of a row-major
 * matrix (trans 'T', ld = cs).  Strides of size-1 dims do not matter. */
static bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                        int *trans, int64_t *ld)
{
    int64_t c1 = cols > 1 ? cols : 1, r1 = rows > 1 ? rows : 1;
    if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= c1)) {
        *trans = TL_CBLAS_NO_TRANS;
        *ld = rows <= 1 ? c1 : rs;
        return true;
    }
    if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= r1)) {
        *trans = TL_CBLAS_TRANS;
        *ld = cols <= 1 ? r1 : cs;
        return true;
    }
    return false;
}

static bool aligned_for(const void *ptr, int dt)
{
    return ((uintptr_t)ptr % (uintptr_t)tl_dtype_align(dt)) == 0;
}

/* ---- float kernels ----------------------------------------------------- */

/* Below this many multiply-adds per matrix, a direct loop beats the BLAS
 * call's set-up (measured: 8x8 float32 products). */
#define MM_TINY 512

#define TINY_KERNEL(name, T)                                                \
    static void name(const char *A, int64_t ars, int64_t acs, const char *B, \
                     int64_t brs, int64_t bcs, char *Cc, int64_t m,         \
                     int64_t n, int64_t k)                                  \
    {                                                                       \
        const T *a = (const T *)A, *b = (const T *)B;                       \
        T *c = (T *)Cc;                                                     \
        for (int64_t i = 0; i < m; i++) {                                   \
            for (int64_t j = 0; j < n; j++) {                               \
                T acc = 0;                                                  \
                for (int64_t p = 0; p < k; p++) {                           \
                    acc += a[i * ars + p * acs] * b[p * brs + j * bcs];     \
                }                                                           \
                c[i * n + j] = acc;                                         \
            }                                                               \
        }                                                                   \
    }
TINY_KERNEL(tiny_f32, float)
TINY_KERNEL(tiny_f64, double)

/* C (m x n, row major, ldc = n) = A @ B through BLAS. */
static void blas_gemm(int dt, int ta, int64_t lda, const void *A, int tb,
                      int64_t ldb, const void *B, void *C, int64_t m,
                      int64_t n, int64_t k)
{
    static const float c_one[2] = {1, 0}, c_zero[2] = {0, 0};
    static const double z_one[2] = {1, 0}, z_zero[2] = {0, 0};
    if (k == 0) {
        memset(C, 0, (size_t)(m * n * tl_itemsize(dt)));
        return;
    }
    if (n == 1 || m == 1) {
        /* A matrix-vector product: gemv (n == 1: y = A x; m == 1:
         * y = B^T x), which OpenBLAS runs faster than a one-column gemm. */
        const void *M, *x;
        int64_t rows, cols, ld, incx;
        int tr;
        if (n == 1) {
            M = A, ld = lda, x = B;
            incx = tb == TL_CBLAS_NO_TRANS ? ldb : 1;
            tr = ta;
            rows = ta == TL_CBLAS_NO_TRANS ? m : k;
            cols = ta == TL_CBLAS_NO_TRANS ? k : m;
        } else {
            M = B, ld = ldb, x = A;
            incx = ta == TL_CBLAS_NO_TRANS ? 1 : lda;
            tr = tb == TL_CBLAS_NO_TRANS ? TL_CBLAS_TRANS : TL_CBLAS_NO_TRANS;
            rows = tb == TL_CBLAS_NO_TRANS ? k : n;
            cols = tb == TL_CBLAS_NO_TRANS ? n : k;
        }
        switch (dt) {
        case TL_DTYPE_FLOAT32:
            TL_CBLAS(sgemv)(TL_CBLAS_ROW_MAJOR, tr, rows, cols, 1.0f, M, ld,
                            x, incx, 0.0f, C, 1);
            return;
        case TL_DTYPE_FLOAT64:
            TL_CBLAS(dgemv)(TL_CBLAS_ROW_MAJOR, tr, rows, cols, 1.0, M, ld,
                            x, incx, 0.0, C, 1);
            return;
        case TL_DTYPE_COMPLEX64:
            TL_CBLAS(cgemv)(TL_CBLAS_ROW_MAJOR, tr, rows, cols, c_one, M, ld,
                            x, incx, c_zero, C, 1);
            return;
        default:
            TL_CBLAS(zgemv)(TL_CBLAS_ROW_MAJOR, tr, rows, cols, z_one, M, ld,
                            x, incx, z_zero, C, 1);
            return;
        }
    }
    switch (dt) {
    case TL_DTYPE_FLOAT32:
        TL_CBLAS(sgemm)(TL_CBLAS_ROW_MAJOR, ta, tb, m, n, k, 1.0f, A, lda, B,
                        ldb, 0.0f, C, n);
        break;
    case TL_DTYPE_FLOAT64:
        TL_CBLAS(dgemm)(TL_CBLAS_ROW_MAJOR, ta, tb, m, n, k, 1.0, A, lda, B,
                        ldb, 0.0, C, n);
        break;
    case TL_DTYPE_COMPLEX64:
        TL_CBLAS(cgemm)(TL_CBLAS_ROW_MAJOR, ta, tb, m, n, k, c_one, A, lda,
                        B, ldb, c_zero, C, n);
        break;
    default:
        TL_CBLAS(zgemm)(TL_CBLAS_ROW_MAJOR, ta, tb, m, n, k, z_one, A, lda,
                        B, ldb, z_zero, C, n);
        break;
    }
}

/* Folds the batch into the rows of A when B is one matrix for every batch
 * element and A's batch and row dimensions collapse into one stride: one
 * big gemm instead of many small ones (x @ W in a linear layer). */
static void try_fold(mm_problem *p, mm_operand *a, const mm_operand *b)
{
    if (p->nbatch <= 1) {
        return;
    }
    for (int d = 0; d < p->nb; d++) {
        if (b->bst[d] != 0 && p->bsizes[d] != 1) {
            return;
        }
    }
    /* dims (batch..., rows) of A, size-1 ones dropped, must chain. */
    int64_t stride = 0, span = 1;
    bool have = false;
    for (int d = p->nb; d >= 0; d--) {
        int64_t sz = d == p->nb ? p->m : p->bsizes[d];
        int64_t st = d == p->nb ? a->rs : a->bst[d];
        if (sz == 1) {
            continue;
        }
        if (!have) {
            stride = st;
            span = sz;
            have = true;
        } else if (st != stride * span) {
            return;
        } else {
            span *= sz;
        }
    }
    p->m *= p->nbatch;
    p->nbatch = 1;
    p->nb = 0;
    if (have) {
        a->rs = stride;
    }
}

typedef struct float_job {
    const mm_problem *p;
    const mm_operand *a, *b;
    int ta, tb;
    int64_t lda, ldb;
    char *c;
} float_job;

static void float_batches(void *ctx, int64_t b0, int64_t b1)
{
    const float_job *j = ctx;
    const mm_problem *p = j->p;
    int64_t isz = tl_itemsize(p->dt);
    for (int64_t i = b0; i < b1; i++) {
        const char *A = j->a->data + batch_offset(p, j->a, i) * isz;
        const char *B = j->b->data + batch_offset(p, j->b, i) * isz;
        blas_gemm(p->dt, j->ta, j->lda, A, j->tb, j->ldb, B,
                  j->c + i * p->m * p->n * isz, p->m, p->n, p->k);
    }
}

/* Per-matrix multiply-adds up to which a batch is split across threads
 * (Note [Batched small products]): 256^3. */
#define MM_BATCH_SPLIT (256 * 256 * 256)

/* Multiply-adds from which a product releases the GIL (~0.1 ms). */
#define MM_NOGIL (64 * 64 * 64)

static int mm_float(const mm_problem *p0, tl_tensor_impl *c,
                    tl_tensor_impl *a, tl_tensor_impl *b)
{
    mm_problem p = *p0;
    mm_operand oa, ob;
    tl_tensor_impl *ta_own = NULL, *tb_own = NULL;
    int rc = 0;
    int64_t isz = tl_itemsize(p.dt);
    operand_setup(a, true, &p, &oa);
    operand_setup(b, false, &p, &ob);
    char *C = tl_impl_data(c);
    bool real = p.dt == TL_DTYPE_FLOAT32 || p.dt == TL_DTYPE_FLOAT64;
    if (real && p.m * p.n * p.k <= MM_TINY) {
        for (int64_t i = 0; i < p.nbatch; i++) {
            const char *A = oa.data + batch_offset(&p, &oa, i) * isz;
            const char *B = ob.data + batch_offset(&p, &ob, i) * isz;
            char *Ci = C + i * p.m * p.n * isz;
            (p.dt == TL_DTYPE_FLOAT32 ? tiny_f32 : tiny_f64)(
                A, oa.rs, oa.cs, B, ob.rs, ob.cs, Ci, p.m, p.n, p.k);
        }
        return 0;
    }
    int tra, trb;
    int64_t lda, ldb;
    if (!aligned_for(oa.data, p.dt) ||
        !blas_layout(p.m, p.k, oa.rs, oa.cs, &tra, &lda)) {
        ta_own = tl_op_contiguous(a, TL_FORMAT_CONTIGUOUS);
        if (!ta_own) {
            rc = tl_error_kind();
            goto done;
        }
        operand_setup(ta_own, true, &p, &oa);
    }
    if (!aligned_for(ob.data, p.dt) ||
        !blas_layout(p.k, p.n, ob.rs, ob.cs, &trb, &ldb)) {
        tb_own = tl_op_contiguous(b, TL_FORMAT_CONTIGUOUS);
        if (!tb_own) {
            rc = tl_error_kind();
            goto done;
        }
        operand_setup(tb_own, false, &p, &ob);
    }
    try_fold(&p, &oa, &ob);
    /* A contiguous copy always has a BLAS layout; a fold keeps A's. */
    if (!blas_layout(p.m, p.k, oa.rs, oa.cs, &tra, &lda) ||
        !blas_layout(p.k, p.n, ob.rs, ob.cs, &trb, &ldb)) {
        rc = tl_error(TL_ERR_RUNTIME, "matmul: internal layout error");
        goto done;
    }
    float_job j = {&p, &oa, &ob, tra, trb, lda, ldb, C};
    int nt = tl_get_num_threads();
    /* Big products run without the GIL; the operands' memory is pinned
     * first so that another thread's resize_/set_/last decref cannot free
     * it under BLAS (as the iterator does, DESIGN.md "TensorIterator"). */
    tl_block *pins[3] = {NULL, NULL, NULL};
    void *token = NULL;
    bool nogil = p.nbatch * p.m * p.n * p.k >= MM_NOGIL;
    if (nogil) {
        pins[0] = (ta_own ? ta_own : a)->storage->block;
        pins[1] = (tb_own ? tb_own : b)->storage->block;
        pins[2] = c->storage->block;
        for (int q = 0; q < 3; q++) {
            tl_block_pin(pins[q]);
        }
        token = tl_parallel_release();
    }
    if (p.nbatch > 1 && nt > 1 && p.m * p.n * p.k <= MM_BATCH_SPLIT &&
        !tl_parallel_in_region()) {
        /* Note [Batched small products]: many small matrices run one per
         * tensorlib thread with OpenBLAS single-threaded (its own threads
         * would spend more time waking than computing), then OpenBLAS gets
         * its count back. */
        scipy_openblas_set_num_threads64_(1);
        atomic_store(&blas_threads, 1);
        tl_parallel_for(p.nbatch, 1, float_batches, &j);
        tl_blas_sync_threads();
    } else {
        tl_blas_sync_threads();
        float_batches(&j, 0, p.nbatch);
    }
    if (nogil) {
        tl_parallel_reacquire(token);
        for (int q = 0; q < 3; q++) {
            tl_block_unpin(pins[q]);
        }
    }
done:
    tl_tensor_decref(ta_own);
    tl_tensor_decref(tb_own);
    return rc;
}

/* ---- integer and bool kernel ------------------------------------------- */

/* Note [Integer matmul]
 * Exact with wrap-around, as integer arithmetic is: the operands are
 * packed (A's rows and B's columns, each contiguous over k) into unsigned
 * words of at least 32 bits, so products and sums wrap modulo 2^32 or 2^64
 * with no C undefined behaviour, and the sum is truncated to the element
 * width once (the same residue as wrapping at every step).  bool is
 * NumPy's: any(a & b).  Rows are split across tensorlib's threads; the
 * inner dot product runs over contiguous words, which the compiler
 * vectorises, in column blocks that keep B's packed block in cache. */
typedef struct int_job {
    int dt;
    const char *A, *B;
    int64_t ars, acs, brs, bcs;
    char *C;
    int64_t m, n, k;
    void *pa, *pb;                /* packed A (m x k), B^T (n x k) */
} int_job;

#define MM_JBLOCK 64

#define INT_FUNCS(sfx, T, U, COMBINE)                                       \
    static void pack_##sfx(const int_job *j)                                \
    {                                                                       \
        const T *a = (const T *)j->A, *b = (const T *)j->B;                 \
        U *pa = j->pa, *pb = j->pb;                                         \
        for (int64_t i = 0; i < j->m; i++) {                                \
            for (int64_t p = 0; p < j->k; p++) {                            \
                pa[i * j->k + p] = (U)a[i * j->ars + p * j->acs];           \
            }                                                               \
        }                                                                   \
        for (int64_t q = 0; q < j->n; q++) {                                \
            for (int64_t p = 0; p < j->k; p++) {                            \
                pb[q * j->k + p] = (U)b[p * j->brs + q * j->bcs];           \
            }                                                               \
        }                                                                   \
    }                                                                       \
    static void rows_##sfx(void *ctx, int64_t i0, int64_t i1)               \
    {                                                                       \
        const int_job *j = ctx;                                             \
        const U *pa = j->pa, *pb = j->pb;                                   \
        T *c = (T *)j->C;                                                   \
        int64_t k = j->k;                                                   \
        for (int64_t q0 = 0; q0 < j->n; q0 += MM_JBLOCK) {                  \
            int64_t q1 = q0 + MM_JBLOCK < j->n ? q0 + MM_JBLOCK : j->n;     \
            for (int64_t i = i0; i < i1; i++) {                             \
                const U *ra = pa + i * k;                                   \
                for (int64_t q = q0; q < q1; q++) {                         \
                    const U *rb = pb + q * k;                               \
                    U acc = 0;                                              \
                    for (int64_t p = 0; p < k; p++) {                       \
                        acc COMBINE;                                        \
                    }                                                       \
                    c[i * j->n + q] = (T)acc;                               \
                }                                                           \
            }                                                               \
        }                                                                   \
    }

#define MUL_ADD += ra[p] * rb[p]
#define AND_OR |= ra[p] & rb[p]
INT_FUNCS(b8, uint8_t, uint32_t, AND_OR)
INT_FUNCS(u8, uint8_t, uint32_t, MUL_ADD)
INT_FUNCS(i8, int8_t, uint32_t, MUL_ADD)
INT_FUNCS(u16, uint16_t, uint32_t, MUL_ADD)
INT_FUNCS(i16, int16_t, uint32_t, MUL_ADD)
INT_FUNCS(u32, uint32_t, uint32_t, MUL_ADD)
INT_FUNCS(i32, int32_t, uint32_t, MUL_ADD)
INT_FUNCS(u64, uint64_t, uint64_t, MUL_ADD)
INT_FUNCS(i64, int64_t, uint64_t, MUL_ADD)

static int mm_int(const mm_problem *p, tl_tensor_impl *c, tl_tensor_impl *a,
                  tl_tensor_impl *b)
{
    mm_operand oa, ob;
    operand_setup(a, true, p, &oa);
    operand_setup(b, false, p, &ob);
    int64_t wsz = tl_itemsize(p->dt) == 8 ? 8 : 4;
    int64_t words = (p->m + p->n) * p->k;
    int64_t isz = tl_itemsize(p->dt);
    void (*pack)(const int_job *);
    void (*rows)(void *, int64_t, int64_t);
    switch (p->dt) {
#define CASE(D, s) case D: pack = pack_##s; rows = rows_##s; break;
    CASE(TL_DTYPE_BOOL, b8)
    CASE(TL_DTYPE_UINT8, u8)
    CASE(TL_DTYPE_INT8, i8)
    CASE(TL_DTYPE_UINT16, u16)
    CASE(TL_DTYPE_INT16, i16)
    CASE(TL_DTYPE_UINT32, u32)
    CASE(TL_DTYPE_INT32, i32)
    CASE(TL_DTYPE_UINT64, u64)
    CASE(TL_DTYPE_INT64, i64)
#undef CASE
    default:
        return tl_error(TL_ERR_TYPE, "matmul: no kernel for %s",
                        tl_dtype_table[p->dt].name);
    }
    /* Packed words come from the allocator, as all tensor data does. */
    int64_t nw = words > 0 ? words : 1;
    tl_tensor_impl *buf = tl_tensor_empty(1, &nw, wsz == 8 ?
                                          TL_DTYPE_UINT64 : TL_DTYPE_UINT32,
                                          tl_tensor_device(c),
                                          TL_MEMKIND_DEFAULT);
    if (!buf) {
        return tl_error_kind();
    }
    char *w = tl_impl_data(buf);
    for (int64_t i = 0; i < p->nbatch; i++) {
        int_job j = {
            .dt = p->dt,
            .A = oa.data + batch_offset(p, &oa, i) * isz,
            .B = ob.data + batch_offset(p, &ob, i) * isz,
            .ars = oa.rs, .acs = oa.cs, .brs = ob.rs, .bcs = ob.cs,
            .C = (char *)tl_impl_data(c) + i * p->m * p->n * isz,
            .m = p->m, .n = p->n, .k = p->k,
            .pa = w, .pb = w + p->m * p->k * wsz,
        };
        pack(&j);
        int64_t per_row = p->n * p->k > 0 ? p->n * p->k : 1;
        int64_t grain = 32768 / per_row + 1;
        tl_parallel_for(p->m, grain, rows, &j);
    }
    tl_tensor_decref(buf);
    return 0;
}

/* ---- entry point --------------------------------------------------------- */

static int mm_compute(const mm_problem *p, tl_tensor_impl *c,
                      tl_tensor_impl *a, tl_tensor_impl *b)
{
    if (c->numel == 0) {
        return 0;
    }
    int kind = tl_dtype_table[p->dt].kind;
    if (p->dt == TL_DTYPE_FLOAT16 || p->dt == TL_DTYPE_BFLOAT16) {
        /* Accumulate in float32, round once on the way out. */
        mm_problem q = *p;
        q.dt = TL_DTYPE_FLOAT32;
        int rc = TL_ERR_MEMORY;
        tl_tensor_impl *a32 = tl_op_to_dtype(a, TL_DTYPE_FLOAT32, false);
        tl_tensor_impl *b32 = a32 ? tl_op_to_dtype(b, TL_DTYPE_FLOAT32,
                                                   false) : NULL;
        tl_tensor_impl *c32 = b32 ? tl_tensor_empty(c->ndim, c->sizes,
                                                    TL_DTYPE_FLOAT32,
                                                    c->device,
                                                    TL_MEMKIND_DEFAULT)
                                  : NULL;
        if (c32) {
            rc = mm_float(&q, c32, a32, b32);
            if (rc == 0) {
                rc = tl_copy_unchecked(c, c32);
            }
        } else {
            rc = tl_error_kind();
        }
        tl_tensor_decref(a32);
        tl_tensor_decref(b32);
        tl_tensor_decref(c32);
        return rc;
    }
    if (kind == TL_KIND_FLOAT || kind == TL_KIND_COMPLEX) {
        return mm_float(p, c, a, b);
    }
    return mm_int(p, c, a, b);
}

static int check_cpu(const char *op, const tl_tensor_impl *t)
{
    if (t && t->device.type != TL_DEVICE_CPU) {
        return tl_error(TL_ERR_NOT_IMPLEMENTED,
                        "%s: tensors on CUDA are not supported yet "
                        "(tensorlib has no cuBLAS binding); move them to "
                        "the CPU", op);
    }
    /* a reset workspace's tensor, or one past a shrunk storage's end */
    if (t && tl_tensor_check_live(t) < 0) {
        return tl_error_kind();
    }
    return 0;
}

static int check_out(const char *op, tl_tensor_impl *out, int dt,
                        int rnd, const int64_t *rs, bool *resize)
{
    *resize = false;
    int rc = check_cpu(op, out);
    if (rc < 0) {
        return rc;
    }
    if ((rc = tl_tensor_check_writable(out)) < 0) {
        return rc;
    }
    if (out->dtype != dt) {
        return tl_error(TL_ERR_TYPE,
                        "%s: expected out= to have dtype %s (the result's), "
                        "got %s", op, tl_dtype_table[dt].name,
                        tl_dtype_table[out->dtype].name);
    }
    bool same = out->ndim == rnd;
    for (int d = 0; same && d < rnd; d++) {
        same = out->sizes[d] == rs[d];
    }
    if (!same) {
        if (out->numel != 0 || out->base != NULL ||
            out->storage_offset != 0) {
            return tl_error(TL_ERR_SHAPE,
                            "%s: out= has shape %s but the result has shape "
                            "%s (only an empty out= that owns its storage "
                            "is resized)", op,
                            tl_fmt_list(0, out->ndim, out->sizes),
                            tl_fmt_list(1, rnd, rs));
        }
        *resize = true;
        return 0;
    }
    return tl_iter_check_writable_layout(out);
}

/* Commits c (a new reference, consumed) into out: resize, copy, version.
 * Returns: new reference to the result, or NULL (out unchanged). */
static tl_tensor_impl *commit(tl_tensor_impl *out, tl_tensor_impl *c,
                              bool resize)
{
    if (!out) {
        return c;
    }
    if (c == out) {
        tl_tensor_bump_version(out);
        return c;
    }
    if (resize && tl_tensor_resize_(out, c->ndim, c->sizes) < 0) {
        tl_tensor_decref(c);
        return NULL;
    }
    int rc = tl_op_copy_(out, c);
    tl_tensor_decref(c);
    if (rc < 0) {
        return NULL;
    }
    tl_tensor_incref(out);
    return out;
}

tl_tensor_impl *tl_op_matmul(tl_tensor_impl *out, tl_tensor_impl *a,
                             tl_tensor_impl *b)
{
    const char *op = "matmul";
    if (check_cpu(op, a) < 0 || check_cpu(op, b) < 0 ||
        tl_dtype_check_computable(op, a->dtype) < 0 ||
        tl_dtype_check_computable(op, b->dtype) < 0) {
        return NULL;
    }
    int la = a->ndim, lb = b->ndim;
    if (la == 0 || lb == 0) {
        tl_error(TL_ERR_SHAPE,
                 "matmul: both arguments need at least 1 dimension, got "
                 "shapes %s and %s", tl_fmt_list(0, la, a->sizes),
                 tl_fmt_list(1, lb, b->sizes));
        return NULL;
    }
    if (a->dtype != b->dtype) {
        tl_error(TL_ERR_TYPE,
                 "matmul: expected both operands to have the same dtype, "
                 "got %s and %s", tl_dtype_table[a->dtype].name,
                 tl_dtype_table[b->dtype].name);
        return NULL;
    }
    mm_problem p;
    memset(&p, 0, sizeof p);
    p.dt = a->dtype;
    p.m = la >= 2 ? a->sizes[la - 2] : 1;
    p.k = a->sizes[la - 1];
    int64_t kb = lb >= 2 ? b->sizes[lb - 2] : b->sizes[0];
    p.n = lb >= 2 ? b->sizes[lb - 1] : 1;
    if (p.k != kb) {
        tl_error(TL_ERR_SHAPE,
                 "matmul: shapes %s and %s cannot be multiplied (%" PRId64
                 " != %" PRId64 " on the contracted dimension)",
                 tl_fmt_list(0, la, a->sizes), tl_fmt_list(1, lb, b->sizes),
                 p.k, kb);
        return NULL;
    }
    int nba = la > 2 ? la - 2 : 0, nbb = lb > 2 ? lb - 2 : 0;
    int nb = tl_broadcast_shapes(nba, a->sizes, nbb, b->sizes, p.bsizes);
    if (nb < 0) {
        tl_error(TL_ERR_SHAPE,
                 "matmul: the batch dimensions of shapes %s and %s do not "
                 "broadcast", tl_fmt_list(0, la, a->sizes),
                 tl_fmt_list(1, lb, b->sizes));
        return NULL;
    }
    p.nb = nb;
    p.nbatch = 1;
    int64_t rs[TL_MAX_DIMS];
    int rnd = 0;
    for (int d = 0; d < nb; d++) {
        p.nbatch *= p.bsizes[d];
        rs[rnd++] = p.bsizes[d];
    }
    if (la >= 2) {
        rs[rnd++] = p.m;
    }
    if (lb >= 2) {
        rs[rnd++] = p.n;
    }
    bool resize = false;
    if (out && check_out(op, out, p.dt, rnd, rs, &resize) < 0) {
        return NULL;
    }
    tl_tensor_impl *c;
    bool direct = out && !resize && tl_tensor_is_contiguous(
                      out, TL_FORMAT_CONTIGUOUS) &&
                  !tl_may_share_memory(out, a) &&
                  !tl_may_share_memory(out, b);
    if (direct) {
        tl_tensor_incref(out);
        c = out;
    } else {
        c = tl_tensor_empty(rnd, rs, (tl_dtype)p.dt, a->device,
                            TL_MEMKIND_DEFAULT);
        if (!c) {
            return NULL;
        }
    }
    if (mm_compute(&p, c, a, b) < 0) {
        tl_tensor_decref(c);
        return NULL;
    }
    return commit(out, c, resize);
}
