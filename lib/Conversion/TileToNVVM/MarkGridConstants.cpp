//===- MarkGridConstants.cpp - Tensor maps as __grid_constant__ params ----===//
#include "tlc/Conversion/TileToNVVM/TileToNVVM.h"
#include "tlc/Dialect/Tile/IR/TileAttrs.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tlc {
#define GEN_PASS_DEF_MARKGRIDCONSTANTS
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

namespace {
struct MarkGridConstantsPass : public tlc::impl::MarkGridConstantsBase<MarkGridConstantsPass> {
  void runOnOperation() override {
    LLVM::LLVMFuncOp func = getOperation();
    // The dialect verified the entry (its kind, its maps' parameters against the function's).
    tile::EntryAttr entry = tile::getEntry(func);
    if (!entry)
      return;
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    // A producer warpgroup (with or without TMA): one block per multiprocessor, so that ptxas
    // knows the register count at entry, which setmaxnreg needs to rebalance registers between
    // producer and consumers.
    if (entry.getComputeThreads())
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
    else if (auto blocks = func->getAttrOfType<IntegerAttr>(tile::kMinBlocksAttr))
      // blocks_per_sm(E): ptxas fits the registers to E resident blocks.
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    b.getI32IntegerAttr(static_cast<int32_t>(blocks.getInt())));
    auto bytes = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128);
    for (tile::TensorMapAttr map : entry.getTensorMaps()) {
      unsigned param = map.getParam();
      if (!isa<LLVM::LLVMPointerType>(func.getArgumentTypes()[param])) {
        func.emitError() << "tensor map parameter " << param
                         << " must be a pointer (the CUtensorMap passed by value); got "
                         << func.getArgumentTypes()[param];
        return signalPassFailure();
      }
      func.setArgAttr(param, LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(bytes));
      func.setArgAttr(param, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64));
      func.setArgAttr(param, NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
    }
  }
};
} // namespace
