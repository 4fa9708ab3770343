/*
 * shim_alloc.h - what other shim modules need of the allocators.
 *
 * Layer: compiler-shim (internal header).
 */
#ifndef SHIM_ALLOC_H
#define SHIM_ALLOC_H

/* The calling thread's def-allocator-var back to OMP_ALLOCATOR's value
 * (a hard pause resets the ICVs). */
void shim_alloc_reset_default(void);

#endif
