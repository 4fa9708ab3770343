/*
 * fj_taskred.c - task reductions: task_reduction on a taskgroup, reduction
 * on taskloop, in_reduction on tasks, and the task modifier of a
 * reduction on parallel and worksharing constructs.
 *
 * A reduction belongs to a taskgroup.  Each thread that runs a
 * participating task gets its own private copy of each item, made and
 * initialised the first time it asks (fj_taskred_private); at the end of
 * the taskgroup the copies are combined into the item and finalised.
 * Tasks run on the node that made them, so a taskgroup's copies are all on
 * its node: one per team thread of the node (by its node-local number).
 * Outside an active team one thread runs every task and uses the item
 * itself, as libomp does for a team of one.
 *
 * The modifier (reduction(task, op: x) on parallel, for, sections) spans
 * the team, and the team spans the nodes.  Every member calls begin: the
 * node's members share one set of copies (the first to arrive makes it,
 * in a slot of this node's table found by the number of modifiers the
 * region met), each in a taskgroup of its own whose items are its own
 * private copies of x (clang passes those).  At end each member waits for
 * its taskgroup's tasks; the node's last one combines every copy into its
 * own item; the construct's ordinary reduction then combines the members'
 * items across nodes.  Items that are the same for two members (shared, not
 * private) would be combined by every node into one variable: the job ends
 * with a message naming the construct instead.
 *
 * Copies are allocated from the sharable heap (the node's arena).
 *
 * Layer: forkjoin.  Application threads.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "coherence.h"
#include "fj_task.h"
#include "fj_wait.h"

#define MODIFIER_SLOTS 4
#define CREATING (UINT64_C(1) << 63)

/* The private copies: copy[i * nexec + thread] of item i. */
typedef struct red_copies {
    _Atomic int32_t refs;
    int n, nexec;
    fj_taskred_item_t *items;    /* the maker's: orig, size, init, ... */
    void *_Atomic *copy;
} red_copies_t;

struct fj_taskred {
    int n;
    int alone;                   /* made outside an active team */
    int modifier;                /* combined by fj_taskred_modifier_end */
    fj_taskred_item_t *items;    /* this thread's (shar) */
    red_copies_t *copies;
};

typedef struct modifier_slot {
    _Atomic uint64_t key;        /* 0 free; region << 24 | number */
    red_copies_t *copies;
    void *shar0;                 /* the maker's first item */
    _Atomic int32_t finished;    /* members past their taskgroup */
} modifier_slot_t;

static modifier_slot_t slots[2][MODIFIER_SLOTS];

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p)
        dsm_fatal("out of memory for a task reduction");
    return p;
}

static red_copies_t *copies_new(int n, const fj_taskred_item_t *items,
                                int nexec)
{
    red_copies_t *c = xcalloc(1, sizeof *c);
    c->refs = 1;
    c->n = n;
    c->nexec = nexec;
    c->items = xcalloc((size_t)n, sizeof *c->items);
    memcpy(c->items, items, (size_t)n * sizeof *items);
    c->copy = xcalloc((size_t)n * (size_t)nexec, sizeof *c->copy);
    return c;
}

static void copies_unref(red_copies_t *c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    free(c->items);
    free((void *)c->copy);
    free(c);
}

/* Combine every copy into the items of red, finalise and free them. */
static void combine_into(fj_taskred_t *red, red_copies_t *c)
{
    for (int i = 0; i < c->n; i++) {
        for (int k = 0; k < c->nexec; k++) {
            void *p = atomic_load(&c->copy[(size_t)i * c->nexec + k]);
            if (!p)
                continue;
            c->items[i].comb(red->items[i].shar, p);
            if (c->items[i].fini)
                c->items[i].fini(p);
            dsm_free(p);
            atomic_store(&c->copy[(size_t)i * c->nexec + k], NULL);
        }
    }
}

static fj_taskred_t *red_new(int n, const fj_taskred_item_t *items,
                             red_copies_t *copies, int alone, int modifier)
{
    fj_taskred_t *red = xcalloc(1, sizeof *red);
    red->n = n;
    red->alone = alone;
    red->modifier = modifier;
    red->items = xcalloc((size_t)(n ? n : 1), sizeof *red->items);
    memcpy(red->items, items, (size_t)n * sizeof *items);
    red->copies = copies;
    return red;
}

static void red_free(fj_taskred_t *red)
{
    if (red->copies)
        copies_unref(red->copies);
    free(red->items);
    free(red);
}

static int context_alone(void)
{
    fj_thread_t *self = fj_self();
    return !self->team || self->serial > 0;
}

void *fj_taskred_begin(int n, const fj_taskred_item_t *items,
                       const char *where)
{
    fj_task_thread_t *me = fj_task_me();
    fj_taskgroup_t *g = me->current->group;
    if (!g || g->red)
        dsm_fatal("task reduction at %s: not at the start of a taskgroup",
                  where);
    int alone = context_alone();
    g->red = red_new(n, items,
                     alone ? NULL : copies_new(n, items, fj.threads), alone,
                     0);
    return g;
}

void fj_taskred_finish(fj_taskred_t *red)
{
    if (!red->alone && !red->modifier)
        combine_into(red, red->copies);
    red_free(red);
}

