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
 * possible sender (lane_ring_t: head and tail on cache lines of their own,
 * then LANE_DATA_BYTES of records).  A sender on the same host (same boot
 * id and network namespace, as for tp_direct.c) maps the receiver's file
 * through /proc/<pid>/fd and writes its records into its own ring; the
 * receiver reads them from its own mapping.  One ring per ordered pair of
 * nodes, so each ring has one producing process and one consuming one.
 *
 * Records are 8-byte aligned: an 8-byte header (payload length, message
 * id, kind) and the payload, padded.  A message that does not fit before
 * the end of the ring is preceded by a WRAP record and starts again at the
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
 * sets its "sleeping" word and looks at its rings once more; a sender
 * that published a record and then sees the word set writes one byte to
 * the receiver's wake pipe (opened through /proc like the file; an
 * eventfd cannot be opened that way).  Sequentially consistent fences on
 * both sides: either the sender sees the word, or the receiver sees the
 * record.  While the receiver's application threads poll (and the
 * progress thread is parked), nobody sleeps, no system call is made.
 *
 * The header page also says on which CPU a thread of the node polls, so
 * that a waiting thread can tell whether a peer it waits for may need its
 * very CPU (tp_progress.c, when to yield).
 *
 * A dead peer: its mapping stays valid, records to it are never read, and
 * the liveness sockets end the job (tp_liveness.c); a sender waiting for
 * space checks the job's liveness like any wait (tp_wait_check).
 *
 * Layer: transport.  Entry points (tp_internal.h): tp_lane_open and
 * tp_lane_identity (wire-up, before the exchange), tp_lane_connect (per
 * peer, after it), tp_lane_close (finalize); tp_lane_reaches and
 * tp_lane_send (any thread, the fault handler and handlers included: a
 * handler only tries, never waits); tp_lane_poll (every progress call);
 * tp_lane_sleep_begin/end (the progress thread); tp_lane_waiting_on and
 * tp_lane_cpu_shared (waits, tp_progress.c).  No malloc after open.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base_config.h"
#include "base_log.h"
#include "sys_dump.h"
#include "tp_internal.h"

#define LANE_DATA_BYTES ((uint64_t)256 << 10)
#define LANE_PAGE 4096u

/* Two cache lines: senders read "sleeping" after every record, so the
 * node's own frequent stores to waiting_cpu must not share its line. */
typedef struct lane_node {
    _Atomic uint32_t sleeping;   /* the receiver wants a wake-up byte */
    char pad[60];
    _Atomic int32_t waiting_cpu; /* CPU a thread of the node polls on, +1;
                                    0: none polls */
} lane_node_t;

typedef struct lane_ring {
    _Atomic uint64_t head;       /* bytes published by the sender */
    char pad0[56];
    _Atomic uint64_t tail;       /* bytes consumed by the receiver */
    char pad1[56];
} lane_ring_t;

/* ring r of a file: after the header page, at a page boundary each */
#define LANE_RING_STRIDE (LANE_PAGE + LANE_DATA_BYTES)
static uint64_t file_bytes(int size)
{
    return LANE_PAGE + (uint64_t)size * LANE_RING_STRIDE;
}

/* the record header (tp_internal.h, "Same-host lane records") */
typedef struct lane_rec {
    uint32_t len;                /* payload bytes */
    uint8_t id;
    uint8_t kind;
    uint16_t pad;
} lane_rec_t;
_Static_assert(sizeof(lane_rec_t) == TP_LANE_HDR_BYTES, "record header");
_Static_assert(DSM_TP_AM_MAX_ID <= 256, "ids fit the record's byte");

typedef struct lane_tx {         /* this node -> peer */
    lane_ring_t *ring;           /* NULL: the peer is not on a lane */
    unsigned char *data;
    lane_node_t *peer_node;
    int bell_fd;                 /* the peer's wake pipe, write end */
    atomic_flag lock;
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
} lane = {.fd = -1};

static uint64_t round8(uint64_t n) { return (n + 7u) & ~(uint64_t)7u; }

dsm_status_t tp_lane_open(void)
{
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
    tx->bell_fd = bell;
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
    uint64_t need = TP_LANE_HDR_BYTES + round8(len);
    uint64_t left = LANE_DATA_BYTES - head % LANE_DATA_BYTES;
    return need <= left ? need : left + need;
}

/* Write one record at head (space checked by the caller); returns the new
 * head.  The payload is the concatenation of up to three pieces. */
static uint64_t write_record(lane_tx_t *tx, uint64_t head, unsigned id,
                             unsigned kind, const void *a, size_t a_len,
                             const void *b, size_t b_len, const void *c,
                             size_t c_len)
{
    uint64_t len = a_len + b_len + c_len;
    uint64_t need = TP_LANE_HDR_BYTES + round8(len);
    uint64_t pos = head % LANE_DATA_BYTES;
    if (need > LANE_DATA_BYTES - pos) {
        lane_rec_t wrap = {0, 0, TP_LANE_WRAP, 0};
        memcpy(tx->data + pos, &wrap, sizeof wrap);
        head += LANE_DATA_BYTES - pos;
        pos = 0;
    }
    lane_rec_t rec = {(uint32_t)len, (uint8_t)id, (uint8_t)kind, 0};
    unsigned char *p = tx->data + pos;
    memcpy(p, &rec, sizeof rec);
    p += sizeof rec;
    if (a_len)
        memcpy(p, a, a_len);
    if (b_len)
        memcpy(p + a_len, b, b_len);
    if (c_len)
        memcpy(p + a_len + b_len, c, c_len);
    return head + need;
}

