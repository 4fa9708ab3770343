/*
 * omp_api_all.c - calls every routine of LLVM 14's omp.h (allocators are
 * omp_api_alloc.c's, locks omp_locks.c's) and checks dsmomp's meanings:
 * teams and device ICVs, pause, devices and device memory on the host,
 * interop, places (one per node) and affinity masks, the affinity format,
 * the kmp_* extensions, omp_display_env and omp_control_tool.
 *
 * The "result:" lines are answers libomp gives too (the libomp cross-check
 * compares them); answers that differ by design (places, processors,
 * stack size, blocktime) and routines libomp 14 does not define (device
 * memory) are checked under dsmomp only (not OMP_CHECK_LIBOMP).
 *
 * With an argument, the program makes one call that must end the job
 * (expect-fatal.sh checks the message): kmp_set_defaults,
 * kmp_set_stacksize (larger than the stacks), target_free (a device that
 * does not exist), set_schedule (an unknown kind).
 *
 * Test program (dsmcc, dsmrun; and plain clang -fopenmp).  Exit status 0
 * when everything matched.
 */
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp_check.h"

#ifndef OMP_CHECK_LIBOMP
#include "kmp_cluster.h"
#endif

#define MAX_THREADS 64

static char captured[MAX_THREADS][128];
static int region_place[MAX_THREADS];
#ifndef OMP_CHECK_LIBOMP
static int region_node[MAX_THREADS];
#endif

static void teams_icvs(void)
{
    RESULT("teams: num_teams %d team_num %d max_teams %d "
           "teams_thread_limit %d", omp_get_num_teams(), omp_get_team_num(),
           omp_get_max_teams(), omp_get_teams_thread_limit());
    omp_set_num_teams(4);
    omp_set_teams_thread_limit(3);
    RESULT("teams set 4, 3: %d %d", omp_get_max_teams(),
           omp_get_teams_thread_limit());
    omp_set_num_teams(0);
    omp_set_teams_thread_limit(-1);
    RESULT("teams set 0, -1 (ignored): %d %d", omp_get_max_teams(),
           omp_get_teams_thread_limit());
}

static void pause_resource(void)
{
    int host = omp_get_initial_device();
    int soft = omp_pause_resource(omp_pause_soft, host);
    int again = omp_pause_resource(omp_pause_soft, host);
    int resume = omp_pause_resource(omp_pause_resume, host);
    int resume_again = omp_pause_resource(omp_pause_resume, host);
    RESULT("pause: soft %d, soft again %d, resume %d, resume again %d", soft,
           again, resume, resume_again);
    omp_pause_resource(omp_pause_soft, host);
    int ran = 0;
#pragma omp parallel reduction(+ : ran)
    ran++;
    RESULT("pause: a region after a soft pause runs (%s), resume then %d",
           ran == omp_get_max_threads() ? "whole team" : "wrong",
           omp_pause_resource(omp_pause_resume, host));
    RESULT("pause all: soft %d, resume %d",
           omp_pause_resource_all(omp_pause_soft),
           omp_pause_resource_all(omp_pause_resume));
    RESULT("pause: device 5 %d, kind 7 %d",
           omp_pause_resource(omp_pause_soft, 5),
           omp_pause_resource((omp_pause_resource_t)7, host));
    int in_serial_region = -1;
#pragma omp parallel num_threads(1)
    in_serial_region = omp_pause_resource(omp_pause_soft, host);
    RESULT("pause in a region of one thread: %d", in_serial_region);
    omp_pause_resource(omp_pause_resume, host);
#ifndef OMP_CHECK_LIBOMP
    /* in an active region: the team's threads are busy */
    int in_active = 0;
    if (omp_get_max_threads() > 1) {
#pragma omp parallel reduction(+ : in_active)
        in_active += omp_pause_resource(omp_pause_soft, host) != 0;
        CHECK_EQ_LONG(in_active, omp_get_max_threads());
    }
    /* a hard pause puts the ICVs back to their start-up values */
    int initial = omp_get_max_threads();
    omp_set_num_threads(1);
    omp_set_num_teams(6);
    omp_set_schedule(omp_sched_guided, 9);
    omp_set_default_allocator(omp_low_lat_mem_alloc);
    CHECK_EQ_LONG(omp_pause_resource(omp_pause_hard, host), 0);
    CHECK_EQ_LONG(omp_get_default_allocator(), omp_default_mem_alloc);
    CHECK_EQ_LONG(omp_pause_resource(omp_pause_hard, host), 1);
    CHECK_EQ_LONG(omp_get_max_threads(), initial);
    CHECK_EQ_LONG(omp_get_max_teams(), 0);
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    CHECK(kind == omp_sched_static && chunk == 0);
    CHECK_EQ_LONG(omp_pause_resource(omp_pause_resume, host), 0);
#endif
}

