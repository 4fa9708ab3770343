/*
 * ex_flush_pingpong.c - a ping-pong on one shared flag with flush(flag):
 * thread 0 moves the counter from even to odd, the last thread from odd to
 * even, each spinning on "flush(flag); read flag" until it is its turn;
 * 60 exchanges.  The flag itself carries the data.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define EXCHANGES 60

int flag;

int main(void)
{
    int errors = 0, moves[2] = {0, 0}, nthreads = 1;

#pragma omp parallel
    {
        int me = omp_get_thread_num();
        int nt = omp_get_num_threads();
        if (me == 0)
            nthreads = nt;
        int side = me == 0 ? 0 : (me == nt - 1 ? 1 : -1);
        if (nt > 1 && side >= 0) {
            for (int k = 0; k < EXCHANGES; k++) {
                int want = 2 * k + side, f;
                do {
#pragma omp flush(flag)
                    f = flag;
                } while (f != want);
                flag = want + 1;
#pragma omp flush(flag)
                moves[side]++;
            }
        }
    }
    if (nthreads > 1 && (flag != 2 * EXCHANGES || moves[0] != EXCHANGES ||
                         moves[1] != EXCHANGES))
        errors++;
    printf("result: flag %d moves %d %d\n", flag, moves[0], moves[1]);
    if (errors)
        fprintf(stderr, "ex_flush_pingpong: wrong final state\n");
    return errors ? 1 : 0;
}
