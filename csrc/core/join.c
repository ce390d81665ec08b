/* csrc/core/join.c — cat and stack: validate every input, allocate the
 * output once, then copy each input into a narrowed view of it (one pass
 * per input through the copy machinery, so any dtype conversion, layout and
 * device the copy path supports works here).  Splitting is made of views
 * and lives in the Python layer. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape.h"
#include "../alloc/fault.h"
#include "tensor_impl.h"
#include "tensorlib/iter.h"
#include "tensorlib/joinindex.h"
#include "tensorlib/view.h"

/* PyTorch's legacy rule: a 1-D tensor with no elements joins anything. */
static bool skipped(const tl_tensor_impl *t)
{
    return t->ndim == 1 && t->sizes[0] == 0;
}

/* Writes result into out: out must have the result's shape, or no
 * elements and its own storage (then it is resized); the result dtype must
 * cast to out's dtype.  Returns 0 or an error (out unchanged). */
static int check_out(tl_tensor_impl *out, int ndim, const int64_t *sizes,
                     tl_dtype dt, const char *op)
{
    int rc = tl_tensor_check_writable(out);
    if (rc < 0) {
        return rc;
    }
    if (tl_iter_has_internal_overlap(out)) {
        return tl_error(TL_ERR_SHAPE, "%s(): unsupported operation: more "
                        "than one element of out refers to a single memory "
                        "location; clone() it first", op);
    }
    if (!tl_can_cast(dt, (tl_dtype)out->dtype)) {
        return tl_error(TL_ERR_TYPE, "%s(): result type %s can't be cast "
                        "to the desired output type %s", op,
                        tl_dtype_info_of(dt)->name,
                        tl_dtype_info_of((tl_dtype)out->dtype)->name);
    }
    if (out->ndim == ndim &&
        memcmp(out->sizes, sizes, (size_t)ndim * sizeof(int64_t)) == 0) {
        return 0;
    }
    if (out->numel == 0 && !out->base && out->storage_offset == 0) {
        return 0; /* resized by the caller, after every check */
    }
    return tl_error(TL_ERR_SHAPE, "%s(): out has shape %s but the result "
                    "has shape %s", op, tl_fmt_list(0, out->ndim, out->sizes),
                    tl_fmt_list(1, ndim, sizes));
}

/* Note [Contiguous cat]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * The general path copies each input into a narrowed view of the result:
 * a view impl and the copy machinery per input, about a third of a small
 * cat's instructions (issue 22).  When the result is a fresh CPU tensor
 * below the parallel grain and every input with elements is contiguous
 * and of the result's dtype, the result is outer = prod(sizes[:d]) rows,
 * each the inputs' blocks of sizes[d] * inner elements side by side, so
 * each input is outer memcpys of its own contiguous block.  The inputs'
 * liveness checks (a stale workspace tensor, a storage shrunk under the
 * view) run as the copy path runs them.  Returns 1 when copied, 0 when
 * the general path must run, or an error (res is then the caller's to
 * drop). */
static int cat_contiguous(tl_tensor_impl *res, int n,
                          tl_tensor_impl *const *ts, int d)
{
    if (res->device.type != TL_DEVICE_CPU || res->numel == 0 ||
        res->numel >= TL_ITER_GRAIN) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        const tl_tensor_impl *t = ts[i];
        if (skipped(t) || t->numel == 0) {
            continue;
        }
        if (t->dtype != res->dtype || !(t->flags & TL_FLAG_CONTIGUOUS)) {
            return 0;
        }
    }
    for (int i = 0; i < n; i++) {
        if (!skipped(ts[i]) && ts[i]->numel > 0) {
            int rc = tl_tensor_check_live(ts[i]);
            if (rc < 0) {
                return rc;
            }
        }
    }
    int64_t outer = 1, inner = tl_itemsize((tl_dtype)res->dtype);
    for (int k = 0; k < d; k++) {
        outer *= res->sizes[k];
    }
    for (int k = d + 1; k < res->ndim; k++) {
        inner *= res->sizes[k];
    }
    const int64_t row = res->sizes[d] * inner;
    char *dst = tl_impl_data(res);
    int64_t off = 0;
    for (int i = 0; i < n; i++) {
        const tl_tensor_impl *t = ts[i];
        if (skipped(t) || t->numel == 0) {
            continue; /* (a non-skipped empty input has sizes[d] == 0) */
        }
        const int64_t chunk = t->sizes[d] * inner;
        const char *src = tl_impl_data(t);
        for (int64_t o = 0; o < outer; o++) {
            memcpy(dst + o * row + off, src + o * chunk, (size_t)chunk);
        }
        off += chunk;
    }
    return 1;
}

