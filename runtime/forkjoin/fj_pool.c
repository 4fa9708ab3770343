/*
 * fj_pool.c - a node's pool: threads 1 .. DSM_THREADS-1, created once at
 * start-up, each running on a sharable stack of its own (homed on its
 * node, so it costs no fault until another node reads it) and sleeping on
 * its own futex word between regions.  The node's leader wakes exactly the
 * members of the next region and waits until they have finished it.
 *
 * Every runtime thread (these, and the extra threads of nested teams)
 * starts through fj_thread_start.  Its pthread stack only carries it to
 * its sharable stack, but glibc also places the thread's static TLS block
 * (every module's thread-local variables, threadprivate arrays included)
 * inside it, so that stack is sized for both: a fixed 256 KiB would make
 * pthread_create fail for a program with a large threadprivate array.
 *
 * Layer: forkjoin.  fj_pool_start: start-up, main thread.  fj_pool_wake
 * and fj_pool_wait_done: the node's leader (node 0's master, or the main
 * thread of another node), after the team is set up.  fj_thread_start:
 * any application thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "fj_internal.h"
#include "sys_activity.h"
#include "sys_stack.h"
#include "fj_task.h"
#include "fj_wait.h"
#include "sys_region.h"

/* What the pthread stack needs besides the static TLS block. */
#define START_STACK ((size_t)256 << 10)

typedef struct thread_start {
    fj_thread_t *self;
    void (*fn)(void *);
} thread_start_t;

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
        fj_member_run(self, &fj.team, fj.team.first + self->local);
        uint32_t members = (uint32_t)fj.team.local_count;
        if (atomic_fetch_add_explicit(&fj.pool_done, 1,
                                      memory_order_acq_rel) + 2 == members)
            fj_wake_all(&fj.pool_done);
    }
}

static void *thread_main(void *arg)
{
    thread_start_t start = *(thread_start_t *)arg;
    free(arg);
    fj_set_self(start.self);
    if (fj_altstack_thread() != DSM_OK || fj_rtstack_thread() != DSM_OK)
        dsm_fatal("cannot set up a worker's signal and runtime stacks");
    void *stack = dsm_aligned_alloc(DSM_PAGE_SIZE, fj.worker_stack);
    if (!stack)
        dsm_fatal("out of sharable memory for a %zu-byte worker stack "
                  "(OMP_STACKSIZE)", fj.worker_stack);
    dsm_sys_run_on_stack(stack, fj.worker_stack, start.fn, start.self);
    return NULL;
}

void fj_thread_start(fj_thread_t *self, void (*fn)(void *), const char *what)
{
    size_t tls = fj_tls_static_bytes();
    size_t bytes = START_STACK + tls;
    pthread_attr_t attr;
    int rc;
    const char *call = "pthread_attr_init";
    if ((rc = pthread_attr_init(&attr)) != 0)
        goto fail;
    call = "pthread_attr_setstacksize";
    if ((rc = pthread_attr_setstacksize(&attr, bytes)) != 0)
        goto fail_attr;
    call = "pthread_attr_setdetachstate";
    if ((rc = pthread_attr_setdetachstate(&attr,
                                          PTHREAD_CREATE_DETACHED)) != 0)
        goto fail_attr;
    /* private memory: the caller may run on a sharable stack */
    call = "malloc";
    thread_start_t *start = malloc(sizeof *start);
    if (!start) {
        rc = ENOMEM;
        goto fail_attr;
    }
    *start = (thread_start_t){self, fn};
    call = "pthread_create";
    pthread_t tid;
    if ((rc = pthread_create(&tid, &attr, thread_main, start)) != 0) {
        free(start);
        goto fail_attr;
    }
    pthread_attr_destroy(&attr);
    return;
fail_attr:
    pthread_attr_destroy(&attr);
fail:
    dsm_fatal("cannot start %s: %s: %s (a %zu-byte thread stack, %zu bytes "
              "of it for static thread-local storage)", what, call,
              strerror(rc), bytes, tls);
}

void fj_pool_start(void)
{
    for (int i = 1; i < fj.threads; i++)
        fj_thread_start(fj.thread[i], pool_loop,
                        "the node's worker threads (dsmrun -t)");
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
