/*
 * launch_agent.c - the node agent on a remote host (see launch_agent.h).
 *
 * Layer: launcher.  Entry point: dsm_launch_agent_main.  Single-threaded;
 * sleeps in poll(2) on its standard input (dsmrun's lifeline) and a
 * signalfd (the node's exit, signals from sshd or slurmstepd).
 */
#include "launch_agent.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base_config.h"
#include "launch_activity.h"
#include "launch_env.h"
#include "launch_identity.h"
#include "launch_netif.h"
#include "launch_options.h"
#include "launch_marker.h"
#include "launch_report.h"
#include "launch_spawn.h"
#include "launch_supervise.h"
#include "launch_ucxnet.h"

extern char **environ;

enum { EXIT_AGENT = 1, RECORD_MAX = 1 << 20 };

typedef struct agent {
    /* standard input, split into records */
    char *buf;
    size_t have, used, cap;
    int eof;
    /* the setup */
    int rank, size, threads;
    char job_id[DSM_LAUNCH_JOB_ID_MAX];
    char token[DSM_TOKEN_MAX];
    char interface[64];
    char route_to[DSM_HOST_MAX];
    char host[DSM_HOST_MAX];
    char *program;
    char **argv;
    int argc;
    char **env;
    int envc;
    /* the run */
    char rendezvous[DSM_HOST_MAX + 8];
    int listen_fd;
    int signal_fd;
    sigset_t previous_mask, forwarded;
    struct sigaction previous_sigpipe;
    int activity_fd;                /* this host's board, or -1 */
    pid_t node;                     /* 0 until started */
    sigset_t sent;                  /* signals passed on to the node */
} agent_t;

static int say_fail(agent_t *a, const char *what)
{
    dsm_launch_say("node %d on host %s: %s", a->rank, a->host[0] ? a->host
                   : "?", what);
    return EXIT_AGENT;
}

/* Next complete record, or NULL when more must be read. */
static char *next_record(agent_t *a)
{
    if (a->used == a->have)
        return NULL;   /* also before the first read, when buf is NULL */
    char *start = a->buf + a->used;
    char *nul = memchr(start, '\0', a->have - a->used);
    if (!nul)
        return NULL;
    a->used = (size_t)(nul - a->buf) + 1;
    return start;
}

/* Read more of standard input; 0 at end of file, -1 on error. */
static int read_more(agent_t *a)
{
    if (a->used > 0) {
        memmove(a->buf, a->buf + a->used, a->have - a->used);
        a->have -= a->used;
        a->used = 0;
    }
    if (a->have == a->cap) {
        if (a->cap >= RECORD_MAX)
            return -1;
        size_t cap = a->cap ? 2 * a->cap : 4096;
        char *grown = realloc(a->buf, cap);
        if (!grown)
            return -1;
        a->buf = grown;
        a->cap = cap;
    }
    for (;;) {
        ssize_t n = read(STDIN_FILENO, a->buf + a->have, a->cap - a->have);
        if (n > 0) {
            a->have += (size_t)n;
            return 1;
        }
        if (n == 0) {
            a->eof = 1;
            return 0;
        }
        if (errno != EINTR)
            return -1;
    }
}

static int copy_text(char *dst, size_t len, const char *src)
{
    if (strlen(src) >= len)
        return -1;
    strcpy(dst, src);
    return 0;
}

static int push(char ***array, int *count, const char *text)
{
    char **grown = realloc(*array, (size_t)(*count + 2) * sizeof *grown);
    char *copy = strdup(text);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            *array = grown;
        return -1;
    }
    *array = grown;
    grown[(*count)++] = copy;
    grown[*count] = NULL;
    return 0;
}

static int parse_int(const char *text, long min, long max, int *out)
{
    long v;
    if (dsm_parse_int_range(text, min, max, &v) != DSM_OK)
        return -1;
    *out = (int)v;
    return 0;
}