/* ---- the executing thread's copy ----------------------------------------- */

static int item_of(const fj_taskred_t *red, const void *item)
{
    for (int i = 0; i < red->n; i++)
        if (red->items[i].shar == item)
            return i;
    /* a copy of an enclosing task's in_reduction names the item too */
    const red_copies_t *c = red->copies;
    if (c)
        for (int i = 0; i < c->n; i++)
            for (int k = 0; k < c->nexec; k++)
                if (atomic_load(&c->copy[(size_t)i * c->nexec + k]) == item)
                    return i;
    return -1;
}

static void *copy_for(fj_taskred_t *red, int i)
{
    if (red->alone)
        return red->items[i].shar;
    red_copies_t *c = red->copies;
    int local = fj_self()->local;
    if (local < 0 || local >= c->nexec)
        dsm_fatal("task reduction: thread %d of the node is not a team "
                  "thread", local);
    void *_Atomic *slot = &c->copy[(size_t)i * c->nexec + local];
    void *p = atomic_load(slot);
    if (p)
        return p;
    const fj_taskred_item_t *it = &c->items[i];
    p = dsm_malloc(it->size ? it->size : 1);
    if (!p)
        dsm_fatal("out of sharable memory for a task reduction's copy "
                  "(%zu bytes)", it->size);
    if (!it->init)
        memset(p, 0, it->size);
    else if (it->init_with_orig)
        ((void (*)(void *, void *))it->init)(p, it->orig);
    else
        ((void (*)(void *))it->init)(p);
    atomic_store(slot, p);
    return p;
}

void *fj_taskred_private(void *tg, void *item)
{
    fj_task_thread_t *me = fj_task_me();
    fj_taskgroup_t *g = tg ? tg : me->current->group;
    for (; g; g = g->outer) {
        if (!g->red)
            continue;
        int i = item_of(g->red, item);
        if (i >= 0)
            return copy_for(g->red, i);
    }
    dsm_fatal("in_reduction: %p is not an item of an enclosing task "
              "reduction", item);
}

/* ---- the task modifier --------------------------------------------------- */

static uint64_t modifier_key(fj_task_thread_t *me, int is_ws)
{
    fj_thread_t *self = fj_self();
    uint64_t region = self->team->region & 0xffffffffffull;
    uint64_t count = me->modifier_seq[is_ws];
    /* a new region starts the count again */
    if ((count >> 24) != region)
        count = region << 24;
    count++;
    me->modifier_seq[is_ws] = count;
    return count;
}

void *fj_taskred_modifier_begin(int is_ws, int n,
                                const fj_taskred_item_t *items,
                                const char *where)
{
    fj_task_thread_t *me = fj_task_me();
    is_ws = is_ws != 0;
    fj_taskgroup_begin();
    fj_taskgroup_t *g = me->current->group;
    if (context_alone()) {
        g->red = red_new(n, items, NULL, 1, 1);
        return g;
    }
    uint64_t key = modifier_key(me, is_ws);
    modifier_slot_t *slot = &slots[is_ws][key % MODIFIER_SLOTS];
    for (int spins = 0;; spins++) {
        uint64_t seen = atomic_load(&slot->key);
        if (seen == key)
            break;
        uint64_t free_ = 0;
        if (seen == 0 &&
            atomic_compare_exchange_strong(&slot->key, &free_,
                                           key | CREATING)) {
            slot->copies = copies_new(n, items, fj.threads);
            slot->shar0 = n > 0 ? items[0].shar : NULL;
            atomic_store(&slot->finished, 0);
            atomic_store(&slot->key, key);
            goto made;
        }
        /* being made, or an older modifier's members are finishing */
        if ((spins & 1023) == 1023)
            sched_yield();
        else
            dsm_cpu_relax();
    }
    if (n > 0 && slot->shar0 == items[0].shar)
        dsm_fatal("reduction(task, ...) at %s: the team's threads name the "
                  "same variable, not private copies of it; dsmomp combines "
                  "task reductions per node and cannot combine them into "
                  "one variable shared across nodes", where);
made:
    atomic_fetch_add(&slot->copies->refs, 1);
    g->red = red_new(n, items, slot->copies, 0, 1);
    return g;
}

void fj_taskred_modifier_end(int is_ws)
{
    fj_task_thread_t *me = fj_task_me();
    is_ws = is_ws != 0;
    fj_taskgroup_t *g = fj_taskgroup_wait_current();
    fj_taskred_t *red = g->red;
    if (!red || !red->modifier)
        dsm_fatal("end of a task reduction modifier that did not begin");
    if (!red->alone) {
        fj_thread_t *self = fj_self();
        uint64_t key = me->modifier_seq[is_ws];
        modifier_slot_t *slot = &slots[is_ws][key % MODIFIER_SLOTS];
        if (atomic_fetch_add(&slot->finished, 1) + 1 ==
            self->team->local_count) {
            /* every member's tasks are complete: the copies are final */
            combine_into(red, slot->copies);
            copies_unref(slot->copies);
            slot->copies = NULL;
            atomic_store(&slot->key, 0);
        }
    }
    g->red = NULL;
    red_free(red);
    fj_taskgroup_pop(g);
}
