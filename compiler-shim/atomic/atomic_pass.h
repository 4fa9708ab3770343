/*
 * atomic_pass.h - internal interface of the dsm-atomic pass plug-in.
 *
 * Layer: compiler-shim (runs inside clang, not in the program).
 *   RewritePass            the module pass: every atomic access whose
 *                          address may be sharable becomes a runtime call
 *   mayBeSharable          the rule deciding which addresses those are
 *   isStaticGuardLoad      the C++ guard byte loads left native
 *   libatomicSuffix        recognises the libatomic calls the pass renames
 *   expandToCmpXchgLoop    turns an atomicrmw the runtime has no entry for
 *                          into a compare-exchange loop
 *   isCmpXchgLoopSeed      recognises a load that only seeds a
 *                          compare-exchange loop
 *   rewriteAtomic          replaces one atomic instruction by a call
 *   rewriteReductions      passes the sizes of reduction variables to the
 *                          runtime where they are known
 */
#ifndef DSM_ATOMIC_PASS_H
#define DSM_ATOMIC_PASS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

namespace dsm_atomic {

struct RewritePass : llvm::PassInfoMixin<RewritePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  // Never skipped (optnone, -opt-bisect-limit): leaving it out would
  // change what the program computes, not how fast.
  static bool isRequired() { return true; }
};

// False only when Ptr provably points into a stack slot of its own function
// whose address never escapes; such memory is seen by one thread only.
bool mayBeSharable(const llvm::Value *Ptr);
// The native acquire load of a C++ static's guard byte, left alone.
bool isStaticGuardLoad(const llvm::Instruction &I);

// For a call to one of libatomic's entry points the pass renames, the part
// of the name after "__atomic_" and the index of the object pointer
// argument; false for any other callee.
bool libatomicSuffix(llvm::StringRef Callee, llvm::StringRef &Suffix,
                     unsigned &PointerArg);

// True when the runtime has no direct entry for this read-modify-write
// (see atomic_rewrite.cpp); such instructions are expanded first.
bool needsCmpXchgLoop(const llvm::AtomicRMWInst &RMW);
void expandToCmpXchgLoop(llvm::AtomicRMWInst &RMW);

// True for a load atomic whose value only seeds a compare-exchange loop on
// the same address (clang's code for an update with no instruction of its
// own, e.g. a double +=): a stale value there costs one more turn of the
// loop, never a wrong result (atomic_seed.cpp).
bool isCmpXchgLoopSeed(const llvm::LoadInst &L);

// Replaces a load atomic, store atomic, atomicrmw or cmpxchg by a call into
// the runtime; a load that isCmpXchgLoopSeed (decided before anything was
// rewritten) becomes a call that may return a recent value instead of the
// current one.  Reports an error through the context and leaves the
// instruction when it cannot be handled (more than 16 bytes).
void rewriteAtomic(llvm::Instruction &I, bool LoopSeed);

// Replaces __kmpc_reduce{,_nowait} calls whose variables' sizes are known
// by the sized entries of atomic_abi.h; true when anything changed.
bool rewriteReductions(llvm::Module &M);

} // namespace dsm_atomic

#endif
