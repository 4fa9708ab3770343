/*
 * launch_supervise.h - watches the running nodes and ends the job.
 *
 * Layer: launcher.  Entry points: dsm_launch_signals_capture (before the
 * first fork), dsm_launch_supervise (after the last), dsm_launch_end_now (a
 * start that failed half-way).  dsmrun is single-threaded; everything here
 * runs in its main thread.  Child exits and the forwarded signals arrive
 * through one signalfd, so the loop sleeps in poll(2) until something
 * happens or an escalation deadline passes.
 */
#ifndef LAUNCH_SUPERVISE_H
#define LAUNCH_SUPERVISE_H

#include <signal.h>
#include <sys/types.h>

#include "dsm.h"
#include "launch_marker.h"

/* Seconds dsmrun waits after SIGKILL before reporting what is still there. */
#define DSM_LAUNCH_AFTER_KILL_S 2

/* Seconds dsmrun waits for remote agents to print their hang report
 * before it ends the job (an agent on a host that hangs does not answer). */
#define DSM_LAUNCH_REPORT_WAIT_S 3

#define DSM_LAUNCH_LABEL_MAX 320

typedef struct dsm_launch_node {
    pid_t pid;
    int running;        /* not yet reaped */
    int wait_status;    /* from waitpid, once reaped */
    /* Remote jobs only (launch_remote.c): pid is the ssh or srun client. */
    char label[DSM_LAUNCH_LABEL_MAX]; /* "node 1 on host 'b'", "srun" */
    int lifeline_fd;    /* write end of the agent's standard input */
    int output_fd;      /* read end of its standard output; -1 at EOF */
    int announced;      /* the agent's first line has arrived */
    char line[DSM_LAUNCH_LABEL_MAX]; /* that line while it arrives */
    size_t line_len;
    int agents;         /* agents behind the client: 1, or srun's nodes */
    int reports_seen;   /* acknowledgements of the hang report request */
    size_t held_len;    /* output that may begin one, kept for the next read */
    char held[DSM_LAUNCH_MARKER_MAX];
} dsm_launch_node_t;

typedef struct dsm_launch_job {
    dsm_launch_node_t *nodes;   /* index = rank */
    int node_count;             /* nodes started so far */
    pid_t process_group;        /* the job's group: node 0's pid */
    int signal_fd;              /* from dsm_launch_signals_capture */
    int kill_grace_s;
    int timeout_s;              /* end the job after this long; 0: never */
    int verbose;
    int remote;                 /* nodes run behind ssh or srun agents */
    char rendezvous[DSM_LAUNCH_LABEL_MAX]; /* remote: from node 0's agent */
    int rendezvous_sent;
    char report_marker[DSM_LAUNCH_MARKER_MAX]; /* remote: once asked */
} dsm_launch_job_t;

/* The signals dsmrun forwards to the job: SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT. */
void dsm_launch_forwarded_signals(sigset_t *set);

/* Block SIGCHLD and the forwarded signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
 * and return a signalfd for them; nothing is lost between the forks and the
 * supervision loop.  Children restore *previous_mask before execve. */
dsm_status_t dsm_launch_signals_capture(sigset_t *previous_mask,
                                        int *signal_fd);

/* Wait until every node has ended and the job's process group is empty.
 * The first node that fails (non-zero exit or signal) is named on stderr,
 * the others get SIGTERM and, after the grace period, SIGKILL; forwarded
 * signals go to the group, followed by SIGKILL after the grace period.
 * SIGQUIT, and a job that runs longer than job->timeout_s, print the hang
 * report (what every thread of every node is doing, from the activity
 * boards) and end the job with SIGTERM; *exit_status is then 131 or
 * DSM_LAUNCH_EXIT_TIMEOUT.
 * A node that then dies of a signal dsmrun did not send is named too.
 * *exit_status: 0; the failed node's status (128+N for signal N), where a
 * node killed by a signal counts before one that ended with the runtime's
 * fatal status (DSM_EXIT_FATAL, usually a consequence); or 128+N for a
 * signal N that dsmrun received first.  DSM_ERR_IO or DSM_ERR_NOMEM if
 * supervising itself fails (the job is then killed). */
dsm_status_t dsm_launch_supervise(dsm_launch_job_t *job, int *exit_status);

/* SIGKILL the job's group and reap the nodes started so far. */
void dsm_launch_end_now(dsm_launch_job_t *job);

#endif
