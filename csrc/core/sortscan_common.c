/* csrc/core/sortscan_common.c — the helpers sort.c, search.c, scan.c and
 * softmax.c share (csrc/core/sortscan_impl.h): row layouts, out= checks
 * and commits, order keys, the stable (key, index) radix sort, scratch
 * memory and the parallel driver. */
#include "kernel_optimize.h" /* first of all: see its Note */

#include <string.h>

#include "device_impl.h"
#include "kernels.h"
#include "parallel.h"
#include "shape.h"
#include "sortscan_impl.h"
#include "tensorlib/iter.h"
#include "tensorlib/ops.h"
#include "tensorlib/view.h"

/* The key loops (make, invert, histogram, scatter) are kernels: the
   vectoriser on, as in the elementwise kernels. */

int ss_rows_init(ss_rows *R, tl_tensor_impl *a, int64_t dim, tl_dtype dt)
{
    memset(R, 0, sizeof *R);
    int d;
    if (tl_tensor_check_live(a) < 0 || tl_wrap_dim(dim, a->ndim, &d) < 0) {
        return tl_error_kind();
    }
    R->dim = d;
    R->outer = 1;
    R->inner = 1;
    R->n = a->ndim ? a->sizes[d] : 1;
    for (int i = 0; i < d; i++) {
        R->outer *= a->sizes[i];
    }
    for (int i = d + 1; i < a->ndim; i++) {
        R->inner *= a->sizes[i];
    }
    if (a->dtype == (int)dt && (a->flags & TL_FLAG_CONTIGUOUS) &&
        (a->flags & TL_FLAG_ALIGNED)) {
        tl_tensor_incref(a);
        R->t = a;
    } else {
        R->t = tl_tensor_empty(a->ndim, a->sizes, dt, a->device,
                               TL_MEMKIND_DEFAULT);
        if (!R->t) {
            return tl_error_kind();
        }
        if (a->numel > 0 && tl_copy_unchecked(R->t, a) < 0) {
            tl_tensor_decref(R->t);
            R->t = NULL;
            return tl_error_kind();
        }
    }
    R->data = tl_impl_data(R->t);
    return 0;
}

void ss_rows_free(ss_rows *R)
{
    tl_tensor_decref(R->t);
    R->t = NULL;
}

int ss_check_out(const char *name, tl_tensor_impl *out,
                 const tl_tensor_impl *a, int ndim, const int64_t *sizes,
                 tl_dtype rt, bool *resize)
{
    *resize = false;
    if (!out) {
        return 0;
    }
    if (tl_tensor_check_live(out) < 0) {
        return tl_error_kind();
    }
    if (!tl_device_eq(out->device, a->device)) {
        return tl_device_cpu_only(out, name);
    }
    int rc = tl_tensor_check_writable(out);
    if (rc < 0) {
        return rc;
    }
    if (!tl_can_cast(rt, (tl_dtype)out->dtype)) {
        return tl_error(TL_ERR_TYPE,
                        "%s(): the result has dtype %s, which an out= of "
                        "dtype %s cannot hold (can_cast(%s, %s) is False)",
                        name, tl_dtype_table[rt].name,
                        tl_dtype_table[out->dtype].name,
                        tl_dtype_table[rt].name,
                        tl_dtype_table[out->dtype].name);
    }
    bool same = out->ndim == ndim;
    for (int d = 0; same && d < ndim; d++) {
        same = out->sizes[d] == sizes[d];
    }
    if (same) {
        return tl_iter_has_internal_overlap(out)
                   ? tl_error(TL_ERR_SHAPE, "%s(): out= overlaps itself "
                              "(some of its elements share memory)", name)
                   : 0;
    }
    if (out->numel != 0 || out->base != NULL || out->storage_offset != 0) {
        return tl_error(TL_ERR_SHAPE,
                        "%s(): out= has shape %s but the result has shape "
                        "%s (only an empty out= that owns its storage is "
                        "resized)", name,
                        tl_fmt_list(0, out->ndim, out->sizes),
                        tl_fmt_list(1, ndim, sizes));
    }
    if (!(out->flags & TL_FLAG_ALLOW_METADATA_CHANGE)) {
        return tl_error(TL_ERR_RUNTIME, "%s(): cannot resize out= (its "
                        "layout is owned elsewhere) to shape %s", name,
                        tl_fmt_list(0, ndim, sizes));
    }
    *resize = true;
    return 0;
}

