/* csrc/core/iter_impl.h — internal: the TensorIterator struct, so that
 * core code can build one on the stack (no malloc on the small-op hot
 * path) and kernels can read it directly.  Not part of the public API (see
 * csrc/include/tensorlib/iter.h). */
#ifndef TENSORLIB_CSRC_CORE_ITER_IMPL_H
#define TENSORLIB_CSRC_CORE_ITER_IMPL_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/iter_impl.h is internal to tensorlib"
#endif

#include "tensorlib/iter.h"
#include "tensor_impl.h"

/* One operand.  Invariants after build: `tensor` is what the kernel reads
 * or writes (for an input copied because of overlap, or an allocated
 * output, the iterator owns it); `data` points at its element 0 (or at
 * `scalar` for an inlined one-element input); strides[0..ndim) are byte
 * strides in iteration order (0 on broadcast dims). */
typedef struct tl_iter_op {
    tl_tensor_impl *tensor;   /* borrowed, or owned when `owned` */
    tl_tensor_impl *original; /* borrowed: the tensor the caller gave */
    char *data;
    int16_t dtype;            /* dtype of the memory at data */
    int16_t target_dtype;     /* dtype the kernel sees */
    bool owned;               /* tensor is a reference the iterator holds */
    bool is_output;
    bool is_read_write;       /* an output that is also an input */
    bool will_resize;         /* a given output that gets resized */
    bool copied;              /* an input copied for partial overlap */
    bool inlined;             /* a one-element input held in `scalar` */
    /* A one-element input, converted to target_dtype. */
    _Alignas(16) unsigned char scalar[16];
    int64_t strides[TL_MAX_DIMS];
} tl_iter_op;

struct tl_iter {
    int ntensors;
    int noutputs;
    int ndim;                    /* iteration dims (after coalescing) */
    bool is_reduction;
    bool fast_setup;
    bool heap;                   /* allocated by tl_iter_new */
    bool no_buffering;           /* loops take any dtype and alignment */
    int16_t common_dtype;
    tl_device device;
    int64_t numel;
    int64_t grain;               /* tl_iter_config.grain, 0 made default */
    /* Iteration shape, fastest first. */
    int64_t shape[TL_MAX_DIMS];
    /* The broadcast shape, in tensor dim order. */
    int bcast_ndim;
    int64_t bcast[TL_MAX_DIMS];
    /* perm[i]: tensor dim walked by iteration dim i (before coalescing). */
    int perm_ndim;
    int perm[TL_MAX_DIMS];
    tl_iter_op ops[TL_ITER_MAX_OPERANDS];
};

/* Builds into caller storage (e.g. on the stack).  On failure nothing is
 * held (tl_iter_release is still safe).  Returns 0 or an error. */
int tl_iter_build(tl_iter *it, const tl_iter_config *c);

/* Whether a build runs on this thread (iter_build.c): a loop run inside
 * one (copying a partly overlapping input) must not call the GIL-release
 * hooks (iter_run.c). */
bool tl_iter_building(void);

/* Drops what the iterator holds (owned tensors); it may then be reused. */
void tl_iter_release(tl_iter *it);

/* The one out= shape check, for the iterator and the reductions: an out=
 * tensor t whose shape is not the result's `sizes` may be resized only
 * when `allowed`, empty, a root and at storage offset 0, and when
 * tl_tensor_resize_ would succeed (metadata changes allowed; a storage
 * that must grow resizable and not exported).  Returns 0 (t is to be
 * resized) or an error: TL_ERR_SHAPE naming both shapes, TL_ERR_RUNTIME
 * or TL_ERR_BUFFER for a storage that cannot grow. */
int tl_iter_check_out_resize(const tl_tensor_impl *t, int ndim,
                             const int64_t *sizes, bool allowed);

/* Required alignment (bytes) of a dtype's C type. */
int tl_dtype_align(int dt);

/* 0 when t may be written (it has at most one element, or no two of its
 * elements provably share memory: tl_iter_has_internal_overlap), else
 * TL_ERR_SHAPE naming t's sizes and strides.  Every write path that takes
 * a caller's tensor as its destination asks this. */
int tl_iter_check_writable_layout(const tl_tensor_impl *t);

#endif /* TENSORLIB_CSRC_CORE_ITER_IMPL_H */
