/*
 * omp_tasks_recursive.c - recursive task computations with a cutoff:
 * Fibonacci (a taskwait per call, tasks below depth CUTOFF run as plain
 * calls) and the n-queens count (one task per placement, final below a
 * depth, the partial counts combined with atomics), started by one thread
 * of the team and by every thread.
 *
 * Test program (dsmcc, dsmrun; also built with libomp for the
 * cross-check).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <string.h>

#include "omp_check.h"

#define FIB_N 22
#define FIB_CUTOFF 10
#define QUEENS 8
#define QUEENS_FINAL 3
#define MAX_THREADS 64

static long fib_serial(int n)
{
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static long fib(int n)
{
    if (n < FIB_CUTOFF)
        return fib_serial(n);
    long a, b;
#pragma omp task shared(a) firstprivate(n)
    a = fib(n - 1);
#pragma omp task shared(b) firstprivate(n)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

static long solutions;

static int safe(const char *board, int row, int col)
{
    for (int r = 0; r < row; r++) {
        int c = board[r];
        if (c == col || c - col == row - r || col - c == row - r)
            return 0;
    }
    return 1;
}

static void queens(const char *board, int row)
{
    if (row == QUEENS) {
#pragma omp atomic
        solutions++;
        return;
    }
    for (int col = 0; col < QUEENS; col++) {
        if (!safe(board, row, col))
            continue;
#pragma omp task firstprivate(col, row) final(row >= QUEENS_FINAL)
        {
            char next[QUEENS];
            memcpy(next, board, (size_t)row);
            next[row] = (char)col;
            queens(next, row + 1);
        }
    }
#pragma omp taskwait
}

static long per_thread[MAX_THREADS];

int main(void)
{
    int nth = omp_get_max_threads();
    if (nth > MAX_THREADS)
        return 2;
    long f = 0;
#pragma omp parallel
#pragma omp single
    f = fib(FIB_N);
    CHECK_EQ_LONG(f, fib_serial(FIB_N));

#pragma omp parallel
    {
        /* every thread starts its own computation */
        int me = omp_get_thread_num();
        per_thread[me] = fib(FIB_CUTOFF + 2 + me % 4);
    }
    for (int t = 0; t < nth; t++)
        CHECK_EQ_LONG(per_thread[t], fib_serial(FIB_CUTOFF + 2 + t % 4));

    char board[QUEENS];
#pragma omp parallel
#pragma omp single
    queens(board, 0);
    CHECK_EQ_LONG(solutions, 92);
    RESULT("fib(%d) %ld, %d-queens %ld", FIB_N, f, QUEENS, solutions);
    return check_status("omp_tasks_recursive");
}
