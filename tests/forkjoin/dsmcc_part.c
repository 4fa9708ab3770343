/*
 * dsmcc_part.c - the second source of the program test_dsmcc builds from
 * several files (see dsmcc_main.c): a parallel loop over an array from
 * malloc, in a file compiled on its own.
 *
 * Test program part (dsmcc -c).
 */
#include <stdlib.h>

#include "dsmcc_part.h"

long *make_squares(int n)
{
    long *v = malloc(n * sizeof *v);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        v[i] = (long)i * i;
    return v;
}
