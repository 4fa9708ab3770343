/*
 * val_data_sharing.c - conformance checks of the data-sharing clauses:
 * private variables start undefined and do not change the original;
 * firstprivate copies scalars, arrays and structs (each thread its own
 * copy); shared variables of main, statics of a function and globals are
 * the same object in every thread; default(none) with explicit lists; a
 * pointer made firstprivate still points to shared data.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 256

struct config {
    int n;
    double weights[4];
};

int global_hits;
int addr_same[MAXT];

static int *static_counter(void)
{
    static int counter;
    return &counter;
}

int main(void)
{
    int errors = 0, priv = 7, nthreads = 1;
    int arr[8];
    struct config cfg = {3, {0.5, 1.5, 2.5, 3.5}};
    int *shared_buf = calloc(MAXT, sizeof *shared_buf);
    int local_shared = 0;

    for (int i = 0; i < 8; i++)
        arr[i] = i * i;

#pragma omp parallel private(priv) firstprivate(arr, cfg) \
    shared(local_shared, nthreads) reduction(+ : errors)
    {
        int me = omp_get_thread_num();
        priv = me;                  /* private: no effect outside */
        for (int i = 0; i < 8; i++) {
            if (arr[i] != i * i)
                errors++;
            arr[i] += me;           /* each thread's own copy */
        }
        if (cfg.n != 3 || cfg.weights[2] != 2.5)
            errors++;
        cfg.n = me;
#pragma omp atomic
        local_shared++;
#pragma omp atomic
        global_hits++;
#pragma omp atomic
        (*static_counter())++;
#pragma omp barrier
        for (int i = 0; i < 8; i++)
            if (arr[i] != i * i + me)
                errors++;
        if (cfg.n != me || priv != me)
            errors++;
        addr_same[me] = static_counter() == static_counter();
#pragma omp single
        nthreads = omp_get_num_threads();
    }

    int *p = shared_buf;
#pragma omp parallel default(none) firstprivate(p) shared(nthreads)
    {
        p[omp_get_thread_num()] = omp_get_thread_num() + 1;
        p = NULL;                   /* the copy only */
    }
    long sum = 0;
    for (int t = 0; t < nthreads; t++) {
        if (shared_buf[t] != t + 1 || !addr_same[t])
            errors++;
        sum += shared_buf[t];
    }
    if (priv != 7 || cfg.n != 3 || arr[3] != 9 || p != shared_buf ||
        local_shared != nthreads || global_hits != nthreads ||
        *static_counter() != nthreads)
        errors++;
    printf("result: threads %d shared %d global %d static %d sum %ld\n",
           nthreads, local_shared, global_hits, *static_counter(), sum);
    free(shared_buf);
    if (errors)
        fprintf(stderr, "val_data_sharing: %d errors\n", errors);
    return errors ? 1 : 0;
}
