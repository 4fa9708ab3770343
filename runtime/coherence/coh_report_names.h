/*
 * coh_report_names.h - names of code addresses and heap blocks for the
 * sharing report (coh_report_names.c).
 *
 * Layer: coherence (internal).  The main thread at finalize only.
 */
#ifndef COH_REPORT_NAMES_H
#define COH_REPORT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "coh_report.h"

/* For each address, "file:line (function)" when the object has line
 * information, else "function (object)".  Return addresses (the default)
 * are named by their call: code_addresses = 1 for addresses of code
 * itself. */
void coh_report_where(const uintptr_t *ret, size_t n, int code_addresses,
                      char (*out)[COH_NAME_TEXT]);

/* Is pc in the C library or the dynamic loader (a thread's start, not a
 * place of the program)?  Also for pc 0. */
int coh_report_in_system(uintptr_t pc);

#endif
