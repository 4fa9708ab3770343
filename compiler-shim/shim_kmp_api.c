/*
 * shim_kmp_api.c - libomp's kmp_* extensions that omp.h declares, other
 * than memory (shim_alloc.c) and affinity masks (shim_places.c): stack
 * size, blocktime, library mode, defaults, dispatch buffers, warnings.
 *
 *   kmp_get_stacksize[_s]  each team thread's sharable stack (OMP_STACKSIZE)
 *   kmp_set_stacksize[_s]  the stacks are made at start-up: a size they
 *                          already have is accepted, a larger one ends the
 *                          job (set OMP_STACKSIZE), where libomp would
 *                          make the threads it has not made yet larger
 *   kmp_{get,set}_blocktime  how long this node's idle threads poll
 *                          before sleeping (ms); the calling node only:
 *                          KMP_BLOCKTIME sets every node's
 *   kmp_{get,set}_library[_serial|_turnaround|_throughput]  serial: teams
 *                          of one thread; turnaround: waiting as
 *                          OMP_WAIT_POLICY=active on this node; throughput:
 *                          the default waiting
 *   kmp_set_defaults       settings are read on every node at start-up:
 *                          ends the job (set them in dsmrun's environment)
 *   kmp_set_disp_num_buffers  accepted: loops scheduled at run time use a
 *                          fixed ring of 8 slots and wait for a free one
 *   kmp_set_warnings_on/off  the calling node's warnings
 *
 * Layer: compiler-shim.  Any application thread.
 */
#include <omp.h>
#include <stddef.h>

#include "base_log.h"
#include "forkjoin.h"
#include "shim_kmp.h"

SHIM_EXPORT size_t kmp_get_stacksize_s(void) { return fj_icv_stack_size(); }

SHIM_EXPORT int kmp_get_stacksize(void)
{
    size_t s = fj_icv_stack_size();
    return s > (size_t)INT32_MAX ? INT32_MAX : (int)s;
}

SHIM_EXPORT void kmp_set_stacksize_s(size_t size)
{
    if (size > fj_icv_stack_size())
        dsm_fatal("kmp_set_stacksize: the team threads' stacks (%zu bytes) "
                  "are made at start-up and cannot grow to %zu: set "
                  "OMP_STACKSIZE in dsmrun's environment",
                  fj_icv_stack_size(), size);
}

SHIM_EXPORT void kmp_set_stacksize(int size)
{
    kmp_set_stacksize_s(size > 0 ? (size_t)size : 0);
}

SHIM_EXPORT int kmp_get_blocktime(void) { return fj_icv_blocktime(); }
SHIM_EXPORT void kmp_set_blocktime(int ms) { fj_icv_set_blocktime(ms); }

SHIM_EXPORT int kmp_get_library(void) { return fj_icv_library(); }
SHIM_EXPORT void kmp_set_library(int library) { fj_icv_set_library(library); }

SHIM_EXPORT void kmp_set_library_serial(void)
{
    fj_icv_set_library(FJ_LIBRARY_SERIAL);
}

SHIM_EXPORT void kmp_set_library_turnaround(void)
{
    fj_icv_set_library(FJ_LIBRARY_TURNAROUND);
}

SHIM_EXPORT void kmp_set_library_throughput(void)
{
    fj_icv_set_library(FJ_LIBRARY_THROUGHPUT);
}

SHIM_EXPORT void kmp_set_defaults(char const *settings)
{
    dsm_fatal("kmp_set_defaults(\"%s\") is not supported: every node reads "
              "its settings at start-up; set them in dsmrun's environment",
              settings ? settings : "");
}

SHIM_EXPORT void kmp_set_disp_num_buffers(int buffers) {}

SHIM_EXPORT void kmp_set_warnings_on(void)
{
    if (dsm_log_level() < DSM_LOG_WARN)
        dsm_log_set_level(DSM_LOG_WARN);
}

SHIM_EXPORT void kmp_set_warnings_off(void)
{
    if (dsm_log_level() > DSM_LOG_ERROR)
        dsm_log_set_level(DSM_LOG_ERROR);
}
