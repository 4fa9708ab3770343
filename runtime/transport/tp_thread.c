/*
 * tp_thread.c - the progress thread: serves incoming active messages and
 * remote requests (on shared memory UCX emulates get, put and atomics on
 * registered memory with messages the target must answer) while the
 * application computes, and watches the bootstrap sockets for peer failure.
 *
 * Layer: transport.  Entry points: tp_thread_start (end of dsm_tp_init),
 * tp_thread_stop (dsm_tp_finalize).  Not started with DSM_PROGRESS_THREAD=0.
 *
 * The thread never spins: it sleeps in poll(2), in one of two ways:
 *  - nobody else polls (tp.pollers == 0): progress until there is nothing
 *    left, arm the worker (ucp_worker_arm; BUSY means events are pending,
 *    so progress again) and sleep on the worker's wake-up descriptor, the
 *    bootstrap sockets and the wake eventfd (self-sends, shut-down), with
 *    no timeout;
 *  - an application thread polls inside a wait, or called dsm_tp_progress
 *    less than PARKED_MS ago: that thread progresses the worker, and an
 *    armed worker would make every sender signal this node with a system
 *    call, so the worker stays unarmed and untouched (no progress here:
 *    this thread could be preempted holding the worker's spinlock while
 *    the polling thread spins on it) and the thread sleeps on the sockets
 *    and the eventfd for at most PARKED_MS, then looks again.
 *    Polling threads thus never pay for the progress thread.  A thread
 *    ending a long wait wakes this one (tp_progress.c); after short waits
 *    and dsm_tp_progress loops, a message arriving just after the polling
 *    stopped may wait up to PARKED_MS for this thread.
 * All signals are blocked here so that process-directed signals (SIGINT
 * from dsmrun, timers) go to application threads.
 */
#include <signal.h>
#include <string.h>

#include "base_log.h"
#include "base_time.h"
#include "tp_internal.h"

#define PARKED_MS 1
#define PARKED_NS (PARKED_MS * 1000000ull)

static int someone_polls(void)
{
    if (atomic_load(&tp.pollers) > 0)
        return 1;
    uint64_t last = atomic_load_explicit(&tp.last_app_progress_ns,
                                         memory_order_relaxed);
    return dsm_now_ns() - last < PARKED_NS;
}

static void *progress_main(void *unused)
{
    (void)unused;
    while (!atomic_load(&tp.stop_thread)) {
        if (someone_polls()) {
            /* leave the worker to the polling thread: taking its lock here
             * could be preempted while holding it, and a spinning thread
             * would then wait a whole time slice */
            tp_am_deliver_local();
            if (tp_am_deferred_pending())
                tp_am_issue_deferred();
            atomic_store(&tp.thread_parked, 1);
            if (someone_polls())   /* else the last one may have missed us */
                tp_sleep_for_events(PARKED_MS, 0);
            atomic_store(&tp.thread_parked, 0);
            continue;
        }
        while (tp_progress_once() && !atomic_load(&tp.stop_thread))
            ;
        if (!atomic_load(&tp.stop_thread) && !someone_polls())
            tp_sleep_for_events(-1, 1);
    }
    return NULL;
}

dsm_status_t tp_thread_start(void)
{
    sigset_t all, old;
    sigfillset(&all);
    /* the new thread inherits this mask */
    pthread_sigmask(SIG_BLOCK, &all, &old);
    atomic_store(&tp.stop_thread, 0);
    int rc = pthread_create(&tp.thread, NULL, progress_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        dsm_log(DSM_LOG_ERROR, "starting the progress thread: %s",
                strerror(rc));
        return DSM_ERR_NOMEM;
    }
    tp.thread_running = 1;
    return DSM_OK;
}

void tp_thread_stop(void)
{
    if (!tp.thread_running)
        return;
    atomic_store(&tp.stop_thread, 1);
    tp_wake_thread();
    pthread_join(tp.thread, NULL);
    tp.thread_running = 0;
}
