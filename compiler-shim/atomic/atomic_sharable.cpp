/*
 * atomic_sharable.cpp - which atomic accesses the pass must route through
 * the runtime.
 *
 * Layer: compiler-shim (runs inside clang).  Entry points: mayBeSharable,
 * isStaticGuardLoad.
 *
 * The rule: an address stays native only when every object it can be
 * based on is an alloca of the function itself whose address is never
 * captured (not stored, not passed to a call, not returned).  Such a slot
 * is touched by one thread, so a hardware atomic on it is exact even when
 * the stack itself is sharable (node 0 runs main on a sharable stack).
 * Everything else - globals, arguments, loaded pointers, heap memory,
 * thread-locals, escaping locals - may be sharable; the runtime entry
 * decides at run time with dsm_is_sharable and takes the native path when
 * it is not.
 */
#include "atomic_pass.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/GlobalVariable.h"

using namespace llvm;

namespace dsm_atomic {

// Enough steps for the GEP and cast chains clang emits; a longer chain
// ends in a value that is not an alloca, which is the safe answer.
static constexpr unsigned UnderlyingObjectSteps = 16;

bool mayBeSharable(const Value *Ptr) {
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(Ptr, Objects, nullptr, UnderlyingObjectSteps);
  if (Objects.empty())
    return true;
  for (const Value *Object : Objects) {
    if (!isa<AllocaInst>(Object))
      return true;
    if (PointerMayBeCaptured(Object, /*ReturnCaptures=*/true,
                             /*StoreCaptures=*/true))
      return true;
  }
  return false;
}

// The acquire load of the first byte of a C++ guard variable (_ZGV...)
// that clang emits before calling __cxa_guard_acquire for a function-local
// static.  It stays native: during a job of several nodes the runtime's
// guard functions (compiler-shim/cxx/shim_cxx_guard.c) never set that
// byte, so on every node the load only decides whether to call them, and
// they are exact across nodes.  Made exact it would cost a round trip and
// an acquire at every pass over the declaration.
bool isStaticGuardLoad(const Instruction &I) {
  const auto *L = dyn_cast<LoadInst>(&I);
  if (!L || !L->isAtomic())
    return false;
  const auto *G = dyn_cast<GlobalVariable>(
      getUnderlyingObject(L->getPointerOperand()));
  return G && G->getName().startswith("_ZGV");
}

} // namespace dsm_atomic
