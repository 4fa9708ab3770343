/*
 * coh_protocol.h - internal entry points shared by the coherence modules:
 * intervals (release, write notices, invalidation), the published interval
 * log, and the registration of each module's message handlers.
 *
 * Layer: coherence (internal).  Functions marked "protocol mutex" must be
 * called with coh_protocol_lock held; they are never called from the fault
 * handler.
 */
#ifndef COH_PROTOCOL_H
#define COH_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "coh_msg.h"
#include "coh_state.h"
#include "dsm.h"
#include "transport.h"

/* The published log of this node's intervals lives in the CONTROL transport
 * segment so that other nodes can read it with one-sided gets.  A get is
 * a copy in any order of the words it covers (a memcpy at the target, an
 * RDMA read, a copy from a mapping), each aligned 8-byte word read whole:
 * so every word a reader decides on carries the number of the interval it
 * belongs to, and a reader never needs two words of one get to be from
 * the same moment (design.md, "Flush: an acquire from every node"). */
#define COH_LOG_INTERVALS 16384u
#define COH_LOG_RANGES    (1u << 19)

/* seq << 32 | low 32 bits of (first + count): interval seq's ranges end
 * there in the range ring and begin where interval seq - 1's end. */
typedef uint64_t coh_log_header_t;
#define COH_LOG_WORD(seq, low) (((uint64_t)(seq) << 32) | (uint32_t)(low))
#define COH_LOG_SEQ(word)      ((uint32_t)((word) >> 32))
#define COH_LOG_LOW(word)      ((uint32_t)(word))

/* One range of the ring, both words stamped with the interval's number,
 * so a range read after it was overwritten is recognised. */
typedef struct coh_log_range {
    uint64_t first;      /* COH_LOG_WORD(seq, first page) */
    uint64_t count;      /* COH_LOG_WORD(seq, pages) */
} coh_log_range_t;

/* The near rings: the last COH_NEAR_HEADERS headers and COH_NEAR_RANGES
 * ranges again, in small rings (slot = number mod size) right before the
 * stamps, written with the big rings and before the stamps: a flush
 * reads them and the stamps in one get per node (a reader less than 16
 * intervals behind finds there what it lacks; any word whose number does
 * not match is read from the big rings in a later round). */
#define COH_NEAR_HEADERS 16u
#define COH_NEAR_RANGES  32u

typedef struct coh_log {
    _Atomic uint64_t ranges_total;       /* ranges ever written (own use) */
    uint64_t pad[7];
    _Atomic uint64_t near_iv[COH_NEAR_HEADERS];  /* iv[s] at s mod 16 */
    coh_log_range_t near_ranges[COH_NEAR_RANGES];
    /* stamp[k] = COH_LOG_WORD(s, vc[k] at interval s), written after
     * interval s's header and ranges, for every k (vc[self] = s): a
     * reader takes the smallest s of the words it read as the head and
     * each word's vc[k] as a bound of what that head depends on */
    _Atomic uint64_t stamp[COH_MAX_NODES];
    _Atomic uint64_t iv[COH_LOG_INTERVALS];    /* coh_log_header_t */
    coh_log_range_t ranges[COH_LOG_RANGES];
} coh_log_t;

/* Serialises releases and acquires of this node (application threads). */
void coh_protocol_lock(void);
void coh_protocol_unlock(void);

/* Close the open interval: write-protect the pages written in it, put the
 * diffs of non-home pages to their homes, wait for remote completion, and
 * log the interval.  Returns the interval's number, 0 when nothing was
 * written.  quiescent: no other thread of the node writes sharable memory
 * until the release returns (a fork's hand-off under the promise of
 * dsm_barrier_quiescent), so eager non-home pages may stay writable.
 * Protocol mutex. */
uint32_t coh_release(int quiescent);
/* The same, followed by an arrival at a barrier or join on node 0: diffs
 * to node 0 are not waited for, because node 0 applies them, in their
 * handler, before it takes the arrival sent after them on the same pair
 * of nodes (messages of one pair arrive and run in order), and so before
 * any departure; diffs to other homes are.  quiescent as above. */
