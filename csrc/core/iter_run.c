/* csrc/core/iter_run.c — running a built TensorIterator: the 2-D loop
 * over its shape, serial or split over the thread pool, with chunked dtype
 * conversion through small stack buffers where an operand's dtype differs
 * from its kernel's (or its data is unaligned), and the pinning of the
 * operands' blocks while the pool runs without the caller's lock.  The
 * build (iter_build.c) decides everything; this file allocates nothing. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iter_impl.h"
#include "kernels.h"
#include "parallel.h"

bool tl_iter_needs_buffering(const tl_iter *it)
{
    for (int k = 0; k < it->ntensors; k++) {
        const tl_iter_op *op = &it->ops[k];
        if (op->dtype != op->target_dtype ||
            ((uintptr_t)op->data &
             ((uintptr_t)tl_dtype_align(op->dtype) - 1)) != 0) {
            return true;
        }
        /* Alignments are powers of two (a mask, not a division).  Strides
         * are multiples of the itemsize, hence of the alignment. */
    }
    return false;
}

/* Note [Tiled 2-D walk]
 * When an operand's inner (dim 0) byte stride is large while its outer
 * stride is small -- a.T + a, where the other operands are row-major --
 * a row of the 2-D loop touches a new cache line of that operand per
 * element and the next row comes back to the same lines long after they
 * were evicted.  Cutting the n0 x n1 block into TL_ITER_TILE x TL_ITER_TILE
 * tiles keeps every operand's lines of a tile in L1 (64 lines of 64 bytes
 * per strided operand), so each line is fetched once.  Reductions keep the
 * plain walk: their accumulation order must not depend on anything but
 * the shape. */
#define TL_ITER_TILE 64

static bool wants_tiles(const tl_iter *it, const int64_t *st, int64_t n0,
                        int64_t n1)
{
    if (it->is_reduction || n0 < 2 * TL_ITER_TILE || n1 < 2 * TL_ITER_TILE) {
        return false;
    }
    const int nt = it->ntensors;
    for (int k = 0; k < nt; k++) {
        int64_t s0 = llabs(st[k]), s1 = llabs(st[nt + k]);
        if (s0 >= 64 && s1 != 0 && s1 < s0) {
            return true;
        }
    }
    return false;
}

static void tiled_loop(tl_iter_loop2d loop, void *ctx, int nt, char **ptrs,
                       const int64_t *st, int64_t n0, int64_t n1)
{
    char *tp[TL_ITER_MAX_OPERANDS];
    for (int64_t jb = 0; jb < n1; jb += TL_ITER_TILE) {
        const int64_t jn = n1 - jb < TL_ITER_TILE ? n1 - jb : TL_ITER_TILE;
        for (int64_t ib = 0; ib < n0; ib += TL_ITER_TILE) {
            const int64_t in = n0 - ib < TL_ITER_TILE ? n0 - ib
                                                      : TL_ITER_TILE;
            for (int k = 0; k < nt; k++) {
                tp[k] = ptrs[k] + ib * st[k] + jb * st[nt + k];
            }
            loop(tp, st, in, jn, ctx);
        }
    }
}

