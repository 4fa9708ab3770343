/*
 * coh_fault.c - the page-fault path: fetch a page from its home, or map a
 * same-host home's memory for reading; make twins; and the share handshake
 * that tells a home its page now has copies.
 *
 * Layer: coherence.  coh_fault_handler runs inside the SIGSEGV handler of
 * the faulting application thread: no malloc, no stdio, only page locks
 * (never held while touching the application view) and transport calls.
 * The share handler runs in whichever thread progresses the transport.
 */
#include <string.h>
#include <unistd.h>

#include "base_config.h"
#include "base_log.h"
#include "base_time.h"
#include "coh_check.h"
#include "coh_protocol.h"
#include "coh_sharing.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "coh_wire.h"
#include "sys_fault.h"
#include "transport.h"

static void fetch_fail(dsm_status_t st)
{
    dsm_log_sigsafe("fatal: fetching a page from its home failed: ",
                    dsm_status_string(st));
    _exit(DSM_EXIT_FATAL);
}

/* Read-ahead: a fault on the page right after a run this thread fetched
 * doubles that stream's window (a scan), any other fault starts a new
 * stream at one page.  A few streams are followed at once, because loops
 * scan several arrays together (a CSR product reads three).  The window
 * bounds both the pages registered with the home in one share request and
 * the invalid pages fetched in one get, so a scan costs one round trip per
 * window instead of one per page, and a lone access registers and fetches
 * only its page: registering a page the node never reads would make its
 * home track (fault on) its own writes for nothing.
 *
 * A window may grow to READ_AHEAD_MAX pages, or READ_AHEAD_MAPPED_MAX when
 * the page is in the heap arena of its home and that home is a mapped
 * same-host peer.  There the share handshake, which waits for the home's
 * progress thread while the home computes, is most of a window's cost (a
 * get is a copy), and the home clamps the registration to the heap block,
 * so the larger window cannot spill into the next array.  Elsewhere (the
 * stack, globals, pages that migrated away from their arena) nobody knows
 * the block, and a window may run past the end of an array by up to its
 * size. */
#define READ_AHEAD_MAX 32u
#define READ_AHEAD_MAPPED_MAX 256u
#define READ_AHEAD_STREAMS 4
typedef struct ahead_stream {
    size_t next;        /* the page after the stream's last run */
    uint32_t window;
} ahead_stream_t;
static __thread __attribute__((tls_model("initial-exec")))
    ahead_stream_t ahead[READ_AHEAD_STREAMS];
static __thread __attribute__((tls_model("initial-exec"))) unsigned ahead_victim;

static uint32_t read_ahead_cap(size_t index, int home)
{
    return coh_heap_arena_of(index) == home &&
                   dsm_tp_peer_mapped(home, DSM_TP_SEG_REGION)
               ? READ_AHEAD_MAPPED_MAX
               : READ_AHEAD_MAX;
}

static ahead_stream_t *read_ahead_stream(size_t index, int home)
{
    uint32_t cap = read_ahead_cap(index, home);
    for (int i = 0; i < READ_AHEAD_STREAMS; i++)
        if (ahead[i].window && ahead[i].next == index) {
            ahead[i].window = ahead[i].window * 2 < cap ? ahead[i].window * 2
                                                        : cap;
            return &ahead[i];
        }
    ahead_stream_t *s = &ahead[ahead_victim++ % READ_AHEAD_STREAMS];
    s->window = 1;
    return s;
}

/* Tell the home we now hold a copy, so it starts tracking its own writes to
 * the page (and the following unregistered pages it also homes, up to
 * window).  Waits for the acknowledgement: the home must write-protect the
 * pages before we read them, or a home write could escape the notices. */
static void share_with_home(size_t index, int home, uint32_t window)
{
    uint32_t count = 1;
    while (count < window && index + count < coh.npages) {
        const coh_page_t *next = &coh.pages[index + count];
        /* a direct page here needs no tracking at the home */
        if (next->home != home || (atomic_load(&next->flags) &
                                   (PF_REGISTERED | PF_HOME | PF_DIRECT)))
            break;
        count++;
    }
    int slot = coh_slot_self();
    coh.slots[slot].done = 0;
    coh_msg_share_t msg = {(uint32_t)index, count, (uint32_t)slot, 0};
    dsm_status_t st = dsm_tp_am_send(home, COH_AM_SHARE_REQ, &msg, sizeof msg);
    if (st != DSM_OK)
        fetch_fail(st);
    dsm_tp_wait_flag_on(&coh.slots[slot].done, "the home's share "
                        "acknowledgement", home, DSM_ACTIVITY_ABOUT_PAGE,
                        index, 0);
    /* the home may have registered fewer: the rest of the block */
    if (coh.slots[slot].value < count)
        count = coh.slots[slot].value ? (uint32_t)coh.slots[slot].value : 1;
    for (uint32_t k = 0; k < count; k++)
        atomic_fetch_or_explicit(&coh.pages[index + k].flags, PF_REGISTERED,
                                 memory_order_relaxed);
}

