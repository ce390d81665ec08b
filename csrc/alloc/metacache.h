/* csrc/alloc/metacache.h — per-thread caches of freed tensor metadata
 * structs (Note [Metadata caches] in metacache.c).  Internal. */
#ifndef TENSORLIB_CSRC_ALLOC_METACACHE_H
#define TENSORLIB_CSRC_ALLOC_METACACHE_H
#ifndef TL_BUILDING_LIB
#error "csrc/alloc/metacache.h is internal to tensorlib"
#endif

#include <stddef.h>

/* What a cache slot holds; every caller of a slot uses one size. */
enum {
    TL_META_IMPL,   /* a tl_tensor_impl of its own (views) */
    TL_META_BUNDLE, /* a tensor bundle (Note [Metadata bundles]) */
    TL_META_NSLOTS
};

/* n bytes for a struct of the slot's kind: a cached one of this thread's,
 * else malloc'd.  Counted by the fault hook like tl_fault_malloc.
 * Returns: owned pointer (give it back with tl_meta_put, or free), or
 * NULL (nothing recorded: the caller reports). */
void *tl_meta_get(int slot, size_t n);

/* Gives back p, n bytes got from tl_meta_get(slot, n) (or malloc): kept
 * in this thread's cache when there is room, else freed. */
void tl_meta_put(int slot, void *p, size_t n);

/* Frees every struct this thread's caches hold (tests). */
void tl_meta_flush(void);

#endif /* TENSORLIB_CSRC_ALLOC_METACACHE_H */
