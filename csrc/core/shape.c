/* csrc/core/shape.c — numel and byte sizes with checked arithmetic, dense
 * strides per memory format and like a tensor's layout, the stride-derived
 * flags, broadcast size inference, and the bounds check every view goes
 * through.  Pure functions of sizes and strides. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape.h"
#include "tensor_impl.h"
#include "tensorlib/iter.h"

char *tl_format_list(char *buf, size_t n, int count, const int64_t *v)
{
    size_t used = 0;
    int w = snprintf(buf, n, "[");
    used = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < count && used < n; i++) {
        w = snprintf(buf + used, n - used, "%s%" PRId64, i ? ", " : "", v[i]);
        if (w < 0) {
            break;
        }
        used += (size_t)w;
    }
    if (used < n) {
        snprintf(buf + used, n - used, "]");
    } else if (n >= 5) {
        memcpy(buf + n - 5, "...]", 5);
    }
    return buf;
}

const char *tl_fmt_list(int slot, int count, const int64_t *v)
{
    static _Thread_local char bufs[4][256];
    return tl_format_list(bufs[slot & 3], sizeof bufs[0], count, v);
}

int tl_safe_numel_bytes(int ndim, const int64_t *sizes, int64_t itemsize,
                        int64_t *numel_out, int64_t *nbytes_out)
{
    if (ndim < 0 || ndim > TL_MAX_DIMS) {
        return tl_error(TL_ERR_SHAPE,
                        "a tensor has at most %d dimensions, got %d",
                        TL_MAX_DIMS, ndim);
    }
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0) {
            return tl_error(TL_ERR_SHAPE,
                            "negative size %" PRId64 " at dim %d in shape %s",
                            sizes[d], d, tl_fmt_list(0, ndim, sizes));
        }
    }
    /* Note [Running product]: as PyTorch, the product is checked left to
     * right, so (2**62, 4, 0) overflows before the 0 is seen while
     * (2**62, 0) is a valid empty shape. */
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        if (tl_mul_overflow_i64(numel, sizes[d], &numel)) {
            return tl_error(TL_ERR_OVERFLOW,
                            "shape %s: the number of elements overflows "
                            "int64 at dim %d",
                            tl_fmt_list(0, ndim, sizes), d);
        }
    }
    int64_t nbytes;
    if (tl_mul_overflow_i64(numel, itemsize, &nbytes)) {
        return tl_error(TL_ERR_OVERFLOW,
                        "shape %s with itemsize %" PRId64
                        ": the size in bytes overflows int64",
                        tl_fmt_list(0, ndim, sizes), itemsize);
    }
    if (numel_out) {
        *numel_out = numel;
    }
    if (nbytes_out) {
        *nbytes_out = nbytes;
    }
    return 0;
}

/* The dense strides of a channels-last layout; order lists dims from
 * fastest to slowest.  As c10's get_channels_last_strides_{2d,3d}, the
 * running product uses the sizes as they are, so a size-0 dim gives the
 * dims after it stride 0 (unlike row-major strides, which count a size 0
 * as 1): (2, 0, 4, 5) is (0, 1, 0, 0), and is channels-last contiguous.
 * Returns: false, or true when a stride overflowed int64 (the strides are
 * then wrapped, never undefined). */
static bool strides_in_order(int ndim, const int64_t *sizes,
                             const int *order, int64_t *strides)
{
    int64_t expected = 1;
    bool overflow = false;
    for (int i = 0; i < ndim; i++) {
        int d = order[i];
        strides[d] = expected;
        overflow |= tl_mul_overflow_i64(expected, sizes[d], &expected);
    }
    return overflow;
}

static const int cl2d_order[4] = {1, 3, 2, 0};
static const int cl3d_order[5] = {1, 4, 3, 2, 0};

