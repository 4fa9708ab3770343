/*
 * coherence.h - what the coherence layer offers the layers above it
 * (fork-join, compiler shim) beyond the public dsm.h.
 *
 * Layer: coherence (interface for forkjoin and compiler-shim).
 *   dsm_coh_init              start-up with extra sharable windows (the
 *                             program's globals) and a sharable main stack
 *   dsm_coh_main_stack        the sharable stack node 0 runs main on
 *   dsm_coh_control_reserve   words at the same offset in every node's
 *                             CONTROL transport segment (remote atomics)
 *   dsm_coh_lock_named        a cluster-wide lock derived from a key that is
 *                             the same on every node (e.g. the address of a
 *                             critical section's name variable)
 *   dsm_coh_handoff_export/import   a one-way release/acquire carried in
 *                             the caller's own message (a fork)
 *   dsm_coh_join/join_settle  a barrier whose departure waits for the next
 *                             handoff (the end of a parallel region)
 * Called from the main thread at start-up (init, reserve) or from any
 * application thread (the rest); never from the fault handler.
 */
#ifndef COHERENCE_H
#define COHERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "base_attr.h"
#include "dsm.h"

#define DSM_COH_MAX_ADOPT 8

typedef struct dsm_coh_init_args {
    /* existing memory to make sharable (page-aligned): node 0's contents
     * become the cluster-wide contents; homed at node 0 */
    struct { uintptr_t base; size_t len; } adopt[DSM_COH_MAX_ADOPT];
    int nadopt;
    /* bytes of sharable stack for node 0's main (0: none); homed at node 0,
     * carved from the sharable region */
    size_t main_stack_bytes;
} dsm_coh_init_args_t;

DSM_MUST_CHECK
dsm_status_t dsm_coh_init(const dsm_coh_init_args_t *args);
/* The sharable heap before the node joins the job: creates the space
 * dsm_coh_init would (args are the same and must be repeated to it) and
 * this node's arena, without any peer, so dsm_malloc and dsm_free serve
 * blocks of this node's arena from now on (nothing else works until
 * dsm_coh_init).  Blocks allocated now stay valid: their pages are this
 * node's, the node is their home.  DSM_ERR_STATE when called twice or
 * after dsm_coh_init. */
dsm_status_t dsm_coh_heap_early(const dsm_coh_init_args_t *args);
/* The counterpart of dsm_coh_init (collective).  After dsm_coh_init the
 * public dsm_init and dsm_finalize are no-ops: the runtime that started
 * the node also ends it. */
DSM_MUST_CHECK
dsm_status_t dsm_coh_finalize(void);

/* The main stack reserved by dsm_coh_init: [*lo, *lo + *len). */
void dsm_coh_main_stack(void **lo, size_t *len);

/* Reserve bytes (rounded up to 64) in the CONTROL segment: call before
 * dsm_coh_init, in the same order on every node, so the offset is the same
 * everywhere.  The memory is zeroed; *local is this node's copy. */
DSM_MUST_CHECK
dsm_status_t dsm_coh_control_reserve(size_t bytes, uint64_t *offset,
                                     void **local);

/* What dsm_coh_sync does: RELEASE closes this node's interval (its writes
 * reach their homes, its notice is published); ACQUIRE reads the notices
 * every node has published and drops the copies they make stale.  Both
 * together are a flush (dsm_flush, OpenMP's flush without a list). */
#define DSM_COH_RELEASE 1u
#define DSM_COH_ACQUIRE 2u
DSM_MUST_CHECK
dsm_status_t dsm_coh_sync(unsigned what);

/* The program point where this node's next epoch begins (the barrier
 * construct, a parallel region's microtask): pages fetched on demand in
 * an epoch are fetched in bulk when an epoch of the same label begins
 * again (coh_prefetch.c).  Called before the barrier, fork or join that
 * ends the current epoch; 0 (the default after each use) learns nothing. */
void dsm_coh_epoch_next(uintptr_t label);

/* A lock handle for a key (an address: below 2^63); the same key gives
 * the same lock on every node, distinct keys distinct locks (the manager
 * keeps the full key: coh_lock.c). */
dsm_lock_t dsm_coh_lock_named(uint64_t key);

/* Cluster-wide atomic operations on sharable memory (what `#pragma omp
 * atomic` becomes through the compiler shim).  addr must be naturally
 * aligned, size 1, 2, 4 or 8.  The operation is performed on the home's
 * copy of the word with the CPU's atomics (by the home, or through a
 * same-host mapping; coh_atomic.c); this node's cached copy is updated to
 * match, and the page gets a write notice so other nodes see the result
 * after their next acquire.
 * *old receives the previous value (zero-extended).  Float operations
 * interpret the bits as float (size 4) or double (size 8). */
