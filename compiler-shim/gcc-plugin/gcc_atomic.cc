/*
 * gcc_atomic.cc - the dsm-atomic GIMPLE pass: every atomic operation whose
 * address may be sharable becomes a call into the runtime, which makes it
 * atomic across the nodes of the job (hardware atomics are atomic within
 * one node only); gcc's flush becomes the runtime's; each parallel region
 * and copyprivate tells the runtime the size of its data block.
 *
 * Layer: compiler-shim (runs inside gcc).  Entry point: make_atomic_pass.
 *
 * Selected (the object argument must pass may_be_sharable):
 *   __atomic_{load,store,exchange,compare_exchange,fetch_OP,OP_fetch}_N,
 *   __atomic_test_and_set, __atomic_clear, the __sync_* builtins, and the
 *   .ATOMIC_COMPARE_EXCHANGE internal function (gcc's compare-exchange
 *   with the expected value in a register; omp expansion writes it even
 *   at -O0).  gcc keeps all of them as calls until RTL expansion.
 * Rewritten, as the LLVM pass does (atomic_abi.h):
 *   N = 1, 2, 4, 8   __dsm_atomic_{load,store,rmw,cmpxchg}_N, values
 *                    zero-extended to 64 bits; a load seeding a
 *                    compare-exchange loop calls load_seed (gcc_seed.cc);
 *                    OP_fetch computes the new value from the old one
 *   N = 16, generic  __dsm_libatomic_*, libatomic's signatures (the weak
 *                    flag of a compare-exchange dropped, as gcc's own
 *                    library call does)
 *   __sync_synchronize (gcc's and gfortran's code for flush)
 *                    __kmpc_flush (NULL): the runtime's flush
 * Reported as errors: the atomic internal functions gcc's "fab" pass
 * makes (bit test-and-set, op-fetch compared with 0; the pass runs before
 * it, so they never reach it) and 16-byte __sync builtins: a construct the
 * runtime cannot make atomic across nodes must not compile silently.
 * Fences and plain loads and stores are left alone: between atomics the
 * program's own synchronisation carries the data through the DSM.
 *
 * GOMP_parallel and its combined forms, and GOMP_single_copy_end, get a
 * call __dsm_gomp_data_size (sizeof block) just before them: the runtime
 * looks in the block for threadprivate addresses (copyin and copyprivate
 * of arrays and common blocks) that other nodes cannot follow
 * (compiler-shim/gomp).
 */
#include "gcc_plugin.h"

#include <initializer_list>
#include <map>
#include <string>


#include "atomic_abi.h"

