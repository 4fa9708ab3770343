/*
 * shim_device.c - device memory routines and interoperability objects on a
 * cluster with no offload devices: the host (the initial device, number
 * omp_get_initial_device() = omp_get_num_devices() = 0) is the only one.
 *
 *   omp_target_alloc / omp_target_free on the host allocate from the
 *   sharable heap (the host's memory is the cluster's: a block is valid
 *   on every node); omp_target_memcpy, omp_target_memcpy_rect and their
 *   _async forms copy host memory (the asynchronous ones at once: tasks
 *   run undeferred, so their dependences are already met);
 *   omp_target_is_present, omp_target_is_accessible and omp_get_mapped_ptr
 *   answer for host memory.  There is no device memory to associate with
 *   host memory: omp_target_associate_ptr and omp_target_disassociate_ptr
 *   fail.  Any other device number gets the routine's error return (NULL,
 *   0 or non-zero), or, for omp_target_free, which has none, ends the job.
 *
 *   The interop construct (__tgt_interop_init, _use, _destroy) makes
 *   omp_interop_none, as LLVM's own runtime does when no device is ready;
 *   omp_get_interop_* on it answer omp_irc_empty.
 *
 *   target nowait on the host (__kmpc_omp_target_task_alloc) is a task
 *   like any other.
 *
 * Layer: compiler-shim.  Any application thread.
 */
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "base_log.h"
#include "forkjoin.h"
#include "shim_kmp.h"

/* libomptarget's failure value for the routines that return int. */
#define DEVICE_FAIL (-1)

/* shim_heap.c: the program's heap (sharable while the runtime is up). */
void *__wrap_malloc(size_t size);
void __wrap_free(void *ptr);

static int is_host(int device) { return device == omp_get_initial_device(); }

SHIM_EXPORT void *omp_target_alloc(size_t size, int device)
{
    if (!is_host(device) || size == 0)
        return NULL;
    return __wrap_malloc(size);
}

SHIM_EXPORT void omp_target_free(void *ptr, int device)
{
    if (!is_host(device))
        dsm_fatal("omp_target_free: device %d does not exist (dsmomp has no "
                  "offload devices; the host is device %d)", device,
                  omp_get_initial_device());
    __wrap_free(ptr);
}

SHIM_EXPORT int omp_target_is_present(const void *ptr, int device)
{
    return ptr != NULL && is_host(device);
}

SHIM_EXPORT int omp_target_is_accessible(const void *ptr, size_t size,
                                         int device)
{
    return is_host(device);
}

SHIM_EXPORT void *omp_get_mapped_ptr(const void *ptr, int device)
{
    return is_host(device) ? (void *)ptr : NULL;
}

SHIM_EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length,
                                  size_t dst_offset, size_t src_offset,
                                  int dst_device, int src_device)
{
    if (length == 0)
        return 0;
    if (!dst || !src || !is_host(dst_device) || !is_host(src_device))
        return DEVICE_FAIL;
    memmove((char *)dst + dst_offset, (const char *)src + src_offset, length);
    return 0;
}

/* One sub-volume of dims dimensions. */
static void copy_rect(char *dst, const char *src, size_t element_size,
                      int dims, const size_t *volume,
                      const size_t *dst_offsets, const size_t *src_offsets,
                      const size_t *dst_dimensions,
                      const size_t *src_dimensions)
{
    if (dims == 1) {
        memmove(dst + dst_offsets[0] * element_size,
                src + src_offsets[0] * element_size,
                volume[0] * element_size);
        return;
    }
    size_t dst_slice = element_size, src_slice = element_size;
    for (int d = 1; d < dims; d++) {
        dst_slice *= dst_dimensions[d];
        src_slice *= src_dimensions[d];
    }
    for (size_t i = 0; i < volume[0]; i++)
        copy_rect(dst + (dst_offsets[0] + i) * dst_slice,
                  src + (src_offsets[0] + i) * src_slice, element_size,
                  dims - 1, volume + 1, dst_offsets + 1, src_offsets + 1,
                  dst_dimensions + 1, src_dimensions + 1);
}

