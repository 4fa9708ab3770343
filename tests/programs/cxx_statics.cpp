/*
 * cxx_statics.cpp - objects of static storage duration with constructors
 * and destructors: globals whose constructors allocate (a registry with a
 * std::map, a std::vector filled by a function, a template's static
 * member, an inline variable), read by every thread, and a journal
 * every thread appends to (its destructor frees what every node
 * allocated); function-local
 * statics first used by the whole team at once (constructed once), one
 * whose constructor throws the first time (the next caller constructs it
 * again), one first used by the last thread of a region and read by the
 * master after it; and destructors, which print their object's state at
 * exit, once, in the order C++ specifies (an atexit handler among them).
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::atomic<int> expensive_made{0};
std::atomic<int> flaky_attempts{0};

struct registry {
    std::map<std::string, int> entries;
    std::vector<std::string> order;
    registry()
    {
        add("alpha");
        add("beta");
    }
    void add(const std::string &name)
    {
        entries[name] = (int)order.size();
        order.push_back(name);
    }
    ~registry()
    {
        std::printf("result: registry destroyed with %zu entries, last %s\n",
                    entries.size(), order.back().c_str());
    }
};

std::vector<double> make_weights()
{
    std::vector<double> w;
    for (int i = 0; i < 5000; i++)
        w.push_back(1.0 / (1 + i % 17));
    return w;
}

struct expensive {
    std::vector<long> table;
    expensive() : table(20000)
    {
        expensive_made++;
        for (std::size_t i = 0; i < table.size(); i++)
            table[i] = (long)(i * i % 1009);
    }
    ~expensive()
    {
        long s = 0;
        for (long v : table)
            s += v;
        std::printf("result: expensive destroyed, sum %ld\n", s);
    }
};

const expensive &the_expensive()
{
    static expensive e;
    return e;
}

struct flaky {
    int value;
    flaky() : value(7)
    {
        if (flaky_attempts.fetch_add(1) == 0)
            throw std::runtime_error("first attempt fails");
    }
};

int flaky_value()
{
    try {
        static flaky f;
        return f.value;
    } catch (const std::runtime_error &) {
        return -1;
    }
}

struct late {
    std::string text;
    explicit late(int who) : text("made by a thread of " + std::to_string(who))
    {
        text += std::string(100, '.');
    }
    ~late() { std::printf("result: late destroyed, %zu chars\n", text.size()); }
};

const late &the_late(int who)
{
    static late l(who);
    return l;
}

void at_exit_handler() { std::printf("result: atexit handler\n"); }

// filled by every thread, destroyed (with the other nodes' blocks) at exit
struct journal {
    std::vector<std::string> lines;
    ~journal()
    {
        std::size_t chars = 0;
        for (const auto &line : lines)
            chars += line.size();
        std::printf("result: journal destroyed, %zu lines, %zu chars\n",
                    lines.size(), chars);
    }
};

template <typename T> struct history {
    static std::vector<T> values;
};
template <typename T> std::vector<T> history<T>::values(3, T(4));

} // namespace

registry the_registry;
journal the_journal;
std::vector<double> weights = make_weights();
std::string banner(300, '=');
inline std::string inline_text = std::string("inline ") + "variable";

int main()
{
    int errors = 0;
    the_registry.add("gamma");
    history<int>::values.push_back(9);

    long bad = 0, table_sum = 0, flaky_sum = 0;
    int nt = 1;
#pragma omp parallel reduction(+ : bad, table_sum, flaky_sum)
    {
        int t = omp_get_thread_num();
#pragma omp single
        nt = omp_get_num_threads();
        double w = 0;
        for (double x : weights)
            w += x;
        if (w < 1000 || w > 2000)
            bad++;
        if (the_registry.entries.at("gamma") != 2 ||
            the_registry.order.size() != 3)
            bad++;
        if (banner.size() != 300 || inline_text != "inline variable")
            bad++;
        if (history<int>::values.size() != 4 || history<int>::values[3] != 9)
            bad++;
        const expensive &e = the_expensive();
        table_sum += e.table[(std::size_t)t * 37 % e.table.size()];
#pragma omp barrier
        flaky_sum += flaky_value();
        std::string line = "thread " + std::to_string(t) + ' ' +
                           std::string(40 + t, 'x');
#pragma omp critical
        the_journal.lines.push_back(line);
    }
    int last = nt - 1;
#pragma omp parallel
    {
        if (omp_get_thread_num() == last)
            the_late(last);
    }
    std::atexit(at_exit_handler);
    const late &l = the_late(-1);

    if (expensive_made != 1 || flaky_attempts != 2)
        errors++;
    std::printf("result: bad %ld table %ld\n", bad, table_sum);
    std::printf("result: expensive made %d times, flaky attempts %d, "
                "failed calls %ld\n", expensive_made.load(),
                flaky_attempts.load(), (nt * 7L - flaky_sum) / 8);
    std::printf("result: late says '%s'\n", l.text.substr(0, 30).c_str());
    std::printf("result: errors %d\n", errors);
    std::fflush(stdout);
    return errors || bad ? 1 : 0;
}
