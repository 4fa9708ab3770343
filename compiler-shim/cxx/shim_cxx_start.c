/*
 * shim_cxx_start.c - the start of a C++ program linked by dsmc++.
 *
 * The program's static constructors run on every node before main, and
 * before the node joins the job.  The first of them (cxx_start.c, linked
 * into the program) calls __dsm_cxx_start, which opens this node's arena
 * of the sharable heap to the program (fj_early_heap): what the
 * constructors allocate (a global std::vector's elements, a std::string)
 * is then sharable memory, and when node 0's globals become the cluster's
 * at start-up, the pointers they hold are valid on every node.  The other
 * nodes' constructors built the same objects in their own arenas; nothing
 * refers to those after start-up (design.md, "C++ programs").
 *
 * Layer: compiler-shim.  __dsm_cxx_start: the program's main thread,
 * once, before its other constructors.  __dsm_cxx_sharable_block: any
 * thread (address arithmetic only).  __dsm_cxx_terminating: the thread
 * calling std::terminate (cxx_terminate.cpp).
 */
#include <stdint.h>

#include "base_config.h"
#include "base_log.h"
#include "forkjoin.h"
#include "shim_cxx.h"

SHIM_EXPORT int __dsm_cxx_sharable_block(const void *ptr);
SHIM_EXPORT void __dsm_cxx_terminating(void);

static dsm_cxx_program_t *program_state;

void __dsm_cxx_start(dsm_cxx_program_t *program)
{
    if (program_state)
        dsm_fatal("__dsm_cxx_start called twice: link the program once "
                  "with dsmc++");
    program_state = program;
    fj_early_heap();
}

int shim_cxx_program(void) { return program_state != NULL; }

dsm_cxx_program_t *shim_cxx_state(void) { return program_state; }

/* A block of the sharable heap (by address: also before start-up and
 * after shut-down), for the program's exception objects (cxx_new.cpp). */
int __dsm_cxx_sharable_block(const void *ptr)
{
    const dsm_config_t *cfg = dsm_config();
    uintptr_t p = (uintptr_t)ptr;
    return cfg && cfg->region_size && p >= cfg->region_base &&
           p - cfg->region_base < cfg->region_size;
}

/* std::terminate: say where, before the C++ library's handler aborts. */
void __dsm_cxx_terminating(void)
{
    int gtid = fj_started() ? fj_gtid() : -1;
    if (gtid >= 0)
        dsm_log(DSM_LOG_ERROR, "std::terminate called by OpenMP thread %d "
                "(global thread %d): an exception left a parallel region, "
                "a task or a noexcept function, or nothing caught it",
                fj_thread_num(), gtid);
    else
        dsm_log(DSM_LOG_ERROR, "std::terminate called: an exception left "
                "a noexcept function, or nothing caught it");
}