int tl_dense_strides(int ndim, const int64_t *sizes, tl_memory_format fmt,
                     int64_t *strides)
{
    /* Sizes are validated (tl_safe_numel_bytes), but a size-0 dim makes
     * numel 0 however large the others are, so the strides may still
     * overflow: (0, 2**62, 4) is an error here, as in c10 ("Stride
     * calculation overflowed"). */
    bool overflow = false;
    switch (fmt) {
    case TL_FORMAT_CHANNELS_LAST:
        if (ndim != 4) {
            return tl_error(TL_ERR_SHAPE,
                            "channels_last needs a 4-D shape, got %d-D %s",
                            ndim, tl_fmt_list(0, ndim, sizes));
        }
        overflow = strides_in_order(4, sizes, cl2d_order, strides);
        break;
    case TL_FORMAT_CHANNELS_LAST_3D:
        if (ndim != 5) {
            return tl_error(TL_ERR_SHAPE,
                            "channels_last_3d needs a 5-D shape, got %d-D %s",
                            ndim, tl_fmt_list(0, ndim, sizes));
        }
        overflow = strides_in_order(5, sizes, cl3d_order, strides);
        break;
    default: {
        int64_t expected = 1;
        for (int d = ndim - 1; d >= 0; d--) {
            strides[d] = expected;
            overflow |= tl_mul_overflow_i64(
                expected, sizes[d] > 1 ? sizes[d] : 1, &expected);
        }
        break;
    }
    }
    if (overflow) {
        return tl_error(TL_ERR_OVERFLOW,
                        "shape %s: the stride calculation overflows int64",
                        tl_fmt_list(0, ndim, sizes));
    }
    return 0;
}

/* The contiguity walk of c10 over dims in the given order (fastest first):
 * size-1 dims are skipped, every other stride must equal the running
 * product.  As in c10, only the row-major walk calls an empty tensor
 * contiguous whatever its strides (empty_is_contiguous); the channels-last
 * walks have no such shortcut (_compute_channels_last_contiguous_2d/3d), so
 * a size-0 dim there zeroes the product that later strides must match. */
static bool walk_contiguous(const int64_t *sizes, const int64_t *strides,
                            const int *order, int n, int64_t numel,
                            bool empty_is_contiguous)
{
    if (numel == 0 && empty_is_contiguous) {
        return true;
    }
    int64_t expected = 1;
    bool overflow = false;
    for (int i = 0; i < n; i++) {
        int d = order[i];
        if (sizes[d] == 1) {
            continue;
        }
        if (overflow || strides[d] != expected) {
            return false; /* no stride equals an overflowed product */
        }
        overflow = tl_mul_overflow_i64(expected, sizes[d], &expected);
    }
    return true;
}

/* walk_contiguous in row-major order (last dim first), without the order
 * array: every view and every new tensor asks it. */
static bool contiguous_rowmajor(const int64_t *sizes, const int64_t *strides,
                                int n, int64_t numel)
{
    if (numel == 0) {
        return true;
    }
    int64_t expected = 1;
    for (int d = n - 1; d >= 0; d--) {
        if (sizes[d] == 1) {
            continue;
        }
        if (strides[d] != expected) {
            return false;
        }
        /* numel > 0 fits int64 and every size is a factor of it, so the
         * running product of sizes cannot overflow. */
        expected *= sizes[d];
    }
    return true;
}

/* c10's is_channels_last_strides_{2d,3d}: strides ordered like channels
 * last, no size 0, and N not sharing C's stride. */
static bool strides_like(const int64_t *sizes, const int64_t *strides,
                         const int *order, int n)
{
    int64_t min = 0;
    if (strides[1] == 0) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        int d = order[i];
        if (sizes[d] == 0) {
            return false;
        }
        if (strides[d] < min) {
            return false;
        }
        if (d == 0 && min == strides[1]) {
            return false;
        }
        min = strides[d];
        if (sizes[d] > 1 && tl_mul_overflow_i64(min, sizes[d], &min)) {
            min = INT64_MAX; /* no later stride reaches it */
        }
    }
    return true;
}

static bool non_overlapping_and_dense(int ndim, const int64_t *sizes,
                                      const int64_t *strides)
{
    if (ndim == 1) {
        return sizes[0] < 2 || strides[0] == 1;
    }
    if (ndim == 2 && sizes[0] >= 2 && sizes[1] >= 2) {
        /* the common transpose: one stride 1, the other the first size */
        return (strides[1] == 1 && strides[0] == sizes[1]) ||
               (strides[0] == 1 && strides[1] == sizes[0]);
    }
    int perm[TL_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] == 0) {
            return true; /* empty */
        }
        if (sizes[d] >= 2) {
            perm[n++] = d;
        }
    }
    /* Insertion sort by stride (ndim is small). */
    for (int i = 1; i < n; i++) {
        int v = perm[i];
        int j = i - 1;
        while (j >= 0 && strides[perm[j]] > strides[v]) {
            perm[j + 1] = perm[j];
            j--;
        }
        perm[j + 1] = v;
    }
    int64_t require = 1;
    for (int i = 0; i < n; i++) {
        if (strides[perm[i]] != require) {
            return false;
        }
        require *= sizes[perm[i]];
    }
    return true;
}

