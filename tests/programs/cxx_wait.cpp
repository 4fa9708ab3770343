/*
 * cxx_wait.cpp - C++20's waiting primitives between the threads of a
 * team: std::atomic<int>::wait/notify_all as a turnstile that passes a
 * token round the team, std::atomic<long> (waited on through the C++
 * library's waiter pool, not the atomic itself), std::latch,
 * std::barrier with a completion function, and std::counting_semaphore
 * bounding how many threads are inside a section at once.  libstdc++
 * blocks in these with futex system calls from inline code.
 *
 * Corpus program (tests/programs, C++20): exits 1 when wrong.
 */
#include <omp.h>

#include <atomic>
#include <barrier>
#include <cstdio>
#include <latch>
#include <semaphore>
#include <vector>

namespace {

std::atomic<int> turn{0};
std::atomic<long> big_turn{0};
std::atomic<int> inside{0};
std::atomic<int> most_inside{0};
std::counting_semaphore<2> room(2);
long phases = 0;

void completion() noexcept { phases++; }

} // namespace

int main()
{
    omp_set_dynamic(0);
    int nt = 1;
    const int rounds = 3;
    std::vector<int> order;
    long bad = 0, sum = 0;
    std::latch *ready = nullptr;
    std::barrier<void (*)() noexcept> *step = nullptr;

#pragma omp parallel reduction(+ : bad, sum)
    {
        int t = omp_get_thread_num();
#pragma omp single
        {
            nt = omp_get_num_threads();
            ready = new std::latch(nt);
            step = new std::barrier<void (*)() noexcept>(nt, completion);
        }
        // a token passes round the team: thread t waits for its turn
        for (int r = 0; r < rounds; r++) {
            int mine = r * nt + t;
            for (int now = turn.load(); now != mine; now = turn.load())
                turn.wait(now);
            order.push_back(mine);
            turn.store(mine + 1);
            turn.notify_all();
        }
        // the same with a type the library waits for through its pool
        for (long now = big_turn.load(); now != t; now = big_turn.load())
            big_turn.wait(now);
        sum += big_turn.load() * 10;
        big_turn.store(t + 1);
        big_turn.notify_all();

        ready->arrive_and_wait();
        for (int p = 0; p < 4; p++)
            step->arrive_and_wait();

        room.acquire();
        int in = ++inside;
        for (int m = most_inside.load(); in > m;)
            if (most_inside.compare_exchange_weak(m, in))
                break;
        sum += in > 0;
        --inside;
        room.release();
    }
    for (size_t i = 0; i < order.size(); i++)
        if (order[i] != (int)i)
            bad++;
    delete ready;
    delete step;

    std::printf("result: order %zu bad %ld sum %ld phases %ld most %s\n",
                order.size(), bad, sum, phases,
                most_inside.load() <= 2 ? "<=2" : ">2");
    bool right = bad == 0 && (int)order.size() == rounds * nt &&
                 phases == 4 && most_inside.load() <= 2;
    return right ? 0 : 1;
}
