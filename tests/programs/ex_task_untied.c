/*
 * ex_task_untied.c - untied tasks: an untied generator task makes many
 * small tasks and calls taskyield between them (so a thread may leave it
 * and resume it later, possibly another thread), untied tasks that
 * themselves create untied children and wait for them with taskwait, and
 * a final taskwait in the generator.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define TASKS 400
#define FANOUT 6

static long leaf_sum, tree_sum;
static int done[TASKS];

static long leaf(int i)
{
    long s = 0;
    for (int k = 0; k < 200; k++)
        s += (i + k) % 11;
    return s;
}

static void tree(int depth, int id)
{
    if (depth == 0) {
#pragma omp atomic
        tree_sum += id;
        return;
    }
    for (int c = 0; c < FANOUT / 2; c++) {
#pragma omp task untied firstprivate(depth, id, c)
        tree(depth - 1, id * 3 + c);
    }
#pragma omp taskwait
}

int main(void)
{
    int errors = 0;

#pragma omp parallel
    {
#pragma omp single
        {
#pragma omp task untied
            {
                for (int i = 0; i < TASKS; i++) {
#pragma omp task firstprivate(i)
                    {
                        long s = leaf(i);
#pragma omp atomic
                        leaf_sum += s;
                        done[i] = 1;
                    }
                    if (i % 10 == 0) {
#pragma omp taskyield
                    }
                }
#pragma omp taskwait
            }
#pragma omp task untied
            tree(5, 1);
        }
    }

    long want_leaf = 0, want_tree = 0;
    for (int i = 0; i < TASKS; i++) {
        want_leaf += leaf(i);
        if (!done[i])
            errors++;
    }
    /* ids at depth 0 after 5 levels from id 1 */
    long lo = 1, hi = 1;
    for (int d = 0; d < 5; d++) {
        lo = lo * 3;
        hi = hi * 3 + 2;
    }
    for (long id = lo; id <= hi; id++)
        want_tree += id;
    if (leaf_sum != want_leaf || tree_sum != want_tree)
        errors++;
    printf("result: leaf %ld tree %ld\n", leaf_sum, tree_sum);
    if (errors)
        fprintf(stderr, "ex_task_untied: %d errors (want %ld %ld)\n", errors,
                want_leaf, want_tree);
    return errors ? 1 : 0;
}
