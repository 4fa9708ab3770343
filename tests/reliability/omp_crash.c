/*
 * omp_crash.c - an OpenMP program (built with dsmcc) whose node crashes in
 * a chosen way, for the crash tests (test_crash.c).
 *
 * Layer: tests, suite 'reliability'.  Usage: omp_crash MODE
 *   return-serial   node 0's main, outside any parallel region, overwrites
 *                   its own return address (on the sharable main stack)
 *                   with 0x58 and returns to it
 *   return-region   thread 1 of node 1, inside a parallel region, does the
 *                   same on its team stack (sharable, from node 1's arena)
 *   abort           thread 0 of node 1 calls abort() inside a region
 *   bus             thread 0 of node 1 reads a mapping past the end of its
 *                   file (SIGBUS)
 * Every node prints "node R pid P ready" from a first region; the crash
 * comes after a barrier, so every line is out before it.  The crashing
 * thread says whether its stack is sharable.  Built with frame pointers:
 * the return address is the word above the frame pointer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <omp.h>

#include "kmp_cluster.h"

static volatile unsigned long sink;

/* Returns to address 0x58. */
static __attribute__((noinline)) void smash_return_address(void)
{
    void *volatile *frame = __builtin_frame_address(0);
    printf("node %d thread %d: stack %s sharable\n", kmp_get_process_num(),
           kmp_get_process_thread_num(),
           kmp_is_sharable((void *)frame) ? "is" : "is not");
    fflush(stdout);
    frame[1] = (void *)0x58;
}

static void read_past_file_end(void)
{
    FILE *f = tmpfile();
    if (!f) {
        perror("omp_crash: tmpfile");
        exit(1);
    }
    /* a page of an empty file: reading it is SIGBUS */
    volatile unsigned char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED,
                                     fileno(f), 0);
    if (p == MAP_FAILED) {
        perror("omp_crash: mmap");
        exit(1);
    }
    sink += p[0];
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "return-serial") && strcmp(mode, "return-region") &&
        strcmp(mode, "abort") && strcmp(mode, "bus")) {
        fprintf(stderr, "usage: omp_crash return-serial|return-region|"
                        "abort|bus\n");
        return 2;
    }
#pragma omp parallel
    {
        if (kmp_get_process_thread_num() == 0) {
            printf("node %d pid %ld ready\n", kmp_get_process_num(),
                   (long)getpid());
            fflush(stdout);
        }
    }
    if (!strcmp(mode, "return-serial")) {
        smash_return_address();
        return 0;   /* not reached */
    }
#pragma omp parallel
    {
        int node = kmp_get_process_num(), thread = kmp_get_process_thread_num();
        if (node == 1 && thread == 1 && !strcmp(mode, "return-region"))
            smash_return_address();
        if (node == 1 && thread == 0 && !strcmp(mode, "abort"))
            abort();
        if (node == 1 && thread == 0 && !strcmp(mode, "bus"))
            read_past_file_end();
        /* the others wait here for the crashing node */
#pragma omp barrier
    }
    return 0;
}
