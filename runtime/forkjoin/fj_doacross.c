/*
 * fj_doacross.c - doacross loops (ordered(n) with depend(sink) and
 * depend(source)) across nodes (doc/design.md, "Doacross loops").
 *
 * Each node keeps, per loop instance, two bits per iteration of the
 * loop nest (numbered row-major, dimension 0 first): *mine* (posted by a
 * thread of this node) and *ready* (what the iteration wrote is visible
 * here).  A post sets both; a wait whose iteration is ready returns at
 * once.  The threads of a node share its memory, so a dependence between
 * two iterations that ran on one node - most of them under a static
 * schedule - costs an atomic store and an atomic load, nothing else: no
 * message, no acquire.
 *
 * Across nodes a post must be a release and the wait an acquire.
 * Releasing at every post would cost a diff and a write fault per
 * iteration, for the few iterations another node waits for; so the
 * waiter asks.  A wait for an iteration not ready here sends WANT to the
 * node that runs it (known from a static schedule: the iteration's
 * dimension-0 number is its number in the work-sharing loop; every other
 * node when the schedule is dynamic or guided).  That node answers
 * POSTED once the iteration has posted and a release that followed the
 * post is complete: at the post if the want came first, from the handler
 * if a release already covers it, else by the node's servant thread,
 * which the handler wakes (a handler must not block, and a release
 * waits for its diffs to reach their homes).  The node's application
 * threads are never needed: the poster may be computing, or spinning in
 * its own code on something the waiter does after its wait.  A member
 * calling in (every iteration does) serves a pending want too, so the
 * servant mostly finds nothing left; and the last member to finish the
 * loop on a node releases whatever was posted, so a want that comes
 * later is answered by the handler alone.  The servant is created at
 * the first loop that spans nodes and sleeps on a futex word between
 * wants: it costs no CPU while nothing waits; woken, it leaves the want
 * to the members for a grace period first (SERVANT_GRACE_NS).
 * On the waiter's node the answer sets an *arrived* bit; a waiting thread
 * then acquires (dsm_coh_sync: every node's published notices, which
 * include the poster's release) and marks the iteration ready for the
 * whole node.  The node's acquires are serialised: an arrival seen before
 * an acquire started is covered by it.
 *
 * Wants: each waiting thread has one outstanding want at most, so a node
 * keeps one slot per thread of the job (the latest want of that thread
 * replaces its previous one, which was satisfied).  A want may name a
 * loop the node has not reached yet (its FORK or its schedule come
 * later): the slot waits for the post.
 *
 * Lifetime: a node's state for a loop of the cluster's team stays until
 * a barrier after the loop or the next region (a want from a slower node
 * may come after this node finished the loop), and while the servant
 * serves it; a team inside one node frees it when its last member
 * finishes.
 *
 * Waiting: spin, then (with a progress thread) sleep on a futex word that
 * posts, answers and wants bump, waking at least every millisecond to
 * look at cancellation (a cancelled region's iterations may never post).
 *
 * Layer: forkjoin.  Entry points: fj_doacross_init/wait/post/fini
 * (members of a region, lone threads), fj_doacross_schedule (fj_static.c,
 * fj_dispatch.c), fj_doacross_register (start-up).  The DOACROSS handler
 * takes the node's spin lock for a few instructions and may send (an
 * answer is queued) or wake the servant: it never blocks.
 */
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base_config.h"
#include "base_log.h"
#include "base_time.h"
#include "coherence.h"
#include "fj_cancel.h"
#include "fj_internal.h"
#include "fj_loops.h"
#include "fj_partials.h"
#include "fj_wait.h"
#include "fj_wire.h"
#include "sys_activity.h"
#include "sys_stack.h"
#include "transport.h"

/* Iterations of a loop nest dsmomp keeps bits for, at most. */
#define MAX_ITERATIONS (1ull << 40)

enum { BIT_MINE = 1, BIT_READY = 2 };
enum { SCHED_UNKNOWN = 0, SCHED_SETTING = 1, SCHED_KNOWN = 2 };

