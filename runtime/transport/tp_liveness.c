/*
 * tp_liveness.c - the bootstrap sockets after wire-up: the start-up
 * barrier, the BYE exchange of dsm_tp_finalize, and peer failure.
 *
 * Layer: transport.  Entry points: tp_live_barrier (dsm_tp_init),
 * tp_live_goodbye (dsm_tp_finalize), tp_live_readable and tp_live_fds (the
 * hooks of tp_live_source, for the one thread that watches the sockets:
 * the progress thread, or the init/finalize thread while there is none,
 * or one waiting thread when the progress thread is disabled),
 * tp_live_peer_failed (UCX error callback).
 *
 * Rank 0 keeps one socket to every other rank; the others keep theirs to
 * rank 0.  A process that dies closes its sockets, so end-of-file is the
 * failure signal, on every transport and at once.  Control frames:
 * READY/GO (start-up barrier), BYE/BYE_ACK (normal end: a socket that
 * closes after BYE_ACK, on either side, is no failure), ABORT(n) (node n
 * failed: a node that notices tells node 0, node 0 tells the others, so
 * that every node names it).
 *
 * Heartbeats tell a stopped node (SIGSTOP, a frozen or unreachable host)
 * from a busy one: the progress thread of every node sends HEARTBEAT on
 * its bootstrap sockets every DSM_TIMEOUT / 4 (at most every second) and
 * ends the job when a peer has sent nothing for DSM_TIMEOUT.  A busy node's
 * progress thread still runs; all threads of a stopped process stop.  The
 * sockets form a star, which is enough: node 0 watches every node and ends
 * the job everywhere (ABORT); the others watch node 0.  A node that has
 * said BYE has stopped its progress thread and is no longer expected to
 * send anything.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base_log.h"
#include "base_time.h"
#include "tp_liveness.h"
#include "tp_progress.h"
#include "tp_source.h"
#include "tp_state.h"
#include "tp_wire.h"

static void send_frame(int peer, tp_frame_type_t type, uint32_t arg)
{
    unsigned char f[TP_WIRE_FRAME_LEN];
    tp_wire_put_u32(f, (uint32_t)type);
    tp_wire_put_u32(f + 4, arg);
    size_t off = 0;
    uint64_t deadline = dsm_now_ns() + tp.timeout_ms * 1000000ull;
    while (off < sizeof f) {
        ssize_t n = send(tp.peers[peer].sock, f + off, sizeof f - off,
                         MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
            dsm_now_ns() < deadline) {
            struct pollfd pfd = {.fd = tp.peers[peer].sock, .events = POLLOUT};
            poll(&pfd, 1, 100);
            continue;
        }
        tp_live_peer_failed(peer, "its connection broke");
    }
}

/* Best effort, used on the way out: never blocks, never recurses. */
static void tell_others(int failed)
{
    unsigned char f[TP_WIRE_FRAME_LEN];
    tp_wire_put_u32(f, TP_FRAME_ABORT);
    tp_wire_put_u32(f + 4, (uint32_t)failed);
    for (int r = 1; r < tp.size; r++)
        if (r != failed && tp.peers[r].sock >= 0) {
            ssize_t unused = send(tp.peers[r].sock, f, sizeof f,
                                  MSG_NOSIGNAL | MSG_DONTWAIT);
            (void)unused;
        }
}

/* Another node noticed first: tell node 0, so that it names the failed
 * node rather than the one that exits next (best effort, as above). */
static void tell_node0(int failed)
{
    unsigned char f[TP_WIRE_FRAME_LEN];
    tp_wire_put_u32(f, TP_FRAME_ABORT);
    tp_wire_put_u32(f + 4, (uint32_t)failed);
    if (tp.peers[0].sock >= 0) {
        ssize_t unused = send(tp.peers[0].sock, f, sizeof f,
                              MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)unused;
    }
}

void tp_live_peer_failed(int peer, const char *why)
{
    /* first, so that the message names this peer, not one that exits
     * because we told it to */
    dsm_fatal_claim();
    if (tp.peers && peer != 0) {
        if (tp.rank == 0)
            tell_others(peer);
        else
            tell_node0(peer);
    }
    dsm_fatal("node %d failed: %s", peer, why);
}

