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
  /// Use the architecture's tensor-core strategies where they apply. Off, every tile op takes
  /// its generic lowering (`tlc --codegen=reference`).
  bool tensorCoreStrategy = true;
  /// TMA copies where the target has them (sm_90a: the TMA + wgmma ring). Off, main loops take
  /// a cp.async ring instead (feeding wgmma, or mma.sync), which reads tensors at any alignment:
  /// tlc compiles sm_90a kernels with TMA entries this way too, under the plain entry name, for
  /// launches whose tensors break TMA's alignment rules (docs/abi.md).
  bool tma = true;
  /// Remarks on the strategy each kernel with gemms takes (tile-assign-mma-layouts explain).
  bool explain = false;
  /// sm_90a: cp.async main-loop rings feed wgmma instead of mma.sync (tile-assign-mma-layouts'
  /// cp-async-wgmma; off with `tlc --codegen=mma-sync`).
  bool cpAsyncWgmma = true;
  /// sm_90a: those rings are filled by a producer warpgroup that loads the tiles through
  /// registers at any alignment (tile-software-pipeline's producer-loads; off with
  /// `tlc --codegen=cp-async-wgmma`: every thread copies S - 1 iterations ahead).
  bool producerLoads = true;
  /// Pipelined GEMM loops take main-loop rings (TMA or cp.async rings with a whole-kernel
  /// accumulator layout); off (`tlc --codegen=register`), every kernel takes the per-op register
  /// strategy and its pipelined loops register rings.
  bool mainLoops = true;
  /// The lowering to LLVM/NVVM merges identical blocks as upstream's convert-gpu-to-nvvm does
  /// (`tlc --codegen=merged-blocks`, to compare with the code before tlc-gpu-to-nvvm); off, it
  /// keeps them apart (buildLoweringPasses).
  bool mergeBlocks = false;
  /// A configuration of a kernel (`configs`) that does not fit the target's shared memory is
  /// left out of this architecture's image with a warning, where another configuration fits
  /// (the omit-unfit-variants of tile-shared-memory-layout and convert-tile-to-nvvm).
  bool omitUnfitVariants = false;
  /// sm_90a: TMA rings whose blocks can share loads run them in pairs of a 2-block cluster
  /// (tile-warp-specialize's pairs; `tlc --cluster-pairs`).
  bool clusterPairs = false;
  /// sm_90a, with `tma`: a kernel's register ring whose copies TMA can issue gets a producer
  /// warpgroup (tile-software-pipeline's ring-producers, a `tma_regs` ring); off with `tlc
  /// --codegen=cp-async-register-rings`.
  bool ringProducers = true;
  /// sm_90a: such a ring's consumers issue its last gemm one iteration late, overlapping it with
  /// the next iteration's work (tile-warp-specialize's overlap); opt-in, `tlc
  /// --codegen=overlap-register-rings` (measured slower: bench/RESULTS.md, session 35).
  bool ringOverlap = false;
  /// sm_90a: such a ring's consumer warpgroups take turns issuing its gemms (tile-ping-pong);
  /// opt-in, `tlc --codegen=ping-pong-register-rings`.
  bool ringPingPong = false;
  /// A main-loop ring's accumulator copied to a tensor stages its rows through a per-warp
  /// shared scratch (tile-assign-mma-layouts' stage-stores); off with `tlc
  /// --codegen=direct-stores` (each thread stores its own pairs, as before).
  bool stageStores = true;
  /// sm_90a: staged rows go out as TMA bulk stores in `__tma` entries where the launch encodes a
  /// store map (tile-assign-mma-layouts' tma-stores); opt-in, `tlc --codegen=tma-stores`.
  bool tmaStores = false;
};

/// Adds every pass from the `tile` dialect down to the LLVM and NVVM dialects inside a
/// `gpu.module`, in the order `tlc` runs them.
void buildTlcPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);
/// The first part of buildTlcPipeline: the tile-level passes, which make every decision.
void buildTilePasses(mlir::OpPassManager &pm, const PipelineOptions &options);
/// The rest of buildTlcPipeline: convert-tile-to-nvvm and the lowering to LLVM/NVVM.
void buildLoweringPasses(mlir::OpPassManager &pm, const PipelineOptions &options);

/// Registers `--tlc-pipeline` (for tlc-opt) and every tlc pass.
void registerTlcPasses();

/// Registers every dialect and translation interface the pipeline and PTX emission use.
void registerTlcDialects(mlir::DialectRegistry &registry);

} // namespace tlc

#endif // TLC_PIPELINE_PIPELINE_H
