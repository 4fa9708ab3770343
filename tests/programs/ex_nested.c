/*
 * ex_nested.c - nested parallel regions: with omp_set_max_active_levels(2)
 * an inner parallel region with num_threads(2) inside an outer one gets a
 * team of two threads; omp_get_level, omp_get_active_level,
 * omp_get_ancestor_thread_num and omp_get_team_size describe the nesting;
 * a nested parallel for fills a matrix.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 8
#define COLS 64

static double mat[ROWS][COLS];

int main(void)
{
    int errors = 0, outer_size = 0, inner_sizes_ok = 1, levels_ok = 1;
    int inner_total = 0;

    omp_set_dynamic(0);
    omp_set_max_active_levels(2);
    int outer = omp_get_max_threads() >= 2 ? 2 : 1;
#pragma omp parallel num_threads(outer)
    {
#pragma omp single
        outer_size = omp_get_num_threads();
        int o = omp_get_thread_num();
#pragma omp parallel num_threads(2) reduction(+ : inner_total)
        {
            inner_total += 1;
            if (omp_get_num_threads() != 2) {
#pragma omp atomic write
                inner_sizes_ok = 0;
            }
            if (omp_get_level() != 2 ||
                omp_get_active_level() != (outer_size > 1 ? 2 : 1) ||
                omp_get_ancestor_thread_num(1) != o ||
                omp_get_team_size(1) != outer_size ||
                omp_get_team_size(2) != 2) {
#pragma omp atomic write
                levels_ok = 0;
            }
        }
    }

#pragma omp parallel for num_threads(2)
    for (int r = 0; r < ROWS; r++) {
#pragma omp parallel for num_threads(2)
        for (int c = 0; c < COLS; c++)
            mat[r][c] = r * 1000 + c;
    }

    double sum = 0;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            if (mat[r][c] != r * 1000 + c)
                errors++;
            sum += mat[r][c];
        }
    if (outer_size != outer || !inner_sizes_ok || !levels_ok ||
        inner_total != 2 * outer)
        errors++;
    printf("result: outer %d inner threads %d levels %d sum %.0f\n",
           outer_size, inner_total, levels_ok, sum);
    if (errors)
        fprintf(stderr, "ex_nested: %d errors: outer team %d (want %d), "
                "inner teams of 2 %s, %d inner threads in all (want %d), "
                "nesting queries %s\n", errors, outer_size, outer,
                inner_sizes_ok ? "yes" : "no", inner_total, 2 * outer,
                levels_ok ? "right" : "wrong");
    return errors ? 1 : 0;
}
