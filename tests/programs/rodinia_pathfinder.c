/*
 * rodinia_pathfinder.c - dynamic programming after Rodinia's pathfinder:
 * the cheapest path from the top row of a grid of weights to the bottom,
 * moving down, down-left or down-right.  Row after row, a parallel loop
 * over the columns computes the new costs from the previous row's (two
 * buffers swapped each row): 300 short parallel loops.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 300
#define COLS 500

static int min3(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

int main(void)
{
    int *wall = malloc((size_t)ROWS * COLS * sizeof *wall);
    int *src = malloc(COLS * sizeof *src), *dst = malloc(COLS * sizeof *dst);
    int *ref = malloc(COLS * sizeof *ref), *ref2 = malloc(COLS * sizeof *ref2);
    unsigned seed = 9;
    int errors = 0;

    for (int k = 0; k < ROWS * COLS; k++) {
        seed = seed * 1103515245u + 12345u;
        wall[k] = (seed >> 16) % 10;
    }
    for (int c = 0; c < COLS; c++)
        src[c] = ref[c] = wall[c];

    for (int r = 1; r < ROWS; r++) {
#pragma omp parallel for
        for (int c = 0; c < COLS; c++) {
            int best = src[c];
            if (c > 0)
                best = best < src[c - 1] ? best : src[c - 1];
            if (c < COLS - 1)
                best = best < src[c + 1] ? best : src[c + 1];
            dst[c] = wall[r * COLS + c] + best;
        }
        int *t = src;
        src = dst;
        dst = t;
    }

    for (int r = 1; r < ROWS; r++) {
        for (int c = 0; c < COLS; c++) {
            int left = c > 0 ? ref[c - 1] : ref[c];
            int right = c < COLS - 1 ? ref[c + 1] : ref[c];
            ref2[c] = wall[r * COLS + c] + min3(left, ref[c], right);
        }
        int *t = ref;
        ref = ref2;
        ref2 = t;
    }
    int best = src[0];
    long sum = 0;
    for (int c = 0; c < COLS; c++) {
        if (src[c] != ref[c])
            errors++;
        if (src[c] < best)
            best = src[c];
        sum += src[c];
    }
    printf("result: shortest %d sum %ld\n", best, sum);
    free(wall);
    free(src);
    free(dst);
    free(ref);
    free(ref2);
    if (errors)
        fprintf(stderr, "rodinia_pathfinder: %d columns differ\n", errors);
    return errors ? 1 : 0;
}
