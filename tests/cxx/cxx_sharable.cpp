/*
 * cxx_sharable.cpp - where a C++ program's memory is, on every node:
 * each thread checks with kmp_is_sharable that the blocks the program
 * sees are in the sharable heap - a global std::vector's elements and a
 * global std::string built before main (by node 0's constructors, whose
 * results the cluster shares), a string grown inside the region by
 * libstdc++'s out-of-line code, blocks from every form of operator new
 * (plain, array, aligned, nothrow), the object of an exception it caught,
 * and its threadprivate copy - and that it can read what other threads
 * of other nodes built in them.
 *
 * Test program (suite 'cxx', tests/cxx/meson.build).  Prints "sharable:
 * ok" and exits 0 when every block is sharable and every value right.
 */
#include <omp.h>

#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "kmp_cluster.h"

namespace {

struct alignas(256) wide {
    double v[32];
};

struct counter {
    std::vector<int> hits;
    counter() : hits(8, 1) {}
};

} // namespace

std::vector<long> global_vector(10000, 3);
std::string global_string(500, 'g');
counter tp;
#pragma omp threadprivate(tp)

int main()
{
    int nt = omp_get_max_threads();
    std::vector<std::string> grown(nt);
    std::vector<long *> arrays(nt);
    long problems = 0;
#pragma omp parallel reduction(+ : problems)
    {
        int t = omp_get_thread_num();
        auto check = [&](const void *p, const char *what) {
            if (!kmp_is_sharable(const_cast<void *>(p))) {
                std::printf("thread %d: %s at %p is not sharable\n", t, what,
                            p);
                problems++;
            }
        };
        check(global_vector.data(), "a global vector's elements");
        check(global_string.data(), "a global string's characters");
        long sum = 0;
        for (long x : global_vector)
            sum += x;
        if (sum != 30000 || global_string[499] != 'g')
            problems++;

        std::string s;
        for (int i = 0; i < 200; i++)
            s += std::to_string(t);
        check(s.data(), "a string grown by libstdc++");
        grown[t] = s;

        long *one = new long(t);
        long *many = new long[100];
        for (int i = 0; i < 100; i++)
            many[i] = t * 1000 + i;
        wide *aligned = new wide;
        char *quiet = new (std::nothrow) char[64];
        check(one, "new");
        check(many, "new[]");
        check(aligned, "aligned new");
        check(quiet, "nothrow new[]");
        if ((reinterpret_cast<unsigned long>(aligned) & 255) != 0)
            problems++;
        arrays[t] = many;
        delete one;
        delete aligned;
        delete[] quiet;

        try {
            throw std::runtime_error("caught where thrown");
        } catch (const std::runtime_error &e) {
            check(&e, "an exception object");
        }

        check(&tp, "a threadprivate object");
        check(tp.hits.data(), "a threadprivate object's vector");
    }
    // the master reads and frees what every thread built
    for (int t = 0; t < nt; t++) {
        if (t < 10 && grown[t] != std::string(200, (char)('0' + t)))
            problems++;
        for (int i = 0; i < 100; i++)
            if (arrays[t][i] != t * 1000 + i)
                problems++;
        delete[] arrays[t];
    }
    std::printf("sharable: %s (%ld problems)\n", problems ? "WRONG" : "ok",
                problems);
    return problems ? 1 : 0;
}
