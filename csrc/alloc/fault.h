/* csrc/alloc/fault.h — fault injection: the one counter through which every
 * allocation tensorlib makes for itself passes (data blocks, metadata
 * structs, size arrays, iterator state, the Python objects of its types),
 * so that a test can make the n-th of them fail (Note [Fault injection] in
 * fault.c).  Internal: the core, the allocators and csrc/python include it;
 * the test hook is tensorlib._C._testing.fail_allocation. */
#ifndef TL_ALLOC_FAULT_H
#define TL_ALLOC_FAULT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Non-zero while a fault is armed; read relaxed on every allocation. */
extern atomic_int tl_fault_armed_;

/* Counts one allocation; true when it is the one armed to fail (the
 * counter then disarms itself). */
bool tl_fault_hit_slow(void);

/* One relaxed load when nothing is armed. */
static inline bool tl_fault_hit(void)
{
    if (__builtin_expect(
            atomic_load_explicit(&tl_fault_armed_, memory_order_relaxed) == 0,
            1)) {
        return false;
    }
    return tl_fault_hit_slow();
}

/* Arms the counter so that the n-th allocation from now (0-based) fails
 * once; n < 0 disarms it.  Resets the count of allocations seen. */
void tl_fault_arm(int64_t n);

/* Allocations counted since the last tl_fault_arm (while armed or after
 * firing), and whether the armed fault has fired. */
int64_t tl_fault_count(void);
bool tl_fault_fired(void);

/* malloc/calloc/realloc through the counter: NULL (nothing allocated, and
 * for realloc the old block untouched) when the fault fires.  Errors are
 * the caller's to record, as after the libc calls they replace.
 * Returns: owned pointer (free() it), or NULL. */
void *tl_fault_malloc(size_t n);
void *tl_fault_calloc(size_t count, size_t n);
void *tl_fault_realloc(void *p, size_t n);

#endif
