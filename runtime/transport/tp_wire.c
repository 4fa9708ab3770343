/*
 * tp_wire.c - byte layout of the bootstrap messages (hello, table, control
 * frames; see tp_wire.h), their decoders, and the constant-time token
 * check.
 *
 * Layer: transport.  Entry points: tp_wire_*.  Pure functions on caller
 * buffers: no allocation, no side effects, callable from anywhere; the
 * decoders are also what tests/fuzz drives.  Every length read from the
 * network is checked against TP_WIRE_BLOB_MAX and against the bytes at
 * hand before it is used.
 */
#include <string.h>

#include "tp_wire.h"

void tp_wire_put_u32(unsigned char *out, uint32_t v)
{
    out[0] = (unsigned char)(v >> 24);
    out[1] = (unsigned char)(v >> 16);
    out[2] = (unsigned char)(v >> 8);
    out[3] = (unsigned char)v;
}

uint32_t tp_wire_get_u32(const unsigned char *in)
{
    return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 |
           (uint32_t)in[2] << 8 | (uint32_t)in[3];
}

static void put_u64(unsigned char *out, uint64_t v)
{
    tp_wire_put_u32(out, (uint32_t)(v >> 32));
    tp_wire_put_u32(out + 4, (uint32_t)v);
}

static uint64_t get_u64(const unsigned char *in)
{
    return (uint64_t)tp_wire_get_u32(in) << 32 | tp_wire_get_u32(in + 4);
}

uint32_t tp_wire_magic(const unsigned char *in) { return tp_wire_get_u32(in); }

size_t tp_wire_record_len(const tp_record_t *rec)
{
    size_t len = TP_WIRE_RECORD_FIXED + rec->addr_len;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++)
        len += rec->rkey_len[s];
    return len;
}

void tp_wire_put_record(unsigned char *out, const tp_record_t *rec)
{
    memcpy(out, rec->host_id, TP_WIRE_HOST_ID_LEN);
    unsigned char *p = out + TP_WIRE_HOST_ID_LEN;
    tp_wire_put_u32(p, (uint32_t)rec->addr_len);
    put_u64(p + 4, rec->netns);
    tp_wire_put_u32(p + 12, rec->pid);
    tp_wire_put_u32(p + 16, rec->lane_fd);
    tp_wire_put_u32(p + 20, rec->bell_fd);
    p += 24;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
        put_u64(p, rec->seg_base[s]);
        put_u64(p + 8, rec->seg_size[s]);
        tp_wire_put_u32(p + 16, (uint32_t)rec->rkey_len[s]);
        tp_wire_put_u32(p + 20, rec->map_fd[s]);
        p += TP_WIRE_SEG_LEN;
    }
    memcpy(p, rec->addr, rec->addr_len);
    p += rec->addr_len;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
        if (rec->rkey_len[s])
            memcpy(p, rec->rkey[s], rec->rkey_len[s]);
        p += rec->rkey_len[s];
    }
}

size_t tp_wire_record_total(const unsigned char fixed[TP_WIRE_RECORD_FIXED])
{
    const unsigned char *p = fixed + TP_WIRE_HOST_ID_LEN;
    uint32_t addr_len = tp_wire_get_u32(p);
    if (addr_len == 0 || addr_len > TP_WIRE_BLOB_MAX)
        return 0;
    size_t total = TP_WIRE_RECORD_FIXED + addr_len;
    p += 24;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++, p += TP_WIRE_SEG_LEN) {
        uint32_t rkey_len = tp_wire_get_u32(p + 16);
        if (rkey_len > TP_WIRE_BLOB_MAX)
            return 0;
        total += rkey_len;
    }
    return total;
}

