/* csrc/core/tensor.c — storages, version counters and tensor impls: their
 * creation, reference counting and metadata.  Every data byte comes from an
 * allocator found through the registry (tl_block_alloc); this file only
 * mallocs metadata. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "device_impl.h"
#include "../alloc/fault.h"
#include "../alloc/metacache.h"
#include "shape.h"
#include "tensor_impl.h"
#include "tensorlib/cow.h"

/* ---- storage ------------------------------------------------------------ */

/* Fills *s as a storage over [offset, offset + nbytes) of b, refcount 1,
 * lying in bundle (or NULL).  Takes the caller's reference to b. */
static void storage_init(tl_storage *s, tl_block *b, int64_t offset,
                         int64_t nbytes, bool resizable, tl_bundle *bundle)
{
    atomic_init(&s->refcnt, 1);
    s->block = b;
    s->offset = offset;
    s->nbytes = nbytes;
    s->nbytes_hw = nbytes;
    s->resizable = resizable;
    atomic_init(&s->exports, 0);
    s->pyobj = NULL;
    atomic_init(&s->cow, 0);
    s->bundle = bundle;
}

/* A storage over [offset, offset + nbytes) of b.  With adopt, the caller's
 * reference to b passes to the storage on success; else b is increfed.
 * Returns: new reference, or NULL. */
static tl_storage *storage_make_ex(tl_block *b, int64_t offset,
                                   int64_t nbytes, bool resizable, bool adopt)
{
    tl_storage *s = tl_fault_malloc(sizeof *s);
    if (!s) {
        tl_error(TL_ERR_MEMORY, "out of memory for a storage");
        return NULL;
    }
    if (!adopt) {
        tl_block_incref(b);
    }
    storage_init(s, b, offset, nbytes, resizable, NULL);
    return s;
}

static tl_storage *storage_make(tl_block *b, int64_t offset, int64_t nbytes,
                                bool resizable)
{
    return storage_make_ex(b, offset, nbytes, resizable, false);
}

tl_storage *tl_storage_new(tl_device dev, tl_memkind kind, int64_t nbytes)
{
    if (nbytes < 0) {
        tl_error(TL_ERR_VALUE, "storage size must be non-negative, got "
                 "%" PRId64, nbytes);
        return NULL;
    }
    tl_block *b = tl_block_alloc(dev, kind, (size_t)nbytes);
    if (!b) {
        return NULL;
    }
    tl_storage *s = storage_make_ex(b, 0, nbytes, true, true);
    if (!s) {
        tl_block_decref(b);
    }
    return s;
}

tl_storage *tl_storage_from_block(tl_block *b, int64_t offset, int64_t nbytes)
{
    int64_t end;
    if (offset < 0 || nbytes < 0 || tl_add_overflow_i64(offset, nbytes, &end)
        || (uint64_t)end > (uint64_t)b->nbytes) {
        tl_error(TL_ERR_SHAPE,
                 "storage range [%" PRId64 ", %" PRId64 " + %" PRId64
                 ") is outside a memory block of %zu bytes",
                 offset, offset, nbytes, b->nbytes);
        return NULL;
    }
    return storage_make(b, offset, nbytes, false);
}

tl_storage *tl_storage_sub(tl_storage *s, int64_t offset, int64_t nbytes)
{
    int64_t end;
    /* A sub-storage aliases s's bytes: s must own them first (Note
     * [Copy-on-write storages] in cow.c). */
    if (tl_storage_cow_materialize(s) < 0) {
        return NULL;
    }
    if (offset < 0 || nbytes < 0 || tl_add_overflow_i64(offset, nbytes, &end)
        || end > s->nbytes) {
        tl_error(TL_ERR_SHAPE,
                 "sub-storage [%" PRId64 ", %" PRId64 " + %" PRId64
                 ") is outside a storage of %" PRId64 " bytes",
                 offset, offset, nbytes, s->nbytes);
        return NULL;
    }
    return storage_make(s->block, s->offset + offset, nbytes, false);
}

void tl_storage_incref(tl_storage *s)
{
    atomic_fetch_add_explicit(&s->refcnt, 1, memory_order_relaxed);
}

/* Frees p, a metadata struct, or puts its part of the bundle it lies
 * in. */
static void meta_free(void *p, tl_bundle *bundle)
{
    if (bundle) {
        tl_bundle_put(bundle);
    } else {
        free(p);
    }
}

/* Note [Last-reference fast path]
 * A decref that finds the count at 1 holds the only reference: nobody else
 * can incref (only holders may), so the object is freed without the atomic
 * read-modify-write, which is most of the cost of dropping a temporary.
 * The acquire load pairs with the release half of the other holders'
 * decrefs, as the fetch_sub would.  Blocks (block.c) do the same. */
static inline bool last_ref(atomic_llong *refcnt)
{
    return atomic_load_explicit(refcnt, memory_order_acquire) == 1 ||
           atomic_fetch_sub_explicit(refcnt, 1, memory_order_acq_rel) == 1;
}

void tl_storage_decref(tl_storage *s)
{
    if (!s || !last_ref(&s->refcnt)) {
        return;
    }
    TL_ASSERT(atomic_load(&s->exports) == 0);
    tl_block_decref(s->block);
    meta_free(s, s->bundle);
}

int64_t tl_storage_nbytes(const tl_storage *s) { return s->nbytes; }

void *tl_storage_data(const tl_storage *s)
{
    tl_block_sync(s->block); /* Note [Pending host reads] in block.c */
    return (char *)s->block->ptr + s->offset;
}

tl_block *tl_storage_block(const tl_storage *s) { return s->block; }

