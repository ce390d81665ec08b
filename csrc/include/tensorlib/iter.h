/* tensorlib/iter.h — the TensorIterator: broadcasting, type promotion,
 * overlap policy, dimension reordering and coalescing of the operands of an
 * elementwise (or reduction) kernel, and the thread pool that runs it.
 *
 * Usage:
 *     tl_iter_config c;
 *     tl_iter_config_init(&c);
 *     tl_iter_config_add_output(&c, NULL);   // NULL: the iterator allocates
 *     tl_iter_config_add_input(&c, a);
 *     tl_iter_config_add_input(&c, b);
 *     c.promote_inputs_to_common_dtype = true;
 *     tl_iter *it = tl_iter_new(&c);         // build
 *     tl_iter_for_each(it, loop, ctx);       // run the kernel
 *     tl_tensor_impl *out = tl_iter_output(it, 0);
 *     tl_iter_free(it);
 *
 * See Note [Iterator build steps] in csrc/core/iter_build.c for the order
 * of the build steps, the overlap policy and the dimension order. */
#ifndef TENSORLIB_ITER_H
#define TENSORLIB_ITER_H

#include "tensorlib/base.h"
#include "tensorlib/dtype.h"
#include "tensorlib/status.h"
#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

/* Most operands one iterator takes (outputs + inputs). */
#define TL_ITER_MAX_OPERANDS 8

/* The default grain: the element count of one thread's share below which
 * a loop is not split across the thread pool (and the GIL-release hooks
 * do not run).  Right for memory-bound loops (add, compare, cast);
 * tl_iter_config.grain sets another per loop (the elementwise ops take
 * their measured one: tl_op_unary_grain). */
#define TL_ITER_GRAIN 32768

/* The kernel's view: a 2-D loop over size1 rows of size0 elements.
 * data[k] points at the first element of operand k (outputs first).
 * strides holds 2 * ntensors byte strides: strides[k] is operand k's inner
 * stride (between consecutive elements of a row), strides[ntensors + k]
 * its outer stride (between rows).  Strides may be 0 (broadcast) or
 * negative.  The iterator guarantees: every data pointer is aligned for its
 * dtype, every operand has the dtype the iterator's target says (see
 * tl_iter_target_dtype), and an output never partly overlaps an input
 * (it may be exactly the same memory: each element is read before it is
 * written). */
typedef void (*tl_iter_loop2d)(char **data, const int64_t *strides,
                               int64_t size0, int64_t size1, void *ctx);

/* How to build an iterator.  Fill with tl_iter_config_init, add operands
 * (all outputs before any input), then set the flags. */
typedef struct tl_iter_config {
    int noutputs;
    int ninputs;
    /* Borrowed (must outlive the iterator); outputs first.  A NULL output
     * is allocated by the iterator. */
    tl_tensor_impl *operands[TL_ITER_MAX_OPERANDS];
    /* An output overlapping itself is an error; an input partly
     * overlapping an output is copied first.  Default true. */
    bool check_mem_overlap;
    /* Given outputs must be writable (tl_tensor_check_writable).  Default
     * true. */
    bool check_writable;
    /* A given output whose shape differs from the broadcast shape is
     * resized when it has no elements and owns its storage (base NULL,
     * storage offset 0); any other mismatch is TL_ERR_SHAPE.  When false,
     * outputs take part in broadcasting and must match it.  Default true. */
    bool resize_outputs;
    /* The common dtype is tl_result_type of the inputs, and each input is
     * read as that dtype.  Default false: then, unless static_dtype is
     * set, inputs must share one dtype when check_all_same_dtype. */
    bool promote_inputs_to_common_dtype;
    /* An integral (or bool) common dtype becomes float32.  Default false. */
    bool promote_integer_inputs_to_float;
    /* Outputs are written as the common dtype and cast on write when
     * their own dtype differs.  Default false: kernels see each output in
     * its own dtype. */
    bool cast_common_dtype_to_outputs;
    /* A given output must satisfy tl_can_cast(common dtype, its dtype)
     * (TL_ERR_TYPE otherwise).  Default false. */
    bool enforce_safe_casting_to_output;
    /* Without promotion, all inputs (and given outputs) share one dtype
     * (TL_ERR_TYPE otherwise).  Default true. */
    bool check_all_same_dtype;
    /* A reduction: outputs keep size 1 on reduced dims (their stride is
     * 0 there) and the reduced dims come first in iteration order.
     * Implies resize_outputs = false semantics for the outputs. */
    bool is_reduction;
    /* Merge adjacent dims (tests turn it off to see the order).  Default
     * true. */
    bool coalesce;
    /* Take the fast set-up when every operand has one shape and one dense
     * layout.  Default true. */
    bool allow_fast_setup;
    /* A forced common dtype (a tl_dtype), or -1. */
    int static_dtype;
    /* dtype of the outputs the iterator allocates, or -1 for the common
     * dtype. */
    int output_dtype;
    /* Memory kind of allocated outputs and temporaries.  Default
     * TL_MEMKIND_DEFAULT. */
    int out_memkind;
    /* The caller runs the loop of a non-CPU device through the device
     * kernel table (tensorlib/device_table.h) instead of tl_iter_for_each,
     * so the build accepts such a device (when its row is installed).
     * Default false: a non-CPU device is TL_ERR_NOT_IMPLEMENTED. */
    bool device_kernels;
    /* Elements per thread below which tl_iter_for_each does not split the
     * loop (each share has at least this many).  Default 0:
     * TL_ITER_GRAIN. */
    int64_t grain;
} tl_iter_config;

