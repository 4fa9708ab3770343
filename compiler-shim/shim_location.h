/*
 * shim_location.h - where in the program a construct is, for messages:
 * the function, and file:line when the program was built with debug
 * information.
 *
 * Layer: compiler-shim (internal header).  Any application thread, a
 * fatal path included (see shim_location.c).
 */
#ifndef SHIM_LOCATION_H
#define SHIM_LOCATION_H

#include <stddef.h>

#include "shim_kmp.h"

/* Write "in FUNCTION" or "in FUNCTION, FILE:LINE" to buf and return buf.
 * loc: the construct's source location (may be NULL); caller: the return
 * address of the runtime entry point the construct called
 * (__builtin_return_address(0) there), used when loc does not name the
 * function (no debug information). */
const char *shim_location(const ident_t *loc, const void *caller, char *buf,
                          size_t size);

#endif
