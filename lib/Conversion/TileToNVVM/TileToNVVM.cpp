//===- TileToNVVM.cpp - Kernels to gpu.func, then the op patterns ---------===//
#include "tlc/Conversion/TileToNVVM/TileToNVVM.h"
#include "PatternsImpl.h"

#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tlc {
#define GEN_PASS_DEF_CONVERTTILETONVVM
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;
using namespace tlc;

#define DEBUG_TYPE "convert-tile-to-nvvm"

/// Name of the gpu.module that holds every kernel of a file.
static constexpr llvm::StringLiteral kGpuModuleName = "tlc_kernels";
namespace {

struct BlockIdLowering : OpRewritePattern<tile::BlockIdOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::BlockIdOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::BlockIdOp>(op, static_cast<gpu::Dimension>(op.getDim()));
    return success();
  }
};

/// exp2 of an f32 is the hardware approximation with results below 2^-126 flushed to zero:
/// ex2.approx.ftz.f32, one MUFU.EX2 (docs/language.md). Without .ftz, as libdevice's __nv_exp2f
/// gives it, ptxas wraps each in a range test and two conditional multiplies.
struct Exp2F32Lowering : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op, PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
        ValueRange{op.getOperand()});
    return success();
  }
};

struct ThreadIdLowering : OpRewritePattern<tile::ThreadIdOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::ThreadIdOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::ThreadIdOp>(op, static_cast<gpu::Dimension>(op.getDim()));
    return success();
  }
};

/// The ABI parameter types of one kernel parameter (docs/abi.md).
static void appendAbiTypes(Type type, SmallVectorImpl<Type> &out) {
  MLIRContext *ctx = type.getContext();
  auto i64 = IntegerType::get(ctx, 64);
  if (auto tensor = dyn_cast<tile::TensorType>(type)) {
    out.push_back(LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/1));
    out.append(2 * tensor.getRank(), i64);
    return;
  }
  if (type.isInteger(1)) {
    out.push_back(IntegerType::get(ctx, 8));
    return;
  }
  if (type.isIndex()) {
    out.push_back(i64);
    return;
  }
  out.push_back(type);
}

