/*
 * cxx_escape.cpp - an exception that leaves a parallel region: thread 1
 * throws and nothing in the region catches it, so clang's code calls
 * std::terminate there (the exception never unwinds into the runtime) and
 * the job ends, as a libomp program aborts.
 *
 * Test program (suite 'cxx', expect-terminate.sh).  Never exits 0.
 */
#include <omp.h>

#include <cstdio>
#include <stdexcept>

int main()
{
#pragma omp parallel
    {
        if (omp_get_thread_num() == 1)
            throw std::runtime_error("escaped from the region");
    }
    std::printf("the region returned\n");
    return 0;
}
