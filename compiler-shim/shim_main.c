/*
 * shim_main.c - the program's entry: dsmcc links with -Wl,--wrap=main, so
 * the C library calls __wrap_main, which starts the runtime (fj_main) and
 * through it the program's real main.
 *
 * --wrap only rewrites references inside the executable, so a reference to
 * __real_main from this library would stay unresolved; dsmcc exports the
 * program's main (-Wl,--export-dynamic-symbol=main) and we look it up.
 *
 * Layer: compiler-shim.  Entry point: __wrap_main (the process's main
 * thread, once).
 */
#include <dlfcn.h>

#include "base_log.h"
#include "forkjoin.h"
#include "shim_kmp.h"
#include "cxx/shim_cxx.h"

SHIM_EXPORT int __wrap_main(int argc, char **argv, char **envp);

int __wrap_main(int argc, char **argv, char **envp)
{
    fj_main_t real_main = (fj_main_t)dlsym(RTLD_DEFAULT, "main");
    if (!real_main || (void *)real_main == (void *)__wrap_main)
        dsm_fatal("cannot find the program's main: link the program with "
                  "dsmcc (it exports main with "
                  "-Wl,--export-dynamic-symbol=main)");
    /* C++: destructors registered from now on run before those the
     * constructors registered (cxx/shim_cxx_atexit.c) */
    shim_cxx_before_main();
    fj_main(real_main, argc, argv, envp);
}
