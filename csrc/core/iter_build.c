/* csrc/core/iter_build.c — building a TensorIterator: the config, the
 * build steps (operands, outputs, devices, broadcast shape, output
 * resizing, dtypes, memory overlap, strides, dimension order, allocation,
 * coalescing) and the accessors of what was built.  Running the loop is
 * iter_run.c; overlap questions are memory_overlap.c; shape arithmetic is
 * shape.c.  Tensor data comes only from tl_tensor_empty*; this file
 * mallocs only heap iterators (tl_iter_new). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "device_impl.h"
#include "iter_impl.h"
#include "../alloc/fault.h"
#include "kernels.h"
#include "parallel.h"
#include "shape.h"
#include "tensorlib/device_table.h"
#include "tensorlib/ops.h"
#include "tensorlib/cow.h"

/* Note [Iterator build steps]
 * tl_iter_build runs, in order:
 *  1. operands: outputs first, then inputs; an output that is also an
 *     input (the same impl, or exactly the same elements) is read-write;
 *  2. devices: one device for all (0-dim CPU tensors excepted, as
 *     PyTorch's CPU scalars); only the CPU has kernels here;
 *  3. writability of the given outputs;
 *  4. the broadcast shape of the inputs (and of the outputs when they are
 *     not resized or in a reduction);
 *  5. output shapes: equal to the broadcast shape, or resized when empty
 *     and owning their storage;
 *  6. dtypes: the common dtype, each operand's target dtype, safe casting
 *     to the outputs;
 *  7. memory overlap: an output overlapping itself is an error; an input
 *     partly overlapping an output is marked for copying;
 * -- everything above only validates; below, memory is allocated --
 *  8. one-element inputs are converted into the operand's inline scalar
 *     (stride 0 everywhere, no cast while running); other marked inputs
 *     are copied to temporaries;
 *  9. the fast set-up when every other operand has the broadcast shape and
 *     one dense layout: one dim of numel elements, outputs allocated in
 *     that layout; otherwise:
 * 10. byte strides (0 on broadcast dims), the dimension order (Note
 *     [Iterator dimension order]), allocation or resizing of outputs in
 *     that order, and coalescing of adjacent dims.
 * Before all this, Note [Same-shape set-up] takes the common case (every
 * operand contiguous with one shape, plus 0-dim inputs) in a few
 * comparisons, and falls back to the steps above for anything else.
 * A failed build holds nothing and has changed no operand. */

static const int dtype_align_table[TL_DTYPE_COUNT] = {
    [TL_DTYPE_BOOL] = 1,
    [TL_DTYPE_UINT8] = 1,
    [TL_DTYPE_INT8] = 1,
    [TL_DTYPE_INT16] = _Alignof(int16_t),
    [TL_DTYPE_UINT16] = _Alignof(uint16_t),
    [TL_DTYPE_INT32] = _Alignof(int32_t),
    [TL_DTYPE_UINT32] = _Alignof(uint32_t),
    [TL_DTYPE_INT64] = _Alignof(int64_t),
    [TL_DTYPE_UINT64] = _Alignof(uint64_t),
    [TL_DTYPE_FLOAT16] = _Alignof(uint16_t),
    [TL_DTYPE_BFLOAT16] = _Alignof(uint16_t),
    [TL_DTYPE_FLOAT32] = _Alignof(float),
    [TL_DTYPE_FLOAT64] = _Alignof(double),
    [TL_DTYPE_COMPLEX64] = _Alignof(tl_c64),
    [TL_DTYPE_COMPLEX128] = _Alignof(tl_c128),
    [TL_DTYPE_FLOAT8_E4M3FN] = 1,
    [TL_DTYPE_FLOAT8_E5M2] = 1,
};

int tl_dtype_align(int dt) { return dtype_align_table[dt]; }

/* ---- config ------------------------------------------------------------- */

void tl_iter_config_init(tl_iter_config *c)
{
    memset(c, 0, sizeof *c);
    c->check_mem_overlap = true;
    c->check_writable = true;
    c->resize_outputs = true;
    c->check_all_same_dtype = true;
    c->coalesce = true;
    c->allow_fast_setup = true;
    c->static_dtype = -1;
    c->output_dtype = -1;
    c->out_memkind = TL_MEMKIND_DEFAULT;
}

int tl_iter_config_add_output(tl_iter_config *c, tl_tensor_impl *t)
{
    if (c->ninputs > 0) {
        return tl_error(TL_ERR_VALUE,
                        "iterator: outputs must be added before inputs");
    }
    if (c->noutputs >= TL_ITER_MAX_OPERANDS) {
        return tl_error(TL_ERR_VALUE, "iterator: at most %d operands",
                        TL_ITER_MAX_OPERANDS);
    }
    c->operands[c->noutputs++] = t;
    return 0;
}