tl_tensor_impl *ss_commit(tl_tensor_impl *out, bool resize,
                          tl_tensor_impl *r)
{
    if (!out) {
        return r;
    }
    if ((resize && tl_tensor_resize_(out, r->ndim, r->sizes) < 0) ||
        tl_op_copy_(out, r) < 0) {
        tl_tensor_decref(r);
        return NULL;
    }
    tl_tensor_decref(r);
    tl_tensor_incref(out);
    return out;
}

tl_tensor_impl *ss_scratch(int64_t nbytes)
{
    int64_t n = nbytes > 0 ? nbytes : 1;
    return tl_tensor_empty(1, &n, TL_DTYPE_UINT8, tl_device_cpu(),
                           TL_MEMKIND_DEFAULT);
}

int ss_check_sortable(const char *name, tl_dtype dt)
{
    int rc = tl_dtype_check_computable(name, dt);
    if (rc < 0) {
        return rc;
    }
    if (tl_dtype_is_complex(dt)) {
        return tl_error(TL_ERR_TYPE, "%s(): %s is not supported (complex "
                        "numbers have no order)", name,
                        tl_dtype_table[dt].name);
    }
    return 0;
}

/* ---- keys ------------------------------------------------------------------ */

int ss_key_width(tl_dtype dt) { return (int)tl_itemsize(dt); }

bool ss_key_is_nan(tl_dtype dt, uint64_t k)
{
    switch (dt) {
    case TL_DTYPE_FLOAT16:
        return k > 0xFC00u; /* keys above -> +inf's key are NaN */
    case TL_DTYPE_BFLOAT16:
        return k > 0xFF80u;
    case TL_DTYPE_FLOAT32:
        return k > 0xFF800000u;
    case TL_DTYPE_FLOAT64:
        return k > 0xFFF0000000000000ull;
    default:
        return false;
    }
}

/* Float bits (width w) to an order key: the sign bit flipped for
 * positives, every bit for negatives; -0 -> +0; every NaN -> one key
 * above +inf's. */
#define FLOAT_KEY(T, bits, signbit, expmask)                               \
    do {                                                                    \
        const T b_ = (bits);                                                \
        const T neg_ = (T)0 - (T)(b_ >> (8 * sizeof(T) - 1));               \
        T k_ = (T)(b_ ^ (T)(neg_ | (T)(signbit)));                          \
        k_ = b_ == (T)(signbit) ? (T)(signbit) : k_;  /* -0 is +0 */        \
        key_ = (T)(b_ & (T) ~(T)(signbit)) > (T)(expmask) ? (T) ~(T)0 : k_; \
    } while (0)

TL_MULTIVERSION
void ss_make_keys(tl_dtype dt, const char *src, int64_t stride, int64_t n,
                  bool descending, void *dst)
{
    const int64_t s = stride * tl_itemsize(dt);
/* (a contiguous source is its own loop, so that it vectorises) */
#define LOOP(T, EXPR)                                                       \
    do {                                                                    \
        T *d_ = (T *)dst;                                                   \
        const T flip_ = descending ? (T) ~(T)0 : 0;                         \
        if (s == (int64_t)sizeof(T)) {                                      \
            for (int64_t i = 0; i < n; i++) {                               \
                T key_;                                                     \
                const char *p_ = src + i * (int64_t)sizeof(T);              \
                EXPR;                                                       \
                d_[i] = (T)(key_ ^ flip_);                                  \
            }                                                               \
            break;                                                          \
        }                                                                   \
        for (int64_t i = 0; i < n; i++) {                                   \
            T key_;                                                         \
            const char *p_ = src + i * s;                                   \
            EXPR;                                                           \
            d_[i] = (T)(key_ ^ flip_);                                      \
        }                                                                   \
    } while (0)
    switch (dt) {
    case TL_DTYPE_BOOL:
    case TL_DTYPE_UINT8:
        LOOP(uint8_t, key_ = dt == TL_DTYPE_BOOL
                                 ? (uint8_t)(*(const uint8_t *)p_ != 0)
                                 : *(const uint8_t *)p_);
        break;
    case TL_DTYPE_INT8:
        LOOP(uint8_t, key_ = (uint8_t)(*(const uint8_t *)p_ ^ 0x80u));
        break;
    case TL_DTYPE_INT16:
        LOOP(uint16_t, key_ = (uint16_t)(*(const uint16_t *)p_ ^ 0x8000u));
        break;
    case TL_DTYPE_UINT16:
        LOOP(uint16_t, key_ = *(const uint16_t *)p_);
        break;
    case TL_DTYPE_INT32:
        LOOP(uint32_t, key_ = *(const uint32_t *)p_ ^ 0x80000000u);
        break;
    case TL_DTYPE_UINT32:
        LOOP(uint32_t, key_ = *(const uint32_t *)p_);
        break;
    case TL_DTYPE_INT64:
        LOOP(uint64_t, key_ = *(const uint64_t *)p_ ^ 0x8000000000000000ull);
        break;
    case TL_DTYPE_UINT64:
        LOOP(uint64_t, key_ = *(const uint64_t *)p_);
        break;
    case TL_DTYPE_FLOAT16:
        LOOP(uint16_t, FLOAT_KEY(uint16_t, *(const uint16_t *)p_, 0x8000u,
                                 0x7C00u));
        break;
    case TL_DTYPE_BFLOAT16:
        LOOP(uint16_t, FLOAT_KEY(uint16_t, *(const uint16_t *)p_, 0x8000u,
                                 0x7F80u));
        break;
    case TL_DTYPE_FLOAT32:
        LOOP(uint32_t, FLOAT_KEY(uint32_t, *(const uint32_t *)p_,
                                 0x80000000u, 0x7F800000u));
        break;
    case TL_DTYPE_FLOAT64:
        LOOP(uint64_t, FLOAT_KEY(uint64_t, *(const uint64_t *)p_,
                                 0x8000000000000000ull,
                                 0x7FF0000000000000ull));
        break;
    default:
        break;
    }
#undef LOOP
}

