/*
 * fj_partials.c - the partial results of a reduction, sent by every other
 * node to node 0 in one active message (REDUCE), so that node 0 alone
 * combines into the shared variables: no cluster lock, no page round trip.
 *
 * Node 0 keeps FJ_RED_SLOTS slots per source node, filled by the handler and
 * emptied by node 0's combining thread.  A node reuses a slot only when it
 * knows node 0 emptied it: after a team barrier (node 0 empties a
 * reduction's slots before it arrives at the next barrier), or after
 * reading node 0's red_done word (fj_reduce.c).  A message for a full slot
 * is therefore a protocol error.
 *
 * Layer: forkjoin.  fj_partials_register: start-up, before the transport
 * starts.  fj_partials_send: the combining thread of a node other than 0.
 * fj_partials_wait / fj_partials_release: node 0's combining thread.  The
 * handler copies and sets a flag: no malloc, no stdio, never blocks.
 */
#include "fj_partials.h"

#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "fj_internal.h"
#include "fj_wire.h"
#include "transport.h"

/* on the wire: u64 region, u64 reduction number, the bytes (fj_wire.h) */
typedef struct partial_head {
    uint64_t region;
    uint64_t seq;
} partial_head_t;

typedef struct partial_slot {
    volatile int full;       /* set by the handler (release) */
    uint32_t len;
    uint64_t region, seq;
    _Alignas(16) unsigned char bytes[FJ_RED_MAX_BYTES];
} partial_slot_t;

static partial_slot_t *slots;          /* [size][FJ_RED_SLOTS], node 0 */

static partial_slot_t *slot_of(int src, uint64_t seq)
{
    return &slots[(size_t)src * FJ_RED_SLOTS + seq % FJ_RED_SLOTS];
}

static void on_partial(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    fj_wire_partial_t p;
    if (fj.rank != 0 || src <= 0 || src >= fj.size ||
        fj_wire_partial(payload, len, &p) != DSM_OK)
        dsm_fatal("malformed REDUCE message from node %d (%zu bytes)", src,
                  len);
    partial_slot_t *s = slot_of(src, p.seq);
    if (__atomic_load_n(&s->full, __ATOMIC_ACQUIRE))
        dsm_fatal("REDUCE message from node %d for reduction %llu while "
                  "reduction %llu is not combined yet", src,
                  (unsigned long long)p.seq, (unsigned long long)s->seq);
    s->region = p.region;
    s->seq = p.seq;
    s->len = (uint32_t)p.len;
    memcpy(s->bytes, p.bytes, p.len);
    __atomic_store_n(&s->full, 1, __ATOMIC_RELEASE);
}

void fj_partials_register(void)
{
    if (fj.rank == 0 && fj.size > 1) {
        slots = calloc((size_t)fj.size * FJ_RED_SLOTS, sizeof *slots);
        if (!slots)
            dsm_fatal("out of memory for the reduction slots");
    }
    if (dsm_tp_am_register(FJ_AM_REDUCE, on_partial, NULL) != DSM_OK)
        dsm_fatal("cannot register the reduction message");
}

void fj_partials_send(uint64_t region, uint64_t seq, const void *bytes,
                      size_t len)
{
    partial_head_t head = {region, seq};
    dsm_status_t st = dsm_tp_am_sendv(0, FJ_AM_REDUCE, &head, sizeof head,
                                      bytes, len);
    if (st != DSM_OK)
        dsm_fatal("sending a reduction's partial result to node 0: %s",
                  dsm_status_string(st));
}

const void *fj_partials_wait(int src, uint64_t region, uint64_t seq,
                             size_t len)
{
    partial_slot_t *s = slot_of(src, seq);
    dsm_tp_wait_flag(&s->full, "a reduction's partial result");
    if (s->region != region || s->seq != seq || s->len != len)
        dsm_fatal("node %d sent the partial result of reduction %llu of "
                  "region %llu (%u bytes); expected reduction %llu of region "
                  "%llu (%zu bytes)", src, (unsigned long long)s->seq,
                  (unsigned long long)s->region, s->len,
                  (unsigned long long)seq, (unsigned long long)region, len);
    return s->bytes;
}

void fj_partials_release(int src, uint64_t seq)
{
    __atomic_store_n(&slot_of(src, seq)->full, 0, __ATOMIC_RELEASE);
}
