/*
 * omp_tasks_depend.c - task dependences and their order: a chain of
 * inout tasks, a diamond (out, then two in/out, then in on both), readers
 * between writers, mutexinoutset (mutually exclusive, in any order, after
 * the writer before them and before the reader after them), an if(0) task
 * and taskwait with depend (wait for the writers), depobj and an iterator.
 * Each task stamps its start and end from one counter; the checks compare
 * stamps.
 *
 * Test program (dsmcc, dsmrun; also built with libomp for the
 * cross-check).  Exit status 0 when everything matched.
 */
#include <omp.h>

#include "omp_check.h"

#define CHAIN 24
#define READERS 6
#define MUTEX 8

typedef struct span {
    long start, end;
} span_t;

static long tick;
static span_t chain[CHAIN], diamond[4], reader[2][READERS], writer[3];
static span_t mutex_span[MUTEX], after_mutex, obj_span[4], iter_span[5];
static long x, y, z, q, arr[4];
static long inside, overlap, mutex_count, seen_by_if0, seen_by_wait;

static long stamp(void)
{
    long v;
#pragma omp atomic capture
    v = ++tick;
    return v;
}

static void busy(int us)
{
    double end = omp_get_wtime() + us * 1e-6;
    while (omp_get_wtime() < end)
        ;
}

#define BEFORE(a, b) CHECK((a).end < (b).start)

static void make_tasks(void)
{
    /* a chain: each waits for the one before */
    for (int i = 0; i < CHAIN; i++) {
#pragma omp task depend(inout : x) firstprivate(i)
        {
            chain[i].start = stamp();
            busy(20);
            x = x * 3 + i;
            chain[i].end = stamp();
        }
    }
    /* a diamond */
#pragma omp task depend(out : y, z)
    {
        diamond[0].start = stamp();
        busy(100);
        y = 1;
        z = 2;
        diamond[0].end = stamp();
    }
#pragma omp task depend(in : y) depend(inout : q)
    {
        diamond[1].start = stamp();
        busy(100);
        q += y * 10;
        diamond[1].end = stamp();
    }
#pragma omp task depend(in : z) depend(out : arr[0])
    {
        diamond[2].start = stamp();
        busy(100);
        arr[0] = z * 100;
        diamond[2].end = stamp();
    }
#pragma omp task depend(in : q, arr[0])
    {
        diamond[3].start = stamp();
        q += arr[0];
        diamond[3].end = stamp();
    }
    /* writers and readers alternate */
    for (int w = 0; w < 3; w++) {
#pragma omp task depend(out : arr[1]) firstprivate(w)
        {
            writer[w].start = stamp();
            busy(50);
            arr[1] = w + 1;
            writer[w].end = stamp();
        }
        if (w == 2)
            break;
        for (int r = 0; r < READERS; r++) {
#pragma omp task depend(in : arr[1]) firstprivate(w, r)
            {
                reader[w][r].start = stamp();
                CHECK_EQ_LONG(arr[1], w + 1);
                busy(30);
                reader[w][r].end = stamp();
            }
        }
    }
    /* mutexinoutset: one at a time, after the writer, before the reader */
#pragma omp task depend(out : arr[2])
    {
        busy(100);
        arr[2] = 1000;
    }
    for (int m = 0; m < MUTEX; m++) {
#pragma omp task depend(mutexinoutset : arr[2]) firstprivate(m)
        {
            mutex_span[m].start = stamp();
            long was;
#pragma omp atomic capture
            was = inside++;
            if (was != 0) {
#pragma omp atomic
                overlap++;
            }
            long v = arr[2];
            busy(30);
            arr[2] = v + 1;
            mutex_count++;
#pragma omp atomic
            inside--;
            mutex_span[m].end = stamp();
        }
    }
#pragma omp task depend(in : arr[2])
    {
        after_mutex.start = stamp();
        after_mutex.end = stamp();
    }
    /* if(0) and taskwait with depend wait for the writer */
#pragma omp task depend(out : arr[3])
    {
        busy(2000);
        arr[3] = 42;
    }
    /* Debian's libomp 14 keeps the dependence node of an undeferred task
     * and of taskwait depend on the waiting thread's stack, and another
     * thread may still release it after the wait returns (llvm-project
     * issue 85963, fixed in LLVM 19): the reference run aborts in
     * kmp_taskdeps.h now and then.  Its build uses a deferred reader and
     * a plain taskwait, which give the same values. */
#ifdef OMP_CHECK_LIBOMP
#pragma omp task depend(in : arr[3])
#else
#pragma omp task if (0) depend(in : arr[3])
#endif
    seen_by_if0 = arr[3];
#pragma omp task depend(inout : arr[3])
    {
        busy(1000);
        arr[3] += 1;
    }
#ifdef OMP_CHECK_LIBOMP
#pragma omp taskwait
#else
#pragma omp taskwait depend(in : arr[3])
#endif
    seen_by_wait = arr[3];
    /* depobj */
    omp_depend_t obj;
#pragma omp depobj(obj) depend(inout : z)
    for (int k = 0; k < 4; k++) {
#pragma omp task depend(depobj : obj) firstprivate(k)
        {
            obj_span[k].start = stamp();
            busy(20);
            z = z * 2 + k;
            obj_span[k].end = stamp();
        }
    }
#pragma omp taskwait
#pragma omp depobj(obj) destroy
    /* an iterator: one task waits for four writers */
    for (int k = 0; k < 4; k++) {
#pragma omp task depend(out : arr[k]) firstprivate(k)
        {
            iter_span[k].start = stamp();
            busy(50);
            iter_span[k].end = stamp();
        }
    }
#pragma omp task depend(iterator(k = 0 : 4), in : arr[k])
    {
        iter_span[4].start = stamp();
        iter_span[4].end = stamp();
    }
}

int main(void)
{
#pragma omp parallel
#pragma omp single
    make_tasks();

    long want = 0;
    for (int i = 0; i < CHAIN; i++) {
        want = want * 3 + i;
        if (i > 0)
            BEFORE(chain[i - 1], chain[i]);
    }
    CHECK_EQ_LONG(x, want);
    BEFORE(diamond[0], diamond[1]);
    BEFORE(diamond[0], diamond[2]);
    BEFORE(diamond[1], diamond[3]);
    BEFORE(diamond[2], diamond[3]);
    CHECK_EQ_LONG(q, 210);
    for (int w = 0; w < 2; w++)
        for (int r = 0; r < READERS; r++) {
            BEFORE(writer[w], reader[w][r]);
            BEFORE(reader[w][r], writer[w + 1]);
        }
    CHECK_EQ_LONG(arr[1], 3);
    CHECK_EQ_LONG(overlap, 0);
    CHECK_EQ_LONG(mutex_count, MUTEX);
    CHECK_EQ_LONG(arr[2], 1000 + MUTEX);
    for (int m = 0; m < MUTEX; m++)
        BEFORE(mutex_span[m], after_mutex);
    CHECK_EQ_LONG(seen_by_if0, 42);
    CHECK_EQ_LONG(seen_by_wait, 43);
    long zw = 2;
    for (int k = 0; k < 4; k++) {
        zw = zw * 2 + k;
        if (k > 0)
            BEFORE(obj_span[k - 1], obj_span[k]);
    }
    CHECK_EQ_LONG(z, zw);
    for (int k = 0; k < 4; k++)
        BEFORE(iter_span[k], iter_span[4]);
    RESULT("chain %ld, diamond %ld, mutex %ld, if0 %ld, wait %ld, depobj %ld",
           x, q, arr[2], seen_by_if0, seen_by_wait, z);
    return check_status("omp_tasks_depend");
}
