/*
 * launch_program.h - finds the program to start, as execvp(3) would.
 *
 * Layer: launcher.  Entry point: dsm_launch_resolve_program.  Start-up only,
 * in dsmrun before anything is started.
 */
#ifndef LAUNCH_PROGRAM_H
#define LAUNCH_PROGRAM_H

#include <stddef.h>

#include "dsm.h"

/* A name without a slash is searched in PATH (an empty PATH element is the
 * current directory; without PATH, the system default); a name with a slash
 * is used as it is.  The result must be an executable regular file.  On
 * failure prints "dsmrun: program 'NAME' not found" (or "... is not
 * executable") and returns DSM_ERR_INVALID. */
dsm_status_t dsm_launch_resolve_program(const char *name, char *path,
                                        size_t path_len);

#endif
