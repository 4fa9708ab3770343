/*
 * shim_cxx_guard.c - function-local statics of a C++ program, and
 * std::call_once, are initialised once in the whole cluster.
 *
 * clang guards the initialisation of `static T x = ...;` inside a function
 * with a 64-bit guard variable in the program's data (sharable) and calls
 * __cxa_guard_acquire/release/abort, which libstdc++ implements with CPU
 * atomics and a futex on the guard's first word: atomic within one node
 * only, so two nodes could both construct the object.  dsmc++ links with
 * -Wl,--wrap for the three, so the program's calls come here.
 *
 * In a job of several nodes, while the job runs, the guard's state is its
 * second 32-bit word (the Itanium ABI leaves all but the first byte to
 * the implementation; libstdc++ uses the first word only), changed with
 * the runtime's cluster atomics (exact at the word's home):
 *     0        not constructed
 *     1        constructed
 *     4 + 8 id being constructed by the thread with global id `id`
 * acquire: compare-and-swap 0 -> 4 + 8 id; the winner constructs; a loser
 * waits while the word says "being constructed" (polling, with growing
 * sleeps), then acquires (DSM) so it sees what the constructor wrote.
 * release: a DSM release (the object's writes are published), then 1.
 * abort (the constructor threw): back to 0.
 *
 * The first byte, which clang's inline check reads before calling
 * acquire, is never set on this path: every pass over the declaration
 * calls acquire, which answers from a node-local table of guards seen
 * constructed (after an acquire on this node; a DSM acquire is
 * node-wide).  The atomics plug-in leaves that inline load native
 * (atomic_sharable.cpp), since its value only decides whether to call.
 * Before the job (constructors run on every node, and node 0's data wins
 * at start-up), in one-node jobs and for guards outside sharable memory,
 * libstdc++'s functions do the work; a first byte set before the job was
 * node 0's and is true everywhere.
 *
 * std::call_once calls pthread_once (from inline code, so dsmc++ wraps it
 * too), whose control word glibc sets to 2 when done: on the cluster path
 * the same word goes 0 -> "being run by id" -> 2 with cluster atomics,
 * as above (a routine that throws puts it back to 0, which needs this
 * file built with -fexceptions); a word done before the job, or after,
 * is libc's 2.
 *
 * Layer: compiler-shim.  Entry points __wrap___cxa_guard_acquire,
 * __wrap___cxa_guard_release, __wrap___cxa_guard_abort,
 * __wrap_pthread_once: any application thread.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "base_log.h"
#include "coherence.h"
#include "dsm.h"
#include "forkjoin.h"
#include "shim_cxx.h"

SHIM_EXPORT int __wrap___cxa_guard_acquire(uint64_t *guard);
SHIM_EXPORT void __wrap___cxa_guard_release(uint64_t *guard);
SHIM_EXPORT void __wrap___cxa_guard_abort(uint64_t *guard);
SHIM_EXPORT int __wrap_pthread_once(pthread_once_t *once, void (*init)(void));

enum { GUARD_IDLE = 0, GUARD_DONE = 1 };
enum { ONCE_IDLE = 0, ONCE_DONE = 2 };      /* glibc's done value */

/* ---- libstdc++'s functions ---------------------------------------------- */

typedef int (*guard_acquire_t)(uint64_t *);
typedef void (*guard_end_t)(uint64_t *);

static void *libstdcxx(const char *name)
{
    void *fn = dlsym(RTLD_DEFAULT, name);
    if (!fn)
        dsm_fatal("cannot find %s in the C or C++ library: link the "
                  "program with dsmc++", name);
    return fn;
}

static int native_acquire(uint64_t *guard)
{
    static guard_acquire_t fn;
    if (!fn)
        fn = (guard_acquire_t)libstdcxx("__cxa_guard_acquire");
    return fn(guard);
}

static void native_release(uint64_t *guard)
{
    static guard_end_t fn;
    if (!fn)
        fn = (guard_end_t)libstdcxx("__cxa_guard_release");
    fn(guard);
}

static void native_abort(uint64_t *guard)
{
    static guard_end_t fn;
    if (!fn)
        fn = (guard_end_t)libstdcxx("__cxa_guard_abort");
    fn(guard);
}

/* ---- guards this node knows are constructed ------------------------------ */

#define KNOWN_SLOTS 4096u   /* a power of two */
#define KNOWN_PROBES 16u
static uintptr_t known[KNOWN_SLOTS];

static unsigned known_hash(uintptr_t g)
{
    return (unsigned)((g >> 3) * 0x9E3779B1u) & (KNOWN_SLOTS - 1);
}

static int known_done(uintptr_t g)
{
    unsigned h = known_hash(g);
    for (unsigned i = 0; i < KNOWN_PROBES; i++) {
        uintptr_t v = __atomic_load_n(&known[(h + i) & (KNOWN_SLOTS - 1)],
                                      __ATOMIC_ACQUIRE);
        if (v == g)
            return 1;
        if (v == 0)
            return 0;
    }
    return 0;
}

/* A full neighbourhood only costs this guard the cluster path each time. */
static void remember_done(uintptr_t g)
{
    unsigned h = known_hash(g);
    for (unsigned i = 0; i < KNOWN_PROBES; i++) {
        uintptr_t *slot = &known[(h + i) & (KNOWN_SLOTS - 1)];
        uintptr_t expected = 0;
        if (__atomic_compare_exchange_n(slot, &expected, g, 0,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED) ||
            expected == g)
            return;
    }
}

/* ---- the cluster path ----------------------------------------------------- */

