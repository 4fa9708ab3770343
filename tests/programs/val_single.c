/*
 * val_single.c - conformance checks of the work-sharing constructs'
 * counting rules: in a loop of 100 encounters, each single (with and
 * without nowait) runs exactly once per encounter; each for-loop nowait
 * hands out every iteration exactly once even while threads race ahead
 * into the next loop; sections run once each per encounter.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ENCOUNTERS 100
#define N 64

int single_count[ENCOUNTERS], nowait_count[ENCOUNTERS];
int section_count[ENCOUNTERS][3];
int iter_count[2][N];

int main(void)
{
    int errors = 0;

#pragma omp parallel
    {
        for (int e = 0; e < ENCOUNTERS; e++) {
#pragma omp single
            single_count[e]++;
#pragma omp single nowait
            {
#pragma omp atomic
                nowait_count[e]++;
            }
#pragma omp sections
            {
#pragma omp section
                section_count[e][0]++;
#pragma omp section
                section_count[e][1]++;
#pragma omp section
                section_count[e][2]++;
            }
        }
#pragma omp for nowait schedule(dynamic, 2)
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            iter_count[0][i]++;
        }
#pragma omp for nowait schedule(static)
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            iter_count[1][i]++;
        }
    }

    for (int e = 0; e < ENCOUNTERS; e++) {
        if (single_count[e] != 1 || nowait_count[e] != 1)
            errors++;
        for (int s = 0; s < 3; s++)
            if (section_count[e][s] != 1)
                errors++;
    }
    for (int i = 0; i < N; i++)
        if (iter_count[0][i] != 1 || iter_count[1][i] != 1)
            errors++;
    printf("result: encounters %d errors %d\n", ENCOUNTERS, errors);
    if (errors)
        fprintf(stderr, "val_single: %d wrong counts\n", errors);
    return errors ? 1 : 0;
}
