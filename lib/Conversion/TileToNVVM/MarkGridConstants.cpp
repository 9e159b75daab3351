//===- MarkGridConstants.cpp - Tensor maps as __grid_constant__ params ----===//
#include "PatternsImpl.h"
#include "tlc/Conversion/TileToNVVM/TileToNVVM.h"

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
    auto maps = func->getAttrOfType<ArrayAttr>(kTensorMapsAttr);
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    // A producer warpgroup (with or without TMA): one block per multiprocessor, so that ptxas
    // knows the register count at entry, which setmaxnreg needs to rebalance registers between
    // producer and consumers.
    if (maps || func->hasAttr(kComputeThreadsAttr))
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
    if (!maps)
      return;
    auto bytes = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128);
    for (Attribute attr : maps) {
      auto param = cast<DictionaryAttr>(attr).getAs<IntegerAttr>("param").getInt();
      func.setArgAttr(param, LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(bytes));
      func.setArgAttr(param, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64));
      func.setArgAttr(param, NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
    }
  }
};
} // namespace
