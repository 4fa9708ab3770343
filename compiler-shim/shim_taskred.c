/*
 * shim_taskred.c - task reductions in the libomp ABI: task_reduction on a
 * taskgroup and reduction on taskloop (__kmpc_taskred_init, and the older
 * __kmpc_task_reduction_init), in_reduction
 * (__kmpc_task_reduction_get_th_data) and the task modifier of reduction
 * on parallel and worksharing constructs (__kmpc_taskred_modifier_init,
 * __kmpc_task_reduction_modifier_init, __kmpc_task_reduction_modifier_fini).
 * Translates the compiler's inputs for fj_taskred_* (forkjoin_task.h).
 *
 * Layer: compiler-shim.  Application threads.
 */
#include <stdlib.h>

#include "base_log.h"
#include "forkjoin_task.h"
#include "shim_kmp.h"
#include "shim_task_abi.h"

SHIM_EXPORT void *__kmpc_taskred_init(kmp_int32 gtid, kmp_int32 num,
                                      void *data);
SHIM_EXPORT void *__kmpc_task_reduction_init(kmp_int32 gtid, kmp_int32 num,
                                             void *data);
SHIM_EXPORT void *__kmpc_taskred_modifier_init(ident_t *loc, kmp_int32 gtid,
                                               kmp_int32 is_ws,
                                               kmp_int32 num, void *data);
SHIM_EXPORT void *__kmpc_task_reduction_modifier_init(ident_t *loc,
                                                      kmp_int32 gtid,
                                                      kmp_int32 is_ws,
                                                      kmp_int32 num,
                                                      void *data);
SHIM_EXPORT void __kmpc_task_reduction_modifier_fini(ident_t *loc,
                                                     kmp_int32 gtid,
                                                     kmp_int32 is_ws);
SHIM_EXPORT void *__kmpc_task_reduction_get_th_data(kmp_int32 gtid,
                                                    void *tskgrp,
                                                    void *data);

#define STACK_ITEMS 16

/* The items of either input layout; *out is items or a malloc'd array. */
static fj_taskred_item_t *convert(int num, const void *data, int with_orig,
                                  fj_taskred_item_t *items)
{
    if (num < 0)
        num = 0;
    fj_taskred_item_t *out = items;
    if (num > STACK_ITEMS) {
        out = malloc((size_t)num * sizeof *out);
        if (!out)
            dsm_fatal("out of memory for %d task reduction items", num);
    }
    for (int i = 0; i < num; i++) {
        if (with_orig) {
            const kmp_taskred_input_t *in = (const kmp_taskred_input_t *)data + i;
            out[i] = (fj_taskred_item_t){
                in->reduce_shar, in->reduce_orig, in->reduce_size,
                (void (*)(void))in->reduce_init,
                (void (*)(void *))in->reduce_fini,
                (void (*)(void *, void *))in->reduce_comb, 1};
        } else {
            const kmp_task_red_input_t *in =
                (const kmp_task_red_input_t *)data + i;
            out[i] = (fj_taskred_item_t){
                in->reduce_shar, in->reduce_shar, in->reduce_size,
                (void (*)(void))in->reduce_init,
                (void (*)(void *))in->reduce_fini,
                (void (*)(void *, void *))in->reduce_comb, 0};
        }
        if (!out[i].comb)
            dsm_fatal("task reduction item %d has no combiner", i);
    }
    return out;
}

static void *init(const char *where, int num, void *data, int with_orig)
{
    fj_taskred_item_t stack[STACK_ITEMS];
    fj_taskred_item_t *items = convert(num, data, with_orig, stack);
    void *tg = fj_taskred_begin(num < 0 ? 0 : num, items, where);
    if (items != stack)
        free(items);
    return tg;
}

static void *modifier_init(ident_t *loc, int is_ws, int num, void *data,
                           int with_orig)
{
    fj_taskred_item_t stack[STACK_ITEMS];
    fj_taskred_item_t *items = convert(num, data, with_orig, stack);
    void *tg = fj_taskred_modifier_begin(is_ws, num < 0 ? 0 : num, items,
                                         shim_where(loc));
    if (items != stack)
        free(items);
    return tg;
}

void *__kmpc_taskred_init(kmp_int32 gtid, kmp_int32 num, void *data)
{
    return init("task_reduction", num, data, 1);
}

void *__kmpc_task_reduction_init(kmp_int32 gtid, kmp_int32 num, void *data)
{
    return init("task_reduction", num, data, 0);
}

void *__kmpc_taskred_modifier_init(ident_t *loc, kmp_int32 gtid,
                                   kmp_int32 is_ws, kmp_int32 num, void *data)
{
    return modifier_init(loc, is_ws, num, data, 1);
}

void *__kmpc_task_reduction_modifier_init(ident_t *loc, kmp_int32 gtid,
                                          kmp_int32 is_ws, kmp_int32 num,
                                          void *data)
{
    return modifier_init(loc, is_ws, num, data, 0);
}

void __kmpc_task_reduction_modifier_fini(ident_t *loc, kmp_int32 gtid,
                                         kmp_int32 is_ws)
{
    fj_taskred_modifier_end(is_ws);
}

void *__kmpc_task_reduction_get_th_data(kmp_int32 gtid, void *tskgrp,
                                        void *data)
{
    return fj_taskred_private(tskgrp, data);
}
