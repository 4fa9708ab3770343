/*
 * launch_remote.c - starts node agents over ssh or srun; see
 * launch_remote.h and, for the protocol, launch_agent.h.
 *
 * Layer: launcher.  dsmrun's main thread only.
 */
#include "launch_remote.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "base_config.h"
#include "base_time.h"
#include "launch_agent.h"
#include "launch_marker.h"
#include "launch_program.h"
#include "launch_report.h"
#include "launch_spawn.h"

extern char **environ;

/* ---- the setup block ------------------------------------------------------ */

typedef struct block {
    char *data;
    size_t len, cap;
    int failed;
} block_t;

static void put(block_t *b, char type, const char *text)
{
    size_t need = 1 + strlen(text) + 1;
    if (b->failed)
        return;
    if (b->len + need > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + need)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    b->data[b->len++] = type;
    memcpy(b->data + b->len, text, need - 1);
    b->len += need - 1;
}

static void put_int(block_t *b, char type, long value)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", value);
    put(b, type, text);
}

static int has_prefix(const char *entry, const char *prefix)
{
    return strncmp(entry, prefix, strlen(prefix)) == 0;
}

static int name_is(const char *entry, const char *name, size_t name_len)
{
    return strncmp(entry, name, name_len) == 0 && entry[name_len] == '=';
}

/* A name in a comma-separated list. */
static int in_list(const char *entry, const char *list)
{
    size_t entry_name = strcspn(entry, "=");
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len == entry_name && name_is(entry, p, len))
            return 1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* The variables remote nodes get (doc/usage.md, "Across hosts").  The
 * sanitizer runtimes' options are among them: a program built with
 * -fsanitize reads them before main, on every host alike. */
static int is_passed(const char *entry, const dsm_launch_options_t *o)
{
    static const char *const prefixes[] = {"DSM_", "OMP_", "KMP_", "UCX_",
                                           "LC_"};
    static const char *const names[] = {"PATH", "LD_LIBRARY_PATH", "HOME",
                                        "USER", "LOGNAME", "LANG", "TZ",
                                        "TMPDIR", "ASAN_OPTIONS",
                                        "UBSAN_OPTIONS", "LSAN_OPTIONS"};
    /* the agent sets these, and the token travels in its own record */
    static const char *const never[] = {"DSM_TOKEN", "DSM_TOKEN_FILE",
                                        "DSM_RANK", "DSM_SIZE",
                                        "DSM_THREADS", "DSM_RENDEZVOUS",
                                        "DSM_RENDEZVOUS_FD", "DSM_JOB_ID"};
    for (size_t i = 0; i < sizeof never / sizeof *never; i++)
        if (name_is(entry, never[i], strlen(never[i])))
            return 0;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (has_prefix(entry, prefixes[i]))
            return 1;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (name_is(entry, names[i], strlen(names[i])))
            return 1;
    for (int i = 0; i < o->pass_count; i++)
        if (name_is(entry, o->pass[i], strlen(o->pass[i])))
            return 1;
    return in_list(entry, o->pass_env);
}

/* rank < 0: srun (the agent takes SLURM_PROCID). */
static dsm_status_t build_setup(const dsm_launch_remote_t *r, int rank,
                                const char *host, const char *route_to,
                                block_t *b)
{
    const dsm_launch_options_t *o = r->options;
    put(b, DSM_AGENT_REC_VERSION, DSM_AGENT_VERSION);
    if (rank >= 0)
        put_int(b, DSM_AGENT_REC_RANK, rank);
    put_int(b, DSM_AGENT_REC_SIZE, o->nodes);
    put_int(b, DSM_AGENT_REC_THREADS, o->threads);
    put(b, DSM_AGENT_REC_JOB, r->job_id);
    put(b, DSM_AGENT_REC_TOKEN, r->token);
    if (o->interface && *o->interface)
        put(b, DSM_AGENT_REC_INTERFACE, o->interface);
    if (route_to)
        put(b, DSM_AGENT_REC_ROUTE, route_to);
    put(b, DSM_AGENT_REC_HOST, host);
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd))
        put(b, DSM_AGENT_REC_CWD, cwd);
    put(b, DSM_AGENT_REC_PROGRAM, r->program);
    for (char **a = o->program_argv; *a; a++)
        put(b, DSM_AGENT_REC_ARG, *a);
    for (char **e = environ; *e; e++)
        if (is_passed(*e, o))
            put(b, DSM_AGENT_REC_ENV, *e);
    put(b, DSM_AGENT_REC_END, "");
    return b->failed ? DSM_ERR_NOMEM : DSM_OK;
}

/* Whole records to a lifeline; an agent that is gone is noticed when its
 * client is reaped, so errors are ignored here. */
static void send_block(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        data += n;
        len -= (size_t)n;
    }
}

