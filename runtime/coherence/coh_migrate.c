/*
 * coh_migrate.c - home migration at barriers.  A page that one node, not
 * its home, was the only one to write in DSM_MIGRATE_AFTER consecutive
 * barrier epochs in which it was written gets that node as its new home,
 * so the writer stops paying a twin and a diff for it every epoch.
 *
 * Node 0 plans the moves from the write-notice records it gathers for the
 * departure (coh_migrate_plan) and lists them in the departure; every node
 * applies them (coh_migrate_apply) and no node leaves the barrier before
 * all have: until then a node could ask a page's new home for it before
 * that node knows it is the home.  The new home keeps its copy (valid after
 * the departure's invalidations) or fetches the page from the old home;
 * every other node drops its copy, so the page starts private at its new
 * home, exactly like a freshly allocated one.
 *
 * A page that keeps moving is asked for longer: a move and a move back
 * are free (data handed to another node and back), then each further
 * move needs twice as many epochs of one writer as the one before (at
 * most DSM_MIGRATE_AFTER << MOVE_BACKOFF_MAX); a page that stayed
 * MOVE_FORGET barriers since its last move is counted afresh.
 * A page that several nodes, node 0 among them, write in the last epochs
 * of as many regions moves to node 0 at a join (the gather point: no diff
 * and no refresh for node 0, the others' diffs need no acknowledgement,
 * and node 0's departures push the page to the other writers,
 * coh_push.c); not at barriers inside a region, where it may be a flag
 * node 0 waits for with flushes.
 * Two nodes that both write a page every epoch can still make it move: a
 * home's writes to its private page leave no notice, so when the other
 * node's first write of an epoch registers the page after the home wrote
 * it, that epoch shows one writer, the other node.  Without the backoff
 * such pages moved back and forth at every barrier (omp_eager 2x2: 60-70
 * moves and a write fault per page and epoch in 4 runs of 30).
 *
 * Layer: coherence.  Plan and apply run in the thread that does a node's
 * global barrier part, protocol mutex held; the two handlers only count.
 */
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "coh_check.h"
#include "coh_protocol.h"
#include "coh_sharing.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "coh_wire.h"
#include "transport.h"

#define CHUNK_PAGES 256u
#define WRITER_MANY 0xFFFFu
#define WRITER_MANY_0 0xFFFEu          /* several, node 0 among them */
#define PLAN_ENTRIES ((size_t)1 << 20)

/* node 0 only: per page, the writers of the current epoch (0 none, node+1,
 * WRITER_MANY) and the running candidate (node+1 in the low half, epochs
 * in a row in the high half) */
static uint16_t *epoch_writer;
static uint32_t *candidate;
static uint8_t *moves;                 /* moves in a row, saturating */
static uint32_t *last_move;            /* plan_epoch of the last move */
static uint32_t plan_epoch;            /* barriers planned */
#define MOVE_BACKOFF_MAX 6
#define MOVE_FORGET 64
static coh_migration_t *plan;

/* the completion round */
static _Atomic uint64_t rounds;        /* node 0: rounds started */
static _Atomic uint64_t dones;         /* node 0: DONE messages received */
static volatile int all_done;          /* node 0 */
static volatile int go;                /* other nodes */

dsm_status_t coh_migrate_setup(void)
{
    if (coh.rank != 0 || coh.size < 2)
        return DSM_OK;
    epoch_writer = coh_table_alloc(sizeof *epoch_writer * coh.npages);
    candidate = coh_table_alloc(sizeof *candidate * coh.npages);
    moves = coh_table_alloc(coh.npages);
    last_move = coh_table_alloc(sizeof *last_move * coh.npages);
    plan = coh_table_alloc(sizeof *plan * PLAN_ENTRIES);
    return epoch_writer && candidate && moves && last_move && plan
               ? DSM_OK : DSM_ERR_NOMEM;
}

/* Call visit for every page range of the records; node 0 validated each
 * arrival whole (coh_wire_arrive) before gathering it. */
static void walk_records(const char *buf, size_t len, uint32_t nrecords,
                         void (*visit)(uint32_t creator, size_t first,
                                       size_t count, void *ctx),
                         void *ctx)
{
    (void)len;
    size_t pos = 0;
    for (uint32_t k = 0; k < nrecords; k++) {
        coh_record_hdr_t rec;
        const unsigned char *ranges;
        coh_wire_record_next(buf, &pos, &rec, &ranges);
        for (uint32_t r = 0; r < rec.nranges; r++) {
            coh_range_t range = coh_wire_range(ranges, r);
            visit(rec.creator, range.first, range.count, ctx);
        }
    }
}

