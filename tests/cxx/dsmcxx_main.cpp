/*
 * dsmcxx_main.cpp - a program test_dsmcxx builds from a C++ source and
 * the C source tests/forkjoin/dsmcc_part.c (compiled by dsmcc, or by
 * dsmc++ with -x c), in one command and as objects: it copies the squares
 * the C part made into a std::vector, sums them in a parallel reduction
 * and prints the sum.
 *
 * Test program (dsmc++, dsmrun).  Exit status 0 when the sum is right.
 */
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
#include "dsmcc_part.h"
}

#ifndef COUNT
#error "built without -DCOUNT=..."
#endif

int main()
{
    long *squares = make_squares(COUNT);
    std::vector<long> v(squares, squares + COUNT);
    std::free(squares);
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < COUNT; i++)
        sum += v[i];
    long want = (long)(COUNT - 1) * COUNT * (2 * COUNT - 1) / 6;
    std::printf("sum of squares %ld\n", sum);
    return sum == want ? 0 : 1;
}
