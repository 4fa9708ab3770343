/*
 * launch_supervise.c - dsmrun's supervision loop.
 *
 * Layer: launcher.  Entry points in launch_supervise.h.  Main thread of
 * dsmrun only.  dsmrun is a child subreaper (set in main), so processes
 * that nodes leave behind are reparented to it and reaped here too; the
 * job ends when no node runs and the job's process group is empty.
 */
#include "launch_supervise.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base_log.h"
#include "base_time.h"
#include "launch_activity.h"
#include "launch_options.h"
#include "launch_remote.h"
#include "launch_report.h"

#define NS_PER_S  1000000000ull
#define NS_PER_MS 1000000ull

typedef struct supervisor {
    dsm_launch_job_t *job;
    int running;            /* nodes not yet reaped */
    int ending;             /* SIGTERM or a forwarded signal has been sent */
    int kill_sent;          /* SIGKILL has been sent */
    uint64_t deadline_ns;   /* next escalation while ending */
    uint64_t job_deadline_ns;  /* --timeout; 0: none */
    uint64_t report_deadline_ns; /* remote agents are reporting; 0: not */
    int exit_status;
    int failure_seen;       /* exit_status names a failed node or a signal */
    int culprit_class;      /* failure_class of the node exit_status names */
    sigset_t sent;          /* signals dsmrun has sent to the job */
    unsigned char *reaped_now; /* per rank: reaped in the current batch */
    struct pollfd *pollfds;    /* the signalfd, then remote outputs */
} supervisor_t;

static void signal_group(supervisor_t *s, int sig)
{
    /* kill(-0) or kill(-1) would reach far more than the job */
    DSM_ASSERT(s->job->process_group > 1);
    sigaddset(&s->sent, sig);
    /* Remote nodes get the signal through their agent; the clients (ssh,
     * srun) only get SIGKILL, whose end of file makes each agent SIGKILL
     * its node. */
    if (s->job->remote && sig != SIGKILL)
        dsm_launch_remote_signal(s->job, sig);
    else
        kill(-s->job->process_group, sig);
}

static int group_is_empty(const supervisor_t *s)
{
    DSM_ASSERT(s->job->process_group > 1);
    return kill(-s->job->process_group, 0) != 0 && errno == ESRCH;
}

/* A stopped node (SIGSTOP, a debugger) would keep the signal pending
 * until SIGKILL; SIGCONT lets it end now. */
static void continue_stopped(supervisor_t *s)
{
    DSM_ASSERT(s->job->process_group > 1);
    kill(-s->job->process_group, SIGCONT);
}

static void begin_ending(supervisor_t *s, int sig)
{
    if (!s->ending) {
        s->ending = 1;
        s->deadline_ns = dsm_now_ns() +
                         (uint64_t)s->job->kill_grace_s * NS_PER_S;
    }
    signal_group(s, sig);
    continue_stopped(s);
}

static int status_code(int wait_status)
{
    if (WIFSIGNALED(wait_status))
        return 128 + WTERMSIG(wait_status);
    return WEXITSTATUS(wait_status);
}

static int is_failure(int wait_status)
{
    return WIFSIGNALED(wait_status) || WEXITSTATUS(wait_status) != 0;
}

/* Which of several failed nodes caused the failure: one killed by a signal
 * is usually the cause; one that ended with the runtime's fatal status
 * usually reports the consequence (a peer that disappeared). */
static int failure_class(int wait_status)
{
    if (WIFSIGNALED(wait_status))
        return 3;
    return WEXITSTATUS(wait_status) == DSM_EXIT_FATAL ? 1 : 2;
}

/* "node 1 (pid 1234) killed by signal 9 (Killed) while fetching page 7
 * from node 0", SUFFIX appended; the activity only when the node had one
 * on the board (launch_activity.h). */
