/*
 * launch_spawn.h - starts one node: fork, prepare the child, execve.
 *
 * Layer: launcher.  Entry point: dsm_launch_spawn, called by dsmrun for each
 * node.  Everything the child needs is prepared by the caller, because the
 * child may only make async-signal-safe calls between fork and execve.
 */
#ifndef LAUNCH_SPAWN_H
#define LAUNCH_SPAWN_H

#include <signal.h>
#include <sys/types.h>

#include "dsm.h"

typedef struct dsm_launch_child {
    int rank;                     /* for the child's error messages */
    const char *path;             /* resolved program */
    char *const *argv;
    char *const *envp;
    pid_t process_group;          /* 0: the child founds the job's group */
    int inherit_fd;               /* kept open across execve, or -1 */
    int stdin_fd;                 /* becomes the child's stdin, or -1 */
    int stdout_fd;                /* becomes the child's stdout, or -1 */
    const sigset_t *signal_mask;  /* restored in the child before execve */
    const struct sigaction *sigpipe_action; /* restored likewise */
    const sigset_t *default_signals; /* reset to SIG_DFL: the signals dsmrun
                                        forwards must reach the program even
                                        if dsmrun was started ignoring them */
} dsm_launch_child_t;

/* Fork a child that joins the job's process group, gets SIGKILL when dsmrun
 * dies (PR_SET_PDEATHSIG), runs with ADDR_NO_RANDOMIZE added to its
 * personality, and execs the program; if any step fails it reports
 * "dsmrun: node R: ..." and exits 127.  The parent also places the child in
 * the group, so the group exists when this returns.  Returns DSM_ERR_IO
 * (errno set) when fork fails. */
dsm_status_t dsm_launch_spawn(const dsm_launch_child_t *child, pid_t *pid);

#endif
