/*
 * node_tp_foreign.c - foreign clients at the rendezvous port must not stop
 * a job: before joining, node 1 connects to DSM_RENDEZVOUS with a wrong
 * token, with no hello at all, with garbage, with the right token but an
 * impossible rank (out of range, or node 0's), and once more without
 * saying anything, keeping that connection open across the wire-up.  Node
 * 0 must refuse each (node 1 sees end-of-file), then wire up normally and
 * close the silent connection; afterwards the nodes exchange messages.
 *
 * Layer: tests (white-box: builds hellos with tp_wire.c).  A node program
 * run under dsmrun; meson runs it through check_output.sh, which also
 * looks for node 0's "refused connection" warnings.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "base_config.h"
#include "tp_wire.h"
#include "tp_test_util.h"

enum { AM_HELLO = DSM_TP_AM_CLIENT_FIRST };

static tt_node_t node;
static int silent_fd = -1;
static volatile int hello_seen;

static void on_hello(int src, const void *payload, size_t len, void *arg)
{
    __atomic_store_n(&hello_seen, 1, __ATOMIC_RELEASE);
}

static int connect_rendezvous(void)
{
    const dsm_config_t *cfg = dsm_config();
    char port[8];
    snprintf(port, sizeof port, "%u", cfg->rendezvous_port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM};
    struct addrinfo *res;
    assert_int_equal(getaddrinfo(cfg->rendezvous_host, port, &hints, &res), 0);
    int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, res->ai_addr, res->ai_addrlen), 0);
    freeaddrinfo(res);
    return fd;
}

/* Node 0 must close the connection: read until end-of-file. */
static void expect_closed(int fd, const char *what)
{
    char buf[256];
    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, 20000) != 1)
            fail_msg("node 0 kept the connection with %s open", what);
        ssize_t n = read(fd, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EINTR))
            break;
        if (n > 0)
            fail_msg("node 0 answered the connection with %s", what);
    }
    close(fd);
}

/* A complete hello: header and a node record with a small fake address. */
static size_t make_hello(unsigned char *out, uint32_t rank, const char *token)
{
    unsigned char addr[32];
    memset(addr, 0x42, sizeof addr);
    tp_record_t rec = {.addr = addr, .addr_len = sizeof addr};
    tp_wire_put_hello_header(out, rank, token);
    tp_wire_put_record(out + TP_WIRE_HELLO_FIXED, &rec);
    return TP_WIRE_HELLO_FIXED + tp_wire_record_len(&rec);
}

static void send_and_expect_closed(const void *buf, size_t len,
                                   const char *what)
{
    int fd = connect_rendezvous();
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    expect_closed(fd, what);
}

static void test_foreign_clients_refused(void **state)
{
    unsigned char hello[1024];
    size_t len;

    len = make_hello(hello, 1, "not-the-job-token-0123456789abcdef");
    send_and_expect_closed(hello, len, "a wrong token");

    /* connect and close without a word */
    close(connect_rendezvous());

    unsigned char garbage[4096];
    for (size_t i = 0; i < sizeof garbage; i++)
        garbage[i] = (unsigned char)(i * 2654435761u >> 13);
    send_and_expect_closed(garbage, sizeof garbage, "garbage");

    len = make_hello(hello, 77, dsm_config()->token);
    send_and_expect_closed(hello, len, "an out-of-range rank");

    len = make_hello(hello, 0, dsm_config()->token);
    send_and_expect_closed(hello, len, "node 0's rank");

    /* stays silent until after the wire-up */
    silent_fd = connect_rendezvous();
}

static void test_job_works_after_visitors(void **state)
{
    if (silent_fd >= 0)
        expect_closed(silent_fd, "no hello");
    tt_barrier();
    int next = (node.rank + 1) % node.size;
    assert_int_equal(dsm_tp_am_send(next, AM_HELLO, NULL, 0), DSM_OK);
    dsm_tp_wait_flag(&hello_seen, "a hello from the previous node");
    tt_barrier();
}

int main(void)
{
    tt_prepare();
    if (dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_HELLO,
                           on_hello, NULL) != DSM_OK)
        return 1;
    int failed = 0;
    if (dsm_config()->rank == 1) {
        /* before joining: node 0 is waiting for this node's hello */
        const struct CMUnitTest visits[] = {
            cmocka_unit_test(test_foreign_clients_refused),
        };
        failed += cmocka_run_group_tests(visits, NULL, NULL);
    }
    tt_start(&node, 4096);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_works_after_visitors),
    };
    failed += cmocka_run_group_tests(tests, NULL, NULL);
    tt_stop(&node);
    return failed ? 1 : 0;
}
