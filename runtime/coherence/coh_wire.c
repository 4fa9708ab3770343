/*
 * coh_wire.c - decoders of the coherence protocol's messages; see
 * coh_wire.h.
 * Layer: coherence.  Pure and async-signal-safe: no allocation, no
 * logging, no state.  Called by the message handlers and by tests/fuzz.
 */
#include "coh_wire.h"

#include <string.h>

#include "coh_diff.h"
#include "coherence.h"
#include "sys_region.h"

/* The protocol's rule for a page range: it starts inside the space and
 * does not run past its end (an empty range is harmless). */
static int range_inside(uint32_t first, uint32_t count, size_t pages)
{
    return first < pages && count <= pages - first;
}

dsm_status_t coh_wire_records(const void *buf, size_t len, uint32_t nrecords,
                              const coh_wire_limits_t *lim)
{
    const unsigned char *b = buf;
    size_t pos = 0;
    for (uint32_t k = 0; k < nrecords; k++) {
        coh_record_hdr_t rec;
        if (len - pos < sizeof rec)
            return DSM_ERR_PROTOCOL;
        memcpy(&rec, b + pos, sizeof rec);
        pos += sizeof rec;
        if (rec.creator >= lim->nodes ||
            rec.nranges > (len - pos) / sizeof(coh_range_t))
            return DSM_ERR_PROTOCOL;
        for (uint32_t r = 0; r < rec.nranges; r++) {
            coh_range_t range = coh_wire_range(b + pos, r);
            if (!range_inside(range.first, range.count, lim->pages))
                return DSM_ERR_PROTOCOL;
        }
        pos += rec.nranges * sizeof(coh_range_t);
    }
    return pos == len ? DSM_OK : DSM_ERR_PROTOCOL;
}

void coh_wire_record_next(const void *buf, size_t *pos,
                          coh_record_hdr_t *rec, const unsigned char **ranges)
{
    const unsigned char *b = buf;
    memcpy(rec, b + *pos, sizeof *rec);
    *ranges = b + *pos + sizeof *rec;
    *pos += sizeof *rec + rec->nranges * sizeof(coh_range_t);
}

coh_range_t coh_wire_range(const unsigned char *ranges, uint32_t k)
{
    coh_range_t r;
    memcpy(&r, ranges + (size_t)k * sizeof r, sizeof r);
    return r;
}

static dsm_status_t check_push(const unsigned char *push, size_t len,
                               const coh_wire_limits_t *lim);

/* Wanted ranges: their pages (the count's low bits) inside the space. */
static dsm_status_t check_wants(const unsigned char *list, uint32_t n,
                                const coh_wire_limits_t *lim)
{
    for (uint32_t k = 0; k < n; k++) {
        coh_range_t r = coh_wire_range(list, k);
        if (!range_inside(r.first, COH_WANT_PAGES(r.count), lim->pages))
            return DSM_ERR_PROTOCOL;
    }
    return DSM_OK;
}

dsm_status_t coh_wire_arrive(const void *msg, size_t len,
                             const coh_wire_limits_t *lim,
                             coh_wire_arrive_t *out)
{
    coh_wire_arrive_t a;
    if (len < sizeof a.hdr)
        return DSM_ERR_PROTOCOL;
    memcpy(&a.hdr, msg, sizeof a.hdr);
    size_t rest = len - sizeof a.hdr;
    size_t wants = (size_t)a.hdr.nwants * sizeof(coh_range_t);
    if (a.hdr.extra_len > COH_JOIN_EXTRA_MAX || a.hdr.extra_len > rest ||
        a.hdr.push_len > rest - a.hdr.extra_len ||
        a.hdr.nwants > (rest - a.hdr.extra_len - a.hdr.push_len) /
                           sizeof(coh_range_t))
        return DSM_ERR_PROTOCOL;
    a.records = (const unsigned char *)msg + sizeof a.hdr;
    a.records_len = rest - a.hdr.extra_len - a.hdr.push_len - wants;
    a.push = a.records + a.records_len;
    a.wants = a.push + a.hdr.push_len;
    a.extra = a.hdr.extra_len ? a.wants + wants : NULL;
    if (a.hdr.overflow &&
        (a.hdr.nrecords || a.records_len || a.hdr.push_len))
        return DSM_ERR_PROTOCOL;
    if (coh_wire_records(a.records, a.records_len, a.hdr.nrecords, lim) !=
            DSM_OK ||
        check_push(a.push, a.hdr.push_len, lim) != DSM_OK ||
        check_wants(a.wants, a.hdr.nwants, lim) != DSM_OK)
        return DSM_ERR_PROTOCOL;
    *out = a;
    return DSM_OK;
}

