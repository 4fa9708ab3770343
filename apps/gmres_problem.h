/*
 * gmres_problem.h - what every GMRES version shares: the options, the
 * problem (A from the SpMV generators or a .mtx file, b = A x* for the
 * known solution x*_j = spmv_x_entry(j), x0 = 0), the small dense part of
 * restarted GMRES(m) (Givens rotations on the Hessenberg matrix, the
 * triangular solve), and the result line with its checks.
 *
 * Application code.  gmres_parse, gmres_report: main thread (the master,
 * or rank 0).  The rotation and solve helpers work on caller-owned arrays
 * and may run on any thread.
 */
#ifndef GMRES_PROBLEM_H
#define GMRES_PROBLEM_H

#include <stdbool.h>

#include "spmv_problem.h"

#define GMRES_MAX_RESTART 200

struct gmres_options {
    struct spmv_options matrix;   /* the matrix part; iterations unused */
    long restart;                 /* m */
    double tolerance;             /* on ||r|| / ||b|| */
    long max_iterations;
    bool tuned;                   /* OpenMP: the tuned version */
};

/* The Hessenberg matrix and rotations of one restart cycle. */
struct gmres_cycle {
    double h[GMRES_MAX_RESTART + 1][GMRES_MAX_RESTART];  /* h[row][col] */
    double cs[GMRES_MAX_RESTART], sn[GMRES_MAX_RESTART];
    double g[GMRES_MAX_RESTART + 1];
    double y[GMRES_MAX_RESTART];
};

/* Parses "[-g lap7|lap27|band] [-s SIZE] [-w HALF_BAND] [-f FILE.mtx]
 * [-m RESTART] [-e TOLERANCE] [-i MAX_ITERATIONS]" and, when VARIANTS,
 * "[-v base|tuned]".  Bad input: one line on stderr, exit 2. */
void gmres_parse(int argc, char **argv, bool variants,
                 struct gmres_options *out);

/* Builds or reads A (which must be square: bad input otherwise). */
void gmres_matrix(const char *program, const struct gmres_options *options,
                  csr_alloc_fn alloc, struct csr *out);

/* Starts a cycle whose first basis vector had norm BETA. */
void gmres_cycle_start(struct gmres_cycle *c, double beta);

/* Column J of h has been filled (rows 0..J+1): applies the earlier
 * rotations, makes rotation J, and returns the new residual estimate. */
double gmres_cycle_rotate(struct gmres_cycle *c, long j);

/* Solves the first COLUMNS columns' triangular system into c->y. */
void gmres_cycle_solve(struct gmres_cycle *c, long columns);

/* Prints the result line (with ERROR, the largest |x - x*|, which
 * depends on A's conditioning and so is shown, not judged) and checks that
 * the true residual ||b - A x|| / ||b|| (RESIDUAL, computed by the caller)
 * is within 10 x the tolerance.  Returns true when right. */
bool gmres_report(const char *version, int workers,
                  const struct gmres_options *options, const struct csr *a,
                  long iterations, double seconds, double residual,
                  double error, double solution_sum);

#endif