/* One setup record; 1 at the end of the setup, -1 if malformed. */
static int take_setup(agent_t *a, const char *rec)
{
    const char *v = rec + 1;
    switch (rec[0]) {
    case DSM_AGENT_REC_VERSION:
        return strcmp(v, DSM_AGENT_VERSION) ? -1 : 0;
    case DSM_AGENT_REC_RANK:
        return parse_int(v, 0, DSM_LAUNCH_MAX_NODES, &a->rank);
    case DSM_AGENT_REC_SIZE:
        return parse_int(v, 1, DSM_LAUNCH_MAX_NODES, &a->size);
    case DSM_AGENT_REC_THREADS:
        return parse_int(v, 1, 1024, &a->threads);
    case DSM_AGENT_REC_JOB:
        return copy_text(a->job_id, sizeof a->job_id, v);
    case DSM_AGENT_REC_TOKEN:
        return copy_text(a->token, sizeof a->token, v);
    case DSM_AGENT_REC_INTERFACE:
        return copy_text(a->interface, sizeof a->interface, v);
    case DSM_AGENT_REC_ROUTE:
        return copy_text(a->route_to, sizeof a->route_to, v);
    case DSM_AGENT_REC_HOST:
        return copy_text(a->host, sizeof a->host, v);
    case DSM_AGENT_REC_CWD:
        /* as locally: relative paths in the arguments mean the same */
        if (chdir(v) != 0) {
            char what[DSM_LAUNCH_TEXT_MAX + 64];
            snprintf(what, sizeof what, "cannot enter directory '%s': %s", v,
                     strerror(errno));
            say_fail(a, what);
            return -1;
        }
        return 0;
    case DSM_AGENT_REC_PROGRAM:
        free(a->program);
        a->program = strdup(v);
        return a->program ? 0 : -1;
    case DSM_AGENT_REC_ARG:
        return push(&a->argv, &a->argc, v);
    case DSM_AGENT_REC_ENV:
        return strchr(v, '=') ? push(&a->env, &a->envc, v) : -1;
    case DSM_AGENT_REC_END:
        return 1;
    default:
        return -1;
    }
}

static int read_setup(agent_t *a)
{
    for (;;) {
        char *rec;
        while ((rec = next_record(a))) {
            int state = take_setup(a, rec);
            if (state != 0)
                return state;
        }
        if (read_more(a) <= 0)
            return -1;
    }
}

static void write_line(const char *a, const char *b)
{
    char line[DSM_HOST_MAX + 64];
    int n = snprintf(line, sizeof line, "%s%s\n", a, b);
    if (n > 0 && (size_t)n < sizeof line) {
        ssize_t unused = write(STDOUT_FILENO, line, (size_t)n);
        (void)unused;
    }
}

/* Rank 0: listen on the chosen address, port picked by the kernel. */
static int listen_rendezvous(agent_t *a)
{
    char addr[64], why[128];
    if (dsm_launch_pick_address(a->interface, a->route_to, addr, sizeof addr,
                                why, sizeof why) != DSM_OK)
        return say_fail(a, why);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
        return say_fail(a, "bad rendezvous address");
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    socklen_t len = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(fd, a->size) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        char what[160];
        snprintf(what, sizeof what, "cannot listen on %s: %s", addr,
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        return say_fail(a, what);
    }
    a->listen_fd = fd;
    snprintf(a->rendezvous, sizeof a->rendezvous, "%s:%u", addr,
             (unsigned)ntohs(sa.sin_port));
    write_line(DSM_AGENT_LINE_RENDEZVOUS, a->rendezvous);
    return 0;
}

static int received(const agent_t *a, const char *name)
{
    size_t len = strlen(name);
    for (int i = 0; i < a->envc; i++)
        if (!strncmp(a->env[i], name, len) && a->env[i][len] == '=')
            return 1;
    return 0;
}

/* UCX's network devices for the node (launch_ucxnet.h): the interface
 * towards node 0's rendezvous address, on this host.  1 when the user's
 * UCX_NET_DEVICES stands (nothing written), 0 when written, -1 (said)
 * on failure. */
static int net_devices(agent_t *a, char *devices, size_t len)
{
    if (received(a, "UCX_NET_DEVICES"))
        return 1;
    char host[DSM_HOST_MAX], interface[64], why[DSM_HOST_MAX + 96];
    snprintf(host, sizeof host, "%s", a->rendezvous);
    char *colon = strrchr(host, ':');
    if (colon)
        *colon = '\0';
    if (dsm_launch_interface_towards(host, interface, sizeof interface, why,
                                     sizeof why) != DSM_OK) {
        say_fail(a, why);
        return -1;
    }
    if (dsm_launch_ucx_net_devices(interface, DSM_LAUNCH_RDMA_SYSFS, devices,
                                   len) != DSM_OK) {
        say_fail(a, "too many network devices for UCX_NET_DEVICES: set it "
                    "for the job");
        return -1;
    }
    return 0;
}

