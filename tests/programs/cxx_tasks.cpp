/*
 * cxx_tasks.cpp - C++ objects in explicit tasks: firstprivate strings,
 * vectors and a counted class (copy-constructed into each task and
 * destroyed when the task completes, tied, untied, if(0) and taskloop
 * tasks alike), lambdas and shared_ptr captured by tasks, exceptions
 * thrown and caught inside tasks, and results gathered into a std::map
 * under a critical section.  Every object made must be destroyed by the
 * end: the live count is printed.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::atomic<long> live{0};
std::atomic<long> made{0};

// counts its live copies: a task's firstprivate copy must be destroyed
struct counted {
    std::vector<long> data;
    explicit counted(long n) : data(n, 1)
    {
        live++;
        made++;
    }
    counted(const counted &o) : data(o.data)
    {
        live++;
        made++;
    }
    ~counted() { live--; }
    long sum() const { return std::accumulate(data.begin(), data.end(), 0L); }
};

long digits(const std::string &s)
{
    long n = 0;
    for (char c : s)
        if (c >= '0' && c <= '9')
            n += c - '0';
    return n;
}

long checked_at(const std::vector<long> &v, size_t i)
{
    try {
        return v.at(i);
    } catch (const std::out_of_range &) {
        return -1;
    }
}

} // namespace

int main()
{
    const int ntasks = 200;
    long total = 0, caught = 0, looped = 0, untied = 0, undeferred = 0;
    std::map<int, std::string> names;
    auto shared = std::make_shared<std::vector<long>>(64, 2);

#pragma omp parallel
#pragma omp single
    {
        counted base(10);
        std::string label(40, 'x');             // long: on the heap
        for (int i = 0; i < ntasks; i++) {
            label[0] = (char)('0' + i % 10);
            auto scale = [i](long v) { return v * (i % 3 + 1); };
#pragma omp task firstprivate(base, label, scale, i) shared(total, names)
            {
                long v = scale(base.sum()) + digits(label);
                try {
                    if (i % 7 == 0)
                        throw std::runtime_error("task " + std::to_string(i));
                } catch (const std::runtime_error &e) {
#pragma omp atomic
                    caught += (long)std::string(e.what()).size();
                }
#pragma omp atomic
                total += v;
                if (i % 25 == 0) {
#pragma omp critical
                    names[i] = label.substr(0, 3) + std::to_string(i);
                }
            }
        }
        for (int i = 0; i < 20; i++) {
#pragma omp task untied firstprivate(base, shared)
            {
                long s = base.sum();
#pragma omp taskyield
                s += (*shared)[i % 64];
#pragma omp atomic
                untied += s;
            }
        }
        for (int i = 0; i < 10; i++) {
#pragma omp task if(0) firstprivate(base)
            {
#pragma omp atomic
                undeferred += base.sum() + checked_at(base.data, 20);
            }
        }
#pragma omp taskloop firstprivate(base) grainsize(4) reduction(+ : looped)
        for (int i = 0; i < 64; i++)
            looped += base.sum() + (*shared)[i];
#pragma omp taskwait
    }

    std::string joined;
    for (const auto &kv : names)
        joined += kv.second + ",";
    std::printf("result: total %ld caught %ld untied %ld undeferred %ld\n",
                total, caught, untied, undeferred);
    std::printf("result: looped %ld names %s\n", looped, joined.c_str());
    std::printf("result: live %ld shared %ld\n", live.load(),
                shared.use_count());
    bool right = live == 0 && made > ntasks && shared.use_count() == 1 &&
                 looped == 64L * 12;
    return right ? 0 : 1;
}
