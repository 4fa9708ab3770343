/*
 * omp_sync.c - critical sections (unnamed and two named ones, each with
 * its own counter, one with a hint, a read-modify-write of a shared list,
 * one nested in another) and barriers
 * (every thread sees every other thread's write of the phase after each
 * barrier).
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>

#include "omp_check.h"

#define INCREMENTS 200
#define PHASES 30
#define MAX_THREADS 64

static long unnamed, named_a, named_b, nested, hinted;
static long list[MAX_THREADS * INCREMENTS / 10];
static long list_len;
static long phase_of[MAX_THREADS];

int main(void)
{
    int nth = omp_get_max_threads();
    CHECK(nth <= MAX_THREADS);
#pragma omp parallel
    {
        for (int k = 0; k < INCREMENTS; k++) {
#pragma omp critical
            unnamed++;
#pragma omp critical(a)
            named_a += 2;
#pragma omp critical(h) hint(omp_sync_hint_contended)
            hinted += 5;
#pragma omp critical(b)
            {
                named_b += 3;
                if (k % 10 == 0)
                    list[list_len++] = omp_get_thread_num();
            }
            if (k % 20 == 0) {
#pragma omp critical(outer)
                {
#pragma omp critical(inner)
                    nested++;
                }
            }
        }
    }
    CHECK_EQ_LONG(unnamed, (long)nth * INCREMENTS);
    CHECK_EQ_LONG(named_a, 2L * nth * INCREMENTS);
    CHECK_EQ_LONG(named_b, 3L * nth * INCREMENTS);
    CHECK_EQ_LONG(hinted, 5L * nth * INCREMENTS);
    CHECK_EQ_LONG(list_len, (long)nth * INCREMENTS / 10);
    CHECK_EQ_LONG(nested, (long)nth * INCREMENTS / 20);
    long per_thread[MAX_THREADS] = {0};
    for (long i = 0; i < list_len; i++)
        per_thread[list[i]]++;
    for (int t = 0; t < nth; t++)
        CHECK_EQ_LONG(per_thread[t], INCREMENTS / 10);
    RESULT("critical %ld %ld %ld %ld %ld list %ld", unnamed, named_a,
           named_b, hinted, nested, list_len);

#pragma omp parallel
    {
        int me = omp_get_thread_num();
        for (long phase = 1; phase <= PHASES; phase++) {
            phase_of[me] = phase;
#pragma omp flush
#pragma omp barrier
            for (int t = 0; t < nth; t++)
                CHECK_EQ_LONG(phase_of[t], phase);
#pragma omp barrier
        }
    }
    long phases_seen = 0;
    for (int t = 0; t < nth; t++)
        phases_seen += phase_of[t];
    RESULT("barrier phases %ld", phases_seen);
    return check_status("omp_sync");
}
