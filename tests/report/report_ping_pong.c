/*
 * report_ping_pong.c - data that travels from node to node, for the
 * sharing report's tests: in each phase one thread, of another node than
 * in the phase before, updates `token' (alone in its page), so its page
 * (and with home migration on, its home) follows the writer from node to
 * node.  The report must name `token' as ping-pong.  Checks its result.
 */
#include <kmp_cluster.h>
#include <omp.h>
#include <stdio.h>

#define PHASES 120

static double token __attribute__((aligned(4096)));

int main(void)
{
    int n = 0;
#pragma omp parallel
    {
#pragma omp single
        n = omp_get_num_threads();
        int t = omp_get_thread_num();
        for (int phase = 0; phase < PHASES; phase++) {
            /* threads are numbered in blocks by node: step a node at a
             * time (a thread of the next block) */
            int per_node = n / (kmp_get_num_processes() > 0
                                    ? kmp_get_num_processes() : 1);
            if (per_node < 1)
                per_node = 1;
            if (t == (phase * per_node) % n)
                token = token * 0.5 + phase;
#pragma omp barrier
        }
    }
    double want = 0;
    for (int phase = 0; phase < PHASES; phase++)
        want = want * 0.5 + phase;
    printf("result: token %.6f\n", token);
    return token == want ? 0 : 1;
}
