/*
 * node_tp_flush.c - a put is complete only when its data is at the target,
 * even when UCX could not send it yet.
 *
 * Three nodes on one host, the region not mapped by peers, so puts go
 * through UCX (on shared memory UCX emulates them with messages that the
 * target's progress writes, and acknowledges).  Node 1, the target, is
 * stopped (SIGSTOP); node 2 fills node 1's receive queue with puts of its
 * own; then node 0 puts into node 1, behind them in UCX's pending queue,
 * and completes its puts: dsm_tp_flush(-1), dsm_tp_flush(1) or a blocking
 * dsm_tp_put.  A thread of node 0 lets node 1 go on (SIGCONT) RESUME_MS
 * after node 0 starts its puts.  Node 0 then reads node 1's memory at once
 * through node 1's memfd (/proc/PID/fd), with no message in between: every
 * byte must be there.  A completion reported while node 1 was stopped
 * cannot have its data.  (UCX 1.13's worker flush returned at once in this
 * situation: it counts only puts already sent, and the shared-memory
 * interface's flush ignores the pending queue; see reliability.md, "Hangs
 * under load".)
 *
 * While node 1 is stopped, node 0 must not depend on it to receive: the
 * SIGSTOP may catch node 1 in the middle of a send to node 0 (its barrier
 * arrival), after it took a slot of node 0's shared-memory receive FIFO
 * and before it marked the slot written; node 0 reads its FIFO in order,
 * so every later message, node 2's AM_FILLED included, waits behind that
 * slot until node 1 runs again.  So the resumer runs from the stop on: it
 * lets node 1 go RESUME_MS after node 0's puts start, or STOPPED_MAX_MS
 * after the stop if node 0 never got that far.
 *
 * Layer: tests (links the transport).  A node program run under dsmrun
 * with 3 nodes; every node runs the same collective test list.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

#include "tp_test_util.h"

#define MIB ((uint64_t)1 << 20)
#define PIECE 4096
#define FILL_PIECES 128          /* node 2's: more than UCX's queue holds */
#define PIECES 16                /* node 0's */
#define RESUME_MS 300
#define STOPPED_MAX_MS 3000      /* node 2's report stuck behind node 1 */
#define FILL_AREA (2048 * MIB)
#define PUT_AREA (2560 * MIB)

enum { AM_INFO = DSM_TP_AM_CLIENT_FIRST, AM_FILL, AM_FILLED };

static tt_node_t node;

/* node 0: node 1's pid and a descriptor of its region's memfd */
static struct { int32_t pid, memfd; } target;
static volatile int target_known;
static int target_fd = -1;
static volatile int fill_asked, fill_done;

static void on_info(int src, const void *payload, size_t len, void *arg)
{
    if (src != 1 || len != sizeof target)
        abort();
    memcpy(&target, payload, sizeof target);
    __atomic_store_n(&target_known, 1, __ATOMIC_RELEASE);
}

static void on_fill(int src, const void *payload, size_t len, void *arg)
{
    __atomic_store_n(&fill_asked, 1, __ATOMIC_RELEASE);
}

static void on_filled(int src, const void *payload, size_t len, void *arg)
{
    __atomic_store_n(&fill_done, 1, __ATOMIC_RELEASE);
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

static char process_state(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *close_paren = strrchr(buf, ')');
    return close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
}

static void test_exchange(void **state)
{
    if (node.rank == 1) {
        int32_t info[2] = {(int32_t)getpid(), node.region.memfd};
        assert_int_equal(dsm_tp_am_send(0, AM_INFO, info, sizeof info),
                         DSM_OK);
    } else if (node.rank == 0) {
        dsm_tp_wait_flag(&target_known, "node 1's pid and memfd");
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)target.pid,
                 (int)target.memfd);
        target_fd = open(path, O_RDONLY);
        assert_true(target_fd >= 0);
    }
    tt_barrier();
}

/* The resumer's start signal: node 0's puts begin. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;     /* CLOCK_MONOTONIC, set up in main */
    int puts_started;
} resume = {.lock = PTHREAD_MUTEX_INITIALIZER};
static int rounds_stopped;   /* node 0's puts all issued while node 1 stopped */

static void *resume_later(void *unused)
{
    (void)unused;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += STOPPED_MAX_MS / 1000;
    until.tv_nsec += (STOPPED_MAX_MS % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&resume.lock);
    int st = 0;
    while (!resume.puts_started && st != ETIMEDOUT)
        st = pthread_cond_timedwait(&resume.cond, &resume.lock, &until);
    int started = resume.puts_started;
    pthread_mutex_unlock(&resume.lock);
    if (started)
        sleep_ms(RESUME_MS);
    else
        fprintf(stderr, "node 0: no report from node 2 within %d ms of "
                "stopping node 1: resumed it\n", STOPPED_MAX_MS);
    kill(target.pid, SIGCONT);
    return NULL;
}

enum completion { FLUSH_ALL, FLUSH_PEER, BLOCKING_PUT };

