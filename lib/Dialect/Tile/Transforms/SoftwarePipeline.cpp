//===- SoftwarePipeline.cpp - Multi-buffer and warp-specialize main loops -===//
//
// A `pipelined(n, stages = S)` loop whose copies are TMA boxes and whose gemms are wgmma
// (tile-assign-mma-layouts) becomes an S-stage ring: each buffer its copies fill gets S copies
// (`tile.stages = S` on its alloc), the loop is marked `tile.pipeline =
// #tile.pipeline<tma_wgmma>`, and the kernel gets a producer warpgroup
// (`tile.producer_threads = 128`) that issues the copies while the kernel's own warpgroups
// consume the stages. The conversion materializes the ring: per
// stage a "full" mbarrier (expect-tx, completed by TMA) and an "empty" one (arrived by the
// consumers), phase parity from the iteration count; the producer runs up to S iterations ahead.
// A loop of cp.async copies and wgmma gemms (sm_90a, tensors TMA cannot read: any alignment)
// gets the same ring, marked "loads_wgmma": the producer warpgroup loads the tiles through
// registers (or cp.async where aligned) and arrives on the full barriers itself.
// A loop of cp.async copies and mma.sync gemms (sm_80 to sm_90; or wgmma gemms without the
// `producer-loads` option) gets the same ring, marked
// "cp_async_mma", without a producer: every thread issues its 16-byte chunks S - 1 iterations
// ahead in cp.async groups and waits for the oldest group before the block multiplies it.
// In a kernel of the register strategy (attention), or of blocked register layouts (softmax,
// norms: rows copied by cp.async into shared tiles, then into registers), a pipelined loop whose
// cp.async copies feed only that loop is marked "cp_async_regs": its buffers get S stages and
// tile-pipeline-register-rings issues each iteration's copies S - 1 iterations ahead (the rest
// of the body, softmax included, stays in place). With `ring-producers` (sm_90a), such a ring
// whose copies TMA can issue and only wgmma gemms read, the kernel's only one, becomes a
// "tma_regs" ring: a producer warpgroup issues its copies (tile-warp-specialize) and the rest of
// its body stays the consumers'. Other pipelined loops run in order.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "tlc/Layout/Layout.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILESOFTWAREPIPELINE
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

#define DEBUG_TYPE "tile-software-pipeline"

