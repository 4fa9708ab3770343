/*
 * tp_lane.c - same-host lanes: active messages between two nodes of one
 * host travel through a ring in shared memory instead of UCX.
 *
 * Why: UCX's shared-memory transports cost about 0.25 us per message here
 * (its AM protocol, the multi-threaded worker's lock, the request), where
 * a cache line moves between two cores in a few tens of nanoseconds.  A
 * fork, a join and a barrier are one or two messages each, so the EPCC
 * constructs across nodes were made of UCX latencies.
 *
 * Layout.  Each node creates one memfd, its lane file: a header page
 * (lane_node_t: the receiver's "sleeping" word), then one ring per
 * possible sender (lane_ring_t: the receiver's tail on a cache line of its
 * own, then LANE_DATA_BYTES of records).  A sender on the same host (same
 * boot id and network namespace, as for tp_direct.c) maps the receiver's file
 * through /proc/<pid>/fd and writes its records into its own ring; the
 * receiver reads them from its own mapping.  One ring per ordered pair of
 * nodes, so each ring has one producing process and one consuming one.
 *
 * Records start on cache lines: a 16-byte header (the ready word, payload
 * length, message id, kind) and the payload, padded to the line.  The
 * sender stores the ready word last; the receiver polls the ready word at
 * its tail, so a small message costs the one line it is written on.  (With
 * a head word beside the records, the receiver took two lines in turn, the
 * head's and the record's, and the sender's fence waited for both; on this
 * kind of machine a line moves between cores in 50-150 ns, and a region
 * with a reduction is three messages.)  The receiver zeroes the first
 * word of every line it consumed before it publishes its tail, so a
 * line's first word is 0 or the ready word of the record starting there,
 * never a stale payload.  A message that does not fit before the end of
 * the ring is preceded by a WRAP record and starts again at the
 * beginning, so every record is contiguous and a handler gets a pointer
 * into the ring.  A message larger than TP_LANE_MAX_PAYLOAD travels as a
 * FIRST record (carrying the total length), MORE records and a LAST
 * record; the receiver collects them in a tp_msgq buffer (no malloc).
 *
 * Ordering: every active message from one node to a same-host peer whose
 * file it mapped goes through the lane, so per pair of nodes delivery
 * order is send order, as on UCX.  Within the sending process several
 * threads serialise on the ring's lock, which is held only while records
 * are written (and, for a fragmented message, while waiting for space, by
 * a thread that keeps serving its own incoming messages meanwhile).
 *
 * Wake-up: a receiver whose progress thread is about to sleep in poll(2)
 * sets its "sleeping" word and looks at its rings once more, each under
 * its reading flag (another reader may have zeroed a record and not yet
 * published the tail after it, and a look at the old tail would find
 * nothing); a sender
 * that published a record and then sees the word set writes one byte to
 * the receiver's wake pipe (opened through /proc like the file; an
 * eventfd cannot be opened that way).  Either the sender sees the word,
 * or the receiver sees the record: that needs a full fence between the
 * store and the load on both sides.  A fence right after a send would
 * wait until the record's line has left for the receiver's cache (a
 * transfer, 50-150 ns, every message); so where the kernel offers it, the
 * fence is asymmetric: every node registers for membarrier(2)'s global
 * expedited command, senders put only a compiler barrier there, and the
 * receiver - which sleeps rarely - makes the membarrier call, which runs a
 * full fence on every CPU running a registered process (a thread not
 * running passed one when it was switched out).  Without it (an old
 * kernel, a seccomp filter, DSM_LANE_MEMBARRIER=0), both sides fence; a
 * sender skips its fence only to a receiver that said in its file header
 * that it makes the call.  While the receiver's application threads poll
 * (and the progress thread is parked), nobody sleeps, no system call is
 * made.
 *
 * The header page also says on which CPU a thread of the node polls, so
 * that a waiting thread can tell whether a peer it waits for may need its
 * very CPU (tp_progress.c, when to yield).
 *
 * A dead peer: its mapping stays valid, records to it are never read, and
 * the liveness sockets end the job (tp_liveness.c); a sender waiting for
 * space checks the job's liveness like any wait (tp_wait_check).
 *
 * Layer: transport.  Entry points (tp_lane.h): tp_lane_open and
 * tp_lane_identity (wire-up, before the exchange), tp_lane_connect (per
 * peer, after it), tp_lane_close (finalize); tp_lane_reaches and
 * tp_lane_send (any thread, the fault handler and handlers included: a
 * handler only tries, never waits); tp_lane_poll (every progress call).
 * Through the hooks of tp_lane_source (tp_source.h), so that
 * tp_progress.c, below, never calls up: lane_sleep_begin/end (the
 * progress thread), lane_waiting_on and lane_cpu_shared (waits).  No
 * malloc after open.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base_config.h"
#include "base_log.h"
#include "sys_dump.h"
#include "tp_direct.h"
#include "tp_lane.h"
#include "tp_msgq.h"
#include "tp_progress.h"
#include "tp_source.h"
#include "tp_state.h"
#include "tp_wire.h"

#define LANE_DATA_BYTES ((uint64_t)256 << 10)
#define LANE_PAGE 4096u

/* Two cache lines: senders read "sleeping" after every record, so the
 * node's own frequent stores to waiting_cpu must not share its line. */
