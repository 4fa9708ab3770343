/*
 * ex_atomic_capture.c - atomic capture in its forms: v = x++, v = ++x,
 * { v = x; x += e; }, { x -= e; v = x; }, v = x = expr (a capture of a
 * write) and seq_cst capture.  Tickets taken with a fetch-and-add must be
 * a permutation of 0..N-1.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 3000

int main(void)
{
    int next = 0, pre = 0, errors = 0;
    long bank = 1000000;
    double level = 0;
    int *ticket = malloc(N * sizeof *ticket);
    int *seen = calloc(N, sizeof *seen);
    long *balance = malloc(N * sizeof *balance);
    int last_swap = -1;

#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        int t;
#pragma omp atomic capture
        t = next++;
        ticket[i] = t;

        int u;
#pragma omp atomic capture seq_cst
        u = ++pre;
        if (u < 1 || u > N) {
#pragma omp atomic
            errors++;
        }

        long b;
#pragma omp atomic capture
        {
            bank -= 3;
            b = bank;
        }
        balance[i] = b;

        double old;
#pragma omp atomic capture
        {
            old = level;
            level += 0.25;
        }
        if (old < 0 || old > N * 0.25) {
#pragma omp atomic
            errors++;
        }

        int prev;
#pragma omp atomic capture
        {
            prev = last_swap;
            last_swap = i;
        }
        (void)prev;
    }

    for (int i = 0; i < N; i++) {
        if (ticket[i] < 0 || ticket[i] >= N || seen[ticket[i]]++)
            errors++;
        if (balance[i] > 1000000 - 3 || balance[i] < 1000000 - 3L * N ||
            (1000000 - balance[i]) % 3)
            errors++;
    }
    /* balances are distinct, as tickets are */
    int *bal_seen = calloc(N, sizeof *bal_seen);
    for (int i = 0; i < N; i++) {
        long k = (1000000 - balance[i]) / 3 - 1;
        if (k < 0 || k >= N || bal_seen[k]++)
            errors++;
    }
    if (next != N || pre != N || bank != 1000000 - 3L * N ||
        level != N * 0.25 || last_swap < 0 || last_swap >= N)
        errors++;
    printf("result: next %d pre %d bank %ld level %.2f\n", next, pre, bank,
           level);
    if (errors)
        fprintf(stderr, "ex_atomic_capture: %d errors\n", errors);
    free(ticket);
    free(seen);
    free(balance);
    free(bal_seen);
    return errors ? 1 : 0;
}