typedef struct dx_loop {
    struct dx_loop *next;        /* the node's list (dx.lock) */
    const fj_team_t *team;
    uint64_t region, instance;   /* its name on every node */
    uint64_t epoch;              /* barriers met before it */
    int spans;                   /* the team spans nodes */
    int local_count;
    int ndims;
    int64_t *lo, *up, *st;
    uint64_t *range;             /* iterations of each dimension */
    uint64_t total, inner;       /* all of them; per dimension-0 step */
    _Atomic uint64_t *bits;      /* two per iteration: BIT_* */
    _Atomic uint64_t *arrived;   /* one per iteration: POSTED received */
    /* the work-sharing loop's schedule (fj_doacross_schedule) */
    _Atomic int sched_state;
    int sched_static;
    uint64_t chunk, trip;
    _Atomic uint32_t finished;   /* members past fini */
    _Atomic uint64_t posts_made, posts_released;
    _Atomic uint32_t service;    /* a want waits for a release here */
    _Atomic uint32_t servicing;  /* threads in service() */
    _Atomic uint32_t gen;        /* futex word of sleeping waiters */
    _Atomic uint32_t sleepers;
    pthread_mutex_t acq_mutex;
    _Atomic uint64_t acquires;   /* acquires started */
} dx_loop_t;

typedef struct dx_want {
    int active;
    uint32_t seq, claim;         /* a servicer answers the seq it claimed */
    uint64_t region, instance, index;
} dx_want_t;

static struct {
    dsm_mutex_t lock;            /* loops, wants */
    dx_loop_t *loops;
    dx_want_t *wants;            /* [size * threads]: node * threads + thread */
    int nwants;
    _Atomic uint32_t active_wants;
    /* the servant thread (see the header) */
    pthread_once_t servant_once;
    _Atomic uint32_t servant_word;   /* futex: bumped by the handler */
    dx_loop_t *serving;              /* not freed meanwhile (dx.lock) */
} dx = {.servant_once = PTHREAD_ONCE_INIT};

/* A lone thread's loop (a team of one): no state, nothing to wait for. */
static dx_loop_t alone_loop;

/* This thread's loop at each nesting level. */
static __thread dx_loop_t *current[FJ_MAX_LEVELS];

/* Messages and answers built in private memory (threads run on sharable
 * stacks, which the transport must not read). */
typedef struct dx_answer {
    int node;
    fj_wire_doacross_t msg;
} dx_answer_t;
static __thread fj_wire_doacross_t out_msg;
static __thread dx_answer_t *answers;
/* The seq of each want slot this thread's service_once claimed, or 0. */
static __thread uint32_t *my_claims;

static unsigned bits_of(const dx_loop_t *d, uint64_t index)
{
    uint64_t w = atomic_load_explicit(&d->bits[index / 32],
                                      memory_order_acquire);
    return (unsigned)(w >> (2 * (index % 32))) & 3u;
}

static int arrived(const dx_loop_t *d, uint64_t index)
{
    return (atomic_load_explicit(&d->arrived[index / 64],
                                 memory_order_acquire) >>
            (index % 64)) & 1u;
}

/* Bumped after every change a waiter looks at, then the sleepers are
 * woken; a sleeper counts itself before it compares the word (both
 * sequentially consistent), so one of the two sees the other. */
static void wake(dx_loop_t *d)
{
    atomic_fetch_add(&d->gen, 1);
    if (atomic_load(&d->sleepers) > 0)
        dsm_futex_wake(&d->gen, DSM_FUTEX_ALL);
}

/* The loop named (team, region, instance); dx.lock held. */
static dx_loop_t *find(const fj_team_t *team, uint64_t region,
                       uint64_t instance)
{
    for (dx_loop_t *d = dx.loops; d; d = d->next)
        if (d->team == team && d->region == region &&
            d->instance == instance)
            return d;
    return NULL;
}

static void loop_free(dx_loop_t *d)
{
    pthread_mutex_destroy(&d->acq_mutex);
    free(d->bits);
    free(d->arrived);
    free(d->lo);
    free(d);
}

