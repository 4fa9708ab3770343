/*
 * jacobi_problem.c - the Jacobi problem shared by the OpenMP and MPI
 * versions: option parsing, the boundary, the result line and the checks
 * (maximum principle, residual not growing, and with -c a point-by-point
 * comparison with a serial run).
 *
 * Application code; main thread (the master, or rank 0) only.
 */
#include "jacobi_problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"

/* Largest side: keeps (n+2)^2 doubles addressable with room to spare. */
#define JACOBI_MAX_N 100000L
#define JACOBI_MAX_ITERATIONS 100000000L

void jacobi_parse(int argc, char **argv, bool variants,
                  struct jacobi_options *out)
{
    const char *program = argc > 0 ? argv[0] : "jacobi";
    struct jacobi_options options = {.n = 256, .iterations = 100};
    int a = 1;
    while (a < argc) {
        const char *flag = argv[a];
        const char *value = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(flag, "-c") == 0) {
            options.verify = true;
            a++;
            continue;
        }
        if (strcmp(flag, "-n") == 0) {
            if (!app_parse_positive(value, JACOBI_MAX_N, &options.n))
                app_usage_error(program, "-n needs a size from 1 to %ld, "
                                "not '%s'", JACOBI_MAX_N, value ? value : "");
        } else if (strcmp(flag, "-k") == 0) {
            if (!app_parse_positive(value, JACOBI_MAX_ITERATIONS,
                                    &options.iterations))
                app_usage_error(program, "-k needs a positive iteration "
                                "count, not '%s'", value ? value : "");
        } else if (variants && strcmp(flag, "-v") == 0) {
            if (value != NULL && strcmp(value, "sweep") == 0)
                options.one_region = false;
            else if (value != NULL && strcmp(value, "region") == 0)
                options.one_region = true;
            else
                app_usage_error(program, "-v needs 'sweep' or 'region', "
                                "not '%s'", value ? value : "");
        } else {
            app_usage_error(program, "unknown option '%s' (usage: %s [-n "
                            "SIZE] [-k ITERATIONS]%s [-c])", flag, program,
                            variants ? " [-v sweep|region]" : "");
        }
        a += 2;
    }
    *out = options;
}

double jacobi_top_edge(long j, long n)
{
    return sin(M_PI * (double)j / (double)(n + 1));
}

/* Runs the sweeps serially and counts the points that differ from GRID. */
static bool matches_serial(const struct jacobi_options *options,
                           const double *grid)
{
    long n = options->n, row = n + 2;
    size_t count = (size_t)row * (size_t)row;
    double *src = calloc(count, sizeof *src);
    double *dst = calloc(count, sizeof *dst);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "jacobi: no memory for the serial check\n");
        free(src);
        free(dst);
        return false;
    }
    for (long j = 0; j < row; j++)
        src[j] = dst[j] = jacobi_top_edge(j, n);
    for (long i = 1; i <= n; i++)
        for (long j = 1; j <= n; j++)
            src[i * row + j] = dst[i * row + j] = jacobi_initial(i, j);
    for (long it = 0; it < options->iterations; it++) {
        for (long i = 1; i <= n; i++)
            for (long j = 1; j <= n; j++) {
                const double *p = src + i * row + j;
                dst[i * row + j] = 0.25 * (p[-row] + p[row] + p[-1] + p[1]);
            }
        double *swap = src;
        src = dst;
        dst = swap;
    }
    long wrong = 0, first = -1;
    for (size_t x = 0; x < count; x++)
        if (src[x] != grid[x]) {
            if (first < 0)
                first = (long)x;
            wrong++;
        }
    if (wrong > 0)
        fprintf(stderr, "jacobi: %ld points differ from the serial run, "
                "first at row %ld column %ld\n", wrong, first / row,
                first % row);
    free(src);
    free(dst);
    return wrong == 0;
}

bool jacobi_report(const char *version, int workers,
                   const struct jacobi_options *options,
                   const struct jacobi_result *result, const double *grid)
{
    double updates = (double)options->n * (double)options->n *
                     (double)options->iterations;
    printf("jacobi: version=%s workers=%d n=%ld iterations=%ld time=%.6f "
           "updates_per_s=%.6e residual=%.15e checksum=%.15e\n",
           version, workers, options->n, options->iterations,
           result->seconds, updates / result->seconds, result->residual,
           result->checksum);
    fflush(stdout);

    bool right = true;
    if (!(result->min >= 0.0 && result->max <= 1.0)) {
        fprintf(stderr, "jacobi: interior leaves the boundary's range "
                "[0, 1]: min %g max %g\n", result->min, result->max);
        right = false;
    }
    if (!isfinite(result->residual) ||
        !(result->residual <= result->initial_residual)) {
        fprintf(stderr, "jacobi: residual %g is not below the initial "
                "%g\n", result->residual, result->initial_residual);
        right = false;
    }
    if (grid != NULL && !matches_serial(options, grid))
        right = false;
    return right;
}
