/* csrc/alloc/pool_policy.c — the CUDA caching pool's size policy
 * (tl_pool_config_cuda): plain numbers, no device call.  It is kept in the
 * alloc layer, not in csrc/cuda, because the CPU-only library publishes it
 * (csrc/cuda is an optional plug-in, and the C tests build stream pools with
 * this policy over a fake device to check the CUDA segment rules without a
 * GPU).  csrc/cuda/cuda_module.c passes it to tl_pool_new_streams.  The CPU
 * pool's policy lives with its owner, cpu_allocator.c (it reads
 * TENSORLIB_CPU_CACHE_LIMIT); what the fields mean is Note [Caching pool
 * policy] in pool.c. */
#include <stdint.h>

#include "tensorlib/alloc.h"

/* PyTorch's CUDA segment policy: 512-byte granule; requests <= 1 MiB share
 * 2 MiB segments, <= 10 MiB share 20 MiB segments, larger ones get a
 * segment of their size rounded up to 2 MiB; the cache is unbounded (device
 * memory is given back by empty_cache or on an allocation failure). */
tl_pool_config tl_pool_config_cuda(void)
{
    tl_pool_config c;

    c.granule = 512;
    c.small_limit = (size_t)1 << 20;
    c.small_segment = (size_t)2 << 20;
    c.medium_limit = (size_t)10 << 20;
    c.medium_segment = (size_t)20 << 20;
    c.large_round = (size_t)2 << 20;
    c.cache_limit = SIZE_MAX;
    return c;
}
