/*
 * gcc_sharable.cc - which atomic accesses the pass must route through the
 * runtime.
 *
 * Layer: compiler-shim (runs inside gcc).  Entry point: may_be_sharable.
 *
 * The rule, as the LLVM pass's: an address stays native only when it is
 * the address of an automatic variable of the function itself (or a part
 * of one) and that address is used by nothing but atomic operations - not
 * stored, not passed to another call, not returned.  Such a variable is
 * touched by one thread, so a hardware atomic on it is exact even when the
 * stack itself is sharable (node 0 runs main on a sharable stack, every
 * team thread on one of its node).  Everything else - globals, pointer
 * arguments, loaded pointers, heap memory, thread-locals, escaping locals
 * - may be sharable; the runtime entry decides at run time with
 * dsm_is_sharable and takes the native path when it is not.
 */
#include "gcc_plugin.h"


namespace dsm_gcc {

int atomic_pointer_arg(const gcall *call);

namespace {

struct walk_state {
    tree var;
    bool escapes;
};

/* Any ADDR_EXPR whose base is the variable. */
tree find_address(tree *tp, int *walk_subtrees, void *data)
{
    walk_stmt_info *wi = static_cast<walk_stmt_info *>(data);
    walk_state *s = static_cast<walk_state *>(wi->info);
    if (TREE_CODE(*tp) == ADDR_EXPR) {
        tree base = get_base_address(TREE_OPERAND(*tp, 0));
        if (base == s->var) {
            s->escapes = true;
            return *tp;
        }
    }
    if (TYPE_P(*tp))
        *walk_subtrees = 0;
    return NULL_TREE;
}

/* Does the variable's address appear anywhere but as the object of an
 * atomic builtin call? */
bool address_escapes(tree var, function *fun)
{
    walk_state s = {var, false};
    basic_block bb;
    FOR_EACH_BB_FN(bb, fun) {
        for (gphi_iterator pi = gsi_start_phis(bb); !gsi_end_p(pi);
             gsi_next(&pi)) {
            gphi *phi = pi.phi();
            for (unsigned i = 0; i < gimple_phi_num_args(phi); i++) {
                tree arg = gimple_phi_arg_def(phi, i);
                if (TREE_CODE(arg) == ADDR_EXPR &&
                    get_base_address(TREE_OPERAND(arg, 0)) == var)
                    return true;
            }
        }
        for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
             gsi_next(&gsi)) {
            gimple *stmt = gsi_stmt(gsi);
            gcall *call = dyn_cast<gcall *>(stmt);
            int skip = call ? atomic_pointer_arg(call) : -1;
            if (skip >= 0) {
                /* every operand but the object */
                for (unsigned i = 0; i < gimple_call_num_args(call); i++) {
                    if ((int)i == skip)
                        continue;
                    tree arg = gimple_call_arg(call, i);
                    if (TREE_CODE(arg) == ADDR_EXPR &&
                        get_base_address(TREE_OPERAND(arg, 0)) == var)
                        return true;
                }
                continue;
            }
            walk_stmt_info wi;
            memset(&wi, 0, sizeof wi);
            wi.info = &s;
            walk_gimple_op(stmt, find_address, &wi);
            if (s.escapes)
                return true;
        }
    }
    return false;
}

/* The address ptr is computed from: follows SSA copies and constant
 * offsets back to an ADDR_EXPR; NULL when it is anything else. */
tree address_origin(tree ptr)
{
    for (int steps = 0; steps < 16; steps++) {
        if (TREE_CODE(ptr) == ADDR_EXPR)
            return ptr;
        if (TREE_CODE(ptr) != SSA_NAME || SSA_NAME_IS_DEFAULT_DEF(ptr))
            return NULL_TREE;
        gassign *def = dyn_cast<gassign *>(SSA_NAME_DEF_STMT(ptr));
        if (!def)
            return NULL_TREE;
        tree_code code = gimple_assign_rhs_code(def);
        if (code == POINTER_PLUS_EXPR ||
            (gimple_assign_single_p(def) &&
             (TREE_CODE(gimple_assign_rhs1(def)) == SSA_NAME ||
              TREE_CODE(gimple_assign_rhs1(def)) == ADDR_EXPR)) ||
            CONVERT_EXPR_CODE_P(code))
            ptr = gimple_assign_rhs1(def);
        else
            return NULL_TREE;
    }
    return NULL_TREE;
}

} // namespace

bool may_be_sharable(tree ptr, function *fun)
{
    tree addr = address_origin(ptr);
    if (!addr)
        return true;
    tree var = get_base_address(TREE_OPERAND(addr, 0));
    if (!var || !VAR_P(var) || !auto_var_in_fn_p(var, fun->decl))
        return true;
    return address_escapes(var, fun);
}

} // namespace dsm_gcc