int64_t tl_storage_refcount(const tl_storage *s)
{
    return atomic_load_explicit(&s->refcnt, memory_order_relaxed);
}

int64_t tl_storage_export_count(const tl_storage *s)
{
    return atomic_load_explicit(&s->exports, memory_order_acquire);
}

void tl_storage_export_begin(tl_storage *s)
{
    atomic_fetch_add_explicit(&s->exports, 1, memory_order_acq_rel);
    /* An exported workspace chunk outlives resets (arena.c). */
    tl_block_hold(s->block);
}

void tl_storage_export_end(tl_storage *s)
{
    tl_block_unhold(s->block);
    atomic_fetch_sub_explicit(&s->exports, 1, memory_order_acq_rel);
}

/* ---- version counters --------------------------------------------------- */

static void version_init(tl_version *v, tl_bundle *bundle)
{
    atomic_init(&v->refcnt, 1);
    atomic_init(&v->value, 0);
    v->bundle = bundle;
}

static tl_version *version_new(void)
{
    tl_version *v = tl_fault_malloc(sizeof *v);
    if (!v) {
        tl_error(TL_ERR_MEMORY, "out of memory for a version counter");
        return NULL;
    }
    version_init(v, NULL);
    return v;
}

/* Whether t reaches its version counter through its base, without a
 * reference of its own (Note [Views borrow from their base]): an impl's
 * counter never changes, so this is fixed while t has that base. */
static bool version_borrowed(const tl_tensor_impl *t)
{
    return t->base && t->base->version == t->version;
}

static void version_decref(tl_version *v)
{
    if (v && last_ref(&v->refcnt)) {
        meta_free(v, v->bundle);
    }
}

/* ---- impls -------------------------------------------------------------- */

/* Points sizes/strides at inline or fresh heap arrays for ndim dims.
 * Returns 0 or TL_ERR_MEMORY (then t is unchanged). */
static int impl_reserve_dims(tl_tensor_impl *t, int ndim)
{
    int64_t *heap = NULL;
    if (ndim > TL_INLINE_DIMS) {
        heap = tl_fault_malloc(2 * (size_t)ndim * sizeof(int64_t));
        if (!heap) {
            return tl_error(TL_ERR_MEMORY, "out of memory for %d dims", ndim);
        }
    }
    if (t->sizes != t->inline_sizes) {
        free(t->sizes); /* sizes and strides share one heap array */
    }
    if (heap) {
        t->sizes = heap;
        t->strides = heap + ndim;
    } else {
        t->sizes = t->inline_sizes;
        t->strides = t->inline_strides;
    }
    return 0;
}

int tl_impl_set_sizes_strides(tl_tensor_impl *t, int ndim,
                              const int64_t *sizes, const int64_t *strides)
{
    int64_t tmp[2 * TL_MAX_DIMS];
    /* sizes/strides may alias t's own arrays: copy first. */
    memcpy(tmp, sizes, (size_t)ndim * sizeof(int64_t));
    memcpy(tmp + ndim, strides, (size_t)ndim * sizeof(int64_t));
    if ((ndim > TL_INLINE_DIMS || t->sizes != t->inline_sizes) &&
        ndim != t->ndim) {
        if (impl_reserve_dims(t, ndim) < 0) {
            return TL_ERR_MEMORY;
        }
    }
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        t->sizes[d] = tmp[d];
        t->strides[d] = tmp[ndim + d];
        numel *= tmp[d];
    }
    t->ndim = ndim;
    t->numel = numel;
    t->meta_gen++;
    tl_impl_refresh_flags(t);
    return 0;
}

/* Fills *t (its sizes and strides arrays already reserved for ndim) as
 * an impl over s with the given version counter and base, lying in bundle
 * (or NULL); the references as impl_make_ex takes them.  The derived
 * flags: layout, when >= 0, is what tl_impl_layout_flags would say (the
 * caller made the strides); the aligned bit is like's when like is given
 * (a view of like in its dtype), else read from the pointer.  Inlined into
 * its two callers: a view is made by the call's argument passing
 * otherwise. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void impl_init(tl_tensor_impl *t, tl_storage *s, int64_t storage_offset,
                      int ndim, const int64_t *sizes, const int64_t *strides,
                      tl_dtype dt, tl_version *version, tl_tensor_impl *base,
                      bool adopt, tl_bundle *bundle,
                      const tl_tensor_impl *like, int32_t layout)
{
    atomic_init(&t->refcnt, 1);
    /* Note [Views borrow from their base]
     * A view's base is its root, which it holds (one reference) for as
     * long as it lives.  An impl's version counter never changes, and a
     * root's storage changes only through set_, which then keeps the old
     * one until the root dies when a view borrowed it (storage_lent,
     * retired).  So a view made over its root's storage and counter takes
     * no reference to either: it is made and dropped with one atomic pair
     * (the base's) instead of three.  tl_impl_unlink_base takes the
     * references before a base link goes; set_ on a view drops nothing
     * it borrowed. */
    TL_ASSERT(!adopt || !base); /* adopted references are never borrowed */
    t->storage_borrowed = base && base->storage == s;
    if (!adopt && !t->storage_borrowed) {
        tl_storage_incref(s);
    }
    if (t->storage_borrowed &&
        !atomic_load_explicit(&base->storage_lent, memory_order_relaxed)) {
        atomic_store_explicit(&base->storage_lent, true,
                              memory_order_relaxed);
    }
    atomic_init(&t->storage_lent, false);
    t->nretired = 0;
    t->retired = NULL;
    t->storage = s;
    t->storage_offset = storage_offset;
    t->dtype = (int16_t)dt;
    t->memory_format = TL_FORMAT_CONTIGUOUS;
    t->device = s->block->device;
    /* A workspace tensor's layout is owned by its arena (Note [Arena
     * generations] in csrc/alloc/arena.c): resize_/set_ are refused. */
    t->flags = tl_block_has_owner_hooks(s->block)
                   ? 0 : TL_FLAG_ALLOW_METADATA_CHANGE;
    if (!adopt && !(base && base->version == version)) {
        atomic_fetch_add_explicit(&version->refcnt, 1, memory_order_relaxed);
    }
    t->version = version;
    if (base) {
        tl_tensor_incref(base);
    }
    t->base = base;
    t->pyobj = NULL;
    t->bundle = bundle;
    t->meta_gen = 0;
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        t->sizes[d] = sizes[d];
        t->strides[d] = strides[d];
        numel *= sizes[d];
    }
    t->ndim = ndim;
    t->numel = numel;
    uint32_t f = layout >= 0 ? (uint32_t)layout : tl_impl_layout_flags(t);
    if (like) {
        /* A view of like in like's dtype: its data pointer differs from
         * like's by a multiple of the itemsize, so it is aligned exactly
         * when like's is (no trip to the block for the pointer). */
        f |= like->flags & TL_FLAG_ALIGNED;
    } else if (((uintptr_t)tl_impl_data(t) &
                ((uintptr_t)tl_itemsize(dt) - 1)) == 0) {
        f |= TL_FLAG_ALIGNED;
    }
    t->flags |= f; /* no derived bit was set above */
}

