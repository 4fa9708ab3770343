/*
 * tp_internal.h - state and internal interfaces shared by the files of the
 * transport layer.  Private: nothing outside runtime/transport includes it,
 * except the transport's own white-box tests.
 *
 * Layer: transport.  Files and their concern:
 *   tp_wireup.c     dsm_tp_init / dsm_tp_finalize, UCX context, worker,
 *                   memory registration, endpoints
 *   tp_rendezvous.c the TCP bootstrap: rank 0 accepts, the others join
 *   tp_wire.c       byte layout of the bootstrap messages, token check
 *   tp_liveness.c   the bootstrap sockets after wire-up: barrier, BYE,
 *                   ABORT, heartbeats, peer failure
 *   tp_msgq.c       signal-safe message buffers and FIFO queues
 *   tp_am.c         active messages: registry, send, receive, self-sends
 *   tp_lane.c       same-host lanes: messages through shared-memory rings
 *   tp_direct.c     same-host mapping of peers' segments
 *   tp_direct_copy.c the copy behind a get from a mapped peer
 *   tp_direct_view.c a peer's pages mapped read-only where the caller says
 *   tp_rma.c        get / put / flush
 *   tp_atomic.c     remote atomics
 *   tp_progress.c   progress calls and bounded waits
 *   tp_thread.c     the progress thread
 *   tp_status.c     UCX status codes to dsm_status_t
 *   tp_counters.c   statistics
 */
#ifndef TP_INTERNAL_H
#define TP_INTERNAL_H

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

    /* Set once this node has sent or seen BYE: from then on the bootstrap
     * sockets, not UCX endpoint errors, decide whether a peer failed. */
    atomic_int finalizing;
    int go, bye_ack;                  /* rank > 0: GO, BYE_ACK seen */

    /* Heartbeats (tp_liveness.c), kept by the progress thread only. */
    uint64_t heartbeat_every_ns;
    uint64_t next_heartbeat_ns;
} tp_state_t;

extern tp_state_t tp;

/* Non-zero while this thread runs an active-message handler. */
extern TP_THREAD_LOCAL int tp_in_handler;
/* Non-zero during a dsm_tp_am_send_lazy: a lane does not ring a sleeping
 * receiver. */
extern TP_THREAD_LOCAL int tp_send_lazy;

/* ---- tp_status.c --------------------------------------------------------- */
dsm_status_t tp_status(ucs_status_t status);

/* ---- tp_counters.c ------------------------------------------------------- */
void tp_count_am(unsigned id, size_t bytes);
void tp_count_get(size_t bytes);
void tp_count_put(size_t bytes);
void tp_count_atomic(void);
void tp_counters_reset(void);

/* ---- tp_wire.c: bootstrap message layout ---------------------------------
 * All integers big-endian.  A node record describes one node: a 16-byte
 *   host identity (the kernel's boot id), u32 worker address length, u64
 *   network namespace (inode), u32 process id, u32 lane file descriptor and
 *   u32 wake pipe descriptor a same-host peer may open (TP_WIRE_NO_FD:
 *   none), then per segment {u64 base,
 *   u64 size, u32 rkey length, u32 descriptor a same-host peer may map
 *   (TP_WIRE_NO_FD: none)}, then the worker address and the packed rkeys.
 * hello (rank > 0 -> rank 0): u32 magic "DSMH", u32 version, u32 rank,
 *   the token field, then the node record.
 * table (rank 0 -> all): u32 magic "DSMT", u32 version, u32 size,
 *   u32 body length, then the records of ranks 0..size-1.
 * control frame (both ways, after the table): u32 type, u32 argument. */
#define TP_WIRE_VERSION 4u
#define TP_WIRE_TOKEN_LEN 128u   /* the token field, zero padded */
#define TP_WIRE_BLOB_MAX (64u * 1024u)        /* per address or rkey */
#define TP_WIRE_HELLO_FIXED (4u + 4u + 4u + TP_WIRE_TOKEN_LEN)
#define TP_WIRE_HOST_ID_LEN 16u
#define TP_WIRE_SEG_LEN (8u + 8u + 4u + 4u)
#define TP_WIRE_RECORD_FIXED \
    (TP_WIRE_HOST_ID_LEN + 4u + 8u + 4u + 8u + \
     DSM_TP_SEG_COUNT * TP_WIRE_SEG_LEN)
