/*
 * fuzz_check.h - the check macro of the libFuzzer harnesses in tests/fuzz.
 * A failed check prints what failed and aborts, so libFuzzer reports a
 * crash and saves the input that caused it.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,        \
                    __LINE__, #cond);                                     \
            abort();                                                      \
        }                                                                 \
    } while (0)

#endif
