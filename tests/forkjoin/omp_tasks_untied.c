/*
 * omp_tasks_untied.c - untied tasks (clang 14 resumes them part by part:
 * at each scheduling point the task hands itself back and returns):
 * taskyield and taskwait inside, a local variable living across
 * scheduling points, children made between parts, nested untied tasks, an
 * untied if(0) task, untied tasks made by every thread, and a recursive
 * computation of untied tasks.  Results against serial values.
 *
 * Test program (dsmcc, dsmrun; also built with libomp for the
 * cross-check).  Exit status 0 when everything matched.
 */
#include <omp.h>

#include "omp_check.h"

#define N 64
#define MAX_THREADS 64

static long part[N][4];
#ifndef OMP_CHECK_LIBOMP
static long nested[MAX_THREADS];
static long undeferred[3];
#endif

static long untied_fib(int n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task untied shared(a)
    a = untied_fib(n - 1);
#pragma omp task untied shared(b)
    b = untied_fib(n - 2);
#pragma omp taskwait
    return a + b;
}

int main(void)
{
    int nth = omp_get_max_threads();
    long fib = 0;
#pragma omp parallel
    {
#pragma omp single
        {
            for (int i = 0; i < N; i++) {
#pragma omp task untied firstprivate(i)
                {
                    long local = 3 * i;       /* lives across the parts */
                    part[i][0] = i;
#pragma omp taskyield
                    part[i][1] = part[i][0] + 1 + local;
#pragma omp task firstprivate(i)
                    part[i][2] = 2L * i;
#pragma omp taskwait
                    part[i][3] = part[i][2] + part[i][1] + local;
                }
            }
        }
#ifndef OMP_CHECK_LIBOMP
        /* (libomp 14 hangs now and then on these nested untied tasks
         * after the ones above: the cross-check leaves them out) */
        int me = omp_get_thread_num();
#pragma omp task untied firstprivate(me)
        {
            long sum = 0;
            for (int k = 1; k <= 4; k++) {
#pragma omp task untied firstprivate(k) shared(sum)
                {
                    long inner = 0;
#pragma omp task untied firstprivate(k) shared(inner)
                    {
#pragma omp taskyield
                        inner = 10L * k;
                    }
#pragma omp taskwait
#pragma omp atomic
                    sum += inner + k;
                }
#pragma omp taskyield
            }
#pragma omp taskwait
            nested[me] = sum + me;
        }
#endif
#pragma omp barrier
#pragma omp single
        fib = untied_fib(18);
    }
#ifndef OMP_CHECK_LIBOMP
    /* an untied if(0) task runs whole before its generating task goes on
     * (libomp 14 fails an assertion on td_last_tied here) */
#pragma omp task untied if (0)
    {
        undeferred[0] = 1;
#pragma omp taskyield
        undeferred[1] = undeferred[0] + 1;
#pragma omp taskyield
        undeferred[2] = undeferred[1] + 1;
    }
    CHECK_EQ_LONG(undeferred[2], 3);
#endif

    long total = 0;
    for (int i = 0; i < N; i++) {
        CHECK_EQ_LONG(part[i][1], i + 1 + 3L * i);
        CHECK_EQ_LONG(part[i][3], 2L * i + i + 1 + 6L * i);
        total += part[i][3];
    }
#ifndef OMP_CHECK_LIBOMP
    for (int t = 0; t < nth; t++)
        CHECK_EQ_LONG(nested[t], 110 + t);
#else
    (void)nth;
#endif
    CHECK_EQ_LONG(fib, 2584);
    RESULT("untied parts %ld, fib(18) %ld", total, fib);
    return check_status("omp_tasks_untied");
}
