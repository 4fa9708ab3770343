/*
 * sys_stack.c - stack switching: whole functions on another stack
 * (ucontext), and short calls on the thread's private runtime stack (a few
 * instructions on x86-64, ucontext elsewhere).
 * Layer: sys.  See sys_stack.h for the calling rules.
 */
#include "sys_stack.h"

#include <sys/mman.h>
#include <ucontext.h>

#include "base_log.h"

#define RTSTACK_BYTES ((size_t)1 << 20)

/* makecontext passes only int arguments: the function and its argument
 * travel in thread-local storage. */
static __thread void (*pending_fn)(void *);
static __thread void *pending_arg;

static void trampoline(void)
{
    void (*fn)(void *) = pending_fn;
    void *arg = pending_arg;
    pending_fn = NULL;
    fn(arg);
}

void dsm_sys_run_on_stack(void *lo, size_t len, void (*fn)(void *), void *arg)
{
    ucontext_t caller, callee;
    if (getcontext(&callee) != 0)
        dsm_fatal("getcontext failed");
    callee.uc_stack.ss_sp = lo;
    callee.uc_stack.ss_size = len;
    callee.uc_link = &caller;
    makecontext(&callee, trampoline, 0);
    pending_fn = fn;
    pending_arg = arg;
    if (swapcontext(&caller, &callee) != 0)
        dsm_fatal("cannot switch to the stack at %p (%zu bytes)", lo, len);
}

static __thread char *rt_top;
static __thread int on_rt;

dsm_status_t dsm_sys_rtstack_thread_init(void)
{
    if (rt_top)
        return DSM_OK;
    void *base = mmap(NULL, RTSTACK_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                      -1, 0);
    if (base == MAP_FAILED)
        return DSM_ERR_NOMEM;
    rt_top = (char *)base + RTSTACK_BYTES;
    return DSM_OK;
}

#if defined(__x86_64__)
/* Switch the stack pointer, call fn(arg), switch back.  top is 16-byte
 * aligned, as the ABI wants it at a call. */
static void call_on(char *top, void (*fn)(void *), void *arg)
{
    __asm__ __volatile__(
        "mov %%rsp, %%rbx\n\t"
        "mov %%rdx, %%rsp\n\t"
        "call *%%rsi\n\t"
        "mov %%rbx, %%rsp\n\t"
        : "+D"(arg), "+S"(fn), "+d"(top)
        :
        : "rbx", "rax", "rcx", "r8", "r9", "r10", "r11", "memory", "cc",
          "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
          "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
          "xmm15");
}
#else
static void call_on(char *top, void (*fn)(void *), void *arg)
{
    dsm_sys_run_on_stack(top - RTSTACK_BYTES, RTSTACK_BYTES, fn, arg);
}
#endif

void dsm_sys_on_rtstack(void (*fn)(void *), void *arg)
{
    if (!rt_top || on_rt) {
        fn(arg);
        return;
    }
    on_rt = 1;
    call_on(rt_top, fn, arg);
    on_rt = 0;
}
