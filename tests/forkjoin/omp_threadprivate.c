/*
 * omp_threadprivate.c - threadprivate variables: every thread starts with
 * the initial value, keeps its own value from one region to the next, and
 * (when the variables are not in thread-local storage, built with
 * -fnoopenmp-use-tls and TEST_COPYIN) copyin hands the master's value to
 * every thread, on every node.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>

#include "omp_check.h"

static long counter = 7;
static double scale = 0.5;
#pragma omp threadprivate(counter, scale)

int main(void)
{
    int nth = omp_get_max_threads();
    long initial_ok = 0, kept_ok = 0;
#pragma omp parallel reduction(+ : initial_ok)
    {
        initial_ok += counter == 7 && scale == 0.5;
        counter = 100 + omp_get_thread_num();
        scale = omp_get_thread_num() * 2.0;
    }
    CHECK_EQ_LONG(initial_ok, nth);
    for (int round = 0; round < 3; round++) {
#pragma omp parallel reduction(+ : kept_ok)
        {
            int me = omp_get_thread_num();
            kept_ok += counter == 100 + me + round && scale == me * 2.0;
            counter++;
        }
    }
    CHECK_EQ_LONG(kept_ok, 3L * nth);
    CHECK_EQ_LONG(counter, 103);       /* the master's own copy */
#ifdef TEST_COPYIN
    counter = 42;
    long copied = 0;
#pragma omp parallel copyin(counter) reduction(+ : copied)
    copied += counter == 42;
    CHECK_EQ_LONG(copied, nth);
#endif
    return check_status("omp_threadprivate");
}
