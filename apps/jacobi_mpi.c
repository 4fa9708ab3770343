/*
 * jacobi_mpi.c - the MPI equivalent of jacobi_omp: the interior rows in
 * contiguous blocks, one per rank, each with a halo row above and below
 * exchanged with MPI_Sendrecv before every sweep; residual and checksum
 * by reduction.  With -c rank 0 gathers the grid and compares it with a
 * serial run.
 *
 * Usage: mpiexec -n P jacobi_mpi [-n SIZE] [-k ITERATIONS] [-c]
 * Exit status: 0 right, 1 wrong answer, 2 bad input (from every rank).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "app_args.h"
#include "app_mpi.h"
#include "jacobi_problem.h"

struct block {
    int rank, ranks;
    long n, row;          /* interior side; doubles per row */
    long first, rows;     /* first global interior row; rows held */
};

static struct block block_of(int rank, int ranks, long n)
{
    long base = n / ranks, extra = n % ranks;
    long rows = base + (rank < extra ? 1 : 0);
    long first = 1 + rank * base + (rank < extra ? rank : extra);
    return (struct block){rank, ranks, n, n + 2, first, rows};
}

/* Local rows 0 and rows+1 are halos (or the grid's edges). */
static void exchange_halos(double *grid, const struct block *b)
{
    int up = b->rank > 0 ? b->rank - 1 : MPI_PROC_NULL;
    int down = b->rank + 1 < b->ranks ? b->rank + 1 : MPI_PROC_NULL;
    long row = b->row;
    MPI_Sendrecv(grid + row, (int)row, MPI_DOUBLE, up, 0,
                 grid + (b->rows + 1) * row, (int)row, MPI_DOUBLE, down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(grid + b->rows * row, (int)row, MPI_DOUBLE, down, 1,
                 grid, (int)row, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

static void initialise(double *grid, const struct block *b)
{
    for (long x = 0; x < (b->rows + 2) * b->row; x++)
        grid[x] = 0.0;
    for (long i = 1; i <= b->rows; i++)
        for (long j = 1; j <= b->n; j++)
            grid[i * b->row + j] = jacobi_initial(b->first + i - 1, j);
    if (b->rank == 0)
        for (long j = 0; j < b->row; j++)
            grid[j] = jacobi_top_edge(j, b->n);
}

static double residual(const double *grid, const struct block *b)
{
    double local = 0.0, total;
    for (long i = 1; i <= b->rows; i++)
        for (long j = 1; j <= b->n; j++)
            local += jacobi_residual_sq(grid, b->row, i, j);
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sqrt(total);
}

static void summarise(const double *grid, const struct block *b,
                      struct jacobi_result *out)
{
    double sum = 0.0, lo = INFINITY, hi = -INFINITY;
    for (long i = 1; i <= b->rows; i++)
        for (long j = 1; j <= b->n; j++) {
            double v = grid[i * b->row + j];
            sum += v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    MPI_Reduce(&sum, &out->checksum, 1, MPI_DOUBLE, MPI_SUM, 0,
               MPI_COMM_WORLD);
    MPI_Reduce(&lo, &out->min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&hi, &out->max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

/* Rank 0 gets the whole grid, edges included; the others get NULL. */
static double *gather(const double *grid, const struct block *b)
{
    int *counts = NULL, *offsets = NULL;
    double *whole = NULL;
    long row = b->row;
    if (b->rank == 0) {
        counts = malloc((size_t)b->ranks * sizeof *counts);
        offsets = malloc((size_t)b->ranks * sizeof *offsets);
        whole = calloc((size_t)(b->n + 2) * (size_t)row, sizeof *whole);
        if (counts == NULL || offsets == NULL || whole == NULL) {
            fprintf(stderr, "jacobi_mpi: no memory to gather the grid\n");
            MPI_Abort(MPI_COMM_WORLD, APP_EXIT_WRONG);
        }
        for (int r = 0; r < b->ranks; r++) {
            struct block other = block_of(r, b->ranks, b->n);
            counts[r] = (int)(other.rows * row);
            offsets[r] = (int)(other.first * row);
        }
        for (long j = 0; j < row; j++)
            whole[j] = jacobi_top_edge(j, b->n);
    }
    MPI_Gatherv(grid + row, (int)(b->rows * row), MPI_DOUBLE, whole, counts,
                offsets, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(counts);
    free(offsets);
    return whole;
}

/* Every rank parses the same arguments and so exits on bad input
 * together; finalising then keeps mpiexec from reporting a crash. */
/* Parses on every rank; only rank 0's usage error reaches stderr. */
static void parse(int argc, char **argv, int rank, int ranks,
                  struct jacobi_options *out)
{
    int saved_stderr = app_mpi_quiet_stderr(rank);
    jacobi_parse(argc, argv, false, out);
    if (out->n < ranks)
        app_usage_error(argv[0], "-n %ld is smaller than the %d ranks",
                        out->n, ranks);
    app_mpi_restore_stderr(saved_stderr);
}

int main(int argc, char **argv)
{
    int rank, ranks;
    app_mpi_start(&argc, &argv, &rank, &ranks);
    struct jacobi_options options;
    parse(argc, argv, rank, ranks, &options);
    struct block b = block_of(rank, ranks, options.n);
    size_t count = (size_t)(b.rows + 2) * (size_t)b.row;
    double *src = malloc(count * sizeof *src);
    double *dst = malloc(count * sizeof *dst);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "%s: cannot allocate the block\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, APP_EXIT_WRONG);
    }
    initialise(src, &b);
    initialise(dst, &b);
    exchange_halos(src, &b);

    struct jacobi_result result = {.initial_residual = residual(src, &b)};
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (long it = 0; it < options.iterations; it++) {
        exchange_halos(src, &b);
        for (long i = 1; i <= b.rows; i++) {
            const double *p = src + i * b.row;
            double *q = dst + i * b.row;
            for (long j = 1; j <= b.n; j++)
                q[j] = 0.25 * (p[j - b.row] + p[j + b.row] + p[j - 1] +
                               p[j + 1]);
        }
        double *swap = src;
        src = dst;
        dst = swap;
    }
    exchange_halos(src, &b);
    MPI_Barrier(MPI_COMM_WORLD);
    result.seconds = MPI_Wtime() - start;
    result.residual = residual(src, &b);
    summarise(src, &b, &result);
    double *whole = options.verify ? gather(src, &b) : NULL;

    int right = 1;
    if (rank == 0)
        right = jacobi_report("mpi", ranks, &options, &result, whole);
    MPI_Bcast(&right, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(whole);
    free(src);
    free(dst);
    return right ? 0 : APP_EXIT_WRONG;
}
