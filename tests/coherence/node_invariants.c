/*
 * node_invariants.c - corrupts one entry of the coherence layer's state on
 * purpose, of the kind named by argv[1], and checks that the invariant
 * checks (-Dinvariants=true builds) end the node with a line naming the
 * broken rule, where without them the corruption would show as a
 * livelock or a stale read:
 *   twin_on_home     a home page gets a twin flag       -> P3 at the barrier
 *   dirty_unmarked   a page listed dirty without PF_DIRTY -> D1 at the barrier
 *   bad_state        a fetched page gets state 7, then is read: the fault
 *                    handler finds a state it does not know -> P0
 *   protection       a valid copy's state says writable while its view is
 *                    read-only                          -> P9 at the barrier
 *                    (run with DSM_DIRECT_READ=0: a mapped page breaks P4)
 *   none             nothing corrupted: the program must succeed
 * Node 1 corrupts, both meet in a barrier.  The meson test checks dsmrun's
 * exit status and the message (tests/transport/check_output.sh).  Run with
 * 2 nodes.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coh_state.h"
#include "dsm.h"

static volatile char *volatile shared DSM_SHARABLE;

static size_t page_of(const void *p)
{
    long idx = coh_page_index((uintptr_t)p);
    if (idx < 0) {
        fprintf(stderr, "node_invariants: %p is not sharable\n", p);
        _exit(2);
    }
    return (size_t)idx;
}

int main(int argc, char **argv)
{
    if (argc != 2 || dsm_init() != DSM_OK)
        return 2;
    const char *kind = argv[1];
    /* node 0's page, and one of node 1's own */
    if (dsm_node_id() == 0) {
        shared = dsm_malloc(DSM_PAGE_SIZE);
        memset((char *)shared, 1, DSM_PAGE_SIZE);
    }
    dsm_barrier();
    if (dsm_node_id() == 1) {
        volatile char *mine = dsm_malloc(DSM_PAGE_SIZE);
        mine[0] = 1;
        char seen = shared[0];   /* a valid copy of node 0's page */
        (void)seen;
        size_t home_page = page_of((const void *)mine);
        size_t copy_page = page_of((const void *)shared);
        if (strcmp(kind, "twin_on_home") == 0) {
            coh_page_lock(home_page);
            atomic_fetch_or(&coh.pages[home_page].flags, PF_TWIN);
            /* as a protocol step would: the scan looks at changed pages */
            coh_protect(home_page, 1, DSM_PROT_RW);
            coh_page_unlock(home_page);
        } else if (strcmp(kind, "dirty_unmarked") == 0) {
            dsm_mutex_lock(&coh.dirty_lock);
            coh.dirty[coh.ndirty++] = (uint32_t)copy_page;
            dsm_mutex_unlock(&coh.dirty_lock);
            /* the barrier's release would diff it: check before */
        } else if (strcmp(kind, "bad_state") == 0) {
            coh_page_lock(copy_page);
            atomic_store(&coh.pages[copy_page].state, 7);
            coh_protect(copy_page, 1, DSM_PROT_NONE);
            coh_page_unlock(copy_page);
            seen = shared[1];    /* faults */
        } else if (strcmp(kind, "protection") == 0) {
            coh_page_lock(copy_page);
            atomic_store(&coh.pages[copy_page].state, PS_WRITABLE);
            atomic_fetch_or(&coh.pages[copy_page].flags, PF_TWIN);
            coh_page_unlock(copy_page);
        } else if (strcmp(kind, "none") != 0) {
            fprintf(stderr, "node_invariants: unknown kind %s\n", kind);
            return 2;
        }
    }
    dsm_barrier();
    dsm_finalize();
    return 0;
}