static void send_record(int fd, char type, const char *text)
{
    block_t b = {0};
    put(&b, type, text);
    if (!b.failed)
        send_block(fd, b.data, b.len);
    free(b.data);
}

/* ---- the clients ---------------------------------------------------------- */

/* "ssh -T -o X HOST 'AGENT' --node-agent": the command string is run by
 * the remote user's shell, hence the quotes. */
static char **ssh_argv(const char *ssh_command, const char *host,
                       const char *remote_command)
{
    size_t words = 0;
    for (const char *p = ssh_command; *p;) {
        p += strspn(p, " \t");
        if (!*p)
            break;
        words++;
        p += strcspn(p, " \t");
    }
    size_t text = strlen(ssh_command) + 1;
    char **argv = malloc((words + 3) * sizeof *argv + text);
    if (!argv)
        return NULL;
    char *copy = (char *)(argv + words + 3);
    memcpy(copy, ssh_command, text);
    size_t n = 0;
    for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w;
         w = strtok_r(NULL, " \t", &save))
        argv[n++] = w;
    argv[n++] = (char *)host;
    argv[n++] = (char *)remote_command;
    argv[n] = NULL;
    return argv;
}

static dsm_status_t start_client(const dsm_launch_remote_t *r,
                                 dsm_launch_job_t *job, int index,
                                 char *const *argv, const block_t *setup)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0)
        return DSM_ERR_IO;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return DSM_ERR_IO;
    }
    char path[PATH_MAX];
    if (dsm_launch_resolve_program(argv[0], path, sizeof path) != DSM_OK) {
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        errno = ENOENT;
        return DSM_ERR_INVALID;
    }
    dsm_launch_child_t child = {
        .rank = index,
        .path = path,
        .argv = argv,
        .envp = environ,
        .process_group = job->process_group,
        .inherit_fd = -1,
        .stdin_fd = in[0],
        .stdout_fd = out[1],
        .signal_mask = r->signal_mask,
        .sigpipe_action = r->sigpipe_action,
        .default_signals = r->default_signals,
    };
    pid_t pid;
    dsm_status_t st = dsm_launch_spawn(&child, &pid);
    close(in[0]);
    close(out[1]);
    if (st != DSM_OK) {
        close(in[1]);
        close(out[0]);
        return st;
    }
    dsm_launch_node_t *node = &job->nodes[index];
    node->pid = pid;
    node->running = 1;
    node->lifeline_fd = in[1];
    node->output_fd = out[0];
    node->agents = r->options->where == DSM_LAUNCH_SLURM ? r->options->nodes
                                                          : 1;
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    job->node_count = index + 1;
    if (index == 0)
        job->process_group = pid;
    send_block(in[1], setup->data, setup->len);
    return DSM_OK;
}

dsm_status_t dsm_launch_slurm_nodes(int nodes_given, int *nodes)
{
    const char *text = getenv("SLURM_JOB_NUM_NODES");
    if (!text || !*text)
        text = getenv("SLURM_NNODES");
    long allocated;
    if (!text || dsm_parse_int_range(text, 1, DSM_LAUNCH_MAX_NODES,
                                     &allocated) != DSM_OK) {
        dsm_launch_say("SLURM_JOB_ID is set but SLURM_JOB_NUM_NODES is not "
                       "a node count (use --local to start on this machine)");
        return DSM_ERR_INVALID;
    }
    if (!nodes_given) {
        *nodes = (int)allocated;
        return DSM_OK;
    }
    if (*nodes > allocated) {
        dsm_launch_say("%d nodes requested but the Slurm allocation (job %s) "
                       "has %ld node%s; dsmrun starts one node per allocated "
                       "node", *nodes, getenv("SLURM_JOB_ID"), allocated,
                       allocated == 1 ? "" : "s");
        return DSM_ERR_INVALID;
    }
    return DSM_OK;
}

/* This dsmrun's own path: the agents run the same file on every host. */
static dsm_status_t own_path(char *path, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", path, len - 1);
    if (n <= 0 || (size_t)n >= len - 1)
        return DSM_ERR_IO;
    path[n] = '\0';
    if (strchr(path, '\'')) {
        dsm_launch_say("dsmrun's path '%s' contains a quote", path);
        return DSM_ERR_INVALID;
    }
    return DSM_OK;
}

