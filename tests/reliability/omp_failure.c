/*
 * omp_failure.c - an ordinary OpenMP program (built with dsmcc) for the
 * failure-injection tests: one parallel region, then a serial phase on the
 * master that never ends, so the other nodes wait for the next region.
 *
 * Layer: tests, suite 'reliability'.  Prints "node R pid P ready" from
 * each node's thread 0 inside the region.
 */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#include "kmp_cluster.h"

static volatile unsigned long sink;

int main(void)
{
#pragma omp parallel
    {
        if (kmp_get_process_thread_num() == 0) {
            printf("node %d pid %ld ready\n", kmp_get_process_num(),
                   (long)getpid());
            fflush(stdout);
        }
    }
    for (;;)   /* the serial phase */
        sink++;
}