static void devices(void)
{
    RESULT("devices: %d, initial %d, device_num %d, is_initial %d, "
           "default %d", omp_get_num_devices(), omp_get_initial_device(),
           omp_get_device_num(), omp_is_initial_device(),
           omp_get_default_device());
    omp_set_default_device(3);
    int three = omp_get_default_device();
    omp_set_default_device(0);
    RESULT("default device set 3: %d, set 0: %d", three,
           omp_get_default_device());
    /* target nowait on the host: a task, complete at taskwait */
    int done = 0;
#pragma omp target nowait map(tofrom : done)
    done = 1;
#pragma omp taskwait
    RESULT("target nowait on the host: %d", done);
#ifndef OMP_CHECK_LIBOMP
    int host = omp_get_initial_device(), nth = omp_get_max_threads();
    long *buf = omp_target_alloc(100 * sizeof(long), host);
    CHECK(buf != NULL);
    CHECK(kmp_is_sharable(buf));
    CHECK(omp_target_alloc(100, 1) == NULL);
    CHECK(omp_target_alloc(0, host) == NULL);
    /* host memory from omp_target_alloc is valid on every node */
#pragma omp parallel for
    for (int i = 0; i < 100; i++)
        buf[i] = i * 3;
    long copy[100] = {0};
    CHECK_EQ_LONG(omp_target_memcpy(copy, buf, 50 * sizeof(long),
                                    10 * sizeof(long), 20 * sizeof(long),
                                    host, host), 0);
    CHECK_EQ_LONG(copy[10], 60);
    CHECK_EQ_LONG(copy[59], 207);
    CHECK_EQ_LONG(copy[60], 0);
    CHECK(omp_target_memcpy(copy, buf, 8, 0, 0, host, 1) != 0);
    CHECK(omp_target_memcpy(NULL, buf, 8, 0, 0, host, host) != 0);
    CHECK_EQ_LONG(omp_target_memcpy(NULL, NULL, 0, 0, 0, host, host), 0);
    CHECK_EQ_LONG(omp_target_memcpy_async(copy, buf, sizeof(long), 0,
                                          99 * sizeof(long), host, host, 0,
                                          NULL), 0);
    CHECK_EQ_LONG(copy[0], 297);
    /* a 3 x 4 block of a 10 x 10 matrix to (1, 2) of a 5 x 6 one */
    long src[10][10], dst[5][6];
    for (int r = 0; r < 10; r++)
        for (int c = 0; c < 10; c++)
            src[r][c] = r * 100 + c;
    memset(dst, 0, sizeof dst);
    size_t volume[2] = {3, 4}, dst_off[2] = {1, 2}, src_off[2] = {5, 6};
    size_t dst_dim[2] = {5, 6}, src_dim[2] = {10, 10};
    CHECK_EQ_LONG(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL,
                                         NULL, NULL, host, host), INT_MAX);
    CHECK_EQ_LONG(omp_target_memcpy_rect(dst, src, sizeof(long), 2, volume,
                                         dst_off, src_off, dst_dim, src_dim,
                                         host, host), 0);
    long bad = 0;
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 6; c++) {
            int in = r >= 1 && r < 4 && c >= 2 && c < 6;
            long want = in ? (r - 1 + 5) * 100 + (c - 2 + 6) : 0;
            bad += dst[r][c] != want;
        }
    CHECK_EQ_LONG(bad, 0);
    memset(dst, 0, sizeof dst);
    CHECK_EQ_LONG(omp_target_memcpy_rect_async(dst, src, sizeof(long), 2,
                                               volume, dst_off, src_off,
                                               dst_dim, src_dim, host, host,
                                               0, NULL), 0);
    CHECK_EQ_LONG(dst[3][5], 709);
    CHECK(omp_target_memcpy_rect(dst, src, sizeof(long), 2, volume, dst_off,
                                 src_off, dst_dim, src_dim, 2, host) != 0);
    CHECK_EQ_LONG(omp_target_is_present(buf, host), 1);
    CHECK_EQ_LONG(omp_target_is_present(buf, 1), 0);
    CHECK_EQ_LONG(omp_target_is_accessible(buf, 8, host), 1);
    CHECK_EQ_LONG(omp_target_is_accessible(buf, 8, 1), 0);
    CHECK(omp_get_mapped_ptr(buf, host) == buf);
    CHECK(omp_get_mapped_ptr(buf, 1) == NULL);
    CHECK(omp_target_associate_ptr(copy, buf, 8, 0, host) != 0);
    CHECK(omp_target_disassociate_ptr(copy, host) != 0);
    omp_target_free(buf, host);
    (void)nth;

    /* interop: no foreign runtime, the object is omp_interop_none */
    omp_interop_t io = (omp_interop_t)&done;