/* The layout flags of row-major strides in ndim dims: contiguous and
 * dense, and nothing else but in 4 or 5 dims, where size-1 dims can make
 * them channels-last too (then -1: compute them). */
static int32_t rowmajor_layout(int ndim)
{
    return ndim == 4 || ndim == 5
               ? -1
               : (int32_t)(TL_FLAG_CONTIGUOUS |
                           TL_FLAG_NON_OVERLAPPING_AND_DENSE);
}

/* A fresh impl over s with the given version counter and base (increfed);
 * metadata validated by the caller.  With adopt, the caller's references
 * to s and version pass to the impl on success (no atomic pair on the
 * creation path); on failure they stay the caller's.  Without adopt, both
 * are increfed.  Returns: new reference, or NULL. */
static tl_tensor_impl *impl_make_ex(tl_storage *s, int64_t storage_offset,
                                    int ndim, const int64_t *sizes,
                                    const int64_t *strides, tl_dtype dt,
                                    tl_version *version, tl_tensor_impl *base,
                                    bool adopt, const tl_tensor_impl *like,
                                    int32_t layout)
{
    tl_tensor_impl *t = tl_meta_get(TL_META_IMPL, sizeof *t);
    if (!t) {
        tl_error(TL_ERR_MEMORY, "out of memory for a tensor");
        return NULL;
    }
    t->sizes = t->inline_sizes;
    t->strides = t->inline_strides;
    if (ndim > TL_INLINE_DIMS && impl_reserve_dims(t, ndim) < 0) {
        tl_meta_put(TL_META_IMPL, t, sizeof *t);
        return NULL;
    }
    impl_init(t, s, storage_offset, ndim, sizes, strides, dt, version, base,
              adopt, NULL, like, layout);
    return t;
}

static tl_tensor_impl *impl_make(tl_storage *s, int64_t storage_offset,
                                 int ndim, const int64_t *sizes,
                                 const int64_t *strides, tl_dtype dt,
                                 tl_version *version, tl_tensor_impl *base)
{
    return impl_make_ex(s, storage_offset, ndim, sizes, strides, dt, version,
                        base, false, NULL, -1);
}

/* Note [Metadata bundles]
 * A fresh tensor needs four metadata structs: its impl, a storage, a
 * version counter and the block record of its bytes.  Four mallocs and
 * frees were a fifth of the instructions of `a + b` on 10 floats (issue
 * 22), so a fresh tensor takes them in one allocation, a bundle, when its
 * allocator hands out plain bytes (a workspace arena makes its own block
 * records: those tensors take the four structs as before) and its dims
 * fit inline.  The four still live and die independently -- a view keeps
 * the root impl, an exported array the block, set_ moves a storage to
 * another impl -- so each struct records its bundle and puts one part of
 * it when it dies (meta_free, tl_block_decref); the last part frees the
 * allocation.  The common death is whole: the impl holds the only
 * reference to its own storage and counter, and the storage the only one
 * to its own block, so tl_tensor_decref gives the bytes back and frees
 * the bundle at once, without touching the part count (bundle_dies_whole).
 * Bundles and the impls of views come from, and go back to, this thread's
 * metadata caches (Note [Metadata caches] in csrc/alloc/metacache.c).
 * The cost: a bundle's memory (about 400 bytes) stays until its last part
 * dies, e.g. while a NumPy array still exports the block of a dead
 * tensor; and ASan sees a use of a dead part as a use of live memory
 * until the whole bundle goes. */
typedef struct tensor_bundle {
    tl_bundle head; /* first: freeing it frees the bundle */
    tl_block block;
    tl_storage storage;
    tl_version version;
    tl_tensor_impl impl;
} tensor_bundle;

enum { BUNDLE_PARTS = 4 };

/* Makes bu, whose block is filled and whose impl has its dims reserved,
 * one tensor: a storage over the whole block, a version counter and the
 * impl with the given layout.  Returns: the impl (new reference). */
