/*
 * fuzz_tp_hello.c - libFuzzer harness of the hello decoder node 0 runs on
 * every connection to its rendezvous port (tp_wire_check_hello in
 * runtime/transport/tp_wire.c), the one message dsmomp takes from
 * processes that have not yet shown the job's token.
 *
 * Input: one byte giving the job size (1..16), then the bytes the
 * connection sends.  The harness feeds them as tp_rendezvous.c does: one
 * byte more at a time up to the fixed part, then up to what the decoder
 * asks for.  Checks: a verdict never changes from "bad" back to "more" or
 * "done" as bytes arrive; "more" always asks for more than it has; "done"
 * names a rank in 1..size-1 and a record whose pointers lie inside the
 * hello, and encoding that rank, the token and the record again gives
 * exactly the bytes received.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "tp_wire.h"

static const char token[] = "fuzz-token-0123456789abcdef";

static int inside(const void *p, size_t len, const unsigned char *base,
                  size_t base_len)
{
    const unsigned char *q = p;
    return len == 0 || (q >= base && q <= base + base_len &&
                        len <= (size_t)(base + base_len - q));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int nodes = data[0] % 16 + 1;
    const unsigned char *bytes = data + 1;
    size_t len = size - 1;
    /* an exact-size copy, so a read past the bytes received is caught */
    unsigned char *in = malloc(len ? len : 1);
    FUZZ_CHECK(in != NULL);
    memcpy(in, bytes, len);

    tp_hello_t h;
    tp_hello_verdict_t v = TP_HELLO_MORE;
    size_t have = 0;
    int bad_seen = 0;
    for (;;) {
        v = tp_wire_check_hello(in, have, token, nodes, &h);
        FUZZ_CHECK(!bad_seen || v == TP_HELLO_BAD);
        if (v == TP_HELLO_BAD) {
            FUZZ_CHECK(h.why != NULL);
            bad_seen = 1;
        }
        if (v != TP_HELLO_MORE)
            break;
        FUZZ_CHECK(h.need > have);
        if (have == len)
            break;                       /* the connection stopped sending */
        /* byte by byte through the fixed part, then in one read */
        size_t fixed = TP_WIRE_HELLO_FIXED + TP_WIRE_RECORD_FIXED;
        size_t next = have < fixed ? have + 1 : h.need;
        have = next < len ? next : len;
    }
    if (v == TP_HELLO_DONE) {
        FUZZ_CHECK(h.rank >= 1 && h.rank < (uint32_t)nodes);
        FUZZ_CHECK(h.need <= have && h.need >= TP_WIRE_HELLO_FIXED);
        const tp_record_t *r = &h.rec;
        const unsigned char *rec = in + TP_WIRE_HELLO_FIXED;
        size_t rec_len = h.need - TP_WIRE_HELLO_FIXED;
        FUZZ_CHECK(tp_wire_record_len(r) == rec_len);
        FUZZ_CHECK(r->addr_len > 0 && inside(r->addr, r->addr_len, rec, rec_len));
        for (int s = 0; s < DSM_TP_SEG_COUNT; s++)
            FUZZ_CHECK(inside(r->rkey[s], r->rkey_len[s], rec, rec_len));
        unsigned char *again = malloc(h.need);
        FUZZ_CHECK(again != NULL);
        tp_wire_put_hello_header(again, h.rank, token);
        tp_wire_put_record(again + TP_WIRE_HELLO_FIXED, r);
        FUZZ_CHECK(memcmp(again, in, h.need) == 0);
        free(again);
    }
    free(in);
    return 0;
}
