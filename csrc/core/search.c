/* csrc/core/search.c — unique and unique_consecutive (of every element or
 * of slices along a dim), searchsorted (and so bucketize), isin and
 * count_nonzero.  Comparisons go through order keys (ss_make_keys): -0
 * equals +0, and a NaN equals nothing (each NaN is its own unique value,
 * is in no set, and sorts after every boundary). */
#include <math.h>
#include <string.h>

#include "device_impl.h"
#include "shape.h"
#include "sortscan_impl.h"
#include "tensorlib/index.h"
#include "tensorlib/ops.h"
#include "tensorlib/reduce.h"
#include "tensorlib/view.h"

static inline uint64_t key_at(const void *keys, int w, int64_t i)
{
    switch (w) {
    case 1: return ((const uint8_t *)keys)[i];
    case 2: return ((const uint16_t *)keys)[i];
    case 4: return ((const uint32_t *)keys)[i];
    default: return ((const uint64_t *)keys)[i];
    }
}

static int begin(const char *name, tl_tensor_impl *a)
{
    int rc;
    if (!a) {
        return tl_error(TL_ERR_VALUE, "%s(): an operand is NULL", name);
    }
    if ((rc = tl_tensor_check_live(a)) < 0 ||
        (rc = tl_device_cpu_only(a, name)) < 0) {
        return rc;
    }
    return 0;
}

/* a contiguous in dtype dt (a itself when it already is).
 * Returns: new reference, or NULL. */
static tl_tensor_impl *dense(tl_tensor_impl *a, tl_dtype dt)
{
    if (a->dtype == (int)dt && (a->flags & TL_FLAG_CONTIGUOUS) &&
        (a->flags & TL_FLAG_ALIGNED)) {
        tl_tensor_incref(a);
        return a;
    }
    tl_tensor_impl *t = tl_tensor_empty(a->ndim, a->sizes, dt, a->device,
                                        TL_MEMKIND_DEFAULT);
    if (t && a->numel > 0 && tl_copy_unchecked(t, a) < 0) {
        tl_tensor_decref(t);
        return NULL;
    }
    return t;
}

/* ---- unique ------------------------------------------------------------------- */

/* Stable merge sort of row numbers by their key rows (rest keys each). */
typedef struct rowcmp {
    const char *keys;
    int w;
    int64_t rest;
} rowcmp;

static int row_cmp(const rowcmp *C, uint32_t a, uint32_t b)
{
    for (int64_t j = 0; j < C->rest; j++) {
        const uint64_t x = key_at(C->keys, C->w, (int64_t)a * C->rest + j);
        const uint64_t y = key_at(C->keys, C->w, (int64_t)b * C->rest + j);
        if (x != y) {
            return x < y ? -1 : 1;
        }
    }
    return 0;
}

static void row_msort(const rowcmp *C, uint32_t *v, uint32_t *tmp, int64_t n)
{
    if (n < 2) {
        return;
    }
    if (n <= 16) {
        for (int64_t i = 1; i < n; i++) {
            uint32_t x = v[i];
            int64_t j = i;
            while (j > 0 && row_cmp(C, v[j - 1], x) > 0) {
                v[j] = v[j - 1];
                j--;
            }
            v[j] = x;
        }
        return;
    }
    const int64_t h = n / 2;
    row_msort(C, v, tmp, h);
    row_msort(C, v + h, tmp, n - h);
    memcpy(tmp, v, (size_t)h * sizeof *v);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        v[k++] = row_cmp(C, v[j], tmp[i]) < 0 ? v[j++] : tmp[i++];
    }
    while (i < h) {
        v[k++] = tmp[i++];
    }
}

/* Whether key rows a and b are equal (no NaN in either). */
static bool rows_equal(const rowcmp *C, tl_dtype dt, uint32_t a, uint32_t b)
{
    for (int64_t j = 0; j < C->rest; j++) {
        const uint64_t x = key_at(C->keys, C->w, (int64_t)a * C->rest + j);
        if (x != key_at(C->keys, C->w, (int64_t)b * C->rest + j) ||
            ss_key_is_nan(dt, x)) {
            return false;
        }
    }
    return true;
}

