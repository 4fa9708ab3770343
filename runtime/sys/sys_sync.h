/*
 * sys_sync.h - the node-local synchronisation primitives every layer
 * above uses: a CPU relax hint, a spin step that yields now and then,
 * futex wait and wake, a futex mutex (spin briefly, then sleep) and the
 * node-local barrier (arrive, the last one does the node's part, release).
 * One implementation, so that a non-x86 port or a change of policy is made
 * in one place.
 *
 * Layer: sys.  Async-signal-safe: no malloc, no stdio, no lock of libc's;
 * only atomics and the futex system call.  Used by the fault handler,
 * active-message handlers and application threads alike.
 */
#ifndef SYS_SYNC_H
#define SYS_SYNC_H

#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

/* Tell the CPU this thread is spinning (frees the core's shared resources
 * for its sibling hyperthread; a compiler barrier where no hint exists). */
static inline void dsm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* Step i of a spin loop: a relax hint, and every yield_every-th step (a
 * power of two) the CPU, because with more threads than cores the thread
 * being waited for may need this very core. */
static inline void dsm_spin_step(int i, int yield_every)
{
    if ((i & (yield_every - 1)) == yield_every - 1)
        sched_yield();
    else
        dsm_cpu_relax();
}

/* Sleep while *word == value, at most *timeout (relative; NULL: no
 * limit).  Returns at once when *word differs; may return spuriously:
 * callers look at the word again. */
void dsm_futex_wait(_Atomic uint32_t *word, uint32_t value,
                    const struct timespec *timeout);
/* Wake up to count sleepers of word (DSM_FUTEX_ALL: every one). */
void dsm_futex_wake(_Atomic uint32_t *word, int count);
#define DSM_FUTEX_ALL INT_MAX

/* A mutex in one word (0 free, 1 locked, 2 locked with sleepers): a few
 * attempts while the holder finishes a short section, then a futex
 * sleep; unlock makes a system call only when someone sleeps.  Zero is
 * the unlocked state. */
typedef _Atomic uint32_t dsm_mutex_t;
void dsm_mutex_lock(dsm_mutex_t *m);
int  dsm_mutex_trylock(dsm_mutex_t *m);   /* 1: taken */
void dsm_mutex_unlock(dsm_mutex_t *m);

/* The node-local barrier of count threads, by generation: read the
 * generation, arrive; the last to arrive (1) does whatever the node must do
 * before the others go (the cluster-wide part, the node's tasks) and
 * releases; the others wait for the generation to change - with
 * dsm_local_barrier_wait, or their own way (a task-running wait) when
 * they have other work.  Zero is the initial state. */
typedef struct dsm_local_barrier {
    _Atomic uint32_t arrived;
    _Atomic uint32_t gen;
    _Atomic uint32_t sleepers;   /* in dsm_local_barrier_wait's futex */
} dsm_local_barrier_t;

static inline uint32_t dsm_local_barrier_gen(dsm_local_barrier_t *b)
{
    return atomic_load_explicit(&b->gen, memory_order_acquire);
}
/* 1: this thread arrived last (the arrival count is reset for the next
 * generation: every other thread is inside until the release). */
static inline int dsm_local_barrier_arrive(dsm_local_barrier_t *b,
                                           uint32_t count)
{
    if (atomic_fetch_add(&b->arrived, 1) + 1 < count)
        return 0;
    atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
    return 1;
}
/* Has generation gen been released? */
static inline int dsm_local_barrier_passed(dsm_local_barrier_t *b,
                                           uint32_t gen)
{
    return dsm_local_barrier_gen(b) != gen;
}
/* Wait until generation gen is released: spin spins steps, then sleep. */
void dsm_local_barrier_wait(dsm_local_barrier_t *b, uint32_t gen, int spins);
/* Release generation gen (the last arrival): what it wrote before is
 * visible to every thread that sees the release. */
void dsm_local_barrier_release(dsm_local_barrier_t *b, uint32_t gen);

#endif
