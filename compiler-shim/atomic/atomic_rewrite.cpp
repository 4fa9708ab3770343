/*
 * atomic_rewrite.cpp - replaces one atomic instruction (load atomic, store
 * atomic, atomicrmw, cmpxchg) by a call into the runtime, keeping its value,
 * its memory orders and, for cmpxchg, the {old, success} result.
 *
 * Layer: compiler-shim (runs inside clang).  Entry points: rewriteAtomic,
 * needsCmpXchgLoop, expandToCmpXchgLoop (see atomic_pass.h).
 *
 * Two routes, chosen from the access's size and declared alignment:
 *   word       1, 2, 4 or 8 bytes, naturally aligned: __dsm_atomic_*_N,
 *              values zero-extended to i64 (floats and pointers as bits);
 *              a load seeding a compare-exchange loop calls load_seed;
 *   libatomic  16 bytes, or under-aligned: __dsm_libatomic_*_N with
 *              libatomic's signatures (values as iN).
 * An atomicrmw neither route has an entry for (fadd on half, max on 16
 * bytes, ...) is first expanded to a cmpxchg loop, whose cmpxchg then takes
 * one of the routes.  Accesses wider than 16 bytes are reported as errors.
 */
#include "atomic_abi.h"
#include "atomic_pass.h"

#include "llvm/CodeGen/AtomicExpandUtils.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace dsm_atomic {

namespace {

enum class Route { Word, Libatomic, TooWide };

bool isWordSize(uint64_t Bytes) {
  return Bytes == 1 || Bytes == 2 || Bytes == 4 || Bytes == 8;
}

Route routeFor(const DataLayout &DL, Type *ValueTy, Align Alignment) {
  uint64_t Bytes = DL.getTypeStoreSize(ValueTy).getFixedSize();
  if (isWordSize(Bytes) && Alignment.value() >= Bytes)
    return Route::Word;
  if (isWordSize(Bytes) || Bytes == 16)
    return Route::Libatomic;
  return Route::TooWide;
}

int abiOrder(AtomicOrdering Order) { return static_cast<int>(toCABI(Order)); }

bool hasWordEntry(AtomicRMWInst::BinOp Op, Type *Ty, int &AbiOp) {
  switch (Op) {
  case AtomicRMWInst::Xchg: AbiOp = DSM_RMW_XCHG; return true;
  case AtomicRMWInst::Add:  AbiOp = DSM_RMW_ADD;  return true;
  case AtomicRMWInst::Sub:  AbiOp = DSM_RMW_SUB;  return true;
  case AtomicRMWInst::And:  AbiOp = DSM_RMW_AND;  return true;
  case AtomicRMWInst::Nand: AbiOp = DSM_RMW_NAND; return true;
  case AtomicRMWInst::Or:   AbiOp = DSM_RMW_OR;   return true;
  case AtomicRMWInst::Xor:  AbiOp = DSM_RMW_XOR;  return true;
  case AtomicRMWInst::Max:  AbiOp = DSM_RMW_MAX;  return true;
  case AtomicRMWInst::Min:  AbiOp = DSM_RMW_MIN;  return true;
  case AtomicRMWInst::UMax: AbiOp = DSM_RMW_UMAX; return true;
  case AtomicRMWInst::UMin: AbiOp = DSM_RMW_UMIN; return true;
  case AtomicRMWInst::FAdd: AbiOp = DSM_RMW_FADD; break;
  case AtomicRMWInst::FSub: AbiOp = DSM_RMW_FSUB; break;
  default: return false;
  }
  // The runtime's float operations know float and double only.
  return Ty->isFloatTy() || Ty->isDoubleTy();
}

// libatomic's name for an atomicrmw operation, or "" if it has none.
StringRef libatomicRMWName(AtomicRMWInst::BinOp Op) {
  switch (Op) {
  case AtomicRMWInst::Xchg: return "exchange";
  case AtomicRMWInst::Add:  return "fetch_add";
  case AtomicRMWInst::Sub:  return "fetch_sub";
  case AtomicRMWInst::And:  return "fetch_and";
  case AtomicRMWInst::Nand: return "fetch_nand";
  case AtomicRMWInst::Or:   return "fetch_or";
  case AtomicRMWInst::Xor:  return "fetch_xor";
  default: return "";
  }
}

// Builds the calls for one instruction at its place (and debug location).
class CallBuilder {
public:
  CallBuilder(Instruction &I, Type *ValueTy)
      : I(I), B(&I), M(*I.getModule()), ValueTy(ValueTy),
        Bytes(M.getDataLayout().getTypeStoreSize(ValueTy).getFixedSize()),
        IntTy(B.getIntNTy(static_cast<unsigned>(Bytes * 8))) {}