/// How `loop` can be pipelined: "tma_wgmma" when every copy is a TMA copy and every gemm a
/// wgmma, "cp_async_mma" when they are cp.async copies and mma.sync gemms; nullopt otherwise.
static std::optional<PipelineKind> pipelineKind(scf::ForOp loop, bool producerLoads) {
  bool tma = true, cpAsync = true, wgmma = true, mmaSync = true;
  bool anyCopy = false, anyGemm = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (isa<CopyOp>(op)) {
      tma &= op.hasAttr(kTmaAttr);
      cpAsync &= op.hasAttr(kCpAsyncAttr);
      anyCopy = true;
    } else if (isa<GemmOp>(op)) {
      std::optional<MmaKind> mma = getMmaKind(&op);
      // wgmma on the register strategy's accumulator runs per op: a register ring at most.
      if (isRegisterWgmma(cast<GemmOp>(op)))
        return std::nullopt;
      wgmma &= mma == MmaKind::Wgmma;
      mmaSync &= mma == MmaKind::MmaSync;
      anyGemm = true;
    } else if (!isa<BlockIdOp, DimOp>(op) && op.getDialect()->getNamespace() != "arith") {
      // Only a loop of copies and products is a main loop (the register strategy marks copies
      // and gemms of other loops too).
      return std::nullopt;
    }
  }
  if (!anyCopy || !anyGemm)
    return std::nullopt;
  if (tma && wgmma)
    return PipelineKind::TmaWgmma;
  // cp.async copies feed mma.sync, or, on sm_90a for tensors TMA cannot read, wgmma.
  if (!cpAsync || !(mmaSync || wgmma))
    return std::nullopt;
  // The cp.async ring is a main loop of the kernel's body: tiles (of rank-2 or higher
  // tensors) from offsets it recomputes, into buffers only this loop's gemms read, multiplied
  // from shared memory (no transpose_a, no clear) into one accumulator. Other loops of copies
  // and mma.sync gemms (two accumulators, offsets read from a tensor, loops under an `if`) are
  // register-strategy loops (isRegisterRing).
  auto kernel = loop->getParentOfType<KernelOp>();
  if (loop->getParentOp() != kernel.getOperation())
    return std::nullopt;
  Value acc;
  for (auto gemm : loop.getBody()->getOps<GemmOp>()) {
    if ((acc && gemm.getC() != acc) || gemm.getTransposeA() || gemm.getClear() ||
        !gemm.getA().getType().isShared())
      return std::nullopt;
    acc = gemm.getC();
  }
  for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    if (!isRecomputable(bound, kernel, {}))
      return std::nullopt;
  for (auto copy : loop.getBody()->getOps<CopyOp>()) {
    if (cast<tile::TensorType>(copy.getSource().getType()).getRank() < 2)
      return std::nullopt;
    for (Operation *user : copy.getDest().getUsers())
      if (user != copy.getOperation() && !(isa<GemmOp>(user) && user->getParentOp() == loop))
        return std::nullopt;
    for (Value offset : copy.getSourceOffsets())
      if (!isRecomputable(offset, kernel, {loop.getInductionVar()}))
        return std::nullopt;
  }
  // wgmma reads its operands from shared memory, asynchronously: a producer warpgroup can fill
  // the ring while the consumers multiply, as TMA does.
  return wgmma && producerLoads ? PipelineKind::LoadsWgmma : PipelineKind::CpAsyncMma;
}

/// Whether `value` can be computed at any iteration of `loop`: from values defined outside it
/// and its induction variable, with pure arithmetic, sizes, block ids and reads of variables
/// (`var`: a scalar memref) that the loop does not write inside it.
static bool computableInLoop(Value value, scf::ForOp loop) {
  SmallVector<Value> work{value};
  llvm::SmallPtrSet<Value, 16> seen;
  auto invariantVariable = [&](memref::LoadOp load) {
    Value var = load.getMemRef();
    if (loop->isAncestor(var.getParentRegion()->getParentOp()))
      return false;
    WalkResult stored = loop.getBody()->walk([&](memref::StoreOp store) {
      return store.getMemRef() == var ? WalkResult::interrupt() : WalkResult::advance();
    });
    return !stored.wasInterrupted();
  };
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second || v == loop.getInductionVar())
      continue;
    if (!loop->isAncestor(v.getParentRegion()->getParentOp()))
      continue; // defined outside the loop
    Operation *def = v.getDefiningOp();
    if (auto load = dyn_cast_or_null<memref::LoadOp>(def); load && invariantVariable(load))
      continue;
    if (!def || (!isa<BlockIdOp, DimOp>(def) && def->getDialect()->getNamespace() != "arith"))
      return false;
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// Whether `copy` fills registers (from a tensor or a shared tile) or stores them to a tensor:
/// it writes no shared memory.
static bool isRegisterCopy(CopyOp copy) {
  auto inRegisters = [](Value v) { return isa<BufferType>(v.getType()) && getAccLayout(v); };
  return inRegisters(copy.getDest()) ||
         (inRegisters(copy.getSource()) && isa<tile::TensorType>(copy.getDest().getType()));
}