static void handle_frame(int peer, uint32_t type, uint32_t arg)
{
    tp_peer_t *p = &tp.peers[peer];
    switch (type) {
    case TP_FRAME_READY:
        if (tp.rank == 0) {
            p->ready = 1;
            return;
        }
        break;
    case TP_FRAME_GO:
        if (tp.rank != 0) {
            tp.go = 1;
            return;
        }
        break;
    case TP_FRAME_BYE:
        if (tp.rank == 0) {
            p->bye = 1;
            return;
        }
        break;
    case TP_FRAME_BYE_ACK:
        if (tp.rank != 0) {
            tp.bye_ack = 1;
            return;
        }
        break;
    case TP_FRAME_HEARTBEAT:
        return;   /* last_heard_ns is updated for any bytes */
    case TP_FRAME_ABORT:
        if (arg >= (uint32_t)tp.size || arg == (uint32_t)tp.rank)
            break;
        if (tp.rank != 0)
            dsm_fatal("node %u failed (reported by node 0)", arg);
        tell_others((int)arg);
        dsm_fatal("node %u failed (reported by node %d)", arg, peer);
    default:
        break;
    }
    dsm_fatal("protocol error on the bootstrap connection with node %d "
              "(frame %u)", peer, type);
}

void tp_live_readable(int peer)
{
    tp_peer_t *p = &tp.peers[peer];
    for (;;) {
        ssize_t n = recv(p->sock, p->rx + p->rx_len,
                         TP_WIRE_FRAME_LEN - p->rx_len, 0);
        if (n > 0) {
            p->last_heard_ns = dsm_now_ns();
            p->rx_len += (size_t)n;
            if (p->rx_len == TP_WIRE_FRAME_LEN) {
                p->rx_len = 0;
                handle_frame(peer, tp_wire_get_u32(p->rx),
                             tp_wire_get_u32(p->rx + 4));
            }
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        /* end of file or reset: the normal end once BYE_ACK has gone
         * between this node and the peer.  Node 0 too may still read the
         * socket then: it closes its UCX endpoints after BYE_ACK, and may
         * look at the sockets while a close waits (a flush to a same-host
         * peer, seen in a job spanning hosts) after a faster peer exited */
        if (tp.rank == 0 ? p->bye_acked : tp.bye_ack) {
            close(p->sock);
            p->sock = -1;
            return;
        }
        tp_live_peer_failed(peer, n == 0 ? "its connection closed"
                                         : "its connection closed (reset)");
    }
}

int tp_live_fds(struct pollfd *fds, int *peer_of_fd)
{
    int n = 0;
    if (!tp.peers)
        return 0;
    for (int r = 0; r < tp.size; r++) {
        if (r == tp.rank || tp.peers[r].sock < 0)
            continue;
        fds[n] = (struct pollfd){.fd = tp.peers[r].sock, .events = POLLIN};
        peer_of_fd[n++] = r;
    }
    return n;
}

/* The sockets reach the sleeping or checking thread of tp_progress.c
 * through the registry: tp_progress.c, below, never calls up. */
const tp_source_t tp_live_source = {
    .name = "bootstrap sockets",
    .watch = tp_live_fds,
    .readable = tp_live_readable,
};

static int remaining_ms(uint64_t deadline_ns)
{
    uint64_t now = dsm_now_ns();
    if (now >= deadline_ns)
        return 0;
    uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
    return ms > 1000 ? 1000 : (int)ms;
}

typedef enum phase { PHASE_READY, PHASE_BYE } phase_t;

/* Rank 0: how many ranks have not sent the frame of this phase. */
static int count_missing(phase_t phase, char *list, size_t len)
{
    int missing = 0;
    size_t used = 0;
    list[0] = '\0';
    for (int r = 1; r < tp.size; r++) {
        int seen = phase == PHASE_READY ? tp.peers[r].ready
                                        : tp.peers[r].bye;
        if (seen)
            continue;
        missing++;
        if (used + 16 < len)
            used += (size_t)snprintf(list + used, len - used, "%s%d",
                                     used ? ", " : "", r);
    }
    return missing;
}

/* Progress and sleep on the worker and the sockets until done() holds. */
static void wait_until(int (*done)(void), phase_t phase, const char *what)
{
    uint64_t deadline = dsm_now_ns() + tp.timeout_ms * 1000000ull;
    while (!done()) {
        while (tp_progress_once())
            ;
        if (done())
            break;
        int ms = remaining_ms(deadline);
        if (ms == 0) {
            char list[256] = "0";
            if (tp.rank == 0)
                count_missing(phase, list, sizeof list);
            dsm_fatal("timed out after %u s waiting for node(s) %s to %s",
                      tp.timeout_ms / 1000u, list, what);
        }
        tp_sleep_for_events(ms * 1000L, 1);
    }
}

static int all_ready(void)
{
    char list[8];
    return count_missing(PHASE_READY, list, sizeof list) == 0;
}

static int all_bye(void)
{
    char list[8];
    return count_missing(PHASE_BYE, list, sizeof list) == 0;
}

static int got_go(void) { return tp.go; }
static int got_bye_ack(void) { return tp.bye_ack; }

dsm_status_t tp_live_barrier(void)
{
    if (tp.rank == 0) {
        wait_until(all_ready, PHASE_READY, "finish the wire-up");
        for (int r = 1; r < tp.size; r++)
            send_frame(r, TP_FRAME_GO, 0);
    } else {
        send_frame(0, TP_FRAME_READY, 0);
        wait_until(got_go, PHASE_READY, "finish the wire-up");
    }
    return DSM_OK;
}

void tp_live_goodbye(void)
{
    atomic_store(&tp.finalizing, 1);
    if (tp.rank == 0) {
        wait_until(all_bye, PHASE_BYE, "finalize");
        for (int r = 1; r < tp.size; r++) {
            tp.peers[r].bye_acked = 1;
            send_frame(r, TP_FRAME_BYE_ACK, 0);
        }
    } else {
        send_frame(0, TP_FRAME_BYE, 0);
        wait_until(got_bye_ack, PHASE_BYE, "finalize");
    }
}

/* ---- heartbeats ----------------------------------------------------------- */

#define HEARTBEAT_MAX_NS 1000000000ull    /* at least one a second */
#define HEARTBEAT_MIN_NS 50000000ull

void tp_live_heartbeat_start(void)
{
    uint64_t every = tp.timeout_ms * 1000000ull / 4u;
    if (every > HEARTBEAT_MAX_NS)
        every = HEARTBEAT_MAX_NS;
    if (every < HEARTBEAT_MIN_NS)
        every = HEARTBEAT_MIN_NS;
    tp.heartbeat_every_ns = every;
    uint64_t now = dsm_now_ns();
    tp.next_heartbeat_ns = now;
    if (tp.peers)
        for (int r = 0; r < tp.size; r++)
            tp.peers[r].last_heard_ns = now;
}

/* A heartbeat never blocks the progress thread: a full socket buffer means
 * the peer has not read for a long time, and its own silence will end the
 * job.  A partial frame (a nearly full buffer) is completed. */
static void send_heartbeat(int peer)
{
    unsigned char f[TP_WIRE_FRAME_LEN];
    tp_wire_put_u32(f, TP_FRAME_HEARTBEAT);
    tp_wire_put_u32(f + 4, 0);
    ssize_t n = send(tp.peers[peer].sock, f, sizeof f,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0 && (size_t)n < sizeof f) {
        size_t off = (size_t)n;
        while (off < sizeof f) {
            n = send(tp.peers[peer].sock, f + off, sizeof f - off,
                     MSG_NOSIGNAL);
            if (n > 0)
                off += (size_t)n;
            else if (!(n < 0 && errno == EINTR))
                return;   /* the socket reader reports the broken link */
        }
    }
}

/* Whether this node expects anything more from peer. */
static int expects_heartbeats(int peer)
{
    const tp_peer_t *p = &tp.peers[peer];
    if (peer == tp.rank || p->sock < 0)
        return 0;
    return tp.rank == 0 ? !p->bye : !tp.bye_ack;
}

int tp_live_heartbeat(void)
{
    if (!tp.peers || tp.size < 2 || tp.heartbeat_every_ns == 0)
        return -1;
    uint64_t now = dsm_now_ns();
    const uint64_t limit_ns = tp.timeout_ms * 1000000ull;
    for (int r = 0; r < tp.size; r++) {
        if (!expects_heartbeats(r))
            continue;
        uint64_t heard = tp.peers[r].last_heard_ns;
        if (now > heard && now - heard >= limit_ns) {
            /* this thread may itself have been off the CPU for that long
             * (a loaded machine): read what waits before calling the
             * peer silent */
            tp_live_readable(r);
            if (!expects_heartbeats(r))
                continue;   /* its normal end was waiting there */
            heard = tp.peers[r].last_heard_ns;
        }
        if (now > heard && now - heard >= limit_ns) {
            char why[160];
            snprintf(why, sizeof why, "timed out: nothing heard from it for "
                     "%u s (DSM_TIMEOUT): it is stopped, or its host or "
                     "network is down", tp.timeout_ms / 1000u);
            tp_live_peer_failed(r, why);
        }
    }
    if (now >= tp.next_heartbeat_ns) {
        for (int r = 0; r < tp.size; r++)
            if (r != tp.rank && tp.peers[r].sock >= 0)
                send_heartbeat(r);
        tp.next_heartbeat_ns = now + tp.heartbeat_every_ns;
    }
    return remaining_ms(tp.next_heartbeat_ns);
}
