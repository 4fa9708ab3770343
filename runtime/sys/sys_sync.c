/*
 * sys_sync.c - futex wait and wake, the futex mutex and the node-local
 * barrier's waits (sys_sync.h).
 *
 * Layer: sys.  Async-signal-safe (atomics and the futex system call).
 */
#include "sys_sync.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Attempts of dsm_mutex_lock before it sleeps: sections under these
 * mutexes are a few hundred instructions, so a holder that is running
 * leaves within them; one that was preempted is better slept on. */
enum { MUTEX_SPINS = 64 };

void dsm_futex_wait(_Atomic uint32_t *word, uint32_t value,
                    const struct timespec *timeout)
{
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, timeout, NULL, 0);
}

void dsm_futex_wake(_Atomic uint32_t *word, int count)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

void dsm_mutex_lock(dsm_mutex_t *m)
{
    uint32_t c = 0;
    for (int spin = 0; spin < MUTEX_SPINS; spin++) {
        c = 0;
        if (atomic_compare_exchange_weak_explicit(m, &c, 1,
                memory_order_acquire, memory_order_relaxed))
            return;
        dsm_cpu_relax();
    }
    if (c != 2)
        c = atomic_exchange_explicit(m, 2, memory_order_acquire);
    while (c != 0) {
        dsm_futex_wait(m, 2, NULL);
        c = atomic_exchange_explicit(m, 2, memory_order_acquire);
    }
}

int dsm_mutex_trylock(dsm_mutex_t *m)
{
    uint32_t c = 0;
    return atomic_compare_exchange_strong_explicit(m, &c, 1,
            memory_order_acquire, memory_order_relaxed);
}

void dsm_mutex_unlock(dsm_mutex_t *m)
{
    if (atomic_exchange_explicit(m, 0, memory_order_release) == 2)
        dsm_futex_wake(m, 1);
}

/* A sleeper counts itself before its last look at the generation and the
 * releaser looks at the count after its store (both sequentially
 * consistent), so one of them sees the other: no lost wake-up, and no
 * system call when every waiter spins. */
void dsm_local_barrier_wait(dsm_local_barrier_t *b, uint32_t gen, int spins)
{
    for (int i = 0; i < spins; i++) {
        if (dsm_local_barrier_passed(b, gen))
            return;
        dsm_spin_step(i, 1024);
    }
    while (!dsm_local_barrier_passed(b, gen)) {
        atomic_fetch_add(&b->sleepers, 1);
        if (atomic_load(&b->gen) == gen)
            dsm_futex_wait(&b->gen, gen, NULL);
        atomic_fetch_sub(&b->sleepers, 1);
    }
}

void dsm_local_barrier_release(dsm_local_barrier_t *b, uint32_t gen)
{
    atomic_store(&b->gen, gen + 1);
    if (atomic_load(&b->sleepers) > 0)
        dsm_futex_wake(&b->gen, DSM_FUTEX_ALL);
}