/// Moves one kernel into the gpu.module as a gpu.func with the ABI's parameters. Tensors become
/// `unrealized_conversion_cast`s of their expanded values, which the op patterns look through.
static gpu::GPUFuncOp convertKernel(tile::KernelOp kernel, gpu::GPUModuleOp gpuModule,
                                    bool &hadError) {
  OpBuilder b(gpuModule.getBodyRegion());
  b.setInsertionPointToEnd(gpuModule.getBody());
  Location loc = kernel.getLoc();
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Type> abiTypes;
  for (Type type : kernel.getArgumentTypes())
    appendAbiTypes(type, abiTypes);
  // The sm_90a strategy: TMA tensor maps follow the ABI's parameters (docs/abi.md), and a
  // producer warpgroup follows the kernel's threads.
  int64_t producerThreads = 0;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(tile::kProducerThreadsAttr))
    producerThreads = attr.getInt();
  SmallVector<TensorMapParam> maps;
  if (producerThreads)
    maps = collectTensorMaps(kernel);
  unsigned firstMap = abiTypes.size();
  abiTypes.append(maps.size(), LLVM::LLVMPointerType::get(ctx));
  // After store maps: whether the launch encoded them (i32, 1 or 0; docs/abi.md), the parameter
  // the entry attribute names (`stored`).
  int64_t stored = -1;
  if (llvm::any_of(maps, [](const TensorMapParam &map) { return map.store; })) {
    stored = abiTypes.size();
    abiTypes.push_back(IntegerType::get(ctx, 32));
  }
  // A stream-K workspace (tile-warp-specialize) is the last parameter (docs/abi.md).
  int64_t streamK = 0;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(tile::kStreamKAttr); attr && producerThreads) {
    streamK = attr.getInt();
    abiTypes.push_back(LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/1));
  }
  // Blocks a launch may group into one cluster (tile-warp-specialize; TMA entries only).
  int64_t cluster = 1;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(tile::kClusterAttr); attr && !maps.empty())
    cluster = attr.getInt();
  std::string name = kernel.getSymName().str();
  if (!maps.empty())
    name += kTmaEntrySuffix;
  else if (producerThreads)
    name += kLoadsEntrySuffix;
  auto func = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(abiTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  SmallVector<int32_t> threads;
  for (int64_t t : kernel.getThreads())
    threads.push_back(static_cast<int32_t>(t));
  threads[0] += producerThreads;
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(threads));
  if (Attribute blocks = kernel->getAttr(tile::kMinBlocksAttr))
    func->setAttr(tile::kMinBlocksAttr, blocks);
  SmallVector<Attribute> described;
  for (auto [i, map] : llvm::enumerate(maps))
    described.push_back(tile::TensorMapAttr::get(ctx, firstMap + i, map.argIndex, map.boxRows,
                                                 map.boxCols, map.swizzle, map.elementType,
                                                 map.store));
  tile::EntryKind kind = !maps.empty()     ? tile::EntryKind::Tma
                         : producerThreads ? tile::EntryKind::Loads
                                           : tile::EntryKind::Plain;
  // The shared bytes are known once the buffers are placed (allocateBlockBuffers).
  func->setAttr(tile::kEntryAttr,
                tile::EntryAttr::get(ctx, kernel.getSymName(), kind, threads[0],
                                     producerThreads ? kernel.getThreads()[0] : 0, 0,
                                     b.getArrayAttr(described), streamK, cluster, stored));

  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  IRMapping mapping;
  unsigned next = 0;
  auto declaredStrides = kernel->getAttrOfType<ArrayAttr>("strides");
  for (BlockArgument arg : kernel.getBody().getArguments()) {
    Type type = arg.getType();
    if (auto tensor = dyn_cast<tile::TensorType>(type)) {
      unsigned count = 1 + 2 * tensor.getRank();
      SmallVector<Value> parts(entry.getArguments().slice(next, count));
      next += count;
      // Strides known when the kernel is compiled are constants (docs/abi.md): the last stride
      // of a dense tensor is 1, and constant strides a tensor declares are themselves. Unit
      // strides make vector accesses and neighbouring elements' addresses plain offsets.
      ArrayAttr declared =
          declaredStrides ? cast<ArrayAttr>(declaredStrides[arg.getArgNumber()]) : ArrayAttr();
      for (unsigned d = 0, rank = tensor.getRank(); d < rank; ++d) {
        std::optional<int64_t> known;
        if (!declared || declared.empty()) {
          if (d + 1 == rank)
            known = 1;
        } else {
          int64_t value;
          if (!cast<StringAttr>(declared[d]).getValue().getAsInteger(10, value))
            known = value;
        }
        if (known)
          parts[1 + rank + d] = arith::ConstantIntOp::create(b, loc, b.getI64Type(), *known);
      }
      auto tensorCast = UnrealizedConversionCastOp::create(b, loc, type, parts);
      tensorCast->setAttr(kTensorArgAttr, b.getI64IntegerAttr(arg.getArgNumber()));
      mapping.map(arg, tensorCast.getResult(0));
      continue;
    }
    Value value = entry.getArgument(next++);
    if (type.isInteger(1))
      value = arith::TruncIOp::create(b, loc, type, value);
    else if (type.isIndex())
      value = arith::IndexCastOp::create(b, loc, type, value);
    mapping.map(arg, value);
  }
  bool mmaSync = false;
  kernel.walk([&](scf::ForOp loop) {
    mmaSync |= tile::getPipelineKind(loop) == tile::PipelineKind::CpAsyncMma;
  });
  if (mmaSync) {
    if (failed(buildMmaSyncBody(kernel, func, b, mapping)))
      hadError = true;
  } else {
    // The generic strategy, the register strategy (fragments with a layout live in registers;
    // tile-pipeline-register-rings and tile-place-async-waits wrote out its rings, waits and
    // barriers), or a ring's producer warpgroup and consumers (tile-warp-specialize wrote them
    // out).
    for (Operation &op : kernel.getBody().front().without_terminator()) {
      auto alloc = dyn_cast<tile::AllocOp>(op);
      if (alloc && alloc->hasAttr(tile::kLayoutAttr)) {
        mapping.map(alloc.getBuffer(), lowerRegisterFragment(b, alloc, func));
        continue;
      }
      b.clone(op, mapping);
    }
  }
  gpu::ReturnOp::create(b, loc);
  return func;
}

