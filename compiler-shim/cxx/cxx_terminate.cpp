/*
 * cxx_terminate.cpp - linked into every program dsmc++ links: a
 * terminate handler that names the node and thread before the C++
 * library's own handler (which names the exception and aborts).
 *
 * clang wraps the body of a parallel region, a task and a noexcept
 * function so that an exception leaving it calls std::terminate, as the
 * OpenMP and C++ standards require; libomp's job then aborts with the
 * C++ library's message.  Here the job ends the same way, and the line
 * below says which node and thread of the cluster it was (dsmrun then
 * reports the node killed by SIGABRT).  A handler the program installs
 * itself replaces this one.
 *
 * Layer: compiler-shim, program side.  __dsm_cxx_install_terminate: the
 * program's first constructor (cxx_start.c); the handler: the thread that
 * calls std::terminate.
 */
#include <cstdlib>
#include <exception>

extern "C" {
void __dsm_cxx_terminating(void);
void __dsm_cxx_install_terminate(void);
}

namespace {

std::terminate_handler library_handler;

[[noreturn]] void name_the_thread()
{
    __dsm_cxx_terminating();
    if (library_handler)
        library_handler();
    std::abort();
}

} // namespace

void __dsm_cxx_install_terminate(void)
{
    library_handler = std::set_terminate(name_the_thread);
}