uint32_t coh_release_before_arrival(int quiescent);
/* After coh_release_before_arrival on a node other than 0, at once: send
 * the arrival (len bytes) to node 0, lazily, in one message with the
 * release's last diffs to node 0 if it kept them back. */
void coh_send_arrival(const void *arrival, size_t len);
/* Node 0: an arrival that came after diffs in a DIFF message. */
void coh_barrier_arrival(int src, const void *msg, size_t len);
/* Whether the node promised that no thread writes sharable memory during
 * its barriers (dsm_barrier_quiescent): then the releases of barriers,
 * joins and fork hand-offs may leave eager non-home pages writable. */
int coh_barriers_quiescent(void);

/* Invalidate the non-home pages of the given ranges (notices from another
 * node); pages this node wrote in its open interval are first published.
 * Protocol mutex. */
void coh_invalidate_ranges(const coh_range_t *ranges, size_t n);
/* Invalidate every valid non-home page (notices were lost). */
void coh_invalidate_all(void);
/* The same as coh_invalidate_ranges, except that pages this node uses in
 * every epoch (re-fetched after their last invalidation), valid and clean
 * here, whose home is a mapped same-host peer, and eager non-home pages
 * (any home), are refreshed from the home and stay valid (coh_refresh.c).
 * Only where every other application thread of the node waits: a barrier
 * departure, a fork import; lock grants invalidate.  Protocol mutex. */
void coh_refresh_ranges(const coh_range_t *ranges, size_t n);

/* Refresh bookkeeping (coh_refresh.c).  coh_refresh_fetched: the fault
 * handler fetched [index, index+n) (their locks held).  The others are
 * for the invalidation of an acquire, the chunk's page locks held:
 * coh_refresh_dropped, a notice dropped the page's copy;
 * coh_refresh_select marks PF_REFRESH on the pages of [first, first+n) to
 * refresh and returns how many; coh_refresh_hold keeps the marked pages'
 * locks (the others are released) and lists them; coh_refresh_finish
 * copies the homes' pages into every held page (one batch of gets per
 * home), clears the marks and unlocks them; coh_refresh_must_finish says
 * whether held pages must be finished before [first, first+n) is locked
 * (lock stripes, list size).  Held pages ascend: callers pass sorted,
 * disjoint ranges. */
dsm_status_t coh_refresh_setup(void);
void coh_refresh_fetched(size_t index, size_t n);
void coh_refresh_dropped(size_t index);
size_t coh_refresh_select(size_t first, size_t n);
void coh_refresh_hold(size_t first, size_t n);
int coh_refresh_must_finish(size_t first, size_t n);
void coh_refresh_finish(void);

/* The acquire side (coh_acquire.c), protocol mutex held:
 * coh_acquire_records applies pushed write-notice records (a departure,
 * a handoff; coh_wire.h layout), skipping those already held, by
 * refreshing (refresh: where every other thread of the node waits) or
 * invalidating; the caller then merges the sender's vector time with
 * coh_acquire_vc.  coh_acquire_upto pulls from their creators' logs the
 * intervals up to target[] (a vector time: a lock's, say) and advances
 * the vector time to it.  coh_acquire_all does it for every interval any
 * node has published (a flush). */
dsm_status_t coh_acquire_setup(void);
void coh_acquire_records(const unsigned char *records, uint32_t nrecords,
                         int refresh);
void coh_acquire_vc(const uint32_t *vc);
void coh_acquire_upto(const uint32_t *target);
void coh_acquire_all(void);

/* Own log access: interval seq's first index in the range ring and its
 * number of ranges; 0 when it was overwritten.  coh_log_range: the range
 * at an index given so. */
int coh_log_ranges(uint32_t seq, uint64_t *first, size_t *n);
coh_range_t coh_log_range(uint64_t index);
/* This node's intervals since the last barrier as write-notice records
 * (coh_wire.h layout) in out, at most cap bytes: returns the bytes used
 * and *nrecords; with *overflow set (they do not fit, or the log lost
 * one) it writes none. */
size_t coh_own_records(void *out, size_t cap, uint32_t *nrecords,
                       int *overflow);

