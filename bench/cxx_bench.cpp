/*
 * cxx_bench.cpp - what the C++ support costs per operation: a new/delete
 * pair of 32 bytes and a std::string grown past its short buffer (the
 * master alone: the sharable heap against libc's), a pass over the
 * declaration of a constructed function-local static, an access to a
 * threadprivate object, and a std::mutex lock/unlock pair (every thread
 * of the team, each on its own mutex).  The same source is built by
 * dsmc++ (run it under dsmrun) and by clang++ with libomp.
 *
 * Usage: cxx_bench [REPEATS] (default 1000000).  Prints one line per
 * operation: "cxx_bench: OPERATION ns=NANOSECONDS".
 */
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct table {
    std::vector<int> v;
    table() : v(64, 1) {}
};

__attribute__((noinline)) const table &the_table()
{
    static table t;
    return t;
}

struct counter {
    long n = 0;
};

} // namespace

counter tp;
#pragma omp threadprivate(tp)

int main(int argc, char **argv)
{
    long reps = argc > 1 ? std::atol(argv[1]) : 1000000;
    if (reps <= 0)
        reps = 1000000;

    std::vector<int *> keep(64, nullptr);
    double t0 = omp_get_wtime();
    for (long i = 0; i < reps; i++) {
        delete[] keep[i & 63];
        keep[i & 63] = new int[8];
    }
    double t1 = omp_get_wtime();
    for (int *p : keep)
        delete[] p;
    long len = 0;
    for (long i = 0; i < reps / 10; i++) {
        std::string s("a string longer than the short buffer");
        s += std::to_string(i);
        len += (long)s.size();
    }
    double t2 = omp_get_wtime();
    std::printf("cxx_bench: new_delete ns=%.1f\n", (t1 - t0) * 1e9 / reps);
    std::printf("cxx_bench: string_append ns=%.1f (%ld)\n",
                (t2 - t1) * 1e9 / (reps / 10), len);

    int nt = omp_get_max_threads();
    std::vector<std::mutex> mutexes(nt);
    double static_ns = 0, tp_ns = 0, mutex_ns = 0;
    long sink = 0;
#pragma omp parallel reduction(max : static_ns, tp_ns, mutex_ns) \
    reduction(+ : sink)
    {
        int t = omp_get_thread_num();
        sink += the_table().v[0];     // constructed by the first caller
#pragma omp barrier
        double a = omp_get_wtime();
        for (long i = 0; i < reps; i++)
            sink += the_table().v[i & 63];
        double b = omp_get_wtime();
        for (long i = 0; i < reps; i++)
            tp.n += i;
        double c = omp_get_wtime();
        long mreps = reps / 100;
        for (long i = 0; i < mreps; i++) {
            std::lock_guard<std::mutex> hold(mutexes[t]);
            sink++;
        }
        double d = omp_get_wtime();
        static_ns = (b - a) * 1e9 / reps;
        tp_ns = (c - b) * 1e9 / reps;
        mutex_ns = (d - c) * 1e9 / mreps;
        sink += tp.n & 1;
    }
    std::printf("cxx_bench: static_access ns=%.1f\n", static_ns);
    std::printf("cxx_bench: threadprivate_access ns=%.1f\n", tp_ns);
    std::printf("cxx_bench: mutex_lock_unlock ns=%.1f (%ld)\n", mutex_ns,
                sink & 1);
    return 0;
}
