/*
 * fj_mailbox.c - node 0's messages to the other nodes between regions.
 * A FORK carries node 0's write notices since the last barrier, imported
 * (pages invalidated) before the region starts: the fork's acquire.
 * A SETTLE asks the node to apply the home moves node 0 decided at the
 * last join (dsm_coh_join_settle) before it waits on.
 * One message is pending at most: node 0 sends the next only after every
 * node arrived at a join or barrier, or settled, after taking the previous
 * one, so a second arrival before the first was taken is a protocol
 * error.
 *
 * Waiting: right after a region the node's main thread drives transport
 * progress itself for a short while (fj.mail_poll_ns): a program that
 * forks again soon - a region in a loop - is then answered at once
 * instead of after the progress thread's next wake-up.  It yields the CPU
 * at clock reads when the transport says so (dsm_tp_should_yield), as the
 * transport's waits do: node 0 may be waiting for this very CPU (a node
 * that never yielded here kept node 0 off a shared CPU for a whole time
 * slice, about 1 ms per region).  Then it sleeps on
 * the futex the handler wakes (with a progress thread, DSM_PROGRESS_THREAD=1,
 * the default), or keeps driving progress (without one).  Before it
 * sleeps it tells the transport (dsm_tp_idle), whose progress thread would
 * otherwise stay parked - looking only every few milliseconds - after the
 * node's recent polling: that was the millisecond every construct cost
 * under OMP_WAIT_POLICY=passive.
 *
 * Layer: forkjoin.  The handlers only copy and wake (futex): they never
 * block.  fj_mailbox_wait: the main thread of nodes other than 0.
 */
#include "fj_mailbox.h"

#include <sched.h>
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "base_time.h"
#include "coherence.h"
#include "fj_wait.h"
#include "fj_wire.h"
#include "sys_activity.h"
#include "sys_stack.h"
#include "transport.h"

#define CLOCK_EVERY 64u

static _Atomic uint32_t posted, taken;
static fj_wire_fork_t pending_fork;     /* handoff: pending_handoff */
static _Alignas(8) char pending_handoff[FJ_HANDOFF_BYTES];
static enum { MAIL_FORK, MAIL_EXIT, MAIL_SETTLE } pending_kind;
static int pending_status;

static void post(int src, const char *what)
{
    if (src != 0)
        dsm_fatal("%s message from node %d; only node 0 sends it", what, src);
    if (atomic_load(&posted) != atomic_load(&taken))
        dsm_fatal("%s message from node 0 while the previous one is still "
                  "pending", what);
}

static void deliver(void)
{
    atomic_fetch_add_explicit(&posted, 1, memory_order_release);
    fj_wake_all(&posted);
}

static void on_fork(int src, const void *payload, size_t len, void *arg)
{
    post(src, "FORK");
    const fj_wire_limits_t lim = {fj.size, fj.threads};
    if (fj_wire_fork(payload, len, &lim, &pending_fork) != DSM_OK)
        dsm_fatal("malformed FORK message from node %d (%zu bytes)", src,
                  len);
    /* the payload lives only as long as this call */
    memcpy(pending_handoff, pending_fork.handoff, pending_fork.handoff_len);
    pending_kind = MAIL_FORK;
    deliver();
}

static void on_exit_msg(int src, const void *payload, size_t len, void *arg)
{
    int32_t status;
    post(src, "EXIT");
    if (fj_wire_exit(payload, len, &status) != DSM_OK)
        dsm_fatal("malformed EXIT message from node %d (%zu bytes)", src,
                  len);
    pending_kind = MAIL_EXIT;
    pending_status = status;
    deliver();
}

static void on_settle(int src, const void *payload, size_t len, void *arg)
{
    post(src, "SETTLE");
    if (fj_wire_settle(payload, len) != DSM_OK)
        dsm_fatal("malformed SETTLE message from node %d (%zu bytes)", src,
                  len);
    pending_kind = MAIL_SETTLE;
    deliver();
}