#pragma omp interop init(targetsync : io)
    CHECK(io == omp_interop_none);
    CHECK_EQ_LONG(omp_get_num_interop_properties(io), 0);
    int rc = 0;
    CHECK_EQ_LONG(omp_get_interop_int(io, omp_ipr_device_num, &rc), 0);
    CHECK_EQ_LONG(rc, omp_irc_empty);
    rc = 0;
    CHECK(omp_get_interop_ptr(io, omp_ipr_device, &rc) == NULL);
    CHECK_EQ_LONG(rc, omp_irc_empty);
    rc = 0;
    CHECK(omp_get_interop_str(io, omp_ipr_vendor_name, &rc) == NULL);
    CHECK_EQ_LONG(rc, omp_irc_empty);
    CHECK(strcmp(omp_get_interop_name(io, omp_ipr_fr_id), "fr_id") == 0);
    CHECK(strcmp(omp_get_interop_name(io, omp_ipr_targetsync),
                 "targetsync") == 0);
    CHECK(omp_get_interop_name(io, (omp_interop_property_t)-10) == NULL);
    CHECK(strcmp(omp_get_interop_type_desc(io, omp_ipr_device_num),
                 "int") == 0);
    CHECK(omp_get_interop_rc_desc(io, omp_irc_empty) != NULL);
#pragma omp interop use(io)
#pragma omp interop destroy(io)
    CHECK(io == omp_interop_none);
#endif
}

