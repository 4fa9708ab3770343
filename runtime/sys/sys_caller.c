/*
 * sys_caller.c - the call site of a runtime entry point, by following the
 * runtime's own frame pointers (see sys_caller.h).
 *
 * The runtime is built with frame pointers (meson.build): each of its
 * frames starts with a frame record, { the caller's frame pointer, the
 * return address into the caller }, at the frame pointer, on x86-64 and
 * AArch64 alike.  The walk follows the records up the stack while the
 * return addresses lie in the runtime's code; the first one outside is
 * the call site.  Frame sizes are not assumed: a function that realigns
 * its stack (AddressSanitizer's frames are 32-byte aligned) has a frame
 * whose size depends on the stack pointer it was called with.  A record
 * that does not lead up the stack ends the walk, and libgcc's unwinder
 * (the DWARF call-frame information) answers instead.
 *
 * Layer: sys.  Entry points and callers: see sys_caller.h.
 */
#include "sys_caller.h"

#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <unwind.h>

/* ---- the runtime's code ------------------------------------------------- */

#define MAX_RANGES 4
static struct { uintptr_t lo, hi; } ranges[MAX_RANGES];
static int nranges;
static pthread_once_t ranges_once = PTHREAD_ONCE_INIT;

static int find_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t self = (uintptr_t)data;
    int holds = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && self >= lo && self - lo < ph->p_memsz)
            holds = 1;
    }
    if (!holds)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        ranges[nranges].lo = info->dlpi_addr + ph->p_vaddr;
        ranges[nranges].hi = ranges[nranges].lo + ph->p_memsz;
        nranges++;
    }
    return 1;
}

static void ranges_init(void)
{
    dl_iterate_phdr(find_runtime, (void *)(uintptr_t)&dsm_sys_call_site);
}

int dsm_sys_in_runtime(uintptr_t pc)
{
    pthread_once(&ranges_once, ranges_init);
    for (int i = 0; i < nranges; i++)
        if (pc >= ranges[i].lo && pc < ranges[i].hi)
            return 1;
    return 0;
}

/* ---- the full unwind ---------------------------------------------------- */

typedef struct unwound {
    int n, max;
    uintptr_t ip[SYS_CALLER_DEPTH + 4], cfa[SYS_CALLER_DEPTH + 4];
} unwound_t;

static _Unwind_Reason_Code collect(struct _Unwind_Context *ctx, void *arg)
{
    unwound_t *u = arg;
    /* libgcc's CFA of a frame is the stack pointer at its call, which is
     * the CFA of the frame it called */
    u->ip[u->n] = (uintptr_t)_Unwind_GetIP(ctx);
    u->cfa[u->n] = (uintptr_t)_Unwind_GetCFA(ctx);
    return ++u->n >= u->max ? _URC_END_OF_STACK : _URC_NO_REASON;
}

/* The walk by the unwinder, from cfa (dsm_sys_call_site's own): the frame
 * whose CFA is cfa is the runtime function that called dsm_sys_call_site
 * (how many frames lie below it depends on inlining and tail calls). */
__attribute__((noinline)) static void unwind(uintptr_t cfa,
                                             dsm_sys_call_site_t *out)
{
    unwound_t u = {.max = SYS_CALLER_DEPTH + 4};
    _Unwind_Backtrace(collect, &u);
    int first = 0;
    while (first < u.n && u.cfa[first] != cfa)
        first++;
    for (int i = first; i < u.n; i++) {
        if (!dsm_sys_in_runtime(u.ip[i])) {
            out->outside = u.ip[i];
            out->outside_cfa = u.cfa[i];
            return;
        }
        out->inside = u.ip[i];
    }
}

/* A frame record's successor must lie above it, within this distance. */
#define FRAME_MAX ((uintptr_t)1 << 20)

__attribute__((noinline)) void dsm_sys_call_site(dsm_sys_call_site_t *out)
{
    *out = (dsm_sys_call_site_t){0, 0, 0};
    const uintptr_t *fp = __builtin_frame_address(0);
    for (int depth = 0; depth < SYS_CALLER_DEPTH; depth++) {
        uintptr_t ip = fp[1];
        if (!dsm_sys_in_runtime(ip)) {
            out->outside = ip;
            out->outside_cfa = (uintptr_t)(fp + 2);
            return;
        }
        out->inside = ip;
        const uintptr_t *next = (const uintptr_t *)fp[0];
        if (next <= fp || (uintptr_t)next - (uintptr_t)fp > FRAME_MAX ||
            (uintptr_t)next % sizeof(uintptr_t))
            break;
        fp = next;
    }
    *out = (dsm_sys_call_site_t){0, 0, 0};
    unwind((uintptr_t)__builtin_dwarf_cfa(), out);
    /* not a tail call: unwind must find this frame below it */
    __asm__ __volatile__("" : : : "memory");
}

__attribute__((noinline)) int dsm_sys_frames(dsm_sys_frame_t *out, int max)
{
    unwound_t u = {.max = SYS_CALLER_DEPTH + 2};
    _Unwind_Backtrace(collect, &u);
    /* frame 0 is this function; each frame's locals lie between its own
     * CFA (the next entry) and that of the frame it called */
    int n = 0;
    for (int i = 1; i + 1 < u.n && n < max; i++, n++) {
        out[n].ip = u.ip[i];
        out[n].lo = u.cfa[i];
        out[n].hi = u.cfa[i + 1];
    }
    return n;
}
