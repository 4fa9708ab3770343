/*
 * jacobi_problem.h - the problem every Jacobi version solves, so that the
 * OpenMP and MPI programs agree: an (n+2)x(n+2) grid, row-major, whose
 * interior starts from a rough pattern in [0, 1) (so every point changes
 * in every sweep, not only those the edge has reached), whose top edge
 * holds sin(pi*x) and whose other edges are zero; k sweeps of the 5-point Laplace update
 *     new = 0.25 * (up + down + left + right)
 * (always summed in that order, so every version computes the same bits
 * at every point).  Also the options, the result line, and the checks.
 *
 * Application code; main thread (the master, or rank 0) only, except
 * jacobi_boundary and jacobi_point, which any thread may call.
 */
#ifndef JACOBI_PROBLEM_H
#define JACOBI_PROBLEM_H

#include <stdbool.h>

struct jacobi_options {
    long n;               /* interior points per side */
    long iterations;      /* sweeps */
    bool one_region;      /* OpenMP: one parallel region for all sweeps */
    bool verify;          /* compare every point with a serial run */
};

struct jacobi_result {
    double seconds;       /* the sweeps only */
    double initial_residual;
    double residual;      /* 2-norm of the discrete Laplacian after k sweeps */
    double checksum;      /* sum of the interior */
    double min, max;      /* of the interior */
};

/* Parses "[-n SIZE] [-k ITERATIONS] [-v sweep|region] [-c]"; the -v flag
 * only when VARIANTS is true.  Bad input: one line on stderr, exit 2. */
void jacobi_parse(int argc, char **argv, bool variants,
                  struct jacobi_options *out);

/* Value of the fixed boundary at column j of the top edge. */
double jacobi_top_edge(long j, long n);

/* Starting value of interior point (i, j): an exact binary fraction in
 * [0, 1) whose discrete Laplacian is nowhere zero for long. */
static inline double jacobi_initial(long i, long j)
{
    return (double)((i * i + 3 * j * j + i * j) % 64) / 64.0;
}

/* Squared residual of interior point (i, j) of a grid with ROW doubles per
 * row: (up + down + left + right - 4u)^2. */
static inline double jacobi_residual_sq(const double *grid, long row,
                                        long i, long j)
{
    const double *p = grid + i * row + j;
    double r = p[-row] + p[row] + p[-1] + p[1] - 4.0 * p[0];
    return r * r;
}

/* Judges the result (interior within the boundary's range by the maximum
 * principle, residual finite and not above the initial one) and, with
 * GRID non-NULL, compares every point with a serial run of the same
 * sweeps.  Prints the result line and, when wrong, why.  Returns true when
 * the answer is right. */
bool jacobi_report(const char *version, int workers,
                   const struct jacobi_options *options,
                   const struct jacobi_result *result, const double *grid);

#endif
