/*
 * omp_tasks_inoutset.c - depend(inoutset) (OpenMP 5.1), which clang 14
 * does not parse: the tasks are made through the libomp ABI directly
 * (__kmpc_omp_task_alloc, __kmpc_omp_task_with_deps with the inoutset
 * flag 0x8).  An inoutset group runs after the writer before it, its
 * members need not wait for each other (two of them meet, with two threads
 * on a node), a reader waits for the whole group, and the next group and
 * writer wait for the reader.
 *
 * Test program (dsmcc, dsmrun; also built with libomp for the
 * cross-check).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>

#include "omp_check.h"

typedef struct dep {
    intptr_t base_addr;
    size_t len;
    uint8_t flags;
} dep_t;

enum { DEP_IN = 1, DEP_OUT = 3, DEP_SET = 8 };

typedef struct my_task {
    void *shareds;
    int32_t (*routine)(int32_t, void *);
    int32_t part_id;
    void *data1, *data2;
    int id;
} my_task_t;

extern void *__kmpc_omp_task_alloc(void *loc, int32_t gtid, int32_t flags,
                                   size_t size, size_t shareds,
                                   int32_t (*entry)(int32_t, void *));
extern int32_t __kmpc_omp_task_with_deps(void *loc, int32_t gtid, void *task,
                                         int32_t ndeps, dep_t *deps,
                                         int32_t nnoalias, dep_t *noalias);
extern int32_t __kmpc_global_thread_num(void *loc);

#define TASKS 8      /* W1, S1, S2, S3, R, S4, S5, W2 */

static long x, start[TASKS], end[TASKS], tick;
static int met, pairs;

static long stamp(void)
{
    long v;
#pragma omp atomic capture
    v = ++tick;
    return v;
}

static void busy(int us)
{
    double until = omp_get_wtime() + us * 1e-6;
    while (omp_get_wtime() < until)
        ;
}

/* S1 and S2 wait (up to 10 s) for each other: only if they run together */
static void meet(void)
{
    int seen;
#pragma omp atomic capture
    seen = ++met;
    double give_up = omp_get_wtime() + 10.0;
    while (seen < 2 && omp_get_wtime() < give_up) {
#pragma omp atomic read
        seen = met;
    }
    CHECK(seen >= 2);
}

static int32_t entry(int32_t gtid, void *task)
{
    (void)gtid;
    int id = ((my_task_t *)task)->id;
    start[id] = stamp();
    if (pairs && (id == 1 || id == 2))
        meet();
    busy(200);
    end[id] = stamp();
    return 0;
}

static void make(int id, uint8_t kind)
{
    int32_t gtid = __kmpc_global_thread_num(NULL);
    my_task_t *t = __kmpc_omp_task_alloc(NULL, gtid, 1, sizeof *t, 0, entry);
    t->id = id;
    dep_t d = {(intptr_t)&x, sizeof x, kind};
    __kmpc_omp_task_with_deps(NULL, gtid, t, 1, &d, 0, NULL);
}

#define BEFORE(a, b) CHECK(end[a] < start[b])

int main(void)
{
    const char *t = getenv("DSM_THREADS");
    pairs = t && atoi(t) >= 2;
#pragma omp parallel
#pragma omp master
    {
        make(0, DEP_OUT);
        make(1, DEP_SET);
        make(2, DEP_SET);
        make(3, DEP_SET);
        make(4, DEP_IN);
        make(5, DEP_SET);
        make(6, DEP_SET);
        make(7, DEP_OUT);
    }
    for (int s = 1; s <= 3; s++) {
        BEFORE(0, s);
        BEFORE(s, 4);
    }
    BEFORE(4, 5);
    BEFORE(4, 6);
    BEFORE(5, 7);
    BEFORE(6, 7);
    RESULT("inoutset: %d tasks in order", TASKS);
    return check_status("omp_tasks_inoutset");
}
