//===- PlaceAsyncWaits.cpp - Waits and barriers around async copies -------===//
//
// The register strategy (tile-assign-mma-layouts) marks copies into shared tiles `tile.cp_async`:
// each is one group of cp.async chunks that lands later, and the gemms read their tiles with
// ldmatrix (mma.sync) or through the async proxy (wgmma). This pass makes the ordering explicit:
//
//   - before the first op of its block that uses a copy's tile: `tile.async_wait` with the
//     groups issued since (cp.async groups complete in order), then a `tile.barrier` (the other
//     threads' chunks); at the end of the block when nothing there uses it. With wgmma gemms in
//     the kernel, a `tile.async_proxy_fence` before each such barrier;
//   - a `tile.barrier` before each run of cp.async copies: every thread has finished reading the
//     tiles they overwrite;
//   - a `tile.barrier` after each mma.sync or wgmma gemm one of whose shared operands has writers
//     other than cp.async copies (a `parallel`, a copy from a fragment: they do not wait for the
//     gemm's reads); before such a wgmma gemm, a fence and a barrier (the writes' own barrier
//     came before it).
//
// Register rings (tile-pipeline-register-rings) placed their own copies' waits: copies into a
// `tile.stage` get only the barrier before their run. Main-loop rings (`tile.pipeline` loops the
// conversion builds) and kernels with a main loop's producer warpgroup are left alone; in a
// kernel with a `tma_regs` ring only the ring's TMA copies are (mbarriers order them).
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEPLACEASYNCWAITS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

#define DEBUG_TYPE "tile-place-async-waits"

static bool isCpAsyncCopy(Operation *op) { return isa<CopyOp>(op) && op->hasAttr(kCpAsyncAttr); }

namespace {
struct PlaceAsyncWaitsPass : public tlc::tile::impl::TilePlaceAsyncWaitsBase<PlaceAsyncWaitsPass> {
  using TilePlaceAsyncWaitsBase::TilePlaceAsyncWaitsBase;

  void runOnOperation() override;

private:
  /// Whether `op` is inside a main-loop ring (its waits are the ring's). A `tma_regs` ring's
  /// body is the register strategy's, ordered here like any other: only its TMA copies are the
  /// ring's (their stages guarded by mbarriers, tile-warp-specialize).
  bool inMainLoop(Operation *op) const {
    for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
         loop = loop->getParentOfType<scf::ForOp>())
      if (std::optional<PipelineKind> kind = getPipelineKind(loop);
          kind && *kind != PipelineKind::TmaRegs)
        return true;
    return false;
  }
  void placeCopyWaits(ArrayRef<CopyOp> copies, bool fence);
  void placeGemmBarriers(KernelOp kernel);
};
} // namespace

void PlaceAsyncWaitsPass::placeCopyWaits(ArrayRef<CopyOp> copies, bool fence) {
  // Where each wait goes (before that op; null: the end of the copy's block) and the most
  // groups it may leave pending.
  llvm::MapVector<std::pair<Block *, Operation *>, int64_t> waits;
  for (CopyOp copy : copies) {
    if (copy.getDest().getDefiningOp<StageOp>())
      continue; // a register ring's copy: waited for by the ring
    Block *block = copy->getBlock();
    int64_t later = 0;
    bool exact = true;
    Operation *at = nullptr;
    for (Operation *op = copy->getNextNode(); op; op = op->getNextNode()) {
      if (op->hasTrait<OpTrait::IsTerminator>())
        break;
      if (usesValue(op, copy.getDest(), [&](Operation *inner) { return inMainLoop(inner); })) {
        at = op;
        break;
      }
      if (isCpAsyncCopy(op)) {
        ++later;
        continue;
      }
      // Groups committed inside nested regions may or may not be: count none.
      op->walk([&](CopyOp inner) { exact &= !isCpAsyncCopy(inner) || inMainLoop(inner); });
    }
    int64_t pending = exact && at ? later : 0;
    auto [it, inserted] = waits.try_emplace(std::make_pair(block, at), pending);
    if (!inserted)
      it->second = std::min(it->second, pending);
  }
  for (auto [key, pending] : waits) {
    auto [block, at] = key;
    Operation *before = at ? at : block->getTerminator();
    OpBuilder b(before);
    AsyncWaitOp::create(b, before->getLoc(), pending);
    if (fence)
      AsyncProxyFenceOp::create(b, before->getLoc());
    BarrierOp::create(b, before->getLoc());
  }
  // Before a run of copies (with only pure ops, such as their offsets, between them): every
  // thread has finished reading the tiles they overwrite. A barrier right before the run (a
  // register ring's copies after a wait) serves.
  for (CopyOp copy : copies) {
    Operation *prev = copy->getPrevNode();
    while (prev && !isCpAsyncCopy(prev) && isMemoryEffectFree(prev) && prev->getNumRegions() == 0)
      prev = prev->getPrevNode();
    if (prev && (isCpAsyncCopy(prev) || isa<BarrierOp>(prev)))
      continue;
    OpBuilder b(copy);
    BarrierOp::create(b, copy.getLoc());
  }
}

