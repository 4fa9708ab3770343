/*
 * bots_fib.c - recursive Fibonacci with tasks, in the style of the
 * Barcelona OpenMP Tasks Suite: each call makes two tasks for its
 * subproblems and waits for them; below a cut-off depth the recursion is
 * serial.  A second version uses final() and mergeable for the cut-off.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 24
#define CUTOFF 8

static long fib_seq(int n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

static long fib_cutoff(int n, int depth)
{
    long x, y;
    if (n < 2)
        return n;
    if (depth >= CUTOFF)
        return fib_seq(n);
#pragma omp task shared(x) firstprivate(n, depth)
    x = fib_cutoff(n - 1, depth + 1);
#pragma omp task shared(y) firstprivate(n, depth)
    y = fib_cutoff(n - 2, depth + 1);
#pragma omp taskwait
    return x + y;
}

static long fib_final(int n)
{
    long x, y;
    if (n < 2)
        return n;
#pragma omp task shared(x) final(n < 15) mergeable
    x = fib_final(n - 1);
#pragma omp task shared(y) final(n < 15) mergeable
    y = fib_final(n - 2);
#pragma omp taskwait
    return x + y;
}

int main(void)
{
    long r1 = 0, r2 = 0;
    int errors = 0;

#pragma omp parallel
#pragma omp single
    r1 = fib_cutoff(N, 0);

#pragma omp parallel
    {
#pragma omp single nowait
        r2 = fib_final(N);
    }

    long want = fib_seq(N);
    if (r1 != want || r2 != want)
        errors++;
    printf("result: fib(%d) = %ld %ld\n", N, r1, r2);
    if (errors)
        fprintf(stderr, "bots_fib: want %ld\n", want);
    return errors ? 1 : 0;
}
