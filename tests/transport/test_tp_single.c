/*
 * test_tp_single.c - the transport on one node (DSM_SIZE=1, no network):
 * active messages to itself (delivered by a progress call or by the
 * progress thread, never inside the send), sends from handlers, order and
 * sizes, get/put/atomics on its own segments, argument checks, counters,
 * re-initialisation, the fatal paths (blocking call in a handler, timeout)
 * in child processes, and the bootstrap wire format.
 *
 * Layer: tests (white-box: includes tp_wire.h for the wire format).
 * Run directly, without dsmrun.  Each test initialises and finalises the
 * transport itself, so the tests are independent.
 */
#include <errno.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base_config.h"
#include "tp_wire.h"

enum {
    AM_RECORD = DSM_TP_AM_CLIENT_FIRST,      /* records what arrived */
    AM_CHAIN,       /* forwards to AM_RECORD from inside the handler */
    AM_POST,        /* posts a semaphore */
    AM_BLOCKING,    /* wrongly calls a blocking operation */
    AM_UNUSED = DSM_TP_AM_CLIENT_FIRST + 8,      /* never registered */
};

#define REGION_BYTES ((size_t)8 << 20)
#define CONTROL_BYTES ((size_t)4096)

static unsigned char *region;
static uint64_t *control;
static int records;
static unsigned record_next, record_errors;
static size_t record_last_len;
static sem_t posted;

static size_t order_size(unsigned seq)
{
    return seq % 25 == 24 ? (size_t)1 << 20 : (seq % 5) * 3000 + 1;
}

static void on_record(int src, const void *payload, size_t len, void *arg)
{
    unsigned seq;
    memcpy(&seq, payload, sizeof seq);
    if (src != 0 || seq != record_next || len != order_size(seq))
        record_errors++;
    record_next = seq + 1;
    record_last_len = len;
    records++;
}

static void on_chain(int src, const void *payload, size_t len, void *arg)
{
    if (dsm_tp_am_send(src, AM_RECORD, payload, len) != DSM_OK)
        record_errors++;
}

static void on_post(int src, const void *payload, size_t len, void *arg)
{
    sem_post(&posted);
}

static void on_blocking(int src, const void *payload, size_t len, void *arg)
{
    char b;
    (void)dsm_tp_get(0, DSM_TP_SEG_REGION, 0, &b, 1);   /* ends the job */
}

static void set_env(const char *progress_thread, const char *timeout)
{
    unsetenv("DSM_RANK");
    unsetenv("DSM_RENDEZVOUS");
    unsetenv("DSM_RENDEZVOUS_FD");
    setenv("DSM_SIZE", "1", 1);
    setenv("DSM_PROGRESS_THREAD", progress_thread, 1);
    setenv("DSM_TIMEOUT", timeout, 1);
    assert_int_equal(dsm_config_load(), DSM_OK);
}

static void start(const char *progress_thread)
{
    set_env(progress_thread, "20");
    memset(region, 0, REGION_BYTES);
    memset(control, 0, CONTROL_BYTES);
    dsm_tp_segments_t segs = {.base = {region, control},
                              .size = {REGION_BYTES, CONTROL_BYTES}};
    assert_int_equal(dsm_tp_init(&segs), DSM_OK);
    records = 0;
    record_next = record_errors = 0;
}

static void stop(void) { assert_int_equal(dsm_tp_finalize(), DSM_OK); }

static int group_setup(void **state)
{
    region = aligned_alloc(4096, REGION_BYTES);
    control = aligned_alloc(4096, CONTROL_BYTES);
    if (!region || !control || sem_init(&posted, 0, 0) != 0)
        return -1;
    if (dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_RECORD, on_record, NULL) ||
        dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_CHAIN, on_chain, NULL) ||
        dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_POST, on_post, NULL) ||
        dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_BLOCKING, on_blocking, NULL))
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    free(region);
    free(control);
    return 0;
}

/* ---- state and arguments ----------------------------------------------------- */

