/*
 * coh_wire.h - decoders of the coherence protocol's messages (coh_msg.h):
 * bytes received from another node in, a validated view or
 * DSM_ERR_PROTOCOL out.
 *
 * Layer: coherence (internal).  Pure functions: no side effects, no
 * allocation, no logging, so they run in message handlers (and the fault
 * path) and in the fuzz harness of tests/fuzz.  The handler that calls one
 * ends the job with a message naming the sender when it fails, and checks
 * what depends on its own state (is this page homed here, is this lock
 * live) itself.  A view's pointers point into the bytes decoded; every
 * count, index and range in it has been checked against the limits given
 * (nodes, pages), so the caller walks it without further checks.
 * Payloads may be unaligned: fields are read with memcpy.
 */
#ifndef COH_WIRE_H
#define COH_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "coh_msg.h"
#include "dsm.h"

/* The limits a message is checked against. */
typedef struct coh_wire_limits {
    uint32_t nodes;          /* node count: creators, homes, vector time */
    size_t pages;            /* pages of the sharable space */
    uint32_t slots;          /* reply slots per node */
} coh_wire_limits_t;

/* Write-notice records, laid end to end: nrecords of them, filling
 * exactly len bytes.  Each names a creator below nodes and page ranges
 * that start inside the space and do not run past its end. */
dsm_status_t coh_wire_records(const void *buf, size_t len, uint32_t nrecords,
                              const coh_wire_limits_t *lim);
/* Walk validated records: *pos (start at 0) advances past the record whose
 * header and first range it returns. */
void coh_wire_record_next(const void *buf, size_t *pos,
                          coh_record_hdr_t *rec, const unsigned char **ranges);
/* Range k of a record's ranges. */
coh_range_t coh_wire_range(const unsigned char *ranges, uint32_t k);

/* Barrier arrival (node -> node 0): header, then its records (none, and
 * no push, with overflow set), pushed whole pages (as a departure's push),
 * wanted ranges (inside the space), then hdr.extra_len bytes for the
 * layer above (at most COH_JOIN_EXTRA_MAX). */
typedef struct coh_wire_arrive {
    coh_msg_arrive_t hdr;
    const unsigned char *records;
    size_t records_len;
    const unsigned char *push;          /* hdr.push_len bytes, checked */
    const unsigned char *wants;         /* hdr.nwants ranges, inside */
    const unsigned char *extra;         /* hdr.extra_len bytes, or NULL */
} coh_wire_arrive_t;
dsm_status_t coh_wire_arrive(const void *msg, size_t len,
                             const coh_wire_limits_t *lim,
                             coh_wire_arrive_t *out);

/* Handoff (coh_msg_handoff_t, its records, a departure, pushed updates):
 * creator below nodes, records all of the creator (none, and no push,
 * with overflow set); the departure, when there is one, a well-formed one
 * (coh_wire_depart); the push as a departure's. */
typedef struct coh_wire_handoff {
    coh_msg_handoff_t hdr;
    const unsigned char *records;
    size_t records_len;
    const unsigned char *depart;        /* hdr.depart_len bytes, or NULL */
    const unsigned char *push;          /* hdr.push_len bytes, checked */
} coh_wire_handoff_t;
dsm_status_t coh_wire_handoff(const void *msg, size_t len,
                              const coh_wire_limits_t *lim,
                              coh_wire_handoff_t *out);

/* Barrier departure (node 0 -> all): header, vector time (nodes entries),
 * records, home moves, wanted ranges (inside the space), pushed updates
 * (diffs well formed, hashes whole).
 * With overflow set only the header and the vector time count (what
 * follows is ignored). */
typedef struct coh_wire_depart {
    coh_msg_depart_t hdr;
    const unsigned char *vc;            /* nodes u32 entries */
    const unsigned char *records;
    size_t records_len;
    const unsigned char *migrations;    /* hdr.nmigrations entries */
    const unsigned char *wants;         /* hdr.nwants ranges, inside */
    const unsigned char *push;          /* hdr.push_len bytes, checked */
} coh_wire_depart_t;
dsm_status_t coh_wire_depart(const void *msg, size_t len,
                             const coh_wire_limits_t *lim,
                             coh_wire_depart_t *out);
uint32_t coh_wire_vc(const unsigned char *vc, uint32_t j);
coh_migration_t coh_wire_migration(const unsigned char *list, uint32_t k);

/* Diffs for one home: every page index inside the space and every encoded
 * diff well formed (coh_diff.h) for a page of page_size bytes, so that
 * applying them all cannot fail half-way. */
dsm_status_t coh_wire_diffs(const void *msg, size_t len,
                            const coh_wire_limits_t *lim, size_t page_size,
                            uint32_t *npages);
/* A DIFF message: known COH_DIFF_* flags (*flags), then the diffs, which
 * end at *diffs_len: the message's end, or, with
 * COH_DIFF_ARRIVAL_INSIDE, before the arrival that follows them (not
 * checked here: coh_wire_arrive). */
dsm_status_t coh_wire_diff_message(const void *msg, size_t len,
                                   const coh_wire_limits_t *lim,
                                   size_t page_size, uint32_t *npages,
                                   uint32_t *flags, size_t *diffs_len);
/* Walk validated diffs: *pos starts at sizeof(coh_msg_diff_t). */
void coh_wire_diff_next(const void *msg, size_t *pos, uint32_t *index,
                        const unsigned char **diff, size_t *diff_len);

/* Share request or acknowledgement: pages [first, first+count) inside the
 * space, a valid slot. */
dsm_status_t coh_wire_share(const void *msg, size_t len,
                            const coh_wire_limits_t *lim,
                            coh_msg_share_t *out);

/* Lock request, grant or release: a valid slot, nvc <= nodes entries of
 * vector time (copied to vc, room for nodes entries) and nothing else. */
dsm_status_t coh_wire_lock(const void *msg, size_t len,
                           const coh_wire_limits_t *lim, coh_msg_lock_t *out,
                           uint32_t *vc);

/* Heap message: exactly one coh_msg_heap_t; a reply's slot valid. */
dsm_status_t coh_wire_heap(const void *msg, size_t len,
                           const coh_wire_limits_t *lim, int reply,
                           coh_msg_heap_t *out);

/* Atomic request: a known operation (a float one on 4 or 8 bytes) of
 * size 1, 2, 4 or 8, naturally aligned, inside the space; a valid slot. */
dsm_status_t coh_wire_atomic(const void *msg, size_t len,
                             const coh_wire_limits_t *lim,
                             coh_msg_atomic_t *out);
/* Atomic reply: exactly one coh_msg_atomic_rep_t with a valid slot. */
dsm_status_t coh_wire_atomic_rep(const void *msg, size_t len,
                                 const coh_wire_limits_t *lim,
                                 coh_msg_atomic_rep_t *out);

#endif
