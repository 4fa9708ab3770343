/*
 * wavefront.c - symmetric successive over-relaxation (SSOR) on a 2-D grid
 * with a pipelined wavefront, as in NPB LU's OpenMP version: the columns
 * are split into one block per thread; in the forward sweep thread t may
 * relax row i once thread t - 1 has finished row i, in the backward sweep
 * once thread t + 1 has.  Threads hand rows to each other with progress
 * flags and flushes only (data; flush; flag = v; flush against
 * while (flag < v) flush), one hand-off per row and thread.  A step is one
 * parallel region: a forward and a backward sweep.
 *
 * Check: the pipelined sweeps respect every dependence of the serial,
 * row-by-row sweeps, so a serial run must give the same grid (to 1e-12;
 * bit for bit in practice).
 *
 * Usage: wavefront [-n N (grid N^2)] [-s STEPS] [-T SECONDS] [-w WARMUP]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "patterns.h"

#define MAX_THREADS 256
#define OMEGA 1.5

/* Rows each thread has relaxed since the start, over every sweep; padded
 * to a cache line each, as NPB pads its flags. */
static long progress[MAX_THREADS][8];

struct wavefront {
    long n;          /* interior points per side */
    double *u;       /* (n + 2)^2, row-major, zero boundary */
    double *f;       /* right-hand side times h^2 */
};

static void relax(double *u, const double *f, long row, long i, long j)
{
    double *p = u + i * row + j;
    double gs = 0.25 * (p[-row] + p[row] + p[-1] + p[1] + f[i * row + j]);
    *p += OMEGA * (gs - *p);
}

static void forward_row(struct wavefront *w, long i, long j0, long j1)
{
    for (long j = j0; j < j1; j++)
        relax(w->u, w->f, w->n + 2, i, j);
}

static void backward_row(struct wavefront *w, long i, long j0, long j1)
{
    for (long j = j1 - 1; j >= j0; j--)
        relax(w->u, w->f, w->n + 2, i, j);
}

static void wait_for(long thread, long rows)
{
    long seen;
    do {
#pragma omp flush
        seen = progress[thread][0];
    } while (seen < rows);
#pragma omp flush
}

static void post(long thread, long rows)
{
#pragma omp flush
    progress[thread][0] = rows;
#pragma omp flush
}

static void wavefront_step(void *state, long step)
{
    struct wavefront *w = state;
    long n = w->n;
#pragma omp parallel
    {
        long t = omp_get_thread_num(), threads = omp_get_num_threads();
        long j0 = 1 + t * n / threads, j1 = 1 + (t + 1) * n / threads;
        long done = 2 * step * n;   /* rows of every earlier sweep */
        for (long i = 1; i <= n; i++) {
            if (t > 0)
                wait_for(t - 1, done + i);
            forward_row(w, i, j0, j1);
            post(t, done + i);
        }
#pragma omp barrier
        done += n;
        for (long i = n; i >= 1; i--) {
            if (t < threads - 1)
                wait_for(t + 1, done + n - i + 1);
            backward_row(w, i, j0, j1);
            post(t, done + n - i + 1);
        }
    }
}

int main(int argc, char **argv)
{
    patterns_options_t o;
    patterns_parse(argc, argv, "wavefront", 256, 2, 20000, 1000000, &o);
    long n = o.size, row = n + 2, points = row * row;
    struct wavefront w = {.n = n,
                          .u = malloc((size_t)points * sizeof(double)),
                          .f = malloc((size_t)points * sizeof(double))};
    double *reference = malloc((size_t)points * sizeof(double));
    if (w.u == NULL || w.f == NULL || reference == NULL) {
        fprintf(stderr, "wavefront: out of memory\n");
        return PATTERNS_EXIT_WRONG;
    }
    double h = 1.0 / (double)(n + 1);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < row; i++)
        for (long j = 0; j < row; j++) {
            bool inside = i > 0 && j > 0 && i <= n && j <= n;
            w.u[i * row + j] = 0.0;
            w.f[i * row + j] = inside ? h * h * (1.0 + sin(7.0 * i * h) *
                                                 cos(5.0 * j * h)) : 0.0;
        }

    double seconds;
    long steps = patterns_run(&o, wavefront_step, &w, &seconds);

    struct wavefront serial = {.n = n, .u = reference, .f = w.f};
    for (long i = 0; i < points; i++)
        reference[i] = 0.0;
    for (long s = 0; s < o.warmup + steps; s++) {
        for (long i = 1; i <= n; i++)
            forward_row(&serial, i, 1, n + 1);
        for (long i = n; i >= 1; i--)
            backward_row(&serial, i, 1, n + 1);
    }
    double error = patterns_max_difference(w.u, reference, points);
    int status = patterns_report(&o, steps, seconds, error <= 1e-12, error);
    free(reference);
    free(w.u);
    free(w.f);
    return status;
}
