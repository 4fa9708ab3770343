/*
 * sys_caller.h - who called the runtime: the calling thread's frames, from
 * the runtime's entry point out to the program's code that called it (the
 * call site of a malloc, of a flush, of a parallel region).
 *
 * Two ways.  dsm_sys_call_site is cheap (tens of nanoseconds): it follows
 * the frames of the runtime's own code with the frame sizes it learnt the
 * first time it met each return address, and stops at the first return
 * address outside the runtime's code (the object that holds this module,
 * libdsmomp.so).  Only a return address never met before costs a full
 * DWARF unwind (about 10 us here).  dsm_sys_frames is that full unwind
 * (libgcc's _Unwind_Backtrace): every frame's return address and stack
 * extent, for the rare times they are all wanted.
 *
 * Precondition of the cheap walk: a runtime function on the way must have
 * the same frame size at each of its calls every time (no alloca or
 * variable-length array before the call); the runtime's allocation, flush
 * and fork paths are written so.  The walk never reads outside the
 * frames of the calling thread's stack it computed, and gives up (zero
 * result) after SYS_CALLER_DEPTH frames.
 *
 * Layer: sys.  Entry points: dsm_sys_call_site, dsm_sys_frames.  Any
 * application thread, on any stack; not a signal handler (the first meeting
 * of a return address unwinds with libgcc, which may take locks).
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