/* ---- iteration numbers -------------------------------------------------------- */

/* The iteration vec names, row-major; 0 when it is outside the nest. */
static int linear(const dx_loop_t *d, const int64_t *vec, uint64_t *out)
{
    uint64_t index = 0;
    for (int k = 0; k < d->ndims; k++) {
        int64_t v = vec[k], lo = d->lo[k], st = d->st[k];
        uint64_t i;
        if (st > 0) {
            if (v < lo || v > d->up[k])
                return 0;
            i = ((uint64_t)v - (uint64_t)lo) / (uint64_t)st;
        } else {
            if (v > lo || v < d->up[k])
                return 0;
            i = ((uint64_t)lo - (uint64_t)v) / (0 - (uint64_t)st);
        }
        if (i >= d->range[k])
            return 0;
        index = index * d->range[k] + i;
    }
    *out = index;
    return 1;
}

/* The node that runs iteration index, or -1 when the schedule does not
 * tell (dynamic, guided, or not known yet). */
static int owner_node(dx_loop_t *d, uint64_t index)
{
    if (atomic_load_explicit(&d->sched_state, memory_order_acquire) !=
            SCHED_KNOWN || !d->sched_static)
        return -1;
    uint64_t k = index / d->inner;       /* its work-sharing iteration */
    if (k >= d->trip)
        return -1;
    uint64_t nth = (uint64_t)d->team->nthreads, thread;
    if (d->chunk == 0) {
        uint64_t small = d->trip / nth, extra = d->trip % nth;
        thread = k < extra * (small + 1)
                     ? k / (small + 1)
                     : extra + (k - extra * (small + 1)) / small;
    } else {
        thread = (k / d->chunk) % nth;
    }
    uint64_t nodes = (uint64_t)d->team->nodes;
    uint64_t base = nth / nodes, extra = nth % nodes;
    return (int)(thread < extra * (base + 1)
                     ? thread / (base + 1)
                     : extra + (thread - extra * (base + 1)) / base);
}

void fj_doacross_schedule(fj_thread_t *self, int kind, uint64_t chunk,
                          uint64_t trip)
{
    int level = fj_level_of(self);
    dx_loop_t *d = level < FJ_MAX_LEVELS ? current[level] : NULL;
    if (!d || d == &alone_loop)
        return;
    int expected = SCHED_UNKNOWN;
    if (!atomic_compare_exchange_strong(&d->sched_state, &expected,
                                        SCHED_SETTING))
        return;                  /* another member told it */
    /* dimension 0's numbers are the loop's (up is its last iteration) */
    d->sched_static = kind == FJ_SCHED_STATIC && d->range[0] == trip;
    d->chunk = chunk;
    d->trip = trip;
    atomic_store_explicit(&d->sched_state, SCHED_KNOWN, memory_order_release);
}

/* ---- messages ------------------------------------------------------------------- */

static void send_to(int node, const fj_wire_doacross_t *m, const char *what)
{
    dsm_status_t st = dsm_tp_am_send(node, FJ_AM_DOACROSS, m, sizeof *m);
    if (st != DSM_OK)
        dsm_fatal("doacross loop: %s node %d: %s", what, node,
                  dsm_status_string(st));
}

static void servant_wake(void);

static int want_answerable(const dx_loop_t *d, uint64_t index)
{
    if (!d || index >= d->total || !(bits_of(d, index) & BIT_MINE))
        return 0;
    uint64_t made = atomic_load(&d->posts_made);
    return atomic_load(&d->posts_released) >= made;
}