int tl_iter_config_add_input(tl_iter_config *c, tl_tensor_impl *t)
{
    if (!t) {
        return tl_error(TL_ERR_VALUE, "iterator: an input may not be NULL");
    }
    if (c->noutputs + c->ninputs >= TL_ITER_MAX_OPERANDS) {
        return tl_error(TL_ERR_VALUE, "iterator: at most %d operands",
                        TL_ITER_MAX_OPERANDS);
    }
    c->operands[c->noutputs + c->ninputs++] = t;
    return 0;
}

/* ---- build -------------------------------------------------------------- */

/* Checks that an empty, root output can be resized to `sizes` (metadata
 * changes allowed; storage growable: see tl_storage_resize): the checks
 * of tl_tensor_resize_, made before anything is computed, so that the
 * commit can fail only for want of memory. */
static int check_resizable(const tl_tensor_impl *t, int ndim,
                           const int64_t *sizes)
{
    int64_t nbytes;
    if (tl_safe_numel_bytes(ndim, sizes, tl_itemsize(t->dtype), NULL,
                            &nbytes) < 0) {
        return tl_error_kind();
    }
    if (!(t->flags & TL_FLAG_ALLOW_METADATA_CHANGE)) {
        return tl_error(TL_ERR_RUNTIME,
                        "cannot resize an out= tensor whose layout is owned "
                        "elsewhere (allow_tensor_metadata_change is false) "
                        "to shape %s", tl_fmt_list(0, ndim, sizes));
    }
    const int64_t capacity =
        (int64_t)t->storage->block->nbytes - t->storage->offset;
    if (nbytes > capacity) {
        if (!tl_storage_resizable(t->storage)) {
            return tl_error(TL_ERR_RUNTIME,
                            "cannot resize an out= tensor over a storage "
                            "that is not resizable (external memory) to "
                            "shape %s", tl_fmt_list(0, ndim, sizes));
        }
        if (tl_storage_export_count(t->storage) > 0) {
            return tl_error(TL_ERR_BUFFER,
                            "cannot resize an out= tensor to shape %s while "
                            "its storage is exported: its memory would move",
                            tl_fmt_list(0, ndim, sizes));
        }
    }
    return 0;
}

int tl_iter_check_out_resize(const tl_tensor_impl *t, int ndim,
                             const int64_t *sizes, bool allowed)
{
    if (!allowed || t->numel != 0 || t->base != NULL ||
        t->storage_offset != 0) {
        return tl_error(TL_ERR_SHAPE,
                        "the output has shape %s but the result has shape "
                        "%s (only an empty output that owns its storage is "
                        "resized)",
                        tl_fmt_list(0, t->ndim, t->sizes),
                        tl_fmt_list(1, ndim, sizes));
    }
    return check_resizable(t, ndim, sizes);
}

/* Resizes the empty root output t to sizes/strides, growing its storage
 * when needed (validated by check_resizable).  Returns 0 or an error. */
static int resize_output(tl_tensor_impl *t, int ndim, const int64_t *sizes,
                         const int64_t *strides)
{
    int64_t need = 0;
    bool empty = false;
    for (int d = 0; d < ndim; d++) {
        empty = empty || sizes[d] == 0;
        need += strides[d] * (sizes[d] - 1);
    }
    need = empty ? 0 : (need + 1) * tl_itemsize(t->dtype);
    if (need > t->storage->nbytes) {
        int rc = tl_storage_resize(t->storage, need);
        if (rc < 0) {
            return rc;
        }
    }
    return tl_impl_set_sizes_strides(t, ndim, sizes, strides);
}

/* Note [Iterator dimension order]
 * The iteration order starts as the tensor dims reversed (the last dim
 * fastest) and is insertion-sorted with ATen's comparison: operand by
 * operand (outputs first, skipping outputs still to be allocated or
 * resized), a dim where either stride is 0 (broadcast) does not decide;
 * otherwise the smaller |stride| comes first, and equal strides put the
 * smaller size first only if that means a swap.  In a reduction, an output
 * whose stride is 0 on one dim and not the other puts the reduced (0) dim
 * first.  When no operand decides, the pair keeps its order.  Outputs are
 * then allocated dense in this order, so a transposed or channels_last
 * input gives an output of the same layout.  Strides compare by absolute
 * value so a reversed (negative-stride) view orders like its base. */
static int should_swap(const tl_iter *it, int d0, int d1,
                       const int64_t (*strides)[TL_MAX_DIMS],
                       const bool *use)
{
    for (int k = 0; k < it->ntensors; k++) {
        if (!use[k]) {
            continue;
        }
        int64_t s0 = strides[k][d0], s1 = strides[k][d1];
        if (it->is_reduction && it->ops[k].is_output) {
            if ((s0 == 0) != (s1 == 0)) {
                return s1 == 0 ? 1 : -1;
            }
        }
        if (s0 == 0 || s1 == 0) {
            continue;
        }
        int64_t a0 = llabs(s0), a1 = llabs(s1);
        if (a0 < a1) {
            return -1;
        }
        if (a0 > a1) {
            return 1;
        }
        if (it->bcast[d0] > it->bcast[d1]) {
            return 1;
        }
    }
    return 0;
}