typedef struct lane_node {
    _Atomic uint32_t sleeping;   /* the receiver wants a wake-up byte */
    uint32_t membarrier;         /* 1: the receiver makes the membarrier
                                    call before it sleeps; written once,
                                    before the file is offered */
    char pad[56];
    _Atomic int32_t waiting_cpu; /* CPU a thread of the node polls on, +1;
                                    0: none polls */
} lane_node_t;

typedef struct lane_ring {
    _Atomic uint64_t tail;       /* bytes consumed by the receiver */
    char pad[56];
} lane_ring_t;

/* ring r of a file: after the header page, at a page boundary each */
#define LANE_RING_STRIDE (LANE_PAGE + LANE_DATA_BYTES)
static uint64_t file_bytes(int size)
{
    return LANE_PAGE + (uint64_t)size * LANE_RING_STRIDE;
}

/* the record header (tp_wire.h, "Same-host lane records") */
typedef struct lane_rec {
    _Atomic uint64_t ready;      /* position + 1, stored last */
    uint32_t len;                /* payload bytes */
    uint8_t id;
    uint8_t kind;
    uint16_t pad;
} lane_rec_t;
_Static_assert(sizeof(lane_rec_t) == TP_LANE_HDR_BYTES, "record header");
_Static_assert(LANE_DATA_BYTES % TP_LANE_LINE == 0, "rings hold whole lines");
_Static_assert(DSM_TP_AM_MAX_ID <= 256, "ids fit the record's byte");

typedef struct lane_tx {         /* this node -> peer */
    lane_ring_t *ring;           /* NULL: the peer is not on a lane */
    unsigned char *data;
    lane_node_t *peer_node;
    int bell_fd;                 /* the peer's wake pipe, write end */
    int fence;                   /* 1: fence before looking at "sleeping"
                                    (no membarrier on one of the two) */
    atomic_flag lock;
    uint64_t head;               /* bytes written (lock) */
    uint64_t tail_seen;          /* the peer's tail as last read (lock) */
    unsigned char *file;         /* the peer's whole file, for munmap */
} lane_tx_t;

typedef struct lane_rx {         /* peer -> this node */
    lane_ring_t *ring;           /* NULL: the peer sends through UCX */
    unsigned char *data;
    atomic_flag busy;            /* one consumer at a time */
    tp_lane_asm_t asm_state;     /* a fragmented message being collected */
    tp_msg_t *frag;              /* ... and its buffer */
} lane_rx_t;

static struct {
    int fd;                      /* our lane file */
    unsigned char *file;
    lane_node_t *node;
    lane_tx_t *tx;
    lane_rx_t *rx;
    int *rx_peers;               /* ranks with an rx ring, rx_count of them */
    int rx_count;
    int membarrier;              /* registered: see "Wake-up" above */
    tp_lane_deliver_fn deliver;  /* runs a record's handler (tp_am.c) */
} lane = {.fd = -1};

/* Register for the asymmetric fence; 1 when the kernel offers it. */
static int membarrier_register(void)
{
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    long need = MEMBARRIER_CMD_GLOBAL_EXPEDITED |
                MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED;
    return cmds >= 0 && (cmds & need) == need &&
           syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED,
                   0, 0) == 0;
}

