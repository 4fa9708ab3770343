/*
 * fft.c - a spectral diffusion step with 3-D FFTs and transposes, as an
 * OpenMP programmer writes it: the field a[z][y][x] is transformed along
 * x and y in parallel over z planes, transposed into b[x][y][z] in
 * parallel over x, transformed along z; the spectrum is damped
 * (exp(-NU |k|^2)); the inverse goes back the same way.  Seven parallel
 * loops per step, two of them transposes: every thread reads what every
 * other thread wrote (an all-to-all).
 *
 * Check: the field starts as a sum of three cosine waves, so after S
 * steps it must be the same waves, each damped by its factor to the power
 * S (a known answer, to 1e-9).
 *
 * Usage: fft [-n N (grid N^3, a power of two)] [-s STEPS] [-T SECONDS]
 *            [-w WARMUP]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "patterns.h"

#define MAX_N 256
#define NU 1e-4

/* exp(-2 pi i k / N) for k < N/2, as (re, im) pairs; written by the
 * master before the first region, read by every thread. */
static double twiddle[MAX_N];

struct fft {
    long n;
    double *a;   /* complex a[z][y][x], (re, im) interleaved */
    double *b;   /* complex b[x][y][z] */
};

/* In-place radix-2 transform of the N complex values at LINE (contiguous);
 * SIGN -1 forward, +1 inverse (unscaled). */
static void fft_line(double *line, long n, int sign)
{
    for (long i = 1, j = 0; i < n; i++) {
        long bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            double re = line[2 * i], im = line[2 * i + 1];
            line[2 * i] = line[2 * j];
            line[2 * i + 1] = line[2 * j + 1];
            line[2 * j] = re;
            line[2 * j + 1] = im;
        }
    }
    for (long len = 2; len <= n; len <<= 1) {
        long step = n / len;
        for (long start = 0; start < n; start += len) {
            for (long k = 0; k < len / 2; k++) {
                double wr = twiddle[2 * k * step];
                double wi = sign * twiddle[2 * k * step + 1];
                double *p = line + 2 * (start + k);
                double *q = line + 2 * (start + k + len / 2);
                double tr = q[0] * wr - q[1] * wi;
                double ti = q[0] * wi + q[1] * wr;
                q[0] = p[0] - tr;
                q[1] = p[1] - ti;
                p[0] += tr;
                p[1] += ti;
            }
        }
    }
}

/* Transforms the N values STRIDE complex values apart, through a copy. */
static void fft_strided(double *data, long stride, long n, int sign)
{
    double line[2 * MAX_N];
    for (long i = 0; i < n; i++) {
        line[2 * i] = data[2 * i * stride];
        line[2 * i + 1] = data[2 * i * stride + 1];
    }
    fft_line(line, n, sign);
    for (long i = 0; i < n; i++) {
        data[2 * i * stride] = line[2 * i];
        data[2 * i * stride + 1] = line[2 * i + 1];
    }
}

static void forward(struct fft *f)
{
    long n = f->n;
    double *a = f->a, *b = f->b;
#pragma omp parallel for schedule(static)
    for (long z = 0; z < n; z++) {
        double *plane = a + 2 * z * n * n;
        for (long y = 0; y < n; y++)
            fft_line(plane + 2 * y * n, n, -1);
        for (long x = 0; x < n; x++)
            fft_strided(plane + 2 * x, n, n, -1);
    }
#pragma omp parallel for schedule(static)
    for (long x = 0; x < n; x++)
        for (long y = 0; y < n; y++)
            for (long z = 0; z < n; z++) {
                b[2 * ((x * n + y) * n + z)] = a[2 * ((z * n + y) * n + x)];
                b[2 * ((x * n + y) * n + z) + 1] =
                    a[2 * ((z * n + y) * n + x) + 1];
            }
#pragma omp parallel for schedule(static)
    for (long x = 0; x < n; x++)
        for (long y = 0; y < n; y++)
            fft_line(b + 2 * (x * n + y) * n, n, -1);
}

static double wave_number(long k, long n)
{
    return (double)(k <= n / 2 ? k : k - n);
}

static void damp(struct fft *f)
{
    long n = f->n;
    double *b = f->b;
#pragma omp parallel for schedule(static)
    for (long x = 0; x < n; x++)
        for (long y = 0; y < n; y++)
            for (long z = 0; z < n; z++) {
                double kx = wave_number(x, n), ky = wave_number(y, n);
                double kz = wave_number(z, n);
                double factor = exp(-NU * (kx * kx + ky * ky + kz * kz));
                b[2 * ((x * n + y) * n + z)] *= factor;
                b[2 * ((x * n + y) * n + z) + 1] *= factor;
            }
}