static void compute_order(tl_iter *it, const int64_t (*strides)[TL_MAX_DIMS],
                          const bool *use)
{
    const int nd = it->bcast_ndim;
    for (int i = 0; i < nd; i++) {
        it->perm[i] = nd - 1 - i;
    }
    it->perm_ndim = nd;
    for (int i = 1; i < nd; i++) {
        int dim1 = i;
        for (int dim0 = i - 1; dim0 >= 0; dim0--) {
            int c = should_swap(it, it->perm[dim0], it->perm[dim1], strides,
                                use);
            if (c > 0) {
                int tmp = it->perm[dim0];
                it->perm[dim0] = it->perm[dim1];
                it->perm[dim1] = tmp;
                dim1 = dim0;
            } else if (c < 0) {
                break;
            }
        }
    }
}

static void coalesce(tl_iter *it)
{
    if (it->ndim <= 1) {
        return;
    }
    int prev = 0;
    for (int d = 1; d < it->ndim; d++) {
        bool can = it->shape[prev] == 1 || it->shape[d] == 1;
        if (!can) {
            can = true;
            for (int k = 0; k < it->ntensors && can; k++) {
                const int64_t *s = it->ops[k].strides;
                can = it->shape[prev] * s[prev] == s[d];
            }
        }
        if (can) {
            if (it->shape[prev] == 1) {
                for (int k = 0; k < it->ntensors; k++) {
                    it->ops[k].strides[prev] = it->ops[k].strides[d];
                }
            }
            it->shape[prev] *= it->shape[d];
        } else {
            prev++;
            if (prev != d) {
                for (int k = 0; k < it->ntensors; k++) {
                    it->ops[k].strides[prev] = it->ops[k].strides[d];
                }
                it->shape[prev] = it->shape[d];
            }
        }
    }
    it->ndim = prev + 1;
}

/* Allocates (or resizes) output k dense in iteration order. */
static int allocate_output(tl_iter *it, int k, int out_dtype, int memkind)
{
    tl_iter_op *op = &it->ops[k];
    const int nd = it->bcast_ndim;
    const int64_t item = tl_itemsize(out_dtype);
    int64_t tstrides[TL_MAX_DIMS];
    bool natural = true;
    int64_t next = 1;
    for (int i = 0; i < nd; i++) {
        int d = it->perm[i];
        natural = natural && d == nd - 1 - i;
        tstrides[d] = next;
        op->strides[i] = next * item;
        next *= it->bcast[d] > 1 ? it->bcast[d] : 1;
    }
    if (op->will_resize) {
        return resize_output(op->tensor, nd, it->bcast, tstrides);
    }
    tl_tensor_impl *t =
        natural ? tl_tensor_empty(nd, it->bcast, (tl_dtype)out_dtype,
                                  it->device, (tl_memkind)memkind)
                : tl_tensor_empty_strided(nd, it->bcast, tstrides,
                                          (tl_dtype)out_dtype, it->device,
                                          (tl_memkind)memkind);
    if (!t) {
        return tl_error_kind();
    }
    op->tensor = t;
    op->owned = true;
    op->dtype = (int16_t)out_dtype;
    return 0;
}

/* A fresh tensor with src's shape and dtype, dense in src's stride order,
 * holding a copy of src.  Returns: new reference, or NULL. */
static tl_tensor_impl *copy_to_temporary(tl_tensor_impl *src, int memkind)
{
    int64_t strides[TL_MAX_DIMS];
    const int nd = src->ndim;
    tl_iter_dense_strides_like(src, strides);
    tl_tensor_impl *t = tl_tensor_empty_strided(
        nd, src->sizes, strides, (tl_dtype)src->dtype, src->device,
        (tl_memkind)memkind);
    if (!t) {
        return NULL;
    }
    if (tl_copy_unchecked(t, src) < 0) {
        tl_tensor_decref(t);
        return NULL;
    }
    return t;
}

/* Step 6: the common dtype, each operand's dtype and target, and safe
 * casting to the given outputs.  *out_dtype receives the dtype of
 * allocated outputs. */