/// In warp-specialized kernels the tile code runs on the consumer threads only: block-wide
/// barriers there become named barrier 1 over those threads.
static void useConsumerBarriers(gpu::GPUFuncOp func) {
  tile::EntryAttr entry = tile::getEntry(func);
  if (!entry || entry.getComputeThreads() == 0)
    return;
  SmallVector<gpu::BarrierOp> barriers;
  func.walk([&](gpu::BarrierOp op) {
    // The prologue's barrier (directly in the entry block) is the whole block's.
    if (op->getBlock() != &func.getBody().front())
      barriers.push_back(op);
  });
  for (gpu::BarrierOp op : barriers) {
    OpBuilder b(op);
    Value id = arith::ConstantIntOp::create(b, op.getLoc(), b.getI32Type(), 1);
    Value count =
        arith::ConstantIntOp::create(b, op.getLoc(), b.getI32Type(), entry.getComputeThreads());
    NVVM::BarrierOp::create(b, op.getLoc(), Type(), id, count, NVVM::BarrierReductionAttr(),
                            Value());
    op.erase();
  }
}

/// Whether a wait follows the cp.async copy `op` (tile-place-async-waits, or the ring
/// tile-pipeline-register-rings wrote out), or one that is not the kernel's to wait for: a copy
/// of a main loop (the conversion builds its ring) or of a kernel with a producer warpgroup.
static bool isWaitedFor(Operation *op, tile::KernelOp kernel) {
  if (kernel->hasAttr(tile::kProducerThreadsAttr))
    return true;
  for (Operation *loop = op->getParentOp(); loop != kernel; loop = loop->getParentOp())
    if (tile::getPipelineKind(loop))
      return true;
  // A ring's copy into a stage is waited for in its loop's body, or after the loop (the
  // prologue's).
  if (auto copy = dyn_cast<tile::CopyOp>(op); copy && copy.getDest().getDefiningOp<tile::StageOp>())
    return true;
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (isa<tile::AsyncWaitOp>(next))
      return true;
  return false;
}