dsm_status_t tp_lane_open(tp_lane_deliver_fn deliver)
{
    lane.deliver = deliver;
    lane.tx = calloc((size_t)tp.size, sizeof *lane.tx);
    lane.rx = calloc((size_t)tp.size, sizeof *lane.rx);
    lane.rx_peers = calloc((size_t)tp.size, sizeof *lane.rx_peers);
    if (!lane.tx || !lane.rx || !lane.rx_peers)
        return DSM_ERR_NOMEM;
    for (int r = 0; r < tp.size; r++) {
        lane.tx[r].bell_fd = -1;
        atomic_flag_clear(&lane.tx[r].lock);
        atomic_flag_clear(&lane.rx[r].busy);
    }
    lane.rx_count = 0;
    if (!dsm_config()->same_host_lanes)
        return DSM_OK;
    int fd = memfd_create("dsmomp-lanes", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)file_bytes(tp.size)) != 0) {
        dsm_debug("no same-host lanes: creating the lane file: %s",
                  strerror(errno));
        if (fd >= 0)
            close(fd);
        return DSM_OK;
    }
    void *mem = mmap(NULL, file_bytes(tp.size), PROT_READ | PROT_WRITE,
                     MAP_SHARED, fd, 0);
    if (mem == MAP_FAILED) {
        dsm_debug("no same-host lanes: mapping the lane file: %s",
                  strerror(errno));
        close(fd);
        return DSM_OK;
    }
    lane.fd = fd;
    lane.file = mem;
    lane.node = mem;
    lane.membarrier = dsm_config()->lane_membarrier && membarrier_register();
    lane.node->membarrier = (uint32_t)lane.membarrier;
    if (!lane.membarrier)
        dsm_debug("lane senders to this node fence after each record (no "
                  "membarrier(2) or DSM_LANE_MEMBARRIER=0)");
    return DSM_OK;
}

void tp_lane_identity(tp_record_t *mine)
{
    mine->lane_fd = lane.fd >= 0 ? (uint32_t)lane.fd : TP_WIRE_NO_FD;
    mine->bell_fd = lane.fd >= 0 && tp.wake_wr >= 0 ? (uint32_t)tp.wake_wr
                                                     : TP_WIRE_NO_FD;
}

static int open_peer_fd(const tp_record_t *peer, uint32_t fd, int flags)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/fd/%u", (unsigned)peer->pid,
             (unsigned)fd);
    return open(path, flags | O_CLOEXEC);
}

static lane_ring_t *ring_of(unsigned char *file, int sender)
{
    return (lane_ring_t *)(file + LANE_PAGE +
                           (uint64_t)sender * LANE_RING_STRIDE);
}

/* Map a ring's pages now, contents untouched (the other end may already
 * use it): its resident size then never grows while the job runs, as
 * for the published log.  Only the rings of same-host peers: a job's
 * file has one per node.  Without MADV_POPULATE_WRITE (Linux < 5.14)
 * they are mapped as the ring first goes round. */
static void populate_ring(lane_ring_t *ring)
{
#ifdef MADV_POPULATE_WRITE
    if (madvise(ring, LANE_RING_STRIDE, MADV_POPULATE_WRITE) != 0)
        dsm_debug("lane ring at %p not mapped ahead: %s", (void *)ring,
                  strerror(errno));
#else
    (void)ring;
#endif
}

