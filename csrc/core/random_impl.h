/* csrc/core/random_impl.h — internal: the generator struct behind
 * tensorlib/random.h.  Not part of the public API. */
#ifndef TENSORLIB_CSRC_CORE_RANDOM_IMPL_H
#define TENSORLIB_CSRC_CORE_RANDOM_IMPL_H
#ifndef TL_BUILDING_LIB
#error "csrc/core/random_impl.h is internal to tensorlib"
#endif

#include <pthread.h>
#include <stdatomic.h>

#include "tensorlib/random.h"

/* A Philox generator (Note [Counter-based random numbers] in
 * tensorlib/random.h).  seed, initial_seed and offset change only under
 * mu; the default generators are never freed. */
struct tl_generator {
    atomic_llong refcnt;
    pthread_mutex_t mu;
    uint64_t seed;    /* the Philox key: low word k0, high word k1 */
    uint64_t offset;  /* Philox blocks handed out since the seed was set */
    tl_device device; /* whose tensors it fills */
    bool is_default;  /* a process-wide default: refcounting is a no-op */
};

#endif /* TENSORLIB_CSRC_CORE_RANDOM_IMPL_H */