typedef struct tl_iter tl_iter;

/* Sets the defaults documented above and no operands. */
TL_API void tl_iter_config_init(tl_iter_config *c);
/* Adds an output (borrowed; NULL: allocate).  Errors: TL_ERR_VALUE when an
 * input was already added or there are too many operands. */
TL_API int tl_iter_config_add_output(tl_iter_config *c, tl_tensor_impl *t);
/* Adds an input (borrowed, not NULL).  Errors: TL_ERR_VALUE. */
TL_API int tl_iter_config_add_input(tl_iter_config *c, tl_tensor_impl *t);

/* Builds an iterator: validates everything (shapes, dtypes, devices,
 * writability, self-overlapping outputs) before allocating or resizing any
 * output.  Returns: owned iterator (free with tl_iter_free), or NULL. */
TL_API tl_iter *tl_iter_new(const tl_iter_config *c);
/* Releases outputs it allocated and temporaries.  No-op on NULL. */
TL_API void tl_iter_free(tl_iter *it);

/* Runs loop over every element, split across the thread pool when the
 * element count exceeds the config's grain (contiguous ranges of the
 * flattened iteration space; a reduction iterator runs serially, since its
 * threads would share output elements).  Operands needing a dtype cast or
 * alignment fix-up are converted chunk by chunk through small buffers
 * (outputs are write-only there, except a reduction's, which are loaded
 * first).  Every operand's memory block is referenced for the duration.
 * Returns 0. */
TL_API int tl_iter_for_each(tl_iter *it, tl_iter_loop2d loop, void *ctx);

/* Runs loop over the flattened elements [begin, end) on this thread
 * only (no buffering: the caller checked tl_iter_needs_buffering).
 * Returns 0 or TL_ERR_INDEX for a bad range. */
TL_API int tl_iter_serial_for_each(tl_iter *it, tl_iter_loop2d loop,
                                   void *ctx, int64_t begin, int64_t end);

/* ---- what the build computed (all borrowed from the iterator) ----------- */

TL_API int tl_iter_ntensors(const tl_iter *it);
TL_API int tl_iter_noutputs(const tl_iter *it);
/* Number of iteration dims after reordering and coalescing. */
TL_API int tl_iter_ndim(const tl_iter *it);
/* Iteration shape, fastest-moving dim first.  Returns: borrowed. */
TL_API const int64_t *tl_iter_shape(const tl_iter *it);
/* Byte strides of operand arg, in iteration order.  Returns: borrowed. */
TL_API const int64_t *tl_iter_strides(const tl_iter *it, int arg);
TL_API int64_t tl_iter_numel(const tl_iter *it);
/* The broadcast shape in the operands' own dim order.  Returns: borrowed;
 * *ndim receives its length. */
TL_API const int64_t *tl_iter_broadcast_shape(const tl_iter *it, int *ndim);
/* perm[i] = the tensor dim that iteration dim i (before coalescing) walks.
 * Returns: borrowed, of length *ndim. */
