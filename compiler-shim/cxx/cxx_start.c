/*
 * cxx_start.c - linked into every program dsmc++ links (libdsmomp_cxx.a,
 * whole): the program's first constructor, and the state of the runtime's
 * C++ support that must live in the program's own writable data (shared
 * by the cluster from start-up on: node 0's copy wins, as for every
 * global).
 *
 * The entry sits in .init_array.00100: the linker sorts prioritised
 * entries before the others and 100 is below every priority a program
 * may use (101 and up), so it runs after the shared libraries' own
 * initialisation and before any constructor of the program's objects.
 *
 * Layer: compiler-shim, program side.  Runs once, on the main thread,
 * before main.
 */
#include "shim_cxx.h"

static dsm_cxx_program_t program_state;

void __dsm_cxx_install_terminate(void);     /* cxx_terminate.cpp */
void __dsm_cxx_prepare_locale(void);        /* cxx_locale.cpp */

static void start_cxx_program(void)
{
    __dsm_cxx_start(&program_state);
    __dsm_cxx_install_terminate();
    __dsm_cxx_prepare_locale();
}

__attribute__((used, section(".init_array.00100")))
static void (*start_entry)(void) = start_cxx_program;
