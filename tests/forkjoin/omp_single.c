/*
 * omp_single.c - single (with and without nowait) runs once per
 * encounter, copyprivate hands the single thread's values (a scalar, an
 * array, a struct) to every thread, master runs on thread 0 only and
 * masked on the filtered thread only.  Teams smaller than the job (fewer
 * threads than nodes) decide their singles among their own members.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>

#include "omp_check.h"

#define ROUNDS 40

typedef struct record {
    long id;
    double values[20];
} record_t;

int main(void)
{
    int nth = omp_get_max_threads();
    long singles = 0, nowait_singles = 0, masters = 0, maskeds = 0;
    long master_thread = -1, masked_thread = -1;
#pragma omp parallel
    {
        for (int r = 0; r < ROUNDS; r++) {
#pragma omp single
            singles++;
#pragma omp single nowait
            nowait_singles++;
        }
#pragma omp barrier
#pragma omp master
        {
            masters++;
            master_thread = omp_get_thread_num();
        }
#pragma omp masked filter(nth - 1)
        {
            maskeds++;
            masked_thread = omp_get_thread_num();
        }
        for (int r = 0; r < ROUNDS; r++) {
            long scalar = -1;
            double array[5] = {0};
            record_t rec = {0, {0}};
#pragma omp single copyprivate(scalar, array, rec)
            {
                scalar = 1000 + r;
                for (int j = 0; j < 5; j++)
                    array[j] = r * 10.0 + j;
                rec.id = r;
                for (int j = 0; j < 20; j++)
                    rec.values[j] = r - j;
            }
            CHECK_EQ_LONG(scalar, 1000 + r);
            for (int j = 0; j < 5; j++)
                CHECK(array[j] == r * 10.0 + j);
            CHECK_EQ_LONG(rec.id, r);
            for (int j = 0; j < 20; j++)
                CHECK(rec.values[j] == r - j);
        }
    }
    CHECK_EQ_LONG(singles, ROUNDS);
    CHECK_EQ_LONG(nowait_singles, ROUNDS);
    CHECK_EQ_LONG(masters, 1);
    CHECK_EQ_LONG(master_thread, 0);
    CHECK_EQ_LONG(maskeds, 1);
    CHECK_EQ_LONG(masked_thread, nth - 1);

    /* singles in later regions continue the team-wide count */
    long later = 0;
    for (int r = 0; r < 5; r++) {
#pragma omp parallel
#pragma omp single
        later++;
    }
    CHECK_EQ_LONG(later, 5);

    /* teams of two and of one: every instance runs once, on a member */
    long small[2] = {0, 0}, outsider = 0;
    for (int size = 1; size <= 2; size++) {
#pragma omp parallel num_threads(size)
        for (int r = 0; r < ROUNDS; r++) {
#pragma omp single
            {
                small[size - 1]++;
                /* a one-thread job gives a team of one */
                int members = size < nth ? size : nth;
                if (omp_get_thread_num() >= members ||
                    omp_get_num_threads() != members)
                    outsider++;
            }
        }
    }
    CHECK_EQ_LONG(small[0], ROUNDS);
    CHECK_EQ_LONG(small[1], ROUNDS);
    CHECK_EQ_LONG(outsider, 0);
    RESULT("singles %ld %ld masters %ld on %ld masked %ld on %ld later %ld "
           "small %ld %ld", singles, nowait_singles, masters, master_thread,
           maskeds, masked_thread, later, small[0], small[1]);
    return check_status("omp_single");
}
