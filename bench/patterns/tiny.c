/*
 * tiny.c - tiny parallel regions: every step is one parallel loop that
 * writes a 64-element array on the master's stack (a[i] = a[i] / 2 + i +
 * step), as a program does that parallelises a short loop inside an outer
 * serial loop.  What a step costs is the fork, the join and the sharing
 * of one page of the master's stack.  MPI's equivalent (tiny_mpi.c) is
 * MPI_Bcast + MPI_Barrier per step.
 *
 * Check: the same updates computed serially must give the same array
 * (exactly: the same operations in the same order).
 *
 * Usage: tiny [-n ELEMENTS (64)] [-s STEPS] [-T SECONDS] [-w WARMUP]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <stdio.h>

#include "patterns.h"

#define MAX_ELEMENTS 4096

struct tiny {
    long n;
    double *a;
};

static void tiny_step(void *state, long step)
{
    struct tiny *t = state;
    double *a = t->a;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < t->n; i++)
        a[i] = 0.5 * a[i] + (double)(i + step);
}

int main(int argc, char **argv)
{
    patterns_options_t o;
    patterns_parse(argc, argv, "tiny", 64, 1, MAX_ELEMENTS, 100000000, &o);
    double a[MAX_ELEMENTS], reference[MAX_ELEMENTS];
    struct tiny t = {.n = o.size, .a = a};
    for (long i = 0; i < o.size; i++)
        a[i] = reference[i] = (double)i;

    double seconds;
    long steps = patterns_run(&o, tiny_step, &t, &seconds);

    for (long s = 0; s < o.warmup + steps; s++)
        for (long i = 0; i < o.size; i++)
            reference[i] = 0.5 * reference[i] + (double)(i + s);
    double error = patterns_max_difference(a, reference, o.size);
    return patterns_report(&o, steps, seconds, error == 0.0, error);
}
