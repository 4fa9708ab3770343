/*
 * ex_nest_lock.c - nestable locks: a recursive routine takes the same
 * nest lock at every level of the recursion (the classic "incr_a / incr_b
 * under one lock" pattern), and omp_test_nest_lock returns the nesting
 * count.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

struct pair {
    long a, b;
    omp_nest_lock_t lock;
};

static void incr_a(struct pair *p, long by)
{
    omp_set_nest_lock(&p->lock);
    p->a += by;
    omp_unset_nest_lock(&p->lock);
}

static void incr_b(struct pair *p, long by)
{
    omp_set_nest_lock(&p->lock);
    p->b += by;
    omp_unset_nest_lock(&p->lock);
}

static void incr_both(struct pair *p, int depth)
{
    omp_set_nest_lock(&p->lock);
    incr_a(p, depth);
    incr_b(p, 2 * depth);
    if (depth > 1)
        incr_both(p, depth - 1);
    omp_unset_nest_lock(&p->lock);
}

int main(void)
{
    struct pair *p = malloc(sizeof *p);
    int errors = 0, nthreads = 0;

    p->a = p->b = 0;
    omp_init_nest_lock(&p->lock);

#pragma omp parallel reduction(+ : errors, nthreads)
    {
        nthreads++;
        for (int k = 0; k < 20; k++)
            incr_both(p, 4);
        int depth = 0;
        while ((depth = omp_test_nest_lock(&p->lock)) == 0)
            ;
        if (omp_test_nest_lock(&p->lock) != depth + 1)
            errors++;
        omp_unset_nest_lock(&p->lock);
        omp_unset_nest_lock(&p->lock);
    }

    /* 20 calls of incr_both(4) add 4+3+2+1 to a, twice that to b */
    if (p->a != 200L * nthreads || p->b != 400L * nthreads)
        errors++;
    printf("result: threads %d a %ld b %ld\n", nthreads, p->a, p->b);
    omp_destroy_nest_lock(&p->lock);
    free(p);
    if (errors)
        fprintf(stderr, "ex_nest_lock: %d errors\n", errors);
    return errors ? 1 : 0;
}
