/*
 * transport_bench.c - latency of the transport layer's basic operations
 * between two nodes, to be set beside raw UCX (ucx_perftest) by
 * run-transport-bench.sh.
 *
 * Layer: bench (links the transport and sys).  Run under dsmrun -n 2:
 * node 0 measures, node 1 serves.  Prints one line per figure,
 *     RESULT <name> <mean microseconds> <iterations>
 * and never asserts on timing.  Figures (mean over the iterations, after
 * a warm-up):
 *   am_lat_8        8-byte active message, half round trip; node 1's
 *                   application thread waits (polls) and answers, as
 *                   ucx_perftest's ucp_am_lat responder does
 *   am_lat_8_hdl    the same, but node 1 answers from inside the handler
 *                   (the reply is queued and sent after the progress call)
 *   get_4k          blocking get of 4 KiB from node 1's sharable region
 *   fadd64          blocking 64-bit fetch-and-add on node 1's control
 *                   segment; node 1 waits inside the runtime (polls)
 *   fadd64_idle     the same while node 1's application thread sleeps in
 *                   sem_wait: only its progress thread can serve
 *   get_4k_idle     the get while node 1 sleeps
 *   get_4k_busy     the get while node 1 alternates a short wait in the
 *                   runtime (BUSY_WAIT_US) and computation outside it
 *                   (BUSY_COMPUTE_US), as an application between its
 *                   synchronisations: gets that arrive while it computes
 *                   need the progress thread
 *   get_256k        blocking get of 256 KiB, a prefetch run of 64 pages
 *                   (one transpose's half of the FFT kernel); node 1
 *                   waits (polls); a fiftieth of the iterations
 * Each figure also prints its median, 90th and 99th percentile:
 *     PERCENTILES <name> p50 <us> p90 <us> p99 <us>
 * Node 1's "waits" are dsm_tp_wait_flag on a flag its DONE handler sets.
 *
 * Usage: dsmrun -n 2 transport_bench [iterations [figure]]
 * (default 100000 iterations, every figure).  With DSM_PROGRESS_THREAD=0
 * the *_idle figures are skipped: nothing would serve node 0.
 */
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base_config.h"
#include "base_time.h"
#include "sys_region.h"
#include "transport.h"

enum {
    AM_START = DSM_TP_AM_CLIENT_FIRST,   /* node 0 -> 1: phase number */
    AM_DONE,    /* node 0 -> 1: phase over */
    AM_PING,
    AM_PONG,
    AM_PING_HDL,
    AM_READY,   /* node 1 -> 0: ready for the phase */
};

typedef enum phase {
    PH_AM_MAIN, PH_AM_HANDLER, PH_GET, PH_FADD, PH_FADD_IDLE, PH_GET_IDLE,
    PH_GET_BUSY, PH_GET_256K, PH_COUNT, PH_QUIT = PH_COUNT
} phase_t;

static const char *const phase_names[PH_COUNT] = {
    "am_lat_8", "am_lat_8_hdl", "get_4k", "fadd64", "fadd64_idle",
    "get_4k_idle", "get_4k_busy", "get_256k"};

#define LARGE_GET_BYTES ((size_t)256 << 10)

#define BUSY_WAIT_US 50
#define BUSY_COMPUTE_US 1000

static volatile int started, done, ready, ping, pong;
static volatile int wake;   /* node 1: a ping or the end of the phase */
static volatile int phase_arg;
static sem_t idle_done;
static int idle_phase;

static void on_start(int src, const void *p, size_t len, void *arg)
{
    memcpy((void *)&phase_arg, p, sizeof phase_arg);
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
}

static void on_done(int src, const void *p, size_t len, void *arg)
{
    if (idle_phase)
        sem_post(&idle_done);
    else
        __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&wake, 1, __ATOMIC_RELEASE);
}

