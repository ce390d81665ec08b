/* tensorlib/mapped.h — memory-mapped files: one refcounted mapping of a
 * whole file, and memory blocks over byte ranges of it.
 *
 * A block over a mapping has an external deleter that drops its
 * reference on the mapping (so the file is unmapped when the last block,
 * and with it the last tensor, view or export, goes), memory kind
 * HostPageable, and is read-only for TL_MAP_READ.  Nothing is read from
 * the file until a page is touched.  The bytes mapped now are reported by
 * tl_registry_stats as mapped_bytes (CPU, all kinds or HostPageable),
 * apart from every allocator's counts.
 *
 * Deleting the file while it is mapped is harmless (the pages stay);
 * truncating it makes touching the lost pages raise SIGBUS, as with
 * NumPy's memmap: do not truncate a file that tensors still map. */
#ifndef TENSORLIB_MAPPED_H
#define TENSORLIB_MAPPED_H

#include "tensorlib/alloc.h"
#include "tensorlib/base.h"

TL_EXTERN_C_BEGIN

typedef enum tl_map_mode {
    TL_MAP_READ = 0,   /* "r": read-only pages; blocks are read-only */
    TL_MAP_COPY = 1,   /* "c": private copy-on-write pages */
    TL_MAP_SHARED = 2, /* "r+": writes go through to the file */
} tl_map_mode;

typedef struct tl_mapping tl_mapping;

/* Maps all of the file at path.  Errors: TL_ERR_VALUE for an empty file,
 * a file that is not a regular file, or a bad mode; TL_ERR_RUNTIME naming
 * the path and the system's reason when open or mmap fail.
 * Returns: new reference, or NULL. */
TL_API tl_mapping *tl_mapping_open(const char *path, tl_map_mode mode);

TL_API void tl_mapping_incref(tl_mapping *m);
/* Unmaps when the last reference goes.  No-op on NULL. */
TL_API void tl_mapping_decref(tl_mapping *m);

/* The file's size when it was mapped, in bytes. */
TL_API size_t tl_mapping_size(const tl_mapping *m);
/* Returns: borrowed pointer to byte 0 (valid while m lives). */
TL_API void *tl_mapping_data(const tl_mapping *m);
TL_API tl_map_mode tl_mapping_mode(const tl_mapping *m);

/* A block over bytes [offset, offset + nbytes) of m, which it keeps alive
 * (a reference of its own).  Errors: TL_ERR_VALUE when the range is not
 * inside the file.  Returns: new reference, or NULL. */
TL_API tl_block *tl_mapping_block(tl_mapping *m, size_t offset,
                                  size_t nbytes);

/* Whether b is a block over a mapping made with TL_MAP_READ or
 * TL_MAP_COPY: memory nothing but tensorlib can write (copy-on-write
 * clones may share it; csrc/core/cow.c). */
TL_API bool tl_block_is_private_mapping(const tl_block *b);

/* Bytes of every file mapped now by this process's tensorlib. */
TL_API int64_t tl_mapped_bytes(void);

TL_EXTERN_C_END

#endif /* TENSORLIB_MAPPED_H */