static int start_node(agent_t *a)
{
    char devices[DSM_LAUNCH_NET_DEVICES_WIDTH + 1];
    int user_devices = net_devices(a, devices, sizeof devices);
    if (user_devices < 0)
        return EXIT_AGENT;
    /* The node's activity board on this host (launch_activity.h): blocks
     * up to the node's own, which it maps at rank x block.  Not fatal: the
     * node is then named without an activity. */
    if (dsm_launch_activity_create(a->rank + 1, &a->activity_fd) != DSM_OK)
        a->activity_fd = -1;
    dsm_launch_env_values_t values = {
        .size = a->size,
        .threads = a->threads,
        .rendezvous = a->rendezvous,
        .rendezvous_fd = a->listen_fd,
        .token = a->token,
        .job_id = a->job_id,
        .ucx_net_devices = user_devices ? NULL : devices,
        .activity_fd = a->activity_fd,
    };
    /* exactly the received variables: the same on every host (the
     * builder reads environ; the agent's own is put back at once) */
    char *none[] = {NULL};
    char **own = environ;
    environ = a->env ? a->env : none;
    char **envp;
    dsm_status_t built = dsm_launch_env_build(&values, a->rank, &envp);
    environ = own;
    if (built != DSM_OK)
        return say_fail(a, "out of memory");
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    dsm_launch_child_t child = {
        .rank = a->rank,
        .path = a->program,
        .argv = a->argv,
        .envp = envp,
        .process_group = 0,
        .inherit_fd = a->listen_fd,
        .stdin_fd = null_fd,
        .stdout_fd = -1,
        .signal_mask = &a->previous_mask,
        .sigpipe_action = &a->previous_sigpipe,
        .default_signals = &a->forwarded,
    };
    pid_t pid;
    dsm_status_t st = dsm_launch_spawn(&child, &pid);
    dsm_launch_env_free(envp);
    explicit_bzero(a->token, sizeof a->token);
    if (null_fd >= 0)
        close(null_fd);
    if (a->listen_fd >= 0)
        close(a->listen_fd);
    a->listen_fd = -1;
    if (st != DSM_OK)
        return say_fail(a, "cannot fork");
    a->node = pid;
    return 0;
}

static void signal_node(agent_t *a, int sig)
{
    if (a->node > 1) {
        sigaddset(&a->sent, sig);
        kill(-a->node, sig);
    }
}

/* The node ended: end what it left in its group, report, exit status. */
static int node_ended(agent_t *a, int wait_status)
{
    sigset_t sent = a->sent;
    signal_node(a, SIGKILL);
    if (WIFSIGNALED(wait_status)) {
        int sig = WTERMSIG(wait_status);
        if (sigismember(&sent, sig) == 1)
            return 128 + sig;   /* the job is ending: nothing to name */
        char activity[512], what[640];
        int known = dsm_launch_activity_describe(a->rank, activity,
                                                 sizeof activity) > 0;
        snprintf(what, sizeof what, "pid %ld killed by signal %d (%s)%s%s",
                 (long)a->node, sig, strsignal(sig), known ? " while " : "",
                 known ? activity : "");
        say_fail(a, what);
        return 128 + sig;
    }
    return WEXITSTATUS(wait_status);
}

/* The report's lines are on stderr: tell dsmrun, in the output it
 * shares with the node, in one write (launch_marker.h). */
static void acknowledge_report(const char *nonce_text)
{
    char *end;
    errno = 0;
    unsigned long long nonce = strtoull(nonce_text, &end, 16);
    if (errno || end != nonce_text + 16 || *end)
        return;
    char line[DSM_LAUNCH_MARKER_MAX];
    size_t len = dsm_launch_marker_format(nonce, line);
    ssize_t unused = write(STDOUT_FILENO, line, len);
    (void)unused;
}

/* Records after the setup; returns an exit status >= 0 to leave. */
static int take_command(agent_t *a, const char *rec)
{
    int sig;
    switch (rec[0]) {
    case DSM_AGENT_REC_RENDEZVOUS:
        if (a->node || a->rank == 0)
            return -1;   /* rank 0 made it; a repeat changes nothing */
        if (copy_text(a->rendezvous, sizeof a->rendezvous, rec + 1) != 0)
            return say_fail(a, "rendezvous address too long");
        return start_node(a) == 0 ? -1 : EXIT_AGENT;
    case DSM_AGENT_REC_REPORT:
        if (a->node)
            dsm_launch_activity_report(a->rank, a->host[0] ? a->host : "?");
        else
            say_fail(a, "not started yet");
        acknowledge_report(rec + 1);
        return -1;
    case DSM_AGENT_REC_SIGNAL:
        if (parse_int(rec + 1, 1, NSIG - 1, &sig) != 0)
            return -1;
        if (!a->node)
            return 128 + sig;
        signal_node(a, sig);
        return -1;
    default:
        return -1;
    }
}

