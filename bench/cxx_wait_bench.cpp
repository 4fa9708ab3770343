/*
 * cxx_wait_bench.cpp - what a C++20 wait/notify hand-off costs: two
 * threads of the team (the first and the last: on different nodes under
 * dsmrun -n 2 -t 1) pass a token back and forth through one
 * std::atomic<int> with wait and notify_one, and every thread of the team
 * meets at a std::barrier.  The same source is built by dsmc++ (run it
 * under dsmrun) and by clang++ with libomp.
 *
 * Usage: cxx_wait_bench [REPEATS] (default 2000).  Prints one line per
 * operation: "cxx_wait_bench: OPERATION us=MICROSECONDS".
 */
#include <omp.h>

#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstdlib>

namespace {

std::atomic<int> token{0};

} // namespace

int main(int argc, char **argv)
{
    long repeats = argc > 1 ? std::atol(argv[1]) : 2000;
    if (repeats < 1) {
        std::fprintf(stderr, "usage: cxx_wait_bench [REPEATS]\n");
        return 2;
    }
    double pingpong = 0, meet = 0;
    std::barrier<> *all = nullptr;
#pragma omp parallel
    {
        int t = omp_get_thread_num(), last = omp_get_num_threads() - 1;
#pragma omp single
        all = new std::barrier<>(omp_get_num_threads());
        double start = omp_get_wtime();
        if (last > 0 && (t == 0 || t == last)) {
            // thread 0 moves the token from even to odd, the last thread
            // from odd to even
            int parity = t == 0 ? 0 : 1;
            for (long i = 0; i < repeats; i++) {
                int want = (int)(2 * i + parity);
                for (int now = token.load(); now != want; now = token.load())
                    token.wait(now);
                token.store(want + 1);
                token.notify_one();
            }
        }
#pragma omp barrier
#pragma omp master
        pingpong = (omp_get_wtime() - start) / (2.0 * repeats);
        start = omp_get_wtime();
        for (long i = 0; i < repeats; i++)
            all->arrive_and_wait();
#pragma omp barrier
#pragma omp master
        meet = (omp_get_wtime() - start) / repeats;
    }
    delete all;
    std::printf("cxx_wait_bench: atomic wait/notify hand-off us=%.2f\n",
                pingpong * 1e6);
    std::printf("cxx_wait_bench: std::barrier arrive_and_wait us=%.2f\n",
                meet * 1e6);
    return 0;
}