static dsm_status_t start_ssh(const dsm_launch_remote_t *r,
                              dsm_launch_job_t *job, const char *self)
{
    const dsm_launch_options_t *o = r->options;
    char remote_command[PATH_MAX + 32];
    snprintf(remote_command, sizeof remote_command, "'%s' --node-agent",
             self);
    for (int rank = 0; rank < o->nodes; rank++) {
        const char *host = r->hosts->host[r->host_of_rank[rank]].name;
        const char *next = NULL;
        for (int other = 0; other < o->nodes && !next; other++)
            if (r->host_of_rank[other] != r->host_of_rank[rank])
                next = r->hosts->host[r->host_of_rank[other]].name;
        block_t setup = {0};
        char **argv = ssh_argv(o->ssh_command, host, remote_command);
        dsm_status_t st = argv ? build_setup(r, rank, host,
                                             rank == 0 ? next : NULL, &setup)
                               : DSM_ERR_NOMEM;
        dsm_launch_node_t *node = &job->nodes[rank];
        snprintf(node->label, sizeof node->label, "node %d on host '%s'",
                 rank, host);
        if (st == DSM_OK) {
            st = start_client(r, job, rank, argv, &setup);
            if (st == DSM_OK && o->verbose)
                dsm_launch_say("%s: %s pid %ld", node->label, argv[0],
                               (long)node->pid);
        }
        explicit_bzero(setup.data, setup.len);
        free(setup.data);
        free(argv);
        if (st == DSM_ERR_IO)
            dsm_launch_say("%s: cannot start '%s': %s", node->label,
                           o->ssh_command, strerror(errno));
        if (st != DSM_OK)
            return st;
    }
    return DSM_OK;
}

static dsm_status_t start_srun(const dsm_launch_remote_t *r,
                               dsm_launch_job_t *job, const char *self)
{
    const dsm_launch_options_t *o = r->options;
    char nodes[32], tasks[32];
    snprintf(nodes, sizeof nodes, "--nodes=%d", o->nodes);
    snprintf(tasks, sizeof tasks, "--ntasks=%d", o->nodes);
    char *argv[] = {"srun", "--kill-on-bad-exit=1", "--input=all", nodes,
                    tasks, "--ntasks-per-node=1", (char *)self,
                    "--node-agent", NULL};
    block_t setup = {0};
    dsm_status_t st = build_setup(r, -1, "(Slurm)", NULL, &setup);
    dsm_launch_node_t *node = &job->nodes[0];
    snprintf(node->label, sizeof node->label, "srun (job %s, %d node%s)",
             getenv("SLURM_JOB_ID"), o->nodes, o->nodes == 1 ? "" : "s");
    if (st == DSM_OK)
        st = start_client(r, job, 0, argv, &setup);
    explicit_bzero(setup.data, setup.len);
    free(setup.data);
    if (st == DSM_ERR_IO)
        dsm_launch_say("cannot start srun: %s", strerror(errno));
    if (st != DSM_OK)
        return st;
    if (o->verbose)
        dsm_launch_say("%s: pid %ld", node->label, (long)node->pid);
    return DSM_OK;
}

dsm_status_t dsm_launch_remote_start(const dsm_launch_remote_t *r,
                                     dsm_launch_job_t *job)
{
    char self[PATH_MAX];
    if (own_path(self, sizeof self) != DSM_OK) {
        dsm_launch_say("cannot find dsmrun's own path");
        return DSM_ERR_IO;
    }
    job->remote = 1;
    int clients = r->options->where == DSM_LAUNCH_SLURM ? 1
                                                         : r->options->nodes;
    for (int i = 0; i < clients; i++) {
        job->nodes[i].lifeline_fd = -1;
        job->nodes[i].output_fd = -1;
    }
    return r->options->where == DSM_LAUNCH_SLURM ? start_srun(r, job, self)
                                                  : start_ssh(r, job, self);
}

/* ---- while the job runs --------------------------------------------------- */

static void copy_out(const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(STDOUT_FILENO, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        data += n;
        len -= (size_t)n;
    }
}

static void send_rendezvous(dsm_launch_job_t *job, const char *address)
{
    snprintf(job->rendezvous, sizeof job->rendezvous, "%s", address);
    job->rendezvous_sent = 1;
    for (int i = 0; i < job->node_count; i++)
        if (job->nodes[i].lifeline_fd >= 0)
            send_record(job->nodes[i].lifeline_fd, DSM_AGENT_REC_RENDEZVOUS,
                        address);
    if (job->verbose)
        dsm_launch_say("rendezvous %s", address);
}

/* The agent's first line, complete. */
static void take_line(dsm_launch_job_t *job, dsm_launch_node_t *node)
{
    node->announced = 1;
    const char *line = node->line;
    size_t prefix = strlen(DSM_AGENT_LINE_RENDEZVOUS);
    if (!strncmp(line, DSM_AGENT_LINE_RENDEZVOUS, prefix)) {
        if (!job->rendezvous_sent)
            send_rendezvous(job, line + prefix);
    } else if (job->report_marker[0] &&
               node->line_len + 1 == strlen(job->report_marker) &&
               !strncmp(line, job->report_marker, node->line_len)) {
        /* before its first line (not started): its first line is next */
        node->reports_seen++;
        node->announced = 0;
        node->line_len = 0;
    } else if (strcmp(line, DSM_AGENT_LINE_READY) != 0) {
        /* not an agent's line (a login banner?): the user's */
        copy_out(node->line, node->line_len);
        copy_out("\n", 1);
    }
}

