/*
 * shim_doacross.c - doacross loops in the libomp ABI: ordered(n) with
 * depend(sink: ...) and depend(source) become __kmpc_doacross_init (the
 * nest's dimensions as an array of kmp_dim {lo, up, st}), _wait and _post
 * (a vector of n kmp_int64 values) and _fini.  clang 14 normalises every
 * dimension (lo 0, st 1, up the trip count) and calls init before the
 * work-sharing loop's own init, fini after its end.
 *
 * Layer: compiler-shim.  Application threads.
 */
#include "forkjoin.h"
#include "shim_kmp.h"

/* libomp's struct kmp_dim, as clang lays it out. */
typedef struct kmp_dim {
    kmp_int64 lo, up, st;
} kmp_dim_t;

_Static_assert(sizeof(kmp_dim_t) == sizeof(fj_doacross_dim_t),
               "fj_doacross_dim_t is kmp_dim");

SHIM_EXPORT void __kmpc_doacross_init(ident_t *loc, kmp_int32 gtid,
                                      kmp_int32 num_dims,
                                      const kmp_dim_t *dims);
SHIM_EXPORT void __kmpc_doacross_wait(ident_t *loc, kmp_int32 gtid,
                                      const kmp_int64 *vec);
SHIM_EXPORT void __kmpc_doacross_post(ident_t *loc, kmp_int32 gtid,
                                      const kmp_int64 *vec);
SHIM_EXPORT void __kmpc_doacross_fini(ident_t *loc, kmp_int32 gtid);

void __kmpc_doacross_init(ident_t *loc, kmp_int32 gtid, kmp_int32 num_dims,
                          const kmp_dim_t *dims)
{
    if (num_dims < 1 || num_dims > FJ_DOACROSS_MAX_DIMS)
        fj_doacross_init(num_dims, NULL);   /* ends the job, saying why */
    fj_doacross_dim_t last[FJ_DOACROSS_MAX_DIMS];
    for (int k = 0; k < num_dims; k++)
        last[k] = (fj_doacross_dim_t){dims[k].lo, dims[k].up - dims[k].st,
                                      dims[k].st};
    fj_doacross_init(num_dims, last);
}

void __kmpc_doacross_wait(ident_t *loc, kmp_int32 gtid, const kmp_int64 *vec)
{
    fj_doacross_wait(vec);
}

void __kmpc_doacross_post(ident_t *loc, kmp_int32 gtid, const kmp_int64 *vec)
{
    fj_doacross_post(vec);
}

void __kmpc_doacross_fini(ident_t *loc, kmp_int32 gtid)
{
    fj_doacross_fini();
}
