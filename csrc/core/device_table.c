/* csrc/core/device_table.c — the per-device kernel table: its rows, the
 * check that a device can hold tensors, the plain description of a built
 * iterator that device kernels run over, and copies across devices.  Core
 * never calls a device API; this file only calls through the rows that a
 * plug-in installed.  No tensor data is touched here on the host except
 * through the iterator-driven CPU copies it asks for. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_impl.h"
#include "../alloc/fault.h"
#include "kernels.h"
#include "shape.h"

/* Note [Device kernel table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * One row (tl_device_ops) per device type; the CPU has none (its kernels
 * are the loops of kernels_*.c), CUDA's is installed by csrc/cuda when the
 * extension starts, and is absent in a CPU-only build, where asking for a
 * CUDA tensor fails with "tensorlib was built without CUDA".
 *
 * How core routes:
 * - elementwise ops (ops.c run_op, ops_copy.c copy_/fill_) build their
 *   TensorIterator with device_kernels set, which lets a non-CPU device
 *   through the build (metadata only: shapes, dtypes, strides, outputs
 *   allocated on the device).  A 0-dim CPU tensor stays a host number
 *   (the iterator inlines it); a one-element device tensor is a normal
 *   operand with zero strides.  Then, for a non-CPU device, tl_device_run
 *   turns the iterator into a tl_dev_loop (pointers, dtypes, target
 *   dtypes, byte strides in iteration order) and calls the row's
 *   elementwise with what to compute (tl_dev_op).  Dtype conversion
 *   happens inside the device kernel, per element, as the CPU's buffered
 *   casts do;
 * - the integer-division scan for zero divisors uses the row's scan;
 * - sum/prod/mean/amax/amin/max/min/any/all (reduce.c) build their usual
 *   layout and hand it to the row's reduce as a tl_dev_reduce;
 * - copies between devices go through tl_device_copy_cross (Note
 *   [Cross-device copies]);
 * - everything else that reads data on the host (advanced indexing, var,
 *   argmax, ...) refuses non-CPU tensors with TL_ERR_NOT_IMPLEMENTED
 *   (tl_device_cpu_only), never touching device memory from the host. */

static _Atomic(const tl_device_ops *) rows[TL_DEVICE_TYPE_COUNT];

static const char *type_name(int type)
{
    return type == TL_DEVICE_CUDA ? "CUDA" : "this device type";
}

int tl_device_ops_register(int type, const tl_device_ops *ops)
{
    if (type <= TL_DEVICE_CPU || type >= TL_DEVICE_TYPE_COUNT) {
        return tl_error(TL_ERR_VALUE, "device type %d has no kernel table "
                        "row to register", type);
    }
    if (ops != NULL && ops->abi_version != TL_DEVICE_OPS_ABI_VERSION) {
        return tl_error(TL_ERR_VALUE, "device table row '%s' has ABI "
                        "version %u, expected %d",
                        ops->name != NULL ? ops->name : "?",
                        (unsigned)ops->abi_version,
                        TL_DEVICE_OPS_ABI_VERSION);
    }
    atomic_store_explicit(&rows[type], ops, memory_order_release);
    return TL_OK;
}

bool tl_device_ops_present(int type)
{
    return type > TL_DEVICE_CPU && type < TL_DEVICE_TYPE_COUNT &&
           atomic_load_explicit(&rows[type], memory_order_acquire) != NULL;
}

const tl_device_ops *tl_device_ops_get(int type)
{
    const tl_device_ops *o = NULL;

    if (type > TL_DEVICE_CPU && type < TL_DEVICE_TYPE_COUNT) {
        o = atomic_load_explicit(&rows[type], memory_order_acquire);
    }
    if (o == NULL) {
        tl_error(TL_ERR_RUNTIME, "tensorlib was built without %s",
                 type_name(type));
    }
    return o;
}

