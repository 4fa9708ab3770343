/*
 * libc_strings.c - strings the C library allocates for the program,
 * shared with the team: names strdup'ed and strndup'ed in serial code and
 * read by every thread, lines read with getline (into a buffer the
 * program allocated, grown by getline) and parsed in parallel, a token
 * list from strtok_r over a strdup'ed copy (programs corpus).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINES 200

int main(void)
{
    const char *words[4] = {"alpha", "beta", "gamma-delta-epsilon",
                            "zeta"};
    char *names[4];
    for (int i = 0; i < 4; i++)
        names[i] = i % 2 ? strndup(words[i], 3) : strdup(words[i]);
    long letters = 0;
#pragma omp parallel for reduction(+ : letters) schedule(static, 1)
    for (int i = 0; i < 64; i++)
        letters += (long)strlen(names[i % 4]) * (i + 1);
    printf("result: duplicated names %s %s %s %s letters %ld\n", names[0],
           names[1], names[2], names[3], letters);

    char path[] = "/tmp/dsm_libc_strings_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < LINES; i++) {
        fprintf(f, "%d", i);
        for (int k = 0; k < i % 37; k++)
            fputc(',', f);   /* lines longer than the first buffer */
        fprintf(f, "%d\n", i * 3);
    }
    fclose(f);
    f = fopen(path, "r");
    char *lines[LINES];
    size_t cap = 16;
    char *line = malloc(cap);
    int n = 0;
    while (n < LINES && getline(&line, &cap, f) > 0)
        lines[n++] = strdup(line);
    free(line);
    fclose(f);
    unlink(path);
    long total = 0, commas = 0;
#pragma omp parallel for reduction(+ : total, commas)
    for (int i = 0; i < n; i++) {
        char *end;
        long first = strtol(lines[i], &end, 10);
        while (*end == ',') {
            commas++;
            end++;
        }
        total += first + strtol(end, NULL, 10);
    }
    printf("result: getline lines %d total %ld commas %ld\n", n, total,
           commas);

    char *sentence = strdup("the quick brown fox jumps over the lazy dog");
    char *tokens[16], *save = NULL;
    int ntokens = 0;
    for (char *t = strtok_r(sentence, " ", &save); t && ntokens < 16;
         t = strtok_r(NULL, " ", &save))
        tokens[ntokens++] = t;
    long token_letters = 0;
#pragma omp parallel for reduction(+ : token_letters)
    for (int i = 0; i < ntokens; i++)
        token_letters += (long)strlen(tokens[i]) * (i + 1);
    printf("result: tokens %d weighted letters %ld\n", ntokens,
           token_letters);

    for (int i = 0; i < n; i++)
        free(lines[i]);
    for (int i = 0; i < 4; i++)
        free(names[i]);
    free(sentence);
    return 0;
}
