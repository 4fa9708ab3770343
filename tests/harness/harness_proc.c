/*
 * harness_proc.c - starts a command with its output captured, waits for
 * it, and watches its output while it runs.
 *
 * Layer: tests.  Entry points: dsm_harness_spawn, dsm_harness_wait,
 * dsm_harness_run, dsm_harness_await_output, dsm_harness_await_node_pid
 * (see harness.h).  The child part between fork and execve makes only
 * async-signal-safe calls; its environment is built before the fork.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness_clock.h"

extern char **environ;

static size_t name_length(const char *entry)
{
    return strcspn(entry, "=");
}

/* environ without the names in extra, followed by extra. */
static char **merged_environment(const char *const extra[])
{
    size_t count = 0, extra_count = 0;
    while (environ[count])
        count++;
    while (extra && extra[extra_count])
        extra_count++;

    char **env = malloc((count + extra_count + 1) * sizeof *env);
    if (!env)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        size_t len = name_length(environ[i]);
        int replaced = 0;
        for (size_t j = 0; j < extra_count && !replaced; j++)
            replaced = name_length(extra[j]) == len &&
                       !strncmp(environ[i], extra[j], len);
        if (!replaced)
            env[n++] = environ[i];
    }
    for (size_t j = 0; j < extra_count; j++)
        env[n++] = (char *)extra[j];
    env[n] = NULL;
    return env;
}

static __attribute__((noreturn)) void child_exec(const char *const argv[],
                                                 char **env, int out_fd,
                                                 int null_fd)
{
    /* own group: a timeout kills the command and its group together */
    setpgid(0, 0);
    if (dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
        dup2(out_fd, STDERR_FILENO) < 0)
        _exit(127);

    /* cmocka's handlers are reset by execve, but ignored signals and the
     * blocked mask would be inherited */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    execve(argv[0], (char *const *)argv, env);
    static const char msg[] = "harness: execve failed\n";
    ssize_t unused = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)unused;
    _exit(127);
}

int dsm_harness_spawn(const char *const argv[], const char *const extra_env[],
                      dsm_harness_proc_t *proc)
{
    int pipe_fds[2] = {-1, -1};
    int null_fd = -1;
    int saved;
    char **env = merged_environment(extra_env);
    char *out = calloc(1, DSM_HARNESS_OUTPUT_MAX + 1);
    if (!env || !out) {
        errno = ENOMEM;
        goto fail;
    }
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0 || pipe2(pipe_fds, O_CLOEXEC) != 0)
        goto fail;

    pid_t pid = fork();
    if (pid < 0)
        goto fail;
    if (pid == 0)
        child_exec(argv, env, pipe_fds[1], null_fd);
    setpgid(pid, pid);   /* also here, so it holds whichever runs first */

    int pidfd = pidfd_open(pid, 0);
    if (pidfd < 0) {
        saved = errno;
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        errno = saved;
        goto fail;
    }
    close(pipe_fds[1]);
    close(null_fd);
    free(env);
    fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);

    *proc = (dsm_harness_proc_t){
        .pid = pid,
        .pidfd = pidfd,
        .out_fd = pipe_fds[0],
        .out = out,
    };
    return 0;

fail:
    saved = errno;
    if (pipe_fds[0] >= 0) {
        close(pipe_fds[0]);
        close(pipe_fds[1]);
    }
    if (null_fd >= 0)
        close(null_fd);
    free(env);
    free(out);
    errno = saved;
    return -1;
}

/* Read what the pipe holds now; keeps the first DSM_HARNESS_OUTPUT_MAX
 * bytes and notes end of file. */