static tl_tensor_impl *bundle_finish(tensor_bundle *bu, int64_t nbytes,
                                     bool resizable, int64_t storage_offset,
                                     int ndim, const int64_t *sizes,
                                     const int64_t *strides, tl_dtype dt,
                                     int32_t layout)
{
    atomic_init(&bu->head.parts, BUNDLE_PARTS);
    bu->head.bytes = sizeof *bu;
    storage_init(&bu->storage, &bu->block, 0, nbytes, resizable, &bu->head);
    version_init(&bu->version, &bu->head);
    impl_init(&bu->impl, &bu->storage, storage_offset, ndim, sizes, strides,
              dt, &bu->version, NULL, true, &bu->head, NULL, layout);
    return &bu->impl;
}

/* A fresh root tensor over nbytes of new memory from (dev, kind) with the
 * given layout (validated, within nbytes).  Returns: new reference, or
 * NULL. */
static tl_tensor_impl *fresh_tensor(int ndim, const int64_t *sizes,
                                    const int64_t *strides, tl_dtype dt,
                                    tl_device dev, tl_memkind kind,
                                    int64_t nbytes, int32_t layout)
{
    tl_storage *s = NULL;
    tl_version *v = NULL;
    tl_tensor_impl *t = NULL;
    if (ndim <= TL_INLINE_DIMS) {
        const tl_allocator *a = tl_registry_get(dev, kind);
        if (!a) {
            return NULL;
        }
        tensor_bundle *bu = tl_meta_get(TL_META_BUNDLE, sizeof *bu);
        if (!bu) {
            tl_error(TL_ERR_MEMORY, "out of memory for a tensor");
            return NULL;
        }
        int rc = tl_block_alloc_embedded(&bu->block, &bu->head, a, kind,
                                         (size_t)nbytes, TL_CPU_ALIGNMENT);
        if (rc == 0) {
            t = &bu->impl;
            t->sizes = t->inline_sizes;
            t->strides = t->inline_strides;
            return bundle_finish(bu, nbytes, true, 0, ndim, sizes, strides,
                                 dt, layout);
        }
        free(bu);
        if (rc < 0) {
            return NULL;
        }
        /* rc == 1: the allocator makes its own block records */
    }
    s = tl_storage_new(dev, kind, nbytes);
    if (!s) {
        goto done;
    }
    v = version_new();
    if (!v) {
        goto done;
    }
    t = impl_make_ex(s, 0, ndim, sizes, strides, dt, v, NULL, true, NULL, -1);
    if (t) {
        return t; /* s and v now belong to t */
    }
done:
    version_decref(v);
    tl_storage_decref(s);
    return t;
}

/* Whether t, the last reference to a bundled impl, takes its whole bundle
 * with it (Note [Metadata bundles]): it holds its own storage and counter,
 * each only by t, and the storage holds its own block, only by it.  Nobody
 * else holds them, so nobody can take a reference meanwhile. */
static bool bundle_dies_whole(const tl_tensor_impl *t)
{
    const tensor_bundle *bu = (const tensor_bundle *)(const void *)t->bundle;
    return t == &bu->impl && !t->base && t->nretired == 0 &&
           t->storage == &bu->storage && t->version == &bu->version &&
           bu->storage.block == &bu->block &&
           atomic_load_explicit(&bu->storage.refcnt,
                                memory_order_acquire) == 1 &&
           atomic_load_explicit(&bu->version.refcnt,
                                memory_order_acquire) == 1 &&
           atomic_load_explicit(&bu->block.refcnt,
                                memory_order_acquire) == 1;
}

/* Note [Small row-major shapes]
 * A fresh tensor's shape went through two checked passes, the element
 * and byte counts (tl_safe_numel_bytes, left to right, as PyTorch checks
 * overflow) and the strides (tl_dense_strides): with the calls, about 190
 * of the ~1460 instructions of empty((3, 4)) (issue 22).  A row-major
 * shape of at most SMALL_NDIM dims, each size in [0, SMALL_DIM), cannot
 * overflow in either: every product stays below 2^56 and the byte count
 * below 2^60 (itemsizes are at most 16).  So one pass from the last dim
 * gives strides (c10's: a size-0 or size-1 dim counts as 1), element count
 * and bytes, and every other shape -- negative sizes, large ones, more
 * dims -- takes the checked passes and their errors as before.  Returns:
 * whether the shape was small (then strides and *nbytes are set). */
#define SMALL_NDIM 4
#define SMALL_DIM ((int64_t)1 << 14)
_Static_assert(SMALL_NDIM * 14 + 4 < 63,
               "small shapes' byte counts fit in int64");
static bool small_rowmajor(int ndim, const int64_t *sizes, int64_t itemsize,
                           int64_t *strides, int64_t *nbytes)
{
    if (ndim < 0 || ndim > SMALL_NDIM) { /* negative: the checked error */
        return false;
    }
    int64_t numel = 1, stride = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        const int64_t n = sizes[d];
        if ((uint64_t)n >= (uint64_t)SMALL_DIM) { /* negatives too */
            return false;
        }
        strides[d] = stride;
        stride *= n > 1 ? n : 1;
        numel *= n;
    }
    *nbytes = numel * itemsize;
    return true;
}

tl_tensor_impl *tl_tensor_empty_format(int ndim, const int64_t *sizes,
                                       tl_dtype dt, tl_device dev,
                                       tl_memkind kind, tl_memory_format fmt)
{
    int64_t strides[TL_MAX_DIMS];
    int64_t nbytes;
    tl_tensor_impl *t;
    if (!tl_dtype_valid(dt)) {
        tl_error(TL_ERR_TYPE, "invalid dtype code %d", (int)dt);
        return NULL;
    }
    const bool rowmajor =
        fmt == TL_FORMAT_CONTIGUOUS || fmt == TL_FORMAT_PRESERVE;
    if (!(rowmajor && small_rowmajor(ndim, sizes, tl_itemsize(dt), strides,
                                     &nbytes)) &&
        (tl_safe_numel_bytes(ndim, sizes, tl_itemsize(dt), NULL, &nbytes) < 0
         || tl_dense_strides(ndim, sizes, fmt, strides) < 0)) {
        return NULL;
    }
    t = fresh_tensor(ndim, sizes, strides, dt, dev, kind, nbytes,
                     rowmajor ? rowmajor_layout(ndim) : -1);
    if (t) {
        t->memory_format = (int8_t)(fmt == TL_FORMAT_PRESERVE
                                        ? TL_FORMAT_CONTIGUOUS : fmt);
    }
    return t;
}

