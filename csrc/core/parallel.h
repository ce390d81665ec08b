/* csrc/core/parallel.h — internal: the thread pool behind tl_parallel_for
 * and tl_parallel_chunks (public in tensorlib/iter.h), and the GIL-release
 * hooks the iterator calls around big loops.  Not part of the public
 * API. */
#ifndef TENSORLIB_CSRC_CORE_PARALLEL_H
#define TENSORLIB_CSRC_CORE_PARALLEL_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/parallel.h is internal to tensorlib"
#endif

#include "tensorlib/iter.h"

/* True on a pool worker, or on a caller while it runs its share of a
 * parallel loop: nested parallel loops then run serially. */
bool tl_parallel_in_region(void);

/* Calls the release hook if one is set.  Returns: its token (NULL when no
 * hook). */
void *tl_parallel_release(void);
/* Calls the reacquire hook with token, if one is set. */
void tl_parallel_reacquire(void *token);

#endif /* TENSORLIB_CSRC_CORE_PARALLEL_H */