static void count_writer(uint32_t creator, size_t first, size_t count,
                         void *ctx)
{
    (void)ctx;
    uint16_t self = (uint16_t)(creator + 1);
    for (size_t p = first; p < first + count; p++) {
        uint16_t w = epoch_writer[p];
        epoch_writer[p] = w == 0 || w == self ? self
                          : w == 1 || self == 1 || w == WRITER_MANY_0
                              ? WRITER_MANY_0 : WRITER_MANY;
    }
}

typedef struct plan_state {
    size_t n, max;
    unsigned after;
    int join;
} plan_state_t;

/* Returns whether the move is in the plan: a full plan only leaves moves
 * out, and any subset is correct. */
static int emit(plan_state_t *ps, size_t page, uint32_t home)
{
    if (ps->n && plan[ps->n - 1].home == home &&
        plan[ps->n - 1].first + plan[ps->n - 1].count == page) {
        plan[ps->n - 1].count++;
    } else if (ps->n < ps->max) {
        plan[ps->n++] = (coh_migration_t){(uint32_t)page, 1, home, 0};
    } else {
        return 0;
    }
    return 1;
}

/* Decide each page once (its first visit) and clear the epoch's count. */
static void decide(uint32_t creator, size_t first, size_t count, void *ctx)
{
    (void)creator;
    plan_state_t *ps = ctx;
    for (size_t p = first; p < first + count; p++) {
        uint16_t w = epoch_writer[p];
        if (w == 0)
            continue;
        epoch_writer[p] = 0;
        /* several writers, node 0 among them, in the last epoch of a
         * region: node 0 is the candidate.  Its writes then need no diff,
         * the others' diffs reach it before their arrivals (no
         * acknowledgement), it needs no refresh at the join, and its
         * departures push the page to the other writers (coh_push.c).
         * Only at joins: inside a region such a page may be a flag node 0
         * waits for with flushes, and at its home node 0 would see the
         * flag before its flush acquired the data (design.md, "Flush") */
        if (w == WRITER_MANY_0)
            w = ps->join ? 1 : WRITER_MANY;
        if (w == WRITER_MANY || (uint32_t)(w - 1) == coh.pages[p].home) {
            candidate[p] = 0;
            continue;
        }
        uint32_t c = candidate[p];
        uint32_t row = (c & 0xFFFFu) == w ? (c >> 16) + 1 : 1;
        if (moves[p] && plan_epoch - last_move[p] > MOVE_FORGET)
            moves[p] = 0;
        unsigned backoff = moves[p] < 2 ? 0
                           : moves[p] - 1u < MOVE_BACKOFF_MAX
                                 ? moves[p] - 1u : MOVE_BACKOFF_MAX;
        if (row >= ps->after << backoff) {
            candidate[p] = 0;
            if (emit(ps, p, (uint32_t)(w - 1))) {
                moves[p] += moves[p] < UINT8_MAX;
                last_move[p] = plan_epoch;
            }
        } else {
            candidate[p] = (row < 0xFFFFu ? row : 0xFFFFu) << 16 | w;
        }
    }
}

size_t coh_migrate_plan(const char *records, size_t len, uint32_t nrecords,
                        size_t max_moves, int join,
                        const coh_migration_t **out)
{
    unsigned after = (unsigned)dsm_config()->migrate_after;
    plan_epoch++;
    *out = plan;
    if (!after || coh.size < 2 || !nrecords)
        return 0;
    plan_state_t ps = {0, max_moves < PLAN_ENTRIES ? max_moves : PLAN_ENTRIES,
                       after, join};
    walk_records(records, len, nrecords, count_writer, NULL);
    walk_records(records, len, nrecords, decide, &ps);
    if (ps.n)
        atomic_fetch_add(&rounds, 1);   /* before any departure leaves */
    return ps.n;
}