SHIM_EXPORT int omp_target_memcpy_rect(
    void *dst, const void *src, size_t element_size, int num_dims,
    const size_t *volume, const size_t *dst_offsets,
    const size_t *src_offsets, const size_t *dst_dimensions,
    const size_t *src_dimensions, int dst_device, int src_device)
{
    if (!dst && !src)
        return INT_MAX;       /* the dimensions supported */
    if (!dst || !src || element_size == 0 || num_dims < 1 || !volume ||
        !dst_offsets || !src_offsets || !dst_dimensions || !src_dimensions ||
        !is_host(dst_device) || !is_host(src_device))
        return DEVICE_FAIL;
    copy_rect(dst, src, element_size, num_dims, volume, dst_offsets,
              src_offsets, dst_dimensions, src_dimensions);
    return 0;
}

SHIM_EXPORT int omp_target_memcpy_async(void *dst, const void *src,
                                        size_t length, size_t dst_offset,
                                        size_t src_offset, int dst_device,
                                        int src_device, int depobj_count,
                                        omp_depend_t *depobj_list)
{
    return omp_target_memcpy(dst, src, length, dst_offset, src_offset,
                             dst_device, src_device);
}

SHIM_EXPORT int omp_target_memcpy_rect_async(
    void *dst, const void *src, size_t element_size, int num_dims,
    const size_t *volume, const size_t *dst_offsets,
    const size_t *src_offsets, const size_t *dst_dimensions,
    const size_t *src_dimensions, int dst_device, int src_device,
    int depobj_count, omp_depend_t *depobj_list)
{
    return omp_target_memcpy_rect(dst, src, element_size, num_dims, volume,
                                  dst_offsets, src_offsets, dst_dimensions,
                                  src_dimensions, dst_device, src_device);
}

SHIM_EXPORT int omp_target_associate_ptr(const void *host_ptr,
                                         const void *device_ptr, size_t size,
                                         size_t device_offset, int device)
{
    return DEVICE_FAIL;       /* no device memory to associate */
}

SHIM_EXPORT int omp_target_disassociate_ptr(const void *ptr, int device)
{
    return DEVICE_FAIL;
}

/* ---- target nowait on the host ---------------------------------------- */

SHIM_EXPORT kmp_task_t *__kmpc_omp_task_alloc(
    ident_t *loc, kmp_int32 gtid, kmp_int32 flags, size_t sizeof_kmp_task_t,
    size_t sizeof_shareds, kmp_routine_entry_t task_entry);
SHIM_EXPORT kmp_task_t *__kmpc_omp_target_task_alloc(
    ident_t *loc, kmp_int32 gtid, kmp_int32 flags, size_t sizeof_kmp_task_t,
    size_t sizeof_shareds, kmp_routine_entry_t task_entry,
    kmp_int64 device_id);

kmp_task_t *__kmpc_omp_target_task_alloc(ident_t *loc, kmp_int32 gtid,
                                         kmp_int32 flags,
                                         size_t sizeof_kmp_task_t,
                                         size_t sizeof_shareds,
                                         kmp_routine_entry_t task_entry,
                                         kmp_int64 device_id)
{
    return __kmpc_omp_task_alloc(loc, gtid, flags, sizeof_kmp_task_t,
                                 sizeof_shareds, task_entry);
}

/* ---- interop ----------------------------------------------------------- */

SHIM_EXPORT void __tgt_interop_init(ident_t *loc, kmp_int32 gtid,
                                    void **interop, kmp_int64 interop_type,
                                    kmp_int32 device, kmp_int32 ndeps,
                                    void *deps, kmp_int32 nowait);
SHIM_EXPORT void __tgt_interop_use(ident_t *loc, kmp_int32 gtid,
                                   void **interop, kmp_int32 device,
                                   kmp_int32 ndeps, void *deps,
                                   kmp_int32 nowait);