static void on_ready(int src, const void *p, size_t len, void *arg)
{
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

static void on_ping(int src, const void *p, size_t len, void *arg)
{
    __atomic_store_n(&ping, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&wake, 1, __ATOMIC_RELEASE);
}

static void on_pong(int src, const void *p, size_t len, void *arg)
{
    __atomic_store_n(&pong, 1, __ATOMIC_RELEASE);
}

static void must(dsm_status_t st, const char *what)
{
    if (st != DSM_OK) {
        fprintf(stderr, "transport_bench: %s: %s\n", what,
                dsm_status_string(st));
        exit(1);
    }
}

static void on_ping_hdl(int src, const void *p, size_t len, void *arg)
{
    must(dsm_tp_am_send(src, AM_PONG, p, len), "pong");
}

static void take(volatile int *flag, const char *what)
{
    dsm_tp_wait_flag(flag, what);
    __atomic_store_n(flag, 0, __ATOMIC_RELAXED);
}

/* ---- node 1 ------------------------------------------------------------------ */

static void serve(void)
{
    for (;;) {
        take(&started, "the next phase");
        int ph = phase_arg;
        if (ph == PH_QUIT)
            return;
        idle_phase = ph == PH_FADD_IDLE || ph == PH_GET_IDLE;
        if (ph == PH_GET_BUSY) {
            must(dsm_tp_am_send(0, AM_READY, NULL, 0), "ready");
            static const volatile int never;
            while (!dsm_tp_wait_flag_for(&done, "the end of the phase",
                                         BUSY_WAIT_US * 1000ull)) {
                uint64_t until = dsm_now_ns() + BUSY_COMPUTE_US * 1000ull;
                while (dsm_now_ns() < until && !never)
                    ;
            }
            __atomic_store_n(&done, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&wake, 0, __ATOMIC_RELAXED);
            continue;
        }
        must(dsm_tp_am_send(0, AM_READY, NULL, 0), "ready");
        if (ph == PH_AM_MAIN) {
            uint64_t payload = 0;
            for (;;) {
                take(&wake, "a ping or the end of the phase");
                if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
                    break;
                __atomic_store_n(&ping, 0, __ATOMIC_RELAXED);
                must(dsm_tp_am_send(0, AM_PONG, &payload, sizeof payload),
                     "pong");
            }
            __atomic_store_n(&done, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&ping, 0, __ATOMIC_RELAXED);
        } else if (idle_phase) {
            while (sem_wait(&idle_done) != 0)
                ;
        } else {
            take(&done, "the end of the phase");
            __atomic_store_n(&wake, 0, __ATOMIC_RELAXED);
        }
    }
}

/* ---- node 0 ------------------------------------------------------------------ */

/* per-iteration times of the timed run (NULL during the warm-up) */
static uint64_t *lap_ns;

static void run_ops(phase_t ph, long iters)
{
    uint64_t payload = 0, old;
    static unsigned char buf[4096], large[LARGE_GET_BYTES];
    uint64_t t = lap_ns ? dsm_now_ns() : 0;
    for (long i = 0; i < iters; i++) {
        if (lap_ns && i) {
            uint64_t now = dsm_now_ns();
            lap_ns[i - 1] = now - t;
            t = now;
        }
        switch (ph) {
        case PH_AM_MAIN:
            must(dsm_tp_am_send(1, AM_PING, &payload, sizeof payload), "ping");
            take(&pong, "a pong");
            break;
        case PH_AM_HANDLER:
            must(dsm_tp_am_send(1, AM_PING_HDL, &payload, sizeof payload),
                 "ping");
            take(&pong, "a pong");
            break;
        case PH_GET:
        case PH_GET_IDLE:
        case PH_GET_BUSY:
            must(dsm_tp_get(1, DSM_TP_SEG_REGION, 64 * 4096, buf, sizeof buf),
                 "get");
            break;
        case PH_GET_256K:
            must(dsm_tp_get(1, DSM_TP_SEG_REGION, 64 * 4096, large,
                            sizeof large), "get");
            break;
        default:
            must(dsm_tp_atomic_fadd64(1, DSM_TP_SEG_CONTROL, 0, 1, &old),
                 "fadd");
            break;
        }
    }
    if (lap_ns && iters)
        lap_ns[iters - 1] = dsm_now_ns() - t;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void measure(long iters, const char *only)
{
    for (int ph = 0; ph <= PH_QUIT; ph++) {
        int idle = ph == PH_FADD_IDLE || ph == PH_GET_IDLE ||
                   ph == PH_GET_BUSY;
        if (ph < PH_COUNT &&
            ((only && strcmp(only, phase_names[ph]) != 0) ||
             (idle && !dsm_config()->progress_thread)))
            continue;
        must(dsm_tp_am_send(1, AM_START, &ph, sizeof ph), "start");
        if (ph == PH_QUIT)
            break;
        take(&ready, "node 1 to be ready");
        long n = idle ? iters / 10 : ph == PH_GET_256K ? iters / 50 : iters;
        if (n < 100)
            n = 100;
        run_ops((phase_t)ph, n / 10 + 100);   /* warm-up */
        lap_ns = malloc((size_t)n * sizeof *lap_ns);
        uint64_t t0 = dsm_now_ns();
        run_ops((phase_t)ph, n);
        uint64_t t1 = dsm_now_ns();
        double us = (double)(t1 - t0) / 1e3 / (double)n;
        double half = ph == PH_AM_MAIN || ph == PH_AM_HANDLER ? 2 : 1;
        us /= half;   /* half round trip */
        printf("RESULT %s %.3f %ld\n", phase_names[ph], us, n);
        if (lap_ns) {
            /* the median and tail of the iterations (half round trips
             * for the active messages), as ucx_perftest's "typical" */
            qsort(lap_ns, (size_t)n, sizeof *lap_ns, cmp_u64);
            printf("PERCENTILES %s p50 %.3f p90 %.3f p99 %.3f\n",
                   phase_names[ph], (double)lap_ns[n / 2] / 1e3 / half,
                   (double)lap_ns[n * 9 / 10] / 1e3 / half,
                   (double)lap_ns[n * 99 / 100] / 1e3 / half);
            free(lap_ns);
            lap_ns = NULL;
        }
        fflush(stdout);
        must(dsm_tp_am_send(1, AM_DONE, NULL, 0), "done");
    }
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 100000;
    if (iters < 100 || dsm_config_load() != DSM_OK || sem_init(&idle_done, 0, 0))
        return 2;
    must(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_START,
                            on_start, NULL), "register");
    must(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_DONE,
                            on_done, NULL), "register");
    must(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_READY,
                            on_ready, NULL), "register");
    must(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_PING,
                            on_ping, NULL), "register");
    must(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_PONG,
                            on_pong, NULL), "register");
    must(dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_PING_HDL,
                            on_ping_hdl, NULL), "register");

    dsm_region_t region;
    must(dsm_sys_region_create(dsm_config()->region_size, &region), "region");
    void *control = aligned_alloc(DSM_PAGE_SIZE, DSM_PAGE_SIZE);
    if (!control)
        return 1;
    memset(control, 0, DSM_PAGE_SIZE);
    dsm_tp_segments_t segs = {.base = {region.rt, control},
                              .size = {region.size, DSM_PAGE_SIZE}};
    must(dsm_tp_init(&segs), "dsm_tp_init");
    if (dsm_tp_size() != 2) {
        fprintf(stderr, "transport_bench: run it with dsmrun -n 2\n");
        return 2;
    }
    if (dsm_tp_rank() == 0)
        measure(iters, argc > 2 ? argv[2] : NULL);
    else
        serve();
    must(dsm_tp_finalize(), "dsm_tp_finalize");
    dsm_sys_region_destroy(&region);
    free(control);
    return 0;
}
