/* csrc/core/sortscan_impl.h — internal: what the sorting, scan and softmax
 * files (sort.c, search.c, scan.c, softmax.c) share: the (outer, n, inner)
 * row layout of a tensor along one dim, out= validation and commit, order
 * keys for the sorting ops, scratch memory and the parallel driver.  Not
 * part of the public API. */
#ifndef TENSORLIB_CSRC_CORE_SORTSCAN_IMPL_H
#define TENSORLIB_CSRC_CORE_SORTSCAN_IMPL_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/sortscan_impl.h is internal to tensorlib"
#endif

#include <stdint.h>

#include "tensor_impl.h"
#include "tensorlib/sortscan.h"

/* A tensor seen along dim: a contiguous copy (or the tensor itself) of
 * dtype dt whose element (o, j, i) is at data[(o * n + j) * inner + i]. */
typedef struct ss_rows {
    tl_tensor_impl *t; /* owned: contiguous, dtype dt */
    char *data;
    int64_t outer, n, inner;
    int dim;           /* wrapped (0 for a 0-d tensor) */
} ss_rows;

/* Wraps dim (a 0-d tensor has dims -1 and 0) and records the layout of a
 * cast to dt.  Returns 0 or an error (TL_ERR_INDEX for a bad dim). */
int ss_rows_init(ss_rows *R, tl_tensor_impl *a, int64_t dim, tl_dtype dt);
void ss_rows_free(ss_rows *R);

/* out= for a result of ndim/sizes and dtype rt: out must be on a's device,
 * writable, tl_can_cast(rt, out dtype) (exact == rt when exact), and have
 * the shape or be empty and own its storage (then *resize).  Returns 0 or
 * an error (out unchanged). */
int ss_check_out(const char *name, tl_tensor_impl *out,
                 const tl_tensor_impl *a, int ndim, const int64_t *sizes,
                 tl_dtype rt, bool *resize);

/* Commits result r (owned) into out (borrowed, checked by ss_check_out):
 * resizes out when it must be, copies.  out NULL: r itself.
 * Returns: new reference (out or r), or NULL (r released). */
tl_tensor_impl *ss_commit(tl_tensor_impl *out, bool resize,
                          tl_tensor_impl *r);

/* n bytes rounded up to a multiple of 8: scratch regions that follow one
 * another keep the alignment of every element type. */
#define SS_ALIGN8(n) (((n) + 7) & ~(int64_t)7)

/* Scratch bytes from the allocator.  Returns: new reference, or NULL. */
tl_tensor_impl *ss_scratch(int64_t nbytes);

/* A real dtype the sorting ops accept (every dtype but complex and the
 * float8 storage dtypes); else TL_ERR_TYPE naming the op.  Returns 0 or
 * an error. */
int ss_check_sortable(const char *name, tl_dtype dt);

/* Order keys: an unsigned integer of the dtype's width whose unsigned
 * order is the total order PyTorch's sort uses (NaN above +inf, -0 equal
 * to +0), complemented when descending.  Width in bytes: 1, 2, 4 or 8. */
int ss_key_width(tl_dtype dt);
/* Writes n keys of width ss_key_width(dt) from elements at src (stride in
 * elements) into dst. */
void ss_make_keys(tl_dtype dt, const char *src, int64_t stride, int64_t n,
                  bool descending, void *dst);
/* The values of n keys (inverse of ss_make_keys), into dst
 * (contiguous); -0 and NaNs are copied from src (stride in elements) at
 * idx[i]. */
void ss_keys_to_values(tl_dtype dt, const void *keys, int64_t n,
                       bool descending, const char *src, int64_t stride,
                       const uint32_t *idx, char *dst);
/* Whether element key k (width w, not complemented) is a NaN of dt. */
bool ss_key_is_nan(tl_dtype dt, uint64_t k);

/* Stable sort of n (key, index) pairs by key; idx[i] starts as anything
 * the caller wants to carry.  tmpk/tmpi: scratch of n entries each.
 * Keys of width w (1, 2, 4, 8), indices uint32. */
void ss_sort_pairs(int w, void *keys, uint32_t *idx, int64_t n, void *tmpk,
                   uint32_t *tmpi);
/* Stable sort of n words (key << 32 | payload) by their key half: one
 * array moves instead of two.  tmp: scratch of n words. */
void ss_sort_packed(uint64_t *words, int64_t n, uint64_t *tmp);

/* Runs fn(ctx, chunk) for chunk in [0, nchunks), threaded (with the GIL
 * released) when work (elements touched) is large, serially otherwise.
 * pins: tensors whose memory the chunks touch. */
void ss_parallel(int64_t nchunks, int64_t work,
                 void (*fn)(void *ctx, int64_t chunk), void *ctx,
                 tl_tensor_impl *const *pins, int npins);

/* The permutation moving dim d of an nd-d tensor to the end, and back. */
void ss_perm_to_last(int nd, int d, int *perm);
void ss_perm_from_last(int nd, int d, int *perm);

/* A contiguous tensor of sizes with dim d moved last, viewed back in the
 * original dim order (not contiguous unless d is last): allocates a
 * tensor of sizes (.., sizes[d]) and returns the permuted view.
 * Returns: new reference, or NULL. */
tl_tensor_impl *ss_empty_dim_last(int nd, const int64_t *sizes, int d,
                                  tl_dtype dt, tl_device dev);

#endif /* TENSORLIB_CSRC_CORE_SORTSCAN_IMPL_H */
