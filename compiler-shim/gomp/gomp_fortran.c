/*
 * gomp_fortran.c - the OpenMP API as gfortran's omp_lib calls it: every
 * routine with a trailing underscore (omp_get_thread_num_), arguments by
 * reference, and for -fdefault-integer-8 programs the _8 forms whose
 * integer and logical arguments are 8 bytes.  Each calls the C routine of
 * the same name (shim_omp_api.c, shim_lock.c, shim_places.c, ...), so both
 * languages mean the same thing on the cluster.
 *
 * gfortran's kinds (omp_lib_kinds): omp_lock_kind 4 (shim_lock.c keeps a
 * lock's handle in 4 bytes for that), omp_nest_lock_kind 8, handles of
 * allocators, memory spaces and events intptr; a LOGICAL(4) result is 1
 * or 0.  A CHARACTER argument comes as its address, and its length is
 * passed by value after all the other arguments; Fortran strings are
 * padded with blanks, not ended by a NUL.
 *
 * Also the two lock-with-hint routines omp_lib declares but libgomp 12
 * does not define (a program using them links only with dsmomp).
 *
 * Layer: compiler-shim.  Application threads.
 */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "gomp_abi.h"

/* LLVM's omp.h renames these to its ompc_ spellings; the shim defines
 * both, and the C names are the ones libgomp has. */
#undef omp_set_affinity_format
#undef omp_get_affinity_format
#undef omp_display_affinity
#undef omp_capture_affinity
void omp_set_affinity_format(const char *format);
size_t omp_get_affinity_format(char *buffer, size_t size);
void omp_display_affinity(const char *format);
size_t omp_capture_affinity(char *buffer, size_t size, const char *format);

typedef int32_t f_int;       /* INTEGER(4) */
typedef int64_t f_int8;      /* INTEGER(8) */
typedef int32_t f_logical;   /* LOGICAL(4) */
typedef int64_t f_logical8;  /* LOGICAL(8) */

/* A Fortran INTEGER(8) argument for a C int: out of range ends the job
 * rather than wrapping. */
static int narrow(f_int8 v, const char *routine)
{
    if (v < INT32_MIN || v > INT32_MAX)
        dsm_fatal("dsmomp: %s: argument %lld is out of range", routine,
                  (long long)v);
    return (int)v;
}

#define EXPORT GOMP_EXPORT

/* ---- locks (omp_lock_kind 4, omp_nest_lock_kind 8) ----------------------- */

EXPORT void omp_init_lock_(f_int *lock);
EXPORT void omp_init_lock_with_hint_(f_int *lock, const f_int *hint);
EXPORT void omp_destroy_lock_(f_int *lock);
EXPORT void omp_set_lock_(f_int *lock);
EXPORT void omp_unset_lock_(f_int *lock);
EXPORT f_logical omp_test_lock_(f_int *lock);
EXPORT void omp_init_nest_lock_(f_int8 *lock);
EXPORT void omp_init_nest_lock_with_hint_(f_int8 *lock, const f_int *hint);
EXPORT void omp_destroy_nest_lock_(f_int8 *lock);
EXPORT void omp_set_nest_lock_(f_int8 *lock);
EXPORT void omp_unset_nest_lock_(f_int8 *lock);
EXPORT f_int omp_test_nest_lock_(f_int8 *lock);

