/*
 * test_sys_sync.c - the synchronisation primitives of sys_sync.h under
 * contention: the futex mutex excludes (a non-atomic counter incremented
 * by several threads ends exact), the node-local barrier lets nobody pass
 * a generation before every thread arrived and loses no wake-up (rounds
 * where waiters sleep at once), and a futex wait returns on a changed word
 * and after its timeout.  More threads than cores, so holders and last
 * arrivals are preempted.
 *
 * Layer: tests (suite 'sys').
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "sys_sync.h"

enum { THREADS = 6, INCREMENTS = 20000, ROUNDS = 2000 };

static dsm_mutex_t mutex;
static uint64_t counter;            /* only under mutex */

static void *increment(void *arg)
{
    (void)arg;
    for (int i = 0; i < INCREMENTS; i++) {
        if (i % 3 == 0) {
            while (!dsm_mutex_trylock(&mutex))
                dsm_cpu_relax();
        } else {
            dsm_mutex_lock(&mutex);
        }
        uint64_t v = counter;
        if (i % 1000 == 0) {
            /* held long enough that the others sleep on it */
            struct timespec ts = {0, 100 * 1000};
            nanosleep(&ts, NULL);
        }
        counter = v + 1;
        dsm_mutex_unlock(&mutex);
    }
    return NULL;
}

static void test_mutex_excludes(void **state)
{
    (void)state;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, increment, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(counter, (uint64_t)THREADS * INCREMENTS);
    assert_int_equal(atomic_load(&mutex), 0);
}

static dsm_local_barrier_t barrier;
static _Atomic int round_of[THREADS];   /* the round each thread is in */
static _Atomic int early;               /* a thread passed too soon */
static _Atomic int lasts;               /* last arrivals counted */

typedef struct { int me; int spins; } barrier_arg_t;

static void *barrier_rounds(void *p)
{
    barrier_arg_t *a = p;
    for (int r = 1; r <= ROUNDS; r++) {
        atomic_store(&round_of[a->me], r);
        uint32_t gen = dsm_local_barrier_gen(&barrier);
        if (dsm_local_barrier_arrive(&barrier, THREADS)) {
            atomic_fetch_add(&lasts, 1);
            for (int i = 0; i < THREADS; i++)
                if (atomic_load(&round_of[i]) != r)
                    atomic_store(&early, 1);
            dsm_local_barrier_release(&barrier, gen);
        } else {
            dsm_local_barrier_wait(&barrier, gen, a->spins);
        }
        /* after the barrier nobody may still be in an earlier round */
        for (int i = 0; i < THREADS; i++)
            if (atomic_load(&round_of[i]) < r)
                atomic_store(&early, 1);
    }
    return NULL;
}

static void run_barrier(int spins)
{
    pthread_t t[THREADS];
    barrier_arg_t a[THREADS];
    atomic_store(&early, 0);
    atomic_store(&lasts, 0);
    for (int i = 0; i < THREADS; i++) {
        a[i] = (barrier_arg_t){i, spins};
        atomic_store(&round_of[i], 0);
        assert_int_equal(pthread_create(&t[i], NULL, barrier_rounds, &a[i]),
                         0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&early), 0);
    assert_int_equal(atomic_load(&lasts), ROUNDS);   /* one last a round */
    assert_int_equal(atomic_load(&barrier.sleepers), 0);
}

static void test_barrier_sleeping(void **state)
{
    (void)state;
    run_barrier(0);          /* waiters sleep at once: no lost wake-up */
}

static void test_barrier_spinning(void **state)
{
    (void)state;
    run_barrier(1 << 20);    /* waiters spin (and yield) */
}

static _Atomic uint32_t word;

static void *change_word(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    atomic_store(&word, 1);
    dsm_futex_wake(&word, DSM_FUTEX_ALL);
    return NULL;
}

static void test_futex(void **state)
{
    (void)state;
    /* a word that already differs: no sleep */
    atomic_store(&word, 7);
    dsm_futex_wait(&word, 3, NULL);
    /* the timeout ends a wait nobody ends */
    struct timespec limit = {0, 5 * 1000 * 1000};
    dsm_futex_wait(&word, 7, &limit);
    /* a wake-up ends it */
    atomic_store(&word, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, change_word, NULL), 0);
    while (atomic_load(&word) == 0)
        dsm_futex_wait(&word, 0, NULL);
    pthread_join(t, NULL);
    assert_int_equal(atomic_load(&word), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutex_excludes),
        cmocka_unit_test(test_barrier_sleeping),
        cmocka_unit_test(test_barrier_spinning),
        cmocka_unit_test(test_futex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
