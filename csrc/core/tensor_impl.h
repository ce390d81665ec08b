/* csrc/core/tensor_impl.h — internal: the storage, version counter and
 * tensor impl structs, and the inline accessors the hot paths use.
 * Not part of the public API (see csrc/include/tensorlib/tensor.h). */
#ifndef TENSORLIB_CSRC_CORE_TENSOR_IMPL_H
#define TENSORLIB_CSRC_CORE_TENSOR_IMPL_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/tensor_impl.h is internal to tensorlib"
#endif

#include <stdatomic.h>

#include "tensorlib/tensor.h"
#include "../alloc/block.h"
#include "dtype_impl.h"

_Static_assert(TL_INLINE_DIMS == 5, "inline dims are 5, as in c10");
_Static_assert(TL_MAX_DIMS <= 64, "dim masks are 64-bit");

/* A refcounted byte range over a block, shared by every view.
 * Invariant: offset + nbytes <= block->nbytes (checked add) always. */
struct tl_storage {
    atomic_llong refcnt;
    tl_block *block;          /* strong reference; never NULL */
    int64_t offset;           /* bytes into the block */
    int64_t nbytes;
    /* The most nbytes has been: every view made of the storage reaches at
     * most this far, so while nbytes >= nbytes_hw no view can overhang it
     * (Note [Storages shrunk under live views] in tensor.c). */
    int64_t nbytes_hw;
    bool resizable;           /* may get a new block on resize */
    atomic_llong exports;     /* live buffer/NumPy/DLPack exports */
    void *pyobj;              /* borrowed back-pointer (csrc/python) */
    /* TL_COW_* bits (Note [Copy-on-write storages] in cow.c): block is
     * shared with other lazy clones; 0 for every other storage. */
    atomic_uchar cow;
    tl_bundle *bundle;        /* Note [Metadata bundles] (tensor.c): the
                                 bundle it lies in, or NULL */
};

enum {
    TL_COW_SHARED = 1u << 0, /* block shared copy-on-write */
    TL_COW_COPY = 1u << 1,   /* a lazy clone: writable (it is a copy) even
                                over a read-only block */
    TL_COW_NEVER = 1u << 2,  /* memory handed out untracked
                                (__array_interface__): never shared lazily */
};

struct tl_version {
    atomic_llong refcnt;
    atomic_ullong value;
    tl_bundle *bundle;        /* as the storage's */
};

struct tl_tensor_impl {
    atomic_llong refcnt;
    tl_storage *storage;      /* never NULL; strong unless storage_borrowed */
    int64_t storage_offset;   /* in elements; >= 0 */
    int64_t numel;            /* product of sizes */
    int32_t ndim;             /* 0 .. TL_MAX_DIMS */
    int16_t dtype;            /* a tl_dtype */
    int8_t memory_format;     /* explicit format tag (tl_memory_format) */
    /* A view borrows what its base holds for it (Note [Views borrow from
     * their base], tensor.c): no references of its own. */
    bool storage_borrowed;    /* storage is (or was) base->storage */
    atomic_bool storage_lent; /* a root whose storage a view borrowed */
    int32_t nretired;
    tl_storage **retired;     /* a root's storages replaced by set_ while
                                 lent: strong, dropped with the root */
    tl_device device;
    uint32_t flags;           /* TL_FLAG_*; derived ones kept current */
    /* Bumped by tl_impl_set_sizes_strides, the only way an existing
     * impl's sizes or strides change (a fresh impl starts at 0): whoever
     * caches something derived from them (the Python object's .shape and
     * .stride() tuples) keeps it while the number is unchanged. */
    uint32_t meta_gen;
    tl_version *version;      /* shared with every view; strong unless it
                                 is base->version (then borrowed) */
    tl_tensor_impl *base;     /* strong; the root of a view, never a view;
                                 NULL for a root */
    void *pyobj;              /* borrowed back-pointer (csrc/python) */
    tl_bundle *bundle;        /* as the storage's */
    /* sizes/strides point at the inline arrays when ndim <= 5, else at
     * heap arrays owned by the impl.  Strides are in elements; may be 0
     * (broadcast) or negative; ignored where the size is 1. */
    int64_t *sizes;
    int64_t *strides;
    int64_t inline_sizes[TL_INLINE_DIMS];
    int64_t inline_strides[TL_INLINE_DIMS];
};

