/*
 * launch_remote.h - dsmrun's side of remote nodes: starting the node
 * agents over ssh or srun, reading their first line, relaying their
 * output, and forwarding signals through their standard input.
 *
 * Layer: launcher.  Entry points: dsm_launch_remote_start (once, instead
 * of the local forks), then from the supervision loop
 * dsm_launch_remote_output, dsm_launch_remote_signal,
 * dsm_launch_remote_report and
 * dsm_launch_remote_drain; dsm_launch_remote_close at the end.  dsmrun's
 * main thread only.  The protocol is described in launch_agent.h.
 */
#ifndef LAUNCH_REMOTE_H
#define LAUNCH_REMOTE_H

#include <signal.h>

#include "launch_hosts.h"
#include "launch_options.h"
#include "launch_supervise.h"

typedef struct dsm_launch_remote {
    const dsm_launch_options_t *options;
    const char *program;              /* resolved path, same on every host */
    const char *job_id;
    const char *token;
    const dsm_launch_hosts_t *hosts;  /* ssh: the hosts */
    const int *host_of_rank;          /* ssh: placement */
    const sigset_t *signal_mask;      /* for the clients, as for nodes */
    const struct sigaction *sigpipe_action;
    const sigset_t *default_signals;
} dsm_launch_remote_t;

/* Nodes under Slurm: SLURM_JOB_NUM_NODES (or SLURM_NNODES); reports and
 * returns DSM_ERR_INVALID when unknown or when `nodes` exceeds it. */
dsm_status_t dsm_launch_slurm_nodes(int nodes_given, int *nodes);

/* Start every agent (one srun for all of them under Slurm) and send each
 * its setup; fills job->nodes.  DSM_ERR_IO (reported) if one cannot be
 * started: the caller ends those already started. */
dsm_status_t dsm_launch_remote_start(const dsm_launch_remote_t *r,
                                     dsm_launch_job_t *job);

/* nodes[index]'s output is readable: the agent's first line (node 0's
 * rendezvous is then sent to every agent), then the node's output,
 * copied to dsmrun's standard output. */
void dsm_launch_remote_output(dsm_launch_job_t *job, int index);

/* Ask every agent for the hang report of its node, once per job; returns
 * how many clients were asked.  Each agent prints its lines, then puts an
 * acknowledgement in its output, which dsmrun takes out.  The job must not
 * end before: a node killed first makes the others exit (its peers failed)
 * before a slower agent has read the request. */
int dsm_launch_remote_report(dsm_launch_job_t *job);
/* 1 when every agent of a client still running has acknowledged. */
int dsm_launch_remote_reported(const dsm_launch_job_t *job);

/* Forward `sig` to every remote node through its agent. */
void dsm_launch_remote_signal(dsm_launch_job_t *job, int sig);

/* Copy what is left in the output pipes (every client has ended). */
void dsm_launch_remote_drain(dsm_launch_job_t *job);

void dsm_launch_remote_close(dsm_launch_job_t *job);

#endif
