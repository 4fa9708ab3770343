/*
 * fuzz_tp_lane.c - libFuzzer harness of the same-host lane reader
 * (tp_wire_lane_record and tp_wire_lane_step in runtime/transport/
 * tp_wire.c): what a node reads from the ring a peer writes into its lane
 * file (tp_lane.c), records and fragmented messages.
 *
 * Input: one byte giving the ring's size (2..64 lines of 64 bytes), one
 * byte giving the tail's line in it, then the ring's bytes (missing ones
 * are zero).  Positions start one lap in.  The harness reads records from
 * the tail as tp_lane.c does: while the first word at the tail is not
 * zero, it decodes the record there, and it zeroes the first word of the
 * lines a record used.  Checks: every accepted record starts where its
 * ready word says, moves the tail forward to a line boundary before the
 * ring's end (a WRAP to the end itself), and its payload lies inside the
 * ring; the reassembly never collects more than a FIRST announced, and
 * delivers exactly that many bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "tp_wire.h"

static uint64_t first_word(const unsigned char *ring, uint64_t ring_bytes,
                           uint64_t at)
{
    uint64_t w;
    memcpy(&w, ring + at % ring_bytes, sizeof w);
    return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint64_t lines = (uint64_t)data[0] % 63 + 2;
    uint64_t ring_bytes = lines * TP_LANE_LINE;
    uint64_t tail = (uint64_t)data[1] % lines * TP_LANE_LINE;
    unsigned char *ring = calloc(1, ring_bytes);
    FUZZ_CHECK(ring != NULL);
    size_t given = size - 2 < ring_bytes ? size - 2 : ring_bytes;
    memcpy(ring, data + 2, given);
    /* positions are counters that only grow: start one lap in */
    tail += ring_bytes;
    tp_lane_asm_t st = {0};
    uint64_t ready;
    for (uint64_t round = 0;
         round < 2 * lines + 2 &&
         (ready = first_word(ring, ring_bytes, tail)) != 0;
         round++) {
        tp_lane_view_t rec;
        if (tp_wire_lane_record(ring, ring_bytes, tail, ready, &rec) !=
            DSM_OK)
            break;
        FUZZ_CHECK(ready == tail + 1);
        FUZZ_CHECK(rec.next > tail && rec.next % TP_LANE_LINE == 0);
        FUZZ_CHECK(rec.next - tail <= ring_bytes - tail % ring_bytes);
        uint64_t used = rec.next;
        if (rec.kind == TP_LANE_WRAP) {
            FUZZ_CHECK(rec.next % ring_bytes == 0 && tail % ring_bytes != 0);
            used = tail + TP_LANE_LINE;
        } else {
            FUZZ_CHECK(rec.payload >= ring + TP_LANE_HDR_BYTES &&
                       rec.payload + rec.len <= ring + ring_bytes);
            FUZZ_CHECK(rec.payload + rec.len <=
                       ring + tail % ring_bytes + (rec.next - tail));
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
        }
        for (uint64_t at = tail; at != used; at += TP_LANE_LINE)
            memset(ring + at % ring_bytes, 0, sizeof(uint64_t));
        tail = rec.next;
    }
    free(ring);
    return 0;
}
