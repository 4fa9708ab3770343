/*
 * omp_doacross.c - doacross loops (ordered(n) with depend(sink) and
 * depend(source)) give the serial answer, bit for bit, whatever the
 * schedule and wherever the iterations run: each iteration reads what
 * its sink iterations wrote, often on another node (the heap and global
 * arrays span several pages, so the reader's copies are stale until the
 * dependence's acquire).  1-D recurrences under every schedule, several
 * sinks, strides, negative steps and unsigned variables; sinks far
 * behind (posted long before the wait); 2-D wavefronts (static, static
 * chunks, dynamic, guided, and collapse(2), whose work-sharing loop is
 * not dimension 0); two nowait doacross loops back to back; a doacross
 * loop in a nested team.
 *
 * Test program (dsmcc, dsmrun; cross-checked with libomp).  Exit status
 * 0 when every result matched the serial computation.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "omp_check.h"

#define N 1500        /* 1-D loops: 12 KiB of doubles */
#define NI 16         /* wavefronts */
#define NJ 24

#define PRAGMA(...) _Pragma(#__VA_ARGS__)

static double grid[NI][NJ], want_grid[NI][NJ];

static double step(double prev, long i)
{
    return prev * 0.75 + (double)(i % 13) * 0.25;
}

static unsigned long hash_array(const double *a, long n)
{
    unsigned long h = 0;
    for (long i = 0; i < n; i++) {
        unsigned long bits;
        memcpy(&bits, &a[i], sizeof bits);
        h = h * 1000003u ^ bits;
    }
    return h;
}

static void expect_array(const char *what, const double *got,
                         const double *want, long n)
{
    long wrong = 0;
    for (long i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (!wrong)
                fprintf(stderr, "%s: element %ld is %.17g, expected %.17g\n",
                        what, i, got[i], want[i]);
            wrong++;
        }
    if (wrong) {
        fprintf(stderr, "%s: %ld elements wrong\n", what, wrong);
        check_failures++;
    }
    RESULT("%s: %lx", what, hash_array(got, n));
}

/* a[i] = step(a[i-1], i) from a[0] = 1, in a heap array. */
#define RECURRENCE(NAME, ...)                                                 \
    do {                                                                      \
        double *a = malloc(N * sizeof *a);                                    \
        a[0] = 1.0;                                                           \
        PRAGMA(omp parallel for ordered(1) __VA_ARGS__)                       \
        for (int i = 1; i < N; i++) {                                         \
            double local = (double)(i % 7);   /* independent work */          \
            PRAGMA(omp ordered depend(sink : i - 1))                          \
            a[i] = step(a[i - 1], i) + local * 0.0;                           \
            PRAGMA(omp ordered depend(source))                                \
        }                                                                     \
        expect_array(NAME, a, want, N);                                       \
        free(a);                                                              \
    } while (0)

static void recurrences(void)
{
    double *want = malloc(N * sizeof *want);
    want[0] = 1.0;
    for (long i = 1; i < N; i++)
        want[i] = step(want[i - 1], i);
    RECURRENCE("1-D static", schedule(static));
    RECURRENCE("1-D static,1", schedule(static, 1));
    RECURRENCE("1-D static,7", schedule(static, 7));
    RECURRENCE("1-D dynamic,5", schedule(dynamic, 5));
    RECURRENCE("1-D guided", schedule(guided));
    RECURRENCE("1-D runtime", schedule(runtime));
    RECURRENCE("1-D default", );
    free(want);
}

/* Two sinks, a stride of 3 and a loop running downwards on an unsigned
 * variable: b[k] for k = 3m+1 depends on the two iterations before. */
static void strides(void)
{
    static double b[N], want[N];
    for (int k = 0; k < N; k++)
        b[k] = want[k] = k < 7 ? k : 0;
    for (int k = 7; k < N; k += 3)
        want[k] = want[k - 3] * 0.5 + want[k - 6] * 0.25 + 1;
#pragma omp parallel for ordered(1) schedule(static, 2)
    for (int k = 7; k < N; k += 3) {
#pragma omp ordered depend(sink : k - 3) depend(sink : k - 6)
        b[k] = b[k - 3] * 0.5 + b[k - 6] * 0.25 + 1;
#pragma omp ordered depend(source)
    }
    expect_array("stride 3, two sinks", b, want, N);

    for (int k = 0; k < N; k++)
        b[k] = want[k] = k >= N - 2 ? 2.0 : 0;
    for (long k = N - 3; k >= 1; k -= 2)
        want[k] = want[k + 2] * 0.875 + 0.5;
#pragma omp parallel for ordered(1) schedule(static)
    for (unsigned long k = N - 3; k >= 1; k -= 2) {
#pragma omp ordered depend(sink : k + 2)
        b[k] = b[k + 2] * 0.875 + 0.5;
#pragma omp ordered depend(source)
    }
    expect_array("downwards by 2, unsigned", b, want, N);
}

