/*
 * coh_refresh.c - refresh instead of invalidate: at a barrier departure or
 * a fork import, a hot page (one this node re-fetched after its previous
 * invalidation) that the acquire's notices name, that is valid and clean
 * here, and whose home is a same-host peer this node maps, gets the home's
 * current contents copied into it (through the runtime view) and stays
 * READONLY, instead of mprotect(NONE) now, a fault, a fetch and
 * mprotect(READ) later.  See doc/design.md, "Refresh instead of
 * invalidate", for why a refresh is a fetch made early and why it is
 * correct.
 *
 * An eager non-home page (written by this node in every epoch and left
 * writable, coh_interval.c) is refreshed too, whatever its heat and
 * wherever its home (a get across the network is what the faults it
 * saves would fetch anyway), and its twin with it: its diff went to the
 * home at this node's release, so the home's copy holds this node's
 * writes, and nobody writes the page until the acquire is over.  But a
 * page this node writes in one region of a step while another node
 * writes it in the others (ADI: half of each of the other node's planes,
 * written here by the z sweep) is named at every fork and join: up to
 * six gets a step where one prefetched fetch would do.  So a refresh
 * counts as an unchanged release does (eager_idle), and an eager page
 * found EAGER_REFRESHES times in a row unchanged here is invalidated
 * instead; it is marked unfit (eager again only if written in
 * consecutive intervals, coh_interval.c).  A page every node writes in
 * every region is refreshed at the join and at the fork after its change
 * here: never three in a row.
 *
 * Heat, one byte per page: REFRESH_BUDGET..1 refreshes left (hot); 0 cold;
 * HEAT_NOTICED: a notice dropped this node's copy and it was not fetched
 * since.  A fetch of a noticed page makes it hot with a full budget.  Each
 * refresh spends one; a page with none left is invalidated once at its
 * next notice, which tests whether it is still used: if this node fetches
 * it again it is hot again, if not it stays invalid and costs nothing.
 * So a page read in every epoch pays one fault per REFRESH_BUDGET + 1
 * notices, and a page no longer read is refreshed at most REFRESH_BUDGET
 * more times.
 *
 * Layer: coherence.  coh_refresh_setup: dsm_init.  coh_refresh_fetched:
 * the fault handler (byte stores under the pages' locks: no malloc, no
 * stdio).  coh_refresh_dropped, coh_refresh_select, coh_refresh_copy: the
 * invalidation of an acquire (coh_interval.c), protocol mutex and the
 * pages' locks held.
 */
#include <string.h>

#include "base_log.h"
#include "coh_check.h"
#include "coh_protocol.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "transport.h"

#define REFRESH_BUDGET 8u
#define EAGER_REFRESHES 3u
#define HEAT_NOTICED 0x80u

static uint8_t *heat;
/* the pages an acquire holds for its refresh (below): runs of marked,
 * locked pages, ascending */
static coh_range_t *held;
static size_t nheld, held_pages;
#define HELD_MAX COH_PAGE_LOCK_STRIPES

dsm_status_t coh_refresh_setup(void)
{
    heat = coh_table_alloc(coh.npages);
    held = coh_table_alloc(sizeof(coh_range_t) * HELD_MAX);
    return heat && held ? DSM_OK : DSM_ERR_NOMEM;
}

void coh_refresh_fetched(size_t index, size_t n)
{
    for (size_t i = index; i < index + n; i++)
        if (heat[i] == HEAT_NOTICED) {
            heat[i] = REFRESH_BUDGET;
            coh_want_note(i);   /* its home may push it instead */
        }
}

void coh_refresh_dropped(size_t index)
{
    heat[index] = HEAT_NOTICED;
    coh_want_dropped(index);   /* where: the program point of a want */
}

size_t coh_refresh_select(size_t first, size_t n)
{
    size_t chosen = 0;
    for (size_t i = first; i < first + n; i++) {
        coh_page_t *pg = &coh.pages[i];
        uint8_t flags = atomic_load(&pg->flags);
        if (coh_push_kept(i))   /* current: the push updated it */
            continue;
        if (flags & PF_REFRESH)
            continue;   /* named twice by one acquire: copied once */
        if ((flags & (PF_EAGER | PF_HOME)) == PF_EAGER &&
            atomic_load(&pg->state) == PS_WRITABLE) {
            if (pg->eager_idle >= EAGER_REFRESHES) {
                /* invalidated by the caller, which ends its eagerness */
                pg->eager_unfit = 1;
                pg->written_run = 0;
                continue;
            }
            pg->eager_idle++;
            atomic_fetch_or(&pg->flags, PF_REFRESH);
            chosen++;
            coh_want_dropped(i);   /* at this program point */
            coh_want_note(i);      /* a push would spare the get */
            continue;
        }
        uint8_t h = heat[i];
        if (h == 0 || h == HEAT_NOTICED ||
            atomic_load(&pg->state) != PS_READONLY ||
            (atomic_load(&pg->flags) & (PF_HOME | PF_DIRECT)) ||
            !dsm_tp_peer_mapped(pg->home, DSM_TP_SEG_REGION))
            continue;
        heat[i] = (uint8_t)(h - 1);
        atomic_fetch_or(&pg->flags, PF_REFRESH);
        chosen++;
    }
    return chosen;
}

/* The pages marked by an acquire's invalidation, held (locked) until one
 * batch of gets per home copies them all: one round trip for the acquire,
 * not one per notice range (ADI over TCP: ~40 ranges per departure, one
 * get each, were 70-85% of the step).  Protocol mutex held. */
static coh_runs_t batch = {.what = "refreshing"};

void coh_refresh_hold(size_t first, size_t n)
{
    size_t run = 0;
    for (size_t i = first; i <= first + n; i++) {
        int marked = i < first + n &&
                     (atomic_load(&coh.pages[i].flags) & PF_REFRESH);
        if (run && (!marked || coh.pages[i].home != coh.pages[i - 1].home)) {
            held[nheld++] = (coh_range_t){(uint32_t)(i - run), (uint32_t)run};
            held_pages += run;
            run = 0;
        }
        if (marked)
            run++;
    }
}

int coh_refresh_must_finish(size_t first, size_t n)
{
    /* the held pages and the chunk to lock next must fall in distinct
     * lock stripes, and the runs must fit */
    return nheld && (first + n - held[0].first > COH_PAGE_LOCK_STRIPES ||
                     nheld + n > HELD_MAX);
}

void coh_refresh_finish(void)
{
    if (!nheld)
        return;
    /* grouped by home: one batch (of up to COH_RUNS_AT_ONCE runs) each */
    for (int h = 0; h < coh.size; h++)
        for (size_t r = 0; r < nheld; r++)
            if (coh.pages[held[r].first].home == h)
                coh_runs_add(&batch, held[r].first, held[r].count, h);
    coh_runs_flush(&batch);
    /* the marks go only now: eager pages take their twins from the copy */
    for (size_t r = 0; r < nheld; r++)
        for (size_t i = held[r].first; i < held[r].first + held[r].count;
             i++) {
            coh_page_t *pg = &coh.pages[i];
            if (atomic_load(&pg->flags) & PF_EAGER)
                memcpy(coh_page_twin(i), coh_page_rt(i), DSM_PAGE_SIZE);
            atomic_fetch_and(&pg->flags, (uint8_t)~PF_REFRESH);
            coh_check_page(i, "a refresh");
            coh_page_unlock(i);
        }
    COH_STAT_ADD(refreshes, held_pages);
    nheld = 0;
    held_pages = 0;
}
