/*
 * coh_want.c - wanted pages: a node that fetches a page again after a
 * notice dropped its copy tells the page's home, so that the home sends
 * the page whole with the barrier message it sends anyway (its arrival,
 * or node 0's departure and fork) instead of being asked for it by a get
 * while it computes.  See doc/design.md, "Pushed updates", "Wanted pages".
 *
 * Reader: the fault handler notes each such fetch (a page index in a
 * bounded list; more in one epoch are left out), and the barrier's global
 * part takes the list as page ranges for its arrival.  Node 0 grants the
 * wants of its own pages at once and forwards the others in the
 * departure; every other node grants those of the pages it homes when it
 * applies the departure.  A page another home pushes at its arrival
 * reaches node 0's copy with node 0's departure; the departure carries it
 * to the other nodes only while a node other than 0 wants it (relay).
 * More than WANT_PAGES pages of one home in an epoch is a bulk transfer
 * that a prefetch batches: no wants for it.  A grant is a budget of
 * WANT_BUDGET pushes per page; each push spends one, so a page nobody
 * reads any more is pushed at most that many more times, and a page
 * still read costs one fetch per WANT_BUDGET + 1 epochs (its copy is
 * dropped when the budget is out, the next read fetches it and wants it
 * again).  Wants are hints: a lost or late one costs a fetch, never a
 * wrong value.
 *
 * Program points: a want names where the reader reads the page: the
 * label of the epoch it fetched the page in (coh_prefetch.c: a barrier's
 * call site or a region's microtask, the same on every node), as a 15-bit
 * tag.  The home pushes the page at the barriers and forks with that
 * label only, once per change: a change made where the page is not wanted
 * waits (coh_push.c, unsent) for the next build with the label.  A page
 * its home rewrites at every barrier of a loop but another node reads
 * after a different one (a Krylov vector's boundary, written at each
 * step of a Gram-Schmidt loop, read by the next product) was otherwise
 * sent whole at every barrier, all but one of them for nothing.  Each
 * page keeps two program points; a want at a third makes it wanted at
 * every barrier, as without labels, and so does a copy last dropped
 * outside a labelled acquire (a lock, a flush).  In the epochs between, a
 * notice drops the reader's copy, and the push at the read point fills it
 * again (coh_push.c: an invalid, registered copy takes a whole page as a
 * prefetched one).
 *
 * Layer: coherence.  coh_want_note: the fault handler (an atomic index,
 * a load and two stores: no malloc, no stdio).  coh_want_dropped: an
 * acquire's invalidation, page locked (a store).  coh_want_grant and
 * coh_want_relay on node 0: also the arrival handler, under the gather
 * lock (byte stores; the departure's build reads them only after every
 * arrival).  Everything else: the thread doing the barrier's global
 * part, protocol mutex held.
 */
#include <stdatomic.h>

#include "base_config.h"
#include "coh_protocol.h"
#include "coh_state.h"
#include "coh_wire.h"
#include "transport.h"

#define WANT_BUDGET 16u
#define PENDING_MAX 4096u
/* a wanted range's pages fit the low 16 bits of its count (coh_msg.h) */
_Static_assert(PENDING_MAX <= 0xffffu, "wanted ranges too long");
#define TAG_EMPTY 0u
#define TAG_ANY 0xffffu               /* wanted at every barrier */
/* wanted pages of one home per epoch: what its pushes carry (64 KiB) */
#define WANT_PAGES 16u

static uint8_t *budget;                /* pushes left, per page */
static uint16_t (*tags)[2];            /* where it is wanted, per page */
static uint16_t *dropped_at;           /* reader: tag of the last drop
                                          (TAG_ANY: an unlabelled one) */
static uint8_t *relay;                 /* node 0: forwards left, per page
                                          another home pushes */
static uint32_t pending[PENDING_MAX];
static uint16_t pending_tag[PENDING_MAX];
static _Atomic uint32_t npending;
static int enabled;

dsm_status_t coh_want_setup(void)
{
    enabled = dsm_config()->push_updates && coh.size > 1;
    if (!enabled)
        return DSM_OK;
    budget = coh_table_alloc(coh.npages);
    tags = coh_table_alloc(coh.npages * sizeof *tags);
    dropped_at = coh_table_alloc(coh.npages * sizeof *dropped_at);
    if (coh.rank == 0)
        relay = coh_table_alloc(coh.npages);
    return budget && tags && dropped_at && (coh.rank != 0 || relay)
               ? DSM_OK : DSM_ERR_NOMEM;
}

static uint32_t tag_of(uintptr_t label)
{
    if (!label)
        return TAG_ANY;   /* no program point known: every barrier */
    uint64_t h = (uint64_t)label * 0x9e3779b97f4a7c15ull;
    uint32_t t = (uint32_t)(h >> 49);   /* 15 bits: never TAG_ANY */
    return t ? t : 1;
}

/* A want at the program point tag for page p (before its budget is
 * refilled): a page with none left starts afresh.  Tag 0: the reader
 * knew no program point (its copy was never dropped by a notice). */