tl_tensor_impl *tl_tensor_empty(int ndim, const int64_t *sizes, tl_dtype dt,
                                tl_device dev, tl_memkind kind)
{
    return tl_tensor_empty_format(ndim, sizes, dt, dev, kind,
                                  TL_FORMAT_CONTIGUOUS);
}

tl_tensor_impl *tl_tensor_empty_strided(int ndim, const int64_t *sizes,
                                        const int64_t *strides, tl_dtype dt,
                                        tl_device dev, tl_memkind kind)
{
    int64_t numel, extent = 0, nbytes;
    if (!tl_dtype_valid(dt)) {
        tl_error(TL_ERR_TYPE, "invalid dtype code %d", (int)dt);
        return NULL;
    }
    if (tl_safe_numel_bytes(ndim, sizes, tl_itemsize(dt), &numel, NULL) < 0) {
        return NULL;
    }
    if (numel > 0) {
        /* Storage spans the largest offset reached, plus one element. */
        for (int d = 0; d < ndim; d++) {
            int64_t span;
            if (strides[d] < 0) {
                return tl_error(TL_ERR_SHAPE,
                                "empty_strided: negative stride %" PRId64
                                " at dim %d", strides[d], d), NULL;
            }
            if (tl_mul_overflow_i64(strides[d], sizes[d] - 1, &span) ||
                tl_add_overflow_i64(extent, span, &extent)) {
                return tl_error(TL_ERR_OVERFLOW,
                                "empty_strided: sizes %s with strides %s "
                                "overflow int64",
                                tl_fmt_list(0, ndim, sizes),
                                tl_fmt_list(1, ndim, strides)), NULL;
            }
        }
        if (tl_mul_overflow_i64(extent + 1, tl_itemsize(dt), &nbytes)) {
            return tl_error(TL_ERR_OVERFLOW, "empty_strided: byte size "
                            "overflows int64"), NULL;
        }
    } else {
        nbytes = 0;
    }
    return fresh_tensor(ndim, sizes, strides, dt, dev, kind, nbytes, -1);
}

tl_tensor_impl *tl_tensor_wrap(void *ptr, size_t nbytes, tl_device dev,
                               bool readonly, void (*deleter)(void *ctx),
                               void *ctx, int64_t storage_offset, int ndim,
                               const int64_t *sizes, const int64_t *strides,
                               tl_dtype dt)
{
    if (!tl_dtype_valid(dt)) {
        tl_error(TL_ERR_TYPE, "invalid dtype code %d", (int)dt);
        return NULL;
    }
    if (nbytes > (size_t)INT64_MAX) {
        tl_error(TL_ERR_OVERFLOW, "cannot wrap %zu bytes: a storage holds "
                 "at most INT64_MAX", nbytes);
        return NULL;
    }
    if (tl_safe_numel_bytes(ndim, sizes, tl_itemsize(dt), NULL, NULL) < 0 ||
        tl_check_in_bounds(ndim, sizes, strides, storage_offset,
                           tl_itemsize(dt), (int64_t)nbytes) < 0) {
        return NULL;
    }
    tensor_bundle *bu = tl_meta_get(TL_META_BUNDLE, sizeof *bu);
    if (!bu) {
        tl_error(TL_ERR_MEMORY, "out of memory for a tensor");
        return NULL;
    }
    tl_tensor_impl *t = &bu->impl;
    t->sizes = t->inline_sizes;
    t->strides = t->inline_strides;
    if (impl_reserve_dims(t, ndim) < 0) {
        free(bu);
        return NULL;
    }
    if (tl_block_wrap_embedded(&bu->block, &bu->head, ptr, nbytes, dev,
                               readonly, deleter, ctx) < 0) {
        if (t->sizes != t->inline_sizes) {
            free(t->sizes);
        }
        free(bu);
        return NULL;
    }
    /* From here nothing fails: the deleter is the block's. */
    return bundle_finish(bu, (int64_t)nbytes, false, storage_offset, ndim,
                         sizes, strides, dt, -1);
}

tl_tensor_impl *tl_tensor_new(tl_storage *s, int64_t storage_offset, int ndim,
                              const int64_t *sizes, const int64_t *strides,
                              tl_dtype dt)
{
    if (!tl_dtype_valid(dt)) {
        tl_error(TL_ERR_TYPE, "invalid dtype code %d", (int)dt);
        return NULL;
    }
    if (tl_safe_numel_bytes(ndim, sizes, tl_itemsize(dt), NULL, NULL) < 0 ||
        tl_check_in_bounds(ndim, sizes, strides, storage_offset,
                           tl_itemsize(dt), s->nbytes) < 0) {
        return NULL;
    }
    tl_version *v = version_new();
    if (!v) {
        return NULL;
    }
    tl_tensor_impl *t = impl_make(s, storage_offset, ndim, sizes, strides, dt,
                                  v, NULL);
    version_decref(v);
    return t;
}

