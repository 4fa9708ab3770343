/*
 * tp_progress.c - progress calls and bounded waits.
 *
 * Layer: transport.  Entry points: dsm_tp_progress,
 * dsm_tp_wait_flag(_for, _on), dsm_tp_idle, and internally
 * tp_wait_*, tp_wait_request (every blocking operation),
 * tp_sleep_for_events (the progress thread and the start-up and shut-down
 * barriers), tp_wake_thread.  Below the lanes and the liveness sockets:
 * what a wait or a sleep needs of them (who shares this CPU, ringing the
 * wake pipe, the sockets to watch) comes through the hooks of the progress
 * registry (tp_source.h), so that nothing here calls up.
 *
 * A thread waiting inside the runtime polls: it calls ucp_worker_progress
 * itself until its operation completes, which is the fastest reaction and
 * also serves the other nodes' requests meanwhile.  While any thread
 * polls, it is counted in tp.pollers, and the progress thread does not arm
 * the worker (an armed worker makes the sender signal the wake-up
 * descriptor, a system call per message; see tp_thread.c).
 *
 * A long wait yields the CPU at each clock check (dsm_tp_should_yield).
 * After 5 us when the peer that must answer may be waiting for this very
 * CPU: the job's threads on this host outnumber its CPUs, or a node on a
 * same-host lane last polled on this CPU (a wake-up tends to put a node
 * on its waker's CPU, and the scheduler may leave the two there).  4
 * nodes on 2 cores ran 12x faster with yields; two nodes sharing a CPU
 * took 19-20 us per region in a loop yielding at 3-5 us, 32 us at 10 us,
 * 30-50 us at 50 us and about 1 ms without yielding; at 1 us other
 * processes took over.  Otherwise only after 1 ms: the node has a CPU of
 * its own, and a yield would hand it to whatever else runs on the
 * machine, so that every hand-off waited for a time slice (beside other
 * load EPCC's constructs took 20 us, MPI's 0.7, which never yields).  When the
 * last polling thread ends a wait longer than the progress thread's
 * parking period (a barrier, a contended lock), it wakes the parked
 * progress thread, so that the node is served at once while it computes.
 * After shorter waits it does not: a system call per operation would
 * double the latency of tight loops, and with a shorter threshold a
 * preempted wait would wake the progress thread, whose wake-up preempts
 * another wait, and so on.  The progress thread notices within its
 * parking period anyway.
 *
 * Signal safety: the wait loops allocate nothing; UCX requests are checked
 * with ucp_request_check_status and freed after completion, with no
 * callback.  The locks a progress round takes (handlers, queues, deferred
 * issue) are never held by a faulting thread, which faults in application
 * code, never inside the transport.  On timeout the job ends through
 * dsm_fatal, whose formatting (vsnprintf of %s/%d/%u) takes no lock and
 * does not allocate.
 *
 * Deadlines: while the progress thread runs, heartbeats decide whether a
 * peer failed (tp_liveness.c), so a wait has no deadline of its own: a
 * node that is only busy must not end the job.  Without a progress thread
 * (or on one node) a wait ends the job after DSM_TIMEOUT.  Each wait in
 * dsm_tp_wait_flag is also recorded on the activity board (sys_activity.h).
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "base_config.h"
#include "base_log.h"
#include "base_time.h"
#include "sys_activity.h"
#include "sys_stack.h"
#include "tp_progress.h"
#include "tp_source.h"
#include "tp_state.h"
#include "tp_status.h"

#define CHECK_EVERY 256u              /* rounds between clock reads */
#define SOCKET_CHECK_NS 1000000ull    /* without a progress thread */

/* a wait this long parks an armed progress thread, and at its end wakes
 * the parked one */
#define HANDOVER_AFTER_NS 1000000ull

static atomic_flag socket_check_busy = ATOMIC_FLAG_INIT;

TP_THREAD_LOCAL int tp_in_handler;

void tp_check_not_in_handler(const char *call)
{
    if (tp_in_handler)
        dsm_fatal("%s called from an active-message handler: handlers may "
                  "only send active messages", call);
}

