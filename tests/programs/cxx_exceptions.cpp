/*
 * cxx_exceptions.cpp - exceptions thrown and caught inside parallel
 * regions: one per iteration of a work-shared loop, thrown by the
 * program and by the C++ library (vector::at, stoi, a failed new),
 * nested exceptions, exceptions inside single and critical, and
 * std::exception_ptr values captured by every thread and rethrown by the
 * master after the region (the exception objects were made by threads of
 * other nodes).
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>

#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct odd_value : std::runtime_error {
    long value;
    explicit odd_value(long v)
        : std::runtime_error("odd value " + std::to_string(v)), value(v) {}
};

long check_even(long v)
{
    if (v % 2)
        throw odd_value(v);
    return v;
}

void layer(int depth)
{
    try {
        if (depth == 0)
            throw std::logic_error("innermost");
        layer(depth - 1);
    } catch (...) {
        std::throw_with_nested(
            std::runtime_error("layer " + std::to_string(depth)));
    }
}

int unwrap(const std::exception &e)
{
    try {
        std::rethrow_if_nested(e);
    } catch (const std::exception &inner) {
        return 1 + unwrap(inner);
    }
    return 0;
}

} // namespace

int main()
{
    long caught = 0, odd_sum = 0, library = 0, nested = 0, in_single = 0,
         in_critical = 0;
    int nt = 1;
    std::vector<std::exception_ptr> errors;
#pragma omp parallel
    {
#pragma omp single
        {
            nt = omp_get_num_threads();
            errors.resize(nt);
        }
    }

#pragma omp parallel for reduction(+ : caught, odd_sum) schedule(dynamic, 3)
    for (long i = 0; i < 2000; i++) {
        try {
            check_even(i);
        } catch (const odd_value &e) {
            caught++;
            odd_sum += e.value + (long)std::string(e.what()).size();
        }
    }

#pragma omp parallel reduction(+ : library, nested, in_single, in_critical)
    {
        int t = omp_get_thread_num();
        std::vector<int> v(10, t);
        try {
            v.at(10 + t);
        } catch (const std::out_of_range &) {
            library++;
        }
        try {
            std::stoi("not a number");
        } catch (const std::invalid_argument &) {
            library++;
        }
        // calls, not new-expressions, which the compiler may elide
        const std::size_t huge = (std::size_t)1 << 52;
        try {
            void *p = ::operator new[](huge);
            ::operator delete[](p);
            library += 100;
        } catch (const std::bad_alloc &) {
            library++;
        }
        void *q = ::operator new(huge, std::nothrow);
        if (q == nullptr)
            library++;
        ::operator delete(q);
        try {
            layer(3 + t % 3);
        } catch (const std::exception &e) {
            nested += unwrap(e);
        }
#pragma omp single
        {
            try {
                throw std::runtime_error("in single");
            } catch (const std::runtime_error &) {
                in_single++;
            }
        }
#pragma omp critical
        {
            try {
                throw 42 + t;
            } catch (int x) {
                in_critical += x;
            }
        }
        try {
            throw odd_value(2 * t + 1);
        } catch (...) {
            errors[t] = std::current_exception();
        }
    }

    long rethrown = 0;
    std::string messages;
    for (const auto &ep : errors) {
        try {
            std::rethrow_exception(ep);
        } catch (const odd_value &e) {
            rethrown += e.value;
            messages += e.what();
            messages += ';';
        }
    }

    std::printf("result: caught %ld odd_sum %ld\n", caught, odd_sum);
    std::printf("result: library %ld nested %ld single %ld critical %ld\n",
                library, nested, in_single, in_critical);
    std::printf("result: rethrown %ld messages %s\n", rethrown,
                messages.c_str());
    bool right = caught == 1000 && library == 4L * nt && in_single == 1;
    return right ? 0 : 1;
}
