/*
 * app_args.c - command-line helpers of the application kernels: positive
 * integer parsing, the one-line usage error (exit status 2) and a
 * monotonic clock.
 *
 * Application code; main thread only (the error path calls exit).
 */
#include "app_args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

bool app_parse_positive(const char *text, long max, long *out)
{
    if (text == NULL || *text < '0' || *text > '9')
        return false;               /* strtol would accept "-1" and " 1" */
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value <= 0 || value > max)
        return false;
    *out = value;
    return true;
}

void app_usage_error(const char *program, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: ", program);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(APP_EXIT_USAGE);
}

double app_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