#define TP_WIRE_NO_FD UINT32_MAX
#define TP_WIRE_TABLE_FIXED (4u * 4u)
#define TP_WIRE_FRAME_LEN 8u

typedef struct tp_record {
    unsigned char host_id[TP_WIRE_HOST_ID_LEN];   /* same kernel, same id */
    const void *addr;                         /* UCX worker address */
    size_t addr_len;
    uint64_t netns;        /* network namespace: with host_id, "same host" */
    uint32_t pid;
    uint32_t lane_fd;      /* in pid: its lane file, or TP_WIRE_NO_FD */
    uint32_t bell_fd;      /* in pid: its wake pipe's write end, or NO_FD */
    uint32_t map_fd[DSM_TP_SEG_COUNT];        /* in pid, or TP_WIRE_NO_FD */
    uint64_t seg_base[DSM_TP_SEG_COUNT];
    uint64_t seg_size[DSM_TP_SEG_COUNT];
    const void *rkey[DSM_TP_SEG_COUNT];       /* packed remote keys */
    size_t rkey_len[DSM_TP_SEG_COUNT];
} tp_record_t;

typedef enum tp_frame_type {
    TP_FRAME_READY = 1,     /* rank > 0: endpoints created */
    TP_FRAME_GO = 2,        /* rank 0: everyone is ready */
    TP_FRAME_BYE = 3,       /* rank > 0: finalizing, nothing outstanding */
    TP_FRAME_BYE_ACK = 4,   /* rank 0: every node said BYE */
    TP_FRAME_ABORT = 5,     /* rank 0: node <arg> failed */
    TP_FRAME_HEARTBEAT = 6, /* both ways: the sender's progress thread runs */
} tp_frame_type_t;

size_t tp_wire_record_len(const tp_record_t *rec);
void tp_wire_put_record(unsigned char *out, const tp_record_t *rec);
/* Parse one record from [in, in+len); pointers in *rec point into in.
 * Returns the bytes consumed, 0 if malformed or truncated. */
size_t tp_wire_get_record(const unsigned char *in, size_t len,
                          tp_record_t *rec);
/* Parse only the fixed part: the total record length it announces, or 0
 * when a length exceeds TP_WIRE_BLOB_MAX. */
size_t tp_wire_record_total(const unsigned char fixed[TP_WIRE_RECORD_FIXED]);

/* Write the fixed hello header (magic, version, rank, token). */
void tp_wire_put_hello_header(unsigned char out[TP_WIRE_HELLO_FIXED],
                              uint32_t rank, const char *token);
uint32_t tp_wire_magic(const unsigned char *in);     /* first u32 */
uint32_t tp_wire_get_u32(const unsigned char *in);
void tp_wire_put_u32(unsigned char *out, uint32_t v);
/* Constant-time comparison of a received token field with ours. */
int tp_wire_token_matches(const unsigned char field[TP_WIRE_TOKEN_LEN],
                          const char *token);
#define TP_MAGIC_HELLO 0x44534d48u   /* "DSMH" */
#define TP_MAGIC_TABLE 0x44534d54u   /* "DSMT" */

/* Decoding a hello as its bytes arrive: tp_wire_check_hello looks at the
 * first `have` bytes (never more than it asked for) and says whether they
 * are a complete hello, the start of one (read on to `need` bytes), or
 * not one at all (`why` says what was wrong, a static string).  Checked in
 * order: magic, version, token (constant time), rank (1..size-1), lengths,
 * the record.  Whether the rank already joined is the caller's to check. */
typedef enum tp_hello_verdict {
    TP_HELLO_MORE,
    TP_HELLO_BAD,
    TP_HELLO_DONE,
} tp_hello_verdict_t;

typedef struct tp_hello {
    size_t need;          /* MORE: bytes to read before looking again;
                             DONE: length of the hello */
    uint32_t rank;        /* once the token matched */
    int bad_rank;         /* BAD because rank is out of range */
    const char *why;      /* BAD */
    tp_record_t rec;      /* DONE; pointers into the caller's bytes */
} tp_hello_t;

