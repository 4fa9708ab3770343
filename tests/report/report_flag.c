/*
 * report_flag.c - a flag spun on across nodes, for the sharing report's
 * tests: thread 0 (node 0) sets `ready' once it has waited a while, and
 * the job's last thread (another node) polls it with atomic reads; then
 * the same with `done' and a flush in the loop.  Each poll loop runs at
 * least POLLS times, whatever the timing.  The report must name `ready'
 * as a flag spun on, and the flush loop (marked "the flush loop") among
 * the flushes by call site.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define POLLS 3000

static int ready __attribute__((aligned(4096)));
static int done __attribute__((aligned(4096)));

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

int main(void)
{
    long polls_ready = 0, polls_done = 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num(), last = omp_get_num_threads() - 1;
        if (t == 0) {
            pause_ms(20);
#pragma omp atomic write
            ready = 1;
            pause_ms(20);
            done = 1;
#pragma omp flush
        } else if (t == last) {
            long p = 0;
            int seen;
            do {
#pragma omp atomic read
                seen = ready;
                p++;
            } while (!seen || p < POLLS);
            polls_ready = p;
            p = 0;
            do {
#pragma omp flush                           /* the flush loop */
                seen = done;
                p++;
            } while (!seen || p < POLLS);
            polls_done = p;
        }
    }
    printf("result: ready %d done %d polls %ld %ld\n", ready, done,
           polls_ready, polls_done);
    return ready == 1 && done == 1 && polls_ready >= POLLS &&
                   polls_done >= POLLS
               ? 0 : 1;
}