/// A loop whose cp.async copies can run ahead: a loop of the register strategy (attention:
/// copies, products and element-wise work) or of blocked register layouts (rows through shared
/// memory into registers: softmax, norms) whose cp.async copies write buffers used in this loop
/// only, from offsets recomputable for a later iteration: read by its gemms, copied into blocked
/// registers or into other shared tiles, or read element by element (a `parallel` that
/// dequantizes packed weights into another shared tile). Its other copies run in place: into
/// registers, from registers to tensors, or element by element into shared tiles that are not ring
/// stages (tile-partition- threads has placed their barriers).
static bool isRegisterRing(scf::ForOp loop, KernelOp kernel) {
  // Anywhere the block runs it uniformly (tile ops are never under divergent control flow).
  if (loop.getNumResults() != 0)
    return false;
  bool anyCopy = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto copy = dyn_cast<CopyOp>(op);
    if (!copy)
      continue;
    if (!copy->hasAttr(kCpAsyncAttr)) {
      auto dest = dyn_cast<BufferType>(copy.getDest().getType());
      if (!isRegisterCopy(copy) && !(dest && dest.isShared()))
        return false;
      continue;
    }
    anyCopy = true;
    // Its stages are addressed by the copies and the per-op gemms (mma.sync, or wgmma on the
    // register strategy's accumulator) of this loop only, or copied from into blocked registers
    // (the copy that reads a stage's swizzled tile; a copy into an mma layout reads whole
    // buffers only).
    for (Operation *user : copy.getDest().getUsers()) {
      if (!loop->isProperAncestor(user))
        return false;
      auto gemm = dyn_cast<GemmOp>(user);
      auto other = dyn_cast<CopyOp>(user);
      bool copyFill = other && other.getDest() == copy.getDest() && user->hasAttr(kCpAsyncAttr);
      std::optional<AccLayout> outLayout = other && isa<BufferType>(other.getDest().getType())
                                               ? getAccLayout(other.getDest())
                                               : std::nullopt;
      bool copyOut = other && other.getSource() == copy.getDest() && outLayout &&
                     outLayout->kind == AccLayout::Kind::Blocked;
      // Copied element by element into another shared tile (tile-widen-gemm-operands' f16
      // copies of 8-bit float tiles).
      auto outShared = other && other.getSource() == copy.getDest() && !other->hasAttr(kCpAsyncAttr)
                           ? dyn_cast<BufferType>(other.getDest().getType())
                           : BufferType();
      copyOut |= outShared && outShared.isShared();
      if (!copyFill && !copyOut && !isa<ReadOp>(user) &&
          !(gemm && (getMmaKind(gemm) == MmaKind::MmaSync || isRegisterWgmma(gemm))))
        return false;
    }
    for (Value offset : copy.getSourceOffsets())
      if (!computableInLoop(offset, loop))
        return false;
  }
  // Copies nested deeper would be issued out of order with the ring's groups.
  WalkResult nested = loop.getBody()->walk([&](CopyOp copy) {
    return copy->getParentOp() != loop.getOperation() && copy->hasAttr(kCpAsyncAttr)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return anyCopy && !nested.wasInterrupted();
}

/// Whether `copy` can be a TMA box a producer warpgroup issues for ring `loop`: a cp.async copy
/// of a tensor of rank 2 to 5 into a rank-2 shared tile of the same element (16-bit, or 8-bit
/// floats), its column at a known multiple of 16 bytes, its offsets recomputable from block ids,
/// sizes, arguments and `roots`, its tile read only by wgmma gemms of the loop.
static bool fitsProducerCopy(CopyOp copy, scf::ForOp loop, KernelOp kernel, ArrayRef<Value> roots) {
  auto tensor = dyn_cast<tile::TensorType>(copy.getSource().getType());
  auto dest = dyn_cast<BufferType>(copy.getDest().getType());
  if (!copy->hasAttr(kCpAsyncAttr) || !tensor || !dest || !dest.isShared() ||
      tensor.getRank() < 2 || tensor.getRank() > 5 || dest.getRank() != 2 ||
      tensor.getElementType() != dest.getElementType() || !copy.getDest().getDefiningOp<AllocOp>())
    return false;
  Type elem = dest.getElementType();
  if (!elem.isBF16() && !elem.isF16() && !isFloat8(elem))
    return false;
  int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
  // A box is at most 256 rows; its columns are the swizzle's column blocks.
  if (dest.getShape()[0] > 256 ||
      !layout::chooseSwizzle(dest.getShape()[0], dest.getShape()[1], elemBytes))
    return false;
  if (!isKnown16ByteColumn(copy.getSourceOffsets().back(), elemBytes))
    return false;
  for (Value offset : copy.getSourceOffsets())
    if (!isRecomputable(offset, kernel, roots))
      return false;
  // Written by this copy alone, read by the ring's wgmma gemms alone.
  for (Operation *user : copy.getDest().getUsers()) {
    if (user == copy.getOperation())
      continue;
    auto gemm = dyn_cast<GemmOp>(user);
    if (!gemm || !loop->isProperAncestor(gemm) || !isRegisterWgmma(gemm) ||
        gemm.getC() == copy.getDest())
      return false;
  }
  return true;
}

/// Whether the register ring `loop` can take a producer warpgroup issuing its copies as TMA boxes
/// (a `tma_regs` ring): directly in the kernel's body, whose blocks the warp-specialized kernel
/// walks persistently, on two or three whole warpgroups beside the producer's, its bounds
/// recomputable by the producer, each cp.async copy one fitsProducerCopy accepts.
static bool fitsProducerRing(scf::ForOp loop, KernelOp kernel) {
  // Two or three consumer warpgroups: one alone runs slower with a producer (H100, attention
  // at BM = 64: 0.72x the cp.async ring, whose blocks run two per multiprocessor).
  int64_t threads = kernel.getThreads()[0];
  if (loop->getParentOp() != kernel.getOperation() || threads % 128 != 0 || threads < 256 ||
      threads > 384)
    return false;
  for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    if (!isRecomputable(bound, kernel, {}))
      return false;
  bool anyCopy = false;
  for (auto copy : loop.getBody()->getOps<CopyOp>()) {
    if (!copy->hasAttr(kCpAsyncAttr))
      continue;
    anyCopy = true;
    if (!fitsProducerCopy(copy, loop, kernel, {loop.getInductionVar()}))
      return false;
  }
  return anyCopy;
}

/// A shared tile that `loop` fills by cp.async and that is otherwise used only in branches of an
/// `if` exclusive with the loop (a kernel choosing its loop by the shapes, each loop filling the
/// same tile) gets an alloc of its own for the loop: each loop may become a ring of its own
/// (a ring's stages are its loop's alone), and the two allocs share bytes
/// (tile-shared-memory-layout places buffers of exclusive branches together).
static void privatizeRingTiles(scf::ForOp loop) {
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto copy = dyn_cast<CopyOp>(op);
    if (!copy || !copy->hasAttr(kCpAsyncAttr))
      continue;
    auto alloc = copy.getDest().getDefiningOp<AllocOp>();
    if (!alloc)
      continue;
    SmallVector<OpOperand *> inside;
    bool outside = false, exclusive = true;
    for (OpOperand &use : alloc.getBuffer().getUses()) {
      if (loop->isProperAncestor(use.getOwner())) {
        inside.push_back(&use);
        continue;
      }
      outside = true;
      exclusive &= inExclusiveBranches(use.getOwner()->getParentRegion(), &loop.getRegion());
    }
    if (!outside || !exclusive)
      continue;
    OpBuilder b(alloc);
    b.setInsertionPointAfter(alloc);
    Operation *own = b.clone(*alloc.getOperation());
    for (OpOperand *use : inside)
      use->set(own->getResult(0));
  }
}

