/*
 * gmres_omp.c - restarted GMRES(m) with modified Gram-Schmidt in OpenMP,
 * in two forms.  "base" (-v base, the default) is written as a
 * shared-memory programmer would: every vector operation its own parallel
 * loop, every dot product a reduction.  "tuned" (-v tuned) follows what
 * helped Cluster OpenMP: one parallel region for the whole solve, each
 * thread owning the same block of rows (split by nonzeros) of every
 * vector, so it computes where its data lives; a dot product is one
 * barrier over per-thread partial sums that every thread adds in the
 * same order, and the small dense work is repeated by every thread
 * instead of synchronised.  Both use the same arithmetic per row.
 *
 * Usage: gmres_omp [-g lap7|lap27|band] [-s SIZE] [-w HALF_BAND]
 *                  [-f FILE.mtx] [-m RESTART] [-e TOLERANCE]
 *                  [-i MAX_ITERATIONS] [-v base|tuned]
 * Exit status: 0 converged, 1 wrong answer, 2 bad input.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_args.h"
#include "app_shared.h"
#include "gmres_problem.h"

#define MAX_THREADS 256
#define PAGE_DOUBLES 512      /* 4 KiB: a thread's partials fill a page */

struct solver {
    const struct csr *a;
    const struct gmres_options *options;
    const double *b;
    double *x;
    double *v;                /* (m + 1) basis vectors of n entries */
    double b_norm;
    long iterations;          /* written by the master (base) or thread 0 */
};

/* Per-thread partial sums of the tuned version, two generations so a
 * thread may write the next while a slower one still reads the last.
 * Each thread's pair sits on a page of its own (data owned where it is
 * computed): on a page-based DSM a page written by several nodes every
 * step costs each writer a fetch, a twin and a diff. */
static double partials[MAX_THREADS][PAGE_DOUBLES]
    __attribute__((aligned(4096)));

static void *shared_alloc(size_t bytes)
{
    return app_shared_alloc(bytes);
}

/* ---- base: one parallel loop per vector operation ---------------------- */

static double dot_base(const double *p, const double *q, long n)
{
    double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (long i = 0; i < n; i++)
        sum += p[i] * q[i];
    return sum;
}

static void solve_base(struct solver *s, struct gmres_cycle *c)
{
    const struct csr *a = s->a;
    long n = a->rows, m = s->options->restart;
    double *v = s->v, *x = s->x;
    const double *b = s->b;
    double tolerance = s->options->tolerance * s->b_norm;
    while (s->iterations < s->options->max_iterations) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            v[i] = b[i] - csr_row_dot(a, i, x);
        double beta = sqrt(dot_base(v, v, n));
        if (beta <= tolerance)
            return;
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            v[i] /= beta;
        gmres_cycle_start(c, beta);
        long j = 0;
        while (j < m && s->iterations < s->options->max_iterations) {
            double *w = v + (j + 1) * n;
            const double *vj = v + j * n;
#pragma omp parallel for schedule(static)
            for (long i = 0; i < n; i++)
                w[i] = csr_row_dot(a, i, vj);
            for (long k = 0; k <= j; k++) {
                const double *vk = v + k * n;
                double h = dot_base(w, vk, n);
                c->h[k][j] = h;
#pragma omp parallel for schedule(static)
                for (long i = 0; i < n; i++)
                    w[i] -= h * vk[i];
            }
            double norm = sqrt(dot_base(w, w, n));
            c->h[j + 1][j] = norm;
            if (norm != 0.0) {
#pragma omp parallel for schedule(static)
                for (long i = 0; i < n; i++)
                    w[i] /= norm;
            }
            double estimate = gmres_cycle_rotate(c, j);
            j++;
            s->iterations++;
            if (estimate <= tolerance || norm == 0.0)
                break;
        }
        gmres_cycle_solve(c, j);
        const double *y = c->y;
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) {
            double sum = x[i];
            for (long k = 0; k < j; k++)
                sum += y[k] * v[k * n + i];
            x[i] = sum;
        }
    }
}

/* ---- tuned: one region, rows owned by threads ------------------------- */

/* Thread t's first row: the split by nonzeros rounded to whole pages of
 * the vectors, so no page of a vector is written by two threads (on a
 * page-based DSM such a page costs its non-home writer a twin and a diff
 * every step, and the other a fetch). */
static long owned_split(const struct csr *a, int t, int nt)
{
    long row = csr_split_by_nonzeros(a, t, nt);
    if (t == nt)
        return row;
    long rounded = (row + PAGE_DOUBLES / 2) / PAGE_DOUBLES * PAGE_DOUBLES;
    return rounded < a->rows ? rounded : a->rows;
}

/* Sum over the team of every thread's MINE, the same bits on every
 * thread; one barrier. */
static double team_sum(double mine, int *generation)
{
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    partials[t][*generation] = mine;
#pragma omp barrier
    double sum = 0.0;
    for (int k = 0; k < nt; k++)
        sum += partials[k][*generation];
    *generation ^= 1;
    return sum;
}

static double dot_rows(const double *p, const double *q, long first,
                       long end)
{
    double sum = 0.0;
    for (long i = first; i < end; i++)
        sum += p[i] * q[i];
    return sum;
}

