/*
 * gcc_seed.cc - recognises the atomic load that only seeds a
 * compare-exchange loop, which the runtime may answer with a recent value
 * instead of asking the word's home (one network round trip fewer per
 * update from a node that is not the home), as the LLVM pass does
 * (compiler-shim/atomic/atomic_seed.cpp).
 *
 * Layer: compiler-shim (runs inside gcc).  Entry point:
 * is_cmpxchg_loop_seed.
 *
 * gcc 12 writes an atomic update it has no instruction for (a double or
 * float +=, a Fortran max on a real) as, in SSA form:
 *
 *   pre:   seed = __atomic_load_N (P, order);
 *   loop:  cur = PHI <seed (pre), found (loop)>
 *          ... computes new from cur ...
 *          res = .ATOMIC_COMPARE_EXCHANGE (P, cur, new, N, so, fo);
 *          found = REALPART_EXPR <res>;
 *          if (found != cur) goto loop; else goto done;
 *
 * (at -O0 with SSA copies between the pieces).  Whatever seed holds, the
 * loop leaves only when the compare-exchange found exactly cur, so every
 * value computed from a stale seed is thrown away before anyone sees it.
 * That holds when: the seed's one use (through copies) is the phi; the
 * phi's other inputs are what the compare-exchange found; the
 * compare-exchange expects the phi, on the seed's address; the loop block
 * writes no memory but through the compare-exchange and calls nothing
 * else; and it leaves only when found equals cur.  Anything else keeps
 * the exact load.
 */
#include "gcc_plugin.h"


namespace dsm_gcc {

namespace {

/* t without the SSA copies and same-size integer conversions that lead
 * to it. */
tree strip_copies(tree t)
{
    for (int steps = 0; steps < 16 && TREE_CODE(t) == SSA_NAME; steps++) {
        gassign *def = dyn_cast<gassign *>(SSA_NAME_DEF_STMT(t));
        if (!def)
            break;
        tree rhs = gimple_assign_rhs1(def);
        tree_code code = gimple_assign_rhs_code(def);
        bool copy = code == SSA_NAME;
        bool same_size_convert =
            CONVERT_EXPR_CODE_P(code) && TREE_CODE(rhs) == SSA_NAME &&
            INTEGRAL_TYPE_P(TREE_TYPE(t)) &&
            INTEGRAL_TYPE_P(TREE_TYPE(rhs)) &&
            TYPE_PRECISION(TREE_TYPE(t)) == TYPE_PRECISION(TREE_TYPE(rhs));
        if (!copy && !same_size_convert)
            break;
        t = rhs;
    }
    return t;
}

/* The statement that uses name, following single-use copies (and
 * same-size integer conversions); NULL when a name on the way has more
 * than one use. */
gimple *only_user(tree name)
{
    for (int steps = 0; steps < 16; steps++) {
        use_operand_p use;
        gimple *user;
        if (!single_imm_use(name, &use, &user))
            return NULL;
        gassign *copy = dyn_cast<gassign *>(user);
        if (copy && TREE_CODE(gimple_assign_lhs(copy)) == SSA_NAME &&
            strip_copies(gimple_assign_lhs(copy)) == strip_copies(name)) {
            name = gimple_assign_lhs(copy);
            continue;
        }
        return user;
    }
    return NULL;
}

/* Is t (through copies) the REALPART_EXPR of the result of x? */
bool is_found_value(tree t, const gcall *x)
{
    t = strip_copies(t);
    if (TREE_CODE(t) != SSA_NAME)
        return false;
    gassign *def = dyn_cast<gassign *>(SSA_NAME_DEF_STMT(t));
    if (!def || gimple_assign_rhs_code(def) != REALPART_EXPR)
        return false;
    tree part = TREE_OPERAND(gimple_assign_rhs1(def), 0);
    return part == gimple_call_lhs(x);
}

/* The loop block's one compare-exchange, when nothing else there writes
 * memory or has side effects; NULL otherwise. */
gcall *only_visible_write(basic_block loop)
{
    gcall *found = NULL;
    for (gimple_stmt_iterator gsi = gsi_start_bb(loop); !gsi_end_p(gsi);
         gsi_next(&gsi)) {
        gimple *stmt = gsi_stmt(gsi);
        if (is_gimple_debug(stmt) || gimple_code(stmt) == GIMPLE_COND ||
            gimple_code(stmt) == GIMPLE_LABEL)
            continue;
        gcall *call = dyn_cast<gcall *>(stmt);
        if (call && gimple_call_internal_p(call, IFN_ATOMIC_COMPARE_EXCHANGE)) {
            if (found)
                return NULL;
            found = call;
            continue;
        }
        if (call || gimple_vdef(stmt) || gimple_has_side_effects(stmt) ||
            gimple_has_volatile_ops(stmt))
            return NULL;
    }
    return found;
}

} // namespace

bool is_cmpxchg_loop_seed(gcall *load)
{
    tree seed = gimple_call_lhs(load);
    if (!seed || TREE_CODE(seed) != SSA_NAME)
        return false;
    gphi *phi = dyn_cast<gphi *>(only_user(seed));
    if (!phi)
        return false;
    basic_block loop = gimple_bb(phi);
    gcall *x = only_visible_write(loop);
    if (!x || !gimple_call_lhs(x) ||
        strip_copies(gimple_call_arg(x, 1)) != gimple_phi_result(phi) ||
        !operand_equal_p(strip_copies(gimple_call_arg(x, 0)),
                         strip_copies(gimple_call_arg(load, 0)), 0))
        return false;
    /* the phi's inputs: the seed (through copies) and the found value */
    for (unsigned i = 0; i < gimple_phi_num_args(phi); i++) {
        tree arg = gimple_phi_arg_def(phi, i);
        if (strip_copies(arg) != seed && !is_found_value(arg, x))
            return false;
    }
    /* the loop leaves only when the compare-exchange found cur */
    gcond *cond = dyn_cast<gcond *>(last_stmt(loop));
    if (!cond)
        return false;
    tree a = gimple_cond_lhs(cond), b = gimple_cond_rhs(cond);
    tree cur = gimple_phi_result(phi);
    bool compares = (is_found_value(a, x) && strip_copies(b) == cur) ||
                    (is_found_value(b, x) && strip_copies(a) == cur);
    if (!compares)
        return false;
    edge true_edge, false_edge;
    extract_true_false_edges_from_block(loop, &true_edge, &false_edge);
    edge again = gimple_cond_code(cond) == NE_EXPR   ? true_edge
                 : gimple_cond_code(cond) == EQ_EXPR ? false_edge
                                                     : NULL;
    edge out = again == true_edge ? false_edge : true_edge;
    return again && again->dest == loop && out->dest != loop;
}

} // namespace dsm_gcc