static void test_calls_before_init(void **state)
{
    char b = 0;
    uint64_t old;
    set_env("0", "20");
    assert_int_equal(dsm_tp_am_send(0, AM_RECORD, &b, 1), DSM_ERR_STATE);
    assert_int_equal(dsm_tp_get(0, DSM_TP_SEG_REGION, 0, &b, 1),
                     DSM_ERR_STATE);
    assert_int_equal(dsm_tp_atomic_fadd64(0, DSM_TP_SEG_CONTROL, 0, 1, &old),
                     DSM_ERR_STATE);
    assert_int_equal(dsm_tp_flush(-1), DSM_ERR_STATE);
    assert_int_equal(dsm_tp_finalize(), DSM_ERR_STATE);
    assert_int_equal(dsm_tp_init(NULL), DSM_ERR_INVALID);
    dsm_tp_segments_t bad = {.base = {NULL, control},
                             .size = {REGION_BYTES, CONTROL_BYTES}};
    assert_int_equal(dsm_tp_init(&bad), DSM_ERR_INVALID);
}

static void test_register_rules(void **state)
{
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_CLIENT, DSM_TP_AM_MAX_ID,
                                        on_record, NULL),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_UNUSED,
                                        NULL, NULL),
                     DSM_ERR_INVALID);
    start("0");
    assert_int_equal(dsm_tp_rank(), 0);
    assert_int_equal(dsm_tp_size(), 1);
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_UNUSED,
                                        on_record, NULL),
                     DSM_ERR_STATE);
    unsigned seq = 0;
    assert_int_equal(dsm_tp_am_send(0, AM_UNUSED, &seq, sizeof seq),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_am_send(1, AM_RECORD, &seq, sizeof seq),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_init(&(dsm_tp_segments_t){{0}, {0}}),
                     DSM_ERR_STATE);
    stop();
    /* a second life after finalize */
    start("1");
    stop();
}

/* The contract between layers: an id belongs to one range and one
 * handler.  A second handler for a registered id is refused and the first
 * keeps its messages; so is an id from another layer's range. */
static void test_register_refuses_duplicates_and_foreign_ids(void **state)
{
    int other;
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_RECORD,
                                        on_chain, NULL),
                     DSM_ERR_BUSY);
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_RECORD,
                                        on_record, &other),
                     DSM_ERR_BUSY);
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_RECORD,
                                        on_record, NULL),
                     DSM_OK);
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_CLIENT, 0, on_record,
                                        NULL),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_CLIENT,
                                        DSM_TP_AM_COH_FIRST, on_record,
                                        NULL),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_CLIENT,
                                        DSM_TP_AM_FJ_LAST, on_record, NULL),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_COHERENCE, AM_UNUSED,
                                        on_record, NULL),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_FORKJOIN, AM_UNUSED,
                                        on_record, NULL),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_am_register(DSM_TP_AM_RANGES, AM_UNUSED,
                                        on_record, NULL),
                     DSM_ERR_INVALID);
    /* none of the refused ones took effect */
    start("0");
    unsigned seq = 0;
    char pad[8] = {0};
    memcpy(pad, &seq, sizeof seq);
    assert_int_equal(dsm_tp_am_send(0, AM_RECORD, pad, order_size(0)),
                     DSM_OK);
    while (records < 1)
        dsm_tp_progress();
    assert_int_equal(record_errors, 0);
    assert_int_equal(dsm_tp_am_send(0, AM_UNUSED, &seq, sizeof seq),
                     DSM_ERR_INVALID);
    stop();
}

/* ---- active messages to itself ------------------------------------------------ */

static void test_self_send_runs_in_progress_call(void **state)
{
    start("0");
    unsigned seq = 0;
    size_t len = order_size(0);
    unsigned char buf[16] = {0};
    memcpy(buf, &seq, sizeof seq);
    assert_int_equal(dsm_tp_am_send(0, AM_RECORD, buf, len), DSM_OK);
    /* not inside the send, and without a progress thread not by itself */
    assert_int_equal(records, 0);
    assert_true(dsm_tp_progress());
    assert_int_equal(records, 1);
    assert_int_equal(record_errors, 0);
    assert_false(dsm_tp_progress());
    stop();
}