tl_tensor_impl *tl_tensor_as_strided(tl_tensor_impl *t, int ndim,
                                     const int64_t *sizes,
                                     const int64_t *strides,
                                     int64_t storage_offset)
{
    if (tl_safe_numel_bytes(ndim, sizes, tl_itemsize(t->dtype), NULL,
                            NULL) < 0 ||
        tl_check_in_bounds(ndim, sizes, strides, storage_offset,
                           tl_itemsize(t->dtype), t->storage->nbytes) < 0) {
        return NULL;
    }
    return tl_impl_view(t, ndim, sizes, strides, storage_offset);
}

tl_tensor_impl *tl_impl_view_layout(tl_tensor_impl *t, int ndim,
                                    const int64_t *sizes,
                                    const int64_t *strides,
                                    int64_t storage_offset, int32_t layout)
{
    tl_tensor_impl *v = impl_make_ex(t->storage, storage_offset, ndim, sizes,
                                     strides, (tl_dtype)t->dtype, t->version,
                                     t->base ? t->base : t, false, t, layout);
    if (v) {
        v->flags |= t->flags & TL_FLAG_READONLY_VIEW;
    }
    return v;
}

tl_tensor_impl *tl_impl_view(tl_tensor_impl *t, int ndim, const int64_t *sizes,
                             const int64_t *strides, int64_t storage_offset)
{
    return tl_impl_view_layout(t, ndim, sizes, strides, storage_offset, -1);
}

tl_tensor_impl *tl_impl_view_rowmajor(tl_tensor_impl *t, int ndim,
                                      const int64_t *sizes)
{
    int64_t strides[TL_MAX_DIMS];
    TL_ASSERT(tl_impl_rowmajor_exact(t));
    /* numel > 0 fits int64 and the sizes multiply to it: no overflow. */
    int64_t step = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = step;
        step *= sizes[d];
    }
    return tl_impl_view_layout(t, ndim, sizes, strides, t->storage_offset,
                               rowmajor_layout(ndim));
}

void tl_impl_unlink_base(tl_tensor_impl *t)
{
    if (!t->base) {
        return;
    }
    if (version_borrowed(t)) {
        atomic_fetch_add_explicit(&t->version->refcnt, 1,
                                  memory_order_relaxed);
    }
    if (t->storage_borrowed) {
        tl_storage_incref(t->storage);
        t->storage_borrowed = false;
    }
    tl_tensor_decref(t->base);
    t->base = NULL;
}

void tl_tensor_incref(tl_tensor_impl *t)
{
    atomic_fetch_add_explicit(&t->refcnt, 1, memory_order_relaxed);
}

void tl_tensor_decref(tl_tensor_impl *t)
{
    if (!t || !last_ref(&t->refcnt)) {
        return;
    }
    if (t->bundle && bundle_dies_whole(t)) {
        TL_ASSERT(atomic_load(&t->storage->exports) == 0);
        tl_block_release_bytes(t->storage->block);
        if (t->retired) {
            free(t->retired);
        }
        if (t->sizes != t->inline_sizes) {
            free(t->sizes);
        }
        tl_meta_put(TL_META_BUNDLE, t->bundle, sizeof(tensor_bundle));
        return;
    }
    if (!t->storage_borrowed) {
        tl_storage_decref(t->storage);
    }
    if (!version_borrowed(t)) {
        version_decref(t->version);
    }
    if (t->retired) {
        for (int32_t i = 0; i < t->nretired; i++) {
            tl_storage_decref(t->retired[i]);
        }
        free(t->retired);
    }
    tl_tensor_decref(t->base); /* last: it may hold what t borrowed */
    if (t->sizes != t->inline_sizes) {
        free(t->sizes);
    }
    if (t->bundle) {
        tl_bundle_put(t->bundle);
    } else {
        tl_meta_put(TL_META_IMPL, t, sizeof *t);
    }
}

int64_t tl_tensor_refcount(const tl_tensor_impl *t)
{
    return atomic_load_explicit(&t->refcnt, memory_order_relaxed);
}

int tl_tensor_ndim(const tl_tensor_impl *t) { return t->ndim; }
const int64_t *tl_tensor_sizes(const tl_tensor_impl *t) { return t->sizes; }
const int64_t *tl_tensor_strides(const tl_tensor_impl *t)
{
    return t->strides;
}
int64_t tl_tensor_numel(const tl_tensor_impl *t) { return t->numel; }
int64_t tl_tensor_storage_offset(const tl_tensor_impl *t)
{
    return t->storage_offset;
}
tl_dtype tl_tensor_dtype(const tl_tensor_impl *t)
{
    return (tl_dtype)t->dtype;
}
tl_device tl_tensor_device(const tl_tensor_impl *t) { return t->device; }
uint32_t tl_tensor_flags(const tl_tensor_impl *t) { return t->flags; }
tl_storage *tl_tensor_storage(const tl_tensor_impl *t) { return t->storage; }
void *tl_tensor_data(const tl_tensor_impl *t) { return tl_impl_data(t); }

bool tl_tensor_is_contiguous(const tl_tensor_impl *t, tl_memory_format fmt)
{
    switch (fmt) {
    case TL_FORMAT_CHANNELS_LAST:
        return (t->flags & TL_FLAG_CHANNELS_LAST_CONTIGUOUS) != 0;
    case TL_FORMAT_CHANNELS_LAST_3D:
        return (t->flags & TL_FLAG_CHANNELS_LAST_3D_CONTIGUOUS) != 0;
    default:
        return (t->flags & TL_FLAG_CONTIGUOUS) != 0;
    }
}

