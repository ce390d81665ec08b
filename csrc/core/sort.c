/* csrc/core/sort.c — the ordering ops along one dim: sort (and argsort,
 * msort), topk, kthvalue, median, nanmedian, mode (tl_select), the
 * whole-tensor median, and quantile/nanquantile.  Every op works on
 * order keys (ss_make_keys: NaN above +inf, -0 equal to +0) with the
 * element's index as tie-break, so results are unique and do not depend
 * on the thread count (Note [Sort paths]). */
#include "kernel_optimize.h" /* first of all: see its Note */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device_impl.h"
#include "kernels.h"
#include "shape.h"
#include "sortscan_impl.h"
#include "tensorlib/ops.h"
#include "tensorlib/view.h"

/* Note [Sort paths]
 * sort: each row's keys and indices are sorted by a stable LSD radix
 * sort (ss_sort_pairs, Note [Radix digits]; insertion sort for short
 * rows), then the values gathered by index.  One long row is split first
 * by its top key bits (a stable counting pass, threaded over fixed
 * segments; 12 bits for 4- and 8-byte keys, so that a bucket of common
 * data fits the cache), and the buckets are finished independently on
 * the pool.
 * When its keys have 32 bits, the split writes one word (key << 32 |
 * index) per element and the buckets sort the words: one write stream per
 * digit value instead of two, which is what bounds the scatter passes.
 * topk: small k runs a bounded max-heap over fixed segments of each row
 * (an element enters only if its (key, index) is below the heap top), and
 * the segments' candidates are sorted; large k sorts the row.
 * kthvalue, median, nanmedian: quickselect on (key, index) pairs.
 * mode: sorts the row and takes the longest run (the smallest value of
 * equally long runs, and its last index, as PyTorch; NaNs never equal). */

#define ROW_WORK 65536
#define SEG 65536
#define HEAP_K 512

typedef struct kp {
    uint64_t k;
    uint64_t i;
} kp;

static inline bool kp_lt(kp a, kp b)
{
    return a.k < b.k || (a.k == b.k && a.i < b.i);
}

/* Key i of a key array of width w. */
static inline uint64_t key_at(const void *keys, int w, int64_t i)
{
    switch (w) {
    case 1: return ((const uint8_t *)keys)[i];
    case 2: return ((const uint16_t *)keys)[i];
    case 4: return ((const uint32_t *)keys)[i];
    default: return ((const uint64_t *)keys)[i];
    }
}

static inline void copy_elem(char *dst, const char *src, int64_t isz)
{
    switch (isz) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    default: memcpy(dst, src, 8); break;
    }
}

/* Source address of element j of row r. */
static inline const char *row_src(const ss_rows *R, int64_t r, int64_t isz)
{
    const int64_t o = r / R->inner, i = r % R->inner;
    return R->data + (o * R->n * R->inner + i) * isz;
}

/* Checks and the common start of the ops along dim. */
static int begin(const char *name, tl_tensor_impl *a, int64_t dim, int *d)
{
    int rc;
    if (!a) {
        return tl_error(TL_ERR_VALUE, "%s(): the input is NULL", name);
    }
    if ((rc = tl_tensor_check_live(a)) < 0 ||
        (rc = tl_device_cpu_only(a, name)) < 0 ||
        (rc = ss_check_sortable(name, (tl_dtype)a->dtype)) < 0 ||
        (rc = tl_wrap_dim(dim, a->ndim, d)) < 0) {
        return rc;
    }
    return 0;
}

/* Commits (values, indices) results into outs (validated) and returns
 * them.  Consumes v and ix.  Returns 0 or an error. */
static int commit2(tl_tensor_impl *vo, bool rv, tl_tensor_impl *io, bool ri,
                   tl_tensor_impl *v, tl_tensor_impl *ix,
                   tl_tensor_impl **values, tl_tensor_impl **indices)
{
    if ((vo && rv && tl_tensor_resize_(vo, v->ndim, v->sizes) < 0) ||
        (io && ri && tl_tensor_resize_(io, ix->ndim, ix->sizes) < 0)) {
        tl_tensor_decref(v);
        tl_tensor_decref(ix);
        return tl_error_kind();
    }
    tl_tensor_impl *a = ss_commit(vo, false, v);
    if (!a) {
        tl_tensor_decref(ix);
        return tl_error_kind();
    }
    tl_tensor_impl *b = ss_commit(io, false, ix);
    if (!b) {
        tl_tensor_decref(a);
        return tl_error_kind();
    }
    *values = a;
    *indices = b;
    return 0;
}

/* A dim-last result made contiguous in the original order.  Consumes t.
 * Returns: new reference, or NULL. */
static tl_tensor_impl *finish(tl_tensor_impl *t)
{
    if (!t || (t->flags & TL_FLAG_CONTIGUOUS)) {
        return t;
    }
    tl_tensor_impl *c = tl_op_contiguous(t, TL_FORMAT_CONTIGUOUS);
    tl_tensor_decref(t);
    return c;
}

static int check_pair_outs(const char *name, tl_tensor_impl *vo,
                           tl_tensor_impl *io, const tl_tensor_impl *a,
                           int nd, const int64_t *sizes, bool *rv, bool *ri)
{
    int rc;
    if ((rc = ss_check_out(name, vo, a, nd, sizes, (tl_dtype)a->dtype,
                           rv)) < 0 ||
        (rc = ss_check_out(name, io, a, nd, sizes, TL_DTYPE_INT64, ri)) <
            0) {
        return rc;
    }
    if (vo && io && tl_may_share_memory(vo, io)) {
        return tl_error(TL_ERR_SHAPE, "%s(): the values and indices out= "
                        "tensors share memory", name);
    }
    return 0;
}

/* ---- sort ---------------------------------------------------------------------- */

