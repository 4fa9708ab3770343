/*
 * fuzz_tp_table.c - libFuzzer harness of the decoder every node other
 * than 0 runs on the wire-up table node 0 sends it (tp_wire_get_table_header
 * and tp_wire_get_table in runtime/transport/tp_wire.c).
 *
 * Input: one byte giving the job size (1..16), then the table as it comes
 * off the socket: the fixed header, then the body.  Checks: an accepted
 * header announces a body no larger than its bound; an accepted body holds
 * exactly size records, each inside the body, whose encodings laid end to
 * end give the body back byte for byte.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "tp_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 + TP_WIRE_TABLE_FIXED)
        return 0;
    int nodes = data[0] % 16 + 1;
    size_t body_len;
    if (tp_wire_get_table_header(data + 1, nodes, &body_len) != DSM_OK)
        return 0;
    FUZZ_CHECK(body_len <= (size_t)nodes * (TP_WIRE_RECORD_FIXED +
                                           3u * TP_WIRE_BLOB_MAX));
    size_t avail = size - 1 - TP_WIRE_TABLE_FIXED;
    if (body_len > avail)
        return 0;                        /* the sender stopped early */
    /* an exact-size copy, so a read past the body is caught */
    unsigned char *body = malloc(body_len ? body_len : 1);
    FUZZ_CHECK(body != NULL);
    memcpy(body, data + 1 + TP_WIRE_TABLE_FIXED, body_len);
    tp_record_t table[16];
    if (tp_wire_get_table(body, body_len, nodes, table) == DSM_OK) {
        unsigned char *again = malloc(body_len ? body_len : 1);
        FUZZ_CHECK(again != NULL);
        size_t off = 0;
        for (int r = 0; r < nodes; r++) {
            size_t n = tp_wire_record_len(&table[r]);
            FUZZ_CHECK(n <= body_len - off);
            const unsigned char *a = table[r].addr;
            FUZZ_CHECK(a >= body + off && a + table[r].addr_len <= body + off + n);
            tp_wire_put_record(again + off, &table[r]);
            off += n;
        }
        FUZZ_CHECK(off == body_len);
        FUZZ_CHECK(memcmp(again, body, body_len) == 0);
        free(again);
    }
    free(body);
    return 0;
}
