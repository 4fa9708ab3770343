/*
 * cxx_threadprivate.cpp - threadprivate objects of class type: each
 * thread's copy is constructed by the variable's initialiser when the
 * thread first uses it (a construction count shows it), keeps its
 * contents across regions, and copyin assigns the master's object
 * (strings short and long, a vector, a list) to every thread's; single
 * copyprivate broadcasts a private std::string and vector from the single
 * thread to the team.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <list>
#include <string>
#include <vector>

namespace {

std::atomic<int> made{0};

struct account {
    std::string name;
    std::string notes;
    std::vector<int> values;
    std::list<int> log;
    account() : name("acc"), values(3, 1), log{1, 2} { made++; }
    account(const account &) = default;
    account &operator=(const account &) = default;
};

// a function-local static threadprivate: each thread appends to its own
int note(int t)
{
    static std::string trail("trail of a thread: ");
#pragma omp threadprivate(trail)
    trail += std::to_string(t % 10);
    return (int)trail.size();
}

} // namespace

account acc;
#pragma omp threadprivate(acc)

int main()
{
    omp_set_dynamic(0);
    acc.name = "master";                      // short: kept inside the object
    acc.notes = std::string(100, 'n');        // long: on the heap
    acc.values.assign(10, 5);
    acc.log.push_back(7);

    long bad = 0, total = 0;
    int nt = 1;
#pragma omp parallel copyin(acc) reduction(+ : bad)
    {
#pragma omp single
        nt = omp_get_num_threads();
        if (acc.name != "master" || acc.notes.size() != 100)
            bad++;
        if (acc.values.size() != 10 || acc.values[9] != 5)
            bad++;
        if (acc.log.size() != 3 || acc.log.back() != 7)
            bad++;
        int t = omp_get_thread_num();
        acc.values.push_back(t);
        acc.name += std::to_string(t);
        acc.log.push_front(t);
    }
    // the copies keep their contents into the next region
#pragma omp parallel reduction(+ : total, bad)
    {
        int t = omp_get_thread_num();
        total += (long)acc.values.size() + (long)acc.name.size() +
                 acc.values.back() + acc.log.front();
        if (acc.values.back() != t || acc.log.front() != t)
            bad++;
    }

    long trails = 0;
#pragma omp parallel reduction(+ : trails, bad)
    {
        int t = omp_get_thread_num();
        for (int i = 0; i < 5; i++)
            trails += note(t);
        if (note(t) != 19 + 6)
            bad++;
    }

    // copyprivate of private objects
    long agreed = 0;
#pragma omp parallel reduction(+ : agreed)
    {
        std::string word;
        std::vector<double> v;
#pragma omp single copyprivate(word, v)
        {
            word = "broadcast from the single thread";
            v.assign(50, 2.5);
        }
        if (word == "broadcast from the single thread" && v.size() == 50 &&
            v[49] == 2.5)
            agreed++;
    }

    std::printf("result: bad %ld total %ld agreed %ld trails %ld\n", bad,
                total, agreed, trails);
    std::printf("result: constructed %d objects for %d threads\n", made.load(),
                nt);
    return bad || agreed != nt ? 1 : 0;
}