static int compute_dtypes(tl_iter *it, const tl_iter_config *c,
                          int *out_dtype)
{
    const int nt = it->ntensors, no = it->noutputs;
    int common;
    if (c->static_dtype >= 0) {
        common = c->static_dtype;
    } else if (c->promote_inputs_to_common_dtype && it->ntensors > no) {
        common = tl_result_type(nt - no, c->operands + no);
    } else {
        /* The first input's dtype, else the first given output's. */
        common = -1;
        for (int k = no; k < nt && common < 0; k++) {
            common = it->ops[k].tensor->dtype;
        }
        for (int k = 0; k < no && common < 0; k++) {
            if (it->ops[k].tensor) {
                common = it->ops[k].tensor->dtype;
            }
        }
        if (common < 0) {
            common = c->output_dtype >= 0 ? c->output_dtype
                                          : TL_DEFAULT_FLOAT;
        }
        for (int k = 0; k < nt && c->check_all_same_dtype; k++) {
            const tl_tensor_impl *t = it->ops[k].tensor;
            if (!t || t->dtype == common ||
                (it->ops[k].is_output && c->cast_common_dtype_to_outputs)) {
                continue;
            }
            return tl_error(TL_ERR_TYPE,
                            "expected all operands to have dtype %s, but "
                            "operand %d has dtype %s",
                            tl_dtype_table[common].name, k,
                            tl_dtype_table[t->dtype].name);
        }
    }
    if (c->promote_integer_inputs_to_float &&
        tl_dtype_is_intlike(common)) {
        common = TL_DEFAULT_FLOAT;
    }
    if (!tl_dtype_valid(common) ||
        (c->output_dtype >= 0 && !tl_dtype_valid(c->output_dtype))) {
        return tl_error(TL_ERR_TYPE, "iterator: invalid dtype");
    }
    it->common_dtype = (int16_t)common;
    *out_dtype = c->output_dtype >= 0 ? c->output_dtype : common;
    const bool promote = c->static_dtype >= 0 ||
                         c->promote_inputs_to_common_dtype;
    for (int k = 0; k < nt; k++) {
        tl_iter_op *op = &it->ops[k];
        const tl_tensor_impl *t = op->tensor;
        if (op->is_output) {
            op->dtype = (int16_t)(t ? t->dtype : *out_dtype);
            op->target_dtype = (int16_t)(
                !t || c->cast_common_dtype_to_outputs ? *out_dtype
                                                      : t->dtype);
            if (t && c->enforce_safe_casting_to_output &&
                !tl_can_cast((tl_dtype)*out_dtype, (tl_dtype)t->dtype)) {
                return tl_error(TL_ERR_TYPE,
                                "the result has dtype %s, which an output "
                                "of dtype %s cannot hold: can_cast(%s, %s) "
                                "is False (no downcast across categories)",
                                tl_dtype_table[*out_dtype].name,
                                tl_dtype_table[t->dtype].name,
                                tl_dtype_table[*out_dtype].name,
                                tl_dtype_table[t->dtype].name);
            }
        } else {
            op->dtype = t->dtype;
            op->target_dtype = (int16_t)(promote ? common : t->dtype);
        }
    }

    return 0;
}