/// The decisions of the tile passes that `kernel` carries are legal for `target` and complete:
/// a located error at the first that is not (the lowering would otherwise emit instructions the
/// target lacks, or read placements that were never made).
static LogicalResult checkPreconditions(tile::KernelOp kernel, tile::TargetAttr target) {
  StringRef arch = target.getArch();
  auto wrongTarget = [&](Operation *op, StringRef what, StringRef needs) {
    return op->emitError() << what << " needs " << needs << ", but the target is '" << arch
                           << "'; hint: the tile passes ran for another target (run "
                           << "tile-assign-mma-layouts and what follows for this one)";
  };
  auto unplaced = [&](Operation *op, StringRef what) {
    return op->emitError() << what << " has no place in shared memory yet; hint: run "
                           << "tile-shared-memory-layout before convert-tile-to-nvvm";
  };
  bool decided = kernel->hasAttr(tile::kProducerThreadsAttr);
  WalkResult result = kernel.walk([&](Operation *op) {
    if (isa<tile::ParallelOp>(op)) {
      op->emitOpError("must be partitioned over threads first (run tile-partition-threads)");
      return WalkResult::interrupt();
    }
    if (std::optional<tile::MmaKind> mma = tile::getMmaKind(op)) {
      decided = true;
      if (*mma == tile::MmaKind::Wgmma && !target.hasWgmma() &&
          failed(wrongTarget(op, "a gemm assigned to wgmma", "sm_90a")))
        return WalkResult::interrupt();
      if (*mma == tile::MmaKind::MmaSync && !target.hasMmaSync() &&
          failed(wrongTarget(op, "a gemm assigned to mma.sync", "sm_80 or later")))
        return WalkResult::interrupt();
    }
    if ((op->hasAttr(tile::kTmaAttr) || isa<tile::TmaLoadOp>(op)) && !target.hasWgmma() &&
        failed(wrongTarget(op, "a TMA copy", "sm_90a")))
      return WalkResult::interrupt();
    if (isa<tile::WarpSpecializeOp, tile::ProducerCopyOp>(op) && !target.hasWgmma() &&
        failed(wrongTarget(op, "a producer warpgroup (setmaxnreg)", "sm_90a")))
      return WalkResult::interrupt();
    if (op->hasAttr(tile::kCpAsyncAttr) && !target.hasMmaSync() &&
        failed(wrongTarget(op, "a cp.async copy", "sm_80 or later")))
      return WalkResult::interrupt();
    decided |= op->hasAttr(tile::kTmaAttr) || op->hasAttr(tile::kCpAsyncAttr) ||
               op->hasAttr(tile::kLayoutAttr);
    if (std::optional<tile::PipelineKind> kind = tile::getPipelineKind(op)) {
      decided = true;
      if (*kind == tile::PipelineKind::CpAsyncRegs) {
        op->emitError() << "this register ring is not written out yet; hint: run "
                        << "tile-pipeline-register-rings and tile-place-async-waits before "
                        << "convert-tile-to-nvvm";
        return WalkResult::interrupt();
      }
      if (tile::hasProducer(*kind)) {
        op->emitError() << "this ring's producer warpgroup is not written out yet; hint: run "
                        << "tile-warp-specialize before convert-tile-to-nvvm";
        return WalkResult::interrupt();
      }
    }
    if (op->hasAttr(tile::kAsyncAttr) &&
        !llvm::any_of(llvm::make_range(std::next(op->getIterator()), op->getBlock()->end()),
                      [](Operation &next) { return isa<tile::MmaWaitOp>(next); })) {
      op->emitError() << "nothing waits for this async gemm; hint: run tile-place-mma-waits "
                      << "before convert-tile-to-nvvm";
      return WalkResult::interrupt();
    }
    if (op->hasAttr(tile::kCpAsyncAttr) && !isWaitedFor(op, kernel)) {
      op->emitError() << "nothing waits for this cp.async copy; hint: run "
                      << "tile-place-async-waits before convert-tile-to-nvvm";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (!decided)
    return success();
  // Tensor-core decisions: every shared buffer and fragment outside registers is placed, and
  // every buffer a TMA or cp.async copy fills is swizzled.
  if (!kernel->hasAttr(tile::kSharedBytesAttr))
    return unplaced(kernel, "kernel '" + kernel.getSymName().str() + "'");
  for (auto alloc : kernel.getBody().getOps<tile::AllocOp>()) {
    auto type = alloc.getBuffer().getType();
    if (type.isLocal() || alloc->hasAttr(tile::kLayoutAttr))
      continue;
    if (!alloc->hasAttr(tile::kOffsetAttr))
      return unplaced(alloc, "this buffer");
    // A ring's copies fill stages of it (tile.stage).
    Value buffer = alloc.getBuffer();
    bool asyncDest = llvm::any_of(alloc->getUsers(), [&](Operation *user) {
      auto filled = [&](Operation *op, Value view) {
        if (auto load = dyn_cast<tile::TmaLoadOp>(op))
          return load.getDest() == view;
        return op->hasAttr(tile::kTmaAttr) || op->hasAttr(tile::kCpAsyncAttr);
      };
      if (isa<tile::StageOp>(user))
        return llvm::any_of(user->getUsers(),
                            [&](Operation *op) { return filled(op, user->getResult(0)); });
      return filled(user, buffer);
    });
    if (asyncDest && !alloc->hasAttr(tile::kSwizzleAttr))
      return alloc.emitError() << "this buffer is filled by TMA or cp.async copies but has no "
                               << "swizzle; hint: run tile-shared-memory-layout before "
                               << "convert-tile-to-nvvm";
  }
  return success();
}

struct ConvertTileToNVVMPass : public tlc::impl::ConvertTileToNVVMBase<ConvertTileToNVVMPass> {
  using ConvertTileToNVVMBase::ConvertTileToNVVMBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<tile::KernelOp> kernels(module.getOps<tile::KernelOp>());
    if (kernels.empty())
      return;
    FailureOr<tile::TargetAttr> target = tile::requireTarget(module, "convert-tile-to-nvvm");
    if (failed(target))
      return signalPassFailure();
    StringRef arch = target->getArch();
    int64_t limit = target->getSharedBytes();
    // Configurations left out of this architecture's image: those tile-shared-memory-layout
    // marked, and with omit-unfit-variants those whose generic buffers do not fit (below). A
    // kernel none of whose configurations is left is an error.
    llvm::StringMap<int> configurationsLeft;
    for (tile::KernelOp kernel : kernels)
      if (StringRef of = tile::getVariantOf(kernel); !of.empty())
        ++configurationsLeft[of];
    auto leaveOut = [&](tile::KernelOp kernel) -> LogicalResult {
      StringRef of = tile::getVariantOf(kernel);
      if (--configurationsLeft[of] > 0)
        return success();
      return kernel.emitError() << "no configuration of kernel '" << of << "' fits the " << limit
                                << " bytes of shared memory of '" << arch << "'; hint: smaller "
                                << "tiles or fewer pipeline stages in one of its configurations";
    };
    bool noneLeft = false;
    llvm::erase_if(kernels, [&](tile::KernelOp kernel) {
      if (!kernel->hasAttr(tile::kOmittedAttr))
        return false;
      noneLeft |= failed(leaveOut(kernel));
      kernel.erase();
      return true;
    });
    if (noneLeft || failed(checkSupported(module, arch)))
      return signalPassFailure();
    for (tile::KernelOp kernel : kernels)
      if (failed(checkPreconditions(kernel, *target)))
        return signalPassFailure();

    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kGpuModuleName);
    for (tile::KernelOp kernel : kernels) {
      bool kernelFailed = false;
      gpu::GPUFuncOp func = convertKernel(kernel, gpuModule, kernelFailed);
      if (kernelFailed)
        return signalPassFailure();
      auto bytes = allocateBlockBuffers(func, kernel);
      if (failed(bytes))
        return signalPassFailure();
      if (*bytes > limit) {
        bool omit = omitUnfitVariants && !tile::getVariantOf(kernel).empty();
        InFlightDiagnostic diag = omit ? kernel.emitWarning() : kernel.emitError();
        diag << "kernel " << kernel.getDisplayName() << " needs " << *bytes
             << " bytes of shared memory for its buffers (fragments without a register layout "
             << "are kept there too); " << limit << " bytes is the limit for '" << arch << "'";
        if (omit)
          diag << "; this configuration is left out of the '" << arch << "' image";
        diag << "; hint: smaller tiles, or 'tlc --explain' to see which fragments stay in shared "
             << "memory and why";
        if (!omit)
          return signalPassFailure();
        diag.report();
        func.erase();
        if (failed(leaveOut(kernel)))
          return signalPassFailure();
        kernel.erase();
        continue;
      }
      func->setAttr(tile::kEntryAttr, tile::getEntry(func).withSharedBytes(*bytes));
      kernel.erase();
    }

    RewritePatternSet patterns(&getContext());
    patterns.add<BlockIdLowering, ThreadIdLowering, Exp2F32Lowering>(&getContext());
    populateMemoryOpsToNVVMPatterns(patterns);
    populateLocalBufferToNVVMPatterns(patterns);
    populateGenericTilesToNVVMPatterns(patterns);
    populateRegisterFragmentPatterns(patterns);
    populateMmaSyncPatterns(patterns);
    populateWarpSpecializePatterns(patterns);
    populateStreamKPatterns(patterns);
    if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))))
      return signalPassFailure();

    // Slot loops are unrolled so that register fragments are indexed by constants only.
    SmallVector<scf::ForOp> slotLoops;
    gpuModule.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tile::kUnrollAttr))
        slotLoops.push_back(loop);
    });
    for (scf::ForOp loop : slotLoops)
      if (failed(loopUnrollFull(loop)))
        return signalPassFailure();
    gpuModule.walk([](gpu::GPUFuncOp func) { useConsumerBarriers(func); });

    // Every tile op must be gone; the tensor casts are then dead.
    WalkResult left = gpuModule.walk([](Operation *op) {
      if (isa<tile::TileDialect>(op->getDialect())) {
        op->emitOpError("could not be lowered to NVVM");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return signalPassFailure();
    // Last first: a stage view is a cast of a buffer's cast.
    SmallVector<UnrealizedConversionCastOp> casts;
    gpuModule.walk([&](UnrealizedConversionCastOp cast) {
      if (isa<tile::TensorType, tile::BufferType>(cast.getType(0)))
        casts.push_back(cast);
    });
    for (UnrealizedConversionCastOp cast : llvm::reverse(casts))
      if (cast->use_empty())
        cast.erase();
  }
};

} // namespace
