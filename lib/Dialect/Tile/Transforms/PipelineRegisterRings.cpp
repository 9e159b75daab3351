//===- PipelineRegisterRings.cpp - The register strategy's cp.async rings -===//
//
// A loop marked `tile.pipeline = #tile.pipeline<cp_async_regs>` (tile-software-pipeline: a loop
// of the register strategy whose cp.async copies fill buffers only it reads, from offsets
// computable for any iteration) becomes an S-stage ring, written out in the tile dialect:
//
//   prologue: the copies of iterations 0 .. S-2 into `tile.stage` 0 .. S-2 of their buffers;
//   iteration i: the rest of the body, softmax included, in place on stage i % S, with a
//     `tile.async_wait` (and, for wgmma, an async-proxy fence) and a `tile.barrier` before the
//     first op that reads each copy's tile; right after the first of these barriers, the copies
//     of iteration i + S - 1 into stage (i + S - 1) % S (the stage iteration i - 1 read, which
//     every thread is done with once past that barrier), offsets recomputed for that iteration;
//   after the loop: a wait for every group.
//
// Each copy is one cp.async group. At the first use of copy k's tile in iteration i, the groups
// issued after copy k of iteration i may still be landing: the rest of iteration i's set, then
// the sets of iterations i + 1 .. i + S - 1 (i + S - 2 at the first wait, before iteration
// i + S - 1's set is issued). Copies past the end read inside the tensors only (masked) and keep
// every thread's group count in step.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEPIPELINEREGISTERRINGS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

#define DEBUG_TYPE "tile-pipeline-register-rings"

/// `value` as computed for another iteration of `loop` (its induction variable mapped in
/// `mapping`): the ops of the loop it is computed by (pure arithmetic, sizes, block ids:
/// isRegisterRing checked), cloned at the builder's position.
static Value recompute(OpBuilder &b, Value value, IRMapping &mapping, scf::ForOp loop) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  if (!loop->isAncestor(value.getParentRegion()->getParentOp()))
    return value;
  Operation *def = value.getDefiningOp();
  for (Value operand : def->getOperands())
    recompute(b, operand, mapping, loop);
  Operation *clone = b.clone(*def, mapping);
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

/// The cp.async copies of `loop`'s body (its other copies, between registers and tensors, stay in
/// place); an error unless each fills a buffer of `stages` stages.
static FailureOr<SmallVector<CopyOp>> getRingCopies(scf::ForOp loop, int64_t stages) {
  SmallVector<CopyOp> copies;
  for (CopyOp copy : loop.getBody()->getOps<CopyOp>())
    if (copy->hasAttr(kCpAsyncAttr))
      copies.push_back(copy);
  for (CopyOp copy : copies) {
    auto alloc = copy.getDest().getDefiningOp<AllocOp>();
    auto allocStages = alloc ? alloc->getAttrOfType<IntegerAttr>(kStagesAttr) : IntegerAttr();
    if (stages < 2 || !allocStages || allocStages.getInt() != stages)
      return copy.emitOpError("fills a ring of ")
             << stages << " stages whose buffer does not hold as many ('tile.stages' on its "
             << "alloc); hint: run tile-software-pipeline and tile-shared-memory-layout first";
  }
  return copies;
}

