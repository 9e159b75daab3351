//===- UnifyDynamicSharedMemory.cpp - One dynamic shared memory symbol ----===//
#include "PatternsImpl.h"
#include "tlc/Conversion/TileToNVVM/TileToNVVM.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tlc {
#define GEN_PASS_DEF_UNIFYDYNAMICSHAREDMEMORY
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

/// Whether `global` is a dynamic shared memory array: a zero-length array in address space 3.
static bool isDynamicShared(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() == 3 && array && array.getNumElements() == 0;
}

namespace {
struct UnifyDynamicSharedMemoryPass
    : public tlc::impl::UnifyDynamicSharedMemoryBase<UnifyDynamicSharedMemoryPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    SmallVector<LLVM::GlobalOp> others;
    for (auto global : module.getOps<LLVM::GlobalOp>())
      if (isDynamicShared(global) && global.getSymName() != kSharedSymbol)
        others.push_back(global);
    if (others.empty())
      return;
    StringRef symbol = declareSharedSymbol(module, module.getLoc());
    llvm::SmallDenseSet<StringRef> names;
    for (LLVM::GlobalOp global : others)
      names.insert(global.getSymName());
    module.walk([&](LLVM::AddressOfOp address) {
      if (names.contains(address.getGlobalName()))
        address.setGlobalName(symbol);
    });
    for (LLVM::GlobalOp global : others)
      global.erase();
  }
};
} // namespace
