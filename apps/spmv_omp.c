/*
 * spmv_omp.c - CSR sparse matrix-vector product y = A x, repeated k
 * times, written as an OpenMP programmer would, with the two strategies
 * the seeds measured: rows (a parallel loop over rows, dynamic schedule)
 * and nonzeros (each thread takes a contiguous block of rows holding
 * about 1/T of the nonzeros, the same block every time).  The matrix and
 * the vectors are shared arrays; x and y are first written by the
 * threads that use them.  The same source builds for libomp and, with
 * dsmcc, for dsmomp.
 *
 * Usage: spmv_omp [-g lap7|lap27|band] [-s SIZE] [-w HALF_BAND]
 *                 [-f FILE.mtx] [-k ITERATIONS] [-v rows|nonzeros]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <omp.h>
#include <stdio.h>

#include "app_args.h"
#include "app_shared.h"
#include "spmv_problem.h"

#define ROWS_CHUNK 256

static void *shared_alloc(size_t bytes)
{
    return app_shared_alloc(bytes);
}

/* This thread's rows under the nonzeros strategy. */
static void my_rows(const struct csr *a, long *first, long *end)
{
    long t = omp_get_thread_num(), nt = omp_get_num_threads();
    *first = csr_split_by_nonzeros(a, t, nt);
    *end = csr_split_by_nonzeros(a, t + 1, nt);
}

static void initialise(const struct csr *a, double *x, double *y,
                       bool by_nonzeros)
{
    if (by_nonzeros) {
#pragma omp parallel
        {
            long first, end;
            my_rows(a, &first, &end);
            for (long i = first; i < end; i++)
                y[i] = 0.0;
            for (long j = first; j < end && j < a->cols; j++)
                x[j] = spmv_x_entry(j);
        }
        for (long j = a->rows; j < a->cols; j++)
            x[j] = spmv_x_entry(j);
        return;
    }
#pragma omp parallel for schedule(dynamic, ROWS_CHUNK)
    for (long i = 0; i < a->rows; i++) {
        y[i] = 0.0;
        if (i < a->cols)
            x[i] = spmv_x_entry(i);
    }
    for (long j = a->rows; j < a->cols; j++)
        x[j] = spmv_x_entry(j);
}

static void multiply_by_rows(const struct csr *a, const double *x,
                             double *y)
{
#pragma omp parallel for schedule(dynamic, ROWS_CHUNK)
    for (long i = 0; i < a->rows; i++)
        y[i] = csr_row_dot(a, i, x);
}

static void multiply_by_nonzeros(const struct csr *a, const double *x,
                                 double *y)
{
#pragma omp parallel
    {
        long first, end;
        my_rows(a, &first, &end);
        for (long i = first; i < end; i++)
            y[i] = csr_row_dot(a, i, x);
    }
}

int main(int argc, char **argv)
{
    struct spmv_options options;
    spmv_parse(argc, argv, true, &options);
    struct csr a;
    spmv_matrix(argv[0], &options, shared_alloc, &a);
    double *x = app_shared_alloc((size_t)a.cols * sizeof *x);
    double *y = app_shared_alloc((size_t)a.rows * sizeof *y);
    if (x == NULL || y == NULL) {
        fprintf(stderr, "%s: no memory for the vectors\n", argv[0]);
        return APP_EXIT_WRONG;
    }
    initialise(&a, x, y, options.by_nonzeros);

    double start = omp_get_wtime();
    for (long it = 0; it < options.iterations; it++) {
        if (options.by_nonzeros)
            multiply_by_nonzeros(&a, x, y);
        else
            multiply_by_rows(&a, x, y);
    }
    double seconds = omp_get_wtime() - start;

    bool right = spmv_report(options.by_nonzeros ? "omp-nonzeros"
                                                 : "omp-rows",
                             omp_get_max_threads(), &options, &a, y,
                             seconds);
    app_shared_free(x);
    app_shared_free(y);
    app_shared_free(a.row_start);
    app_shared_free(a.col);
    app_shared_free(a.val);
    return right ? 0 : APP_EXIT_WRONG;
}
