/*
 * fj_task_deps.c - task dependences (depend: in, out/inout, mutexinoutset,
 * inoutset) among the children of one task, and waiting for them (if(0)
 * tasks with depend, taskwait with depend).
 *
 * Each task with dependences gets a node (fj_depnode_t): its count of
 * predecessors not complete, and its successors.  The parent keeps a hash
 * of the addresses its children named; per address:
 *   writers  the latest group that is not `in`: one out/inout task, or
 *            consecutive mutexinoutset tasks, or consecutive inoutset tasks;
 *   readers  the `in` tasks since;
 *   before   what the writers group itself waited for (a later member of a
 *            mutexinoutset or inoutset group waits for the same).
 * in waits for the writers; out waits for writers and readers; a
 * mutexinoutset or inoutset task joins the current group of its kind when
 * no `in` came since, else starts a new group after writers and readers.
 * Members of a mutexinoutset group also hold the address's lock while
 * they run (tried before the task starts; a busy lock sends the task back
 * to its pool).  Two dependences of one task on one address act as one:
 * out when their kinds differ.
 *
 * Only the thread running the parent adds to its hash (one thread at a
 * time runs a task), so the hash has no lock; nodes have one, for the
 * completing predecessor against a successor being registered.  Node and
 * hash memory is the runtime's (malloc): dependences never leave the node.
 *
 * Layer: forkjoin.  Application threads.
 */
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "fj_task.h"
#include "fj_wait.h"

typedef struct fj_depmutex {
    _Atomic int32_t refs;
    _Atomic uint32_t held;
    _Atomic uint32_t contended;  /* someone found it held */
} fj_depmutex_t;

struct fj_depnode {
    _Atomic int32_t refs;
    _Atomic int32_t npred;       /* predecessors not complete (+1 while
                                    it is being registered) */
    dsm_mutex_t lock;            /* guards done and succ */
    int done;
    int nsucc, capsucc;
    fj_depnode_t **succ;
    fj_task_t *task;             /* NULL: a thread waiting (fj_deps_wait) */
    fj_bell_t *_Atomic waiter;
    int nmutex;
    fj_depmutex_t **mutex;       /* sorted by address */
};

typedef struct nodelist {
    fj_depnode_t **v;
    int n, cap;
} nodelist_t;

enum { GROUP_NONE = -1 };

typedef struct depentry {
    uintptr_t addr;
    int used;
    int wkind;                   /* kind of writers, or GROUP_NONE */
    nodelist_t writers, readers, before;
    fj_depmutex_t *mutex;
} depentry_t;

struct fj_dephash {
    size_t cap, used;
    depentry_t *e;
};

/* ---- nodes ------------------------------------------------------------------- */

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q)
        dsm_fatal("out of memory for task dependences");
    return q;
}

static fj_depnode_t *node_new(fj_task_t *task)
{
    fj_depnode_t *n = calloc(1, sizeof *n);
    if (!n)
        dsm_fatal("out of memory for task dependences");
    n->refs = 1;
    n->npred = 1;
    n->task = task;
    return n;
}

static void mutex_unref(fj_depmutex_t *m)
{
    if (atomic_fetch_sub(&m->refs, 1) == 1)
        free(m);
}

static void node_unref(fj_depnode_t *n)
{
    if (atomic_fetch_sub(&n->refs, 1) != 1)
        return;
    for (int i = 0; i < n->nmutex; i++)
        mutex_unref(n->mutex[i]);
    free(n->mutex);
    free(n->succ);
    free(n);
}

static int node_done(fj_depnode_t *n)
{
    dsm_mutex_lock(&n->lock);
    int done = n->done;
    dsm_mutex_unlock(&n->lock);
    return done;
}

/* succ runs after pred completes. */
static void dep_link(fj_depnode_t *pred, fj_depnode_t *succ)
{
    if (pred == succ)
        return;
    dsm_mutex_lock(&pred->lock);
    if (!pred->done) {
        if (pred->nsucc == pred->capsucc) {
            pred->capsucc = pred->capsucc ? pred->capsucc * 2 : 4;
            pred->succ = xrealloc(pred->succ, (size_t)pred->capsucc *
                                                  sizeof *pred->succ);
        }
        pred->succ[pred->nsucc++] = succ;
        atomic_fetch_add(&succ->refs, 1);
        atomic_fetch_add(&succ->npred, 1);
    }
    dsm_mutex_unlock(&pred->lock);
}

static void node_ready(fj_depnode_t *n)
{
    if (n->task) {
        fj_pool_push(n->task->pool, n->task, 1);
    } else {
        fj_bell_t *b = atomic_load(&n->waiter);
        if (b)
            fj_bell_ring(b);
    }
}

/* ---- lists --------------------------------------------------------------------- */

