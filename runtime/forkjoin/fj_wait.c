/*
 * fj_wait.c - node-local waiting: spin for fj.spin pause iterations (short
 * by default: on a small machine a spinning thread takes the core another
 * node's compute thread needs), then sleep on a futex.
 *
 * Layer: forkjoin.  Waits: application threads.  fj_wake_all: any thread,
 * including active-message handlers.
 */
#include "fj_wait.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fj_internal.h"

static void futex_wait(_Atomic uint32_t *word, uint32_t value)
{
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

void fj_wake_all(_Atomic uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void fj_wait_change(_Atomic uint32_t *word, uint32_t value)
{
    for (int i = 0; i < fj.spin; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) != value)
            return;
        fj_cpu_relax();
    }
    while (atomic_load_explicit(word, memory_order_acquire) == value)
        futex_wait(word, value);
}

void fj_wait_at_least(_Atomic uint32_t *word, uint32_t value)
{
    uint32_t seen;
    for (int i = 0; i < fj.spin; i++) {
        if ((int32_t)(atomic_load_explicit(word, memory_order_acquire) -
                      value) >= 0)
            return;
        fj_cpu_relax();
    }
    while ((int32_t)((seen = atomic_load_explicit(word,
                                                  memory_order_acquire)) -
                     value) < 0)
        futex_wait(word, seen);
}