/* Node 0's puts into stopped node 1, behind node 2's, then the check. */
static void writer(enum completion how, unsigned round)
{
    assert_int_equal(kill(target.pid, SIGSTOP), 0);
    for (int i = 0; process_state(target.pid) != 'T'; i++) {
        assert_true(i < 5000);
        sleep_ms(1);
    }
    /* from here on, node 0 may wait for node 1 (see the top) */
    resume.puts_started = 0;     /* no resumer runs yet */
    pthread_t resumer;
    assert_int_equal(pthread_create(&resumer, NULL, resume_later, NULL), 0);
    assert_int_equal(dsm_tp_am_send(2, AM_FILL, NULL, 0), DSM_OK);
    dsm_tp_wait_flag(&fill_done, "node 2's puts");
    __atomic_store_n(&fill_done, 0, __ATOMIC_RELAXED);

    unsigned char *buf = malloc(PIECES * PIECE);
    assert_non_null(buf);
    for (size_t i = 0; i < PIECES * PIECE; i++)
        buf[i] = tt_pattern(0, round, i);
    pthread_mutex_lock(&resume.lock);
    resume.puts_started = 1;
    pthread_cond_signal(&resume.cond);
    pthread_mutex_unlock(&resume.lock);
    for (int i = 0; i < PIECES; i++) {
        uint64_t off = PUT_AREA + (uint64_t)i * PIECE;
        const unsigned char *src = buf + (size_t)i * PIECE;
        if (how == BLOCKING_PUT)
            assert_int_equal(dsm_tp_put(1, DSM_TP_SEG_REGION, off, src, PIECE),
                             DSM_OK);
        else
            assert_int_equal(dsm_tp_put_nb(1, DSM_TP_SEG_REGION, off, src,
                                           PIECE), DSM_OK);
    }
    /* still stopped: the round tested a put pending behind node 2's */
    if (how != BLOCKING_PUT && process_state(target.pid) == 'T')
        rounds_stopped++;
    if (how != BLOCKING_PUT)
        assert_int_equal(dsm_tp_flush(how == FLUSH_ALL ? -1 : 1), DSM_OK);
    /* complete: the bytes are in node 1's memory, whatever it did since */
    unsigned char *seen = malloc(PIECES * PIECE);
    assert_non_null(seen);
    assert_int_equal(pread(target_fd, seen, PIECES * PIECE, (off_t)PUT_AREA),
                     PIECES * PIECE);
    for (size_t i = 0; i < PIECES * PIECE; i++)
        if (seen[i] != buf[i])
            fail_msg("put completed before its data reached the target: "
                     "byte %zu of %d differs (completion %d)", i,
                     PIECES * PIECE, (int)how);
    pthread_join(resumer, NULL);
    free(seen);
    free(buf);
}

/* Node 2: fill node 1's queue while it is stopped. */
static void filler(unsigned round)
{
    dsm_tp_wait_flag(&fill_asked, "node 0's request to fill");
    __atomic_store_n(&fill_asked, 0, __ATOMIC_RELAXED);
    unsigned char *buf = malloc(FILL_PIECES * PIECE);
    assert_non_null(buf);
    for (size_t i = 0; i < FILL_PIECES * PIECE; i++)
        buf[i] = tt_pattern(2, round, i);
    for (int i = 0; i < FILL_PIECES; i++)
        assert_int_equal(dsm_tp_put_nb(1, DSM_TP_SEG_REGION,
                                       FILL_AREA + (uint64_t)i * PIECE,
                                       buf + (size_t)i * PIECE, PIECE),
                         DSM_OK);
    assert_int_equal(dsm_tp_am_send(0, AM_FILLED, NULL, 0), DSM_OK);
    assert_int_equal(dsm_tp_flush(1), DSM_OK);
    free(buf);
}

static void run(enum completion how)
{
    static unsigned round;
    round++;
    tt_barrier();
    if (node.rank == 0)
        writer(how, round);
    else if (node.rank == 2)
        filler(round);
    tt_barrier();
    if (node.rank == 1) {
        /* node 2's puts landed too */
        for (size_t i = 0; i < FILL_PIECES * PIECE; i++)
            if ((unsigned char)node.region.rt[FILL_AREA + i] !=
                tt_pattern(2, round, i))
                fail_msg("node 2's put: byte %zu differs", i);
    }
    tt_barrier();
}

static void test_flush_all(void **state) { run(FLUSH_ALL); }
static void test_flush_peer(void **state) { run(FLUSH_PEER); }
static void test_blocking_put(void **state) { run(BLOCKING_PUT); }

int main(void)
{
    tt_prepare();
    if (dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_INFO,
                           on_info, NULL) != DSM_OK ||
        dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_FILL,
                           on_fill, NULL) != DSM_OK ||
        dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_FILLED,
                           on_filled, NULL) != DSM_OK)
        return 1;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0 ||
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&resume.cond, &ca) != 0)
        return 1;
    tt_start(&node, 64 * 1024);
    if (node.size != 3 || node.region.size < 4096 * MIB)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exchange),
        cmocka_unit_test(test_flush_all),
        cmocka_unit_test(test_flush_peer),
        cmocka_unit_test(test_blocking_put),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (target_fd >= 0)
        close(target_fd);
    if (node.rank == 0)
        fprintf(stderr, "node 0: %d of 2 non-blocking rounds put while node "
                "1 was stopped\n", rounds_stopped);
    tt_stop(&node);
    return failed ? 1 : 0;
}