tl_tensor_impl *tl_op_cat(tl_tensor_impl *out, int n,
                          tl_tensor_impl *const *ts, int64_t dim)
{
    if (n <= 0) {
        tl_error(TL_ERR_SHAPE, "cat(): expected a non-empty list of "
                 "tensors");
        return NULL;
    }
    /* The reference shape: the first input that is not skipped. */
    int ref = -1;
    tl_dtype dt = (tl_dtype)ts[0]->dtype;
    tl_device dev = ts[0]->device;
    for (int i = 0; i < n; i++) {
        if (ts[i]->ndim == 0) {
            tl_error(TL_ERR_SHAPE, "cat(): zero-dimensional tensor (at "
                     "position %d) cannot be concatenated", i);
            return NULL;
        }
        if (ts[i]->device.type != dev.type ||
            ts[i]->device.index != dev.index) {
            tl_error(TL_ERR_RUNTIME, "cat(): expected all tensors to be on "
                     "the same device, but tensor %d is on another", i);
            return NULL;
        }
        if (i > 0) {
            dt = tl_promote_types(dt, (tl_dtype)ts[i]->dtype);
        }
        if (ref < 0 && !skipped(ts[i])) {
            ref = i;
        }
    }
    const tl_tensor_impl *r = ts[ref < 0 ? 0 : ref];
    int d;
    if (tl_wrap_dim(dim, r->ndim, &d) < 0) {
        return NULL;
    }
    int64_t sizes[TL_MAX_DIMS];
    memcpy(sizes, r->sizes, (size_t)r->ndim * sizeof(int64_t));
    int64_t total = 0;
    for (int i = 0; i < n && ref >= 0; i++) {
        const tl_tensor_impl *t = ts[i];
        if (skipped(t)) {
            continue;
        }
        bool ok = t->ndim == r->ndim;
        for (int k = 0; ok && k < r->ndim; k++) {
            ok = k == d || t->sizes[k] == r->sizes[k];
        }
        if (!ok) {
            tl_error(TL_ERR_SHAPE, "cat(): sizes of tensors must match "
                     "except in dimension %d: tensor %d has shape %s, "
                     "tensor %d has shape %s", d, ref,
                     tl_fmt_list(0, r->ndim, r->sizes), i,
                     tl_fmt_list(1, t->ndim, t->sizes));
            return NULL;
        }
        if (__builtin_add_overflow(total, t->sizes[d], &total)) {
            tl_error(TL_ERR_OVERFLOW, "cat(): the result size overflows");
            return NULL;
        }
    }
    int ndim = r->ndim;
    if (ref < 0) {
        ndim = 1;
        total = 0;
        d = 0;
    }
    sizes[d] = total;
    tl_tensor_impl *res = NULL;
    if (out) {
        if (check_out(out, ndim, sizes, dt, "cat") < 0) {
            return NULL;
        }
        for (int i = 0; i < n; i++) {
            if (tl_iter_overlap(out, ts[i]) != TL_OVERLAP_NO) {
                tl_error(TL_ERR_SHAPE, "cat(): unsupported operation: the "
                         "input tensors cannot refer to any of the output "
                         "memory locations (input %d does)", i);
                return NULL;
            }
        }
        if ((out->ndim != ndim ||
             memcmp(out->sizes, sizes, (size_t)ndim * sizeof(int64_t))) &&
            tl_tensor_resize_(out, ndim, sizes) < 0) {
            return NULL;
        }
        tl_tensor_incref(out);
        res = out;
    } else {
        res = tl_tensor_empty(ndim, sizes, dt, dev, TL_MEMKIND_DEFAULT);
        if (!res) {
            return NULL;
        }
        int fast = ref >= 0 ? cat_contiguous(res, n, ts, d) : 0;
        if (fast != 0) { /* Note [Contiguous cat] */
            if (fast < 0) {
                tl_tensor_decref(res);
                return NULL;
            }
            return res;
        }
    }
    int64_t off = 0;
    for (int i = 0; i < n && ref >= 0; i++) {
        tl_tensor_impl *t = ts[i];
        if (skipped(t)) {
            continue;
        }
        int64_t len = t->sizes[d];
        if (len > 0 && t->numel > 0) {
            tl_tensor_impl *v = tl_view_narrow(res, d, off, len);
            int rc = v ? tl_copy_unchecked(v, t) : -1;
            tl_tensor_decref(v);
            if (rc < 0) {
                tl_tensor_decref(res);
                return NULL;
            }
        }
        off += len;
    }
    if (out) {
        tl_tensor_bump_version(out);
    }
    return res;
}

tl_tensor_impl *tl_op_stack(tl_tensor_impl *out, int n,
                            tl_tensor_impl *const *ts, int64_t dim)
{
    if (n <= 0) {
        tl_error(TL_ERR_SHAPE, "stack(): expected a non-empty list of "
                 "tensors");
        return NULL;
    }
    const tl_tensor_impl *r = ts[0];
    for (int i = 1; i < n; i++) {
        if (ts[i]->ndim != r->ndim ||
            memcmp(ts[i]->sizes, r->sizes,
                   (size_t)r->ndim * sizeof(int64_t)) != 0) {
            tl_error(TL_ERR_SHAPE, "stack(): expects each tensor to be "
                     "equal size, but got %s at entry 0 and %s at entry %d",
                     tl_fmt_list(0, r->ndim, r->sizes),
                     tl_fmt_list(1, ts[i]->ndim, ts[i]->sizes), i);
            return NULL;
        }
    }
    if (r->ndim + 1 > TL_MAX_DIMS) {
        tl_error(TL_ERR_SHAPE, "stack(): too many dims");
        return NULL;
    }
    int d;
    if (tl_wrap_dim(dim, r->ndim + 1, &d) < 0) {
        return NULL;
    }
    tl_tensor_impl *res = NULL;
    tl_tensor_impl **views = tl_fault_calloc((size_t)n, sizeof(*views));
    if (!views) {
        tl_error(TL_ERR_MEMORY, "stack(): out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        views[i] = tl_view_unsqueeze(ts[i], d);
        if (!views[i]) {
            goto done;
        }
    }
    res = tl_op_cat(out, n, views, d);
done:
    for (int i = 0; i < n; i++) {
        tl_tensor_decref(views[i]);
    }
    free(views);
    return res;
}
