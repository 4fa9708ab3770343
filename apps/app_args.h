/*
 * app_args.h - command-line parsing and result lines shared by the
 * application kernels (jacobi, and the later ports): flags of the form
 * "-x VALUE", positive sizes, and the one-line usage error with exit
 * status 2 that every program gives for bad input.
 *
 * Application code (OpenMP, MPI and serial builds alike); main thread only.
 */
#ifndef APP_ARGS_H
#define APP_ARGS_H

#include <stdbool.h>

/* Exit status for bad input (unknown flag, malformed or zero size). */
#define APP_EXIT_USAGE 2
/* Exit status when the program's own check of its answer fails. */
#define APP_EXIT_WRONG 1

/* Parses TEXT as a positive decimal integer no larger than MAX.  Returns
 * false (leaving *out alone) when it is empty, non-numeric, zero,
 * negative or too large. */
bool app_parse_positive(const char *text, long max, long *out);

/* Prints "PROGRAM: MESSAGE" as one line on stderr and exits with
 * APP_EXIT_USAGE. */
__attribute__((noreturn, format(printf, 2, 3)))
void app_usage_error(const char *program, const char *format, ...);

/* Seconds on a monotonic clock. */
double app_seconds(void);

#endif
