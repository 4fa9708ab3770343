/*
 * fj_words.h - the team-wide words: node 0's copy of the fork-join CONTROL
 * words, reached with remote atomics from every node (node 0 included: a
 * network adapter's atomics are atomic only among themselves).
 *
 * Layer: forkjoin (internal).  Application threads only (the transport's
 * atomics may not be called from active-message handlers).  A transport
 * error ends the job with a message naming the word.
 */
#ifndef FJ_WORDS_H
#define FJ_WORDS_H

#include <stddef.h>
#include <stdint.h>

/* off: FJ_WORD(field) of fj_control_t.  Each returns the previous value. */
uint64_t fj_word_fadd(size_t off, uint64_t add);
uint64_t fj_word_swap(size_t off, uint64_t value);
/* Compare-and-swap: succeeded when the value returned equals expected. */
uint64_t fj_word_cswap(size_t off, uint64_t expected, uint64_t desired);
uint64_t fj_word_load(size_t off);
void fj_word_put(size_t off, uint64_t value);
/* Swap a word of another node's copy. */
uint64_t fj_word_swap_at(int rank, size_t off, uint64_t value);
/* Return once the word equals value.  Polls with transport progress; after
 * a short while it sleeps between polls so a waiting thread does not take
 * a core from the one it waits for.  No time limit: the wait is for the
 * application (an ordered iteration); a dead peer fails the poll. */
void fj_word_wait(size_t off, uint64_t value);
/* The same, until the word is at least value (a counter node 0 raises). */
void fj_word_wait_at_least(size_t off, uint64_t value);

#endif
