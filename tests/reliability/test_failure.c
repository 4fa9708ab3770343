/*
 * test_failure.c - failure injection: nodes killed in known states, nodes
 * stopped, a busy node, a crash outside the sharable space.
 *
 * Layer: tests, suite 'reliability'.  Runs dsmrun ($DSMRUN) with
 * node_failure ($NODE_FAILURE); the case to run is argv[1] (meson runs each
 * as its own test).  The state a node is in comes from the job's activity
 * board (board_reader.h), so a kill lands in the state under test, not
 * near it: the victim is stopped, its state read, and it is killed only if
 * the state is the one wanted (else continued and tried again).
 * Each case prints its figures (time to a clean end) for
 * doc/reliability.md.
 */
#include <errno.h>
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
    START_TIMEOUT_S = 30,  /* nodes wired up and ready */
    RUN_TIMEOUT_S = 60,    /* bound on a whole run */
    END_BOUND_S = 5,       /* every process gone within, after a kill */
    STATE_TIMEOUT_S = 20,  /* a node reaches the state under test */
    STOP_TIMEOUT_S = 3,    /* DSM_TIMEOUT of the SIGSTOP cases */
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

typedef struct job {
    dsm_harness_proc_t proc;
    int nodes;
    pid_t pids[8];
    int board;
} job_t;

/* Kill dsmrun (its nodes die with it) and fail with its output. */
static void __attribute__((noreturn)) abandon(job_t *job, const char *why)
{
    char out[OUTPUT_MAX];
    kill(job->proc.pid, SIGKILL);
    dsm_harness_wait(&job->proc, RUN_TIMEOUT_S, out, sizeof out, NULL);
    fail_msg("%s: %s", why, out);
    abort();   /* fail_msg does not return */
}

/* Start `dsmrun -n nodes PROGRAM mode arg` (PROGRAM: $NODE_FAILURE, or
 * $OMP_FAILURE when mode is NULL) and wait until every node is ready. */
static void start(job_t *job, int nodes, const char *mode, const char *arg,
                  const char *const env[])
{
    const char *dsmrun = getenv("DSMRUN");
    const char *node = getenv(mode ? "NODE_FAILURE" : "OMP_FAILURE");
    assert_non_null(dsmrun);
    assert_non_null(node);
    char count[8];
    snprintf(count, sizeof count, "%d", nodes);
    const char *argv[] = {dsmrun, "-n", count, node, mode, arg, NULL};
    job->nodes = nodes;
    assert_int_equal(dsm_harness_spawn(argv, env, &job->proc), 0);
    for (int rank = 0; rank < nodes; rank++)
        if (dsm_harness_await_node_pid(&job->proc, rank, START_TIMEOUT_S,
                                       &job->pids[rank]) != 0)
            abandon(job, "a node did not start");
    /* may be -1 when the job has already ended (the crash cases) */
    job->board = board_open(job->proc.pid);
}

/* Wait until node rank's activity contains text. */
static void await_state(job_t *job, int rank, const char *text)
{
    char doing[512];
    double end = now_s() + STATE_TIMEOUT_S;
    if (job->board < 0)
        abandon(job, "dsmrun has no activity board");
    do {
        board_describe(job->board, rank, doing, sizeof doing);
        if (strstr(doing, text))
            return;
        pause_ms(5);
    } while (now_s() < end);
    fprintf(stderr, "node %d is '%s'\n", rank, doing);
    abandon(job, "the node never reached the state under test");
}

/* Stop node rank when its activity contains text; returns with it
 * stopped in that state. */
static void stop_in_state(job_t *job, int rank, const char *text)
{
    char doing[512];
    pid_t pid = job->pids[rank];
    for (int attempt = 0; attempt < 1000; attempt++) {
        await_state(job, rank, text);
        assert_int_equal(kill(pid, SIGSTOP), 0);
        /* stopped (state T) before its entry is read: it cannot change */
        char stat[512], path[64];
        snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
        for (int i = 0; i < 1000; i++) {
            if (dsm_harness_read_file(path, stat, sizeof stat) == 0 &&
                strstr(stat, ") T "))
                break;
            pause_ms(1);
        }
        board_describe(job->board, rank, doing, sizeof doing);
        if (strstr(doing, text)) {
            printf("stopped node %d after %d attempt(s) while %s\n", rank,
                   attempt + 1, doing);
            return;
        }
        kill(pid, SIGCONT);
    }
    abandon(job, "the node was never stopped in the state under test");
}

