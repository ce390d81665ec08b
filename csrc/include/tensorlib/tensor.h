/* tensorlib/tensor.h — storages, tensor impls and version counters.
 *
 * A tensor impl is only a view: sizes, strides (in elements), a storage
 * offset (in elements), a dtype and a device over a shared, refcounted
 * storage.  A storage is a byte range over a refcounted memory block.
 * Element address: block.ptr + storage.offset
 *                  + (storage_offset + sum(i_k * stride_k)) * itemsize. */
#ifndef TENSORLIB_TENSOR_H
#define TENSORLIB_TENSOR_H

#include "tensorlib/alloc.h"
#include "tensorlib/base.h"
#include "tensorlib/device.h"
#include "tensorlib/dtype.h"
#include "tensorlib/status.h"

TL_EXTERN_C_BEGIN

typedef struct tl_storage tl_storage;
typedef struct tl_tensor_impl tl_tensor_impl;
typedef struct tl_version tl_version;

typedef enum tl_memory_format {
    TL_FORMAT_CONTIGUOUS = 0,
    TL_FORMAT_CHANNELS_LAST = 1,    /* 4-D: N, C, H, W stored as N H W C */
    TL_FORMAT_CHANNELS_LAST_3D = 2, /* 5-D: N, C, D, H, W as N D H W C */
    TL_FORMAT_PRESERVE = 3,         /* only as an argument */
} tl_memory_format;

/* Flag bits kept on an impl, computed whenever metadata changes. */
enum {
    TL_FLAG_CONTIGUOUS = 1u << 0,
    TL_FLAG_CHANNELS_LAST = 1u << 1,
    TL_FLAG_CHANNELS_LAST_CONTIGUOUS = 1u << 2,
    TL_FLAG_CHANNELS_LAST_3D = 1u << 3,
    TL_FLAG_CHANNELS_LAST_3D_CONTIGUOUS = 1u << 4,
    TL_FLAG_NON_OVERLAPPING_AND_DENSE = 1u << 5,
    TL_FLAG_ALIGNED = 1u << 6,        /* data pointer aligned to itemsize */
    TL_FLAG_READONLY_VIEW = 1u << 7,  /* this view may not be written */
    TL_FLAG_WRAPPED_NUMBER = 1u << 8, /* made from a Python scalar */
    TL_FLAG_ALLOW_METADATA_CHANGE = 1u << 9,
    TL_FLAG_RESERVED = 1u << 10,      /* keep capacity on shrink */
};
/* The flags derived from sizes, strides and the data pointer. */
#define TL_FLAGS_DERIVED                                                    \
    (TL_FLAG_CONTIGUOUS | TL_FLAG_CHANNELS_LAST |                           \
     TL_FLAG_CHANNELS_LAST_CONTIGUOUS | TL_FLAG_CHANNELS_LAST_3D |          \
     TL_FLAG_CHANNELS_LAST_3D_CONTIGUOUS |                                  \
     TL_FLAG_NON_OVERLAPPING_AND_DENSE | TL_FLAG_ALIGNED)

/* ---- sizes -------------------------------------------------------------- */

/* Checks sizes and computes numel and nbytes = numel * itemsize: negative
 * sizes are TL_ERR_VALUE; the running product of sizes, left to right, then
 * times itemsize, must fit int64 (TL_ERR_OVERFLOW otherwise), so that
 * (2**62, 4, 0) is an error while (2**62, 0) is fine.  Either out may be
 * NULL.  Returns 0 or an error. */
TL_API int tl_safe_numel_bytes(int ndim, const int64_t *sizes,
                               int64_t itemsize, int64_t *numel,
                               int64_t *nbytes);

/* Writes the strides of a dense tensor of that shape in the given format
 * (contiguous, channels_last needs ndim 4, channels_last_3d ndim 5).
 * Returns 0 or TL_ERR_SHAPE. */
TL_API int tl_dense_strides(int ndim, const int64_t *sizes,
                            tl_memory_format fmt, int64_t *strides);

/* ---- storage ------------------------------------------------------------ */

/* Returns: new reference to a resizable storage of nbytes from the
 * allocator of (dev, kind), or NULL. */
TL_API tl_storage *tl_storage_new(tl_device dev, tl_memkind kind,
                                  int64_t nbytes);

/* A storage over bytes [offset, offset + nbytes) of b (b is increfed, not
 * stolen).  Errors: TL_ERR_SHAPE when the range is outside the block.
 * Returns: new reference, or NULL. */
