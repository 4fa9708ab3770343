/*
 * omp_threadprivate.c - threadprivate variables: every thread starts with
 * the initial value and keeps its own value from one region to the next;
 * copyin hands the master's value to every thread and single copyprivate
 * the single thread's, on every node - for scalars and for a 1 MiB array
 * (as a random-number kernel keeps per thread), whose thread-local storage
 * every thread's stack must also leave room for.  Built three ways: TLS
 * (clang's default), -fnoopenmp-use-tls (__kmpc_threadprivate_cached) and
 * stripped (no symbol table tells the variables' sizes).
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>

#include "omp_check.h"

#define BIG 131072                 /* doubles: 1 MiB */

static long counter = 7;
static double scale = 0.5;
static double big[BIG];
static int after_big;              /* zero: in .tbss, behind the array */
#pragma omp threadprivate(counter, scale, big, after_big)

static double big_sum(void)
{
    double s = 0;
    for (int i = 0; i < BIG; i++)
        s += big[i];
    return s;
}

/* Values persist per thread; copyin of scalars. */
static void scalars(int nth)
{
    long initial_ok = 0, kept_ok = 0;
#pragma omp parallel reduction(+ : initial_ok)
    {
        initial_ok += counter == 7 && scale == 0.5 && after_big == 0;
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

    for (int round = 0; round < 3; round++) {
        counter = 42 + round;
        after_big = 9 + round;
        long copied = 0;
#pragma omp parallel copyin(counter, after_big) reduction(+ : copied)
        copied += counter == 42 + round && after_big == 9 + round;
        CHECK_EQ_LONG(copied, nth);
        RESULT("copyin round %d: %ld threads have the master's values",
               round, copied);
    }
    /* without copyin each thread keeps what the last one gave it */
    long kept = 0;
#pragma omp parallel reduction(+ : kept)
    {
        kept += counter == 44;
        counter = -omp_get_thread_num();
    }
    CHECK_EQ_LONG(kept, nth);
}

/* single copyprivate of scalars: the single thread's values reach all,
 * whichever node it is on (single instances rotate over the nodes). */
static void copyprivate_scalars(int nth)
{
    long ok = 0;
#pragma omp parallel reduction(+ : ok)
    for (int round = 0; round < 6; round++) {
#pragma omp single copyprivate(counter, scale)
        {
            counter = 1000 + round;
            scale = round + 0.25;
        }
        ok += counter == 1000 + round && scale == round + 0.25;
    }
    CHECK_EQ_LONG(ok, 6L * nth);
    RESULT("copyprivate: %ld of %d", ok, 6 * nth);
}

/* The 1 MiB array: copyin of what the master wrote (twice, the second
 * time with only some pages changed), each thread's own values kept, and
 * copyprivate from the single thread. */
static void big_array(int nth)
{
    for (int i = 0; i < BIG; i++)
        big[i] = i;
    double want = (double)BIG * (BIG - 1) / 2;
    long ok = 0;
#pragma omp parallel copyin(big) reduction(+ : ok)
    {
        ok += big_sum() == want && big[BIG - 1] == BIG - 1;
        big[7] = omp_get_thread_num();      /* each thread its own */
    }
    CHECK_EQ_LONG(ok, nth);
    ok = 0;
#pragma omp parallel reduction(+ : ok)
    ok += big[7] == omp_get_thread_num() && big[8] == 8;
    CHECK_EQ_LONG(ok, nth);

    for (int i = 0; i < BIG; i += 4096)
        big[i] = -1;                       /* one page in eight */
    big[7] = 7;
    double want2 = 0;
    for (int i = 0; i < BIG; i++)
        want2 += big[i];
    ok = 0;
#pragma omp parallel copyin(big) reduction(+ : ok)
    ok += big_sum() == want2 && big[4096] == -1 && big[4097] == 4097;
    CHECK_EQ_LONG(ok, nth);
    RESULT("copyin of 1 MiB: %ld threads, sum %.0f", ok, want2);

    double want3[3] = {0, 0, 0};
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < BIG; i++)
            want3[round] += round * 10 + i % 10;
    ok = 0;
#pragma omp parallel reduction(+ : ok)
    for (int round = 0; round < 3; round++) {
#pragma omp single copyprivate(big)
        {
            for (int i = 0; i < BIG; i++)
                big[i] = round * 10 + i % 10;
        }
        ok += big_sum() == want3[round] &&
              big[BIG - 3] == round * 10 + (BIG - 3) % 10;
    }
    CHECK_EQ_LONG(ok, 3L * nth);
    RESULT("copyprivate of 1 MiB: %ld of %d", ok, 3 * nth);
}

int main(void)
{
    int nth = omp_get_max_threads();
    scalars(nth);
    copyprivate_scalars(nth);
    big_array(nth);
    return check_status("omp_threadprivate");
}