typedef struct sort_ctx {
    const ss_rows *R;
    tl_dtype dt;
    int w;
    int64_t isz;
    bool desc;
    char *keys, *tmpk;
    uint32_t *idx, *tmpi;
    char *vals;    /* dim-last rows of m, or NULL */
    int64_t *ind;  /* dim-last rows of m, or NULL */
    int64_t m;     /* outputs per row (n for sort, k for topk) */
    int64_t rows_per_task, nrows;
    /* one long row split by its top byte */
    int64_t nseg;
    int msd;            /* bits of the split: 8 or 12 */
    int64_t nbk;        /* 1 << msd buckets */
    uint32_t *seg_hist; /* nseg * nbk */
    uint64_t *pk, *pt;  /* packed (key << 32 | index) words and scratch,
                           when the keys have 32 bits (Note [Sort paths]) */
    uint32_t *bucket_start; /* nbk + 1, then nbk of scratch */
} sort_ctx;

/* Gathers row r's values and indices from its sorted idx (first m). */
static void emit_row(const sort_ctx *C, int64_t r, const uint32_t *idx)
{
    const ss_rows *R = C->R;
    const char *src = row_src(R, r, C->isz);
    const int64_t st = R->inner * C->isz;
    if (C->vals) {
        char *v = C->vals + r * C->m * C->isz;
        switch (C->isz) {
        case 1:
            for (int64_t j = 0; j < C->m; j++) {
                v[j] = src[idx[j] * st];
            }
            break;
        case 2:
            for (int64_t j = 0; j < C->m; j++) {
                memcpy(v + 2 * j, src + idx[j] * st, 2);
            }
            break;
        case 4:
            for (int64_t j = 0; j < C->m; j++) {
                memcpy(v + 4 * j, src + idx[j] * st, 4);
            }
            break;
        default:
            for (int64_t j = 0; j < C->m; j++) {
                memcpy(v + 8 * j, src + idx[j] * st, 8);
            }
            break;
        }
    }
    if (C->ind) {
        int64_t *o = C->ind + r * C->m;
        for (int64_t j = 0; j < C->m; j++) {
            o[j] = idx[j];
        }
    }
}

static void sort_rows_task(void *vc, int64_t c)
{
    const sort_ctx *C = vc;
    const ss_rows *R = C->R;
    int64_t r0 = c * C->rows_per_task, r1 = r0 + C->rows_per_task;
    r1 = r1 > C->nrows ? C->nrows : r1;
    const int64_t n = R->n;
    for (int64_t r = r0; r < r1; r++) {
        char *k = C->keys + r * n * C->w;
        uint32_t *ix = C->idx + r * n;
        ss_make_keys(C->dt, row_src(R, r, C->isz), R->inner, n, C->desc, k);
        for (int64_t j = 0; j < n; j++) {
            ix[j] = (uint32_t)j;
        }
        ss_sort_pairs(C->w, k, ix, n, C->tmpk + r * n * C->w,
                      C->tmpi + r * n);
        if (C->vals && C->m == n) {
            /* values from the sorted keys (sequential, not a gather) */
            ss_keys_to_values(C->dt, k, n, C->desc, row_src(R, r, C->isz),
                              R->inner, ix, C->vals + r * n * C->isz);
            int64_t *o = C->ind + r * n;
            for (int64_t j = 0; j < n; j++) {
                o[j] = ix[j];
            }
        } else {
            emit_row(C, r, ix);
        }
    }
}

/* Long single row: keys and the top-byte histogram of segment c. */
static void long_hist_task(void *vc, int64_t c)
{
    sort_ctx *C = vc;
    const int64_t n = C->R->n, j0 = c * SEG;
    const int64_t len = n - j0 < SEG ? n - j0 : SEG;
    ss_make_keys(C->dt, C->R->data + j0 * C->isz, 1, len, C->desc,
                 C->keys + j0 * C->w);
    uint32_t *h = C->seg_hist + c * C->nbk;
    memset(h, 0, (size_t)C->nbk * sizeof *h);
    const int sh = 8 * C->w - C->msd;
    const uint64_t bm = (uint64_t)C->nbk - 1;
    switch (C->w) {
#define HIST(W, T)                                                          \
    case W: {                                                               \
        const T *k = (const T *)C->keys + j0;                               \
        for (int64_t j = 0; j < len; j++) {                                 \
            h[((uint64_t)k[j] >> sh) & bm]++;                               \
        }                                                                   \
        break;                                                              \
    }
        HIST(1, uint8_t)
        HIST(2, uint16_t)
        HIST(4, uint32_t)
        HIST(8, uint64_t)
#undef HIST
    default: break;
    }
}

/* Long single row: scatters segment c by top byte (stable). */
static void long_scatter_task(void *vc, int64_t c)
{
    sort_ctx *C = vc;
    const int64_t n = C->R->n, j0 = c * SEG;
    const int64_t len = n - j0 < SEG ? n - j0 : SEG;
    uint32_t *pos = C->seg_hist + c * C->nbk; /* offsets, from long_sort */
    const int sh = 8 * C->w - C->msd;
    const uint64_t bm = (uint64_t)C->nbk - 1;
    uint32_t *ti = C->tmpi;
    if (C->pk) {
        const uint32_t *k = (const uint32_t *)C->keys;
        uint64_t *pk = C->pk;
        for (int64_t j = j0; j < j0 + len; j++) {
            const uint32_t key = k[j];
            pk[pos[key >> sh]++] = (uint64_t)key << 32 | (uint64_t)j;
        }
        return;
    }
    switch (C->w) {
#define SCATTER(W, T)                                                       \
    case W: {                                                               \
        const T *k = (const T *)C->keys;                                    \
        T *tk = (T *)C->tmpk;                                               \
        for (int64_t j = j0; j < j0 + len; j++) {                           \
            const T key = k[j];                                             \
            const uint32_t p = pos[((uint64_t)key >> sh) & bm]++;           \
            tk[p] = key;                                                    \
            ti[p] = (uint32_t)j;                                            \
        }                                                                   \
        break;                                                              \
    }
        SCATTER(1, uint8_t)
        SCATTER(2, uint16_t)
        SCATTER(4, uint32_t)
        SCATTER(8, uint64_t)
#undef SCATTER
    default: break;
    }
}