TL_API tl_storage *tl_storage_from_block(tl_block *b, int64_t offset,
                                         int64_t nbytes);

/* A sub-storage sharing s's block: bytes [offset, offset + nbytes) of s,
 * bounds-checked (TL_ERR_SHAPE naming the range and the storage size).
 * Returns: new reference, or NULL. */
TL_API tl_storage *tl_storage_sub(tl_storage *s, int64_t offset,
                                  int64_t nbytes);

TL_API void tl_storage_incref(tl_storage *s);
TL_API void tl_storage_decref(tl_storage *s); /* no-op on NULL */
TL_API int64_t tl_storage_nbytes(const tl_storage *s);
TL_API void *tl_storage_data(const tl_storage *s);
/* Returns: borrowed (valid while s lives and is not resized). */
TL_API tl_block *tl_storage_block(const tl_storage *s);
TL_API int64_t tl_storage_refcount(const tl_storage *s);
TL_API int64_t tl_storage_export_count(const tl_storage *s);
TL_API void tl_storage_export_begin(tl_storage *s);
TL_API void tl_storage_export_end(tl_storage *s);

/* Resizes s to nbytes, keeping the first min(old, new) bytes.  The block
 * never shrinks (Note [Storage capacity] in tensor.c): a smaller size only
 * lowers nbytes, a larger one within the block's capacity extends it, and
 * beyond that a new block from the same (device, kind) replaces the old
 * one for every view.  Errors: TL_ERR_RUNTIME when s is not resizable
 * (external memory, sub-storages); TL_ERR_BUFFER when s is exported and
 * the resize would shrink it or replace its block; TL_ERR_VALUE for a
 * negative size.  Nothing changes on failure.  Returns 0 or an error. */
TL_API int tl_storage_resize(tl_storage *s, int64_t nbytes);
TL_API bool tl_storage_resizable(const tl_storage *s);

/* ---- tensor impls ------------------------------------------------------- */

/* A new contiguous tensor (uninitialised data) from the allocator of
 * (dev, kind).  Validates every size before allocating.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_tensor_empty(int ndim, const int64_t *sizes,
                                       tl_dtype dt, tl_device dev,
                                       tl_memkind kind);

/* As tl_tensor_empty with an explicit memory format (not PRESERVE).
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_tensor_empty_format(int ndim, const int64_t *sizes,
                                              tl_dtype dt, tl_device dev,
                                              tl_memkind kind,
                                              tl_memory_format fmt);

/* A new tensor with the given strides (none negative) over a fresh storage
 * just large enough for every reachable element.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_tensor_empty_strided(int ndim, const int64_t *sizes,
                                               const int64_t *strides,
                                               tl_dtype dt, tl_device dev,
                                               tl_memkind kind);

/* A new tensor over nbytes of memory owned by someone else, as
 * tl_block_wrap(ptr, nbytes, dev, readonly, deleter, ctx) wraps it, with
 * the given layout from storage_offset (elements) on; every reachable
 * element must lie inside the nbytes (TL_ERR_SHAPE).  One metadata
 * allocation instead of four (Note [Metadata bundles] in tensor.c).  On
 * failure the deleter is NOT called: the caller still owns the memory.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_tensor_wrap(void *ptr, size_t nbytes, tl_device dev,
                                      bool readonly,
                                      void (*deleter)(void *ctx), void *ctx,
                                      int64_t storage_offset, int ndim,
                                      const int64_t *sizes,
                                      const int64_t *strides, tl_dtype dt);

/* A new tensor over s (increfed), with its own version counter and no
 * base.  Every reachable element must lie inside s (TL_ERR_SHAPE).
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_tensor_new(tl_storage *s, int64_t storage_offset,
                                     int ndim, const int64_t *sizes,
                                     const int64_t *strides, tl_dtype dt);

/* A view of t sharing its storage and version counter, bounds-checked
 * against the storage (TL_ERR_SHAPE names sizes, strides, offset and the
 * storage size; a negative offset is TL_ERR_SHAPE too).  Its base is t's
 * root (never a view).  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_tensor_as_strided(tl_tensor_impl *t, int ndim,
                                            const int64_t *sizes,
                                            const int64_t *strides,
                                            int64_t storage_offset);

/* resize_: contiguous strides for the new sizes, the storage grown (data
 * prefix kept) when too small, never shrunk.  Validates everything first:
 * TL_ERR_RUNTIME when t's metadata is locked (allow_tensor_metadata_change
 * false) or the storage must grow but cannot; TL_ERR_BUFFER as
 * tl_storage_resize.  Returns 0 or an error (t unchanged). */
