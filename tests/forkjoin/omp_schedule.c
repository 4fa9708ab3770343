/*
 * omp_schedule.c - work-sharing loops: every schedule kind, with and
 * without chunk sizes, for int, unsigned, long and unsigned long loop
 * variables, decreasing and strided loops, empty and short loops, runs of
 * nowait loops, collapse(2), lastprivate and sections.  Every iteration
 * must run exactly once: each marks its own entry of a global count
 * array.  Static
 * schedules must also give each iteration to the right thread: chunks
 * round-robin, and without a chunk one balanced block per thread (as
 * libomp does; the cross-check compares the owners with libomp's).
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <string.h>

#include "omp_check.h"

#define N 1000
#define NOWAIT_LOOPS 20              /* more than the runtime's loop slots */

static long hits[N];
static int owner[N];
static long nowait_hits[NOWAIT_LOOPS][N / 10];

static void reset(void) { memset(hits, 0, sizeof hits); }

static void expect_once(const char *what, int from, int to, int step)
{
    int bad = 0;
    for (int i = 0; i < N; i++) {
        int want = i >= from && i < to && (i - from) % step == 0;
        if (hits[i] != want)
            bad++;
    }
    if (bad) {
        fprintf(stderr, "%s: %d iterations ran a wrong number of times\n",
                what, bad);
        check_failures++;
    }
    RESULT("%s %d..%d step %d: %s", what, from, to, step,
           bad ? "wrong" : "each once");
}

/* The thread that must run iteration i of 0..n-1 under schedule(static)
 * (chunk 0) or schedule(static, chunk) with nth threads. */
static int static_owner(int i, int n, int chunk, int nth)
{
    if (chunk)
        return (i / chunk) % nth;
    int small = n / nth, extra = n % nth;
    /* the first extra threads get one iteration more */
    int split = extra * (small + 1);
    return i < split ? i / (small + 1) : extra + (i - split) / small;
}

static void expect_owners(const char *what, int chunk)
{
    int nth = omp_get_max_threads(), bad = 0;
    unsigned long hash = 0;
    for (int i = 0; i < N; i++) {
        bad += owner[i] != static_owner(i, N, chunk, nth);
        hash = hash * 31 + (unsigned long)owner[i];
    }
    if (bad) {
        fprintf(stderr, "%s: %d iterations ran on the wrong thread\n", what,
                bad);
        check_failures++;
    }
    RESULT("%s owners %lx", what, hash);
}

static void compile_time_kinds(void)
{
    reset();
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        hits[i]++;
        owner[i] = omp_get_thread_num();
    }
    expect_once("static", 0, N, 1);
    expect_owners("static", 0);
    reset();
#pragma omp parallel for schedule(static, 1)
    for (int i = 0; i < N; i++) {
        hits[i]++;
        owner[i] = omp_get_thread_num();
    }
    expect_once("static,1", 0, N, 1);
    expect_owners("static,1", 1);
    reset();
#pragma omp parallel for schedule(static, 7)
    for (int i = 0; i < N; i++) {
        hits[i]++;
        owner[i] = omp_get_thread_num();
    }
    expect_once("static,7", 0, N, 1);
    expect_owners("static,7", 7);
    reset();
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < N; i++)
        hits[i]++;
    expect_once("dynamic", 0, N, 1);
    reset();
#pragma omp parallel for schedule(dynamic, 5)
    for (int i = 0; i < N; i++)
        hits[i]++;
    expect_once("dynamic,5", 0, N, 1);
    reset();
#pragma omp parallel for schedule(guided)
    for (int i = 0; i < N; i++)
        hits[i]++;
    expect_once("guided", 0, N, 1);
    reset();
#pragma omp parallel for schedule(guided, 3)
    for (int i = 0; i < N; i++)
        hits[i]++;
    expect_once("guided,3", 0, N, 1);
    reset();
#pragma omp parallel for schedule(auto)
    for (int i = 0; i < N; i++)
        hits[i]++;
    expect_once("auto", 0, N, 1);
    reset();
#pragma omp parallel for schedule(monotonic : dynamic, 2)
    for (int i = 0; i < N; i++)
        hits[i]++;
    expect_once("monotonic:dynamic,2", 0, N, 1);
}