void tp_lane_connect(int rank, const tp_record_t *peer,
                     const tp_record_t *mine)
{
    if (rank == tp.rank || lane.fd < 0 || !tp_same_host(peer, mine))
        return;
    /* the peer may send to us through our file if it maps it */
    if (peer->lane_fd != TP_WIRE_NO_FD) {
        lane_rx_t *rx = &lane.rx[rank];
        rx->ring = ring_of(lane.file, rank);
        rx->data = (unsigned char *)rx->ring + LANE_PAGE;
        populate_ring(rx->ring);
        lane.rx_peers[lane.rx_count++] = rank;
    }
    if (peer->lane_fd == TP_WIRE_NO_FD || peer->bell_fd == TP_WIRE_NO_FD)
        return;
    int fd = open_peer_fd(peer, peer->lane_fd, O_RDWR);
    if (fd < 0) {
        dsm_debug("node %d stays on UCX for messages: opening its lane "
                  "file: %s", rank, strerror(errno));
        return;
    }
    struct stat st;
    void *mem = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (uint64_t)st.st_size == file_bytes(tp.size))
        mem = mmap(NULL, file_bytes(tp.size), PROT_READ | PROT_WRITE,
                   MAP_SHARED, fd, 0);
    close(fd);
    if (mem == MAP_FAILED) {
        dsm_debug("node %d stays on UCX for messages: its lane file "
                  "cannot be mapped", rank);
        return;
    }
    /* read-write: this end then also counts as a reader, so a bell rung
     * after the peer died is a byte nobody reads, not a SIGPIPE that
     * would kill this node before the liveness check names the peer */
    int bell = open_peer_fd(peer, peer->bell_fd, O_RDWR | O_NONBLOCK);
    if (bell < 0) {
        dsm_debug("node %d stays on UCX for messages: opening its wake "
                  "pipe: %s", rank, strerror(errno));
        munmap(mem, file_bytes(tp.size));
        return;
    }
    dsm_sys_dump_exclude(mem, file_bytes(tp.size));   /* the peer's memory */
    lane_tx_t *tx = &lane.tx[rank];
    tx->file = mem;
    tx->peer_node = mem;
    tx->ring = ring_of(mem, tp.rank);
    tx->data = (unsigned char *)tx->ring + LANE_PAGE;
    populate_ring(tx->ring);
    tx->bell_fd = bell;
    tx->fence = !(lane.membarrier && tx->peer_node->membarrier == 1);
    tx->head = 0;
    tx->tail_seen = 0;
    dsm_debug("messages to node %d go through a same-host lane", rank);
}

void tp_lane_close(void)
{
    for (int r = 0; lane.tx && r < tp.size; r++) {
        if (lane.tx[r].file)
            munmap(lane.tx[r].file, file_bytes(tp.size));
        if (lane.tx[r].bell_fd >= 0)
            close(lane.tx[r].bell_fd);
    }
    for (int r = 0; lane.rx && r < tp.size; r++)
        if (lane.rx[r].frag)
            tp_msg_free(lane.rx[r].frag);
    if (lane.file)
        munmap(lane.file, file_bytes(tp.size));
    if (lane.fd >= 0)
        close(lane.fd);
    free(lane.tx);
    free(lane.rx);
    free(lane.rx_peers);
    lane.tx = NULL;
    lane.rx = NULL;
    lane.rx_peers = NULL;
    lane.rx_count = 0;
    lane.file = NULL;
    lane.node = NULL;
    lane.fd = -1;
}

int tp_lane_reaches(int rank)
{
    return lane.tx && lane.tx[rank].ring != NULL;
}

int dsm_tp_peer_on_lane(int rank)
{
    return tp.initialized && tp_check_rank(rank) == DSM_OK &&
           tp_lane_reaches(rank);
}

/* ---- sending ---------------------------------------------------------------- */

/* Bytes a record of payload len takes at position head, counting the WRAP
 * record it may need first. */
static uint64_t record_cost(uint64_t head, uint64_t len)
{
    uint64_t need = tp_lane_record_bytes(len);
    uint64_t left = LANE_DATA_BYTES - head % LANE_DATA_BYTES;
    return need <= left ? need : left + need;
}

static lane_rec_t *record_at(unsigned char *data, uint64_t pos)
{
    return (lane_rec_t *)(data + pos % LANE_DATA_BYTES);
}

/* Write one record at head (space checked by the caller), ready word
 * last; returns the new head.  The payload is the concatenation of up to
 * three pieces. */
static uint64_t write_record(lane_tx_t *tx, uint64_t head, unsigned id,
                             unsigned kind, const void *a, size_t a_len,
                             const void *b, size_t b_len, const void *c,
                             size_t c_len)
{
    uint64_t len = a_len + b_len + c_len;
    uint64_t need = tp_lane_record_bytes(len);
    uint64_t pos = head % LANE_DATA_BYTES;
    if (need > LANE_DATA_BYTES - pos) {
        lane_rec_t *wrap = record_at(tx->data, head);
        wrap->len = 0;
        wrap->id = 0;
        wrap->kind = TP_LANE_WRAP;
        wrap->pad = 0;
        atomic_store_explicit(&wrap->ready, head + 1, memory_order_release);
        head += LANE_DATA_BYTES - pos;
    }
    lane_rec_t *rec = record_at(tx->data, head);
    rec->len = (uint32_t)len;
    rec->id = (uint8_t)id;
    rec->kind = (uint8_t)kind;
    rec->pad = 0;
    unsigned char *p = (unsigned char *)rec + TP_LANE_HDR_BYTES;
    if (a_len)
        memcpy(p, a, a_len);
    if (b_len)
        memcpy(p + a_len, b, b_len);
    if (c_len)
        memcpy(p + a_len + b_len, c, c_len);
    atomic_store_explicit(&rec->ready, head + 1, memory_order_release);
    return head + need;
}

