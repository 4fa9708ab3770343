/*
 * cxx_new_callers.cpp - who calls operator new in a C++ program: link it
 * into any program built with plain clang++ (it replaces the global
 * operator new and delete) and it prints at exit how many calls came
 * from the program's own code and how many from libstdc++.so's, the
 * calls a -Wl,--wrap of operator new in the program would miss
 * (design.md, "C++ programs").
 *
 *   clang++ -fopenmp -O2 -std=c++17 PROGRAM.cpp bench/cxx_new_callers.cpp
 *
 * Measurement helper; any thread.
 */
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

std::atomic<long> from_program{0}, from_libstdcxx{0};

void count(const void *return_address)
{
    Dl_info info;
    if (dladdr(return_address, &info) && info.dli_fname &&
        std::strstr(info.dli_fname, "libstdc++"))
        from_libstdcxx++;
    else
        from_program++;
}

void *allocate(std::size_t n)
{
    void *p = std::malloc(n ? n : 1);
    if (!p)
        throw std::bad_alloc();
    return p;
}

struct report {
    ~report()
    {
        long a = from_program, b = from_libstdcxx;
        std::fprintf(stderr, "operator new: %ld calls from the program's "
                     "code, %ld from libstdc++.so (%.0f%%)\n", a, b,
                     a + b ? 100.0 * (double)b / (double)(a + b) : 0.0);
    }
} at_exit;

} // namespace

void *operator new(std::size_t n)
{
    count(__builtin_return_address(0));
    return allocate(n);
}
void *operator new[](std::size_t n)
{
    count(__builtin_return_address(0));
    return allocate(n);
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
