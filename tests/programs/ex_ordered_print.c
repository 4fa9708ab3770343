/*
 * ex_ordered_print.c - output the program orders: printf inside an
 * ordered loop, from a single that any thread may run, from every thread
 * one after another (a barrier between turns), then serial code.  The
 * test reads the output through a pipe, where each node's standard output
 * is a buffer of its own (programs corpus).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
#pragma omp parallel for ordered schedule(static, 1)
    for (int i = 0; i < 12; i++) {
        int square = i * i;
#pragma omp ordered
        printf("result: ordered step %d square %d\n", i, square);
    }
    int threads = 0;
#pragma omp parallel
    {
#pragma omp single
        {
            threads = omp_get_num_threads();
            printf("result: single says the team has %d threads\n",
                   threads);
        }
        for (int turn = 0; turn < omp_get_num_threads(); turn++) {
            if (turn == omp_get_thread_num())
                printf("result: turn %d\n", turn);
#pragma omp barrier
        }
    }
    printf("result: serial code after %d threads\n", threads);
    return 0;
}