  IRBuilder<> &builder() { return B; }

  Value *address(Value *Ptr) { return B.CreateBitCast(Ptr, B.getInt8PtrTy()); }
  Value *order(AtomicOrdering O) { return B.getInt32(abiOrder(O)); }
  Value *constant(int V) { return B.getInt32(V); }

  // Value <-> iN (libatomic route) and iN <-> i64 (word route).
  Value *toInt(Value *V) {
    return V->getType()->isPointerTy() ? B.CreatePtrToInt(V, IntTy)
                                       : B.CreateBitCast(V, IntTy);
  }
  Value *fromInt(Value *V) {
    return ValueTy->isPointerTy() ? B.CreateIntToPtr(V, ValueTy)
                                  : B.CreateBitCast(V, ValueTy);
  }
  Value *toWord(Value *V) { return B.CreateZExt(toInt(V), B.getInt64Ty()); }
  Value *fromWord(Value *W) { return fromInt(B.CreateTrunc(W, IntTy)); }

  // A call to __dsm_atomic_<Name>_<Bytes> returning Ret.
  CallInst *word(StringRef Name, Type *Ret, ArrayRef<Value *> Args) {
    return call((Twine(DSM_ATOMIC_PREFIX) + Name + "_" + Twine(Bytes)).str(),
                Ret, Args);
  }

  // A call to __dsm_libatomic_<Name>_<Bytes>.  Integers narrower than int
  // are zero-extended as the C ABI expects of a uint8_t or uint16_t.
  CallInst *libatomic(StringRef Name, Type *Ret, ArrayRef<Value *> Args) {
    CallInst *Call = call(
        (Twine(DSM_LIBATOMIC_PREFIX) + Name + "_" + Twine(Bytes)).str(), Ret,
        Args);
    if (Bytes < 4) {
      for (unsigned A = 0; A < Args.size(); ++A)
        if (Args[A]->getType() == IntTy)
          Call->addParamAttr(A, Attribute::ZExt);
      if (Ret == IntTy)
        Call->addRetAttr(Attribute::ZExt);
    }
    return Call;
  }

  // A stack slot for an in-memory argument, in the entry block.
  AllocaInst *slot() {
    IRBuilder<> Entry(&*I.getFunction()->getEntryBlock().getFirstInsertionPt());
    AllocaInst *Slot = Entry.CreateAlloca(IntTy, nullptr, "dsm.atomic.slot");
    Slot->setAlignment(Align(Bytes));
    return Slot;
  }

  Type *intTy() const { return IntTy; }

private:
  CallInst *call(const std::string &Name, Type *Ret, ArrayRef<Value *> Args) {
    SmallVector<Type *, 5> Params;
    for (Value *A : Args)
      Params.push_back(A->getType());
    FunctionCallee Callee =
        M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false));
    if (auto *F = dyn_cast<Function>(Callee.getCallee()))
      F->setDoesNotThrow();
    CallInst *Call = B.CreateCall(Callee, Args);
    Call->setDoesNotThrow();
    return Call;
  }

  Instruction &I;
  IRBuilder<> B;
  Module &M;
  Type *ValueTy;
  uint64_t Bytes;
  IntegerType *IntTy;
};

