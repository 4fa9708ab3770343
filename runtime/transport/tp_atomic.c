/*
 * tp_atomic.c - remote atomics (fetch-add, swap, compare-and-swap; 32 and
 * 64 bit) on the registered segments of any node.
 *
 * Layer: transport.  Entry points: dsm_tp_atomic_* (any application thread
 * and the fault handler; not from active-message handlers);
 * dsm_tp_cpu_atomics (any thread).  Blocking: the
 * call returns the old value.
 *
 * With several nodes every atomic goes through UCX, the calling node's own
 * words included (its endpoint to itself): a network adapter's atomics are
 * atomic only with respect to each other, not to the CPU's, so mixing
 * paths on one word could lose updates; UCX picks one atomic path for the
 * worker.  On a single node there is no network and the CPU's atomics are
 * used directly.  So they are on a segment every node of a one-host job
 * maps (tp.cpu_atomics, decided in tp_wireup.c from the node table, the
 * same way on every node): then every node reaches every word of it with
 * the CPU, and no UCX path is ever mixed in.
 */
#include "base_log.h"
#include "sys_stack.h"
#include "tp_counters.h"
#include "tp_progress.h"
#include "tp_rma.h"
#include "tp_state.h"

static dsm_status_t cpu_atomic(ucp_atomic_op_t op, unsigned width,
                               uint64_t addr, uint64_t value,
                               uint64_t desired, uint64_t *old)
{
    if (width == 8) {
        uint64_t *p = (uint64_t *)(uintptr_t)addr;
        switch (op) {
        case UCP_ATOMIC_OP_ADD:
            *old = __atomic_fetch_add(p, value, __ATOMIC_SEQ_CST);
            break;
        case UCP_ATOMIC_OP_SWAP:
            *old = __atomic_exchange_n(p, value, __ATOMIC_SEQ_CST);
            break;
        default:
            __atomic_compare_exchange_n(p, &value, desired, 0,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            *old = value;   /* the previous value, on success or failure */
            break;
        }
    } else {
        uint32_t *p = (uint32_t *)(uintptr_t)addr;
        uint32_t v = (uint32_t)value;
        switch (op) {
        case UCP_ATOMIC_OP_ADD:
            *old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
            break;
        case UCP_ATOMIC_OP_SWAP:
            *old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
            break;
        default:
            __atomic_compare_exchange_n(p, &v, (uint32_t)desired, 0,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            *old = v;
            break;
        }
    }
    return DSM_OK;
}

/* value: the add or swap operand, or the expected value of CSWAP. */
static dsm_status_t atomic_here(const char *call, int rank,
                                dsm_tp_segment_t seg, uint64_t offset,
                                ucp_atomic_op_t op, unsigned width,
                                uint64_t value, uint64_t desired,
                                uint64_t *old)
{
    tp_check_not_in_handler(call);
    if (offset % width)
        return DSM_ERR_INVALID;
    uint64_t raddr;
    ucp_rkey_h rkey;
    dsm_status_t st = tp_resolve(rank, seg, offset, width, &raddr, &rkey);
    if (st != DSM_OK)
        return st;
    if (raddr % width)
        return DSM_ERR_INVALID;
    uint64_t result;
    if (!tp.worker || (tp.cpu_atomics[seg] && rank == tp.rank)) {
        st = cpu_atomic(op, width, raddr, value, desired, &result);
    } else if (tp.cpu_atomics[seg]) {
        uint64_t local = (uint64_t)(uintptr_t)tp.peers[rank].direct[seg] +
                         offset;
        st = cpu_atomic(op, width, local, value, desired, &result);
    } else {
        /* UCX reads the operand and writes the reply in the operation's
         * width; for CSWAP the reply buffer carries the desired value in. */
        union { uint64_t u64; uint32_t u32; } operand, reply;
        if (width == 8) {
            operand.u64 = value;
            reply.u64 = desired;
        } else {
            operand.u32 = (uint32_t)value;
            reply.u32 = (uint32_t)desired;
        }
        ucp_request_param_t prm = {
            .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE |
                            UCP_OP_ATTR_FIELD_REPLY_BUFFER |
                            UCP_OP_ATTR_FIELD_MEMORY_TYPE,
            .datatype = ucp_dt_make_contig(width),
            .reply_buffer = &reply,
            .memory_type = UCS_MEMORY_TYPE_HOST,
        };
        ucs_status_ptr_t req = ucp_atomic_op_nbx(tp.peers[rank].ep, op,
                                                 &operand, 1, raddr, rkey,
                                                 &prm);
        st = tp_wait_request(req, "an atomic on", rank);
        result = width == 8 ? reply.u64 : reply.u32;
    }
    if (st != DSM_OK)
        return st;
    tp_count_atomic();
    *old = result;
    return DSM_OK;
}

typedef struct atomic_call {
    const char *call;
    int rank;
    dsm_tp_segment_t seg;
    uint64_t offset;
    ucp_atomic_op_t op;
    unsigned width;
    uint64_t value, desired, old;
    dsm_status_t st;
} atomic_call_t;

static void atomic_body(void *p)
{
    atomic_call_t *c = p;
    c->st = atomic_here(c->call, c->rank, c->seg, c->offset, c->op, c->width,
                        c->value, c->desired, &c->old);
}

/* The wait progresses, so handlers would run on a sharable stack: leave
 * it first (sys_stack.h).  The result travels in the call's record. */
static dsm_status_t atomic_op(const char *call, int rank,
                              dsm_tp_segment_t seg, uint64_t offset,
                              ucp_atomic_op_t op, unsigned width,
                              uint64_t value, uint64_t desired, uint64_t *old)
{
    if (!dsm_sys_stack_sharable())
        return atomic_here(call, rank, seg, offset, op, width, value,
                           desired, old);
    atomic_call_t c = {call, rank, seg, offset, op, width, value, desired, 0,
                       DSM_OK};
    dsm_sys_on_rtstack(atomic_body, &c);
    if (c.st == DSM_OK)
        *old = c.old;
    return c.st;
}

int dsm_tp_cpu_atomics(dsm_tp_segment_t seg)
{
    return tp.initialized && tp_seg_valid(seg) && tp.cpu_atomics[seg];
}

dsm_status_t dsm_tp_atomic_fadd64(int rank, dsm_tp_segment_t seg,
                                  uint64_t offset, uint64_t add,
                                  uint64_t *old)
{
    uint64_t prev;
    dsm_status_t st = atomic_op("dsm_tp_atomic_fadd64", rank, seg, offset,
                                UCP_ATOMIC_OP_ADD, 8, add, 0, &prev);
    if (st == DSM_OK && old)
        *old = prev;
    return st;
}

dsm_status_t dsm_tp_atomic_fadd32(int rank, dsm_tp_segment_t seg,
                                  uint64_t offset, uint32_t add,
                                  uint32_t *old)
{
    uint64_t prev;
    dsm_status_t st = atomic_op("dsm_tp_atomic_fadd32", rank, seg, offset,
                                UCP_ATOMIC_OP_ADD, 4, add, 0, &prev);
    if (st == DSM_OK && old)
        *old = (uint32_t)prev;
    return st;
}

dsm_status_t dsm_tp_atomic_swap64(int rank, dsm_tp_segment_t seg,
                                  uint64_t offset, uint64_t value,
                                  uint64_t *old)
{
    uint64_t prev;
    dsm_status_t st = atomic_op("dsm_tp_atomic_swap64", rank, seg, offset,
                                UCP_ATOMIC_OP_SWAP, 8, value, 0, &prev);
    if (st == DSM_OK && old)
        *old = prev;
    return st;
}

dsm_status_t dsm_tp_atomic_swap32(int rank, dsm_tp_segment_t seg,
                                  uint64_t offset, uint32_t value,
                                  uint32_t *old)
{
    uint64_t prev;
    dsm_status_t st = atomic_op("dsm_tp_atomic_swap32", rank, seg, offset,
                                UCP_ATOMIC_OP_SWAP, 4, value, 0, &prev);
    if (st == DSM_OK && old)
        *old = (uint32_t)prev;
    return st;
}

dsm_status_t dsm_tp_atomic_cswap64(int rank, dsm_tp_segment_t seg,
                                   uint64_t offset, uint64_t expected,
                                   uint64_t desired, uint64_t *old)
{
    uint64_t prev;
    dsm_status_t st = atomic_op("dsm_tp_atomic_cswap64", rank, seg, offset,
                                UCP_ATOMIC_OP_CSWAP, 8, expected, desired,
                                &prev);
    if (st == DSM_OK && old)
        *old = prev;
    return st;
}

dsm_status_t dsm_tp_atomic_cswap32(int rank, dsm_tp_segment_t seg,
                                   uint64_t offset, uint32_t expected,
                                   uint32_t desired, uint32_t *old)
{
    uint64_t prev;
    dsm_status_t st = atomic_op("dsm_tp_atomic_cswap32", rank, seg, offset,
                                UCP_ATOMIC_OP_CSWAP, 4, expected, desired,
                                &prev);
    if (st == DSM_OK && old)
        *old = (uint32_t)prev;
    return st;
}
