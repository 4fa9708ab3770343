/*
 * omp_tasks.c - explicit tasks: tasks made in a single construct and by
 * every thread, taskwait, taskgroup with nested tasks, dependences, if(0)
 * tasks, and a recursive task computation, against serial results.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>

#include "omp_check.h"

#define TASKS 100
#define MAX_THREADS 64

static long squares[TASKS];
static long per_thread[MAX_THREADS][10];

static long fib(int n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a)
    a = fib(n - 1);
#pragma omp task shared(b)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

int main(void)
{
    int nth = omp_get_max_threads();
    long fib15 = 0, group_sum = 0, chain = 0, undeferred = 0;
#pragma omp parallel
    {
#pragma omp single
        {
            for (int i = 0; i < TASKS; i++) {
#pragma omp task firstprivate(i)
                squares[i] = (long)i * i;
            }
#pragma omp taskwait
            fib15 = fib(15);
#pragma omp taskgroup
            {
                for (int i = 1; i <= 10; i++) {
#pragma omp task firstprivate(i) shared(group_sum)
                    {
#pragma omp task firstprivate(i) shared(group_sum)
                        {
                            /* tasks of this node's threads: the
                             * atomic orders them */
#pragma omp atomic
                            group_sum += i;
                        }
                    }
                }
            }
#pragma omp task depend(out : chain) shared(chain)
            chain = 1;
#pragma omp task depend(inout : chain) shared(chain)
            chain = chain * 10 + 2;
#pragma omp task depend(in : chain) shared(chain, undeferred) if (0)
            undeferred = chain;
#pragma omp taskwait
        }
        int me = omp_get_thread_num();
        for (int k = 0; k < 10; k++) {
#pragma omp task firstprivate(k, me)
            per_thread[me][k] = me * 100 + k;
        }
    }
    for (int i = 0; i < TASKS; i++)
        CHECK_EQ_LONG(squares[i], (long)i * i);
    CHECK_EQ_LONG(fib15, 610);
    CHECK_EQ_LONG(group_sum, 55);
    CHECK_EQ_LONG(chain, 12);
    CHECK_EQ_LONG(undeferred, 12);
    for (int t = 0; t < nth; t++)
        for (int k = 0; k < 10; k++)
            CHECK_EQ_LONG(per_thread[t][k], t * 100 + k);
    return check_status("omp_tasks");
}