tp_hello_verdict_t tp_wire_check_hello(const unsigned char *in, size_t have,
                                       const char *token, int size,
                                       tp_hello_t *out);

/* The table's fixed header: magic, version, the job's size, and a body
 * length bounded by size records of the largest size; *body_len on
 * success. */
dsm_status_t tp_wire_get_table_header(
    const unsigned char head[TP_WIRE_TABLE_FIXED], int size,
    size_t *body_len);
/* The table's body: exactly size records and nothing after them; table[r]
 * points into body. */
dsm_status_t tp_wire_get_table(const unsigned char *body, size_t len,
                               int size, tp_record_t *table);

/* Same-host lane records (tp_lane.c).  Each record starts on a 64-byte
 * line of the ring with a 16-byte header: u64 ready (the record's position
 * + 1, stored last: the reader polls this word, so a message costs the
 * line it is written on and no separate head word), u32 payload length,
 * u8 message id, u8 kind, u16 zero; the payload follows, and the record
 * takes 16 + length bytes rounded up to the line.  The reader zeroes the
 * first word of every line it consumed, so the first word of a line is 0
 * or the ready word of the record starting there.  A record never crosses
 * the ring's end (a WRAP record sends the reader to offset 0).  A message
 * of more than TP_LANE_MAX_PAYLOAD bytes is a FIRST record (u64 total
 * length, then bytes), MORE records and a LAST one, in a row.  Native
 * byte order: both ends run on one host. */
#define TP_LANE_LINE 64u
#define TP_LANE_HDR_BYTES 16u
#define TP_LANE_MAX_PAYLOAD ((uint64_t)32 << 10)
#define TP_LANE_MAX_MESSAGE ((uint64_t)1 << 40)
enum tp_lane_kind {
    TP_LANE_WHOLE = 1,
    TP_LANE_FIRST = 2,
    TP_LANE_MORE = 3,
    TP_LANE_LAST = 4,
    TP_LANE_WRAP = 5,
};
typedef struct tp_lane_view {
    unsigned kind, id;
    const unsigned char *payload;   /* inside the ring */
    uint32_t len;
    uint64_t next;                  /* the position after the record */
} tp_lane_view_t;
/* Bytes of the ring a record of payload len takes (header, padding). */
static inline uint64_t tp_lane_record_bytes(uint64_t len)
{
    return (TP_LANE_HDR_BYTES + len + TP_LANE_LINE - 1) &
           ~(uint64_t)(TP_LANE_LINE - 1);
}
/* The record at position tail of a ring of ring_bytes (a multiple of the
 * line), whose ready word the reader found to be ready (non-zero): ready
 * must be tail + 1, the record lie before the ring's end, its kind and id
 * be valid, a WRAP carry nothing and not stand at offset 0. */
dsm_status_t tp_wire_lane_record(const unsigned char *ring, uint64_t ring_bytes,
                                 uint64_t tail, uint64_t ready,
                                 tp_lane_view_t *out);
/* Reassembly of fragmented messages, one state per ring.  Feed every
 * record but WRAPs: *deliver says the message is whole (a WHOLE record,
 * or the LAST fragment, after which st->total bytes were collected); a
 * FIRST sets st->total and *first_bytes (the payload after the length);
 * out of order, a changing id or more bytes than announced are errors. */
typedef struct tp_lane_asm {
    int active;
    unsigned id;
    uint64_t total, have;
} tp_lane_asm_t;
dsm_status_t tp_wire_lane_step(tp_lane_asm_t *st, const tp_lane_view_t *rec,
                               int *deliver);

/* ---- tp_rendezvous.c ------------------------------------------------------
 * Exchange node records: on return table[r] describes rank r (the pointers
 * point into *storage, which the caller frees) and socks[r] is the
 * bootstrap socket to r (rank 0: one per other rank; others: socks[0]). */
dsm_status_t tp_rendezvous(const tp_record_t *mine, tp_record_t *table,
                           int *socks, void **storage);

