/* csrc/core/index.c — advanced indexing: gather (a[idx]), scatter
 * (a[idx] = v) and nonzero, by direct address arithmetic over strided
 * operands.  Validation (every index in range) happens in a first pass,
 * before anything is allocated or written. */
#include <inttypes.h>
#include <string.h>

#include "device_impl.h"
#include "shape.h"
#include "tensor_impl.h"
#include "tensorlib/index.h"
#include "tensorlib/iter.h"

/* An odometer over a shape: advances idx and returns the byte delta for
 * each of up to two strided operands.  Dims counted from the last. */
typedef struct {
    int ndim;
    const int64_t *sizes;
    int64_t idx[TL_MAX_DIMS];
} odometer;

static void odo_init(odometer *o, int ndim, const int64_t *sizes)
{
    o->ndim = ndim;
    o->sizes = sizes;
    memset(o->idx, 0, sizeof(o->idx));
}

/* Moves to the next position; *off (bytes) follows strides (bytes). */
static void odo_next(odometer *o, const int64_t *strides, int64_t *off)
{
    for (int d = o->ndim - 1; d >= 0; d--) {
        if (++o->idx[d] < o->sizes[d]) {
            *off += strides[d];
            return;
        }
        *off -= strides[d] * (o->sizes[d] - 1);
        o->idx[d] = 0;
    }
}

/* Note [Empty operands]
 * An empty tensor reaches no element, so its strides are not bounded by
 * its storage: (2**62, 0) with strides (2**40, 1) is valid.  Index * stride
 * and stride * itemsize may then overflow int64, so for empty operands no
 * offset or byte stride is computed at all; the running products of sizes
 * that are computed stay within int64 because every tensor's running
 * product does (tl_safe_numel_bytes) and index dims here have size >= 1. */

/* The shared set-up of gather and scatter: checks the index tensors and
 * fills the element offsets into src/dst for every position of B (an int64
 * scratch tensor, from the allocator), and the remaining dims R.
 * Returns: new reference to the offsets tensor, or NULL. */
static tl_tensor_impl *adv_offsets(tl_tensor_impl *t, int nadv,
                                   const int *adv_dims,
                                   tl_tensor_impl *const *idx, int *rndim,
                                   int64_t *rsizes, int64_t *rstrides)
{
    if (nadv < 1 || nadv > t->ndim) {
        tl_error(TL_ERR_INDEX, "too many indices (%d) for a tensor of "
                 "dimension %d", nadv, t->ndim);
        return NULL;
    }
    const tl_tensor_impl *i0 = idx[0];
    uint64_t used = 0;
    for (int k = 0; k < nadv; k++) {
        const tl_tensor_impl *ik = idx[k];
        if (ik->dtype != TL_DTYPE_INT64) {
            tl_error(TL_ERR_TYPE, "index tensors must be int64 here");
            return NULL;
        }
        if (ik->ndim != i0->ndim ||
            memcmp(ik->sizes, i0->sizes, (size_t)i0->ndim * 8) != 0) {
            tl_error(TL_ERR_SHAPE, "index tensors must share one shape");
            return NULL;
        }
        if (adv_dims[k] < 0 || adv_dims[k] >= t->ndim ||
            ((used >> adv_dims[k]) & 1u)) {
            tl_error(TL_ERR_INDEX, "bad advanced index dim %d", adv_dims[k]);
            return NULL;
        }
        used |= (uint64_t)1 << adv_dims[k];
    }
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (!((used >> d) & 1u)) {
            rsizes[n] = t->sizes[d];
            rstrides[n] = t->strides[d];
            n++;
        }
    }
    *rndim = n;
    tl_tensor_impl *offs = tl_tensor_empty(i0->ndim, i0->sizes,
                                           TL_DTYPE_INT64, tl_device_cpu(),
                                           TL_MEMKIND_DEFAULT);
    if (!offs) {
        return NULL;
    }
    int64_t *o = (int64_t *)tl_impl_data(offs);
    const int64_t nb = i0->numel;
    for (int64_t b = 0; b < nb; b++) {
        o[b] = t->storage_offset;
    }
    for (int k = 0; k < nadv; k++) {
        const tl_tensor_impl *ik = idx[k];
        const int d = adv_dims[k];
        const int64_t size = t->sizes[d], stride = t->strides[d];
        const char *p = tl_impl_data(ik);
        int64_t bstr[TL_MAX_DIMS];
        for (int j = 0; j < ik->ndim; j++) {
            bstr[j] = ik->strides[j] * 8;
        }
        odometer od;
        odo_init(&od, ik->ndim, ik->sizes);
        int64_t off = 0;
        for (int64_t b = 0; b < nb; b++) {
            int64_t v;
            memcpy(&v, p + off, 8);
            if (v < -size || v >= size) {
                tl_error(TL_ERR_INDEX,
                         "index %" PRId64 " is out of bounds for dimension "
                         "%d with size %" PRId64, v, d, size);
                tl_tensor_decref(offs);
                return NULL;
            }
            if (v < 0) {
                v += size;
            }
            /* An empty t addresses no element: only indices are checked
             * (Note [Empty operands]).  Otherwise every index is in range,
             * so the offset is inside the storage and cannot overflow. */
            if (t->numel > 0) {
                o[b] += v * stride;
            }
            odo_next(&od, bstr, &off);
        }
    }
    return offs;
}