/* Kill node rank; check that every node is gone within END_BOUND_S, that
 * dsmrun fails and names the node and what it was doing. */
static void kill_and_check(job_t *job, int rank, const char *doing)
{
    double killed_at = now_s();
    assert_int_equal(kill(job->pids[rank], SIGKILL), 0);
    int gone = dsm_harness_await_exit(job->pids, job->nodes, END_BOUND_S);
    double ended = now_s() - killed_at;
    for (int r = 0; gone != 0 && r < job->nodes; r++)
        kill(job->pids[r], SIGKILL);
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_wait(&job->proc, RUN_TIMEOUT_S, out,
                                      sizeof out, &status), 0);
    printf("%s", out);
    printf("figure: node %d killed while '%s': every process gone %.2f s "
           "later, dsmrun exit status %d\n", rank, doing, ended, status);
    if (gone != 0)
        fail_msg("processes outlived the %d s bound", END_BOUND_S);
    assert_int_not_equal(status, 0);
    char expected[256];
    snprintf(expected, sizeof expected,
             "dsmrun: node %d (pid %ld) killed by signal 9 (Killed) while ",
             rank, (long)job->pids[rank]);
    const char *line = strstr(out, expected);
    if (!line)
        fail_msg("dsmrun did not name node %d", rank);
    const char *eol = strchrnul(line, '\n');
    const char *found = strstr(line, doing);
    if (!found || found > eol)
        fail_msg("dsmrun did not say node %d was %s", rank, doing);
}

static void test_kill_worker_computing(void **state)
{
    (void)state;
    job_t job;
    start(&job, 3, "compute", NULL, NULL);
    await_state(&job, 1, "computing");
    kill_and_check(&job, 1, "computing");
}

static void test_kill_master_computing(void **state)
{
    (void)state;
    job_t job;
    start(&job, 3, "compute", NULL, NULL);
    await_state(&job, 0, "computing");
    kill_and_check(&job, 0, "computing");
}

static void test_kill_during_fetch(void **state)
{
    (void)state;
    job_t job;
    /* through UCX: a fetch from a mapped same-host peer is a memcpy that
     * waits for nobody, so there is no fetch to be killed in */
    static const char *const env[] = {"DSM_SAME_HOST_MAP=0", NULL};
    start(&job, 2, "fetch", NULL, env);
    stop_in_state(&job, 1, "fetching page");
    kill_and_check(&job, 1, "fetching page");
}

static void test_kill_during_barrier(void **state)
{
    (void)state;
    job_t job;
    start(&job, 3, "barrier", NULL, NULL);
    await_state(&job, 1, "waiting for the barrier departure from node 0");
    kill_and_check(&job, 1, "waiting for the barrier departure from node 0");
}

static void test_kill_holding_lock(void **state)
{
    (void)state;
    job_t job;
    start(&job, 2, "lock", NULL, NULL);
    stop_in_state(&job, 1, "holding 1 lock");
    kill_and_check(&job, 1, "holding 1 lock");
}

/* SIGSTOP node rank of a job in a barrier loop: the others report the
 * timeout naming it, and the job ends. */