/* How many pages from index (whose lock the caller holds) one get can
 * bring: following pages that are invalid, registered, of the same home,
 * and whose locks are free (taken here, in ascending order). */
static size_t lock_fetch_run(size_t index, int home, uint32_t window)
{
    size_t n = 1;
    while (n < window && index + n < coh.npages) {
        coh_page_t *next = &coh.pages[index + n];
        if (next->home != home)
            break;
        if (!coh_page_trylock(index + n))
            break;
        uint8_t flags = atomic_load(&next->flags);
        if ((flags & PF_HOME) || !(flags & PF_REGISTERED) ||
            atomic_load(&next->state) != PS_INVALID) {
            coh_page_unlock(index + n);
            break;
        }
        n++;
    }
    return n;
}

/* Direct reads (doc/design.md, "Direct reads from same-host homes").  A
 * read fault on an invalid page whose home is a same-host peer this node
 * maps puts the home's memory itself in the application view, read-only,
 * for the following invalid pages of that home too (up to DIRECT_RUN_MAX,
 * within the window): one mmap, no copy, no page of ours, no share
 * handshake.  The view always shows the home's current contents, which
 * hold every write an acquire of this node can require (a releaser's
 * diffs reach the home before its release is over), so such a page is
 * never invalidated, and the home need not track its own writes for us.
 * Mapping pages this node never reads costs nothing.  A write to a direct
 * page first registers it with the home, copies it into our memory and
 * maps that back (materialize); from there it is an ordinary valid copy.
 * A page this node registered before (it wrote or copied it) is copied
 * again at its next fault, not mapped: a page written here in every epoch
 * would otherwise pay two mmaps per epoch, and the copy path has the
 * refresh (coh_refresh.c) for such pages. */
#define DIRECT_RUN_MAX 512u
static atomic_int direct_refused;   /* an mmap failed: copies from now on */

static int direct_read_ok(int home)
{
    return dsm_config()->direct_read &&
           !atomic_load_explicit(&direct_refused, memory_order_relaxed) &&
           dsm_tp_peer_viewable(home, DSM_TP_SEG_REGION);
}

/* How many pages from index (whose lock the caller holds) one mapping can
 * cover: following invalid, unregistered pages of the same home in the
 * same window, whose locks are free (taken here, in ascending order). */
static size_t lock_direct_run(size_t index, int home)
{
    size_t end = coh_window_end(index), n = 1;
    while (n < DIRECT_RUN_MAX && index + n < end) {
        coh_page_t *next = &coh.pages[index + n];
        if (next->home != home)
            break;
        if (!coh_page_trylock(index + n))
            break;
        if ((atomic_load(&next->flags) & (PF_HOME | PF_REGISTERED)) ||
            atomic_load(&next->state) != PS_INVALID) {
            coh_page_unlock(index + n);
            break;
        }
        n++;
    }
    return n;
}

/* Map pages [index, index+run) of home read-only; their locks are held.
 * When the kernel refuses (the limit of mappings, say), direct reads end
 * for this node and the retried access copies.  Our own (invalid) pages
 * stay mapped if the failed call left them; if it removed them, they are
 * mapped back. */
static void map_direct(size_t index, size_t run, int home)
{
    uintptr_t addr = coh_page_addr(index);
    if (dsm_tp_map_peer_view(home, DSM_TP_SEG_REGION,
                             (uint64_t)index << DSM_PAGE_SHIFT, (void *)addr,
                             run << DSM_PAGE_SHIFT, 0) != DSM_OK) {
        atomic_store(&direct_refused, 1);
        if (!dsm_sys_mapped(addr, run << DSM_PAGE_SHIFT))
            coh_map_own(index, run, DSM_PROT_NONE);
        dsm_log_sigsafe("direct reads of same-host homes turned off: ",
                        "mapping a home's pages failed");
        return;
    }
    coh_check_prot(index, run, DSM_PROT_READ);
    for (size_t k = 0; k < run; k++) {
        coh_page_t *pg = &coh.pages[index + k];
        atomic_fetch_or_explicit(&pg->flags, PF_DIRECT, memory_order_relaxed);
        atomic_store_explicit(&pg->state, PS_READONLY, memory_order_release);
    }
    COH_STAT_ADD(direct_pages, run);
    COH_STAT_ADD(read_faults, 1);
}