namespace dsm_gcc {

int atomic_pointer_arg(const gcall *call);

namespace {

/* What an atomic call does. */
enum kind {
    K_NONE,
    K_LOAD,          /* (p, order) -> value */
    K_STORE,         /* (p, value, order) */
    K_RMW,           /* (p, operand, order) -> old */
    K_OP_FETCH,      /* (p, operand, order) -> new */
    K_CMPXCHG_MEM,   /* (p, expected *, desired, weak, so, fo) -> bool */
    K_CMPXCHG_IFN,   /* (p, expected, desired, size|weak<<8, so, fo)
                        -> complex {old, success} */
    K_SYNC_RMW,      /* (p, operand) -> old, seq_cst */
    K_SYNC_OP_FETCH, /* (p, operand) -> new, seq_cst */
    K_SYNC_BOOL_CAS, /* (p, expected, desired) -> bool, seq_cst */
    K_SYNC_VAL_CAS,  /* (p, expected, desired) -> old, seq_cst */
    K_SYNC_LOCK_TAS, /* (p, value) -> old, acquire */
    K_SYNC_LOCK_REL, /* (p): store 0, release */
    K_TEST_AND_SET,  /* (p, order) -> bool, 1 byte */
    K_CLEAR,         /* (p, order): store 0, 1 byte */
    K_GENERIC,       /* __atomic_{load,store,exchange,compare_exchange}
                        (size, p, ...): renamed to the runtime's twin */
    K_UNHANDLED,     /* an atomic internal function the runtime has no
                        entry for */
};

struct atomic_info {
    kind k = K_NONE;
    int size = 0;             /* bytes */
    int op = DSM_RMW_XCHG;    /* for K_RMW, K_OP_FETCH, K_SYNC_* */
    const char *lib = NULL;   /* libatomic's name (without __atomic_) */
};

struct group {
    built_in_function first; /* the _1 form; _2, _4, _8, _16 follow */
    kind k;
    int op;
    const char *lib;
};

const group groups[] = {
    {BUILT_IN_ATOMIC_LOAD_1, K_LOAD, 0, "load"},
    {BUILT_IN_ATOMIC_STORE_1, K_STORE, 0, "store"},
    {BUILT_IN_ATOMIC_EXCHANGE_1, K_RMW, DSM_RMW_XCHG, "exchange"},
    {BUILT_IN_ATOMIC_COMPARE_EXCHANGE_1, K_CMPXCHG_MEM, 0,
     "compare_exchange"},
    {BUILT_IN_ATOMIC_FETCH_ADD_1, K_RMW, DSM_RMW_ADD, "fetch_add"},
    {BUILT_IN_ATOMIC_FETCH_SUB_1, K_RMW, DSM_RMW_SUB, "fetch_sub"},
    {BUILT_IN_ATOMIC_FETCH_AND_1, K_RMW, DSM_RMW_AND, "fetch_and"},
    {BUILT_IN_ATOMIC_FETCH_NAND_1, K_RMW, DSM_RMW_NAND, "fetch_nand"},
    {BUILT_IN_ATOMIC_FETCH_XOR_1, K_RMW, DSM_RMW_XOR, "fetch_xor"},
    {BUILT_IN_ATOMIC_FETCH_OR_1, K_RMW, DSM_RMW_OR, "fetch_or"},
    {BUILT_IN_ATOMIC_ADD_FETCH_1, K_OP_FETCH, DSM_RMW_ADD, "fetch_add"},
    {BUILT_IN_ATOMIC_SUB_FETCH_1, K_OP_FETCH, DSM_RMW_SUB, "fetch_sub"},
    {BUILT_IN_ATOMIC_AND_FETCH_1, K_OP_FETCH, DSM_RMW_AND, "fetch_and"},
    {BUILT_IN_ATOMIC_NAND_FETCH_1, K_OP_FETCH, DSM_RMW_NAND, "fetch_nand"},
    {BUILT_IN_ATOMIC_XOR_FETCH_1, K_OP_FETCH, DSM_RMW_XOR, "fetch_xor"},
    {BUILT_IN_ATOMIC_OR_FETCH_1, K_OP_FETCH, DSM_RMW_OR, "fetch_or"},
    {BUILT_IN_SYNC_FETCH_AND_ADD_1, K_SYNC_RMW, DSM_RMW_ADD, NULL},
    {BUILT_IN_SYNC_FETCH_AND_SUB_1, K_SYNC_RMW, DSM_RMW_SUB, NULL},
    {BUILT_IN_SYNC_FETCH_AND_OR_1, K_SYNC_RMW, DSM_RMW_OR, NULL},
    {BUILT_IN_SYNC_FETCH_AND_AND_1, K_SYNC_RMW, DSM_RMW_AND, NULL},
    {BUILT_IN_SYNC_FETCH_AND_XOR_1, K_SYNC_RMW, DSM_RMW_XOR, NULL},
    {BUILT_IN_SYNC_FETCH_AND_NAND_1, K_SYNC_RMW, DSM_RMW_NAND, NULL},
    {BUILT_IN_SYNC_ADD_AND_FETCH_1, K_SYNC_OP_FETCH, DSM_RMW_ADD, NULL},
    {BUILT_IN_SYNC_SUB_AND_FETCH_1, K_SYNC_OP_FETCH, DSM_RMW_SUB, NULL},
    {BUILT_IN_SYNC_OR_AND_FETCH_1, K_SYNC_OP_FETCH, DSM_RMW_OR, NULL},
    {BUILT_IN_SYNC_AND_AND_FETCH_1, K_SYNC_OP_FETCH, DSM_RMW_AND, NULL},
    {BUILT_IN_SYNC_XOR_AND_FETCH_1, K_SYNC_OP_FETCH, DSM_RMW_XOR, NULL},
    {BUILT_IN_SYNC_NAND_AND_FETCH_1, K_SYNC_OP_FETCH, DSM_RMW_NAND, NULL},
    {BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_1, K_SYNC_BOOL_CAS, 0, NULL},
    {BUILT_IN_SYNC_VAL_COMPARE_AND_SWAP_1, K_SYNC_VAL_CAS, 0, NULL},
    {BUILT_IN_SYNC_LOCK_TEST_AND_SET_1, K_SYNC_LOCK_TAS, DSM_RMW_XCHG, NULL},
    {BUILT_IN_SYNC_LOCK_RELEASE_1, K_SYNC_LOCK_REL, 0, NULL},
};

atomic_info classify(const gcall *call)
{
    atomic_info info;
    if (gimple_call_internal_p(call)) {
        switch (gimple_call_internal_fn(call)) {
        case IFN_ATOMIC_COMPARE_EXCHANGE:
            info.k = K_CMPXCHG_IFN;
            info.size = (int)(tree_to_uhwi(gimple_call_arg(call, 3)) & 255);
            break;
        case IFN_ATOMIC_BIT_TEST_AND_SET:
        case IFN_ATOMIC_BIT_TEST_AND_COMPLEMENT:
        case IFN_ATOMIC_BIT_TEST_AND_RESET:
        case IFN_ATOMIC_ADD_FETCH_CMP_0:
        case IFN_ATOMIC_SUB_FETCH_CMP_0:
        case IFN_ATOMIC_AND_FETCH_CMP_0:
        case IFN_ATOMIC_OR_FETCH_CMP_0:
        case IFN_ATOMIC_XOR_FETCH_CMP_0:
            info.k = K_UNHANDLED;
            break;
        default:
            break;
        }
        return info;
    }
    if (!gimple_call_builtin_p(call, BUILT_IN_NORMAL))
        return info;
    built_in_function code = DECL_FUNCTION_CODE(gimple_call_fndecl(call));
    for (const group &g : groups) {
        int index = (int)code - (int)g.first;
        if (index >= 0 && index <= 4) {
            info.k = g.k;
            info.size = 1 << index;
            info.op = g.op;
            info.lib = g.lib;
            return info;
        }
    }
    switch (code) {
    case BUILT_IN_ATOMIC_TEST_AND_SET:
        info.k = K_TEST_AND_SET;
        info.size = 1;
        break;
    case BUILT_IN_ATOMIC_CLEAR:
        info.k = K_CLEAR;
        info.size = 1;
        break;
    case BUILT_IN_ATOMIC_LOAD:
        info.k = K_GENERIC;
        info.lib = "load";
        break;
    case BUILT_IN_ATOMIC_STORE:
        info.k = K_GENERIC;
        info.lib = "store";
        break;
    case BUILT_IN_ATOMIC_EXCHANGE:
        info.k = K_GENERIC;
        info.lib = "exchange";
        break;
    case BUILT_IN_ATOMIC_COMPARE_EXCHANGE:
        info.k = K_GENERIC;
        info.lib = "compare_exchange";
        break;
    default:
        break;
    }
    return info;
}

/* ---- building the calls --------------------------------------------------- */

/* One declaration per runtime entry, shared by the functions of the
 * translation unit (they are garbage-collected with it). */
std::map<std::string, tree> decls;

tree runtime_decl(const std::string &name, tree fntype)
{
    auto it = decls.find(name);
    if (it != decls.end())
        return it->second;
    tree decl = build_fn_decl(name.c_str(), fntype);
    TREE_NOTHROW(decl) = 1;
    decls[name] = decl;
    return decl;
}

tree unsigned_type(int size)
{
    return build_nonstandard_integer_type((unsigned)size * BITS_PER_UNIT, 1);
}

/* Builds the statements of one rewrite before the call, at its place. */
class builder {
public:
    builder(gimple_stmt_iterator *gsi, gcall *call)
        : gsi(gsi), call(call), loc(gimple_location(call)), seq(NULL) {}

