/*
 * atomic_libatomic.cpp - recognises the libatomic calls clang emits for
 * atomics it does not inline (long double, complex, __int128 without
 * -mcx16, misaligned objects), so the pass can rename them to the
 * runtime's __dsm_libatomic_* twins, which share their signatures.
 *
 * Layer: compiler-shim (runs inside clang).  Entry point: libatomicSuffix.
 *
 * Only names libatomic itself defines are renamed: clang's
 * __atomic_fetch_{max,min,umax,umin}_N have no libatomic definition, so a
 * program using them does not link with or without dsmomp.
 */
#include "atomic_pass.h"

using namespace llvm;

namespace dsm_atomic {

namespace {

// Generic forms: (size_t size, object, ...), the object comes second.
constexpr StringRef GenericNames[] = {"load", "store", "exchange",
                                      "compare_exchange"};

// Sized forms: (object, ...), N in 1, 2, 4, 8, 16.
constexpr StringRef SizedNames[] = {
    "load",      "store",     "exchange",  "compare_exchange",
    "fetch_add", "fetch_sub", "fetch_and", "fetch_or",
    "fetch_xor", "fetch_nand"};

constexpr StringRef Sizes[] = {"1", "2", "4", "8", "16"};

} // namespace

bool libatomicSuffix(StringRef Callee, StringRef &Suffix,
                     unsigned &PointerArg) {
  StringRef Rest = Callee;
  if (!Rest.consume_front("__atomic_"))
    return false;
  for (StringRef Name : GenericNames) {
    if (Rest == Name) {
      Suffix = Rest;
      PointerArg = 1;
      return true;
    }
  }
  size_t Underscore = Rest.rfind('_');
  if (Underscore == StringRef::npos)
    return false;
  StringRef Base = Rest.take_front(Underscore);
  StringRef Size = Rest.drop_front(Underscore + 1);
  bool KnownSize = false;
  for (StringRef S : Sizes)
    KnownSize |= Size == S;
  if (!KnownSize)
    return false;
  for (StringRef Name : SizedNames) {
    if (Base == Name) {
      Suffix = Rest;
      PointerArg = 0;
      return true;
    }
  }
  return false;
}

} // namespace dsm_atomic