/* c[i] needs c[i - N/2]: under a static schedule the iteration it waits
 * for ran on another node long before (the answer comes from a node
 * that finished its part, or is far ahead). */
static void far_sinks(void)
{
    const int far = N / 2;
    double *c = malloc(N * sizeof *c), *want = malloc(N * sizeof *want);
    for (int i = 0; i < N; i++)
        c[i] = want[i] = i < far ? (double)i : 0;
    for (int i = far; i < N; i++)
        want[i] = want[i - far] * 2 + 1;
#pragma omp parallel for ordered(1) schedule(static)
    for (int i = 0; i < N; i++) {
#pragma omp ordered depend(sink : i - far)
        if (i >= far)
            c[i] = c[i - far] * 2 + 1;
#pragma omp ordered depend(source)
    }
    expect_array("sink half the loop back", c, want, N);
    free(c);
    free(want);
}

#define WAVEFRONT(NAME, ...)                                                  \
    do {                                                                      \
        init_grid();                                                          \
        PRAGMA(omp parallel for ordered(2) __VA_ARGS__)                       \
        for (int i = 1; i < NI; i++)                                          \
            for (int j = 1; j < NJ; j++) {                                    \
                PRAGMA(omp ordered depend(sink : i - 1, j)                    \
                       depend(sink : i, j - 1))                               \
                grid[i][j] = 0.5 * (grid[i - 1][j] + grid[i][j - 1]) + 1;     \
                PRAGMA(omp ordered depend(source))                            \
            }                                                                 \
        expect_array(NAME, &grid[0][0], &want_grid[0][0], NI * NJ);           \
    } while (0)

static void init_grid(void)
{
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            grid[i][j] = (i == 0 || j == 0) ? i + 0.5 * j : 0;
}

static void wavefronts(void)
{
    init_grid();
    memcpy(want_grid, grid, sizeof grid);
    for (int i = 1; i < NI; i++)
        for (int j = 1; j < NJ; j++)
            want_grid[i][j] =
                0.5 * (want_grid[i - 1][j] + want_grid[i][j - 1]) + 1;
    WAVEFRONT("2-D static", schedule(static));
    WAVEFRONT("2-D static,1", schedule(static, 1));
    WAVEFRONT("2-D dynamic", schedule(dynamic));
    WAVEFRONT("2-D guided,2", schedule(guided, 2));
    WAVEFRONT("2-D collapse(2)", collapse(2) schedule(static, 5));

    /* the diagonal: (i, j) needs (i-1, j+1) and (i, j-1).  At the last j
     * the sink (i-1, j+1) is one past the end of dimension 1: no such
     * iteration, so no dependence.  clang 14 gives the runtime the trip
     * count as the upper bound and libomp 14 takes it as inclusive: it
     * waits forever for that iteration, so the libomp build prints the
     * serial answer instead (the cross-check still compares dsmomp's
     * computed result with it). */
    static double d[NI][NJ], want_d[NI][NJ];
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            d[i][j] = want_d[i][j] = i + j;
    for (int i = 1; i < NI; i++)
        for (int j = 1; j < NJ - 1; j++)
            want_d[i][j] = want_d[i - 1][j + 1] * 0.5 + want_d[i][j - 1];
#ifdef OMP_CHECK_LIBOMP
    memcpy(d, want_d, sizeof d);
#else
#pragma omp parallel for ordered(2) schedule(static, 2)
    for (int i = 1; i < NI; i++)
        for (int j = 1; j < NJ - 1; j++) {
#pragma omp ordered depend(sink : i - 1, j + 1) depend(sink : i, j - 1)
            d[i][j] = d[i - 1][j + 1] * 0.5 + d[i][j - 1];
#pragma omp ordered depend(source)
        }
#endif
    expect_array("2-D diagonal", &d[0][0], &want_d[0][0], NI * NJ);
}

