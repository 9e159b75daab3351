//===- Pipeline.cpp - The one pass pipeline from tile to LLVM/NVVM --------===//
#include "tlc/Pipeline/Pipeline.h"

#include "tlc/Conversion/Passes.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Frontend/Frontend.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tlc::buildTlcPipeline(OpPassManager &pm, const PipelineOptions &options) {
  buildTilePasses(pm, options);
  buildLoweringPasses(pm, options);
}

void tlc::buildTilePasses(OpPassManager &pm, const PipelineOptions &options) {
  // The target, once, for every pass that decides by architecture.
  tile::TileSetTargetOptions targetOptions;
  targetOptions.arch = options.arch;
  pm.addPass(tile::createTileSetTarget(targetOptions));
  // Tile level: tiling onto warpgroups and instructions, element-wise bodies over the threads
  // (or over register slots), pipelining, shared-memory layout. Without tensor cores (the
  // reference code generation) every tile op keeps its generic lowering.
  if (options.tensorCoreStrategy) {
    // 8-bit float gemms without an 8-bit tensor-core form multiply f16 copies of their tiles.
    pm.addNestedPass<tile::KernelOp>(tile::createTileWidenGemmOperands());
    tile::TileAssignMmaLayoutsOptions assignOptions;
    // The kernel-level remark once per kernel: for the TMA compile, not again for its plain
    // entry (tile-explain describes both).
    assignOptions.explain = options.explain && options.tma;
    assignOptions.tma = options.tma;
    assignOptions.cpAsyncWgmma = options.cpAsyncWgmma;
    assignOptions.mainLoops = options.mainLoops;
    assignOptions.stageStores = options.stageStores;
    assignOptions.tmaStores = options.tmaStores;
    pm.addNestedPass<tile::KernelOp>(tile::createTileAssignMmaLayouts(assignOptions));
    tile::TileAssignBlockedLayoutsOptions blockedOptions;
    blockedOptions.explain = assignOptions.explain;
    pm.addNestedPass<tile::KernelOp>(tile::createTileAssignBlockedLayouts(blockedOptions));
  }
  pm.addNestedPass<tile::KernelOp>(tile::createTilePartitionThreads());
  tile::TileSoftwarePipelineOptions pipelineOptions;
  pipelineOptions.producerLoads = options.producerLoads;
  pipelineOptions.mainLoops = options.mainLoops;
  pipelineOptions.ringProducers = options.ringProducers && options.tma;
  // Consumer warpgroups taking turns lose 15-30 % with a staged output (and none without):
  // bench/RESULTS.md, forty-fourth session.
  pipelineOptions.stageStores = options.stageStores && !options.ringPingPong;
  pm.addNestedPass<tile::KernelOp>(tile::createTileSoftwarePipeline(pipelineOptions));
  tile::TileSharedMemoryLayoutOptions layoutOptions;
  layoutOptions.omitUnfitVariants = options.omitUnfitVariants;
  pm.addNestedPass<tile::KernelOp>(tile::createTileSharedMemoryLayout(layoutOptions));
  if (options.explain && options.tensorCoreStrategy) {
    // The plain-entry compile (no TMA) describes only the kernels it compiles differently.
    tile::TileExplainOptions explainOptions;
    explainOptions.unalignedOnly = !options.tma;
    explainOptions.overlap = options.ringOverlap;
    explainOptions.pingPong = options.ringPingPong;
    pm.addNestedPass<tile::KernelOp>(tile::createTileExplain(explainOptions));
  }
  // The register strategy's rings, waits and barriers, written out in the tile dialect.
  pm.addNestedPass<tile::KernelOp>(tile::createTilePipelineRegisterRings());
  pm.addNestedPass<tile::KernelOp>(tile::createTilePlaceAsyncWaits());
  pm.addNestedPass<tile::KernelOp>(tile::createTilePlaceMmaWaits());
  // A TMA ring's producer warpgroup, mbarriers and persistent tile loops.
  tile::TileWarpSpecializeOptions warpSpecialize;
  warpSpecialize.pairs = options.clusterPairs;
  warpSpecialize.overlap = options.ringOverlap;
  pm.addNestedPass<tile::KernelOp>(tile::createTileWarpSpecialize(warpSpecialize));
  if (options.ringPingPong)
    pm.addNestedPass<tile::KernelOp>(tile::createTilePingPong());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tlc::buildLoweringPasses(OpPassManager &pm, const PipelineOptions &options) {
  // Out of the tile dialect, into a gpu.module. From here on, passes that work function by
  // function are nested on the functions, so that `-j` runs them on the kernels in parallel.
  ConvertTileToNVVMOptions convertOptions;
  convertOptions.omitUnfitVariants = options.omitUnfitVariants;
  pm.addPass(createConvertTileToNVVM(convertOptions));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>().nest<gpu::GPUFuncOp>();
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createExpandFloat8());

  // Upstream lowering to the LLVM and NVVM dialects.
  kernels.addPass(createLowerStructuredControlFlow());
  // Upstream's convert-gpu-to-nvvm without its block merging (Passes.td); upstream's own pass
  // for comparisons (--codegen=merged-blocks).
  if (options.mergeBlocks) {
    ConvertGpuOpsToNVVMOpsOptions gpuOptions;
    gpuOptions.indexBitwidth = 64;
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(gpuOptions));
  } else {
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuToNVVM());
  }
  pm.addNestedPass<gpu::GPUModuleOp>(createUnifyDynamicSharedMemory());
  OpPassManager &functions = pm.nest<gpu::GPUModuleOp>().nest<LLVM::LLVMFuncOp>();
  functions.addPass(createMarkGridConstants());
  functions.addPass(createConvertNVVMToLLVMPass());
  functions.addPass(createReconcileUnrealizedCastsPass());
  // Identical blocks merge unless that makes a local buffer's address a block argument, which
  // keeps fragments in local memory (tlc-merge-identical-blocks); --codegen=merged-blocks merges
  // them all, as upstream's canonicalization does.
  GreedyRewriteConfig canonicalization;
  canonicalization.setRegionSimplificationLevel(options.mergeBlocks
                                                    ? GreedySimplifyRegionLevel::Aggressive
                                                    : GreedySimplifyRegionLevel::Normal);
  functions.addPass(createCanonicalizerPass(canonicalization));
  if (!options.mergeBlocks)
    functions.addPass(createMergeIdenticalBlocks());
  functions.addPass(createCSEPass());
}