Value *rewriteLoad(LoadInst &L, Route R, bool LoopSeed) {
  CallBuilder C(L, L.getType());
  Value *Ptr = C.address(L.getPointerOperand());
  if (R == Route::Word)
    return C.fromWord(C.word(LoopSeed ? "load_seed" : "load",
                             C.builder().getInt64Ty(),
                             {Ptr, C.order(L.getOrdering())}));
  return C.fromInt(
      C.libatomic("load", C.intTy(), {Ptr, C.order(L.getOrdering())}));
}

void rewriteStore(StoreInst &S, Route R) {
  Value *V = S.getValueOperand();
  CallBuilder C(S, V->getType());
  Value *Ptr = C.address(S.getPointerOperand());
  Type *Void = C.builder().getVoidTy();
  if (R == Route::Word)
    C.word("store", Void, {Ptr, C.toWord(V), C.order(S.getOrdering())});
  else
    C.libatomic("store", Void, {Ptr, C.toInt(V), C.order(S.getOrdering())});
}

Value *rewriteRMW(AtomicRMWInst &RMW, Route R) {
  Value *V = RMW.getValOperand();
  CallBuilder C(RMW, V->getType());
  Value *Ptr = C.address(RMW.getPointerOperand());
  Value *Order = C.order(RMW.getOrdering());
  if (R == Route::Word) {
    int AbiOp = 0;
    bool Known = hasWordEntry(RMW.getOperation(), V->getType(), AbiOp);
    assert(Known && "expanded to a cmpxchg loop before");
    (void)Known;
    return C.fromWord(C.word("rmw", C.builder().getInt64Ty(),
                             {Ptr, C.toWord(V), C.constant(AbiOp), Order}));
  }
  StringRef Name = libatomicRMWName(RMW.getOperation());
  assert(!Name.empty() && "expanded to a cmpxchg loop before");
  return C.fromInt(C.libatomic(Name, C.intTy(), {Ptr, C.toInt(V), Order}));
}

// Gives the users of a cmpxchg its {old, success} pair.
void replaceCmpXchg(AtomicCmpXchgInst &X, Value *Old, Value *Success) {
  for (User *U : make_early_inc_range(X.users())) {
    auto *Extract = dyn_cast<ExtractValueInst>(U);
    if (Extract && Extract->getNumIndices() == 1) {
      Extract->replaceAllUsesWith(Extract->getIndices()[0] == 0 ? Old
                                                                : Success);
      Extract->eraseFromParent();
    }
  }
  if (X.use_empty())
    return;
  IRBuilder<> B(&X);
  Value *Pair = B.CreateInsertValue(UndefValue::get(X.getType()), Old, 0);
  Pair = B.CreateInsertValue(Pair, Success, 1);
  X.replaceAllUsesWith(Pair);
}

void rewriteCmpXchg(AtomicCmpXchgInst &X, Route R) {
  Value *Expected = X.getCompareOperand();
  CallBuilder C(X, Expected->getType());
  IRBuilder<> &B = C.builder();
  Value *Ptr = C.address(X.getPointerOperand());
  Value *Success = C.order(X.getSuccessOrdering());
  Value *Failure = C.order(X.getFailureOrdering());
  if (R == Route::Word) {
    Value *ExpectedWord = C.toWord(Expected);
    Value *OldWord = C.word("cmpxchg", B.getInt64Ty(),
                            {Ptr, ExpectedWord, C.toWord(X.getNewValOperand()),
                             Success, Failure});
    // Separate statements: the order of the new instructions must not
    // depend on the compiler's order of evaluating arguments.
    Value *Old = C.fromWord(OldWord);
    Value *Swapped = B.CreateICmpEQ(OldWord, ExpectedWord);
    replaceCmpXchg(X, Old, Swapped);
    return;
  }
  // libatomic writes the current value into *expected when it fails; when
  // it succeeds *expected already holds it.
  AllocaInst *Slot = C.slot();
  B.CreateAlignedStore(C.toInt(Expected), Slot, Slot->getAlign());
  CallInst *Swapped = C.libatomic(
      "compare_exchange", B.getInt1Ty(),
      {Ptr, B.CreateBitCast(Slot, B.getInt8PtrTy()),
       C.toInt(X.getNewValOperand()), Success, Failure});
  Swapped->addRetAttr(Attribute::ZExt);
  Value *Old =
      C.fromInt(B.CreateAlignedLoad(C.intTy(), Slot, Slot->getAlign()));
  replaceCmpXchg(X, Old, Swapped);
}

