/*
 * omp_unsupported.c - constructs dsmomp does not support end the job with
 * "dsmomp: <construct> is not supported (in FUNCTION[, FILE:LINE])"
 * instead of failing to link or running wrongly.  argv[1] picks the
 * construct: teams inside a parallel region (the specification allows
 * teams only outside parallel regions; ex_teams.c runs teams where it may
 * be); and cancel, which is supported (omp_cancel.c) and
 * here checks that without OMP_CANCELLATION=true, as the specification
 * says, cancel does nothing and every iteration runs.  Each
 * construct is in a function of its own, which the message must name;
 * built with -g, it must also give the file and the line of the construct
 * (the line that carries the construct's "here:" comment).
 *
 * Test program (dsmcc, dsmrun), driven by expect-unsupported.sh.  Exit
 * status 0 only when the construct ran to the end (cancel without
 * OMP_CANCELLATION); 3 for bad usage.
 */
#include <omp.h>
#include <string.h>

#include "omp_check.h"

#define N 100

static long a[N];

/* called from a parallel region: a teams region is not allowed there */
__attribute__((noinline)) void run_teams(void)
{
#pragma omp teams num_teams(2) /* here: teams */
    a[omp_get_team_num()] = 1;
    a[N - 1]++;   /* not a tail call: the message names this function */
}

__attribute__((noinline)) long run_cancel(void)
{
    long ran = 0;
#pragma omp parallel for reduction(+ : ran)
    for (int i = 0; i < N; i++) {
        ran++;
#pragma omp cancel for if (i == 3)
    }
    return ran;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "teams") == 0) {
#pragma omp parallel
        if (omp_get_thread_num() == 0)
            run_teams();
    } else if (strcmp(what, "cancel") == 0) {
        long ran = run_cancel();
        CHECK_EQ_LONG(ran, N);   /* cancel-var false: nothing cancelled */
        RESULT("cancel ignored: %ld iterations", ran);
        return check_status("omp_unsupported");
    } else {
        fprintf(stderr, "usage: omp_unsupported teams|cancel\n");
        return 3;
    }
    fprintf(stderr, "omp_unsupported: %s ran to the end\n", what);
    return 0;
}
