/*
 * omp_atomic.c - `#pragma omp atomic` and C atomics on 1, 2, 4 and 8-byte
 * objects, done by every thread of every node: update, read, write and
 * capture on int, long, float and double, a compare-exchange loop, max and
 * min, on a global, on the sharable heap and on main's stack (shared with
 * the region by address); the final values are exact.  Threads also take
 * turns through atomics alone, which only works when every atomic is seen
 * at once by every node.  On one node it also runs the updates on memory
 * that is not sharable (an anonymous mapping: dsmcc makes the program's
 * malloc sharable), which take the native path.
 *
 * Usage: omp_atomic [OPS]: OPS operations per thread and per test
 * (default 500).  Across hosts every atomic is a round trip, so a job on
 * a loaded machine asks for fewer (tests/hosts).
 *
 * Test program: compiled by dsmcc, which loads the dsm-atomic plug-in; run
 * directly (one node, DSM_THREADS threads) and under dsmrun.  Exit status
 * 0 when every check held.
 */
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "atomic_expect.h"
#include "dsm.h"

static int ops_per_thread = 500;   /* per test; argv[1] */
#define TURNS 50    /* turns per thread */
#define TURN_WAIT_S 20

struct counters {
    int i;
    long l;
    short s;
    char c;
    float f;
    double d;
    long cas;
    long max;
    long min;
    unsigned long bits;
};

static struct counters g_counters;
static int g_ticket;
static long g_slot;
static double g_dslot;
static long g_turn;
static long g_turn_count;
static int nthreads;

/* The team's size, as seen inside the region (main's view may differ). */
static void record_team_size(void)
{
#pragma omp master
    nthreads = omp_get_num_threads();
}

/* Every thread: ops_per_thread updates of each kind. */
static void update(struct counters *c)
{
#pragma omp parallel
    {
        record_team_size();
        int me = omp_get_thread_num();
        for (int k = 0; k < ops_per_thread; k++) {
#pragma omp atomic
            c->i++;
#pragma omp atomic
            c->l += 3;
#pragma omp atomic
            c->s += 1;
#pragma omp atomic
            c->c ^= 1;
#pragma omp atomic
            c->f += 0.5f;
#pragma omp atomic
            c->d -= 0.25;
#pragma omp atomic
            c->bits |= 1ul << (me % 64);
            long old = __atomic_load_n(&c->cas, __ATOMIC_RELAXED);
            while (!__atomic_compare_exchange_n(&c->cas, &old, old + 1, 1,
                                                __ATOMIC_SEQ_CST,
                                                __ATOMIC_RELAXED))
                ;
            __atomic_fetch_max(&c->max, (long)me * ops_per_thread + k,
                               __ATOMIC_RELAXED);
            __atomic_fetch_min(&c->min, -((long)me * ops_per_thread + k),
                               __ATOMIC_RELAXED);
        }
    }
}

static void check_update(const char *where, const struct counters *c)
{
    long n = (long)nthreads * ops_per_thread;
    char what[64];
    snprintf(what, sizeof what, "%s int", where);
    expect_long(what, c->i, n);
    snprintf(what, sizeof what, "%s long", where);
    expect_long(what, c->l, 3 * n);
    snprintf(what, sizeof what, "%s short", where);
    expect_long(what, c->s, (short)n);
    snprintf(what, sizeof what, "%s char", where);
    expect_long(what, c->c, n % 2);
    snprintf(what, sizeof what, "%s float", where);
    expect_double(what, c->f, 0.5 * (double)n);
    snprintf(what, sizeof what, "%s double", where);
    expect_double(what, c->d, -0.25 * (double)n);
    snprintf(what, sizeof what, "%s bits", where);
    expect_long(what, (long)c->bits,
                nthreads >= 64 ? -1 : (long)((1ul << nthreads) - 1));
    snprintf(what, sizeof what, "%s compare-exchange loop", where);
    expect_long(what, c->cas, n);
    snprintf(what, sizeof what, "%s max", where);
    expect_long(what, c->max, n - 1);
    snprintf(what, sizeof what, "%s min", where);
    expect_long(what, c->min, -(n - 1));
}

/* Capture: every ticket is handed out exactly once. */
static void capture(int *seen)
{
#pragma omp parallel
    {
        int me = omp_get_thread_num();
        for (int k = 0; k < ops_per_thread; k++) {
            int mine;
#pragma omp atomic capture
            mine = g_ticket++;
            seen[me * ops_per_thread + k] = mine;
        }
    }
}

static void check_capture(const int *seen)
{
    long n = (long)nthreads * ops_per_thread;
    char *hit = calloc((size_t)n, 1);
    long bad = 0;
    for (long t = 0; t < n; t++) {
        if (seen[t] < 0 || seen[t] >= n || hit[seen[t]])
            bad++;
        else
            hit[seen[t]] = 1;
    }
    free(hit);
    expect_long("captured tickets out of range or repeated", bad, 0);
    expect_long("tickets handed out", g_ticket, n);
}

/* Read and write: a written value is always one some thread wrote whole,
 * and after the barrier every thread reads the same one. */
static long pattern(long x) { return (x << 32) | x; }

