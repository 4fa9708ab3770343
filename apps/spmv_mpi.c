/*
 * spmv_mpi.c - the MPI equivalent of spmv_omp: every rank builds (or
 * reads) the matrix and keeps a block of rows holding about 1/P of the
 * nonzeros; x is distributed in the same blocks and gathered once with
 * MPI_Allgatherv (x does not change between products); each rank then
 * computes its rows of y = A x k times.  Rank 0 gathers y and checks it.
 *
 * Usage: mpiexec -n P spmv_mpi [-g lap7|lap27|band] [-s SIZE]
 *                              [-w HALF_BAND] [-f FILE.mtx] [-k ITERATIONS]
 * Exit status: 0 right, 1 wrong answer, 2 bad input (from every rank).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "app_args.h"
#include "app_mpi.h"
#include "spmv_problem.h"

/* Every rank parses and reads the same input and so exits on bad input
 * together; only rank 0's message reaches stderr. */
static void setup(int argc, char **argv, int rank,
                  struct spmv_options *options, struct csr *a)
{
    int saved_stderr = app_mpi_quiet_stderr(rank);
    spmv_parse(argc, argv, false, options);
    spmv_matrix(argv[0], options, malloc, a);
    app_mpi_restore_stderr(saved_stderr);
}

int main(int argc, char **argv)
{
    int rank, ranks;
    app_mpi_start(&argc, &argv, &rank, &ranks);
    struct spmv_options options;
    struct csr a;
    setup(argc, argv, rank, &options, &a);

    /* Row blocks by nonzeros; x uses the same cut where it has entries. */
    int *counts = malloc((size_t)ranks * sizeof *counts);
    int *offsets = malloc((size_t)ranks * sizeof *offsets);
    int *x_counts = malloc((size_t)ranks * sizeof *x_counts);
    int *x_offsets = malloc((size_t)ranks * sizeof *x_offsets);
    double *x = malloc((size_t)a.cols * sizeof *x);
    double *y = malloc((size_t)a.rows * sizeof *y);
    if (!counts || !offsets || !x_counts || !x_offsets || !x || !y) {
        fprintf(stderr, "%s: no memory for the vectors\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, APP_EXIT_WRONG);
    }
    for (int r = 0; r < ranks; r++) {
        long first = csr_split_by_nonzeros(&a, r, ranks);
        long end = csr_split_by_nonzeros(&a, r + 1, ranks);
        offsets[r] = (int)first;
        counts[r] = (int)(end - first);
        long x_first = first < a.cols ? first : a.cols;
        long x_end = r == ranks - 1 ? a.cols : (end < a.cols ? end : a.cols);
        x_offsets[r] = (int)x_first;
        x_counts[r] = (int)(x_end - x_first);
    }
    long first = offsets[rank], end = first + counts[rank];
    for (long j = x_offsets[rank]; j < x_offsets[rank] + x_counts[rank]; j++)
        x[j] = spmv_x_entry(j);

    /* Once untimed: MPICH connects its endpoints on first use. */
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x, x_counts,
                   x_offsets, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x, x_counts,
                   x_offsets, MPI_DOUBLE, MPI_COMM_WORLD);
    for (long it = 0; it < options.iterations; it++)
        for (long i = first; i < end; i++)
            y[i] = csr_row_dot(&a, i, x);
    MPI_Barrier(MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - start;

    MPI_Gatherv(rank == 0 ? MPI_IN_PLACE : y + first, counts[rank],
                MPI_DOUBLE, y, counts, offsets, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    int right = 1;
    if (rank == 0)
        right = spmv_report("mpi", ranks, &options, &a, y, seconds);
    MPI_Bcast(&right, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(counts);
    free(offsets);
    free(x_counts);
    free(x_offsets);
    free(x);
    free(y);
    free(a.row_start);
    free(a.col);
    free(a.val);
    return right ? 0 : APP_EXIT_WRONG;
}
