/*
 * fuzz_tp_lane.c - libFuzzer harness of the same-host lane reader
 * (tp_wire_lane_record and tp_wire_lane_step in runtime/transport/
 * tp_wire.c): what a node reads from the ring a peer writes into its lane
 * file (tp_lane.c), records and fragmented messages.
 *
 * Input: one byte giving the ring's size (64..2048 bytes, a multiple of
 * 8), one byte of tail offset (a multiple of 8 inside the ring), two bytes
 * of published length, then the ring's bytes (missing ones are zero).  The
 * harness reads records from the tail as tp_lane.c does, until it reaches
 * the head or a record is refused.  Checks: every accepted record lies in
 * the published bytes and before the ring's end, moves the tail forward
 * to an 8-byte boundary, and its payload lies inside the ring; the
 * reassembly never collects more than a FIRST announced, and delivers
 * exactly that many bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "tp_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    uint64_t ring_bytes = ((uint64_t)data[0] % 249 + 8) * 8;
    uint64_t tail = (uint64_t)data[1] % (ring_bytes / 8) * 8;
    uint64_t published = (uint64_t)data[2] | (uint64_t)data[3] << 8;
    unsigned char *ring = calloc(1, ring_bytes);
    FUZZ_CHECK(ring != NULL);
    size_t given = size - 4 < ring_bytes ? size - 4 : ring_bytes;
    memcpy(ring, data + 4, given);
    /* positions are counters that only grow: start one lap in */
    tail += ring_bytes;
    uint64_t head = tail + published;
    tp_lane_asm_t st = {0};
    while (tail != head) {
        tp_lane_view_t rec;
        if (tp_wire_lane_record(ring, ring_bytes, tail, head, &rec) != DSM_OK)
            break;
        FUZZ_CHECK(rec.next > tail && rec.next <= head &&
                   rec.next % 8 == 0);
        FUZZ_CHECK(rec.next - tail <= ring_bytes - tail % ring_bytes);
        if (rec.kind == TP_LANE_WRAP) {
            FUZZ_CHECK(rec.next % ring_bytes == 0);
            tail = rec.next;
            continue;
        }
        FUZZ_CHECK(rec.payload >= ring + TP_LANE_HDR_BYTES &&
                   rec.payload + rec.len <= ring + ring_bytes);
        int deliver;
        uint64_t before = st.have;
        int was_active = st.active;
        if (tp_wire_lane_step(&st, &rec, &deliver) != DSM_OK)
            break;
        FUZZ_CHECK(!st.active || st.have <= st.total);
        if (rec.kind == TP_LANE_LAST)
            FUZZ_CHECK(deliver && was_active && !st.active &&
                       before + rec.len == st.total);
        if (rec.kind == TP_LANE_WHOLE)
            FUZZ_CHECK(deliver && !was_active);
        tail = rec.next;
    }
    free(ring);
    return 0;
}