/* Every type through schedule(runtime), for each kind set at run time. */
static void runtime_kinds(void)
{
    static const struct { omp_sched_t kind; int chunk; const char *name; }
        kinds[] = {
            {omp_sched_static, 0, "static"}, {omp_sched_static, 3, "static,3"},
            {omp_sched_dynamic, 1, "dynamic,1"},
            {omp_sched_dynamic, 16, "dynamic,16"},
            {omp_sched_guided, 1, "guided,1"},
            {omp_sched_guided, 8, "guided,8"},
            {omp_sched_auto, 0, "auto"},
        };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        omp_set_schedule(kinds[k].kind, kinds[k].chunk);
        omp_sched_t got;
        int chunk;
        omp_get_schedule(&got, &chunk);
        CHECK(got == kinds[k].kind);
        reset();
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < N; i++)
            hits[i]++;
        expect_once(kinds[k].name, 0, N, 1);
        reset();
#pragma omp parallel for schedule(runtime)
        for (unsigned i = 3; i < N; i += 3)
            hits[i]++;
        expect_once(kinds[k].name, 3, N, 3);
        reset();
#pragma omp parallel for schedule(runtime)
        for (long i = N - 1; i >= 10; i--)
            hits[i]++;
        expect_once(kinds[k].name, 10, N, 1);
        reset();
#pragma omp parallel for schedule(runtime)
        for (unsigned long i = 5; i < N; i += 2)
            hits[i]++;
        expect_once(kinds[k].name, 5, N, 2);
    }
    omp_set_schedule(omp_sched_static, 0);
}

static void short_and_empty(void)
{
    int n = omp_get_max_threads() / 2;   /* fewer iterations than threads */
    reset();
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        hits[i]++;
    expect_once("short static", 0, n, 1);
    reset();
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < n; i++)
        hits[i]++;
    expect_once("short dynamic", 0, n, 1);
    int empty = 0;
#pragma omp parallel
    {
#pragma omp for schedule(guided)
        for (int i = 0; i < empty; i++)
            hits[i]++;
#pragma omp for schedule(static, 2)
        for (int i = 5; i < empty; i++)
            hits[i]++;
    }
    expect_once("empty", 0, n, 1);
}

static void nowait_runs(void)
{
    memset(nowait_hits, 0, sizeof nowait_hits);
#pragma omp parallel
    for (int loop = 0; loop < NOWAIT_LOOPS; loop++) {
#pragma omp for schedule(dynamic, 3) nowait
        for (int i = 0; i < N / 10; i++)
            nowait_hits[loop][i]++;
    }
    int bad = 0;
    for (int loop = 0; loop < NOWAIT_LOOPS; loop++)
        for (int i = 0; i < N / 10; i++)
            bad += nowait_hits[loop][i] != 1;
    CHECK_EQ_LONG(bad, 0);
}

/* collapse(2): one iteration space of ROWS x N / ROWS, every schedule. */
static void collapsed(void)
{
    enum { ROWS = 10, COLS = N / ROWS };
    reset();
#pragma omp parallel for collapse(2) schedule(static)
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            hits[r * COLS + c]++;
            owner[r * COLS + c] = omp_get_thread_num();
        }
    expect_once("collapse(2) static", 0, N, 1);
    expect_owners("collapse(2) static", 0);
    reset();
#pragma omp parallel for collapse(2) schedule(dynamic, 3)
    for (long r = 0; r < ROWS; r++)
        for (long c = COLS - 1; c >= 0; c--)
            hits[r * COLS + c]++;
    expect_once("collapse(2) dynamic,3", 0, N, 1);
}

static void lastprivate_and_sections(void)
{
    long last = -1;
    /* monotonic: libomp 14's nonmonotonic (stealing) dynamic schedule
     * sometimes fails to run lastprivate's copy-out, and the libomp
     * cross-check runs this source with it too */
#pragma omp parallel for schedule(monotonic : dynamic, 7) lastprivate(last)
    for (int i = 0; i < N; i++)
        last = i;
    CHECK_EQ_LONG(last, N - 1);
#pragma omp parallel for schedule(static, 9) lastprivate(last)
    for (int i = 0; i < N - 5; i++)
        last = i * 2;
    CHECK_EQ_LONG(last, 2 * (N - 6));
    long a = 0, b = 0, c = 0;
#pragma omp parallel sections
    {
#pragma omp section
        a++;
#pragma omp section
        b++;
#pragma omp section
        c++;
    }
    CHECK(a == 1 && b == 1 && c == 1);
    RESULT("lastprivate %ld sections %ld %ld %ld", last, a, b, c);
}

int main(void)
{
    compile_time_kinds();
    runtime_kinds();
    short_and_empty();
    nowait_runs();
    collapsed();
    lastprivate_and_sections();
    return check_status("omp_schedule");
}
