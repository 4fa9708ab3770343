/*
 * csr_mtx.c - reads Matrix Market coordinate files into CSR: the banner
 * (real, integer or pattern; general or symmetric), comment lines, the
 * size line, then one "row column [value]" line per entry (1-based).
 * Symmetric files store one triangle; the other is mirrored.  Anything
 * else (array format, complex, indices out of range, too few or too many
 * entries, text that is not a number) is refused with a reason.
 *
 * Application code; main thread (the master, or each MPI rank) only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csr.h"

struct entry {
    long row, col;
    double val;
};

__attribute__((format(printf, 3, 4)))
static int refuse(char *why, size_t why_size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(why, why_size, format, args);
    va_end(args);
    return -1;
}

/* The next line that is not a comment, without its newline; NULL at end
 * of file. */
static char *next_line(FILE *file, char *line, size_t size, long *number)
{
    while (fgets(line, (int)size, file) != NULL) {
        (*number)++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] != '%')
            return line;
    }
    return NULL;
}

static bool parse_long(char **cursor, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(*cursor, &end, 10);
    if (end == *cursor || errno != 0)
        return false;
    *cursor = end;
    *out = v;
    return true;
}

static bool parse_double(char **cursor, double *out)
{
    char *end;
    double v = strtod(*cursor, &end);
    if (end == *cursor)
        return false;
    *cursor = end;
    *out = v;
    return true;
}

static bool only_blanks(const char *text)
{
    return text[strspn(text, " \t")] == '\0';
}

/* Counts entries per row, then places them; mirrored entries of a
 * symmetric file go to the transposed position. */
static int build(const struct entry *entries, long count, bool symmetric,
                 long rows, long cols, csr_alloc_fn alloc, struct csr *out)
{
    long *row_start = alloc((size_t)(rows + 1) * sizeof *row_start);
    long *fill = calloc((size_t)rows, sizeof *fill);
    if (row_start == NULL || fill == NULL) {
        free(fill);
        return -1;
    }
    for (long i = 0; i <= rows; i++)
        row_start[i] = 0;
    for (long e = 0; e < count; e++) {
        row_start[entries[e].row + 1]++;
        if (symmetric && entries[e].row != entries[e].col)
            row_start[entries[e].col + 1]++;
    }
    for (long i = 0; i < rows; i++)
        row_start[i + 1] += row_start[i];
    long nonzeros = row_start[rows];
    long *col = alloc((size_t)nonzeros * sizeof *col);
    double *val = alloc((size_t)nonzeros * sizeof *val);
    if (col == NULL || val == NULL) {
        free(fill);
        return -1;
    }
    for (long e = 0; e < count; e++) {
        long r = entries[e].row, c = entries[e].col;
        long at = row_start[r] + fill[r]++;
        col[at] = c;
        val[at] = entries[e].val;
        if (symmetric && r != c) {
            at = row_start[c] + fill[c]++;
            col[at] = r;
            val[at] = entries[e].val;
        }
    }
    free(fill);
    *out = (struct csr){rows, cols, nonzeros, row_start, col, val};
    return 0;
}

static int read_open(FILE *file, csr_alloc_fn alloc, struct csr *out,
                     char *why, size_t why_size)
{
    char line[1024], object[32], format[32], field[32], symmetry[32];
    long number = 0;
    if (fgets(line, sizeof line, file) == NULL)
        return refuse(why, why_size, "empty file");
    number = 1;
    if (sscanf(line, "%%%%MatrixMarket %31s %31s %31s %31s", object, format,
               field, symmetry) != 4 ||
        strcasecmp(object, "matrix") != 0)
        return refuse(why, why_size, "line 1 is not a Matrix Market "
                      "banner");
    bool pattern = strcasecmp(field, "pattern") == 0;
    bool symmetric = strcasecmp(symmetry, "symmetric") == 0;
    if (strcasecmp(format, "coordinate") != 0)
        return refuse(why, why_size, "only coordinate format is "
                      "supported, not '%s'", format);
    if (!pattern && strcasecmp(field, "real") != 0 &&
        strcasecmp(field, "integer") != 0)
        return refuse(why, why_size, "only real, integer and pattern "
                      "entries are supported, not '%s'", field);
    if (!symmetric && strcasecmp(symmetry, "general") != 0)
        return refuse(why, why_size, "only general and symmetric "
                      "matrices are supported, not '%s'", symmetry);

    long rows, cols, count;
    char *cursor = next_line(file, line, sizeof line, &number);
    if (cursor == NULL || !parse_long(&cursor, &rows) ||
        !parse_long(&cursor, &cols) || !parse_long(&cursor, &count) ||
        !only_blanks(cursor) || rows <= 0 || cols <= 0 || count < 0 ||
        (symmetric && rows != cols))
        return refuse(why, why_size, "line %ld: bad size line (want "
                      "'ROWS COLUMNS ENTRIES')", number);
    if ((double)count > (double)rows * (double)cols)
        return refuse(why, why_size, "line %ld: %ld entries do not fit a "
                      "%ldx%ld matrix", number, count, rows, cols);
    struct entry *entries = malloc((size_t)(count ? count : 1) *
                                   sizeof *entries);
    if (entries == NULL)
        return refuse(why, why_size, "no memory for %ld entries", count);
    for (long e = 0; e < count; e++) {
        struct entry *en = &entries[e];
        cursor = next_line(file, line, sizeof line, &number);
        if (cursor == NULL) {
            free(entries);
            return refuse(why, why_size, "file ends after %ld of %ld "
                          "entries", e, count);
        }
        en->val = 1.0;
        if (!parse_long(&cursor, &en->row) ||
            !parse_long(&cursor, &en->col) ||
            (!pattern && !parse_double(&cursor, &en->val)) ||
            !only_blanks(cursor) || en->row < 1 || en->row > rows ||
            en->col < 1 || en->col > cols) {
            free(entries);
            return refuse(why, why_size, "line %ld: bad entry (want "
                          "'ROW COLUMN%s' within %ldx%ld)", number,
                          pattern ? "" : " VALUE", rows, cols);
        }
        en->row--;
        en->col--;
    }
    if (next_line(file, line, sizeof line, &number) != NULL &&
        !only_blanks(line)) {
        free(entries);
        return refuse(why, why_size, "line %ld: more entries than the %ld "
                      "announced", number, count);
    }
    int status = build(entries, count, symmetric, rows, cols, alloc, out);
    free(entries);
    if (status != 0)
        return refuse(why, why_size, "no memory for the matrix");
    return 0;
}

int csr_read_mtx(const char *path, csr_alloc_fn alloc, struct csr *out,
                 char *why, size_t why_size)
{
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return refuse(why, why_size, "cannot read '%s': %s", path,
                      strerror(errno));
    int status = read_open(file, alloc, out, why, why_size);
    fclose(file);
    return status;
}