/* After a record: ring the receiver if it sleeps (see "Wake-up"). */
static void ring_if_asleep(lane_tx_t *tx, unsigned flags)
{
    if (flags & TP_LANE_LAZY)
        return;   /* the receiver polls for it soon: let it sleep */
    if (tx->fence)
        atomic_thread_fence(memory_order_seq_cst);
    else   /* the receiver's membarrier call is the other half */
        atomic_signal_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&tx->peer_node->sleeping, memory_order_relaxed)) {
        char byte = 1;
        ssize_t unused = write(tx->bell_fd, &byte, 1);   /* full: rung */
        (void)unused;
    }
}

/* Room for need bytes at head?  The tail the receiver last published is
 * read only when the one seen before does not leave room: the line it
 * lives on is the receiver's, and reading it costs a transfer. */
static int has_room(lane_tx_t *tx, uint64_t head, uint64_t need)
{
    if (LANE_DATA_BYTES - (head - tx->tail_seen) >= need)
        return 1;
    tx->tail_seen = atomic_load_explicit(&tx->ring->tail,
                                         memory_order_acquire);
    return LANE_DATA_BYTES - (head - tx->tail_seen) >= need;
}

/* A sender that waits for space keeps this node's own lanes and UCX
 * moving (the peer may be waiting for us to drain ours), and rings the
 * peer once so that a sleeping peer drains its ring. */
static void wait_for_space(lane_tx_t *tx, tp_wait_t *w, int *waiting,
                           int rank)
{
    if (!*waiting) {
        *waiting = 1;
        tp_wait_begin(w);
        char byte = 1;
        ssize_t unused = write(tx->bell_fd, &byte, 1);
        (void)unused;
    }
    tp_lane_poll();
    if (tp.worker)
        ucp_worker_progress(tp.worker);
    tp_wait_check(w, "room in the message lane to", rank);
}

static void lock_tx(lane_tx_t *tx, tp_wait_t *w, int *waiting, int rank)
{
    while (atomic_flag_test_and_set_explicit(&tx->lock,
                                             memory_order_acquire)) {
        if (!*waiting) {
            *waiting = 1;
            tp_wait_begin(w);
        }
        tp_lane_poll();
        tp_wait_check(w, "the message lane to", rank);
    }
}

dsm_status_t tp_lane_send(int rank, unsigned id, const void *hdr,
                          size_t hdr_len, const void *body, size_t body_len,
                          unsigned flags)
{
    lane_tx_t *tx = &lane.tx[rank];
    uint64_t total = (uint64_t)hdr_len + body_len;
    tp_wait_t w;
    int waiting = 0;
    if (!(flags & TP_LANE_MAY_WAIT)) {
        if (atomic_flag_test_and_set_explicit(&tx->lock,
                                              memory_order_acquire))
            return DSM_ERR_BUSY;
    } else {
        lock_tx(tx, &w, &waiting, rank);
    }
    uint64_t head = tx->head;
    dsm_status_t st = DSM_OK;
    if (total <= TP_LANE_MAX_PAYLOAD) {
        while (!has_room(tx, head, record_cost(head, total))) {
            if (!(flags & TP_LANE_MAY_WAIT)) {
                st = DSM_ERR_BUSY;
                goto out;
            }
            wait_for_space(tx, &w, &waiting, rank);
        }
        tx->head = write_record(tx, head, id, TP_LANE_WHOLE, hdr, hdr_len,
                                body, body_len, NULL, 0);
        goto out;
    }
    /* fragments need waiting: the caller queues it */
    if (!(flags & TP_LANE_MAY_WAIT)) {
        st = DSM_ERR_BUSY;
        goto out;
    }
    /* fragments: the concatenation hdr|body, cut into pieces */
    uint64_t sent = 0;
    while (sent < total) {
        uint64_t piece = total - sent;
        unsigned kind = sent == 0 ? TP_LANE_FIRST
                        : piece <= TP_LANE_MAX_PAYLOAD ? TP_LANE_LAST : TP_LANE_MORE;
        uint64_t prefix = kind == TP_LANE_FIRST ? sizeof total : 0;
        if (piece > TP_LANE_MAX_PAYLOAD - prefix)
            piece = TP_LANE_MAX_PAYLOAD - prefix;
        while (!has_room(tx, head, record_cost(head, prefix + piece)))
            wait_for_space(tx, &w, &waiting, rank);
        /* the piece [sent, sent+piece) of hdr|body */
        const unsigned char *h = hdr, *b = body;
        size_t in_hdr = sent < hdr_len ? hdr_len - sent : 0;
        if (in_hdr > piece)
            in_hdr = piece;
        size_t in_body = piece - in_hdr;
        size_t body_off = sent + in_hdr - hdr_len;
        head = write_record(tx, head, id, kind, prefix ? &total : NULL,
                            prefix, in_hdr ? h + sent : NULL, in_hdr,
                            in_body ? b + body_off : NULL, in_body);
        tx->head = head;
        /* a sleeping receiver must make room for the rest */
        ring_if_asleep(tx, flags);
        sent += piece;
    }
out:
    atomic_flag_clear_explicit(&tx->lock, memory_order_release);
    if (st == DSM_OK)
        ring_if_asleep(tx, flags);
    if (waiting)
        tp_wait_end(&w);
    return st;
}

