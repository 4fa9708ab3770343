/*
 * fj_wire.c - decoders of the fork-join layer's messages; see fj_wire.h.
 *
 * Layer: forkjoin.  Pure functions, callable anywhere (handlers, fuzz
 * harness): no side effects, no allocation, no logging.
 */
#include "fj_wire.h"

#include <string.h>

#include "fj_partials.h"

dsm_status_t fj_wire_fork(const void *payload, size_t len,
                          const fj_wire_limits_t *lim, fj_wire_fork_t *out)
{
    const size_t head = offsetof(fj_fork_msg_t, args);
    /* the fixed part is checked in a copy; out is written on success only
     * (and straight away: a FORK is on every region's critical path) */
    fj_fork_msg_t hdr;
    if (!payload || len < head)
        return DSM_ERR_PROTOCOL;
    memcpy(&hdr, payload, head);
    const fj_fork_msg_t *m = &hdr;
    if (m->argc < 0 || m->argc > FJ_MAX_ARGS ||
        m->handoff_bytes > FJ_HANDOFF_BYTES)
        return DSM_ERR_PROTOCOL;
    size_t args = (size_t)m->argc * sizeof(uint64_t);
    if (len != head + args + m->handoff_bytes)
        return DSM_ERR_PROTOCOL;
    long team_max = (long)lim->nodes * lim->threads;
    if (m->nthreads < 2 || m->nthreads > team_max || m->icv_nthreads < 1 ||
        (m->icv_dynamic != 0 && m->icv_dynamic != 1) ||
        FJ_SCHED_KIND(m->sched_kind) < FJ_SCHED_STATIC ||
        FJ_SCHED_KIND(m->sched_kind) > FJ_SCHED_AUTO ||
        m->sched_chunk < 0 || m->level < 1 || m->icv_max_active_levels < 1 ||
        m->num_teams < 1 || m->team_num < 0 || m->team_num >= m->num_teams)
        return DSM_ERR_PROTOCOL;
    memcpy(&out->msg, &hdr, head);
    memcpy(out->msg.args, (const unsigned char *)payload + head, args);
    memset(out->msg.args + m->argc, 0,
           (size_t)(FJ_MAX_ARGS - m->argc) * sizeof(uint64_t));
    out->handoff = (const unsigned char *)payload + head + args;
    out->handoff_len = m->handoff_bytes;
    return DSM_OK;
}

dsm_status_t fj_wire_exit(const void *payload, size_t len, int32_t *status)
{
    fj_exit_msg_t m;
    if (!payload || len != sizeof m)
        return DSM_ERR_PROTOCOL;
    memcpy(&m, payload, sizeof m);
    *status = m.status;
    return DSM_OK;
}

dsm_status_t fj_wire_settle(const void *payload, size_t len)
{
    (void)payload;
    return len == 0 ? DSM_OK : DSM_ERR_PROTOCOL;
}

dsm_status_t fj_wire_partial(const void *payload, size_t len,
                             fj_wire_partial_t *out)
{
    uint64_t head[2];
    if (!payload || len < sizeof head ||
        len - sizeof head > FJ_RED_MAX_BYTES)
        return DSM_ERR_PROTOCOL;
    memcpy(head, payload, sizeof head);
    out->region = head[0];
    out->seq = head[1];
    out->bytes = (const unsigned char *)payload + sizeof head;
    out->len = len - sizeof head;
    return DSM_OK;
}

dsm_status_t fj_wire_cancel(const void *payload, size_t len,
                            fj_wire_cancel_t *out)
{
    fj_wire_cancel_t m;
    if (!payload || len != sizeof m)
        return DSM_ERR_PROTOCOL;
    memcpy(&m, payload, sizeof m);
    if (m.kind != FJ_CANCEL_PARALLEL && m.kind != FJ_CANCEL_LOOP &&
        m.kind != FJ_CANCEL_SECTIONS)
        return DSM_ERR_PROTOCOL;
    *out = m;
    return DSM_OK;
}

dsm_status_t fj_wire_doacross(const void *payload, size_t len,
                              const fj_wire_limits_t *lim,
                              fj_wire_doacross_t *out)
{
    fj_wire_doacross_t m;
    if (!payload || len != sizeof m)
        return DSM_ERR_PROTOCOL;
    memcpy(&m, payload, sizeof m);
    if ((m.op != FJ_DOACROSS_WANT && m.op != FJ_DOACROSS_POSTED) ||
        m.thread < 0 || m.thread >= lim->threads)
        return DSM_ERR_PROTOCOL;
    *out = m;
    return DSM_OK;
}