/* A direct page about to be written becomes a copy of ours: registered
 * first, so that a home write after our copy faults and is noticed. */
static void materialize(size_t index, coh_page_t *pg)
{
    int home = pg->home;
    if (!(atomic_load(&pg->flags) & PF_REGISTERED))
        share_with_home(index, home, 1);
    dsm_status_t st = dsm_tp_get(home, DSM_TP_SEG_REGION,
                                 (uint64_t)index << DSM_PAGE_SHIFT,
                                 coh_page_rt(index), DSM_PAGE_SIZE);
    if (st != DSM_OK)
        fetch_fail(st);
    COH_STAT_ADD(pages_fetched, 1);
    coh_push_installed(index, 1);
    coh_map_own(index, 1, DSM_PROT_READ);
    atomic_fetch_and_explicit(&pg->flags, (uint8_t)~PF_DIRECT,
                              memory_order_relaxed);
}

/* The job is over: the run's pages keep showing their home's contents,
 * node-local and writable.  Mapped copy-on-write from the home (nothing
 * copied now, whatever the run covered); copied if the kernel refuses. */
static void keep_run(size_t from, size_t run, int home)
{
    uintptr_t addr = coh_page_addr(from);
    size_t len = run << DSM_PAGE_SHIFT;
    if (dsm_tp_map_peer_view(home, DSM_TP_SEG_REGION,
                             (uint64_t)from << DSM_PAGE_SHIFT, (void *)addr,
                             len, 1) == DSM_OK)
        return;
    dsm_status_t st = dsm_tp_get(home, DSM_TP_SEG_REGION,
                                 (uint64_t)from << DSM_PAGE_SHIFT,
                                 coh_page_rt(from), len);
    if (st != DSM_OK)
        fetch_fail(st);
    coh_map_own(from, run, DSM_PROT_READ);
}

/* Runs of consecutive direct pages of one home, within one window. */
void coh_direct_end(size_t first, size_t n, int keep)
{
    size_t run = 0;
    for (size_t p = first; p <= first + n; p++) {
        coh_page_t *pg = p < first + n ? &coh.pages[p] : NULL;
        int direct = pg && (atomic_load(&pg->flags) & PF_DIRECT);
        if (run && (!direct || pg->home != coh.pages[p - 1].home ||
                    p == coh_window_end(p - 1))) {
            size_t from = p - run;
            for (size_t k = from; k < p; k++) {
                atomic_fetch_and(&coh.pages[k].flags, (uint8_t)~PF_DIRECT);
                atomic_store(&coh.pages[k].state,
                             keep ? PS_READONLY : PS_INVALID);
            }
            if (keep)
                keep_run(from, run, coh.pages[from].home);
            else
                coh_map_own(from, run, DSM_PROT_NONE);
            run = 0;
        }
        if (direct)
            run++;
    }
}

