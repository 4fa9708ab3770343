/*
 * test_failure.c - failure injection: nodes killed in known states, nodes
 * stopped, a busy node, crashes (outside the sharable space, through a
 * corrupted return address on a sharable stack, abort, SIGBUS, a SIGSEGV
 * sent by another process) with core dumps enabled.
 *
 * Layer: tests, suite 'reliability'.  Runs dsmrun ($DSMRUN) with
 * node_failure ($NODE_FAILURE), omp_failure ($OMP_FAILURE) or omp_crash
 * ($OMP_CRASH); the case to run is argv[1] (meson runs each as its own
 * test).  The state a node is in comes from the job's activity
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
#include "core_file.h"
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

/* Start `dsmrun -n nodes -t threads PROGRAM mode arg`, PROGRAM the path
 * in the variable program_var, and wait until every node is ready. */
static void start_program(job_t *job, const char *program_var, int nodes,
                          int threads, const char *mode, const char *arg,
                          const char *const env[])
{
    const char *dsmrun = getenv("DSMRUN");
    const char *node = getenv(program_var);
    assert_non_null(dsmrun);
    assert_non_null(node);
    char count[8], per_node[8];
    snprintf(count, sizeof count, "%d", nodes);
    snprintf(per_node, sizeof per_node, "%d", threads);
    const char *argv[] = {dsmrun, "-n", count, "-t", per_node, node, mode,
                          arg, NULL};
    job->nodes = nodes;
    assert_int_equal(dsm_harness_spawn(argv, env, &job->proc), 0);
    for (int rank = 0; rank < nodes; rank++)
        if (dsm_harness_await_node_pid(&job->proc, rank, START_TIMEOUT_S,
                                       &job->pids[rank]) != 0)
            abandon(job, "a node did not start");
    /* may be -1 when the job has already ended (the crash cases) */
    job->board = board_open(job->proc.pid);
}