/* Pushed updates (coh_msg_diff_t, diffs, hashes): well formed. */
static dsm_status_t check_push(const unsigned char *push, size_t len,
                               const coh_wire_limits_t *lim)
{
    coh_msg_diff_t ph;
    uint32_t npush;
    if (!len)
        return DSM_OK;
    if (len < sizeof ph)
        return DSM_ERR_PROTOCOL;
    memcpy(&ph, push, sizeof ph);
    size_t hashes = (size_t)ph.aux * sizeof(uint64_t);
    if ((ph.aux && ph.aux != 2 * ph.npages) || hashes > len - sizeof ph ||
        coh_wire_diffs(push, len - hashes, lim, DSM_PAGE_SIZE, &npush) !=
            DSM_OK)
        return DSM_ERR_PROTOCOL;
    return DSM_OK;
}

dsm_status_t coh_wire_handoff(const void *msg, size_t len,
                              const coh_wire_limits_t *lim,
                              coh_wire_handoff_t *out)
{
    coh_wire_handoff_t h;
    const unsigned char *m = msg;
    if (!msg || len < sizeof h.hdr)
        return DSM_ERR_PROTOCOL;
    memcpy(&h.hdr, m, sizeof h.hdr);
    if (h.hdr.depart_len > len - sizeof h.hdr ||
        h.hdr.push_len > len - sizeof h.hdr - h.hdr.depart_len)
        return DSM_ERR_PROTOCOL;
    h.records = m + sizeof h.hdr;
    h.records_len = len - sizeof h.hdr - h.hdr.depart_len - h.hdr.push_len;
    h.depart = h.hdr.depart_len ? h.records + h.records_len : NULL;
    h.push = h.records + h.records_len + h.hdr.depart_len;
    if (check_push(h.push, h.hdr.push_len, lim) != DSM_OK)
        return DSM_ERR_PROTOCOL;
    coh_wire_depart_t d;
    if (h.depart && coh_wire_depart(h.depart, h.hdr.depart_len, lim, &d) !=
                        DSM_OK)
        return DSM_ERR_PROTOCOL;
    if (h.hdr.creator >= lim->nodes || h.hdr.overflow > 1 ||
        (h.hdr.overflow &&
         (h.hdr.nrecords || h.records_len || h.hdr.push_len)) ||
        coh_wire_records(h.records, h.records_len, h.hdr.nrecords, lim) !=
            DSM_OK)
        return DSM_ERR_PROTOCOL;
    size_t pos = 0;
    for (uint32_t k = 0; k < h.hdr.nrecords; k++) {
        coh_record_hdr_t rec;
        const unsigned char *ranges;
        coh_wire_record_next(h.records, &pos, &rec, &ranges);
        if (rec.creator != h.hdr.creator)
            return DSM_ERR_PROTOCOL;
    }
    *out = h;
    return DSM_OK;
}

