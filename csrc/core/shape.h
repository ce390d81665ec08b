/* csrc/core/shape.h — internal: the shape helpers shared by core files:
 * formatting of int64 lists for messages and dense strides like a tensor
 * (the public ones, numel, strides per format and broadcasting, are in
 * tensorlib/tensor.h and tensorlib/iter.h; all are defined in shape.c). */
#ifndef TENSORLIB_CSRC_CORE_SHAPE_H
#define TENSORLIB_CSRC_CORE_SHAPE_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/shape.h is internal to tensorlib"
#endif

#include "tensorlib/base.h"
#include "tensorlib/tensor.h"

/* Writes "[a, b, c]" into buf (always NUL-terminated, "..." if cut).
 * Returns: buf. */
char *tl_format_list(char *buf, size_t n, int count, const int64_t *v);

/* A thread-local scratch buffer set for messages: tl_fmt_list(slot, ...)
 * formats into slot 0..3.  Returns: borrowed (valid until the same slot is
 * used again on this thread). */
const char *tl_fmt_list(int slot, int count, const int64_t *v);

/* The layout flags (tl_impl_layout_flags) of a permutation of parent's
 * dims with these sizes and strides: non-overlapping-and-dense is
 * parent's (a permutation keeps the set of (size, stride) pairs) and
 * row-major contiguity is checked; -1 in 4 and 5 dims, where the
 * channels-last flags need the whole computation. */
int32_t tl_layout_flags_permuted(const tl_tensor_impl *parent, int n,
                                 const int64_t *sizes,
                                 const int64_t *strides);

/* Whether t has exactly these sizes (ndim included). */
bool tl_sizes_equal(const tl_tensor_impl *t, int ndim, const int64_t *sizes);

/* Dense strides (elements) for a tensor of t's sizes whose layout follows
 * t's stride order (Note [Iterator dimension order] in iter_build.c with t
 * alone): PyTorch's infer_dense_strides.  strides needs t->ndim entries.
 * Broadcast size inference is tl_iter_infer_size (tensorlib/iter.h), also
 * defined in shape.c; dense strides per memory format tl_dense_strides
 * (tensorlib/tensor.h). */
void tl_iter_dense_strides_like(const tl_tensor_impl *t, int64_t *strides);

#endif /* TENSORLIB_CSRC_CORE_SHAPE_H */
