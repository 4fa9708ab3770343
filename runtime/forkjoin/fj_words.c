/*
 * fj_words.c - remote atomics and polls on the team-wide words of node 0's
 * CONTROL copy (see fj_words.h).
 *
 * Results arrive in a thread-local buffer, never in a local variable:
 * team threads run on sharable stacks, whose pages the protocol may
 * write-protect while the transport writes a result.
 *
 * A team inside one node (a nested region, fj_nested.c) has team-wide
 * words of its own, in the node's private memory: the calling thread's
 * team decides, and such a team's words take the CPU's atomics.
 *
 * Layer: forkjoin.  Entry points: the fj_word_* of fj_words.h.
 * Application threads only.
 */
#include "fj_words.h"

#include <sched.h>
#include <time.h>

#include "base_log.h"
#include "fj_internal.h"
#include "fj_partials.h"
#include "fj_wait.h"
#include "sys_activity.h"
#include "sys_stack.h"
#include "transport.h"

static __thread uint64_t result;

/* The word in the calling thread's team when that team has its own words
 * (inside one node), else NULL: node 0's CONTROL copy. */
static uint64_t *team_word(size_t off)
{
    fj_thread_t *self = fj_self_or_null();
    fj_team_t *team = self ? self->team : NULL;
    if (!team || !team->words)
        return NULL;
    return (uint64_t *)((char *)team->words + off);
}

static void check(dsm_status_t st, const char *op, size_t off)
{
    if (st != DSM_OK)
        dsm_fatal("fork-join %s of control word %zu at node 0: %s", op, off,
                  dsm_status_string(st));
}

uint64_t fj_word_fadd(size_t off, uint64_t add)
{
    uint64_t *w = team_word(off);
    if (w)
        return __atomic_fetch_add(w, add, __ATOMIC_ACQ_REL);
    check(dsm_tp_atomic_fadd64(0, DSM_TP_SEG_CONTROL, fj.control_off + off,
                               add, &result), "fetch-add", off);
    return result;
}

uint64_t fj_word_swap(size_t off, uint64_t value)
{
    uint64_t *w = team_word(off);
    if (w)
        return __atomic_exchange_n(w, value, __ATOMIC_ACQ_REL);
    return fj_word_swap_at(0, off, value);
}

uint64_t fj_word_cswap(size_t off, uint64_t expected, uint64_t desired)
{
    uint64_t *w = team_word(off);
    if (w) {
        __atomic_compare_exchange_n(w, &expected, desired, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        return expected;
    }
    check(dsm_tp_atomic_cswap64(0, DSM_TP_SEG_CONTROL, fj.control_off + off,
                                expected, desired, &result),
          "compare-and-swap", off);
    return result;
}

uint64_t fj_word_swap_at(int rank, size_t off, uint64_t value)
{
    check(dsm_tp_atomic_swap64(rank, DSM_TP_SEG_CONTROL, fj.control_off + off,
                               value, &result), "swap", off);
    return result;
}

uint64_t fj_word_load(size_t off)
{
    uint64_t *w = team_word(off);
    if (w)
        return __atomic_load_n(w, __ATOMIC_ACQUIRE);
    if (fj.rank == 0)
        return __atomic_load_n((uint64_t *)((char *)fj.control + off),
                               __ATOMIC_ACQUIRE);
    check(dsm_tp_get(0, DSM_TP_SEG_CONTROL, fj.control_off + off, &result,
                     sizeof result), "read", off);
    return result;
}

void fj_word_put(size_t off, uint64_t value)
{
    /* a swap rather than a put: the word is also a target of atomics */
    fj_word_swap(off, value);
}

static void poll_pause(unsigned polls)
{
    /* a word of this node needs no transport progress, and is set by a
     * thread of this node: spin a little first */
    int local = team_word(0) != NULL;
    if (local && polls < 256) {
        dsm_cpu_relax();
        return;
    }
    if (!local)
        dsm_tp_progress();
    if (polls < (local ? 512u : 64u)) {
        sched_yield();
    } else {
        struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
    }
}

typedef struct word_wait {
    size_t off;
    uint64_t value;
    int at_least;
} word_wait_t;

static void word_wait_body(void *p)
{
    const word_wait_t *w = p;
    dsm_activity_saved_t saved;   /* for the hang report */
    dsm_activity_wait_about(&saved, "a control word", 0,
                            DSM_ACTIVITY_ABOUT_WORD, w->off, w->value);
    for (unsigned polls = 0;; polls++) {
        uint64_t now = fj_word_load(w->off);
        if (w->at_least ? now >= w->value : now == w->value)
            break;
        poll_pause(polls);
    }
    dsm_activity_end(&saved);
}

/* The polls progress the transport: on the runtime stack once, rather
 * than a switch in every progress call made on the (sharable) team stack
 * (design.md, "Locks and their order"). */
void fj_word_wait(size_t off, uint64_t value)
{
    fj_partials_flush();
    if (fj_word_load(off) == value)
        return;
    word_wait_t w = {off, value, 0};
    dsm_sys_on_rtstack(word_wait_body, &w);
}

void fj_word_wait_at_least(size_t off, uint64_t value)
{
    fj_partials_flush();
    if (fj_word_load(off) >= value)
        return;
    word_wait_t w = {off, value, 1};
    dsm_sys_on_rtstack(word_wait_body, &w);
}