/* Long single row: finishes bucket c (its lower bytes), emits it. */
static void long_bucket_task(void *vc, int64_t c)
{
    sort_ctx *C = vc;
    const uint32_t b0 = C->bucket_start[c], b1 = C->bucket_start[c + 1];
    if (b1 == b0) {
        return;
    }
    const int64_t len = b1 - b0;
    char *k;
    uint32_t *ix;
    if (C->pk) {
        /* sort the words, then split them into the bucket's slices of
           keys (free since the scatter) and of the words' scratch */
        uint64_t *w = C->pk + b0, *t = C->pt + b0;
        ss_sort_packed(w, len, t);
        k = C->keys + (int64_t)b0 * 4;
        ix = (uint32_t *)t;
        for (int64_t j = 0; j < len; j++) {
            ((uint32_t *)k)[j] = (uint32_t)(w[j] >> 32);
            ix[j] = (uint32_t)w[j];
        }
    } else {
        /* the pairs' arrays: NULL when the words replace them */
        k = C->tmpk + (int64_t)b0 * C->w;
        ix = C->tmpi + b0;
        if (C->w > 1) {
            ss_sort_pairs(C->w, k, ix, len, C->keys + (int64_t)b0 * C->w,
                          C->idx + b0);
        }
    }
    /* emit this slice of the row: values from the sorted keys */
    if (C->vals) {
        ss_keys_to_values(C->dt, k, len, C->desc, C->R->data, 1, ix,
                          C->vals + (int64_t)b0 * C->isz);
    }
    if (C->ind) {
        for (int64_t j = 0; j < len; j++) {
            C->ind[b0 + j] = ix[j];
        }
    }
}

static void long_sort(sort_ctx *C, tl_tensor_impl *const *pins, int npins)
{
    const int64_t n = C->R->n;
    C->nseg = (n + SEG - 1) / SEG;
    ss_parallel(C->nseg, n, long_hist_task, C, pins, npins);
    /* bucket starts, and each segment's first position in each bucket
       (row by row: the histograms are nseg rows of nbk counts) */
    uint32_t *bs = C->bucket_start;
    const int64_t nbk = C->nbk;
    memset(bs, 0, (size_t)(nbk + 1) * sizeof *bs);
    for (int64_t s = 0; s < C->nseg; s++) {
        const uint32_t *h = C->seg_hist + s * nbk;
        for (int64_t b = 0; b < nbk; b++) {
            bs[b + 1] += h[b];
        }
    }
    for (int64_t b = 0; b < nbk; b++) {
        bs[b + 1] += bs[b];
    }
    /* each segment's first position in bucket b: bs[b] plus the counts
       of the segments before it */
    uint32_t *run = bs + nbk + 1;
    memcpy(run, bs, (size_t)nbk * sizeof *run);
    for (int64_t s = 0; s < C->nseg; s++) {
        uint32_t *h = C->seg_hist + s * nbk;
        for (int64_t b = 0; b < nbk; b++) {
            const uint32_t cnt = h[b];
            h[b] = run[b];
            run[b] += cnt;
        }
    }
    ss_parallel(C->nseg, n, long_scatter_task, C, pins, npins);
    ss_parallel(C->nbk, n, long_bucket_task, C, pins, npins);
}

/* Note [Small sort scratch]
 * A sort of a few dozen elements needs a few hundred bytes of scratch;
 * taking them from the pool as a tensor cost an eighth of sorting 10
 * floats (issue 22).  Up to SMALL_SCRATCH bytes they live on the stack:
 * such a sort is far below the parallel grain, so ss_parallel runs it on
 * this thread without releasing the GIL, and nothing needs pinning. */
enum { SMALL_SCRATCH = 2048 };

/* Sorts every row; outputs the first m of each (vals/ind dim-last). */
static int run_sort(sort_ctx *C, ss_rows *R, tl_tensor_impl *vt,
                    tl_tensor_impl *it)
{
    const int64_t numel = R->outer * R->n * R->inner;
    C->nrows = R->outer * R->inner;
    const int64_t kb = SS_ALIGN8(numel * C->w);
    const bool lng = C->nrows == 1 && R->n >= 4 * SEG && C->m == R->n;
    const bool packed = lng && C->w == 4;
    /* pairs: keys, their scratch, indices and theirs; packed: keys, the
       words and their scratch */
    const int64_t need = packed ? kb + 16 * numel : 2 * kb + numel * 8;
    _Alignas(64) char small[SMALL_SCRATCH];
    tl_tensor_impl *s1 = NULL, *s2 = NULL;
    char *p = small;
    if (need > SMALL_SCRATCH || numel >= TL_ITER_GRAIN) {
        s1 = ss_scratch(need);
        if (!s1) {
            return tl_error_kind();
        }
        p = tl_impl_data(s1);
    }
    C->keys = p;
    if (packed) {
        C->pk = (uint64_t *)(p + kb);
        C->pt = C->pk + numel;
    } else {
        C->tmpk = p + kb;
        C->idx = (uint32_t *)(p + 2 * kb);
        C->tmpi = C->idx + numel;
    }
    tl_tensor_impl *const s1p = s1 ? s1 : R->t; /* a pin for each slot */
    tl_tensor_impl *pins[4] = {R->t, s1p, vt ? vt : s1p, it ? it : s1p};
    if (lng) {
        const int64_t nseg = (R->n + SEG - 1) / SEG;
        C->msd = C->w >= 4 ? 12 : 8;
        C->nbk = (int64_t)1 << C->msd;
        /* the segments' histograms, the bucket starts, a running copy */
        s2 = ss_scratch(((nseg + 2) * C->nbk + 1) *
                        (int64_t)sizeof(uint32_t));
        if (!s2) {
            tl_tensor_decref(s1);
            return tl_error_kind();
        }
        C->seg_hist = (uint32_t *)tl_impl_data(s2);
        C->bucket_start = C->seg_hist + nseg * C->nbk;
        long_sort(C, pins, 4);
    } else {
        C->rows_per_task = ROW_WORK / (R->n ? R->n : 1) + 1;
        ss_parallel((C->nrows + C->rows_per_task - 1) / C->rows_per_task,
                    numel, sort_rows_task, C, pins, 4);
    }
    tl_tensor_decref(s2);
    tl_tensor_decref(s1);
    return 0;
}