bool tl_tensor_is_writable(const tl_tensor_impl *t)
{
    /* A lazy clone is a copy: writable over a read-only block (the first
     * write gives it a block of its own). */
    return !(t->flags & TL_FLAG_READONLY_VIEW) &&
           (!(t->storage->block->flags & TL_BLOCK_READONLY) ||
            (atomic_load_explicit(&t->storage->cow, memory_order_relaxed) &
             TL_COW_COPY));
}

int tl_tensor_check_writable(const tl_tensor_impl *t)
{
    if (tl_tensor_is_writable(t)) {
        /* Every write path passes here before it touches data: a
         * copy-on-write storage gets its own bytes now (Note
         * [Copy-on-write storages] in cow.c). */
        return tl_storage_cow_materialize(t->storage);
    }
    return tl_error(TL_ERR_READONLY,
                    "assignment destination is read-only (a %s tensor of "
                    "shape %s over %s memory): write into a copy instead "
                    "(t.clone() is writable)",
                    tl_dtype_table[t->dtype].name,
                    tl_fmt_list(0, t->ndim, t->sizes),
                    (t->storage->block->flags & TL_BLOCK_READONLY)
                        ? "read-only" : "a read-only view of writable");
}

/* Note [Storages shrunk under live views]
 * untyped_storage().resize_(n) may shrink a storage below what live views
 * of it reach (the block keeps its bytes: Note [Storage capacity]).  Such a
 * view must not touch data until the storage grows back, so every place
 * where data is reached (the iterator's set-up, exports, element access,
 * tolist, the kernels outside the iterator) goes through
 * tl_tensor_check_live, whose fast path is one comparison: a storage that
 * has never been smaller than its high-water size (nbytes_hw) cannot be
 * overhung by any view.  Only below it is the view's extent computed. */

/* Bytes of its storage that t reaches (0 for an empty tensor). */
static int64_t impl_extent_bytes(const tl_tensor_impl *t)
{
    if (t->numel == 0) {
        return 0;
    }
    int64_t hi = t->storage_offset;
    for (int d = 0; d < t->ndim; d++) {
        if (t->strides[d] > 0) {
            hi += (t->sizes[d] - 1) * t->strides[d];
        }
    }
    return (hi + 1) * tl_itemsize(t->dtype);
}

int tl_tensor_check_extent(const tl_tensor_impl *t)
{
    const tl_storage *s = t->storage;
    if (TL_LIKELY(s->nbytes >= s->nbytes_hw)) {
        return 0;
    }
    int64_t need = impl_extent_bytes(t);
    if (need <= s->nbytes) {
        return 0;
    }
    return tl_error(TL_ERR_RUNTIME,
                    "tensor of shape %s needs %" PRId64 " bytes of its "
                    "storage, but the storage was shrunk to %" PRId64
                    " bytes (untyped_storage().resize_()); grow the storage "
                    "back to at least %" PRId64 " bytes to use it",
                    tl_fmt_list(0, t->ndim, t->sizes), need, s->nbytes,
                    need);
}

int tl_tensor_check_live(const tl_tensor_impl *t)
{
    const tl_storage *s = t->storage;
    const tl_block *b = s->block;
    if (TL_LIKELY(!b->hooks) && TL_LIKELY(s->nbytes >= s->nbytes_hw)) {
        return 0;
    }
    int rc = b->hooks ? tl_block_check_live_as(b, "tensor") : 0;
    if (rc < 0) {
        return rc;
    }
    return tl_tensor_check_extent(t);
}

int tl_storage_check_live(const tl_storage *s)
{
    if (TL_LIKELY(!s->block->hooks)) {
        return 0;
    }
    return tl_block_check_live_as(s->block, "storage");
}

uint64_t tl_tensor_version(const tl_tensor_impl *t)
{
    return atomic_load_explicit(&t->version->value, memory_order_relaxed);
}

void tl_tensor_bump_version(tl_tensor_impl *t)
{
    atomic_fetch_add_explicit(&t->version->value, 1, memory_order_relaxed);
}

/* ---- resizing and rebinding --------------------------------------------- */

/* Note [Storage capacity]
 * A storage's block never shrinks.  Views made earlier may reach up to the
 * storage's size at the time they were made; if a shrink freed that memory
 * those views would read freed bytes (a class of bug PyTorch has had).  So
 * shrinking only lowers nbytes, and a block is replaced only by a larger
 * one: the block under a storage is always at least as large as anything a
 * view of it was ever allowed to reach. */
bool tl_storage_resizable(const tl_storage *s) { return s->resizable; }

