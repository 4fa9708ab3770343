/*
 * transport.h - the transport layer: everything UCX.
 *
 * Layer: transport (uses base and sys).  The only layer that includes
 * <ucp/api/ucp.h>; UCX status codes become dsm_status_t here.
 *
 * Entry points:
 *   dsm_tp_init / dsm_tp_finalize   wire-up of the job's nodes and shut-down
 *   dsm_tp_am_*                     active messages with registered handlers
 *   dsm_tp_get / dsm_tp_put         one-sided RMA on registered segments
 *   dsm_tp_get_batch                several gets in flight at once
 *   dsm_tp_get_many                 the same across several nodes
 *   dsm_tp_atomic_*                 remote atomics on registered segments
 *   dsm_tp_progress / dsm_tp_wait_* progress while a thread waits
 *
 * Threads: every call may be made from any application thread, from the
 * progress thread, and from the fault handler (the faulting thread is never
 * inside the transport when it faults, because the runtime only touches
 * sharable memory through its always-writable view).  Active-message
 * handlers run in whichever thread progresses the worker, one handler at a
 * time; they must not block, wait for a reply, or call dsm_tp_progress;
 * of the calls here they may use dsm_tp_am_send(v) (queued, and sent in
 * order once the progress call returns), dsm_tp_rank/size and
 * dsm_tp_counters_get; a blocking or RMA call from a handler ends the job.
 * Blocking calls wait by polling (they progress the worker themselves);
 * the progress thread serves the node while no thread is inside.
 *
 * Failure: a peer that disconnects or whose endpoint fails ends the job with
 * a message naming it (dsm_fatal), and so does a peer that sends no
 * heartbeat for DSM_TIMEOUT (a stopped process or an unreachable host).
 * Without a progress thread there are no heartbeats and DSM_TIMEOUT bounds
 * every wait instead.  Waits and gets are recorded on the activity board
 * (sys_activity.h), for dsmrun's report when a node dies.
 */
#ifndef TRANSPORT_H
#define TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "base_activity.h"   /* dsm_activity_about_t for dsm_tp_wait_flag_on */
#include "base_attr.h"
#include "dsm.h"

/* Registered memory segments: every node registers the same segments, so a
 * (rank, segment, offset) triple names remote memory. */
typedef enum dsm_tp_segment {
    DSM_TP_SEG_REGION  = 0,   /* the sharable region, runtime view */
    DSM_TP_SEG_CONTROL = 1,   /* per-node control words (locks, counters) */
    DSM_TP_SEG_COUNT
} dsm_tp_segment_t;

typedef struct dsm_tp_segments {
    void  *base[DSM_TP_SEG_COUNT];   /* local address of each segment */
    size_t size[DSM_TP_SEG_COUNT];
} dsm_tp_segments_t;

/* Wire up the job described by dsm_config(): rank 0 listens on the
 * rendezvous address (or the inherited DSM_RENDEZVOUS_FD), the others
 * connect and present the job token; connections with a wrong or missing
 * token are refused and wire-up goes on.  Registers the segments, exchanges
 * worker addresses and remote keys, connects every pair, and starts the
 * progress thread.  With DSM_SIZE=1 it needs no network. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_init(const dsm_tp_segments_t *segments);
/* Before dsm_tp_init: fd (a memfd holding the segment from offset 0) may be
 * mapped by peers on this host, whose gets and puts then need no help
 * from this node (tp_direct.c).  The descriptor must stay open. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_offer_mapping(dsm_tp_segment_t seg, int fd);
/* Did this node map that segment of rank (an offered one, same host)? */
int dsm_tp_peer_mapped(int rank, dsm_tp_segment_t seg);
/* Can rank's segment seg be mapped where this node chooses (a mapped
 * peer whose descriptor this node kept)? */
int dsm_tp_peer_viewable(int rank, dsm_tp_segment_t seg);
/* Map [offset, offset+len) of rank's viewable segment seg at addr
 * (page-aligned, MAP_FIXED over what is there): read-only and shared, so
 * loads read the peer's memory itself; or, with private_copy, writable
 * and copy-on-write.  DSM_ERR_INVALID: not viewable or out of range;
 * DSM_ERR_IO: mmap failed, and what was mapped at addr may be gone.  Any
 * thread, the fault handler included. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_map_peer_view(int rank, dsm_tp_segment_t seg,
                                  uint64_t offset, void *addr, size_t len,
                                  int private_copy);
/* Do messages to rank travel through a same-host lane (tp_lane.c)?  A
 * lane message costs tens of nanoseconds; through UCX over a network,
 * a send costs microseconds of the sender's time. */