namespace {
struct SoftwarePipelinePass
    : public tlc::tile::impl::TileSoftwarePipelineBase<SoftwarePipelinePass> {
  using TileSoftwarePipelineBase::TileSoftwarePipelineBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (failed(requireUnplaced(kernel, "tile-software-pipeline")))
      return signalPassFailure();
    Builder b(kernel.getContext());
    SmallVector<scf::ForOp> loops;
    kernel.getBody().walk([&](scf::ForOp loop) {
      if (mainLoops && loop->hasAttr(kStagesAttr) && pipelineKind(loop, producerLoads))
        loops.push_back(loop);
    });
    // One producer warpgroup serves one ring; kernels with several main loops keep the
    // generic strategy for all but the first.
    if (loops.empty()) {
      // The register strategy: copies S - 1 iterations ahead into S stages of their buffers.
      SmallVector<scf::ForOp> rings;
      kernel.getBody().walk([&](scf::ForOp loop) {
        auto stages = loop->getAttrOfType<IntegerAttr>(kStagesAttr);
        if (!stages || stages.getInt() < 2)
          return;
        privatizeRingTiles(loop);
        if (!isRegisterRing(loop, kernel))
          return;
        loop->setAttr(kPipelineAttr,
                      PipelineKindAttr::get(b.getContext(), PipelineKind::CpAsyncRegs));
        for (Operation &op : loop.getBody()->without_terminator())
          if (auto copy = dyn_cast<CopyOp>(op); copy && copy->hasAttr(kCpAsyncAttr))
            copy.getDest().getDefiningOp()->setAttr(kStagesAttr, stages);
        rings.push_back(loop);
      });
      // One producer warpgroup serves the kernel's ring when it is the only one.
      if (ringProducers && rings.size() == 1) {
        FailureOr<TargetAttr> target = requireTarget(kernel, "tile-software-pipeline");
        if (failed(target))
          return signalPassFailure();
        if (target->hasWgmma() && fitsProducerRing(rings.front(), kernel)) {
          scf::ForOp ring = rings.front();
          ring->setAttr(kPipelineAttr,
                        PipelineKindAttr::get(b.getContext(), PipelineKind::TmaRegs));
          for (Operation &op : ring.getBody()->without_terminator())
            if (auto copy = dyn_cast<CopyOp>(op); copy && copy->hasAttr(kCpAsyncAttr)) {
              copy->removeAttr(kCpAsyncAttr);
              copy->setAttr(kTmaAttr, b.getUnitAttr());
            }
          // Copies before the ring into tiles only its gemms read (attention's Q): the producer
          // loads them once per block tile.
          for (Operation &op : kernel.getBody().front()) {
            if (&op == ring.getOperation())
              break;
            if (auto copy = dyn_cast<CopyOp>(op);
                copy && fitsProducerCopy(copy, ring, kernel, {})) {
              copy->removeAttr(kCpAsyncAttr);
              copy->setAttr(kTmaAttr, b.getUnitAttr());
            }
          }
          kernel->setAttr(kProducerThreadsAttr, b.getI64IntegerAttr(128));
          // The kernel's blocks walk the grid, one per multiprocessor: a shared scratch for its
          // accumulator stores costs no block its place (tile::addStoreStaging). Not where the
          // ring's body loads tensor elements (fp8_gemm_blockwise's scales: 0.977-1.002x with
          // the scratch, H100), while attention's consumers, which spilled storing from each
          // thread, gain 0-6 % (bench/RESULTS.md, forty-fourth session).
          bool loadsElements = false;
          ring.getBody()->walk([&](LoadOp) { loadsElements = true; });
          if (stageStores && !loadsElements)
            addStoreStaging(kernel);
        }
      }
      return;
    }
    scf::ForOp loop = loops.front();
    int64_t stages = std::max<int64_t>(1, cast<IntegerAttr>(loop->getAttr(kStagesAttr)).getInt());
    PipelineKind kind = *pipelineKind(loop, producerLoads);
    // The cp.async ring refills the stage the previous iteration read: it needs two at least.
    if (kind == PipelineKind::CpAsyncMma)
      stages = std::max<int64_t>(stages, 2);
    loop->setAttr(kPipelineAttr, PipelineKindAttr::get(b.getContext(), kind));
    loop->setAttr(kStagesAttr, b.getI64IntegerAttr(stages));
    for (Operation &op : loop.getBody()->without_terminator())
      if (auto copy = dyn_cast<CopyOp>(op))
        copy.getDest().getDefiningOp()->setAttr(kStagesAttr, b.getI64IntegerAttr(stages));
    if (hasProducer(kind))
      kernel->setAttr(kProducerThreadsAttr, b.getI64IntegerAttr(128));
  }
};
} // namespace