int tl_iter_serial_for_each(tl_iter *it, tl_iter_loop2d loop, void *ctx,
                            int64_t begin, int64_t end)
{
    const int nt = it->ntensors;
    char *ptrs[TL_ITER_MAX_OPERANDS];
    int64_t st[2 * TL_ITER_MAX_OPERANDS];
    if (begin < 0 || end > it->numel || begin > end) {
        return tl_error(TL_ERR_INDEX,
                        "iterator range [%" PRId64 ", %" PRId64
                        ") outside [0, %" PRId64 ")",
                        begin, end, it->numel);
    }
    if (begin == end) {
        return 0;
    }
    if (it->ndim == 1) {
        for (int k = 0; k < nt; k++) {
            ptrs[k] = it->ops[k].data + begin * it->ops[k].strides[0];
            st[k] = it->ops[k].strides[0];
            st[nt + k] = 0;
        }
        loop(ptrs, st, end - begin, 1, ctx);
        return 0;
    }
    const int nd = it->ndim;
    const int64_t *shape = it->shape;
    int64_t idx[TL_MAX_DIMS];
    int64_t rem = begin;
    for (int d = 0; d < nd; d++) {
        idx[d] = rem % shape[d];
        rem /= shape[d];
    }
    for (int k = 0; k < nt; k++) {
        st[k] = it->ops[k].strides[0];
        st[nt + k] = it->ops[k].strides[1];
    }
    while (begin < end) {
        for (int k = 0; k < nt; k++) {
            char *p = it->ops[k].data;
            for (int d = 0; d < nd; d++) {
                p += idx[d] * it->ops[k].strides[d];
            }
            ptrs[k] = p;
        }
        int64_t step;
        if (idx[0] != 0 || end - begin < shape[0]) {
            step = shape[0] - idx[0];
            if (step > end - begin) {
                step = end - begin;
            }
            loop(ptrs, st, step, 1, ctx);
        } else {
            int64_t rows = shape[1] - idx[1];
            int64_t fit = (end - begin) / shape[0];
            if (rows > fit) {
                rows = fit;
            }
            if (rows > 1 && wants_tiles(it, st, shape[0], rows)) {
                tiled_loop(loop, ctx, nt, ptrs, st, shape[0], rows);
            } else {
                loop(ptrs, st, shape[0], rows, ctx);
            }
            step = rows * shape[0];
        }
        begin += step;
        /* Advance the multi-index by step. */
        int64_t carry = step;
        for (int d = 0; d < nd && carry; d++) {
            int64_t v = idx[d] + carry;
            idx[d] = v % shape[d];
            carry = v / shape[d];
        }
    }
    return 0;
}

/* Note [Buffered casting]
 * When an operand's memory is not in the dtype its kernel expects (mixed
 * dtypes, float16 computed in float32, out= of another dtype) or is not
 * aligned for it, the loop runs through cast_loop: each row is cut into
 * chunks of CAST_CHUNK elements; input chunks are converted into aligned
 * stack buffers (a stride-0 input once), the kernel runs on the buffers,
 * and output chunks are converted back.  Read-before-write holds chunk by
 * chunk, so an output exactly aliasing an input stays correct.  Outputs
 * are write-only except in a reduction, whose output chunks (one element
 * where the stride is 0) are loaded before the kernel runs. */
#define CAST_CHUNK 256

typedef struct cast_ctx {
    tl_iter_loop2d loop;
    void *ctx;
    int ntensors;
    int noutputs;
    bool load_outputs; /* reductions read their outputs */
    bool need[TL_ITER_MAX_OPERANDS];
    int64_t titem[TL_ITER_MAX_OPERANDS];
    tl_cvt_fn in[TL_ITER_MAX_OPERANDS];  /* dtype -> target */
    tl_cvt_fn out[TL_ITER_MAX_OPERANDS]; /* target -> dtype */
} cast_ctx;

