/*
 * ex_cancel.c - cancellation, run with OMP_CANCELLATION=true: a parallel
 * search loop that cancels the loop when it finds its (unique) key, with
 * cancellation points in the other iterations, and a taskgroup of
 * search tasks cancelled by the task that finds the key.  The answers do
 * not depend on how much work cancellation saved.  (No "cancel parallel":
 * clang 14's libomp now and then hangs at the end of a cancelled region.)
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 20000
#define KEY_AT 12345

static int found_loop = -1, found_task = -1;

int main(void)
{
    int *v = malloc(N * sizeof *v);
    int errors = 0;
    const char *env = getenv("OMP_CANCELLATION");
    int want_cancel = env && strcmp(env, "true") == 0;

    if (omp_get_cancellation() != want_cancel)
        errors++;
    for (int i = 0; i < N; i++)
        v[i] = (i * 7) % N + N;
    v[KEY_AT] = 1;

#pragma omp parallel for schedule(dynamic, 100)
    for (int i = 0; i < N; i++) {
        if (v[i] == 1) {
#pragma omp atomic write
            found_loop = i;
#pragma omp cancel for
        }
#pragma omp cancellation point for
    }

#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        {
            for (int b = 0; b < N; b += 500) {
#pragma omp task firstprivate(b)
                {
                    for (int i = b; i < b + 500; i++)
                        if (v[i] == 1) {
#pragma omp atomic write
                            found_task = i;
#pragma omp cancel taskgroup
                        }
                }
            }
        }
    }

    if (found_loop != KEY_AT || found_task != KEY_AT)
        errors++;
    printf("result: cancellation %d found %d %d\n", omp_get_cancellation(),
           found_loop, found_task);
    free(v);
    if (errors)
        fprintf(stderr, "ex_cancel: %d errors\n", errors);
    return errors ? 1 : 0;
}
