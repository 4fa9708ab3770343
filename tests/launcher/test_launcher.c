/*
 * test_launcher.c - tests of dsmrun, run through the harness.
 *
 * Layer: tests, suite 'launcher'.  Each test starts dsmrun (path in
 * $DSMRUN) with node_echo (path in $NODE_ECHO) as the node program.  The
 * test to run is named by argv[1] (meson runs each as its own test with its
 * own timeout); without an argument all run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

enum {
    RUN_TIMEOUT_S = 20,   /* bound on a whole dsmrun run */
    START_TIMEOUT_S = 10, /* bound on nodes printing their first line */
    END_BOUND_S = 5,      /* every process of a failed job gone within */
    OUTPUT_MAX = 16384,
};

static const char *dsmrun_path(void)
{
    const char *path = getenv("DSMRUN");
    assert_non_null(path);
    return path;
}

static const char *node_path(void)
{
    const char *path = getenv("NODE_ECHO");
    assert_non_null(path);
    return path;
}

static int count_lines(const char *text)
{
    int lines = 0;
    for (; *text; text++)
        lines += *text == '\n';
    return lines;
}

/* Fixture: a private scratch directory under /tmp in *state, removed with
 * its files after the test whatever the outcome. */
static int setup_scratch(void **state)
{
    char *dir = malloc(64);
    if (!dir)
        return -1;
    snprintf(dir, 64, "/tmp/dsm-launcher-XXXXXX");
    if (!mkdtemp(dir)) {
        free(dir);
        return -1;
    }
    *state = dir;
    return 0;
}

static int teardown_scratch(void **state)
{
    char *dir = *state;
    DIR *listing = opendir(dir);
    if (listing) {
        struct dirent *entry;
        while ((entry = readdir(listing)) != NULL)
            if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."))
                unlinkat(dirfd(listing), entry->d_name, 0);
        closedir(listing);
    }
    int removed = rmdir(dir);
    free(dir);
    return removed;
}

static int path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The line of out that starts with "node RANK pid ", or NULL. */
static const char *node_line(const char *out, int rank)
{
    char prefix[32];
    int len = snprintf(prefix, sizeof prefix, "node %d pid ", rank);
    for (const char *line = out; line; line = strchr(line, '\n')) {
        if (*line == '\n')
            line++;
        if (!strncmp(line, prefix, (size_t)len))
            return line;
    }
    return NULL;
}

/* The job id a node printed in its "node R pid P job J" line. */
static void job_of_node(const char *out, int rank, char *job, size_t len)
{
    const char *line = node_line(out, rank);
    assert_non_null(line);
    const char *start = strstr(line, " job ");
    assert_non_null(start);
    start += 5;
    size_t n = strcspn(start, " \n");
    assert_true(n > 0 && n < len);
    memcpy(job, start, n);
    job[n] = '\0';
}

/* How many lines of out are dsmrun's own messages. */
static int dsmrun_lines(const char *out)
{
    int lines = 0;
    for (const char *line = out; line; line = strchr(line, '\n')) {
        if (*line == '\n')
            line++;
        lines += !strncmp(line, "dsmrun: ", 8);
    }
    return lines;
}

/* Whether dsmrun reported "node RANK (pid ...) ...TEXT" on one line. */
static int dsmrun_reported(const char *out, int rank, const char *text)
{
    char prefix[40];
    int len = snprintf(prefix, sizeof prefix, "dsmrun: node %d (pid ", rank);
    for (const char *line = out; line; line = strchr(line, '\n')) {
        if (*line == '\n')
            line++;
        const char *end = strchrnul(line, '\n');
        const char *found = strstr(line, text);
        if (!strncmp(line, prefix, (size_t)len) && found && found < end)
            return 1;
    }
    return 0;
}

/* Asserts that pids end within END_BOUND_S; if they do not, kills them
 * first so that a failing test leaves no process behind. */
static void assert_ended_in_time(const pid_t *pids, int count)
{
    if (dsm_harness_await_exit(pids, count, END_BOUND_S) == 0)
        return;
    for (int i = 0; i < count; i++)
        kill(pids[i], SIGKILL);
    fail_msg("the job's processes outlived the %d s bound", END_BOUND_S);
}

