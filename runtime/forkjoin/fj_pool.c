/*
 * fj_pool.c - a node's pool: threads 1 .. DSM_THREADS-1, created once at
 * start-up, each running on a sharable stack of its own (homed on its
 * node, so it costs no fault until another node reads it) and sleeping on
 * its own futex word between regions.  The node's leader wakes exactly the
 * members of the next region and waits until they have finished it.
 *
 * Layer: forkjoin.  fj_pool_start: start-up, main thread.  fj_pool_wake
 * and fj_pool_wait_done: the node's leader (node 0's master, or the main
 * thread of another node), after the team is set up.
 */
#include <pthread.h>
#include <stdint.h>

#include "base_log.h"
#include "fj_internal.h"
#include "sys_activity.h"
#include "sys_stack.h"
#include "fj_task.h"
#include "fj_wait.h"
#include "sys_region.h"

/* The pthread stack only carries the thread to its sharable stack. */
#define START_STACK ((size_t)256 << 10)

static void pool_loop(void *arg)
{
    fj_thread_t *self = arg;
    uint32_t seen = 0;
    for (;;) {
        dsm_activity_saved_t saved;   /* what dsmrun says if the node dies */
        dsm_activity_wait_begin(&saved, "the next parallel region", 0);
        /* meanwhile, help with the region's tasks (fj_task_pool.c) */
        fj_task_idle_wait(self, &self->go, seen);
        dsm_activity_end(&saved);
        seen = atomic_load_explicit(&self->go, memory_order_acquire);
        fj_member_run(self, self->local);
        uint32_t members = (uint32_t)fj.team.local_count;
        if (atomic_fetch_add_explicit(&fj.pool_done, 1,
                                      memory_order_acq_rel) + 2 == members)
            fj_wake_all(&fj.pool_done);
    }
}

static void *pool_start(void *arg)
{
    fj_thread_t *self = arg;
    fj_set_self(self);
    if (fj_altstack_thread() != DSM_OK || fj_rtstack_thread() != DSM_OK)
        dsm_fatal("cannot set up a worker's signal and runtime stacks");
    void *stack = dsm_aligned_alloc(DSM_PAGE_SIZE, fj.worker_stack);
    if (!stack)
        dsm_fatal("out of sharable memory for a %zu-byte worker stack "
                  "(OMP_STACKSIZE)", fj.worker_stack);
    dsm_sys_run_on_stack(stack, fj.worker_stack, pool_loop, self);
    return NULL;
}

dsm_status_t fj_pool_start(void)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0 ||
        pthread_attr_setstacksize(&attr, START_STACK) != 0 ||
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) != 0)
        return DSM_ERR_IO;
    for (int i = 1; i < fj.threads; i++) {
        pthread_t tid;
        if (pthread_create(&tid, &attr, pool_start, fj.thread[i]) != 0) {
            pthread_attr_destroy(&attr);
            return DSM_ERR_IO;
        }
    }
    pthread_attr_destroy(&attr);
    return DSM_OK;
}

void fj_pool_wake(void)
{
    atomic_store_explicit(&fj.pool_done, 0, memory_order_relaxed);
    for (int i = 1; i < fj.team.local_count; i++) {
        atomic_fetch_add_explicit(&fj.thread[i]->go, 1, memory_order_release);
        fj_task_idle_ring(i);       /* it waits on its task bell */
    }
}

void fj_pool_wait_done(int members)
{
    if (members > 1)
        fj_wait_at_least(&fj.pool_done, (uint32_t)members - 1);
}
