/* csrc/alloc/alloc_internal.h — internal: the small helpers every
 * allocator file (and core's planner) shares, each defined once here: the
 * alignment limit and its check, power-of-two tests and the page size.
 * Not part of the public API. */
#ifndef TENSORLIB_CSRC_ALLOC_ALLOC_INTERNAL_H
#define TENSORLIB_CSRC_ALLOC_ALLOC_INTERNAL_H
#ifndef TL_BUILDING_LIB
#error "csrc/alloc/alloc_internal.h is internal to tensorlib"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#include "tensorlib/status.h"

/* The largest alignment any allocator hands out (bytes): one page. */
#define TL_MAX_ALIGNMENT 4096

static inline bool tl_is_pow2(size_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* 0 when alignment is a power of two from 1 to TL_MAX_ALIGNMENT, else
 * TL_ERR_VALUE recorded with the message every allocator gives. */
static inline int tl_check_alignment(size_t alignment)
{
    if (!tl_is_pow2(alignment) || alignment > TL_MAX_ALIGNMENT) {
        return tl_error(TL_ERR_VALUE,
                        "alignment %zu is not a power of two from 1 to %d",
                        alignment, TL_MAX_ALIGNMENT);
    }
    return 0;
}

/* The system's page size (bytes; 4096 when it cannot be read).  glibc's
 * sysconf is a read here, not a system call. */
static inline size_t tl_page_bytes(void)
{
    long v = sysconf(_SC_PAGESIZE);

    return v > 0 ? (size_t)v : 4096;
}

#endif /* TENSORLIB_CSRC_ALLOC_ALLOC_INTERNAL_H */
