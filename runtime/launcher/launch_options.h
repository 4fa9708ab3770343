/*
 * launch_options.h - dsmrun's command line and its help text.
 *
 * Layer: launcher (uses base for number parsing).  Entry points:
 * dsm_launch_options_parse, dsm_launch_print_help, dsm_launch_print_version.
 * Called once from main before anything is started.
 */
#ifndef LAUNCH_OPTIONS_H
#define LAUNCH_OPTIONS_H

#include <stdio.h>

#include "dsm.h"

#define DSM_LAUNCH_MAX_NODES          4096
#define DSM_LAUNCH_MAX_THREADS        1024   /* DSM_THREADS limit of base */
#define DSM_LAUNCH_MAX_KILL_GRACE     3600
#define DSM_LAUNCH_DEFAULT_KILL_GRACE 2
#define DSM_LAUNCH_MAX_TIMEOUT        (366 * 24 * 3600)
/* dsmrun's exit status when --timeout ended the job (as timeout(1)) */
#define DSM_LAUNCH_EXIT_TIMEOUT       124

typedef enum dsm_launch_action {
    DSM_LAUNCH_RUN = 0,
    DSM_LAUNCH_HELP,
    DSM_LAUNCH_VERSION,
    DSM_LAUNCH_AGENT,          /* --node-agent: the remote side, internal */
} dsm_launch_action_t;

typedef enum dsm_launch_where {
    DSM_LAUNCH_LOCAL = 0,      /* fork/exec on this machine */
    DSM_LAUNCH_SSH,            /* --hosts / --hostfile / DSM_HOSTFILE */
    DSM_LAUNCH_SLURM,          /* SLURM_JOB_ID set: srun */
} dsm_launch_where_t;

#define DSM_LAUNCH_MAX_PASS 64     /* --env names */

typedef struct dsm_launch_options {
    dsm_launch_action_t action;
    int nodes;                /* -n, default 1 (hosts: their slots) */
    int nodes_given;          /* -n was on the command line */
    dsm_launch_where_t where;
    const char *hosts_list;   /* --hosts */
    const char *hostfile;     /* --hostfile, else DSM_HOSTFILE */
    const char *ssh_command;  /* --ssh, else DSM_SSH, else the default */
    const char *interface;    /* --interface, else DSM_INTERFACE, or "" */
    const char *pass_env;     /* DSM_PASS_ENV: comma-separated names */
    const char *pass[DSM_LAUNCH_MAX_PASS]; /* --env NAME, repeatable */
    int pass_count;
    int threads;              /* -t, default 1 */
    int kill_grace_s;         /* --kill-grace, else DSM_KILL_GRACE, else 2 */
    int timeout_s;            /* --timeout, else DSM_JOB_TIMEOUT; 0: none */
    int verbose;              /* -v */
    char **program_argv;      /* the program and its arguments (points into
                                 main's argv, NULL-terminated); NULL unless
                                 action is DSM_LAUNCH_RUN */
} dsm_launch_options_t;

/* Parse main's arguments (and DSM_KILL_GRACE, DSM_JOB_TIMEOUT, DSM_SSH,
 * DSM_INTERFACE, DSM_PASS_ENV, DSM_HOSTFILE, SLURM_JOB_ID).  On a bad option, a bad
 * value or a missing program, prints one line starting with "dsmrun: " on
 * stderr and returns DSM_ERR_INVALID. */
dsm_status_t dsm_launch_options_parse(int argc, char **argv,
                                      dsm_launch_options_t *out);

void dsm_launch_print_help(FILE *stream);
void dsm_launch_print_version(FILE *stream);

#endif
