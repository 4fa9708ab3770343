/*
 * cxx_atomic.cpp - std::atomic on shared data, exact across the team:
 * counters (fetch_add, ++, fetch_sub), a double summed with a
 * compare-exchange loop, a maximum, a spin lock made of std::atomic_flag
 * guarding a std::vector, and a release/acquire hand-off of a vector from
 * one thread to another (memory orders, not OpenMP constructs, make the
 * data visible).
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <vector>

namespace {

class spin_lock {
    std::atomic_flag held_ = ATOMIC_FLAG_INIT;

  public:
    void lock()
    {
        while (held_.test_and_set(std::memory_order_acquire)) {
        }
    }
    void unlock() { held_.clear(std::memory_order_release); }
};

void add(std::atomic<double> &sum, double x)
{
    double old = sum.load(std::memory_order_relaxed);
    while (!sum.compare_exchange_weak(old, old + x))
        ;
}

} // namespace

std::atomic<long> global_count{0};

int main()
{
    std::atomic<long> count{0};
    std::atomic<int> down{100000};
    std::atomic<double> sum{0.0};
    std::atomic<long> biggest{-1};
    spin_lock lock;
    std::vector<int> guarded;
    std::vector<long> payload(1000);
    std::atomic<int> ready{0};
    long received = -1;
    int nt = 1;

#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp single
        nt = omp_get_num_threads();
#pragma omp for schedule(static)
        for (int i = 0; i < 4000; i++) {
            count.fetch_add(1);
            global_count++;
            down.fetch_sub(2, std::memory_order_relaxed);
            long v = (long)i * 7919 % 4001;
            long cur = biggest.load();
            while (v > cur && !biggest.compare_exchange_weak(cur, v))
                ;
        }
        for (int i = 0; i < 25; i++)
            add(sum, 0.5 * (t + 1));
        for (int i = 0; i < 10; i++) {
            lock.lock();
            guarded.push_back(t * 100 + i);
            lock.unlock();
        }
        // thread 0 hands a vector to the last thread
        if (t == 0) {
            for (long i = 0; i < 1000; i++)
                payload[i] = i * i;
            ready.store(1, std::memory_order_release);
        }
        if (t == omp_get_num_threads() - 1) {
            while (ready.load(std::memory_order_acquire) == 0) {
            }
            long s = 0;
            for (long x : payload)
                s += x;
            received = s;
        }
    }

    long guarded_sum = 0;
    for (int x : guarded)
        guarded_sum += x;
    std::printf("result: count %ld global %ld down %d biggest %ld\n",
                count.load(), global_count.load(), down.load(),
                biggest.load());
    std::printf("result: sum %.2f guarded %zu (%ld) received %ld\n",
                sum.load(), guarded.size(), guarded_sum, received);
    bool right = count == 4000 && guarded.size() == 10u * nt &&
                 received == 332833500;
    return right ? 0 : 1;
}
