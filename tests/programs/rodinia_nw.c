/*
 * rodinia_nw.c - Needleman-Wunsch sequence alignment after Rodinia's nw:
 * the score matrix is computed in square blocks along anti-diagonals, the
 * blocks of one diagonal in a parallel loop (first the growing half of
 * the block matrix, then the shrinking half), so the loops have from one
 * to many iterations.  Compared with the serial row-by-row recurrence.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define LEN 512             /* sequence length; matrix is LEN+1 squared */
#define BLOCK 32
#define PENALTY 10

static int blosum_like(int a, int b)
{
    return a == b ? 5 : -((a + 2 * b) % 4) - 1;
}

static int max3(int a, int b, int c)
{
    int m = a > b ? a : b;
    return m > c ? m : c;
}

int main(void)
{
    const int n = LEN + 1;
    int *seq1 = malloc(n * sizeof *seq1), *seq2 = malloc(n * sizeof *seq2);
    int *score = malloc((size_t)n * n * sizeof *score);
    int *want = malloc((size_t)n * n * sizeof *want);
    unsigned seed = 3;
    int errors = 0;

    for (int i = 1; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        seq1[i] = (seed >> 16) % 10;
        seed = seed * 1103515245u + 12345u;
        seq2[i] = (seed >> 16) % 10;
    }
    for (int i = 0; i < n; i++) {
        score[i * n] = want[i * n] = -i * PENALTY;
        score[i] = want[i] = -i * PENALTY;
    }

    int nb = LEN / BLOCK;
    /* the upper-left triangle of blocks, then the lower-right one */
    for (int diag = 0; diag < 2 * nb - 1; diag++) {
        int first = diag < nb ? 0 : diag - nb + 1;
        int last = diag < nb ? diag : nb - 1;
#pragma omp parallel for schedule(static)
        for (int bx = first; bx <= last; bx++) {
            int by = diag - bx;
            for (int i = by * BLOCK + 1; i <= (by + 1) * BLOCK; i++)
                for (int j = bx * BLOCK + 1; j <= (bx + 1) * BLOCK; j++)
                    score[i * n + j] = max3(
                        score[(i - 1) * n + j - 1] +
                            blosum_like(seq1[i], seq2[j]),
                        score[i * n + j - 1] - PENALTY,
                        score[(i - 1) * n + j] - PENALTY);
        }
    }

    for (int i = 1; i < n; i++)
        for (int j = 1; j < n; j++)
            want[i * n + j] = max3(
                want[(i - 1) * n + j - 1] + blosum_like(seq1[i], seq2[j]),
                want[i * n + j - 1] - PENALTY,
                want[(i - 1) * n + j] - PENALTY);
    long check = 0;
    for (long k = 0; k < (long)n * n; k++) {
        if (score[k] != want[k])
            errors++;
        check += want[k] % 97;
    }
    printf("result: final score %d check %ld\n", want[(long)n * n - 1],
           check);
    free(seq1);
    free(seq2);
    free(score);
    free(want);
    if (errors)
        fprintf(stderr, "rodinia_nw: %d cells differ\n", errors);
    return errors ? 1 : 0;
}
