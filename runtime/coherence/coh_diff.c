/*
 * coh_diff.c - twin/page comparison and the diff wire form.
 * Layer: coherence.  Async-signal-safe; no allocation.
 */
#include "coh_diff.h"

#include <string.h>

size_t dsm_diff_runs(const void *page, const void *twin, size_t page_size,
                     dsm_diff_emit_t emit, void *arg)
{
    const uint64_t *p = page, *t = twin;
    size_t words = page_size / DSM_DIFF_WORD, runs = 0, i = 0;
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
        while (i < words && p[i] != t[i])
            i++;
        emit(start * DSM_DIFF_WORD, (i - start) * DSM_DIFF_WORD, arg);
        runs++;
    }
    return runs;
}

struct encode_ctx {
    const char *page;
    char *out;
    size_t used;
};

static void encode_run(size_t offset, size_t len, void *arg)
{
    struct encode_ctx *ctx = arg;
    uint16_t hdr[2] = {(uint16_t)(offset / DSM_DIFF_WORD),
                       (uint16_t)(len / DSM_DIFF_WORD)};
    memcpy(ctx->out + ctx->used, hdr, sizeof hdr);
    memcpy(ctx->out + ctx->used + sizeof hdr, ctx->page + offset, len);
    ctx->used += sizeof hdr + len;
}

size_t dsm_diff_encode(const void *page, const void *twin, size_t page_size,
                       void *out)
{
    struct encode_ctx ctx = {page, out, 0};
    dsm_diff_runs(page, twin, page_size, encode_run, &ctx);
    return ctx.used;
}

/* Validate the whole encoding before writing, so a bad diff changes nothing. */
static int diff_valid(size_t page_size, const char *diff, size_t len)
{
    size_t pos = 0, words = page_size / DSM_DIFF_WORD, end_prev = 0;
    while (pos < len) {
        uint16_t hdr[2];
        if (len - pos < sizeof hdr)
            return 0;
        memcpy(hdr, diff + pos, sizeof hdr);
        size_t off = hdr[0], cnt = hdr[1];
        if (cnt == 0 || off < end_prev || off > words || cnt > words - off)
            return 0;
        pos += sizeof hdr;
        if (len - pos < cnt * DSM_DIFF_WORD)
            return 0;
        pos += cnt * DSM_DIFF_WORD;
        end_prev = off + cnt;
    }
    return 1;
}

dsm_status_t dsm_diff_apply(void *page, size_t page_size, const void *diff,
                            size_t len)
{
    const char *d = diff;
    if (!diff_valid(page_size, d, len))
        return DSM_ERR_PROTOCOL;
    size_t pos = 0;
    while (pos < len) {
        uint16_t hdr[2];
        memcpy(hdr, d + pos, sizeof hdr);
        pos += sizeof hdr;
        memcpy((char *)page + (size_t)hdr[0] * DSM_DIFF_WORD, d + pos,
               (size_t)hdr[1] * DSM_DIFF_WORD);
        pos += (size_t)hdr[1] * DSM_DIFF_WORD;
    }
    return DSM_OK;
}
