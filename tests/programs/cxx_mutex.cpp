/*
 * cxx_mutex.cpp - the C++ library's mutual exclusion between the threads
 * of a team: std::mutex with lock_guard and unique_lock around a shared
 * std::vector and std::map, std::scoped_lock of two mutexes,
 * std::recursive_mutex taken again by its holder, try_lock in a retry
 * loop, std::shared_mutex with readers and writers, and std::call_once
 * initialising a shared table once for the whole team.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace {

std::mutex vector_mutex, map_mutex;
std::recursive_mutex recursive;
std::shared_mutex table_mutex;
std::once_flag table_once;
std::atomic<int> table_inits{0};
std::vector<long> table;
long recursive_total = 0;

void add_recursively(int depth, long value)
{
    std::lock_guard<std::recursive_mutex> hold(recursive);
    recursive_total += value;
    if (depth > 0)
        add_recursively(depth - 1, value);
}

void init_table()
{
    table_inits++;
    table.assign(500, 0);
    for (std::size_t i = 0; i < table.size(); i++)
        table[i] = (long)(i * 3);
}

} // namespace

int main()
{
    std::vector<int> pushed;
    std::map<std::string, long> totals;
    long both = 0, tries = 0, readers_sum = 0;
    int nt = 1;

#pragma omp parallel reduction(+ : readers_sum)
    {
        int t = omp_get_thread_num();
#pragma omp single
        nt = omp_get_num_threads();
        for (int i = 0; i < 40; i++) {
            std::lock_guard<std::mutex> hold(vector_mutex);
            pushed.push_back(t * 1000 + i);
        }
#pragma omp for schedule(dynamic, 5)
        for (int i = 0; i < 200; i++) {
            std::unique_lock<std::mutex> hold(map_mutex);
            totals["key" + std::to_string(i % 9)] += i;
        }
        for (int i = 0; i < 10; i++) {
            std::scoped_lock hold(vector_mutex, map_mutex);
            both += 1;
        }
        for (int i = 0; i < 10; i++) {
            while (!vector_mutex.try_lock()) {
            }
            tries += 1;
            vector_mutex.unlock();
        }
        add_recursively(3, t + 1);

        std::call_once(table_once, init_table);
        {
            std::shared_lock<std::shared_mutex> read(table_mutex);
            for (long x : table)
                readers_sum += x;
        }
#pragma omp barrier
        if (t == 0) {
            std::unique_lock<std::shared_mutex> write(table_mutex);
            table.push_back(7);
        }
#pragma omp barrier
        {
            std::shared_lock<std::shared_mutex> read(table_mutex);
            readers_sum += table.back();
        }
    }

    long pushed_sum = 0;
    for (int x : pushed)
        pushed_sum += x;
    long map_sum = 0;
    for (const auto &kv : totals)
        map_sum += kv.second * (long)kv.first.size();
    std::printf("result: pushed %zu (%ld) map %zu (%ld)\n", pushed.size(),
                pushed_sum, totals.size(), map_sum);
    std::printf("result: both %ld tries %ld recursive %ld\n", both, tries,
                recursive_total);
    std::printf("result: table made %d times, readers %ld\n",
                table_inits.load(), readers_sum);
    bool right = pushed.size() == 40u * nt && both == 10L * nt &&
                 tries == 10L * nt && table_inits == 1;
    return right ? 0 : 1;
}
