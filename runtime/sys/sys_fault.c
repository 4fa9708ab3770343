/*
 * sys_fault.c - SIGSEGV dispatch for the sharable region through libsigsegv,
 * with a front handler that records whether the access was a write, and
 * the crash path of every fault that is not the protocol's.
 * Layer: sys.  Runs in signal context: no malloc, no stdio.
 */
#include "sys_fault.h"

#include <errno.h>
#include <signal.h>
#include <sigsegv.h>
#include <string.h>
#include <ucontext.h>

#include "base_log.h"
#include "sys_dump.h"

static dsm_fault_handler_t volatile fault_handler;
/* The signals libsigsegv takes: a page fault is SIGSEGV; SIGBUS is an
 * access beyond a mapped file's end. */
enum { NSIGNALS = 2 };
static const int fault_signals[NSIGNALS] = {SIGSEGV, SIGBUS};
static struct sigaction libsigsegv_action[NSIGNALS];   /* libsigsegv's */
static struct sigaction program_action[NSIGNALS];      /* the program's */
/* libsigsegv installed a handler for the signal (not for SIGBUS on Linux:
 * there libsigsegv_action is the program's own) */
static int libsigsegv_takes[NSIGNALS];
static volatile int installed;

/* Per-thread state handed from the front handler to the libsigsegv callback.
 * initial-exec TLS is safe to touch in a signal handler. */
static __thread __attribute__((tls_model("initial-exec")))
    dsm_fault_access_t current_access;
static __thread __attribute__((tls_model("initial-exec")))
    int current_sig;
static __thread __attribute__((tls_model("initial-exec")))
    siginfo_t *current_info;
static __thread __attribute__((tls_model("initial-exec")))
    void *current_context;

static int signal_index(int sig)
{
    return sig == SIGBUS ? 1 : 0;
}

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
    const struct sigaction *pa = &program_action[signal_index(sig)];
    if (pa->sa_flags & SA_SIGINFO) {
        pa->sa_sigaction(sig, current_info, current_context);
        return 1;
    }
    if (pa->sa_handler != SIG_DFL && pa->sa_handler != SIG_IGN) {
        pa->sa_handler(sig);
        return 1;
    }
    return 0;
}

/* From here on a fault of this kind, on any thread, ends the process at
 * once: a second fault in the crash path cannot come back here. */
static void take_default_action(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
}

/* "segmentation fault at address 0x58 (not a sharable page): the node
 * ends with SIGSEGV" (write(2) only). */
static void report_crash(int sig, void *fault_address)
{
    char digits[32], text[96] = "0x";
    size_t len = 2;
    const char *hex = dsm_utoa((unsigned long long)(uintptr_t)fault_address,
                               16, digits);
    const char *tail = sig == SIGBUS
        ? ": the node ends with SIGBUS"
        : " (not a sharable page): the node ends with SIGSEGV";
    size_t hex_len = strlen(hex), tail_len = strlen(tail);
    if (len + hex_len + tail_len < sizeof text) {
        memcpy(text + len, hex, hex_len);
        len += hex_len;
        memcpy(text + len, tail, tail_len + 1);
    }
    dsm_log_sigsafe(sig == SIGBUS ? "bus error at address "
                                  : "segmentation fault at address ", text);
}

/* A fault that is not ours; returns 1 when the program's handler took it. */
static int crash_path(int sig, void *fault_address)
{
    /* a core dump, if any, is to hold what the node has */
    dsm_sys_dump_prepare();
    if (call_program_handler(sig))
        return 1;
    /* no handler: the default action, set before anything else is done,
     * and the faulting instruction runs again and faults again */
    take_default_action(sig);
    report_crash(sig, fault_address);
    return 0;
}

/* libsigsegv callback, called twice for a fault the first call declines:
 * serious 0, then (after its stack-overflow check) serious 1. */
static int dispatch(void *fault_address, int serious)
{
    dsm_fault_handler_t handler = fault_handler;
    if (!serious)
        return current_sig == SIGSEGV && handler &&
               handler((uintptr_t)fault_address, current_access);
    return crash_path(current_sig, fault_address);
}

/* A SIGSEGV or SIGBUS that another process (or raise) sent is no fault:
 * returning would go on as if nothing happened.  The program's handler
 * gets it if it has one; otherwise the default action ends the node when
 * the handler returns (the signal is blocked until then). */