void PlaceAsyncWaitsPass::placeGemmBarriers(KernelOp kernel) {
  kernel.walk([&](GemmOp gemm) {
    std::optional<MmaKind> kind = getMmaKind(gemm);
    if ((kind != MmaKind::MmaSync && kind != MmaKind::Wgmma) || inMainLoop(gemm))
      return;
    // mma.sync gemms end without a barrier: the cp.async copies that refill their tiles wait
    // for every thread first (the barrier before their run), other writers do not.
    bool otherWriter = false;
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      if (!cast<BufferType>(operand.getType()).isShared())
        continue;
      for (Operation *user : operand.getUsers()) {
        // A `tma_regs` ring's TMA copies: the mbarriers order them with the gemms.
        if (isa<GemmOp>(user) || isCpAsyncCopy(user) || user->hasAttr(kTmaAttr))
          continue;
        auto copy = dyn_cast<CopyOp>(user);
        otherWriter |= copy ? copy.getDest() == operand : isa<WriteOp, FillOp, WriteSlotOp>(user);
      }
    }
    if (!otherWriter)
      return;
    OpBuilder b(gemm);
    // wgmma: each thread fences its writes for the async proxy, then the block syncs. (A wait
    // placed right before the gemm fenced and synced already.)
    Operation *prev = gemm->getPrevNode();
    bool fenced = prev && isa<BarrierOp>(prev) && prev->getPrevNode() &&
                  isa<AsyncProxyFenceOp>(prev->getPrevNode());
    if (kind == MmaKind::Wgmma && !fenced) {
      AsyncProxyFenceOp::create(b, gemm.getLoc());
      BarrierOp::create(b, gemm.getLoc());
    }
    b.setInsertionPointAfter(gemm);
    BarrierOp::create(b, gemm.getLoc());
  });
}

void PlaceAsyncWaitsPass::runOnOperation() {
  KernelOp kernel = getOperation();
  // A main loop's producer warpgroup orders its kernel's copies; a `tma_regs` ring's orders
  // only the ring's.
  if (kernel->hasAttr(kProducerThreadsAttr)) {
    WalkResult registerRing = kernel.walk([](scf::ForOp loop) {
      return getPipelineKind(loop) == PipelineKind::TmaRegs ? WalkResult::interrupt()
                                                            : WalkResult::advance();
    });
    if (!registerRing.wasInterrupted())
      return;
  }
  WalkResult unexpanded = kernel.walk([&](scf::ForOp loop) {
    if (getPipelineKind(loop) != PipelineKind::CpAsyncRegs)
      return WalkResult::advance();
    loop.emitOpError() << "is a register ring not expanded yet; hint: run "
                          "tile-pipeline-register-rings before tile-place-async-waits";
    return WalkResult::interrupt();
  });
  if (unexpanded.wasInterrupted())
    return signalPassFailure();
  SmallVector<CopyOp> copies;
  bool fence = false;
  kernel.walk([&](Operation *op) {
    if (inMainLoop(op))
      return;
    if (isCpAsyncCopy(op))
      copies.push_back(cast<CopyOp>(op));
    else if (isa<GemmOp>(op))
      fence |= getMmaKind(op) == MmaKind::Wgmma;
  });
  placeCopyWaits(copies, fence);
  placeGemmBarriers(kernel);
}