static void assert_job_gone(const char *job)
{
    pid_t pids[16];
    assert_int_equal(dsm_harness_job_pids(job, pids, 16), 0);
}

/* ---- bad input ---------------------------------------------------------- */

/* Runs dsmrun with args; checks exit status 2, exactly one line starting
 * "dsmrun: " that contains expect, on stderr and nothing on stdout. */
static void check_usage_error_env(const char *const args[],
                                  const char *const env[], const char *expect)
{
    const char *argv[16] = {dsmrun_path()};
    const char *stderr_only[20] = {
        "/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1 >/dev/null", dsmrun_path(),
    };
    int n = 0;
    for (; args[n]; n++) {
        assert_true(n + 4 < 19);
        argv[1 + n] = args[n];
        stderr_only[4 + n] = args[n];
    }
    argv[1 + n] = NULL;
    stderr_only[4 + n] = NULL;

    char both[OUTPUT_MAX], errors[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_run(argv, env, RUN_TIMEOUT_S, both,
                                     sizeof both, &status), 0);
    assert_int_equal(status, 2);
    assert_int_equal(dsm_harness_run(stderr_only, env, RUN_TIMEOUT_S, errors,
                                     sizeof errors, &status), 0);
    assert_int_equal(status, 2);

    assert_string_equal(both, errors);   /* so stdout was empty */
    assert_int_equal(count_lines(errors), 1);
    assert_true(!strncmp(errors, "dsmrun: ", 8));
    if (!strstr(errors, expect))
        fail_msg("expected '%s' in: %s", expect, errors);
}

static void check_usage_error(const char *const args[], const char *expect)
{
    check_usage_error_env(args, NULL, expect);
}