int tl_device_require(tl_device d)
{
    const tl_device_ops *o;
    char name[32];
    int rc;

    if (d.type == TL_DEVICE_CPU) {
        return TL_OK;
    }
    tl_device_format(d, name, sizeof(name));
    o = tl_device_ops_get(d.type);
    if (o == NULL) {
        return tl_error(TL_ERR_RUNTIME, "tensorlib was built without %s (%s "
                        "requested)", type_name(d.type), name);
    }
    rc = o->check_device(d.index);
    if (rc < 0) {
        /* Keep the row's message; name the device asked for. */
        char msg[256];
        snprintf(msg, sizeof(msg), "%s", tl_error_message());
        if (strstr(msg, name) != NULL) {
            return rc;
        }
        return tl_error(rc, "%s (%s requested)", msg, name);
    }
    return TL_OK;
}

int tl_device_cpu_only(const tl_tensor_impl *t, const char *what)
{
    char dev[32];

    if (t->device.type == TL_DEVICE_CPU) {
        return TL_OK;
    }
    tl_device_format(t->device, dev, sizeof(dev));
    return tl_error(TL_ERR_NOT_IMPLEMENTED, "%s is not implemented for %s "
                    "tensors (copy to the CPU with .cpu() first)", what, dev);
}

int tl_device_mismatch(tl_device a, tl_device b)
{
    char x[32], y[32];

    tl_device_format(a, x, sizeof(x));
    tl_device_format(b, y, sizeof(y));
    return tl_error(TL_ERR_RUNTIME, "operands on different devices (%s and "
                    "%s): move them to one device first", x, y);
}

/* ---- elementwise -------------------------------------------------------- */

static int loop_from_iter(const tl_iter *it, tl_dev_loop *L)
{
    L->ntensors = it->ntensors;
    L->noutputs = it->noutputs;
    L->ndim = it->ndim;
    L->device = it->device;
    L->numel = it->numel;
    memcpy(L->shape, it->shape, (size_t)it->ndim * sizeof(int64_t));
    for (int k = 0; k < it->ntensors; k++) {
        const tl_iter_op *op = &it->ops[k];
        tl_dev_operand *d = &L->ops[k];
        d->dtype = op->dtype;
        d->target_dtype = op->target_dtype;
        memset(&d->scalar, 0, sizeof(d->scalar));
        memcpy(d->strides, op->strides, (size_t)it->ndim * sizeof(int64_t));
        if (op->inlined) {
            d->data = NULL;
            memcpy(d->scalar.b, op->scalar, sizeof(d->scalar.b));
            continue;
        }
        d->data = op->data;
        if ((uintptr_t)op->data &
            ((uintptr_t)tl_dtype_align(op->dtype) - 1)) {
            return tl_error(TL_ERR_NOT_IMPLEMENTED,
                            "device kernels need memory aligned to the "
                            "element size (operand %d, %s, at %p)", k,
                            tl_dtype_table[op->dtype].name,
                            (void *)op->data);
        }
    }
    return TL_OK;
}

int tl_device_run(const tl_iter *it, int kind, int op, const void *value)
{
    const tl_device_ops *o = tl_device_ops_get(it->device.type);
    tl_dev_loop *L;
    tl_dev_op what;
    int rc;

    if (o == NULL) {
        return TL_ERR_RUNTIME;
    }
    if (it->numel == 0) {
        return TL_OK;
    }
    /* ~5 KiB: on the heap, to keep deep call stacks small. */
    L = tl_fault_malloc(sizeof(*L));
    if (L == NULL) {
        return tl_error(TL_ERR_MEMORY, "out of memory for a device launch");
    }
    rc = loop_from_iter(it, L);
    if (rc == 0) {
        memset(&what, 0, sizeof(what));
        what.kind = kind;
        what.op = op;
        if (value != NULL) {
            memcpy(what.value.b, value, sizeof(what.value.b));
        }
        rc = o->elementwise(L, &what);
    }
    free(L);
    return rc;
}

