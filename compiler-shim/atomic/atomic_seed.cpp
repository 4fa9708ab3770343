/*
 * atomic_seed.cpp - recognises the load atomic that only seeds a
 * compare-exchange loop, which the runtime may answer with a recent value
 * instead of asking the word's home (one network round trip fewer per
 * update from a node that is not the home).
 *
 * Layer: compiler-shim (runs inside clang).  Entry point: isCmpXchgLoopSeed.
 *
 * clang 14 writes an atomic update it has no instruction for (float and
 * double arithmetic, short and char operations computed in int) as
 *
 *   entry:  %seed = load atomic iN, P
 *   loop:   %old = phi [%seed, entry], [%found, loop]
 *           ... computes %new from %old (at -O0 through a stack slot) ...
 *           %pair = cmpxchg P, %old, %new
 *           %found = extractvalue %pair, 0
 *           br (extractvalue %pair, 1), done, loop
 *
 * Whatever %seed holds, the loop leaves only when the compare-exchange
 * found exactly %old, so everything computed from a stale seed is thrown
 * away before anyone sees it.  That holds when: the seed's one use is the
 * phi; the phi's other inputs are what the compare-exchange found; the
 * compare-exchange expects the phi, on the seed's address; the loop block
 * writes nothing but that word and stack slots no one else can see; and it
 * leaves only on success.  Anything else keeps the exact load.
 */
#include "atomic_pass.h"

using namespace llvm;

namespace dsm_atomic {

namespace {

// The extractvalue of Index from the result of X, or null.
bool isFieldOf(const Value *V, const AtomicCmpXchgInst *X, unsigned Index) {
  auto *E = dyn_cast<ExtractValueInst>(V);
  return E && E->getAggregateOperand() == X && E->getNumIndices() == 1 &&
         E->getIndices()[0] == Index;
}

// The loop's one compare-exchange, when nothing else in Block writes
// memory another thread could see; null otherwise.
const AtomicCmpXchgInst *onlyVisibleWrite(const BasicBlock &Block) {
  const AtomicCmpXchgInst *X = nullptr;
  for (const Instruction &I : Block) {
    if (auto *C = dyn_cast<AtomicCmpXchgInst>(&I)) {
      if (X)
        return nullptr;
      X = C;
      continue;
    }
    if (auto *S = dyn_cast<StoreInst>(&I)) {
      if (S->isAtomic() || S->isVolatile() ||
          mayBeSharable(S->getPointerOperand()))
        return nullptr;
      continue;
    }
    if (I.mayHaveSideEffects())
      return nullptr;
  }
  return X;
}

} // namespace

bool isCmpXchgLoopSeed(const LoadInst &L) {
  if (!L.isAtomic() || L.isVolatile() || !L.hasOneUse())
    return false;
  auto *Phi = dyn_cast<PHINode>(L.user_back());
  if (!Phi)
    return false;
  const BasicBlock *Loop = Phi->getParent();
  const AtomicCmpXchgInst *X = onlyVisibleWrite(*Loop);
  if (!X || X->isVolatile() || X->getCompareOperand() != Phi ||
      X->getPointerOperand()->stripPointerCasts() !=
          L.getPointerOperand()->stripPointerCasts())
    return false;
  for (const Value *In : Phi->incoming_values())
    if (In != &L && !isFieldOf(In, X, 0))
      return false;
  auto *Br = dyn_cast<BranchInst>(Loop->getTerminator());
  return Br && Br->isConditional() && isFieldOf(Br->getCondition(), X, 1) &&
         Br->getSuccessor(1) == Loop && Br->getSuccessor(0) != Loop;
}

} // namespace dsm_atomic
