/*
 * omp_tasks_taskloop.c - taskloop: every iteration runs once; grainsize
 * and num_tasks split the loop as the specification (and libomp) do
 * (each task's first iteration is recorded through a firstprivate
 * variable, so the chunks can be counted); nogroup with a taskwait; if(0);
 * final (omp_in_final in the tasks); priority; lastprivate, firstprivate;
 * collapse; a decreasing long loop with a stride; taskloops started by
 * every thread of the team.
 *
 * Test program (dsmcc, dsmrun; also built with libomp for the
 * cross-check).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <string.h>

#include "omp_check.h"

#define N 100
#define MAX_THREADS 64

static int hits[N], chunk_of[N];
static int grid[12][9];
static long down[40];
static long per_thread[MAX_THREADS][N / 10];
static long in_final_seen, priority_sum;

static void clear(void)
{
    memset(hits, 0, sizeof hits);
    memset(chunk_of, 0, sizeof chunk_of);
}

/* Chunks (consecutive iterations sharing a first iteration) and their
 * sizes, as text; checks every iteration ran once. */
static int chunks(int *min, int *max)
{
    int count = 0, size = 0;
    *min = N;
    *max = 0;
    for (int i = 0; i < N; i++) {
        CHECK_EQ_LONG(hits[i], 1);
        if (i == 0 || chunk_of[i] != chunk_of[i - 1]) {
            if (i > 0) {
                *min = size < *min ? size : *min;
                *max = size > *max ? size : *max;
            }
            count++;
            size = 0;
        }
        CHECK(chunk_of[i] <= i);
        size++;
    }
    *min = size < *min ? size : *min;
    *max = size > *max ? size : *max;
    return count;
}

int main(void)
{
    int nth = omp_get_max_threads();
    if (nth > MAX_THREADS)
        return 2;
    int lo, hi, n;
    int last = -1, fp = 5, first;

#pragma omp parallel
#pragma omp single
    {
        first = -1;
#pragma omp taskloop grainsize(7) firstprivate(first)
        for (int i = 0; i < N; i++) {
            if (first < 0)
                first = i;
            chunk_of[i] = first;
            hits[i]++;
        }
    }
    n = chunks(&lo, &hi);
    CHECK_EQ_LONG(n, N / 7);
    CHECK(lo >= 7 && hi < 14);
    RESULT("grainsize(7): %d chunks of %d to %d", n, lo, hi);

    clear();
#pragma omp parallel
#pragma omp single
    {
        first = -1;
#pragma omp taskloop num_tasks(6) firstprivate(first)
        for (int i = 0; i < N; i++) {
            if (first < 0)
                first = i;
            chunk_of[i] = first;
            hits[i]++;
        }
    }
    n = chunks(&lo, &hi);
    CHECK_EQ_LONG(n, 6);
    RESULT("num_tasks(6): %d chunks of %d to %d", n, lo, hi);

    clear();
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop nogroup grainsize(3)
        for (int i = 0; i < N; i++)
            hits[i]++;
#pragma omp taskwait
        for (int i = 0; i < N; i++)
            CHECK_EQ_LONG(hits[i], 1);
#pragma omp taskloop if (0) lastprivate(last) firstprivate(fp)
        for (int i = 0; i < N; i++) {
            hits[i] += fp - 4;
            last = i;
        }
        for (int i = 0; i < N; i++)
            CHECK_EQ_LONG(hits[i], 2);
#pragma omp taskloop final(1) grainsize(10)
        for (int i = 0; i < N; i++) {
            if (omp_in_final()) {
#pragma omp atomic
                in_final_seen++;
            }
        }
#pragma omp taskloop priority(3) num_tasks(4)
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            priority_sum += i;
        }
#pragma omp taskloop collapse(2) grainsize(5)
        for (int r = 0; r < 12; r++)
            for (int c = 0; c < 9; c++)
                grid[r][c] += r * 10 + c;
#pragma omp taskloop grainsize(4)
        for (long v = 90; v > -30; v -= 3)
            down[(90 - v) / 3] = v;
    }
    CHECK_EQ_LONG(last, N - 1);
    CHECK_EQ_LONG(in_final_seen, N);
    CHECK_EQ_LONG(priority_sum, N * (N - 1) / 2);
    long gsum = 0;
    for (int r = 0; r < 12; r++)
        for (int c = 0; c < 9; c++) {
            CHECK_EQ_LONG(grid[r][c], r * 10 + c);
            gsum += grid[r][c];
        }
    for (int k = 0; k < 40; k++)
        CHECK_EQ_LONG(down[k], 90 - 3L * k);

    /* every thread starts a taskloop */
#pragma omp parallel
    {
        int me = omp_get_thread_num();
#pragma omp taskloop grainsize(2)
        for (int k = 0; k < N / 10; k++)
            per_thread[me][k] = 100L * me + k;
    }
    for (int t = 0; t < nth; t++)
        for (int k = 0; k < N / 10; k++)
            CHECK_EQ_LONG(per_thread[t][k], 100L * t + k);
    RESULT("lastprivate %d, final %ld, priority %ld, collapse %ld, "
           "down %ld", last, in_final_seen, priority_sum, gsum, down[39]);
    return check_status("omp_tasks_taskloop");
}
