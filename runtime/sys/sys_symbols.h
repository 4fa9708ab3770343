/*
 * sys_symbols.h - names of addresses: the function or data object of the
 * executable or of a loaded shared object that holds an address, read from
 * the object's ELF symbol table (.symtab, else .dynsym) in its file.
 * dladdr sees only exported (dynamic) symbols; the program's static
 * functions, clang's outlined region bodies and the globals of an
 * executable live in .symtab, which is read here from /proc/self/exe (and
 * from each shared object's file).  Each object's table is loaded at its
 * first look-up and kept until the process ends.
 *
 * Layer: sys.  Entry points: dsm_sys_symbol_find, dsm_sys_symbol_preceding.
 * Any thread, a fatal path included (it uses only libc: open, mmap,
 * malloc, a mutex, dl_iterate_phdr; it never calls the runtime or logs);
 * not the fault handler or any signal handler (it allocates and locks).
 */
#ifndef SYS_SYMBOLS_H
#define SYS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct dsm_sys_symbol {
    const char *name;        /* the symbol's name; valid until exit */
    const char *object;      /* the file it comes from (the executable's
                                path for the program); valid until exit */
    uintptr_t start;         /* its run-time address */
    size_t size;             /* its size in bytes (0 if the table says 0) */
    int function;            /* 1: code, 0: a data object */
} dsm_sys_symbol_t;

/* The symbol (function or data object) whose extent [start, start+size)
 * holds addr.  Returns 0 and fills *out, or -1 when no symbol of a loaded
 * object covers addr (no table in the file, an address outside every
 * object, or between symbols). */
int dsm_sys_symbol_find(const void *addr, dsm_sys_symbol_t *out);

/* The nearest function symbol that starts at or before addr, in the
 * object holding addr, whose name accept() approves (accept NULL: any).
 * Returns 0 and fills *out, or -1 when there is none.  Code a compiler
 * generates (an outlined region body) follows the function it came from,
 * so skipping its names finds that function. */
int dsm_sys_symbol_preceding(const void *addr,
                             int (*accept)(const char *name),
                             dsm_sys_symbol_t *out);

#endif
