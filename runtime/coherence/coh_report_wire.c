/*
 * coh_report_wire.c - decoders of the report's messages (see
 * coh_report_wire.h).  Pure functions.
 *
 * Layer: coherence.  Any thread, message handlers included.
 */
#include "coh_report_wire.h"

#include <string.h>

dsm_status_t coh_report_decode(const void *msg, size_t len,
                               const coh_report_limits_t *lim,
                               coh_report_view_t *out)
{
    coh_msg_report_t h;
    if (len < sizeof h)
        return DSM_ERR_PROTOCOL;
    memcpy(&h, msg, sizeof h);
    uint64_t need = sizeof h + (uint64_t)h.npages * sizeof(coh_report_page_t) +
                    (uint64_t)h.nsync * sizeof(coh_report_sync_t);
    if (h.node >= lim->nodes || need != len || h.shift >= 32 ||
        h.nsync > 1024)
        return DSM_ERR_PROTOCOL;
    const unsigned char *pages = (const unsigned char *)msg + sizeof h;
    for (uint32_t k = 0; k < h.npages; k++) {
        uint32_t page;
        memcpy(&page, pages + (size_t)k * sizeof(coh_report_page_t) +
                          offsetof(coh_report_page_t, page),
               sizeof page);
        if (page >= lim->pages)
            return DSM_ERR_PROTOCOL;
    }
    out->hdr = h;
    out->pages = pages;
    out->sync = pages + (size_t)h.npages * sizeof(coh_report_page_t);
    return DSM_OK;
}

coh_report_page_t coh_report_page_at(const coh_report_view_t *v, uint32_t k)
{
    coh_report_page_t p;
    memcpy(&p, v->pages + (size_t)k * sizeof p, sizeof p);
    return p;
}

coh_report_sync_t coh_report_sync_at(const coh_report_view_t *v, uint32_t k)
{
    coh_report_sync_t s;
    memcpy(&s, v->sync + (size_t)k * sizeof s, sizeof s);
    return s;
}

dsm_status_t coh_report_names_req_decode(const void *msg, size_t len,
                                         uint32_t *count)
{
    coh_msg_names_t h;
    if (len < sizeof h)
        return DSM_ERR_PROTOCOL;
    memcpy(&h, msg, sizeof h);
    if (h.count > COH_NAMES_MAX_ITEMS ||
        len != sizeof h + (size_t)h.count * sizeof(coh_names_item_t))
        return DSM_ERR_PROTOCOL;
    for (uint32_t k = 0; k < h.count; k++)
        if (coh_report_names_item(msg, k).page_addr % 4096)
            return DSM_ERR_PROTOCOL;
    *count = h.count;
    return DSM_OK;
}

coh_names_item_t coh_report_names_item(const void *msg, uint32_t k)
{
    coh_names_item_t it;
    memcpy(&it, (const unsigned char *)msg + sizeof(coh_msg_names_t) +
                    (size_t)k * sizeof it,
           sizeof it);
    return it;
}

dsm_status_t coh_report_names_rep_decode(const void *msg, size_t len,
                                         uint32_t items, uint32_t *count)
{
    coh_msg_names_t h;
    if (len < sizeof h)
        return DSM_ERR_PROTOCOL;
    memcpy(&h, msg, sizeof h);
    if (h.count > COH_NAMES_MAX_BLOCKS ||
        len != sizeof h + (size_t)h.count * sizeof(coh_names_block_t))
        return DSM_ERR_PROTOCOL;
    for (uint32_t k = 0; k < h.count; k++) {
        const unsigned char *b = (const unsigned char *)msg + sizeof h +
                                 (size_t)k * sizeof(coh_names_block_t);
        uint32_t item;
        memcpy(&item, b + offsetof(coh_names_block_t, item), sizeof item);
        if (item >= items ||
            !memchr(b + offsetof(coh_names_block_t, where), 0, COH_NAME_TEXT))
            return DSM_ERR_PROTOCOL;
    }
    *count = h.count;
    return DSM_OK;
}

coh_names_block_t coh_report_names_block(const void *msg, uint32_t k)
{
    coh_names_block_t b;
    memcpy(&b, (const unsigned char *)msg + sizeof(coh_msg_names_t) +
                   (size_t)k * sizeof b,
           sizeof b);
    return b;
}