/* node_failure MODE ARG, or omp_failure when mode is NULL; one thread */
static void start(job_t *job, int nodes, const char *mode, const char *arg,
                  const char *const env[])
{
    start_program(job, mode ? "NODE_FAILURE" : "OMP_FAILURE", nodes, 1, mode,
                  arg, env);
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
    /* not at once: the peers count DSM_TIMEOUT from the stopped node's
     * last heartbeat, sent every DSM_TIMEOUT / 4 and later when it was
     * short of CPU, so up to a period or two before the stop (2.37 s after
     * it under load in the sanitizer build) */
    assert_true(ended >= STOP_TIMEOUT_S / 2.0);
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
    /* node 1 crashes as soon as it is ready: node 0 may never get that
     * far on a loaded machine, so only node 1's pid is looked for, in the
     * whole output once the job has ended */
    const char *dsmrun = getenv("DSMRUN"), *node = getenv("NODE_FAILURE");
    assert_non_null(dsmrun);
    assert_non_null(node);
    const char *argv[] = {dsmrun, "-n", "2", "-t", "1", node, "segv", NULL};
    dsm_harness_proc_t proc;
    assert_int_equal(dsm_harness_spawn(argv, env, &proc), 0);
    char out[OUTPUT_MAX];
    int status = -1;
    assert_int_equal(dsm_harness_wait(&proc, RUN_TIMEOUT_S, out, sizeof out,
                                      &status), 0);
    printf("%s", out);
    assert_int_equal(status, 128 + SIGSEGV);
    if (!strstr(out, report))
        fail_msg("no report of the address: expected '%s'", report);
    pid_t pid = -1;
    assert_int_equal(dsm_harness_find_node_pid(out, 1, &pid), 0);
    char expected[128];
    snprintf(expected, sizeof expected,
             "dsmrun: node 1 (pid %ld) killed by signal 11 (Segmentation "
             "fault) while computing", (long)pid);
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

/* ---- crashes, with core dumps enabled ----------------------------------
 * A node's core dump once took minutes (the kernel read every hole of the
 * 16 GiB sharable region's memfd, in each view and in each same-host
 * peer's mapping, allocating it as it went), and the job waited for the
 * dump to end: these cases run with the core size limit raised (core_file.h)
 * and must end within END_BOUND_S all the same. */

static const char *const no_ucx_handler[] = {"UCX_ERROR_SIGNALS=", NULL};

static int cores_allowed(void **state)
{
    (void)state;
    return core_allow();
}

static int cores_removed(void **state)
{
    (void)state;
    core_done();
    return 0;
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

typedef struct crash {
    int rank;            /* the node that crashes */
    int sig;             /* and the signal it must die of */
    const char *once;    /* printed exactly once, or NULL */
    const char *said;    /* printed, or NULL */
    const char *comm;    /* its program's name (for the core file) */
} crash_t;

/* Node c->rank of a started job crashes (or was just sent the signal):
 * every process gone within END_BOUND_S, dsmrun exits 128+sig naming the
 * node and the signal, and the expected lines are there.  The node's
 * core file, if any, is measured and removed. */
static void check_crash(job_t *job, const crash_t *c, const char *what)
{
    double since = now_s();
    int gone = dsm_harness_await_exit(job->pids, job->nodes, END_BOUND_S);
    double ended = now_s() - since;
    for (int r = 0; gone != 0 && r < job->nodes; r++)
        kill(job->pids[r], SIGKILL);
    char out[OUTPUT_MAX], core[600];
    int status = -1;
    assert_int_equal(dsm_harness_wait(&job->proc, RUN_TIMEOUT_S, out,
                                      sizeof out, &status), 0);
    core_take(job->pids[c->rank], c->comm, c->sig, core, sizeof core);
    printf("%s", out);
    printf("figure: %s: every process gone %.2f s after the nodes were "
           "ready, dsmrun exit status %d; core: %s\n", what, ended, status,
           core);
    if (gone != 0)
        fail_msg("processes outlived the %d s bound", END_BOUND_S);
    assert_int_equal(status, 128 + c->sig);
    char expected[160];
    snprintf(expected, sizeof expected,
             "dsmrun: node %d (pid %ld) killed by signal %d (%s)", c->rank,
             (long)job->pids[c->rank], c->sig, strsignal(c->sig));
    if (!strstr(out, expected))
        fail_msg("dsmrun did not say '%s'", expected);
    if (c->once && count_of(out, c->once) != 1)
        fail_msg("'%s' printed %d times, not once", c->once,
                 count_of(out, c->once));
    if (c->said && !strstr(out, c->said))
        fail_msg("the program did not say '%s'", c->said);
}

/* omp_crash MODE on 2 nodes x 2 threads, with UCX's SIGSEGV handler (the
 * runtime passes it the faults that are not its own; it reports them
 * itself) and without (the runtime's crash path reports, c->once). */
static void check_omp_crash(const char *mode, const crash_t *c)
{
    for (int own = 0; own < 2; own++) {
        job_t job;
        crash_t expect = *c;
        char what[128];
        snprintf(what, sizeof what, "omp_crash %s, %s", mode,
                 own ? "the runtime's crash path" : "UCX's handler");
        if (!own)
            expect.once = NULL;
        start_program(&job, "OMP_CRASH", 2, 2, mode, NULL,
                      own ? no_ucx_handler : NULL);
        check_crash(&job, &expect, what);
    }
}

/* Thread `thread` of node `rank` returns to 0x58: its return address on
 * its sharable stack was overwritten. */
static void check_return_address(const char *mode, int rank, int thread)
{
    char once[128], said[64];
    snprintf(once, sizeof once, "dsm[node %d]: segmentation fault at "
             "address 0x58 (not a sharable page): the node ends with SIGSEGV",
             rank);
    snprintf(said, sizeof said, "node %d thread %d: stack is sharable", rank,
             thread);
    const crash_t c = {rank, SIGSEGV, once, said, "omp_crash"};
    check_omp_crash(mode, &c);
}

/* Node 0's main, outside any parallel region, on the sharable main stack. */
static void test_crash_return_serial(void **state)
{
    (void)state;
    check_return_address("return-serial", 0, 0);
}

/* Thread 1 of node 1, inside a parallel region, on its team stack from
 * node 1's arena. */
static void test_crash_return_region(void **state)
{
    (void)state;
    check_return_address("return-region", 1, 1);
}

/* abort() in a region: the runtime sees no signal of its own; the core
 * dump is kept small from start-up. */
static void test_crash_abort(void **state)
{
    (void)state;
    const crash_t c = {1, SIGABRT, NULL, NULL, "omp_crash"};
    check_omp_crash("abort", &c);
}

/* SIGBUS, which the runtime never owns, is reported as a bus error. */
static void test_crash_bus(void **state)
{
    (void)state;
    const crash_t c = {1, SIGBUS, "dsm[node 1]: bus error at address 0x",
                       NULL, "omp_crash"};
    check_omp_crash("bus", &c);
}

/* A SIGSEGV another process sends is no page fault: the node must end of
 * it, not print a crash and go on. */
static void test_segv_sent_by_process(void **state)
{
    (void)state;
    char report[128];
    snprintf(report, sizeof report, "dsm[node 1]: SIGSEGV sent by process "
             "%ld: the node ends with SIGSEGV", (long)getpid());
    for (int own = 0; own < 2; own++) {
        const crash_t c = {1, SIGSEGV, own ? report : NULL, NULL,
                           "omp_failure"};
        job_t job;
        start(&job, 2, NULL, NULL, own ? no_ucx_handler : NULL);
        await_state(&job, 1, "waiting for the next parallel region");
        assert_int_equal(kill(job.pids[1], SIGSEGV), 0);
        check_crash(&job, &c, own ? "SIGSEGV sent to node 1, the runtime's "
                                    "crash path"
                                  : "SIGSEGV sent to node 1, UCX's handler");
    }
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
        cmocka_unit_test_setup_teardown(test_crash_return_serial,
                                        cores_allowed, cores_removed),
        cmocka_unit_test_setup_teardown(test_crash_return_region,
                                        cores_allowed, cores_removed),
        cmocka_unit_test_setup_teardown(test_crash_abort, cores_allowed,
                                        cores_removed),
        cmocka_unit_test_setup_teardown(test_crash_bus, cores_allowed,
                                        cores_removed),
        cmocka_unit_test_setup_teardown(test_segv_sent_by_process,
                                        cores_allowed, cores_removed),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests_name("failure", tests, NULL, NULL);
}
