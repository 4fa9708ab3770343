/*
 * sys_lines.h - source file and line of code addresses, from the DWARF
 * line tables (.debug_line, versions 2 to 5) in the files of the loaded
 * objects that hold them: what a program built with -g says about where a
 * malloc or a parallel region was written.
 *
 * Layer: sys.  Entry point: dsm_sys_lines_find.  Any thread, not a signal
 * handler (it opens and maps files and allocates); it uses only libc and
 * never logs.  Each call reads the tables anew: meant for a report at the
 * end of a job, a few hundred addresses at once.
 */
#ifndef SYS_LINES_H
#define SYS_LINES_H

#include <stddef.h>
#include <stdint.h>

typedef struct dsm_sys_line {
    char file[160];     /* as the compiler recorded it ("prog.c",
                           "src/prog.c", "/usr/include/x.h") */
    unsigned line;      /* 0: unknown (no debug information there) */
} dsm_sys_line_t;

/* For each of the n code addresses pcs[i], the file and line of the
 * instruction there.  Pass a return address minus one to get the line of
 * the call.  Returns how many were found. */
size_t dsm_sys_lines_find(const uintptr_t *pcs, size_t n,
                          dsm_sys_line_t *out);

#endif
