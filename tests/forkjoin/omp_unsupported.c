/*
 * omp_unsupported.c - constructs dsmomp does not support end the job with
 * "dsmomp: <construct> is not supported (in FUNCTION[, FILE:LINE])"
 * instead of failing to link or running wrongly.  argv[1] picks the
 * construct: doacross, teams, cancel (ends the job only with
 * OMP_CANCELLATION=true; without it the specification makes cancel do
 * nothing, and the program must finish with every iteration run).  Each
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

__attribute__((noinline)) void run_doacross(void)
{
#pragma omp parallel for ordered(1) /* here: doacross */
    for (int i = 1; i < N; i++) {
#pragma omp ordered depend(sink : i - 1)
        a[i] = a[i - 1] + 1;
#pragma omp ordered depend(source)
    }
}

__attribute__((noinline)) void run_teams(void)
{
#pragma omp teams num_teams(2) /* here: teams */
    a[omp_get_team_num()] = 1;
}

__attribute__((noinline)) long run_cancel(void)
{
    long ran = 0;
#pragma omp parallel for reduction(+ : ran)
    for (int i = 0; i < N; i++) {
        ran++;
#pragma omp cancel for if (i == 3) /* here: cancel */
    }
    return ran;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "doacross") == 0) {
        run_doacross();
    } else if (strcmp(what, "teams") == 0) {
        run_teams();
    } else if (strcmp(what, "cancel") == 0) {
        long ran = run_cancel();
        CHECK_EQ_LONG(ran, N);   /* cancel-var false: nothing cancelled */
        RESULT("cancel ignored: %ld iterations", ran);
        return check_status("omp_unsupported");
    } else {
        fprintf(stderr, "usage: omp_unsupported doacross|teams|cancel\n");
        return 3;
    }
    fprintf(stderr, "omp_unsupported: %s ran to the end\n", what);
    return 0;
}
