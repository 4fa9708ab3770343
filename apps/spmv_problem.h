/*
 * spmv_problem.h - the problem every SpMV version solves: y = A x
 * repeated k times for a generated or Matrix Market matrix A and a fixed
 * x whose entries are exact binary fractions; the options, the x vector,
 * the result line and the check of y against a serial product.
 *
 * Application code; main thread (the master, or rank 0) only, except
 * spmv_x_entry, which any thread may call.
 */
#ifndef SPMV_PROBLEM_H
#define SPMV_PROBLEM_H

#include <stdbool.h>

#include "csr.h"

struct spmv_options {
    enum csr_kind kind;
    long size;            /* grid side (Laplacians) or rows (banded) */
    long half_band;
    const char *mtx_path; /* a Matrix Market file instead, or NULL */
    long iterations;
    bool by_nonzeros;     /* OpenMP: static split by nonzeros, not rows */
};

/* Parses "[-g lap7|lap27|band] [-s SIZE] [-w HALF_BAND] [-f FILE.mtx]
 * [-k ITERATIONS]" and, when STRATEGIES, "[-v rows|nonzeros]".  Bad
 * input: one line on stderr, exit 2. */
void spmv_parse(int argc, char **argv, bool strategies,
                struct spmv_options *out);

/* Builds or reads the matrix with ALLOC; a file that cannot be read or
 * is malformed is bad input (one line, exit 2). */
void spmv_matrix(const char *program, const struct spmv_options *options,
                 csr_alloc_fn alloc, struct csr *out);

static inline double spmv_x_entry(long j)
{
    return 1.0 + (double)(j % 7) * 0.125;
}

/* Prints the result line (time, Mflop/s, checksum = sum of y) and checks
 * every y entry against a serial product, bit for bit.  Returns true when
 * right. */
bool spmv_report(const char *version, int workers,
                 const struct spmv_options *options, const struct csr *a,
                 const double *y, double seconds);

#endif