int dsm_tp_peer_on_lane(int rank);
/* Does every node reach every word of seg with the CPU's atomics (a
 * one-host job whose nodes all map it; the same answer on every node)?
 * Otherwise dsm_tp_atomic_* on seg go through UCX. */
int dsm_tp_cpu_atomics(dsm_tp_segment_t seg);
/* Collective: waits until every node has called it, then tears down. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_finalize(void);

int dsm_tp_rank(void);
int dsm_tp_size(void);

/* ---- active messages ---------------------------------------------------
 * A handler receives the sender's rank and the payload; the payload is only
 * valid during the call.
 *
 * Message ids: each layer that registers handlers owns one range, stated
 * here and nowhere else (the message table of doc/design.md lists every
 * id).  A layer numbers its messages from its FIRST and checks at compile
 * time that they end by its LAST.  Id 0 is the transport's and never
 * registered. */
#define DSM_TP_AM_MAX_ID 64
typedef enum dsm_tp_am_range {
    DSM_TP_AM_COHERENCE,      /* coh_msg.h */
    DSM_TP_AM_FORKJOIN,       /* fj_internal.h */
    DSM_TP_AM_CLIENT,         /* tests and tools on the transport alone */
    DSM_TP_AM_RANGES
} dsm_tp_am_range_t;
#define DSM_TP_AM_COH_FIRST     1
#define DSM_TP_AM_COH_LAST      19
#define DSM_TP_AM_FJ_FIRST      20
#define DSM_TP_AM_FJ_LAST       39
#define DSM_TP_AM_CLIENT_FIRST  40
#define DSM_TP_AM_CLIENT_LAST   (DSM_TP_AM_MAX_ID - 1)
typedef void (*dsm_tp_am_handler_t)(int src, const void *payload,
                                    size_t len, void *arg);
/* Register before dsm_tp_init (ids are the same on every node), in the
 * caller's range.  DSM_ERR_INVALID (logged): the id is outside range or
 * handler is NULL; DSM_ERR_BUSY (logged): the id already has another
 * handler or arg (registering the same pair again is a no-op, so a node
 * may start the transport more than once); DSM_ERR_STATE: after init. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_am_register(dsm_tp_am_range_t range, unsigned id,
                                dsm_tp_am_handler_t handler, void *arg);
/* Send; returns when the payload buffer may be reused.  Delivery order
 * between one pair of nodes is the order of the sends.  dst may be the
 * calling rank (the handler then runs in a progress call). */
DSM_MUST_CHECK
dsm_status_t dsm_tp_am_send(int dst, unsigned id, const void *payload,
                            size_t len);
/* The same for a message the receiver will poll for soon (it waits for
 * it in the runtime): a same-host receiver whose threads all sleep is
 * not woken for it, so its computing threads keep their CPUs; its next
 * wait finds the message. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_am_send_lazy(int dst, unsigned id, const void *payload,
                                 size_t len);
/* Gather variant: header and body sent as one message. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_am_sendv(int dst, unsigned id, const void *hdr,
                             size_t hdr_len, const void *body,
                             size_t body_len);
/* Both: a lazy gather send. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_am_sendv_lazy(int dst, unsigned id, const void *hdr,
                                  size_t hdr_len, const void *body,
                                  size_t body_len);

/* ---- one-sided RMA -------------------------------------------------------
 * Blocking: returns when the data has arrived (get) or is visible at the
 * target (put).  The local buffer may be any memory. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_get(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        void *local, size_t len);
DSM_MUST_CHECK
dsm_status_t dsm_tp_put(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        const void *local, size_t len);
/* Several gets from one node, all in flight at once: returns when every
 * one has arrived (one round trip for the lot, not one each).  The first
 * failure is returned; the items after it may not have been read. */
typedef struct dsm_tp_get_item {
    uint64_t offset;
    void *local;
    size_t len;
} dsm_tp_get_item_t;
DSM_MUST_CHECK
dsm_status_t dsm_tp_get_batch(int rank, dsm_tp_segment_t seg,
                              const dsm_tp_get_item_t *items, size_t n);
/* Gets from several nodes, all in flight at once (one round trip for the
 * lot, the nodes' progress threads serving them in parallel); the items of
 * the calling node and of mapped peers are copies.  Gets of one call may
 * be served in any order: a caller that needs one read ordered after
 * another makes two calls.  The first failure is returned. */
typedef struct dsm_tp_get_any {
    int rank;
    uint64_t offset;
    void *local;
    size_t len;
} dsm_tp_get_any_t;
DSM_MUST_CHECK
dsm_status_t dsm_tp_get_many(dsm_tp_segment_t seg,
                             const dsm_tp_get_any_t *items, size_t n);