    tree arg(unsigned i) { return gimple_call_arg(call, i); }

    tree convert(tree type, tree v)
    {
        if (useless_type_conversion_p(type, TREE_TYPE(v)))
            return v;
        if (INTEGRAL_TYPE_P(TREE_TYPE(v)) || POINTER_TYPE_P(TREE_TYPE(v)))
            return gimple_convert(&seq, loc, type, v);
        return gimple_build(&seq, loc, VIEW_CONVERT_EXPR, type, v);
    }

    /* A value of size bytes, zero-extended to 64 bits. */
    tree word(tree v, int size)
    {
        return convert(uint64_type_node, convert(unsigned_type(size), v));
    }

    /* A 64-bit result back to the size-byte value of type. */
    tree from_word(tree w, int size, tree type)
    {
        return convert(type, convert(unsigned_type(size), w));
    }

    /* A memory order argument: gcc's memmodel with its flag bits off. */
    tree order(tree o)
    {
        if (TREE_CODE(o) == INTEGER_CST)
            return build_int_cst(integer_type_node, tree_to_shwi(o) & 7);
        return gimple_build(&seq, loc, BIT_AND_EXPR, integer_type_node,
                            convert(integer_type_node, o),
                            build_int_cst(integer_type_node, 7));
    }

    tree order(int o) { return build_int_cst(integer_type_node, o); }