static void retag(size_t p, uint32_t tag)
{
    uint16_t *s = tags[p];
    if (tag == TAG_EMPTY)
        tag = TAG_ANY;
    if (budget[p] == 0 || tag == TAG_ANY) {
        s[0] = (uint16_t)tag;
        s[1] = TAG_EMPTY;
    } else if (s[0] == TAG_ANY || s[0] == tag || s[1] == tag) {
        return;
    } else if (s[1] == TAG_EMPTY) {
        s[1] = (uint16_t)tag;
    } else {
        s[0] = TAG_ANY;   /* a third program point: every barrier */
    }
}

void coh_want_dropped(size_t index)
{
    if (enabled)
        dropped_at[index] = (uint16_t)tag_of(coh_prefetch_pending());
}

void coh_want_note(size_t index)
{
    if (!enabled)
        return;
    uint32_t k = atomic_fetch_add_explicit(&npending, 1,
                                           memory_order_relaxed);
    if (k < PENDING_MAX) {
        pending[k] = (uint32_t)index;
        /* where the page is read: the running epoch's label; a copy never
         * dropped by a labelled acquire (a lock's, a flush's) keeps its
         * mark, wanted everywhere */
        uint16_t at = dropped_at[index];
        pending_tag[k] = at == TAG_EMPTY || at == TAG_ANY
                             ? at
                             : (uint16_t)tag_of(coh_prefetch_current());
    }
}

/* A page another node pushes to us: homed elsewhere, and not read in
 * place or copied from a mapped home (a refresh serves those). */
static int pushable_here(size_t p)
{
    if (p >= coh.npages)
        return 0;
    int home = coh.pages[p].home;
    return home != coh.rank && !dsm_tp_peer_mapped(home, DSM_TP_SEG_REGION);
}

uint32_t coh_want_take(coh_range_t *out, uint32_t cap)
{
    uint32_t n = atomic_exchange_explicit(&npending, 0,
                                          memory_order_relaxed);
    if (n > PENDING_MAX)
        n = PENDING_MAX;
    /* more pages of one home than its pushes carry is a bulk transfer (a
     * transpose, a redistribution): some pushed, the rest dropped and
     * fetched would break the chain of pushed copies and send pages
     * twice; a prefetch batches those gets, so no wants for that home */
    uint32_t per_home[COH_MAX_NODES] = {0};
    for (uint32_t k = 0; k < n; k++)
        if (pushable_here(pending[k]))
            per_home[coh.pages[pending[k]].home]++;
    uint32_t used = 0;
    for (uint32_t k = 0; k < n; k++) {
        size_t p = pending[k];
        if (!pushable_here(p) || per_home[coh.pages[p].home] > WANT_PAGES)
            continue;
        /* read-ahead notes a run in order: extend the last range */
        uint32_t tag = pending_tag[k];   /* 0: not known (retag) */
        if (used) {
            coh_range_t *last = &out[used - 1];
            if (last->first + COH_WANT_PAGES(last->count) == p &&
                COH_WANT_TAG(last->count) == tag &&
                coh.pages[p].home == coh.pages[last->first].home) {
                last->count++;
                continue;
            }
        }
        if (used == cap)
            break;
        out[used++] = (coh_range_t){(uint32_t)p, COH_WANT_COUNT(1, tag)};
    }
    return used;
}

/* A full budget in table for the pages of the wanted ranges homed here
 * (grant, at the ranges' program points) or, on node 0, homed at another
 * node (relay). */
static void give(uint8_t *table, const unsigned char *ranges, uint32_t n,
                 int homed_here)
{
    for (uint32_t k = 0; k < n; k++) {
        coh_range_t r = coh_wire_range(ranges, k);
        uint32_t tag = COH_WANT_TAG(r.count);
        size_t end = (size_t)r.first + COH_WANT_PAGES(r.count);
        for (size_t p = r.first; p < end; p++) {
            int here = (atomic_load_explicit(&coh.pages[p].flags,
                                             memory_order_relaxed) &
                        PF_HOME) != 0;
            if (homed_here ? here : coh.pages[p].home != 0) {
                if (table == budget)
                    retag(p, tag);
                table[p] = WANT_BUDGET;
            }
        }
    }
}

void coh_want_grant(const unsigned char *ranges, uint32_t n)
{
    if (budget)
        give(budget, ranges, n, 1);
}

void coh_want_relay(const unsigned char *ranges, uint32_t n)
{
    if (relay)
        give(relay, ranges, n, 0);
}

int coh_want_relay_spend(size_t index)
{
    if (!relay || relay[index] == 0)
        return 0;
    relay[index]--;
    return 1;
}

int coh_want_wanted(size_t index, int any_point)
{
    if (!budget || budget[index] == 0)
        return 0;
    const uint16_t *s = tags[index];
    if (s[0] == TAG_ANY || any_point)
        return 1;
    /* the push at this build reaches the epoch the pending label begins */
    uint32_t now = tag_of(coh_prefetch_pending());
    return now == TAG_ANY || s[0] == now || s[1] == now;
}

int coh_want_any(size_t index)
{
    return budget && budget[index] != 0;
}

int coh_want_spend(size_t index)
{
    if (!budget || budget[index] == 0)
        return 0;
    budget[index]--;
    return 1;
}
