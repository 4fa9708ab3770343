/*
 * ex_locks.c - simple locks: one lock guarding a shared work queue that
 * threads pop items from, an array of per-bucket locks guarding a hash
 * table of counts, and omp_test_lock polled until it succeeds.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ITEMS 500
#define BUCKETS 8

int queue[ITEMS];
int queue_head;
long bucket_count[BUCKETS];
long bucket_sum[BUCKETS];

int main(void)
{
    omp_lock_t queue_lock, bucket_lock[BUCKETS], poll_lock;
    int errors = 0, polled = 0;
    long processed = 0;

    omp_init_lock(&queue_lock);
    omp_init_lock(&poll_lock);
    for (int b = 0; b < BUCKETS; b++)
        omp_init_lock(&bucket_lock[b]);
    for (int i = 0; i < ITEMS; i++)
        queue[i] = (i * 53) % 1000;

#pragma omp parallel reduction(+ : processed)
    {
        for (;;) {
            int item = -1;
            omp_set_lock(&queue_lock);
            if (queue_head < ITEMS)
                item = queue[queue_head++];
            omp_unset_lock(&queue_lock);
            if (item < 0)
                break;
            int b = item % BUCKETS;
            omp_set_lock(&bucket_lock[b]);
            bucket_count[b]++;
            bucket_sum[b] += item;
            omp_unset_lock(&bucket_lock[b]);
            processed++;
        }
        while (!omp_test_lock(&poll_lock))
            ;
        polled++;
        omp_unset_lock(&poll_lock);
    }

    long w_count[BUCKETS] = {0}, w_sum[BUCKETS] = {0};
    for (int i = 0; i < ITEMS; i++) {
        int v = (i * 53) % 1000;
        w_count[v % BUCKETS]++;
        w_sum[v % BUCKETS] += v;
    }
    unsigned long check = 0;
    for (int b = 0; b < BUCKETS; b++) {
        if (bucket_count[b] != w_count[b] || bucket_sum[b] != w_sum[b])
            errors++;
        check = check * 1000 + (unsigned long)bucket_sum[b];
    }
    int nthreads = omp_get_max_threads();
    if (processed != ITEMS || queue_head != ITEMS || polled != nthreads)
        errors++;
    printf("result: processed %ld polled %d check %lu\n", processed, polled,
           check);
    omp_destroy_lock(&queue_lock);
    omp_destroy_lock(&poll_lock);
    for (int b = 0; b < BUCKETS; b++)
        omp_destroy_lock(&bucket_lock[b]);
    if (errors)
        fprintf(stderr, "ex_locks: %d errors\n", errors);
    return errors ? 1 : 0;
}
