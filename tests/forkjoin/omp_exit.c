/*
 * omp_exit.c - ends with the status on its command line, after a parallel
 * region: "return N" returns it from main, "exit N" calls exit(N) from a
 * function called by main.  The job's exit status must be N, and node 0's
 * destructor, which takes a while and prints after the runtime's exit
 * handler has ended the other nodes, must have printed.
 *
 * Test program (dsmcc, dsmrun), driven by test_exit.c.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long members;

static void leave(int status)
{
    printf("leaving with %d after a team of %ld\n", status, members);
    exit(status);
}

/* A destructor function runs after every exit handler, the runtime's
 * included (so does a Fortran runtime's flush of its buffered units): the
 * job must wait for node 0's. */
__attribute__((destructor)) static void late_words(void)
{
    const char *rank = getenv("DSM_RANK");
    if (!rank || strcmp(rank, "0") != 0)
        return;
    struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
    printf("node 0's destructor ran\n");
    fflush(stdout);
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