dsm_status_t coh_wire_depart(const void *msg, size_t len,
                             const coh_wire_limits_t *lim,
                             coh_wire_depart_t *out)
{
    coh_wire_depart_t d;
    const unsigned char *m = msg;
    size_t vc_bytes = sizeof(uint32_t) * (size_t)lim->nodes;
    if (len < sizeof d.hdr || len - sizeof d.hdr < vc_bytes)
        return DSM_ERR_PROTOCOL;
    memcpy(&d.hdr, m, sizeof d.hdr);
    d.vc = m + sizeof d.hdr;
    size_t pos = sizeof d.hdr + vc_bytes;
    d.records = m + pos;
    d.records_len = 0;
    d.migrations = m + len;
    d.wants = m + len;
    d.push = m + len;
    if (!d.hdr.overflow) {
        /* the pushed updates at the end */
        if (d.hdr.push_len > len - pos)
            return DSM_ERR_PROTOCOL;
        size_t end = len - d.hdr.push_len;
        d.push = m + end;
        if (check_push(d.push, d.hdr.push_len, lim) != DSM_OK)
            return DSM_ERR_PROTOCOL;
        /* the wanted ranges before the push, the home moves before them,
         * and the records end where the home moves begin */
        if (d.hdr.nwants > (end - pos) / sizeof(coh_range_t))
            return DSM_ERR_PROTOCOL;
        end -= (size_t)d.hdr.nwants * sizeof(coh_range_t);
        d.wants = m + end;
        size_t moves = (size_t)d.hdr.nmigrations * sizeof(coh_migration_t);
        if (moves > end - pos)
            return DSM_ERR_PROTOCOL;
        d.records_len = end - pos - moves;
        d.migrations = m + end - moves;
        if (coh_wire_records(d.records, d.records_len, d.hdr.nrecords, lim) !=
                DSM_OK ||
            check_wants(d.wants, d.hdr.nwants, lim) != DSM_OK)
            return DSM_ERR_PROTOCOL;
        for (uint32_t k = 0; k < d.hdr.nmigrations; k++) {
            coh_migration_t mv = coh_wire_migration(d.migrations, k);
            if (!range_inside(mv.first, mv.count, lim->pages) ||
                mv.home >= lim->nodes)
                return DSM_ERR_PROTOCOL;
        }
    }
    *out = d;
    return DSM_OK;
}

uint32_t coh_wire_vc(const unsigned char *vc, uint32_t j)
{
    uint32_t v;
    memcpy(&v, vc + (size_t)j * sizeof v, sizeof v);
    return v;
}

coh_migration_t coh_wire_migration(const unsigned char *list, uint32_t k)
{
    coh_migration_t mv;
    memcpy(&mv, list + (size_t)k * sizeof mv, sizeof mv);
    return mv;
}

/* The diffs from the start of msg: where they end (*end). */
static dsm_status_t walk_diffs(const void *msg, size_t len,
                               const coh_wire_limits_t *lim,
                               size_t page_size, uint32_t *npages,
                               size_t *end)
{
    const unsigned char *m = msg;
    coh_msg_diff_t hdr;
    if (len < sizeof hdr)
        return DSM_ERR_PROTOCOL;
    memcpy(&hdr, m, sizeof hdr);
    size_t pos = sizeof hdr;
    for (uint32_t k = 0; k < hdr.npages; k++) {
        coh_diff_page_t pg;
        if (len - pos < sizeof pg)
            return DSM_ERR_PROTOCOL;
        memcpy(&pg, m + pos, sizeof pg);
        pos += sizeof pg;
        if (pg.index >= lim->pages || pg.len > len - pos ||
            dsm_diff_check(page_size, m + pos, pg.len) != DSM_OK)
            return DSM_ERR_PROTOCOL;
        pos += pg.len;
    }
    *npages = hdr.npages;
    *end = pos;
    return DSM_OK;
}

dsm_status_t coh_wire_diffs(const void *msg, size_t len,
                            const coh_wire_limits_t *lim, size_t page_size,
                            uint32_t *npages)
{
    size_t end;
    dsm_status_t st = walk_diffs(msg, len, lim, page_size, npages, &end);
    return st == DSM_OK && end != len ? DSM_ERR_PROTOCOL : st;
}

