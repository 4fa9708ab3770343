/*
 * jacobi_omp.c - 2D Laplace/Jacobi written as an OpenMP programmer would:
 * a parallel loop over rows, static schedule; either one parallel region
 * per sweep (-v sweep, the default) or one region around all sweeps
 * (-v region).  The grids are initialised by a loop with the sweeps'
 * schedule, so each thread first touches the rows it will compute.
 * The same source builds for libomp and, with dsmcc, for dsmomp.
 *
 * Usage: jacobi_omp [-n SIZE] [-k ITERATIONS] [-v sweep|region] [-c]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>

#include "app_args.h"
#include "app_shared.h"
#include "jacobi_problem.h"

/* Every thread writes the rows (and their edge columns) it will compute;
 * the master then writes the top and bottom edges. */
static void initialise(double *a, double *b, long n)
{
    long row = n + 2;
#pragma omp parallel for schedule(static)
    for (long i = 1; i <= n; i++) {
        a[i * row] = b[i * row] = 0.0;
        a[i * row + n + 1] = b[i * row + n + 1] = 0.0;
        for (long j = 1; j <= n; j++)
            a[i * row + j] = b[i * row + j] = jacobi_initial(i, j);
    }
    for (long j = 0; j < row; j++) {
        a[j] = b[j] = jacobi_top_edge(j, n);
        a[(n + 1) * row + j] = b[(n + 1) * row + j] = 0.0;
    }
}

static inline void sweep_row(const double *src, double *dst, long row,
                             long i)
{
    long n = row - 2;
    const double *p = src + i * row;
    double *q = dst + i * row;
    for (long j = 1; j <= n; j++)
        q[j] = 0.25 * (p[j - row] + p[j + row] + p[j - 1] + p[j + 1]);
}

/* Returns the grid that holds the last sweep. */
static double *sweeps_region_per_sweep(double *a, double *b, long n,
                                       long iterations)
{
    long row = n + 2;
    for (long it = 0; it < iterations; it++) {
#pragma omp parallel for schedule(static)
        for (long i = 1; i <= n; i++)
            sweep_row(a, b, row, i);
        double *swap = a;
        a = b;
        b = swap;
    }
    return a;
}

static double *sweeps_one_region(double *a, double *b, long n,
                                 long iterations)
{
    long row = n + 2;
#pragma omp parallel firstprivate(a, b)
    {
        for (long it = 0; it < iterations; it++) {
#pragma omp for schedule(static)
            for (long i = 1; i <= n; i++)
                sweep_row(a, b, row, i);
            double *swap = a;
            a = b;
            b = swap;
        }
    }
    return iterations % 2 == 0 ? a : b;
}

static double residual(const double *grid, long n)
{
    long row = n + 2;
    double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (long i = 1; i <= n; i++)
        for (long j = 1; j <= n; j++)
            sum += jacobi_residual_sq(grid, row, i, j);
    return sqrt(sum);
}

static void summarise(const double *grid, long n, struct jacobi_result *out)
{
    long row = n + 2;
    double sum = 0.0, lo = INFINITY, hi = -INFINITY;
#pragma omp parallel for schedule(static) reduction(+ : sum) \
    reduction(min : lo) reduction(max : hi)
    for (long i = 1; i <= n; i++)
        for (long j = 1; j <= n; j++) {
            double v = grid[i * row + j];
            sum += v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    out->checksum = sum;
    out->min = lo;
    out->max = hi;
}

int main(int argc, char **argv)
{
    struct jacobi_options options;
    jacobi_parse(argc, argv, true, &options);
    long n = options.n;
    size_t bytes = (size_t)(n + 2) * (size_t)(n + 2) * sizeof(double);
    double *a = app_shared_alloc(bytes);
    double *b = app_shared_alloc(bytes);
    if (a == NULL || b == NULL) {
        fprintf(stderr, "%s: cannot allocate two %zu-byte grids\n", argv[0],
                bytes);
        return APP_EXIT_WRONG;
    }

    initialise(a, b, n);
    struct jacobi_result result = {.initial_residual = residual(a, n)};
    double start = omp_get_wtime();
    double *last = options.one_region
                       ? sweeps_one_region(a, b, n, options.iterations)
                       : sweeps_region_per_sweep(a, b, n, options.iterations);
    result.seconds = omp_get_wtime() - start;
    result.residual = residual(last, n);
    summarise(last, n, &result);

    bool right = jacobi_report(options.one_region ? "omp-region"
                                                  : "omp-sweep",
                               omp_get_max_threads(), &options, &result,
                               options.verify ? last : NULL);
    app_shared_free(a);
    app_shared_free(b);
    return right ? 0 : APP_EXIT_WRONG;
}
