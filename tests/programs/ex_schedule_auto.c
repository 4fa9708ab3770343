/*
 * ex_schedule_auto.c - schedule(auto), and the 5.0 modifiers:
 * schedule(monotonic: dynamic, 2) (each thread sees its iterations in
 * increasing order) and schedule(nonmonotonic: dynamic), then
 * schedule(static, 2), which is monotonic by definition, each with a
 * reduction.  (clang 14 with its own libomp runs every iteration in every
 * thread for schedule(monotonic: static[, chunk]), so that spelling is
 * left out.)
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2000
#define MAXT 256

static int last_seen[MAXT];

int main(void)
{
    long s_auto = 0, s_mono = 0, s_nonmono = 0, s_static = 0, want = 0;
    int errors = 0;

    for (int i = 0; i < N; i++)
        want += (long)i * 3 + 1;

#pragma omp parallel for schedule(auto) reduction(+ : s_auto)
    for (int i = 0; i < N; i++)
        s_auto += (long)i * 3 + 1;

    for (int t = 0; t < MAXT; t++)
        last_seen[t] = -1;
#pragma omp parallel for schedule(monotonic : dynamic, 2) reduction(+ : s_mono)
    for (int i = 0; i < N; i++) {
        int me = omp_get_thread_num();
        if (i <= last_seen[me]) {
#pragma omp atomic
            errors++;
        }
        last_seen[me] = i;
        s_mono += (long)i * 3 + 1;
    }

#pragma omp parallel for schedule(nonmonotonic : dynamic) reduction(+ : s_nonmono)
    for (int i = 0; i < N; i++)
        s_nonmono += (long)i * 3 + 1;

    for (int t = 0; t < MAXT; t++)
        last_seen[t] = -1;
#pragma omp parallel for schedule(static, 2) reduction(+ : s_static)
    for (int i = 0; i < N; i++) {
        int me = omp_get_thread_num();
        if (i <= last_seen[me] || (i / 2) % omp_get_num_threads() != me) {
#pragma omp atomic
            errors++;
        }
        last_seen[me] = i;
        s_static += (long)i * 3 + 1;
    }

    if (s_auto != want || s_mono != want || s_nonmono != want ||
        s_static != want)
        errors++;
    printf("result: sums %ld %ld %ld %ld\n", s_auto, s_mono, s_nonmono,
           s_static);
    if (errors)
        fprintf(stderr, "ex_schedule_auto: %d errors (want %ld)\n", errors,
                want);
    return errors ? 1 : 0;
}