static void list_add(nodelist_t *l, fj_depnode_t *n)
{
    /* forget completed nodes first: chains stay short */
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        if (node_done(l->v[i]))
            node_unref(l->v[i]);
        else
            l->v[k++] = l->v[i];
    }
    l->n = k;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4;
        l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    atomic_fetch_add(&n->refs, 1);
    l->v[l->n++] = n;
}

static void list_clear(nodelist_t *l)
{
    for (int i = 0; i < l->n; i++)
        node_unref(l->v[i]);
    l->n = 0;
}

static void list_free(nodelist_t *l)
{
    list_clear(l);
    free(l->v);
    l->v = NULL;
    l->cap = 0;
}

static void list_link(const nodelist_t *l, fj_depnode_t *succ)
{
    for (int i = 0; i < l->n; i++)
        dep_link(l->v[i], succ);
}

/* ---- the hash ---------------------------------------------------------------------- */

static size_t slot_of(uintptr_t addr, size_t cap)
{
    uint64_t h = (uint64_t)addr * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static depentry_t *find(fj_dephash_t *h, uintptr_t addr)
{
    if (!h || h->cap == 0)
        return NULL;
    for (size_t i = slot_of(addr, h->cap);; i = (i + 1) & (h->cap - 1)) {
        depentry_t *e = &h->e[i];
        if (!e->used)
            return NULL;
        if (e->addr == addr)
            return e;
    }
}

static void grow(fj_dephash_t *h)
{
    size_t cap = h->cap ? h->cap * 2 : 16;
    depentry_t *e = calloc(cap, sizeof *e);
    if (!e)
        dsm_fatal("out of memory for task dependences");
    for (size_t i = 0; i < h->cap; i++) {
        if (!h->e[i].used)
            continue;
        size_t j = slot_of(h->e[i].addr, cap);
        while (e[j].used)
            j = (j + 1) & (cap - 1);
        e[j] = h->e[i];
    }
    free(h->e);
    h->e = e;
    h->cap = cap;
}

static depentry_t *insert(fj_dephash_t *h, uintptr_t addr)
{
    depentry_t *e = find(h, addr);
    if (e)
        return e;
    if ((h->used + 1) * 2 > h->cap)
        grow(h);
    size_t i = slot_of(addr, h->cap);
    while (h->e[i].used)
        i = (i + 1) & (h->cap - 1);
    e = &h->e[i];
    memset(e, 0, sizeof *e);
    e->used = 1;
    e->addr = addr;
    e->wkind = GROUP_NONE;
    h->used++;
    return e;
}

void fj_deps_clear(fj_task_t *parent)
{
    fj_dephash_t *h = parent->deps;
    if (!h)
        return;
    for (size_t i = 0; i < h->cap; i++) {
        depentry_t *e = &h->e[i];
        if (!e->used)
            continue;
        list_free(&e->writers);
        list_free(&e->readers);
        list_free(&e->before);
        if (e->mutex)
            mutex_unref(e->mutex);
    }
    free(h->e);
    free(h);
    parent->deps = NULL;
}

/* ---- the dependence list ---------------------------------------------------------------- */

static int by_addr(const void *a, const void *b)
{
    uintptr_t x = ((const fj_dep_t *)a)->addr, y = ((const fj_dep_t *)b)->addr;
    return x < y ? -1 : x > y;
}

/* Sort by address and merge dependences on one address (out when their
 * kinds differ).  Returns the count left in out. */
static int merge(int ndeps, const fj_dep_t *deps, fj_dep_t *out)
{
    memcpy(out, deps, (size_t)ndeps * sizeof *out);
    qsort(out, (size_t)ndeps, sizeof *out, by_addr);
    int n = 0;
    for (int i = 0; i < ndeps; i++) {
        if (n > 0 && out[n - 1].addr == out[i].addr) {
            if (out[n - 1].kind != out[i].kind)
                out[n - 1].kind = FJ_DEP_OUT;
        } else {
            out[n++] = out[i];
        }
    }
    return n;
}

#define STACK_DEPS 32

/* ---- registering and waiting ---------------------------------------------------------- */

static void add_mutex(fj_depnode_t *n, fj_depmutex_t *m)
{
    n->mutex = xrealloc(n->mutex, (size_t)(n->nmutex + 1) * sizeof *n->mutex);
    n->mutex[n->nmutex++] = m;      /* addresses ascend with the deps */
    atomic_fetch_add(&m->refs, 1);
}

static void apply(depentry_t *e, fj_depnode_t *n, fj_dep_kind_t kind)
{
    switch (kind) {
    case FJ_DEP_IN:
        list_link(&e->writers, n);
        list_add(&e->readers, n);
        return;
    case FJ_DEP_OUT:
        list_link(&e->writers, n);
        list_link(&e->readers, n);
        list_clear(&e->writers);
        list_clear(&e->readers);
        list_clear(&e->before);
        list_add(&e->writers, n);
        e->wkind = FJ_DEP_OUT;
        return;
    case FJ_DEP_MUTEXINOUTSET:
    case FJ_DEP_INOUTSET:
        if (e->wkind == (int)kind && e->readers.n == 0) {
            list_link(&e->before, n);       /* one more of the group */
        } else {
            list_link(&e->writers, n);
            list_link(&e->readers, n);
            /* later members of the new group wait for what n waits for:
             * the writers and readers, whose references move */
            list_free(&e->before);
            e->before = e->writers;
            e->writers = (nodelist_t){0};
            for (int i = 0; i < e->readers.n; i++) {
                list_add(&e->before, e->readers.v[i]);
                node_unref(e->readers.v[i]);
            }
            e->readers.n = 0;
            e->wkind = (int)kind;
        }
        list_add(&e->writers, n);
        if (kind == FJ_DEP_MUTEXINOUTSET) {
            if (!e->mutex) {
                e->mutex = calloc(1, sizeof *e->mutex);
                if (!e->mutex)
                    dsm_fatal("out of memory for task dependences");
                e->mutex->refs = 1;
            }
            add_mutex(n, e->mutex);
        }
        return;
    }
}

int fj_deps_register(fj_task_t *parent, fj_task_t *t, int ndeps,
                     const fj_dep_t *deps)
{
    fj_dep_t stack[STACK_DEPS];
    fj_dep_t *merged = ndeps <= STACK_DEPS ? stack
                                           : malloc((size_t)ndeps * sizeof *merged);
    if (!merged)
        dsm_fatal("out of memory for %d task dependences", ndeps);
    int n = merge(ndeps, deps, merged);
    /* when t is the only child not complete, no sibling can precede it:
     * start afresh (this bounds the hash of a long-lived parent) */
    if (parent->deps && atomic_load(&parent->children) == 1)
        fj_deps_clear(parent);
    if (!parent->deps) {
        parent->deps = calloc(1, sizeof *parent->deps);
        if (!parent->deps)
            dsm_fatal("out of memory for task dependences");
    }
    fj_depnode_t *node = node_new(t);
    t->depnode = node;
    for (int i = 0; i < n; i++)
        apply(insert(parent->deps, merged[i].addr), node, merged[i].kind);
    if (merged != stack)
        free(merged);
    return atomic_fetch_sub(&node->npred, 1) == 1;
}

static int node_free(void *arg)
{
    return atomic_load(&((fj_depnode_t *)arg)->npred) == 0;
}

void fj_deps_wait(fj_task_thread_t *me, fj_task_t *parent, int ndeps,
                  const fj_dep_t *deps)
{
    fj_depnode_t *node = node_new(NULL);
    for (int i = 0; i < ndeps; i++) {
        depentry_t *e = find(parent->deps, deps[i].addr);
        if (!e)
            continue;
        /* anything but in waits for the whole current state: stronger
         * than a mutexinoutset or inoutset group needs, and allowed */
        list_link(&e->writers, node);
        if (deps[i].kind != FJ_DEP_IN)
            list_link(&e->readers, node);
    }
    if (atomic_fetch_sub(&node->npred, 1) != 1) {
        fj_task_t *root = me->tied_root;
        me->tied_root = parent;     /* suspended on this stack, untied too */
        fj_pool_wait(me, node_free, node, &node->waiter, 0);
        me->tied_root = root;
    }
    node_unref(node);
}

void fj_deps_release(fj_task_t *t)
{
    fj_depnode_t *node = t->depnode;
    dsm_mutex_lock(&node->lock);
    node->done = 1;
    fj_depnode_t **succ = node->succ;
    int n = node->nsucc;
    node->succ = NULL;
    node->nsucc = node->capsucc = 0;
    node->task = NULL;
    dsm_mutex_unlock(&node->lock);
    for (int i = 0; i < n; i++) {
        if (atomic_fetch_sub(&succ[i]->npred, 1) == 1)
            node_ready(succ[i]);
        node_unref(succ[i]);
    }
    free(succ);
    t->depnode = NULL;
    node_unref(node);
}

/* ---- mutexinoutset ------------------------------------------------------------------- */

int fj_deps_lock(fj_task_t *t)
{
    fj_depnode_t *node = t->depnode;
    for (int i = 0; i < node->nmutex; i++) {
        uint32_t free_ = 0;
        if (!atomic_compare_exchange_strong(&node->mutex[i]->held, &free_,
                                            1)) {
            atomic_store(&node->mutex[i]->contended, 1);
            while (i-- > 0)
                atomic_store(&node->mutex[i]->held, 0);
            return 0;
        }
    }
    return 1;
}

void fj_deps_unlock(fj_task_t *t)
{
    fj_depnode_t *node = t->depnode;
    int wake = 0;
    for (int i = 0; i < node->nmutex; i++) {
        atomic_store(&node->mutex[i]->held, 0);
        if (atomic_exchange(&node->mutex[i]->contended, 0))
            wake = 1;
    }
    if (wake)
        fj_pool_wake_all(t->pool);
}
