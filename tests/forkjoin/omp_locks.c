/*
 * omp_locks.c - OpenMP locks across nodes: a global lock and a lock on
 * main's stack guarding counters, omp_test_lock until it succeeds, locks
 * made in a region, and nest locks taken recursively (omp_test_nest_lock
 * returns the depth).
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>

#include "omp_check.h"

#define ROUNDS 100

static omp_lock_t global_lock;
static omp_nest_lock_t nest;
static long global_count, nest_count;

static void nested_increment(int depth)
{
    omp_set_nest_lock(&nest);
    nest_count++;
    if (depth > 1)
        nested_increment(depth - 1);
    omp_unset_nest_lock(&nest);
}

int main(void)
{
    int nth = omp_get_max_threads();
    omp_lock_t stack_lock;
    long stack_count = 0, tested = 0, region_count = 0;
    omp_lock_t *region_lock_ptr = NULL;
    omp_lock_t region_lock;
    omp_init_lock(&global_lock);
    omp_init_lock_with_hint(&stack_lock, omp_sync_hint_contended);
    omp_init_nest_lock(&nest);

#pragma omp parallel
    {
        for (int r = 0; r < ROUNDS; r++) {
            omp_set_lock(&global_lock);
            global_count++;
            omp_unset_lock(&global_lock);
            while (!omp_test_lock(&stack_lock))
                ;
            stack_count++;
            tested++;
            omp_unset_lock(&stack_lock);
        }
        for (int r = 0; r < ROUNDS / 10; r++)
            nested_increment(3);
#pragma omp single
        {
            int depth = omp_test_nest_lock(&nest);
            if (depth) {
                CHECK_EQ_LONG(omp_test_nest_lock(&nest), depth + 1);
                omp_unset_nest_lock(&nest);
                omp_unset_nest_lock(&nest);
            }
        }
        /* a lock created by one thread inside the region */
#pragma omp single
        {
            omp_init_lock(&region_lock);
            region_lock_ptr = &region_lock;
        }
        omp_set_lock(region_lock_ptr);
        region_count++;
        omp_unset_lock(region_lock_ptr);
    }
    CHECK_EQ_LONG(global_count, (long)nth * ROUNDS);
    CHECK_EQ_LONG(stack_count, (long)nth * ROUNDS);
    CHECK_EQ_LONG(tested, (long)nth * ROUNDS);
    CHECK_EQ_LONG(nest_count, 3L * nth * (ROUNDS / 10));
    CHECK_EQ_LONG(region_count, nth);
    omp_destroy_lock(&region_lock);
    omp_destroy_lock(&global_lock);
    omp_destroy_lock(&stack_lock);
    omp_destroy_nest_lock(&nest);
    return check_status("omp_locks");
}
