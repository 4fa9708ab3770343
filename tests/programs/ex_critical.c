/*
 * ex_critical.c - unnamed critical around a shared maximum and its index,
 * two named critical sections guarding two linked lists built from malloc'd
 * nodes, and a critical with a hint.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 3000

struct node {
    int value;
    struct node *next;
};

struct node *evens, *odds;

static double f(int i)
{
    return (double)((i * 7919L) % 10007) / 10.0;
}

int main(void)
{
    double best = -1;
    int best_i = -1, errors = 0;
    long counted = 0;

#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        double v = f(i);
#pragma omp critical
        {
            if (v > best || (v == best && i < best_i)) {
                best = v;
                best_i = i;
            }
        }
        struct node *n = malloc(sizeof *n);
        n->value = i;
        if (i % 2 == 0) {
#pragma omp critical(evens_list)
            {
                n->next = evens;
                evens = n;
            }
        } else {
#pragma omp critical(odds_list)
            {
                n->next = odds;
                odds = n;
            }
        }
#pragma omp critical(counter) hint(omp_sync_hint_contended)
        counted += i;
    }

    double want = -1;
    int want_i = -1;
    for (int i = 0; i < N; i++)
        if (f(i) > want) {
            want = f(i);
            want_i = i;
        }
    long even_sum = 0, odd_sum = 0;
    int n_even = 0, n_odd = 0;
    for (struct node *p = evens; p; p = p->next) {
        if (p->value % 2)
            errors++;
        even_sum += p->value;
        n_even++;
    }
    for (struct node *p = odds; p; p = p->next) {
        if (p->value % 2 == 0)
            errors++;
        odd_sum += p->value;
        n_odd++;
    }
    if (best != want || best_i != want_i || n_even != N / 2 ||
        n_odd != N / 2 || even_sum + odd_sum != (long)N * (N - 1) / 2 ||
        counted != (long)N * (N - 1) / 2)
        errors++;
    printf("result: best %.1f at %d lists %d %d sums %ld %ld\n", best,
           best_i, n_even, n_odd, even_sum, odd_sum);
    if (errors)
        fprintf(stderr, "ex_critical: %d errors\n", errors);
    return errors ? 1 : 0;
}