/* Inverts ss_make_keys: the values of n (sorted) keys, written
 * contiguously to dst.  -0 and NaN payloads are not in the key (-0 shares
 * +0's key, every NaN one key): those elements are copied from src at
 * their index instead. */
TL_MULTIVERSION
void ss_keys_to_values(tl_dtype dt, const void *keys, int64_t n,
                       bool descending, const char *src, int64_t stride,
                       const uint32_t *idx, char *dst)
{
    const int64_t s = stride * tl_itemsize(dt);
#define INV_INT(T, FLIP)                                                    \
    do {                                                                    \
        const T *k_ = (const T *)keys;                                      \
        T *d_ = (T *)dst;                                                   \
        const T f_ = (T)((descending ? (T) ~(T)0 : 0) ^ (T)(FLIP));         \
        for (int64_t i = 0; i < n; i++) {                                   \
            d_[i] = (T)(k_[i] ^ f_);                                        \
        }                                                                   \
    } while (0)
#define INV_FLOAT(T, SIGN)                                                  \
    do {                                                                    \
        const T *k_ = (const T *)keys;                                      \
        T *d_ = (T *)dst;                                                   \
        const T f_ = descending ? (T) ~(T)0 : 0;                            \
        for (int64_t i = 0; i < n; i++) {                                   \
            const T k = (T)(k_[i] ^ f_);                                    \
            if (k == (T)(SIGN) || k == (T) ~(T)0) {                         \
                memcpy(&d_[i], src + (int64_t)idx[i] * s, sizeof(T));       \
            } else {                                                        \
                d_[i] = (k & (T)(SIGN)) ? (T)(k ^ (T)(SIGN)) : (T)~k;       \
            }                                                               \
        }                                                                   \
    } while (0)
    switch (dt) {
    case TL_DTYPE_BOOL:
    case TL_DTYPE_UINT8: INV_INT(uint8_t, 0); break;
    case TL_DTYPE_INT8: INV_INT(uint8_t, 0x80u); break;
    case TL_DTYPE_INT16: INV_INT(uint16_t, 0x8000u); break;
    case TL_DTYPE_UINT16: INV_INT(uint16_t, 0); break;
    case TL_DTYPE_INT32: INV_INT(uint32_t, 0x80000000u); break;
    case TL_DTYPE_UINT32: INV_INT(uint32_t, 0); break;
    case TL_DTYPE_INT64: INV_INT(uint64_t, 0x8000000000000000ull); break;
    case TL_DTYPE_UINT64: INV_INT(uint64_t, 0); break;
    case TL_DTYPE_FLOAT16:
    case TL_DTYPE_BFLOAT16: INV_FLOAT(uint16_t, 0x8000u); break;
    case TL_DTYPE_FLOAT32: INV_FLOAT(uint32_t, 0x80000000u); break;
    case TL_DTYPE_FLOAT64: INV_FLOAT(uint64_t, 0x8000000000000000ull); break;
    default: break;
    }
#undef INV_INT
#undef INV_FLOAT
}

/* ---- stable radix sort of (key, index) pairs ------------------------------- */

/* Note [Radix digits]
 * One read pass finds which key bits differ from the first key's (the OR
 * of k ^ k[0]); only the span [lo, hi) of those bits is sorted on, in the
 * fewest passes of at most DIGIT_MAX bits (fewer for shorter runs, whose
 * histograms would cost more than the passes they save).  A float32
 * bucket of one long row (its top 12 bits shared) takes two 10-bit passes
 * instead of three byte passes; int64 keys of small range take one or
 * two.  A pass
 * whose digit every key shares is skipped; the passes are LSD, so the sort
 * is stable. */

