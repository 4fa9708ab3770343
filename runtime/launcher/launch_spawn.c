/*
 * launch_spawn.c - forks and prepares one node process.
 *
 * Layer: launcher.  Entry point in launch_spawn.h.  The code under
 * child_run runs between fork and execve: async-signal-safe calls only
 * (no malloc, no stdio); strerrordesc_np reads a constant table.
 */
#include "launch_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base_log.h"

/* Appends text to the line being built in buf (cap bytes), truncating. */
static size_t line_add(char *buf, size_t len, size_t cap, const char *text)
{
    size_t n = strlen(text);
    if (n > cap - len)
        n = cap - len;
    memcpy(buf + len, text, n);
    return len + n;
}

/* "dsmrun: node R: WHAT 'QUOTED': REASON", QUOTED optional, written with
 * one write(2): the nodes of a job share the terminal or pipe, and a line
 * written in pieces came out interleaved with another node's. */
static __attribute__((noreturn)) void child_fail(const dsm_launch_child_t *c,
                                                 const char *what,
                                                 const char *quoted, int err)
{
    char digits[32], line[4096];
    size_t len = 0, cap = sizeof line - 1;
    const char *reason = strerrordesc_np(err);
    len = line_add(line, len, cap, "dsmrun: node ");
    len = line_add(line, len, cap,
                   dsm_utoa((unsigned long long)c->rank, 10, digits));
    len = line_add(line, len, cap, ": ");
    len = line_add(line, len, cap, what);
    if (quoted) {
        len = line_add(line, len, cap, " '");
        len = line_add(line, len, cap, quoted);
        len = line_add(line, len, cap, "'");
    }
    len = line_add(line, len, cap, ": ");
    len = line_add(line, len, cap, reason ? reason : "unknown error");
    line[len++] = '\n';
    ssize_t unused = write(STDERR_FILENO, line, len);
    (void)unused;
    _exit(127);
}

static __attribute__((noreturn)) void child_run(const dsm_launch_child_t *c,
                                                pid_t dsmrun_pid)
{
    if (setpgid(0, c->process_group) != 0)
        child_fail(c, "cannot join the job's process group", NULL, errno);

    /* If dsmrun dies, the node must not live on as an orphan.  dsmrun may
     * already have died before prctl took effect: then we are reparented
     * and getppid() no longer names it. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        child_fail(c, "cannot set the parent-death signal", NULL, errno);
    if (getppid() != dsmrun_pid)
        _exit(127);

    /* Takes effect at execve: the same layout on every node. */
    int persona = personality(0xffffffff);
    if (persona == -1 || personality((unsigned long)persona |
                                     ADDR_NO_RANDOMIZE) == -1)
        child_fail(c, "cannot disable address-space randomisation", NULL,
                   errno);

    if (c->stdin_fd >= 0 && dup2(c->stdin_fd, STDIN_FILENO) < 0)
        child_fail(c, "cannot redirect standard input", NULL, errno);
    if (c->stdout_fd >= 0 && dup2(c->stdout_fd, STDOUT_FILENO) < 0)
        child_fail(c, "cannot redirect standard output", NULL, errno);
    if (c->inherit_fd >= 0 && fcntl(c->inherit_fd, F_SETFD, 0) != 0)
        child_fail(c, "cannot pass the rendezvous socket", NULL, errno);

    struct sigaction default_action = {.sa_handler = SIG_DFL};
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(c->default_signals, sig) == 1 &&
            sigaction(sig, &default_action, NULL) != 0)
            child_fail(c, "cannot reset signal handling", NULL, errno);
    if (sigaction(SIGPIPE, c->sigpipe_action, NULL) != 0 ||
        sigprocmask(SIG_SETMASK, c->signal_mask, NULL) != 0)
        child_fail(c, "cannot restore signal handling", NULL, errno);

    execve(c->path, c->argv, c->envp);
    child_fail(c, "cannot execute", c->path, errno);
}

dsm_status_t dsm_launch_spawn(const dsm_launch_child_t *child, pid_t *pid)
{
    pid_t dsmrun_pid = getpid();
    pid_t forked = fork();
    if (forked < 0)
        return DSM_ERR_IO;
    if (forked == 0)
        child_run(child, dsmrun_pid);

    /* Both sides set the group so that it is in place whichever runs first.
     * EACCES: the child has already exec'd, so it set the group itself. */
    pid_t group = child->process_group ? child->process_group : forked;
    if (setpgid(forked, group) != 0 && errno != EACCES) {
        int saved = errno;
        kill(forked, SIGKILL);
        errno = saved;
        return DSM_ERR_IO;
    }
    *pid = forked;
    return DSM_OK;
}
