/*
 * omp_tasks_clauses.c - task clauses and constructs: a taskgroup waits for
 * every descendant; final makes descendants included (run at once, in
 * order, omp_in_final true), also untied ones; mergeable; if(0) runs the
 * task before its generating task goes on; priority is accepted (0 is the
 * default maximum); detach: a task completes when its event is fulfilled,
 * by the generating task or by another task, and its dependent tasks and
 * taskwait wait for that.
 *
 * With the argument remote_fulfill (2 nodes or more) node 1 fulfils the
 * event of a task of node 0, which ends the job with a message
 * (expect-unsupported.sh).
 *
 * Test program (dsmcc, dsmrun; also built with libomp for the
 * cross-check).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <string.h>

#include "omp_check.h"

#define GROUP 16

static long leaf[GROUP];
static long final_in, final_child_in, final_seen, final_order[4];
static long merged, undeferred, undeferred_child, prio_sum;
static long detached, fulfilled, after_detached, other_done, serial_detached;
static long order_pos;

static void busy(int us)
{
    double end = omp_get_wtime() + us * 1e-6;
    while (omp_get_wtime() < end)
        ;
}

static void clauses(void)
{
    /* a taskgroup waits for the grandchildren too */
#pragma omp taskgroup
    {
        for (int i = 0; i < GROUP; i++) {
#pragma omp task firstprivate(i)
            {
                busy(10);
#pragma omp task firstprivate(i)
                {
                    busy(10);
#pragma omp task firstprivate(i)
                    {
                        busy(50);
                        leaf[i] = i + 1;
                    }
                }
            }
        }
    }
    for (int i = 0; i < GROUP; i++)
        CHECK_EQ_LONG(leaf[i], i + 1);

    /* final: the descendants run at once, in order */
#pragma omp task final(1)
    {
        final_in = omp_in_final();
        for (int k = 0; k < 4; k++) {
#pragma omp task firstprivate(k) untied
            {
                final_child_in = omp_in_final();
#pragma omp taskyield
                final_order[k] = ++order_pos;
            }
        }
        final_seen = order_pos;       /* all four ran already */
    }
#pragma omp task mergeable
    merged = 7;
    /* if(0): before the generating task goes on */
#pragma omp task if (0)
    {
        undeferred = 5;
#pragma omp task
        undeferred_child = 6;
#pragma omp taskwait
    }
    CHECK_EQ_LONG(undeferred, 5);
    CHECK_EQ_LONG(undeferred_child, 6);
    for (int p = 0; p < 8; p++) {
#pragma omp task priority(p) firstprivate(p)
        {
#pragma omp atomic
            prio_sum += p;
        }
    }

    /* detach: the dependent task waits for the fulfilment */
    omp_event_handle_t ev = (omp_event_handle_t)0;
#pragma omp task detach(ev) depend(out : detached)
    detached = 1;
#pragma omp task depend(in : detached)
    after_detached = fulfilled;
    busy(1000);
    fulfilled = 1;
#pragma omp flush
    omp_fulfill_event(ev);
    /* another task fulfils; taskwait waits for both */
    omp_event_handle_t ev2 = (omp_event_handle_t)0;
#pragma omp task detach(ev2)
    busy(10);
#pragma omp task firstprivate(ev2)
    {
        busy(500);
        other_done = 1;
        omp_fulfill_event(ev2);
    }
#pragma omp taskwait
}

static void remote_fulfill(void)
{
    static omp_event_handle_t shared_ev;
    static int posted;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) {
            omp_event_handle_t ev = (omp_event_handle_t)0;
#pragma omp task detach(ev)
            busy(1);
            shared_ev = ev;
#pragma omp atomic write
            posted = 1;
        } else if (omp_get_thread_num() == omp_get_num_threads() - 1) {
            int seen = 0;
            while (!seen) {
#pragma omp atomic read
                seen = posted;
            }
#pragma omp flush
            omp_fulfill_event(shared_ev);   /* ends the job */
        }
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "remote_fulfill") == 0) {
        remote_fulfill();
        return 0;
    }
#pragma omp parallel
#pragma omp single
    clauses();

    CHECK_EQ_LONG(final_in, 1);
    CHECK_EQ_LONG(final_child_in, 1);
    CHECK_EQ_LONG(final_seen, 4);
    for (int k = 0; k < 4; k++)
        CHECK_EQ_LONG(final_order[k], k + 1);
    CHECK_EQ_LONG(merged, 7);
    CHECK_EQ_LONG(prio_sum, 28);
    CHECK_EQ_LONG(omp_get_max_task_priority(), 0);
    CHECK_EQ_LONG(after_detached, 1);
    CHECK_EQ_LONG(other_done, 1);

    /* detach in serial code */
    omp_event_handle_t ev = (omp_event_handle_t)0;
#pragma omp task detach(ev)
    serial_detached = 1;
    omp_fulfill_event(ev);
#pragma omp taskwait
    CHECK_EQ_LONG(serial_detached, 1);
    RESULT("group %ld, final %ld, if0 %ld, priority %ld, detach %ld",
           leaf[GROUP - 1], final_seen, undeferred + undeferred_child,
           prio_sum, after_detached + other_done);
    return check_status("omp_tasks_clauses");
}