static void on_doacross(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    const fj_wire_limits_t lim = {fj.size, fj.threads};
    fj_wire_doacross_t m;
    if (fj_wire_doacross(payload, len, &lim, &m) != DSM_OK)
        dsm_fatal("malformed DOACROSS message from node %d (%zu bytes)", src,
                  len);
    dsm_mutex_lock(&dx.lock);
    dx_loop_t *d = find(&fj.team, m.region, m.instance);
    if (m.op == FJ_DOACROSS_POSTED) {
        if (d && m.index < d->total) {
            atomic_fetch_or(&d->arrived[m.index / 64],
                            1ull << (m.index % 64));
            wake(d);
        }
        dsm_mutex_unlock(&dx.lock);
        return;
    }
    dx_want_t *w = &dx.wants[src * fj.threads + m.thread];
    if (!w->active)
        atomic_fetch_add(&dx.active_wants, 1);
    w->active = 1;
    if (++w->seq == 0)
        w->seq = 1;              /* 0 means unclaimed in my_claims */
    w->region = m.region;
    w->instance = m.instance;
    w->index = m.index;
    if (want_answerable(d, m.index)) {
        w->active = 0;
        atomic_fetch_sub(&dx.active_wants, 1);
        /* queued by the transport: sent once this handler returns */
        fj_wire_doacross_t a = m;
        a.op = FJ_DOACROSS_POSTED;
        a.thread = 0;
        send_to(src, &a, "answering");
    } else if (d && m.index < d->total &&
               (bits_of(d, m.index) & BIT_MINE)) {
        atomic_store(&d->service, 1);     /* posted, not yet released */
        wake(d);
        servant_wake();
    }
    dsm_mutex_unlock(&dx.lock);
}

void fj_doacross_register(void)
{
    dx.nwants = fj.size * fj.threads;
    dx.wants = calloc((size_t)dx.nwants, sizeof *dx.wants);
    if (!dx.wants)
        dsm_fatal("out of memory for the doacross wants");
    if (dsm_tp_am_register(DSM_TP_AM_FORKJOIN, FJ_AM_DOACROSS, on_doacross, NULL) != DSM_OK)
        dsm_fatal("cannot register the DOACROSS message");
}

/* Answer the wants for iterations posted here: claim them, release (a
 * release after the posts they name), then answer the claims still
 * current.  force: release even with nothing to answer (the node's last
 * member leaves the loop).  Returns whether it released.
 *
 * Only the claims this call made: another thread's claim, made while this
 * release was under way, may name an iteration posted after the release
 * began (its writes are in the next interval), and answering it here
 * would let the waiter acquire before they are released.  That thread
 * answers it after its own release. */
static int service_once(dx_loop_t *d, int force)
{
    int claimed = 0;
    if (!answers) {
        answers = calloc((size_t)dx.nwants, sizeof *answers);
        my_claims = calloc((size_t)dx.nwants, sizeof *my_claims);
        if (!answers || !my_claims)
            dsm_fatal("out of memory for doacross answers");
    }
    if (atomic_load(&dx.active_wants) > 0) {
        dsm_mutex_lock(&dx.lock);
        for (int i = 0; i < dx.nwants; i++) {
            dx_want_t *w = &dx.wants[i];
            my_claims[i] = 0;
            if (w->active && w->region == d->region &&
                w->instance == d->instance && w->claim != w->seq &&
                w->index < d->total && (bits_of(d, w->index) & BIT_MINE)) {
                w->claim = w->seq;
                my_claims[i] = w->seq;
                claimed++;
            }
        }
        dsm_mutex_unlock(&dx.lock);
    }
    uint64_t made = atomic_load(&d->posts_made);
    if (!claimed && !(force && atomic_load(&d->posts_released) < made))
        return 0;
    dsm_status_t st = dsm_coh_sync(DSM_COH_RELEASE);
    if (st != DSM_OK)
        dsm_fatal("doacross loop: releasing this node's writes: %s",
                  dsm_status_string(st));
    uint64_t rel = atomic_load(&d->posts_released);
    while (rel < made &&
           !atomic_compare_exchange_weak(&d->posts_released, &rel, made))
        ;
    if (!claimed)
        return 1;
    int n = 0;
    dsm_mutex_lock(&dx.lock);
    for (int i = 0; i < dx.nwants; i++) {
        dx_want_t *w = &dx.wants[i];
        /* seq unchanged since this call claimed it: still that want */
        if (w->active && my_claims[i] && w->seq == my_claims[i] &&
            w->claim == w->seq) {
            w->active = 0;
            atomic_fetch_sub(&dx.active_wants, 1);
            answers[n].node = i / fj.threads;
            answers[n].msg = (fj_wire_doacross_t){
                d->region, d->instance, w->index, FJ_DOACROSS_POSTED, 0};
            n++;
        }
    }
    dsm_mutex_unlock(&dx.lock);
    /* sent outside the lock: a send may wait for the handler's thread */
    for (int i = 0; i < n; i++)
        send_to(answers[i].node, &answers[i].msg, "answering");
    return 1;
}