/* End direct reads (coh_fault.c) of the pages of [first, first+n).
 * Without keep, our own memory is mapped back under them, INVALID
 * (PROT_NONE).  With keep (dsm_finalize: the job is over), they go on
 * showing their home's contents as node-local, writable memory.  Callers
 * hold the pages' locks, or no other thread touches sharable memory. */
void coh_direct_end(size_t first, size_t n, int keep);

/* Bulk prefetch learned per program point (coh_prefetch.c).  note: the
 * fault handler fetched page index on demand.  epoch: an epoch labelled
 * label (0: none) begins on this node, after its acquire (barrier end,
 * fork import) or at a fork's export or a join; protocol mutex held,
 * other application threads quiet.  pending: the label the fork-join
 * layer gave for the next epoch (dsm_coh_epoch_next); current: the
 * running epoch's (both kept with DSM_PREFETCH=0 too). */
dsm_status_t coh_prefetch_setup(void);
void coh_prefetch_note(size_t index);
void coh_prefetch_epoch(uintptr_t label);
uintptr_t coh_prefetch_pending(void);
uintptr_t coh_prefetch_current(void);

/* Wanted pages (coh_want.c): coh_want_note, the fault handler: a page a
 * notice dropped was fetched again.  coh_want_take: the noted pages as
 * ranges, for an arrival (at most cap), each tagged with the program point
 * where it is read (the running epoch's label; wanted everywhere when
 * coh_want_dropped, an acquire's invalidation, last dropped it outside a
 * labelled acquire).  coh_want_grant: those of the ranges' pages homed
 * here get a budget of pushes at the program points tagged;
 * coh_want_wanted says whether a page has some left and is wanted at the
 * epoch this build begins (the pending label; any_point: wherever it is
 * wanted), coh_want_any whether it has some left at all, coh_want_spend
 * takes one (1) or says there is none (0).
 * Node 0: coh_want_relay notes the wants of nodes other than 0 for pages
 * other homes push (forwarded to them in the departure),
 * coh_want_relay_spend takes one forward. */
dsm_status_t coh_want_setup(void);
void coh_want_note(size_t index);
void coh_want_dropped(size_t index);
uint32_t coh_want_take(coh_range_t *out, uint32_t cap);
void coh_want_grant(const unsigned char *ranges, uint32_t n);
int coh_want_wanted(size_t index, int any_point);
int coh_want_any(size_t index);
int coh_want_spend(size_t index);
void coh_want_relay(const unsigned char *ranges, uint32_t n);
int coh_want_relay_spend(size_t index);

/* Pushed updates (coh_push.c; design.md, "Pushed updates").  Node 0:
 * coh_push_build appends to a departure or a fork's hand-off being built
 * (at most cap bytes) the small changes of its shared home pages that the
 * records name, its wanted pages whole, and (a departure) the whole pages
 * other homes pushed at their arrivals (arrivals[src], arrival_len[src];
 * NULL at a fork) that no other node wrote; returns the bytes; kind says
 * which message (a fork's pages left out are pushed whole at the region's
 * first barrier).  Other nodes, at their arrival (join: a one-way
 * join's): coh_push_arrival appends, whole, the wanted pages they home
 * that changed since they last sent them (their records of this epoch
 * name them, or an earlier build left them out).
 * Every node, for every push event (departure or fork, in the order node
 * 0 built them): coh_push_begin before the event's acquire,
 * coh_push_apply its pushed bytes (checked, coh_wire_depart /
 * coh_wire_handoff) to the copies that take them (node 0 then
 * coh_push_apply_local: the arrivals' pages its last build kept for its
 * own copies), coh_push_kept tells the invalidation which it must keep,
 * coh_push_end after.
 * coh_push_installed: a get filled the pages' copies, or this node wrote
 * one (any thread, the fault handler included; page locks held).
 * coh_push_home_moved: a home move took the page. */
enum { COH_PUSH_BARRIER, COH_PUSH_JOIN, COH_PUSH_FORK };
dsm_status_t coh_push_setup(void);
size_t coh_push_build(const char *records, size_t records_len,
                      uint32_t nrecords, int kind,
                      const unsigned char *const *arrivals,
                      const size_t *arrival_len, char *out, size_t cap);
size_t coh_push_arrival(const char *records, uint32_t nrecords, int join,
                        char *out, size_t cap);
