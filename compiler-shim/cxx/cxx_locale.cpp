/*
 * cxx_locale.cpp - linked into every program dsmc++ links: builds the
 * C++ library's classic locale on every node before the program runs.
 *
 * libstdc++ builds its classic locale (its facets, in the library's own
 * data, which every node keeps private) at the first use of a stream or
 * a locale; a program that includes <iostream> does so in a constructor,
 * on every node.  One that only uses <sstream> or <fstream> builds it on
 * the node that first makes a stream: a stringstream node 0 made in
 * shared memory points to facets that another node never built, and
 * reading or writing it there crashed (a null facet).  The facets sit at
 * the same addresses on every node (the same library, loaded the same
 * way), so building them everywhere first makes such a stream work on
 * any node.
 *
 * Layer: compiler-shim, program side.  __dsm_cxx_prepare_locale: the
 * program's first constructor (cxx_start.c), on every node.
 */
#include <locale>

extern "C" void __dsm_cxx_prepare_locale(void);

void __dsm_cxx_prepare_locale(void)
{
    // classic() builds the classic locale; a default locale copies the
    // global one, built from it
    (void)std::locale::classic();
    std::locale global;
    (void)global;
}
