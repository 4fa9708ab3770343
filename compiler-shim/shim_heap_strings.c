/*
 * shim_heap_strings.c - the C library's functions that hand the program a
 * heap block of their own making: strdup, strndup, getline and getdelim.
 * The C library allocates those with its own malloc (not the program's,
 * which dsmcc redirects to the sharable heap: shim_heap.c), so a string
 * strdup'ed by node 0 read as an empty string on every other node, and
 * getline's realloc of a buffer the program had allocated (sharable) was
 * libc's realloc of a block it does not own.  dsmcc links with
 * -Wl,--wrap= for these four (and __getdelim, which <stdio.h>'s inline
 * getline calls), so the program's calls come here and the
 * blocks are the program's own: sharable while the runtime is up, freed
 * and reallocated by the wrapped free and realloc.
 *
 * Layer: compiler-shim.  Entry points: __wrap_strdup, __wrap_strndup,
 * __wrap_getline, __wrap_getdelim, __wrap___getdelim.  Any thread of the program; never a
 * signal handler.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "shim_kmp.h"

SHIM_EXPORT char *__wrap_strdup(const char *s);
SHIM_EXPORT char *__wrap_strndup(const char *s, size_t n);
SHIM_EXPORT ssize_t __wrap_getdelim(char **line, size_t *cap, int delim,
                                    FILE *stream);
SHIM_EXPORT ssize_t __wrap_getline(char **line, size_t *cap, FILE *stream);
SHIM_EXPORT ssize_t __wrap___getdelim(char **line, size_t *cap, int delim,
                                      FILE *stream);

void *__wrap_malloc(size_t size);
void *__wrap_realloc(void *ptr, size_t size);

static char *copy_of(const char *s, size_t len)
{
    char *copy = __wrap_malloc(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

char *__wrap_strdup(const char *s) { return copy_of(s, strlen(s)); }

char *__wrap_strndup(const char *s, size_t n)
{
    return copy_of(s, strnlen(s, n));
}

/* As the C library's: reads up to and including delim into *line, grown
 * as needed (with the program's realloc), terminated by a null byte;
 * returns the bytes read, or -1 when the end of the file or an error came
 * before any byte (the stream's flags say which). */
ssize_t __wrap_getdelim(char **line, size_t *cap, int delim, FILE *stream)
{
    if (!line || !cap || !stream) {
        errno = EINVAL;
        return -1;
    }
    if (!*line || *cap == 0) {   /* as libc: a buffer even for nothing */
        char *first = __wrap_realloc(*line, 120);
        if (!first) {
            errno = ENOMEM;
            return -1;
        }
        *line = first;
        *cap = 120;
    }
    flockfile(stream);
    size_t len = 0;
    ssize_t result;
    for (;;) {
        int c = getc_unlocked(stream);
        if (c == EOF) {
            result = len ? (ssize_t)len : -1;   /* as libc, error or not */
            break;
        }
        if (len + 2 > *cap) {   /* this byte and the null byte */
            size_t grown = *cap < 120 ? 120 : *cap * 2;
            if (grown > (size_t)SSIZE_MAX) {
                errno = EOVERFLOW;
                result = -1;
                break;
            }
            char *bigger = __wrap_realloc(*line, grown);
            if (!bigger) {
                errno = ENOMEM;
                result = -1;
                break;
            }
            *line = bigger;
            *cap = grown;
        }
        (*line)[len++] = (char)c;
        if (c == delim) {
            result = (ssize_t)len;
            break;
        }
    }
    (*line)[len] = '\0';   /* room kept by the growth above */
    funlockfile(stream);
    return result;
}

ssize_t __wrap_getline(char **line, size_t *cap, FILE *stream)
{
    return __wrap_getdelim(line, cap, '\n', stream);
}

/* <stdio.h>'s inline getline, in an optimised build, calls this name */
ssize_t __wrap___getdelim(char **line, size_t *cap, int delim, FILE *stream)
{
    return __wrap_getdelim(line, cap, delim, stream);
}
