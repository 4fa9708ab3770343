/*
 * fj_mailbox.h - what nodes other than 0 receive from node 0 between
 * regions: FORK (start a region) and EXIT (finish with a status).
 *
 * Layer: forkjoin (internal).  fj_mailbox_register: start-up, before the
 * transport starts.  fj_mailbox_wait: the node's main thread, between
 * regions.  The handlers run in whichever thread progresses the transport.
 */
#ifndef FJ_MAILBOX_H
#define FJ_MAILBOX_H

#include "fj_internal.h"

void fj_mailbox_register(void);

/* Sleep until node 0's next message.  Returns 1 and *status for EXIT, 0
 * and *fork for FORK. */
int fj_mailbox_wait(const fj_fork_msg_t **fork, int *status);

#endif
