/*
 * launch_report.c - one-line messages of dsmrun on stderr.
 * Layer: launcher.  See launch_report.h.
 */
#include "launch_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void dsm_launch_say(const char *fmt, ...)
{
    static const char prefix[] = "dsmrun: ";
    char line[1024];
    size_t len = sizeof prefix - 1;
    memcpy(line, prefix, len);

    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + len, sizeof line - len, fmt, ap);
    va_end(ap);
    if (n > 0)
        len += (size_t)n;
    if (len > sizeof line - 1)
        len = sizeof line - 1;   /* truncated: keep room for the newline */
    line[len++] = '\n';

    ssize_t unused = write(STDERR_FILENO, line, len);
    (void)unused;
}
