/*
 * ex_threadprivate_copyprivate.c - single copyprivate of threadprivate
 * variables: one thread reads the parameters into its threadprivate
 * copies, copyprivate broadcasts them into every thread's copies, and
 * they persist into the next region.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 256

int seed;
double coeff[4];
#pragma omp threadprivate(seed, coeff)

int ok_first[MAXT], ok_second[MAXT];

int main(void)
{
    int errors = 0, nthreads = 1;

    omp_set_dynamic(0);
#pragma omp parallel
    {
        int me = omp_get_thread_num();
#pragma omp single copyprivate(seed, coeff)
        {
            seed = 12345;
            for (int i = 0; i < 4; i++)
                coeff[i] = 0.5 * (i + 1);
            nthreads = omp_get_num_threads();
        }
        ok_first[me] = seed == 12345 && coeff[3] == 2.0;
        seed += me;
    }
#pragma omp parallel
    {
        int me = omp_get_thread_num();
        ok_second[me] = seed == 12345 + me && coeff[0] == 0.5 &&
                        coeff[2] == 1.5;
    }
    int good = 0;
    for (int t = 0; t < nthreads; t++) {
        if (!ok_first[t] || !ok_second[t])
            errors++;
        good += ok_first[t] + ok_second[t];
    }
    printf("result: threads %d good %d\n", nthreads, good);
    if (errors)
        fprintf(stderr, "ex_threadprivate_copyprivate: %d threads wrong\n",
                errors);
    return errors ? 1 : 0;
}