int tl_device_scan(const tl_iter *it, int kind)
{
    const tl_device_ops *o = tl_device_ops_get(it->device.type);
    tl_dev_loop *L;
    tl_dev_op what;
    int found = 0, rc;

    if (o == NULL) {
        return TL_ERR_RUNTIME;
    }
    if (it->numel == 0) {
        return 0;
    }
    L = tl_fault_malloc(sizeof(*L));
    if (L == NULL) {
        return tl_error(TL_ERR_MEMORY, "out of memory for a device scan");
    }
    rc = loop_from_iter(it, L);
    if (rc == 0) {
        memset(&what, 0, sizeof(what));
        what.kind = kind;
        rc = o->scan(L, &what, &found);
    }
    free(L);
    return rc < 0 ? rc : found != 0;
}

int tl_device_reduce(const tl_dev_reduce *r)
{
    const tl_device_ops *o = tl_device_ops_get(r->device.type);

    return o == NULL ? TL_ERR_RUNTIME : o->reduce(r);
}

/* ---- bytes -------------------------------------------------------------- */

/* The row that moves bytes between a and b (at least one not the CPU). */
static const tl_device_ops *row_between(tl_device a, tl_device b)
{
    return tl_device_ops_get(a.type != TL_DEVICE_CPU ? a.type : b.type);
}

int tl_device_copy_blocks(tl_block *dst, size_t dst_offset, tl_block *src,
                          size_t src_offset, size_t nbytes)
{
    const tl_device_ops *o =
        row_between(tl_block_device(dst), tl_block_device(src));

    if (o == NULL) {
        return TL_ERR_RUNTIME;
    }
    return o->copy_bytes(dst, dst_offset, src, src_offset, nbytes, 0);
}

int tl_device_read_element(const tl_tensor_impl *t, void *out)
{
    const tl_storage *s = t->storage;
    const int64_t isz = tl_itemsize(t->dtype);
    tl_block *host;
    int rc;

    memset(out, 0, 16);
    host = tl_block_wrap(out, 16, tl_device_cpu(), false, NULL, NULL);
    if (host == NULL) {
        return tl_error_kind();
    }
    rc = tl_device_copy_blocks(
        host, 0, s->block,
        (size_t)(s->offset + t->storage_offset * isz), (size_t)isz);
    tl_block_decref(host);
    return rc;
}

/* ---- copies across devices ---------------------------------------------- */

/* Note [Cross-device copies]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * copy_(dst, src) with dst and src on different devices (one of them may
 * be the CPU) moves bytes once, with everything else done on one side:
 *
 * 1. on src's device: `a`, src broadcast to dst's shape and converted to
 *    dst's dtype, laid out as dst when dst is dense (non-overlapping and
 *    dense, strides >= 0), else C-contiguous.  When src already is that
 *    (the common .cuda() / .cpu() of a dense tensor), a is src: no copy;
 * 2. when dst is dense with a's layout: one byte copy of the
 *    numel * itemsize bytes from a's element 0 to dst's;
 * 3. otherwise: a byte copy into `b`, a's twin on dst's device, then a
 *    copy_ from b into dst on dst's device (a strided copy kernel there).
 *
 * non_blocking reaches the byte copy only: the row keeps its source (a or
 * src) alive until the copy completed, and a CPU destination is marked
 * pending, so that its first host read waits (Note [Pending host reads]
 * in csrc/alloc/block.c).  Step 3 on the CPU reads b at once, so it waits
 * there: a non-blocking copy is an upper bound on asynchrony, never a
 * correctness hazard.  Device-side work runs on the current stream of the
 * device involved, in order with the kernels queued there before. */

/* Dense, all strides of dims larger than 1 non-negative. */
static bool dense_nonneg(const tl_tensor_impl *t)
{
    if (!(t->flags & TL_FLAG_NON_OVERLAPPING_AND_DENSE)) {
        return false;
    }
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] > 1 && t->strides[d] < 0) {
            return false;
        }
    }
    return true;
}

/* Same sizes, and the same strides wherever the size exceeds 1. */
static bool same_layout(const tl_tensor_impl *a, const tl_tensor_impl *b)
{
    if (a->ndim != b->ndim) {
        return false;
    }
    for (int d = 0; d < a->ndim; d++) {
        if (a->sizes[d] != b->sizes[d] ||
            (a->sizes[d] > 1 && a->strides[d] != b->strides[d])) {
            return false;
        }
    }
    return true;
}

