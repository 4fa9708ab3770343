/*
 * shim_location.c - names the place of a construct in a message.
 *
 * clang fills the psource of a construct's ident_t with
 * ";file;function;line;column;;" only when the program is built with debug
 * information (-g); without it every construct says
 * ";unknown;unknown;0;0;;".  The function is then found from the return
 * address of the entry point the construct called, in the executable's
 * symbol table (sys_symbols).  A construct inside a parallel region (or a
 * task) is code of the outlined body clang made of it (".omp_outlined.",
 * ".omp_task_entry." ...); clang lays that out after the function it came
 * from, so the nearest preceding function not named by clang is the one
 * the user wrote.
 *
 * Layer: compiler-shim.  Entry point: shim_location.  Any application
 * thread, a fatal path included: it calls only libc and sys_symbols, never
 * the runtime.
 */
#include "shim_location.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sys_symbols.h"

/* clang's names for code it outlines: region and task bodies, their
 * debug-info wrappers, task duplication and reduction helpers. */
static int written_by_user(const char *name)
{
    return name[0] != '.' && strncmp(name, "__omp_", 6) != 0 &&
           strncmp(name, "omp_outlined", 12) != 0;
}

/* Copy field index (0-based, after the leading ';') of psource into out;
 * 0 when it is missing, empty or "unknown". */
static int psource_field(const char *psource, int index, char *out,
                         size_t size)
{
    if (!psource || psource[0] != ';')
        return 0;
    const char *p = psource + 1;
    for (int i = 0; i < index; i++) {
        p = strchr(p, ';');
        if (!p)
            return 0;
        p++;
    }
    size_t n = strcspn(p, ";");
    if (n == 0 || n >= size || (n == 7 && strncmp(p, "unknown", 7) == 0))
        return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

const char *shim_location(const ident_t *loc, const void *caller, char *buf,
                          size_t size)
{
    const char *psource = loc ? loc->psource : NULL;
    char function[256], file[512], line[32];
    int have_function = psource_field(psource, 1, function, sizeof function);
    int have_line = psource_field(psource, 0, file, sizeof file) &&
                    psource_field(psource, 2, line, sizeof line) &&
                    strcmp(line, "0") != 0;
    if (!have_function && caller) {
        /* a return address: the call is the byte before it */
        const char *at = (const char *)caller - 1;
        dsm_sys_symbol_t sym;
        if (dsm_sys_symbol_find(at, &sym) == 0 && sym.function) {
            if (!written_by_user(sym.name)) {
                dsm_sys_symbol_t outer;
                if (dsm_sys_symbol_preceding(at, written_by_user, &outer) == 0)
                    snprintf(function, sizeof function, "%s", outer.name);
                else
                    snprintf(function, sizeof function, "%s", sym.name);
            } else {
                snprintf(function, sizeof function, "%s", sym.name);
            }
            have_function = 1;
        } else {
            snprintf(function, sizeof function,
                     "an unknown function (address %p)", caller);
            have_function = 1;
        }
    }
    if (!have_function)
        snprintf(function, sizeof function, "an unknown function");
    if (have_line)
        snprintf(buf, size, "in %s, %s:%s", function, file, line);
    else
        snprintf(buf, size, "in %s", function);
    return buf;
}
