/*
 * gmres_problem.c - the parts of restarted GMRES(m) every version
 * shares: option parsing, the matrix, Givens rotations on the Hessenberg
 * matrix, the triangular solve, and the result line with its checks.
 *
 * Application code; see gmres_problem.h for which thread may call what.
 */
#include "gmres_problem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"

#define GMRES_MAX_ITERATIONS 100000000L

static bool parse_tolerance(const char *text, double *out)
{
    if (text == NULL || *text == '\0')
        return false;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || *end != '\0' || !(v > 0.0 && v < 1.0))
        return false;
    *out = v;
    return true;
}

void gmres_parse(int argc, char **argv, bool variants,
                 struct gmres_options *out)
{
    const char *program = argc > 0 ? argv[0] : "gmres";
    struct gmres_options options = {
        .matrix = {.kind = CSR_LAPLACE7, .size = 24, .half_band = 16,
                   .iterations = 1},
        .restart = 30, .tolerance = 1e-8, .max_iterations = 10000};
    /* Matrix flags go to spmv_parse; the rest are handled here. */
    char **matrix_argv = malloc((size_t)(argc + 1) * sizeof *matrix_argv);
    if (matrix_argv == NULL)
        app_usage_error(program, "no memory for the arguments");
    int matrix_argc = 0;
    matrix_argv[matrix_argc++] = argv[0];
    for (int a = 1; a < argc; a += 2) {    /* every flag takes a value */
        const char *flag = argv[a];
        const char *value = a + 1 < argc ? argv[a + 1] : NULL;
        const char *shown = value ? value : "";
        if (strcmp(flag, "-m") == 0) {
            if (!app_parse_positive(value, GMRES_MAX_RESTART,
                                    &options.restart))
                app_usage_error(program, "-m needs a restart length from 1 "
                                "to %d, not '%s'", GMRES_MAX_RESTART, shown);
        } else if (strcmp(flag, "-e") == 0) {
            if (!parse_tolerance(value, &options.tolerance))
                app_usage_error(program, "-e needs a tolerance between 0 "
                                "and 1, not '%s'", shown);
        } else if (strcmp(flag, "-i") == 0) {
            if (!app_parse_positive(value, GMRES_MAX_ITERATIONS,
                                    &options.max_iterations))
                app_usage_error(program, "-i needs a positive iteration "
                                "limit, not '%s'", shown);
        } else if (variants && strcmp(flag, "-v") == 0) {
            if (value != NULL && strcmp(value, "base") == 0)
                options.tuned = false;
            else if (value != NULL && strcmp(value, "tuned") == 0)
                options.tuned = true;
            else
                app_usage_error(program, "-v needs 'base' or 'tuned', not "
                                "'%s'", shown);
        } else if (strcmp(flag, "-g") == 0 || strcmp(flag, "-s") == 0 ||
                   strcmp(flag, "-w") == 0 || strcmp(flag, "-f") == 0) {
            matrix_argv[matrix_argc++] = argv[a];
            if (value != NULL)
                matrix_argv[matrix_argc++] = argv[a + 1];
        } else {
            app_usage_error(program, "unknown option '%s' (usage: %s [-g "
                            "lap7|lap27|band] [-s SIZE] [-w HALF_BAND] [-f "
                            "FILE.mtx] [-m RESTART] [-e TOLERANCE] [-i "
                            "MAX_ITERATIONS]%s)", flag, program,
                            variants ? " [-v base|tuned]" : "");
        }
    }
    matrix_argv[matrix_argc] = NULL;
    struct spmv_options matrix = options.matrix;
    spmv_parse(matrix_argc, matrix_argv, false, &matrix);
    free(matrix_argv);
    matrix.iterations = 1;
    options.matrix = matrix;
    *out = options;
}

void gmres_matrix(const char *program, const struct gmres_options *options,
                  csr_alloc_fn alloc, struct csr *out)
{
    spmv_matrix(program, &options->matrix, alloc, out);
    if (out->rows != out->cols)
        app_usage_error(program, "GMRES needs a square matrix, not %ldx%ld",
                        out->rows, out->cols);
}

void gmres_cycle_start(struct gmres_cycle *c, double beta)
{
    memset(c->g, 0, sizeof c->g);
    c->g[0] = beta;
}

double gmres_cycle_rotate(struct gmres_cycle *c, long j)
{
    for (long i = 0; i < j; i++) {
        double upper = c->h[i][j], lower = c->h[i + 1][j];
        c->h[i][j] = c->cs[i] * upper + c->sn[i] * lower;
        c->h[i + 1][j] = -c->sn[i] * upper + c->cs[i] * lower;
    }
    double a = c->h[j][j], b = c->h[j + 1][j];
    double r = hypot(a, b);
    c->cs[j] = r == 0.0 ? 1.0 : a / r;
    c->sn[j] = r == 0.0 ? 0.0 : b / r;
    c->h[j][j] = r;
    c->h[j + 1][j] = 0.0;
    c->g[j + 1] = -c->sn[j] * c->g[j];
    c->g[j] = c->cs[j] * c->g[j];
    return fabs(c->g[j + 1]);
}

void gmres_cycle_solve(struct gmres_cycle *c, long columns)
{
    for (long i = columns - 1; i >= 0; i--) {
        double sum = c->g[i];
        for (long k = i + 1; k < columns; k++)
            sum -= c->h[i][k] * c->y[k];
        c->y[i] = c->h[i][i] == 0.0 ? 0.0 : sum / c->h[i][i];
    }
}

bool gmres_report(const char *version, int workers,
                  const struct gmres_options *options, const struct csr *a,
                  long iterations, double seconds, double residual,
                  double error, double solution_sum)
{
    printf("gmres: version=%s workers=%d rows=%ld nonzeros=%ld restart=%ld "
           "iterations=%ld time=%.6f iterations_per_s=%.3f residual=%.6e "
           "error=%.6e solution_sum=%.15e\n", version, workers, a->rows,
           a->nonzeros, options->restart, iterations, seconds,
           (double)iterations / seconds, residual, error, solution_sum);
    fflush(stdout);
    if (!(residual <= 10.0 * options->tolerance)) {
        fprintf(stderr, "gmres: true residual %g after %ld iterations is "
                "above 10 x the tolerance %g%s\n", residual, iterations,
                options->tolerance,
                iterations >= options->max_iterations
                    ? " (iteration limit reached)" : "");
        return false;
    }
    return true;
}