static size_t byte_offset(const tl_tensor_impl *t)
{
    return (size_t)(t->storage->offset +
                    t->storage_offset * tl_itemsize(t->dtype));
}

/* A fresh tensor of like's sizes and layout (strides of dims of size <= 1
 * made non-negative), dtype dt, on dev.  Returns: new reference. */
static tl_tensor_impl *empty_as(const tl_tensor_impl *like, int dt,
                                tl_device dev)
{
    int64_t st[TL_MAX_DIMS];

    for (int d = 0; d < like->ndim; d++) {
        st[d] = like->strides[d] < 0 ? -like->strides[d] : like->strides[d];
    }
    return tl_tensor_empty_strided(like->ndim, like->sizes, st, (tl_dtype)dt,
                                   dev, TL_MEMKIND_DEFAULT);
}

static int validate_cross(tl_tensor_impl *dst, tl_tensor_impl *src)
{
    int nd[2] = {dst->ndim, src->ndim};
    const int64_t *sz[2] = {dst->sizes, src->sizes};
    int64_t shape[TL_MAX_DIMS];
    int bnd;
    int rc = tl_tensor_check_writable(dst);

    if (rc < 0) {
        return rc;
    }
    rc = tl_iter_infer_size(2, nd, sz, &bnd, shape);
    if (rc < 0) {
        return rc;
    }
    if (bnd != dst->ndim ||
        memcmp(shape, dst->sizes, (size_t)bnd * sizeof(int64_t)) != 0) {
        return tl_error(TL_ERR_SHAPE,
                        "cannot copy into shape %s: the source broadcasts "
                        "to %s", tl_fmt_list(0, dst->ndim, dst->sizes),
                        tl_fmt_list(1, bnd, shape));
    }
    if ((rc = tl_iter_check_writable_layout(dst)) < 0) {
        return rc;
    }
    if (dst->device.type != TL_DEVICE_CPU &&
        tl_device_require(dst->device) < 0) {
        return tl_error_kind();
    }
    if (src->device.type != TL_DEVICE_CPU &&
        tl_device_require(src->device) < 0) {
        return tl_error_kind();
    }
    return TL_OK;
}

int tl_device_copy_cross(tl_tensor_impl *dst, tl_tensor_impl *src,
                         bool non_blocking)
{
    const tl_device_ops *o = row_between(dst->device, src->device);
    tl_tensor_impl *a = NULL, *b = NULL;
    const bool dst_dense = dense_nonneg(dst);
    int rc;

    if (o == NULL) {
        return TL_ERR_RUNTIME;
    }
    if ((rc = validate_cross(dst, src)) < 0 || dst->numel == 0) {
        return rc;
    }
    /* 1. a: src as dst's dtype, shape and (when dense) layout, on src's
     * device. */
    if (src->dtype == dst->dtype && dense_nonneg(src) &&
        (dst_dense ? same_layout(src, dst)
                   : src->ndim == dst->ndim &&
                         memcmp(src->sizes, dst->sizes,
                                (size_t)dst->ndim * sizeof(int64_t)) == 0)) {
        tl_tensor_incref(src);
        a = src;
    }
    else {
        if (dst_dense) {
            a = empty_as(dst, dst->dtype, src->device);
        }
        else {
            a = tl_tensor_empty(dst->ndim, dst->sizes, (tl_dtype)dst->dtype,
                                src->device, TL_MEMKIND_DEFAULT);
        }
        if (a == NULL) {
            return tl_error_kind();
        }
        if ((rc = tl_copy_unchecked(a, src)) < 0) {
            goto done;
        }
    }
    /* 2. one byte copy straight into dst, or 3. through b. */
    if (dst_dense && same_layout(a, dst)) {
        rc = o->copy_bytes(dst->storage->block, byte_offset(dst),
                           a->storage->block, byte_offset(a),
                           (size_t)(a->numel * tl_itemsize(a->dtype)),
                           non_blocking ? TL_DEV_NON_BLOCKING : 0);
        goto done;
    }
    b = empty_as(a, a->dtype, dst->device);
    if (b == NULL) {
        rc = tl_error_kind();
        goto done;
    }
    rc = o->copy_bytes(b->storage->block, byte_offset(b), a->storage->block,
                       byte_offset(a),
                       (size_t)(a->numel * tl_itemsize(a->dtype)),
                       non_blocking ? TL_DEV_NON_BLOCKING : 0);
    if (rc == 0) {
        rc = tl_copy_unchecked(dst, b);
    }

done:
    tl_tensor_decref(a);
    tl_tensor_decref(b);
    return rc;
}