static unsigned timeout_ms(void)
{
    if (tp.timeout_ms)
        return tp.timeout_ms;
    unsigned ms = dsm_config()->timeout_ms;
    return ms ? ms : DSM_DEFAULT_TIMEOUT_S * 1000u;
}

void tp_poller_enter(void)
{
    atomic_fetch_add_explicit(&tp.activity, 1, memory_order_relaxed);
    /* only where some peer's messages come through UCX's worker: with
     * lanes alone nothing wakes an armed thread for them, and two clock
     * reads per wait cost a same-host reduction 15% */
    if (atomic_fetch_add(&tp.pollers, 1) != 0 || !tp.thread_running ||
        !tp.ucx_peers)
        return;
    uint64_t end = atomic_load_explicit(&tp.poll_end_ns,
                                        memory_order_relaxed);
    int synchronising = end && dsm_now_ns() - end < TP_SYNC_GAP_NS;
    atomic_store_explicit(&tp.synchronising, synchronising,
                          memory_order_relaxed);
    /* sequentially consistent, paired with the progress thread's store to
     * thread_armed and load of pollers: one of the two sees the other */
    if (synchronising && atomic_exchange(&tp.thread_armed, 0))
        tp_wake_thread();
}

void tp_poller_leave(uint64_t waited_ns)
{
    if (tp.thread_running && tp.ucx_peers)
        atomic_store_explicit(&tp.poll_end_ns, dsm_now_ns(),
                              memory_order_relaxed);
    /* sequentially consistent, paired with the progress thread's store to
     * thread_parked and load of pollers: one of the two sees the other */
    if (atomic_fetch_sub(&tp.pollers, 1) == 1 &&
        atomic_load(&tp.thread_parked) && waited_ns > HANDOVER_AFTER_NS)
        tp_wake_thread();
}

void tp_wait_begin(tp_wait_t *w)
{
    w->start_ns = 0;
    w->spins = 0;
    tp_poller_enter();
}

/* Without a progress thread nobody else watches the bootstrap sockets, so
 * a waiting thread looks at them now and then (one at a time). */
static void check_sockets(void)
{
    if (atomic_flag_test_and_set(&socket_check_busy))
        return;
    int n = tp_sources_watch(tp.check_fds, tp.check_peer);
    if (n > 0 && poll(tp.check_fds, (nfds_t)n, 0) > 0)
        for (int i = 0; i < n; i++)
            if (tp.check_fds[i].revents)
                tp_sources_readable(tp.check_peer[i]);
    atomic_flag_clear(&socket_check_busy);
}

void tp_wait_check(tp_wait_t *w, const char *what, int rank)
{
    if (++w->spins % CHECK_EVERY)
        return;
    uint64_t now = dsm_now_ns();
    w->last_ns = now;
    if (w->start_ns == 0) {
        /* the deadline counts from here: CHECK_EVERY rounds late */
        w->start_ns = now;
        w->deadline_ns = now + timeout_ms() * 1000000ull;
        w->next_check_ns = now + SOCKET_CHECK_NS;
        return;
    }
    if (now >= w->deadline_ns && tp.thread_running && tp.size > 1) {
        /* heartbeats decide whether a peer failed: every node is alive, so
         * the awaited one is busy; say so once, and go on waiting */
        w->deadline_ns = UINT64_MAX;
        if (dsm_log_level() >= DSM_LOG_INFO)
            dsm_log_sigsafe("still waiting after DSM_TIMEOUT, every node "
                            "alive, for ", what);
    } else if (now >= w->deadline_ns) {
        if (rank >= 0)
            dsm_fatal("timed out after %u s waiting for %s node %d",
                      timeout_ms() / 1000u, what, rank);
        dsm_fatal("timed out after %u s waiting for %s", timeout_ms() / 1000u,
                  what);
    }
    /* a long wait: an armed progress thread would wake for every message
     * this thread takes (tp_thread.c); park it until the wait ends */
    if (now - w->start_ns > HANDOVER_AFTER_NS &&
        atomic_load_explicit(&tp.thread_armed, memory_order_relaxed) &&
        atomic_exchange(&tp.thread_armed, 0))
        tp_wake_thread();
    if (dsm_tp_should_yield(now - w->start_ns))
        sched_yield();
    if (!tp.thread_running && tp.size > 1 && now >= w->next_check_ns) {
        w->next_check_ns = now + SOCKET_CHECK_NS;
        check_sockets();
    }
}

