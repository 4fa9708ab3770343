/*
 * dsmcc_main.c - a program test_dsmcc builds from two sources, in one
 * dsmcc command and as separately compiled objects (-c, -o), with the
 * usual flags (-O, -D, -I, -W).  It sums, in a parallel reduction, the
 * squares dsmcc_part.c computed, and prints the sum.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when the sum is right.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dsmcc_part.h"

#ifndef COUNT
#error "built without -DCOUNT=..."
#endif

int main(void)
{
    long *v = make_squares(COUNT), sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < COUNT; i++)
        sum += v[i];
    free(v);
    long want = (long)(COUNT - 1) * COUNT * (2 * COUNT - 1) / 6;
    printf("sum of squares %ld\n", sum);
    return sum == want ? 0 : 1;
}