int tl_op_copy_nb_(tl_tensor_impl *dst, tl_tensor_impl *src,
                   bool non_blocking)
{
    int rc;

    if (dst == NULL || src == NULL) {
        return tl_error(TL_ERR_VALUE, "copy_: an operand is NULL");
    }
    if (!tl_device_is_cross(dst, src)) {
        return tl_op_copy_(dst, src);
    }
    rc = tl_device_copy_cross(dst, src, non_blocking);
    if (rc == 0) {
        tl_tensor_bump_version(dst);
    }
    return rc;
}

tl_tensor_impl *tl_op_to_device(tl_tensor_impl *t, tl_device dev, int dt,
                                bool copy, bool non_blocking)
{
    tl_memkind kind = TL_MEMKIND_DEFAULT;
    tl_tensor_impl *r;
    int64_t st[TL_MAX_DIMS];

    if (t == NULL) {
        tl_error(TL_ERR_VALUE, "to: the operand is NULL");
        return NULL;
    }
    if (dt < 0) {
        dt = t->dtype;
    }
    if (!tl_dtype_valid(dt)) {
        tl_error(TL_ERR_TYPE, "invalid dtype code %d", dt);
        return NULL;
    }
    if (tl_device_eq(dev, t->device)) {
        return tl_op_to_dtype(t, (tl_dtype)dt, copy);
    }
    if (tl_device_require(dev) < 0 || tl_device_require(t->device) < 0) {
        return NULL;
    }
    /* A non-blocking copy to the host lands in page-locked memory when
     * the process has an allocator for it (DMA needs it to be async). */
    if (dev.type == TL_DEVICE_CPU && non_blocking) {
        if (tl_registry_get(dev, TL_MEMKIND_HOST_PINNED) != NULL) {
            kind = TL_MEMKIND_HOST_PINNED;
        }
        else {
            tl_error_clear();
        }
    }
    for (;;) {
        if (dense_nonneg(t)) {
            for (int d = 0; d < t->ndim; d++) {
                st[d] = t->strides[d] < 0 ? -t->strides[d] : t->strides[d];
            }
            r = tl_tensor_empty_strided(t->ndim, t->sizes, st, (tl_dtype)dt,
                                        dev, kind);
        }
        else {
            r = tl_tensor_empty(t->ndim, t->sizes, (tl_dtype)dt, dev, kind);
        }
        if (r != NULL || kind == TL_MEMKIND_DEFAULT) {
            break;
        }
        /* No page-locked memory to be had: ordinary memory works too
         * (the copy is then synchronous). */
        kind = TL_MEMKIND_DEFAULT;
    }
    if (r == NULL) {
        return NULL;
    }
    if (tl_device_copy_cross(r, t, non_blocking) < 0) {
        tl_tensor_decref(r);
        return NULL;
    }
    return r;
}

int tl_tensor_record_stream(tl_tensor_impl *t, tl_stream s)
{
    const tl_device_ops *o;
    char dev[32];

    if (t->device.type == TL_DEVICE_CPU) {
        tl_device_format(t->device, dev, sizeof(dev));
        return tl_error(TL_ERR_VALUE, "record_stream: a %s tensor is not "
                        "used by device streams", dev);
    }
    o = tl_device_ops_get(t->device.type);
    if (o == NULL) {
        return TL_ERR_RUNTIME;
    }
    return o->record_stream(t->storage->block, s);
}