int tl_unique(tl_tensor_impl *a, bool consecutive, const int64_t *dim,
              tl_tensor_impl **values, tl_tensor_impl **inverse,
              tl_tensor_impl **counts)
{
    const char *name = consecutive ? "unique_consecutive" : "unique";
    int rc, d = 0;
    if ((rc = begin(name, a)) < 0 ||
        (rc = ss_check_sortable(name, (tl_dtype)a->dtype)) < 0) {
        return rc;
    }
    if (dim) {
        if (a->ndim == 0) {
            return tl_error(TL_ERR_INDEX, "%s(): a 0-d tensor has no dim "
                            "%lld", name, (long long)*dim);
        }
        if ((rc = tl_wrap_dim(*dim, a->ndim, &d)) < 0) {
            return rc;
        }
    }
    const tl_dtype dt = (tl_dtype)a->dtype;
    const int w = ss_key_width(dt);
    const int64_t isz = tl_itemsize(dt);
    /* rows: the slices along d (dim given) or single elements */
    tl_tensor_impl *src = NULL, *sc = NULL, *v = NULL, *inv = NULL,
                   *cnt = NULL;
    int64_t n, rest;
    int perm[TL_MAX_DIMS];
    if (dim) {
        for (int i = 0, j = 1; i < a->ndim; i++) {
            if (i != d) {
                perm[j++] = i;
            }
        }
        perm[0] = d;
        tl_tensor_impl *pv = tl_view_permute(a, perm);
        if (!pv) {
            return tl_error_kind();
        }
        src = dense(pv, dt);
        tl_tensor_decref(pv);
        n = a->sizes[d];
        rest = n ? a->numel / n : 0;
        if (n == 0) {
            rest = 1;
            for (int i = 0; i < a->ndim; i++) {
                rest *= i == d ? 1 : a->sizes[i];
            }
        }
    } else {
        src = dense(a, dt);
        n = a->numel;
        rest = 1;
    }
    if (!src) {
        return tl_error_kind();
    }
    if (n > (int64_t)UINT32_MAX) {
        tl_tensor_decref(src);
        return tl_error(TL_ERR_OVERFLOW, "%s(): %lld rows; at most 2^32 - 1 "
                        "are supported", name, (long long)n);
    }
    const int64_t nk = n * rest;
    const int64_t kb = SS_ALIGN8(nk * w);
    sc = ss_scratch(2 * kb + 3 * n * (int64_t)sizeof(uint32_t) + 8);
    if (!sc) {
        goto fail;
    }
    char *keys = tl_impl_data(sc);
    char *tmpk = keys + kb;
    uint32_t *idx = (uint32_t *)(tmpk + kb);
    uint32_t *tmpi = idx + n;
    uint32_t *grp = tmpi + n; /* the first sorted position of each group */
    const char *sd = tl_impl_data(src);
    ss_make_keys(dt, sd, 1, nk, false, keys);
    for (int64_t j = 0; j < n; j++) {
        idx[j] = (uint32_t)j;
    }
    rowcmp C = {keys, w, rest};
    if (!consecutive) {
        if (dim) {
            row_msort(&C, idx, tmpi, n);
        } else {
            ss_sort_pairs(w, keys, idx, n, tmpk, tmpi);
        }
    }
    /* groups: keys (when sorted without dim) are in sorted order */
    int64_t ng = 0;
    for (int64_t j = 0; j < n; j++) {
        bool same;
        if (j == 0) {
            same = false;
        } else if (dim) {
            same = rows_equal(&C, dt, idx[j - 1], idx[j]);
        } else {
            const uint64_t x = key_at(keys, w, j);
            same = x == key_at(keys, w, j - 1) && !ss_key_is_nan(dt, x);
        }
        if (!same) {
            grp[ng++] = (uint32_t)j;
        }
    }
    /* values */
    int64_t vs[TL_MAX_DIMS];
    int vnd;
    if (dim) {
        vnd = a->ndim;
        vs[0] = ng;
        for (int i = 1; i < a->ndim; i++) {
            vs[i] = a->sizes[perm[i]];
        }
    } else {
        vnd = 1;
        vs[0] = ng;
    }
    v = tl_tensor_empty(vnd, vs, dt, a->device, TL_MEMKIND_DEFAULT);
    if (!v) {
        goto fail;
    }
    char *vd = tl_impl_data(v);
    for (int64_t g = 0; g < ng; g++) {
        memcpy(vd + g * rest * isz, sd + (int64_t)idx[grp[g]] * rest * isz,
               (size_t)(rest * isz));
    }
    if (inverse) {
        inv = dim ? tl_tensor_empty(1, &n, TL_DTYPE_INT64, a->device,
                                    TL_MEMKIND_DEFAULT)
                  : tl_tensor_empty(a->ndim, a->sizes, TL_DTYPE_INT64,
                                    a->device, TL_MEMKIND_DEFAULT);
        if (!inv) {
            goto fail;
        }
        int64_t *iv = (int64_t *)tl_impl_data(inv);
        for (int64_t g = 0; g < ng; g++) {
            const int64_t e = g + 1 < ng ? grp[g + 1] : n;
            for (int64_t j = grp[g]; j < e; j++) {
                iv[idx[j]] = g;
            }
        }
    }
    if (counts) {
        cnt = tl_tensor_empty(1, &ng, TL_DTYPE_INT64, a->device,
                              TL_MEMKIND_DEFAULT);
        if (!cnt) {
            goto fail;
        }
        int64_t *cv = (int64_t *)tl_impl_data(cnt);
        for (int64_t g = 0; g < ng; g++) {
            cv[g] = (g + 1 < ng ? grp[g + 1] : n) - (int64_t)grp[g];
        }
    }
    tl_tensor_decref(sc);
    tl_tensor_decref(src);
    sc = src = NULL;
    if (dim && d != 0) {
        /* the slices' dim back to d */
        int back[TL_MAX_DIMS];
        for (int i = 0; i < a->ndim; i++) {
            back[perm[i]] = i;
        }
        tl_tensor_impl *pv = tl_view_permute(v, back);
        tl_tensor_impl *c =
            pv ? tl_op_contiguous(pv, TL_FORMAT_CONTIGUOUS) : NULL;
        tl_tensor_decref(pv);
        tl_tensor_decref(v);
        v = c;
        if (!v) {
            goto fail;
        }
    }
    *values = v;
    if (inverse) {
        *inverse = inv;
    }
    if (counts) {
        *counts = cnt;
    }
    return 0;
fail:
    tl_tensor_decref(sc);
    tl_tensor_decref(src);
    tl_tensor_decref(v);
    tl_tensor_decref(inv);
    tl_tensor_decref(cnt);
    return tl_error_kind();
}

