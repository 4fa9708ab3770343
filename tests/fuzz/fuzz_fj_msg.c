/*
 * fuzz_fj_msg.c - libFuzzer harness of the fork-join layer's message
 * decoders (runtime/forkjoin/fj_wire.c): FORK, EXIT and SETTLE, which
 * every node takes from node 0, REDUCE, which node 0 takes from the
 * others, and PULL (a REDUCE head without bytes: which partial result
 * node 0 asks for).
 *
 * Input: one byte choosing the message kind, one giving the layout (1..8
 * nodes x 1..4 threads), then the payload.  Checks, for an accepted
 * message: a FORK's team, arguments, data environment and handoff lie
 * within their bounds, the handoff is the payload's tail, arguments past
 * argc are zero, and encoding the view again gives the payload back byte
 * for byte; an EXIT is exactly its status; a SETTLE is empty; a REDUCE's
 * bytes are the payload after its two numbers, at most FJ_RED_MAX_BYTES.
 * The payload is an exact-size heap copy, so a read past its end is
 * caught by AddressSanitizer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fj_partials.h"
#include "fj_wire.h"
#include "fuzz_check.h"

static void check_fork(const unsigned char *msg, size_t len,
                       const fj_wire_limits_t *lim)
{
    fj_wire_fork_t f;
    if (fj_wire_fork(msg, len, lim, &f) != DSM_OK)
        return;
    const fj_fork_msg_t *m = &f.msg;
    FUZZ_CHECK(m->argc >= 0 && m->argc <= FJ_MAX_ARGS);
    FUZZ_CHECK(m->nthreads >= 2 && m->nthreads <= lim->nodes * lim->threads);
    FUZZ_CHECK(m->icv_nthreads >= 1 && m->sched_chunk >= 0 &&
               (m->icv_dynamic == 0 || m->icv_dynamic == 1));
    FUZZ_CHECK(m->level >= 1 && m->icv_max_active_levels >= 1);
    FUZZ_CHECK(m->handoff_bytes <= FJ_HANDOFF_BYTES &&
               f.handoff_len == m->handoff_bytes &&
               f.handoff + f.handoff_len == msg + len);
    for (int i = m->argc; i < FJ_MAX_ARGS; i++)
        FUZZ_CHECK(m->args[i] == 0);
    /* the same bytes again: fixed part, arguments, handoff */
    const size_t head = offsetof(fj_fork_msg_t, args);
    unsigned char *again = malloc(len);
    FUZZ_CHECK(again != NULL);
    memcpy(again, m, head);
    memcpy(again + head, m->args, (size_t)m->argc * sizeof(uint64_t));
    memcpy(again + head + (size_t)m->argc * sizeof(uint64_t), f.handoff,
           f.handoff_len);
    FUZZ_CHECK(memcmp(again, msg, len) == 0);
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const fj_wire_limits_t lim = {data[1] % 8 + 1, data[1] / 8 % 4 + 1};
    size_t len = size - 2;
    unsigned char *msg = malloc(len ? len : 1);
    FUZZ_CHECK(msg != NULL);
    memcpy(msg, data + 2, len);

    switch (data[0] % 4) {
    case 0:
        check_fork(msg, len, &lim);
        break;
    case 1: {
        int32_t status;
        if (fj_wire_exit(msg, len, &status) == DSM_OK)
            FUZZ_CHECK(len == sizeof(fj_exit_msg_t) &&
                       memcmp(&status, msg, sizeof status) == 0);
        break;
    }
    case 2:
        if (fj_wire_settle(msg, len) == DSM_OK)
            FUZZ_CHECK(len == 0);
        break;
    case 3: {
        fj_wire_partial_t p;
        if (fj_wire_partial(msg, len, &p) != DSM_OK)
            break;
        FUZZ_CHECK(p.bytes == msg + 16 && p.len == len - 16 &&
                   p.len <= FJ_RED_MAX_BYTES);
        FUZZ_CHECK(memcmp(&p.region, msg, 8) == 0 &&
                   memcmp(&p.seq, msg + 8, 8) == 0);
        break;
    }
    }
    free(msg);
    return 0;
}