Type *accessType(Instruction &I) {
  if (auto *S = dyn_cast<StoreInst>(&I))
    return S->getValueOperand()->getType();
  if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I))
    return X->getCompareOperand()->getType();
  return I.getType();
}

Align accessAlign(Instruction &I) {
  if (auto *L = dyn_cast<LoadInst>(&I))
    return L->getAlign();
  if (auto *S = dyn_cast<StoreInst>(&I))
    return S->getAlign();
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
    return RMW->getAlign();
  return cast<AtomicCmpXchgInst>(I).getAlign();
}

} // namespace

bool needsCmpXchgLoop(const AtomicRMWInst &RMW) {
  Type *Ty = RMW.getValOperand()->getType();
  int AbiOp = 0;
  switch (routeFor(RMW.getModule()->getDataLayout(), Ty, RMW.getAlign())) {
  case Route::Word:
    return !hasWordEntry(RMW.getOperation(), Ty, AbiOp);
  case Route::Libatomic:
    return libatomicRMWName(RMW.getOperation()).empty();
  case Route::TooWide:
    return false;
  }
  return false;
}

void expandToCmpXchgLoop(AtomicRMWInst &RMW) {
  unsigned AddrSpace = RMW.getPointerAddressSpace();
  expandAtomicRMWToCmpXchg(
      &RMW, [AddrSpace](IRBuilder<> &B, Value *Addr, Value *Loaded,
                        Value *NewVal, Align Alignment, AtomicOrdering Order,
                        SyncScope::ID Scope, Value *&Success,
                        Value *&NewLoaded) {
        // cmpxchg takes integers and pointers: floats travel as their bits.
        Type *Ty = NewVal->getType();
        bool Bits = Ty->isFloatingPointTy();
        if (Bits) {
          Type *IntTy = B.getIntNTy(Ty->getPrimitiveSizeInBits());
          Addr = B.CreateBitCast(Addr, IntTy->getPointerTo(AddrSpace));
          Loaded = B.CreateBitCast(Loaded, IntTy);
          NewVal = B.CreateBitCast(NewVal, IntTy);
        }
        Value *Pair = B.CreateAtomicCmpXchg(
            Addr, Loaded, NewVal, Alignment, Order,
            AtomicCmpXchgInst::getStrongestFailureOrdering(Order), Scope);
        Success = B.CreateExtractValue(Pair, 1, "success");
        NewLoaded = B.CreateExtractValue(Pair, 0, "newloaded");
        if (Bits)
          NewLoaded = B.CreateBitCast(NewLoaded, Ty);
      });
}

void rewriteAtomic(Instruction &I, bool LoopSeed) {
  Route R = routeFor(I.getModule()->getDataLayout(), accessType(I),
                     accessAlign(I));
  if (R == Route::TooWide) {
    I.getContext().diagnose(DiagnosticInfoUnsupported(
        *I.getFunction(),
        "dsm-atomic: atomic access wider than 16 bytes to possibly sharable "
        "memory",
        I.getDebugLoc()));
    return;
  }
  if (auto *L = dyn_cast<LoadInst>(&I)) {
    L->replaceAllUsesWith(rewriteLoad(*L, R, LoopSeed));
  } else if (auto *S = dyn_cast<StoreInst>(&I)) {
    rewriteStore(*S, R);
  } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
    RMW->replaceAllUsesWith(rewriteRMW(*RMW, R));
  } else {
    rewriteCmpXchg(cast<AtomicCmpXchgInst>(I), R);
  }
  I.eraseFromParent();
}

} // namespace dsm_atomic
