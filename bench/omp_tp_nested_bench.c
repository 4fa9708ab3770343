/*
 * omp_tp_nested_bench.c - what threadprivate copyin and nested regions
 * cost: microseconds per parallel region (median of 5 runs) of
 *   empty          a region and nothing else (the reference)
 *   copyin_small   copyin of one long threadprivate variable
 *   copyin_1mib    copyin of a 1 MiB threadprivate array the master leaves
 *                  unchanged between regions
 *   copyin_1mib_w  the same, after the master rewrote the array
 *   nested         an inner region of 2 threads in every outer thread
 *                  (omp_set_max_active_levels(2)), per inner region
 *   nested_for     the same with a 1000-iteration static loop inside
 * Built by dsmcc (omp_tp_nested_bench_dsmomp, run under dsmrun) and by
 * clang -fopenmp (omp_tp_nested_bench_libomp), from this one source.
 *
 * Usage: omp_tp_nested_bench [REGIONS [CASE]]  (default 200, every case);
 * with CASE, that case alone, REGIONS regions once (for DSM_STATS=1: how
 * many pages a case moves does not depend on the machine's load).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 131072                 /* doubles: 1 MiB */
#define RUNS 5

static double big[BIG];
static long small = 1;
#pragma omp threadprivate(big, small)

static volatile long sink;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void (*case_fn)(int regions);

static void run_empty(int regions)
{
    for (int r = 0; r < regions; r++) {
#pragma omp parallel
        sink = 0;
    }
}

static void run_copyin_small(int regions)
{
    for (int r = 0; r < regions; r++) {
#pragma omp parallel copyin(small)
        sink = small;
    }
}

static void run_copyin_big(int regions)
{
    for (int r = 0; r < regions; r++) {
#pragma omp parallel copyin(big)
        sink = (long)big[BIG - 1];
    }
}

static void run_copyin_big_written(int regions)
{
    for (int r = 0; r < regions; r++) {
        for (int i = 0; i < BIG; i++)
            big[i] = r + i;
#pragma omp parallel copyin(big)
        sink = (long)big[BIG - 1];
    }
}

static double inner_us[64];

static void nested(int regions, int loop)
{
#pragma omp parallel
    {
        double t = omp_get_wtime();
        for (int r = 0; r < regions; r++) {
#pragma omp parallel num_threads(2)
            {
                if (loop) {
                    long s = 0;
#pragma omp for schedule(static)
                    for (int i = 0; i < 1000; i++)
                        s += i;
                    sink = s;
                }
            }
        }
        int me = omp_get_thread_num();
        if (me < 64)
            inner_us[me] = (omp_get_wtime() - t) / regions * 1e6;
    }
}

static void run_nested(int regions) { nested(regions, 0); }
static void run_nested_for(int regions) { nested(regions, 1); }

static double measure(case_fn fn, int regions)
{
    double us[RUNS];
    fn(regions / 10 + 1);                 /* warm-up */
    for (int k = 0; k < RUNS; k++) {
        double t = omp_get_wtime();
        fn(regions);
        us[k] = (omp_get_wtime() - t) / regions * 1e6;
    }
    qsort(us, RUNS, sizeof *us, cmp_double);
    return us[RUNS / 2];
}

static const struct {
    const char *name;
    case_fn fn;
} cases[] = {
    {"empty", run_empty}, {"copyin_small", run_copyin_small},
    {"copyin_1mib", run_copyin_big}, {"copyin_1mib_w", run_copyin_big_written},
    {"nested", run_nested}, {"nested_for", run_nested_for},
};

int main(int argc, char **argv)
{
    int regions = argc > 1 ? atoi(argv[1]) : 200;
    if (regions < 1)
        regions = 1;
    if (argc > 2) {
        omp_set_max_active_levels(2);
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
            if (!strcmp(argv[2], cases[i].name)) {
                double t = omp_get_wtime();
                cases[i].fn(regions);
                printf("%-14s %9.2f us\n", cases[i].name,
                       (omp_get_wtime() - t) / regions * 1e6);
                return 0;
            }
        fprintf(stderr, "omp_tp_nested_bench: no case %s\n", argv[2]);
        return 2;
    }
    printf("threads %d, %d regions per run, median of %d runs\n",
           omp_get_max_threads(), regions, RUNS);
    printf("empty          %9.2f us\n", measure(run_empty, regions));
    printf("copyin_small   %9.2f us\n", measure(run_copyin_small, regions));
    printf("copyin_1mib    %9.2f us\n", measure(run_copyin_big, regions));
    printf("copyin_1mib_w  %9.2f us\n",
           measure(run_copyin_big_written, regions));
    omp_set_max_active_levels(2);
    printf("nested         %9.2f us (per inner region, whole run)\n",
           measure(run_nested, regions));
    printf("nested: thread 0's inner region %.2f us\n", inner_us[0]);
    printf("nested_for     %9.2f us (per inner region, whole run)\n",
           measure(run_nested_for, regions));
    return 0;
}
