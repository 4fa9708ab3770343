/*
 * gnu_tasks.c - explicit tasks as gcc compiles them (GOMP_task and
 * friends): a master that generates tasks while the team executes them
 * (each task waits until the master has generated them all, so they must
 * be deferred), recursive fib with taskwait (and final, mergeable,
 * untied, priority), dependence chains whose order is checked (out, in,
 * inout, mutexinoutset, depobj, if(0) with depend, taskwait depend),
 * a taskgroup, and taskloops with and without nogroup (the tasks of a
 * nogroup taskloop wait for the generating thread to pass it).
 *
 * Corpus program (tests/programs, compiler 'gcc'): exits 1 when wrong.
 * At most 64 tasks are outstanding per thread: libgomp runs tasks at once
 * beyond that, and a task that waits for its creator would then hang.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define NTASKS 40
#define WAIT_SECONDS 10.0

static int errors;
static int timed_out;

/* Wait until *flag is at least value; a bounded wait, so that a runtime
 * that does not defer tasks fails instead of hanging. */
static void wait_for(int *flag, int value, const char *what)
{
    double t0 = omp_get_wtime();
    for (;;) {
        int v, out;
#pragma omp atomic read
        v = *flag;
        if (v >= value)
            return;
#pragma omp atomic read
        out = timed_out;
        if (out)
            return;
        if (omp_get_wtime() - t0 > WAIT_SECONDS) {
            fprintf(stderr, "gnu_tasks: waited too long for %s\n", what);
#pragma omp atomic write
            timed_out = 1;
            return;
        }
    }
}

static void spin(int n)
{
    volatile int x = 0;
    for (int i = 0; i < n; i++)
        x += i;
}

static long fib(int n)
{
    long a, b;
    if (n < 2)
        return n;
#pragma omp task shared(a) firstprivate(n) final(n < 8) mergeable
    a = fib(n - 1);
#pragma omp task shared(b) firstprivate(n) final(n < 8) untied priority(1)
    {
        if (n < 8 && !omp_in_final())
#pragma omp atomic
            errors++;
        b = fib(n - 2);
    }
#pragma omp taskwait
    return a + b;
}

int main(void)
{
    int generated = 0, executed = 0;
    long fib22 = 0;
    int seq = 0, pos[8] = {0};
    long chain = 0;
    int in_seen = 0;
    long mtx = 0;
    int mtx_inside = 0, mtx_overlap = 0;
    long waited = 0, group_sum = 0;
    long loop_sum = 0, nogroup_sum = 0;
    int loop_go = 0;
    int hits[200] = {0};

#pragma omp parallel
    {
        /* the master generates, the team executes */
#pragma omp master
        {
            for (int i = 0; i < NTASKS; i++) {
#pragma omp task firstprivate(i)
                {
                    wait_for(&generated, 1, "the master's tasks");
#pragma omp atomic
                    executed += i + 1;
                }
            }
#pragma omp atomic write
            generated = 1;
        }
#pragma omp barrier

#pragma omp single
        fib22 = fib(22);

#pragma omp single
        {
            /* out, then two in, then inout, then an if(0) in */
#pragma omp task depend(out : chain)
            {
                spin(2000000);
                chain = 1;
#pragma omp atomic capture
                pos[0] = ++seq;
            }
            for (int k = 1; k <= 2; k++) {
#pragma omp task depend(in : chain) firstprivate(k)
                {
                    if (chain != 1)
#pragma omp atomic
                        errors++;
#pragma omp atomic
                    in_seen++;
#pragma omp atomic capture
                    pos[k] = ++seq;
                }
            }
#pragma omp task depend(inout : chain)
            {
                int s;
#pragma omp atomic read
                s = in_seen;
                if (s != 2)
#pragma omp atomic
                    errors++;
                chain = chain * 10 + 2;
#pragma omp atomic capture
                pos[3] = ++seq;
            }
            /* a chain whose result depends on its order */
            for (int k = 0; k < 10; k++) {
#pragma omp task depend(inout : chain) firstprivate(k)
                {
                    if (k == 0)
                        spin(1000000);
                    chain = chain * 3 + k;
                }
            }
            omp_depend_t obj;
#pragma omp depobj(obj) depend(inout : chain)
#pragma omp task depend(depobj : obj)
            {
                chain = chain + 7;
#pragma omp atomic capture
                pos[4] = ++seq;
            }
#pragma omp depobj(obj) destroy
#pragma omp task depend(in : chain) if (0)
            {
                /* undeferred, after its dependences */
#pragma omp atomic capture
                pos[5] = ++seq;
                waited = chain;
            }
            /* mutexinoutset: never two at once */
            for (int k = 0; k < 6; k++) {
#pragma omp task depend(mutexinoutset : mtx) firstprivate(k)
                {
                    int inside;
#pragma omp atomic capture
                    inside = ++mtx_inside;
                    if (inside != 1)
#pragma omp atomic write
                        mtx_overlap = 1;
                    long v = mtx;
                    spin(200000);
                    mtx = v + k + 1;
#pragma omp atomic
                    mtx_inside--;
                }
            }
#pragma omp task depend(in : mtx)
            {
                if (mtx != 21)
#pragma omp atomic
                    errors++;
            }
#pragma omp taskwait depend(in : mtx)
            if (mtx != 21)
                errors++;
            /* a taskgroup waits for its tasks' descendants */
#pragma omp taskgroup
            {
                for (int k = 0; k < 8; k++) {
#pragma omp task firstprivate(k)
                    {
#pragma omp task firstprivate(k)
                        {
                            spin(100000);
#pragma omp atomic
                            group_sum += k;
                        }
                    }
                }
            }
            if (group_sum != 28)
                errors++;
#pragma omp taskyield
        }

#pragma omp single
        {
            /* taskloop: an implicit taskgroup */
#pragma omp taskloop num_tasks(8) priority(2)
            for (int i = 0; i < 200; i++) {
#pragma omp atomic
                loop_sum += i;
#pragma omp atomic
                hits[i]++;
            }
            if (loop_sum != 19900)
                errors++;
            /* nogroup: the tasks wait until the generator passed */
#pragma omp taskloop nogroup grainsize(25)
            for (int i = 0; i < 200; i++) {
                wait_for(&loop_go, 1, "the nogroup taskloop's generator");
#pragma omp atomic
                nogroup_sum += 2 * i;
#pragma omp atomic
                hits[i]++;
            }
#pragma omp atomic write
            loop_go = 1;
#pragma omp taskwait
            if (nogroup_sum != 39800)
                errors++;
        }
    }

    for (int i = 0; i < 200; i++)
        if (hits[i] != 2)
            errors++;
    if (executed != NTASKS * (NTASKS + 1) / 2)
        errors++;
    if (!(pos[0] < pos[1] && pos[0] < pos[2] && pos[1] < pos[3] &&
          pos[2] < pos[3] && pos[3] < pos[4] && pos[4] < pos[5]))
        errors++;
    if (mtx_overlap)
        errors++;
    if (timed_out)
        errors++;
    printf("result: executed %d fib22 %ld\n", executed, fib22);
    printf("result: chain %ld waited %ld mtx %ld group %ld\n", chain,
           waited, mtx, group_sum);
    printf("result: taskloop %ld nogroup %ld\n", loop_sum, nogroup_sum);
    if (errors)
        fprintf(stderr, "gnu_tasks: %d errors (order %d %d %d %d %d %d)\n",
                errors, pos[0], pos[1], pos[2], pos[3], pos[4], pos[5]);
    return errors ? 1 : 0;
}