size_t tp_wire_get_record(const unsigned char *in, size_t len,
                          tp_record_t *rec)
{
    if (len < TP_WIRE_RECORD_FIXED)
        return 0;
    size_t total = tp_wire_record_total(in);
    if (total == 0 || total > len)
        return 0;
    tp_record_t r;
    memcpy(r.host_id, in, TP_WIRE_HOST_ID_LEN);
    const unsigned char *p = in + TP_WIRE_HOST_ID_LEN;
    r.addr_len = tp_wire_get_u32(p);
    r.netns = get_u64(p + 4);
    r.pid = tp_wire_get_u32(p + 12);
    r.lane_fd = tp_wire_get_u32(p + 16);
    r.bell_fd = tp_wire_get_u32(p + 20);
    p += 24;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++, p += TP_WIRE_SEG_LEN) {
        r.seg_base[s] = get_u64(p);
        r.seg_size[s] = get_u64(p + 8);
        r.rkey_len[s] = tp_wire_get_u32(p + 16);
        r.map_fd[s] = tp_wire_get_u32(p + 20);
        /* a segment that wraps the address space cannot be addressed */
        if (r.seg_base[s] + r.seg_size[s] < r.seg_base[s])
            return 0;
    }
    r.addr = p;
    p += r.addr_len;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
        r.rkey[s] = r.rkey_len[s] ? p : NULL;
        p += r.rkey_len[s];
    }
    *rec = r;
    return total;
}

void tp_wire_put_hello_header(unsigned char out[TP_WIRE_HELLO_FIXED],
                              uint32_t rank, const char *token)
{
    tp_wire_put_u32(out, TP_MAGIC_HELLO);
    tp_wire_put_u32(out + 4, TP_WIRE_VERSION);
    tp_wire_put_u32(out + 8, rank);
    memset(out + 12, 0, TP_WIRE_TOKEN_LEN);
    size_t n = strnlen(token, TP_WIRE_TOKEN_LEN);
    memcpy(out + 12, token, n);
}

int tp_wire_token_matches(const unsigned char field[TP_WIRE_TOKEN_LEN],
                          const char *token)
{
    /* Compare all of the field whatever the first difference, so the time
     * taken says nothing about how much of a guess was right. */
    unsigned char expected[TP_WIRE_TOKEN_LEN];
    memset(expected, 0, sizeof expected);
    memcpy(expected, token, strnlen(token, TP_WIRE_TOKEN_LEN));
    volatile unsigned char diff = 0;
    for (unsigned i = 0; i < TP_WIRE_TOKEN_LEN; i++)
        diff |= (unsigned char)(field[i] ^ expected[i]);
    return diff == 0 && expected[0] != 0;
}

tp_hello_verdict_t tp_wire_check_hello(const unsigned char *in, size_t have,
                                       const char *token, int size,
                                       tp_hello_t *out)
{
    const size_t fixed = TP_WIRE_HELLO_FIXED + TP_WIRE_RECORD_FIXED;
    tp_hello_t h = {.need = fixed};
    tp_hello_verdict_t verdict = TP_HELLO_MORE;
    if (have < 8)
        goto done;
    verdict = TP_HELLO_BAD;
    if (tp_wire_magic(in) != TP_MAGIC_HELLO) {
        h.why = "bad magic (not a dsmomp node)";
        goto done;
    }
    if (tp_wire_get_u32(in + 4) != TP_WIRE_VERSION) {
        h.why = "unsupported protocol version";
        goto done;
    }
    verdict = TP_HELLO_MORE;
    if (have < TP_WIRE_HELLO_FIXED)
        goto done;
    verdict = TP_HELLO_BAD;
    if (!tp_wire_token_matches(in + 12, token)) {
        h.why = "bad token";
        goto done;
    }
    h.rank = tp_wire_get_u32(in + 8);
    if (h.rank == 0 || size < 1 || h.rank >= (uint32_t)size) {
        h.why = "rank out of range";
        h.bad_rank = 1;
        goto done;
    }
    verdict = TP_HELLO_MORE;
    if (have < fixed)
        goto done;
    verdict = TP_HELLO_BAD;
    size_t total = tp_wire_record_total(in + TP_WIRE_HELLO_FIXED);
    if (total == 0) {
        h.why = "bad lengths in hello";
        goto done;
    }
    h.need = TP_WIRE_HELLO_FIXED + total;
    verdict = TP_HELLO_MORE;
    if (have < h.need)
        goto done;
    verdict = TP_HELLO_BAD;
    if (tp_wire_get_record(in + TP_WIRE_HELLO_FIXED, total, &h.rec) != total) {
        h.why = "malformed hello";
        goto done;
    }
    verdict = TP_HELLO_DONE;
done:
    *out = h;
    return verdict;
}