static void test_progress_thread_delivers(void **state)
{
    start("1");
    assert_int_equal(dsm_tp_am_send(0, AM_POST, NULL, 0), DSM_OK);
    /* nobody calls progress: the progress thread must run the handler */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    int rc;
    while ((rc = sem_timedwait(&posted, &until)) != 0 && errno == EINTR)
        ;
    assert_int_equal(rc, 0);
    stop();
}

static void test_self_order_sizes_and_chain(void **state)
{
    enum { COUNT = 300 };
    start("0");
    unsigned char *buf = calloc(1, (size_t)1 << 20);
    assert_non_null(buf);
    /* more messages than the slot pool holds, up to 1 MiB, half of them
     * forwarded from inside a handler */
    for (unsigned seq = 0; seq < COUNT; seq++) {
        memcpy(buf, &seq, sizeof seq);
        assert_int_equal(dsm_tp_am_send(0, seq % 2 ? AM_CHAIN : AM_RECORD,
                                        buf, order_size(seq)), DSM_OK);
        /* a chained message must arrive before the next one is sent */
        while (seq % 2 && records < (int)seq + 1)
            dsm_tp_progress();
    }
    while (records < COUNT)
        dsm_tp_progress();
    assert_int_equal(record_errors, 0);
    assert_int_equal(record_next, COUNT);
    free(buf);
    stop();
}

/* ---- get / put / atomics on its own segments ---------------------------------- */

static void test_own_rma(void **state)
{
    start("0");
    unsigned char in[5000], out[5000];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 13);
    assert_int_equal(dsm_tp_put(0, DSM_TP_SEG_REGION, 12345, in, sizeof in),
                     DSM_OK);
    assert_memory_equal(region + 12345, in, sizeof in);
    assert_int_equal(dsm_tp_get(0, DSM_TP_SEG_REGION, 12345, out, sizeof out),
                     DSM_OK);
    assert_memory_equal(out, in, sizeof in);
    assert_int_equal(dsm_tp_put_nb(0, DSM_TP_SEG_CONTROL, 100, in, 50),
                     DSM_OK);
    assert_int_equal(dsm_tp_flush(0), DSM_OK);
    assert_int_equal(dsm_tp_flush(-1), DSM_OK);
    assert_memory_equal((char *)control + 100, in, 50);
    assert_int_equal(dsm_tp_get(0, DSM_TP_SEG_REGION, REGION_BYTES - 10, out,
                                11), DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_get(0, DSM_TP_SEG_COUNT, 0, out, 1),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_flush(3), DSM_ERR_INVALID);
    stop();
}

static void test_own_atomics(void **state)
{
    start("0");
    uint64_t old64;
    uint32_t old32;
    control[0] = 10;
    assert_int_equal(dsm_tp_atomic_fadd64(0, DSM_TP_SEG_CONTROL, 0, 5,
                                          &old64), DSM_OK);
    assert_int_equal(old64, 10);
    assert_int_equal(control[0], 15);
    assert_int_equal(dsm_tp_atomic_swap64(0, DSM_TP_SEG_CONTROL, 0, 99,
                                          &old64), DSM_OK);
    assert_int_equal(old64, 15);
    assert_int_equal(dsm_tp_atomic_cswap64(0, DSM_TP_SEG_CONTROL, 0, 1, 2,
                                           &old64), DSM_OK);
    assert_int_equal(old64, 99);
    assert_int_equal(control[0], 99);
    assert_int_equal(dsm_tp_atomic_cswap64(0, DSM_TP_SEG_CONTROL, 0, 99, 2,
                                           &old64), DSM_OK);
    assert_int_equal(control[0], 2);
    uint32_t *w32 = (uint32_t *)&control[1];
    w32[0] = 7;
    w32[1] = 0xdead;
    assert_int_equal(dsm_tp_atomic_fadd32(0, DSM_TP_SEG_CONTROL, 8,
                                          0xffffffffu, &old32), DSM_OK);
    assert_int_equal(old32, 7);
    assert_int_equal(w32[0], 6);   /* wrapped */
    assert_int_equal(dsm_tp_atomic_swap32(0, DSM_TP_SEG_CONTROL, 8, 3,
                                          &old32), DSM_OK);
    assert_int_equal(old32, 6);
    assert_int_equal(dsm_tp_atomic_cswap32(0, DSM_TP_SEG_CONTROL, 8, 3, 4,
                                           &old32), DSM_OK);
    assert_int_equal(old32, 3);
    assert_int_equal(w32[0], 4);
    assert_int_equal(w32[1], 0xdead);
    assert_int_equal(dsm_tp_atomic_fadd64(0, DSM_TP_SEG_CONTROL, 12, 1,
                                          &old64), DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_atomic_fadd32(0, DSM_TP_SEG_CONTROL, 4094, 1,
                                          &old32), DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_atomic_fadd32(0, DSM_TP_SEG_CONTROL, 4096, 1,
                                          &old32), DSM_ERR_INVALID);
    stop();
}