int tl_sort(tl_tensor_impl *values_out, tl_tensor_impl *indices_out,
            tl_tensor_impl *a, int64_t dim, bool descending,
            tl_tensor_impl **values, tl_tensor_impl **indices)
{
    const char *name = values ? "sort" : "argsort";
    int d, rc;
    if ((rc = begin(name, a, dim, &d)) < 0) {
        return rc;
    }
    const int64_t n = a->ndim ? a->sizes[d] : 1;
    if (n > (int64_t)UINT32_MAX) {
        return tl_error(TL_ERR_OVERFLOW, "%s(): dim %d has %lld elements; "
                        "rows of at most 2^32 - 1 are sorted", name, d,
                        (long long)n);
    }
    bool rv = false, ri = false;
    if ((rc = check_pair_outs(name, values ? values_out : NULL, indices_out,
                              a, a->ndim, a->sizes, &rv, &ri)) < 0) {
        return rc;
    }
    ss_rows R;
    if ((rc = ss_rows_init(&R, a, d, (tl_dtype)a->dtype)) < 0) {
        return rc;
    }
    tl_tensor_impl *vt = NULL, *it = NULL;
    if (values) {
        vt = ss_empty_dim_last(a->ndim, a->sizes, d, (tl_dtype)a->dtype,
                               a->device);
    }
    it = ss_empty_dim_last(a->ndim, a->sizes, d, TL_DTYPE_INT64, a->device);
    if ((values && !vt) || !it) {
        goto fail;
    }
    if (a->numel > 0) {
        sort_ctx C;
        memset(&C, 0, sizeof C);
        C.R = &R;
        C.dt = (tl_dtype)a->dtype;
        C.w = ss_key_width(C.dt);
        C.isz = tl_itemsize(a->dtype);
        C.desc = descending;
        C.vals = vt ? tl_impl_data(vt) : NULL;
        C.ind = (int64_t *)tl_impl_data(it);
        C.m = R.n;
        if (run_sort(&C, &R, vt, it) < 0) {
            goto fail;
        }
    }
    ss_rows_free(&R);
    it = finish(it);
    if (!it) {
        tl_tensor_decref(vt);
        return tl_error_kind();
    }
    if (!values) {
        tl_tensor_impl *r = ss_commit(indices_out, ri, it);
        if (!r) {
            return tl_error_kind();
        }
        *indices = r;
        return 0;
    }
    vt = finish(vt);
    if (!vt) {
        tl_tensor_decref(it);
        return tl_error_kind();
    }
    return commit2(values_out, rv, indices_out, ri, vt, it, values, indices);
fail:
    ss_rows_free(&R);
    tl_tensor_decref(vt);
    tl_tensor_decref(it);
    return tl_error_kind();
}

/* ---- topk ---------------------------------------------------------------------- */

typedef struct topk_ctx {
    sort_ctx S;     /* R, dt, w, isz, vals, ind, m = k */
    int64_t k, nseg, seg;
    kp *cand;       /* nrows * nseg * k */
    int64_t *ncand; /* nrows * nseg */
} topk_ctx;

static void sift_down(kp *h, int64_t n, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, big = i;
        if (l < n && kp_lt(h[big], h[l])) {
            big = l;
        }
        if (l + 1 < n && kp_lt(h[big], h[l + 1])) {
            big = l + 1;
        }
        if (big == i) {
            return;
        }
        kp t = h[i];
        h[i] = h[big];
        h[big] = t;
        i = big;
    }
}

/* Whether any of keys [j, j + n) (width w) is below thr.  The heap top
 * rarely moves once the heap is full, so runs of keys are tested without
 * a branch per key and only a run with a candidate is walked. */
#define TOPK_RUN 32
static bool any_below(const void *keys, int w, int64_t j, int64_t n,
                      uint64_t thr)
{
    int m = 0;
    switch (w) {
#define ANY(W, T)                                                           \
    case W: {                                                               \
        const T *k = (const T *)keys + j;                                   \
        const T t = (T)thr;                                                 \
        for (int64_t i = 0; i < n; i++) {                                   \
            m |= k[i] < t;                                                  \
        }                                                                   \
        break;                                                              \
    }
        ANY(1, uint8_t)
        ANY(2, uint16_t)
        ANY(4, uint32_t)
        ANY(8, uint64_t)
#undef ANY
    default: m = 1; break;
    }
    return m != 0;
}

/* Segment c (row c / nseg): its k smallest (key, index) into cand. */
static void topk_seg_task(void *vc, int64_t c)
{
    topk_ctx *T = vc;
    const ss_rows *R = T->S.R;
    const int64_t r = c / T->nseg, s = c % T->nseg;
    const int64_t j0 = s * T->seg;
    const int64_t len = R->n - j0 < T->seg ? R->n - j0 : T->seg;
    const char *src = row_src(R, r, T->S.isz);
    kp *h = T->cand + c * T->k;
    int64_t hn = 0;
    uint64_t kb[256];
    const int w = T->S.w;
    for (int64_t b = j0; b < j0 + len; b += 256) {
        const int64_t bl = j0 + len - b < 256 ? j0 + len - b : 256;
        ss_make_keys(T->S.dt, src + b * R->inner * T->S.isz, R->inner, bl,
                     T->S.desc, kb);
        int64_t j = 0;
        for (; j < bl && hn < T->k; j++) {
            h[hn++] = (kp){key_at(kb, w, j), (uint64_t)(b + j)};
            if (hn == T->k) {
                for (int64_t i = T->k / 2; i-- > 0;) {
                    sift_down(h, hn, i);
                }
            }
        }
        for (; j < bl; j += TOPK_RUN) {
            const int64_t jl = bl - j < TOPK_RUN ? bl - j : TOPK_RUN;
            if (!any_below(kb, w, j, jl, h[0].k)) {
                continue;
            }
            for (int64_t q = j; q < j + jl; q++) {
                const kp e = {key_at(kb, w, q), (uint64_t)(b + q)};
                if (e.k < h[0].k) { /* later index: equal keys lose */
                    h[0] = e;
                    sift_down(h, hn, 0);
                }
            }
        }
    }
    T->ncand[c] = hn;
}

static int kp_cmp(const void *x, const void *y)
{
    const kp *a = x, *b = y;
    return kp_lt(*a, *b) ? -1 : kp_lt(*b, *a) ? 1 : 0;
}

