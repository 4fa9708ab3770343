/*
 * fj_exit.c - the end of a job.  When main returns or node 0's serial code
 * calls exit(), an on_exit handler (it receives the status, which atexit
 * handlers do not) sends EXIT with the status to every node; then every
 * node calls dsm_finalize (a collective).  The other nodes then exit 0 and
 * node 0 goes on with the status: the job's status is node 0's.  Were
 * another node to exit non-zero first, the launcher would end the job as
 * failed while node 0 still runs its exit path - the program's
 * destructors, a Fortran runtime writing its buffered units - and that
 * output would be lost.
 *
 * exit() inside a parallel region cannot finish the job cleanly - the
 * other members are still running - so the process just ends, with a
 * message, and the transport ends the job on the other nodes (a lost
 * peer).
 *
 * Layer: forkjoin.  fj_exit_register: start-up (before the program's
 * constructors when fj_early_heap runs, so that it runs after their
 * destructors at exit).  The handler: the thread
 * calling exit().  fj_exit_node: the worker loop of nodes other than 0.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base_log.h"
#include "fj_internal.h"
#include "transport.h"

static int exiting;

static void finish(int status, void *unused)
{
    if (!fj.started || __atomic_exchange_n(&exiting, 1, __ATOMIC_ACQ_REL))
        return;
    fj_thread_t *self = fj_self_or_null();
    if (fj.rank != 0 || self != fj.thread[0] || self->team) {
        dsm_log(DSM_LOG_ERROR, "exit(%d) called inside a parallel region: "
                "the job ends without a clean shut-down", status);
        return;
    }
    /* the program's output so far goes out before the other nodes' */
    fflush(NULL);
    /* private, not on the (sharable) main stack: handed to the transport */
    static fj_exit_msg_t msg;
    msg = (fj_exit_msg_t){status, 0};
    for (int node = 1; node < fj.size; node++) {
        dsm_status_t st = dsm_tp_am_send(node, FJ_AM_EXIT, &msg, sizeof msg);
        if (st != DSM_OK)
            dsm_log(DSM_LOG_ERROR, "telling node %d to exit: %s", node,
                    dsm_status_string(st));
    }
    dsm_status_t st = fj_finalize();
    if (st != DSM_OK)
        dsm_log(DSM_LOG_ERROR, "shut-down: %s", dsm_status_string(st));
}

void fj_exit_register(void)
{
    static int registered;
    if (registered++)
        return;         /* already by fj_early_heap */
    if (on_exit(finish, NULL) != 0)
        dsm_fatal("cannot register the exit handler");
}

void fj_exit_node(void)
{
    __atomic_store_n(&exiting, 1, __ATOMIC_RELEASE);
    dsm_status_t st = fj_finalize();
    if (st != DSM_OK) {
        dsm_log(DSM_LOG_ERROR, "shut-down: %s", dsm_status_string(st));
        exit(DSM_EXIT_FATAL);
    }
    exit(0);
}
