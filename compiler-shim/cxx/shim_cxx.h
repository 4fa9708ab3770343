/*
 * shim_cxx.h - C++ support inside libdsmomp, for the other shim modules
 * and for the part of it dsmc++ links into the program (cxx_start.c).
 *
 * Layer: compiler-shim (internal header).
 *   __dsm_cxx_start         the program's first constructor calls it
 *                           (shim_cxx_start.c)
 *   shim_cxx_program        non-zero in a program linked by dsmc++
 *   shim_cxx_state          the program-side state (below), or NULL
 *   shim_cxx_before_main    __wrap_main calls it before fj_main
 *   shim_cxx_at_job_exit    run fn(arg) on node 0 at the end of the job,
 *                           before the destructors of the objects built
 *                           before main (shim_cxx_atexit.c)
 */
#ifndef SHIM_CXX_H
#define SHIM_CXX_H

#include "shim_kmp.h"

/* The program-side state dsmc++ links into the executable, in its
 * writable data, which becomes sharable (node 0's copy is the cluster's
 * from start-up on): */
typedef struct dsm_cxx_program {
    /* destructors registered while the job runs (shim_cxx_atexit.c) */
    void *job_exits;
    /* threadprivate objects registered while the job runs (function-local
     * statics; shim_threadprivate.c) */
    void *threadprivate;
} dsm_cxx_program_t;

/* From the program's first constructor, before any other (cxx_start.c):
 * opens the sharable heap to the program's allocations on this node and
 * records where the program-side state is. */
SHIM_EXPORT void __dsm_cxx_start(dsm_cxx_program_t *program);

int shim_cxx_program(void);
void shim_cxx_before_main(void);
void shim_cxx_at_job_exit(void (*fn)(void *), void *arg);

/* The program-side state, or NULL in a program not linked by dsmc++. */
dsm_cxx_program_t *shim_cxx_state(void);

#endif