/* ---- tp_liveness.c ---------------------------------------------------- */
/* Wire-up barrier: READY to rank 0, GO back; progresses the worker. */
dsm_status_t tp_live_barrier(void);
/* Read whatever arrived on peer's socket; peer failure ends the job. */
void tp_live_readable(int peer);
/* BYE exchange of dsm_tp_finalize; progresses the worker. */
void tp_live_goodbye(void);
/* Fill fds with the sockets to watch; returns how many (at most size). */
int tp_live_fds(struct pollfd *fds, int *peer_of_fd);
/* Heartbeats, from the progress thread: tp_live_heartbeat_start when it
 * starts; tp_live_heartbeat at every turn sends the heartbeats that are due
 * and ends the job when a peer has sent nothing for DSM_TIMEOUT; returns
 * the milliseconds until it is due again. */
void tp_live_heartbeat_start(void);
int tp_live_heartbeat(void);
/* Peer failed: rank 0 tells the others which, then the job ends. */
void tp_live_peer_failed(int peer, const char *why)
    __attribute__((noreturn));

/* ---- tp_msgq.c -------------------------------------------------------------
 * Messages copied for later: self-sends and sends made from handlers.
 * Allocation uses a preallocated slot pool, or mmap for large messages or
 * when the pool is empty: no malloc, so safe in the fault handler. */
typedef struct tp_msg {
    struct tp_msg *next;
    int peer;              /* destination (deferred) or source (self) */
    unsigned id;
    size_t len;
    size_t map_len;        /* 0: pool slot; else length of its mmap */
    unsigned char data[];
} tp_msg_t;

typedef struct tp_msgq {
    pthread_mutex_t lock;
    tp_msg_t *head, *tail;
} tp_msgq_t;

dsm_status_t tp_msg_pool_init(void);
void tp_msg_pool_destroy(void);
tp_msg_t *tp_msg_alloc(size_t len);       /* NULL when out of memory */
void tp_msg_free(tp_msg_t *msg);
void tp_msgq_init(tp_msgq_t *q);
/* Append; returns non-zero if the queue was empty before. */
int tp_msgq_push(tp_msgq_t *q, tp_msg_t *msg);
tp_msg_t *tp_msgq_pop(tp_msgq_t *q);

/* ---- tp_am.c ------------------------------------------------------------- */
dsm_status_t tp_am_open(void);            /* handlers on the worker */
void tp_am_close(void);                   /* drop queued messages */
/* Run handlers of queued self-sends; returns how many ran. */
int tp_am_deliver_local(void);
/* Hand sends queued by handlers to UCX or the lanes (may wait for room in
 * a lane: never from a handler). */
void tp_am_issue_deferred(void);
int tp_am_deferred_pending(void);
/* Run the handler of a message that arrived outside UCX (a lane record),
 * under the handler lock; a message id without a handler ends the job. */
void tp_am_dispatch(int src, unsigned id, const void *data, size_t len);

/* ---- tp_progress.c -------------------------------------------------------- */
/* A wait reads the clock only every CHECK_EVERY rounds, the first time
 * after CHECK_EVERY rounds, so that a short wait costs no clock read; its
 * deadline counts from that first read. */
typedef struct tp_wait {
    uint64_t start_ns;          /* first clock read; 0 before it */
    uint64_t last_ns;           /* latest clock read */
    uint64_t deadline_ns;
    uint64_t next_check_ns;
    unsigned spins;
} tp_wait_t;

/* Wait lengths after which a wait yields (tp_progress.c): the CPU is
 * shared with the job's own threads, or not. */
#define TP_YIELD_SHARED_NS 5000ull
#define TP_YIELD_OWN_CPU_NS 1000000ull

/* One round: UCX progress, lanes, self-sends, deferred sends. */
int tp_progress_once(void);
void tp_wait_begin(tp_wait_t *w);
/* Call each round; ends the job when DSM_TIMEOUT has passed. */
void tp_wait_check(tp_wait_t *w, const char *what, int rank);
void tp_wait_end(tp_wait_t *w);
/* Wait for a UCX request (or immediate result) and release it. */
dsm_status_t tp_wait_request(ucs_status_ptr_t request, const char *what,
                             int rank);