static void test_bad_input(void **state)
{
    const char *dir = *state;
    char marker[128], not_executable[128];
    snprintf(marker, sizeof marker, "%s/started", dir);
    snprintf(not_executable, sizeof not_executable, "%s/plain", dir);
    int fd = open(not_executable, O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    close(fd);

    /* each would create the marker if dsmrun started a node */
    const char *node = node_path();
    const char *zero[] = {"-n", "0", node, "touch", marker, NULL};
    const char *negative[] = {"-n", "-2", node, "touch", marker, NULL};
    const char *words[] = {"--nodes", "three", node, "touch", marker, NULL};
    const char *trailing[] = {"-n", "2x", node, "touch", marker, NULL};
    const char *unknown[] = {"--frobnicate", node, "touch", marker, NULL};
    const char *unknown_short[] = {"-q", node, "touch", marker, NULL};
    const char *no_value[] = {"-n", NULL};
    const char *no_program[] = {"-n", "2", NULL};
    const char *nothing[] = {NULL};
    const char *missing_path[] = {"/nonexistent/dsm-program", NULL};
    const char *missing_name[] = {"dsm-no-such-program-anywhere", NULL};
    const char *plain_file[] = {not_executable, NULL};

    check_usage_error(zero, "node count '0'");
    check_usage_error(negative, "node count '-2'");
    check_usage_error(words, "node count 'three'");
    check_usage_error(trailing, "node count '2x'");
    check_usage_error(unknown, "unknown option '--frobnicate'");
    check_usage_error(unknown_short, "unknown option '-q'");
    check_usage_error(no_value, "'-n' needs a value");
    check_usage_error(no_program, "no program");
    check_usage_error(nothing, "no program");
    check_usage_error(missing_path, "'/nonexistent/dsm-program' not found");
    check_usage_error(missing_name, "'dsm-no-such-program-anywhere' not found");
    check_usage_error(plain_file, "is not executable");
    const char *grace_env[] = {"DSM_KILL_GRACE=soon", NULL};
    const char *grace_run[] = {node, "touch", marker, NULL};
    check_usage_error_env(grace_run, grace_env, "DSM_KILL_GRACE 'soon'");

    assert_false(path_exists(marker));
}

/* Host lists, hostfiles and Slurm allocations that cannot work: one line,
 * status 2, nothing started (no ssh is needed to find out). */
static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_bad_host_input(void **state)
{
    const char *dir = *state;
    char marker[128], bad_slots[128], three_words[128], empty[128],
        missing[128];
    snprintf(marker, sizeof marker, "%s/started", dir);
    snprintf(bad_slots, sizeof bad_slots, "%s/bad_slots", dir);
    snprintf(three_words, sizeof three_words, "%s/three_words", dir);
    snprintf(empty, sizeof empty, "%s/empty", dir);
    snprintf(missing, sizeof missing, "%s/missing", dir);
    write_file(bad_slots, "# hosts\nalpha slots=2\nbeta slots=many\n");
    write_file(three_words, "alpha 2 extra\n");
    write_file(empty, "# nothing\n\n");

    const char *node = node_path();
    const char *blank[] = {"--hosts", "alpha,,beta", node, "touch", marker,
                           NULL};
    const char *trailing[] = {"--hosts", "alpha,", node, "touch", marker,
                              NULL};
    const char *twice[] = {"--hosts", "alpha,beta,alpha", node, "touch",
                           marker, NULL};
    const char *slots[] = {"--hosts", "alpha:0", node, "touch", marker, NULL};
    const char *too_many[] = {"-n", "3", "--hosts", "alpha,beta", node,
                              "touch", marker, NULL};
    const char *no_file[] = {"--hostfile", missing, node, "touch", marker,
                             NULL};
    const char *file_slots[] = {"--hostfile", bad_slots, node, "touch",
                                marker, NULL};
    const char *file_words[] = {"--hostfile", three_words, node, "touch",
                                marker, NULL};
    const char *file_empty[] = {"--hostfile", empty, node, "touch", marker,
                                NULL};
    const char *both[] = {"--hosts", "alpha", "--hostfile", empty, node,
                          "touch", marker, NULL};
    const char *local_and_hosts[] = {"--local", "--hosts", "alpha", node,
                                     "touch", marker, NULL};
    check_usage_error(blank, "--hosts entry 2: blank host entry");
    check_usage_error(trailing, "--hosts entry 2: blank host entry");
    check_usage_error(twice, "host 'alpha' is listed twice");
    check_usage_error(slots, "invalid slot count '0'");
    check_usage_error(too_many, "3 nodes requested but the 2 hosts have "
                                "only 2 slots");
    check_usage_error(no_file, "No such file or directory");
    check_usage_error(file_slots, "line 3: invalid slot count 'many'");
    check_usage_error(file_words, "line 1: expected 'NAME [slots=N]'");
    check_usage_error(file_empty, "names no host");
    check_usage_error(both, "exclude each other");
    check_usage_error(local_and_hosts, "exclude each other");

    const char *run[] = {"-n", "3", node, "touch", marker, NULL};
    const char *small_allocation[] = {"SLURM_JOB_ID=42",
                                      "SLURM_JOB_NUM_NODES=2", NULL};
    check_usage_error_env(run, small_allocation,
                          "3 nodes requested but the Slurm allocation "
                          "(job 42) has 2 nodes");
    const char *no_count[] = {"SLURM_JOB_ID=42", "SLURM_JOB_NUM_NODES=",
                              "SLURM_NNODES=", NULL};
    check_usage_error_env(run, no_count, "not a node count");
    const char *missing_env[] = {NULL, NULL};
    char hostfile_env[160];
    snprintf(hostfile_env, sizeof hostfile_env, "DSM_HOSTFILE=%s", missing);
    missing_env[0] = hostfile_env;
    check_usage_error_env(run, missing_env, "No such file or directory");

    assert_false(path_exists(marker));

    /* --local inside an allocation starts here, as without Slurm */
    const char *local[] = {dsmrun_path(), "--local", "-n", "2", node, "touch",
                           marker, NULL};
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_run(local, small_allocation, RUN_TIMEOUT_S,
                                     out, sizeof out, &status), 0);
    assert_int_equal(status, 0);
    assert_true(path_exists(marker));
}