namespace {
struct TlcPipelineCLOptions : public PassPipelineOptions<TlcPipelineCLOptions> {
  Option<std::string> arch{*this, "arch", llvm::cl::desc("Target architecture"),
                           llvm::cl::init("sm_90a")};
  Option<bool> tensorCores{*this, "tensor-cores",
                           llvm::cl::desc("Use the architecture's tensor-core strategy"),
                           llvm::cl::init(true)};
};
} // namespace

void tlc::registerTlcPasses() {
  tile::registerTilePasses();
  registerTlcConversionPasses();
  PassPipelineRegistration<TlcPipelineCLOptions>(
      "tlc-pipeline", "The whole tlc lowering, from the tile dialect to LLVM/NVVM",
      [](OpPassManager &pm, const TlcPipelineCLOptions &cl) {
        PipelineOptions options;
        options.arch = cl.arch;
        options.tensorCoreStrategy = cl.tensorCores;
        buildTlcPipeline(pm, options);
      });
}

void tlc::registerTlcDialects(DialectRegistry &registry) {
  registerFrontendDialects(registry);
  registry.insert<cf::ControlFlowDialect, gpu::GPUDialect, index::IndexDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, ub::UBDialect>();
  registerConvertToLLVMDependentDialectLoading(registry);
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}
