/*
 * tp_thread.c - the progress thread: serves incoming active messages and
 * remote requests (on shared memory UCX emulates get, put and atomics on
 * registered memory with messages the target must answer) while the
 * application computes, and watches the bootstrap sockets for peer failure.
 *
 * Layer: transport.  Entry points: tp_thread_start (end of dsm_tp_init),
 * tp_thread_stop (dsm_tp_finalize).  Not started with DSM_PROGRESS_THREAD=0.
 *
 * The thread never spins: it sleeps in poll(2), in one of three ways:
 *  - nobody polls: progress until there is nothing left, arm the worker
 *    (ucp_worker_arm; BUSY means events are pending, so progress again)
 *    and sleep on the worker's wake-up descriptor, the bootstrap sockets
 *    and the wake eventfd (self-sends, shut-down), until the next
 *    heartbeat is due;
 *  - an application thread polls (it is inside a wait, or, with a peer
 *    on this host that has no lane, began one or called dsm_tp_progress
 *    since the last look): that thread
 *    progresses the worker, and an armed worker would make every sender
 *    signal this node with a system call.  So the worker stays unarmed
 *    and untouched (no progress here either: this thread could be
 *    preempted holding the worker's lock while the polling thread
 *    waits for it), and the thread "parks": it sleeps on the sockets and
 *    the eventfd for a parking period, then looks again;
 *  - nobody polls, but the node synchronises (where some peer's messages
 *    come through UCX, not a lane: tp.ucx_peers): its threads computed less
 *    than TP_SYNC_GAP_NS (200 us) before their latest wait, and the
 *    latest wait ended less than that ago.  Its next wait will serve the
 *    peers soon, so the thread parks until the gap has passed, then looks
 *    again.  An armed worker signals its descriptor for every message,
 *    also one a polling thread then takes: the sleeper wakes, finds
 *    nothing ready and sleeps again inside the same poll(2), and on a
 *    node with no idle CPU each such wake-up preempts the polling thread
 *    as the message it waits for comes in (two context switches on the
 *    critical path of every barrier).  For the same reason a thread that
 *    begins to poll on a synchronising node finds an armed progress
 *    thread and wakes it (tp_poller_enter), so that it parks.
 * A node that computes longer keeps the armed thread through its short
 * waits: then a peer's get during the computation is served at once, and
 * a wake-up per wait would cost as much as the messages' wake-ups.
 * The parking period starts at PARK_MIN_MS and doubles, up to PARK_MAX_MS,
 * for as long as the node keeps polling: each look preempts an application
 * thread, which on a 2-CPU virtual machine cost about 0.1 ms of ping-pong
 * time (fixed 1 ms periods doubled the 8-byte latency).  The price: when
 * a node stops polling, a message for it may wait for this thread until
 * its next look but one: a few PARK_MIN_MS after occasional operations,
 * up to 2 x PARK_MAX_MS after a long spell of continuous polling.  A
 * thread ending a wait longer than 1 ms (a barrier, a contended lock)
 * wakes this one at once (tp_progress.c), and so does a node about to
 * sleep until a message comes (dsm_tp_idle).
 * Every turn also sends the heartbeats that are due and checks that every
 * peer has been heard from within DSM_TIMEOUT (tp_liveness.c), so the
 * sleep with nobody polling lasts at most until the next heartbeat.
 * All signals are blocked here so that process-directed signals (SIGINT
 * from dsmrun, timers) go to application threads.
 *
 * Scheduling: with DSM_PROGRESS_REALTIME=1 and a peer on another host
 * this thread asks for real-time scheduling (SCHED_FIFO, lowest
 * priority).  Over TCP a get, put or atomic from a peer needs this node's
 * progress, and while the application computes only this thread gives it.
 * As an ordinary thread it waits on the run queue behind its own
 * process's CPU use (the fair scheduler; with autogroups the process is
 * one entity): on a loaded 2-CPU machine 12-15 ms per wake-up in some
 * runs, and a get from a computing node then took 10-20 ms (median);
 * real-time, its waits were 1-40 us and the get 15-33 us.  Not the
 * default: a real-time wake-up preempts the node's polling thread at
 * once, and on the same loaded machine jacobi across two hosts took
 * 8.8-11.7 s real-time against 4.4-6.9 s ordinary, interleaved
 * (doc/performance.md, "Across hosts: the run-queue wait of the progress
 * thread").  Refused without the privilege (CAP_SYS_NICE or
 * RLIMIT_RTPRIO): the thread stays ordinary.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "base_time.h"
#include "tp_liveness.h"
#include "tp_progress.h"
#include "tp_source.h"
#include "tp_state.h"
#include "tp_thread.h"

#define PARK_MIN_MS 1
#define PARK_MAX_MS 8

/* Does an application thread poll: is one inside a wait now, or did one
 * begin a wait or call dsm_tp_progress since the last look?  A poll since
 * the last look counts only where arming the worker costs senders (a
 * same-host peer without a lane): elsewhere (peers on other hosts, over
 * TCP) arming costs nobody anything, and a node whose application threads
 * wait briefly now and then while they compute would otherwise leave the
 * requests of other nodes unserved until its next wait. */
