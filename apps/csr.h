/*
 * csr.h - sparse matrices in compressed sparse row form for the SpMV (and
 * later GMRES) kernels: the generated test matrices (3D 7-point and
 * 27-point Laplacians on an s^3 grid, a random banded matrix whose entries
 * depend only on their position and so are the same in every version) and
 * Matrix Market (.mtx) input.  The arrays come from a caller-given
 * allocator, so an OpenMP build can put them in memory all nodes share.
 *
 * Application code; main thread (the master, or each MPI rank) only.
 */
#ifndef CSR_H
#define CSR_H

#include <stddef.h>

struct csr {
    long rows, cols, nonzeros;
    long *row_start;      /* rows + 1 entries */
    long *col;            /* nonzeros entries */
    double *val;
};

enum csr_kind { CSR_LAPLACE7, CSR_LAPLACE27, CSR_BANDED };

typedef void *(*csr_alloc_fn)(size_t bytes);

/* Builds a generated matrix: for the Laplacians SIZE is the grid side
 * (SIZE^3 rows); for the banded matrix SIZE is the number of rows and
 * HALF_BAND the largest |i - j| of an entry.  Returns 0, or -1 when out of
 * memory. */
int csr_generate(enum csr_kind kind, long size, long half_band,
                 csr_alloc_fn alloc, struct csr *out);

/* Reads a Matrix Market coordinate file (real, integer or pattern;
 * general or symmetric).  Returns 0, or -1 with a one-line reason in
 * WHY (WHY_SIZE bytes) when the file is unreadable or malformed or
 * memory runs out. */
int csr_read_mtx(const char *path, csr_alloc_fn alloc, struct csr *out,
                 char *why, size_t why_size);

/* Row i of y = A x, summed in storage order (so every version gets the
 * same bits). */
static inline double csr_row_dot(const struct csr *a, long i,
                                 const double *x)
{
    double sum = 0.0;
    for (long e = a->row_start[i]; e < a->row_start[i + 1]; e++)
        sum += a->val[e] * x[a->col[e]];
    return sum;
}

/* First row of part PART of PARTS when the rows are cut so that each part
 * holds about the same number of nonzeros (PART == PARTS gives rows). */
long csr_split_by_nonzeros(const struct csr *a, long part, long parts);

#endif