typedef enum dsm_coh_atomic_op {
    DSM_ATOMIC_LOAD,     /* *old = *addr */
    DSM_ATOMIC_STORE,    /* *addr = operand */
    DSM_ATOMIC_XCHG,     /* *addr = operand */
    DSM_ATOMIC_CAS,      /* if *addr == expected: *addr = operand */
    DSM_ATOMIC_ADD, DSM_ATOMIC_SUB, DSM_ATOMIC_AND, DSM_ATOMIC_OR,
    DSM_ATOMIC_XOR, DSM_ATOMIC_NAND,
    DSM_ATOMIC_MAX, DSM_ATOMIC_MIN,      /* signed */
    DSM_ATOMIC_UMAX, DSM_ATOMIC_UMIN,    /* unsigned */
    DSM_ATOMIC_FADD, DSM_ATOMIC_FSUB,    /* float / double */
    DSM_ATOMIC_FMAX, DSM_ATOMIC_FMIN,
} dsm_coh_atomic_op_t;

DSM_MUST_CHECK
dsm_status_t dsm_coh_atomic(void *addr, unsigned size, dsm_coh_atomic_op_t op,
                            uint64_t operand, uint64_t expected,
                            uint64_t *old);
/* A value the word at addr held, perhaps not the latest: this node's
 * valid copy of a page it does not home, or what this thread's last atomic
 * on the word saw, otherwise an atomic load.  For
 * the first expected value of a compare-and-swap loop, which a stale value
 * only sends round once more; never for a value the program uses. */
DSM_MUST_CHECK
dsm_status_t dsm_coh_atomic_seed(void *addr, unsigned size, uint64_t *value);

/* A release by this node that other nodes acquire without a barrier
 * (coh_handoff.c).  Export closes this node's interval and writes the
 * write notices of its intervals since the last barrier into buf (at most
 * cap bytes, cap >= DSM_COH_HANDOFF_MIN; more notices than fit make the
 * receivers invalidate everything), *len the bytes used.  Import, on a
 * receiving node: invalidate what the notices of node from name and take
 * its vector time.  Correct when no other node created intervals since
 * the last barrier that the receiver lacks (fork-join: only node 0 runs
 * between a join and the next fork).  Both buffers 8-byte aligned. */
#define DSM_COH_HANDOFF_MIN 16
DSM_MUST_CHECK
dsm_status_t dsm_coh_handoff_export(void *buf, size_t cap, size_t *len);
DSM_MUST_CHECK
dsm_status_t dsm_coh_handoff_import(int from, const void *buf, size_t len);

/* A one-way join (coh_barrier.c): the global part of a barrier whose
 * departure waits.  One thread per node, like the global barrier part; on
 * nodes other than 0 it returns once the arrival is sent, on node 0 once
 * every arrival is in and applied (node 0 then sees every write made
 * before the join).  The departure leaves with node 0's next handoff
 * export, barrier or finalize, and the other nodes apply it in their next
 * handoff import, barrier or finalize; until then they must not touch
 * sharable memory (fork-join: they wait for the next FORK).
 * If node 0 moves homes at the join, every node must apply the moves
 * before any goes on: node 0 then calls wake_others(arg) (on a private
 * stack; it may only send messages), which must make every other node
 * call dsm_coh_join_settle, and returns once all have applied them.
 * A node other than 0 may attach extra_len bytes (at most 1024) to its
 * arrival: node 0 hands them to the function registered with
 * dsm_coh_join_extra_handler (before dsm_coh_init), in its message
 * handler, before it counts the arrival. */
DSM_MUST_CHECK
dsm_status_t dsm_coh_join(void (*wake_others)(void *), void *arg,
                          const void *extra, size_t extra_len);
typedef void (*dsm_coh_join_extra_fn)(int src, const void *bytes,
                                      size_t len);
void dsm_coh_join_extra_handler(dsm_coh_join_extra_fn fn);

/* dsm_barrier whose arrival carries extra_len bytes (at most 1024) from a
 * node other than 0, handed to node 0's dsm_coh_join_extra_handler as a
 * join's are: one message where the layer above would send its own just
 * before the arrival.  Only with dsm_barrier_threads(1) (one caller per
 * node, as the fork-join layer does), else DSM_ERR_INVALID. */
DSM_MUST_CHECK
dsm_status_t dsm_coh_barrier_with(const void *extra, size_t extra_len);
DSM_MUST_CHECK
dsm_status_t dsm_coh_join_settle(void);

/* The calling thread is now OpenMP thread num of the outermost team: the
 * sharing report (coh_sharing.h) names the threads that touch a page by
 * these numbers.  A store to a thread-local variable. */
void dsm_coh_sharing_thread(int num);

/* The name the job's statistics give message kind id of a layer above
 * (ids past coherence's own; name: a string constant).  Start-up. */
void dsm_coh_report_am_name(int id, const char *name);

#endif