    tree pointer(tree p) { return convert(ptr_type_node, p); }

    tree op(tree_code code, tree type, tree a, tree b)
    {
        return gimple_build(&seq, loc, code, type, a, b);
    }

    tree op(tree_code code, tree type, tree a)
    {
        return gimple_build(&seq, loc, code, type, a);
    }

    /* A call of the runtime entry name returning ret (void_type_node for
     * none); its result, or NULL. */
    tree call_entry(const std::string &name, tree ret,
                    std::initializer_list<tree> list)
    {
        auto_vec<tree, 6> args, types;
        for (tree a : list) {
            args.safe_push(a);
            types.safe_push(TREE_TYPE(a));
        }
        tree fntype = build_function_type_array(ret, types.length(),
                                                types.address());
        tree decl = runtime_decl(name, fntype);
        gcall *c = gimple_build_call_vec(decl, args);
        gimple_set_location(c, loc);
        gimple_call_set_nothrow(c, true);
        tree result = NULL_TREE;
        if (!VOID_TYPE_P(ret)) {
            result = make_ssa_name(ret);
            gimple_call_set_lhs(c, result);
        }
        gimple_seq_add_stmt(&seq, c);
        return result;
    }

    /* A store of v through the pointer p (any alias). */
    void store(tree p, tree v)
    {
        tree ref = build2(MEM_REF, TREE_TYPE(v), p,
                          build_int_cst(build_pointer_type_for_mode(
                                            char_type_node, ptr_mode, true),
                                        0));
        gimple *s = gimple_build_assign(ref, v);
        gimple_set_location(s, loc);
        gimple_seq_add_stmt(&seq, s);
    }

    /* A load of a value of type through p (any alias). */
    tree load(tree p, tree type)
    {
        tree ref = build2(MEM_REF, type, p,
                          build_int_cst(build_pointer_type_for_mode(
                                            char_type_node, ptr_mode, true),
                                        0));
        tree v = make_ssa_name(type);
        gimple *l = gimple_build_assign(v, ref);
        gimple_set_location(l, loc);
        gimple_seq_add_stmt(&seq, l);
        return v;
    }