void omp_init_lock_(f_int *lock) { omp_init_lock((omp_lock_t *)lock); }
void omp_init_lock_with_hint_(f_int *lock, const f_int *hint)
{
    omp_init_lock_with_hint((omp_lock_t *)lock, (omp_lock_hint_t)*hint);
}
void omp_destroy_lock_(f_int *lock) { omp_destroy_lock((omp_lock_t *)lock); }
void omp_set_lock_(f_int *lock) { omp_set_lock((omp_lock_t *)lock); }
void omp_unset_lock_(f_int *lock) { omp_unset_lock((omp_lock_t *)lock); }
f_logical omp_test_lock_(f_int *lock)
{
    return omp_test_lock((omp_lock_t *)lock) != 0;
}
void omp_init_nest_lock_(f_int8 *lock)
{
    omp_init_nest_lock((omp_nest_lock_t *)lock);
}
void omp_init_nest_lock_with_hint_(f_int8 *lock, const f_int *hint)
{
    omp_init_nest_lock_with_hint((omp_nest_lock_t *)lock,
                                 (omp_lock_hint_t)*hint);
}
void omp_destroy_nest_lock_(f_int8 *lock)
{
    omp_destroy_nest_lock((omp_nest_lock_t *)lock);
}
void omp_set_nest_lock_(f_int8 *lock)
{
    omp_set_nest_lock((omp_nest_lock_t *)lock);
}
void omp_unset_nest_lock_(f_int8 *lock)
{
    omp_unset_nest_lock((omp_nest_lock_t *)lock);
}
f_int omp_test_nest_lock_(f_int8 *lock)
{
    return omp_test_nest_lock((omp_nest_lock_t *)lock);
}

/* ---- routines without arguments ------------------------------------------ */

#define GETTER(RET, NAME)                                                     \
    EXPORT RET NAME##_(void);                                                 \
    RET NAME##_(void) { return (RET)NAME(); }
#define LOGICAL_GETTER(NAME)                                                  \
    EXPORT f_logical NAME##_(void);                                           \
    f_logical NAME##_(void) { return NAME() != 0; }

GETTER(f_int, omp_get_thread_num)
GETTER(f_int, omp_get_num_threads)
GETTER(f_int, omp_get_max_threads)
GETTER(f_int, omp_get_num_procs)
GETTER(f_int, omp_get_thread_limit)
GETTER(f_int, omp_get_max_active_levels)
GETTER(f_int, omp_get_supported_active_levels)
GETTER(f_int, omp_get_level)
GETTER(f_int, omp_get_active_level)
GETTER(f_int, omp_get_proc_bind)
GETTER(f_int, omp_get_num_places)
GETTER(f_int, omp_get_place_num)
GETTER(f_int, omp_get_partition_num_places)
GETTER(f_int, omp_get_default_device)
GETTER(f_int, omp_get_num_devices)
GETTER(f_int, omp_get_num_teams)
GETTER(f_int, omp_get_team_num)
GETTER(f_int, omp_get_initial_device)
GETTER(f_int, omp_get_device_num)
GETTER(f_int, omp_get_max_task_priority)
GETTER(f_int, omp_get_max_teams)
GETTER(f_int, omp_get_teams_thread_limit)
GETTER(double, omp_get_wtime)
GETTER(double, omp_get_wtick)
GETTER(intptr_t, omp_get_default_allocator)
LOGICAL_GETTER(omp_get_dynamic)
LOGICAL_GETTER(omp_get_nested)
LOGICAL_GETTER(omp_in_parallel)
LOGICAL_GETTER(omp_in_final)
LOGICAL_GETTER(omp_get_cancellation)
LOGICAL_GETTER(omp_is_initial_device)

/* ---- routines of one integer or logical argument, and their _8 forms ---- */

#define SETTER(NAME)                                                          \
    EXPORT void NAME##_(const f_int *v);                                      \
    EXPORT void NAME##_8_(const f_int8 *v);                                   \
    void NAME##_(const f_int *v) { NAME(*v); }                                \
    void NAME##_8_(const f_int8 *v) { NAME(narrow(*v, #NAME)); }
#define LOGICAL_SETTER(NAME)                                                  \
    EXPORT void NAME##_(const f_logical *v);                                  \
    EXPORT void NAME##_8_(const f_logical8 *v);                               \
    void NAME##_(const f_logical *v) { NAME(*v != 0); }                       \
    void NAME##_8_(const f_logical8 *v) { NAME(*v != 0); }
