/*
 * coh_check.c - the invariant checks of coh_check.h (DSM_INVARIANTS
 * builds only; the file compiles to nothing otherwise).
 *
 * Page rules (doc/design.md, "Page states and their invariants"), with
 * the page lock held:
 *   P1  HOME flag <=> the page's home is this node
 *   P2  SHARED => HOME;  REGISTERED => not HOME
 *   P3  TWIN => not HOME and WRITABLE;  not HOME and WRITABLE => TWIN
 *   P4  DIRECT => READONLY, not HOME, not REGISTERED, no TWIN, not EAGER
 *   P5  HOME => not INVALID;  HOME and not SHARED => WRITABLE (private)
 *   P6  EAGER => WRITABLE;  EAGER and HOME => SHARED
 *   P7  DIRTY and HOME => SHARED (a private home page is never noticed)
 *   P8  no REFRESH mark outside the acquire that set it
 *   P10 FETCHED => not HOME, REGISTERED, no TWIN, not DIRECT, not EAGER
 *   D1  a page on the dirty list has PF_DIRTY (the converse does not hold:
 *       coh_dirty_add marks before it lists)
 *   P9  the application view's protection matches the state: INVALID
 *       none, READONLY read, WRITABLE read-write
 * The share handler changes home pages without their locks (coh_fault.c
 * says why): between its state change and its mprotect a home page breaks
 * P9 for a moment, so the table scan leaves P9 to the per-page checks for
 * home pages.
 *
 * Layer: coherence.  See coh_check.h for where each entry may be called.
 */
#include "coh_check.h"

#if DSM_INVARIANTS_ON

#include <stdatomic.h>
#include <string.h>

#include "coh_protocol.h"
#include "coh_state.h"

/* The protection each page's application view was last given, and which
 * groups of pages changed since the last table scan: the scan checks
 * those and clears their marks, so its cost follows the pages the
 * program moved, not the size of the space (millions of pages). */
#define GROUP_SHIFT 6
static uint8_t *prot_shadow;
static _Atomic uint8_t *touched;

/* Share handlers started and finished.  A check that read `finished`
 * before the page and `started` after it, and found them different,
 * overlapped a handler, which changes a home page's state and then its
 * protection without the page lock: the check may have read the state
 * before the one and the protection after the other, so it leaves P9 of
 * home pages alone then. */
static _Atomic uint64_t shares_started, shares_finished;

void coh_check_share_begin(void)
{
    atomic_fetch_add(&shares_started, 1);
}

void coh_check_share_end(void)
{
    atomic_fetch_add(&shares_finished, 1);
}

dsm_status_t coh_check_setup(void)
{
    prot_shadow = coh_table_alloc(coh.npages);
    touched = coh_table_alloc((coh.npages >> GROUP_SHIFT) + 1);
    return prot_shadow && touched ? DSM_OK : DSM_ERR_NOMEM;
}

void coh_check_prot(size_t index, size_t n, int prot)
{
    if (!prot_shadow)
        return;
    memset(prot_shadow + index, prot, n);
    for (size_t g = index >> GROUP_SHIFT; g <= (index + n - 1) >> GROUP_SHIFT;
         g++)
        atomic_store_explicit(&touched[g], 1, memory_order_relaxed);
}

static size_t put(char *buf, size_t len, size_t cap, const char *s)
{
    while (*s && len + 1 < cap)
        buf[len++] = *s++;
    buf[len] = '\0';
    return len;
}

static size_t put_num(char *buf, size_t len, size_t cap, uint64_t v, int base)
{
    char num[32];
    return put(buf, len, cap, dsm_utoa(v, base, num));
}

/* "page N: state S, flags 0xF, home H, protection P, at WHERE" */
static __attribute__((noreturn)) void page_failed(const char *rule,
                                                  size_t index,
                                                  const char *where)
{
    const coh_page_t *pg = &coh.pages[index];
    char ctx[256];
    size_t len = 0, cap = sizeof ctx;
    len = put(ctx, len, cap, "page ");
    len = put_num(ctx, len, cap, index, 10);
    len = put(ctx, len, cap, ": state ");
    len = put_num(ctx, len, cap, atomic_load(&pg->state), 10);
    len = put(ctx, len, cap, ", flags 0x");
    len = put_num(ctx, len, cap, atomic_load(&pg->flags), 16);
    len = put(ctx, len, cap, ", home ");
    len = put_num(ctx, len, cap, pg->home, 10);
    len = put(ctx, len, cap, ", protection ");
    len = put_num(ctx, len, cap, prot_shadow ? prot_shadow[index] : 9, 10);
    len = put(ctx, len, cap, ", at ");
    put(ctx, len, cap, where);
    dsm_invariant_failed(rule, ctx);
}

