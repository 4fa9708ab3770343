/*
 * shim_cxx_futex.c - C++20's waiting primitives across nodes:
 * std::atomic<T>::wait/notify, std::latch, std::barrier and
 * std::counting_semaphore.
 *
 * libstdc++ 12 blocks in them with syscall(SYS_futex, ...) from inline
 * code (bits/atomic_wait.h), on the atomic itself or on a word of its
 * waiter pool, a function-local static in the program's data: both are
 * sharable.  A futex sleeps on one node's memory: a wake from another
 * node never reaches the sleeper, and a page the protocol has protected
 * makes the wait fail with EFAULT (std::system_error "Bad address").
 * dsmc++ links with -Wl,--wrap=syscall, so the program's calls come here.
 *
 * In a job of several nodes, while the job runs, a FUTEX_WAIT or
 * FUTEX_WAIT_BITSET on sharable memory polls the word with the runtime's
 * cluster atomic load (exact at its home), sleeping longer each time up
 * to 1 ms, until it differs from the expected value or the timeout
 * passes; FUTEX_WAKE and FUTEX_WAKE_BITSET there wake nobody (nobody
 * sleeps in the kernel on such a word) and return 0.  A spurious or late
 * wake-up is allowed by both the futex contract and the C++ library,
 * which re-reads the atomic (through the atomics plug-in: exact, with
 * its memory order) and waits again.  Other futex operations on sharable
 * memory end the job naming them.  Every other call, and every call
 * before or after the job, in one-node jobs or on private memory, goes
 * to the C library.
 *
 * Layer: compiler-shim.  Entry point __wrap_syscall: any application
 * thread.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base_log.h"
#include "coherence.h"
#include "dsm.h"
#include "forkjoin.h"
#include "shim_cxx.h"

SHIM_EXPORT long __wrap_syscall(long number, ...);

static int cluster_word(const void *addr)
{
    return fj_started() && fj_heap_open() && dsm_num_nodes() > 1 &&
           dsm_is_sharable(addr);
}

static uint32_t load_word(const uint32_t *word)
{
    uint64_t old = 0;
    dsm_status_t st = dsm_coh_atomic((void *)word, 4, DSM_ATOMIC_LOAD, 0, 0,
                                     &old);
    if (st != DSM_OK)
        dsm_fatal("std::atomic wait (futex at %p): %s", (void *)word,
                  dsm_status_string(st));
    return (uint32_t)old;
}

static int64_t ns_of(const struct timespec *ts)
{
    return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int64_t now_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ns_of(&ts);
}

/* FUTEX_WAIT's timeout is relative, FUTEX_WAIT_BITSET's absolute on the
 * monotonic clock, or the real-time one with FUTEX_CLOCK_REALTIME. */
static long poll_wait(const uint32_t *word, uint32_t expected, int cmd,
                      int op, const struct timespec *timeout)
{
    clockid_t clock = (cmd == FUTEX_WAIT_BITSET &&
                       (op & FUTEX_CLOCK_REALTIME)) ? CLOCK_REALTIME
                                                    : CLOCK_MONOTONIC;
    int64_t deadline = INT64_MAX;
    if (timeout)
        deadline = cmd == FUTEX_WAIT ? now_ns(clock) + ns_of(timeout)
                                     : ns_of(timeout);
    if (load_word(word) != expected) {
        errno = EAGAIN;
        return -1;
    }
    for (unsigned round = 0;; round++) {
        /* 1 us, doubling up to 1 ms: each poll may cross the network */
        long ns = 1000L << (round < 10 ? round : 10);
        if (timeout) {
            int64_t left = deadline - now_ns(clock);
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            if (left < ns)
                ns = (long)left;
        }
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        if (load_word(word) != expected)
            return 0;
    }
}

/* syscall() takes its six arguments whatever the call: like the C
 * library's, this reads all six, so va_arg reads past the caller's last
 * argument on the stack (its own frame, harmless), which AddressSanitizer
 * would report. */
__attribute__((no_sanitize("address")))
long __wrap_syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_futex && cluster_word((void *)a[0])) {
        const uint32_t *word = (const uint32_t *)a[0];
        int op = (int)a[1];
        int cmd = op & FUTEX_CMD_MASK;
        switch (cmd) {
        case FUTEX_WAIT:
        case FUTEX_WAIT_BITSET:
            return poll_wait(word, (uint32_t)a[2], cmd, op,
                             (const struct timespec *)a[3]);
        case FUTEX_WAKE:
        case FUTEX_WAKE_BITSET:
            return 0;
        default:
            dsm_fatal("futex operation %d on shared memory at %p is not "
                      "supported in a job of several nodes (std::atomic "
                      "wait and notify, latch, barrier and semaphores "
                      "are)", cmd, (void *)word);
        }
    }
    /* --wrap renames the program's calls only: this is the C library's */
    return syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
