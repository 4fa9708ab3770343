/*
 * epcc_options.c - parses the EPCC-style benchmarks' command line.
 *
 * Layer: bench (libc only).  Entry points: epcc_options_parse,
 * epcc_options_usage, epcc_options_selected.  Called from main; no global
 * state (no getopt, so tests can parse many command lines).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "epcc_options.h"

#define MAX_OUTER_REPS 100000u
#define MAX_TIME_US 1e7

static int parse_number(const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* Sets the bit of every name in a comma-separated list. */
static int parse_selection(const char *list, const char *const names[],
                           size_t count, FILE *err, unsigned long *out)
{
    unsigned long mask = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        size_t i = 0;
        while (i < count && !(strlen(names[i]) == len &&
                              !strncasecmp(names[i], p, len)))
            i++;
        if (i == count) {
            fprintf(err, "unknown test '%.*s'\n", (int)len, p);
            return -1;
        }
        mask |= 1ul << i;
        p += len;
        if (*p == ',')
            p++;
    }
    if (!mask) {
        fprintf(err, "-c: no test named\n");
        return -1;
    }
    *out = mask;
    return 0;
}

dsm_status_t epcc_options_parse(int argc, char *const argv[],
                                const char *const names[], size_t count,
                                FILE *err, epcc_options_t *out)
{
    if (!names || count == 0 || count > EPCC_MAX_TESTS || !err || !out)
        return DSM_ERR_INVALID;

    epcc_options_t o = {
        .outer_reps = 20, .test_time_us = 1000.0, .delay_us = 0.1,
        .selected = count == EPCC_MAX_TESTS ? ~0ul : (1ul << count) - 1,
    };
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (strlen(opt) != 2 || opt[0] != '-' || !strchr("rtdc", opt[1])) {
            fprintf(err, "unknown option '%s'\n", opt);
            return DSM_ERR_INVALID;
        }
        if (i + 1 >= argc) {
            fprintf(err, "%s needs a value\n", opt);
            return DSM_ERR_INVALID;
        }
        const char *value = argv[++i];
        double v;
        switch (opt[1]) {
        case 'r':
            if (parse_number(value, 1, MAX_OUTER_REPS, &v) || v != (unsigned)v)
                goto bad_value;
            o.outer_reps = (unsigned)v;
            break;
        case 't':
            if (parse_number(value, 1.0, MAX_TIME_US, &v))
                goto bad_value;
            o.test_time_us = v;
            break;
        case 'd':
            if (parse_number(value, 0.0, MAX_TIME_US, &v))
                goto bad_value;
            o.delay_us = v;
            break;
        default:
            if (parse_selection(value, names, count, err, &o.selected))
                return DSM_ERR_INVALID;
            break;
        }
        continue;
    bad_value:
        fprintf(err, "%s %s: value out of range\n", opt, value);
        return DSM_ERR_INVALID;
    }
    *out = o;
    return DSM_OK;
}

void epcc_options_usage(FILE *to, const char *program,
                        const char *const names[], size_t count)
{
    fprintf(to, "usage: %s [-r OUTER_REPS] [-t TEST_US] [-d DELAY_US] "
                "[-c TEST,...]\n  tests:", program);
    for (size_t i = 0; i < count; i++)
        fprintf(to, " %s", names[i]);
    fprintf(to, "\n");
}

int epcc_options_selected(const epcc_options_t *options, size_t index)
{
    return index < EPCC_MAX_TESTS && (options->selected >> index) & 1;
}