/* A want that the handler saw while a release was under way (it asks
 * for another service) is answered before this returns: the last member
 * to finish the loop on a node must leave nothing unanswered. */
static void service(dx_loop_t *d, int force)
{
    atomic_fetch_add(&d->servicing, 1);
    do {
        atomic_store(&d->service, 0);
        service_once(d, force);
    } while (atomic_load(&d->service));
    atomic_fetch_sub(&d->servicing, 1);
}

/* The node's last member leaves a loop that spans nodes: release what
 * was posted, and see every want claimed meanwhile (by the servant, or
 * by a member) answered before going on.  The member is about to enter
 * a barrier or the join, which holds the node's protocol lock while it
 * waits for the other nodes: a release claimed but not yet made would
 * then wait behind it, and the other nodes for its answer. */
static void service_last(dx_loop_t *d)
{
    for (int spins = 0;; spins++) {
        service(d, 1);
        if (atomic_load(&d->servicing) == 0 && !atomic_load(&d->service))
            break;
        dsm_spin_step(spins, 64);
    }
}

/* ---- the servant ---------------------------------------------------------------- */

/* The loop with a want waiting for a release, marked as served; dx.lock
 * held. */
static dx_loop_t *servant_next(void)
{
    for (dx_loop_t *d = dx.loops; d; d = d->next)
        if (d->spans && atomic_load(&d->service)) {
            dx.serving = d;
            return d;
        }
    return NULL;
}

/* How long the servant leaves a want to the node's members, which serve
 * it at their next doacross call (most wants: a member is waiting in the
 * loop).  Without the grace the servant's release competed for the CPU
 * with the members' (DSM_PROGRESS_THREAD=0: 20 times slower). */
#define SERVANT_GRACE_NS 200000

static void *servant_main(void *unused)
{
    (void)unused;
    for (;;) {
        uint32_t seen = atomic_load(&dx.servant_word);
        struct timespec grace = {0, SERVANT_GRACE_NS};
        nanosleep(&grace, NULL);
        for (;;) {
            dsm_mutex_lock(&dx.lock);
            dx.serving = NULL;
            dx_loop_t *d = servant_next();
            dsm_mutex_unlock(&dx.lock);
            if (!d)
                break;
            service(d, 0);
        }
        /* a bump after the look above ends this wait at once */
        dsm_futex_wait(&dx.servant_word, seen, NULL);
    }
    return NULL;
}

static void servant_start(void)
{
    pthread_attr_t attr;
    pthread_t tid;
    sigset_t all, old;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* process-directed signals go to application threads */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&tid, &attr, servant_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        dsm_fatal("doacross loop: cannot start the servant thread: "
                  "pthread_create: %s", strerror(rc));
}

/* From the handler: never blocks. */
static void servant_wake(void)
{
    atomic_fetch_add(&dx.servant_word, 1);
    dsm_futex_wake(&dx.servant_word, 1);
}

/* ---- init and fini ------------------------------------------------------------- */

