/*
 * coh_logread.h - decoding what a get read of another node's published
 * log (coh_protocol.h): pure functions over the words read, shared by
 * coh_acquire.c and the unit test (tests/coherence/test_logread.c).
 * A get copies words in any order, each aligned 8-byte word whole, so
 * every decision rests on the interval number each word carries
 * (design.md, "Flush: an acquire from every node").
 *
 * Layer: coherence (internal).  Any thread; no state.
 */
#ifndef COH_LOGREAD_H
#define COH_LOGREAD_H

#include <stdint.h>

#include "coh_protocol.h"

/* The head of a row of n stamps read of one node: the smallest interval
 * number among them.  That interval was published (stamps come after its
 * header and ranges), it is at least every interval published before the
 * read began, and each word's low half bounds from above what it depends
 * on (the stamps of later intervals hold larger vector times). */
static inline uint32_t coh_stamps_head(const uint64_t *row, int n)
{
    uint32_t head = UINT32_MAX;
    for (int k = 0; k < n; k++)
        if (COH_LOG_SEQ(row[k]) < head)
            head = COH_LOG_SEQ(row[k]);
    return head;
}

/* The node's own stamp names its own interval twice. */
static inline int coh_stamp_own_ok(const uint64_t *row, int self)
{
    return COH_LOG_LOW(row[self]) == COH_LOG_SEQ(row[self]);
}

/* hdr[0..to-from] are the headers of intervals from..to. */
static inline int coh_headers_match(const uint64_t *hdr, uint32_t from,
                                    uint32_t to)
{
    for (uint32_t i = 0; i <= to - from; i++)
        if (COH_LOG_SEQ(hdr[i]) != from + i)
            return 0;
    return 1;
}

/* r holds the ranges of intervals (from, to], whose headers are hdr as
 * above: each range's two words carry the number of its interval. */
static inline int coh_ranges_match(const uint64_t *hdr, uint32_t from,
                                   uint32_t to, const coh_log_range_t *r)
{
    uint32_t k = 0;
    for (uint32_t i = 1; i <= to - from; i++) {
        uint32_t n = COH_LOG_LOW(hdr[i]) - COH_LOG_LOW(hdr[i - 1]);
        for (uint32_t e = 0; e < n; e++, k++)
            if (COH_LOG_SEQ(r[k].first) != from + i ||
                COH_LOG_SEQ(r[k].count) != from + i)
                return 0;
    }
    return 1;
}

/* Headers from..from+count-1 out of a near ring of headers (slot = number
 * mod ring), in order; each still carries its number, to be matched. */
static inline void coh_near_headers(const uint64_t *near, uint32_t ring,
                                    uint32_t from, uint32_t count,
                                    uint64_t *out)
{
    for (uint32_t i = 0; i < count; i++)
        out[i] = near[(from + i) % ring];
}

/* Ranges first..first+count-1 (ring indexes, low 32 bits) out of a near
 * ring of ranges, in order; a slot overwritten by a later interval, or
 * torn between two, carries another number in one of its words. */
static inline void coh_near_ranges(const coh_log_range_t *near, uint32_t ring,
                                   uint32_t first, uint32_t count,
                                   coh_log_range_t *out)
{
    for (uint32_t i = 0; i < count; i++)
        out[i] = near[(first + i) % ring];
}

#endif
