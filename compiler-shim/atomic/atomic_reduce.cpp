/*
 * atomic_reduce.cpp - tells the runtime the sizes of a reduction's
 * variables, which libomp's ABI does not pass: with them, the other nodes
 * can send their partial results to node 0 in one message instead of
 * combining into the shared variable under a cluster lock.
 *
 * Layer: compiler-shim (runs inside clang).  Entry point:
 * rewriteReductions, called by RewritePass::run.
 *
 * clang stores a pointer to each private copy into the reduction list (an
 * alloca of num_vars pointers) and passes the list to __kmpc_reduce or
 * __kmpc_reduce_nowait.  When every element of the list is a pointer to a
 * fixed-size alloca, the call is replaced by __dsm_reduce{,_nowait}_sized
 * with a constant array of those sizes appended (atomic_abi.h).  Anything
 * else - array sections and VLAs (whose lists carry extra size entries or
 * whose copies have run-time sizes), a list the pass cannot follow - keeps
 * the original call, which the runtime serves by the locked path.
 *
 * The bytes of a private copy are all node 0 receives, so the combining
 * function must find everything in them: a C++ user-defined reduction
 * over a std::vector (or any combiner that follows a pointer stored in a
 * copy, or calls a function the pass cannot see into) would read, on node
 * 0, memory the other node has not released yet and may free as soon as
 * the reduction returns.  Such reductions keep the locked path, where each
 * node combines its own copy into the shared variable under a cluster
 * lock (combinesInPlace).
 */
#include "atomic_abi.h"
#include "atomic_pass.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace dsm_atomic {

namespace {

constexpr unsigned ListArg = 4;     // reduce_data
constexpr unsigned SizeArg = 3;     // reduce_size: bytes of the list
constexpr unsigned NumVarsArg = 2;  // num_vars

// The name of the sized entry replacing a call to Name, or null.
const char *sizedEntry(StringRef Name) {
  if (Name == "__kmpc_reduce")
    return DSM_REDUCE_SIZED;
  if (Name == "__kmpc_reduce_nowait")
    return DSM_REDUCE_NOWAIT_SIZED;
  return nullptr;
}

// Bytes of the fixed-size alloca V is (a cast of); 0 for anything else.
uint64_t allocaBytes(const Value *V, const DataLayout &DL) {
  const auto *A = dyn_cast<AllocaInst>(V->stripPointerCasts());
  if (!A)
    return 0;
  Optional<TypeSize> Bits = A->getAllocationSizeInBits(DL);
  if (!Bits || Bits->isScalable())
    return 0;
  return Bits->getFixedSize() / 8;
}

// The sizes of the objects the reduction list of Call points to, one per
// variable; false when the list cannot be followed.
bool listSizes(CallInst &Call, unsigned NumVars,
               SmallVectorImpl<uint64_t> &Sizes) {
  const DataLayout &DL = Call.getModule()->getDataLayout();
  auto *List = dyn_cast<AllocaInst>(
      Call.getArgOperand(ListArg)->stripPointerCasts());
  if (!List)
    return false;
  Sizes.assign(NumVars, 0);
  SmallVector<std::pair<Value *, int64_t>, 8> Work;
  Work.push_back({List, 0});
  while (!Work.empty()) {
    Value *V = Work.back().first;
    int64_t Off = Work.back().second;
    Work.pop_back();
    for (User *U : V->users()) {
      if (isa<BitCastInst>(U)) {
        Work.push_back({U, Off});
      } else if (auto *G = dyn_cast<GetElementPtrInst>(U)) {
        APInt Delta(DL.getIndexTypeSizeInBits(G->getType()), 0);
        if (!G->accumulateConstantOffset(DL, Delta))
          return false;
        Work.push_back({G, Off + Delta.getSExtValue()});
      } else if (auto *S = dyn_cast<StoreInst>(U)) {
        // the list's own address stored somewhere: it escapes
        if (S->getPointerOperand() != V || Off < 0 || Off % 8 ||
            uint64_t(Off / 8) >= NumVars)
          return false;
        uint64_t Bytes = allocaBytes(S->getValueOperand(), DL);
        uint64_t &Slot = Sizes[Off / 8];
        if (!Bytes || (Slot && Slot != Bytes))
          return false;
        Slot = Bytes;
      } else if (auto *II = dyn_cast<IntrinsicInst>(U)) {
        if (!II->isLifetimeStartOrEnd())
          return false;
      } else if (auto *C = dyn_cast<CallInst>(U)) {
        Function *F = C->getCalledFunction();
        if (!F || !sizedEntry(F->getName()))
          return false;
      } else if (!isa<LoadInst>(U)) {
        return false;
      }
    }
  }
  for (uint64_t S : Sizes)
    if (!S)
      return false;
  return true;
}

constexpr unsigned CombineArg = 5;  // reduce_func(lhs list, rhs list)
constexpr unsigned UnderlyingSteps = 32;

// P holds for every object V may be based on (through casts, GEPs, phis
// and selects).
template <typename Pred> bool allBasedOn(const Value *V, Pred P) {
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(V, Objects, nullptr, UnderlyingSteps);
  if (Objects.empty())
    return false;
  for (const Value *O : Objects)
    if (!P(O))
      return false;
  return true;
}

// A stack slot whose stores all store an argument (-O0 spills them).
bool argumentSlot(const Value *V) {
  const auto *A = dyn_cast<AllocaInst>(V);
  if (!A)
    return false;
  for (const User *U : A->users())
    if (const auto *S = dyn_cast<StoreInst>(U))
      if (S->getPointerOperand() != A || !isa<Argument>(S->getValueOperand()))
        return false;
  return true;
}

// V is one of the combiner's two lists (an argument, or reloaded from
// its spill slot).
bool isList(const Value *V) {
  return allBasedOn(V, [](const Value *O) {
    if (isa<Argument>(O))
      return true;
    const auto *L = dyn_cast<LoadInst>(O);
    return L && allBasedOn(L->getPointerOperand(), argumentSlot);
  });
}

// Addr points into a private copy: it is based on a pointer loaded from
// one of the lists.
bool inPrivateCopy(const Value *Addr) {
  return allBasedOn(Addr, [](const Value *O) {
    const auto *Entry = dyn_cast<LoadInst>(O);
    return Entry && isList(Entry->getPointerOperand());
  });
}

// An address the combiner may touch: its own stack slots, the lists, the
// private copies.
bool combinerAddress(const Value *Ptr) {
  return allBasedOn(Ptr, [](const Value *O) { return isa<AllocaInst>(O); }) ||
         isList(Ptr) || inPrivateCopy(Ptr);
}

// A report of an UndefinedBehaviorSanitizer check (-fsanitize=undefined
// puts one after the overflow test of a signed `+`): the runtime reads its
// static data (a global clang emits) and the values it is given, nothing
// they do not point to.  Without this, a sanitizer build would send every
// integer reduction down the locked path, which the program never takes
// otherwise.
bool sanitizerReport(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  if (!F || !F->getName().startswith("__ubsan_handle_"))
    return false;
  for (const Value *Arg : CB.args())
    if (Arg->getType()->isPointerTy() &&
        !allBasedOn(Arg, [](const Value *O) {
          return isa<GlobalVariable>(O);
        }) &&
        !combinerAddress(Arg))
      return false;
  return true;
}

// Every memory access of the combiner is to the lists or into the copies
// they point to, and it calls nothing that could reach further.
bool combinesInPlace(const Value *Combine) {
  const auto *F = dyn_cast<Function>(Combine->stripPointerCasts());
  if (!F || F->isDeclaration())
    return false;
  for (const Instruction &I : instructions(*F)) {
    if (const auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      if (!combinerAddress(MI->getRawDest()))
        return false;
      if (const auto *MT = dyn_cast<MemTransferInst>(MI))
        if (!combinerAddress(MT->getRawSource()))
          return false;
      continue;
    }
    if (const auto *CB = dyn_cast<CallBase>(&I)) {
      if (sanitizerReport(*CB))
        continue;
      const auto *II = dyn_cast<IntrinsicInst>(CB);
      // markers (lifetime, debug, alias scopes) touch nothing of ours
      if (!II || (II->mayReadOrWriteMemory() &&
                  !II->isLifetimeStartOrEnd() &&
                  !isa<DbgInfoIntrinsic>(II) &&
                  !II->onlyAccessesInaccessibleMemory()))
        return false;
      continue;
    }
    const Value *Ptr = getLoadStorePointerOperand(&I);
    if (!Ptr) {
      if (I.mayReadOrWriteMemory())
        return false;       // atomics, fences
      continue;
    }
    if (!combinerAddress(Ptr))
      return false;
  }
  return true;
}

void rewriteOne(CallInst &Call, const char *Entry,
                ArrayRef<uint64_t> Sizes) {
  Module &M = *Call.getModule();
  LLVMContext &Ctx = M.getContext();
  Type *I64 = Type::getInt64Ty(Ctx);
  auto *ArrayTy = ArrayType::get(I64, Sizes.size());
  auto *Table = new GlobalVariable(
      M, ArrayTy, /*isConstant=*/true, GlobalValue::PrivateLinkage,
      ConstantDataArray::get(Ctx, Sizes), ".dsm.reduce.sizes");
  Table->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);