static void report_node_end(int rank, const dsm_launch_node_t *node,
                            const char *suffix)
{
    int st = node->wait_status;
    char activity[512], doing[520] = "";
    if (dsm_launch_activity_describe(rank, activity, sizeof activity) > 0)
        snprintf(doing, sizeof doing, " while %s", activity);
    if (node->label[0]) {
        if (!node->announced)
            dsm_launch_say("%s: could not start (its launcher, pid %ld, %s "
                           "%d)%s", node->label, (long)node->pid,
                           WIFSIGNALED(st) ? "was killed by signal"
                                           : "exited with status",
                           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
                           suffix);
        else if (WIFSIGNALED(st))
            dsm_launch_say("%s (launcher pid %ld) killed by signal %d%s",
                           node->label, (long)node->pid, WTERMSIG(st),
                           suffix);
        else
            dsm_launch_say("%s exited with status %d%s", node->label,
                           WEXITSTATUS(st), suffix);
        return;
    }
    if (WIFSIGNALED(st))
        dsm_launch_say("node %d (pid %ld) killed by signal %d (%s)%s%s", rank,
                       (long)node->pid, WTERMSIG(st), strsignal(WTERMSIG(st)),
                       doing, suffix);
    else
        dsm_launch_say("node %d (pid %ld) exited with status %d%s%s", rank,
                       (long)node->pid, WEXITSTATUS(st), doing, suffix);
}

static int find_node(const dsm_launch_job_t *job, pid_t pid)
{
    for (int rank = 0; rank < job->node_count; rank++)
        if (job->nodes[rank].pid == pid && job->nodes[rank].running)
            return rank;
    return -1;
}

static int worse_failure(int wait_status, int than_status)
{
    return failure_class(wait_status) > failure_class(than_status);
}

/* A node killed while the job is ending by a signal that dsmrun did not
 * send failed on its own.  It may have died first and been reaped after a
 * peer that noticed (its sockets close before it becomes a zombie), so it
 * is named too, and its status wins over the runtime's fatal status. */
static void check_independent_death(supervisor_t *s, int rank)
{
    const dsm_launch_node_t *node = &s->job->nodes[rank];
    if (!WIFSIGNALED(node->wait_status) ||
        sigismember(&s->sent, WTERMSIG(node->wait_status)))
        return;
    if (!s->job->verbose)
        report_node_end(rank, node, "");
    if (failure_class(node->wait_status) > s->culprit_class) {
        s->exit_status = status_code(node->wait_status);
        s->culprit_class = failure_class(node->wait_status);
    }
}

/* Reap every child that has ended: nodes, and processes reparented to
 * dsmrun.  The first failure while the job is still running is named and
 * ends the job; with --verbose every node's end is reported. */
static void reap_children(supervisor_t *s)
{
    dsm_launch_job_t *job = s->job;
    int culprit = -1;
    int wait_status;
    pid_t pid;

    while ((pid = waitpid(-1, &wait_status, WNOHANG)) > 0) {
        int rank = find_node(job, pid);
        if (rank < 0)
            continue;   /* a reparented descendant of a node */
        dsm_launch_node_t *node = &job->nodes[rank];
        node->running = 0;
        node->wait_status = wait_status;
        s->reaped_now[rank] = 1;
        s->running--;
        if (s->ending)
            check_independent_death(s, rank);
        else if (is_failure(wait_status) &&
            (culprit < 0 ||
             worse_failure(wait_status, job->nodes[culprit].wait_status) ||
             (!worse_failure(job->nodes[culprit].wait_status, wait_status) &&
              rank < culprit)))
            culprit = rank;
    }

    for (int rank = 0; rank < job->node_count; rank++) {
        if (!s->reaped_now[rank])
            continue;
        s->reaped_now[rank] = 0;
        if (rank == culprit)
            report_node_end(rank, &job->nodes[rank],
                            s->running > 0 ? "; ending the job" : "");
        else if (job->verbose)
            report_node_end(rank, &job->nodes[rank], "");
    }

    if (culprit < 0)
        return;
    s->exit_status = status_code(job->nodes[culprit].wait_status);
    s->culprit_class = failure_class(job->nodes[culprit].wait_status);
    s->failure_seen = 1;
    begin_ending(s, SIGTERM);
}

/* What every thread of every node is doing: from dsmrun's board for
 * local nodes; remote nodes' agents print their own node's lines, and
 * the job ends once they have all said so (finish_report). */
