/*
 * sys_stack.h - running a function on another stack.
 *
 * Layer: sys.
 *   dsm_sys_run_on_stack   run fn(arg) on a given stack (node 0's main on
 *                          the sharable main stack, team threads on theirs)
 *   dsm_sys_rtstack_thread_init / dsm_sys_on_rtstack
 *                          a private "runtime stack" per thread: the
 *                          coherence protocol's releases and acquires run
 *                          there, because a release write-protects pages
 *                          while holding their locks, and a push onto a
 *                          sharable stack page under those locks would
 *                          fault into a lock its own thread holds.
 * Any application thread; not the fault handler.
 */
#ifndef SYS_STACK_H
#define SYS_STACK_H

#include <stddef.h>

#include "dsm.h"

void dsm_sys_run_on_stack(void *lo, size_t len, void (*fn)(void *), void *arg);

/* Give the calling thread a runtime stack (idempotent). */
dsm_status_t dsm_sys_rtstack_thread_init(void);
/* Run fn(arg) on the calling thread's runtime stack; directly when it has
 * none (its stack is never sharable) or is already on it. */
void dsm_sys_on_rtstack(void (*fn)(void *), void *arg);
/* Is the caller running on a sharable stack (a page of an application
 * window)?  The transport asks it at its entry points: the caller then
 * switches to its runtime stack, so that no transport lock is held and no
 * handler runs on a page a release may write-protect.  A few compares. */
int dsm_sys_stack_sharable(void);

#endif
