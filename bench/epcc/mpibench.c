/*
 * mpibench.c - the MPI reference for the EPCC-style OpenMP overheads,
 * measured the same way: BARRIER (MPI_Barrier), ALLREDUCE (MPI_Allreduce
 * of one double) and BCAST_BARRIER (MPI_Bcast of four 8-byte words, then
 * MPI_Barrier: what a fork and join must do at least), each after a
 * calibrated delay, against the delay alone.
 *
 * Layer: bench.  Built with mpicc, run with mpiexec -n N.  Entry point:
 * main; every rank runs the same tests and rank 0 prints.  Options: see
 * epcc_options.h.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "epcc_delay.h"
#include "epcc_main.h"

enum { BARRIER, ALLREDUCE, BCAST_BARRIER, TEST_COUNT };
static const char *const test_names[TEST_COUNT] = {
    "BARRIER", "ALLREDUCE", "BCAST_BARRIER",
};

static unsigned long delay_iters;

static void reference(void *ctx, unsigned long reps)
{
    (void)ctx;
    for (unsigned long j = 0; j < reps; j++)
        epcc_delay(delay_iters);
}

static void test_barrier(void *ctx, unsigned long reps)
{
    (void)ctx;
    for (unsigned long j = 0; j < reps; j++) {
        epcc_delay(delay_iters);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void test_allreduce(void *ctx, unsigned long reps)
{
    (void)ctx;
    double mine = 1.0, total;
    for (unsigned long j = 0; j < reps; j++) {
        epcc_delay(delay_iters);
        MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
}

static void test_bcast_barrier(void *ctx, unsigned long reps)
{
    (void)ctx;
    uint64_t words[4] = { 1, 2, 3, 4 };
    for (unsigned long j = 0; j < reps; j++) {
        epcc_delay(delay_iters);
        MPI_Bcast(words, 4, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* Rank 0's figure everywhere, so every rank takes the same decisions. */
static double agree(double value)
{
    MPI_Bcast(&value, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return value;
}

static void prepare(size_t index, unsigned long delay_iterations,
                    epcc_test_t *test)
{
    static const epcc_body_fn bodies[TEST_COUNT] = {
        test_barrier, test_allreduce, test_bcast_barrier,
    };
    delay_iters = delay_iterations;
    *test = (epcc_test_t){ .name = test_names[index], .reference = reference,
                           .test = bodies[index] };
}

int main(int argc, char *argv[])
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    epcc_program_t program = {
        .benchmark = "mpibench", .runtime = "mpich", .workers = size,
        .names = test_names, .count = TEST_COUNT, .prepare = prepare,
        .agree = agree, .print = rank == 0,
    };
    int status = epcc_main_run(&program, argc, argv);
    MPI_Finalize();
    return status;
}
