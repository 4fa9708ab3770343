/*
 * ex_reduction_ops.c - the reduction clause with every operator of C:
 * + * - & | ^ && || min max, on int, unsigned, long, float and double,
 * on parallel for, on a parallel region and on sections, against serial
 * loops.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2048

static double val(int i) { return ((i * 37) % 1009) / 16.0; }

int main(void)
{
    int errors = 0;
    int isum = 0, iand = ~0, ior = 0, ixor = 0, land = 1, lor = 0;
    int imin = 1 << 30, imax = -(1 << 30), isub = 0;
    unsigned umul = 1, uxor = 0;
    long lsum = 0, lmax = -1;
    float fsum = 0, fmax = -1;
    double dsum = 0, dmul = 1, dmin = 1e300, dsub = 0;

#pragma omp parallel for reduction(+ : isum, lsum, fsum, dsum)            \
    reduction(& : iand) reduction(| : ior) reduction(^ : ixor, uxor)      \
    reduction(&& : land) reduction(|| : lor) reduction(min : imin, dmin)   \
    reduction(max : imax, lmax, fmax) reduction(* : umul, dmul)            \
    reduction(- : isub, dsub)
    for (int i = 0; i < N; i++) {
        int k = (i * 7919) % 4096;
        isum += k;
        lsum += (long)k * k;
        fsum += (float)(i % 8);
        dsum += val(i);
        iand &= (k | 0x100);
        ior |= 1 << (i % 20);
        ixor ^= k;
        uxor ^= (unsigned)i * 2654435761u;
        land = land && (k >= 0);
        lor = lor || (k % 1000 == 999);
        imin = k < imin ? k : imin;
        dmin = val(i) < dmin ? val(i) : dmin;
        imax = k > imax ? k : imax;
        lmax = (long)k * 3 > lmax ? (long)k * 3 : lmax;
        fmax = (float)val(i) > fmax ? (float)val(i) : fmax;
        umul *= (i % 5 == 0) ? 3u : 1u;
        dmul *= (i % 256 == 0) ? 1.5 : 1.0;
        isub -= 1;
        dsub -= 0.5;
    }

    int w_isum = 0, w_iand = ~0, w_ior = 0, w_ixor = 0, w_land = 1, w_lor = 0;
    int w_imin = 1 << 30, w_imax = -(1 << 30);
    unsigned w_umul = 1, w_uxor = 0;
    long w_lsum = 0, w_lmax = -1;
    float w_fsum = 0, w_fmax = -1;
    double w_dsum = 0, w_dmul = 1, w_dmin = 1e300;
    for (int i = 0; i < N; i++) {
        int k = (i * 7919) % 4096;
        w_isum += k;
        w_lsum += (long)k * k;
        w_fsum += (float)(i % 8);
        w_dsum += val(i);
        w_iand &= (k | 0x100);
        w_ior |= 1 << (i % 20);
        w_ixor ^= k;
        w_uxor ^= (unsigned)i * 2654435761u;
        w_land = w_land && (k >= 0);
        w_lor = w_lor || (k % 1000 == 999);
        w_imin = k < w_imin ? k : w_imin;
        w_dmin = val(i) < w_dmin ? val(i) : w_dmin;
        w_imax = k > w_imax ? k : w_imax;
        w_lmax = (long)k * 3 > w_lmax ? (long)k * 3 : w_lmax;
        w_fmax = (float)val(i) > w_fmax ? (float)val(i) : w_fmax;
        w_umul *= (i % 5 == 0) ? 3u : 1u;
        w_dmul *= (i % 256 == 0) ? 1.5 : 1.0;
    }
    /* the sums of doubles are exact here (multiples of 1/16, small) */
    if (isum != w_isum || lsum != w_lsum || fsum != w_fsum ||
        dsum != w_dsum || iand != w_iand || ior != w_ior || ixor != w_ixor ||
        uxor != w_uxor || land != w_land || lor != w_lor ||
        imin != w_imin || dmin != w_dmin || imax != w_imax ||
        lmax != w_lmax || fmax != w_fmax || umul != w_umul ||
        dmul != w_dmul || isub != -N || dsub != -N * 0.5)
        errors++;

    /* on a region: every thread contributes once */
    int nthreads = 0, prod_team = 1;
#pragma omp parallel reduction(+ : nthreads) reduction(* : prod_team)
    {
        nthreads += 1;
        prod_team *= 2;
    }
    if (prod_team != 1 << nthreads)
        errors++;

    /* on sections */
    long sec = 0;
#pragma omp parallel sections reduction(+ : sec)
    {
#pragma omp section
        sec += 1;
#pragma omp section
        sec += 20;
#pragma omp section
        sec += 300;
    }
    if (sec != 321)
        errors++;

    printf("result: int %d %d %d %d %d %d %d %d %d\n", isum, iand, ior, ixor,
           land, lor, imin, imax, isub);
    printf("result: unsigned %u %u long %ld %ld\n", umul, uxor, lsum, lmax);
    printf("result: float %.1f %.4f double %.4f %.4f %.4f %.1f\n",
           (double)fsum, (double)fmax, dsum, dmul, dmin, dsub);
    printf("result: team %d %d sections %ld\n", nthreads, prod_team, sec);
    if (errors)
        fprintf(stderr, "ex_reduction_ops: wrong results\n");
    return errors ? 1 : 0;
}