static int cluster_guard(const void *object)
{
    return fj_started() && fj_heap_open() && dsm_num_nodes() > 1 &&
           dsm_is_sharable(object);
}

static uint32_t *state_word(uint64_t *guard) { return (uint32_t *)guard + 1; }

static uint64_t cluster_op(uint32_t *word, dsm_coh_atomic_op_t op,
                           uint64_t operand, uint64_t expected)
{
    uint64_t old = 0;
    dsm_status_t st = dsm_coh_atomic(word, 4, op, operand, expected, &old);
    if (st != DSM_OK)
        dsm_fatal("once-only initialisation (%p): %s", (void *)word,
                  dsm_status_string(st));
    return old;
}

static uint64_t word_op(uint64_t *guard, dsm_coh_atomic_op_t op,
                        uint64_t operand, uint64_t expected)
{
    return cluster_op(state_word(guard), op, operand, expected);
}

static void sync_or_die(unsigned what)
{
    dsm_status_t st = dsm_coh_sync(what);
    if (st != DSM_OK)
        dsm_fatal("once-only initialisation: %s", dsm_status_string(st));
}

/* This thread's mark in a word it is initialising: never 0, 1 or 2, and
 * different for every thread of the job (a thread the runtime did not
 * create gets a number of its node's own, above every global id). */
static uint64_t busy_mark(void)
{
    int id = fj_gtid();
    if (id < 0) {
        static __thread uint32_t foreign;
        static uint32_t next_foreign;
        if (!foreign)
            foreign = ((uint32_t)1 << 23) +
                      ((uint32_t)dsm_node_id() << 10) +
                      (__atomic_fetch_add(&next_foreign, 1,
                                          __ATOMIC_RELAXED) & 1023);
        return 4 + ((uint64_t)foreign << 3);
    }
    return 4 + ((uint64_t)id << 3);
}

/* Another thread constructs: poll, sleeping longer each time (up to 1 ms),
 * as a constructor may take long and each poll may cross the network. */
static void wait_a_little(unsigned round)
{
    if (round < 8)
        return;
    long ns = 1000L << (round < 18 ? round - 8 : 10);
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

int __wrap___cxa_guard_acquire(uint64_t *guard)
{
    uintptr_t g = (uintptr_t)guard;
    if (known_done(g))
        return 0;
    if (!cluster_guard(guard)) {
        /* after the job: what the job constructed stays constructed */
        if (fj_started() && !fj_heap_open() &&
            __atomic_load_n(state_word(guard), __ATOMIC_ACQUIRE) ==
                GUARD_DONE)
            return 0;
        return native_acquire(guard);
    }
    uint64_t me = busy_mark();
    for (unsigned round = 0;; round++) {
        uint64_t old = word_op(guard, DSM_ATOMIC_CAS, me, GUARD_IDLE);
        if (old == GUARD_IDLE)
            return 1;
        if (old == GUARD_DONE) {
            sync_or_die(DSM_COH_ACQUIRE);
            remember_done(g);
            return 0;
        }
        if (old == me)
            dsm_fatal("a function-local static at %p is used by its own "
                      "initialiser (recursive initialisation)",
                      (void *)guard);
        wait_a_little(round);
    }
}

void __wrap___cxa_guard_release(uint64_t *guard)
{
    if (!cluster_guard(guard)) {
        native_release(guard);
        return;
    }
    sync_or_die(DSM_COH_RELEASE);
    word_op(guard, DSM_ATOMIC_STORE, GUARD_DONE, 0);
    remember_done((uintptr_t)guard);
}

void __wrap___cxa_guard_abort(uint64_t *guard)
{
    if (!cluster_guard(guard)) {
        native_abort(guard);
        return;
    }
    word_op(guard, DSM_ATOMIC_STORE, GUARD_IDLE, 0);
}

/* ---- std::call_once --------------------------------------------------- */

static void native_once(pthread_once_t *once, void (*init)(void))
{
    typedef int (*once_t)(pthread_once_t *, void (*)(void));
    static once_t fn;
    if (!fn)
        fn = (once_t)libstdcxx("pthread_once");
    int rc = fn(once, init);
    if (rc != 0)
        dsm_fatal("pthread_once: error %d", rc);
}

/* An exception left the routine: the next caller runs it again. */
static void once_abandoned(pthread_once_t **pending)
{
    if (*pending)
        cluster_op((uint32_t *)*pending, DSM_ATOMIC_STORE, ONCE_IDLE, 0);
}

int __wrap_pthread_once(pthread_once_t *once, void (*init)(void))
{
    uintptr_t key = (uintptr_t)once;
    if (known_done(key))
        return 0;
    if (!cluster_guard(once)) {
        native_once(once, init);
        return 0;
    }
    uint32_t *word = (uint32_t *)once;
    uint64_t me = busy_mark();
    for (unsigned round = 0;; round++) {
        uint64_t old = cluster_op(word, DSM_ATOMIC_CAS, me, ONCE_IDLE);
        if (old == ONCE_IDLE) {
            pthread_once_t *pending __attribute__((cleanup(once_abandoned))) =
                once;
            init();
            pending = NULL;
            sync_or_die(DSM_COH_RELEASE);
            cluster_op(word, DSM_ATOMIC_STORE, ONCE_DONE, 0);
            remember_done(key);
            return 0;
        }
        if (old == ONCE_DONE) {
            sync_or_die(DSM_COH_ACQUIRE);
            remember_done(key);
            return 0;
        }
        if (old == me)
            dsm_fatal("std::call_once at %p called again by its own routine",
                      (void *)once);
        wait_a_little(round);
    }
}