TL_API const int *tl_iter_perm(const tl_iter *it, int *ndim);
TL_API tl_dtype tl_iter_common_dtype(const tl_iter *it);
/* The dtype operand arg's kernel sees (its own, or the common dtype). */
TL_API tl_dtype tl_iter_target_dtype(const tl_iter *it, int arg);
/* Overrides the dtype the kernel sees for operand arg (e.g. float32 for
 * a float16 operand).  Call after build and before running. */
TL_API void tl_iter_set_target_dtype(tl_iter *it, int arg, tl_dtype dt);
/* True when some operand is converted through buffers when running. */
TL_API bool tl_iter_needs_buffering(const tl_iter *it);
/* True when the build took the fast set-up (no per-dim work). */
TL_API bool tl_iter_is_fast_setup(const tl_iter *it);
/* True when input arg was copied to a temporary because it partly
 * overlapped an output. */
TL_API bool tl_iter_input_was_copied(const tl_iter *it, int arg);
/* The tensor operand arg reads or writes (an allocated output, or the
 * temporary standing in for an input).  Returns: borrowed (valid while the
 * iterator lives). */
TL_API tl_tensor_impl *tl_iter_operand(const tl_iter *it, int arg);
/* Returns: new reference to output i (given or allocated). */
TL_API tl_tensor_impl *tl_iter_output(const tl_iter *it, int i);

/* ---- the build steps on their own (for tests and other core code) ------- */

/* Broadcasts n shapes (aligned at the last dim; missing leading dims
 * count as 1; sizes must be equal or 1).  out needs TL_MAX_DIMS entries.
 * Errors: TL_ERR_SHAPE "shapes [2, 3] and [4] do not broadcast: at
 * dimension 1 (counted in the result) the sizes are 3 and 4, and neither is 1" (with
 * n > 2 the first shape is the broadcast of the operands before).
 * Returns 0 or an error. */
TL_API int tl_iter_infer_size(int n, const int *ndims,
                              const int64_t *const *sizes, int *out_ndim,
                              int64_t *out);

typedef enum tl_overlap {
    TL_OVERLAP_NO = 0,       /* provably disjoint */
    TL_OVERLAP_FULL = 1,     /* the very same elements, same layout */
    TL_OVERLAP_PARTIAL = 2,  /* byte ranges intersect otherwise */
} tl_overlap;

/* How a and b share memory (byte ranges of their reachable elements in
 * one memory block).  Empty tensors never overlap. */
TL_API tl_overlap tl_iter_overlap(const tl_tensor_impl *a,
                                  const tl_tensor_impl *b);

/* True when two different indices of t reach one memory location, or
 * when a bounded search cannot rule that out (Note [Internal overlap] in
 * memory_overlap.c: exact for every layout short of pathological
 * as_strided ones).
 * A tensor that is non-overlapping and dense, or has one element, never
 * overlaps. */
TL_API bool tl_iter_has_internal_overlap(const tl_tensor_impl *t);

/* ---- threads ------------------------------------------------------------ */

/* Threads used by one loop (>= 1; values below 1 are TL_ERR_VALUE).
 * Default: the number of online cores. */
TL_API int tl_set_num_threads(int n);
TL_API int tl_get_num_threads(void);

/* Runs fn(ctx, begin, end) over [0, n) split into contiguous ranges, one
 * per thread (at most n / grain + 1 of them), on the pool.  Nested calls
 * and calls while the pool is busy run serially on the caller. */
TL_API void tl_parallel_for(int64_t n, int64_t grain,
                            void (*fn)(void *ctx, int64_t begin, int64_t end),
                            void *ctx);

/* Runs fn(ctx, chunk) for chunk in [0, nchunks) on the pool.  The work of
 * each chunk must depend only on the chunk index, so results do not
 * depend on the thread count (reductions split this way). */
TL_API void tl_parallel_chunks(int64_t nchunks,
                               void (*fn)(void *ctx, int64_t chunk),
                               void *ctx);

/* Hooks called around every loop split across the pool, after
 * the operands' memory blocks are referenced: release() returns a token
 * that reacquire(token) gets back.  The Python layer releases the GIL here
 * (its hooks must check that the calling thread holds it).  NULL hooks:
 * none.  Not thread-safe: set once at start-up. */
TL_API void tl_parallel_set_release_hooks(void *(*release)(void),
                                          void (*reacquire)(void *token));

TL_EXTERN_C_END

#endif /* TENSORLIB_ITER_H */
