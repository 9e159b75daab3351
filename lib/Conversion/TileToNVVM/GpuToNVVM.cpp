//===- GpuToNVVM.cpp - convert-gpu-to-nvvm without block merging ----------===//
#include "tlc/Conversion/TileToNVVM/TileToNVVM.h"

#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tlc {
#define GEN_PASS_DEF_CONVERTGPUTONVVM
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;

namespace {
struct ConvertGpuToNVVMPass : public tlc::impl::ConvertGpuToNVVMBase<ConvertGpuToNVVMPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options(ctx, DataLayout(cast<DataLayoutOpInterface>(module.getOperation())));
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter converter(ctx, options);
    configureGpuToNVVMTypeConverter(converter);
    RewritePatternSet patterns(ctx);
    LLVMConversionTarget target(*ctx);
    // The gpu patterns before the generic LLVM ones (as upstream weighs them); math lowers to
    // libdevice through the gpu patterns, not through its dialect's generic LLVM lowering.
    populateGpuToNVVMConversionPatterns(converter, patterns, /*benefit=*/10);
    for (Dialect *dialect : ctx->getLoadedDialects()) {
      auto *iface = dyn_cast<ConvertToLLVMPatternInterface>(dialect);
      if (iface && !isa<math::MathDialect>(dialect))
        iface->populateConvertToLLVMConversionPatterns(target, converter, patterns);
    }
    configureGpuToNVVMConversionLegality(target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
