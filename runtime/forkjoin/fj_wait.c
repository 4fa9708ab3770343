/*
 * fj_wait.c - node-local waiting: spin for fj.spin pause iterations (short
 * by default: on a small machine a spinning thread takes the core another
 * node's compute thread needs), then sleep on a futex.
 *
 * fj_wake_all makes the futex system call only when some thread of the
 * process is asleep or about to be (sleepers): with spinning waiters - the
 * common case with a thread per core - a barrier or a reduction then costs
 * no system call.  The waiter counts itself before its last look at the
 * word, the waker looks at the count after its store (both sequentially
 * consistent), so one of them sees the other.
 *
 * The _about variants record the wait on the activity board (a few
 * stores to the thread's own entry), only once the word did not already
 * say go.
 *
 * Layer: forkjoin.  Waits: application threads.  fj_wake_all: any thread,
 * including active-message handlers.
 */
#include "fj_wait.h"

#include "fj_internal.h"
#include "fj_partials.h"
#include "sys_activity.h"

/* Spin steps between yields of the CPU (several nodes on one machine, or
 * OMP_WAIT_POLICY=active, put more threads than cores). */
enum { YIELD_EVERY = 1024 };

static _Atomic int sleepers;

static void sleep_while(_Atomic uint32_t *word, uint32_t value)
{
    atomic_fetch_add(&sleepers, 1);
    if (atomic_load(word) == value)
        dsm_futex_wait(word, value, NULL);
    atomic_fetch_sub(&sleepers, 1);
}

void fj_wake_all(_Atomic uint32_t *word)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&sleepers) > 0)
        dsm_futex_wake(word, DSM_FUTEX_ALL);
}

void fj_wait_change(_Atomic uint32_t *word, uint32_t value)
{
    fj_partials_flush();
    for (int i = 0; i < fj.spin; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) != value)
            return;
        dsm_spin_step(i, YIELD_EVERY);
    }
    while (atomic_load_explicit(word, memory_order_acquire) == value)
        sleep_while(word, value);
}

void fj_wait_at_least(_Atomic uint32_t *word, uint32_t value)
{
    fj_partials_flush();
    uint32_t seen;
    for (int i = 0; i < fj.spin; i++) {
        if ((int32_t)(atomic_load_explicit(word, memory_order_acquire) -
                      value) >= 0)
            return;
        dsm_spin_step(i, YIELD_EVERY);
    }
    while ((int32_t)((seen = atomic_load_explicit(word,
                                                  memory_order_acquire)) -
                     value) < 0)
        sleep_while(word, seen);
}

static int reached(_Atomic uint32_t *word, uint32_t value)
{
    return (int32_t)(atomic_load_explicit(word, memory_order_acquire) -
                     value) >= 0;
}

void fj_wait_change_about(_Atomic uint32_t *word, uint32_t value,
                          const char *what, unsigned about, uint64_t arg,
                          uint64_t arg2)
{
    if (atomic_load_explicit(word, memory_order_acquire) != value)
        return;
    dsm_activity_saved_t saved;
    dsm_activity_wait_about(&saved, what, -1, about, arg, arg2);
    fj_wait_change(word, value);
    dsm_activity_end(&saved);
}

void fj_wait_at_least_about(_Atomic uint32_t *word, uint32_t value,
                            const char *what, unsigned about, uint64_t arg,
                            uint64_t arg2)
{
    if (reached(word, value))
        return;
    dsm_activity_saved_t saved;
    dsm_activity_wait_about(&saved, what, -1, about, arg, arg2);
    fj_wait_at_least(word, value);
    dsm_activity_end(&saved);
}
