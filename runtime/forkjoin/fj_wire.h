/*
 * fj_wire.h - decoders of the fork-join layer's messages (fj_internal.h):
 * FORK, EXIT and SETTLE from node 0, REDUCE from the other nodes, CANCEL
 * and DOACROSS between any two.  Bytes
 * received in, a validated view or DSM_ERR_PROTOCOL out.
 *
 * Layer: forkjoin (internal).  Pure functions: no side effects, no
 * allocation, no logging, so they run in message handlers and in the fuzz
 * harness of tests/fuzz.  The handler that calls one ends the job naming
 * the sender when it fails, and checks what depends on its own state (is
 * a message already pending, is that reduction slot free) itself.
 * Payloads may be unaligned: fields are read with memcpy.
 */
#ifndef FJ_WIRE_H
#define FJ_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "dsm.h"
#include "fj_internal.h"

/* What a message is checked against: the job's layout. */
typedef struct fj_wire_limits {
    int nodes;
    int threads;                 /* per node */
} fj_wire_limits_t;

/* FORK: the fixed part, argc arguments, then handoff_bytes of node 0's
 * write notices (at most FJ_HANDOFF_BYTES; coh_handoff.c decodes them).
 * Checked: argc 0..FJ_MAX_ARGS, a team of 2..nodes*threads threads, the
 * data environment (threads >= 1, dynamic 0 or 1, a schedule kind of
 * omp_sched_t, chunk >= 0, max-active-levels >= 1: the region is active),
 * a level >= 1, and the exact length.  out->args beyond argc are zero. */
typedef struct fj_wire_fork {
    fj_fork_msg_t msg;
    const unsigned char *handoff;
    size_t handoff_len;
} fj_wire_fork_t;
dsm_status_t fj_wire_fork(const void *payload, size_t len,
                          const fj_wire_limits_t *lim, fj_wire_fork_t *out);

/* EXIT: exactly fj_exit_msg_t. */
dsm_status_t fj_wire_exit(const void *payload, size_t len, int32_t *status);

/* SETTLE: no payload. */
dsm_status_t fj_wire_settle(const void *payload, size_t len);

/* REDUCE: region and reduction number, then at most FJ_RED_MAX_BYTES of
 * packed partial results (the same bytes ride on a join arrival).  PULL
 * is the two numbers alone. */
typedef struct fj_wire_partial {
    uint64_t region, seq;
    const unsigned char *bytes;
    size_t len;
} fj_wire_partial_t;
dsm_status_t fj_wire_partial(const void *payload, size_t len,
                             fj_wire_partial_t *out);

/* CANCEL: a construct of region `region` was cancelled on the sender's
 * node.  kind: FJ_CANCEL_PARALLEL, _LOOP or _SECTIONS; epoch: the
 * canceller's barriers met in the region (a work-sharing construct is
 * named by the barriers before it).  Exactly this struct. */
typedef struct fj_wire_cancel {
    uint64_t region;
    uint32_t epoch;
    int32_t kind;
} fj_wire_cancel_t;
dsm_status_t fj_wire_cancel(const void *payload, size_t len,
                            fj_wire_cancel_t *out);

/* DOACROSS: a dependence of a doacross loop asked for (WANT: the sender's
 * thread `thread` waits until iteration `index` of loop `instance` of
 * region `region` has posted) or answered (POSTED: it has, and the
 * sender released what it wrote).  Exactly this struct; op is one of the
 * two, thread below the job's threads per node. */
enum { FJ_DOACROSS_WANT = 1, FJ_DOACROSS_POSTED = 2 };
typedef struct fj_wire_doacross {
    uint64_t region;
    uint64_t instance;
    uint64_t index;
    int32_t op;
    int32_t thread;
} fj_wire_doacross_t;
dsm_status_t fj_wire_doacross(const void *payload, size_t len,
                              const fj_wire_limits_t *lim,
                              fj_wire_doacross_t *out);

#endif