SHIM_EXPORT void __tgt_interop_destroy(ident_t *loc, kmp_int32 gtid,
                                       void **interop, kmp_int32 device,
                                       kmp_int32 ndeps, void *deps,
                                       kmp_int32 nowait);

void __tgt_interop_init(ident_t *loc, kmp_int32 gtid, void **interop,
                        kmp_int64 interop_type, kmp_int32 device,
                        kmp_int32 ndeps, void *deps, kmp_int32 nowait)
{
    *interop = omp_interop_none;     /* no foreign runtime to share */
}

void __tgt_interop_use(ident_t *loc, kmp_int32 gtid, void **interop,
                       kmp_int32 device, kmp_int32 ndeps, void *deps,
                       kmp_int32 nowait)
{
}

void __tgt_interop_destroy(ident_t *loc, kmp_int32 gtid, void **interop,
                           kmp_int32 device, kmp_int32 ndeps, void *deps,
                           kmp_int32 nowait)
{
    *interop = omp_interop_none;
}

/* Every interop object here is omp_interop_none; anything else is not
 * one dsmomp made. */
static void check_none(const omp_interop_t interop, const char *routine)
{
    if (interop != omp_interop_none)
        dsm_fatal("%s: %p is not an interop object (dsmomp has no foreign "
                  "runtime: every interop object is omp_interop_none)",
                  routine, interop);
}

SHIM_EXPORT int omp_get_num_interop_properties(const omp_interop_t interop)
{
    check_none(interop, "omp_get_num_interop_properties");
    return 0;                 /* no implementation-defined properties */
}

static void empty(int *ret_code)
{
    if (ret_code)
        *ret_code = omp_irc_empty;
}

SHIM_EXPORT omp_intptr_t omp_get_interop_int(const omp_interop_t interop,
                                             omp_interop_property_t property,
                                             int *ret_code)
{
    check_none(interop, "omp_get_interop_int");
    empty(ret_code);
    return 0;
}

SHIM_EXPORT void *omp_get_interop_ptr(const omp_interop_t interop,
                                      omp_interop_property_t property,
                                      int *ret_code)
{
    check_none(interop, "omp_get_interop_ptr");
    empty(ret_code);
    return NULL;
}

SHIM_EXPORT const char *omp_get_interop_str(const omp_interop_t interop,
                                            omp_interop_property_t property,
                                            int *ret_code)
{
    check_none(interop, "omp_get_interop_str");
    empty(ret_code);
    return NULL;
}

/* The properties the specification defines, from omp_ipr_first (-9) to
 * -1: their names and the C types of their values. */
static const char *const property_names[] = {
    "targetsync", "device_context", "device", "platform", "device_num",
    "vendor_name", "vendor", "fr_name", "fr_id",
};
static const char *const property_types[] = {
    "void *", "void *", "void *", "void *", "int", "const char *", "int",
    "const char *", "int",
};

static int property_index(omp_interop_property_t property)
{
    int p = (int)property;
    return p >= omp_ipr_first && p < 0 ? p - omp_ipr_first : -1;
}

SHIM_EXPORT const char *omp_get_interop_name(const omp_interop_t interop,
                                             omp_interop_property_t property)
{
    int i = property_index(property);
    return i < 0 ? NULL : property_names[i];
}

SHIM_EXPORT const char *omp_get_interop_type_desc(
    const omp_interop_t interop, omp_interop_property_t property)
{
    int i = property_index(property);
    return i < 0 ? NULL : property_types[i];
}

SHIM_EXPORT const char *omp_get_interop_rc_desc(const omp_interop_t interop,
                                                omp_interop_rc_t ret_code)
{
    switch (ret_code) {
    case omp_irc_no_value: return "no value: the property has none";
    case omp_irc_success: return "success";
    case omp_irc_empty: return "the interop object is omp_interop_none";
    case omp_irc_out_of_range: return "no such property";
    case omp_irc_type_int: return "the property's value is an int";
    case omp_irc_type_ptr: return "the property's value is a pointer";
    case omp_irc_type_str: return "the property's value is a string";
    case omp_irc_other: return "another error";
    }
    return NULL;
}
