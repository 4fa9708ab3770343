/*
 * omp_tasks_reduction.c - task reductions: task_reduction on a taskgroup
 * with in_reduction tasks (several items and operators, nested tasks, a
 * task made in another function), reduction on taskloop, and the task
 * modifier on parallel and on a worksharing loop, where every thread of
 * the team (on every node) makes in_reduction tasks.
 *
 * Test program (dsmcc, dsmrun; also built with libomp for the
 * cross-check).  Exit status 0 when everything matched.
 */
#include <omp.h>

#include "omp_check.h"

#define TASKS 40
#define N 200

static long sum, lsum, psum, wsum, orphan_sum;
static double product = 1.0;
static long biggest = -1;

static void orphan(int k)
{
#pragma omp task in_reduction(+ : orphan_sum) firstprivate(k)
    orphan_sum += k;
}

int main(void)
{
    int nth = omp_get_max_threads();
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : sum) task_reduction(* : product) \
    task_reduction(max : biggest)
        {
            for (int i = 1; i <= TASKS; i++) {
#pragma omp task in_reduction(+ : sum) in_reduction(* : product) \
    in_reduction(max : biggest) firstprivate(i)
                {
                    sum += i;
                    if (i <= 10)
                        product *= 2.0;
                    if (i > biggest)
                        biggest = i;
#pragma omp task in_reduction(+ : sum) firstprivate(i)
                    sum += 1000L * i;
                }
            }
        }
#pragma omp taskgroup task_reduction(+ : orphan_sum)
        {
            for (int k = 0; k < TASKS; k++)
                orphan(k);
        }
#pragma omp taskloop reduction(+ : lsum) grainsize(9)
        for (int i = 0; i < N; i++)
            lsum += i;
    }
    CHECK_EQ_LONG(sum, 1001L * TASKS * (TASKS + 1) / 2);
    CHECK(product == 1024.0);
    CHECK_EQ_LONG(biggest, TASKS);
    CHECK_EQ_LONG(orphan_sum, TASKS * (TASKS - 1) / 2);
    CHECK_EQ_LONG(lsum, N * (N - 1) / 2);

    /* the task modifier: the whole team's tasks contribute */
#pragma omp parallel reduction(task, + : psum)
    {
        int me = omp_get_thread_num();
        psum += 1;
        for (int k = 0; k < 5; k++) {
#pragma omp task in_reduction(+ : psum) firstprivate(me, k)
            psum += 100L * me + k;
        }
    }
    long want = nth;
    for (int t = 0; t < nth; t++)
        want += 5 * 100L * t + 10;
    CHECK_EQ_LONG(psum, want);
#pragma omp parallel
    {
#pragma omp for reduction(task, + : wsum)
        for (int i = 0; i < N; i++) {
            wsum += 1;
#pragma omp task in_reduction(+ : wsum) firstprivate(i)
            wsum += i;
        }
        /* a second one in the same region */
#pragma omp for reduction(task, + : wsum) schedule(dynamic, 7)
        for (int i = 0; i < N; i++) {
#pragma omp task in_reduction(+ : wsum) firstprivate(i)
            wsum += 2;
        }
    }
    CHECK_EQ_LONG(wsum, N + N * (N - 1) / 2 + 2 * N);
    RESULT("taskgroup %ld %.0f %ld, orphan %ld, taskloop %ld, parallel %ld, "
           "for %ld", sum, product, biggest, orphan_sum, lsum, psum, wsum);
    return check_status("omp_tasks_reduction");
}