/* Two doacross loops without a barrier between them, on separate data. */
static void nowait_pair(void)
{
    static double p[N], q[N], want_p[N], want_q[N];
    p[0] = want_p[0] = 1;
    q[0] = want_q[0] = 2;
    for (int i = 1; i < N; i++) {
        want_p[i] = step(want_p[i - 1], i);
        want_q[i] = step(want_q[i - 1], i + 1);
    }
#pragma omp parallel
    {
#pragma omp for ordered(1) schedule(static, 3) nowait
        for (int i = 1; i < N; i++) {
#pragma omp ordered depend(sink : i - 1)
            p[i] = step(p[i - 1], i);
#pragma omp ordered depend(source)
        }
#pragma omp for ordered(1) schedule(dynamic, 4) nowait
        for (int i = 1; i < N; i++) {
#pragma omp ordered depend(sink : i - 1)
            q[i] = step(q[i - 1], i + 1);
#pragma omp ordered depend(source)
        }
    }
    expect_array("nowait loop 1", p, want_p, N);
    expect_array("nowait loop 2", q, want_q, N);
}

/* Inside a team of one node's threads (a nested region); the outer
 * team has one thread on 1x1. */
static void nested(void)
{
    static double r[2][N / 4], want[N / 4];
    int outer = 0;
    want[0] = 1;
    for (int i = 1; i < N / 4; i++)
        want[i] = step(want[i - 1], i);
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
        double *mine = r[omp_get_thread_num()];
#pragma omp single
        outer = omp_get_num_threads();
        mine[0] = 1;
#pragma omp parallel for ordered(1) schedule(static, 2) num_threads(2)
        for (int i = 1; i < N / 4; i++) {
#pragma omp ordered depend(sink : i - 1)
            mine[i] = step(mine[i - 1], i);
#pragma omp ordered depend(source)
        }
    }
    omp_set_max_active_levels(1);
    expect_array("nested team 0", r[0], want, N / 4);
    if (outer == 2)
        expect_array("nested team 1", r[1], want, N / 4);
}

/* The poster busy in its own code: iteration 1 posts, then spins on a
 * flag that iteration 2 sets only once its wait for iteration 1 has
 * returned.  Under static,1 the two run on different threads, on two
 * nodes whenever a node has one thread (and on 2x2: threads 1 and 2);
 * iteration 2 asks late, after the post: the wait must be answered
 * without the spinning thread's help.  The
 * spin gives up after 20 s, so a runtime that needs the poster's thread
 * fails here rather than hanging. */
static int busy_flag, busy_posted;
static double busy_data[64];

static void busy_poster(void)
{
    int gave_up = 0, team = 1;
    busy_flag = busy_posted = 0;
    for (int i = 0; i < 64; i++)
        busy_data[i] = 0;
#pragma omp parallel reduction(+ : gave_up)
    {
#pragma omp single
        team = omp_get_num_threads();
        if (team > 1) {
#pragma omp for ordered(1) schedule(static, 1) nowait
            for (int i = 0; i < 64; i++) {
                if (i == 2) {   /* ask only once iteration 1 has posted */
                    double until = omp_get_wtime() + 20;
                    int seen = 0;
                    while (!seen && omp_get_wtime() < until) {
#pragma omp atomic read
                        seen = busy_posted;
                    }
                    gave_up += !seen;
                }
#pragma omp ordered depend(sink : i - 1)
                busy_data[i] = (i ? busy_data[i - 1] : 0) * 0.5 + i;
#pragma omp ordered depend(source)
                if (i == 2) {
#pragma omp atomic write
                    busy_flag = 1;
                }
                if (i == 1) {
#pragma omp atomic write
                    busy_posted = 1;
                    double until = omp_get_wtime() + 20;
                    int seen = 0;
                    while (!seen && omp_get_wtime() < until) {
#pragma omp atomic read
                        seen = busy_flag;
                    }
                    gave_up += !seen;
                }
            }
        }
    }
    CHECK_EQ_LONG(gave_up, 0);
    double want = 0;
    for (int i = 0; i < 64; i++) {
        want = want * 0.5 + i;
        if (team > 1)
            CHECK(busy_data[i] == want);
    }
    RESULT("poster busy in its own code: %s", gave_up ? "gave up" : "ok");
}

int main(void)
{
    recurrences();
    strides();
    far_sinks();
    wavefronts();
    nowait_pair();
    nested();
    busy_poster();
    return check_status("omp_doacross");
}