static void test_help_and_version(void **state)
{
    (void)state;
    char out[OUTPUT_MAX];
    int status = -1;
    const char *help[] = {dsmrun_path(), "--help", NULL};
    assert_int_equal(dsm_harness_run(help, NULL, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);
    assert_int_equal(status, 0);
    const char *documented[] = {
        "--nodes", "--threads", "--kill-grace", "--verbose", "--help",
        "--version", "DSM_RANK", "DSM_SIZE", "DSM_THREADS", "DSM_RENDEZVOUS",
        "DSM_RENDEZVOUS_FD", "DSM_TOKEN", "DSM_JOB_ID", "DSM_KILL_GRACE",
        "UCX_POSIX_DIR", "Exit status", "--hosts", "--hostfile", "--ssh",
        "--interface", "--env", "--local", "DSM_SSH", "DSM_INTERFACE",
        "DSM_HOSTFILE", "DSM_PASS_ENV", "SLURM_JOB_ID",
    };
    for (size_t i = 0; i < sizeof documented / sizeof *documented; i++)
        if (!strstr(out, documented[i]))
            fail_msg("--help does not mention %s", documented[i]);

    const char *version[] = {dsmrun_path(), "-V", NULL};
    assert_int_equal(dsm_harness_run(version, NULL, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);
    assert_int_equal(status, 0);
    assert_true(!strncmp(out, "dsmrun (dsmomp) ", 16));
    assert_int_equal(count_lines(out), 1);
}

/* ---- a normal job ------------------------------------------------------- */

typedef struct node_report {
    long pid;
    char job[64];
    char size[8], threads[8];
    char token[8], aslr[8], layout[128], rendezvous[16];
} node_report_t;

static void parse_report(const char *out, int rank, node_report_t *r)
{
    const char *line = node_line(out, rank);
    if (!line)
        fail_msg("no report from node %d in: %s", rank, out);
    int found_rank;
    int fields = sscanf(line,
                        "node %d pid %ld job %63s size %7s threads %7s token %7s "
                        "aslr %7s layout %127s rendezvous %15s",
                        &found_rank, &r->pid, r->job, r->size, r->threads,
                        r->token, r->aslr, r->layout, r->rendezvous);
    if (fields != 9)
        fail_msg("malformed report from node %d: %s", rank, line);
}

/* True if text holds a run of n hex digits (what a printed token is). */
static int has_hex_run(const char *text, size_t n)
{
    size_t run = 0;
    for (; *text; text++) {
        run = strchr("0123456789abcdefABCDEF", *text) ? run + 1 : 0;
        if (run >= n)
            return 1;
    }
    return 0;
}

static void test_three_nodes_report(void **state)
{
    (void)state;
    const char *argv[] = {dsmrun_path(), "-v", "-n", "3", "-t", "2",
                          node_path(), "report", NULL};
    char out[OUTPUT_MAX];
    int status = -1;
    dsm_harness_proc_t proc;
    assert_int_equal(dsm_harness_spawn(argv, NULL, &proc), 0);
    pid_t dsmrun_pid = proc.pid;
    assert_int_equal(dsm_harness_wait(&proc, RUN_TIMEOUT_S, out, sizeof out,
                                      &status), 0);
    if (status != 0)
        fail_msg("dsmrun exited %d: %s", status, out);

    node_report_t reports[3];
    for (int rank = 0; rank < 3; rank++) {
        node_report_t *r = &reports[rank];
        parse_report(out, rank, r);
        assert_string_equal(r->size, "3");
        assert_string_equal(r->threads, "2");
        assert_string_equal(r->token, "ok");
        assert_string_equal(r->aslr, "off");
        assert_string_equal(r->rendezvous, rank == 0 ? "listening" : "none");
        assert_string_equal(r->job, reports[0].job);
        assert_string_equal(r->layout, reports[0].layout);
        /* dsmrun's verbose report names the same process */
        char started[64];
        snprintf(started, sizeof started, "dsmrun: node %d pid %ld\n", rank,
                 r->pid);
        assert_non_null(strstr(out, started));
    }
    assert_true(reports[0].pid != reports[1].pid &&
                reports[1].pid != reports[2].pid &&
                reports[0].pid != reports[2].pid);

    char job_prefix[32];
    snprintf(job_prefix, sizeof job_prefix, "%ld.", (long)dsmrun_pid);
    assert_true(!strncmp(reports[0].job, job_prefix, strlen(job_prefix)));
    assert_false(has_hex_run(out, 32));   /* the token is never printed */

    /* Control: started directly, with randomisation on, the layout differs
     * between two runs; otherwise the comparison above proves nothing. */
    char setting[16] = "";
    dsm_harness_read_file("/proc/sys/kernel/randomize_va_space", setting,
                          sizeof setting);
    if (atoi(setting) != 0) {
        const char *direct[] = {node_path(), "report", NULL};
        const char *outside_job[] = {"DSM_RANK=0", NULL};
        char first[OUTPUT_MAX], second[OUTPUT_MAX];
        assert_int_equal(dsm_harness_run(direct, outside_job, RUN_TIMEOUT_S,
                                         first, sizeof first, &status), 0);
        assert_int_equal(dsm_harness_run(direct, outside_job, RUN_TIMEOUT_S,
                                         second, sizeof second, &status), 0);
        node_report_t a, b;
        parse_report(first, 0, &a);
        parse_report(second, 0, &b);
        assert_string_equal(a.aslr, "on");
        assert_string_not_equal(a.layout, b.layout);
    }
}

/* ---- failures end the job ---------------------------------------------- */

static void test_exec_failure_reported(void **state)
{
    /* executable but not a program: found, then execve fails (ENOEXEC) */
    const char *dir = *state;
    char script[128];
    snprintf(script, sizeof script, "%s/not-a-program", dir);
    int fd = open(script, O_WRONLY | O_CREAT, 0755);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "no interpreter line\n", 20), 20);
    close(fd);

    const char *argv[] = {dsmrun_path(), "-n", "2", script, NULL};
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_run(argv, NULL, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);

    assert_int_equal(status, 127);
    char expected[192];
    snprintf(expected, sizeof expected,
             "cannot execute '%s': Exec format error\n", script);
    if (!strstr(out, expected) ||
        (!dsmrun_reported(out, 0, "exited with status 127") &&
         !dsmrun_reported(out, 1, "exited with status 127")))
        fail_msg("exec failure not reported: %s", out);
}