/* ---- searchsorted ----------------------------------------------------------- */

typedef struct ss_ctx {
    const char *skeys;  /* nrow * L keys */
    const char *vkeys;  /* nrow * nv keys */
    tl_dtype dt;
    int w;
    int64_t L, nv, per_task, total;
    bool right, i32;
    char *out;
} srch_ctx;

static void srch_task(void *vc, int64_t c)
{
    const srch_ctx *C = vc;
    int64_t e0 = c * C->per_task, e1 = e0 + C->per_task;
    e1 = e1 > C->total ? C->total : e1;
    for (int64_t e = e0; e < e1; e++) {
        const int64_t row = C->nv ? e / C->nv : 0;
        const uint64_t v = key_at(C->vkeys, C->w, e);
        int64_t lo = 0, hi = C->L;
        if (ss_key_is_nan(C->dt, v)) {
            lo = C->L; /* a NaN goes after everything (as PyTorch) */
        } else {
            const int64_t base = row * C->L;
            while (lo < hi) {
                const int64_t mid = lo + (hi - lo) / 2;
                const uint64_t s = key_at(C->skeys, C->w, base + mid);
                if (C->right ? s <= v : s < v) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
        }
        if (C->i32) {
            ((int32_t *)C->out)[e] = (int32_t)lo;
        } else {
            ((int64_t *)C->out)[e] = lo;
        }
    }
}

tl_tensor_impl *tl_searchsorted(tl_tensor_impl *out, tl_tensor_impl *seq,
                                tl_tensor_impl *values, bool right,
                                tl_tensor_impl *sorter, bool out_int32)
{
    const char *name = "searchsorted";
    if (begin(name, seq) < 0 || begin(name, values) < 0 ||
        (sorter && begin(name, sorter) < 0)) {
        return NULL;
    }
    if (seq->ndim == 0) {
        tl_error(TL_ERR_SHAPE, "searchsorted(): boundaries tensor should be "
                 "1 dimension or more, got a 0-d tensor");
        return NULL;
    }
    bool lead_ok = seq->ndim == 1 || seq->ndim == values->ndim;
    for (int i = 0; lead_ok && seq->ndim > 1 && i < seq->ndim - 1; i++) {
        lead_ok = seq->sizes[i] == values->sizes[i];
    }
    if (!lead_ok) {
        tl_error(TL_ERR_SHAPE, "searchsorted(): boundaries tensor should be "
                 "1 dimension or the first N-1 dimensions of boundaries "
                 "tensor and input value tensor must match, but we got "
                 "boundaries tensor %s and input value tensor %s",
                 tl_fmt_list(0, seq->ndim, seq->sizes),
                 tl_fmt_list(1, values->ndim, values->sizes));
        return NULL;
    }
    tl_tensor_impl *ops[2] = {seq, values};
    const tl_dtype ct = tl_result_type(2, ops);
    if (ss_check_sortable(name, ct) < 0) {
        return NULL;
    }
    if (sorter) {
        bool same = sorter->ndim == seq->ndim;
        for (int i = 0; same && i < seq->ndim; i++) {
            same = sorter->sizes[i] == seq->sizes[i];
        }
        if (sorter->dtype != TL_DTYPE_INT64) {
            tl_error(TL_ERR_TYPE, "searchsorted(): sorter must be a tensor "
                     "of long dtype, got %s",
                     tl_dtype_table[sorter->dtype].name);
            return NULL;
        }
        if (!same) {
            tl_error(TL_ERR_SHAPE, "searchsorted(): boundaries and sorter "
                     "must have the same size, got %s and %s",
                     tl_fmt_list(0, seq->ndim, seq->sizes),
                     tl_fmt_list(1, sorter->ndim, sorter->sizes));
            return NULL;
        }
    }
    const tl_dtype rt = out_int32 ? TL_DTYPE_INT32 : TL_DTYPE_INT64;
    bool resize;
    if (ss_check_out(name, out, values, values->ndim, values->sizes, rt,
                     &resize) < 0) {
        return NULL;
    }
    const int64_t L = seq->sizes[seq->ndim - 1];
    const int64_t nrow = L ? seq->numel / L : 0;
    tl_tensor_impl *sd = dense(seq, ct), *vd = dense(values, ct);
    tl_tensor_impl *so = sorter ? dense(sorter, TL_DTYPE_INT64) : NULL;
    tl_tensor_impl *res = NULL, *sc = NULL;
    if (!sd || !vd || (sorter && !so)) {
        goto fail;
    }
    const int w = ss_key_width(ct);
    const int64_t isz = tl_itemsize(ct);
    sc = ss_scratch((seq->numel + values->numel) * w);
    res = tl_tensor_empty(values->ndim, values->sizes, rt, values->device,
                          TL_MEMKIND_DEFAULT);
    if (!sc || !res) {
        goto fail;
    }
    char *skeys = tl_impl_data(sc);
    char *vkeys = skeys + seq->numel * w;
    if (so) {
        const int64_t *sv = (const int64_t *)tl_impl_data(so);
        const char *sp = tl_impl_data(sd);
        for (int64_t i = 0; i < seq->numel; i++) {
            if (sv[i] < 0 || sv[i] >= L) {
                tl_error(TL_ERR_INDEX, "searchsorted(): sorter index %lld "
                         "is out of range for a last dim of size %lld",
                         (long long)sv[i], (long long)L);
                goto fail;
            }
        }
        for (int64_t r = 0; r < nrow; r++) {
            for (int64_t j = 0; j < L; j++) {
                ss_make_keys(ct, sp + (r * L + sv[r * L + j]) * isz, 1, 1,
                             false, skeys + (r * L + j) * w);
            }
        }
    } else {
        ss_make_keys(ct, tl_impl_data(sd), 1, seq->numel, false, skeys);
    }
    ss_make_keys(ct, tl_impl_data(vd), 1, values->numel, false, vkeys);
    if (values->numel > 0) {
        srch_ctx C;
        memset(&C, 0, sizeof C);
        C.skeys = skeys;
        C.vkeys = vkeys;
        C.dt = ct;
        C.w = w;
        C.L = L;
        C.nv = seq->ndim == 1 ? values->numel
                              : (nrow ? values->numel / nrow : 0);
        C.total = values->numel;
        C.per_task = 16384;
        C.right = right;
        C.i32 = out_int32;
        C.out = tl_impl_data(res);
        tl_tensor_impl *pins[2] = {sc, res};
        ss_parallel((C.total + C.per_task - 1) / C.per_task, C.total * 8,
                    srch_task, &C, pins, 2);
    }
    tl_tensor_decref(sc);
    tl_tensor_decref(sd);
    tl_tensor_decref(vd);
    tl_tensor_decref(so);
    return ss_commit(out, resize, res);
fail:
    tl_tensor_decref(sc);
    tl_tensor_decref(res);
    tl_tensor_decref(sd);
    tl_tensor_decref(vd);
    tl_tensor_decref(so);
    return NULL;
}

/* ---- isin ---------------------------------------------------------------------- */

tl_tensor_impl *tl_isin(tl_tensor_impl *out, tl_tensor_impl *elements,
                        tl_tensor_impl *test, bool invert)
{
    const char *name = "isin";
    if (begin(name, elements) < 0 || begin(name, test) < 0) {
        return NULL;
    }
    tl_tensor_impl *ops[2] = {elements, test};
    const tl_dtype ct = tl_result_type(2, ops);
    if (ss_check_sortable(name, ct) < 0) {
        return NULL;
    }
    bool resize;
    if (ss_check_out(name, out, elements, elements->ndim, elements->sizes,
                     TL_DTYPE_BOOL, &resize) < 0) {
        return NULL;
    }
    tl_tensor_impl *ed = dense(elements, ct), *td = dense(test, ct);
    tl_tensor_impl *res = NULL, *sc = NULL;
    const int w = ss_key_width(ct);
    const int64_t nt = test->numel, ne = elements->numel;
    if (!ed || !td) {
        goto fail;
    }
    const int64_t kb = SS_ALIGN8(nt * w);
    sc = ss_scratch(2 * kb + SS_ALIGN8(2 * nt * 4) + ne * w);
    res = tl_tensor_empty(elements->ndim, elements->sizes, TL_DTYPE_BOOL,
                          elements->device, TL_MEMKIND_DEFAULT);
    if (!sc || !res) {
        goto fail;
    }
    char *tk = tl_impl_data(sc);
    char *tmpk = tk + kb;
    uint32_t *ix = (uint32_t *)(tmpk + kb);
    char *ek = (char *)ix + SS_ALIGN8(2 * nt * 4);
    ss_make_keys(ct, tl_impl_data(td), 1, nt, false, tk);
    for (int64_t i = 0; i < nt; i++) {
        ix[i] = (uint32_t)i;
    }
    ss_sort_pairs(w, tk, ix, nt, tmpk, ix + nt);
    ss_make_keys(ct, tl_impl_data(ed), 1, ne, false, ek);
    uint8_t *rv = (uint8_t *)tl_impl_data(res);
    for (int64_t e = 0; e < ne; e++) {
        const uint64_t v = key_at(ek, w, e);
        bool found = false;
        if (!ss_key_is_nan(ct, v)) {
            int64_t lo = 0, hi = nt;
            while (lo < hi) {
                const int64_t mid = lo + (hi - lo) / 2;
                if (key_at(tk, w, mid) < v) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            found = lo < nt && key_at(tk, w, lo) == v;
        }
        rv[e] = (uint8_t)(found != invert);
    }
    tl_tensor_decref(sc);
    tl_tensor_decref(ed);
    tl_tensor_decref(td);
    return ss_commit(out, resize, res);
fail:
    tl_tensor_decref(sc);
    tl_tensor_decref(res);
    tl_tensor_decref(ed);
    tl_tensor_decref(td);
    return NULL;
}

/* ---- count_nonzero ------------------------------------------------------------- */

tl_tensor_impl *tl_count_nonzero(tl_tensor_impl *a, int ndims,
                                 const int64_t *dims)
{
    if (begin("count_nonzero", a) < 0) {
        return NULL;
    }
    /* One pass of its own reduction family: no bool temporary. */
    return tl_reduce(TL_REDUCE_COUNT_NONZERO, NULL, a, dims ? ndims : 0,
                     dims, false, -1);
}

/* ---- nonzero ------------------------------------------------------------------- */

tl_tensor_impl *tl_nonzero(tl_tensor_impl *out, tl_tensor_impl *a)
{
    if (begin("nonzero", a) < 0) {
        return NULL;
    }
    tl_tensor_impl *nz = tl_index_nonzero(a);
    if (!nz) {
        return NULL;
    }
    bool resize;
    if (ss_check_out("nonzero", out, a, nz->ndim, nz->sizes, TL_DTYPE_INT64,
                     &resize) < 0) {
        tl_tensor_decref(nz);
        return NULL;
    }
    return ss_commit(out, resize, nz);
}