static void drain_output(dsm_harness_proc_t *proc)
{
    for (;;) {
        char chunk[4096];
        ssize_t n = read(proc->out_fd, chunk, sizeof chunk);
        if (n == 0) {
            proc->out_closed = 1;
            return;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;   /* EAGAIN: nothing more for now */
        size_t room = DSM_HARNESS_OUTPUT_MAX - proc->out_len;
        size_t keep = (size_t)n < room ? (size_t)n : room;
        memcpy(proc->out + proc->out_len, chunk, keep);
        proc->out_len += keep;
        proc->out[proc->out_len] = '\0';
    }
}

static void reap(dsm_harness_proc_t *proc)
{
    int status;
    while (waitpid(proc->pid, &status, 0) < 0 && errno == EINTR)
        ;
    proc->exited = 1;
    proc->wait_status = status;
}

/* Wait up to the deadline for output or the command's exit.  Returns 1 if
 * something happened, 0 on timeout, -1 on error. */
static int wait_event(dsm_harness_proc_t *proc, int64_t deadline)
{
    /* a closed pipe stays readable (EOF): stop watching it then */
    struct pollfd fds[2] = {
        {.fd = proc->out_closed ? -1 : proc->out_fd, .events = POLLIN},
        {.fd = proc->exited ? -1 : proc->pidfd, .events = POLLIN},
    };
    int ready = poll(fds, 2, harness_ms_left(deadline));
    if (ready < 0)
        return errno == EINTR ? 1 : -1;
    if (ready == 0)
        return 0;
    if (fds[0].revents)
        drain_output(proc);
    if (fds[1].revents) {
        reap(proc);
        /* the command is gone; whatever it (or its nodes) wrote before is
         * in the pipe, but other holders of the pipe may keep it open */
        drain_output(proc);
    }
    return 1;
}

int dsm_harness_await_output(dsm_harness_proc_t *proc, const char *text,
                             int timeout_s)
{
    int64_t deadline = harness_deadline(timeout_s);
    for (;;) {
        if (strstr(proc->out, text))
            return 0;
        if (proc->exited) {
            errno = ESRCH;
            return -1;
        }
        int happened = wait_event(proc, deadline);
        if (happened < 0)
            return -1;
        if (happened == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
    }
}

int dsm_harness_await_node_pid(dsm_harness_proc_t *proc, int rank,
                               int timeout_s, pid_t *pid)
{
    int64_t deadline = harness_deadline(timeout_s);
    for (;;) {
        if (dsm_harness_find_node_pid(proc->out, rank, pid) == 0)
            return 0;
        if (proc->exited) {
            errno = ESRCH;
            return -1;
        }
        int happened = wait_event(proc, deadline);
        if (happened < 0)
            return -1;
        if (happened == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
    }
}

static void copy_output(const dsm_harness_proc_t *proc, char *out,
                        size_t out_len)
{
    if (!out || out_len == 0)
        return;
    size_t n = proc->out_len < out_len - 1 ? proc->out_len : out_len - 1;
    memcpy(out, proc->out, n);
    out[n] = '\0';
}

static void release(dsm_harness_proc_t *proc)
{
    close(proc->out_fd);
    close(proc->pidfd);
    free(proc->out);
    proc->out = NULL;
    proc->out_fd = proc->pidfd = -1;
}

int dsm_harness_wait(dsm_harness_proc_t *proc, int timeout_s, char *out,
                     size_t out_len, int *exit_status)
{
    int64_t deadline = harness_deadline(timeout_s);
    int result = 0;
    while (!proc->exited) {
        int happened = wait_event(proc, deadline);
        if (happened <= 0) {
            int saved = happened < 0 ? errno : ETIMEDOUT;
            kill(-proc->pid, SIGKILL);
            reap(proc);
            drain_output(proc);
            errno = saved;
            result = -1;
            break;
        }
    }
    copy_output(proc, out, out_len);
    int status = proc->wait_status;
    int saved = errno;
    release(proc);
    errno = saved;
    if (result == 0 && exit_status)
        *exit_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                           : WEXITSTATUS(status);
    return result;
}

int dsm_harness_run(const char *const argv[], const char *const extra_env[],
                    int timeout_s, char *out, size_t out_len,
                    int *exit_status)
{
    dsm_harness_proc_t proc;
    if (dsm_harness_spawn(argv, extra_env, &proc) != 0)
        return -1;
    return dsm_harness_wait(&proc, timeout_s, out, out_len, exit_status);
}
