//===- PlaceMmaWaits.cpp - Asynchronous wgmma gemms, explicit waits -------===//
//
// A gemm that runs wgmma on the register strategy's accumulator (isRegisterWgmma) is one wgmma
// group: its tensor cores write the accumulator's registers while the warpgroup goes on. This
// pass marks each such gemm `tile.async` and, walking each block in order with the gemms still
// running, places `tile.mma_wait pending = n, <accumulators>` before the first op that needs one
// of them done:
//
//   - it uses the gemm's accumulator (reads the result, or writes registers the gemm writes), or
//     its A fragment other than as another gemm's A (PTX: the registers of A are the gemm's
//     until a wait completes it);
//   - it uses one of the gemm's shared operands other than as another gemm's operand (a copy or
//     a `parallel` that writes the tile, a stage view of its ring), or is a `tile.barrier` (after
//     which another thread may write them);
//   - it is another such gemm whose accumulator or A fragment is a running gemm's accumulator;
//   - it holds such an op in a nested region, or it is the block's terminator.
//
// wgmma groups complete in order: waiting for gemm g leaves pending the n gemms issued after it
// and completes every one issued before it (the wait names all their accumulators, whose
// registers the lowering hands over there).
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/IR/Builders.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEPLACEMMAWAITS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

#define DEBUG_TYPE "tile-place-mma-waits"

/// The buffer `value` views: a staged alloc for a `tile.stage`, else itself.
static Value rootBuffer(Value value) {
  if (auto stage = value.getDefiningOp<StageOp>())
    return stage.getBuffer();
  return value;
}

/// Whether `op` (not a nested op) needs the running gemm `gemm` done.
static bool needsDone(Operation *op, GemmOp gemm) {
  if (isa<BarrierOp>(op))
    return true;
  Value acc = gemm.getC();
  if (auto other = dyn_cast<GemmOp>(op)) {
    // Another gemm reads shared operands as this one does; on its accumulator (or reading it as
    // A) it would see registers still being written.
    return other.getC() == acc || other.getA() == acc || other.getB() == acc ||
           other.getC() == gemm.getA();
  }
  bool fragmentA = !cast<BufferType>(gemm.getA().getType()).isShared();
  for (Value operand : op->getOperands()) {
    if (operand == acc || (fragmentA && operand == gemm.getA()))
      return true;
    for (Value shared : {gemm.getA(), gemm.getB()})
      if (cast<BufferType>(shared.getType()).isShared() && !isa<StageOp>(op) &&
          rootBuffer(operand) == rootBuffer(shared))
        return true;
  }
  // A stage view of a running gemm's ring: the stage may be about to be refilled.
  if (auto stage = dyn_cast<StageOp>(op))
    for (Value shared : {gemm.getA(), gemm.getB()})
      if (stage.getBuffer() == rootBuffer(shared) && stage.getResult() != shared)
        return true;
  return false;
}

/// The accumulators of `gemms`, each once, in order: what a wait for them completes.
static SmallVector<Value> distinctAccumulators(ArrayRef<GemmOp> gemms) {
  SmallVector<Value> accs;
  for (GemmOp gemm : gemms)
    if (!llvm::is_contained(accs, gemm.getC()))
      accs.push_back(gemm.getC());
  return accs;
}

/// Marks the register-strategy wgmma gemms of `block` async and places their waits; recurses
/// into nested regions first (each block waits for its own gemms by its end).
static void placeWaits(Block &block) {
  for (Operation &op : block)
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        placeWaits(inner);
  SmallVector<GemmOp> running; // in issue order
  auto waitBefore = [&](Operation *at, size_t newest) {
    // Completes running[0 .. newest]; the later ones may stay pending.
    OpBuilder b(at);
    MmaWaitOp::create(b, at->getLoc(), static_cast<int64_t>(running.size() - 1 - newest),
                      distinctAccumulators(ArrayRef<GemmOp>(running).take_front(newest + 1)));
    running.erase(running.begin(), running.begin() + newest + 1);
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (running.empty() && !(isa<GemmOp>(op) && isRegisterWgmma(cast<GemmOp>(op))))
      continue;
    // The newest running gemm `op` (or an op nested in it) needs done.
    std::optional<size_t> newest;
    for (size_t k = 0; k < running.size(); ++k) {
      bool needs = op.hasTrait<OpTrait::IsTerminator>();
      if (!needs) {
        WalkResult found = op.walk([&](Operation *inner) {
          return needsDone(inner, running[k]) ? WalkResult::interrupt() : WalkResult::advance();
        });
        needs = found.wasInterrupted();
      }
      if (needs)
        newest = k;
    }
    if (newest)
      waitBefore(&op, *newest);
    if (auto gemm = dyn_cast<GemmOp>(op); gemm && isRegisterWgmma(gemm)) {
      gemm->setAttr(kAsyncAttr, UnitAttr::get(gemm.getContext()));
      running.push_back(gemm);
    }
  }
  // A block without a terminator: done by its end.
  if (!running.empty()) {
    OpBuilder b = OpBuilder::atBlockEnd(&block);
    MmaWaitOp::create(b, running.back().getLoc(), 0, distinctAccumulators(running));
  }
}

namespace {
struct PlaceMmaWaitsPass : public tlc::tile::impl::TilePlaceMmaWaitsBase<PlaceMmaWaitsPass> {
  using TilePlaceMmaWaitsBase::TilePlaceMmaWaitsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    // Marked already (the pass ran before): its waits are in place.
    WalkResult marked = kernel.walk([](GemmOp gemm) {
      return gemm->hasAttr(kAsyncAttr) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (marked.wasInterrupted())
      return;
    for (Block &block : kernel.getBody())
      placeWaits(block);
  }
};
} // namespace
