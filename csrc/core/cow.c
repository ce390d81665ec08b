/* csrc/core/cow.c — copy-on-write (lazy) clones (tensorlib/cow.h): making
 * one, and materialising a storage that shares its block copy-on-write
 * when it is first written or exported.  It owns the TL_COW_* bits of
 * storages and the one lock that orders their changes; the bytes it
 * copies come from the allocator of the block's (device, kind). */
#include <pthread.h>
#include <string.h>

#include "device_impl.h"
#include "tensor_impl.h"
#include "tensorlib/cow.h"
#include "tensorlib/mapped.h"
#include "tensorlib/ops.h"

/* Note [Copy-on-write storages]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A lazy clone is a new storage over the same block, byte offset and size
 * as its source's storage; both get TL_COW_SHARED, the clone also
 * TL_COW_COPY (it is a copy, so it is writable even over read-only
 * memory).  Invariant: a block that a TL_COW_SHARED storage refers to is
 * referenced only by TL_COW_SHARED storages and by transient pins (running
 * kernels).  lazy_clone keeps it by copying at once unless its source's
 * block has exactly one reference (the source storage) or is already in
 * a copy-on-write group; tl_storage_sub materialises its storage first;
 * exports materialise before handing memory out.
 *
 * Every write path calls tl_tensor_check_writable before it touches the
 * data (and before the GIL is released), which calls
 * tl_storage_cow_materialize: under `cow_mu`, a storage whose block has
 * one reference and an owner allocator (memory tensorlib allocated) simply
 * drops its bits and keeps the bytes; otherwise it copies the whole
 * capacity of its range (Note [Storage capacity] in tensor.c: views may
 * reach past nbytes) into a fresh block, outside the lock with a reference
 * of its own on the old block (so nobody can take that block over while
 * it is read), and swaps it in if nobody materialised the storage
 * meanwhile.  Borrowed memory (NumPy, DLPack, a file) is always copied:
 * its owner may still see it.  Two threads writing the two sides of a
 * clone at once thus each end with a private block (at worst both copy).
 *
 * Reads and data pointers never materialise (PyTorch's data_ptr() does):
 * a copy-on-write storage's bytes are those of its source until a write.
 * A clone of workspace-arena memory copies at once (a reset would recycle
 * the bytes under it), as does a clone of an execution-plan buffer or of
 * an exported storage (the consumer may write).  Borrowed memory that
 * its owner may write behind our back (a NumPy array, a DLPack producer,
 * a file mapped "r+") is copied at once too: only memory tensorlib
 * allocated and private file mappings ("r", "c") are shared lazily; a
 * write to either side of those then copies (a mapping is never taken
 * over: other tensors of the file may see it). */

static pthread_mutex_t cow_mu = PTHREAD_MUTEX_INITIALIZER;

static unsigned cow_bits(const tl_storage *s)
{
    return atomic_load_explicit(&((tl_storage *)s)->cow,
                                memory_order_acquire);
}

bool tl_storage_is_cow(const tl_storage *s)
{
    return (cow_bits(s) & TL_COW_SHARED) != 0;
}

/* Returns: a new block holding a copy of the `nbytes` bytes at `offset`
 * of b, from the allocator of b's device and kind (Default for borrowed
 * memory), or NULL. */
static tl_block *copy_block(tl_block *b, size_t offset, size_t nbytes)
{
    tl_memkind kind = b->owner ? (tl_memkind)b->kind : TL_MEMKIND_DEFAULT;
    tl_block *nb = tl_block_alloc(b->device, kind, nbytes);
    if (!nb) {
        return NULL;
    }
    if (nbytes == 0) {
        return nb;
    }
    if (b->device.type == TL_DEVICE_CPU) {
        tl_block_sync(b);
        memcpy(nb->ptr, (char *)b->ptr + offset, nbytes);
    } else if (tl_device_copy_blocks(nb, 0, b, offset, nbytes) < 0) {
        tl_block_decref(nb);
        return NULL;
    }
    return nb;
}

