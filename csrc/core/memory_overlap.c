/* csrc/core/memory_overlap.c — the one overlap module: whether two
 * strided tensors share memory (the cheap extent test, may_share_memory;
 * the exact one, shares_memory; the iterator's no / same elements /
 * partly classification) and whether one tensor reaches an element by two
 * indices (internal overlap, asked by every write path).  Both exact
 * questions are one bounded linear Diophantine search (Note [Exact
 * overlap]).  Allocates nothing. */
#include <stdint.h>
#include <stdlib.h>

#include "iter_impl.h"
#include "shape.h"
#include "tensor_impl.h"

/* Byte extent [lo, hi) of t's elements, as absolute addresses: two
 * storages over different blocks may still hold the same bytes (two
 * imports of one NumPy array, a DLPack capsule of a view, ...). */
static void extent(const tl_tensor_impl *t, int64_t *lo, int64_t *hi)
{
    const int64_t isz = tl_itemsize(t->dtype);
    int64_t a = (int64_t)(intptr_t)tl_impl_data(t), b = a;
    for (int d = 0; d < t->ndim; d++) {
        int64_t span = t->strides[d] * (t->sizes[d] - 1) * isz;
        if (span < 0) {
            a += span;
        } else {
            b += span;
        }
    }
    *lo = a;
    *hi = b + isz;
}

