/*
 * npb_ep.c - an "embarrassingly parallel" kernel after the NAS EP
 * benchmark: a linear congruential generator (a = 5^13, modulus 2^46)
 * gives pairs of uniform numbers, the pairs inside the unit circle become
 * Gaussian deviates (Marsaglia's polar method), which are counted in
 * annuli and summed.  Each thread keeps its batch of random numbers in a
 * large threadprivate array (2 x 65536 doubles, 1 MiB per thread), as EP
 * does; batches are distributed with a static loop and results combined
 * with reductions and a critical section.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define MK 16
#define NK (1 << MK)
#define BATCHES 8
#define NQ 10

static double x[2 * NK];
#pragma omp threadprivate(x)

static const double r23 = 1.0 / 8388608.0;            /* 2^-23 */
static const double t23 = 8388608.0;
static const double r46 = 1.0 / 70368744177664.0;     /* 2^-46 */
static const double t46 = 70368744177664.0;

/* x = a * x mod 2^46, returns x * 2^-46; exact in doubles (split in
 * 23-bit halves) */
static double lcg_next(double *seed, double a)
{
    double a1 = floor(r23 * a), a2 = a - t23 * a1;
    double x1 = floor(r23 * *seed), x2 = *seed - t23 * x1;
    double t1 = a1 * x2 + a2 * x1;
    double t2 = floor(r23 * t1), z = t1 - t23 * t2;
    double t3 = t23 * z + a2 * x2;
    double t4 = floor(r46 * t3);
    *seed = t3 - t46 * t4;
    return r46 * *seed;
}

/* a^n mod 2^46 by squaring, to jump the generator to a batch */
static double lcg_power(double a, long n)
{
    double result = 1.0, base = a;
    while (n > 0) {
        if (n & 1)
            lcg_next(&result, base);
        double b = base;
        lcg_next(&base, b);
        n >>= 1;
    }
    return result;
}

static void run_batch(int batch, double *sx, double *sy, long q[NQ])
{
    const double a = 1220703125.0;                    /* 5^13 */
    double seed = 271828183.0;
    double jump = lcg_power(a, 2L * NK * batch);
    lcg_next(&seed, jump);
    for (int i = 0; i < 2 * NK; i++)
        x[i] = lcg_next(&seed, a);
    for (int i = 0; i < NK; i++) {
        double u = 2.0 * x[2 * i] - 1.0, v = 2.0 * x[2 * i + 1] - 1.0;
        double t = u * u + v * v;
        if (t <= 1.0 && t > 0.0) {
            double f = sqrt(-2.0 * log(t) / t);
            double gx = u * f, gy = v * f;
            int l = (int)fmax(fabs(gx), fabs(gy));
            if (l < NQ)
                q[l]++;
            *sx += gx;
            *sy += gy;
        }
    }
}

int main(void)
{
    double sx = 0, sy = 0;
    long q[NQ] = {0};
    long pairs = 0;
    int errors = 0;

#pragma omp parallel reduction(+ : sx, sy, pairs)
    {
        long qq[NQ] = {0};
#pragma omp for schedule(static)
        for (int b = 0; b < BATCHES; b++) {
            run_batch(b, &sx, &sy, qq);
            pairs += NK;
        }
#pragma omp critical
        for (int l = 0; l < NQ; l++)
            q[l] += qq[l];
    }

    double wsx = 0, wsy = 0;
    long wq[NQ] = {0};
    for (int b = 0; b < BATCHES; b++)
        run_batch(b, &wsx, &wsy, wq);
    long accepted = 0;
    for (int l = 0; l < NQ; l++) {
        if (q[l] != wq[l])
            errors++;
        accepted += q[l];
    }
    if (pairs != (long)BATCHES * NK || fabs(sx - wsx) > 1e-8 * fabs(wsx) ||
        fabs(sy - wsy) > 1e-8 * fabs(wsy))
        errors++;
    printf("result: pairs %ld accepted %ld sx %.6e sy %.6e\n", pairs,
           accepted, wsx, wsy);
    printf("result: q");
    for (int l = 0; l < NQ; l++)
        printf(" %ld", q[l]);
    printf("\n");
    if (errors)
        fprintf(stderr, "npb_ep: %d errors (sx %.15e want %.15e)\n", errors,
                sx, wsx);
    return errors ? 1 : 0;
}