/* ---- receiving -------------------------------------------------------------- */

static void lane_malformed(int src, const char *what)
{
    dsm_fatal("malformed message lane from node %d: %s", src, what);
}

/* One record at tail, whose ready word was read as ready; returns the
 * tail after it, and its kind as checked (the ring is the peer's to
 * write: it is not read again for that). */
static uint64_t take_record(int src, lane_rx_t *rx, uint64_t tail,
                            uint64_t ready, int *delivered, unsigned *kind)
{
    tp_lane_view_t rec;
    if (tp_wire_lane_record(rx->data, LANE_DATA_BYTES, tail, ready, &rec) !=
        DSM_OK)
        lane_malformed(src, "a record overruns the ring or is unknown");
    *kind = rec.kind;
    if (rec.kind == TP_LANE_WRAP)
        return rec.next;
    int whole;
    if (tp_wire_lane_step(&rx->asm_state, &rec, &whole) != DSM_OK)
        lane_malformed(src, "fragments out of order");
    if (rec.kind == TP_LANE_WHOLE) {
        /* the record's other lines: fetched together, not one by one as
         * the handler reaches them */
        for (uint64_t at = TP_LANE_LINE;
             at < rec.next - tail && at < 8 * TP_LANE_LINE; at += TP_LANE_LINE)
            __builtin_prefetch(rec.payload - TP_LANE_HDR_BYTES + at);
        lane.deliver(src, rec.id, rec.payload, rec.len);
        (*delivered)++;
        return rec.next;
    }
    const unsigned char *bytes = rec.payload;
    size_t n = rec.len, at = rx->asm_state.have - n;
    if (rec.kind == TP_LANE_FIRST) {
        bytes += sizeof(uint64_t);
        n -= sizeof(uint64_t);
        at = 0;
        rx->frag = tp_msg_alloc((size_t)rx->asm_state.total);
        if (!rx->frag)
            dsm_fatal("no memory for a %llu-byte message from node %d",
                      (unsigned long long)rx->asm_state.total, src);
    }
    memcpy(rx->frag->data + at, bytes, n);
    if (whole) {
        tp_msg_t *m = rx->frag;
        rx->frag = NULL;
        lane.deliver(src, rec.id, m->data, m->len);
        tp_msg_free(m);
        (*delivered)++;
    }
    return rec.next;
}

/* The record [tail, next) was consumed: zero the first word of its lines
 * (a WRAP wrote only its first; the lines after it were zero). */
static void clear_lines(lane_rx_t *rx, uint64_t tail, uint64_t next,
                        unsigned kind)
{
    if (kind == TP_LANE_WRAP)
        next = tail + TP_LANE_LINE;
    for (uint64_t at = tail; at != next; at += TP_LANE_LINE)
        __atomic_store_n((uint64_t *)(rx->data + at % LANE_DATA_BYTES), 0,
                         __ATOMIC_RELAXED);
}