/* Row c: merges its segments' candidates, emits the first k. */
static void topk_row_task(void *vc, int64_t r)
{
    topk_ctx *T = vc;
    kp *base = T->cand + r * T->nseg * T->k;
    int64_t m = 0;
    for (int64_t s = 0; s < T->nseg; s++) {
        const int64_t cnt = T->ncand[r * T->nseg + s];
        memmove(base + m, base + s * T->k, (size_t)cnt * sizeof(kp));
        m += cnt;
    }
    qsort(base, (size_t)m, sizeof(kp), kp_cmp);
    uint32_t idx[512];
    for (int64_t j = 0; j < T->k; j++) {
        idx[j] = (uint32_t)base[j].i;
    }
    emit_row(&T->S, r, idx);
}

int tl_topk(tl_tensor_impl *values_out, tl_tensor_impl *indices_out,
            tl_tensor_impl *a, int64_t k, int64_t dim, bool largest,
            bool sorted, tl_tensor_impl **values, tl_tensor_impl **indices)
{
    const char *name = "topk";
    int d, rc;
    (void)sorted; /* results are always sorted (PyTorch allows it) */
    if ((rc = begin(name, a, dim, &d)) < 0) {
        return rc;
    }
    const int64_t n = a->ndim ? a->sizes[d] : 1;
    if (k < 0 || k > n) {
        return tl_error(TL_ERR_INDEX, "topk(): k=%lld is out of range for "
                        "dim %d of size %lld (shape %s)", (long long)k, d,
                        (long long)n, tl_fmt_list(0, a->ndim, a->sizes));
    }
    if (n > (int64_t)UINT32_MAX) {
        return tl_error(TL_ERR_OVERFLOW, "topk(): dim %d has %lld "
                        "elements; at most 2^32 - 1 are supported", d,
                        (long long)n);
    }
    int64_t rs[TL_MAX_DIMS];
    memcpy(rs, a->sizes, sizeof(int64_t) * (size_t)a->ndim);
    if (a->ndim) {
        rs[d] = k;
    }
    bool rv, ri;
    if ((rc = check_pair_outs(name, values_out, indices_out, a, a->ndim, rs,
                              &rv, &ri)) < 0) {
        return rc;
    }
    ss_rows R;
    if ((rc = ss_rows_init(&R, a, d, (tl_dtype)a->dtype)) < 0) {
        return rc;
    }
    tl_tensor_impl *vt = ss_empty_dim_last(a->ndim, rs, d, (tl_dtype)a->dtype,
                                           a->device);
    tl_tensor_impl *it = ss_empty_dim_last(a->ndim, rs, d, TL_DTYPE_INT64,
                                           a->device);
    tl_tensor_impl *sc = NULL;
    if (!vt || !it) {
        goto fail;
    }
    if (vt->numel > 0) {
        topk_ctx T;
        memset(&T, 0, sizeof T);
        T.S.R = &R;
        T.S.dt = (tl_dtype)a->dtype;
        T.S.w = ss_key_width(T.S.dt);
        T.S.isz = tl_itemsize(a->dtype);
        T.S.desc = largest;
        T.S.vals = tl_impl_data(vt);
        T.S.ind = (int64_t *)tl_impl_data(it);
        /* a 0-d input has one element to give, whatever k (PyTorch) */
        const int64_t kk = a->ndim ? k : 1;
        T.S.m = kk;
        T.k = kk;
        k = kk;
        const int64_t nrows = R.outer * R.inner;
        if (k <= HEAP_K && k * 8 < n) {
            T.seg = SEG > k * 16 ? SEG : k * 16;
            T.nseg = (n + T.seg - 1) / T.seg;
            sc = ss_scratch(nrows * T.nseg *
                            (k * (int64_t)sizeof(kp) + 8));
            if (!sc) {
                goto fail;
            }
            T.cand = (kp *)tl_impl_data(sc);
            T.ncand = (int64_t *)(T.cand + nrows * T.nseg * k);
            tl_tensor_impl *pins[4] = {R.t, vt, it, sc};
            ss_parallel(nrows * T.nseg, nrows * n, topk_seg_task, &T, pins,
                        4);
            ss_parallel(nrows, nrows * T.nseg * k * 8, topk_row_task, &T,
                        pins, 4);
        } else if (run_sort(&T.S, &R, vt, it) < 0) {
            goto fail;
        }
    }
    tl_tensor_decref(sc);
    ss_rows_free(&R);
    vt = finish(vt);
    it = finish(it);
    if (!vt || !it) {
        tl_tensor_decref(vt);
        tl_tensor_decref(it);
        return tl_error_kind();
    }
    return commit2(values_out, rv, indices_out, ri, vt, it, values, indices);
fail:
    tl_tensor_decref(sc);
    ss_rows_free(&R);
    tl_tensor_decref(vt);
    tl_tensor_decref(it);
    return tl_error_kind();
}

/* ---- selection: kthvalue, median, nanmedian, mode -------------------------------- */

/* Rearranges p so that p[t] is the t-th smallest, smaller before it. */
static void kp_select(kp *p, int64_t n, int64_t t)
{
    int64_t lo = 0, hi = n - 1;
    while (hi > lo) {
        if (hi - lo < 16) {
            for (int64_t i = lo + 1; i <= hi; i++) {
                kp v = p[i];
                int64_t j = i;
                while (j > lo && kp_lt(v, p[j - 1])) {
                    p[j] = p[j - 1];
                    j--;
                }
                p[j] = v;
            }
            return;
        }
        /* median of three as the pivot */
        const int64_t mid = lo + (hi - lo) / 2;
        kp a = p[lo], b = p[mid], c = p[hi];
        kp piv = kp_lt(a, b) ? (kp_lt(b, c) ? b : (kp_lt(a, c) ? c : a))
                             : (kp_lt(a, c) ? a : (kp_lt(b, c) ? c : b));
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (kp_lt(p[i], piv)) {
                i++;
            }
            while (kp_lt(piv, p[j])) {
                j--;
            }
            if (i <= j) {
                kp tmp = p[i];
                p[i] = p[j];
                p[j] = tmp;
                i++;
                j--;
            }
        }
        if (t <= j) {
            hi = j;
        } else if (t >= i) {
            lo = i;
        } else {
            return;
        }
    }
}

