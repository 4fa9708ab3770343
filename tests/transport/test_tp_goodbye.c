/*
 * test_tp_goodbye.c - the end of a job on the bootstrap sockets: a peer
 * whose socket closes once node 0 has answered its BYE is a node that
 * finished, not a failed one; a peer that closes before that has failed.
 *
 * Found by the hosts suite's mixed job (ssh_3_hosts: two nodes on one host,
 * one on another; about 1 run in 100): node 0 sent BYE_ACK, then waited in
 * the flush-close of its UCX endpoint to the node on its own host; the
 * remote node had meanwhile exited, and node 0, checking its sockets while
 * it waited, took that node's end of file for a failure ("fatal: node 2
 * failed: its connection closed", exit status 70, after the job's right
 * answer).  Only nodes other than 0 accepted an end of file after BYE_ACK.
 *
 * Layer: tests (white-box: drives tp_liveness.c through its header on a
 * transport state made by hand, with socket pairs for the bootstrap
 * sockets; no UCX).  Run directly.  The fatal cases run in child processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base_log.h"
#include "tp_liveness.h"
#include "tp_state.h"
#include "tp_wire.h"

enum { PEERS = 3 };

/* The far ends of node 0's bootstrap sockets (the peers' ends). */
static int far_end[PEERS];

/* tp as node 0 of PEERS nodes would have it after the wire-up. */
static int make_node0(void **state)
{
    (void)state;
    memset(&tp, 0, sizeof tp);
    tp.rank = 0;
    tp.size = PEERS;
    tp.timeout_ms = 5000;
    tp.peers = calloc(PEERS, sizeof *tp.peers);
    if (!tp.peers)
        return -1;
    tp.peers[0].sock = far_end[0] = -1;
    for (int r = 1; r < PEERS; r++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
            return -1;
        fcntl(sv[0], F_SETFL, O_NONBLOCK);
        tp.peers[r].sock = sv[0];
        far_end[r] = sv[1];
    }
    return 0;
}

static int drop_node0(void **state)
{
    (void)state;
    for (int r = 0; r < PEERS; r++) {
        if (tp.peers[r].sock >= 0)
            close(tp.peers[r].sock);
        if (far_end[r] >= 0)
            close(far_end[r]);
    }
    free(tp.peers);
    memset(&tp, 0, sizeof tp);
    return 0;
}

/* Peer r sends a control frame to node 0, which reads it. */
static void peer_says(int r, tp_frame_type_t type)
{
    unsigned char f[TP_WIRE_FRAME_LEN];
    tp_wire_put_u32(f, (uint32_t)type);
    tp_wire_put_u32(f + 4, 0);
    assert_int_equal(write(far_end[r], f, sizeof f), (ssize_t)sizeof f);
    tp_live_readable(r);
}

static uint32_t peer_reads(int r)
{
    unsigned char f[TP_WIRE_FRAME_LEN];
    assert_int_equal(read(far_end[r], f, sizeof f), (ssize_t)sizeof f);
    return tp_wire_get_u32(f);
}

/* Peer r's process ends: its end of the socket closes. */
static void peer_exits(int r)
{
    close(far_end[r]);
    far_end[r] = -1;
}

/* Every peer said BYE and got BYE_ACK; then peer 2 exits (end of file)
 * while node 0 is still shutting down: node 0 reads the end of file and
 * goes on. */
static void test_node0_peer_ends_after_bye_ack(void **state)
{
    (void)state;
    for (int r = 1; r < PEERS; r++)
        peer_says(r, TP_FRAME_BYE);
    tp_live_goodbye();
    for (int r = 1; r < PEERS; r++)
        assert_int_equal(peer_reads(r), TP_FRAME_BYE_ACK);
    peer_exits(2);
    tp_live_readable(2);   /* fatal before the fix */
    assert_int_equal(tp.peers[2].sock, -1);   /* closed, watched no more */
    tp_live_readable(1);   /* nothing to read: returns */
    assert_true(tp.peers[1].sock >= 0);
}

/* The same when the peer exits without reading what node 0 last sent
 * (BYE_ACK, or a heartbeat): node 0 reads a reset, not an end of file. */
static void test_node0_peer_resets_after_bye_ack(void **state)
{
    (void)state;
    for (int r = 1; r < PEERS; r++)
        peer_says(r, TP_FRAME_BYE);
    tp_live_goodbye();
    peer_exits(1);   /* BYE_ACK unread */
    tp_live_readable(1);
    assert_int_equal(tp.peers[1].sock, -1);
}

/* In a child: peer 1 said BYE (or nothing), node 0 has not answered (it
 * waits for peer 2), and peer 1's socket closes: node 0 must end with
 * DSM_EXIT_FATAL naming node 1. */
static void check_failure_before_ack(int said_bye)
{
    int pipefd[2];
    if (said_bye)
        peer_says(1, TP_FRAME_BYE);
    assert_int_equal(pipe(pipefd), 0);
    /* closed before the fork, so that the child finds the end of file at
     * once: closed after it, in both processes, the child could read
     * before the parent's close and find nothing (it then exited 0) */
    peer_exits(1);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(pipefd[1], STDERR_FILENO);
        tp_live_readable(1);
        _exit(0);   /* not reached when the end of file is a failure */
    }
    close(pipefd[1]);
    char out[1024];
    size_t len = 0;
    ssize_t n;
    while ((n = read(pipefd[0], out + len, sizeof out - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    close(pipefd[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    printf("%s", out);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), DSM_EXIT_FATAL);
    assert_non_null(strstr(out, "node 1 failed: its connection closed"));
}

static void test_node0_peer_ends_after_bye_before_ack(void **state)
{
    (void)state;
    check_failure_before_ack(1);
}

static void test_node0_peer_ends_without_bye(void **state)
{
    (void)state;
    check_failure_before_ack(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_node0_peer_ends_after_bye_ack,
                                        make_node0, drop_node0),
        cmocka_unit_test_setup_teardown(test_node0_peer_resets_after_bye_ack,
                                        make_node0, drop_node0),
        cmocka_unit_test_setup_teardown(
            test_node0_peer_ends_after_bye_before_ack, make_node0,
            drop_node0),
        cmocka_unit_test_setup_teardown(test_node0_peer_ends_without_bye,
                                        make_node0, drop_node0),
    };
    return cmocka_run_group_tests_name("goodbye", tests, NULL, NULL);
}