static void hang_report(supervisor_t *s)
{
    dsm_launch_job_t *job = s->job;
    if (job->remote) {
        if (!s->ending && dsm_launch_remote_report(job) > 0)
            s->report_deadline_ns = dsm_now_ns() +
                                    DSM_LAUNCH_REPORT_WAIT_S * NS_PER_S;
        return;
    }
    for (int rank = 0; rank < job->node_count; rank++) {
        if (job->nodes[rank].running)
            dsm_launch_activity_report(rank, NULL);
        else
            dsm_launch_say("node %d: has ended", rank);
    }
}

/* SIGQUIT or --timeout: the report, then the job ends with SIGTERM. */
static void end_hung_job(supervisor_t *s, int exit_status)
{
    hang_report(s);
    if (!s->failure_seen) {
        s->exit_status = exit_status;
        s->culprit_class = INT_MAX;   /* the user's limit explains it all */
        s->failure_seen = 1;
    }
    if (!s->ending && !s->report_deadline_ns)
        begin_ending(s, SIGTERM);
}

/* Remote agents are printing the hang report: the job ends when all have
 * acknowledged, or when their time is up. */
static void finish_report(supervisor_t *s)
{
    if (s->ending) {
        s->report_deadline_ns = 0;   /* ended meanwhile, by a failure */
        return;
    }
    if (dsm_launch_remote_reported(s->job)) {
        s->report_deadline_ns = 0;
    } else if (dsm_now_ns() >= s->report_deadline_ns) {
        s->report_deadline_ns = 0;
        dsm_launch_say("not every agent printed its node's report within "
                       "%d s; ending the job", DSM_LAUNCH_REPORT_WAIT_S);
    }
    if (!s->report_deadline_ns)
        begin_ending(s, SIGTERM);
}

static void time_out(supervisor_t *s)
{
    s->job_deadline_ns = 0;
    dsm_launch_say("the job ran longer than --timeout %d s; what every "
                   "thread is doing:", s->job->timeout_s);
    end_hung_job(s, DSM_LAUNCH_EXIT_TIMEOUT);
}

static void forward_signal(supervisor_t *s, int sig)
{
    if (sig == SIGQUIT) {
        dsm_launch_say("received signal %d (%s); what every thread is "
                       "doing:", sig, strsignal(sig));
        end_hung_job(s, 128 + sig);
        return;
    }
    if (!s->ending)
        dsm_launch_say("received signal %d (%s); ending the job", sig,
                       strsignal(sig));
    if (!s->failure_seen) {
        s->exit_status = 128 + sig;
        s->culprit_class = INT_MAX;   /* the user's signal explains it all */
        s->failure_seen = 1;
    }
    begin_ending(s, sig);
}

/* Drain the signalfd; returns -1 if reading it fails. */
static int handle_signals(supervisor_t *s)
{
    struct signalfd_siginfo info[8];
    int child_ended = 0;

    for (;;) {
        ssize_t n = read(s->job->signal_fd, info, sizeof info);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                break;
            return -1;
        }
        for (size_t i = 0; i < (size_t)n / sizeof *info; i++) {
            if (info[i].ssi_signo == SIGCHLD)
                child_ended = 1;
            else
                forward_signal(s, (int)info[i].ssi_signo);
        }
    }
    if (child_ended)
        reap_children(s);
    return 0;
}

/* Called when the deadline passes: SIGKILL first, then give up waiting. */
static int escalate(supervisor_t *s)
{
    if (!s->kill_sent) {
        signal_group(s, SIGKILL);
        s->kill_sent = 1;
        s->deadline_ns = dsm_now_ns() + DSM_LAUNCH_AFTER_KILL_S * NS_PER_S;
        return 0;
    }
    for (int rank = 0; rank < s->job->node_count; rank++)
        if (s->job->nodes[rank].running)
            dsm_launch_say("node %d (pid %ld) has not ended after SIGKILL",
                           rank, (long)s->job->nodes[rank].pid);
    if (!group_is_empty(s))
        dsm_launch_say("processes remain in the job's process group %ld",
                       (long)s->job->process_group);
    return -1;
}

void dsm_launch_forwarded_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGQUIT);
}