typedef struct sel_ctx {
    const ss_rows *R;
    tl_dtype dt;
    int w, op;
    int64_t isz, k;
    kp *pairs;     /* per row, n */
    char *keys, *tmpk;
    uint32_t *idx, *tmpi;
    char *vals;
    int64_t *ind;
} sel_ctx;

static void sel_task(void *vc, int64_t r)
{
    sel_ctx *C = vc;
    const ss_rows *R = C->R;
    const int64_t n = R->n;
    const char *src = row_src(R, r, C->isz);
    const int64_t st = R->inner * C->isz;
    int64_t pick = -1;
    if (C->op == TL_SELECT_MODE) {
        char *k = C->keys + r * n * C->w;
        uint32_t *ix = C->idx + r * n;
        ss_make_keys(C->dt, src, R->inner, n, false, k);
        for (int64_t j = 0; j < n; j++) {
            ix[j] = (uint32_t)j;
        }
        ss_sort_pairs(C->w, k, ix, n, C->tmpk + r * n * C->w,
                      C->tmpi + r * n);
        int64_t best = 0, j = 0;
        while (j < n) {
            const uint64_t kv = key_at(k, C->w, j);
            int64_t e = j + 1;
            if (!ss_key_is_nan(C->dt, kv)) {
                while (e < n && key_at(k, C->w, e) == kv) {
                    e++;
                }
            }
            if (e - j > best) {
                best = e - j;
                pick = ix[e - 1];
            }
            j = e;
        }
    } else {
        kp *p = C->pairs + r * n;
        uint64_t kb[256];
        int64_t nnan = 0, first_nan = -1;
        for (int64_t b = 0; b < n; b += 256) {
            const int64_t bl = n - b < 256 ? n - b : 256;
            ss_make_keys(C->dt, src + b * st, R->inner, bl, false, kb);
            for (int64_t j = 0; j < bl; j++) {
                const uint64_t kv = key_at(kb, C->w, j);
                p[b + j].k = kv;
                p[b + j].i = (uint64_t)(b + j);
                if (ss_key_is_nan(C->dt, kv)) {
                    if (first_nan < 0) {
                        first_nan = b + j;
                    }
                    nnan++;
                }
            }
        }
        int64_t t;
        if (C->op == TL_SELECT_KTH) {
            t = C->k - 1;
        } else if (C->op == TL_SELECT_MEDIAN) {
            t = nnan ? -1 : (n - 1) / 2;
            pick = first_nan;
        } else {
            t = nnan == n ? -1 : (n - nnan - 1) / 2;
            pick = first_nan;
        }
        if (t >= 0) {
            kp_select(p, n, t);
            pick = (int64_t)p[t].i;
        }
    }
    copy_elem(C->vals + r * C->isz, src + pick * st, C->isz);
    C->ind[r] = pick;
}

static const char *select_name(int op)
{
    switch (op) {
    case TL_SELECT_KTH: return "kthvalue";
    case TL_SELECT_MEDIAN: return "median";
    case TL_SELECT_NANMEDIAN: return "nanmedian";
    default: return "mode";
    }
}

int tl_select(int op, tl_tensor_impl *values_out,
              tl_tensor_impl *indices_out, tl_tensor_impl *a, int64_t k,
              int64_t dim, bool keepdim, tl_tensor_impl **values,
              tl_tensor_impl **indices)
{
    if (op < TL_SELECT_KTH || op > TL_SELECT_MODE) {
        return tl_error(TL_ERR_VALUE, "tl_select: bad op %d", op);
    }
    const char *name = select_name(op);
    int d, rc;
    if ((rc = begin(name, a, dim, &d)) < 0) {
        return rc;
    }
    const int64_t n = a->ndim ? a->sizes[d] : 1;
    if (op == TL_SELECT_KTH && (k < 1 || k > n)) {
        return tl_error(TL_ERR_INDEX, "kthvalue(): k=%lld is out of range "
                        "for dim %d of size %lld (k counts from 1)",
                        (long long)k, d, (long long)n);
    }
    if (n == 0) {
        return tl_error(TL_ERR_SHAPE, "%s(): dim %d of shape %s has size 0, "
                        "and %s has no value for an empty dim", name, d,
                        tl_fmt_list(0, a->ndim, a->sizes), name);
    }
    if (n > (int64_t)UINT32_MAX) {
        return tl_error(TL_ERR_OVERFLOW, "%s(): dim %d has %lld elements; "
                        "at most 2^32 - 1 are supported", name, d,
                        (long long)n);
    }
    int64_t rs[TL_MAX_DIMS];
    int rnd = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (i != d) {
            rs[rnd++] = a->sizes[i];
        } else if (keepdim) {
            rs[rnd++] = 1;
        }
    }
    bool rv, ri;
    if ((rc = check_pair_outs(name, values_out, indices_out, a, rnd, rs, &rv,
                              &ri)) < 0) {
        return rc;
    }
    ss_rows R;
    if ((rc = ss_rows_init(&R, a, d, (tl_dtype)a->dtype)) < 0) {
        return rc;
    }
    tl_tensor_impl *vt = tl_tensor_empty(rnd, rs, (tl_dtype)a->dtype,
                                         a->device, TL_MEMKIND_DEFAULT);
    tl_tensor_impl *it = tl_tensor_empty(rnd, rs, TL_DTYPE_INT64, a->device,
                                         TL_MEMKIND_DEFAULT);
    tl_tensor_impl *sc = NULL;
    if (!vt || !it) {
        goto fail;
    }
    const int64_t nrows = R.outer * R.inner;
    if (nrows > 0) {
        sel_ctx C;
        memset(&C, 0, sizeof C);
        C.R = &R;
        C.dt = (tl_dtype)a->dtype;
        C.w = ss_key_width(C.dt);
        C.isz = tl_itemsize(a->dtype);
        C.op = op;
        C.k = k;
        const int64_t numel = nrows * n;
        const int64_t kb = SS_ALIGN8(numel * C.w);
        sc = ss_scratch(op == TL_SELECT_MODE ? 2 * kb + numel * 8
                                             : numel * (int64_t)sizeof(kp));
        if (!sc) {
            goto fail;
        }
        char *p = tl_impl_data(sc);
        if (op == TL_SELECT_MODE) {
            C.keys = p;
            C.tmpk = p + kb;
            C.idx = (uint32_t *)(p + 2 * kb);
            C.tmpi = C.idx + numel;
        } else {
            C.pairs = (kp *)p;
        }
        C.vals = tl_impl_data(vt);
        C.ind = (int64_t *)tl_impl_data(it);
        tl_tensor_impl *pins[4] = {R.t, vt, it, sc};
        ss_parallel(nrows, numel, sel_task, &C, pins, 4);
    }
    tl_tensor_decref(sc);
    ss_rows_free(&R);
    return commit2(values_out, rv, indices_out, ri, vt, it, values, indices);
