/*
 * val_schedule_runtime.c - schedule(runtime) under OMP_SCHEDULE, as a
 * validation suite checks it: omp_get_schedule must return the kind,
 * modifier and chunk OMP_SCHEDULE gave (the corpus runs it with
 * "dynamic", "monotonic:dynamic,50", "guided,7" and "static,3"), every
 * thread must see the same schedule, and the loop must run every
 * iteration once; with a monotonic modifier each thread's iterations
 * increase, with static and a chunk the assignment is round-robin.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 3000
#define MAXT 256

static int hits[N], owner[N], last_seen[MAXT];

static const char *kind_name(omp_sched_t kind)
{
    switch ((int)kind & ~(int)omp_sched_monotonic) {
    case omp_sched_static: return "static";
    case omp_sched_dynamic: return "dynamic";
    case omp_sched_guided: return "guided";
    case omp_sched_auto: return "auto";
    default: return "unknown";
    }
}

int main(void)
{
    const char *env = getenv("OMP_SCHEDULE");
    int errors = 0, want_monotonic = 0, want_chunk = -1;
    char want_kind[32] = "static";

    if (env) {
        const char *p = env;
        if (strncmp(p, "monotonic:", 10) == 0) {
            want_monotonic = 1;
            p += 10;
        }
        size_t len = strcspn(p, ",");
        if (len >= sizeof want_kind)
            len = sizeof want_kind - 1;
        memcpy(want_kind, p, len);
        want_kind[len] = '\0';
        if (p[len] == ',')
            want_chunk = atoi(p + len + 1);
    }

    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    int monotonic = ((int)kind & (int)omp_sched_monotonic) != 0;
    printf("result: schedule %s%s chunk %d\n", monotonic ? "monotonic:" : "",
           kind_name(kind), chunk);
    if (strcmp(kind_name(kind), want_kind) != 0 ||
        (want_monotonic && !monotonic) ||
        (want_chunk > 0 && chunk != want_chunk)) {
        errors++;
        fprintf(stderr, "val_schedule_runtime: omp_get_schedule gives %s%s,"
                "%d for OMP_SCHEDULE=%s\n", monotonic ? "monotonic:" : "",
                kind_name(kind), chunk, env ? env : "(unset)");
    }

    for (int t = 0; t < MAXT; t++)
        last_seen[t] = -1;
    int nthreads = 1;
#pragma omp parallel
    {
        omp_sched_t k2;
        int c2;
        omp_get_schedule(&k2, &c2);
        if (k2 != kind || c2 != chunk) {
#pragma omp atomic
            errors++;
        }
#pragma omp single
        nthreads = omp_get_num_threads();
#pragma omp for schedule(runtime)
        for (int i = 0; i < N; i++) {
            int me = omp_get_thread_num();
            owner[i] = me;
            if (want_monotonic && i <= last_seen[me]) {
#pragma omp atomic
                errors++;
            }
            last_seen[me] = i;
#pragma omp atomic
            hits[i]++;
        }
    }
    for (int i = 0; i < N; i++) {
        if (hits[i] != 1)
            errors++;
        if (strcmp(want_kind, "static") == 0 && want_chunk > 0 &&
            owner[i] != (i / want_chunk) % nthreads)
            errors++;
    }
    if (errors)
        fprintf(stderr, "val_schedule_runtime: %d errors (OMP_SCHEDULE=%s)\n",
                errors, env ? env : "(unset)");
    return errors ? 1 : 0;
}
