/*
 * spmv_problem.c - the SpMV problem shared by the OpenMP and MPI
 * versions: option parsing, building or reading the matrix, the result
 * line and the serial check of y.
 *
 * Application code; main thread (the master, or rank 0) only.
 */
#include "spmv_problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"

#define SPMV_MAX_SIDE 2000L          /* Laplacian grid side */
#define SPMV_MAX_ROWS 200000000L     /* banded rows */
#define SPMV_MAX_ITERATIONS 100000000L

void spmv_parse(int argc, char **argv, bool strategies,
                struct spmv_options *out)
{
    const char *program = argc > 0 ? argv[0] : "spmv";
    struct spmv_options options = {.kind = CSR_LAPLACE7, .size = 32,
                                   .half_band = 16, .iterations = 100};
    for (int a = 1; a < argc; a += 2) {    /* every flag takes a value */
        const char *flag = argv[a];
        const char *value = a + 1 < argc ? argv[a + 1] : NULL;
        const char *shown = value ? value : "";
        if (strcmp(flag, "-g") == 0) {
            if (value != NULL && strcmp(value, "lap7") == 0)
                options.kind = CSR_LAPLACE7;
            else if (value != NULL && strcmp(value, "lap27") == 0)
                options.kind = CSR_LAPLACE27;
            else if (value != NULL && strcmp(value, "band") == 0)
                options.kind = CSR_BANDED;
            else
                app_usage_error(program, "-g needs lap7, lap27 or band, "
                                "not '%s'", shown);
        } else if (strcmp(flag, "-s") == 0) {
            if (!app_parse_positive(value, SPMV_MAX_ROWS, &options.size))
                app_usage_error(program, "-s needs a positive size, not "
                                "'%s'", shown);
        } else if (strcmp(flag, "-w") == 0) {
            if (!app_parse_positive(value, SPMV_MAX_ROWS, &options.half_band))
                app_usage_error(program, "-w needs a positive half "
                                "bandwidth, not '%s'", shown);
        } else if (strcmp(flag, "-k") == 0) {
            if (!app_parse_positive(value, SPMV_MAX_ITERATIONS,
                                    &options.iterations))
                app_usage_error(program, "-k needs a positive iteration "
                                "count, not '%s'", shown);
        } else if (strcmp(flag, "-f") == 0) {
            if (value == NULL || value[0] == '\0')
                app_usage_error(program, "-f needs a Matrix Market file");
            options.mtx_path = value;
        } else if (strategies && strcmp(flag, "-v") == 0) {
            if (value != NULL && strcmp(value, "rows") == 0)
                options.by_nonzeros = false;
            else if (value != NULL && strcmp(value, "nonzeros") == 0)
                options.by_nonzeros = true;
            else
                app_usage_error(program, "-v needs 'rows' or 'nonzeros', "
                                "not '%s'", shown);
        } else {
            app_usage_error(program, "unknown option '%s' (usage: %s [-g "
                            "lap7|lap27|band] [-s SIZE] [-w HALF_BAND] [-f "
                            "FILE.mtx] [-k ITERATIONS]%s)", flag, program,
                            strategies ? " [-v rows|nonzeros]" : "");
        }
    }
    if (options.mtx_path == NULL && options.kind != CSR_BANDED &&
        options.size > SPMV_MAX_SIDE)
        app_usage_error(program, "-s %ld: a Laplacian's grid side is at "
                        "most %ld", options.size, SPMV_MAX_SIDE);
    *out = options;
}

void spmv_matrix(const char *program, const struct spmv_options *options,
                 csr_alloc_fn alloc, struct csr *out)
{
    if (options->mtx_path != NULL) {
        char why[256];
        if (csr_read_mtx(options->mtx_path, alloc, out, why,
                         sizeof why) != 0)
            app_usage_error(program, "%s: %s", options->mtx_path, why);
        return;
    }
    if (csr_generate(options->kind, options->size, options->half_band,
                     alloc, out) != 0) {
        fprintf(stderr, "%s: no memory for the matrix\n", program);
        exit(APP_EXIT_WRONG);
    }
}

bool spmv_report(const char *version, int workers,
                 const struct spmv_options *options, const struct csr *a,
                 const double *y, double seconds)
{
    double checksum = 0.0;
    long wrong = 0, first = -1;
    double *x = malloc((size_t)a->cols * sizeof *x);
    if (x == NULL) {
        fprintf(stderr, "spmv: no memory for the check\n");
        return false;
    }
    for (long j = 0; j < a->cols; j++)
        x[j] = spmv_x_entry(j);
    for (long i = 0; i < a->rows; i++) {
        checksum += y[i];
        if (y[i] != csr_row_dot(a, i, x) && wrong++ == 0)
            first = i;
    }
    free(x);
    double flops = 2.0 * (double)a->nonzeros * (double)options->iterations;
    printf("spmv: version=%s workers=%d rows=%ld nonzeros=%ld "
           "iterations=%ld time=%.6f mflops=%.3f checksum=%.15e\n", version,
           workers, a->rows, a->nonzeros, options->iterations, seconds,
           flops / seconds / 1e6, checksum);
    fflush(stdout);
    if (wrong > 0)
        fprintf(stderr, "spmv: %ld entries of y differ from the serial "
                "product, first at row %ld\n", wrong, first);
    return wrong == 0;
}