static int supervise(agent_t *a)
{
    for (;;) {
        /* records that arrived with the setup or the previous read */
        char *rec;
        while ((rec = next_record(a))) {
            int leave = take_command(a, rec);
            if (leave >= 0)
                return leave;
        }
        struct pollfd pfd[2] = {
            {.fd = a->eof ? -1 : STDIN_FILENO, .events = POLLIN},
            {.fd = a->signal_fd, .events = POLLIN},
        };
        if (poll(pfd, 2, -1) < 0 && errno != EINTR)
            return say_fail(a, "poll failed");

        if (pfd[1].revents) {
            struct signalfd_siginfo info;
            while (read(a->signal_fd, &info, sizeof info) == sizeof info)
                if (info.ssi_signo != SIGCHLD)
                    signal_node(a, (int)info.ssi_signo);
            int wait_status;
            pid_t pid;
            while ((pid = waitpid(-1, &wait_status, WNOHANG)) > 0)
                if (pid == a->node)
                    return node_ended(a, wait_status);
        }
        if (pfd[0].revents) {
            if (read_more(a) <= 0) {
                /* dsmrun is gone: nothing may outlive it */
                if (!a->node)
                    return 128 + SIGKILL;
                signal_node(a, SIGKILL);
                a->eof = 1;
                continue;   /* and report the node's end when reaped */
            }
        }
    }
}

static void free_strings(char **array, int count)
{
    for (int i = 0; i < count; i++)
        free(array[i]);
    free(array);
}

/* What the setup allocated.  The token is wiped here too if the node
 * never started, and so is the input buffer, which held its record. */
static void agent_free(agent_t *a)
{
    explicit_bzero(a->token, sizeof a->token);
    if (a->listen_fd >= 0)
        close(a->listen_fd);
    if (a->signal_fd >= 0)
        close(a->signal_fd);
    if (a->buf)
        explicit_bzero(a->buf, a->cap);
    free(a->buf);
    free(a->program);
    free_strings(a->argv, a->argc);
    free_strings(a->env, a->envc);
    dsm_launch_activity_destroy();
    free(a);
}

/* Everything from the setup to the node's end; returns the exit status. */
static int agent_run(agent_t *a)
{
    /* if sshd's session or slurmstepd goes, so do we (and so the node) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigaction(SIGPIPE, &ignore, &a->previous_sigpipe);
    dsm_launch_forwarded_signals(&a->forwarded);
    if (dsm_launch_signals_capture(&a->previous_mask, &a->signal_fd) !=
        DSM_OK)
        return say_fail(a, "cannot capture signals");

    if (read_setup(a) != 1 || !a->program || a->argc == 0 || a->size == 0)
        return say_fail(a, "incomplete setup from dsmrun (same dsmomp "
                           "version on every host?)");
    int announce = a->rank >= 0;   /* ssh: every agent; srun: rank 0 */
    if (a->rank < 0) {
        const char *procid = getenv("SLURM_PROCID");
        if (!procid || parse_int(procid, 0, a->size - 1, &a->rank) != 0)
            return say_fail(a, "no rank: neither given nor SLURM_PROCID");
        const char *node_name = getenv("SLURMD_NODENAME");
        if (node_name)
            copy_text(a->host, sizeof a->host, node_name);
    }
    if (a->rank >= a->size)
        return say_fail(a, "rank out of range");

    if (a->rank == 0) {
        if (listen_rendezvous(a) != 0)
            return EXIT_AGENT;
        if (start_node(a) != 0)
            return EXIT_AGENT;
    } else if (announce) {
        write_line(DSM_AGENT_LINE_READY, "");
    }
    return supervise(a);
}

int dsm_launch_agent_main(void)
{
    agent_t *a = calloc(1, sizeof *a);
    if (!a)
        return EXIT_AGENT;
    a->rank = -1;
    a->listen_fd = -1;
    a->signal_fd = -1;
    a->activity_fd = -1;
    sigemptyset(&a->sent);
    a->threads = 1;
    int status = agent_run(a);
    agent_free(a);
    return status;
}
