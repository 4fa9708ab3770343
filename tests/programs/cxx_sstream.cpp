// cxx_sstream.cpp - string streams made by the master and used by every
// thread: an ostringstream written in an ordered loop, an istringstream
// parsed by whichever thread runs a single, a stream per section.  The
// program includes <sstream> only, not <iostream>: the C++ library then
// builds its locale at the first stream, on the node that makes it
// (programs corpus, issue 20).
#include <omp.h>

#include <cstdio>
#include <sstream>
#include <string>

int main()
{
    std::ostringstream trace;
#pragma omp parallel for ordered schedule(dynamic, 3)
    for (int i = 0; i < 300; i++) {
        int v = i * i % 101;
#pragma omp ordered
        trace << v << ' ';
    }
    std::string text = trace.str();
    unsigned long hash = 5381;
    for (char c : text)
        hash = hash * 33 + (unsigned char)c;
    std::printf("result: ordered stream %zu characters, hash %lu\n",
                text.size(), hash);

    std::istringstream numbers("12 34 56 78 90");
    long parsed[5] = {0, 0, 0, 0, 0};
#pragma omp parallel
    {
        // the last thread: on another node when there are several
        if (omp_get_thread_num() == omp_get_num_threads() - 1)
            for (long &x : parsed)
                numbers >> x;
    }
    std::printf("result: parsed %ld %ld %ld %ld %ld\n", parsed[0], parsed[1],
                parsed[2], parsed[3], parsed[4]);

    std::string parts[3];
#pragma omp parallel sections
    {
#pragma omp section
        {
            std::ostringstream s;
            s << "pi " << 3.25 << ' ' << std::hex << 255;
            parts[0] = s.str();
        }
#pragma omp section
        {
            std::ostringstream s;
            for (int i = 0; i < 10; i++)
                s << i;
            parts[1] = s.str();
        }
#pragma omp section
        {
            std::istringstream s("7 8 9");
            int a, b, c;
            s >> a >> b >> c;
            parts[2] = std::to_string(a * b * c);
        }
    }
    std::printf("result: sections '%s' '%s' '%s'\n", parts[0].c_str(),
                parts[1].c_str(), parts[2].c_str());
    return 0;
}