/// The waits of the ring: for each op of `rest` (the body's ops but its ring copies, in order)
/// that first reads a copy's tile, the most groups that may still be pending before it.
static llvm::DenseMap<Operation *, int64_t> planRingWaits(ArrayRef<Operation *> rest,
                                                          ArrayRef<CopyOp> copies, int64_t stages) {
  int64_t groups = static_cast<int64_t>(copies.size());
  // At the first use of copy k's tile in an iteration: the groups issued after it.
  llvm::DenseMap<Operation *, int64_t> waits;
  for (auto [k, copy] : llvm::enumerate(copies)) {
    Value tile = CopyOp(copy).getDest();
    for (Operation *op : rest) {
      if (!usesValue(op, tile))
        continue;
      int64_t pending = (groups - 1 - static_cast<int64_t>(k)) + (stages - 1) * groups;
      auto [it, inserted] = waits.try_emplace(op, pending);
      if (!inserted)
        it->second = std::min(it->second, pending);
      break;
    }
  }
  // Groups complete in order: a wait that leaves at least as many pending as an earlier one of
  // the iteration has nothing left to wait for (its copy was issued before the earlier wait's,
  // and that wait's barrier made every thread's chunks visible), so it goes.
  std::optional<int64_t> covered;
  for (Operation *op : rest) {
    auto it = waits.find(op);
    if (it == waits.end())
      continue;
    if (covered && it->second >= *covered)
      waits.erase(it);
    else
      covered = it->second;
  }
  // A wait that only gemms separate from the one before it joins that one: its barrier would
  // otherwise wait for the gemms before it to finish (an async wgmma must be done before a
  // barrier, tile-place-mma-waits), while the tiles landed together anyway.
  Operation *lastWait = nullptr;
  for (Operation *op : rest) {
    if (auto it = waits.find(op); it != waits.end()) {
      if (lastWait) {
        waits[lastWait] = std::min(waits[lastWait], it->second);
        waits.erase(it);
      } else {
        lastWait = op;
      }
    }
    if (!isa<GemmOp>(op) && !(isMemoryEffectFree(op) && op->getNumRegions() == 0))
      lastWait = nullptr;
  }
  return waits;
}

/// Clones the copies of the iteration at `iv` into stage `stage` of their buffers at the
/// builder's position, one group each, their offsets recomputed for that iteration. An
/// iteration past the loop's end reads nothing: its first offset moves past the tensor's first
/// dimension, so its chunks are zero-filled (the group is still committed, keeping every
/// thread's count in step) instead of reading the next block's tiles.
static void issueRingCopies(OpBuilder &b, scf::ForOp loop, ArrayRef<CopyOp> copies, Value iv,
                            Value stage) {
  Location loc = loop.getLoc();
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  Value inLoop = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, loop.getUpperBound());
  for (CopyOp copy : copies) {
    for (Value offset : copy.getSourceOffsets())
      recompute(b, offset, mapping, loop);
    Value first = copy.getSourceOffsets().front();
    Value past = DimOp::create(b, loc, copy.getSource(), 0);
    Value guarded = arith::SelectOp::create(b, loc, inLoop, mapping.lookupOrDefault(first), past);
    IRMapping guardedMapping = mapping;
    guardedMapping.map(first, guarded);
    guardedMapping.map(
        copy.getDest(),
        StageOp::create(b, loc, copy.getDest().getType(), copy.getDest(), stage).getResult());
    b.clone(*copy, guardedMapping);
  }
}

/// Erases the copies from `loop`'s body (they moved ahead) with the ops that only computed
/// their offsets.
static void eraseMovedCopies(scf::ForOp loop, ArrayRef<CopyOp> copies) {
  llvm::SmallPtrSet<Operation *, 16> offsetOps;
  SmallVector<Value> work;
  for (CopyOp copy : copies)
    llvm::append_range(work, copy.getSourceOffsets());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (def && loop->isProperAncestor(def) && offsetOps.insert(def).second)
      llvm::append_range(work, def->getOperands());
  }
  for (CopyOp copy : copies)
    copy.erase();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*loop.getBody())))
    if (offsetOps.contains(&op) && op.use_empty() && isMemoryEffectFree(&op))
      op.erase();
}