void tp_wait_end(tp_wait_t *w)
{
    if (w->start_ns)
        tp_sources_waiting_on(-1);
    tp_poller_leave(w->start_ns ? w->last_ns - w->start_ns : 0);
}

dsm_status_t tp_wait_request(ucs_status_ptr_t request, const char *what,
                             int rank)
{
    if (request == NULL)
        return DSM_OK;
    if (UCS_PTR_IS_ERR(request))
        return tp_status(UCS_PTR_STATUS(request));
    ucs_status_t st = ucp_request_check_status(request);
    if (st == UCS_INPROGRESS) {
        dsm_activity_saved_t saved;
        int recorded = dsm_activity_transfer_begin(&saved, what, rank);
        tp_wait_t w;
        tp_wait_begin(&w);
        do {
            tp_progress_once();
            tp_wait_check(&w, what, rank);
        } while ((st = ucp_request_check_status(request)) == UCS_INPROGRESS);
        tp_wait_end(&w);
        if (recorded)
            dsm_activity_end(&saved);
    }
    ucp_request_free(request);
    return tp_status(st);
}

static int progress_here(void)
{
    tp_check_not_in_handler("dsm_tp_progress");
    if (!tp.initialized)
        return 0;
    /* a caller polling in a loop counts as a waiting thread */
    atomic_fetch_add_explicit(&tp.activity, 1, memory_order_relaxed);
    return tp_progress_once() > 0;
}

static void wait_flag_on_here(const volatile int *flag, const char *what,
                              int peer, unsigned about, uint64_t arg,
                              uint64_t arg2)
{
    tp_check_not_in_handler("dsm_tp_wait_flag");
    dsm_activity_saved_t saved;
    dsm_activity_wait_about(&saved, what, peer, about, arg, arg2);
    tp_wait_t w;
    tp_wait_begin(&w);
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
        tp_progress_once();
        tp_wait_check(&w, what, -1);   /* what names the node already */
    }
    tp_wait_end(&w);
    dsm_activity_end(&saved);
}

void dsm_tp_wait_flag(const volatile int *flag, const char *what)
{
    dsm_tp_wait_flag_on(flag, what, -1, DSM_ACTIVITY_ABOUT_NONE, 0, 0);
}

static int wait_flag_for_here(const volatile int *flag, const char *what,
                              uint64_t ns)
{
    tp_check_not_in_handler("dsm_tp_wait_flag_for");
    dsm_activity_saved_t saved;
    dsm_activity_wait_begin(&saved, what, -1);
    tp_wait_t w;
    tp_wait_begin(&w);
    uint64_t until = dsm_now_ns() + ns;
    unsigned round = 0;
    int set;
    while (!(set = __atomic_load_n(flag, __ATOMIC_ACQUIRE))) {
        tp_progress_once();
        tp_wait_check(&w, what, -1);
        if (++round % 64 == 0 && dsm_now_ns() >= until)
            break;
    }
    tp_wait_end(&w);
    dsm_activity_end(&saved);
    return set;
}

/* ---- entry points: off a sharable stack first ------------------------------
 * Progress runs handlers, and the loops hold the transport's locks at
 * times: on a sharable stack a push onto a page a release has just
 * write-protected would fault inside them (design.md, "Locks and their
 * order").  So a caller on such a stack continues on its runtime stack. */
typedef struct wait_call {
    const volatile int *flag;
    const char *what;
    int peer;
    unsigned about;
    uint64_t arg, arg2, ns;
    int result;
} wait_call_t;

static void progress_body(void *p)
{
    ((wait_call_t *)p)->result = progress_here();
}

int dsm_tp_progress(void)
{
    if (!dsm_sys_stack_sharable())
        return progress_here();
    wait_call_t c = {0};
    dsm_sys_on_rtstack(progress_body, &c);
    return c.result;
}

static void wait_flag_on_body(void *p)
{
    wait_call_t *c = p;
    wait_flag_on_here(c->flag, c->what, c->peer, c->about, c->arg, c->arg2);
}