static dx_loop_t *loop_create(const fj_team_t *team, uint64_t region,
                              uint64_t instance, uint64_t epoch, int ndims,
                              const fj_doacross_dim_t *dims)
{
    dx_loop_t *d = calloc(1, sizeof *d);
    int64_t *arrays = calloc((size_t)ndims * 4, sizeof *arrays);
    if (!d || !arrays)
        dsm_fatal("out of memory for a doacross loop");
    d->lo = arrays;
    d->up = arrays + ndims;
    d->st = arrays + 2 * ndims;
    d->range = (uint64_t *)(arrays + 3 * ndims);
    d->team = team;
    d->region = region;
    d->instance = instance;
    d->epoch = epoch;
    d->spans = !team->words && team->nodes > 1;
    d->local_count = team->local_count;
    d->ndims = ndims;
    uint64_t total = 1;
    for (int k = 0; k < ndims; k++) {
        int64_t lo = dims[k].lo, up = dims[k].up, st = dims[k].st;
        if (st == 0)
            dsm_fatal("doacross loop: dimension %d has a zero step", k + 1);
        uint64_t r;
        if (st > 0)
            r = up < lo ? 0
                        : ((uint64_t)up - (uint64_t)lo) / (uint64_t)st + 1;
        else
            r = up > lo ? 0
                        : ((uint64_t)lo - (uint64_t)up) /
                                  (0 - (uint64_t)st) + 1;
        d->lo[k] = lo;
        d->up[k] = up;
        d->st[k] = st;
        d->range[k] = r;
        if (r && total > MAX_ITERATIONS / r)
            dsm_fatal("doacross loop of more than %llu iterations: dsmomp "
                      "keeps bits for every iteration",
                      (unsigned long long)MAX_ITERATIONS);
        total *= r;
    }
    d->total = total;
    d->inner = ndims > 1 && d->range[0] ? total / d->range[0] : 1;
    if (d->inner == 0)
        d->inner = 1;
    d->bits = calloc((size_t)(total / 32 + 1), sizeof *d->bits);
    d->arrived = calloc(d->spans ? (size_t)(total / 64 + 1) : 1,
                        sizeof *d->arrived);
    if (!d->bits || !d->arrived)
        dsm_fatal("out of memory for a doacross loop of %llu iterations",
                  (unsigned long long)total);
    pthread_mutex_init(&d->acq_mutex, NULL);
    return d;
}

/* Loops of the cluster's team that no want can name any more: of an
 * earlier region, or finished here with a barrier since; dx.lock held.
 * Unlinked into *dead. */
static void collect(const fj_thread_t *self, dx_loop_t **dead)
{
    for (dx_loop_t **p = &dx.loops; *p;) {
        dx_loop_t *d = *p;
        int gone = d->team == &fj.team && d != dx.serving &&
                   (d->region != fj.team.region ||
                    (atomic_load(&d->finished) == (uint32_t)d->local_count &&
                     d->epoch < self->barriers));
        if (gone) {
            *p = d->next;
            d->next = *dead;
            *dead = d;
        } else {
            p = &d->next;
        }
    }
}

void fj_doacross_init(int ndims, const fj_doacross_dim_t *dims)
{
    fj_thread_t *self = fj_self();
    int level = fj_level_of(self);
    if (level >= FJ_MAX_LEVELS)
        dsm_fatal("doacross loop in a region nested %d levels deep: dsmomp "
                  "supports %d", level, FJ_MAX_LEVELS - 1);
    if (ndims < 1 || ndims > FJ_DOACROSS_MAX_DIMS)
        dsm_fatal("doacross loop with %d dimensions: dsmomp takes 1 to %d",
                  ndims, FJ_DOACROSS_MAX_DIMS);
    if (fj_alone(self)) {
        current[level] = &alone_loop;
        return;
    }
    fj_team_t *team = self->team;
    uint64_t region = team->words ? 0 : team->region;
    uint64_t instance = self->doacross++;
    dx_loop_t *dead = NULL, *made = NULL, *d;
    dsm_mutex_lock(&dx.lock);
    collect(self, &dead);
    d = find(team, region, instance);
    dsm_mutex_unlock(&dx.lock);
    if (!d) {
        made = loop_create(team, region, instance, self->barriers, ndims,
                           dims);
        dsm_mutex_lock(&dx.lock);
        d = find(team, region, instance);
        if (!d) {
            d = made;
            made = NULL;
            d->next = dx.loops;
            dx.loops = d;
        }
        dsm_mutex_unlock(&dx.lock);
    }
    if (made)
        loop_free(made);         /* another member was first */
    if (d->spans)
        pthread_once(&dx.servant_once, servant_start);
    while (dead) {
        dx_loop_t *next = dead->next;
        loop_free(dead);
        dead = next;
    }
    current[level] = d;
}