tl_tensor_impl *tl_index_gather(tl_tensor_impl *src, int nadv,
                                const int *adv_dims,
                                tl_tensor_impl *const *idx)
{
    int64_t rsizes[TL_MAX_DIMS], rstrides[TL_MAX_DIMS];
    int64_t shape[TL_MAX_DIMS];
    int rn;
    tl_tensor_impl *out = NULL;
    if (tl_device_cpu_only(src, "advanced indexing") < 0) {
        return NULL;
    }
    for (int k = 0; k < nadv; k++) {
        if (tl_device_cpu_only(idx[k], "advanced indexing") < 0) {
            return NULL;
        }
    }
    tl_tensor_impl *offs = adv_offsets(src, nadv, adv_dims, idx, &rn, rsizes,
                                       rstrides);
    if (!offs) {
        return NULL;
    }
    const tl_tensor_impl *i0 = idx[0];
    if (i0->ndim + rn > TL_MAX_DIMS) {
        tl_error(TL_ERR_SHAPE, "indexing result has more than %d dims",
                 TL_MAX_DIMS);
        goto done;
    }
    memcpy(shape, i0->sizes, (size_t)i0->ndim * 8);
    memcpy(shape + i0->ndim, rsizes, (size_t)rn * 8);
    out = tl_tensor_empty(i0->ndim + rn, shape, (tl_dtype)src->dtype,
                          src->device, TL_MEMKIND_DEFAULT);
    if (!out) {
        goto done;
    }
    const int64_t isz = tl_itemsize(src->dtype);
    const char *base = (const char *)src->storage->block->ptr +
                       src->storage->offset;
    char *dst = tl_impl_data(out);
    const int64_t *o = (const int64_t *)tl_impl_data(offs);
    int64_t rnumel = 1, rbytes[TL_MAX_DIMS];
    for (int j = 0; j < rn; j++) {
        rnumel *= rsizes[j];
    }
    if (i0->numel == 0 || rnumel == 0) {
        /* Nothing to copy; an empty src may have any strides, so no
         * address is formed (Note [Empty operands]). */
        goto done;
    }
    for (int j = 0; j < rn; j++) {
        rbytes[j] = rstrides[j] * isz;
    }
    for (int64_t b = 0; b < i0->numel; b++) {
        const char *s = base + o[b] * isz;
        odometer od;
        odo_init(&od, rn, rsizes);
        int64_t off = 0;
        for (int64_t r = 0; r < rnumel; r++) {
            memcpy(dst, s + off, (size_t)isz);
            dst += isz;
            odo_next(&od, rbytes, &off);
        }
    }
done:
    tl_tensor_decref(offs);
    return out;
}