void dsm_tp_wait_flag_on(const volatile int *flag, const char *what,
                         int peer, unsigned about, uint64_t arg,
                         uint64_t arg2)
{
    if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
        return;
    if (!dsm_sys_stack_sharable()) {
        wait_flag_on_here(flag, what, peer, about, arg, arg2);
        return;
    }
    wait_call_t c = {.flag = flag, .what = what, .peer = peer,
                     .about = about, .arg = arg, .arg2 = arg2};
    dsm_sys_on_rtstack(wait_flag_on_body, &c);
}

static void wait_flag_for_body(void *p)
{
    wait_call_t *c = p;
    c->result = wait_flag_for_here(c->flag, c->what, c->ns);
}

int dsm_tp_wait_flag_for(const volatile int *flag, const char *what,
                         uint64_t ns)
{
    if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
        return 1;
    if (!dsm_sys_stack_sharable())
        return wait_flag_for_here(flag, what, ns);
    wait_call_t c = {.flag = flag, .what = what, .ns = ns};
    dsm_sys_on_rtstack(wait_flag_for_body, &c);
    return c.result;
}

int dsm_tp_should_yield(uint64_t waited_ns)
{
    if (waited_ns < TP_YIELD_SHARED_NS)
        return 0;
    if (tp.oversubscribed || waited_ns >= TP_YIELD_OWN_CPU_NS ||
        tp.size < 2)
        return 1;
    int cpu = sched_getcpu();
    tp_sources_waiting_on(cpu);
    return tp_sources_cpu_shared(cpu);
}

void dsm_tp_wait_done(void) { tp_sources_waiting_on(-1); }

void dsm_tp_poll_begin(void)
{
    if (tp.initialized)
        tp_poller_enter();
}

void dsm_tp_poll_end(uint64_t polled_ns)
{
    if (!tp.initialized)
        return;
    tp_sources_waiting_on(-1);
    tp_poller_leave(polled_ns);
}

void tp_wake_thread(void)
{
    if (tp.wake_wr < 0)
        return;
    char byte = 1;
    ssize_t unused = write(tp.wake_wr, &byte, 1);   /* full: already rung */
    (void)unused;
}

void dsm_tp_idle(void)
{
    if (!tp.thread_running)
        return;
    /* sequentially consistent, paired with the progress thread's store to
     * thread_parked and load of idle_hint: one of the two sees the other */
    atomic_store(&tp.idle_hint, 1);
    if (atomic_load(&tp.thread_parked))
        tp_wake_thread();
}

void tp_sleep_for_events(long timeout_us, int arm_worker)
{
    struct pollfd *fds = tp.pollfds;
    int *peer_of = tp.poll_peer;
    int n = 0;
    fds[n] = (struct pollfd){.fd = tp.wake_fd, .events = POLLIN};
    peer_of[n++] = -1;
    int lanes_asleep = 0;
    if (arm_worker && tp.worker) {
        /* BUSY: events are pending; progress them (a quiet worker is not
         * progressed by every tp_progress_once) and let the caller come
         * back */
        if (ucp_worker_arm(tp.worker) == UCS_ERR_BUSY) {
            ucp_worker_progress(tp.worker);
            return;
        }
        fds[n] = (struct pollfd){.fd = tp.worker_efd, .events = POLLIN};
        peer_of[n++] = -1;
        /* same-host peers ring the wake pipe from now on */
        if (tp_sources_sleep_begin())
            return;
        lanes_asleep = 1;
    }
    n += tp_sources_watch(fds + n, peer_of + n);
    struct timespec limit = {.tv_sec = timeout_us / 1000000L,
                             .tv_nsec = timeout_us % 1000000L * 1000L};
    int ready = ppoll(fds, (nfds_t)n, timeout_us < 0 ? NULL : &limit, NULL);
    if (lanes_asleep)
        tp_sources_sleep_end();
    if (ready <= 0)
        return;
    if (fds[0].revents) {
        char bytes[64];
        while (read(tp.wake_fd, bytes, sizeof bytes) == (ssize_t)sizeof bytes)
            ;
    }
    for (int i = 1; i < n; i++)
        if (fds[i].revents && peer_of[i] >= 0)
            tp_sources_readable(peer_of[i]);
}
