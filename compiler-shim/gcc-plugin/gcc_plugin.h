/*
 * gcc_plugin.h - internal interface of dsm's GCC plug-in (the GCC
 * counterpart of the dsm-atomic LLVM pass, compiler-shim/atomic).
 *
 * Layer: compiler-shim (runs inside gcc's cc1 and gfortran's f951, not in
 * the program).  Modules:
 *   gcc_plugin.cc    plug-in entry: registers the dsm-atomic GIMPLE pass
 *                    twice, before "fab" (at -O1 and above that pass turns
 *                    some atomic builtins into internal functions the
 *                    runtime has no entry for) and before "optimized"
 *                    (every level; at -O1 and above it finds nothing left)
 *   gcc_atomic.cc    the pass: selects the atomic builtin calls and
 *                    internal functions on possibly sharable memory and
 *                    rewrites them into calls of atomic_abi.h's entries;
 *                    turns __sync_synchronize (gcc's code for flush) into
 *                    the runtime's flush; announces the size of the data
 *                    block of each parallel region and copyprivate
 *   gcc_sharable.cc  which addresses may be sharable
 *   gcc_seed.cc      the atomic load that only seeds a compare-exchange
 *                    loop
 * Written against gcc 12's plug-in headers (gcc-12-plugin-dev).
 */
#ifndef DSM_GCC_PLUGIN_H
#define DSM_GCC_PLUGIN_H

/* gcc's headers need this order; every module includes them from here. */
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "stringpool.h"
#include "basic-block.h"
#include "function.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "gimple-walk.h"
#include "gimple-fold.h"
#include "gimple-ssa.h"
#include "ssa.h"
#include "tree-ssa-operands.h"
#include "tree-into-ssa.h"
#include "tree-dfa.h"
#include "tree-cfg.h"
#include "builtins.h"
#include "internal-fn.h"
#include "diagnostic-core.h"
#include "cgraph.h"
#include "fold-const.h"
#include "stor-layout.h"

namespace dsm_gcc {

/* False only when ptr is the address of an automatic variable of the
 * current function whose address is used by nothing but atomic builtins:
 * such memory is seen by one thread only, so a native atomic is exact even
 * on a sharable stack. */
bool may_be_sharable(tree ptr, function *fun);

/* True for a call of __atomic_load_N whose value only seeds a
 * compare-exchange loop on the same address (gcc's code for an atomic
 * update it has no instruction for, a double += for instance): a stale
 * value costs one more turn of the loop, never a wrong result. */
bool is_cmpxchg_loop_seed(gcall *load);

/* The pass object for the pass manager; name "dsm-atomic". */
opt_pass *make_atomic_pass(gcc::context *ctxt);

} // namespace dsm_gcc

#endif
