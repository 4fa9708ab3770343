/*
 * tiny_mpi.c - the MPI equivalent of tiny.c: per step, rank 0 broadcasts
 * the step (what a fork hands the team: MPI_Bcast), every rank updates
 * its block of the 64-element array, and all meet (the join:
 * MPI_Barrier).  The broadcast also carries rank 0's decision to stop
 * when the time budget is spent.
 *
 * Check: each rank compares its block with a serial computation; rank 0
 * reports for all (MPI_Allreduce of the largest error).
 *
 * Usage: mpiexec -n P tiny_mpi [-n ELEMENTS (64)] [-s STEPS] [-T SECONDS]
 *                              [-w WARMUP]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <mpi.h>
#include <stdio.h>

#include "patterns.h"

#define MAX_ELEMENTS 4096

int main(int argc, char **argv)
{
    int rank, ranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    patterns_options_t o;
    patterns_parse(argc, argv, "tiny", 64, 1, MAX_ELEMENTS, 100000000, &o);
    long n = o.size, first = rank * n / ranks, last = (rank + 1) * n / ranks;
    double a[MAX_ELEMENTS], reference[MAX_ELEMENTS];
    for (long i = 0; i < n; i++)
        a[i] = reference[i] = (double)i;

    long total = o.warmup + o.max_steps, steps = 0;
    double start = 0.0;
    for (long s = 0;; s++) {
        if (s == o.warmup)
            start = patterns_seconds();
        long message = s;
        if (rank == 0 && (s == total ||
                          (o.budget > 0.0 && s > o.warmup &&
                           patterns_seconds() - start >= o.budget)))
            message = -1;            /* stop */
        MPI_Bcast(&message, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        if (message < 0)
            break;
        for (long i = first; i < last; i++)
            a[i] = 0.5 * a[i] + (double)(i + message);
        MPI_Barrier(MPI_COMM_WORLD);
        steps = s + 1 - o.warmup;
    }
    double seconds = patterns_seconds() - start;

    for (long s = 0; s < o.warmup + steps; s++)
        for (long i = first; i < last; i++)
            reference[i] = 0.5 * reference[i] + (double)(i + s);
    double mine = patterns_max_difference(a + first, reference + first,
                                          last - first), error;
    MPI_Allreduce(&mine, &error, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int status = PATTERNS_EXIT_OK;
    if (rank == 0)
        status = patterns_report(&o, steps, seconds, error == 0.0, error);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
