/*
 * cxx_condvar.cpp - a std::condition_variable shared by the team: the
 * master sets a flag after 200 ms and notifies, the others wait
 * (argv[1]: "wait", the out-of-line wait, or "wait_for", the inline
 * timed wait).  A condition variable cannot wait on a mutex that is a
 * cluster lock, so in a job of several nodes the first wait ends the job
 * naming it; on one node the program runs.
 *
 * Test program (suite 'cxx', tests/forkjoin/expect-fatal.sh).  Exit
 * status 0 when every thread saw the flag.
 */
#include <omp.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

std::mutex m;
std::condition_variable cv;
bool ready = false;

int main(int argc, char **argv)
{
    bool timed = argc > 1 && std::strcmp(argv[1], "wait_for") == 0;
    int seen = 0;
#pragma omp parallel reduction(+ : seen)
    {
        if (omp_get_thread_num() == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            {
                std::lock_guard<std::mutex> hold(m);
                ready = true;
            }
            cv.notify_all();
        }
        std::unique_lock<std::mutex> hold(m);
        while (!ready) {
            if (timed)
                cv.wait_for(hold, std::chrono::milliseconds(10));
            else
                cv.wait(hold);
        }
        seen++;
    }
    std::printf("condvar: %d threads saw the flag\n", seen);
    return seen == omp_get_max_threads() ? 0 : 1;
}
