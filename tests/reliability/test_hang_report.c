/*
 * test_hang_report.c - dsmrun's hang report: a job that runs longer than
 * --timeout (or DSM_JOB_TIMEOUT), or whose dsmrun gets SIGQUIT, is ended
 * after one line per thread of every node saying what it waits for.
 *
 * Layer: tests, suite 'reliability'.  Runs dsmrun ($DSMRUN) with
 * omp_deadlock ($OMP_DEADLOCK): two locks taken in opposite orders on two
 * nodes, and a thread waiting for a flag nobody sets while the others
 * wait for it in a barrier.  The case to run is argv[1].  Each case prints
 * its figures (time from the limit or the signal to dsmrun's exit) for
 * doc/reliability.md.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "board_reader.h"
#include "harness.h"

enum {
    RUN_TIMEOUT_S = 60,
    STATE_TIMEOUT_S = 20,
    END_BOUND_S = 5,      /* after the limit or the signal: every node gone */
    OUTPUT_MAX = 65536,
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Does a line of out match every piece, in order, on the same line? */
static int has_line(const char *out, const char *const pieces[])
{
    for (const char *line = out; *line;) {
        const char *eol = strchrnul(line, '\n');
        const char *at = line;
        int ok = 1;
        for (int i = 0; ok && pieces[i]; i++) {
            const char *found = strstr(at, pieces[i]);
            ok = found && found < eol;
            if (ok)
                at = found + strlen(pieces[i]);
        }
        if (ok)
            return 1;
        line = *eol ? eol + 1 : eol;
    }
    return 0;
}

static void expect_line(const char *out, const char *const pieces[])
{
    if (!has_line(out, pieces))
        fail_msg("no line with '%s' ... '%s' in the report", pieces[0],
                 pieces[1] ? pieces[1] : "");
}

/* The lock deadlock's report: each node's thread 0 waits for the lock the
 * other holds. */
static void expect_lock_report(const char *out)
{
    for (int rank = 0; rank < 2; rank++) {
        char who[32];
        snprintf(who, sizeof who, "dsmrun: node %d thread 0 (tid ", rank);
        const char *const line[] = {who, "): waiting for a lock grant from "
                                    "node 0 (lock ", " of node 0) while "
                                    "holding 1 lock (last: lock ", NULL};
        expect_line(out, line);
    }
}

