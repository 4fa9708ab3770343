/*
 * coh_core.c - small shared mechanisms of the coherence layer: the dirty
 * list, per-thread reply slots, page protection and mapping, tables.
 * Layer: coherence.  Everything except coh_table_alloc is async-signal-safe
 * and used by the fault handler.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base_log.h"
#include "coh_check.h"
#include "coh_protocol.h"
#include "coh_state.h"

coh_t coh;

static pthread_mutex_t protocol_mutex = PTHREAD_MUTEX_INITIALIZER;

void coh_protocol_lock(void) { pthread_mutex_lock(&protocol_mutex); }
void coh_protocol_unlock(void) { pthread_mutex_unlock(&protocol_mutex); }

void coh_dirty_add(size_t index)
{
    coh_page_t *pg = &coh.pages[index];
    if (atomic_load_explicit(&pg->flags, memory_order_relaxed) & PF_DIRTY)
        return;
    atomic_fetch_or_explicit(&pg->flags, PF_DIRTY, memory_order_relaxed);
    dsm_mutex_lock(&coh.dirty_lock);
    coh.dirty[coh.ndirty++] = (uint32_t)index;
    dsm_mutex_unlock(&coh.dirty_lock);
}

static __thread __attribute__((tls_model("initial-exec"))) int my_slot = -1;

int coh_slot_self(void)
{
    if (__builtin_expect(my_slot >= 0, 1))
        return my_slot;
    int s = atomic_fetch_add(&coh.nslots, 1);
    if (s >= COH_MAX_SLOTS) {
        dsm_log_sigsafe("fatal: more application threads than the runtime "
                        "supports per node", NULL);
        _exit(DSM_EXIT_FATAL);
    }
    my_slot = s;
    return s;
}

/* Page indices of adjacent windows are consecutive but their addresses are
 * not, so a run of indices is changed one window at a time: by mprotect,
 * or (remap) by mapping our memfd there again with that protection. */
static void change_view(size_t index, size_t n, int prot, int remap)
{
    while (n) {
        size_t left = coh_window_end(index) - index;
        size_t in_window = n < left ? n : left;
        uintptr_t addr = coh_page_addr(index);
        size_t len = in_window << DSM_PAGE_SHIFT;
        if (remap ? dsm_sys_region_remap(&coh.region, addr, len,
                                         index << DSM_PAGE_SHIFT, prot)
                  : dsm_sys_protect(addr, len, prot)) {
            char buf[32];
            dsm_log_sigsafe(remap ? "fatal: mapping sharable pages back "
                                    "failed, errno "
                                  : "fatal: mprotect of sharable page "
                                    "failed, errno ",
                            dsm_utoa((unsigned)errno, 10, buf));
            _exit(DSM_EXIT_FATAL);
        }
        coh_check_prot(index, in_window, prot);
        index += in_window;
        n -= in_window;
    }
}

void coh_protect(size_t index, size_t n, int prot)
{
    change_view(index, n, prot, 0);
}

void coh_map_own(size_t index, size_t n, int prot)
{
    change_view(index, n, prot, 1);
}

void coh_protect_where(size_t first, size_t n,
                       int (*selected)(const coh_page_t *), int prot)
{
    size_t run = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && selected(&coh.pages[first + i])) {
            run++;
            continue;
        }
        if (run)
            coh_protect(first + i - run, run, prot);
        run = 0;
    }
}

void *coh_table_alloc(size_t bytes)
{
    bytes = (bytes + DSM_PAGE_SIZE - 1) & ~(DSM_PAGE_SIZE - 1);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void coh_runs_flush(coh_runs_t *b)
{
    if (!b->n)
        return;
    for (size_t r = 0; r < b->n; r++)
        b->items[r] = (dsm_tp_get_item_t){(uint64_t)b->first[r]
                                              << DSM_PAGE_SHIFT,
                                          coh_page_rt(b->first[r]),
                                          b->count[r] << DSM_PAGE_SHIFT};
    dsm_status_t st = dsm_tp_get_batch(b->home, DSM_TP_SEG_REGION, b->items,
                                       b->n);
    if (st != DSM_OK)
        dsm_fatal("%s: %zu runs of pages from node %d: %s", b->what, b->n,
                  b->home, dsm_status_string(st));
    for (size_t r = 0; r < b->n; r++)
        coh_push_installed(b->first[r], b->count[r]);
    if (b->fetched)
        for (size_t r = 0; r < b->n; r++)
            b->fetched(b->first[r], b->count[r]);
    b->n = 0;
}

void coh_runs_add(coh_runs_t *b, size_t first, size_t n, int home)
{
    if (b->n && (b->home != home || b->n == COH_RUNS_AT_ONCE))
        coh_runs_flush(b);
    b->home = home;
    b->first[b->n] = first;
    b->count[b->n] = n;
    b->n++;
}