/* Refuse blocking calls from inside a handler. */
void tp_check_not_in_handler(const char *call);
/* Sleep in poll(2) on the bootstrap sockets, the wake pipe and, with
 * arm_worker, the armed worker's wake-up descriptor, until something
 * happens or timeout milliseconds pass (-1: no limit); handles socket
 * traffic.  For threads that wait without spinning: the progress thread,
 * and the start-up and shut-down barriers. */
void tp_sleep_for_events(int timeout, int arm_worker);
void tp_wake_thread(void);

/* ---- tp_direct.c: same-host peers' segments mapped here ------------------ */
/* Fill in this node's netns, pid and offered descriptors. */
void tp_direct_identity(tp_record_t *mine);
/* Map what peer offers if it runs on this host (sets peers[rank].direct). */
void tp_direct_map(int rank, const tp_record_t *peer, const tp_record_t *mine);
void tp_direct_unmap(void);
/* Do peer and this node run on one host: same kernel and network
 * namespace (processes in other namespaces stand for other hosts)? */
int tp_same_host(const tp_record_t *peer, const tp_record_t *mine);

/* ---- tp_lane.c: same-host message lanes ---------------------------------- */
/* Create this node's lane file (DSM_SAME_HOST_LANES; without it, or when
 * it cannot be made, every message goes through UCX). */
dsm_status_t tp_lane_open(void);
/* Fill in the lane file and wake pipe descriptors peers may open. */
void tp_lane_identity(tp_record_t *mine);
/* Set up the lanes with rank: read its ring in our file, map its file to
 * write ours, open its wake pipe.  Any failure leaves rank on UCX. */
void tp_lane_connect(int rank, const tp_record_t *peer,
                     const tp_record_t *mine);
void tp_lane_close(void);
/* Do messages to rank go through a lane? */
int tp_lane_reaches(int rank);
/* Send one message on the lane to rank.  may_wait 0 (handlers): only if
 * the ring has room now and no other thread is writing, else
 * DSM_ERR_BUSY; 1: waits for room, serving this node's messages. */
dsm_status_t tp_lane_send(int rank, unsigned id, const void *hdr,
                          size_t hdr_len, const void *body, size_t body_len,
                          int may_wait);
/* Run the handlers of every record that arrived; returns how many. */
int tp_lane_poll(void);
/* Publish the CPU a thread of this node polls on (-1: none); does a peer
 * on a lane publish cpu? */
void tp_lane_waiting_on(int cpu);
int tp_lane_cpu_shared(int cpu);
/* The progress thread is about to sleep: ask senders to ring the wake
 * pipe.  Non-zero: records already wait (sleep_end done; do not sleep). */
int tp_lane_sleep_begin(void);
void tp_lane_sleep_end(void);

/* ---- tp_direct_copy.c: the copy of a get from a mapped peer ------------- */
/* Keep the descriptors of the segments tp_direct_map mapped for rank. */
void tp_direct_copy_open(int rank, const tp_record_t *peer,
                         const tp_record_t *mine);
void tp_direct_copy_close(void);
/* Copy [offset, offset+len) of rank's mapped segment seg to local: the
 * file copy for pages of an offered segment of ours that no get wrote
 * before, memcpy otherwise.  Any thread, the fault handler included. */
void tp_direct_copy(int rank, dsm_tp_segment_t seg, uint64_t offset,
                    void *local, size_t len);
/* The descriptor kept for rank's mapped segment seg (read-only), or -1. */
int tp_direct_copy_peer_fd(int rank, dsm_tp_segment_t seg);

/* ---- tp_rma.c --------------------------------------------------------------- */
/* Check (rank, seg, offset, len) and find the remote address and key.
 * For the calling rank the address is the local one. */
dsm_status_t tp_resolve(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        size_t len, uint64_t *raddr, ucp_rkey_h *rkey);

/* ---- tp_thread.c ---------------------------------------------------------- */
dsm_status_t tp_thread_start(void);
void tp_thread_stop(void);

/* ---- tp_wireup.c ---------------------------------------------------------- */
dsm_status_t tp_check_rank(int rank);
int tp_seg_valid(dsm_tp_segment_t seg);

#endif
