/*
 * ex_single_copyprivate.c - single with copyprivate: one thread reads the
 * "input" (here computed) into private variables, a struct and a pointer
 * to a buffer it allocates, and copyprivate broadcasts them to the team;
 * then single nowait, counted.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

struct params {
    int n;
    double step;
    char tag[8];
};

int main(void)
{
    int errors = 0, single_runs = 0, nthreads = 1;
    long seen = 0;

#pragma omp parallel reduction(+ : errors, seen)
    {
        int n;
        double scale;
        struct params p;
        double *buf;
#pragma omp single copyprivate(n, scale, p, buf)
        {
            n = 64;
            scale = 1.5;
            p.n = 7;
            p.step = 0.125;
            p.tag[0] = 'o';
            p.tag[1] = 'k';
            p.tag[2] = '\0';
            buf = malloc(n * sizeof *buf);
            for (int i = 0; i < n; i++)
                buf[i] = i * scale;
        }
        if (n != 64 || scale != 1.5 || p.n != 7 || p.step != 0.125 ||
            p.tag[0] != 'o' || p.tag[1] != 'k')
            errors++;
        for (int i = 0; i < 64; i++)
            if (buf[i] != i * 1.5)
                errors++;
        seen += (long)buf[10];
#pragma omp barrier
#pragma omp single
        {
            free(buf);
            nthreads = omp_get_num_threads();
        }
#pragma omp single nowait
        {
#pragma omp atomic
            single_runs++;
        }
    }
    if (single_runs != 1 || seen != 15L * nthreads)
        errors++;
    printf("result: threads %d seen %ld single %d\n", nthreads, seen,
           single_runs);
    if (errors)
        fprintf(stderr, "ex_single_copyprivate: %d errors\n", errors);
    return errors ? 1 : 0;
}
