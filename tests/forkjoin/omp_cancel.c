/*
 * omp_cancel.c - cancellation (run with OMP_CANCELLATION=true; without
 * it, "off" checks that cancel does nothing): cancel for under static and
 * dynamic schedules with cancellation points, cancel sections, cancel
 * taskgroup, cancel parallel by a thread of the last node while the
 * others already wait in a barrier (they must leave it), cancel
 * parallel before any barrier (the others meet it at a cancellation
 * point or their barrier), and each of them in many regions in a row,
 * with an ordinary loop and reduction after each, whose answers must be
 * exact (the cancelled region's end must leave loops, singles and
 * barriers numbered alike on every node).
 *
 * Every answer printed is independent of how much work cancellation
 * saved, so the libomp build prints the same lines.  (The dynamic loop
 * is monotonic: libomp 14 fails an assertion, pr->steal_flag == THIEF,
 * when a loop it schedules by stealing is cancelled.)
 *
 * Test program (dsmcc, dsmrun; cross-checked with libomp).  Exit status
 * 0 when every check passed.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "omp_check.h"

#define N 4000
#define ROUNDS 20

static int key_at;
static int found;

/* An ordinary loop and reduction after a cancelled construct. */
static void after(const char *what, int round)
{
    static double x[N];
    double sum = 0;
#pragma omp parallel for schedule(static, 7)
    for (int i = 0; i < N; i++)
        x[i] = i * 0.5 + round;
#pragma omp parallel for reduction(+ : sum) schedule(dynamic, 13)
    for (int i = 0; i < N; i++)
        sum += x[i];
    double want = 0.5 * N * (N - 1) / 2.0 + (double)round * N;
    if (sum != want) {
        fprintf(stderr, "%s, round %d: the next loop's sum is %.1f, "
                "expected %.1f\n", what, round, sum, want);
        check_failures++;
    }
}

static void loops(void)
{
    int wrong = 0;
    for (int round = 0; round < ROUNDS; round++) {
        key_at = (round * 977) % N;
        found = -1;
#pragma omp parallel for schedule(static)
        for (int i = 0; i < N; i++) {
            if (i == key_at) {
#pragma omp atomic write
                found = i;
#pragma omp cancel for
            }
#pragma omp cancellation point for
        }
        wrong += found != key_at;
        found = -1;
#pragma omp parallel
        {
#pragma omp for schedule(monotonic : dynamic, 16)
            for (int i = 0; i < N; i++) {
                if (i == key_at) {
#pragma omp atomic write
                    found = i;
#pragma omp cancel for
                }
#pragma omp cancellation point for
            }
            /* the barrier ending the loop, then the team goes on */
#pragma omp for schedule(static, 5)
            for (int i = 0; i < 10; i++) {
#pragma omp atomic
                found += 0;
            }
        }
        wrong += found != key_at;
        after("cancel for", round);
    }
    CHECK_EQ_LONG(wrong, 0);
    RESULT("cancel for: %d rounds, key found in each: %s", ROUNDS,
           wrong ? "no" : "yes");
}

static void sections(void)
{
    int wrong = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int done_a = 0, done_b = 0;
#pragma omp parallel sections
        {
#pragma omp section
            {
                done_a = 1;
#pragma omp cancel sections
            }
#pragma omp section
            {
                done_b = 1;
#pragma omp cancellation point sections
            }
        }
        /* a section that had started ran to its end or to its point */
        wrong += !(done_a || done_b);
        after("cancel sections", round);
    }
    CHECK_EQ_LONG(wrong, 0);
    RESULT("cancel sections: %d rounds", ROUNDS);
}

static void taskgroups(void)
{
    int wrong = 0;
    for (int round = 0; round < ROUNDS; round++) {
        key_at = (round * 1231) % N;
        found = -1;
#pragma omp parallel
#pragma omp single
        {
#pragma omp taskgroup
            {
                for (int b = 0; b < N; b += 100) {
#pragma omp task firstprivate(b)
                    {
                        for (int i = b; i < b + 100; i++)
                            if (i == key_at) {
#pragma omp atomic write
                                found = i;
#pragma omp cancel taskgroup
                            }
                    }
                }
            }
        }
        wrong += found != key_at;
        after("cancel taskgroup", round);
    }
    CHECK_EQ_LONG(wrong, 0);
    RESULT("cancel taskgroup: %d rounds, key found in each: %s", ROUNDS,
           wrong ? "no" : "yes");
}

/* The last thread (on the last node) cancels the region once every other
 * thread has entered the barrier (it waits a little: the others arrive
 * first nearly always, and the test is right either way).  Nobody may
 * pass the barrier's far side, and the region must end. */
static void parallel_in_barrier(void)
{
    int passed = 0, wrong = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int cancelled = 0;
#pragma omp parallel reduction(+ : passed)
        {
            int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
            if (me == last && last > 0) {
                double until = omp_get_wtime() + 0.02;
                while (omp_get_wtime() < until)
                    ;
#pragma omp atomic write
                cancelled = 1;
#pragma omp cancel parallel
            }
#pragma omp barrier
            passed++;
        }
        if (omp_get_max_threads() > 1 && omp_get_cancellation())
            wrong += passed != 0 || !cancelled;
        passed = 0;
        after("cancel parallel in a barrier", round);
    }
    CHECK_EQ_LONG(wrong, 0);
    RESULT("cancel parallel, others in a barrier: %d rounds", ROUNDS);
}

/* Thread 0 cancels at once; the others check for it at a cancellation
 * point in a loop of their own (no other runtime call: without a
 * progress thread the point itself must let the CANCEL in), then meet a
 * barrier.  Every thread must leave at a point. */
static void parallel_at_points(void)
{
    int wrong = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int after_cancel = 0;
        int seen = 0;
#pragma omp parallel reduction(+ : seen)
        {
            if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
                after_cancel = 1;       /* only without cancellation */
            } else {
                /* 10 s without seeing it: a failure, not a hang */
                double until = omp_get_wtime() + 10;
                while (omp_get_wtime() < until) {
#pragma omp cancellation point parallel
                }
                seen = 1;               /* never reached when cancelled */
            }
#pragma omp barrier
        }
        if (omp_get_cancellation())
            wrong += after_cancel != 0 || seen != 0;
        after("cancel parallel at points", round);
    }
    CHECK_EQ_LONG(wrong, 0);
    RESULT("cancel parallel at cancellation points: %d rounds", ROUNDS);
}

int main(int argc, char **argv)
{
    const char *env = getenv("OMP_CANCELLATION");
    int want = env && (strcmp(env, "true") == 0 || strcmp(env, "1") == 0);
    CHECK_EQ_LONG(omp_get_cancellation(), want);
    if (argc > 1 && strcmp(argv[1], "off") == 0) {
        /* cancel-var false: every construct runs to its end */
        long ran = 0;
#pragma omp parallel for reduction(+ : ran)
        for (int i = 0; i < N; i++) {
            ran++;
#pragma omp cancel for if (i == 3)
        }
        CHECK_EQ_LONG(ran, N);
        return check_status("omp_cancel off");
    }
    loops();
    sections();
    taskgroups();
    parallel_in_barrier();
    if (want)
        parallel_at_points();   /* a very long loop without cancellation */
    return check_status("omp_cancel");
}
