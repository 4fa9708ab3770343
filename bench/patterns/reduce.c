/*
 * reduce.c - reductions inside a long parallel region: every step is one
 * parallel region in which the team runs R work-shared loops, each a sum
 * of 64 values with reduction(+:sum) into a variable on the master's
 * stack, as an iterative solver does with its dot products.  What a
 * reduction costs is the combining and the barrier.  MPI's equivalent
 * (reduce_mpi.c) is one MPI_Allreduce per reduction.
 *
 * Check: the values are small integers, so every sum is exact and the
 * total over all steps is known.
 *
 * Usage: reduce [-n R (reductions per region, 200)] [-s STEPS]
 *               [-T SECONDS] [-w WARMUP]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <stdio.h>

#include "patterns.h"

#define ELEMENTS 64

struct reduce {
    long reductions;
    double x[ELEMENTS];
    double total;
};

static void reduce_step(void *state, long step)
{
    (void)step;
    struct reduce *r = state;
    double sum = 0.0;
#pragma omp parallel
    {
        for (long k = 0; k < r->reductions; k++) {
#pragma omp for schedule(static) reduction(+:sum)
            for (long i = 0; i < ELEMENTS; i++)
                sum += r->x[i];
        }
    }
    r->total += sum;
}

int main(int argc, char **argv)
{
    patterns_options_t o;
    patterns_parse(argc, argv, "reduce", 200, 1, 100000000, 100000000, &o);
    struct reduce r = {.reductions = o.size, .total = 0.0};
    double one = 0.0;
    for (long i = 0; i < ELEMENTS; i++) {
        r.x[i] = (double)(i % 7 + 1);
        one += r.x[i];
    }

    double seconds;
    long steps = patterns_run(&o, reduce_step, &r, &seconds);

    double want = one * (double)o.size * (double)(o.warmup + steps);
    double error = r.total - want;
    if (error < 0)
        error = -error;
    if (error != 0.0)
        fprintf(stderr, "reduce: total %.17g, want %.17g\n", r.total, want);
    return patterns_report(&o, steps, seconds, error == 0.0, error);
}
