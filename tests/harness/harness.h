/*
 * harness.h - runs commands and multi-node jobs for the cmocka test suites.
 *
 * Layer: tests (libc only; no runtime layer).  Entry points:
 *   dsm_harness_run                     run a command to completion
 *   dsm_harness_spawn / _wait           start one, act while it runs, wait
 *   dsm_harness_await_output            wait for text in its output
 *   dsm_harness_await_node_pid          wait for a "node R pid P" line
 *   dsm_harness_find_node_pid           the same line in a buffer
 *   dsm_harness_read_file               a whole small file, NUL-terminated
 *   dsm_harness_job_pids                the live processes of a dsmrun job
 *   dsm_harness_proc_env                one variable of a process's environ
 *   dsm_harness_await_exit              wait for any processes to end
 * Called from test bodies in the test process (single-threaded); not from
 * signal handlers.
 *
 * Commands run with stdout and stderr captured together through one pipe,
 * stdin from /dev/null, default signal handling, and as the leader of their
 * own process group, so that a timeout can kill the command and whatever
 * it started in that group.  Every wait has a timeout in seconds and sleeps
 * in poll(2) until something happens; nothing polls on a timer.
 *
 * All functions return 0 on success and -1 with errno set on failure;
 * errno ETIMEDOUT means the timeout passed.
 */
#ifndef DSM_HARNESS_H
#define DSM_HARNESS_H

#include <stddef.h>
#include <sys/types.h>

/* Output kept per command; more is read and dropped so the command never
 * blocks on a full pipe. */
#define DSM_HARNESS_OUTPUT_MAX (256 * 1024)

typedef struct dsm_harness_proc {
    pid_t pid;        /* the command, leader of its own process group */
    int pidfd;        /* readable once the command has exited */
    int out_fd;       /* read end of the output pipe, non-blocking */
    int out_closed;   /* every writer has closed the pipe */
    char *out;        /* output so far, NUL-terminated */
    size_t out_len;
    int exited;       /* reaped; wait_status is valid */
    int wait_status;
} dsm_harness_proc_t;

/* Start argv[0] (a path: no PATH search) with argv, in the test's
 * environment plus extra_env ("NAME=VALUE" entries that replace variables
 * of the same name; may be NULL). */
int dsm_harness_spawn(const char *const argv[], const char *const extra_env[],
                      dsm_harness_proc_t *proc);

/* Wait for the command to exit.  *exit_status: its exit code, or 128+N if
 * a signal N killed it.  The output so far is copied to out (truncated to
 * out_len - 1 bytes, always NUL-terminated; out may be NULL).  On timeout
 * the command's process group gets SIGKILL, the output is still copied,
 * and -1/ETIMEDOUT is returned.  Releases everything spawn acquired. */
int dsm_harness_wait(dsm_harness_proc_t *proc, int timeout_s, char *out,
                     size_t out_len, int *exit_status);

/* spawn + wait. */
int dsm_harness_run(const char *const argv[], const char *const extra_env[],
                    int timeout_s, char *out, size_t out_len,
                    int *exit_status);

/* Wait until the command's output contains text.  -1/ESRCH if the command
 * exited without printing it. */
int dsm_harness_await_output(dsm_harness_proc_t *proc, const char *text,
                             int timeout_s);

/* Find a line that starts "node RANK pid PID" in text. */
int dsm_harness_find_node_pid(const char *text, int rank, pid_t *pid);

/* Wait until the command's output has a "node RANK pid PID" line. */
int dsm_harness_await_node_pid(dsm_harness_proc_t *proc, int rank,
                               int timeout_s, pid_t *pid);

/* Read the first len - 1 bytes (or fewer) of a file into buf,
 * NUL-terminated. */
int dsm_harness_read_file(const char *path, char *buf, size_t len);

/* Scan /proc/PID/environ of every process for DSM_JOB_ID=job_id.  Stores up
 * to max pids and returns how many processes matched (zombies have no
 * environment left and never match), or -1. */
int dsm_harness_job_pids(const char *job_id, pid_t *pids, int max);

/* Copy the value of variable name in the environment of process pid.
 * -1/ENOENT if it has no such variable. */
int dsm_harness_proc_env(pid_t pid, const char *name, char *value,
                         size_t len);

/* Wait until every process in pids has exited (a zombie has exited); the
 * processes need not be children of the caller. */
int dsm_harness_await_exit(const pid_t *pids, int count, int timeout_s);

#endif
