/*
 * cxx_own_new.cpp - a program that replaces operator new and delete
 * itself (counting its allocations, on top of malloc and free): dsmc++'s
 * replacements give way to it, and since it calls malloc, whose calls
 * dsmc++ wraps, its blocks are still sharable and its containers shared
 * by every node.
 *
 * Test program (suite 'cxx').  Prints "own new: ok" and exits 0 when
 * its operator new was used and its vectors are right everywhere.
 */
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "kmp_cluster.h"

static std::atomic<long> allocations{0};

void *operator new(std::size_t n)
{
    allocations++;
    if (void *p = std::malloc(n ? n : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }

int main()
{
    int nt = omp_get_max_threads();
    std::vector<std::vector<int>> rows(nt);
    long problems = 0;
#pragma omp parallel reduction(+ : problems)
    {
        int t = omp_get_thread_num();
        for (int i = 0; i < 100; i++)
            rows[t].push_back(t * 100 + i);
        if (!kmp_is_sharable(rows[t].data()))
            problems++;
    }
    for (int t = 0; t < nt; t++)
        for (int i = 0; i < 100; i++)
            if (rows[t][i] != t * 100 + i)
                problems++;
    if (allocations < nt)
        problems++;
    std::printf("own new: %s (%ld allocations counted, %ld problems)\n",
                problems ? "WRONG" : "ok", allocations.load(), problems);
    return problems ? 1 : 0;
}