static void inverse(struct fft *f)
{
    long n = f->n;
    double *a = f->a, *b = f->b;
    double scale = 1.0 / ((double)n * (double)n * (double)n);
#pragma omp parallel for schedule(static)
    for (long x = 0; x < n; x++)
        for (long y = 0; y < n; y++)
            fft_line(b + 2 * (x * n + y) * n, n, +1);
#pragma omp parallel for schedule(static)
    for (long z = 0; z < n; z++)
        for (long y = 0; y < n; y++)
            for (long x = 0; x < n; x++) {
                a[2 * ((z * n + y) * n + x)] = b[2 * ((x * n + y) * n + z)];
                a[2 * ((z * n + y) * n + x) + 1] =
                    b[2 * ((x * n + y) * n + z) + 1];
            }
#pragma omp parallel for schedule(static)
    for (long z = 0; z < n; z++) {
        double *plane = a + 2 * z * n * n;
        for (long x = 0; x < n; x++)
            fft_strided(plane + 2 * x, n, n, +1);
        for (long y = 0; y < n; y++) {
            fft_line(plane + 2 * y * n, n, +1);
            for (long x = 0; x < n; x++) {
                plane[2 * (y * n + x)] *= scale;
                plane[2 * (y * n + x) + 1] *= scale;
            }
        }
    }
}

static void fft_step(void *state, long step)
{
    (void)step;
    forward(state);
    damp(state);
    inverse(state);
}

/* The waves of the field: wave numbers, amplitude and phase. */
static const struct { long kx, ky, kz; double amplitude, phase; } waves[] = {
    {1, 0, 0, 1.0, 0.0}, {2, 3, 1, 0.5, 0.7}, {0, 5, 7, 0.25, 1.9},
};

/* The field after STEPS damped steps at grid point (z, y, x). */
static double field(long n, long steps, long z, long y, long x)
{
    double value = 0.0;
    for (size_t w = 0; w < sizeof waves / sizeof waves[0]; w++) {
        double kx = (double)waves[w].kx, ky = (double)waves[w].ky;
        double kz = (double)waves[w].kz;
        double decay = exp(-NU * (kx * kx + ky * ky + kz * kz) *
                           (double)steps);
        value += waves[w].amplitude * decay *
                 cos(2.0 * M_PI * (kx * (double)x + ky * (double)y +
                                   kz * (double)z) / (double)n +
                     waves[w].phase);
    }
    return value;
}

int main(int argc, char **argv)
{
    patterns_options_t o;
    patterns_parse(argc, argv, "fft", 32, 16, MAX_N, 1000000, &o);
    long n = o.size, points = n * n * n;
    if (n & (n - 1)) {
        fprintf(stderr, "fft: size -n must be a power of two: '%ld'\n", n);
        return PATTERNS_EXIT_USAGE;
    }
    for (long k = 0; k < n / 2; k++) {
        twiddle[2 * k] = cos(2.0 * M_PI * (double)k / (double)n);
        twiddle[2 * k + 1] = -sin(2.0 * M_PI * (double)k / (double)n);
    }
    struct fft f = {.n = n,
                    .a = malloc((size_t)points * 2 * sizeof(double)),
                    .b = malloc((size_t)points * 2 * sizeof(double))};
    if (f.a == NULL || f.b == NULL) {
        fprintf(stderr, "fft: out of memory\n");
        return PATTERNS_EXIT_WRONG;
    }
#pragma omp parallel for schedule(static)
    for (long z = 0; z < n; z++)
        for (long y = 0; y < n; y++)
            for (long x = 0; x < n; x++) {
                f.a[2 * ((z * n + y) * n + x)] = field(n, 0, z, y, x);
                f.a[2 * ((z * n + y) * n + x) + 1] = 0.0;
            }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < 2 * points; i++)
        f.b[i] = 0.0;

    double seconds;
    long steps = patterns_run(&o, fft_step, &f, &seconds);

    double error = 0.0;
    long total = o.warmup + steps;
    for (long z = 0; z < n; z++)
        for (long y = 0; y < n; y++)
            for (long x = 0; x < n; x++) {
                double re = f.a[2 * ((z * n + y) * n + x)];
                double im = f.a[2 * ((z * n + y) * n + x) + 1];
                double d = fabs(re - field(n, total, z, y, x)) + fabs(im);
                if (!(d <= error))
                    error = isnan(d) ? INFINITY : d;
            }
    int status = patterns_report(&o, steps, seconds, error <= 1e-9, error);
    free(f.a);
    free(f.b);
    return status;
}
