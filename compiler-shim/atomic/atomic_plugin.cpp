/*
 * atomic_plugin.cpp - registers the dsm-atomic pass with clang's new pass
 * manager: `clang -fpass-plugin=dsm_atomic_pass.so` (dsmcc adds it), or
 * `opt -load-pass-plugin=dsm_atomic_pass.so -passes=dsm-atomic` for tests.
 *
 * Layer: compiler-shim (runs inside clang or opt).  Entry point:
 * llvmGetPassPluginInfo.
 *
 * The pass runs at the end of the optimisation pipeline, so inlining and
 * SROA have already turned as many stack slots as they can into values and
 * the escape analysis sees the final code.  In LLVM 14 the -O0 pipeline
 * calls the same optimizer-last hook (checked by the tests at -O0 and -O2);
 * it is a module pass, which optnone - on every function at -O0 - does not
 * skip, and it declares itself required so nothing else does.  Running it
 * twice is harmless: the second run finds nothing left to rewrite.  clang
 * ignores -fpass-plugin under -flegacy-pass-manager: atomics would then
 * stay node-local.
 */
#include "atomic_pass.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

namespace {

void registerPass(PassBuilder &PB) {
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(dsm_atomic::RewritePass());
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "dsm-atomic")
          return false;
        MPM.addPass(dsm_atomic::RewritePass());
        return true;
      });
}

} // namespace

extern "C" __attribute__((visibility("default"))) PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "dsm-atomic", "1", registerPass};
}
