/*
 * test_sys_symbols.c - unit tests of sys_symbols: static functions and
 * data of the executable (only in .symtab, which dladdr does not see), an
 * address inside a function, a shared library's exported function, the
 * nearest preceding function with names skipped, and addresses no symbol
 * covers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys_symbols.h"

/* Static, so in .symtab only; noinline and used so that it exists. */
__attribute__((noinline, used)) static int private_helper(int x)
{
    return x * 3 + 1;
}

__attribute__((noinline, used)) static int after_helper(int x)
{
    return private_helper(x) + 2;
}

static long private_table[64] __attribute__((used)) = {1, 2, 3};

static void test_static_function(void **state)
{
    dsm_sys_symbol_t s;
    assert_int_equal(dsm_sys_symbol_find((void *)&private_helper, &s), 0);
    assert_string_equal(s.name, "private_helper");
    assert_true(s.function);
    assert_int_equal(s.start, (uintptr_t)&private_helper);
    assert_true(s.size > 0);
    assert_non_null(strstr(s.object, "test_sys_symbols"));
    /* an address inside the function, as a return address is */
    assert_int_equal(
        dsm_sys_symbol_find((char *)&private_helper + s.size - 1, &s), 0);
    assert_string_equal(s.name, "private_helper");
}

static void test_static_data(void **state)
{
    dsm_sys_symbol_t s;
    assert_int_equal(dsm_sys_symbol_find(&private_table[10], &s), 0);
    assert_string_equal(s.name, "private_table");
    assert_false(s.function);
    /* at least: AddressSanitizer pads globals with a red zone */
    assert_true(s.size >= sizeof private_table);
    assert_int_equal(s.start, (uintptr_t)private_table);
}

static void test_shared_library(void **state)
{
    dsm_sys_symbol_t s;
    /* a libc function no sanitizer intercepts */
    pid_t (*fn)(void) = getpid;
    assert_int_equal(dsm_sys_symbol_find((void *)fn, &s), 0);
    assert_non_null(strstr(s.name, "getpid"));
    assert_non_null(strstr(s.object, "libc"));
}

static int not_after_helper(const char *name)
{
    return strcmp(name, "after_helper") != 0;
}

static void test_preceding(void **state)
{
    dsm_sys_symbol_t s, skip;
    assert_int_equal(dsm_sys_symbol_find((void *)&after_helper, &s), 0);
    assert_int_equal(
        dsm_sys_symbol_preceding((char *)&after_helper + 1, NULL, &skip), 0);
    assert_string_equal(skip.name, "after_helper");
    /* with its name refused, the function laid out before it */
    assert_int_equal(dsm_sys_symbol_preceding((char *)&after_helper + 1,
                                              not_after_helper, &skip),
                     0);
    assert_true(skip.start < s.start);
    assert_true(skip.function);
    assert_string_not_equal(skip.name, "after_helper");
}

static void test_nothing_there(void **state)
{
    dsm_sys_symbol_t s;
    void *heap = malloc(64);
    assert_int_equal(dsm_sys_symbol_find(heap, &s), -1);
    assert_int_equal(dsm_sys_symbol_preceding(heap, NULL, &s), -1);
    free(heap);
    assert_int_equal(dsm_sys_symbol_find((void *)16, &s), -1);
    int local = 0;
    assert_int_equal(dsm_sys_symbol_find(&local, &s), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_function),
        cmocka_unit_test(test_static_data),
        cmocka_unit_test(test_shared_library),
        cmocka_unit_test(test_preceding),
        cmocka_unit_test(test_nothing_there),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