#define RULE(cond, name)                                                      \
    do {                                                                      \
        if (__builtin_expect(!(cond), 0))                                     \
            page_failed(name ": " #cond, index, where);                       \
    } while (0)

static void check(size_t index, const char *where, int with_protection)
{
    const coh_page_t *pg = &coh.pages[index];
    uint64_t finished = atomic_load(&shares_finished);
    uint8_t st = atomic_load(&pg->state), fl = atomic_load(&pg->flags);
    int home = (fl & PF_HOME) != 0;
    RULE(st <= PS_FETCHED, "P0");
    RULE(home == (pg->home == coh.rank), "P1");
    RULE(!(fl & PF_SHARED) || home, "P2");
    RULE(!(fl & PF_REGISTERED) || !home, "P2");
    RULE(!(fl & PF_TWIN) || (!home && st == PS_WRITABLE), "P3");
    RULE(home || st != PS_WRITABLE || (fl & PF_TWIN), "P3");
    RULE(!(fl & PF_DIRECT) ||
             (st == PS_READONLY &&
              !(fl & (PF_HOME | PF_REGISTERED | PF_TWIN | PF_EAGER))),
         "P4");
    RULE(!home || st != PS_INVALID, "P5");
    RULE(!home || (fl & PF_SHARED) || st == PS_WRITABLE, "P5");
    RULE(!(fl & PF_EAGER) || st == PS_WRITABLE, "P6");
    RULE(!(fl & PF_EAGER) || !home || (fl & PF_SHARED), "P6");
    RULE(!(fl & PF_DIRTY) || !home || (fl & PF_SHARED), "P7");
    RULE(!(fl & PF_REFRESH), "P8");
    RULE(st != PS_FETCHED ||
             (fl & (PF_HOME | PF_REGISTERED | PF_TWIN | PF_DIRECT |
                    PF_EAGER)) == PF_REGISTERED,
         "P10");
    if (with_protection && prot_shadow) {
        static const uint8_t want[] = {DSM_PROT_NONE, DSM_PROT_READ,
                                       DSM_PROT_RW, DSM_PROT_NONE};
        /* ordered between the two counters' loads */
        uint8_t prot = __atomic_load_n(&prot_shadow[index], __ATOMIC_SEQ_CST);
        int sharing = home && atomic_load(&shares_started) != finished;
        RULE(prot == want[st] || sharing, "P9");
    }
}

void coh_check_touch(size_t index)
{
    if (prot_shadow)
        atomic_store_explicit(&touched[index >> GROUP_SHIFT], 1,
                              memory_order_relaxed);
}

void coh_check_page(size_t index, const char *where)
{
    coh_check_touch(index);
    check(index, where, 1);
}

void coh_check_table(const char *where)
{
    if (!prot_shadow)
        return;
    for (size_t g = 0; g <= (coh.npages - 1) >> GROUP_SHIFT; g++) {
        if (!atomic_load_explicit(&touched[g], memory_order_relaxed) ||
            !atomic_exchange_explicit(&touched[g], 0, memory_order_relaxed))
            continue;
        size_t end = ((g + 1) << GROUP_SHIFT) < coh.npages
                         ? (g + 1) << GROUP_SHIFT : coh.npages;
        for (size_t index = g << GROUP_SHIFT; index < end; index++) {
            coh_page_lock(index);
            check(index, where,
                  !(atomic_load(&coh.pages[index].flags) & PF_HOME));
            coh_page_unlock(index);
        }
    }
    coh_check_dirty(where);
}

void coh_check_dirty(const char *where)
{
    dsm_mutex_lock(&coh.dirty_lock);
    for (size_t k = 0; k < coh.ndirty; k++) {
        size_t index = coh.dirty[k];
        if (index >= coh.npages ||
            !(atomic_load(&coh.pages[index].flags) & PF_DIRTY)) {
            dsm_mutex_unlock(&coh.dirty_lock);
            page_failed("D1: a listed dirty page has PF_DIRTY",
                        index < coh.npages ? index : 0, where);
        }
    }
    dsm_mutex_unlock(&coh.dirty_lock);
}

/* The interval just logged: found under its number, its ranges inside
 * the space, repeated in the near rings, its stamps published with the
 * vector time. */
void coh_check_log(uint32_t seq)
{
    const coh_log_t *log = coh.control;
    size_t n = 0;
    uint64_t first = 0;
    int kept = coh_log_ranges(seq, &first, &n);
    DSM_INVARIANT(kept && n > 0, "L1: the interval just logged");
    for (size_t k = 0; kept && k < n; k++) {
        coh_range_t r = coh_log_range(first + k);
        const coh_log_range_t *slot =
            &log->ranges[(first + k) % COH_LOG_RANGES];
        DSM_INVARIANT(r.count > 0 && r.first < coh.npages &&
                          r.count <= coh.npages - r.first &&
                          COH_LOG_SEQ(slot->first) == seq &&
                          COH_LOG_SEQ(slot->count) == seq,
                      "L2: a logged range inside the sharable space, "
                      "stamped with its interval");
    }
    DSM_INVARIANT(atomic_load(&log->near_iv[seq % COH_NEAR_HEADERS]) ==
                      atomic_load(&log->iv[seq % COH_LOG_INTERVALS]),
                  "L6: the near ring repeats the interval's header");
    for (size_t k = 0; kept && k < n && k < COH_NEAR_RANGES; k++) {
        const coh_log_range_t *slot =
            &log->ranges[(first + n - 1 - k) % COH_LOG_RANGES];
        const coh_log_range_t *near =
            &log->near_ranges[(first + n - 1 - k) % COH_NEAR_RANGES];
        DSM_INVARIANT(near->first == slot->first &&
                          near->count == slot->count,
                      "L6: the near ring repeats the interval's last ranges");
    }
    DSM_INVARIANT(seq == coh.vc[coh.rank] + 1,
                  "L3: intervals are numbered without gaps");
    DSM_INVARIANT(atomic_load(&log->stamp[coh.rank]) ==
                      COH_LOG_WORD(seq, seq),
                  "L4: the stamps announce the interval");
    for (int j = 0; j < coh.size; j++)
        DSM_INVARIANT(j == coh.rank || atomic_load(&log->stamp[j]) ==
                                           COH_LOG_WORD(seq, coh.vc[j]),
                      "L5: the stamps hold the vector time");
}

#endif
