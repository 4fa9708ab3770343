/*
 * schedbench.c - EPCC-style loop scheduling overheads: a work-sharing loop
 * of ITERS_PER_THREAD delays per thread under static, static chunked,
 * dynamic and guided schedules with several chunk sizes, against the same
 * delays run without the loop construct.
 *
 * Layer: bench.  One OpenMP C source built with dsmcc (dsmomp) and with
 * clang -fopenmp (libomp).  Entry point: main; the bodies run in the team's
 * threads.  Options: see epcc_options.h.
 */
#include <omp.h>
#include <stdio.h>

#include "epcc_delay.h"
#include "epcc_main.h"

/* dsmcc and dsmgcc builds define EPCC_DSMOMP; the reference is libomp
 * (clang) or libgomp (gcc). */
#ifdef EPCC_DSMOMP
#define EPCC_RUNTIME "dsmomp"
#elif defined(__clang__)
#define EPCC_RUNTIME "libomp"
#else
#define EPCC_RUNTIME "libgomp"
#endif

#define ITERS_PER_THREAD 128

enum kind { STATIC, STATIC_CHUNKED, DYNAMIC, GUIDED };

typedef struct sched_test {
    const char *name;
    enum kind kind;
    int chunk;
} sched_test_t;

static const sched_test_t sched_tests[] = {
    { "STATIC", STATIC, 0 },
    { "STATIC_1", STATIC_CHUNKED, 1 },    { "STATIC_8", STATIC_CHUNKED, 8 },
    { "STATIC_32", STATIC_CHUNKED, 32 },  { "DYNAMIC_1", DYNAMIC, 1 },
    { "DYNAMIC_8", DYNAMIC, 8 },          { "DYNAMIC_32", DYNAMIC, 32 },
    { "GUIDED_1", GUIDED, 1 },            { "GUIDED_8", GUIDED, 8 },
    { "GUIDED_32", GUIDED, 32 },
};
#define TEST_COUNT (sizeof sched_tests / sizeof sched_tests[0])
static const char *test_names[TEST_COUNT];

/* Globals: sharable under dsmomp. */
static unsigned long delay_iters;
static int team_size;

static void reference(void *ctx, unsigned long reps)
{
    (void)ctx;
    unsigned long d = delay_iters;
#pragma omp parallel firstprivate(d, reps)
    for (unsigned long j = 0; j < reps; j++)
        for (int i = 0; i < ITERS_PER_THREAD; i++)
            epcc_delay(d);
}

/* One body per kind; the chunk is a run-time value of the clause.  nowait
 * is absent: like EPCC, the loop's closing barrier is part of the cost. */
#define SCHEDULE_BODY(fn, clause)                                         \
    static void fn(void *ctx, unsigned long reps)                         \
    {                                                                     \
        int chunk = ((const sched_test_t *)ctx)->chunk;                   \
        int n = ITERS_PER_THREAD * team_size;                             \
        unsigned long d = delay_iters;                                    \
        (void)chunk;                                                      \
        _Pragma("omp parallel firstprivate(d, reps, n, chunk)")           \
        for (unsigned long j = 0; j < reps; j++) {                        \
            _Pragma(clause)                                               \
            for (int i = 0; i < n; i++)                                   \
                epcc_delay(d);                                            \
        }                                                                 \
    }
SCHEDULE_BODY(test_static, "omp for schedule(static)")
SCHEDULE_BODY(test_static_chunked, "omp for schedule(static, chunk)")
SCHEDULE_BODY(test_dynamic, "omp for schedule(dynamic, chunk)")
SCHEDULE_BODY(test_guided, "omp for schedule(guided, chunk)")

static void prepare(size_t index, unsigned long delay_iterations,
                    epcc_test_t *test)
{
    static const epcc_body_fn bodies[] = {
        [STATIC] = test_static, [STATIC_CHUNKED] = test_static_chunked,
        [DYNAMIC] = test_dynamic, [GUIDED] = test_guided,
    };
    delay_iters = delay_iterations;
    *test = (epcc_test_t){
        .name = sched_tests[index].name,
        .reference = reference,
        .test = bodies[sched_tests[index].kind],
        .ctx = (void *)&sched_tests[index],
    };
}

int main(int argc, char *argv[])
{
#pragma omp parallel
#pragma omp master
    team_size = omp_get_num_threads();

    for (size_t i = 0; i < TEST_COUNT; i++)
        test_names[i] = sched_tests[i].name;
    epcc_program_t program = {
        .benchmark = "schedbench", .runtime = EPCC_RUNTIME,
        .workers = team_size, .names = test_names, .count = TEST_COUNT,
        .prepare = prepare, .print = 1,
    };
    return epcc_main_run(&program, argc, argv);
}
