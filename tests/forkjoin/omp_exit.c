/*
 * omp_exit.c - ends with the status on its command line, after a parallel
 * region: "return N" returns it from main, "exit N" calls exit(N) from a
 * function called by main.  The job's exit status must be N.
 *
 * Test program (dsmcc, dsmrun), driven by test_exit.c.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long members;

static void leave(int status)
{
    printf("leaving with %d after a team of %ld\n", status, members);
    exit(status);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int status = atoi(argv[2]);
#pragma omp parallel
#pragma omp critical
    members++;
    if (members != omp_get_max_threads())
        return 1;
    if (!strcmp(argv[1], "exit"))
        leave(status);
    printf("returning %d after a team of %ld\n", status, members);
    return status;
}