/* Steps 1-7: everything that can fail because of the operands. */
static int validate(tl_iter *it, const tl_iter_config *c, int *out_dtype,
                    bool *needs_copy)
{
    const int nt = it->ntensors, no = it->noutputs;
    uint8_t overlap[TL_ITER_MAX_OPERANDS][TL_ITER_MAX_OPERANDS];
    int rc;

    /* 1. read-write outputs; how each input overlaps each output (used
     * again in step 7) */
    for (int k = 0; k < no; k++) {
        tl_tensor_impl *o = it->ops[k].tensor;
        for (int i = no; i < nt; i++) {
            tl_overlap ov = !o ? TL_OVERLAP_NO
                            : it->ops[i].tensor == o
                                ? TL_OVERLAP_FULL
                                : tl_iter_overlap(o, it->ops[i].tensor);
            overlap[k][i] = (uint8_t)ov;
            if (ov == TL_OVERLAP_FULL) {
                it->ops[k].is_read_write = true;
            }
        }
    }

    /* 2. devices */
    bool have_dev = false;
    for (int k = 0; k < nt; k++) {
        const tl_tensor_impl *t = it->ops[k].tensor;
        if (!t || (!it->ops[k].is_output && t->ndim == 0 &&
                   t->device.type == TL_DEVICE_CPU)) {
            continue; /* a CPU scalar input goes with any device */
        }
        if (!have_dev) {
            it->device = t->device;
            have_dev = true;
        } else if (!tl_device_eq(it->device, t->device)) {
            return tl_device_mismatch(it->device, t->device);
        }
    }
    if (!have_dev) {
        it->device = tl_device_cpu();
    }
    if (it->device.type != TL_DEVICE_CPU) {
        char a[32];
        tl_device_format(it->device, a, sizeof a);
        if (!c->device_kernels) {
            return tl_error(TL_ERR_NOT_IMPLEMENTED,
                            "this operation is not implemented for %s "
                            "tensors", a);
        }
        /* Note [Device kernel table] in device_table.c. */
        if ((rc = tl_device_require(it->device)) < 0) {
            return rc;
        }
    }

    /* 3. writable outputs */
    for (int k = 0; k < no && c->check_writable; k++) {
        if (it->ops[k].tensor &&
            (rc = tl_tensor_check_writable(it->ops[k].tensor)) < 0) {
            return rc;
        }
    }

    /* 4. broadcast shape */
    const bool outputs_broadcast = !c->resize_outputs || c->is_reduction;
    int ndims[TL_ITER_MAX_OPERANDS];
    const int64_t *sizes[TL_ITER_MAX_OPERANDS];
    int n = 0;
    for (int k = 0; k < nt; k++) {
        const tl_tensor_impl *t = it->ops[k].tensor;
        if (!t || (it->ops[k].is_output && !outputs_broadcast)) {
            continue;
        }
        ndims[n] = t->ndim;
        sizes[n] = t->sizes;
        n++;
    }
    if (n == 0) {
        return tl_error(TL_ERR_VALUE,
                        "iterator: no operand gives a shape (every output "
                        "is to be allocated and there are no inputs)");
    }
    if ((rc = tl_iter_infer_size(n, ndims, sizes, &it->bcast_ndim,
                                 it->bcast)) < 0) {
        return rc;
    }
    int64_t numel;
    if (tl_safe_numel_bytes(it->bcast_ndim, it->bcast, 1, &numel, NULL) < 0) {
        return tl_error_kind();
    }
    it->numel = numel;

    /* 5. output shapes */
    for (int k = 0; k < no; k++) {
        tl_iter_op *op = &it->ops[k];
        tl_tensor_impl *t = op->tensor;
        if (!t) {
            continue;
        }
        bool match = tl_sizes_equal(t, it->bcast_ndim, it->bcast);
        if (c->is_reduction) {
            match = t->ndim == it->bcast_ndim;
        }
        if (match) {
            continue;
        }
        rc = tl_iter_check_out_resize(t, it->bcast_ndim, it->bcast,
                                      c->resize_outputs && !c->is_reduction &&
                                          !op->is_read_write);
        if (rc < 0) {
            return rc;
        }
        op->will_resize = true;
    }

    /* 6. dtypes */
    if ((rc = compute_dtypes(it, c, out_dtype)) < 0) {
        return rc;
    }

    /* 7. memory overlap */
    for (int k = 0; k < no && c->check_mem_overlap; k++) {
        tl_tensor_impl *o = it->ops[k].tensor;
        if (!o || it->ops[k].will_resize || o->numel == 0) {
            continue;
        }
        if ((rc = tl_iter_check_writable_layout(o)) < 0) {
            return rc;
        }
        for (int i = no; i < nt; i++) {
            /* A one-element CPU input is inlined (copied) anyway. */
            if (overlap[k][i] == TL_OVERLAP_PARTIAL &&
                (it->ops[i].tensor->numel != 1 ||
                 it->ops[i].tensor->device.type != TL_DEVICE_CPU)) {
                needs_copy[i] = true;
            }
        }
    }
    return 0;
}

/* Can the fast set-up run: every non-inlined operand of the broadcast
 * shape, all contiguous, or all dense with equal strides?  On success
 * *strides receives the element strides for a fresh output, written to buf
 * (NULL: contiguous). */
static bool fast_layout(const tl_iter *it, int64_t *buf,
                        const int64_t **strides)
{
    const tl_tensor_impl *first = NULL;
    bool all_contig = true, all_same = true;
    for (int k = 0; k < it->ntensors; k++) {
        const tl_iter_op *op = &it->ops[k];
        const tl_tensor_impl *t = op->tensor;
        if (op->inlined || (op->is_output && !t)) {
            continue;
        }
        if (op->will_resize ||
            !tl_sizes_equal(t, it->bcast_ndim, it->bcast)) {
            return false;
        }
        all_contig = all_contig && (t->flags & TL_FLAG_CONTIGUOUS);
        if (!(t->flags & TL_FLAG_NON_OVERLAPPING_AND_DENSE)) {
            all_same = false;
        } else if (!first) {
            first = t;
        } else {
            for (int d = 0; d < t->ndim && all_same; d++) {
                all_same = t->sizes[d] == 1 ||
                           t->strides[d] == first->strides[d];
            }
        }
    }
    if (all_contig) {
        *strides = NULL;
        return true;
    }
    if (all_same && first) {
        /* Note [Layouts copied from an input]: the strides of size-1 dims
         * are ignored by every check above and may be anything, negative
         * included (a flipped dim sliced to one element); a fresh output
         * takes their magnitude, never their sign. */
        for (int d = 0; d < first->ndim; d++) {
            buf[d] = llabs(first->strides[d]);
        }
        *strides = buf;
        return true;
    }
    return false;
}