dsm_status_t coh_wire_diff_message(const void *msg, size_t len,
                                   const coh_wire_limits_t *lim,
                                   size_t page_size, uint32_t *npages,
                                   uint32_t *flags, size_t *diffs_len)
{
    coh_msg_diff_t hdr;
    if (len < sizeof hdr)
        return DSM_ERR_PROTOCOL;
    memcpy(&hdr, msg, sizeof hdr);
    if (hdr.aux & ~(COH_DIFF_ARRIVAL_FOLLOWS | COH_DIFF_ARRIVAL_INSIDE) ||
        hdr.aux == (COH_DIFF_ARRIVAL_FOLLOWS | COH_DIFF_ARRIVAL_INSIDE))
        return DSM_ERR_PROTOCOL;
    size_t end;
    if (walk_diffs(msg, len, lim, page_size, npages, &end) != DSM_OK ||
        (end != len) != ((hdr.aux & COH_DIFF_ARRIVAL_INSIDE) != 0))
        return DSM_ERR_PROTOCOL;
    *flags = hdr.aux;
    *diffs_len = end;
    return DSM_OK;
}

void coh_wire_diff_next(const void *msg, size_t *pos, uint32_t *index,
                        const unsigned char **diff, size_t *diff_len)
{
    const unsigned char *m = msg;
    coh_diff_page_t pg;
    memcpy(&pg, m + *pos, sizeof pg);
    *index = pg.index;
    *diff = m + *pos + sizeof pg;
    *diff_len = pg.len;
    *pos += sizeof pg + pg.len;
}

dsm_status_t coh_wire_share(const void *msg, size_t len,
                            const coh_wire_limits_t *lim,
                            coh_msg_share_t *out)
{
    coh_msg_share_t s;
    if (len != sizeof s)
        return DSM_ERR_PROTOCOL;
    memcpy(&s, msg, sizeof s);
    if (!range_inside(s.first, s.count, lim->pages) || s.slot >= lim->slots)
        return DSM_ERR_PROTOCOL;
    *out = s;
    return DSM_OK;
}

dsm_status_t coh_wire_lock(const void *msg, size_t len,
                           const coh_wire_limits_t *lim, coh_msg_lock_t *out,
                           uint32_t *vc)
{
    coh_msg_lock_t h;
    if (len < sizeof h)
        return DSM_ERR_PROTOCOL;
    memcpy(&h, msg, sizeof h);
    if (h.nvc > lim->nodes || h.slot >= lim->slots ||
        len - sizeof h != (size_t)h.nvc * sizeof(uint32_t))
        return DSM_ERR_PROTOCOL;
    memcpy(vc, (const unsigned char *)msg + sizeof h,
           (size_t)h.nvc * sizeof(uint32_t));
    *out = h;
    return DSM_OK;
}

dsm_status_t coh_wire_heap(const void *msg, size_t len,
                           const coh_wire_limits_t *lim, int reply,
                           coh_msg_heap_t *out)
{
    coh_msg_heap_t h;
    if (len != sizeof h)
        return DSM_ERR_PROTOCOL;
    memcpy(&h, msg, sizeof h);
    if (reply && h.slot >= lim->slots)
        return DSM_ERR_PROTOCOL;
    *out = h;
    return DSM_OK;
}

dsm_status_t coh_wire_atomic(const void *msg, size_t len,
                             const coh_wire_limits_t *lim,
                             coh_msg_atomic_t *out)
{
    coh_msg_atomic_t m;
    if (len != sizeof m)
        return DSM_ERR_PROTOCOL;
    memcpy(&m, msg, sizeof m);
    if ((m.size != 1 && m.size != 2 && m.size != 4 && m.size != 8) ||
        m.offset % m.size || m.op > DSM_ATOMIC_FMIN ||
        (m.op >= DSM_ATOMIC_FADD && m.size < 4) || m.slot >= lim->slots ||
        (m.offset >> DSM_PAGE_SHIFT) >= lim->pages)
        return DSM_ERR_PROTOCOL;
    *out = m;
    return DSM_OK;
}

dsm_status_t coh_wire_atomic_rep(const void *msg, size_t len,
                                 const coh_wire_limits_t *lim,
                                 coh_msg_atomic_rep_t *out)
{
    coh_msg_atomic_rep_t r;
    if (len != sizeof r)
        return DSM_ERR_PROTOCOL;
    memcpy(&r, msg, sizeof r);
    if (r.slot >= lim->slots)
        return DSM_ERR_PROTOCOL;
    *out = r;
    return DSM_OK;
}
