/*
 * syncbench.c - EPCC-style synchronisation overheads of OpenMP constructs:
 * PARALLEL, FOR, PARALLEL_FOR, BARRIER, SINGLE, CRITICAL, LOCK, ATOMIC and
 * REDUCTION, each as the time one construct adds to a calibrated delay.
 *
 * Layer: bench.  One OpenMP C source built twice: with dsmcc (libdsmomp,
 * started by dsmrun) and with clang -fopenmp (libomp).  Entry point: main;
 * the bodies run in the initial thread and the team's threads.  Options:
 * see epcc_options.h.
 *
 * Reference bodies: PARALLEL, PARALLEL_FOR and REDUCTION, whose test
 * opens a region per inner repetition, compare with the delay run by one
 * thread; the others run inside one region and compare with that region
 * running the delay on every thread.  CRITICAL and LOCK share out the inner
 * repetitions over the threads, so the serialised delays add up to the
 * reference's.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "epcc_delay.h"
#include "epcc_main.h"

/* dsmcc and dsmgcc builds define EPCC_DSMOMP; the reference is libomp
 * (clang) or libgomp (gcc). */
#ifdef EPCC_DSMOMP
#define EPCC_RUNTIME "dsmomp"
#elif defined(__clang__)
#define EPCC_RUNTIME "libomp"
#else
#define EPCC_RUNTIME "libgomp"
#endif

enum { PARALLEL, FOR, PARALLEL_FOR, BARRIER, SINGLE, CRITICAL, LOCK, ATOMIC,
       REDUCTION, TEST_COUNT };
static const char *const test_names[TEST_COUNT] = {
    "PARALLEL", "FOR", "PARALLEL_FOR", "BARRIER", "SINGLE", "CRITICAL",
    "LOCK", "ATOMIC", "REDUCTION",
};

/* Globals: under dsmomp these live in sharable memory, seen by every node,
 * as a user's program would have them.  They are written only between
 * tests, and the team reads its loop bounds from them or from firstprivate
 * copies: a bound in a local of the master (its stack page, written on
 * every repetition) would add a page fetch per region on every other node,
 * the benchmark's own sharing rather than the construct's cost. */
static unsigned long delay_iters;
static omp_lock_t bench_lock;
static double atomic_total;
static int team_size;

static void reference_serial(void *ctx, unsigned long reps)
{
    (void)ctx;
    for (unsigned long j = 0; j < reps; j++)
        epcc_delay(delay_iters);
}

static void reference_team(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
#pragma omp parallel firstprivate(d, reps)
    for (unsigned long j = 0; j < reps; j++)
        epcc_delay(d);
}

static void test_parallel(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
    for (unsigned long j = 0; j < reps; j++) {
#pragma omp parallel firstprivate(d)
        epcc_delay(d);
    }
}

static void test_for(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
    int n = team_size;
#pragma omp parallel firstprivate(d, reps, n)
    for (unsigned long j = 0; j < reps; j++) {
#pragma omp for
        for (int i = 0; i < n; i++)
            epcc_delay(d);
    }
}

static void test_parallel_for(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
    for (unsigned long j = 0; j < reps; j++) {
#pragma omp parallel for firstprivate(d)
        for (int i = 0; i < team_size; i++)
            epcc_delay(d);
    }
}

static void test_barrier(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
#pragma omp parallel firstprivate(d, reps)
    for (unsigned long j = 0; j < reps; j++) {
        epcc_delay(d);
#pragma omp barrier
    }
}

static void test_single(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
#pragma omp parallel firstprivate(d, reps)
    for (unsigned long j = 0; j < reps; j++) {
#pragma omp single
        epcc_delay(d);
    }
}

static void test_critical(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
#pragma omp parallel firstprivate(d, reps)
    {
        unsigned long me = (unsigned long)omp_get_thread_num();
        unsigned long step = (unsigned long)omp_get_num_threads();
        for (unsigned long j = me; j < reps; j += step) {
#pragma omp critical
            epcc_delay(d);
        }
    }
}

static void test_lock(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
#pragma omp parallel firstprivate(d, reps)
    {
        unsigned long me = (unsigned long)omp_get_thread_num();
        unsigned long step = (unsigned long)omp_get_num_threads();
        for (unsigned long j = me; j < reps; j += step) {
            omp_set_lock(&bench_lock);
            epcc_delay(d);
            omp_unset_lock(&bench_lock);
        }
    }
}

static void test_atomic(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
#pragma omp parallel firstprivate(d, reps)
    for (unsigned long j = 0; j < reps; j++) {
        epcc_delay(d);
#pragma omp atomic
        atomic_total += 1.0;
    }
}

static void test_reduction(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
    int sum = 0;
    for (unsigned long j = 0; j < reps; j++) {
#pragma omp parallel firstprivate(d) reduction(+ : sum)
        {
            epcc_delay(d);
            sum += 1;
        }
    }
    /* Every member added one per region: anything else is a wrong sum. */
    if (sum != (int)(reps * (unsigned long)team_size)) {
        fprintf(stderr, "syncbench: REDUCTION sum %d, expected %lu\n", sum,
                reps * (unsigned long)team_size);
        exit(1);
    }
}

static void prepare(size_t index, unsigned long delay_iterations,
                    epcc_test_t *test)
{
    static const epcc_body_fn bodies[TEST_COUNT] = {
        test_parallel, test_for, test_parallel_for, test_barrier,
        test_single, test_critical, test_lock, test_atomic, test_reduction,
    };
    delay_iters = delay_iterations;
    *test = (epcc_test_t){
        .name = test_names[index],
        .reference = index == PARALLEL || index == PARALLEL_FOR ||
                             index == REDUCTION
                         ? reference_serial
                         : reference_team,
        .test = bodies[index],
    };
}

int main(int argc, char *argv[])
{
#pragma omp parallel
#pragma omp master
    team_size = omp_get_num_threads();

    omp_init_lock(&bench_lock);
    epcc_program_t program = {
        .benchmark = "syncbench", .runtime = EPCC_RUNTIME,
        .workers = team_size, .names = test_names, .count = TEST_COUNT,
        .prepare = prepare, .print = 1,
    };
    int status = epcc_main_run(&program, argc, argv);
    omp_destroy_lock(&bench_lock);
    return status;
}