/* The address of t's element 0.  Waits first when a non-blocking device
 * copy is still writing into the block (Note [Pending host reads] in
 * csrc/alloc/block.c): one load otherwise. */
static inline char *tl_impl_data(const tl_tensor_impl *t)
{
    const tl_storage *s = t->storage;
    tl_block_sync(s->block);
    return (char *)s->block->ptr + s->offset +
           t->storage_offset * tl_itemsize(t->dtype);
}

/* Replaces sizes and strides (ndim may change) and recomputes numel and
 * the derived flags.  Caller has validated them (bounds included).
 * Returns 0 or TL_ERR_MEMORY (then t is unchanged). */
int tl_impl_set_sizes_strides(tl_tensor_impl *t, int ndim,
                              const int64_t *sizes, const int64_t *strides);

/* Recomputes the derived flags from sizes, strides and the data pointer. */
void tl_impl_refresh_flags(tl_tensor_impl *t);

/* The derived flags that follow from t's sizes and strides alone (all but
 * TL_FLAG_ALIGNED, which needs the data pointer). */
uint32_t tl_impl_layout_flags(const tl_tensor_impl *t);

/* Checks that every element reachable by (sizes, strides, offset) lies in a
 * storage of storage_nbytes bytes.  Returns 0 or TL_ERR_SHAPE with a message
 * naming all of them. */
int tl_check_in_bounds(int ndim, const int64_t *sizes, const int64_t *strides,
                       int64_t storage_offset, int64_t itemsize,
                       int64_t storage_nbytes);

/* A view of t with the given metadata, already validated (bounds
 * included): shares t's storage and version counter; its base is t's root.
 * Inherits the read-only-view flag.  Returns: new reference, or NULL. */
tl_tensor_impl *tl_impl_view(tl_tensor_impl *t, int ndim, const int64_t *sizes,
                             const int64_t *strides, int64_t storage_offset);

/* tl_impl_view when the caller knows the view's layout flags (what
 * tl_impl_layout_flags would say of sizes and strides; -1: compute them).
 * Returns: new reference, or NULL. */
tl_tensor_impl *tl_impl_view_layout(tl_tensor_impl *t, int ndim,
                                    const int64_t *sizes,
                                    const int64_t *strides,
                                    int64_t storage_offset, int32_t layout);

/* Whether t has numel > 0 and exactly the row-major strides of its
 * sizes, size-1 dims included (a contiguous t may have any stride there,
 * and then tl_view_strides carries it over). */
static inline bool tl_impl_rowmajor_exact(const tl_tensor_impl *t)
{
    if (!(t->flags & TL_FLAG_CONTIGUOUS) || t->numel == 0) {
        return false;
    }
    int64_t step = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->strides[d] != step) {
            return false;
        }
        step *= t->sizes[d];
    }
    return true;
}

/* The view of t (tl_impl_rowmajor_exact) as sizes (their product is t's
 * numel; the caller checked): row-major strides, which are what
 * tl_view_strides finds for such a t.  Returns: new reference, or NULL. */
tl_tensor_impl *tl_impl_view_rowmajor(tl_tensor_impl *t, int ndim,
                                      const int64_t *sizes);

/* Drops t's link to its base (t stops being a view), first taking a
 * reference to the version counter when t only borrowed it.  For a fresh
 * impl nobody else sees yet (detach). */
void tl_impl_unlink_base(tl_tensor_impl *t);

#endif /* TENSORLIB_CSRC_CORE_TENSOR_IMPL_H */