static void test_exit_status_propagates(void **state)
{
    (void)state;
    const char *argv[] = {dsmrun_path(), "-v", "-n", "3", node_path(), "exit",
                          "1", "3", NULL};
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_run(argv, NULL, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);
    assert_int_equal(status, 3);

    pid_t failed;
    assert_int_equal(dsm_harness_find_node_pid(out, 1, &failed), 0);
    char expected[128];
    snprintf(expected, sizeof expected,
             "dsmrun: node 1 (pid %ld) exited with status 3; ending the job\n",
             (long)failed);
    if (!strstr(out, expected))
        fail_msg("expected '%s' in: %s", expected, out);
    /* the others were asked to end (SIGTERM), not left for SIGKILL */
    if (!dsmrun_reported(out, 0, "killed by signal 15") ||
        !dsmrun_reported(out, 2, "killed by signal 15"))
        fail_msg("nodes 0 and 2 did not end by SIGTERM: %s", out);

    char job[64];
    job_of_node(out, 1, job, sizeof job);
    assert_job_gone(job);
}

/* Start dsmrun -n count with node_echo mode; wait for every node's line. */
static void start_job(const char *const argv[], const char *const env[],
                      int count, dsm_harness_proc_t *proc, pid_t *pids,
                      char *job, size_t job_len)
{
    assert_int_equal(dsm_harness_spawn(argv, env, proc), 0);
    for (int rank = 0; rank < count; rank++) {
        if (dsm_harness_await_node_pid(proc, rank, START_TIMEOUT_S,
                                       &pids[rank]) == 0)
            continue;
        /* killing dsmrun takes its nodes along */
        char out[OUTPUT_MAX];
        kill(proc->pid, SIGKILL);
        dsm_harness_wait(proc, RUN_TIMEOUT_S, out, sizeof out, NULL);
        fail_msg("node %d did not start: %s", rank, out);
    }
    assert_int_equal(dsm_harness_proc_env(pids[0], "DSM_JOB_ID", job,
                                          job_len), 0);
}

static void test_killed_node_ends_job(void **state)
{
    (void)state;
    /* the others ignore SIGTERM: dsmrun has to escalate to SIGKILL */
    const char *argv[] = {dsmrun_path(), "-n", "3", node_path(), "stubborn",
                          NULL};
    dsm_harness_proc_t proc;
    pid_t pids[3];
    char job[64];
    start_job(argv, NULL, 3, &proc, pids, job, sizeof job);
    pid_t found[8];
    assert_int_equal(dsm_harness_job_pids(job, found, 8), 3);

    assert_int_equal(kill(pids[1], SIGKILL), 0);
    assert_ended_in_time(pids, 3);
    assert_job_gone(job);

    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_wait(&proc, RUN_TIMEOUT_S, out, sizeof out,
                                      &status), 0);
    assert_int_equal(status, 128 + SIGKILL);
    char expected[128];
    snprintf(expected, sizeof expected,
             "dsmrun: node 1 (pid %ld) killed by signal 9 (Killed); "
             "ending the job\n", (long)pids[1]);
    /* one message: no complaint about nodes that outlived SIGKILL */
    if (!strstr(out, expected) || dsmrun_lines(out) != 1)
        fail_msg("expected only '%s' from dsmrun in: %s", expected, out);
}