int tl_storage_cow_materialize(tl_storage *s)
{
    if (TL_LIKELY(!(cow_bits(s) & TL_COW_SHARED))) {
        return 0;
    }
    pthread_mutex_lock(&cow_mu);
    unsigned bits = cow_bits(s);
    if (!(bits & TL_COW_SHARED)) {
        pthread_mutex_unlock(&cow_mu);
        return 0;
    }
    tl_block *b = s->block;
    if (b->owner && !tl_block_has_owner_hooks(b) &&
        tl_block_refcount(b) == 1) {
        /* The last holder of tensorlib's memory takes it over. */
        atomic_store_explicit(&s->cow, 0, memory_order_release);
        pthread_mutex_unlock(&cow_mu);
        return 0;
    }
    const size_t offset = (size_t)s->offset;
    const size_t cap = b->nbytes - offset;
    tl_block_incref(b);
    pthread_mutex_unlock(&cow_mu);

    tl_block *nb = copy_block(b, offset, cap);
    if (!nb) {
        tl_block_decref(b);
        return tl_error_kind();
    }
    /* A source that could not be written stays read-only as a copy. */
    if ((b->flags & TL_BLOCK_READONLY) && !(bits & TL_COW_COPY)) {
        nb->flags |= TL_BLOCK_READONLY;
    }
    pthread_mutex_lock(&cow_mu);
    tl_block *drop = nb;
    if ((cow_bits(s) & TL_COW_SHARED) && s->block == b) {
        s->block = nb;
        s->offset = 0;
        atomic_store_explicit(&s->cow, 0, memory_order_release);
        drop = b; /* s's reference to the old block */
    }
    pthread_mutex_unlock(&cow_mu);
    tl_block_decref(drop);
    tl_block_decref(b); /* ours */
    return 0;
}

int tl_storage_cow_prepare_export(tl_storage *s)
{
    unsigned bits = cow_bits(s);
    if (TL_LIKELY(!(bits & TL_COW_SHARED))) {
        return 0;
    }
    if ((s->block->flags & TL_BLOCK_READONLY) && !(bits & TL_COW_COPY)) {
        return 0; /* nothing can ever write through s */
    }
    return tl_storage_cow_materialize(s);
}

tl_tensor_impl *tl_tensor_lazy_clone(tl_tensor_impl *t)
{
    if (tl_tensor_check_live(t) < 0) {
        return NULL;
    }
    tl_storage *s = t->storage;
    tl_block *b = s->block;
    /* Memory someone else may write behind our checks (NumPy, DLPack, a
     * shared file mapping) is copied at once; only tensorlib's own memory
     * and private file mappings are shared lazily. */
    bool eager = tl_block_has_owner_hooks(b) ||
                 (b->owner == NULL && !tl_block_is_private_mapping(b)) ||
                 !(t->flags & TL_FLAG_ALLOW_METADATA_CHANGE) ||
                 atomic_load(&s->exports) > 0 ||
                 (cow_bits(s) & TL_COW_NEVER);
    tl_storage *ns = NULL;
    if (!eager) {
        pthread_mutex_lock(&cow_mu);
        b = s->block;
        if ((cow_bits(s) & TL_COW_SHARED) || tl_block_refcount(b) == 1) {
            ns = tl_storage_from_block(b, s->offset, s->nbytes);
            if (ns) {
                ns->resizable = s->resizable;
                atomic_fetch_or(&s->cow, TL_COW_SHARED);
                atomic_store(&ns->cow, TL_COW_SHARED | TL_COW_COPY);
            }
        } else {
            eager = true;
        }
        pthread_mutex_unlock(&cow_mu);
        if (!eager && !ns) {
            return NULL;
        }
    }
    if (eager) {
        tl_tensor_impl *c = tl_op_clone(t, TL_FORMAT_PRESERVE);
        return c;
    }
    tl_tensor_impl *r = tl_tensor_new(ns, t->storage_offset, t->ndim,
                                      t->sizes, t->strides,
                                      (tl_dtype)t->dtype);
    tl_storage_decref(ns);
    if (r) {
        r->memory_format = t->memory_format;
    }
    return r;
}
