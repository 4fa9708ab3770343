/*
 * sys_stack.c - stack switching: whole functions on another stack, and
 * short calls on the thread's private runtime stack.  On x86-64 a switch is
 * a few instructions; elsewhere it uses ucontext.
 * Layer: sys.  See sys_stack.h for the calling rules.
 */
#include "sys_stack.h"

#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "base_log.h"
#include "sys_region.h"

#define RTSTACK_BYTES ((size_t)1 << 20)

/* AddressSanitizer keeps the bounds of the stack each thread runs on: a
 * switch it is not told about makes it warn at the next noreturn call
 * (exit, a fatal error) and may give false reports.  So every switch here
 * is announced with its fiber interface; and on x86-64 no switch goes
 * through swapcontext, which ASan intercepts with a warning of its own on
 * stderr (tests count the lines of stderr).  See doc/reliability.md. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYS_STACK_ASAN 1
#include <sanitizer/common_interface_defs.h>
#endif
#endif

typedef struct stack_call {
    void (*fn)(void *);
    void *arg;
    const void *from_bottom;     /* the stack switched away from */
    size_t from_size;
} stack_call_t;

/* Runs first on the new stack. */
static void enter(void *p)
{
    stack_call_t *c = p;
#ifdef SYS_STACK_ASAN
    __sanitizer_finish_switch_fiber(NULL, &c->from_bottom, &c->from_size);
#endif
    c->fn(c->arg);
#ifdef SYS_STACK_ASAN
    /* leaving for good: NULL drops this stack's fake frames */
    __sanitizer_start_switch_fiber(NULL, c->from_bottom, c->from_size);
#endif
}

#if defined(__x86_64__)
/* Switch the stack pointer, call fn(arg), switch back.  top is 16-byte
 * aligned, as the ABI wants it at a call. */
static void call_on(char *lo, size_t len, void (*fn)(void *), void *arg)
{
    char *top = (char *)((uintptr_t)(lo + len) & ~(uintptr_t)15);
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

static void call_on(char *lo, size_t len, void (*fn)(void *), void *arg)
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
#endif

static void switch_and_call(void *lo, size_t len, void (*fn)(void *),
                            void *arg)
{
    stack_call_t c = {.fn = fn, .arg = arg};
#ifdef SYS_STACK_ASAN
    void *fake_frames = NULL;
    __sanitizer_start_switch_fiber(&fake_frames, lo, len);
#endif
    call_on(lo, len, enter, &c);
#ifdef SYS_STACK_ASAN
    __sanitizer_finish_switch_fiber(fake_frames, NULL, NULL);
#endif
}

void dsm_sys_run_on_stack(void *lo, size_t len, void (*fn)(void *), void *arg)
{
    switch_and_call(lo, len, fn, arg);
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

__attribute__((noinline)) int dsm_sys_stack_sharable(void)
{
    return dsm_sys_sharable(__builtin_frame_address(0), 1);
}

void dsm_sys_on_rtstack(void (*fn)(void *), void *arg)
{
    if (!rt_top || on_rt) {
        /* none: a private thread stack; on it: nested, or the fault
         * handler's alternate stack after a fault on the runtime stack */
        DSM_INVARIANT(!dsm_sys_stack_sharable(),
                      "a sharable stack with no runtime stack to leave it "
                      "for");
        fn(arg);
        return;
    }
    on_rt = 1;
    switch_and_call(rt_top - RTSTACK_BYTES, RTSTACK_BYTES, fn, arg);
    on_rt = 0;
}
