/*
 * coh_fault.c - the page-fault path: fetch a page from its home, make twins,
 * and the share handshake that tells a home its page now has copies.
 *
 * Layer: coherence.  coh_fault_handler runs inside the SIGSEGV handler of
 * the faulting application thread: no malloc, no stdio, only page locks
 * (never held while touching the application view) and transport calls.
 * The share handler runs in whichever thread progresses the transport.
 */
#include <string.h>
#include <unistd.h>

#include "base_log.h"
#include "base_time.h"
#include "coh_protocol.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "sys_fault.h"
#include "transport.h"

static void fetch_fail(dsm_status_t st)
{
    dsm_log_sigsafe("fatal: fetching a page from its home failed: ",
                    dsm_status_string(st));
    _exit(DSM_EXIT_FATAL);
}

/* Pages registered with their home in one share request grow like a
 * read-ahead window: a fault right after the last batch doubles it (a scan:
 * one round trip then covers the next pages too), any other fault starts
 * again at one page, because registering a page the node never reads makes
 * its home track (fault on) its own writes to it for nothing. */
#define SHARE_BATCH_MAX 16u
static __thread __attribute__((tls_model("initial-exec"))) size_t share_next;
static __thread __attribute__((tls_model("initial-exec"))) uint32_t share_batch;

/* Tell the home we now hold a copy, so it starts tracking its own writes to
 * the page (and the following unregistered pages it also homes).  Waits
 * for the acknowledgement: the home must write-protect the pages before we
 * read them, or a home write could escape the notices. */
static void share_with_home(size_t index, int home)
{
    share_batch = index == share_next && share_batch
                      ? (share_batch * 2 < SHARE_BATCH_MAX ? share_batch * 2
                                                           : SHARE_BATCH_MAX)
                      : 1;
    uint32_t count = 1;
    while (count < share_batch && index + count < coh.npages) {
        const coh_page_t *next = &coh.pages[index + count];
        if (next->home != home || (atomic_load(&next->flags) &
                                   (PF_REGISTERED | PF_HOME)))
            break;
        count++;
    }
    int slot = coh_slot_self();
    coh.slots[slot].done = 0;
    coh_msg_share_t msg = {(uint32_t)index, count, (uint32_t)slot, 0};
    dsm_status_t st = dsm_tp_am_send(home, COH_AM_SHARE_REQ, &msg, sizeof msg);
    if (st != DSM_OK)
        fetch_fail(st);
    dsm_tp_wait_flag(&coh.slots[slot].done, "the home's share acknowledgement");
    for (uint32_t k = 0; k < count; k++)
        atomic_fetch_or_explicit(&coh.pages[index + k].flags, PF_REGISTERED,
                                 memory_order_relaxed);
    share_next = index + count;
}

static void make_writable(size_t index, coh_page_t *pg, int home_page)
{
    if (!home_page) {
        memcpy(coh_page_twin(index), coh_page_rt(index), DSM_PAGE_SIZE);
        atomic_fetch_or_explicit(&pg->flags, PF_TWIN, memory_order_relaxed);
        COH_STAT_ADD(twins, 1);
    }
    coh_dirty_add(index);
    atomic_store_explicit(&pg->state, PS_WRITABLE, memory_order_release);
    coh_protect(index, 1, DSM_PROT_RW);
    COH_STAT_ADD(write_faults, 1);
}

int coh_fault_handler(uintptr_t addr, int access)
{
    long idx = coh_page_index(addr);
    if (idx < 0 || !coh.initialized)
        return 0;
    uint64_t t0 = dsm_now_ns();
    size_t index = (size_t)idx;
    coh_page_t *pg = &coh.pages[index];

    coh_page_lock(index);
    uint8_t state = atomic_load_explicit(&pg->state, memory_order_acquire);
    uint8_t flags = atomic_load_explicit(&pg->flags, memory_order_relaxed);
    int home_page = (flags & PF_HOME) != 0;

    if (state == PS_INVALID && !home_page) {
        if (!(flags & PF_REGISTERED))
            share_with_home(index, pg->home);
        dsm_status_t st = dsm_tp_get(pg->home, DSM_TP_SEG_REGION,
                                     (uint64_t)index << DSM_PAGE_SHIFT,
                                     coh_page_rt(index), DSM_PAGE_SIZE);
        if (st != DSM_OK)
            fetch_fail(st);
        COH_STAT_ADD(pages_fetched, 1);
        if (access == DSM_FAULT_WRITE) {
            make_writable(index, pg, 0);
        } else {
            atomic_store_explicit(&pg->state, PS_READONLY,
                                  memory_order_release);
            coh_protect(index, 1, DSM_PROT_READ);
            COH_STAT_ADD(read_faults, 1);
        }
    } else if (state == PS_READONLY && access != DSM_FAULT_READ) {
        make_writable(index, pg, home_page);
    }
    /* anything else: another thread resolved the fault first; retry */
    coh_page_unlock(index);
    COH_STAT_ADD(protocol_ns, dsm_now_ns() - t0);
    return 1;
}

/* Home side of the share handshake.  It takes no page lock: the thread
 * that progresses the transport may itself hold page locks (a fault or an
 * invalidation waiting for the network).  A private home page is always
 * WRITABLE and never dirty, and only this handler (handlers run one at a
 * time) makes it shared, so atomics on the entry suffice; a home thread
 * that writes after the protection change faults and finds READONLY. */
static void on_share_req(int src, const void *payload, size_t len, void *arg)
{
    coh_msg_share_t msg;
    if (len != sizeof msg)
        dsm_fatal("malformed share request from node %d (%zu bytes)", src, len);
    memcpy(&msg, payload, sizeof msg);
    if (msg.first >= coh.npages || msg.count > coh.npages - msg.first ||
        msg.slot >= COH_MAX_SLOTS)
        dsm_fatal("share request from node %d out of range", src);
    for (size_t i = msg.first; i < (size_t)msg.first + msg.count; i++) {
        coh_page_t *pg = &coh.pages[i];
        if (!(atomic_load(&pg->flags) & PF_HOME))
            dsm_fatal("node %d asked node %d to share page %zu it does not "
                      "home", src, coh.rank, i);
        if (atomic_fetch_or(&pg->flags, PF_SHARED) & PF_SHARED)
            continue;
        /* from now on the home's own writes must fault, to be noticed */
        atomic_store(&pg->state, PS_READONLY);
        coh_protect(i, 1, DSM_PROT_READ);
    }
    coh_msg_share_t ack = msg;
    dsm_status_t st = dsm_tp_am_send(src, COH_AM_SHARE_ACK, &ack, sizeof ack);
    if (st != DSM_OK)
        dsm_fatal("acknowledging a share request to node %d: %s", src,
                  dsm_status_string(st));
}

static void on_share_ack(int src, const void *payload, size_t len, void *arg)
{
    coh_msg_share_t msg;
    if (len != sizeof msg)
        dsm_fatal("malformed share acknowledgement from node %d", src);
    memcpy(&msg, payload, sizeof msg);
    if (msg.slot >= COH_MAX_SLOTS)
        dsm_fatal("share acknowledgement from node %d: bad slot", src);
    __atomic_store_n(&coh.slots[msg.slot].done, 1, __ATOMIC_RELEASE);
}

void coh_fault_register_handlers(void)
{
    dsm_tp_am_register(COH_AM_SHARE_REQ, on_share_req, NULL);
    dsm_tp_am_register(COH_AM_SHARE_ACK, on_share_ack, NULL);
}
