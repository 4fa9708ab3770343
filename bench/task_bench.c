/*
 * task_bench.c - explicit task costs: a master-generated loop of N
 * independent tasks (each WORK_US of busy work) and the task-parallel
 * Fibonacci number fib(N) with a cutoff below which calls are plain
 * (0: every call is a task).  Prints the median wall time of REPEATS runs
 * (the first run is a warm-up and not counted).
 *
 *   task_bench loop N WORK_US [REPEATS]
 *   task_bench fib N CUTOFF [REPEATS]
 *
 * Built by hand with dsmcc and with clang -fopenmp (libomp); see
 * doc/performance.md, "Tasks", for the commands and figures.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cutoff;

static void busy(double us)
{
    double end = omp_get_wtime() + us * 1e-6;
    while (omp_get_wtime() < end)
        ;
}

static long fib_serial(int n)
{
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static long fib(int n)
{
    if (n < 2)
        return n;
    if (n < cutoff)
        return fib_serial(n);
    long a, b;
#pragma omp task shared(a)
    a = fib(n - 1);
#pragma omp task shared(b)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "loop") && strcmp(argv[1], "fib"))) {
        fprintf(stderr, "usage: task_bench loop N WORK_US [REPEATS] | "
                        "fib N CUTOFF [REPEATS]\n");
        return 2;
    }
    int loop = strcmp(argv[1], "loop") == 0;
    int n = atoi(argv[2]);
    double work = atof(argv[3]);
    int repeats = argc > 4 ? atoi(argv[4]) : 11;
    cutoff = (int)work;
    double *t = calloc((size_t)repeats, sizeof *t);
    long result = 0;
    for (int r = -1; r < repeats; r++) {
        double start = omp_get_wtime();
        if (loop) {
#pragma omp parallel
#pragma omp master
            for (int i = 0; i < n; i++) {
#pragma omp task
                busy(work);
            }
        } else {
#pragma omp parallel
#pragma omp single
            result = fib(n);
        }
        double end = omp_get_wtime();
        if (r >= 0)
            t[r] = end - start;
    }
    qsort(t, (size_t)repeats, sizeof *t, by_value);
    double median = t[repeats / 2];
    if (loop)
        printf("loop of %d tasks of %.1f us, %d threads: %.3f ms "
               "(%.2f us per task)\n", n, work, omp_get_max_threads(),
               median * 1e3, median * 1e6 / n);
    else
        printf("fib(%d) = %ld, cutoff %d, %d threads: %.3f ms\n", n, result,
               cutoff, omp_get_max_threads(), median * 1e3);
    free(t);
    return 0;
}