#define SMALL_SORT 24
#define DIGIT_MAX 12
#define DIGIT_SMALL 8
#define DIGIT_SMALL_N 8192
#define DIGIT_MID 10
#define DIGIT_MID_N 2048
#define HIST_CAP 20480 /* passes * 2^digit, at most: 5 x 4096 or 6 x 2048 */

/* The number of passes and bits per digit for nbits varying bits. */
static void digit_plan(int nbits, int64_t n, int *passes, int *dbits)
{
    const int maxd = n >= DIGIT_SMALL_N ? DIGIT_MAX
                     : n >= DIGIT_MID_N ? DIGIT_MID
                                        : DIGIT_SMALL;
    *passes = (nbits + maxd - 1) / maxd;
    *dbits = (nbits + *passes - 1) / *passes;
}

#define DEFINE_INSERTION(W, T)                                              \
    static void insertion_##W(T *k, uint32_t *ix, int64_t n)                \
    {                                                                       \
        for (int64_t i = 1; i < n; i++) {                                   \
            T kv = k[i];                                                    \
            uint32_t iv = ix[i];                                            \
            int64_t j = i;                                                  \
            while (j > 0 && k[j - 1] > kv) {                                \
                k[j] = k[j - 1];                                            \
                ix[j] = ix[j - 1];                                          \
                j--;                                                        \
            }                                                               \
            k[j] = kv;                                                      \
            ix[j] = iv;                                                     \
        }                                                                   \
    }

#define DEFINE_RADIX(NAME, T, KEYMASK, PAYLOAD)                             \
    static void NAME(T *k, uint32_t *ix, int64_t n, T *tk, uint32_t *ti)    \
    {                                                                       \
        const T k0 = k[0];                                                  \
        T diff = 0;                                                         \
        for (int64_t i = 0; i < n; i++) {                                   \
            diff |= (T)((k[i] ^ k0) & (T)(KEYMASK));                        \
        }                                                                   \
        if (!diff) {                                                        \
            return; /* all keys equal: already in stable order */           \
        }                                                                   \
        const int lo = __builtin_ctzll((unsigned long long)diff);           \
        const int hi = 64 - __builtin_clzll((unsigned long long)diff);      \
        int passes, dbits;                                                  \
        digit_plan(hi - lo, n, &passes, &dbits);                            \
        const int nb = 1 << dbits;                                          \
        const uint64_t mask = (uint64_t)nb - 1;                             \
        uint32_t hist[HIST_CAP];                                            \
        memset(hist, 0, (size_t)passes * (size_t)nb * sizeof *hist);        \
        if (passes == 1) {                                                  \
            for (int64_t i = 0; i < n; i++) {                               \
                hist[((uint64_t)k[i] >> lo) & mask]++;                      \
            }                                                               \
        } else if (passes == 2) {                                           \
            uint32_t *h1 = hist + nb;                                       \
            for (int64_t i = 0; i < n; i++) {                               \
                const uint64_t v = (uint64_t)k[i] >> lo;                    \
                hist[v & mask]++;                                           \
                h1[(v >> dbits) & mask]++;                                  \
            }                                                               \
        } else {                                                            \
            for (int64_t i = 0; i < n; i++) {                               \
                const uint64_t v = (uint64_t)k[i] >> lo;                    \
                for (int p = 0; p < passes; p++) {                          \
                    hist[p * nb + ((v >> (p * dbits)) & mask)]++;           \
                }                                                           \
            }                                                               \
        }                                                                   \
        T *sk = k, *dk = tk;                                                \
        uint32_t *si = ix, *di = ti;                                        \
        for (int p = 0; p < passes; p++) {                                  \
            uint32_t *h = hist + p * nb;                                    \
            const int sh = lo + p * dbits;                                  \
            if (h[((uint64_t)sk[0] >> sh) & mask] == (uint32_t)n) {         \
                continue; /* every key has this digit */                    \
            }                                                               \
            uint32_t sum = 0;                                               \
            for (int d = 0; d < nb; d++) {                                  \
                const uint32_t c = h[d];                                    \
                h[d] = sum;                                                 \
                sum += c;                                                   \
            }                                                               \
            for (int64_t i = 0; i < n; i++) {                               \
                const T v = sk[i];                                          \
                const uint32_t pos = h[((uint64_t)v >> sh) & mask]++;       \
                dk[pos] = v;                                                \
                if (PAYLOAD) {                                              \
                    di[pos] = si[i];                                        \
                }                                                           \
            }                                                               \
            T *t1 = sk;                                                     \
            sk = dk;                                                        \
            dk = t1;                                                        \
            uint32_t *t2 = si;                                              \
            si = di;                                                        \
            di = t2;                                                        \
        }                                                                   \
        if (sk != k) {                                                      \
            memcpy(k, sk, (size_t)n * sizeof(T));                           \
            if (PAYLOAD) {                                                  \
                memcpy(ix, si, (size_t)n * sizeof(uint32_t));               \
            }                                                               \
        }                                                                   \
    }

