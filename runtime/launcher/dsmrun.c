/*
 * dsmrun.c - the dsmomp launcher: starts the nodes of one job on this
 * machine, over ssh (--hosts, --hostfile) or with srun (inside a Slurm
 * allocation), and supervises them; also the node agent of remote nodes
 * (--node-agent, launch_agent.c).
 *
 * Layer: launcher (uses base and sys only).  Entry point: main.
 * Order matters: everything is validated before anything is started; the
 * signals are captured before the first fork; the rendezvous socket exists
 * before any node; dsmrun's copy of it is closed once node 0 has it.
 * Each step lives in its own file: launch_options (command line),
 * launch_program (PATH search), launch_identity (job id, token),
 * launch_rendezvous (node 0's socket), launch_env (node environment),
 * launch_spawn (one node), launch_supervise (waiting and ending the job),
 * launch_shm (shared memory left behind), launch_activity (what each
 * node is doing, for the failure report), launch_report (messages);
 * across hosts: launch_hosts (host lists), launch_remote (ssh and srun
 * clients), launch_agent (the remote side), launch_netif (node 0's
 * address, the interface towards it); launch_ucxnet (UCX's network
 * devices: loopback for a job on this machine, the interface towards node
 * 0 across hosts).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "launch_activity.h"
#include "launch_agent.h"
#include "launch_env.h"
#include "launch_hosts.h"
#include "launch_identity.h"
#include "launch_options.h"
#include "launch_program.h"
#include "launch_remote.h"
#include "launch_rendezvous.h"
#include "launch_report.h"
#include "launch_shm.h"
#include "launch_spawn.h"
#include "launch_supervise.h"
#include "launch_ucxnet.h"

enum {
    EXIT_USAGE = 2,
    EXIT_LAUNCHER = 1,   /* dsmrun itself failed */
};

/* Everything dsmrun holds while the job runs, released in reverse. */
typedef struct launch {
    const dsm_launch_options_t *options;
    char program[PATH_MAX];
    char job_id[DSM_LAUNCH_JOB_ID_MAX];
    char token[DSM_LAUNCH_TOKEN_CHARS + 1];
    char rendezvous[64];
    char shm_dir[PATH_MAX];          /* the job's UCX_POSIX_DIR, or "" */
    int listen_fd;
    int stdin_fd;                    /* node 0's stdin, or -1 to inherit */
    int null_fd;                     /* /dev/null, stdin of the other nodes */
    int activity_fd;                 /* the activity board, or -1 */
    sigset_t previous_mask;
    sigset_t forwarded_signals;
    struct sigaction previous_sigpipe;
    dsm_launch_job_t job;
    dsm_launch_hosts_t hosts;        /* ssh */
    int *host_of_rank;               /* ssh */
} launch_t;

static int fail(const char *what)
{
    dsm_launch_say("%s: %s", what, strerror(errno));
    return EXIT_LAUNCHER;
}

/* Identity, rendezvous socket, shared-memory directory, standard input. */
static int prepare(launch_t *l)
{
    if (dsm_launch_make_job_id(l->job_id) != DSM_OK ||
        dsm_launch_make_token(l->token) != DSM_OK)
        return fail("cannot read random bytes");

    uint16_t port;
    if (dsm_launch_rendezvous_listen(l->options->nodes, &l->listen_fd,
                                     &port) != DSM_OK)
        return fail("cannot create the rendezvous socket");
    snprintf(l->rendezvous, sizeof l->rendezvous, "%s:%u",
             DSM_LAUNCH_RENDEZVOUS_HOST, (unsigned)port);

    if (dsm_launch_shm_dir_needed() &&
        dsm_launch_shm_dir_create(l->job_id, l->shm_dir,
                                  sizeof l->shm_dir) != DSM_OK) {
        /* not fatal: UCX then uses /dev/shm as usual */
        dsm_launch_say("no private shared-memory directory for the job: %s",
                       strerror(errno));
        l->shm_dir[0] = '\0';
    }

    /* not fatal either: failures are then named without an activity */
    if (dsm_launch_activity_create(l->options->nodes, &l->activity_fd) !=
        DSM_OK) {
        dsm_launch_say("no activity board for the job: %s", strerror(errno));
        l->activity_fd = -1;
    }

    l->null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (l->null_fd < 0)
        return fail("cannot open /dev/null");
    /* A node in the job's (background) process group that reads the
     * terminal would be stopped by SIGTTIN, so a terminal reaches nobody. */
    l->stdin_fd = isatty(STDIN_FILENO) ? l->null_fd : -1;
    return 0;
}