int tl_index_scatter_(tl_tensor_impl *dst, int nadv, const int *adv_dims,
                      tl_tensor_impl *const *idx, tl_tensor_impl *values)
{
    int64_t rsizes[TL_MAX_DIMS], rstrides[TL_MAX_DIMS];
    int rn;
    if (tl_device_cpu_only(dst, "advanced index assignment") < 0 ||
        tl_device_cpu_only(values, "advanced index assignment") < 0) {
        return tl_error_kind();
    }
    for (int k = 0; k < nadv; k++) {
        if (tl_device_cpu_only(idx[k], "advanced index assignment") < 0) {
            return tl_error_kind();
        }
    }
    if (tl_tensor_check_writable(dst) < 0) {
        return TL_ERR_READONLY;
    }
    /* As the iterator refuses such an output (and PyTorch's index_put_):
     * a write to one element would change others. */
    int rc = tl_iter_check_writable_layout(dst);
    if (rc < 0) {
        return rc;
    }
    if (values->dtype != dst->dtype) {
        return tl_error(TL_ERR_TYPE, "scatter: values must have the "
                        "destination's dtype");
    }
    tl_tensor_impl *offs = adv_offsets(dst, nadv, adv_dims, idx, &rn, rsizes,
                                       rstrides);
    if (!offs) {
        return tl_error_kind();
    }
    const tl_tensor_impl *i0 = idx[0];
    int status = 0;
    if (values->ndim != i0->ndim + rn ||
        memcmp(values->sizes, i0->sizes, (size_t)i0->ndim * 8) != 0 ||
        memcmp(values->sizes + i0->ndim, rsizes, (size_t)rn * 8) != 0) {
        status = tl_error(TL_ERR_SHAPE, "scatter: values of shape %s do not "
                          "match the indexed shape",
                          tl_fmt_list(0, values->ndim, values->sizes));
        goto done;
    }
    const int64_t isz = tl_itemsize(dst->dtype);
    char *base = (char *)dst->storage->block->ptr + dst->storage->offset;
    const char *v = tl_impl_data(values);
    const int64_t *o = (const int64_t *)tl_impl_data(offs);
    int64_t rbytes[TL_MAX_DIMS], vbytes[TL_MAX_DIMS];
    int64_t rnumel = 1;
    for (int j = 0; j < rn; j++) {
        rnumel *= rsizes[j];
    }
    if (i0->numel == 0 || rnumel == 0) {
        tl_tensor_bump_version(dst); /* an (empty) in-place write */
        goto done;
    }
    for (int j = 0; j < rn; j++) {
        rbytes[j] = rstrides[j] * isz;
    }
    for (int j = 0; j < values->ndim; j++) {
        vbytes[j] = values->strides[j] * isz;
    }
    /* values is walked as one odometer over B + R; dst as B then R. */
    odometer ov;
    odo_init(&ov, values->ndim, values->sizes);
    int64_t voff = 0;
    for (int64_t b = 0; b < i0->numel; b++) {
        char *d = base + o[b] * isz;
        odometer od;
        odo_init(&od, rn, rsizes);
        int64_t off = 0;
        for (int64_t r = 0; r < rnumel; r++) {
            memmove(d + off, v + voff, (size_t)isz);
            odo_next(&od, rbytes, &off);
            odo_next(&ov, vbytes, &voff);
        }
    }
    tl_tensor_bump_version(dst);
done:
    tl_tensor_decref(offs);
    return status;
}

/* True when the element at p is not zero (-0.0 is zero; NaN is not). */
static bool elem_nonzero(int dtype, const char *p)
{
    switch (dtype) {
    case TL_DTYPE_FLOAT16:
    case TL_DTYPE_BFLOAT16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return (h & 0x7fffu) != 0;
    }
    case TL_DTYPE_FLOAT32:
    case TL_DTYPE_COMPLEX64: {
        float f[2] = {0.0f, 0.0f};
        memcpy(f, p, dtype == TL_DTYPE_FLOAT32 ? 4 : 8);
        return f[0] != 0.0f || f[1] != 0.0f;
    }
    case TL_DTYPE_FLOAT64:
    case TL_DTYPE_COMPLEX128: {
        double f[2] = {0.0, 0.0};
        memcpy(f, p, dtype == TL_DTYPE_FLOAT64 ? 8 : 16);
        return f[0] != 0.0 || f[1] != 0.0;
    }
    default: {
        const int64_t isz = tl_itemsize(dtype);
        for (int64_t b = 0; b < isz; b++) {
            if (p[b] != 0) {
                return true;
            }
        }
        return false;
    }
    }
}

tl_tensor_impl *tl_index_nonzero(tl_tensor_impl *t)
{
    if (tl_device_cpu_only(t, "nonzero") < 0 || tl_tensor_check_live(t) < 0) {
        return NULL;
    }
    const int64_t isz = tl_itemsize(t->dtype);
    const char *p = tl_impl_data(t);
    int64_t bytes[TL_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        bytes[d] = t->strides[d] * isz;
    }
    /* First pass counts, second fills: no reallocation. */
    int64_t count = 0;
    odometer od;
    odo_init(&od, t->ndim, t->sizes);
    int64_t off = 0;
    for (int64_t i = 0; i < t->numel; i++) {
        count += elem_nonzero(t->dtype, p + off);
        odo_next(&od, bytes, &off);
    }
    int64_t shape[2] = {count, t->ndim};
    tl_tensor_impl *out = tl_tensor_empty(2, shape, TL_DTYPE_INT64,
                                          tl_device_cpu(),
                                          TL_MEMKIND_DEFAULT);
    if (!out || count == 0) {
        return out;
    }
    int64_t *o = (int64_t *)tl_impl_data(out);
    odo_init(&od, t->ndim, t->sizes);
    off = 0;
    for (int64_t i = 0; i < t->numel; i++) {
        if (elem_nonzero(t->dtype, p + off)) {
            memcpy(o, od.idx, (size_t)t->ndim * 8);
            o += t->ndim;
        }
        odo_next(&od, bytes, &off);
    }
    return out;
}
