/*
 * omp_atomic_wide.c - atomics clang does not inline as one instruction, on
 * sharable memory, by every thread of every node: `#pragma omp atomic` on
 * long double and double complex (libatomic's generic calls), __int128
 * through libatomic's sized calls and through 16-byte instructions
 * (_Atomic), and misaligned fields of a packed struct (a libatomic call
 * and a __sync builtin).  All take the runtime's locked path; the final
 * values are exact.  Threads also take turns through a long double alone,
 * which works only if every node sees each update at once.  On one node it
 * also runs the same operations on memory that is not sharable, which go
 * to libatomic itself.
 *
 * Test program: compiled by dsmcc (the dsm-atomic plug-in); run directly
 * (one node) and under dsmrun.  Exit status 0 when every check held.
 */
#include <complex.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "atomic_expect.h"
#include "dsm.h"

#define K 200  /* operations per thread: each one is a cluster lock round */
#define TURNS 20
#define TURN_WAIT_S 20

struct __attribute__((packed)) packed {
    char tag;
    int i;     /* at offset 1 */
    long l;    /* at offset 5 */
};

struct wide {
    long double ld;
    double complex z;
    __int128 big;
    _Atomic __int128 inline_big;
    struct packed p;
};

static struct wide g_wide;
static long double g_turn;
static int nthreads;

/* The misaligned fields are the point here. */
#pragma clang diagnostic ignored "-Waddress-of-packed-member"

static void update(struct wide *w)
{
#pragma omp parallel
    {
#pragma omp master
        nthreads = omp_get_num_threads();
        for (int k = 0; k < K; k++) {
#pragma omp atomic
            w->ld += 0.5L;
#pragma omp atomic
            w->z += 1.0 + 2.0 * I;
            __atomic_fetch_add(&w->big, (__int128)1 << 64, __ATOMIC_SEQ_CST);
            w->inline_big += 3;
            __atomic_fetch_add(&w->p.i, 1, __ATOMIC_RELAXED);
            __sync_fetch_and_add(&w->p.l, 2);
        }
    }
}

static void check(const char *where, struct wide *w)
{
    long n = (long)nthreads * K;
    char what[64];
    snprintf(what, sizeof what, "%s long double", where);
    expect_double(what, (double)w->ld, 0.5 * (double)n);
    snprintf(what, sizeof what, "%s complex real part", where);
    expect_double(what, creal(w->z), (double)n);
    snprintf(what, sizeof what, "%s complex imaginary part", where);
    expect_double(what, cimag(w->z), 2.0 * (double)n);
    snprintf(what, sizeof what, "%s __int128 high word", where);
    expect_long(what, (long)(w->big >> 64), n);
    snprintf(what, sizeof what, "%s __int128 low word", where);
    expect_long(what, (long)(unsigned long)w->big, 0);
    __int128 inline_big = w->inline_big;
    snprintf(what, sizeof what, "%s _Atomic __int128", where);
    expect_long(what, (long)inline_big, 3 * n);
    snprintf(what, sizeof what, "%s misaligned int", where);
    expect_long(what, w->p.i, n);
    snprintf(what, sizeof what, "%s misaligned long", where);
    expect_long(what, w->p.l, 2 * n);
}

/* Thread t may act when the counter reaches r * n + t; it then captures
 * the count and adds one.  Nothing but the long double's atomics carries
 * the turns between nodes. */
static void wait_for_turn(long double want)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        long double turn;
#pragma omp atomic read
        turn = g_turn;
        if (turn == want)
            return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > TURN_WAIT_S) {
            fprintf(stderr, "omp_atomic_wide: turn %.0Lf never came, the "
                    "counter stays at %.0Lf\n", want, turn);
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
            long double want = (long double)r * n + me, seen;
            wait_for_turn(want);
#pragma omp atomic capture
            {
                seen = g_turn;
                g_turn += 1;
            }
            if (seen != want)
                bad++;
        }
        wrong[me] = bad;
    }
}

int main(void)
{
    struct wide *on_heap = kmp_sharable_calloc(1, sizeof *on_heap);
    if (!on_heap) {
        fprintf(stderr, "omp_atomic_wide: out of sharable memory\n");
        return 1;
    }
    expect_true("the global is sharable", kmp_is_sharable(&g_wide));
    expect_true("the heap block is sharable", kmp_is_sharable(on_heap));
    expect_true("the packed int is misaligned",
                ((unsigned long)&g_wide.p.i & 3) != 0);

    update(&g_wide);
    check("global", &g_wide);
    update(on_heap);
    check("sharable heap", on_heap);

    long *wrong = kmp_sharable_calloc((size_t)omp_get_max_threads(),
                                      sizeof(long));
    if (!wrong) {
        fprintf(stderr, "omp_atomic_wide: out of sharable memory\n");
        return 1;
    }
    turns(wrong);
    for (int t = 0; t < nthreads; t++)
        expect_long("turns that saw a wrong count", wrong[t], 0);
    expect_double("turns taken", (double)g_turn, (double)TURNS * nthreads);

    if (dsm_num_nodes() == 1) {
        /* a private mapping (dsmcc makes malloc sharable) */
        struct wide *native = mmap(NULL, sizeof *native,
                                   PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (native == MAP_FAILED) {
            fprintf(stderr, "omp_atomic_wide: mmap failed\n");
            return 1;
        }
        expect_true("private memory is not sharable",
                    !kmp_is_sharable(native));
        update(native);
        check("private memory", native);
        munmap(native, sizeof *native);
    }
    expect_true("the team has more than one thread", nthreads > 1);
    printf("omp_atomic_wide: %d threads on %d nodes\n", nthreads, dsm_num_nodes());
    return expect_status("omp_atomic_wide");
}
