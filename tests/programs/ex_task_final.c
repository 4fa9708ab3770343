/*
 * ex_task_final.c - final, mergeable and if(0): inside a final task every
 * descendant is included (omp_in_final() is true, it runs at once in the
 * encountering thread); a task with if(0) is undeferred (it is complete
 * when the encountering thread continues, and ran on that thread);
 * mergeable tasks may share the data environment of their parent.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int final_seen, not_final_seen, included_wrong;

static long sum_tree(int depth)
{
    if (omp_in_final()) {
#pragma omp atomic
        final_seen++;
    } else {
#pragma omp atomic
        not_final_seen++;
    }
    if (depth == 0)
        return 1;
    long a = 0, b = 0;
    int outer_thread = omp_get_thread_num();
    int in_final = omp_in_final();
#pragma omp task shared(a) final(depth <= 3) firstprivate(depth)
    {
        a = sum_tree(depth - 1);
    }
#pragma omp task shared(b) final(depth <= 3) firstprivate(depth, outer_thread, in_final)
    {
        /* a task created in a final task is included: same thread */
        if (in_final && omp_get_thread_num() != outer_thread) {
#pragma omp atomic
            included_wrong++;
        }
        b = sum_tree(depth - 1);
    }
#pragma omp taskwait
    return a + b;
}

int main(void)
{
    int errors = 0, undeferred_ok = 1, merge_value = 0;
    long leaves = 0;

#pragma omp parallel
#pragma omp single
    {
        leaves = sum_tree(7);

        for (int k = 0; k < 20; k++) {
            int flag = 0;
            int creator = omp_get_thread_num();
            int ran_on = -1;
#pragma omp task if (0) shared(flag, ran_on)
            {
                flag = 1;
                ran_on = omp_get_thread_num();
            }
            /* an undeferred task has completed here */
            if (flag != 1 || ran_on != creator)
                undeferred_ok = 0;
        }

        int local = 5;
#pragma omp task mergeable shared(merge_value) firstprivate(local)
        merge_value = local * 3;
#pragma omp taskwait
    }

    if (leaves != 128 || !undeferred_ok || included_wrong ||
        merge_value != 15)
        errors++;
    /* calls at depths 7..3 run outside a final task (1+2+4+8+16: the
     * root, and tasks made with final(false) by depths 7..4), the rest in
     * one */
    if (not_final_seen + final_seen != 255 || not_final_seen != 31)
        errors++;
    printf("result: leaves %ld final %d not-final %d merge %d\n", leaves,
           final_seen, not_final_seen, merge_value);
    if (errors)
        fprintf(stderr, "ex_task_final: %d errors: leaves %ld (want 128), "
                "undeferred ok %d, included on another thread %d, mergeable "
                "%d (want 15), calls in final tasks %d (want 224), outside "
                "%d (want 31)\n", errors, leaves, undeferred_ok,
                included_wrong, merge_value, final_seen, not_final_seen);
    return errors ? 1 : 0;
}
