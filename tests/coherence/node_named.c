/*
 * node_named.c - named cluster locks (dsm_coh_lock_named) whose hashes
 * collide, under dsmrun.  Run with DSM_NAMED_LOCK_HASH_BITS=0: every name
 * hashes to the same manager (node 0) and the same bucket, so only the
 * manager's table of full keys keeps distinct names distinct.
 *
 *   node_named            the collective tests below
 *   node_named full       node 0 holds more named locks than its table
 *                         (DSM_NAMED_LOCKS) has entries: a fatal error
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coherence.h"
#include "dsm.h"
#include "sys_fault.h"

#define TEST_BEGIN() dsm_sys_fault_reassert()

static int rank, nodes, threads;

/* The names are the addresses of sharable globals, the same on every
 * node, as the runtime's own names are. */
static DSM_SHARABLE char name_a, name_b, name_c;
static DSM_SHARABLE uint64_t g_value;
#define NKEYS 64
static DSM_SHARABLE char names[2 * NKEYS];
static DSM_SHARABLE uint64_t g_counts[NKEYS];

static void lock_name(const void *key)
{
    dsm_lock_t l = dsm_coh_lock_named((uint64_t)(uintptr_t)key);
    assert_int_equal(dsm_lock_acquire(&l), DSM_OK);
}

static void unlock_name(const void *key)
{
    dsm_lock_t l = dsm_coh_lock_named((uint64_t)(uintptr_t)key);
    assert_int_equal(dsm_lock_release(&l), DSM_OK);
}

/* ---- A->B on node 0 and C->A on node 1, B and C colliding: with one
 * cluster lock for B and C this deadlocks (node 0 holds A and waits for
 * B, held by node 1 as C, which waits for A); the program's order is
 * acyclic, so it must finish. */
static void test_aliased_nesting(void **state)
{
    TEST_BEGIN();
    if (rank == 0)
        lock_name(&name_a);
    else if (rank == 1)
        lock_name(&name_c);
    dsm_barrier();                    /* both hold their outer lock */
    if (rank == 0) {
        lock_name(&name_b);
        g_value = 42;
        unlock_name(&name_b);
        unlock_name(&name_a);
    } else if (rank == 1) {
        lock_name(&name_a);           /* waits for node 0's release */
        assert_int_equal(g_value, 42);
        unlock_name(&name_a);
        unlock_name(&name_c);
    }
    dsm_barrier();
}

/* ---- many names through a small table (DSM_NAMED_LOCKS): entries of
 * free locks are reused, and a reused entry still hands over what the
 * previous holders of its old names wrote.  Every thread nests an outer
 * name (order rotated per thread) and an inner one; the counts must be
 * exact. */
#define ROUNDS 20

static void many_names_thread(int t)
{
    int me = rank * threads + t;
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < NKEYS; i++) {
            int k = (i + me * 7) % NKEYS;
            lock_name(&names[k]);
            lock_name(&names[NKEYS + k]);
            g_counts[k]++;
            unlock_name(&names[NKEYS + k]);
            unlock_name(&names[k]);
        }
}

struct thread_arg { int t; };

static void *thread_main(void *p)
{
    many_names_thread(((struct thread_arg *)p)->t);
    return NULL;
}

static void test_many_names(void **state)
{
    TEST_BEGIN();
    pthread_t tid[64];
    struct thread_arg args[64];
    assert_int_equal(dsm_barrier_threads(threads), DSM_OK);
    for (int t = 1; t < threads; t++) {
        args[t].t = t;
        assert_int_equal(pthread_create(&tid[t], NULL, thread_main,
                                        &args[t]), 0);
    }
    many_names_thread(0);
    for (int t = 1; t < threads; t++)
        pthread_join(tid[t], NULL);
    assert_int_equal(dsm_barrier_threads(1), DSM_OK);
    dsm_barrier();
    for (int k = 0; k < NKEYS; k++)
        assert_int_equal(g_counts[k], (uint64_t)(nodes * threads * ROUNDS));
    dsm_barrier();
}

/* node 0 holds one more name than its table holds: the job must end
 * with a message naming DSM_NAMED_LOCKS, never share a lock. */
static int hold_too_many(void)
{
    if (rank == 0)
        for (int k = 0; k < NKEYS; k++)
            lock_name(&names[k]);
    dsm_barrier();
    return 1;                         /* not reached with a small table */
}

int main(int argc, char **argv)
{
    if (dsm_init() != DSM_OK)
        return 1;
    rank = dsm_node_id();
    nodes = dsm_num_nodes();
    const char *t = getenv("DSM_THREADS");
    threads = t ? atoi(t) : 1;
    if (threads < 1 || threads > 64)
        threads = 1;
    if (argc > 1 && strcmp(argv[1], "full") == 0)
        return hold_too_many();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aliased_nesting),
        cmocka_unit_test(test_many_names),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    dsm_sys_fault_reassert();
    dsm_finalize();
    return failed ? 1 : 0;
}
