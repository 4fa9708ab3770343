/*
 * shim_kmp.h - the libomp ABI as clang 14 calls it: integer types, the
 * source location (ident_t), critical-section names, microtasks and tasks;
 * and the export attribute of the entry points.
 *
 * Layer: compiler-shim (internal header).  Written from the calls clang
 * emits; field names follow libomp's so that its documentation applies.
 */
#ifndef SHIM_KMP_H
#define SHIM_KMP_H

#include <stddef.h>
#include <stdint.h>

/* Everything in libdsmomp is hidden except the public API, the OpenMP API
 * and this ABI. */
#define SHIM_EXPORT __attribute__((visibility("default")))

typedef int32_t kmp_int32;
typedef uint32_t kmp_uint32;
typedef int64_t kmp_int64;
typedef uint64_t kmp_uint64;

/* Source location: psource is ";file;function;line;column;;". */
typedef struct ident {
    kmp_int32 reserved_1;
    kmp_int32 flags;
    kmp_int32 reserved_2;
    kmp_int32 reserved_3;
    const char *psource;
} ident_t;

/* The per-program variable that names a critical section. */
typedef kmp_int32 kmp_critical_name[8];

typedef void (*kmpc_micro)(kmp_int32 *global_tid, kmp_int32 *bound_tid, ...);

typedef kmp_int32 (*kmp_routine_entry_t)(kmp_int32 gtid, void *task);

/* The head of a task as the compiler lays it out; its private variables
 * follow, then (separately sized) the block of shared-variable pointers. */
typedef struct kmp_task {
    void *shareds;
    kmp_routine_entry_t routine;
    kmp_int32 part_id;
} kmp_task_t;

static inline const char *shim_where(const ident_t *loc)
{
    return loc && loc->psource ? loc->psource : "(unknown location)";
}

#endif