uint32_t tl_impl_layout_flags(const tl_tensor_impl *t)
{
    const int n = t->ndim;
    const int64_t *sz = t->sizes, *st = t->strides;
    uint32_t f = 0;
    if (contiguous_rowmajor(sz, st, n, t->numel)) {
        f |= TL_FLAG_CONTIGUOUS | TL_FLAG_NON_OVERLAPPING_AND_DENSE;
    } else if (non_overlapping_and_dense(n, sz, st)) {
        f |= TL_FLAG_NON_OVERLAPPING_AND_DENSE;
    }
    if (n == 4) {
        if (walk_contiguous(sz, st, cl2d_order, 4, t->numel, false)) {
            f |= TL_FLAG_CHANNELS_LAST_CONTIGUOUS;
        }
        if (strides_like(sz, st, cl2d_order, 4)) {
            f |= TL_FLAG_CHANNELS_LAST;
        }
    } else if (n == 5) {
        if (walk_contiguous(sz, st, cl3d_order, 5, t->numel, false)) {
            f |= TL_FLAG_CHANNELS_LAST_3D_CONTIGUOUS;
        }
        if (strides_like(sz, st, cl3d_order, 5)) {
            f |= TL_FLAG_CHANNELS_LAST_3D;
        }
    }
    return f;
}

int32_t tl_layout_flags_permuted(const tl_tensor_impl *parent, int n,
                                 const int64_t *sizes,
                                 const int64_t *strides)
{
    if (n == 4 || n == 5) {
        return -1;
    }
    uint32_t f = parent->flags & TL_FLAG_NON_OVERLAPPING_AND_DENSE;
    if (contiguous_rowmajor(sizes, strides, n, parent->numel)) {
        f |= TL_FLAG_CONTIGUOUS | TL_FLAG_NON_OVERLAPPING_AND_DENSE;
    }
    return (int32_t)f;
}

void tl_impl_refresh_flags(tl_tensor_impl *t)
{
    uint32_t f = (t->flags & ~(uint32_t)TL_FLAGS_DERIVED) |
                 tl_impl_layout_flags(t);
    /* Itemsizes are powers of two: a mask, not a division. */
    uintptr_t p = (uintptr_t)tl_impl_data(t);
    if ((p & ((uintptr_t)tl_itemsize(t->dtype) - 1)) == 0) {
        f |= TL_FLAG_ALIGNED;
    }
    t->flags = f;
}

int tl_check_in_bounds(int ndim, const int64_t *sizes, const int64_t *strides,
                       int64_t storage_offset, int64_t itemsize,
                       int64_t storage_nbytes)
{
    if (storage_offset < 0) {
        return tl_error(TL_ERR_SHAPE,
                        "storage offset must be non-negative, got %" PRId64,
                        storage_offset);
    }
    for (int d = 0; d < ndim; d++) {
        /* Layout code takes |stride|, which INT64_MIN lacks (found by
         * tests/fuzz/fuzz_strided.py: a size-1 dim accepted it). */
        if (strides[d] == INT64_MIN) {
            return tl_error(TL_ERR_OVERFLOW, "stride %" PRId64 " at dim %d "
                            "overflows int64 when negated", strides[d], d);
        }
    }
    int64_t lo = storage_offset, hi = storage_offset;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] == 0) {
            /* No element is reachable, so (as PyTorch) any offset goes;
             * but the data pointer is still offset * itemsize bytes on. */
            int64_t off_bytes;
            if (tl_mul_overflow_i64(storage_offset, itemsize, &off_bytes)) {
                return tl_error(TL_ERR_OVERFLOW,
                                "storage offset %" PRId64 " times itemsize "
                                "%" PRId64 " overflows int64 byte offsets",
                                storage_offset, itemsize);
            }
            return 0;
        }
    }
    for (int d = 0; d < ndim; d++) {
        int64_t span;
        if (tl_mul_overflow_i64(strides[d], sizes[d] - 1, &span) ||
            tl_add_overflow_i64(span < 0 ? lo : hi, span,
                                span < 0 ? &lo : &hi)) {
            return tl_error(TL_ERR_OVERFLOW,
                            "sizes %s with strides %s and storage offset "
                            "%" PRId64 " overflow int64 element offsets",
                            tl_fmt_list(0, ndim, sizes),
                            tl_fmt_list(1, ndim, strides), storage_offset);
        }
    }
    int64_t end_bytes;
    if (lo < 0 || tl_add_overflow_i64(hi, 1, &end_bytes) ||
        tl_mul_overflow_i64(end_bytes, itemsize, &end_bytes) ||
        end_bytes > storage_nbytes) {
        return tl_error(TL_ERR_SHAPE,
                        "sizes %s, strides %s and storage offset %" PRId64
                        " reach elements %" PRId64 "..%" PRId64
                        " (itemsize %" PRId64 "), outside a storage of "
                        "%" PRId64 " bytes",
                        tl_fmt_list(0, ndim, sizes),
                        tl_fmt_list(1, ndim, strides), storage_offset, lo,
                        hi, itemsize, storage_nbytes);
    }
    return 0;
}

