/*
 * fj_rtstack.c - the fork-join layer's DSM synchronisation calls.
 *
 * Every runtime thread gets a private runtime stack at start-up; the
 * coherence layer runs its releases and acquires there by itself (see
 * sys_stack.h for why a release must not run on a sharable stack).  These
 * wrappers only add the fork-join layer's error policy.
 *
 * Layer: forkjoin.  fj_rtstack_thread: each runtime thread at start-up,
 * in that thread (the stack is thread-local).
 * The calls: any application thread.
 */
#include "base_log.h"
#include "coherence.h"
#include "fj_internal.h"
#include "fj_partials.h"
#include "sys_stack.h"
#include "transport.h"

dsm_status_t fj_rtstack_thread(void) { return dsm_sys_rtstack_thread_init(); }

dsm_status_t fj_lock_acquire(dsm_lock_t *lock)
{
    fj_partials_flush();
    return dsm_lock_acquire(lock);
}
dsm_status_t fj_lock_try(dsm_lock_t *lock) { return dsm_lock_try(lock); }
dsm_status_t fj_lock_release(dsm_lock_t *lock) { return dsm_lock_release(lock); }
dsm_status_t fj_flush(void) { return dsm_flush(); }
dsm_status_t fj_finalize(void)
{
    /* from here on the program's malloc goes to the C library again */
    __atomic_store_n(&fj.heap_open, 0, __ATOMIC_RELEASE);
    return dsm_coh_finalize();
}

void fj_global_barrier(void)
{
    /* a partial result kept back rides with the arrival, as at the join:
     * node 0 waits for it and for the arrival, and the two sends in a
     * row cost this node a send's system call and node 0 a receive */
    size_t n = 0;
    const void *partial = fj.rank != 0 ? fj_partials_take(&n) : NULL;
    dsm_status_t st = dsm_coh_barrier_with(partial, n);
    if (st != DSM_OK)
        dsm_fatal("cluster barrier: %s", dsm_status_string(st));
}

/* Node 0, when the join moved homes: wake every other node to settle. */
static void wake_to_settle(void *unused)
{
    (void)unused;
    for (int node = 1; node < fj.size; node++) {
        dsm_status_t st = dsm_tp_am_send(node, FJ_AM_SETTLE, NULL, 0);
        if (st != DSM_OK)
            dsm_fatal("asking node %d to apply home moves: %s", node,
                      dsm_status_string(st));
    }
}

void fj_global_join(void)
{
    /* a partial result kept back rides with the arrival (a private
     * buffer: the transport is handed it) */
    size_t n = 0;
    const void *partial = fj.rank != 0 ? fj_partials_take(&n) : NULL;
    dsm_status_t st = dsm_coh_join(wake_to_settle, NULL, partial, n);
    if (st != DSM_OK)
        dsm_fatal("end of a parallel region: %s", dsm_status_string(st));
}