    /* Put everything built before the call, give the call's result value
     * to its left-hand side (when it has one and value is not NULL), and
     * remove the call. */
    void finish(tree value)
    {
        tree lhs = gimple_call_lhs(call);
        if (lhs && value)
            gimple_seq_add_stmt(&seq, gimple_build_assign(
                                          lhs, convert(TREE_TYPE(lhs), value)));
        gsi_insert_seq_before(gsi, seq, GSI_SAME_STMT);
        unlink_stmt_vdef(call);
        gsi_remove(gsi, true);
    }

    /* Keep the call, with another callee of the same type. */
    void rename(const std::string &name)
    {
        tree old = gimple_call_fndecl(call);
        tree decl = runtime_decl(name, TREE_TYPE(old));
        gimple_call_set_fndecl(call, decl);
        update_stmt(call);
    }

    location_t where() const { return loc; }
    gcall *call_stmt() const { return call; }

private:
    gimple_stmt_iterator *gsi;
    gcall *call;
    location_t loc;
    gimple_seq seq;
};

std::string word_entry(const char *what, int size)
{
    return std::string(DSM_ATOMIC_PREFIX) + what + "_" + std::to_string(size);
}

std::string lib_entry(const char *what, int size)
{
    std::string name = std::string(DSM_LIBATOMIC_PREFIX) + what;
    return size ? name + "_" + std::to_string(size) : name;
}

/* The new value an OP_fetch leaves, from the old one. */
tree apply_op(builder &b, int op, tree type, tree old, tree operand)
{
    switch (op) {
    case DSM_RMW_ADD: return b.op(PLUS_EXPR, type, old, operand);
    case DSM_RMW_SUB: return b.op(MINUS_EXPR, type, old, operand);
    case DSM_RMW_AND: return b.op(BIT_AND_EXPR, type, old, operand);
    case DSM_RMW_OR: return b.op(BIT_IOR_EXPR, type, old, operand);
    case DSM_RMW_XOR: return b.op(BIT_XOR_EXPR, type, old, operand);
    case DSM_RMW_NAND:
        return b.op(BIT_NOT_EXPR, type, b.op(BIT_AND_EXPR, type, old, operand));
    }
    return operand;
}

/* ---- the rewrites ---------------------------------------------------------- */

/* 1, 2, 4 and 8 bytes: the word entries. */
void rewrite_word(builder &b, const atomic_info &info, bool seed)
{
    int n = info.size;
    tree ut = unsigned_type(n);
    tree u64 = uint64_type_node;
    switch (info.k) {
    case K_LOAD: {
        tree w = b.call_entry(word_entry(seed ? "load_seed" : "load", n), u64,
                              {b.pointer(b.arg(0)), b.order(b.arg(1))});
        b.finish(b.from_word(w, n, ut));
        return;
    }
    case K_STORE:
        b.call_entry(word_entry("store", n), void_type_node,
                     {b.pointer(b.arg(0)), b.word(b.arg(1), n),
                      b.order(b.arg(2))});
        b.finish(NULL_TREE);
        return;
    case K_RMW:
    case K_OP_FETCH:
    case K_SYNC_RMW:
    case K_SYNC_OP_FETCH:
    case K_SYNC_LOCK_TAS: {
        bool sync = info.k == K_SYNC_RMW || info.k == K_SYNC_OP_FETCH ||
                    info.k == K_SYNC_LOCK_TAS;
        tree order = info.k == K_SYNC_LOCK_TAS ? b.order(2)
                     : sync                    ? b.order(5)
                                               : b.order(b.arg(2));
        tree operand = b.convert(ut, b.arg(1));
        tree w = b.call_entry(word_entry("rmw", n), u64,
                              {b.pointer(b.arg(0)), b.word(operand, n),
                               build_int_cst(integer_type_node, info.op),
                               order});
        tree old = b.from_word(w, n, ut);
        bool op_fetch = info.k == K_OP_FETCH || info.k == K_SYNC_OP_FETCH;
        b.finish(op_fetch ? apply_op(b, info.op, ut, old, operand) : old);
        return;
    }
    case K_SYNC_LOCK_REL:
        b.call_entry(word_entry("store", n), void_type_node,
                     {b.pointer(b.arg(0)), build_int_cst(u64, 0),
                      b.order(3)});
        b.finish(NULL_TREE);
        return;
    case K_SYNC_BOOL_CAS:
    case K_SYNC_VAL_CAS: {
        tree expected = b.convert(ut, b.arg(1));
        tree w = b.call_entry(word_entry("cmpxchg", n), u64,
                              {b.pointer(b.arg(0)), b.word(expected, n),
                               b.word(b.arg(2), n), b.order(5), b.order(5)});
        tree old = b.from_word(w, n, ut);
        if (info.k == K_SYNC_VAL_CAS)
            b.finish(old);
        else
            b.finish(b.op(EQ_EXPR, boolean_type_node, old, expected));
        return;
    }
    case K_CMPXCHG_MEM: {
        /* libatomic's contract: *expected receives the value found (the
         * same value when the exchange succeeded) */
        tree expected = b.load(b.arg(1), ut);
        tree w = b.call_entry(word_entry("cmpxchg", n), u64,
                              {b.pointer(b.arg(0)), b.word(expected, n),
                               b.word(b.arg(2), n), b.order(b.arg(4)),
                               b.order(b.arg(5))});
        tree old = b.from_word(w, n, ut);
        b.store(b.arg(1), old);
        b.finish(b.op(EQ_EXPR, boolean_type_node, old, expected));
        return;
    }
    case K_CMPXCHG_IFN: {
        tree expected = b.arg(1);
        tree w = b.call_entry(word_entry("cmpxchg", n), u64,
                              {b.pointer(b.arg(0)), b.word(expected, n),
                               b.word(b.arg(2), n), b.order(b.arg(4)),
                               b.order(b.arg(5))});
        tree old = b.from_word(w, n, ut);
        tree ok = b.op(EQ_EXPR, boolean_type_node, old,
                       b.convert(ut, expected));
        /* the internal function's result: complex {old, success} */
        tree lhs = gimple_call_lhs(b.call_stmt());
        if (!lhs) {
            b.finish(NULL_TREE);
            return;
        }
        tree part = TREE_TYPE(TREE_TYPE(lhs));
        b.finish(b.op(COMPLEX_EXPR, TREE_TYPE(lhs), b.convert(part, old),
                      b.convert(part, ok)));
        return;
    }
    case K_TEST_AND_SET: {
        tree w = b.call_entry(word_entry("rmw", 1), u64,
                              {b.pointer(b.arg(0)), build_int_cst(u64, 1),
                               build_int_cst(integer_type_node, DSM_RMW_XCHG),
                               b.order(b.arg(1))});
        b.finish(b.op(NE_EXPR, boolean_type_node, w,
                      build_int_cst(u64, 0)));
        return;
    }
    case K_CLEAR:
        b.call_entry(word_entry("store", 1), void_type_node,
                     {b.pointer(b.arg(0)), build_int_cst(u64, 0),
                      b.order(b.arg(1))});
        b.finish(NULL_TREE);
        return;
    default:
        return;
    }
}

/* 16 bytes and the generic forms: libatomic's twins.  False for what they
 * cannot do. */
bool rewrite_libatomic(builder &b, const atomic_info &info)
{
    switch (info.k) {
    case K_GENERIC:
        b.rename(lib_entry(info.lib, 0));
        return true;
    case K_LOAD:
    case K_STORE:
    case K_RMW:
        b.rename(lib_entry(info.lib, info.size));
        return true;
    case K_OP_FETCH: {
        tree ut = unsigned_type(info.size);
        tree operand = b.convert(ut, b.arg(1));
        tree old = b.call_entry(lib_entry(info.lib, info.size), ut,
                                {b.pointer(b.arg(0)), operand,
                                 b.order(b.arg(2))});
        b.finish(apply_op(b, info.op, ut, old, operand));
        return true;
    }
    case K_CMPXCHG_MEM: {
        tree ut = unsigned_type(info.size);
        tree ok = b.call_entry(lib_entry(info.lib, info.size),
                               boolean_type_node,
                               {b.pointer(b.arg(0)), b.pointer(b.arg(1)),
                                b.convert(ut, b.arg(2)), b.order(b.arg(4)),
                                b.order(b.arg(5))});
        b.finish(ok);
        return true;
    }
    default:
        return false;
    }
}

/* ---- GOMP calls: the size of the data block -------------------------------- */

/* The data block argument of a GOMP call that hands one to other threads,
 * or NULL. */
tree gomp_data_arg(const gcall *call)
{
    if (!gimple_call_builtin_p(call, BUILT_IN_NORMAL))
        return NULL_TREE;
    switch (DECL_FUNCTION_CODE(gimple_call_fndecl(call))) {
    case BUILT_IN_GOMP_PARALLEL:
    case BUILT_IN_GOMP_PARALLEL_SECTIONS:
    case BUILT_IN_GOMP_PARALLEL_LOOP_STATIC:
    case BUILT_IN_GOMP_PARALLEL_LOOP_DYNAMIC:
    case BUILT_IN_GOMP_PARALLEL_LOOP_GUIDED:
    case BUILT_IN_GOMP_PARALLEL_LOOP_RUNTIME:
    case BUILT_IN_GOMP_PARALLEL_LOOP_NONMONOTONIC_DYNAMIC:
    case BUILT_IN_GOMP_PARALLEL_LOOP_NONMONOTONIC_GUIDED:
    case BUILT_IN_GOMP_PARALLEL_LOOP_NONMONOTONIC_RUNTIME:
    case BUILT_IN_GOMP_PARALLEL_LOOP_MAYBE_NONMONOTONIC_RUNTIME:
        return gimple_call_arg(call, 1);
    case BUILT_IN_GOMP_SINGLE_COPY_END:
        return gimple_call_arg(call, 0);
    default:
        return NULL_TREE;
    }
}

const char data_size_entry[] = "__dsm_gomp_data_size";

bool announces_size(gimple *stmt)
{
    gcall *call = stmt ? dyn_cast<gcall *>(stmt) : NULL;
    tree decl = call ? gimple_call_fndecl(call) : NULL_TREE;
    return decl && DECL_NAME(decl) &&
           strcmp(IDENTIFIER_POINTER(DECL_NAME(decl)), data_size_entry) == 0;
}

/* Inserts __dsm_gomp_data_size (sizeof block) before the call; true when
 * it did. */
bool announce_data_size(gimple_stmt_iterator *gsi, gcall *call)
{
    tree data = gomp_data_arg(call);
    if (!data || TREE_CODE(data) != ADDR_EXPR)
        return false;
    tree size = TYPE_SIZE_UNIT(TREE_TYPE(TREE_OPERAND(data, 0)));
    if (!size || TREE_CODE(size) != INTEGER_CST)
        return false;
    gimple_stmt_iterator prev = *gsi;
    gsi_prev(&prev);
    if (!gsi_end_p(prev) && announces_size(gsi_stmt(prev)))
        return false;        /* the pass's earlier instance did */
    tree fntype = build_function_type_list(void_type_node, size_type_node,
                                           NULL_TREE);
    gcall *c = gimple_build_call(runtime_decl(data_size_entry, fntype), 1,
                                 fold_convert(size_type_node, size));
    gimple_set_location(c, gimple_location(call));
    gimple_call_set_nothrow(c, true);
    gsi_insert_before(gsi, c, GSI_SAME_STMT);
    return true;
}

/* __sync_synchronize: the runtime's flush. */
bool is_flush(const gcall *call)
{
    return gimple_call_builtin_p(call, BUILT_IN_SYNC_SYNCHRONIZE);
}

void rewrite_flush(gimple_stmt_iterator *gsi, gcall *call)
{
    builder b(gsi, call);
    b.call_entry("__kmpc_flush", void_type_node, {null_pointer_node});
    b.finish(NULL_TREE);
}

/* ---- the pass ------------------------------------------------------------- */

const pass_data atomic_pass_data = {
    GIMPLE_PASS,
    "dsm-atomic",          /* name */
    OPTGROUP_NONE,
    TV_NONE,
    PROP_cfg | PROP_ssa,   /* properties_required */
    0, 0, 0,
    0,                     /* todo_flags_finish: decided by execute */
};

struct selected {
    gcall *call;
    atomic_info info;
    bool seed;
};

class atomic_pass : public gimple_opt_pass {
public:
    atomic_pass(gcc::context *ctxt) : gimple_opt_pass(atomic_pass_data, ctxt)
    {
    }
    opt_pass *clone() final override { return new atomic_pass(m_ctxt); }
    bool gate(function *) final override { return true; }
    unsigned int execute(function *fun) final override;
};

unsigned int atomic_pass::execute(function *fun)
{
    /* Select everything first: the rewrites add address uses that would
     * look like escapes, and change the loops the seed test reads. */
    auto_vec<selected> atomics;
    auto_vec<gcall *> gomp_calls, flushes;
    basic_block bb;
    FOR_EACH_BB_FN(bb, fun) {
        for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
             gsi_next(&gsi)) {
            gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
            if (!call)
                continue;
            if (gomp_data_arg(call)) {
                gomp_calls.safe_push(call);
                continue;
            }
            if (is_flush(call)) {
                flushes.safe_push(call);
                continue;
            }
            atomic_info info = classify(call);
            if (info.k == K_NONE)
                continue;
            if (info.k == K_UNHANDLED) {
                error_at(gimple_location(call),
                         "dsm-atomic: an atomic operation gcc folded into "
                         "%qs, which the runtime cannot make atomic across "
                         "nodes",
                         internal_fn_name(gimple_call_internal_fn(call)));
                continue;
            }
            tree ptr = gimple_call_arg(call, atomic_pointer_arg(call));
            if (!POINTER_TYPE_P(TREE_TYPE(ptr)) || !may_be_sharable(ptr, fun))
                continue;
            atomics.safe_push({call, info, false});
        }
    }
    for (selected &s : atomics)
        s.seed = s.info.k == K_LOAD && s.info.size <= 8 &&
                 is_cmpxchg_loop_seed(s.call);