static void cast_loop(char **data, const int64_t *strides, int64_t n0,
                      int64_t n1, void *vctx)
{
    const cast_ctx *c = vctx;
    const int nt = c->ntensors;
    _Alignas(64) unsigned char buf[TL_ITER_MAX_OPERANDS][CAST_CHUNK * 16];
    char *ptrs[TL_ITER_MAX_OPERANDS];
    int64_t st[2 * TL_ITER_MAX_OPERANDS];
    for (int64_t j = 0; j < n1; j++) {
        for (int64_t i0 = 0; i0 < n0; i0 += CAST_CHUNK) {
            const int64_t n = n0 - i0 < CAST_CHUNK ? n0 - i0 : CAST_CHUNK;
            for (int k = 0; k < nt; k++) {
                char *p = data[k] + j * strides[nt + k] + i0 * strides[k];
                st[nt + k] = 0;
                if (!c->need[k]) {
                    ptrs[k] = p;
                    st[k] = strides[k];
                    continue;
                }
                ptrs[k] = (char *)buf[k];
                if (k < c->noutputs) {
                    /* A reduction's output is read, then written back;
                     * a stride-0 one is one element. */
                    int64_t m = strides[k] == 0 ? 1 : n;
                    st[k] = strides[k] == 0 ? 0 : c->titem[k];
                    if (c->load_outputs) {
                        c->in[k]((char *)buf[k], c->titem[k], p, strides[k],
                                 m);
                    }
                } else if (strides[k] == 0) {
                    c->in[k]((char *)buf[k], 0, p, 0, 1);
                    st[k] = 0;
                } else {
                    c->in[k]((char *)buf[k], c->titem[k], p, strides[k], n);
                    st[k] = c->titem[k];
                }
            }
            c->loop(ptrs, st, n, 1, c->ctx);
            for (int k = 0; k < c->noutputs; k++) {
                if (c->need[k]) {
                    char *p = data[k] + j * strides[nt + k] + i0 * strides[k];
                    c->out[k](p, strides[k], (char *)buf[k], c->titem[k],
                              strides[k] == 0 ? 1 : n);
                }
            }
        }
    }
}

typedef struct range_ctx {
    tl_iter *it;
    tl_iter_loop2d loop;
    void *ctx;
} range_ctx;

static void range_fn(void *vctx, int64_t begin, int64_t end)
{
    range_ctx *r = vctx;
    tl_iter_serial_for_each(r->it, r->loop, r->ctx, begin, end);
}

int tl_iter_for_each(tl_iter *it, tl_iter_loop2d loop, void *ctx)
{
    if (it->numel == 0) {
        return 0;
    }
    if (TL_UNLIKELY(it->device.type != TL_DEVICE_CPU)) {
        /* Host loops never touch device memory (tl_device_run does). */
        return tl_error(TL_ERR_NOT_IMPLEMENTED,
                        "a CPU loop cannot run over device memory");
    }
    cast_ctx cc;
    if (!it->no_buffering && tl_iter_needs_buffering(it)) {
        cc.loop = loop;
        cc.ctx = ctx;
        cc.ntensors = it->ntensors;
        cc.noutputs = it->noutputs;
        cc.load_outputs = it->is_reduction;
        for (int k = 0; k < it->ntensors; k++) {
            const tl_iter_op *op = &it->ops[k];
            cc.need[k] = op->dtype != op->target_dtype ||
                         (uintptr_t)op->data %
                             (uintptr_t)tl_dtype_align(op->dtype);
            cc.titem[k] = tl_itemsize(op->target_dtype);
            cc.in[k] = tl_cvt_get(op->dtype, op->target_dtype);
            cc.out[k] = tl_cvt_get(op->target_dtype, op->dtype);
        }
        loop = cast_loop;
        ctx = &cc;
    }
    /* A reduction's threads would share output elements: serial here
     * (reductions split into fixed chunks themselves, see
     * tl_parallel_chunks). */
    const int64_t grain = it->grain;
    if (it->numel <= grain || it->is_reduction) {
        return tl_iter_serial_for_each(it, loop, ctx, 0, it->numel);
    }
    /* Keep every operand's memory alive while the loop runs, even if the
     * GIL is released and another thread drops the last tensor reference
     * or resizes a storage. */
    tl_block *pinned[TL_ITER_MAX_OPERANDS];
    int npinned = 0;
    for (int k = 0; k < it->ntensors; k++) {
        if (!it->ops[k].inlined) {
            pinned[npinned] = it->ops[k].tensor->storage->block;
            tl_block_pin(pinned[npinned]);
            npinned++;
        }
    }
    const bool release = !tl_iter_building();
    void *token = release ? tl_parallel_release() : NULL;
    range_ctx r = {it, loop, ctx};
    tl_parallel_for(it->numel, grain, range_fn, &r);
    if (release) {
        tl_parallel_reacquire(token);
    }
    for (int k = 0; k < npinned; k++) {
        tl_block_unpin(pinned[k]);
    }
    return 0;
}
