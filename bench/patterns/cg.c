/*
 * cg.c - conjugate gradients on a sparse matrix in CSR form (the 7-point
 * Laplacian of an N^3 grid, assembled by the master as a general sparse
 * matrix), as an OpenMP programmer writes it: the product, the two dot
 * products and the vector updates are parallel loops (four per
 * iteration, two of them reductions).  A step is one iteration; every
 * 100 iterations the solve starts again from x = 0 (a new right-hand
 * side in a real code), so the iteration never runs out of residual.
 *
 * Check: the same iterations computed serially must give the same x (to
 * 1e-8 relative: the dot products add in another order), and the
 * recursive residual must match the true one, |b - Ax|, to 1e-8 |b|.
 *
 * Usage: cg [-n N (grid N^3)] [-s STEPS] [-T SECONDS] [-w WARMUP]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "patterns.h"

#define RESTART 100

struct csr {
    long rows;
    long *start;     /* rows + 1 */
    long *column;
    double *value;
};

struct cg {
    const struct csr *a;
    double *b, *x, *r, *p, *q;
    double rr;       /* r . r */
};

static bool build_laplacian(struct csr *a, long n)
{
    long rows = n * n * n;
    a->rows = rows;
    a->start = malloc((size_t)(rows + 1) * sizeof(long));
    a->column = malloc((size_t)rows * 7 * sizeof(long));
    a->value = malloc((size_t)rows * 7 * sizeof(double));
    if (a->start == NULL || a->column == NULL || a->value == NULL)
        return false;
    long k = 0;
    for (long z = 0; z < n; z++)
        for (long y = 0; y < n; y++)
            for (long x = 0; x < n; x++) {
                long i = (z * n + y) * n + x;
                a->start[i] = k;
                long neighbours[7] = {
                    z > 0 ? i - n * n : -1, y > 0 ? i - n : -1,
                    x > 0 ? i - 1 : -1, i,
                    x < n - 1 ? i + 1 : -1, y < n - 1 ? i + n : -1,
                    z < n - 1 ? i + n * n : -1};
                for (int j = 0; j < 7; j++)
                    if (neighbours[j] >= 0) {
                        a->column[k] = neighbours[j];
                        a->value[k++] = neighbours[j] == i ? 6.0 : -1.0;
                    }
            }
    a->start[rows] = k;
    return true;
}

static double row_product(const struct csr *a, const double *v, long i)
{
    double sum = 0.0;
    for (long k = a->start[i]; k < a->start[i + 1]; k++)
        sum += a->value[k] * v[a->column[k]];
    return sum;
}

static void restart(struct cg *s)
{
    long rows = s->a->rows;
    double *x = s->x, *r = s->r, *p = s->p;
    const double *b = s->b;
    double rr = 0.0;
#pragma omp parallel for schedule(static) reduction(+:rr)
    for (long i = 0; i < rows; i++) {
        x[i] = 0.0;
        r[i] = p[i] = b[i];
        rr += b[i] * b[i];
    }
    s->rr = rr;
}

static void cg_step(void *state, long step)
{
    struct cg *s = state;
    if (step % RESTART == 0)
        restart(s);
    const struct csr *a = s->a;
    long rows = a->rows;
    double *x = s->x, *r = s->r, *p = s->p, *q = s->q;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < rows; i++)
        q[i] = row_product(a, p, i);
    double pq = 0.0;
#pragma omp parallel for schedule(static) reduction(+:pq)
    for (long i = 0; i < rows; i++)
        pq += p[i] * q[i];
    double alpha = s->rr / pq, rr = 0.0;
#pragma omp parallel for schedule(static) reduction(+:rr)
    for (long i = 0; i < rows; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
        rr += r[i] * r[i];
    }
    double beta = rr / s->rr;
    s->rr = rr;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < rows; i++)
        p[i] = r[i] + beta * p[i];
}

/* The same iterations, serially. */
static void cg_serial(struct cg *s, long steps)
{
    const struct csr *a = s->a;
    long rows = a->rows;
    for (long step = 0; step < steps; step++) {
        if (step % RESTART == 0) {
            s->rr = 0.0;
            for (long i = 0; i < rows; i++) {
                s->x[i] = 0.0;
                s->r[i] = s->p[i] = s->b[i];
                s->rr += s->b[i] * s->b[i];
            }
        }
        double pq = 0.0;
        for (long i = 0; i < rows; i++) {
            s->q[i] = row_product(a, s->p, i);
            pq += s->p[i] * s->q[i];
        }
        double alpha = s->rr / pq, rr = 0.0;
        for (long i = 0; i < rows; i++) {
            s->x[i] += alpha * s->p[i];
            s->r[i] -= alpha * s->q[i];
            rr += s->r[i] * s->r[i];
        }
        double beta = rr / s->rr;
        s->rr = rr;
        for (long i = 0; i < rows; i++)
            s->p[i] = s->r[i] + beta * s->p[i];
    }
}

static void release(struct cg *s)
{
    free(s->b);
    free(s->x);
    free(s->r);
    free(s->p);
    free(s->q);
}

static bool allocate(struct cg *s, const struct csr *a)
{
    size_t bytes = (size_t)a->rows * sizeof(double);
    s->a = a;
    s->b = malloc(bytes);
    s->x = malloc(bytes);
    s->r = malloc(bytes);
    s->p = malloc(bytes);
    s->q = malloc(bytes);
    return s->b && s->x && s->r && s->p && s->q;
}

int main(int argc, char **argv)
{
    patterns_options_t o;
    patterns_parse(argc, argv, "cg", 48, 2, 400, 1000000, &o);
    struct csr a;
    struct cg s, reference;
    if (!build_laplacian(&a, o.size) || !allocate(&s, &a) ||
        !allocate(&reference, &a)) {
        fprintf(stderr, "cg: out of memory\n");
        return PATTERNS_EXIT_WRONG;
    }
    long rows = a.rows;
    double *b = s.b, *q = s.q;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < rows; i++) {
        b[i] = 1.0 + (double)(i % 17) / 17.0;
        q[i] = 0.0;
    }

    double seconds;
    long steps = patterns_run(&o, cg_step, &s, &seconds);

    long total = o.warmup + steps;
    for (long i = 0; i < rows; i++)
        reference.b[i] = 1.0 + (double)(i % 17) / 17.0;
    cg_serial(&reference, total);
    double x_norm = 0.0, b_norm = 0.0, true_rr = 0.0;
    for (long i = 0; i < rows; i++) {
        x_norm = fmax(x_norm, fabs(reference.x[i]));
        b_norm += s.b[i] * s.b[i];
        double t = s.b[i] - row_product(&a, s.x, i);
        true_rr += t * t;
    }
    double error = patterns_max_difference(s.x, reference.x, rows) / x_norm;
    double gap = fabs(sqrt(true_rr) - sqrt(s.rr)) / sqrt(b_norm);
    if (!(gap <= 1e-8))
        fprintf(stderr, "cg: true residual %.6g, recursive %.6g\n",
                sqrt(true_rr), sqrt(s.rr));
    int status = patterns_report(&o, steps, seconds,
                                 error <= 1e-8 && gap <= 1e-8, error);
    release(&s);
    release(&reference);
    free(a.start);
    free(a.column);
    free(a.value);
    return status;
}
