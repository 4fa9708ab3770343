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
#include "sys_stack.h"

dsm_status_t fj_rtstack_thread(void) { return dsm_sys_rtstack_thread_init(); }

dsm_status_t fj_lock_acquire(dsm_lock_t *lock) { return dsm_lock_acquire(lock); }
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
    dsm_status_t st = dsm_barrier();
    if (st != DSM_OK)
        dsm_fatal("cluster barrier: %s", dsm_status_string(st));
}
