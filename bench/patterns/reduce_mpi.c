/*
 * reduce_mpi.c - the MPI equivalent of reduce.c: per step, R reductions,
 * each a local sum over this rank's block of the 64 values and one
 * MPI_Allreduce.  Rank 0 decides once per step whether the time budget
 * is spent (one MPI_Bcast per R reductions).
 *
 * Check: the values are small integers, so the total is known exactly.
 *
 * Usage: mpiexec -n P reduce_mpi [-n R (200)] [-s STEPS] [-T SECONDS]
 *                                [-w WARMUP]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <mpi.h>
#include <stdio.h>

#include "patterns.h"

#define ELEMENTS 64

int main(int argc, char **argv)
{
    int rank, ranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    patterns_options_t o;
    patterns_parse(argc, argv, "reduce", 200, 1, 100000000, 100000000, &o);
    long first = rank * ELEMENTS / ranks;
    long last = (rank + 1) * ELEMENTS / ranks;
    double x[ELEMENTS], one = 0.0, total = 0.0;
    for (long i = 0; i < ELEMENTS; i++) {
        x[i] = (double)(i % 7 + 1);
        one += x[i];
    }

    long limit = o.warmup + o.max_steps, steps = 0;
    double start = 0.0;
    for (long s = 0;; s++) {
        if (s == o.warmup)
            start = patterns_seconds();
        int stop = 0;
        if (rank == 0)
            stop = s == limit || (o.budget > 0.0 && s > o.warmup &&
                                  patterns_seconds() - start >= o.budget);
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (stop)
            break;
        double sum = 0.0;
        for (long k = 0; k < o.size; k++) {
            double mine = 0.0, all;
            for (long i = first; i < last; i++)
                mine += x[i];
            MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM,
                          MPI_COMM_WORLD);
            sum += all;
        }
        total += sum;
        steps = s + 1 - o.warmup;
    }
    double seconds = patterns_seconds() - start;

    double want = one * (double)o.size * (double)(o.warmup + steps);
    double error = total > want ? total - want : want - total;
    int status = PATTERNS_EXIT_OK;
    if (rank == 0)
        status = patterns_report(&o, steps, seconds, error == 0.0, error);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
