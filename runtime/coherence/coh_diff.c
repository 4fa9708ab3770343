/*
 * coh_diff.c - twin/page comparison and the byte-masked diff wire form.
 * Layer: coherence.  Async-signal-safe; no allocation.
 */
#include "coh_diff.h"

#include <string.h>

static uint8_t changed_bytes(uint64_t a, uint64_t b)
{
    uint64_t x = a ^ b;
    uint8_t mask = 0;
    for (unsigned i = 0; i < 8; i++)
        if ((x >> (8 * i)) & 0xff)
            mask |= (uint8_t)(1u << i);
    return mask;
}

size_t dsm_diff_encode(const void *page, const void *twin, size_t page_size,
                       void *out)
{
    return dsm_diff_encode_within(page, twin, page_size, out,
                                  DSM_DIFF_MAX_ENCODED(page_size));
}

size_t dsm_diff_encode_within(const void *page, const void *twin,
                              size_t page_size, void *out, size_t max)
{
    const uint64_t *p = page, *t = twin;
    unsigned char *o = out;
    size_t words = page_size / DSM_DIFF_WORD, used = 0, i = 0;
    while (i < words) {
        /* skip equal words quickly, 4 at a time */
        while (i + 4 <= words && p[i] == t[i] && p[i + 1] == t[i + 1] &&
               p[i + 2] == t[i + 2] && p[i + 3] == t[i + 3])
            i += 4;
        while (i < words && p[i] == t[i])
            i++;
        if (i == words)
            break;
        size_t start = i;
        while (i < words && p[i] != t[i] && i - start < DSM_DIFF_FULL_RUN - 1)
            i++;
        size_t n = i - start;
        /* at least the header and the words: past max, stop here */
        if (used + 2 * sizeof(uint16_t) + n * DSM_DIFF_WORD > max)
            return max + 1;
        uint16_t hdr[2] = {(uint16_t)start, (uint16_t)n};
        unsigned char *masks = o + used + sizeof hdr;
        int all = 1;
        for (size_t k = 0; k < n; k++) {
            masks[k] = changed_bytes(p[start + k], t[start + k]);
            all &= masks[k] == 0xff;
        }
        if (all)   /* every byte of the run changed: no masks on the wire */
            hdr[1] |= DSM_DIFF_FULL_RUN;
        memcpy(o + used, hdr, sizeof hdr);
        used += sizeof hdr + (all ? 0 : n);
        memcpy(o + used, p + start, n * DSM_DIFF_WORD);
        used += n * DSM_DIFF_WORD;
        if (used > max)
            return max + 1;
    }
    return used;
}

/* Validate the whole encoding before writing, so a bad diff changes nothing. */
static int diff_valid(size_t page_size, const unsigned char *d, size_t len)
{
    size_t pos = 0, words = page_size / DSM_DIFF_WORD, end_prev = 0;
    while (pos < len) {
        uint16_t hdr[2];
        if (len - pos < sizeof hdr)
            return 0;
        memcpy(hdr, d + pos, sizeof hdr);
        size_t off = hdr[0], cnt = hdr[1] & (DSM_DIFF_FULL_RUN - 1);
        size_t per_word = DSM_DIFF_WORD + !(hdr[1] & DSM_DIFF_FULL_RUN);
        if (cnt == 0 || off < end_prev || off > words || cnt > words - off)
            return 0;
        pos += sizeof hdr;
        if (len - pos < cnt * per_word)
            return 0;
        pos += cnt * per_word;
        end_prev = off + cnt;
    }
    return 1;
}

dsm_status_t dsm_diff_check(size_t page_size, const void *diff, size_t len)
{
    return diff_valid(page_size, diff, len) ? DSM_OK : DSM_ERR_PROTOCOL;
}

dsm_status_t dsm_diff_apply(void *page, size_t page_size, const void *diff,
                            size_t len, size_t *bytes)
{
    const unsigned char *d = diff;
    unsigned char *pg = page;
    if (!diff_valid(page_size, d, len))
        return DSM_ERR_PROTOCOL;
    size_t pos = 0, written = 0;
    while (pos < len) {
        uint16_t hdr[2];
        memcpy(hdr, d + pos, sizeof hdr);
        pos += sizeof hdr;
        size_t cnt = hdr[1] & (DSM_DIFF_FULL_RUN - 1);
        int full = (hdr[1] & DSM_DIFF_FULL_RUN) != 0;
        const unsigned char *mask = d + pos, *data = d + pos + (full ? 0 : cnt);
        unsigned char *dst = pg + (size_t)hdr[0] * DSM_DIFF_WORD;
        if (full) {
            memcpy(dst, data, cnt * DSM_DIFF_WORD);
            written += cnt * DSM_DIFF_WORD;
            pos += cnt * DSM_DIFF_WORD;
            continue;
        }
        for (size_t k = 0; k < cnt; k++) {
            if (mask[k] == 0xff) {
                memcpy(dst + k * DSM_DIFF_WORD, data + k * DSM_DIFF_WORD,
                       DSM_DIFF_WORD);
                written += DSM_DIFF_WORD;
                continue;
            }
            for (unsigned b = 0; b < DSM_DIFF_WORD; b++)
                if (mask[k] & (1u << b)) {
                    dst[k * DSM_DIFF_WORD + b] = data[k * DSM_DIFF_WORD + b];
                    written++;
                }
        }
        pos += cnt * (1 + DSM_DIFF_WORD);
    }
    if (bytes)
        *bytes = written;
    return DSM_OK;
}