static int start_nodes(launch_t *l)
{
    const dsm_launch_options_t *o = l->options;
    /* UCX's TCP transport listens on every network device it may use, and
     * checks no token: on one machine only loopback is needed (shared
     * memory is no network device and stays), unless the user chose */
    char devices[DSM_LAUNCH_NET_DEVICES_WIDTH + 1];
    int user_devices = getenv("UCX_NET_DEVICES") != NULL;
    if (!user_devices &&
        dsm_launch_ucx_net_devices(DSM_LAUNCH_LOOPBACK, DSM_LAUNCH_RDMA_SYSFS,
                                   devices, sizeof devices) != DSM_OK) {
        dsm_launch_say("too many network devices for UCX_NET_DEVICES: set "
                       "it for the job");
        return EXIT_USAGE;
    }
    dsm_launch_env_values_t values = {
        .size = o->nodes,
        .threads = o->threads,
        .rendezvous = l->rendezvous,
        .rendezvous_fd = l->listen_fd,
        .token = l->token,
        .job_id = l->job_id,
        .ucx_posix_dir = l->shm_dir[0] ? l->shm_dir : NULL,
        .activity_fd = l->activity_fd,
        .ucx_net_devices = user_devices ? NULL : devices,
    };

    if (o->verbose)
        dsm_launch_say("job %s: %d node%s of %d thread%s, rendezvous %s: %s",
                       l->job_id, o->nodes, o->nodes == 1 ? "" : "s",
                       o->threads, o->threads == 1 ? "" : "s", l->rendezvous,
                       l->program);

    for (int rank = 0; rank < o->nodes; rank++) {
        char **envp;
        if (dsm_launch_env_build(&values, rank, &envp) != DSM_OK) {
            errno = ENOMEM;
            return fail("cannot build the node environment");
        }
        dsm_launch_child_t child = {
            .rank = rank,
            .path = l->program,
            .argv = o->program_argv,
            .envp = envp,
            .process_group = l->job.process_group,
            .inherit_fd = rank == 0 ? l->listen_fd : -1,
            .stdin_fd = rank == 0 ? l->stdin_fd : l->null_fd,
            .stdout_fd = -1,
            .signal_mask = &l->previous_mask,
            .sigpipe_action = &l->previous_sigpipe,
            .default_signals = &l->forwarded_signals,
        };
        pid_t pid;
        dsm_status_t status = dsm_launch_spawn(&child, &pid);
        dsm_launch_env_free(envp);
        if (status != DSM_OK)
            return fail("cannot start a node");

        l->job.nodes[rank] = (dsm_launch_node_t){.pid = pid, .running = 1};
        l->job.node_count = rank + 1;
        if (rank == 0)
            l->job.process_group = pid;
        if (o->verbose)
            dsm_launch_say("node %d pid %ld", rank, (long)pid);
    }
    return 0;
}

/* ssh or srun: validate the hosts (before anything starts), then start
 * the agents. */
static int start_remote(launch_t *l)
{
    const dsm_launch_options_t *o = l->options;
    if (dsm_launch_make_job_id(l->job_id) != DSM_OK ||
        dsm_launch_make_token(l->token) != DSM_OK)
        return fail("cannot read random bytes");
    if (o->verbose)
        dsm_launch_say("job %s: %d node%s of %d thread%s over %s: %s",
                       l->job_id, o->nodes, o->nodes == 1 ? "" : "s",
                       o->threads, o->threads == 1 ? "" : "s",
                       o->where == DSM_LAUNCH_SLURM ? "srun" : "ssh",
                       l->program);
    dsm_launch_remote_t remote = {
        .options = o,
        .program = l->program,
        .job_id = l->job_id,
        .token = l->token,
        .hosts = &l->hosts,
        .host_of_rank = l->host_of_rank,
        .signal_mask = &l->previous_mask,
        .sigpipe_action = &l->previous_sigpipe,
        .default_signals = &l->forwarded_signals,
    };
    dsm_status_t st = dsm_launch_remote_start(&remote, &l->job);
    return st == DSM_OK ? 0 : st == DSM_ERR_INVALID ? EXIT_USAGE
                                                    : EXIT_LAUNCHER;
}

/* Reads the hosts or the allocation; settles the node count. */
static int plan_remote(launch_t *l, dsm_launch_options_t *o)
{
    char absolute[PATH_MAX];
    if (!realpath(l->program, absolute))
        return fail("cannot resolve the program's path");
    snprintf(l->program, sizeof l->program, "%s", absolute);
    if (o->where == DSM_LAUNCH_SLURM)
        return dsm_launch_slurm_nodes(o->nodes_given, &o->nodes) == DSM_OK
                   ? 0 : EXIT_USAGE;
    dsm_status_t st = o->hosts_list
        ? dsm_launch_hosts_from_list(o->hosts_list, &l->hosts)
        : dsm_launch_hosts_from_file(o->hostfile, &l->hosts);
    if (st != DSM_OK)
        return EXIT_USAGE;
    if (!o->nodes_given)
        o->nodes = l->hosts.total_slots > DSM_LAUNCH_MAX_NODES
                       ? DSM_LAUNCH_MAX_NODES : l->hosts.total_slots;
    l->host_of_rank = calloc((size_t)o->nodes, sizeof *l->host_of_rank);
    if (!l->host_of_rank) {
        errno = ENOMEM;
        return fail("cannot allocate");
    }
    return dsm_launch_hosts_place(&l->hosts, o->nodes, l->host_of_rank) ==
                   DSM_OK ? 0 : EXIT_USAGE;
}