/* Note [Same-shape set-up]
 * The most common case -- every operand contiguous with one shape, plus
 * perhaps 0-dim inputs (Python scalars) -- needs none of the per-dim
 * steps: a few comparisons validate it and it goes straight to one dim of
 * numel elements.  Anything unusual (another device, a read-only or
 * partly overlapping output, a resize) returns 0 before any side effect,
 * and the general build runs and reports it.  Returns 1 when built, 0 to
 * fall back, or an error (from the dtype step, as the general build would
 * give). */
static int build_same_shape(tl_iter *it, const tl_iter_config *c)
{
    const int nt = it->ntensors, no = it->noutputs;
    const tl_tensor_impl *ref = NULL;
    bool rw[TL_ITER_MAX_OPERANDS];
    bool input_shaped = false;
    int rc;
    for (int k = 0; k < nt; k++) {
        const tl_tensor_impl *t = it->ops[k].tensor;
        if (!t) {
            continue;
        }
        if (t->device.type != TL_DEVICE_CPU) {
            return 0;
        }
        if (k >= no && t->ndim == 0) {
            continue; /* inlined below */
        }
        if (!(t->flags & TL_FLAG_CONTIGUOUS)) {
            return 0;
        }
        if (!ref) {
            ref = t;
        } else if (!tl_sizes_equal(t, ref->ndim, ref->sizes)) {
            return 0;
        }
        input_shaped |= k >= no;
    }
    /* The inputs decide the shape: with only 0-dim inputs an out= of its
     * own shape must not become the reference (the general build resizes
     * an empty one to () and refuses any other).  Without inputs (fill_)
     * the output is the shape. */
    if (!ref || (!input_shaped && nt > no)) {
        return 0;
    }
    for (int k = 0; k < no; k++) {
        tl_tensor_impl *o = it->ops[k].tensor;
        rw[k] = false;
        if (!o) {
            continue;
        }
        /* A lazy clone's output takes the general path, whose writable
         * check materialises it (Note [Copy-on-write storages]). */
        if (c->check_writable && (!tl_tensor_is_writable(o) ||
                                  tl_storage_is_cow(o->storage))) {
            return 0;
        }
        const char *lo = tl_impl_data(o);
        const char *hi = lo + o->numel * tl_itemsize(o->dtype);
        for (int i = no; i < nt && o->numel > 0; i++) {
            const tl_tensor_impl *in = it->ops[i].tensor;
            if (in == o) {
                rw[k] = true;
                continue;
            }
            if (in->ndim == 0) {
                continue;
            }
            const char *ilo = tl_impl_data(in);
            const char *ihi = ilo + in->numel * tl_itemsize(in->dtype);
            if (ihi <= lo || hi <= ilo) {
                continue;
            }
            if (ilo == lo && in->dtype == o->dtype) {
                rw[k] = true;
                continue;
            }
            if (c->check_mem_overlap) {
                return 0; /* partial overlap: the general build copies */
            }
        }
    }
    int out_dtype;
    if ((rc = compute_dtypes(it, c, &out_dtype)) < 0) {
        return rc;
    }
    /* Committed: from here on only allocation can fail. */
    it->device = tl_device_cpu();
    it->bcast_ndim = ref->ndim;
    memcpy(it->bcast, ref->sizes, (size_t)ref->ndim * sizeof(int64_t));
    it->numel = ref->numel;
    it->fast_setup = true;
    it->ndim = 1;
    it->shape[0] = ref->numel;
    for (int k = 0; k < nt; k++) {
        tl_iter_op *op = &it->ops[k];
        if (op->is_output) {
            op->is_read_write = rw[k];
            if (!op->tensor) {
                tl_tensor_impl *t = tl_tensor_empty(
                    ref->ndim, ref->sizes, (tl_dtype)out_dtype,
                    it->device, (tl_memkind)c->out_memkind);
                if (!t) {
                    return tl_error_kind();
                }
                op->tensor = t;
                op->owned = true;
            }
        } else if (op->tensor->ndim == 0) {
            tl_cvt_get(op->dtype, op->target_dtype)(
                (char *)op->scalar, 0, tl_impl_data(op->tensor), 0, 1);
            op->dtype = op->target_dtype;
            op->inlined = true;
            op->data = (char *)op->scalar;
            op->strides[0] = 0;
            continue;
        }
        op->data = tl_impl_data(op->tensor);
        op->dtype = op->tensor->dtype;
        op->strides[0] = tl_itemsize(op->dtype);
    }
    return 1;
}

/* Builds in progress on this thread.  A loop run inside a build (copying
 * a partly overlapping input) must not call the GIL-release hooks: the
 * outer build has read operand metadata that another thread could change
 * while the GIL is released. */
static _Thread_local int build_depth;

bool tl_iter_building(void) { return build_depth > 0; }

static int build(tl_iter *it, const tl_iter_config *c);