static LogicalResult expandRing(scf::ForOp loop) {
  int64_t stages = loop->getAttrOfType<IntegerAttr>(kStagesAttr).getInt();
  Location loc = loop.getLoc();
  FailureOr<SmallVector<CopyOp>> ringCopies = getRingCopies(loop, stages);
  if (failed(ringCopies))
    return failure();
  ArrayRef<CopyOp> copies = *ringCopies;
  // The body's ops but the ring copies, which move ahead.
  llvm::SmallPtrSet<Operation *, 8> ring;
  for (CopyOp copy : copies)
    ring.insert(copy);
  Block *body = loop.getBody();
  SmallVector<Operation *> rest;
  for (Operation &op : body->without_terminator())
    if (!ring.contains(&op))
      rest.push_back(&op);
  llvm::DenseMap<Operation *, int64_t> waits = planRingWaits(rest, copies, stages);
  // wgmma reads the tiles through the async proxy: fenced before the barrier.
  WalkResult wgmma = loop.getBody()->walk([](GemmOp gemm) {
    return getMmaKind(gemm) == MmaKind::Wgmma ? WalkResult::interrupt() : WalkResult::advance();
  });

  OpBuilder b(loop);
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value lb = loop.getLowerBound(), step = loop.getStep();
  for (int64_t p = 0; p + 1 < stages; ++p)
    issueRingCopies(
        b, loop, copies,
        arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, step, index(p))), index(p));

  b.setInsertionPointToStart(body);
  Value iv = loop.getInductionVar();
  Value i = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, lb), step);
  Value stage = arith::RemUIOp::create(b, loc, i, index(stages));
  for (CopyOp copy : copies) {
    Value view = StageOp::create(b, loc, copy.getDest().getType(), copy.getDest(), stage);
    copy.getDest().replaceUsesWithIf(view, [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return !isa<StageOp>(user) && user->getParentOp() != nullptr &&
             llvm::any_of(rest, [&](Operation *op) { return op->isAncestor(user); });
    });
  }
  // The copies S - 1 iterations ahead refill the stage the previous iteration read: they go
  // right after the first wait's barrier, which every thread passes only once done with that
  // iteration (a wgmma reading it included: tile-place-mma-waits waits before a barrier), so
  // they need no barrier of their own. The first wait comes before them: one set fewer pending.
  Operation *firstWait = nullptr;
  for (Operation *op : rest)
    if (waits.count(op)) {
      firstWait = op;
      waits[op] -= static_cast<int64_t>(copies.size());
      break;
    }
  for (Operation *op : rest) {
    auto it = waits.find(op);
    if (it == waits.end())
      continue;
    b.setInsertionPoint(op);
    AsyncWaitOp::create(b, loc, it->second);
    if (wgmma.wasInterrupted())
      AsyncProxyFenceOp::create(b, loc);
    BarrierOp::create(b, loc);
  }
  if (firstWait)
    b.setInsertionPoint(firstWait);
  else
    b.setInsertionPointAfter(stage.getDefiningOp());
  Value ahead = arith::AddIOp::create(b, loc, i, index(stages - 1));
  issueRingCopies(
      b, loop, copies,
      arith::AddIOp::create(b, loc, iv, arith::MulIOp::create(b, loc, step, index(stages - 1))),
      arith::RemUIOp::create(b, loc, ahead, index(stages)));
  eraseMovedCopies(loop, copies);
  // No copy may still be landing when the block moves on or exits.
  b.setInsertionPointAfter(loop);
  AsyncWaitOp::create(b, loc, 0);
  loop->removeAttr(kPipelineAttr);
  loop->removeAttr(kStagesAttr);
  return success();
}

namespace {
struct PipelineRegisterRingsPass
    : public tlc::tile::impl::TilePipelineRegisterRingsBase<PipelineRegisterRingsPass> {
  using TilePipelineRegisterRingsBase::TilePipelineRegisterRingsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    SmallVector<scf::ForOp> rings;
    kernel.getBody().walk([&](scf::ForOp loop) {
      if (getPipelineKind(loop) == PipelineKind::CpAsyncRegs)
        rings.push_back(loop);
    });
    if (rings.empty())
      return;
    // tile-shared-memory-layout may lower a ring's stages to fit the target's shared memory.
    if (!kernel->hasAttr(kSharedBytesAttr)) {
      rings.front().emitOpError()
          << "is a register ring whose shared memory is not placed yet; hint: run "
             "tile-shared-memory-layout before tile-pipeline-register-rings (it may lower the "
             "ring's stages)";
      return signalPassFailure();
    }
    for (scf::ForOp loop : rings)
      if (failed(expandRing(loop)))
        return signalPassFailure();
  }
};
} // namespace
