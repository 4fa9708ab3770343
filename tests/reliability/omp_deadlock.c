/*
 * omp_deadlock.c - ordinary OpenMP programs (built with dsmcc) that never
 * end, for the hang report (dsmrun --timeout, SIGQUIT):
 *
 *   locks  two threads take two locks in opposite orders: each holds one
 *          and waits for the other's (run it with 2 threads in all, e.g.
 *          2 nodes x 1 thread);
 *   flag   the last thread of the team waits for a flag nobody sets while
 *          the others wait for it in a barrier (e.g. 2 nodes x 2 threads);
 *   none   the control: one region, then the program ends (exit 0).
 *
 * Layer: tests, suite 'reliability' (and 'hosts').  Prints "node R pid P
 * ready" from each node's thread 0 first, then deadlocks (but none).
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmp_cluster.h"

static void ready(void)
{
    if (kmp_get_process_thread_num() == 0) {
        printf("node %d pid %ld ready\n", kmp_get_process_num(),
               (long)getpid());
        fflush(stdout);
    }
}

static void wait_for(int *flag)
{
    int seen = 0;
    while (!seen) {
#pragma omp atomic read
        seen = *flag;
    }
}

static void locks(void)
{
    omp_lock_t first, second;
    int first_taken = 0, second_taken = 0;
    omp_init_lock(&first);
    omp_init_lock(&second);
#pragma omp parallel num_threads(2) shared(first, second, first_taken, \
                                           second_taken)
    {
        ready();
        if (omp_get_thread_num() == 0) {
            omp_set_lock(&first);
#pragma omp atomic write
            first_taken = 1;
            wait_for(&second_taken);
            omp_set_lock(&second);
        } else {
            omp_set_lock(&second);
#pragma omp atomic write
            second_taken = 1;
            wait_for(&first_taken);
            omp_set_lock(&first);
        }
    }
}

static void flag(void)
{
    int never = 0;
#pragma omp parallel shared(never)
    {
        ready();
        if (omp_get_thread_num() == omp_get_num_threads() - 1)
            wait_for(&never);
#pragma omp barrier
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "locks"))
        locks();
    else if (argc == 2 && !strcmp(argv[1], "flag"))
        flag();
    else if (argc == 2 && !strcmp(argv[1], "none")) {
#pragma omp parallel
        ready();
    } else {
        fprintf(stderr, "usage: omp_deadlock locks|flag|none\n");
        return 2;
    }
    return 0;   /* only none gets here */
}