static void read_write(long *bad_reads, long *last)
{
#pragma omp parallel
    {
        int me = omp_get_thread_num();
        long bad = 0;
        for (int k = 0; k < ops_per_thread; k++) {
            long x = (long)me * ops_per_thread + k + 1;
            long v;
            double dv;
#pragma omp atomic write
            g_slot = pattern(x);
#pragma omp atomic write
            g_dslot = 1.5 * (double)x;
#pragma omp atomic read
            v = g_slot;
#pragma omp atomic read
            dv = g_dslot;
            if ((v >> 32) != (v & 0xffffffff) || v == 0)
                bad++;
            if (dv < 1.5 || dv / 1.5 != (double)(long)(dv / 1.5))
                bad++;
        }
        bad_reads[me] = bad;
#pragma omp barrier
        long v;
#pragma omp atomic read
        v = g_slot;
        last[me] = v;
    }
}

/* Turns: thread t may act when the turn counter reaches r * n + t.  The
 * count it captures must be exactly its turn, whichever node made the
 * earlier increments.  No barrier or lock publishes anything in between:
 * with atomics that stay on one node, a thread never sees the other
 * node's turns and gives up after TURN_WAIT_S seconds. */
static void wait_for_turn(long want)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        long turn;
#pragma omp atomic read
        turn = g_turn;
        if (turn == want)
            return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > TURN_WAIT_S) {
            fprintf(stderr, "omp_atomic: turn %ld never came, the counter "
                    "stays at %ld: atomics are not shared between nodes\n",
                    want, turn);
            exit(1);
        }
        sched_yield();  /* the thread whose turn it is may need this core */
    }
}

static void turns(long *wrong)
{
#pragma omp parallel
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        long bad = 0;
        for (int r = 0; r < TURNS; r++) {
            long want = (long)r * n + me;
            wait_for_turn(want);
            long seen;
#pragma omp atomic capture
            seen = g_turn_count++;
            if (seen != want)
                bad++;
#pragma omp atomic
            g_turn++;
        }
        wrong[me] = bad;
    }
}

/* A private local never leaves its thread: it stays a CPU atomic. */
static long private_local(void)
{
    long total = 0;
#pragma omp parallel reduction(+ : total)
    {
        long mine = 0;
        for (int k = 0; k < ops_per_thread; k++)
            __atomic_fetch_add(&mine, 2, __ATOMIC_RELAXED);
        total += mine;
    }
    return total;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        char *end;
        long ops = strtol(argv[1], &end, 10);
        if (*end || ops < 1 || ops > 1000000) {
            fprintf(stderr, "usage: omp_atomic [OPS], 1 <= OPS <= 1000000\n");
            return 2;
        }
        ops_per_thread = (int)ops;
    }
    struct counters on_stack = {0};
    struct counters *on_heap = kmp_sharable_calloc(1, sizeof *on_heap);
    int *seen = kmp_sharable_malloc(sizeof(int) * (size_t)ops_per_thread *
                                    (size_t)omp_get_max_threads());
    long *bad_reads = kmp_sharable_calloc((size_t)omp_get_max_threads(),
                                          sizeof(long));
    long *last = kmp_sharable_calloc((size_t)omp_get_max_threads(),
                                     sizeof(long));
    if (!on_heap || !seen || !bad_reads || !last) {
        fprintf(stderr, "omp_atomic: out of sharable memory\n");
        return 1;
    }
    expect_true("the global is sharable", kmp_is_sharable(&g_counters));
    expect_true("main's stack is sharable", kmp_is_sharable(&on_stack));
    expect_true("the heap block is sharable", kmp_is_sharable(on_heap));

    update(&g_counters);
    check_update("global", &g_counters);
    update(on_heap);
    check_update("sharable heap", on_heap);
    update(&on_stack);
    check_update("main's stack", &on_stack);

    capture(seen);
    check_capture(seen);

    read_write(bad_reads, last);
    for (int t = 0; t < nthreads; t++) {
        expect_long("torn or foreign reads", bad_reads[t], 0);
        expect_long("value read after the barrier", last[t], last[0]);
    }
    expect_true("the last value is a written one",
                (last[0] >> 32) == (last[0] & 0xffffffff) && last[0] != 0);
    /* Also keeps g_slot and g_dslot used outside the region: clang 14's
     * GlobalOpt turns a static global that only one outlined function
     * touches into a local of that function - one per thread - atomics or
     * not. */
    expect_long("value read by main", g_slot, last[0]);
    expect_true("the last double is a written one",
                g_dslot >= 1.5 && g_dslot / 1.5 == (double)(long)(g_dslot / 1.5));

    expect_long("private locals", private_local(), 2L * ops_per_thread * nthreads);

    long *wrong = bad_reads;    /* reused: one slot per thread */
    turns(wrong);
    for (int t = 0; t < nthreads; t++)
        expect_long("turns that saw a wrong count", wrong[t], 0);
    expect_long("turns taken", g_turn_count, (long)TURNS * nthreads);
    expect_long("turn counter", g_turn, (long)TURNS * nthreads);

    if (dsm_num_nodes() == 1) {
        /* a private mapping is not sharable: the native path, one node's
         * threads */
        struct counters *local = mmap(NULL, sizeof *local,
                                      PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (local == MAP_FAILED) {
            fprintf(stderr, "omp_atomic: mmap failed\n");
            return 1;
        }
        expect_true("private memory is not sharable", !kmp_is_sharable(local));
        update(local);
        check_update("private memory", local);
        munmap(local, sizeof *local);
    }
    expect_true("the team has more than one thread", nthreads > 1);
    printf("omp_atomic: %d threads on %d nodes\n", nthreads, dsm_num_nodes());
    return expect_status("omp_atomic");
}
