/* csrc/alloc/lock.c — the contended halves of the pools' lock (Note [Pool
 * lock] in lock.h). */
#include "lock.h"

#include <sched.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define SPINS 100

static void pause_once(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Sleeps while l's state is still 2 (or returns at once if it changed). */
static void sleep_on(tl_lock *l)
{
#if defined(__linux__)
    (void)syscall(SYS_futex, (int *)&l->state, FUTEX_WAIT_PRIVATE, 2, NULL,
                  NULL, 0);
#else
    (void)l;
    sched_yield();
#endif
}

void tl_lock_acquire_slow(tl_lock *l, int seen)
{
    /* Spin while a holder is likely to finish soon. */
    for (int i = 0; i < SPINS && seen == 1; i++) {
        pause_once();
        seen = atomic_load_explicit(&l->state, memory_order_relaxed);
        if (seen == 0 &&
            atomic_compare_exchange_strong_explicit(
                &l->state, &seen, 1, memory_order_acquire,
                memory_order_relaxed)) {
            return;
        }
    }
    /* Mark it contended; whoever holds it wakes one sleeper on release. */
    if (seen != 2) {
        seen = atomic_exchange_explicit(&l->state, 2, memory_order_acquire);
    }
    while (seen != 0) {
        sleep_on(l);
        seen = atomic_exchange_explicit(&l->state, 2, memory_order_acquire);
    }
}

void tl_lock_wake(tl_lock *l)
{
#if defined(__linux__)
    (void)syscall(SYS_futex, (int *)&l->state, FUTEX_WAKE_PRIVATE, 1, NULL,
                  NULL, 0);
#else
    (void)l;
#endif
}