void coh_push_begin(void);
void coh_push_apply(const unsigned char *push, size_t len);
void coh_push_apply_local(void);
int coh_push_kept(size_t index);
void coh_push_end(void);
void coh_push_installed(size_t first, size_t n);
void coh_push_home_moved(size_t index);

/* Handler registration, before dsm_tp_init, in coherence's id range. */
static inline dsm_status_t coh_am_register(unsigned id,
                                           dsm_tp_am_handler_t handler)
{
    return dsm_tp_am_register(DSM_TP_AM_COHERENCE, id, handler, NULL);
}
dsm_status_t coh_fault_register_handlers(void);
dsm_status_t coh_interval_register_handlers(void);
dsm_status_t coh_barrier_register_handlers(void);
dsm_status_t coh_lock_register_handlers(void);
dsm_status_t coh_heap_register_handlers(void);
dsm_status_t coh_migrate_register_handlers(void);
dsm_status_t coh_atomic_register_handlers(void);

/* Module set-up after the windows exist, and shut-down. */
dsm_status_t coh_interval_setup(void);
dsm_status_t coh_barrier_setup(void);
dsm_status_t coh_lock_setup(void);
dsm_status_t coh_heap_setup(void);
/* Of max pages from page index (homed here), how many belong to the heap
 * block holding it: a share request registers no further (read-ahead
 * would otherwise make the home track writes to the next array).  max for
 * pages outside this node's arena.  Handlers and application threads. */
size_t coh_heap_block_pages(size_t index, size_t max);
/* The node whose arena holds page index, or -1 (globals, the stack).  Any
 * thread, the fault handler included. */
int coh_heap_arena_of(size_t index);
dsm_status_t coh_migrate_setup(void);

/* The fault handler (installed through sys_fault). */
int coh_fault_handler(uintptr_t addr, int access);

/* Home migration (coh_migrate.c).  Node 0: decide the home moves of a
 * barrier from the records it gathered (the departure's record section),
 * at most max_moves (join: the barrier ends a parallel region); *out
 * points at them, valid until the next call.  Every node: apply
 * the moves of a departure (packed coh_migration_t) and wait until every
 * node has.  Protocol mutex. */
size_t coh_migrate_plan(const char *records, size_t len, uint32_t nrecords,
                        size_t max_moves, int join,
                        const coh_migration_t **out);
void coh_migrate_apply(const char *list, size_t n);

/* The global part of a barrier: one thread per node; a node other than 0
 * may attach extra bytes to its arrival (dsm_coh_barrier_with). */
void coh_barrier_global(const void *extra, size_t extra_len);

/* One-way joins (coh_barrier.c), protocol mutex held: before any other
 * global step, node 0 sends a departure it holds and the other nodes wait
 * for and apply one they are due. */
void coh_join_finish(void);
/* Node 0: copy a held departure into out if it fits in cap bytes (then it
 * is no longer held; returns its length), else send it (returns 0).
 * Other nodes: finish with the departure given (len > 0) instead of
 * waiting for one. */
size_t coh_join_embed(void *out, size_t cap);
void coh_join_finish_with(const void *departure, size_t len);

/* mmap helper for runtime tables (zeroed, MAP_NORESERVE). */
void *coh_table_alloc(size_t bytes);

/* Runs of pages of one home fetched into the runtime view with their
 * gets in flight together (dsm_tp_get_batch): runs are added in order and
 * fetched when the home changes, the batch is full, or at the flush.
 * `fetched` (may be NULL) is called for each run once it has arrived.
 * Application threads, protocol mutex held (the prefetch, the refresh). */
#define COH_RUNS_AT_ONCE 64
typedef struct coh_runs {
    const char *what;                     /* for the fatal message */
    void (*fetched)(size_t first, size_t n);
    int home;
    size_t n;
    size_t first[COH_RUNS_AT_ONCE], count[COH_RUNS_AT_ONCE];
    dsm_tp_get_item_t items[COH_RUNS_AT_ONCE];
} coh_runs_t;
void coh_runs_add(coh_runs_t *b, size_t first, size_t n, int home);
void coh_runs_flush(coh_runs_t *b);

#endif
