/*
 * fj_ordered.c - ordered sections of a loop: iteration i may enter when
 * the team counter of its loop slot (node 0's CONTROL word) equals i; the
 * section ends by bumping it.  An iteration that skips the section bumps
 * the counter at its end (__kmpc_dispatch_fini), after its turn.  Across
 * nodes the section also holds a cluster lock, so that it sees what the
 * previous section wrote.
 *
 * Layer: forkjoin.  Entry points: fj_ordered_begin, fj_ordered_end,
 * fj_dispatch_fini.  Members of a region inside an ordered loop (lone
 * threads pass straight through).
 */
#include <stdint.h>

#include "fj_internal.h"
#include "fj_loops.h"
#include "fj_words.h"

/* The ordered sections' lock names, one per loop slot: addresses in this
 * library, the same on every node (no address randomisation). */
static const char ordered_keys[FJ_LOOP_SLOTS];

static size_t ord_word(const fj_loop_t *loop)
{
    return fj_slot_word(loop->instance, offsetof(fj_loop_slot_t, ord));
}

/* Wait for this iteration's turn.  The counter only moves past our
 * iteration when we bump it, so a value we saw or set stays valid. */
static void wait_turn(fj_loop_t *loop)
{
    if (loop->ord_known == loop->ord_cur)
        return;
    fj_word_wait(ord_word(loop), loop->ord_cur);
    loop->ord_known = loop->ord_cur;
}

static void bump(fj_loop_t *loop)
{
    fj_word_fadd(ord_word(loop), 1);
    loop->ord_known = loop->ord_cur + 1;
    loop->ord_bumped = 1;
}

static const void *ordered_key(const fj_loop_t *loop)
{
    return &ordered_keys[loop->instance % FJ_LOOP_SLOTS];
}

void fj_ordered_begin(void)
{
    fj_thread_t *self = fj_self();
    fj_loop_t *loop = fj_loop_here(self);
    if (!loop->shared || !loop->ordered)
        return;
    wait_turn(loop);
    if (self->team->nodes > 1)
        fj_named_lock(ordered_key(loop), "entering an ordered section");
}

void fj_ordered_end(void)
{
    fj_thread_t *self = fj_self();
    fj_loop_t *loop = fj_loop_here(self);
    if (!loop->shared || !loop->ordered)
        return;
    if (self->team->nodes > 1)
        fj_named_unlock(ordered_key(loop), "leaving an ordered section");
    bump(loop);
}

void fj_dispatch_fini(void)
{
    fj_thread_t *self = fj_self();
    fj_loop_t *loop = fj_loop_here(self);
    if (!loop->shared || !loop->ordered)
        return;
    if (!loop->ord_bumped) {
        wait_turn(loop);
        bump(loop);
    }
    loop->ord_cur++;
    loop->ord_bumped = 0;
}