static void places(void)
{
    RESULT("proc_bind %d", (int)omp_get_proc_bind());
    int nth = omp_get_max_threads();
#pragma omp parallel
    {
        int me = omp_get_thread_num();
        if (me < MAX_THREADS) {
            omp_capture_affinity(captured[me], sizeof captured[me],
                                 "%n/%N L%L a%a|%{team_num}|%T");
            region_place[me] = omp_get_place_num();
#ifndef OMP_CHECK_LIBOMP
            region_node[me] = kmp_get_process_num();
#endif
        }
    }
    for (int t = 0; t < nth && t < MAX_THREADS; t++)
        RESULT("thread %d captures [%s]", t, captured[t]);
#ifndef OMP_CHECK_LIBOMP
    /* one place per node, holding its processors */
    int nodes = kmp_get_num_processes();
    int per = omp_get_num_procs() / nodes;
    CHECK(per >= 1);
    CHECK_EQ_LONG(omp_get_num_places(), nodes);
    CHECK_EQ_LONG(omp_get_place_num(), 0);
    CHECK_EQ_LONG(omp_get_partition_num_places(), nodes);
    int nums[64];
    omp_get_partition_place_nums(nums);
    for (int p = 0; p < nodes && p < 64; p++) {
        CHECK_EQ_LONG(nums[p], p);
        CHECK_EQ_LONG(omp_get_place_num_procs(p), per);
        int ids[256];
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < per && i < 256; i++)
            CHECK_EQ_LONG(ids[i], p * per + i);
    }
    CHECK_EQ_LONG(omp_get_place_num_procs(nodes), 0);
    CHECK_EQ_LONG(omp_get_place_num_procs(-1), 0);
    for (int t = 0; t < nth && t < MAX_THREADS; t++)
        CHECK_EQ_LONG(region_place[t], region_node[t]);
    /* masks number the processors across the cluster */
    CHECK_EQ_LONG(kmp_get_affinity_max_proc(), nodes * per);
    kmp_affinity_mask_t saved, mask;
    kmp_create_affinity_mask(&saved);
    kmp_create_affinity_mask(&mask);
    CHECK_EQ_LONG(kmp_get_affinity(&saved), 0);
    CHECK_EQ_LONG(kmp_set_affinity_mask_proc(0, &mask), 0);
    CHECK_EQ_LONG(kmp_set_affinity(&mask), 0);
    kmp_affinity_mask_t now;
    kmp_create_affinity_mask(&now);
    kmp_get_affinity(&now);
    CHECK_EQ_LONG(kmp_get_affinity_mask_proc(0, &now), 1);
    for (int p = 1; p < nodes * per; p++)
        CHECK_EQ_LONG(kmp_get_affinity_mask_proc(p, &now), 0);
    if (nodes > 1) {
        /* a processor of node 1 is not node 0's to take */
        CHECK_EQ_LONG(kmp_set_affinity_mask_proc(per, &mask), 0);
        CHECK_EQ_LONG(kmp_set_affinity(&mask), -1);
    }
    CHECK_EQ_LONG(kmp_set_affinity(&saved), 0);
    kmp_destroy_affinity_mask(&now);
    kmp_destroy_affinity_mask(&mask);
    kmp_destroy_affinity_mask(&saved);
    CHECK(saved == NULL);
#endif
    kmp_affinity_mask_t m;
    kmp_create_affinity_mask(&m);
    int set = kmp_set_affinity_mask_proc(0, &m);
    int bad = kmp_set_affinity_mask_proc(100000, &m);
    int get = kmp_get_affinity_mask_proc(0, &m);
    int unset = kmp_unset_affinity_mask_proc(0, &m);
    int after = kmp_get_affinity_mask_proc(0, &m);
    RESULT("mask: set %d, set 100000 %d, get %d, unset %d, get %d", set, bad,
           get, unset, after);
    kmp_destroy_affinity_mask(&m);
}

static void affinity_format(void)
{
    char buf[256];
    size_t n = omp_capture_affinity(buf, 4, "%n/%N L%L a%a t%t T%T %%");
    RESULT("capture into 4 bytes: %zu [%s]", n, buf);
    n = omp_capture_affinity(buf, sizeof buf,
                             "%5n|%-5n|%05n|%.5n|%0.5n|%{thread_num}|"
                             "%{nesting_level}|%{num_threads}");
    RESULT("capture widths: %zu [%s]", n, buf);
    n = omp_capture_affinity(buf, sizeof buf, "%a|%.3L|%0.3n|%3N|"
                             "%{ancestor_tnum}|%{num_teams}");
    RESULT("capture fields: %zu [%s]", n, buf);
    n = omp_capture_affinity(buf, sizeof buf, "%Q %{foo} x");
    RESULT("capture unknown fields: %zu [%s]", n, buf);
    omp_set_affinity_format("T%n of %N");
    n = omp_get_affinity_format(buf, 2);
    RESULT("format set T%%n of %%N, got %zu [%s]", n, buf);
    n = omp_capture_affinity(buf, sizeof buf, NULL);
    RESULT("capture with the format: %zu [%s]", n, buf);
    n = omp_capture_affinity(buf, sizeof buf, "");
    RESULT("capture with an empty format: %zu [%s]", n, buf);
    fflush(stdout);
    omp_display_affinity("result: displayed %n of %N at level %L");
    omp_set_affinity_format("result: displayed with the format, %n");
    omp_display_affinity(NULL);
#ifndef OMP_CHECK_LIBOMP
    char host[128];
    omp_capture_affinity(buf, sizeof buf, "%H|%{host}|%P|%i|%A");
    CHECK(gethostname(host, sizeof host) == 0);
    char want[300];
    snprintf(want, sizeof want, "%s|%s|%d|", host, host, (int)getpid());
    CHECK(strncmp(buf, want, strlen(want)) == 0);
#endif
}

