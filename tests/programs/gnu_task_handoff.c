/*
 * gnu_task_handoff.c - gcc's tasks that must run at the same time: two
 * sibling tasks hand a value to each other through atomic flags; two
 * depend(in:) tasks after the same out task do the same; the two tasks
 * of a taskloop meet at a rendezvous; and the master waits, while still
 * generating, for a task it made to have been run by another thread.
 * Every wait is bounded, so a runtime that runs tasks one at a time fails
 * instead of hanging.
 *
 * Corpus program (tests/programs, compiler 'gcc'): exits 1 when wrong.
 * Needs two threads on the node that makes the tasks (tasks run on their
 * creating node): not on 2x1 or 3x1.
 */
#include <omp.h>
#include <stdio.h>

#define WAIT_SECONDS 10.0

static int timed_out;

static void wait_for(int *flag, int value, const char *what)
{
    double t0 = omp_get_wtime();
    for (;;) {
        int v, out;
#pragma omp atomic read
        v = *flag;
        if (v >= value)
            return;
#pragma omp atomic read
        out = timed_out;
        if (out)
            return;
        if (omp_get_wtime() - t0 > WAIT_SECONDS) {
            fprintf(stderr, "gnu_task_handoff: waited too long for %s\n",
                    what);
#pragma omp atomic write
            timed_out = 1;
            return;
        }
    }
}

/* Task a sends 'send' and gets the answer; task b answers with one more. */
static void ping(int *box, int *asked, int *answered, int send, int *got)
{
    *box = send;
#pragma omp atomic write
    *asked = 1;
    wait_for(answered, 1, "the answer");
    *got = *box;
}

static void pong(int *box, int *asked, int *answered)
{
    wait_for(asked, 1, "the question");
    *box = *box + 1;
#pragma omp atomic write
    *answered = 1;
}

int main(void)
{
    int box1 = 0, asked1 = 0, answered1 = 0, got1 = 0;
    int box2 = 0, asked2 = 0, answered2 = 0, got2 = 0, dep = 0;
    int met = 0, loop_done = 0;
    int ran = 0, ran_by_other = 0;

#pragma omp parallel
    {
#pragma omp single
        {
#pragma omp task shared(box1, asked1, answered1, got1)
            ping(&box1, &asked1, &answered1, 41, &got1);
#pragma omp task shared(box1, asked1, answered1)
            pong(&box1, &asked1, &answered1);
#pragma omp taskwait

            /* two in tasks after their out task */
#pragma omp task depend(out : dep) shared(dep)
            dep = 99;
#pragma omp task depend(in : dep) shared(box2, asked2, answered2, got2)
            ping(&box2, &asked2, &answered2, dep, &got2);
#pragma omp task depend(in : dep) shared(box2, asked2, answered2)
            pong(&box2, &asked2, &answered2);
#pragma omp taskwait

            /* a taskloop's two tasks meet */
#pragma omp taskloop num_tasks(2) shared(met, loop_done)
            for (int i = 0; i < 2; i++) {
#pragma omp atomic
                met++;
                wait_for(&met, 2, "the other taskloop task");
#pragma omp atomic
                loop_done++;
            }
        }

        /* the team executes while the master still generates */
#pragma omp master
        {
            int me = omp_get_thread_num();
#pragma omp task shared(ran, ran_by_other) firstprivate(me)
            {
                if (omp_get_thread_num() != me)
#pragma omp atomic write
                    ran_by_other = 1;
#pragma omp atomic write
                ran = 1;
            }
            wait_for(&ran, 1, "the master's task");
        }
    }

    int errors = timed_out + (got1 != 42) + (got2 != 100) + (met != 2) +
                 (loop_done != 2) + (ran_by_other != 1);
    printf("result: handoff %d depend %d taskloop %d %d team %d\n", got1,
           got2, met, loop_done, ran_by_other);
    if (errors)
        fprintf(stderr, "gnu_task_handoff: %d errors\n", errors);
    return errors ? 1 : 0;
}
