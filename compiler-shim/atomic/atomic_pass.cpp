/*
 * atomic_pass.cpp - the dsm-atomic module pass: finds every atomic access
 * whose address may be sharable and sends it to the runtime, which makes it
 * atomic across the nodes of the job (hardware atomics are atomic within
 * one node only).
 *
 * Layer: compiler-shim (runs inside clang).  Entry point: RewritePass::run.
 *
 * Selected: load atomic, store atomic, atomicrmw and cmpxchg, and calls to
 * libatomic, whose address is in address space 0, whose sync scope is not
 * "singlethread" (that orders against this thread's signal handlers only)
 * and which mayBeSharable does not rule out, except the guard byte loads
 * of C++ function-local statics (isStaticGuardLoad).  The selection is made for
 * the whole module before anything changes, because the runtime calls the
 * rewrite inserts take addresses and would look like captures.  Fences and
 * plain loads and stores are left alone: between atomics the program's own
 * synchronisation (barrier, lock) carries the data through the DSM.
 * Reductions whose variables' sizes are known get them passed to the
 * runtime (atomic_reduce.cpp).
 */
#include "atomic_abi.h"
#include "atomic_pass.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/InstIterator.h"

using namespace llvm;

namespace dsm_atomic {

namespace {

// The address an atomic instruction works on, or null for any other
// instruction (plain loads and stores included).
Value *atomicAddress(Instruction &I, SyncScope::ID &Scope) {
  if (auto *L = dyn_cast<LoadInst>(&I)) {
    if (!L->isAtomic())
      return nullptr;
    Scope = L->getSyncScopeID();
    return L->getPointerOperand();
  }
  if (auto *S = dyn_cast<StoreInst>(&I)) {
    if (!S->isAtomic())
      return nullptr;
    Scope = S->getSyncScopeID();
    return S->getPointerOperand();
  }
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
    Scope = RMW->getSyncScopeID();
    return RMW->getPointerOperand();
  }
  if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I)) {
    Scope = X->getSyncScopeID();
    return X->getPointerOperand();
  }
  return nullptr;
}

bool selectedAddress(const Value *Ptr) {
  return Ptr->getType()->getPointerAddressSpace() == 0 && mayBeSharable(Ptr);
}

bool selectedAtomic(Instruction &I) {
  SyncScope::ID Scope = SyncScope::System;
  Value *Ptr = atomicAddress(I, Scope);
  return Ptr && Scope != SyncScope::SingleThread && selectedAddress(Ptr) &&
         !isStaticGuardLoad(I);
}

// The libatomic entry point a call reaches, when its object may be
// sharable; null otherwise.
Function *selectedLibatomicCallee(CallBase &Call, StringRef &Suffix) {
  Function *Callee = Call.getCalledFunction();
  unsigned PointerArg = 0;
  if (!Callee || !Callee->isDeclaration() ||
      !libatomicSuffix(Callee->getName(), Suffix, PointerArg) ||
      Call.arg_size() <= PointerArg)
    return nullptr;
  Value *Ptr = Call.getArgOperand(PointerArg);
  if (!Ptr->getType()->isPointerTy() || !selectedAddress(Ptr))
    return nullptr;
  return Callee;
}

} // namespace

PreservedAnalyses RewritePass::run(Module &M, ModuleAnalysisManager &) {
  bool Reductions = rewriteReductions(M);

  // Read-modify-writes the runtime has no entry for become cmpxchg loops
  // first; the scan below then finds their cmpxchg like any other.
  SmallVector<AtomicRMWInst *, 8> Expand;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
        if (selectedAtomic(I) && needsCmpXchgLoop(*RMW))
          Expand.push_back(RMW);
  for (AtomicRMWInst *RMW : Expand)
    expandToCmpXchgLoop(*RMW);

  SmallVector<Instruction *, 32> Atomics;
  SmallVector<std::pair<CallBase *, std::string>, 8> Libcalls;
  for (Function &F : M) {
    for (Instruction &I : instructions(F)) {
      if (selectedAtomic(I)) {
        Atomics.push_back(&I);
        continue;
      }
      StringRef Suffix;
      if (auto *Call = dyn_cast<CallBase>(&I))
        if (selectedLibatomicCallee(*Call, Suffix))
          Libcalls.emplace_back(Call, Suffix.str());
    }
  }

  // Decided for all before any rewrite changes the loops.
  SmallVector<bool, 32> Seeds;
  for (Instruction *I : Atomics) {
    auto *L = dyn_cast<LoadInst>(I);
    Seeds.push_back(L && isCmpXchgLoopSeed(*L));
  }
  for (size_t K = 0; K < Atomics.size(); ++K)
    rewriteAtomic(*Atomics[K], Seeds[K]);

  // The runtime's twins keep libatomic's signatures: only the callee
  // changes, with the call's own argument attributes.
  for (auto &Entry : Libcalls) {
    CallBase *Call = Entry.first;
    Function *Old = Call->getCalledFunction();
    FunctionCallee New = M.getOrInsertFunction(
        DSM_LIBATOMIC_PREFIX + Entry.second, Old->getFunctionType(),
        Old->getAttributes());
    Call->setCalledFunction(New);
    if (Old->use_empty())
      Old->eraseFromParent();
  }

  bool Changed = Reductions || !Expand.empty() || !Atomics.empty() || !Libcalls.empty();
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace dsm_atomic