static uint64_t ready_at(const lane_rx_t *rx, uint64_t tail, int order)
{
    return __atomic_load_n((const uint64_t *)(rx->data +
                                              tail % LANE_DATA_BYTES),
                           order);
}

int tp_lane_poll(void)
{
    int delivered = 0;
    for (int i = 0; i < lane.rx_count; i++) {
        int src = lane.rx_peers[i];
        lane_rx_t *rx = &lane.rx[src];
        uint64_t tail = atomic_load_explicit(&rx->ring->tail,
                                             memory_order_relaxed);
        if (ready_at(rx, tail, __ATOMIC_RELAXED) == 0)
            continue;
        if (atomic_flag_test_and_set_explicit(&rx->busy,
                                              memory_order_acquire))
            continue;   /* another thread is reading this ring */
        tail = atomic_load_explicit(&rx->ring->tail, memory_order_relaxed);
        /* at most one ring's worth per call: a fast sender must not keep
         * the caller here */
        uint64_t until = tail + LANE_DATA_BYTES, ready;
        while (tail < until &&
               (ready = ready_at(rx, tail, __ATOMIC_ACQUIRE)) != 0) {
            /* the handler used the record in place: free it afterwards */
            unsigned kind;
            uint64_t next = take_record(src, rx, tail, ready, &delivered,
                                        &kind);
            clear_lines(rx, tail, next, kind);
            tail = next;
            atomic_store_explicit(&rx->ring->tail, tail,
                                  memory_order_release);
        }
        atomic_flag_clear_explicit(&rx->busy, memory_order_release);
    }
    return delivered;
}

/* Is anything to read, or is a thread of ours reading?  A reader may be
 * between zeroing a record and publishing the tail after it, so the tail
 * is read only under the ring's busy flag. */
static int rings_pending(void)
{
    for (int i = 0; i < lane.rx_count; i++) {
        lane_rx_t *rx = &lane.rx[lane.rx_peers[i]];
        if (atomic_flag_test_and_set_explicit(&rx->busy,
                                              memory_order_acquire))
            return 1;
        uint64_t tail = atomic_load_explicit(&rx->ring->tail,
                                             memory_order_relaxed);
        int ready = ready_at(rx, tail, __ATOMIC_RELAXED) != 0;
        atomic_flag_clear_explicit(&rx->busy, memory_order_release);
        if (ready)
            return 1;
    }
    return 0;
}

static void lane_sleep_end(void);

/* The progress thread is about to sleep: ask senders to ring the wake
 * pipe.  Non-zero: records already wait (sleep_end done; do not sleep). */
static int lane_sleep_begin(void)
{
    if (!lane.node || lane.rx_count == 0)
        return 0;
    /* first without the fence: a ring being read or not empty means no
     * sleep, and no membarrier call (IPIs to every node's CPU) per look */
    if (rings_pending())
        return 1;
    atomic_store_explicit(&lane.node->sleeping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    /* the senders' half of the fence (see "Wake-up") */
    if (lane.membarrier &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) != 0)
        dsm_fatal("membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED): %s",
                  strerror(errno));
    if (rings_pending()) {
        lane_sleep_end();
        return 1;
    }
    return 0;
}

static void lane_sleep_end(void)
{
    if (lane.node)
        atomic_store_explicit(&lane.node->sleeping, 0, memory_order_relaxed);
}

/* ---- who shares this CPU ---------------------------------------------------- */

/* Publish the CPU a thread of this node polls on (-1: none). */
static void lane_waiting_on(int cpu)
{
    if (lane.node)
        atomic_store_explicit(&lane.node->waiting_cpu, cpu + 1,
                              memory_order_relaxed);
}

/* Does a peer on a lane publish cpu? */
static int lane_cpu_shared(int cpu)
{
    for (int r = 0; lane.tx && r < tp.size; r++)
        if (lane.tx[r].peer_node &&
            atomic_load_explicit(&lane.tx[r].peer_node->waiting_cpu,
                                 memory_order_relaxed) == cpu + 1)
            return 1;
    return 0;
}

const tp_source_t tp_lane_source = {
    .name = "same-host lanes",
    .poll = tp_lane_poll,
    .flags = TP_SOURCE_INBOUND,
    .sleep_begin = lane_sleep_begin,
    .sleep_end = lane_sleep_end,
    .waiting_on = lane_waiting_on,
    .cpu_shared = lane_cpu_shared,
};