int tl_iter_build(tl_iter *it, const tl_iter_config *c)
{
    build_depth++;
    int rc = build(it, c);
    build_depth--;
    return rc;
}

static int build(tl_iter *it, const tl_iter_config *c)
{
    int rc;
    int out_dtype = -1;
    bool needs_copy[TL_ITER_MAX_OPERANDS] = {false};
    it->ntensors = c->noutputs + c->ninputs;
    it->noutputs = c->noutputs;
    it->is_reduction = c->is_reduction;
    it->grain = c->grain > 0 ? c->grain : TL_ITER_GRAIN;
    it->fast_setup = false;
    it->no_buffering = false;
    it->perm_ndim = 0;
    it->ndim = 0;
    it->numel = 0;
    for (int k = 0; k < it->ntensors; k++) {
        tl_iter_op *op = &it->ops[k];
        op->tensor = c->operands[k];
        op->original = c->operands[k];
        op->data = NULL;
        op->owned = false;
        op->is_output = k < c->noutputs;
        op->is_read_write = false;
        op->will_resize = false;
        op->copied = false;
        op->inlined = false;
    }
    if (it->ntensors == 0) {
        return tl_error(TL_ERR_VALUE, "iterator: no operands");
    }
    for (int k = 0; k < it->ntensors; k++) { /* stale workspace tensors */
        if (c->operands[k] &&
            (rc = tl_tensor_check_live(c->operands[k])) < 0) {
            return rc;
        }
    }
    if (c->allow_fast_setup && !c->is_reduction) {
        rc = build_same_shape(it, c);
        if (rc < 0) {
            goto fail;
        }
        if (rc > 0) {
            return 0;
        }
    }
    if ((rc = validate(it, c, &out_dtype, needs_copy)) < 0) {
        goto fail;
    }

    /* 8. inline one-element inputs; copy partly overlapping ones */
    for (int k = it->noutputs; k < it->ntensors; k++) {
        tl_iter_op *op = &it->ops[k];
        tl_tensor_impl *t = op->tensor;
        /* Device memory is never read on the host: a one-element device
         * tensor stays an operand with zero strides. */
        if (t->numel == 1 && t->device.type == TL_DEVICE_CPU) {
            tl_cvt_get(op->dtype, op->target_dtype)(
                (char *)op->scalar, 0, tl_impl_data(t), 0, 1);
            op->dtype = op->target_dtype;
            op->inlined = true;
            op->data = (char *)op->scalar;
        } else if (needs_copy[k]) {
            tl_tensor_impl *tmp = copy_to_temporary(t, c->out_memkind);
            if (!tmp) {
                rc = tl_error_kind();
                goto fail;
            }
            op->tensor = tmp;
            op->owned = true;
            op->copied = true;
        }
    }

    /* 9. fast set-up */
    const int64_t *shared = NULL;
    int64_t shared_buf[TL_MAX_DIMS];
    if (c->allow_fast_setup && !c->is_reduction &&
        fast_layout(it, shared_buf, &shared)) {
        it->fast_setup = true;
        it->ndim = 1;
        it->shape[0] = it->numel;
        for (int k = 0; k < it->ntensors; k++) {
            tl_iter_op *op = &it->ops[k];
            if (op->is_output && !op->tensor) {
                tl_tensor_impl *t =
                    shared ? tl_tensor_empty_strided(
                                 it->bcast_ndim, it->bcast, shared,
                                 (tl_dtype)out_dtype, it->device,
                                 (tl_memkind)c->out_memkind)
                           : tl_tensor_empty(it->bcast_ndim, it->bcast,
                                             (tl_dtype)out_dtype, it->device,
                                             (tl_memkind)c->out_memkind);
                if (!t) {
                    rc = tl_error_kind();
                    goto fail;
                }
                op->tensor = t;
                op->owned = true;
            }
            op->strides[0] = op->inlined ? 0 : tl_itemsize(op->dtype);
        }
        goto pointers;
    }

    /* 10. strides, order, allocation, coalescing */
    {
        const int nd = it->bcast_ndim;
        int64_t (*st)[TL_MAX_DIMS] = NULL;
        bool use[TL_ITER_MAX_OPERANDS];
        /* Byte strides in tensor dim order, kept in the operands until
         * permuted. */
        int64_t tmp[TL_ITER_MAX_OPERANDS][TL_MAX_DIMS];
        st = tmp;
        for (int k = 0; k < it->ntensors; k++) {
            tl_iter_op *op = &it->ops[k];
            const tl_tensor_impl *t = op->tensor;
            use[k] = t && !op->will_resize && !op->inlined;
            if (!use[k]) {
                for (int d = 0; d < nd; d++) {
                    st[k][d] = 0;
                }
                continue;
            }
            const int off = nd - t->ndim;
            const int64_t item = tl_itemsize(t->dtype);
            for (int d = 0; d < nd; d++) {
                if (d < off || (t->sizes[d - off] == 1 && it->bcast[d] != 1)) {
                    st[k][d] = 0;
                } else {
                    st[k][d] = t->strides[d - off] * item;
                }
            }
        }
        compute_order(it, (const int64_t(*)[TL_MAX_DIMS])st, use);
        it->ndim = nd;
        for (int i = 0; i < nd; i++) {
            it->shape[i] = it->bcast[it->perm[i]];
        }
        for (int k = 0; k < it->ntensors; k++) {
            for (int i = 0; i < nd; i++) {
                it->ops[k].strides[i] = st[k][it->perm[i]];
            }
        }
        for (int k = 0; k < it->noutputs; k++) {
            tl_iter_op *op = &it->ops[k];
            if (!op->tensor || op->will_resize) {
                if ((rc = allocate_output(it, k, op->will_resize
                                                     ? op->tensor->dtype
                                                     : out_dtype,
                                          c->out_memkind)) < 0) {
                    goto fail;
                }
            }
        }
        if (nd == 0) {
            it->ndim = 1;
            it->shape[0] = 1;
            for (int k = 0; k < it->ntensors; k++) {
                it->ops[k].strides[0] = 0;
            }
        } else if (c->coalesce) {
            coalesce(it);
        }
    }

pointers:
    for (int k = 0; k < it->ntensors; k++) {
        tl_iter_op *op = &it->ops[k];
        if (!op->inlined) {
            op->data = tl_impl_data(op->tensor);
            op->dtype = op->tensor->dtype;
        }
    }
    return 0;

fail:
    tl_iter_release(it);
    return rc < 0 ? rc : TL_ERR_RUNTIME;
}