TL_API int tl_tensor_resize_(tl_tensor_impl *t, int ndim,
                             const int64_t *sizes);

/* set_: rebinds t to storage s (increfed) with the given metadata, bounds
 * checked against s.  TL_ERR_RUNTIME when t's metadata is locked.
 * Returns 0 or an error (t unchanged). */
TL_API int tl_tensor_set_(tl_tensor_impl *t, tl_storage *s,
                          int64_t storage_offset, int ndim,
                          const int64_t *sizes, const int64_t *strides);

/* Exact memory overlap of a and b (some byte in common), as NumPy's
 * shares_memory: 1 yes, 0 no, or TL_ERR_RUNTIME... when max_work >= 0 and
 * the search needs more steps (the caller raises TooHardError for
 * TL_ERR_NOT_IMPLEMENTED).  max_work < 0: no bound. */
TL_API int tl_shares_memory(const tl_tensor_impl *a, const tl_tensor_impl *b,
                            int64_t max_work);
/* Whether the byte extents of a and b intersect (may_share_memory). */
TL_API bool tl_may_share_memory(const tl_tensor_impl *a,
                                const tl_tensor_impl *b);

TL_API void tl_tensor_incref(tl_tensor_impl *t);
TL_API void tl_tensor_decref(tl_tensor_impl *t); /* no-op on NULL */
TL_API int64_t tl_tensor_refcount(const tl_tensor_impl *t);

TL_API int tl_tensor_ndim(const tl_tensor_impl *t);
/* Returns: borrowed arrays of ndim entries (valid until t's metadata
 * changes). */
TL_API const int64_t *tl_tensor_sizes(const tl_tensor_impl *t);
TL_API const int64_t *tl_tensor_strides(const tl_tensor_impl *t);
TL_API int64_t tl_tensor_numel(const tl_tensor_impl *t);
TL_API int64_t tl_tensor_storage_offset(const tl_tensor_impl *t);
TL_API tl_dtype tl_tensor_dtype(const tl_tensor_impl *t);
TL_API tl_device tl_tensor_device(const tl_tensor_impl *t);
TL_API uint32_t tl_tensor_flags(const tl_tensor_impl *t);
/* Returns: borrowed storage (valid while t lives). */
TL_API tl_storage *tl_tensor_storage(const tl_tensor_impl *t);
/* Address of element 0. */
TL_API void *tl_tensor_data(const tl_tensor_impl *t);
TL_API bool tl_tensor_is_contiguous(const tl_tensor_impl *t,
                                    tl_memory_format fmt);
/* True when neither the view nor its memory block is read-only. */
TL_API bool tl_tensor_is_writable(const tl_tensor_impl *t);
/* Records TL_ERR_READONLY naming what is read-only unless writable.
 * Returns 0 or TL_ERR_READONLY. */
TL_API int tl_tensor_check_writable(const tl_tensor_impl *t);
/* 0 when t's memory may be touched; TL_ERR_RUNTIME ("this tensor's
 * workspace was reset (generation 3, now 5): ...") when t was carved from
 * a workspace arena that has been reset or closed since.  Every path that
 * reads, writes or exports data calls it first (the iterator, for each
 * operand; the Python layer, at its data entry points).  Also
 * TL_ERR_RUNTIME when t reaches past the end of a storage shrunk under it
 * (tl_tensor_check_extent).  Two loads and branches in all. */
TL_API int tl_tensor_check_live(const tl_tensor_impl *t);
/* The same for a storage (Python's UntypedStorage data paths). */
TL_API int tl_storage_check_live(const tl_storage *s);
/* TL_ERR_RUNTIME when t reaches past the end of its storage (one shrunk by
 * tl_storage_resize under it), naming both sizes; 0 otherwise. */
TL_API int tl_tensor_check_extent(const tl_tensor_impl *t);
TL_API uint64_t tl_tensor_version(const tl_tensor_impl *t);
TL_API void tl_tensor_bump_version(tl_tensor_impl *t);

TL_EXTERN_C_END

#endif /* TENSORLIB_TENSOR_H */