static int run(const dsm_launch_options_t *options)
{
    static dsm_launch_options_t planned;
    planned = *options;
    options = &planned;
    launch_t *l = calloc(1, sizeof *l);
    if (!l) {
        errno = ENOMEM;
        return fail("cannot allocate");
    }
    dsm_launch_node_t *nodes = NULL;
    int exit_status = EXIT_LAUNCHER;
    if (dsm_launch_resolve_program(options->program_argv[0], l->program,
                                   sizeof l->program) != DSM_OK) {
        exit_status = EXIT_USAGE;
        goto free_memory;
    }
    if (planned.where != DSM_LAUNCH_LOCAL) {
        exit_status = plan_remote(l, &planned);
        if (exit_status != 0)
            goto free_memory;
        exit_status = EXIT_LAUNCHER;
    }
    nodes = calloc((size_t)options->nodes, sizeof *nodes);
    if (!nodes) {
        errno = ENOMEM;
        exit_status = fail("cannot allocate");
        goto free_memory;
    }
    l->options = options;
    l->listen_fd = l->null_fd = l->stdin_fd = l->activity_fd = -1;
    l->job = (dsm_launch_job_t){
        .nodes = nodes,
        .kill_grace_s = options->kill_grace_s,
        .timeout_s = options->timeout_s,
        .verbose = options->verbose,
        .signal_fd = -1,
    };

    time_t job_start_time = time(NULL);

    /* Processes that nodes leave behind are reparented to dsmrun, so that
     * it can wait for them and nothing outlives the job unnoticed. */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        exit_status = fail("cannot become a child subreaper");
        goto free_memory;
    }
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    if (sigaction(SIGPIPE, &ignore, &l->previous_sigpipe) != 0) {
        exit_status = fail("cannot ignore SIGPIPE");
        goto free_memory;
    }
    dsm_launch_forwarded_signals(&l->forwarded_signals);
    if (dsm_launch_signals_capture(&l->previous_mask,
                                   &l->job.signal_fd) != DSM_OK) {
        exit_status = fail("cannot capture signals");
        goto free_memory;
    }

    if (options->where != DSM_LAUNCH_LOCAL) {
        int start_failure = start_remote(l);
        if (start_failure != 0) {
            dsm_launch_end_now(&l->job);
            exit_status = start_failure;
        } else if (dsm_launch_supervise(&l->job, &exit_status) != DSM_OK) {
            exit_status = fail("supervising the nodes failed");
        }
        dsm_launch_remote_close(&l->job);
        goto release;
    }

    int prepared = prepare(l);
    if (prepared != 0) {
        exit_status = prepared;
        goto release;
    }
    int start_failure = start_nodes(l);
    /* node 0 holds the socket now; dsmrun's copy would keep the port open
     * after node 0 is gone */
    close(l->listen_fd);
    l->listen_fd = -1;
    if (start_failure != 0) {
        dsm_launch_end_now(&l->job);
        exit_status = start_failure;
    } else if (dsm_launch_supervise(&l->job, &exit_status) != DSM_OK) {
        exit_status = fail("supervising the nodes failed");
    }
    dsm_launch_sysv_remove(l->job.nodes, l->job.node_count, job_start_time,
                           options->verbose);

release:
    dsm_launch_activity_destroy();
    if (l->shm_dir[0])
        dsm_launch_shm_dir_remove(l->shm_dir, options->verbose);
    if (l->null_fd >= 0)
        close(l->null_fd);
    close(l->job.signal_fd);
    l->job.signal_fd = -1;
    if (l->listen_fd >= 0)
        close(l->listen_fd);
free_memory:
    explicit_bzero(l->token, sizeof l->token);
    dsm_launch_hosts_free(&l->hosts);
    free(l->host_of_rank);
    free(nodes);
    free(l);
    return exit_status;
}

int main(int argc, char **argv)
{
    dsm_launch_options_t options;
    if (dsm_launch_options_parse(argc, argv, &options) != DSM_OK)
        return EXIT_USAGE;

    switch (options.action) {
    case DSM_LAUNCH_HELP:
        dsm_launch_print_help(stdout);
        return fflush(stdout) == 0 ? 0 : EXIT_LAUNCHER;
    case DSM_LAUNCH_VERSION:
        dsm_launch_print_version(stdout);
        return fflush(stdout) == 0 ? 0 : EXIT_LAUNCHER;
    case DSM_LAUNCH_AGENT:
        return dsm_launch_agent_main();
    case DSM_LAUNCH_RUN:
        break;
    }
    return run(&options);
}
