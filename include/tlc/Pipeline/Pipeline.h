//===- Pipeline.h - The one pass pipeline from tile to LLVM/NVVM ----------===//
#ifndef TLC_PIPELINE_PIPELINE_H
#define TLC_PIPELINE_PIPELINE_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace tlc {

/// Options of the pipeline; filled from the compiler's options.
struct PipelineOptions {
  /// Target architecture, e.g. "sm_90a" or "sm_80".
  std::string arch = "sm_90a";
  /// Use the architecture's tensor-core strategy where it applies (sm_90a: TMA + wgmma). Off,
  /// every kernel takes the generic strategy: tlc compiles sm_90a kernels both ways so that
  /// launchers can fall back when TMA's alignment rules do not hold (docs/abi.md).
  bool tensorCoreStrategy = true;
  /// Remarks on the strategy each kernel with gemms takes (tile-assign-mma-layouts explain).
  bool explain = false;
};

/// Adds every pass from the `tile` dialect down to the LLVM and NVVM dialects inside a
/// `gpu.module`, in the order `tlc` runs them.
void buildTlcPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

/// Registers `--tlc-pipeline` (for tlc-opt) and every tlc pass.
void registerTlcPasses();

/// Registers every dialect and translation interface the pipeline and PTX emission use.
void registerTlcDialects(mlir::DialectRegistry &registry);

} // namespace tlc

#endif // TLC_PIPELINE_PIPELINE_H
