/*
 * tp_state.h - the transport's process-wide state, shared by its modules.
 *
 * Layer: transport (internal), the lowest module: it includes no other
 * module's header (the order: meson.build, transport_modules).
 * Each field says which module keeps it; the others only read it.
 */
#ifndef TP_STATE_H
#define TP_STATE_H

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include "transport.h"


/* Thread-local state that the fault handler may touch: initial-exec, so an
 * access never calls into the dynamic linker (which could allocate). */
#define TP_THREAD_LOCAL __thread __attribute__((tls_model("initial-exec")))

/* ---- process-wide state ------------------------------------------------- */

typedef struct tp_peer {
    ucp_ep_h ep;                              /* NULL for self on 1 node */
    int ep_watched;          /* UCP_ERR_HANDLING_MODE_PEER, error callback */
    uint64_t seg_base[DSM_TP_SEG_COUNT];      /* remote addresses */
    uint64_t seg_size[DSM_TP_SEG_COUNT];
    ucp_rkey_h rkey[DSM_TP_SEG_COUNT];        /* NULL when size is 0 */
    /* the peer's segment mapped here (same host, tp_direct.c), or NULL */
    unsigned char *direct[DSM_TP_SEG_COUNT];
    int sock;          /* bootstrap socket (rank 0 <-> this peer), or -1 */
    /* liveness bookkeeping, read and written by the one socket reader */
    unsigned char rx[8];                      /* partial control frame */
    size_t rx_len;
    int ready, bye;                           /* frames seen from peer */
    int bye_acked;     /* rank 0 answered its BYE: its socket may close */
    uint64_t last_heard_ns;      /* latest bytes from peer (heartbeats) */
} tp_peer_t;

typedef struct tp_state {
    int initialized;
    int used_network;        /* a multi-node init happened: no second one */
    int rank, size;
    unsigned timeout_ms;

    dsm_tp_segments_t local;                  /* this node's segments */
    tp_peer_t *peers;                         /* size entries */

    ucp_context_h context;                    /* NULL on one node */
    ucp_worker_h worker;
    int worker_efd;
    ucp_mem_h memh[DSM_TP_SEG_COUNT];

    /* A pipe: a byte written to wake_wr wakes the progress thread, which
     * polls wake_fd (self-sends, shut-down, and same-host peers ringing
     * this node's lanes, which open wake_wr through /proc: an eventfd
     * cannot be opened that way). */
    int wake_fd, wake_wr;

    /* A one-host job: every node maps this segment of every other, and
     * all take the CPU's atomics on it (tp_atomic.c). */
    int cpu_atomics[DSM_TP_SEG_COUNT];
    /* Nothing goes through UCX: every peer on a lane, every segment
     * mapped; progress looks at the worker only now and then. */
    int ucx_quiet;
    /* Some peer on this host has no lane: its messages may come through
     * UCX's shared memory, where an armed worker costs the sender a system
     * call per message (tp_thread.c). */
    int ucx_same_host;
    /* Some peer is on another host: its requests (gets, puts, atomics
     * emulated over TCP) need this node's progress (tp_thread.c). */
    int remote_peers;
    /* Some peer is reached through UCX, not a lane (remote_peers or
     * ucx_same_host): its messages wake a thread asleep on the armed
     * worker. */
    int ucx_peers;
    /* The job's threads on this host outnumber its CPUs: waits yield
     * early (tp_progress.c). */
    int oversubscribed;
    atomic_int stop_thread;
    int thread_running;
    pthread_t thread;

    /* poll(2) sets: the sleeping thread's (size + 2 entries) and the one a
     * waiting thread uses when there is no progress thread (size). */
    struct pollfd *pollfds, *check_fds;
    int *poll_peer, *check_peer;

    /* Threads currently polling inside a wait; while there are any, the
     * progress thread does not arm the worker (see tp_thread.c). */
    atomic_int pollers;
    /* Counts waits begun and dsm_tp_progress calls: the progress thread
     * compares it between looks to see whether anyone polled. */
    atomic_uint activity;
    /* The progress thread sleeps with the worker left to pollers. */
    atomic_int thread_parked;
    /* dsm_tp_idle: no thread will poll; the progress thread takes the
     * worker at its next look, whatever activity it saw. */
    atomic_int idle_hint;
    /* The progress thread sleeps on the armed worker's descriptor (or is
     * about to): every message wakes it, also one a poller takes. */
    atomic_int thread_armed;
    /* When the last poller ended its wait, and whether the node had
     * computed less than TP_SYNC_GAP_NS when its latest wait began (it
     * synchronises: its own waits serve the peers; tp_thread.c). */
    _Atomic uint64_t poll_end_ns;
    atomic_int synchronising;

    /* Set once this node has sent or seen BYE: from then on the bootstrap
     * sockets, not UCX endpoint errors, decide whether a peer failed. */
    atomic_int finalizing;
    int go, bye_ack;                  /* rank > 0: GO, BYE_ACK seen */

    /* Heartbeats (tp_liveness.c), kept by the progress thread only. */
    uint64_t heartbeat_every_ns;
    uint64_t next_heartbeat_ns;
} tp_state_t;

extern tp_state_t tp;

static inline dsm_status_t tp_check_rank(int rank)
{
    return rank >= 0 && rank < tp.size ? DSM_OK : DSM_ERR_INVALID;
}

static inline int tp_seg_valid(dsm_tp_segment_t seg)
{
    return (int)seg >= 0 && seg < DSM_TP_SEG_COUNT;
}

#endif
