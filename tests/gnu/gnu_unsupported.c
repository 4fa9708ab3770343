/* gnu_unsupported.c - constructs whose GCC ABI entries dsmomp does not
 * support: each ends the job with "dsmomp: CONSTRUCT is not supported (in
 * FUNCTION): what to do instead", FUNCTION being the one the construct is
 * in (gcc's outlined body named after it).  argv[1] picks the construct.
 * The gnu suite (tests/forkjoin/expect-fatal.sh). */
#include <omp.h>
#include <stdio.h>
#include <string.h>

/* the GOMP 1.0 ABI of gcc before 4.9, which gcc 12 never emits */
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned n);

static int out[64];

static __attribute__((noinline)) void run_doacross(void)
{
#pragma omp parallel for ordered(1)
    for (int i = 1; i < 64; i++) {
#pragma omp ordered depend(sink : i - 1)
        out[i] = out[i - 1] + 1;
#pragma omp ordered depend(source)
    }
}

static __attribute__((noinline)) void run_target(void)
{
#pragma omp target map(tofrom : out)
    out[0] = 1;
}

static __attribute__((noinline)) void run_task_reduction(void)
{
    int sum = 0;
#pragma omp parallel for reduction(task, + : sum)
    for (int i = 0; i < 64; i++)
        sum += i;
    out[1] = sum;
}

static __attribute__((noinline)) void run_cancel(void)
{
#pragma omp parallel
    {
#pragma omp cancel parallel
        out[2] = 1;
    }
}

static __attribute__((noinline)) void run_detach(void)
{
    omp_event_handle_t ev;
#pragma omp task detach(ev)
    out[4] = 1;
    omp_fulfill_event(ev);
#pragma omp taskwait
}

static __attribute__((noinline)) void run_taskloop_reduction(void)
{
    int sum = 0;
#pragma omp taskloop reduction(+ : sum)
    for (int i = 0; i < 64; i++)
        sum += i;
    out[5] = sum;
}

static void body(void *data) { (void)data; }

static __attribute__((noinline)) void run_gomp1(void)
{
    GOMP_parallel_start(body, NULL, 0);
    out[3] = 1;          /* not a tail call: the caller stays run_gomp1 */
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "doacross") == 0)
        run_doacross();
    else if (strcmp(what, "target") == 0)
        run_target();
    else if (strcmp(what, "task_reduction") == 0)
        run_task_reduction();
    else if (strcmp(what, "cancel") == 0)
        run_cancel();
    else if (strcmp(what, "gomp1") == 0)
        run_gomp1();
    else if (strcmp(what, "detach") == 0)
        run_detach();
    else if (strcmp(what, "taskloop_reduction") == 0)
        run_taskloop_reduction();
    printf("%d\n", out[0] + out[1] + out[2]);
    return 0;
}