  FunctionType *OldTy = Call.getFunctionType();
  SmallVector<Type *, 8> Params(OldTy->param_begin(), OldTy->param_end());
  Params.push_back(PointerType::getUnqual(I64));
  FunctionCallee Sized = M.getOrInsertFunction(
      Entry, FunctionType::get(OldTy->getReturnType(), Params, false));

  IRBuilder<> B(&Call);
  SmallVector<Value *, 8> Args(Call.arg_begin(), Call.arg_end());
  Args.push_back(B.CreateConstInBoundsGEP2_64(ArrayTy, Table, 0, 0));
  CallInst *New = B.CreateCall(Sized, Args);
  New->setDebugLoc(Call.getDebugLoc());
  Call.replaceAllUsesWith(New);
  Call.eraseFromParent();
}

} // namespace

bool rewriteReductions(Module &M) {
  SmallVector<std::pair<CallInst *, const char *>, 4> Calls;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *Call = dyn_cast<CallInst>(&I))
        if (Function *Callee = Call->getCalledFunction())
          if (const char *Entry = sizedEntry(Callee->getName()))
            if (Call->arg_size() == 7)
              Calls.push_back({Call, Entry});

  bool Changed = false;
  for (auto &Item : Calls) {
    CallInst &Call = *Item.first;
    auto *NumVars = dyn_cast<ConstantInt>(Call.getArgOperand(NumVarsArg));
    auto *ListBytes = dyn_cast<ConstantInt>(Call.getArgOperand(SizeArg));
    // extra list entries (array sections) make the list longer than
    // one pointer per variable
    if (!NumVars || !ListBytes || NumVars->isZero() ||
        NumVars->getZExtValue() > 64 ||
        ListBytes->getZExtValue() != NumVars->getZExtValue() * 8)
      continue;
    SmallVector<uint64_t, 8> Sizes;
    if (!listSizes(Call, unsigned(NumVars->getZExtValue()), Sizes) ||
        !combinesInPlace(Call.getArgOperand(CombineArg)))
      continue;
    rewriteOne(Call, Item.second, Sizes);
    Changed = true;
  }
  return Changed;
}

} // namespace dsm_atomic