int tl_storage_resize(tl_storage *s, int64_t nbytes)
{
    if (nbytes < 0) {
        return tl_error(TL_ERR_VALUE, "storage size must be non-negative, "
                        "got %" PRId64, nbytes);
    }
    if (nbytes == s->nbytes) {
        return 0;
    }
    if (tl_storage_check_live(s) < 0) { /* its bytes may be recycled */
        return tl_error_kind();
    }
    const int64_t capacity = (int64_t)s->block->nbytes - s->offset;
    bool exported = atomic_load(&s->exports) > 0;
    if (nbytes < s->nbytes) {
        if (exported) {
            return tl_error(TL_ERR_BUFFER,
                            "cannot shrink a storage of %" PRId64 " bytes to "
                            "%" PRId64 " while it is exported (a memoryview, "
                            "NumPy array or DLPack capsule still uses it): "
                            "release the export first",
                            s->nbytes, nbytes);
        }
        s->nbytes = nbytes;
        return 0;
    }
    if (nbytes <= capacity) {
        s->nbytes = nbytes;
        if (nbytes > s->nbytes_hw) {
            s->nbytes_hw = nbytes;
        }
        return 0;
    }
    if (!s->resizable) {
        return tl_error(TL_ERR_RUNTIME,
                        "cannot grow a storage that is not resizable (a "
                        "storage over external or shared memory of %" PRId64
                        " bytes, asked for %" PRId64 ")", s->nbytes, nbytes);
    }
    if (exported) {
        return tl_error(TL_ERR_BUFFER,
                        "cannot grow a storage from %" PRId64 " to %" PRId64
                        " bytes while it is exported: its memory would move; "
                        "release the export (the NumPy array, memoryview or "
                        "DLPack capsule) first, or resize a copy (t.clone())",
                        s->nbytes, nbytes);
    }
    tl_block *nb = tl_block_alloc(s->block->device,
                                  (tl_memkind)s->block->kind, (size_t)nbytes);
    if (!nb) {
        return tl_error_kind();
    }
    if (s->block->device.type == TL_DEVICE_CPU && s->nbytes > 0) {
        memcpy(nb->ptr, (char *)s->block->ptr + s->offset,
               (size_t)s->nbytes);
    } else if (s->nbytes > 0 &&
               tl_device_copy_blocks(nb, 0, s->block, (size_t)s->offset,
                                     (size_t)s->nbytes) < 0) {
        tl_block_decref(nb);
        return tl_error_kind();
    }
    tl_block *old = s->block;
    s->block = nb;
    s->offset = 0;
    s->nbytes = nbytes;
    if (nbytes > s->nbytes_hw) {
        s->nbytes_hw = nbytes;
    }
    atomic_store(&s->cow, 0); /* the new block is s's own */
    tl_block_decref(old);
    return 0;
}

static int check_metadata_change(const tl_tensor_impl *t, const char *what)
{
    if (!(t->flags & TL_FLAG_ALLOW_METADATA_CHANGE)) {
        return tl_error(TL_ERR_RUNTIME,
                        "%s is not allowed on a tensor whose layout is owned "
                        "elsewhere (allow_tensor_metadata_change is false: an "
                        "execution-plan buffer or a workspace tensor)", what);
    }
    return 0;
}

int tl_tensor_resize_(tl_tensor_impl *t, int ndim, const int64_t *sizes)
{
    int64_t strides[TL_MAX_DIMS];
    int64_t nbytes, need;
    const int64_t isz = tl_itemsize(t->dtype);
    if (check_metadata_change(t, "resize_()") < 0 ||
        tl_safe_numel_bytes(ndim, sizes, isz, NULL, &nbytes) < 0) {
        return tl_error_kind();
    }
    if (ndim == t->ndim &&
        memcmp(sizes, t->sizes, (size_t)ndim * sizeof(int64_t)) == 0) {
        /* As PyTorch: the same sizes leave the tensor as it is, strides
         * included (a transposed tensor stays transposed). */
        return 0;
    }
    if (tl_dense_strides(ndim, sizes, TL_FORMAT_CONTIGUOUS, strides) < 0) {
        return tl_error_kind();
    }
    if (tl_mul_overflow_i64(t->storage_offset, isz, &need) ||
        tl_add_overflow_i64(need, nbytes, &need)) {
        return tl_error(TL_ERR_OVERFLOW, "resize_: size overflows int64");
    }
    if (nbytes > 0 && need > t->storage->nbytes &&
        tl_storage_resize(t->storage, need) < 0) {
        return tl_error_kind();
    }
    if (tl_impl_set_sizes_strides(t, ndim, sizes, strides) < 0) {
        return TL_ERR_MEMORY;
    }
    t->memory_format = TL_FORMAT_CONTIGUOUS;
    tl_tensor_bump_version(t); /* an in-place op, as in PyTorch */
    return 0;
}

int tl_tensor_set_(tl_tensor_impl *t, tl_storage *s, int64_t storage_offset,
                   int ndim, const int64_t *sizes, const int64_t *strides)
{
    const int64_t isz = tl_itemsize(t->dtype);
    if (check_metadata_change(t, "set_()") < 0 ||
        tl_safe_numel_bytes(ndim, sizes, isz, NULL, NULL) < 0 ||
        tl_check_in_bounds(ndim, sizes, strides, storage_offset, isz,
                           s->nbytes) < 0) {
        return tl_error_kind();
    }
    if (!tl_device_eq(s->block->device, t->device)) {
        return tl_error(TL_ERR_RUNTIME, "set_: storage and tensor are on "
                        "different devices");
    }
    /* Keep the old sizes in case the array change fails. */
    tl_storage *old = t->storage;
    const bool old_borrowed = t->storage_borrowed;
    int64_t old_off = t->storage_offset;
    /* Views may borrow the old storage (Note [Views borrow from their
     * base]): then t keeps it until it dies.  Room first, so that a
     * failure changes nothing. */
    const bool retire = !old_borrowed && old != s &&
        atomic_load_explicit(&t->storage_lent, memory_order_relaxed);
    if (retire) {
        tl_storage **r = tl_fault_realloc(t->retired,
                                 (size_t)(t->nretired + 1) * sizeof *r);
        if (!r) {
            return tl_error(TL_ERR_MEMORY, "out of memory in set_");
        }
        t->retired = r;
    }
    tl_storage_incref(s);
    t->storage = s;
    t->storage_borrowed = false;
    t->storage_offset = storage_offset;
    if (tl_impl_set_sizes_strides(t, ndim, sizes, strides) < 0) {
        t->storage = old;
        t->storage_borrowed = old_borrowed;
        t->storage_offset = old_off;
        tl_storage_decref(s);
        return TL_ERR_MEMORY;
    }
    if (retire) {
        t->retired[t->nretired++] = old;
    }
    else if (!old_borrowed) {
        tl_storage_decref(old);
    }
    tl_tensor_bump_version(t); /* an in-place op, as in PyTorch */
    return 0;
}
