/*
 * npb_lu_ssor.c - an SSOR sweep pipelined across threads as the NAS LU
 * benchmark's OpenMP version does it: the j rows are split among the
 * threads with a static schedule, and plane after plane each thread waits
 * for its left neighbour to finish the plane (sync_left), computes its
 * rows, and tells its right neighbour (sync_right), through an array of
 * per-thread flags and flush.  A lower sweep (k, j, i increasing) and an
 * upper sweep (decreasing) per iteration, a residual norm with a
 * reduction, against the same sweeps run serially (bit-identical: the
 * pipeline keeps every dependence).
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 16
#define NY 16
#define NZ 12
#define ITERS 2
#define MAXT 128

static double v[NZ][NY][NX];
static double ref[NZ][NY][NX];
static int isync[MAXT];
static const double omega = 0.3, damp = 0.55;

/* wait until the left neighbour has finished the current plane */
static void sync_left(int iam)
{
    if (iam > 0) {
        int neighbour = iam - 1;
        while (isync[neighbour] == 0) {
#pragma omp flush(isync)
        }
        isync[neighbour] = 0;
#pragma omp flush(isync, v)
    }
}

/* tell the right neighbour this plane is done */
static void sync_right(int iam, int nthreads)
{
    if (iam < nthreads - 1) {
#pragma omp flush(isync, v)
        while (isync[iam] == 1) {
#pragma omp flush(isync)
        }
        isync[iam] = 1;
#pragma omp flush(isync)
    }
}

static void lower_point(double (*a)[NY][NX], int k, int j, int i)
{
    a[k][j][i] = damp * (a[k][j][i] +
                         omega * (a[k - 1][j][i] + a[k][j - 1][i] +
                                  a[k][j][i - 1]));
}

static void upper_point(double (*a)[NY][NX], int k, int j, int i)
{
    a[k][j][i] = damp * (a[k][j][i] +
                         omega * (a[k + 1][j][i] + a[k][j + 1][i] +
                                  a[k][j][i + 1])) + 0.001;
}

static void init(double (*a)[NY][NX])
{
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                a[k][j][i] = sin(0.1 * i) + cos(0.2 * j) + 0.05 * k;
}

int main(void)
{
    int errors = 0;
    double rsd_norm = 0;

    init(v);
    init(ref);

#pragma omp parallel
    {
        int iam = omp_get_thread_num();
        int nthreads = omp_get_num_threads();
        for (int it = 0; it < ITERS; it++) {
            isync[iam] = 0;
#pragma omp barrier
            /* lower triangular sweep */
            for (int k = 1; k < NZ - 1; k++) {
                sync_left(iam);
#pragma omp for schedule(static) nowait
                for (int j = 1; j < NY - 1; j++)
                    for (int i = 1; i < NX - 1; i++)
                        lower_point(v, k, j, i);
                sync_right(iam, nthreads);
            }
#pragma omp barrier
            /* upper triangular sweep, in reverse */
            for (int k = NZ - 2; k > 0; k--) {
                sync_left(iam);
#pragma omp for schedule(static) nowait
                for (int j = NY - 2; j > 0; j--)
                    for (int i = NX - 2; i > 0; i--)
                        upper_point(v, k, j, i);
                sync_right(iam, nthreads);
            }
#pragma omp barrier
        }
#pragma omp for reduction(+ : rsd_norm)
        for (int k = 1; k < NZ - 1; k++)
            for (int j = 1; j < NY - 1; j++)
                for (int i = 1; i < NX - 1; i++)
                    rsd_norm += v[k][j][i] * v[k][j][i];
    }

    for (int it = 0; it < ITERS; it++) {
        for (int k = 1; k < NZ - 1; k++)
            for (int j = 1; j < NY - 1; j++)
                for (int i = 1; i < NX - 1; i++)
                    lower_point(ref, k, j, i);
        for (int k = NZ - 2; k > 0; k--)
            for (int j = NY - 2; j > 0; j--)
                for (int i = NX - 2; i > 0; i--)
                    upper_point(ref, k, j, i);
    }
    double want_norm = 0, checksum = 0;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                if (v[k][j][i] != ref[k][j][i])
                    errors++;
                checksum += v[k][j][i] * (1 + (i + j + k) % 3);
                if (k > 0 && k < NZ - 1 && j > 0 && j < NY - 1 && i > 0 &&
                    i < NX - 1)
                    want_norm += ref[k][j][i] * ref[k][j][i];
            }
    if (fabs(rsd_norm - want_norm) > 1e-9 * want_norm)
        errors++;
    printf("result: checksum %.10e\n", checksum);
    printf("result: norm %.8e\n", sqrt(want_norm));
    if (errors)
        fprintf(stderr, "npb_lu_ssor: %d errors (norm %.12e, want %.12e)\n",
                errors, rsd_norm, want_norm);
    return errors ? 1 : 0;
}
