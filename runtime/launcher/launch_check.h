/*
 * launch_check.h - refuses a multi-node job whose program would not join
 * it: a program that does not use dsmomp's runtime runs as N independent
 * copies, each computing alone (a plain gcc -fopenmp or clang -fopenmp
 * build, linked against libgomp or libomp).
 *
 * Layer: launcher.  Entry point: dsm_launch_check_program.  Start-up only,
 * in dsmrun before anything is started.
 */
#ifndef LAUNCH_CHECK_H
#define LAUNCH_CHECK_H

#include "dsm.h"

/* For nodes > 1: accepts an ELF program that needs libdsmomp (dsmcc,
 * dsmgcc, dsmfort, the C API) or UCX (the runtime linked in statically,
 * as dsmomp's own test programs are), and any file that is not ELF (a
 * script, which may start such a program); with DSMRUN_ANY_PROGRAM=1 in
 * the environment, anything.  Otherwise prints one line "dsmrun: PATH is
 * not linked against libdsmomp ..." and returns DSM_ERR_INVALID. */
dsm_status_t dsm_launch_check_program(const char *path, int nodes);

#endif
