/*
 * fuzz_coh_msg.c - libFuzzer harness of the coherence protocol's message
 * decoders (runtime/coherence/coh_wire.c), which every node runs on what
 * other nodes send it: barrier arrivals and departures, diff messages,
 * share requests, lock, heap and atomic messages, and the handoff a FORK
 * carries (with the departure of a one-way join inside).
 *
 * Input: one byte choosing the message kind, one giving the node count
 * (1..8), then the payload.  The sharable space has PAGES pages.  Checks,
 * for an accepted message: every view lies inside the payload; walking the
 * records, ranges, home moves and diffs visits exactly the bytes and
 * counts the decoder promised, each range inside the space, each creator
 * and home below the node count; each diff applies to a page; a lock's
 * vector time fits; an atomic's operand lies naturally aligned inside
 * one page of the space.  The payload is an exact-size heap copy, so a read
 * past its end is caught by AddressSanitizer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coh_diff.h"
#include "coh_wire.h"
#include "coherence.h"
#include "fuzz_check.h"

#define PAGES 1024u
#define PAGE_SIZE 4096u
#define SLOTS 512u

static void check_records(const unsigned char *recs, size_t len, uint32_t n,
                          const coh_wire_limits_t *lim)
{
    size_t pos = 0;
    for (uint32_t k = 0; k < n; k++) {
        coh_record_hdr_t rec;
        const unsigned char *ranges;
        FUZZ_CHECK(pos < len);
        coh_wire_record_next(recs, &pos, &rec, &ranges);
        FUZZ_CHECK(pos <= len);
        FUZZ_CHECK(rec.creator < lim->nodes);
        for (uint32_t r = 0; r < rec.nranges; r++) {
            coh_range_t range = coh_wire_range(ranges, r);
            FUZZ_CHECK(range.first < lim->pages &&
                       range.count <= lim->pages - range.first);
        }
    }
    FUZZ_CHECK(pos == len);
}

/* Wanted ranges: pages in the count's low bits, a tag above them. */
static void check_wants(const unsigned char *list, uint32_t n,
                        const coh_wire_limits_t *lim)
{
    for (uint32_t k = 0; k < n; k++) {
        coh_range_t r = coh_wire_range(list, k);
        uint32_t pages = COH_WANT_PAGES(r.count);
        FUZZ_CHECK(r.first < lim->pages && pages <= lim->pages - r.first);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const coh_wire_limits_t lim = {(uint32_t)(data[1] % 8 + 1), PAGES, SLOTS};
    size_t len = size - 2;
    unsigned char *msg = malloc(len ? len : 1);
    FUZZ_CHECK(msg != NULL);
    memcpy(msg, data + 2, len);

    switch (data[0] % 9) {
    case 0: {
        coh_wire_arrive_t a;
        if (coh_wire_arrive(msg, len, &lim, &a) != DSM_OK)
            break;
        size_t wants = (size_t)a.hdr.nwants * sizeof(coh_range_t);
        FUZZ_CHECK(a.records == msg + sizeof a.hdr &&
                   a.hdr.extra_len <= COH_JOIN_EXTRA_MAX &&
                   a.records_len == len - sizeof a.hdr - a.hdr.extra_len -
                                        a.hdr.push_len - wants);
        FUZZ_CHECK(a.push == a.records + a.records_len &&
                   a.wants == a.push + a.hdr.push_len);
        FUZZ_CHECK(a.hdr.extra_len ? a.extra == a.wants + wants
                                   : a.extra == NULL);
        check_records(a.records, a.records_len, a.hdr.nrecords, &lim);
        check_wants(a.wants, a.hdr.nwants, &lim);
        break;
    }
    case 1: {
        coh_wire_depart_t d;
        if (coh_wire_depart(msg, len, &lim, &d) != DSM_OK)
            break;
        FUZZ_CHECK(d.vc == msg + sizeof d.hdr);
        for (uint32_t j = 0; j < lim.nodes; j++)
            (void)coh_wire_vc(d.vc, j);
        if (d.hdr.overflow)
            break;
        FUZZ_CHECK(d.records == d.vc + 4u * lim.nodes);
        check_records(d.records, d.records_len, d.hdr.nrecords, &lim);
        FUZZ_CHECK(d.migrations == d.records + d.records_len);
        FUZZ_CHECK(d.wants == d.migrations + (size_t)d.hdr.nmigrations *
                                                  sizeof(coh_migration_t));
        FUZZ_CHECK(d.push == d.wants + (size_t)d.hdr.nwants *
                                           sizeof(coh_range_t) &&
                   (size_t)(msg + len - d.push) == d.hdr.push_len);
        check_wants(d.wants, d.hdr.nwants, &lim);
        for (uint32_t k = 0; k < d.hdr.nmigrations; k++) {
            coh_migration_t mv = coh_wire_migration(d.migrations, k);
            FUZZ_CHECK(mv.home < lim.nodes && mv.first < PAGES &&
                       mv.count <= PAGES - mv.first);
        }
        break;
    }
    case 2: {
        uint32_t npages, flags;
        size_t diffs_len;
        if (coh_wire_diff_message(msg, len, &lim, PAGE_SIZE, &npages,
                                  &flags, &diffs_len) != DSM_OK)
            break;
        FUZZ_CHECK(!(flags & ~(COH_DIFF_ARRIVAL_FOLLOWS |
                               COH_DIFF_ARRIVAL_INSIDE)) &&
                   diffs_len <= len &&
                   (diffs_len < len) == !!(flags & COH_DIFF_ARRIVAL_INSIDE));
        static unsigned char page[PAGE_SIZE];
        size_t pos = sizeof(coh_msg_diff_t);
        for (uint32_t k = 0; k < npages; k++) {
            uint32_t index;
            const unsigned char *diff;
            size_t diff_len;
            coh_wire_diff_next(msg, &pos, &index, &diff, &diff_len);
            FUZZ_CHECK(pos <= len && index < PAGES);
            FUZZ_CHECK(dsm_diff_apply(page, PAGE_SIZE, diff, diff_len, NULL) ==
                       DSM_OK);
        }
        FUZZ_CHECK(pos == diffs_len);
        break;
    }
    case 3: {
        coh_msg_share_t s;
        if (coh_wire_share(msg, len, &lim, &s) != DSM_OK)
            break;
        FUZZ_CHECK(s.first < PAGES && s.count <= PAGES - s.first &&
                   s.slot < SLOTS);
        break;
    }
    case 4: {
        coh_msg_lock_t h;
        uint32_t vc[8];
        if (coh_wire_lock(msg, len, &lim, &h, vc) != DSM_OK)
            break;
        FUZZ_CHECK(h.nvc <= lim.nodes && h.slot < SLOTS &&
                   len == sizeof h + 4u * h.nvc);
        break;
    }
    case 5: {
        coh_msg_heap_t h;
        if (coh_wire_heap(msg, len, &lim, 1, &h) != DSM_OK)
            break;
        FUZZ_CHECK(len == sizeof h && h.slot < SLOTS);
        break;
    }
    case 6: {
        coh_wire_handoff_t h;
        if (coh_wire_handoff(msg, len, &lim, &h) != DSM_OK)
            break;
        FUZZ_CHECK(h.hdr.creator < lim.nodes &&
                   h.records == msg + sizeof h.hdr &&
                   h.records_len == len - sizeof h.hdr - h.hdr.depart_len -
                                        h.hdr.push_len &&
                   h.push == h.records + h.records_len + h.hdr.depart_len);
        if (h.hdr.depart_len) {
            coh_wire_depart_t d;
            FUZZ_CHECK(h.depart == h.records + h.records_len &&
                       coh_wire_depart(h.depart, h.hdr.depart_len, &lim,
                                       &d) == DSM_OK);
        } else {
            FUZZ_CHECK(h.depart == NULL);
        }
        FUZZ_CHECK(!h.hdr.overflow ||
                   (h.records_len == 0 && h.hdr.push_len == 0));
        check_records(h.records, h.records_len, h.hdr.nrecords, &lim);
        size_t pos = 0;
        for (uint32_t k = 0; k < h.hdr.nrecords; k++) {
            coh_record_hdr_t rec;
            const unsigned char *ranges;
            coh_wire_record_next(h.records, &pos, &rec, &ranges);
            FUZZ_CHECK(rec.creator == h.hdr.creator);
        }
        break;
    }
    case 7: {
        coh_msg_atomic_t a;
        if (coh_wire_atomic(msg, len, &lim, &a) != DSM_OK)
            break;
        FUZZ_CHECK(len == sizeof a && a.slot < SLOTS &&
                   a.op <= DSM_ATOMIC_FMIN && a.size && a.size <= 8 &&
                   a.offset % a.size == 0 &&
                   a.offset + a.size <= (uint64_t)PAGES * PAGE_SIZE &&
                   a.offset / PAGE_SIZE == (a.offset + a.size - 1) / PAGE_SIZE);
        break;
    }
    case 8: {
        coh_msg_atomic_rep_t r;
        if (coh_wire_atomic_rep(msg, len, &lim, &r) != DSM_OK)
            break;
        FUZZ_CHECK(len == sizeof r && r.slot < SLOTS);
        break;
    }
    }
    free(msg);
    return 0;
}