static void kmp_extensions(void)
{
    int initial = omp_get_max_threads();
    RESULT("library %d", kmp_get_library());
    kmp_set_library_serial();
    int team = 0;
#pragma omp parallel
#pragma omp single
    team = omp_get_num_threads();
    RESULT("serial: library %d, max threads %d, team %d", kmp_get_library(),
           omp_get_max_threads(), team);
    kmp_set_library_turnaround();
    RESULT("turnaround: library %d, max threads back %d", kmp_get_library(),
           omp_get_max_threads() == initial);
    kmp_set_library_throughput();
    omp_set_num_threads(1);
    kmp_set_library(3);
    RESULT("throughput: library %d, max threads back %d", kmp_get_library(),
           omp_get_max_threads() == initial);
    kmp_set_disp_num_buffers(4);
    kmp_set_warnings_off();
    kmp_set_warnings_on();
    /* the program's heap */
    int *p = kmp_malloc(16 * sizeof(int));
    int *q = kmp_calloc(16, sizeof(int));
    double *a = kmp_aligned_malloc(100 * sizeof(double), 256);
    long zero = 0;
    for (int i = 0; i < 16; i++) {
        p[i] = i;
        zero += q[i];
    }
    p = kmp_realloc(p, 1000 * sizeof(int));
    RESULT("kmp_malloc: kept %d, calloc zero %ld, aligned %d", p[15], zero,
           ((uintptr_t)a & 255) == 0);
    kmp_free(p);
    kmp_free(q);
    kmp_free(a);
#ifndef OMP_CHECK_LIBOMP
    CHECK_EQ_LONG(kmp_get_stacksize_s(), 8 << 20);   /* OMP_STACKSIZE */
    CHECK_EQ_LONG(kmp_get_stacksize(), 8 << 20);
    kmp_set_stacksize_s(1 << 20);      /* smaller than the stacks: fine */
    kmp_set_stacksize(4 << 20);
    int blocktime = kmp_get_blocktime();
    CHECK(blocktime >= 0);
    kmp_set_blocktime(0);
    CHECK_EQ_LONG(kmp_get_blocktime(), 0);
    kmp_set_blocktime(7);
    CHECK_EQ_LONG(kmp_get_blocktime(), 7);
    kmp_set_blocktime(blocktime);
    int ran = 0;
#pragma omp parallel reduction(+ : ran)
    ran++;
    CHECK_EQ_LONG(ran, initial);
#endif
}