void fj_doacross_forget_team(const fj_team_t *team)
{
    dx_loop_t *dead = NULL;
    dsm_mutex_lock(&dx.lock);
    for (dx_loop_t **p = &dx.loops; *p;) {
        dx_loop_t *d = *p;
        if (d->team == team) {
            *p = d->next;
            d->next = dead;
            dead = d;
        } else {
            p = &d->next;
        }
    }
    dsm_mutex_unlock(&dx.lock);
    while (dead) {
        dx_loop_t *next = dead->next;
        loop_free(dead);
        dead = next;
    }
}

void fj_doacross_fini(void)
{
    fj_thread_t *self = fj_self();
    int level = fj_level_of(self);
    dx_loop_t *d = level < FJ_MAX_LEVELS ? current[level] : NULL;
    if (!d)
        return;
    current[level] = NULL;
    if (d == &alone_loop)
        return;
    if (atomic_fetch_add(&d->finished, 1) + 1 != (uint32_t)d->local_count)
        return;
    if (d->spans) {
        /* wants that come later are answered by the handler alone */
        service_last(d);
        return;
    }
    dsm_mutex_lock(&dx.lock);
    for (dx_loop_t **p = &dx.loops; *p; p = &(*p)->next)
        if (*p == d) {
            *p = d->next;
            break;
        }
    dsm_mutex_unlock(&dx.lock);
    loop_free(d);
}

/* ---- post and wait ---------------------------------------------------------------- */

void fj_doacross_post(const int64_t *vec)
{
    fj_thread_t *self = fj_self();
    int level = fj_level_of(self);
    dx_loop_t *d = level < FJ_MAX_LEVELS ? current[level] : NULL;
    if (!d)
        dsm_fatal("ordered depend(source) outside a doacross loop");
    if (d == &alone_loop)
        return;
    uint64_t index;
    if (!linear(d, vec, &index))
        dsm_fatal("ordered depend(source): the iteration is outside the "
                  "doacross loop's iteration space");
    /* counted before it shows as mine: a want handler that sees the bit
     * sees the count (fj_doacross.c's header) */
    if (d->spans)
        atomic_fetch_add(&d->posts_made, 1);
    atomic_fetch_or(&d->bits[index / 32],
                    (uint64_t)(BIT_MINE | BIT_READY) << (2 * (index % 32)));
    wake(d);
    if (d->spans && (atomic_load(&dx.active_wants) > 0 ||
                     atomic_load(&d->service)))
        service(d, 0);
}

/* A POSTED answer arrived for index: acquire, unless an acquire that
 * started after the arrival was seen covers it, then mark it ready. */
static void acquire_arrived(dx_loop_t *d, uint64_t index)
{
    uint64_t seen = atomic_load(&d->acquires);
    pthread_mutex_lock(&d->acq_mutex);
    if (atomic_load(&d->acquires) == seen) {
        atomic_fetch_add(&d->acquires, 1);
        dsm_status_t st = dsm_coh_sync(DSM_COH_ACQUIRE);
        if (st != DSM_OK)
            dsm_fatal("doacross loop: acquiring another node's writes: %s",
                      dsm_status_string(st));
    }
    pthread_mutex_unlock(&d->acq_mutex);
    atomic_fetch_or(&d->bits[index / 32],
                    (uint64_t)BIT_READY << (2 * (index % 32)));
}