/* Runs on every thread of the team; C is the thread's own copy. */
static void solve_tuned(struct solver *s, struct gmres_cycle *c)
{
    const struct csr *a = s->a;
    long n = a->rows, m = s->options->restart;
    double *v = s->v, *x = s->x;
    const double *b = s->b;
    double tolerance = s->options->tolerance * s->b_norm;
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    long first = owned_split(a, t, nt);
    long end = owned_split(a, t + 1, nt);
    int generation = 0;
    long iterations = 0;
    while (iterations < s->options->max_iterations) {
#pragma omp barrier
        /* x is complete: everyone's block of the last update is in. */
        for (long i = first; i < end; i++)
            v[i] = b[i] - csr_row_dot(a, i, x);
        double beta = sqrt(team_sum(dot_rows(v, v, first, end),
                                    &generation));
        if (beta <= tolerance)
            break;
        for (long i = first; i < end; i++)
            v[i] /= beta;
        gmres_cycle_start(c, beta);
        long j = 0;
        while (j < m && iterations < s->options->max_iterations) {
            double *w = v + (j + 1) * n;
            const double *vj = v + j * n;
#pragma omp barrier
            /* v_j is complete. */
            for (long i = first; i < end; i++)
                w[i] = csr_row_dot(a, i, vj);
            for (long k = 0; k <= j; k++) {
                const double *vk = v + k * n;
                double h = team_sum(dot_rows(w, vk, first, end),
                                    &generation);
                c->h[k][j] = h;
                for (long i = first; i < end; i++)
                    w[i] -= h * vk[i];
            }
            double norm = sqrt(team_sum(dot_rows(w, w, first, end),
                                        &generation));
            c->h[j + 1][j] = norm;
            if (norm != 0.0)
                for (long i = first; i < end; i++)
                    w[i] /= norm;
            double estimate = gmres_cycle_rotate(c, j);
            j++;
            iterations++;
            if (estimate <= tolerance || norm == 0.0)
                break;
        }
        gmres_cycle_solve(c, j);
        for (long i = first; i < end; i++) {
            double sum = x[i];
            for (long k = 0; k < j; k++)
                sum += c->y[k] * v[k * n + i];
            x[i] = sum;
        }
    }
    if (t == 0)
        s->iterations = iterations;
}

/* ---- driver ------------------------------------------------------------ */

int main(int argc, char **argv)
{
    struct gmres_options options;
    gmres_parse(argc, argv, true, &options);
    if (omp_get_max_threads() > MAX_THREADS)
        app_usage_error(argv[0], "at most %d threads", MAX_THREADS);
    struct csr a;
    gmres_matrix(argv[0], &options, shared_alloc, &a);
    long n = a.rows, m = options.restart;
    double *b = app_shared_alloc((size_t)n * sizeof *b);
    double *x = app_shared_alloc((size_t)n * sizeof *x);
    double *v = app_shared_alloc((size_t)(m + 1) * (size_t)n * sizeof *v);
    double *star = malloc((size_t)n * sizeof *star);
    struct gmres_cycle *cycle = malloc(sizeof *cycle);
    if (b == NULL || x == NULL || v == NULL || star == NULL ||
        cycle == NULL) {
        fprintf(stderr, "%s: no memory for the vectors\n", argv[0]);
        return APP_EXIT_WRONG;
    }
    for (long j = 0; j < n; j++)
        star[j] = spmv_x_entry(j);
    /* Each thread first touches the rows it will own in the tuned form. */
    double b_norm_sq = 0.0;
#pragma omp parallel reduction(+ : b_norm_sq)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        long first = owned_split(&a, t, nt);
        long end = owned_split(&a, t + 1, nt);
        for (long i = first; i < end; i++) {
            b[i] = csr_row_dot(&a, i, star);
            x[i] = 0.0;
            for (long k = 0; k <= m; k++)
                v[k * n + i] = 0.0;
            b_norm_sq += b[i] * b[i];
        }
    }
    struct solver s = {&a, &options, b, x, v, sqrt(b_norm_sq), 0};

    double start = omp_get_wtime();
    if (options.tuned) {
#pragma omp parallel
        {
            struct gmres_cycle *own = malloc(sizeof *own);
            if (own == NULL) {
                fprintf(stderr, "%s: no memory for a thread's Hessenberg "
                        "matrix\n", argv[0]);
                exit(APP_EXIT_WRONG);
            }
            solve_tuned(&s, own);
            free(own);
        }
    } else {
        solve_base(&s, cycle);
    }
    double seconds = omp_get_wtime() - start;

    double r_sq = 0.0, error = 0.0, sum = 0.0;
    for (long i = 0; i < n; i++) {
        double r = b[i] - csr_row_dot(&a, i, x);
        r_sq += r * r;
        error = fmax(error, fabs(x[i] - star[i]));
        sum += x[i];
    }
    bool right = gmres_report(options.tuned ? "omp-tuned" : "omp-base",
                              omp_get_max_threads(), &options, &a,
                              s.iterations, seconds,
                              sqrt(r_sq) / s.b_norm, error, sum);
    free(star);
    free(cycle);
    app_shared_free(b);
    app_shared_free(x);
    app_shared_free(v);
    app_shared_free(a.row_start);
    app_shared_free(a.col);
    app_shared_free(a.val);
    return right ? 0 : APP_EXIT_WRONG;
}