/* ---- broadcasting and layouts like a tensor ---------------------------- */

bool tl_sizes_equal(const tl_tensor_impl *t, int ndim, const int64_t *sizes)
{
    if (t->ndim != ndim) {
        return false;
    }
    for (int d = 0; d < ndim; d++) {
        if (t->sizes[d] != sizes[d]) {
            return false;
        }
    }
    return true;
}

int tl_iter_infer_size(int n, const int *ndims, const int64_t *const *sizes,
                       int *out_ndim, int64_t *out)
{
    int nd = 0;
    for (int k = 0; k < n; k++) {
        if (ndims[k] < 0 || ndims[k] > TL_MAX_DIMS) {
            return tl_error(TL_ERR_SHAPE, "broadcast: bad ndim %d",
                            ndims[k]);
        }
        if (ndims[k] > nd) {
            nd = ndims[k];
        }
    }
    for (int d = 0; d < nd; d++) {
        out[d] = 1;
    }
    /* Pairwise: operand k against the broadcast of operands 0..k-1 (whose
     * own ndim is prev_nd); the dim in a message counts in the result. */
    int prev_nd = 0;
    for (int k = 0; k < n; k++) {
        const int off = nd - ndims[k];
        for (int d = off; d < nd; d++) {
            int64_t sa = out[d], sb = sizes[k][d - off];
            if (sa == sb || sb == 1) {
                continue;
            }
            if (sa == 1) {
                out[d] = sb;
                continue;
            }
            return tl_error(TL_ERR_SHAPE,
                            "shapes %s and %s do not broadcast: at dimension %d "
                            "(counted in the result) the sizes are %" PRId64
                            " and %" PRId64 ", and neither is 1",
                            tl_fmt_list(0, prev_nd, out + (nd - prev_nd)),
                            tl_fmt_list(1, ndims[k], sizes[k]), d, sa, sb);
        }
        if (ndims[k] > prev_nd) {
            prev_nd = ndims[k];
        }
    }
    *out_ndim = nd;
    return 0;
}

void tl_iter_dense_strides_like(const tl_tensor_impl *t, int64_t *strides)
{
    const int nd = t->ndim;
    int perm[TL_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        perm[i] = nd - 1 - i;
    }
    /* The comparison of Note [Iterator dimension order] with one operand. */
    for (int i = 1; i < nd; i++) {
        int dim1 = i;
        for (int dim0 = i - 1; dim0 >= 0; dim0--) {
            int64_t s0 = t->strides[perm[dim0]], s1 = t->strides[perm[dim1]];
            int c = 0;
            if (s0 != 0 && s1 != 0) {
                int64_t a0 = llabs(s0), a1 = llabs(s1);
                c = a0 < a1 ? -1
                    : a0 > a1 ? 1
                    : t->sizes[perm[dim0]] > t->sizes[perm[dim1]] ? 1 : 0;
            }
            if (c > 0) {
                int tmp = perm[dim0];
                perm[dim0] = perm[dim1];
                perm[dim1] = tmp;
                dim1 = dim0;
            } else if (c < 0) {
                break;
            }
        }
    }
    int64_t next = 1;
    for (int i = 0; i < nd; i++) {
        strides[perm[i]] = next;
        next *= t->sizes[perm[i]] > 1 ? t->sizes[perm[i]] : 1;
    }
}
