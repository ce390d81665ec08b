/* csrc/core/memory_overlap.c — whether two strided tensors share memory:
 * the cheap extent test (may_share_memory) and the exact one
 * (shares_memory), a bounded linear Diophantine search. */
#include <stdint.h>
#include <stdlib.h>

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
    p.work = 0;
    p.max_work = max_work;
    int r = search(&p, 0, target);
    if (r < 0) {
        return tl_error(TL_ERR_NOT_IMPLEMENTED,
                        "shares_memory: exceeded max_work=%lld",
                        (long long)max_work);
    }
    return r;
}