static void end_on_sent_signal(int sig, const siginfo_t *info)
{
    dsm_sys_dump_prepare();
    if (call_program_handler(sig))
        return;
    take_default_action(sig);
    char digits[32], text[64];
    const char *pid = dsm_utoa((unsigned long long)info->si_pid, 10, digits);
    size_t pid_len = strlen(pid);
    const char *tail = sig == SIGBUS ? ": the node ends with SIGBUS"
                                     : ": the node ends with SIGSEGV";
    memcpy(text, pid, pid_len);
    memcpy(text + pid_len, tail, strlen(tail) + 1);
    dsm_log_sigsafe(sig == SIGBUS ? "SIGBUS sent by process "
                                  : "SIGSEGV sent by process ", text);
    raise(sig);
}

static void handle_signal(int sig, siginfo_t *info, void *ctx)
{
    current_access = access_from_context(ctx);
    current_sig = sig;
    current_info = info;
    current_context = ctx;
    if (info->si_code <= 0) {   /* SI_USER, SI_QUEUE, SI_TKILL: sent */
        end_on_sent_signal(sig, info);
        return;
    }
    int i = signal_index(sig);
    const struct sigaction *la = &libsigsegv_action[i];
    if (!libsigsegv_takes[i])
        crash_path(sig, info->si_addr);
    else if (la->sa_flags & SA_SIGINFO)
        la->sa_sigaction(sig, info, ctx);
    else if (la->sa_handler != SIG_DFL && la->sa_handler != SIG_IGN)
        la->sa_handler(sig);
    else
        take_default_action(sig);   /* libsigsegv gave up: default action */
}

static void front_handler(int sig, siginfo_t *info, void *ctx)
{
    /* the fault path makes system calls (mprotect, futex, poll, write)
     * that set errno; the interrupted code may be about to read it */
    int saved_errno = errno;
    handle_signal(sig, info, ctx);
    errno = saved_errno;
}

static struct sigaction front_action(void)
{
    struct sigaction front;
    memset(&front, 0, sizeof front);
    front.sa_sigaction = front_handler;
    /* on the thread's alternate stack when it has one: a fault on a
     * write-protected sharable stack page cannot take its signal frame there */
    front.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    /* both blocked while one is handled: a fault of either kind inside the
     * handler (a crash in the crash path) is not delivered to it again, the
     * kernel ends the process with it */
    sigemptyset(&front.sa_mask);
    for (int i = 0; i < NSIGNALS; i++)
        sigaddset(&front.sa_mask, fault_signals[i]);
    return front;
}

void dsm_sys_fault_reassert(void)
{
    if (installed) {
        struct sigaction front = front_action();
        for (int i = 0; i < NSIGNALS; i++)
            sigaction(fault_signals[i], &front, NULL);
    }
}

dsm_status_t dsm_sys_fault_install(dsm_fault_handler_t handler)
{
    if (installed)
        return DSM_ERR_STATE;
    for (int i = 0; i < NSIGNALS; i++)
        sigaction(fault_signals[i], NULL, &program_action[i]);
    fault_handler = handler;
    if (sigsegv_install_handler(dispatch) != 0) {
        dsm_log(DSM_LOG_ERROR, "libsigsegv cannot catch SIGSEGV here");
        return DSM_ERR_IO;
    }
    struct sigaction front = front_action();
    for (int i = 0; i < NSIGNALS; i++) {
        if (sigaction(fault_signals[i], &front, &libsigsegv_action[i]) != 0) {
            for (int j = 0; j < i; j++)
                sigaction(fault_signals[j], &libsigsegv_action[j], NULL);
            sigsegv_deinstall_handler();
            return DSM_ERR_IO;
        }
        libsigsegv_takes[i] = libsigsegv_action[i].sa_sigaction !=
                              program_action[i].sa_sigaction;
    }
    installed = 1;
    return DSM_OK;
}

void dsm_sys_fault_uninstall(void)
{
    if (!installed)
        return;
    for (int i = 0; i < NSIGNALS; i++)
        sigaction(fault_signals[i], &libsigsegv_action[i], NULL);
    sigsegv_deinstall_handler();
    for (int i = 0; i < NSIGNALS; i++)
        sigaction(fault_signals[i], &program_action[i], NULL);
    fault_handler = NULL;
    installed = 0;
}