static void test_sigint_reaches_every_node(void **state)
{
    const char *dir = *state;
    const char *argv[] = {dsmrun_path(), "-n", "3", node_path(), "sigint",
                          dir, NULL};
    dsm_harness_proc_t proc;
    pid_t pids[3];
    char job[64];
    start_job(argv, NULL, 3, &proc, pids, job, sizeof job);

    assert_int_equal(kill(proc.pid, SIGINT), 0);
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_wait(&proc, RUN_TIMEOUT_S, out, sizeof out,
                                      &status), 0);
    assert_int_equal(status, 128 + SIGINT);

    int markers = 0, reported = 0;
    for (int rank = 0; rank < 3; rank++) {
        char path[128], line[32];
        snprintf(path, sizeof path, "%s/sigint.%d", dir, rank);
        markers += path_exists(path);
        snprintf(line, sizeof line, "node %d got SIGINT\n", rank);
        reported += strstr(out, line) != NULL;
    }
    if (markers != 3 || reported != 3)
        fail_msg("SIGINT reached %d of 3 nodes: %s", markers, out);
    assert_job_gone(job);
}

static void test_killed_dsmrun_takes_nodes(void **state)
{
    (void)state;
    const char *argv[] = {dsmrun_path(), "-n", "2", node_path(), "block",
                          NULL};
    dsm_harness_proc_t proc;
    pid_t pids[2];
    char job[64];
    start_job(argv, NULL, 2, &proc, pids, job, sizeof job);

    assert_int_equal(kill(proc.pid, SIGKILL), 0);
    assert_ended_in_time(pids, 2);
    assert_job_gone(job);

    int status = -1;
    assert_int_equal(dsm_harness_wait(&proc, RUN_TIMEOUT_S, NULL, 0, &status),
                     0);
    assert_int_equal(status, 128 + SIGKILL);
}

/* ---- shared memory left behind ------------------------------------------ */

typedef struct leftovers {
    int shmid;
    char file[256];
} leftovers_t;

static void parse_leftovers(const char *out, int rank, leftovers_t *l)
{
    const char *line = node_line(out, rank);
    assert_non_null(line);
    const char *fields = strstr(line, " shmid ");
    assert_non_null(fields);
    assert_int_equal(sscanf(fields, " shmid %d file %255s", &l->shmid,
                            l->file), 2);
}

static int segment_exists(int shmid)
{
    struct shmid_ds info;
    return shmctl(shmid, IPC_STAT, &info) == 0;
}

static void test_leftover_shm_removed(void **state)
{
    (void)state;
    /* proc links off: the setting with which UCX keeps its files */
    const char *env[] = {"UCX_POSIX_USE_PROC_LINK=n", "UCX_POSIX_DIR=", NULL};
    const char *argv[] = {dsmrun_path(), "-n", "2", node_path(), "leave-shm",
                          NULL};
    dsm_harness_proc_t proc;
    pid_t pids[2];
    char job[64];
    start_job(argv, env, 2, &proc, pids, job, sizeof job);

    leftovers_t left[2];
    int existed = 1;
    for (int rank = 0; rank < 2; rank++) {
        parse_leftovers(proc.out, rank, &left[rank]);
        existed &= segment_exists(left[rank].shmid) &&
                   path_exists(left[rank].file);
    }
    char job_dir[128];
    snprintf(job_dir, sizeof job_dir, "/dev/shm/dsmomp-%s/", job);

    assert_int_equal(kill(pids[1], SIGKILL), 0);
    int status = -1;
    char out[OUTPUT_MAX];
    assert_int_equal(dsm_harness_wait(&proc, RUN_TIMEOUT_S, out, sizeof out,
                                      &status), 0);

    int remained = 0;
    for (int rank = 0; rank < 2; rank++) {
        if (segment_exists(left[rank].shmid)) {
            remained++;
            shmctl(left[rank].shmid, IPC_RMID, NULL);   /* do not leak it */
        }
        remained += path_exists(left[rank].file);
    }
    job_dir[strlen(job_dir) - 1] = '\0';
    int dir_remained = path_exists(job_dir);

    assert_true(existed);   /* control: there was something to remove */
    assert_true(!strncmp(left[0].file, job_dir, strlen(job_dir)));
    assert_int_equal(status, 128 + SIGKILL);
    assert_int_equal(remained, 0);
    assert_false(dir_remained);
}

