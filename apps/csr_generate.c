/*
 * csr_generate.c - the generated test matrices in CSR form: 3D 7-point
 * and 27-point Laplacians (diagonal 6 or 26, neighbours -1, Dirichlet
 * edges) and a random banded matrix made diagonally dominant, whose
 * entries come from a hash of their position, not from a random stream,
 * so every process builds the same matrix.  Also the nonzero-balanced
 * row split.
 *
 * Application code; main thread (the master, or each MPI rank) only.
 */
#include <stdint.h>

#include "csr.h"

struct generator {
    enum csr_kind kind;
    long size, half_band;
};

static uint64_t mix(uint64_t v)
{
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdULL;
    v ^= v >> 33;
    v *= 0xc4ceb9fe1a85ec53ULL;
    v ^= v >> 33;
    return v;
}

/* Writes row I's entries (columns ascending) and returns how many; with
 * COL NULL only counts. */
static long laplace_row(const struct generator *g, long i, long *col,
                        double *val)
{
    long s = g->size, x = i % s, y = (i / s) % s, z = i / (s * s);
    long count = 0;
    for (long dz = -1; dz <= 1; dz++)
        for (long dy = -1; dy <= 1; dy++)
            for (long dx = -1; dx <= 1; dx++) {
                long offsets = (dx != 0) + (dy != 0) + (dz != 0);
                if (g->kind == CSR_LAPLACE7 && offsets > 1)
                    continue;
                long nx = x + dx, ny = y + dy, nz = z + dz;
                if (nx < 0 || ny < 0 || nz < 0 || nx >= s || ny >= s ||
                    nz >= s)
                    continue;
                if (col != NULL) {
                    col[count] = (nz * s + ny) * s + nx;
                    val[count] = offsets == 0
                                     ? (g->kind == CSR_LAPLACE7 ? 6.0 : 26.0)
                                     : -1.0;
                }
                count++;
            }
    return count;
}

/* About half the band is present; off-diagonal values in (-1, 1), the
 * diagonal 1 more than the row's absolute sum. */
static long banded_row(const struct generator *g, long i, long *col,
                       double *val)
{
    long count = 0, diagonal = -1;
    double off_sum = 0.0;
    long first = i - g->half_band < 0 ? 0 : i - g->half_band;
    long last = i + g->half_band >= g->size ? g->size - 1
                                            : i + g->half_band;
    for (long j = first; j <= last; j++) {
        uint64_t h = mix((uint64_t)i * 0x9e3779b97f4a7c15ULL ^ (uint64_t)j);
        if (j != i && (h & 1) == 0)
            continue;
        if (col != NULL) {
            col[count] = j;
            if (j == i) {
                diagonal = count;
            } else {
                val[count] = (double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0;
                off_sum += val[count] < 0 ? -val[count] : val[count];
            }
        }
        count++;
    }
    if (col != NULL)
        val[diagonal] = 1.0 + off_sum;
    return count;
}

static long row_of(const struct generator *g, long i, long *col,
                   double *val)
{
    return g->kind == CSR_BANDED ? banded_row(g, i, col, val)
                                 : laplace_row(g, i, col, val);
}

int csr_generate(enum csr_kind kind, long size, long half_band,
                 csr_alloc_fn alloc, struct csr *out)
{
    struct generator g = {kind, size, half_band};
    long rows = kind == CSR_BANDED ? size : size * size * size;
    long *row_start = alloc((size_t)(rows + 1) * sizeof *row_start);
    if (row_start == NULL)
        return -1;
    row_start[0] = 0;
    for (long i = 0; i < rows; i++)
        row_start[i + 1] = row_start[i] + row_of(&g, i, NULL, NULL);
    long nonzeros = row_start[rows];
    long *col = alloc((size_t)nonzeros * sizeof *col);
    double *val = alloc((size_t)nonzeros * sizeof *val);
    if (col == NULL || val == NULL)
        return -1;
    for (long i = 0; i < rows; i++)
        row_of(&g, i, col + row_start[i], val + row_start[i]);
    *out = (struct csr){rows, rows, nonzeros, row_start, col, val};
    return 0;
}

long csr_split_by_nonzeros(const struct csr *a, long part, long parts)
{
    if (part >= parts)
        return a->rows;
    long target = (long)((double)a->nonzeros * (double)part / (double)parts);
    long lo = 0, hi = a->rows;    /* first row whose start >= target */
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (a->row_start[mid] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
