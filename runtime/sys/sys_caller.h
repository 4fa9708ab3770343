/*
 * sys_caller.h - who called the runtime: the calling thread's frames, from
 * the runtime's entry point out to the program's code that called it (the
 * call site of a malloc, of a flush, of a parallel region).
 *
 * Two ways.  dsm_sys_call_site is cheap (tens of nanoseconds): it follows
 * the frame records of the runtime's own code (built with frame pointers)
 * and stops at the first return address outside the runtime's code (the
 * object that holds this module, libdsmomp.so).  Should a record not lead
 * up the stack, a full DWARF unwind answers instead (about 10 us here).
 * dsm_sys_frames is that full unwind (libgcc's _Unwind_Backtrace): every
 * frame's return address and stack extent, for the rare times they are
 * all wanted.
 *
 * Precondition of the cheap walk: every runtime function between the
 * program and the caller keeps a frame pointer (-fno-omit-frame-pointer,
 * meson.build).  The walk reads only frame records it reached from its
 * own, each above the last and at most 1 MiB from it, and gives up (zero
 * result) after SYS_CALLER_DEPTH frames.
 *
 * Layer: sys.  Entry points: dsm_sys_call_site, dsm_sys_frames.  Any
 * application thread, on any stack; not a signal handler (the fallback
 * and dsm_sys_frames unwind with libgcc, which may take locks).
 */
#ifndef SYS_CALLER_H
#define SYS_CALLER_H

#include <stdint.h>

#define SYS_CALLER_DEPTH 24

typedef struct dsm_sys_call_site {
    uintptr_t outside;      /* first return address outside the runtime's
                               code: into the program (or a library) that
                               called it; 0 when not found */
    uintptr_t outside_cfa;  /* the stack address above that return
                               address' slot: the calling frame's bottom */
    uintptr_t inside;       /* the last return address inside the runtime
                               (its outermost function on the way) */
} dsm_sys_call_site_t;

/* The call site of the runtime function that calls this one. */
void dsm_sys_call_site(dsm_sys_call_site_t *out);

/* Is pc inside the runtime's own code (the object holding this module)? */
int dsm_sys_in_runtime(uintptr_t pc);

/* The calling thread's frames, innermost first, starting with the caller
 * of dsm_sys_frames: ip is the frame's return address (its own pc for the
 * first), [lo, hi) the stack bytes of its locals.  Returns how many (at
 * most max). */
typedef struct dsm_sys_frame {
    uintptr_t ip;
    uintptr_t lo, hi;
} dsm_sys_frame_t;
int dsm_sys_frames(dsm_sys_frame_t *out, int max);

#endif
