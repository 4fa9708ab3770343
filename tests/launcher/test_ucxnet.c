/*
 * test_ucxnet.c - tests of launch_ucxnet.c, the UCX_NET_DEVICES value of
 * a remote node, against RDMA device trees made in a scratch directory
 * (the layout of /sys/class/infiniband: DEV/ports/N/state).
 *
 * Layer: tests, suite 'launcher'.  Single process, no network.
 */
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "launch_ucxnet.h"

typedef struct tree {
    char root[64];
} tree_t;

static void make_port(const tree_t *t, const char *device, const char *port,
                      const char *state)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", t->root, device);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/%s/ports", t->root, device);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/%s/ports/%s", t->root, device, port);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/%s/ports/%s/state", t->root, device,
             port);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", state);
    fclose(f);
}

static int setup_tree(void **state)
{
    tree_t *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    snprintf(t->root, sizeof t->root, "/tmp/dsm-ucxnet.XXXXXX");
    if (!mkdtemp(t->root)) {
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type,
                        struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

static int teardown_tree(void **state)
{
    tree_t *t = *state;
    int removed = nftw(t->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(t);
    return removed;
}

/* Is NAME one of the comma-separated entries of LIST? */
static int listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t entry = strcspn(p, ",");
        if (entry == len && !strncmp(p, name, len))
            return 1;
        p += entry;
        if (*p == ',')
            p++;
    }
    return 0;
}

static void test_no_rdma_gives_the_interface(void **state)
{
    tree_t *t = *state;
    char missing[PATH_MAX], value[128];
    snprintf(missing, sizeof missing, "%s/none", t->root);
    assert_int_equal(dsm_launch_ucx_net_devices("eth0", missing, value,
                                                sizeof value), DSM_OK);
    assert_string_equal(value, "eth0");
    /* an empty tree (RDMA modules loaded, no device) likewise */
    assert_int_equal(dsm_launch_ucx_net_devices("ib0", t->root, value,
                                                sizeof value), DSM_OK);
    assert_string_equal(value, "ib0");
}

static void test_active_rdma_ports_are_kept(void **state)
{
    tree_t *t = *state;
    make_port(t, "mlx5_0", "1", "4: ACTIVE");
    make_port(t, "mlx5_0", "2", "1: DOWN");
    make_port(t, "mlx5_1", "1", "4: ACTIVE");
    make_port(t, "mlx4_0", "1", "2: INIT");
    char value[128];
    assert_int_equal(dsm_launch_ucx_net_devices("eth0", t->root, value,
                                                sizeof value), DSM_OK);
    /* the interface first, then the active ports in any order */
    assert_int_equal(strncmp(value, "eth0,", 5), 0);
    assert_true(listed(value, "mlx5_0:1"));
    assert_true(listed(value, "mlx5_1:1"));
    assert_false(listed(value, "mlx5_0:2"));
    assert_false(listed(value, "mlx4_0:1"));
    assert_int_equal(strlen(value), strlen("eth0,mlx5_0:1,mlx5_1:1"));
}

static void test_too_long_is_refused(void **state)
{
    tree_t *t = *state;
    make_port(t, "mlx5_0", "1", "4: ACTIVE");
    char value[64];
    /* "eth0,mlx5_0:1" needs 14 bytes */
    assert_int_equal(dsm_launch_ucx_net_devices("eth0", t->root, value, 13),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_launch_ucx_net_devices("eth0", t->root, value, 14),
                     DSM_OK);
    assert_string_equal(value, "eth0,mlx5_0:1");
    assert_int_equal(dsm_launch_ucx_net_devices("eth0", t->root, value, 4),
                     DSM_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_no_rdma_gives_the_interface,
                                        setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(test_active_rdma_ports_are_kept,
                                        setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(test_too_long_is_refused,
                                        setup_tree, teardown_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