/* Non-blocking put: the buffer must stay valid until the same thread's
 * next dsm_tp_flush. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_put_nb(int rank, dsm_tp_segment_t seg, uint64_t offset,
                           const void *local, size_t len);
/* Complete the calling thread's non-blocking puts and every outstanding
 * operation to rank (-1: to every rank), remote completion included: the
 * data is visible at the target when it returns. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_flush(int rank);

/* ---- remote atomics (offset must be naturally aligned) ------------------ */
DSM_MUST_CHECK
dsm_status_t dsm_tp_atomic_fadd64(int rank, dsm_tp_segment_t seg,
                                  uint64_t offset, uint64_t add,
                                  uint64_t *old);
DSM_MUST_CHECK
dsm_status_t dsm_tp_atomic_fadd32(int rank, dsm_tp_segment_t seg,
                                  uint64_t offset, uint32_t add,
                                  uint32_t *old);
DSM_MUST_CHECK
dsm_status_t dsm_tp_atomic_swap64(int rank, dsm_tp_segment_t seg,
                                  uint64_t offset, uint64_t value,
                                  uint64_t *old);
DSM_MUST_CHECK
dsm_status_t dsm_tp_atomic_swap32(int rank, dsm_tp_segment_t seg,
                                  uint64_t offset, uint32_t value,
                                  uint32_t *old);
/* Compare-and-swap: *old receives the previous value; it succeeded when
 * *old == expected. */
DSM_MUST_CHECK
dsm_status_t dsm_tp_atomic_cswap64(int rank, dsm_tp_segment_t seg,
                                   uint64_t offset, uint64_t expected,
                                   uint64_t desired, uint64_t *old);
DSM_MUST_CHECK
dsm_status_t dsm_tp_atomic_cswap32(int rank, dsm_tp_segment_t seg,
                                   uint64_t offset, uint32_t expected,
                                   uint32_t desired, uint32_t *old);

/* ---- progress ------------------------------------------------------------ */
/* Progress the worker once (runs handlers); returns non-zero if anything
 * happened. */
int dsm_tp_progress(void);
/* Progress until *flag becomes non-zero (acquire load).  Ends with the job
 * when a peer fails; without a progress thread also after DSM_TIMEOUT, with
 * a message naming what was awaited. */
void dsm_tp_wait_flag(const volatile int *flag, const char *what);
/* The same, recorded on the activity board with the node awaited (-1:
 * none in particular) and what the wait is about (about: a
 * dsm_activity_about_t of base_activity.h, with its arg and arg2), for
 * the hang report. */
void dsm_tp_wait_flag_on(const volatile int *flag, const char *what,
                         int peer, unsigned about, uint64_t arg,
                         uint64_t arg2);
/* The same for at most ns nanoseconds: returns whether *flag was set. */
int dsm_tp_wait_flag_for(const volatile int *flag, const char *what,
                         uint64_t ns);
/* The calling node's threads are about to sleep until a message arrives
 * (none will poll): the progress thread, if parked, takes the worker over
 * at once, so the message wakes it rather than waiting for its next look
 * (up to milliseconds).  Costs a system call when it was parked. */
void dsm_tp_idle(void);
/* A thread that has polled for waited_ns: should it yield the CPU now?
 * Soon when a peer may need this very CPU (the job's threads on this host
 * outnumber its CPUs, or a same-host peer polls on it), else only after a
 * long wait.  Waits in the layers above that poll on their own ask it at
 * times (a few microseconds apart) and call dsm_tp_wait_done at the end. */
int dsm_tp_should_yield(uint64_t waited_ns);
void dsm_tp_wait_done(void);
/* A polling loop of a layer above (dsm_tp_progress until something
 * happens) counts as a waiting thread between these calls, as the waits
 * here do: the progress thread then leaves the worker to it.  polled_ns:
 * how long the loop polled (0 if not measured).  poll_end also does what
 * dsm_tp_wait_done does. */
void dsm_tp_poll_begin(void);
void dsm_tp_poll_end(uint64_t polled_ns);

/* Counters for statistics (messages and bytes sent by AM id, RMA, atomics). */
typedef struct dsm_tp_counters {
    uint64_t am_sent[DSM_TP_AM_MAX_ID];
    uint64_t am_bytes[DSM_TP_AM_MAX_ID];
    uint64_t gets, get_bytes, puts, put_bytes, atomics;
} dsm_tp_counters_t;
void dsm_tp_counters_get(dsm_tp_counters_t *out);

#endif