fail:
    tl_tensor_decref(sc);
    ss_rows_free(&R);
    tl_tensor_decref(vt);
    tl_tensor_decref(it);
    return tl_error_kind();
}

/* A contiguous 1-d view of every element of a.  Returns: new reference,
 * or NULL. */
static tl_tensor_impl *flat(tl_tensor_impl *a)
{
    tl_tensor_impl *c = tl_op_contiguous(a, TL_FORMAT_CONTIGUOUS);
    if (!c) {
        return NULL;
    }
    const int64_t n = a->numel;
    tl_tensor_impl *v = tl_view_view(c, 1, &n);
    tl_tensor_decref(c);
    return v;
}

tl_tensor_impl *tl_median_all(tl_tensor_impl *a, bool ignore_nan)
{
    const char *name = ignore_nan ? "nanmedian" : "median";
    int d;
    if (begin(name, a, 0, &d) < 0) {
        return NULL;
    }
    if (a->numel == 0) {
        tl_tensor_impl *r = tl_tensor_empty(0, NULL, (tl_dtype)a->dtype,
                                            a->device, TL_MEMKIND_DEFAULT);
        tl_scalar s = tl_scalar_float(NAN);
        if (r && tl_dtype_is_floating((tl_dtype)a->dtype) &&
            tl_op_fill_(r, &s) < 0) {
            tl_tensor_decref(r);
            return NULL;
        }
        if (r && !tl_dtype_is_floating((tl_dtype)a->dtype)) {
            tl_tensor_decref(r);
            tl_error(TL_ERR_SHAPE, "%s(): the input of shape %s is empty, "
                     "and an integer median of no elements has no value",
                     name, tl_fmt_list(0, a->ndim, a->sizes));
            return NULL;
        }
        return r;
    }
    tl_tensor_impl *f = flat(a);
    if (!f) {
        return NULL;
    }
    tl_tensor_impl *v = NULL, *ix = NULL;
    int rc = tl_select(ignore_nan ? TL_SELECT_NANMEDIAN : TL_SELECT_MEDIAN,
                       NULL, NULL, f, 0, 0, false, &v, &ix);
    tl_tensor_decref(f);
    if (rc < 0) {
        return NULL;
    }
    tl_tensor_decref(ix);
    return v;
}

/* ---- quantile ---------------------------------------------------------------- */

typedef struct q_ctx {
    const ss_rows *R;
    tl_dtype dt;
    int interp;
    bool ignore_nan;
    const char *q;  /* nq values of dt */
    int64_t nq, nrows;
    kp *pairs;
    char *res;      /* nq * nrows of dt */
} q_ctx;

#define Q_ROW(NAME, T)                                                      \
    static void NAME(q_ctx *C, int64_t r)                                   \
    {                                                                       \
        const ss_rows *R = C->R;                                            \
        const int64_t n = R->n;                                             \
        const T *src = (const T *)row_src(R, r, sizeof(T));                 \
        kp *p = C->pairs + r * n;                                           \
        uint64_t kb[256];                                                   \
        int64_t nnan = 0;                                                   \
        for (int64_t b = 0; b < n; b += 256) {                              \
            const int64_t bl = n - b < 256 ? n - b : 256;                   \
            ss_make_keys(C->dt, (const char *)(src + b * R->inner),         \
                         R->inner, bl, false, kb);                          \
            for (int64_t j = 0; j < bl; j++) {                              \
                p[b + j].k = key_at(kb, (int)sizeof(T), j);                 \
                p[b + j].i = (uint64_t)(b + j);                             \
                nnan += ss_key_is_nan(C->dt, p[b + j].k);                   \
            }                                                               \
        }                                                                   \
        T *out = (T *)C->res;                                               \
        const int64_t m = C->ignore_nan ? n - nnan : n;                     \
        if ((!C->ignore_nan && nnan) || m == 0) {                           \
            for (int64_t qi = 0; qi < C->nq; qi++) {                        \
                out[qi * C->nrows + r] = (T)NAN;                            \
            }                                                               \
            return;                                                         \
        }                                                                   \
        qsort(p, (size_t)n, sizeof(kp), kp_cmp);                            \
        const T last = (T)(m - 1);                                          \
        for (int64_t qi = 0; qi < C->nq; qi++) {                            \
            const T q = ((const T *)C->q)[qi];                              \
            T rank = q * last;                                              \
            switch (C->interp) {                                            \
            case TL_INTERP_LOWER: rank = floor(rank); break;                \
            case TL_INTERP_HIGHER: rank = ceil(rank); break;                \
            case TL_INTERP_NEAREST: rank = nearbyint(rank); break;          \
            default: break;                                                 \
            }                                                               \
            const int64_t lo = (int64_t)rank;                               \
            int64_t hi = (int64_t)ceil(rank);                               \
            hi = hi > m - 1 ? m - 1 : hi;                                   \
            const T below = src[p[lo].i * R->inner];                        \
            T v = below;                                                    \
            if (C->interp == TL_INTERP_LINEAR ||                            \
                C->interp == TL_INTERP_MIDPOINT) {                          \
                const T above = src[p[hi].i * R->inner];                    \
                const T wgt = C->interp == TL_INTERP_MIDPOINT               \
                                  ? (T)0.5                                  \
                                  : rank - (T)lo;                           \
                v = fabs((double)wgt) < 0.5                                 \
                        ? below + wgt * (above - below)                     \
                        : above - (above - below) * ((T)1 - wgt);           \
            }                                                               \
            out[qi * C->nrows + r] = v;                                     \
        }                                                                   \
    }
