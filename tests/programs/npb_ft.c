/*
 * npb_ft.c - a 3-D FFT kernel after the NAS FT benchmark: a complex
 * 16 x 16 x 32 array filled from a random generator is transformed by
 * radix-2 FFTs along x, then transposed so that y is contiguous, FFT'd,
 * transposed again for z (the 3-D transposes are parallel loops over
 * whole planes), evolved by a Gaussian factor over three time steps, with
 * a checksum of 64 scattered elements after each step, then transformed
 * back; the round trip must give the evolved input.  The parallel run is
 * compared with the same code run with the loops' if clause false.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <complex.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 16
#define NY 16
#define NZ 32
#define STEPS 3
#define TOTAL (NX * NY * NZ)

static int par;

/* in-place radix-2 FFT of n points (n a power of two); sign -1 forward */
static void fft1(double complex *a, int n, int sign)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double complex t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double ang = sign * 2 * M_PI / len;
        double complex wl = cos(ang) + I * sin(ang);
        for (int i = 0; i < n; i += len) {
            double complex w = 1;
            for (int k = 0; k < len / 2; k++) {
                double complex u = a[i + k], t = w * a[i + k + len / 2];
                a[i + k] = u + t;
                a[i + k + len / 2] = u - t;
                w *= wl;
            }
        }
    }
}

/* FFT along the contiguous dimension of a [d2][d1][d0] array */
static void fft_rows(double complex *a, int d2, int d1, int d0, int sign)
{
#pragma omp parallel for collapse(2) if (par)
    for (int k = 0; k < d2; k++)
        for (int j = 0; j < d1; j++)
            fft1(a + ((size_t)k * d1 + j) * d0, d0, sign);
}

/* out[k][i][j] = in[k][j][i] for each of d2 planes of d1 x d0 */
static void transpose_planes(const double complex *in, double complex *out,
                             int d2, int d1, int d0)
{
#pragma omp parallel for if (par)
    for (int k = 0; k < d2; k++)
        for (int j = 0; j < d1; j++)
            for (int i = 0; i < d0; i++)
                out[((size_t)k * d0 + i) * d1 + j] =
                    in[((size_t)k * d1 + j) * d0 + i];
}

/* out[i][j][k] = in[k][j][i]: swap the outer and inner dimensions */
static void transpose_outer(const double complex *in, double complex *out,
                            int d2, int d1, int d0)
{
#pragma omp parallel for collapse(2) if (par)
    for (int i = 0; i < d0; i++)
        for (int j = 0; j < d1; j++)
            for (int k = 0; k < d2; k++)
                out[((size_t)i * d1 + j) * d2 + k] =
                    in[((size_t)k * d1 + j) * d0 + i];
}

/* forward: u[z][y][x] -> spectrum laid out as s[y][x][z] */
static void fft3d_forward(double complex *u, double complex *tmp,
                          double complex *s)
{
    fft_rows(u, NZ, NY, NX, -1);                 /* along x */
    transpose_planes(u, tmp, NZ, NY, NX);        /* tmp[z][x][y] */
    fft_rows(tmp, NZ, NX, NY, -1);               /* along y */
    transpose_outer(tmp, s, NZ, NX, NY);         /* s[y][x][z] */
    fft_rows(s, NY, NX, NZ, -1);                 /* along z */
}

static void fft3d_inverse(double complex *s, double complex *tmp,
                          double complex *u)
{
    fft_rows(s, NY, NX, NZ, 1);
    transpose_outer(s, tmp, NY, NX, NZ);         /* tmp[z][x][y] */
    fft_rows(tmp, NZ, NX, NY, 1);
    transpose_planes(tmp, u, NZ, NX, NY);        /* u[z][y][x] */
    fft_rows(u, NZ, NY, NX, 1);
#pragma omp parallel for if (par)
    for (int k = 0; k < TOTAL; k++)
        u[k] /= TOTAL;
}

static void evolve(double complex *s, double t)
{
#pragma omp parallel for collapse(2) if (par)
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++)
            for (int z = 0; z < NZ; z++) {
                int ky = y < NY / 2 ? y : y - NY, kx = x < NX / 2 ? x : x - NX;
                int kz = z < NZ / 2 ? z : z - NZ;
                double k2 = kx * kx + ky * ky + kz * kz;
                s[((size_t)y * NX + x) * NZ + z] *= exp(-4e-3 * k2 * t);
            }
}

static double complex checksum(const double complex *s)
{
    double complex c = 0;
    for (int j = 1; j <= 64; j++)
        c += s[((size_t)(j % NY) * NX + (3 * j) % NX) * NZ + (5 * j) % NZ];
    return c / TOTAL;
}

static void run(double complex *u, double complex *tmp, double complex *s,
                double complex sums[STEPS], double *roundtrip_err)
{
    unsigned long seed = 271828183UL;
    double complex *u0 = malloc(TOTAL * sizeof *u0);
    for (int k = 0; k < TOTAL; k++) {
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        double re = (double)(seed >> 11) / 9007199254740992.0;
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        double im = (double)(seed >> 11) / 9007199254740992.0;
        u[k] = u0[k] = re + I * im;
    }
    fft3d_forward(u, tmp, s);
    for (int t = 1; t <= STEPS; t++) {
        evolve(s, 1.0);
        sums[t - 1] = checksum(s);
    }
    fft3d_inverse(s, tmp, u);
    /* the round trip gives the input evolved: compare its mean */
    double complex mean = 0, mean0 = 0;
    for (int k = 0; k < TOTAL; k++) {
        mean += u[k];
        mean0 += u0[k];
    }
    *roundtrip_err = cabs(mean - mean0) / cabs(mean0);
    free(u0);
}

int main(void)
{
    double complex *u = malloc(TOTAL * sizeof *u);
    double complex *tmp = malloc(TOTAL * sizeof *tmp);
    double complex *s = malloc(TOTAL * sizeof *s);
    double complex *u_par = malloc(TOTAL * sizeof *u_par);
    double complex sums[STEPS], want[STEPS];
    double err_par, err;
    int errors = 0;

    par = 1;
    run(u, tmp, s, sums, &err_par);
    memcpy(u_par, u, TOTAL * sizeof *u);
    par = 0;
    run(u, tmp, s, want, &err);
    if (memcmp(u_par, u, TOTAL * sizeof *u) != 0 || err > 1e-12)
        errors++;
    for (int t = 0; t < STEPS; t++) {
        if (sums[t] != want[t])
            errors++;
        printf("result: step %d checksum %.10e %.10e\n", t + 1,
               creal(want[t]), cimag(want[t]));
    }
    free(u);
    free(tmp);
    free(s);
    free(u_par);
    if (errors)
        fprintf(stderr, "npb_ft: %d errors (round trip %g)\n", errors,
                err_par);
    return errors ? 1 : 0;
}
