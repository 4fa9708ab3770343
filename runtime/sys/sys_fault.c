/*
 * sys_fault.c - SIGSEGV dispatch for the sharable region through libsigsegv,
 * with a front handler that records whether the access was a write.
 * Layer: sys.  Runs in signal context: no malloc, no stdio.
 */
#include "sys_fault.h"

#include <signal.h>
#include <sigsegv.h>
#include <string.h>
#include <ucontext.h>

#include "base_log.h"

static dsm_fault_handler_t volatile fault_handler;
static struct sigaction libsigsegv_action;   /* what libsigsegv installed */
static struct sigaction program_action;      /* what the program had before */
static volatile int installed;

/* Per-thread state handed from the front handler to the libsigsegv callback.
 * initial-exec TLS is safe to touch in a signal handler. */
static __thread __attribute__((tls_model("initial-exec")))
    dsm_fault_access_t current_access;
static __thread __attribute__((tls_model("initial-exec")))
    siginfo_t *current_info;
static __thread __attribute__((tls_model("initial-exec")))
    void *current_context;

static dsm_fault_access_t access_from_context(void *ctx)
{
#if defined(__x86_64__)
    const ucontext_t *uc = ctx;
    /* bit 1 of the page-fault error code: the access was a write */
    return (uc->uc_mcontext.gregs[REG_ERR] & 2) ? DSM_FAULT_WRITE
                                                : DSM_FAULT_READ;
#else
    (void)ctx;
    return DSM_FAULT_UNKNOWN;
#endif
}

static int call_program_handler(int sig)
{
    if (program_action.sa_flags & SA_SIGINFO) {
        program_action.sa_sigaction(sig, current_info, current_context);
        return 1;
    }
    if (program_action.sa_handler != SIG_DFL &&
        program_action.sa_handler != SIG_IGN) {
        program_action.sa_handler(sig);
        return 1;
    }
    return 0;
}

/* A real crash: say where before the default action ends the process, so
 * that the node's SIGSEGV comes with its address (write(2) only). */
static void report_crash(void *fault_address)
{
    char digits[32], text[80] = "0x";
    size_t len = 2;
    const char *hex = dsm_utoa((unsigned long long)(uintptr_t)fault_address,
                               16, digits);
    const char *tail = " (not a sharable page): the node ends with SIGSEGV";
    size_t hex_len = strlen(hex), tail_len = strlen(tail);
    if (len + hex_len + tail_len < sizeof text) {
        memcpy(text + len, hex, hex_len);
        len += hex_len;
        memcpy(text + len, tail, tail_len + 1);
    }
    dsm_log_sigsafe("segmentation fault at address ", text);
}

/* libsigsegv callback: the registered handler decides whether it is ours. */
static int dispatch(void *fault_address, int serious)
{
    dsm_fault_handler_t handler = fault_handler;
    if (handler && handler((uintptr_t)fault_address, current_access))
        return 1;
    /* not ours: the program's own handler, else libsigsegv restores the
     * default action and the fault recurs */
    if (call_program_handler(SIGSEGV))
        return 1;
    report_crash(fault_address);
    return 0;
}

static void front_handler(int sig, siginfo_t *info, void *ctx)
{
    current_access = access_from_context(ctx);
    current_info = info;
    current_context = ctx;
    if (libsigsegv_action.sa_flags & SA_SIGINFO)
        libsigsegv_action.sa_sigaction(sig, info, ctx);
    else if (libsigsegv_action.sa_handler != SIG_DFL &&
             libsigsegv_action.sa_handler != SIG_IGN)
        libsigsegv_action.sa_handler(sig);
    else
        signal(sig, SIG_DFL);   /* libsigsegv gave up: default action */
}

static struct sigaction front_action(void)
{
    struct sigaction front;
    memset(&front, 0, sizeof front);
    front.sa_sigaction = front_handler;
    /* on the thread's alternate stack when it has one: a fault on a
     * write-protected sharable stack page cannot take its signal frame there */
    front.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&front.sa_mask);
    return front;
}

void dsm_sys_fault_reassert(void)
{
    if (installed) {
        struct sigaction front = front_action();
        sigaction(SIGSEGV, &front, NULL);
    }
}

dsm_status_t dsm_sys_fault_install(dsm_fault_handler_t handler)
{
    if (installed)
        return DSM_ERR_STATE;
    sigaction(SIGSEGV, NULL, &program_action);
    fault_handler = handler;
    if (sigsegv_install_handler(dispatch) != 0) {
        dsm_log(DSM_LOG_ERROR, "libsigsegv cannot catch SIGSEGV here");
        return DSM_ERR_IO;
    }
    struct sigaction front = front_action();
    if (sigaction(SIGSEGV, &front, &libsigsegv_action) != 0) {
        sigsegv_deinstall_handler();
        return DSM_ERR_IO;
    }
    installed = 1;
    return DSM_OK;
}

void dsm_sys_fault_uninstall(void)
{
    if (!installed)
        return;
    sigaction(SIGSEGV, &libsigsegv_action, NULL);
    sigsegv_deinstall_handler();
    sigaction(SIGSEGV, &program_action, NULL);
    fault_handler = NULL;
    installed = 0;
}