Q_ROW(q_row_f32, float)
Q_ROW(q_row_f64, double)

static void q_task(void *vc, int64_t r)
{
    q_ctx *C = vc;
    if (C->dt == TL_DTYPE_FLOAT32) {
        q_row_f32(C, r);
    } else {
        q_row_f64(C, r);
    }
}

static const char *q_name(bool ignore_nan)
{
    return ignore_nan ? "nanquantile" : "quantile";
}

tl_tensor_impl *tl_quantile(tl_tensor_impl *out, tl_tensor_impl *a,
                            tl_tensor_impl *q, const int64_t *dim,
                            bool keepdim, int interpolation, bool ignore_nan)
{
    const char *name = q_name(ignore_nan);
    int d = 0;
    if (!a || !q) {
        tl_error(TL_ERR_VALUE, "%s(): an operand is NULL", name);
        return NULL;
    }
    if (tl_tensor_check_live(a) < 0 || tl_tensor_check_live(q) < 0 ||
        tl_device_cpu_only(a, name) < 0 || tl_device_cpu_only(q, name) < 0) {
        return NULL;
    }
    if (a->dtype != TL_DTYPE_FLOAT32 && a->dtype != TL_DTYPE_FLOAT64) {
        tl_error(TL_ERR_TYPE, "%s(): input tensor must be either float or "
                 "double dtype, got %s", name, tl_dtype_table[a->dtype].name);
        return NULL;
    }
    if (q->dtype != a->dtype) {
        tl_error(TL_ERR_TYPE, "%s(): q tensor must be same dtype as the "
                 "input tensor (%s), got %s", name,
                 tl_dtype_table[a->dtype].name,
                 tl_dtype_table[q->dtype].name);
        return NULL;
    }
    if (q->ndim > 1) {
        tl_error(TL_ERR_SHAPE, "%s(): q must be a scalar or 1D tensor, got "
                 "shape %s", name, tl_fmt_list(0, q->ndim, q->sizes));
        return NULL;
    }
    if (interpolation < TL_INTERP_LINEAR ||
        interpolation > TL_INTERP_NEAREST) {
        tl_error(TL_ERR_VALUE, "%s(): bad interpolation %d", name,
                 interpolation);
        return NULL;
    }
    if (dim && tl_wrap_dim(*dim, a->ndim, &d) < 0) {
        return NULL;
    }
    tl_tensor_impl *qc = tl_op_contiguous(q, TL_FORMAT_CONTIGUOUS);
    if (!qc) {
        return NULL;
    }
    const int64_t nq = q->numel;
    for (int64_t i = 0; i < nq; i++) {
        const double v = a->dtype == TL_DTYPE_FLOAT32
                             ? ((const float *)tl_impl_data(qc))[i]
                             : ((const double *)tl_impl_data(qc))[i];
        if (!(v >= 0 && v <= 1)) {
            tl_tensor_decref(qc);
            tl_error(TL_ERR_VALUE, "%s(): q values must be in the range "
                     "[0, 1], got %g", name, v);
            return NULL;
        }
    }
    /* result shape: q's dim, then the reduced shape */
    int64_t rs[TL_MAX_DIMS + 1];
    int rnd = 0;
    if (q->ndim == 1) {
        rs[rnd++] = nq;
    }
    for (int i = 0; i < a->ndim; i++) {
        if (dim && i != d) {
            rs[rnd++] = a->sizes[i];
        } else if (keepdim) {
            rs[rnd++] = 1;
        }
    }
    const int64_t n = dim ? (a->ndim ? a->sizes[d] : 1) : a->numel;
    if (n == 0) {
        tl_tensor_decref(qc);
        tl_error(TL_ERR_SHAPE, "%s(): input tensor of shape %s is empty "
                 "along the reduced dims", name,
                 tl_fmt_list(0, a->ndim, a->sizes));
        return NULL;
    }
    bool resize;
    if (rnd > TL_MAX_DIMS ||
        ss_check_out(name, out, a, rnd, rs, (tl_dtype)a->dtype, &resize) <
            0) {
        if (rnd > TL_MAX_DIMS) {
            tl_error(TL_ERR_SHAPE, "%s(): the result would have %d dims",
                     name, rnd);
        }
        tl_tensor_decref(qc);
        return NULL;
    }
    tl_tensor_impl *src = dim ? (tl_tensor_incref(a), a) : flat(a);
    ss_rows R;
    memset(&R, 0, sizeof R);
    tl_tensor_impl *res = NULL, *sc = NULL;
    if (!src || ss_rows_init(&R, src, dim ? d : 0, (tl_dtype)a->dtype) < 0) {
        goto fail;
    }
    res = tl_tensor_empty(rnd, rs, (tl_dtype)a->dtype, a->device,
                          TL_MEMKIND_DEFAULT);
    const int64_t nrows = R.outer * R.inner;
    sc = ss_scratch(nrows * n * (int64_t)sizeof(kp));
    if (!res || !sc) {
        goto fail;
    }
    if (res->numel > 0) {
        q_ctx C = {&R, (tl_dtype)a->dtype, interpolation, ignore_nan,
                   tl_impl_data(qc), nq, nrows, (kp *)tl_impl_data(sc),
                   tl_impl_data(res)};
        tl_tensor_impl *pins[4] = {R.t, res, sc, qc};
        ss_parallel(nrows, nrows * n * 8, q_task, &C, pins, 4);
    }
    tl_tensor_decref(sc);
    ss_rows_free(&R);
    tl_tensor_decref(src);
    tl_tensor_decref(qc);
    return ss_commit(out, resize, res);
fail:
    tl_tensor_decref(sc);
    tl_tensor_decref(res);
    ss_rows_free(&R);
    tl_tensor_decref(src);
    tl_tensor_decref(qc);
    return NULL;
}