#define QUERY(NAME)                                                           \
    EXPORT f_int NAME##_(const f_int *v);                                     \
    EXPORT f_int NAME##_8_(const f_int8 *v);                                  \
    f_int NAME##_(const f_int *v) { return NAME(*v); }                        \
    f_int NAME##_8_(const f_int8 *v) { return NAME(narrow(*v, #NAME)); }

SETTER(omp_set_num_threads)
SETTER(omp_set_max_active_levels)
SETTER(omp_set_default_device)
SETTER(omp_set_num_teams)
SETTER(omp_set_teams_thread_limit)
LOGICAL_SETTER(omp_set_dynamic)
LOGICAL_SETTER(omp_set_nested)
LOGICAL_SETTER(omp_display_env)
QUERY(omp_get_ancestor_thread_num)
QUERY(omp_get_team_size)
QUERY(omp_get_place_num_procs)

/* ---- schedules ------------------------------------------------------------ */

EXPORT void omp_set_schedule_(const f_int *kind, const f_int *chunk);
EXPORT void omp_set_schedule_8_(const f_int *kind, const f_int8 *chunk);
EXPORT void omp_get_schedule_(f_int *kind, f_int *chunk);
EXPORT void omp_get_schedule_8_(f_int *kind, f_int8 *chunk);

void omp_set_schedule_(const f_int *kind, const f_int *chunk)
{
    omp_set_schedule((omp_sched_t)*kind, *chunk);
}

void omp_set_schedule_8_(const f_int *kind, const f_int8 *chunk)
{
    omp_set_schedule((omp_sched_t)*kind, narrow(*chunk, "omp_set_schedule"));
}

void omp_get_schedule_(f_int *kind, f_int *chunk)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    *kind = (f_int)k;
    *chunk = c;
}

void omp_get_schedule_8_(f_int *kind, f_int8 *chunk)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    *kind = (f_int)k;
    *chunk = c;
}

/* ---- places ------------------------------------------------------------- */

EXPORT void omp_get_place_proc_ids_(const f_int *place, f_int *ids);
EXPORT void omp_get_place_proc_ids_8_(const f_int8 *place, f_int8 *ids);
EXPORT void omp_get_partition_place_nums_(f_int *nums);
EXPORT void omp_get_partition_place_nums_8_(f_int8 *nums);

void omp_get_place_proc_ids_(const f_int *place, f_int *ids)
{
    omp_get_place_proc_ids(*place, ids);
}

void omp_get_place_proc_ids_8_(const f_int8 *place, f_int8 *ids)
{
    int p = narrow(*place, "omp_get_place_proc_ids");
    int n = omp_get_place_num_procs(p);
    if (n <= 0)
        return;
    int *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        dsm_fatal("dsmomp: out of memory in omp_get_place_proc_ids");
    omp_get_place_proc_ids(p, tmp);
    for (int i = 0; i < n; i++)
        ids[i] = tmp[i];
    free(tmp);
}

void omp_get_partition_place_nums_(f_int *nums)
{
    omp_get_partition_place_nums(nums);
}

void omp_get_partition_place_nums_8_(f_int8 *nums)
{
    int n = omp_get_partition_num_places();
    if (n <= 0)
        return;
    int *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        dsm_fatal("dsmomp: out of memory in omp_get_partition_place_nums");
    omp_get_partition_place_nums(tmp);
    for (int i = 0; i < n; i++)
        nums[i] = tmp[i];
    free(tmp);
}

/* ---- affinity format: Fortran strings ------------------------------------ */

EXPORT void omp_set_affinity_format_(const char *format, size_t len);
EXPORT f_int omp_get_affinity_format_(char *buffer, size_t len);
EXPORT void omp_display_affinity_(const char *format, size_t len);
EXPORT f_int omp_capture_affinity_(char *buffer, const char *format,
                                   size_t buffer_len, size_t format_len);

