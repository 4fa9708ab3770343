/*
 * bots_nqueens.c - n-queens with tasks, in the style of the Barcelona
 * OpenMP Tasks Suite: every placement of a queen in the next row that is
 * still legal becomes a task with its own copy of the partial board (a
 * variable-length array copied from the parent's); solutions are counted
 * in a threadprivate counter per thread and summed in a critical section
 * at the end of the region.  Boards of 6 to 9 queens.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int solutions_here;
#pragma omp threadprivate(solutions_here)

static int legal(const char *board, int row, int col)
{
    for (int r = 0; r < row; r++) {
        int c = board[r];
        if (c == col || c - col == row - r || col - c == row - r)
            return 0;
    }
    return 1;
}

static void place(int n, int row, const char *board)
{
    if (row == n) {
        solutions_here++;
        return;
    }
    for (int col = 0; col < n; col++) {
#pragma omp task firstprivate(col, row, n, board)
        {
            char next[n];
            memcpy(next, board, row);
            next[row] = (char)col;
            if (legal(next, row, col))
                place(n, row + 1, next);
        }
    }
#pragma omp taskwait
}

static int place_serial(int n, int row, char *board)
{
    if (row == n)
        return 1;
    int count = 0;
    for (int col = 0; col < n; col++) {
        board[row] = (char)col;
        if (legal(board, row, col))
            count += place_serial(n, row + 1, board);
    }
    return count;
}

int main(void)
{
    int errors = 0;
    static const int known[10] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352};

    for (int n = 6; n <= 9; n++) {
        int total = 0;
#pragma omp parallel
        {
            solutions_here = 0;
#pragma omp single
            {
                char empty[1];
                place(n, 0, empty);
            }
#pragma omp critical
            total += solutions_here;
        }
        char board[16];
        int want = place_serial(n, 0, board);
        if (total != want || want != known[n])
            errors++;
        printf("result: %d queens: %d solutions\n", n, total);
    }
    if (errors)
        fprintf(stderr, "bots_nqueens: %d wrong counts\n", errors);
    return errors ? 1 : 0;
}
