/*
 * ex_threadprivate.c - threadprivate globals and a function-static: each
 * thread keeps its own counter across parallel regions (same team size,
 * dynamic adjustment off), copyin starts every thread from the master's
 * value, and a threadprivate pointer holds a per-thread buffer from
 * malloc that survives into the next region.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 256

int counter;
double scale = 1.0;
double *work_buf;
#pragma omp threadprivate(counter, scale, work_buf)

static int calls(void)
{
    static int n;
#pragma omp threadprivate(n)
    return ++n;
}

int seen_counter[MAXT], seen_calls[MAXT];
double seen_scale[MAXT], seen_buf[MAXT];

int main(void)
{
    int errors = 0, nthreads = 1;

    omp_set_dynamic(0);
    scale = 2.5;
#pragma omp parallel copyin(scale)
    {
        int me = omp_get_thread_num();
        counter = me * 10;
        work_buf = malloc(16 * sizeof *work_buf);
        for (int i = 0; i < 16; i++)
            work_buf[i] = me + i * scale;
        calls();
#pragma omp single
        nthreads = omp_get_num_threads();
    }
    /* the values persist into the next region */
#pragma omp parallel
    {
        int me = omp_get_thread_num();
        counter += 1;
        seen_counter[me] = counter;
        seen_scale[me] = scale;
        seen_calls[me] = calls();
        double s = 0;
        for (int i = 0; i < 16; i++)
            s += work_buf[i];
        seen_buf[me] = s;
        free(work_buf);
        work_buf = NULL;
    }

    long total = 0;
    for (int t = 0; t < nthreads; t++) {
        double want_buf = 16.0 * t + 2.5 * 120;
        if (seen_counter[t] != t * 10 + 1 || seen_scale[t] != 2.5 ||
            seen_calls[t] != 2 || seen_buf[t] != want_buf) {
            errors++;
            fprintf(stderr, "ex_threadprivate: thread %d: counter %d (want "
                    "%d) scale %g (want 2.5) calls %d (want 2) buffer sum %g "
                    "(want %g)\n", t, seen_counter[t], t * 10 + 1,
                    seen_scale[t], seen_calls[t], seen_buf[t], want_buf);
        }
        total += seen_counter[t];
    }
    printf("result: threads %d counters %ld\n", nthreads, total);
    if (errors)
        fprintf(stderr, "ex_threadprivate: %d threads wrong\n", errors);
    return errors ? 1 : 0;
}