/* Move the home of pages [first, first+count) to `home`; page locks held. */
static void move_chunk(size_t first, size_t count, int home)
{
    size_t gained = 0, fetched = 0;
    /* a direct page shows the old home's memory */
    coh_direct_end(first, count, 0);
    for (size_t p = first; p < first + count; p++) {
        coh_page_t *pg = &coh.pages[p];
        int old = pg->home;
        if (old == home)
            continue;
        coh_sharing_migrated(p, home);
        coh_push_home_moved(p);
        if (home == coh.rank) {
            if (atomic_load(&pg->state) == PS_INVALID) {
                /* nobody writes before every node has applied the move,
                 * so the old home's copy is the current one */
                dsm_status_t st = dsm_tp_get(old, DSM_TP_SEG_REGION,
                                             (uint64_t)p << DSM_PAGE_SHIFT,
                                             coh_page_rt(p), DSM_PAGE_SIZE);
                if (st != DSM_OK)
                    dsm_fatal("fetching page %zu from node %d for its move "
                              "to this node: %s", p, old,
                              dsm_status_string(st));
                fetched++;
            }
            atomic_fetch_and(&pg->flags,
                             (uint8_t)~(PF_SHARED | PF_REGISTERED | PF_TWIN |
                                        PF_EAGER | PF_DIRTY));
            atomic_fetch_or(&pg->flags, PF_HOME);
            atomic_store(&pg->state, PS_WRITABLE);
            gained++;
        } else {
            atomic_fetch_and(&pg->flags, (uint8_t)~(PF_HOME | PF_SHARED |
                                                    PF_REGISTERED | PF_TWIN |
                                                    PF_EAGER | PF_DIRTY));
            atomic_store(&pg->state, PS_INVALID);
        }
        pg->home = (uint16_t)home;
    }
    /* private at the new home, absent everywhere else */
    coh_protect(first, count, home == coh.rank ? DSM_PROT_RW : DSM_PROT_NONE);
    for (size_t p = first; p < first + count; p++)
        coh_check_page(p, "a home move");
    COH_STAT_ADD(pages_migrated, gained);
    COH_STAT_ADD(pages_fetched, fetched);
}

static void finish_round(void)
{
    if (coh.rank == 0) {
        dsm_tp_wait_flag(&all_done, "every node's application of home moves");
        all_done = 0;
        for (int n = 1; n < coh.size; n++) {
            dsm_status_t st = dsm_tp_am_send(n, COH_AM_MIGRATE_GO, NULL, 0);
            if (st != DSM_OK)
                dsm_fatal("home moves: releasing node %d: %s", n,
                          dsm_status_string(st));
        }
    } else {
        dsm_status_t st = dsm_tp_am_send(0, COH_AM_MIGRATE_DONE, NULL, 0);
        if (st != DSM_OK)
            dsm_fatal("home moves: telling node 0: %s", dsm_status_string(st));
        dsm_tp_wait_flag(&go, "node 0's end of home moves");
        go = 0;
    }
}

/* The dirty list after a release holds only eager pages, listed again for
 * the next interval; a moved page is eager no longer (move_chunk cleared
 * its flags, PF_DIRTY included): drop it from the list too, or the next
 * release would write-protect a private home page. */
static void drop_moved_from_dirty_list(void)
{
    dsm_mutex_lock(&coh.dirty_lock);
    size_t kept = 0;
    for (size_t k = 0; k < coh.ndirty; k++)
        if (atomic_load(&coh.pages[coh.dirty[k]].flags) & PF_DIRTY)
            coh.dirty[kept++] = coh.dirty[k];
    coh.ndirty = kept;
    dsm_mutex_unlock(&coh.dirty_lock);
}

void coh_migrate_apply(const char *list, size_t n)
{
    if (!n)
        return;
    for (size_t k = 0; k < n; k++) {
        coh_migration_t m;
        memcpy(&m, list + k * sizeof m, sizeof m);
        if (m.first >= coh.npages || m.count > coh.npages - m.first ||
            m.home >= (uint32_t)coh.size)
            dsm_fatal("malformed home move in a barrier departure");
        for (size_t done = 0; done < m.count;) {
            size_t c = m.count - done < CHUNK_PAGES ? m.count - done
                                                    : CHUNK_PAGES;
            size_t first = m.first + done;
            for (size_t i = 0; i < c; i++)
                coh_page_lock(first + i);
            move_chunk(first, c, (int)m.home);
            for (size_t i = 0; i < c; i++)
                coh_page_unlock(first + i);
            done += c;
        }
    }
    drop_moved_from_dirty_list();
    if (coh.size > 1)
        finish_round();
}

static void on_done(int src, const void *payload, size_t len, void *arg)
{
    (void)payload;
    (void)arg;
    if (coh.rank != 0 || len != 0)
        dsm_fatal("malformed home-move completion from node %d", src);
    uint64_t expect = atomic_load(&rounds) * (uint64_t)(coh.size - 1);
    if (atomic_fetch_add(&dones, 1) + 1 == expect)
        __atomic_store_n(&all_done, 1, __ATOMIC_RELEASE);
}

static void on_go(int src, const void *payload, size_t len, void *arg)
{
    (void)payload;
    (void)arg;
    if (src != 0 || len != 0)
        dsm_fatal("malformed end of home moves from node %d", src);
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
}

dsm_status_t coh_migrate_register_handlers(void)
{
    dsm_status_t st;
    if ((st = coh_am_register(COH_AM_MIGRATE_DONE, on_done)) != DSM_OK ||
        (st = coh_am_register(COH_AM_MIGRATE_GO, on_go)) != DSM_OK)
        return st;
    return DSM_OK;
}
