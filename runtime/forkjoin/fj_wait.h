/*
 * fj_wait.h - waiting inside a node: a bounded spin, then a futex sleep;
 * and waiting for a team-wide word of node 0 (polled with transport
 * progress, backing off to short sleeps).
 *
 * Layer: forkjoin (internal).  fj_wait_change and fj_word_wait: application
 * threads.  fj_wake_all: any thread, active-message handlers included (a
 * futex wake never blocks).
 */
#ifndef FJ_WAIT_H
#define FJ_WAIT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sys_sync.h"

/* Return once *word differs from value (acquire). */
void fj_wait_change(_Atomic uint32_t *word, uint32_t value);
/* Return once *word is at least value (acquire). */
void fj_wait_at_least(_Atomic uint32_t *word, uint32_t value);
/* The same two, recorded on the activity board as waits for `what`
 * (about, arg, arg2: see base_activity.h) once they have to wait at all:
 * what the hang report says of the thread. */
void fj_wait_change_about(_Atomic uint32_t *word, uint32_t value,
                          const char *what, unsigned about, uint64_t arg,
                          uint64_t arg2);
void fj_wait_at_least_about(_Atomic uint32_t *word, uint32_t value,
                            const char *what, unsigned about, uint64_t arg,
                            uint64_t arg2);
void fj_wake_all(_Atomic uint32_t *word);

#endif