static void check_stopped_node(int rank)
{
    const char *env[] = {"DSM_TIMEOUT=3", NULL};
    job_t job;
    start(&job, 3, "barriers", NULL, env);
    double stopped_at = now_s();
    assert_int_equal(kill(job.pids[rank], SIGSTOP), 0);
    int gone = dsm_harness_await_exit(job.pids, job.nodes,
                                      STOP_TIMEOUT_S + END_BOUND_S);
    double ended = now_s() - stopped_at;
    for (int r = 0; gone != 0 && r < job.nodes; r++)
        kill(job.pids[r], SIGKILL);
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_wait(&job.proc, RUN_TIMEOUT_S, out,
                                      sizeof out, &status), 0);
    printf("%s", out);
    printf("figure: node %d stopped, DSM_TIMEOUT=%d: every process gone "
           "%.2f s later, dsmrun exit status %d\n", rank, STOP_TIMEOUT_S,
           ended, status);
    if (gone != 0)
        fail_msg("processes outlived DSM_TIMEOUT + %d s", END_BOUND_S);
    assert_int_not_equal(status, 0);
    char expected[128];
    snprintf(expected, sizeof expected,
             "node %d failed: timed out: nothing heard from it for 3 s",
             rank);
    if (!strstr(out, expected))
        fail_msg("no node reported the timeout of node %d", rank);
    assert_true(ended >= STOP_TIMEOUT_S - 0.5);   /* not before DSM_TIMEOUT */
}

static void test_stopped_worker_times_out(void **state)
{
    (void)state;
    check_stopped_node(2);
}

static void test_stopped_master_times_out(void **state)
{
    (void)state;
    check_stopped_node(0);
}

/* Node 0 computes three times DSM_TIMEOUT while the others wait in a
 * barrier: heartbeats keep the job alive and it ends normally. */
static void test_busy_node_is_not_failed(void **state)
{
    (void)state;
    const char *env[] = {"DSM_TIMEOUT=2", "DSM_LOG_LEVEL=info", NULL};
    job_t job;
    start(&job, 3, "busy", "6", env);
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_wait(&job.proc, RUN_TIMEOUT_S, out,
                                      sizeof out, &status), 0);
    printf("%s", out);
    if (status != 0)
        fail_msg("a busy node ended the job (exit status %d)", status);
    /* control: the others did wait past DSM_TIMEOUT */
    assert_non_null(strstr(out, "still waiting after DSM_TIMEOUT"));
}

/* A node writes to 0x18.  By default UCX's own SIGSEGV handler (installed
 * before the runtime's, so the runtime passes it the faults that are not
 * its own) reports the address; without it (UCX_ERROR_SIGNALS empty) the
 * runtime does.  Either way the node dies of SIGSEGV, and so does the job. */
static void check_segfault(const char *const env[], const char *report)
{
    job_t job;
    start(&job, 2, "segv", NULL, env);
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_wait(&job.proc, RUN_TIMEOUT_S, out,
                                      sizeof out, &status), 0);
    printf("%s", out);
    assert_int_equal(status, 128 + SIGSEGV);
    if (!strstr(out, report))
        fail_msg("no report of the address: expected '%s'", report);
    char expected[128];
    snprintf(expected, sizeof expected,
             "dsmrun: node 1 (pid %ld) killed by signal 11 (Segmentation "
             "fault) while computing", (long)job.pids[1]);
    assert_non_null(strstr(out, expected));
}

static void test_segfault_outside_sharable(void **state)
{
    (void)state;
    check_segfault(NULL, "Caught signal 11 (Segmentation fault: address not "
                         "mapped to object at address 0x18)");
    const char *no_ucx_handler[] = {"UCX_ERROR_SIGNALS=", NULL};
    check_segfault(no_ucx_handler, "dsm[node 1]: segmentation fault at "
                                   "address 0x18 (not a sharable page)");
}

/* An OpenMP program: node 1 waits for the next parallel region while the
 * master computes a serial phase. */
static void test_kill_worker_between_regions(void **state)
{
    (void)state;
    job_t job;
    start(&job, 3, NULL, NULL, NULL);
    await_state(&job, 1, "waiting for the next parallel region from node 0");
    kill_and_check(&job, 1, "waiting for the next parallel region from node 0");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kill_worker_computing),
        cmocka_unit_test(test_kill_master_computing),
        cmocka_unit_test(test_kill_during_fetch),
        cmocka_unit_test(test_kill_during_barrier),
        cmocka_unit_test(test_kill_holding_lock),
        cmocka_unit_test(test_stopped_worker_times_out),
        cmocka_unit_test(test_stopped_master_times_out),
        cmocka_unit_test(test_busy_node_is_not_failed),
        cmocka_unit_test(test_segfault_outside_sharable),
        cmocka_unit_test(test_kill_worker_between_regions),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests_name("failure", tests, NULL, NULL);
}