static int someone_polls(unsigned *seen, int *idle)
{
    unsigned activity = atomic_load_explicit(&tp.activity,
                                             memory_order_relaxed);
    int polled = activity != *seen && tp.ucx_same_host;
    *seen = activity;
    if (atomic_exchange(&tp.idle_hint, 0)) {
        polled = 0;
        *idle = 1;
    }
    return polled || atomic_load(&tp.pollers) > 0;
}

/* Nobody polls now, but the node synchronises (its threads computed less
 * than TP_SYNC_GAP_NS before their latest wait) and ended its latest wait
 * less than TP_SYNC_GAP_NS ago: microseconds until that gap has passed,
 * else 0 (header). */
static long sync_gap_left_us(void)
{
    if (!atomic_load_explicit(&tp.synchronising, memory_order_relaxed))
        return 0;
    uint64_t since = dsm_now_ns() - atomic_load_explicit(
        &tp.poll_end_ns, memory_order_relaxed);
    return since < TP_SYNC_GAP_NS
               ? (long)((TP_SYNC_GAP_NS - since + 999) / 1000) : 0;
}

/* Real-time scheduling when a peer on another host needs this thread
 * (header). */
static void choose_priority(void)
{
    if (!dsm_config()->progress_realtime || !tp.remote_peers)
        return;
    struct sched_param sp = {.sched_priority = sched_get_priority_min(
                                 SCHED_FIFO)};
    int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (rc == 0)
        dsm_debug("progress thread: real-time (SCHED_FIFO %d)",
                  sp.sched_priority);
    else
        dsm_debug("progress thread: ordinary scheduling (real-time "
                  "refused: %s)", strerror(rc));
}

static void *progress_main(void *unused)
{
    (void)unused;
    choose_priority();
    int park_ms = PARK_MIN_MS;
    unsigned seen = atomic_load(&tp.activity);
    tp_live_heartbeat_start();
    while (!atomic_load(&tp.stop_thread)) {
        int heartbeat_ms = tp_live_heartbeat();
        int idle = 0;
        if (someone_polls(&seen, &idle)) {
            /* the pollers read the worker and the lanes */
            tp_sources_run(TP_SOURCE_INBOUND);
            atomic_store(&tp.thread_parked, 1);
            /* else the last poller may have missed us: look again */
            if (atomic_load(&tp.idle_hint)) {
                /* dsm_tp_idle saw us unparked: take the worker now */
            } else if (atomic_load(&tp.pollers) > 0) {
                tp_sleep_for_events(park_ms * 1000L, 0);
                if (park_ms < PARK_MAX_MS)
                    park_ms *= 2;
            } else {
                tp_sleep_for_events(PARK_MIN_MS * 1000L, 0);
            }
            atomic_store(&tp.thread_parked, 0);
            continue;
        }
        long gap_us = idle ? 0 : sync_gap_left_us();
        if (gap_us > 0) {
            /* the node polls again soon: stay off the worker */
            tp_sources_run(TP_SOURCE_INBOUND);
            atomic_store(&tp.thread_parked, 1);
            if (!atomic_load(&tp.idle_hint))
                tp_sleep_for_events(gap_us, 0);
            atomic_store(&tp.thread_parked, 0);
            continue;
        }
        park_ms = PARK_MIN_MS;
        while (tp_progress_once() && !atomic_load(&tp.stop_thread))
            ;
        if (atomic_load(&tp.stop_thread))
            break;
        /* sequentially consistent, paired with tp_poller_enter's increment
         * of pollers and exchange of thread_armed */
        atomic_store(&tp.thread_armed, 1);
        if (!someone_polls(&seen, &idle))
            tp_sleep_for_events(heartbeat_ms * 1000L, 1);
        atomic_store(&tp.thread_armed, 0);
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
    /* its name in top -H, perf and /proc (tests count its switches) */
    pthread_setname_np(tp.thread, "dsm-progress");
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
