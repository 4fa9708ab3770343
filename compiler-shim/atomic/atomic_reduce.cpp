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
 */
#include "atomic_abi.h"
#include "atomic_pass.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
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
    if (!listSizes(Call, unsigned(NumVars->getZExtValue()), Sizes))
      continue;
    rewriteOne(Call, Item.second, Sizes);
    Changed = true;
  }
  return Changed;
}

} // namespace dsm_atomic