static void ask(const fj_thread_t *self, dx_loop_t *d, uint64_t index)
{
    out_msg = (fj_wire_doacross_t){d->region, d->instance, index,
                                   FJ_DOACROSS_WANT, self->local};
    int owner = owner_node(d, index);
    if (owner == fj.rank)
        return;                  /* a thread of this node will post it */
    if (owner >= 0) {
        send_to(owner, &out_msg, "asking");
        return;
    }
    for (int node = 0; node < d->team->nodes; node++)
        if (node != fj.rank)
            send_to(node, &out_msg, "asking");
}

static void sleep_on(dx_loop_t *d, uint32_t seen)
{
    struct timespec limit = {0, 1000000};   /* look at cancellation */
    atomic_fetch_add(&d->sleepers, 1);
    if (atomic_load(&d->gen) == seen)
        dsm_futex_wait(&d->gen, seen, &limit);
    atomic_fetch_sub(&d->sleepers, 1);
}

/* Poll rounds between clock reads (a read costs about a round). */
#define CLOCK_EVERY 64u

static void wait_slow_here(fj_thread_t *self, dx_loop_t *d, uint64_t index)
{
    if (d->spans)
        ask(self, d, index);
    fj_partials_flush();
    dsm_activity_saved_t saved;   /* what dsmrun says if the node dies */
    dsm_activity_wait_begin(&saved, "a doacross dependence", -1);
    int progress_thread = dsm_config()->progress_thread;
    /* poll as long as the wait policy spins (OMP_WAIT_POLICY), yielding
     * when the transport says another node may need this CPU; then sleep
     * (polling the transport all along without a progress thread) */
    uint64_t start = dsm_now_ns(), poll_ns = (uint64_t)fj.spin * 50;
    int polling = 1;
    for (unsigned round = 1;; round++) {
        uint32_t seen = atomic_load(&d->gen);
        if (bits_of(d, index) & BIT_READY)
            break;
        if (d->spans && arrived(d, index)) {
            acquire_arrived(d, index);
            break;
        }
        if (d->spans && atomic_load(&d->service))
            service(d, 0);
        if (fj_cancel_parallel_active(self))
            break;               /* its iteration may never post */
        if (polling || !progress_thread) {
            if (!d->spans || !dsm_tp_progress())
                dsm_cpu_relax();
            if (round % CLOCK_EVERY == 0) {
                uint64_t waited = dsm_now_ns() - start;
                if (d->spans && dsm_tp_should_yield(waited))
                    sched_yield();
                else if (!d->spans && round % (16 * CLOCK_EVERY) == 0)
                    sched_yield();
                if (waited >= poll_ns && progress_thread) {
                    polling = 0;
                    if (d->spans) {
                        dsm_tp_wait_done();
                        dsm_tp_idle();
                    }
                }
            }
        } else {
            sleep_on(d, seen);
        }
    }
    if (d->spans)
        dsm_tp_wait_done();
    dsm_activity_end(&saved);
}

typedef struct wait_call {
    fj_thread_t *self;
    dx_loop_t *d;
    uint64_t index;
} wait_call_t;

static void wait_slow_body(void *p)
{
    wait_call_t *c = p;
    wait_slow_here(c->self, c->d, c->index);
}

/* The wait progresses the transport round after round: on the runtime
 * stack once, rather than a switch in every progress call made on the
 * (sharable) team stack (design.md, "Locks and their order"). */
static void wait_slow(fj_thread_t *self, dx_loop_t *d, uint64_t index)
{
    wait_call_t c = {self, d, index};
    dsm_sys_on_rtstack(wait_slow_body, &c);
}

void fj_doacross_wait(const int64_t *vec)
{
    fj_thread_t *self = fj_self();
    int level = fj_level_of(self);
    dx_loop_t *d = level < FJ_MAX_LEVELS ? current[level] : NULL;
    if (!d)
        dsm_fatal("ordered depend(sink) outside a doacross loop");
    if (d == &alone_loop)
        return;                  /* one thread runs the iterations in order */
    uint64_t index;
    if (!linear(d, vec, &index))
        return;                  /* no such iteration: no dependence */
    if (bits_of(d, index) & BIT_READY)
        return;
    wait_slow(self, d, index);
}
