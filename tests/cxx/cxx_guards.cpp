/*
 * cxx_guards.cpp - many function-local statics first used by the whole
 * team at once, in a different order on every thread: 48 statics (a
 * function template instantiated 48 times), each constructed exactly once
 * in the cluster, each holding what its constructor computed, seen by
 * every thread of every node; and a static whose constructor takes long
 * enough (200 ms) that the threads of the other nodes wait for it.
 *
 * Test program (suite 'cxx').  Prints "guards: ok" and exits 0 when
 * every static was constructed once and read right everywhere.
 */
#include <omp.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>
#include <vector>

namespace {

std::atomic<int> constructed[48];
std::atomic<int> slow_made{0};

template <int N> struct table {
    std::vector<int> v;
    table() : v(100 + N, N) { constructed[N]++; }
};

template <int N> int use()
{
    static table<N> t;
    return t.v[N] + (int)t.v.size();
}

template <int... N> struct all {
    static int call(int k)
    {
        static int (*const fns[])() = {&use<N>...};
        return fns[k]();
    }
};

template <int... I> all<I...> make(std::integer_sequence<int, I...>);
using all48 = decltype(make(std::make_integer_sequence<int, 48>{}));

struct slow {
    int value;
    slow() : value(99)
    {
        slow_made++;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
};

int slow_value()
{
    static slow s;
    return s.value;
}

} // namespace

int main()
{
    long wrong = 0;
#pragma omp parallel reduction(+ : wrong)
    {
        int t = omp_get_thread_num();
        for (int i = 0; i < 48; i++) {
            int k = (i * 7 + t * 13) % 48;
            if (all48::call(k) != k + 100 + k)
                wrong++;
        }
        if (slow_value() != 99)
            wrong++;
    }
    for (int k = 0; k < 48; k++)
        if (constructed[k] != 1) {
            std::printf("static %d constructed %d times\n", k,
                        constructed[k].load());
            wrong++;
        }
    if (slow_made != 1)
        wrong++;
    std::printf("guards: %s\n", wrong ? "WRONG" : "ok");
    return wrong ? 1 : 0;
}