/* ---- a real transport --------------------------------------------------- */

/* SysV segments whose creator is one of pids (from /proc/sysvipc/shm). */
static int sysv_segments_of(const pid_t *pids, int count)
{
    char table[65536];
    if (dsm_harness_read_file("/proc/sysvipc/shm", table, sizeof table) != 0)
        return 0;   /* no SysV IPC: nothing can be left */
    int found = 0;
    const char *line = strchr(table, '\n');   /* skip the header */
    while (line && *++line) {
        long key, shmid, perms, size, cpid;
        if (sscanf(line, "%ld %ld %lo %ld %ld", &key, &shmid, &perms, &size,
                   &cpid) == 5)
            for (int i = 0; i < count; i++)
                found += cpid == (long)pids[i];
        line = strchr(line, '\n');
    }
    return found;
}

static int directory_entries(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    int entries = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL)
        entries += strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..");
    closedir(dir);
    return entries;
}

static void test_transport_peer_killed(void **state)
{
    (void)state;
    const char *pingpong = getenv("NODE_PINGPONG");
    assert_non_null(pingpong);
    /* proc links off, so that UCX keeps shared-memory files to clean up */
    const char *env[] = {"UCX_POSIX_USE_PROC_LINK=n", "UCX_POSIX_DIR=", NULL};
    const char *argv[] = {dsmrun_path(), "-n", "2", pingpong, NULL};
    dsm_harness_proc_t proc;
    pid_t pids[2];
    char job[64];
    start_job(argv, env, 2, &proc, pids, job, sizeof job);
    if (dsm_harness_await_output(&proc, "node 0 exchanging\n",
                                 START_TIMEOUT_S) != 0) {
        char out[OUTPUT_MAX];
        kill(proc.pid, SIGKILL);
        dsm_harness_wait(&proc, RUN_TIMEOUT_S, out, sizeof out, NULL);
        fail_msg("no exchange between the nodes: %s", out);
    }
    char job_dir[128];
    snprintf(job_dir, sizeof job_dir, "/dev/shm/dsmomp-%s", job);
    int files_during = directory_entries(job_dir);

    assert_int_equal(kill(pids[1], SIGKILL), 0);
    assert_ended_in_time(pids, 2);
    assert_job_gone(job);

    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_wait(&proc, RUN_TIMEOUT_S, out, sizeof out,
                                      &status), 0);
    assert_int_not_equal(status, 0);
    if (!dsmrun_reported(out, 1, "killed by signal 9"))
        fail_msg("dsmrun did not name node 1: %s", out);

    /* UCX did put files in the job's directory; none of it is left */
    assert_true(files_during > 0);
    assert_int_equal(directory_entries(job_dir), -1);
    assert_int_equal(sysv_segments_of(pids, 2), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bad_input, setup_scratch,
                                        teardown_scratch),
        cmocka_unit_test_setup_teardown(test_bad_host_input, setup_scratch,
                                        teardown_scratch),
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_three_nodes_report),
        cmocka_unit_test_setup_teardown(test_exec_failure_reported,
                                        setup_scratch, teardown_scratch),
        cmocka_unit_test(test_exit_status_propagates),
        cmocka_unit_test(test_killed_node_ends_job),
        cmocka_unit_test_setup_teardown(test_sigint_reaches_every_node,
                                        setup_scratch, teardown_scratch),
        cmocka_unit_test(test_killed_dsmrun_takes_nodes),
        cmocka_unit_test(test_leftover_shm_removed),
        cmocka_unit_test(test_transport_peer_killed),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests_name("launcher", tests, NULL, NULL);
}
