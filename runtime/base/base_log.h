/*
 * base_log.h - logging, fatal errors and assertions.
 * Layer: base.  dsm_log and dsm_fatal use stdio and may allocate: never call
 * them from the fault handler; use dsm_log_sigsafe (write(2) only) there.
 */
#ifndef BASE_LOG_H
#define BASE_LOG_H

#include <stdarg.h>

typedef enum dsm_log_level {
    DSM_LOG_ERROR = 0,
    DSM_LOG_WARN  = 1,
    DSM_LOG_INFO  = 2,
    DSM_LOG_DEBUG = 3,
} dsm_log_level_t;

/* Set the level and the prefix ("dsm[rank 3]") used by every message. */
void dsm_log_set_level(dsm_log_level_t level);
void dsm_log_set_rank(int rank);
dsm_log_level_t dsm_log_level(void);

void dsm_log(dsm_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Print the message and end the process (and so the job) with exit status
 * DSM_EXIT_FATAL. */
#define DSM_EXIT_FATAL 70
void dsm_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
/* Become the thread that ends the process, before doing what precedes a
 * dsm_fatal (telling peers): the first caller returns (again, in the same
 * thread), any other waits for it to end the process.  Any thread. */
void dsm_fatal_claim(void);

/* Async-signal-safe: writes the prefix and the given strings with write(2). */
void dsm_log_sigsafe(const char *a, const char *b);
/* Async-signal-safe unsigned-to-text (hex when base 16); returns buf. */
char *dsm_utoa(unsigned long long v, int base, char buf[32]);

#define DSM_ASSERT(cond)                                                      \
    do {                                                                      \
        if (__builtin_expect(!(cond), 0))                                     \
            dsm_fatal("assertion failed: %s (%s:%d)", #cond, __FILE__,        \
                      __LINE__);                                              \
    } while (0)

/* Invariant checks, compiled in by meson's -Dinvariants=true (test builds)
 * and out of every other build.  A failed check writes one line naming the
 * check and the caller's context, then ends the process with SIGABRT (a
 * core for gdb).  Async-signal-safe: usable in the fault handler. */
__attribute__((noreturn)) void dsm_invariant_failed(const char *check,
                                                    const char *context);
#ifdef DSM_INVARIANTS
#define DSM_INVARIANTS_ON 1
#define DSM_INVARIANT(cond, context)                                          \
    do {                                                                      \
        if (__builtin_expect(!(cond), 0))                                     \
            dsm_invariant_failed(#cond, context);                             \
    } while (0)
#else
#define DSM_INVARIANTS_ON 0
#define DSM_INVARIANT(cond, context) ((void)sizeof(!(cond)), (void)(context))
#endif

#define dsm_debug(...)                                                        \
    do {                                                                      \
        if (__builtin_expect(dsm_log_level() >= DSM_LOG_DEBUG, 0))            \
            dsm_log(DSM_LOG_DEBUG, __VA_ARGS__);                              \
    } while (0)

#endif