dsm_status_t dsm_launch_signals_capture(sigset_t *previous_mask,
                                        int *signal_fd)
{
    sigset_t set;
    dsm_launch_forwarded_signals(&set);
    sigaddset(&set, SIGCHLD);

    sigset_t previous;
    if (sigprocmask(SIG_BLOCK, &set, &previous) != 0)
        return DSM_ERR_IO;
    int fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd < 0) {
        int saved = errno;
        sigprocmask(SIG_SETMASK, &previous, NULL);
        errno = saved;
        return DSM_ERR_IO;
    }
    *previous_mask = previous;
    *signal_fd = fd;
    return DSM_OK;
}

/* poll's timeout until deadline_ns: rounded up, 0 once passed. */
static int ms_until(uint64_t deadline_ns)
{
    uint64_t now = dsm_now_ns();
    if (now >= deadline_ns)
        return 0;
    uint64_t left_ms = (deadline_ns - now + NS_PER_MS - 1) / NS_PER_MS;
    return left_ms > INT_MAX ? INT_MAX : (int)left_ms;
}

dsm_status_t dsm_launch_supervise(dsm_launch_job_t *job, int *exit_status)
{
    supervisor_t s = {.job = job, .running = job->node_count};
    if (job->timeout_s > 0)
        s.job_deadline_ns = dsm_now_ns() + (uint64_t)job->timeout_s * NS_PER_S;
    sigemptyset(&s.sent);
    s.reaped_now = calloc((size_t)job->node_count, 1);
    s.pollfds = calloc((size_t)job->node_count + 1, sizeof *s.pollfds);
    if (!s.reaped_now || !s.pollfds) {
        free(s.reaped_now);
        free(s.pollfds);
        dsm_launch_end_now(job);
        errno = ENOMEM;
        return DSM_ERR_NOMEM;
    }

    for (;;) {
        if (s.running == 0) {
            if (group_is_empty(&s))
                break;
            if (!s.ending) {
                dsm_launch_say("ending processes that the job left behind");
                begin_ending(&s, SIGTERM);
            }
        }

        if (s.report_deadline_ns)
            finish_report(&s);

        int timeout_ms = -1;
        if (s.report_deadline_ns) {
            timeout_ms = ms_until(s.report_deadline_ns);
        } else if (s.ending) {
            if (dsm_now_ns() >= s.deadline_ns) {
                if (escalate(&s) != 0)
                    break;
                continue;
            }
            timeout_ms = ms_until(s.deadline_ns);
        } else if (s.job_deadline_ns) {
            if (dsm_now_ns() >= s.job_deadline_ns) {
                time_out(&s);
                continue;
            }
            timeout_ms = ms_until(s.job_deadline_ns);
        }

        struct pollfd *pfd = s.pollfds;
        pfd[0] = (struct pollfd){.fd = job->signal_fd, .events = POLLIN};
        for (int i = 0; job->remote && i < job->node_count; i++)
            pfd[i + 1] = (struct pollfd){.fd = job->nodes[i].output_fd,
                                         .events = POLLIN};
        nfds_t count = job->remote ? (nfds_t)job->node_count + 1 : 1;
        int ready = poll(pfd, count, timeout_ms);
        if (ready < 0 && errno != EINTR)
            goto fail;
        for (nfds_t i = 1; ready > 0 && i < count; i++)
            if (pfd[i].revents)
                dsm_launch_remote_output(job, (int)i - 1);
        if (ready > 0 && pfd[0].revents && handle_signals(&s) != 0)
            goto fail;
    }
    if (job->remote)
        dsm_launch_remote_drain(job);

    free(s.reaped_now);
    free(s.pollfds);
    *exit_status = s.exit_status;
    return DSM_OK;

fail:;
    int saved = errno;
    dsm_launch_end_now(job);
    free(s.reaped_now);
    free(s.pollfds);
    errno = saved;
    return DSM_ERR_IO;
}

void dsm_launch_end_now(dsm_launch_job_t *job)
{
    if (job->process_group > 1)
        kill(-job->process_group, SIGKILL);
    for (int rank = 0; rank < job->node_count; rank++) {
        dsm_launch_node_t *node = &job->nodes[rank];
        while (node->running) {
            int wait_status;
            pid_t pid = waitpid(node->pid, &wait_status, 0);
            if (pid == node->pid) {
                node->running = 0;
                node->wait_status = wait_status;
            } else if (pid < 0 && errno != EINTR) {
                node->running = 0;   /* not our child any more */
            }
        }
    }
}