#ifndef OMP_CHECK_LIBOMP
/* What omp_display_env writes to stderr, caught in a file. */
static char *display_text(int verbose)
{
    static char text[8192];
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return text;
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(f), 2);
    omp_display_env(verbose);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    /* written first: the kernel cannot fault in a sharable page for
     * read(2), it would fail with EFAULT */
    memset(text, 0, sizeof text);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void display_env(void)
{
    char want[128];
    int nodes = kmp_get_num_processes();
    int per = omp_get_num_procs() / nodes;
    const char *t = display_text(0);
    CHECK(strncmp(t, "OPENMP DISPLAY ENVIRONMENT BEGIN\n", 33) == 0);
    CHECK(strstr(t, "OPENMP DISPLAY ENVIRONMENT END\n") != NULL);
    CHECK(strstr(t, "  _OPENMP='201811'\n") != NULL);
    snprintf(want, sizeof want, "[host] OMP_NUM_THREADS='%d'\n",
             omp_get_max_threads());
    CHECK(strstr(t, want) != NULL);
    snprintf(want, sizeof want, "[host] DSM_SIZE='%d'\n", nodes);
    CHECK(strstr(t, want) != NULL);
    snprintf(want, sizeof want, "[host] OMP_PLACES='{0:%d}", per);
    CHECK(strstr(t, want) != NULL);
    CHECK(strstr(t, "[host] OMP_SCHEDULE='static'\n") != NULL);
    CHECK(strstr(t, "DSM_REGION_BASE") == NULL);
    t = display_text(1);
    CHECK(strstr(t, "[host] DSM_REGION_BASE='0x") != NULL);
    CHECK(strstr(t, "[host] DSM_TIMEOUT='") != NULL);
    CHECK(strstr(t, "OPENMP DISPLAY ENVIRONMENT END\n") != NULL);
}
#endif

static void others(void)
{
    RESULT("control_tool %d", omp_control_tool(omp_control_tool_start, 0,
                                               NULL));
    RESULT("max_task_priority %d, cancellation %d, dynamic %d",
           omp_get_max_task_priority(), omp_get_cancellation(),
           omp_get_dynamic());
    omp_set_dynamic(1);
    omp_set_nested(1);
    omp_set_max_active_levels(1);
    RESULT("max_active_levels %d", omp_get_max_active_levels());
    omp_set_dynamic(0);
    omp_set_nested(0);
    CHECK(omp_get_supported_active_levels() >= 1);
    CHECK(!omp_get_nested());
    CHECK(omp_get_wtick() > 0);
    CHECK(omp_get_wtime() > 0);
    CHECK(!omp_in_final());
    CHECK_EQ_LONG(omp_get_ancestor_thread_num(0), 0);
    CHECK_EQ_LONG(omp_get_team_size(0), 1);
    CHECK(omp_get_thread_limit() >= omp_get_max_threads());
    CHECK(omp_get_num_procs() >= 1);
    CHECK_EQ_LONG(omp_get_level() + omp_get_active_level() +
                      omp_in_parallel() + omp_get_thread_num(), 0);
    CHECK_EQ_LONG(omp_get_num_threads(), 1);
    omp_sched_t kind;
    int chunk;
    omp_set_schedule(omp_sched_dynamic, 4);
    omp_get_schedule(&kind, &chunk);
    CHECK(kind == omp_sched_dynamic && chunk == 4);
    omp_set_schedule(omp_sched_static, 0);
#ifndef OMP_CHECK_LIBOMP
    display_env();
#endif
}

#ifndef OMP_CHECK_LIBOMP
/* One call that must end the job. */
static int fatal_case(const char *what)
{
    if (strcmp(what, "kmp_set_defaults") == 0)
        kmp_set_defaults("KMP_BLOCKTIME=0");
    else if (strcmp(what, "kmp_set_stacksize") == 0)
        kmp_set_stacksize_s((size_t)64 << 20);
    else if (strcmp(what, "target_free") == 0)
        omp_target_free(NULL, 3);
    else if (strcmp(what, "set_schedule") == 0)
        omp_set_schedule((omp_sched_t)7, 1);
    else
        return 3;
    fprintf(stderr, "omp_api_all: %s returned\n", what);
    return 0;
}
#endif

int main(int argc, char **argv)
{
#ifndef OMP_CHECK_LIBOMP
    if (argc > 1)
        return fatal_case(argv[1]);
#else
    (void)argc;
    (void)argv;
#endif
    teams_icvs();
    pause_resource();
    devices();
    places();
    affinity_format();
    kmp_extensions();
    others();
    return check_status("omp_api_all");
}