    bool changed = false;
    for (selected &s : atomics) {
        gimple_stmt_iterator gsi = gsi_for_stmt(s.call);
        builder b(&gsi, s.call);
        if (s.info.k != K_GENERIC && s.info.size <= 8) {
            rewrite_word(b, s.info, s.seed);
            changed = true;
        } else if (rewrite_libatomic(b, s.info)) {
            changed = true;
        } else {
            error_at(b.where(), "dsm-atomic: a 16-byte %<__sync%> builtin on "
                                "possibly sharable memory; use the "
                                "%<__atomic%> builtins");
        }
    }
    for (gcall *call : flushes) {
        gimple_stmt_iterator gsi = gsi_for_stmt(call);
        rewrite_flush(&gsi, call);
        changed = true;
    }
    for (gcall *call : gomp_calls) {
        gimple_stmt_iterator gsi = gsi_for_stmt(call);
        changed |= announce_data_size(&gsi, call);
    }
    if (!changed)
        return 0;
    cgraph_edge::rebuild_edges();
    mark_virtual_operands_for_renaming(fun);
    return TODO_update_ssa_only_virtuals;
}

} // namespace

/* Index of the object pointer of an atomic call; -1 for other calls. */
int atomic_pointer_arg(const gcall *call)
{
    atomic_info info = classify(call);
    if (info.k == K_NONE)
        return -1;
    return info.k == K_GENERIC ? 1 : 0;
}

} // namespace dsm_gcc

namespace dsm_gcc {

opt_pass *make_atomic_pass(gcc::context *ctxt) { return new atomic_pass(ctxt); }

} // namespace dsm_gcc
