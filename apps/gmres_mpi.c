/*
 * gmres_mpi.c - the MPI equivalent of gmres_omp's tuned form: every rank
 * builds (or reads) the matrix and owns a block of rows (split by
 * nonzeros) of every vector; a dot product is one MPI_Allreduce; before
 * each product A v the blocks of v are gathered with MPI_Allgatherv; the
 * small dense work is repeated on every rank.  Same arithmetic per row as
 * the OpenMP versions.
 *
 * Usage: mpiexec -n P gmres_mpi [-g lap7|lap27|band] [-s SIZE]
 *            [-w HALF_BAND] [-f FILE.mtx] [-m RESTART] [-e TOLERANCE]
 *            [-i MAX_ITERATIONS]
 * Exit status: 0 converged, 1 wrong answer, 2 bad input (from every rank).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "app_args.h"
#include "app_mpi.h"
#include "gmres_problem.h"

struct layout {
    long first, end;      /* this rank's rows */
    int *counts, *offsets;
};

/* Every rank parses and reads the same input and so exits on bad input
 * together; only rank 0's message reaches stderr. */
static void setup(int argc, char **argv, int rank,
                  struct gmres_options *options, struct csr *a)
{
    int saved_stderr = app_mpi_quiet_stderr(rank);
    gmres_parse(argc, argv, false, options);
    gmres_matrix(argv[0], options, malloc, a);
    app_mpi_restore_stderr(saved_stderr);
}

static double dot(const double *p, const double *q, const struct layout *l)
{
    double mine = 0.0, sum;
    for (long i = l->first; i < l->end; i++)
        mine += p[i] * q[i];
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

static void gather(double *vector, const struct layout *l)
{
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, vector, l->counts,
                   l->offsets, MPI_DOUBLE, MPI_COMM_WORLD);
}

/* Returns the iterations done; X holds this rank's block of the answer. */
static long solve(const struct csr *a, const struct gmres_options *o,
                  const double *b, double b_norm, double *x, double *v,
                  struct gmres_cycle *c, const struct layout *l)
{
    long n = a->rows, m = o->restart, iterations = 0;
    double tolerance = o->tolerance * b_norm;
    while (iterations < o->max_iterations) {
        gather(x, l);
        for (long i = l->first; i < l->end; i++)
            v[i] = b[i] - csr_row_dot(a, i, x);
        double beta = sqrt(dot(v, v, l));
        if (beta <= tolerance)
            break;
        for (long i = l->first; i < l->end; i++)
            v[i] /= beta;
        gmres_cycle_start(c, beta);
        long j = 0;
        while (j < m && iterations < o->max_iterations) {
            double *w = v + (j + 1) * n, *vj = v + j * n;
            gather(vj, l);
            for (long i = l->first; i < l->end; i++)
                w[i] = csr_row_dot(a, i, vj);
            for (long k = 0; k <= j; k++) {
                const double *vk = v + k * n;
                double h = dot(w, vk, l);
                c->h[k][j] = h;
                for (long i = l->first; i < l->end; i++)
                    w[i] -= h * vk[i];
            }
            double norm = sqrt(dot(w, w, l));
            c->h[j + 1][j] = norm;
            if (norm != 0.0)
                for (long i = l->first; i < l->end; i++)
                    w[i] /= norm;
            double estimate = gmres_cycle_rotate(c, j);
            j++;
            iterations++;
            if (estimate <= tolerance || norm == 0.0)
                break;
        }
        gmres_cycle_solve(c, j);
        for (long i = l->first; i < l->end; i++) {
            double sum = x[i];
            for (long k = 0; k < j; k++)
                sum += c->y[k] * v[k * n + i];
            x[i] = sum;
        }
    }
    return iterations;
}

int main(int argc, char **argv)
{
    int rank, ranks;
    app_mpi_start(&argc, &argv, &rank, &ranks);
    struct gmres_options options;
    struct csr a;
    setup(argc, argv, rank, &options, &a);
    long n = a.rows, m = options.restart;

    struct layout l = {.counts = malloc((size_t)ranks * sizeof(int)),
                       .offsets = malloc((size_t)ranks * sizeof(int))};
    double *b = malloc((size_t)n * sizeof *b);
    double *x = calloc((size_t)n, sizeof *x);
    double *v = calloc((size_t)(m + 1) * (size_t)n, sizeof *v);
    double *star = malloc((size_t)n * sizeof *star);
    struct gmres_cycle *cycle = malloc(sizeof *cycle);
    if (!l.counts || !l.offsets || !b || !x || !v || !star || !cycle) {
        fprintf(stderr, "%s: no memory for the vectors\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, APP_EXIT_WRONG);
    }
    for (int r = 0; r < ranks; r++) {
        long first = csr_split_by_nonzeros(&a, r, ranks);
        l.offsets[r] = (int)first;
        l.counts[r] = (int)(csr_split_by_nonzeros(&a, r + 1, ranks) - first);
    }
    l.first = l.offsets[rank];
    l.end = l.first + l.counts[rank];
    for (long j = 0; j < n; j++)
        star[j] = spmv_x_entry(j);
    for (long i = l.first; i < l.end; i++)
        b[i] = csr_row_dot(&a, i, star);
    double b_norm = sqrt(dot(b, b, &l));
    gather(x, &l);                 /* untimed: MPICH connects on first use */

    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    long iterations = solve(&a, &options, b, b_norm, x, v, cycle, &l);
    MPI_Barrier(MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - start;

    gather(x, &l);
    double r_sq = 0.0, error = 0.0, sum = 0.0;
    for (long i = l.first; i < l.end; i++) {
        double r = b[i] - csr_row_dot(&a, i, x);
        r_sq += r * r;
    }
    double total_r_sq;
    MPI_Allreduce(&r_sq, &total_r_sq, 1, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    for (long i = 0; i < n; i++) {
        error = fmax(error, fabs(x[i] - star[i]));
        sum += x[i];
    }
    int right = 1;
    if (rank == 0)
        right = gmres_report("mpi", ranks, &options, &a, iterations,
                             seconds, sqrt(total_r_sq) / b_norm, error, sum);
    MPI_Bcast(&right, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(l.counts);
    free(l.offsets);
    free(b);
    free(x);
    free(v);
    free(star);
    free(cycle);
    free(a.row_start);
    free(a.col);
    free(a.val);
    return right ? 0 : APP_EXIT_WRONG;
}