void fj_mailbox_register(void)
{
    if (dsm_tp_am_register(DSM_TP_AM_FORKJOIN, FJ_AM_FORK, on_fork,
                           NULL) != DSM_OK ||
        dsm_tp_am_register(DSM_TP_AM_FORKJOIN, FJ_AM_EXIT, on_exit_msg,
                           NULL) != DSM_OK ||
        dsm_tp_am_register(DSM_TP_AM_FORKJOIN, FJ_AM_SETTLE, on_settle,
                           NULL) != DSM_OK)
        dsm_fatal("cannot register the fork-join messages");
    dsm_coh_report_am_name(FJ_AM_FORK, "fork");
    dsm_coh_report_am_name(FJ_AM_EXIT, "exit");
    dsm_coh_report_am_name(FJ_AM_SETTLE, "settle");
}

static int arrived(uint32_t seen)
{
    return atomic_load_explicit(&posted, memory_order_acquire) != seen;
}

/* The polling of take_one, on the runtime stack: one switch rather than
 * one in every progress call made on the (sharable) worker stack
 * (design.md, "Locks and their order"). */
static void poll_mail(void *arg)
{
    uint32_t seen = *(const uint32_t *)arg;
    /* the clock is read every CLOCK_EVERY rounds: a read costs as much as
     * a round of polling */
    uint64_t start = dsm_now_ns(), until = start + fj.mail_poll_ns;
    uint64_t now = start;
    dsm_tp_poll_begin();
    for (unsigned round = 1; !arrived(seen); round++) {
        if (!dsm_tp_progress())
            dsm_cpu_relax();
        if (round % CLOCK_EVERY == 0) {
            now = dsm_now_ns();
            if (now >= until)
                break;
            if (dsm_tp_should_yield(now - start))
                sched_yield();
        }
    }
    dsm_tp_poll_end(now - start);
    if (!dsm_config()->progress_thread)
        while (!arrived(seen))
            if (!dsm_tp_progress())
                sched_yield();
}

/* One message: FORK (imported), EXIT or SETTLE (done here). */
static int take_one(const fj_fork_msg_t **fork, int *status)
{
    uint32_t seen = atomic_load(&taken);
    dsm_activity_saved_t saved;   /* what dsmrun says if the node dies */
    dsm_activity_wait_begin(&saved, "the next parallel region", 0);
    dsm_sys_on_rtstack(poll_mail, &seen);
    if (dsm_config()->progress_thread) {
        if (!arrived(seen))
            dsm_tp_idle();
        fj_wait_change(&posted, seen);
    }
    int kind = pending_kind;
    if (kind == MAIL_EXIT) {
        *status = pending_status;
    } else if (kind == MAIL_SETTLE) {
        /* the last join moved homes: apply them with every node.  The
         * mailbox is free first: node 0 may fork as soon as all did. */
        atomic_store_explicit(&taken, seen + 1, memory_order_release);
        dsm_activity_end(&saved);
        if (dsm_coh_join_settle() != DSM_OK)
            dsm_fatal("applying the home moves of a parallel region's end");
        return kind;
    } else {
        /* valid until this node's next arrival: node 0 sends nothing
         * before it */
        *fork = &pending_fork.msg;
        /* the join's departure and node 0's serial writes, acquired
         * before the region runs; the region labels the epoch */
        dsm_coh_epoch_next((uintptr_t)pending_fork.msg.microtask);
        dsm_status_t st = dsm_coh_handoff_import(0, pending_handoff,
                                                 pending_fork.handoff_len);
        if (st != DSM_OK)
            dsm_fatal("node 0's write notices in FORK: %s",
                      dsm_status_string(st));
    }
    atomic_store_explicit(&taken, seen + 1, memory_order_release);
    dsm_activity_end(&saved);
    return kind;
}

int fj_mailbox_wait(const fj_fork_msg_t **fork, int *status)
{
    int kind;
    while ((kind = take_one(fork, status)) == MAIL_SETTLE)
        ;
    return kind == MAIL_EXIT;
}