static void publish(lane_tx_t *tx, uint64_t head)
{
    atomic_store_explicit(&tx->ring->head, head, memory_order_release);
    if (tp_send_lazy)
        return;   /* the receiver polls for it soon: let it sleep */
    /* paired with the receiver's fence between setting "sleeping" and
     * looking at its rings: one of the two sees the other's store */
    atomic_thread_fence(memory_order_seq_cst);
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
                          int may_wait)
{
    lane_tx_t *tx = &lane.tx[rank];
    uint64_t total = (uint64_t)hdr_len + body_len;
    tp_wait_t w;
    int waiting = 0;
    if (!may_wait) {
        if (atomic_flag_test_and_set_explicit(&tx->lock,
                                              memory_order_acquire))
            return DSM_ERR_BUSY;
    } else {
        lock_tx(tx, &w, &waiting, rank);
    }
    uint64_t head = atomic_load_explicit(&tx->ring->head,
                                         memory_order_relaxed);
    dsm_status_t st = DSM_OK;
    if (total <= TP_LANE_MAX_PAYLOAD) {
        while (!has_room(tx, head, record_cost(head, total))) {
            if (!may_wait) {
                st = DSM_ERR_BUSY;
                goto out;
            }
            wait_for_space(tx, &w, &waiting, rank);
        }
        head = write_record(tx, head, id, TP_LANE_WHOLE, hdr, hdr_len, body,
                            body_len, NULL, 0);
        publish(tx, head);
        goto out;
    }
    if (!may_wait) {   /* fragments need waiting: the caller queues it */
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
        publish(tx, head);
        sent += piece;
    }
out:
    atomic_flag_clear_explicit(&tx->lock, memory_order_release);
    if (waiting)
        tp_wait_end(&w);
    return st;
}

/* ---- receiving -------------------------------------------------------------- */

static void lane_malformed(int src, const char *what)
{
    dsm_fatal("malformed message lane from node %d: %s", src, what);
}

/* One record at tail; returns the tail after it. */
static uint64_t take_record(int src, lane_rx_t *rx, uint64_t tail,
                            uint64_t head, int *delivered)
{
    tp_lane_view_t rec;
    if (tp_wire_lane_record(rx->data, LANE_DATA_BYTES, tail, head, &rec) !=
        DSM_OK)
        lane_malformed(src, "a record overruns the ring or is unknown");
    if (rec.kind == TP_LANE_WRAP)
        return rec.next;
    int whole;
    if (tp_wire_lane_step(&rx->asm_state, &rec, &whole) != DSM_OK)
        lane_malformed(src, "fragments out of order");
    if (rec.kind == TP_LANE_WHOLE) {
        tp_am_dispatch(src, rec.id, rec.payload, rec.len);
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
        tp_am_dispatch(src, rec.id, m->data, m->len);
        tp_msg_free(m);
        (*delivered)++;
    }
    return rec.next;
}

int tp_lane_poll(void)
{
    int delivered = 0;
    for (int i = 0; i < lane.rx_count; i++) {
        int src = lane.rx_peers[i];
        lane_rx_t *rx = &lane.rx[src];
        uint64_t tail = atomic_load_explicit(&rx->ring->tail,
                                             memory_order_relaxed);
        if (atomic_load_explicit(&rx->ring->head, memory_order_relaxed) ==
            tail)
            continue;
        if (atomic_flag_test_and_set_explicit(&rx->busy,
                                              memory_order_acquire))
            continue;   /* another thread is reading this ring */
        tail = atomic_load_explicit(&rx->ring->tail, memory_order_relaxed);
        uint64_t head = atomic_load_explicit(&rx->ring->head,
                                             memory_order_acquire);
        if (head - tail > LANE_DATA_BYTES)
            lane_malformed(src, "its head is out of range");
        while (tail != head) {
            /* the handler used the record in place: free it afterwards */
            tail = take_record(src, rx, tail, head, &delivered);
            atomic_store_explicit(&rx->ring->tail, tail,
                                  memory_order_release);
        }
        atomic_flag_clear_explicit(&rx->busy, memory_order_release);
    }
    return delivered;
}

int tp_lane_sleep_begin(void)
{
    if (!lane.node || lane.rx_count == 0)
        return 0;
    atomic_store_explicit(&lane.node->sleeping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < lane.rx_count; i++) {
        const lane_ring_t *ring = lane.rx[lane.rx_peers[i]].ring;
        if (atomic_load_explicit(&ring->head, memory_order_relaxed) !=
            atomic_load_explicit(&ring->tail, memory_order_relaxed)) {
            tp_lane_sleep_end();
            return 1;
        }
    }
    return 0;
}

void tp_lane_sleep_end(void)
{
    if (lane.node)
        atomic_store_explicit(&lane.node->sleeping, 0, memory_order_relaxed);
}

/* ---- who shares this CPU ---------------------------------------------------- */

void tp_lane_waiting_on(int cpu)
{
    if (lane.node)
        atomic_store_explicit(&lane.node->waiting_cpu, cpu + 1,
                              memory_order_relaxed);
}

int tp_lane_cpu_shared(int cpu)
{
    for (int r = 0; lane.tx && r < tp.size; r++)
        if (lane.tx[r].peer_node &&
            atomic_load_explicit(&lane.tx[r].peer_node->waiting_cpu,
                                 memory_order_relaxed) == cpu + 1)
            return 1;
    return 0;
}
