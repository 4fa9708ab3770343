/*
 * app_shared.h - where the OpenMP kernels get the arrays that threads of
 * several nodes share.  Built with dsmcc (APP_SHARABLE_ALLOC defined) they
 * come from the sharable heap; built for libomp, from malloc.  Once dsmomp
 * makes malloc'd memory sharable, the dsmcc build can drop the define.
 *
 * Application code; main thread (the master) only.
 */
#ifndef APP_SHARED_H
#define APP_SHARED_H

#include <stdlib.h>

#ifdef APP_SHARABLE_ALLOC
#include "dsm.h"
#define app_shared_alloc(bytes) kmp_sharable_malloc(bytes)
#define app_shared_free(ptr) kmp_sharable_free(ptr)
#else
#define app_shared_alloc(bytes) malloc(bytes)
#define app_shared_free(ptr) free(ptr)
#endif

#endif
