/*
 * api_wtime.c - omp_get_wtime and omp_get_wtick as conformance suites
 * check them: the tick is positive and below a second, time never goes
 * backwards in any thread, and a measured busy loop takes a positive time
 * that agrees with what the master measures around the region.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

int main(void)
{
    int errors = 0;
    double tick = omp_get_wtick();

    if (!(tick > 0 && tick < 1))
        errors++;
    double outer_start = omp_get_wtime();
    double max_inner = 0;
#pragma omp parallel reduction(+ : errors) reduction(max : max_inner)
    {
        double prev = omp_get_wtime();
        for (int k = 0; k < 1000; k++) {
            double now = omp_get_wtime();
            if (now < prev)
                errors++;
            prev = now;
        }
        double start = omp_get_wtime();
        double s = 0;
        for (int k = 0; k < 200000; k++)
            s += k * 1e-9;
        sink = s;
        double took = omp_get_wtime() - start;
        if (!(took > 0))
            errors++;
        max_inner = took;
    }
    double outer = omp_get_wtime() - outer_start;
    /* the slowest thread's loop fits in the whole region */
    if (!(outer > 0) || max_inner > outer + 2 * tick)
        errors++;
    printf("result: wtime consistent %d\n", errors == 0);
    if (errors)
        fprintf(stderr, "api_wtime: %d errors (tick %g region %g loop %g)\n",
                errors, tick, outer, max_inner);
    return errors ? 1 : 0;
}