void tl_iter_release(tl_iter *it)
{
    for (int k = 0; k < it->ntensors; k++) {
        tl_iter_op *op = &it->ops[k];
        if (op->owned) {
            tl_tensor_decref(op->tensor);
        }
        op->owned = false;
        op->tensor = op->original;
    }
}

tl_iter *tl_iter_new(const tl_iter_config *c)
{
    tl_iter *it = tl_fault_malloc(sizeof *it);
    if (!it) {
        tl_error(TL_ERR_MEMORY, "out of memory for an iterator");
        return NULL;
    }
    if (tl_iter_build(it, c) < 0) {
        free(it);
        return NULL;
    }
    it->heap = true;
    return it;
}

void tl_iter_free(tl_iter *it)
{
    if (!it) {
        return;
    }
    tl_iter_release(it);
    free(it);
}

/* ---- accessors ---------------------------------------------------------- */

int tl_iter_ntensors(const tl_iter *it) { return it->ntensors; }
int tl_iter_noutputs(const tl_iter *it) { return it->noutputs; }
int tl_iter_ndim(const tl_iter *it) { return it->ndim; }
const int64_t *tl_iter_shape(const tl_iter *it) { return it->shape; }
int64_t tl_iter_numel(const tl_iter *it) { return it->numel; }

const int64_t *tl_iter_strides(const tl_iter *it, int arg)
{
    return it->ops[arg].strides;
}

const int64_t *tl_iter_broadcast_shape(const tl_iter *it, int *ndim)
{
    *ndim = it->bcast_ndim;
    return it->bcast;
}

const int *tl_iter_perm(const tl_iter *it, int *ndim)
{
    *ndim = it->perm_ndim;
    return it->perm;
}

tl_dtype tl_iter_common_dtype(const tl_iter *it)
{
    return (tl_dtype)it->common_dtype;
}

tl_dtype tl_iter_target_dtype(const tl_iter *it, int arg)
{
    return (tl_dtype)it->ops[arg].target_dtype;
}

void tl_iter_set_target_dtype(tl_iter *it, int arg, tl_dtype dt)
{
    tl_iter_op *op = &it->ops[arg];
    if (op->inlined && op->dtype != (int16_t)dt) {
        /* Re-convert the inline scalar from the target it holds. */
        unsigned char tmp[16];
        tl_cvt_get(op->dtype, dt)((char *)tmp, 0, (char *)op->scalar, 0, 1);
        memcpy(op->scalar, tmp, sizeof tmp);
        op->dtype = (int16_t)dt;
    }
    op->target_dtype = (int16_t)dt;
}

bool tl_iter_is_fast_setup(const tl_iter *it) { return it->fast_setup; }

bool tl_iter_input_was_copied(const tl_iter *it, int arg)
{
    return it->ops[arg].copied;
}

tl_tensor_impl *tl_iter_operand(const tl_iter *it, int arg)
{
    return it->ops[arg].tensor;
}

tl_tensor_impl *tl_iter_output(const tl_iter *it, int i)
{
    tl_tensor_impl *t = it->ops[i].tensor;
    tl_tensor_incref(t);
    return t;
}