static void test_counters(void **state)
{
    start("0");
    dsm_tp_counters_t c;
    dsm_tp_counters_get(&c);
    assert_int_equal(c.am_sent[AM_RECORD] + c.gets + c.puts + c.atomics, 0);
    unsigned char buf[64] = {0};
    uint64_t old;
    assert_int_equal(dsm_tp_am_send(0, AM_RECORD, buf, order_size(0)),
                     DSM_OK);
    assert_int_equal(dsm_tp_get(0, DSM_TP_SEG_REGION, 0, buf, 64), DSM_OK);
    assert_int_equal(dsm_tp_put(0, DSM_TP_SEG_REGION, 0, buf, 32), DSM_OK);
    assert_int_equal(dsm_tp_atomic_fadd64(0, DSM_TP_SEG_CONTROL, 0, 1, &old),
                     DSM_OK);
    dsm_tp_counters_get(&c);
    assert_int_equal(c.am_sent[AM_RECORD], 1);
    assert_int_equal(c.am_bytes[AM_RECORD], order_size(0));
    assert_int_equal(c.gets, 1);
    assert_int_equal(c.get_bytes, 64);
    assert_int_equal(c.puts, 1);
    assert_int_equal(c.put_bytes, 32);
    assert_int_equal(c.atomics, 1);
    while (dsm_tp_progress())
        ;
    stop();
}

/* ---- fatal paths, in child processes ------------------------------------------- */

