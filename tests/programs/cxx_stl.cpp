/*
 * cxx_stl.cpp - standard containers shared by a team, as C++ OpenMP
 * programs use them: a std::vector built by the master and sorted in
 * parallel chunks with <algorithm>, per-thread vectors of std::string
 * grown inside a region (by libstdc++'s own out-of-line code, on every
 * node) and read by the master, a std::map filled under a critical
 * section by all threads and read by all, unique_ptr and shared_ptr
 * objects made in one region and used and freed in others, a
 * user-defined reduction over a std::vector, and function templates and
 * lambdas (std::function too) called in regions.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace {

template <typename T, typename F>
T parallel_sum(const std::vector<T> &v, F f)
{
    T total{};
#pragma omp parallel for reduction(+ : total) schedule(static)
    for (std::size_t i = 0; i < v.size(); i++)
        total += f(v[i]);
    return total;
}

struct particle {
    double x, v;
    std::string tag;
};

// a reduction over a whole std::vector (a histogram)
#pragma omp declare reduction(vplus : std::vector<long> :                     \
        std::transform(omp_out.begin(), omp_out.end(), omp_in.begin(),        \
                       omp_out.begin(), std::plus<long>()))                   \
    initializer(omp_priv = std::vector<long>(omp_orig.size(), 0))

// FNV-1a, the same in every build (std::hash need not be).
unsigned long fnv(const std::string &s)
{
    unsigned long h = 1469598103934665603UL;
    for (unsigned char c : s)
        h = (h ^ c) * 1099511628211UL;
    return h;
}

} // namespace

int main()
{
    int errors = 0;

    // a vector built by the master, reduced and sorted by the team
    const long n = 100000;
    std::vector<long> data(n);
    for (long i = 0; i < n; i++)
        data[i] = (i * 7919) % 100003;
    long sum = parallel_sum(data, [](long x) { return x; });
    long mixed = parallel_sum(data, [](long x) { return x % 97 * (x % 89); });

    int nt = 1;
    std::vector<std::pair<long, long>> bounds;
#pragma omp parallel
    {
#pragma omp single
        {
            nt = omp_get_num_threads();
            bounds.resize(nt);
        }
        int t = omp_get_thread_num();
        long lo = n * t / nt, hi = n * (t + 1) / nt;
        bounds[t] = {lo, hi};
        std::sort(data.begin() + lo, data.begin() + hi);
    }
    for (int t = 1; t < nt; t++)
        std::inplace_merge(data.begin(), data.begin() + bounds[t].first,
                           data.begin() + bounds[t].second);
    if (!std::is_sorted(data.begin(), data.end()))
        errors++;
    long median = data[n / 2];

    // strings and vectors grown by the threads, read by the master
    std::vector<std::vector<std::string>> words(nt);
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        for (int i = 0; i < 200; i++) {
            std::string w = "w" + std::to_string(i % 10);
            w += std::string(i % 40, 'a' + t % 26);
            words[t].push_back(std::move(w));
        }
    }
    std::string all;
    for (const auto &list : words)
        for (const auto &w : list)
            all += w;
    unsigned long all_hash = fnv(all);

    // a map every thread inserts into (critical) and every thread reads
    std::map<std::string, long> counts;
#pragma omp parallel for schedule(dynamic, 7)
    for (int i = 0; i < 1000; i++) {
        std::string key = "key" + std::to_string(i % 37);
#pragma omp critical
        counts[key] += i;
    }
    long lookups = 0;
#pragma omp parallel reduction(+ : lookups)
    {
        for (int k = 0; k < 37; k++)
            lookups += counts.at("key" + std::to_string(k)) % 1000;
    }
    lookups /= nt;

    // owning pointers made by one region, used and freed by others
    const int np = 1000;
    std::vector<std::unique_ptr<particle>> ps(np);
#pragma omp parallel for schedule(static, 13)
    for (int i = 0; i < np; i++)
        ps[i] = std::make_unique<particle>(
            particle{i * 0.5, i * 0.25, "p" + std::to_string(i)});
    double energy = 0;
#pragma omp parallel for reduction(+ : energy) schedule(dynamic, 50)
    for (int i = 0; i < np; i++) {
        const particle &p = *ps[np - 1 - i];
        energy += p.v * p.v + (double)p.tag.size() + p.x;
    }
#pragma omp parallel for schedule(static, 7)
    for (int i = 0; i < np; i++)
        ps[i].reset();
    for (const auto &p : ps)
        if (p)
            errors++;

    auto shared = std::make_shared<std::vector<double>>(100, 1.5);
    long uses = 0;
#pragma omp parallel reduction(+ : uses)
    {
        std::shared_ptr<std::vector<double>> mine = shared;
        for (int i = 0; i < 20; i++) {
            std::shared_ptr<std::vector<double>> copy = mine;
            uses += (long)((*copy)[i] * 2);
        }
    }
    if (shared.use_count() != 1)
        errors++;

    // std::function and lambdas capturing locals of main
    double scale = 3.0;
    std::vector<std::function<double(double)>> fns = {
        [](double x) { return x * x; },
        [scale](double x) { return x * scale; },
        [&scale](double x) { return x + scale; },
    };
    double applied = 0;
#pragma omp parallel for reduction(+ : applied)
    for (int i = 0; i < 300; i++)
        applied += fns[i % fns.size()](i * 0.5);

    // a user-defined reduction over a vector, in a loop of regions
    long histogram_total = 0;
    for (int rep = 0; rep < 10; rep++) {
        std::vector<long> hist(64, 0);
#pragma omp parallel for reduction(vplus : hist) schedule(static)
        for (int i = 0; i < 5000; i++)
            hist[(i * 7 + rep) % 64] += (i + rep) % 5;
        for (std::size_t b = 0; b < hist.size(); b++)
            histogram_total += hist[b] * (long)(b + rep);
    }

    std::printf("result: sum %ld mixed %ld median %ld\n", sum, mixed, median);
    std::printf("result: histogram %ld\n", histogram_total);
    std::printf("result: words %zu hash %lx\n", all.size(), all_hash);
    std::printf("result: map %zu lookups %ld\n", counts.size(), lookups);
    std::printf("result: energy %.3f uses %ld applied %.3f\n", energy,
                uses / nt, applied);
    std::printf("result: errors %d\n", errors);
    return errors ? 1 : 0;
}