dsm_status_t tp_wire_get_table_header(
    const unsigned char head[TP_WIRE_TABLE_FIXED], int size,
    size_t *body_len)
{
    if (size < 1 || tp_wire_magic(head) != TP_MAGIC_TABLE ||
        tp_wire_get_u32(head + 4) != TP_WIRE_VERSION ||
        tp_wire_get_u32(head + 8) != (uint32_t)size)
        return DSM_ERR_PROTOCOL;
    size_t body = tp_wire_get_u32(head + 12);
    size_t body_max = (size_t)size *
                      (TP_WIRE_RECORD_FIXED + 3u * TP_WIRE_BLOB_MAX);
    if (body > body_max)
        return DSM_ERR_PROTOCOL;
    *body_len = body;
    return DSM_OK;
}

dsm_status_t tp_wire_get_table(const unsigned char *body, size_t len,
                               int size, tp_record_t *table)
{
    size_t off = 0;
    for (int r = 0; r < size; r++) {
        size_t used = tp_wire_get_record(body + off, len - off, &table[r]);
        if (used == 0)
            return DSM_ERR_PROTOCOL;
        off += used;
    }
    return off == len ? DSM_OK : DSM_ERR_PROTOCOL;
}

/* ---- same-host lane records ---------------------------------------------- */

dsm_status_t tp_wire_lane_record(const unsigned char *ring, uint64_t ring_bytes,
                                 uint64_t tail, uint64_t ready,
                                 tp_lane_view_t *out)
{
    if (ring_bytes < TP_LANE_LINE || ring_bytes % TP_LANE_LINE ||
        tail % TP_LANE_LINE || ready != tail + 1)
        return DSM_ERR_PROTOCOL;
    uint64_t pos = tail % ring_bytes;
    uint32_t len;
    uint8_t id, kind;
    memcpy(&len, ring + pos + 8, sizeof len);
    memcpy(&id, ring + pos + 12, 1);
    memcpy(&kind, ring + pos + 13, 1);
    tp_lane_view_t v = {kind, id, ring + pos + TP_LANE_HDR_BYTES, len, 0};
    if (kind == TP_LANE_WRAP) {
        /* at offset 0 it would skip a whole lap: every record fits there */
        if (len != 0 || pos == 0)
            return DSM_ERR_PROTOCOL;
        v.next = tail + (ring_bytes - pos);
        *out = v;
        return DSM_OK;
    }
    if (kind < TP_LANE_WHOLE || kind > TP_LANE_LAST ||
        id >= DSM_TP_AM_MAX_ID || len > TP_LANE_MAX_PAYLOAD ||
        tp_lane_record_bytes(len) > ring_bytes - pos)
        return DSM_ERR_PROTOCOL;
    v.next = tail + tp_lane_record_bytes(len);
    *out = v;
    return DSM_OK;
}

dsm_status_t tp_wire_lane_step(tp_lane_asm_t *st, const tp_lane_view_t *rec,
                               int *deliver)
{
    *deliver = 0;
    switch (rec->kind) {
    case TP_LANE_WHOLE:
        if (st->active)
            return DSM_ERR_PROTOCOL;
        *deliver = 1;
        return DSM_OK;
    case TP_LANE_FIRST: {
        uint64_t total;
        if (st->active || rec->len < sizeof total)
            return DSM_ERR_PROTOCOL;
        memcpy(&total, rec->payload, sizeof total);
        if (total <= TP_LANE_MAX_PAYLOAD || total > TP_LANE_MAX_MESSAGE ||
            rec->len - sizeof total > total)
            return DSM_ERR_PROTOCOL;
        *st = (tp_lane_asm_t){1, rec->id, total, rec->len - sizeof total};
        return DSM_OK;
    }
    case TP_LANE_MORE:
    case TP_LANE_LAST:
        if (!st->active || rec->id != st->id ||
            rec->len > st->total - st->have)
            return DSM_ERR_PROTOCOL;
        st->have += rec->len;
        if (rec->kind == TP_LANE_LAST) {
            if (st->have != st->total)
                return DSM_ERR_PROTOCOL;
            st->active = 0;
            *deliver = 1;
        }
        return DSM_OK;
    default:
        return DSM_ERR_PROTOCOL;
    }
}