/* Run body in a child with stderr captured; returns its exit status. */
static int run_child(void (*body)(void), char *err, size_t errlen)
{
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(pipefd[1], STDERR_FILENO);
        close(pipefd[0]);
        body();
        _exit(0);
    }
    close(pipefd[1]);
    size_t used = 0;
    ssize_t n;
    while ((n = read(pipefd[0], err + used, errlen - 1 - used)) > 0)
        used += (size_t)n;
    err[used] = '\0';
    close(pipefd[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void child_blocking_in_handler(void)
{
    start("0");
    assert_int_equal(dsm_tp_am_send(0, AM_BLOCKING, NULL, 0), DSM_OK);
    dsm_tp_progress();
}

static void test_blocking_call_in_handler_is_fatal(void **state)
{
    char err[1024];
    assert_int_equal(run_child(child_blocking_in_handler, err, sizeof err),
                     70);
    assert_non_null(strstr(err, "dsm_tp_get called from an active-message "
                                "handler"));
}

static void child_wait_forever(void)
{
    set_env("1", "1");
    dsm_tp_segments_t segs = {.base = {region, control},
                              .size = {REGION_BYTES, CONTROL_BYTES}};
    assert_int_equal(dsm_tp_init(&segs), DSM_OK);
    static volatile int never;
    dsm_tp_wait_flag(&never, "a flag nobody sets");
}

static void test_wait_times_out(void **state)
{
    char err[1024];
    assert_int_equal(run_child(child_wait_forever, err, sizeof err), 70);
    assert_non_null(strstr(err, "timed out after 1 s waiting for a flag "
                                "nobody sets"));
}

/* ---- bootstrap wire format ------------------------------------------------------ */

static void test_wire_record_round_trip(void **state)
{
    unsigned char addr[40], k0[9], k1[3];
    for (size_t i = 0; i < sizeof addr; i++)
        addr[i] = (unsigned char)i;
    memset(k0, 0xa0, sizeof k0);
    memset(k1, 0x0b, sizeof k1);
    tp_record_t rec = {.addr = addr, .addr_len = sizeof addr,
                       .seg_base = {0x200000000000ull, 0x7f0000001000ull},
                       .seg_size = {1ull << 34, 4096},
                       .rkey = {k0, k1},
                       .rkey_len = {sizeof k0, sizeof k1},
                       .netns = 0xf0000123ull, .pid = 4242,
                       .map_fd = {9, TP_WIRE_NO_FD}};
    memset(rec.host_id, 0x5a, sizeof rec.host_id);
    size_t len = tp_wire_record_len(&rec);
    unsigned char *buf = malloc(len + 1);
    assert_non_null(buf);
    tp_wire_put_record(buf, &rec);
    tp_record_t back;
    assert_int_equal(tp_wire_get_record(buf, len, &back), len);
    assert_memory_equal(back.host_id, rec.host_id, sizeof rec.host_id);
    assert_int_equal(back.addr_len, sizeof addr);
    assert_memory_equal(back.addr, addr, sizeof addr);
    assert_int_equal(back.seg_base[0], rec.seg_base[0]);
    assert_int_equal(back.seg_size[0], rec.seg_size[0]);
    assert_int_equal(back.seg_base[1], rec.seg_base[1]);
    assert_int_equal(back.rkey_len[1], sizeof k1);
    assert_memory_equal(back.rkey[0], k0, sizeof k0);
    assert_memory_equal(back.rkey[1], k1, sizeof k1);
    assert_int_equal(back.netns, rec.netns);
    assert_int_equal(back.pid, 4242);
    assert_int_equal(back.map_fd[0], 9);
    assert_int_equal(back.map_fd[1], TP_WIRE_NO_FD);
    /* truncated, or lengths beyond the limit: refused */
    assert_int_equal(tp_wire_get_record(buf, len - 1, &back), 0);
    tp_wire_put_u32(buf + TP_WIRE_HOST_ID_LEN, TP_WIRE_BLOB_MAX + 1);
    assert_int_equal(tp_wire_get_record(buf, len, &back), 0);
    free(buf);
}

static void test_wire_token(void **state)
{
    unsigned char hello[TP_WIRE_HELLO_FIXED];
    const char *token = "0123456789abcdef0123456789abcdef";
    tp_wire_put_hello_header(hello, 3, token);
    assert_int_equal(tp_wire_magic(hello), TP_MAGIC_HELLO);
    assert_int_equal(tp_wire_get_u32(hello + 8), 3);
    assert_true(tp_wire_token_matches(hello + 12, token));
    assert_false(tp_wire_token_matches(hello + 12,
                                       "0123456789abcdef0123456789abcdee"));
    assert_false(tp_wire_token_matches(hello + 12, "0123456789abcdef"));
    /* an empty token never matches, not even an empty field */
    unsigned char empty[TP_WIRE_TOKEN_LEN] = {0};
    assert_false(tp_wire_token_matches(empty, ""));
}

int main(void)
{
    setenv("CMOCKA_TEST_ABORT", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_before_init),
        cmocka_unit_test(test_register_rules),
        cmocka_unit_test(test_register_refuses_duplicates_and_foreign_ids),
        cmocka_unit_test(test_self_send_runs_in_progress_call),
        cmocka_unit_test(test_progress_thread_delivers),
        cmocka_unit_test(test_self_order_sizes_and_chain),
        cmocka_unit_test(test_own_rma),
        cmocka_unit_test(test_own_atomics),
        cmocka_unit_test(test_counters),
        cmocka_unit_test(test_blocking_call_in_handler_is_fatal),
        cmocka_unit_test(test_wait_times_out),
        cmocka_unit_test(test_wire_record_round_trip),
        cmocka_unit_test(test_wire_token),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
