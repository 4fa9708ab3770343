/*
 * sys_fault.h - page-fault delivery for the sharable region (libsigsegv).
 *
 * Layer: sys.  dsm_sys_fault_install/uninstall: start-up and shut-down.
 * The registered handler runs inside the SIGSEGV handler of the faulting
 * thread: it must be async-signal-safe as far as the process state goes
 * (no malloc, no stdio, no locks an interrupted thread might hold).
 *
 * libsigsegv dispatches the fault (SIGSEGV; SIGBUS is never ours).  A
 * fault the handler declines takes the crash path: the core dump is
 * prepared (sys_dump.h), then the program's previous handler gets the
 * fault, or, when there is none, the default action is restored, one line
 * names the address (write(2) only) and the faulting instruction runs
 * again and ends the process with the usual signal and address.  While a
 * fault is handled both signals are blocked, so a fault inside the crash
 * path ends the process at once.  A SIGSEGV or SIGBUS sent by a process
 * (si_code <= 0) is no fault: it goes to the program's handler or ends
 * the process.  libsigsegv does not tell reads from writes, so a thin
 * SA_SIGINFO front handler reads the access type from the machine context
 * (x86-64: the page-fault error code) before passing the signal on.
 */
#ifndef SYS_FAULT_H
#define SYS_FAULT_H

#include <stdint.h>

#include "dsm.h"

typedef enum dsm_fault_access {
    DSM_FAULT_UNKNOWN = -1,   /* platform cannot tell: treat as read first */
    DSM_FAULT_READ = 0,
    DSM_FAULT_WRITE = 1,
} dsm_fault_access_t;

/* Return non-zero when the fault was ours and is resolved (the access is
 * retried), zero when the address is not ours. */
typedef int (*dsm_fault_handler_t)(uintptr_t addr, dsm_fault_access_t access);

/* Deliver faults to handler first.  Faults it declines go to the handler
 * the program had installed before, or to the default action. */
dsm_status_t dsm_sys_fault_install(dsm_fault_handler_t handler);
void dsm_sys_fault_uninstall(void);

/* Put the front handler back after a test framework replaced the SIGSEGV
 * action (cmocka does so around every test).  No-op when not installed. */
void dsm_sys_fault_reassert(void);

#endif