static void make_writable(size_t index, coh_page_t *pg, int home_page)
{
    if (!home_page) {
        coh_push_installed(index, 1);   /* no longer node 0's snapshot */
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

    if (state == PS_INVALID && !home_page && access == DSM_FAULT_READ &&
        !(flags & PF_REGISTERED) && direct_read_ok(pg->home)) {
        size_t run = lock_direct_run(index, pg->home);
        map_direct(index, run, pg->home);   /* refused: the retry copies */
        for (size_t k = 1; k < run; k++) {
            coh_check_page(index + k, "a direct read fault");
            coh_page_unlock(index + k);
        }
    } else if (state == PS_INVALID && !home_page) {
        ahead_stream_t *stream = read_ahead_stream(index, pg->home);
        if (!(flags & PF_REGISTERED))
            share_with_home(index, pg->home, stream->window);
        size_t run = lock_fetch_run(index, pg->home, stream->window);
        dsm_status_t st = dsm_tp_get(pg->home, DSM_TP_SEG_REGION,
                                     (uint64_t)index << DSM_PAGE_SHIFT,
                                     coh_page_rt(index),
                                     run << DSM_PAGE_SHIFT);
        if (st != DSM_OK)
            fetch_fail(st);
        COH_STAT_ADD(pages_fetched, run);
        coh_refresh_fetched(index, run);
        coh_push_installed(index, run);
        for (size_t k = 0; k < run; k++)
            coh_prefetch_note(index + k);
        stream->next = index + run;
        if (run > 1) {
            /* the pages read ahead: valid, clean copies */
            for (size_t k = 1; k < run; k++)
                atomic_store_explicit(&coh.pages[index + k].state,
                                      PS_READONLY, memory_order_release);
            coh_protect(index + 1, run - 1, DSM_PROT_READ);
            for (size_t k = 1; k < run; k++) {
                coh_check_page(index + k, "a read-ahead");
                coh_page_unlock(index + k);
            }
        }
        if (access == DSM_FAULT_WRITE) {
            make_writable(index, pg, 0);
        } else {
            atomic_store_explicit(&pg->state, PS_READONLY,
                                  memory_order_release);
            coh_protect(index, 1, DSM_PROT_READ);
            COH_STAT_ADD(read_faults, 1);
        }
    } else if (state == PS_READONLY && access != DSM_FAULT_READ) {
        if (flags & PF_DIRECT)
            materialize(index, pg);
        make_writable(index, pg, home_page);
    } else if (state == PS_FETCHED) {
        /* prefetched at the epoch's start: map the copy, no round trip */
        coh_prefetch_note(index);
        COH_STAT_ADD(prefetch_hits, 1);
        if (access == DSM_FAULT_WRITE) {
            make_writable(index, pg, 0);
        } else {
            atomic_store_explicit(&pg->state, PS_READONLY,
                                  memory_order_release);
            coh_protect(index, 1, DSM_PROT_READ);
            COH_STAT_ADD(read_faults, 1);
        }
    }
    /* anything else: another thread resolved the fault first; retry */
    coh_sharing_fault(index, addr, state, flags, access, t0);
    coh_check_page(index, "a page fault");
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
    const coh_wire_limits_t lim = {(uint32_t)coh.size, coh.npages,
                                   COH_MAX_SLOTS};
    if (coh_wire_share(payload, len, &lim, &msg) != DSM_OK)
        dsm_fatal("malformed share request from node %d (%zu bytes)", src,
                  len);
    /* read-ahead stops at the end of the array: the pages after it are
     * another block, which the reader may never touch */
    msg.count = (uint32_t)coh_heap_block_pages(msg.first, msg.count);
    coh_check_share_begin();
    /* one mprotect (a TLB shoot-down while the home computes) per run of
     * newly shared pages, not one per page */
    size_t end = (size_t)msg.first + msg.count, run = 0;
    for (size_t i = msg.first; i < end; i++) {
        coh_page_t *pg = &coh.pages[i];
        if (!(atomic_load(&pg->flags) & PF_HOME))
            dsm_fatal("node %d asked node %d to share page %zu it does not "
                      "home", src, coh.rank, i);
        if (atomic_fetch_or(&pg->flags, PF_SHARED) & PF_SHARED) {
            /* shared before: may be WRITABLE now, keeps its protection */
            if (run)
                coh_protect(i - run, run, DSM_PROT_READ);
            run = 0;
            continue;
        }
        /* from now on the home's own writes must fault, to be noticed; a
         * write made before the protection change is in the copy the
         * requester reads after our answer */
        atomic_store(&pg->state, PS_READONLY);
        coh_check_touch(i);
        run++;
    }
    if (run)
        coh_protect(end - run, run, DSM_PROT_READ);
    coh_check_share_end();
    coh_msg_share_t ack = msg;
    dsm_status_t st = dsm_tp_am_send(src, COH_AM_SHARE_ACK, &ack, sizeof ack);
    if (st != DSM_OK)
        dsm_fatal("acknowledging a share request to node %d: %s", src,
                  dsm_status_string(st));
}

static void on_share_ack(int src, const void *payload, size_t len, void *arg)
{
    coh_msg_share_t msg;
    const coh_wire_limits_t lim = {(uint32_t)coh.size, coh.npages,
                                   COH_MAX_SLOTS};
    if (coh_wire_share(payload, len, &lim, &msg) != DSM_OK)
        dsm_fatal("malformed share acknowledgement from node %d", src);
    coh_slot_reply(msg.slot, msg.count);
}

dsm_status_t coh_fault_register_handlers(void)
{
    dsm_status_t st;
    if ((st = coh_am_register(COH_AM_SHARE_REQ, on_share_req)) != DSM_OK ||
        (st = coh_am_register(COH_AM_SHARE_ACK, on_share_ack)) != DSM_OK)
        return st;
    return DSM_OK;
}