bool tl_may_share_memory(const tl_tensor_impl *a, const tl_tensor_impl *b)
{
    if (a->numel == 0 || b->numel == 0 ||
        !tl_device_eq(a->device, b->device)) {
        return false;
    }
    /* Lazy clones share bytes but not memory: a write to either side
     * gives it its own (Note [Copy-on-write storages] in cow.c). */
    if (a->storage != b->storage &&
        ((atomic_load_explicit(&a->storage->cow, memory_order_relaxed) |
          atomic_load_explicit(&b->storage->cow, memory_order_relaxed)) &
         TL_COW_SHARED)) {
        return false;
    }
    int64_t alo, ahi, blo, bhi;
    extent(a, &alo, &ahi);
    extent(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

/* Note [Exact overlap]
 * Element addresses of a are lo_a + sum i_k |sa_k| with 0 <= i_k < n_k
 * (negative strides folded into lo_a), likewise for b.  An element of a
 * and one of b overlap when their byte ranges meet:
 *     addr_b - addr_a + isz_b - 1 = t,   0 <= t <= isz_a + isz_b - 2.
 * Replacing i_k by (n_k - 1 - i_k) and t by its complement makes every
 * coefficient positive:  sum c_j x_j = rhs,  0 <= x_j <= u_j,  a bounded
 * linear Diophantine problem.  It is solved by depth-first search over
 * the variables in decreasing coefficient order, pruned by the largest
 * sum the remaining variables can make; every visited node counts as one
 * unit of work. */
typedef struct {
    int n;
    int64_t c[2 * TL_MAX_DIMS + 1];
    int64_t u[2 * TL_MAX_DIMS + 1];
    int64_t tail[2 * TL_MAX_DIMS + 2]; /* max sum of vars j..n-1 */
    int64_t work, max_work;
} dio;

static int cmp_desc(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    return (a[0] < b[0]) - (a[0] > b[0]);
}

/* 1 found, 0 none, -1 out of work. */
static int search(dio *p, int j, int64_t r)
{
    if (p->max_work >= 0 && ++p->work > p->max_work) {
        return -1;
    }
    if (r < 0 || r > p->tail[j]) {
        return 0;
    }
    if (j == p->n) {
        return r == 0;
    }
    if (j == p->n - 1) {
        return r % p->c[j] == 0 && r / p->c[j] <= p->u[j];
    }
    int64_t hi = r / p->c[j];
    if (hi > p->u[j]) {
        hi = p->u[j];
    }
    int64_t need = r - p->tail[j + 1];
    int64_t lo = need <= 0 ? 0 : (need + p->c[j] - 1) / p->c[j];
    for (int64_t x = hi; x >= lo; x--) {
        int s = search(p, j + 1, r - x * p->c[j]);
        if (s != 0) {
            return s;
        }
    }
    return 0;
}

/* Whether sum c_j x_j = target has a solution with 0 <= x_j <= u_j
 * (terms[j] = {c_j > 0, u_j}, sorted here): 1 yes, 0 no, -1 out of work.
 * *work counts the nodes visited, across calls (max_work < 0: no bound). */
static int solve(int64_t (*terms)[2], int n, int64_t target, int64_t *work,
                 int64_t max_work)
{
    qsort(terms, (size_t)n, sizeof terms[0], cmp_desc);
    dio p;
    p.n = n;
    for (int j = 0; j < n; j++) {
        p.c[j] = terms[j][0];
        p.u[j] = terms[j][1];
    }
    p.tail[n] = 0;
    for (int j = n - 1; j >= 0; j--) {
        p.tail[j] = p.tail[j + 1] + p.c[j] * p.u[j];
    }
    p.work = *work;
    p.max_work = max_work;
    int r = search(&p, 0, target);
    *work = p.work;
    return r;
}

int tl_shares_memory(const tl_tensor_impl *a, const tl_tensor_impl *b,
                     int64_t max_work)
{
    if (!tl_may_share_memory(a, b)) {
        return 0;
    }
    const int64_t isa = tl_itemsize(a->dtype), isb = tl_itemsize(b->dtype);
    int64_t alo, ahi, blo, bhi;
    extent(a, &alo, &ahi);
    extent(b, &blo, &bhi);
    /* The lowest and the highest elements are elements of each tensor: if
     * those of a and b meet, they overlap without any search (x and x,
     * x and x.flip(0), a tensor and its expand, ...). */
    if ((alo < blo + isb && blo < alo + isa) ||
        (ahi - isa < bhi && bhi - isb < ahi)) {
        return 1;
    }
    /* Terms: (coefficient, bound) pairs, sorted together. */
    int64_t terms[2 * TL_MAX_DIMS + 1][2];
    int n = 0;
    int64_t rhs = blo - alo + isb - 1; /* sum_b - sum_a + const = t */
    int64_t sum_a_max = 0;
    for (int d = 0; d < a->ndim; d++) {
        int64_t c = llabs(a->strides[d]) * isa;
        if (a->sizes[d] > 1 && c > 0) {
            terms[n][0] = c;
            terms[n][1] = a->sizes[d] - 1;
            sum_a_max += c * (a->sizes[d] - 1);
            n++;
        }
    }
    for (int d = 0; d < b->ndim; d++) {
        int64_t c = llabs(b->strides[d]) * isb;
        if (b->sizes[d] > 1 && c > 0) {
            terms[n][0] = c;
            terms[n][1] = b->sizes[d] - 1;
            n++;
        }
    }
    terms[n][0] = 1; /* t's complement */
    terms[n][1] = isa + isb - 2;
    n++;
    /* sum_b x + sum_a (u - x') + (T - t') ... = rhs + sum_a_max + T - ...:
     * with all-positive coefficients the target is: */
    int64_t target = sum_a_max + (isa + isb - 2) - rhs;
    int64_t work = 0;
    int r = solve(terms, n, target, &work, max_work);
    if (r < 0) {
        return tl_error(TL_ERR_NOT_IMPLEMENTED,
                        "shares_memory: exceeded max_work=%lld",
                        (long long)max_work);
    }
    return r;
}

tl_overlap tl_iter_overlap(const tl_tensor_impl *a, const tl_tensor_impl *b)
{
    if (!tl_may_share_memory(a, b)) {
        return TL_OVERLAP_NO;
    }
    if (a == b) {
        return TL_OVERLAP_FULL;
    }
    if (tl_impl_data(a) == tl_impl_data(b) && a->dtype == b->dtype &&
        a->ndim == b->ndim) {
        bool same = true;
        for (int d = 0; d < a->ndim && same; d++) {
            same = a->sizes[d] == b->sizes[d] &&
                   (a->sizes[d] == 1 || a->strides[d] == b->strides[d]);
        }
        if (same) {
            return TL_OVERLAP_FULL;
        }
    }
    return TL_OVERLAP_PARTIAL;
}

/* Note [Internal overlap]
 * Two different indices i, i' of t reach one element when
 *     sum_k s_k z_k = 0,  z_k = i_k - i'_k,  |z_k| <= n_k - 1,  not all 0,
 * over the dims of size > 1 (s_k its stride).  A stride 0 is a solution at
 * once.  Sorted by |s|, if every |s| exceeds the span the smaller dims
 * reach (sum |s_k| (n_k - 1)), there is none: every view that slicing,
 * stepping, flipping, transposing or permuting a dense tensor makes
 * passes this in O(ndim log ndim).  Otherwise (as_strided layouts such as
 * sizes (4, 3), strides (2, 3): 3*2 == 2*3) the question becomes Note
 * [Exact overlap]'s problem, once per dim j that may hold the first
 * nonzero z (taken positive: z and -z are the same pair): z_k = 0 before
 * j, x_j = z_j - 1 in [0, u_j - 1], x_k = z_k + u_k in [0, 2 u_k] after,
 * and  c_j x_j + sum_{k>j} c_k x_k = sum_{k>j} c_k u_k - c_j.  The
 * searches share a bound: past INTERNAL_WORK nodes the answer is
 * "unknown", which writers treat as overlapping. */
#define INTERNAL_WORK 100000

/* 1 overlapping, 0 not, -1 unknown (the search ran out of work). */
static int internal_overlap(const tl_tensor_impl *t)
{
    if (t->numel <= 1 || (t->flags & TL_FLAG_NON_OVERLAPPING_AND_DENSE)) {
        return 0;
    }
    int64_t c[TL_MAX_DIMS], u[TL_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] > 1) {
            if (t->strides[d] == 0) {
                return 1;
            }
            /* insertion by |stride|, ascending */
            int64_t cd = llabs(t->strides[d]), ud = t->sizes[d] - 1;
            int k = n++;
            while (k > 0 && c[k - 1] > cd) {
                c[k] = c[k - 1];
                u[k] = u[k - 1];
                k--;
            }
            c[k] = cd;
            u[k] = ud;
        }
    }
    /* The span test; sums stay below the storage's size (as_strided
     * checks every view against it), so they do not overflow. */
    int64_t span = 0;
    bool separated = true;
    for (int k = 0; k < n && separated; k++) {
        separated = c[k] > span;
        span += c[k] * u[k];
    }
    if (separated) {
        return 0;
    }
    int64_t work = 0;
    for (int j = 0; j < n; j++) {
        int64_t terms[2 * TL_MAX_DIMS + 1][2];
        int64_t target = -c[j];
        int m = 0;
        if (u[j] > 1) {
            terms[m][0] = c[j];
            terms[m][1] = u[j] - 1;
            m++;
        }
        for (int k = j + 1; k < n; k++) {
            terms[m][0] = c[k];
            terms[m][1] = 2 * u[k];
            target += c[k] * u[k];
            m++;
        }
        if (target < 0) {
            continue;
        }
        int r = solve(terms, m, target, &work, INTERNAL_WORK);
        if (r != 0) {
            return r;
        }
    }
    return 0;
}

int tl_iter_check_writable_layout(const tl_tensor_impl *t)
{
    int r = internal_overlap(t);
    if (r == 0) {
        return 0;
    }
    return tl_error(TL_ERR_SHAPE,
                    "cannot write into a tensor whose elements share memory "
                    "(shape %s, strides %s: %s); writing one element would "
                    "change others, so write into a clone() instead",
                    tl_fmt_list(0, t->ndim, t->sizes),
                    tl_fmt_list(1, t->ndim, t->strides),
                    r > 0 ? "two indices reach one element"
                          : "too many stride combinations to rule that out");
}

bool tl_iter_has_internal_overlap(const tl_tensor_impl *t)
{
    return internal_overlap(t) != 0;
}
