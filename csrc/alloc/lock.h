/* csrc/alloc/lock.h — the pools' lock: a mutex of one atomic int that
 * sleeps on a futex (Linux) when contended.  Internal to tensorlib. */
#ifndef TENSORLIB_CSRC_ALLOC_LOCK_H
#define TENSORLIB_CSRC_ALLOC_LOCK_H
#ifndef TL_BUILDING_LIB
#error "csrc/alloc/lock.h is internal to tensorlib"
#endif

#include <stdatomic.h>

/* Note [Pool lock]
 * ~~~~~~~~~~~~~~~~
 * Every allocation and free of a pool takes its lock once.  Uncontended,
 * glibc's pthread_mutex_lock + unlock cost about 55 instructions (type
 * dispatch, owner and count bookkeeping, two calls into libc); the pool
 * needs none of that, so it uses the three-state futex mutex of Ulrich
 * Drepper's "Futexes Are Tricky" (mutex 3):
 *
 *   state 0 free, 1 held, 2 held and someone may sleep on it;
 *   acquire: CAS 0 -> 1 (acquire order); on failure set the state to 2
 *            by exchange and sleep on the futex while the value seen was
 *            not 0 (each wake-up exchanges 2 in again, so a later release
 *            knows to wake the next sleeper);
 *   release: exchange 0 in (release order); if the old value was 2, wake
 *            one sleeper.
 *
 * The fast paths are one locked instruction each, inlined.  Before
 * sleeping, acquire spins briefly (a pool's critical sections are short
 * unless a raw allocation maps memory).  It is not recursive, has no owner
 * and no error checking, as the pool never needed them; pthread_atfork
 * handlers take and release it as they did the pthread mutex (Note
 * [Caching pool policy], "Locking").  ThreadSanitizer sees the atomics'
 * orders, so it still knows what the lock orders.  Without futexes (not
 * Linux) the slow path yields instead of sleeping. */

typedef struct tl_lock {
    atomic_int state;
} tl_lock;

#define TL_LOCK_INIT {0}

/* The contended halves, in pool.c. */
void tl_lock_acquire_slow(tl_lock *l, int seen);
void tl_lock_wake(tl_lock *l);

static inline void tl_lock_init(tl_lock *l)
{
    atomic_init(&l->state, 0);
}

static inline void tl_lock_acquire(tl_lock *l)
{
    int seen = 0;

    if (__builtin_expect(!atomic_compare_exchange_strong_explicit(
                             &l->state, &seen, 1, memory_order_acquire,
                             memory_order_relaxed),
                         0)) {
        tl_lock_acquire_slow(l, seen);
    }
}

static inline void tl_lock_release(tl_lock *l)
{
    if (__builtin_expect(atomic_exchange_explicit(&l->state, 0,
                                                  memory_order_release) == 2,
                         0)) {
        tl_lock_wake(l);
    }
}

#endif /* TENSORLIB_CSRC_ALLOC_LOCK_H */
