/* tensorlib/cow.h — copy-on-write (lazy) clones.
 *
 * A lazy clone is semantically a copy: its own storage object and version
 * counter, no base, and shares_memory with its source is false.  It shares
 * the source's memory block until either side is first written: every
 * write path goes through tl_tensor_check_writable, which materialises a
 * copy-on-write storage (Note [Copy-on-write storages] in csrc/core/cow.c)
 * before any kernel runs or the GIL is released; exports materialise first
 * too (the consumer may write).  Reads and data pointers do not. */
#ifndef TENSORLIB_COW_H
#define TENSORLIB_COW_H

#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

/* A lazy clone of t (same sizes, strides and storage offset).  Copies at
 * once when sharing is not safe: t's memory is carved from a workspace
 * arena, t is an execution-plan buffer, t's storage is exported, or its
 * block is shared with anything but other lazy clones (a sub-storage, a
 * running kernel).  TL_ERR_RUNTIME for a tensor whose workspace was reset.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_tensor_lazy_clone(tl_tensor_impl *t);

/* Gives s a private block if it shares one copy-on-write: the last holder
 * of tensorlib-allocated memory keeps the block without copying; borrowed
 * memory (external deleter) is always copied.  A no-op for other
 * storages (one atomic load).  Returns 0 or TL_ERR_MEMORY (s unchanged). */
TL_API int tl_storage_cow_materialize(tl_storage *s);

/* What an export (buffer protocol, NumPy, DLPack) calls first: materialises
 * s unless nothing can ever write through it (a read-only block that s
 * does not own as a copy).  Returns 0 or an error. */
TL_API int tl_storage_cow_prepare_export(tl_storage *s);

/* Whether s shares its block copy-on-write now (tests, explain()). */
TL_API bool tl_storage_is_cow(const tl_storage *s);

TL_EXTERN_C_END

#endif /* TENSORLIB_COW_H */