DEFINE_INSERTION(1, uint8_t)
DEFINE_INSERTION(2, uint16_t)
DEFINE_INSERTION(4, uint32_t)
DEFINE_INSERTION(8, uint64_t)
DEFINE_RADIX(radix_1, uint8_t, 0xFFu, 1)
DEFINE_RADIX(radix_2, uint16_t, 0xFFFFu, 1)
DEFINE_RADIX(radix_4, uint32_t, 0xFFFFFFFFu, 1)
DEFINE_RADIX(radix_8, uint64_t, ~0ull, 1)
/* (key << 32 | index) words, sorted on the key half only */
DEFINE_RADIX(radix_packed, uint64_t, 0xFFFFFFFF00000000ull, 0)

void ss_sort_packed(uint64_t *words, int64_t n, uint64_t *tmp)
{
    if (n > 1) {
        radix_packed(words, NULL, n, tmp, NULL);
    }
}

void ss_sort_pairs(int w, void *keys, uint32_t *idx, int64_t n, void *tmpk,
                   uint32_t *tmpi)
{
    if (n < 2) {
        return;
    }
    switch (w) {
#define CASE(W, T)                                                          \
    case W:                                                                 \
        if (n <= SMALL_SORT) {                                              \
            insertion_##W((T *)keys, idx, n);                               \
        } else {                                                            \
            radix_##W((T *)keys, idx, n, (T *)tmpk, tmpi);                  \
        }                                                                   \
        break;
        CASE(1, uint8_t)
        CASE(2, uint16_t)
        CASE(4, uint32_t)
        CASE(8, uint64_t)
#undef CASE
    default:
        break;
    }
}

/* ---- threads ---------------------------------------------------------------- */

void ss_parallel(int64_t nchunks, int64_t work,
                 void (*fn)(void *ctx, int64_t chunk), void *ctx,
                 tl_tensor_impl *const *pins, int npins)
{
    if (nchunks <= 0) {
        return;
    }
    if (nchunks == 1 || work < TL_ITER_GRAIN) {
        for (int64_t c = 0; c < nchunks; c++) {
            fn(ctx, c);
        }
        return;
    }
    tl_block *pinned[8];
    for (int i = 0; i < npins && i < 8; i++) {
        pinned[i] = pins[i]->storage->block;
        tl_block_pin(pinned[i]);
    }
    void *token = tl_parallel_release();
    tl_parallel_chunks(nchunks, fn, ctx);
    tl_parallel_reacquire(token);
    for (int i = 0; i < npins && i < 8; i++) {
        tl_block_unpin(pinned[i]);
    }
}

/* ---- layouts ---------------------------------------------------------------- */

void ss_perm_to_last(int nd, int d, int *perm)
{
    int j = 0;
    for (int i = 0; i < nd; i++) {
        if (i != d) {
            perm[j++] = i;
        }
    }
    perm[j] = d;
}

void ss_perm_from_last(int nd, int d, int *perm)
{
    for (int i = 0; i < nd; i++) {
        perm[i] = i < d ? i : (i == d ? nd - 1 : i - 1);
    }
}

tl_tensor_impl *ss_empty_dim_last(int nd, const int64_t *sizes, int d,
                                  tl_dtype dt, tl_device dev)
{
    int64_t s2[TL_MAX_DIMS];
    int p[TL_MAX_DIMS];
    if (nd == 0) {
        return tl_tensor_empty(0, NULL, dt, dev, TL_MEMKIND_DEFAULT);
    }
    ss_perm_to_last(nd, d, p);
    for (int i = 0; i < nd; i++) {
        s2[i] = sizes[p[i]];
    }
    tl_tensor_impl *t = tl_tensor_empty(nd, s2, dt, dev, TL_MEMKIND_DEFAULT);
    if (!t || d == nd - 1) {
        return t;
    }
    ss_perm_from_last(nd, d, p);
    tl_tensor_impl *v = tl_view_permute(t, p);
    tl_tensor_decref(t);
    return v;
}