/* A Fortran string without its trailing blanks, as a C string (malloc). */
static char *c_string(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (!c)
        dsm_fatal("dsmomp: out of memory for a Fortran string argument");
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

/* Copy the C string s into a Fortran buffer of len characters, padded
 * with blanks (truncated when longer). */
static void fortran_string(char *buf, size_t len, const char *s)
{
    size_t n = strlen(s);
    if (n > len)
        n = len;
    memcpy(buf, s, n);
    memset(buf + n, ' ', len - n);
}

void omp_set_affinity_format_(const char *format, size_t len)
{
    char *c = c_string(format, len);
    omp_set_affinity_format(c);
    free(c);
}

f_int omp_get_affinity_format_(char *buffer, size_t len)
{
    size_t n = omp_get_affinity_format(NULL, 0);
    char *c = malloc(n + 1);
    if (!c)
        dsm_fatal("dsmomp: out of memory in omp_get_affinity_format");
    omp_get_affinity_format(c, n + 1);
    fortran_string(buffer, len, c);
    free(c);
    return (f_int)n;
}

/* An empty (all blank) format means affinity-format-var. */
void omp_display_affinity_(const char *format, size_t len)
{
    char *c = c_string(format, len);
    omp_display_affinity(c[0] ? c : NULL);
    free(c);
}

f_int omp_capture_affinity_(char *buffer, const char *format,
                            size_t buffer_len, size_t format_len)
{
    char *f = c_string(format, format_len);
    const char *fmt = f[0] ? f : NULL;
    size_t n = omp_capture_affinity(NULL, 0, fmt);
    char *c = malloc(n + 1);
    if (!c)
        dsm_fatal("dsmomp: out of memory in omp_capture_affinity");
    omp_capture_affinity(c, n + 1, fmt);
    fortran_string(buffer, buffer_len, c);
    free(c);
    free(f);
    return (f_int)n;
}

/* ---- allocators, pause, events -------------------------------------------- */

EXPORT intptr_t omp_init_allocator_(const intptr_t *memspace,
                                    const f_int *ntraits,
                                    const omp_alloctrait_t *traits);
EXPORT intptr_t omp_init_allocator_8_(const intptr_t *memspace,
                                      const f_int8 *ntraits,
                                      const omp_alloctrait_t *traits);
EXPORT void omp_destroy_allocator_(const intptr_t *allocator);
EXPORT void omp_set_default_allocator_(const intptr_t *allocator);
EXPORT f_int omp_pause_resource_(const f_int *kind, const f_int *device);
EXPORT f_int omp_pause_resource_all_(const f_int *kind);
EXPORT void omp_fulfill_event_(const intptr_t *event);

intptr_t omp_init_allocator_(const intptr_t *memspace, const f_int *ntraits,
                             const omp_alloctrait_t *traits)
{
    return (intptr_t)omp_init_allocator((omp_memspace_handle_t)*memspace,
                                        *ntraits, (omp_alloctrait_t *)traits);
}

intptr_t omp_init_allocator_8_(const intptr_t *memspace,
                               const f_int8 *ntraits,
                               const omp_alloctrait_t *traits)
{
    return (intptr_t)omp_init_allocator(
        (omp_memspace_handle_t)*memspace,
        narrow(*ntraits, "omp_init_allocator"), (omp_alloctrait_t *)traits);
}

void omp_destroy_allocator_(const intptr_t *allocator)
{
    omp_destroy_allocator((omp_allocator_handle_t)*allocator);
}

void omp_set_default_allocator_(const intptr_t *allocator)
{
    omp_set_default_allocator((omp_allocator_handle_t)*allocator);
}

f_int omp_pause_resource_(const f_int *kind, const f_int *device)
{
    return omp_pause_resource((omp_pause_resource_t)*kind, *device);
}

f_int omp_pause_resource_all_(const f_int *kind)
{
    return omp_pause_resource_all((omp_pause_resource_t)*kind);
}

void omp_fulfill_event_(const intptr_t *event)
{
    omp_fulfill_event((omp_event_handle_t)*event);
}