static void run_locks_until_limit(const char *const argv[],
                                  const char *const env[], int limit_s)
{
    char out[OUTPUT_MAX];
    int status = -1;
    double start = now_s();
    assert_int_equal(dsm_harness_run(argv, env, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);
    double took = now_s() - start;
    printf("%s", out);
    printf("figure: lock deadlock on 2 nodes, limit %d s: dsmrun exited %d "
           "after %.2f s\n", limit_s, status, took);
    assert_int_equal(status, 124);
    char said[96];
    snprintf(said, sizeof said, "dsmrun: the job ran longer than --timeout "
             "%d s; what every thread is doing:", limit_s);
    assert_non_null(strstr(out, said));
    expect_lock_report(out);
    assert_true(took >= limit_s - 0.1);
    assert_true(took <= limit_s + END_BOUND_S);
}

static void test_timeout_option(void **state)
{
    (void)state;
    const char *argv[] = {getenv("DSMRUN"), "--timeout", "3", "-n", "2",
                          getenv("OMP_DEADLOCK"), "locks", NULL};
    assert_non_null(argv[0]);
    assert_non_null(argv[5]);
    run_locks_until_limit(argv, NULL, 3);
}

static void test_timeout_variable(void **state)
{
    (void)state;
    const char *argv[] = {getenv("DSMRUN"), "-n", "2", getenv("OMP_DEADLOCK"),
                          "locks", NULL};
    const char *env[] = {"DSM_JOB_TIMEOUT=2", NULL};
    run_locks_until_limit(argv, env, 2);
}

/* The option wins over the variable; a job that ends in time is not
 * touched (status 0, no report). */
static void test_timeout_not_reached(void **state)
{
    (void)state;
    const char *argv[] = {getenv("DSMRUN"), "--timeout", "60", "-n", "2",
                          getenv("OMP_DEADLOCK"), "none", NULL};
    const char *env[] = {"DSM_JOB_TIMEOUT=1", NULL};
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_run(argv, env, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);
    printf("%s", out);
    assert_int_equal(status, 0);
    assert_null(strstr(out, "what every thread is doing"));
}

static void test_bad_timeout(void **state)
{
    (void)state;
    const char *argv[] = {getenv("DSMRUN"), "--timeout", "soon", "-n", "2",
                          getenv("OMP_DEADLOCK"), "none", NULL};
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_run(argv, NULL, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);
    assert_int_equal(status, 2);
    assert_non_null(strstr(out, "invalid timeout 'soon'"));
    const char *argv2[] = {getenv("DSMRUN"), "-n", "2", getenv("OMP_DEADLOCK"),
                           "none", NULL};
    const char *env[] = {"DSM_JOB_TIMEOUT=-1", NULL};
    assert_int_equal(dsm_harness_run(argv2, env, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);
    assert_int_equal(status, 2);
    assert_non_null(strstr(out, "invalid DSM_JOB_TIMEOUT '-1'"));
}

/* Wait until node rank's activity (every thread's, joined) has text and
 * also (when not NULL) other, at the same moment. */
static void await_state(int board, int rank, const char *text,
                        const char *other)
{
    char doing[1024];
    double end = now_s() + STATE_TIMEOUT_S;
    do {
        board_describe(board, rank, doing, sizeof doing);
        if (strstr(doing, text) && (!other || strstr(doing, other)))
            return;
        pause_ms(5);
    } while (now_s() < end);
    fail_msg("node %d never got to '%s' (is '%s')", rank, text, doing);
}

/* 2 nodes x 2 threads: thread 1 of node 1 waits for a flag for ever, the
 * other three wait for it in the region's first barrier.  SIGQUIT to
 * dsmrun once they do: status 131 and a line for each thread. */
static void test_sigquit(void **state)
{
    (void)state;
    const char *argv[] = {getenv("DSMRUN"), "-n", "2", "-t", "2",
                          getenv("OMP_DEADLOCK"), "flag", NULL};
    dsm_harness_proc_t proc;
    assert_int_equal(dsm_harness_spawn(argv, NULL, &proc), 0);
    pid_t pids[2];
    for (int rank = 0; rank < 2; rank++)
        assert_int_equal(dsm_harness_await_node_pid(&proc, rank,
                                                    STATE_TIMEOUT_S,
                                                    &pids[rank]), 0);
    int board = board_open(proc.pid);
    assert_true(board >= 0);
    /* node 1's thread 1 may still be on its way out of its wait for the
     * region (a loaded machine): computing too, then */
    await_state(board, 1, "waiting for the other threads of this node at a "
                          "barrier", "computing");
    await_state(board, 0, "waiting for every node's barrier arrival", NULL);
    close(board);
    double sent = now_s();
    assert_int_equal(kill(proc.pid, SIGQUIT), 0);
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_wait(&proc, RUN_TIMEOUT_S, out, sizeof out,
                                      &status), 0);
    double took = now_s() - sent;
    printf("%s", out);
    printf("figure: flag deadlock on 2x2, SIGQUIT: dsmrun exited %d %.2f s "
           "later\n", status, took);
    assert_int_equal(status, 128 + SIGQUIT);
    assert_non_null(strstr(out, "dsmrun: received signal 3 (Quit); what "
                                "every thread is doing:"));
    const char *const spinning[] = {"dsmrun: node 1 thread 1 (tid ",
                                    "): computing", NULL};
    const char *const local[] = {"dsmrun: node 1 thread 0 (tid ",
                                 "): waiting for the other threads of this "
                                 "node at a barrier (barrier 1 of parallel "
                                 "region 1)", NULL};
    const char *const gather[] = {"dsmrun: node 0 thread ",
                                  "waiting for every node's barrier arrival "
                                  "(barrier epoch ", NULL};
    const char *const other[] = {"dsmrun: node 0 thread ",
                                 "waiting for the other threads of this "
                                 "node at a barrier (barrier 1 of parallel "
                                 "region 1)", NULL};
    expect_line(out, spinning);
    expect_line(out, local);
    expect_line(out, gather);
    expect_line(out, other);
    assert_true(took <= END_BOUND_S);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_timeout_option),
        cmocka_unit_test(test_timeout_variable),
        cmocka_unit_test(test_timeout_not_reached),
        cmocka_unit_test(test_bad_timeout),
        cmocka_unit_test(test_sigquit),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests_name("hang report", all, NULL, NULL);
}
