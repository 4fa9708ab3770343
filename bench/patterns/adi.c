/*
 * adi.c - an ADI-style implicit diffusion step on a 3-D grid, as an
 * OpenMP programmer writes it: each step solves tridiagonal systems along
 * x, then y, then z (Thomas algorithm, one line at a time).  The x and y
 * sweeps run in parallel over z planes; the z sweep cannot, so it runs in
 * parallel over y.  The decomposition therefore changes twice in every
 * step: between the y and the z sweep each thread's data becomes another
 * thread's.
 *
 * Check: the same steps computed serially (same arithmetic per line) must
 * give the same grid (to 1e-12; bit for bit in practice).
 *
 * Usage: adi [-n N (grid N^3)] [-s STEPS] [-T SECONDS] [-w WARMUP]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"

#define MAX_N 512
#define COUPLING 0.4   /* r of (1 + 2r) u_i - r u_(i-1) - r u_(i+1) = d_i */

struct adi {
    long n;
    double *u;     /* u[(z * n + y) * n + x] */
};

/* Solves the line of N values at U, STRIDE apart, in place, with zero
 * values beyond both ends; SCRATCH holds N values. */
static void solve_line(double *u, long stride, long n, double *scratch)
{
    const double diagonal = 1.0 + 2.0 * COUPLING, off = -COUPLING;
    double c = off / diagonal;
    scratch[0] = c;
    u[0] = u[0] / diagonal;
    for (long i = 1; i < n; i++) {
        double m = diagonal - off * scratch[i - 1];
        scratch[i] = off / m;
        u[i * stride] = (u[i * stride] - off * u[(i - 1) * stride]) / m;
    }
    for (long i = n - 2; i >= 0; i--)
        u[i * stride] -= scratch[i] * u[(i + 1) * stride];
}

/* The three sweeps on one plane or one column of planes; the parallel
 * step and the serial check both use them. */
static void sweep_x_plane(double *u, long n, long z)
{
    double scratch[MAX_N];
    for (long y = 0; y < n; y++)
        solve_line(u + (z * n + y) * n, 1, n, scratch);
}

static void sweep_y_plane(double *u, long n, long z)
{
    double scratch[MAX_N];
    for (long x = 0; x < n; x++)
        solve_line(u + z * n * n + x, n, n, scratch);
}

static void sweep_z_row(double *u, long n, long y)
{
    double scratch[MAX_N];
    for (long x = 0; x < n; x++)
        solve_line(u + y * n + x, n * n, n, scratch);
}

static void adi_step(void *state, long step)
{
    (void)step;
    struct adi *a = state;
    double *u = a->u;
    long n = a->n;
#pragma omp parallel for schedule(static)
    for (long z = 0; z < n; z++)
        sweep_x_plane(u, n, z);
#pragma omp parallel for schedule(static)
    for (long z = 0; z < n; z++)
        sweep_y_plane(u, n, z);
#pragma omp parallel for schedule(static)
    for (long y = 0; y < n; y++)
        sweep_z_row(u, n, y);
}

static double initial(long n, long z, long y, long x)
{
    double h = 1.0 / (double)(n + 1);
    return sin(3.0 * (double)(x + 1) * h) * cos(2.0 * (double)(y + 1) * h) +
           (double)((x * 7 + y * 3 + z * 5) % 11) * 0.1;
}

int main(int argc, char **argv)
{
    patterns_options_t o;
    patterns_parse(argc, argv, "adi", 48, 2, MAX_N, 1000000, &o);
    long n = o.size, points = n * n * n;
    struct adi a = {.n = n, .u = malloc((size_t)points * sizeof(double))};
    double *reference = malloc((size_t)points * sizeof(double));
    if (a.u == NULL || reference == NULL) {
        fprintf(stderr, "adi: out of memory\n");
        return PATTERNS_EXIT_WRONG;
    }
    /* first touch by the planes the x and y sweeps give each thread */
#pragma omp parallel for schedule(static)
    for (long z = 0; z < n; z++)
        for (long y = 0; y < n; y++)
            for (long x = 0; x < n; x++)
                a.u[(z * n + y) * n + x] = initial(n, z, y, x);

    double seconds;
    long steps = patterns_run(&o, adi_step, &a, &seconds);

    for (long z = 0; z < n; z++)
        for (long y = 0; y < n; y++)
            for (long x = 0; x < n; x++)
                reference[(z * n + y) * n + x] = initial(n, z, y, x);
    for (long s = 0; s < o.warmup + steps; s++) {
        for (long z = 0; z < n; z++)
            sweep_x_plane(reference, n, z);
        for (long z = 0; z < n; z++)
            sweep_y_plane(reference, n, z);
        for (long y = 0; y < n; y++)
            sweep_z_row(reference, n, y);
    }
    double error = patterns_max_difference(a.u, reference, points);
    int status = patterns_report(&o, steps, seconds, error <= 1e-12, error);
    free(reference);
    free(a.u);
    return status;
}
