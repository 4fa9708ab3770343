/*
 * omp_api_schedule.c - the run-sched-var ICV: what omp_get_schedule
 * answers after OMP_SCHEDULE (read at start-up) and after every
 * omp_set_schedule combination of kind x monotonic modifier x chunk
 * (-1, 0, 1, 7), in serial code and in every thread of a region (the ICV
 * travels to the other nodes with the fork); and a schedule(runtime) loop
 * under each setting, whose iterations must each run once (a chunk of 0
 * or less means the kind's default chunk, never a division by zero).
 *
 * The result lines are compared with libomp's (omp-schedule-forms.sh runs
 * the program under every OMP_SCHEDULE form, with dsmomp and libomp).
 *
 * Test program (dsmcc, dsmrun; and plain clang -fopenmp).  Exit status 0
 * when everything matched.
 */
#include <omp.h>
#include <string.h>

#include "omp_check.h"

#define N 997
#define MAX_THREADS 64

static long hits[N];
static long in_region_kind[MAX_THREADS], in_region_chunk[MAX_THREADS];

static void runtime_loop(const char *what)
{
    memset(hits, 0, sizeof hits);
    int nth = omp_get_max_threads();
#pragma omp parallel
    {
        omp_sched_t k;
        int c;
        omp_get_schedule(&k, &c);
        int me = omp_get_thread_num();
        if (me < MAX_THREADS) {
            in_region_kind[me] = (long)(unsigned)k;
            in_region_chunk[me] = c;
        }
#pragma omp for schedule(runtime)
        for (int i = 0; i < N; i++)
            hits[i]++;
    }
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += hits[i] != 1;
    for (int t = 0; t < nth && t < MAX_THREADS; t++) {
        CHECK_EQ_LONG(in_region_kind[t], (long)(unsigned)kind);
        CHECK_EQ_LONG(in_region_chunk[t], chunk);
    }
    CHECK_EQ_LONG(bad, 0);
    RESULT("%s: kind %#x chunk %d, runtime loop %s", what, (unsigned)kind,
           chunk, bad ? "wrong" : "each iteration once");
}

int main(void)
{
    runtime_loop("OMP_SCHEDULE");
    static const omp_sched_t kinds[] = {omp_sched_static, omp_sched_dynamic,
                                        omp_sched_guided, omp_sched_auto};
    static const unsigned modifiers[] = {0, (unsigned)omp_sched_monotonic};
    static const int chunks[] = {-1, 0, 1, 7};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (size_t m = 0; m < sizeof modifiers / sizeof *modifiers; m++)
            for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
                char what[64];
                unsigned set = (unsigned)kinds[k] | modifiers[m];
                snprintf(what, sizeof what, "omp_set_schedule(%#x, %d)",
                         set, chunks[c]);
                omp_set_schedule((omp_sched_t)set, chunks[c]);
                runtime_loop(what);
            }
    return check_status("omp_api_schedule");
}
