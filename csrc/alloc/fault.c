/* csrc/alloc/fault.c — the fault-injection counter (fault.h): the single
 * place where "the n-th allocation fails" is decided, and the malloc family
 * wrappers that every metadata allocation of the core and the allocators
 * goes through. */
#include <stdlib.h>

#include "fault.h"

/* Note [Fault injection]
 * Tests arm the counter with n (tensorlib._C._testing.fail_allocation);
 * each allocation site asks tl_fault_hit() first and behaves exactly as if
 * its allocator had returned NULL when the answer is true.  The choke
 * points: tl_block_alloc_from (tensor data from every allocator, the pool
 * and workspace arenas included), tl_fault_malloc/calloc/realloc (every
 * metadata struct of csrc/core and csrc/alloc: storages, impls, size
 * arrays, version counters, iterators, plans, generators, block records,
 * allocator bookkeeping), the tp_alloc of every tensorlib type and the
 * PyObject_New / PyMem_Malloc sites of csrc/python (csrc/python/fault_py.h).
 * One fault fires per arming, so a sweep over n = 0, 1, 2, ... visits every
 * allocation of a call once.  Unarmed, the cost is one relaxed load. */

atomic_int tl_fault_armed_;
static atomic_llong remaining; /* allocations to let through before failing */
static atomic_llong seen;
static atomic_int fired;

bool tl_fault_hit_slow(void)
{
    atomic_fetch_add_explicit(&seen, 1, memory_order_relaxed);
    if (atomic_fetch_sub_explicit(&remaining, 1, memory_order_relaxed) != 0) {
        return false;
    }
    atomic_store_explicit(&tl_fault_armed_, 0, memory_order_relaxed);
    atomic_store_explicit(&fired, 1, memory_order_relaxed);
    return true;
}

void tl_fault_arm(int64_t n)
{
    atomic_store_explicit(&tl_fault_armed_, 0, memory_order_relaxed);
    atomic_store_explicit(&seen, 0, memory_order_relaxed);
    atomic_store_explicit(&fired, 0, memory_order_relaxed);
    if (n >= 0) {
        atomic_store_explicit(&remaining, n, memory_order_relaxed);
        atomic_store_explicit(&tl_fault_armed_, 1, memory_order_seq_cst);
    }
}

int64_t tl_fault_count(void)
{
    return atomic_load_explicit(&seen, memory_order_relaxed);
}

bool tl_fault_fired(void)
{
    return atomic_load_explicit(&fired, memory_order_relaxed) != 0;
}

void *tl_fault_malloc(size_t n)
{
    return tl_fault_hit() ? NULL : malloc(n);
}

void *tl_fault_calloc(size_t count, size_t n)
{
    return tl_fault_hit() ? NULL : calloc(count, n);
}

void *tl_fault_realloc(void *p, size_t n)
{
    return tl_fault_hit() ? NULL : realloc(p, n);
}
