/*
 * sys_caller.c - the call site of a runtime entry point, by following the
 * runtime's own frames with learnt frame sizes (see sys_caller.h).
 *
 * On x86-64 a function's return address sits just below its caller's
 * frame, at CFA - 8, where the CFA (canonical frame address) is the stack
 * pointer before the call.  The distance from one CFA to the next (the
 * caller's frame size at that call) depends only on the return address,
 * given the precondition in sys_caller.h; it is learnt from libgcc's
 * unwinder, which reads the DWARF call-frame information, and kept in a
 * small lock-free table.
 *
 * Layer: sys.  Entry points and callers: see sys_caller.h.
 */
#include "sys_caller.h"

#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* ---- learnt frame sizes --------------------------------------------------
 * One word per entry: the return address in the high 48 bits, the frame
 * size in 8-byte units in the low 16 (0: empty), so an entry is published
 * whole by one compare-and-swap. */
#define SIZES 1024u
#define PROBES 16u
static _Atomic uint64_t sizes[SIZES];

static unsigned slot_of(uintptr_t ip)
{
    uint64_t h = (uint64_t)ip * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 54) & (SIZES - 1);
}

static uintptr_t frame_size(uintptr_t ip)
{
    unsigned s = slot_of(ip);
    for (unsigned k = 0; k < PROBES; k++) {
        uint64_t e = atomic_load_explicit(&sizes[(s + k) & (SIZES - 1)],
                                          memory_order_acquire);
        if (!e)
            return 0;
        if (e >> 16 == (uint64_t)ip)
            return (uintptr_t)(e & 0xFFFF) * 8;
    }
    return 0;
}

static void learn_size(uintptr_t ip, uintptr_t bytes)
{
    if (bytes == 0 || bytes % 8 || bytes / 8 > 0xFFFF ||
        (uint64_t)ip >> 48)
        return;     /* not representable: this call is always unwound */
    uint64_t entry = (uint64_t)ip << 16 | bytes / 8;
    unsigned s = slot_of(ip);
    for (unsigned k = 0; k < PROBES; k++) {
        _Atomic uint64_t *e = &sizes[(s + k) & (SIZES - 1)];
        uint64_t seen = 0;
        if (atomic_compare_exchange_strong(e, &seen, entry) ||
            seen >> 16 == (uint64_t)ip)
            return;
    }
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

/* The walk from cfa (dsm_sys_call_site's own), by the unwinder: the frame
 * whose CFA is cfa is the runtime function that called
 * dsm_sys_call_site (how many frames lie below it depends on inlining and
 * tail calls). */
__attribute__((noinline)) static void learn(uintptr_t cfa,
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
        if (i + 1 < u.n)
            learn_size(u.ip[i], u.cfa[i + 1] - u.cfa[i]);
    }
}

__attribute__((noinline)) void dsm_sys_call_site(dsm_sys_call_site_t *out)
{
    *out = (dsm_sys_call_site_t){0, 0, 0};
    uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
    for (int depth = 0; depth < SYS_CALLER_DEPTH; depth++) {
        uintptr_t ip = *(const uintptr_t *)(cfa - 8);
        if (!dsm_sys_in_runtime(ip)) {
            out->outside = ip;
            out->outside_cfa = cfa;
            return;
        }
        out->inside = ip;
        uintptr_t size = frame_size(ip);
        if (!size)
            break;
        cfa += size;
    }
    *out = (dsm_sys_call_site_t){0, 0, 0};
    learn((uintptr_t)__builtin_dwarf_cfa(), out);
    /* not a tail call: learn must find this frame below it */
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