static void copy_out_fn(void *arg, const char *data, size_t len)
{
    (void)arg;
    copy_out(data, len);
}

/* The node's output to dsmrun's, without the agents' acknowledgements
 * once a report was asked for; a tail that may begin one waits in
 * node->held for the next read (or the end of file). */
static void relay(dsm_launch_job_t *job, dsm_launch_node_t *node,
                  const char *data, size_t len, int at_end)
{
    if (!job->report_marker[0]) {
        copy_out(data, len);
        return;
    }
    node->held_len = dsm_launch_marker_scan(job->report_marker, data, len,
                                            at_end, copy_out_fn, NULL,
                                            &node->reports_seen);
    memcpy(node->held, data + len - node->held_len, node->held_len);
}

static void take_output(dsm_launch_job_t *job, dsm_launch_node_t *node,
                        const char *data, size_t len)
{
    while (len > 0 && !node->announced) {
        const char *nl = memchr(data, '\n', len);
        size_t part = nl ? (size_t)(nl - data) : len;
        if (node->line_len + part >= sizeof node->line) {
            /* too long for an agent's line: the user's output */
            node->announced = 1;
            copy_out(node->line, node->line_len);
            break;
        }
        memcpy(node->line + node->line_len, data, part);
        node->line_len += part;
        node->line[node->line_len] = '\0';
        if (!nl)
            return;
        data += part + 1;
        len -= part + 1;
        take_line(job, node);
    }
    relay(job, node, data, len, 0);
}

void dsm_launch_remote_output(dsm_launch_job_t *job, int index)
{
    dsm_launch_node_t *node = &job->nodes[index];
    char buf[65536];
    for (;;) {
        size_t held = node->held_len;
        memcpy(buf, node->held, held);
        ssize_t n = read(node->output_fd, buf + held, sizeof buf - held);
        if (n > 0) {
            node->held_len = 0;
            take_output(job, node, buf, held + (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        node->held_len = 0;   /* end of file, or broken */
        relay(job, node, buf, held, 1);
        close(node->output_fd);
        node->output_fd = -1;
        return;
    }
}

void dsm_launch_remote_signal(dsm_launch_job_t *job, int sig)
{
    char text[16];
    snprintf(text, sizeof text, "%d", sig);
    for (int i = 0; i < job->node_count; i++)
        if (job->nodes[i].running && job->nodes[i].lifeline_fd >= 0)
            send_record(job->nodes[i].lifeline_fd, DSM_AGENT_REC_SIGNAL,
                        text);
}

int dsm_launch_remote_report(dsm_launch_job_t *job)
{
    uint64_t nonce = 0;
    if (job->report_marker[0])
        return 0;   /* asked once: the answers of a second would mix */
    if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
        nonce = (uint64_t)getpid() << 32 ^ (uint64_t)dsm_now_ns();
    dsm_launch_marker_format(nonce, job->report_marker);
    char text[17];
    snprintf(text, sizeof text, "%016" PRIx64, nonce);
    int asked = 0;
    for (int i = 0; i < job->node_count; i++) {
        dsm_launch_node_t *node = &job->nodes[i];
        if (!node->running || node->lifeline_fd < 0)
            continue;
        send_record(node->lifeline_fd, DSM_AGENT_REC_REPORT, text);
        asked++;
    }
    return asked;
}

int dsm_launch_remote_reported(const dsm_launch_job_t *job)
{
    for (int i = 0; i < job->node_count; i++) {
        const dsm_launch_node_t *node = &job->nodes[i];
        if (node->running && node->lifeline_fd >= 0 &&
            node->reports_seen < node->agents)
            return 0;
    }
    return 1;
}

void dsm_launch_remote_drain(dsm_launch_job_t *job)
{
    for (int i = 0; i < job->node_count; i++) {
        dsm_launch_node_t *node = &job->nodes[i];
        if (node->output_fd < 0)
            continue;
        /* every writer has ended: read to the end of file */
        fcntl(node->output_fd, F_SETFL, 0);
        while (node->output_fd >= 0)
            dsm_launch_remote_output(job, i);
    }
}

void dsm_launch_remote_close(dsm_launch_job_t *job)
{
    for (int i = 0; i < job->node_count; i++) {
        dsm_launch_node_t *node = &job->nodes[i];
        if (node->lifeline_fd >= 0)
            close(node->lifeline_fd);
        if (node->output_fd >= 0)
            close(node->output_fd);
        node->lifeline_fd = node->output_fd = -1;
    }
}
