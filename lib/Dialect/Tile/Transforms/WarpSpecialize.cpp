//===- WarpSpecialize.cpp - A ring's producer and consumers, in tiles ------===//
//
// A kernel whose top-level main loop is a `tma_wgmma` or `loads_wgmma` ring
// (tile-software-pipeline, placed by tile-shared-memory-layout) becomes, in the tile dialect:
//
//   %bars = tile.alloc {tile.offset = <the loop's tile.barriers>} : !tile.buffer<shared 2Sxi64>
//   scf.if thread 0 { tile.mbarrier_init full[s] (count 1, or 128 for a loading producer),
//                     empty[s] (count: consumer warps) }
//   tile.barrier
//   <the grid's block counts, recomputed from the grid region>
//   tile.warp_specialize producer {
//     TMA: scf.if thread == consumers: for each tile (persistent, grouped rows):
//       for each main-loop iteration n (counted over the tiles):
//         wait empty[n % S] (parity (n / S & 1) ^ 1); arrive full[n % S] expecting the bytes;
//         tma_load of each copy into stage n % S, its offsets recomputed from their definitions
//     loads: every producer thread, in an aligned (cp.async) and an unaligned (staged or
//       realigned) version: the same loops, tile.producer_copy of each copy, then an arrival
//   } consumers {
//     for each tile: the kernel body (block ids the tile's), its main loop waiting on full[s],
//     gemms on stage s (async, then waited for), one arrival per warp on empty[s]; after the
//     loop the accumulators handed over; a barrier of the consumers after the tile
//   }
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"
#include "tlc/Layout/Layout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

/// Registers per producer thread: a TMA producer issues boxes from one thread; a loading one
/// keeps several chunks' 16-byte blocks in flight per thread.
static constexpr int64_t kTmaProducerRegisters = 40;
static constexpr int64_t kLoadProducerRegisters = 152;
/// Block rows of a group of tiles walked together (blocks running at once share rows of A and
/// columns of B in L2).
static constexpr int64_t kGroupRows = 8;

namespace {
/// Rewrites one kernel; `ring` is its `tma_wgmma` loop.
class WarpSpecializer {
public:
  WarpSpecializer(KernelOp kernel, scf::ForOp ring)
      : kernel(kernel), ring(ring), b(kernel.getContext()), loc(kernel.getLoc()) {}

  LogicalResult run();

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value divu(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value remu(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  /// Iterations of `for lb to ub step step`.
  Value tripCount(Value lb, Value ub, Value step) {
    Value n = arith::CeilDivSIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb), step);
    return arith::MaxSIOp::create(b, loc, n, cst(0));
  }
  /// The ring iteration of `iv` in `for lb .. step step`, counted from `base`.
  Value iteration(Value iv, Value lb, Value step, Value base) {
    return add(base, arith::DivSIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, lb), step));
  }
  /// A view of stage `stage` of ring buffer `buffer` (the buffer itself with one stage).
  Value stageOf(Value buffer, Value stage) {
    if (stages == 1)
      return buffer;
    return StageOp::create(b, loc, buffer.getType(), buffer, stage);
  }

  /// Clones the definition of `value` (pure ops, recursively) at the builder's position; block
  /// ids become `blockIds`, the kernel's arguments stay. A located error on an op it cannot
  /// clone.
  FailureOr<Value> recompute(Value value, IRMapping &mapping, ArrayRef<Value> blockIds);
  /// The persistent loop over the grid's tiles: `body` gets the tile's block ids and the ring
  /// iterations of earlier tiles, and returns this tile's.
  LogicalResult buildTileLoop(function_ref<FailureOr<Value>(ArrayRef<Value>, Value)> body);
  /// The producer's loop over the tile's ring iterations (its bounds recomputed): each waits
  /// for its stage to be empty, then runs `body` with the mapping, the loop variable and the
  /// stage. Returns the tile's iterations.
  FailureOr<Value>
  buildProducerLoop(ArrayRef<Value> blockIds, Value base,
                    function_ref<LogicalResult(IRMapping &, Value iv, Value stage)> body);
  /// The offsets of the ring's copy `copy`, recomputed (recompute).
  FailureOr<SmallVector<Value>> recomputeOffsets(CopyOp copy, IRMapping &mapping,
                                                 ArrayRef<Value> blockIds);
  /// The TMA producer's tile: per iteration, the stage's bytes expected on full[s] and a TMA
  /// load of each copy.
  FailureOr<Value> buildProducerTile(ArrayRef<Value> blockIds, Value base);
  /// The loading producer (a `loads_wgmma` ring): every producer thread runs the loop, in one
  /// of two versions chosen at run time: 16-byte cp.async chunks when every tensor allows them,
  /// else staged copies (any alignment) where every tile fits them, else realigned loads.
  LogicalResult buildLoadingProducer();
  FailureOr<Value> buildLoadingProducerTile(ArrayRef<Value> blockIds, Value base,
                                            ProducerCopyMode mode);
  /// The staged version: iteration it first realigns the copies of iteration it - ahead (their
  /// blocks have landed) and marks that stage full, then waits for iteration it's stage to be
  /// empty and issues its copies.
  FailureOr<Value> buildStagedProducerTile(ArrayRef<Value> blockIds, Value base);
  /// The loop bounds, recomputed for the tile `blockIds`, and the trip count.
  LogicalResult recomputeBounds(IRMapping &mapping, ArrayRef<Value> blockIds, Value &lb, Value &ub,
                                Value &step, Value &count);
  /// Waits until the stage of ring iteration `iter` is empty (parity of its round; round 0
  /// passes at once) and returns the stage.
  Value waitForEmptyStage(Value iter);
  /// A producer_copy of each of the ring's copies at iteration `iv` into stage `stage`.
  LogicalResult buildProducerCopies(IRMapping &mapping, ArrayRef<Value> blockIds, Value iv,
                                    Value stage, ProducerCopyMode mode);
  /// Moves the kernel's body (`moved`) into the tile loop at the builder's position and rewrites
  /// its main loop into the consumers' side of the ring.
  FailureOr<Value> buildConsumerTile(ArrayRef<Operation *> moved, ArrayRef<Value> blockIds,
                                     Value base);

  KernelOp kernel;
  scf::ForOp ring;
  OpBuilder b;
  Location loc;
  Value barriers, tid, edges;
  SmallVector<Value, 3> grid;
  int64_t stages = 1, consumerThreads = 0;
  /// The ring is `loads_wgmma`: the producer threads load the tiles themselves.
  bool loads = false;
};
} // namespace

FailureOr<Value> WarpSpecializer::recompute(Value value, IRMapping &mapping,
                                            ArrayRef<Value> blockIds) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() == &kernel.getBody().front())
      return value;
    return failure(); // an induction variable the mapping does not know
  }
  Operation *def = value.getDefiningOp();
  if (auto id = dyn_cast<BlockIdOp>(def)) {
    mapping.map(value, blockIds[id.getDim()]);
    return blockIds[id.getDim()];
  }
  if (def->getNumRegions() || !isMemoryEffectFree(def)) {
    def->emitOpError("computes a TMA copy's offset or the ring loop's bounds, but the producer "
                     "warpgroup cannot recompute it (not pure arithmetic); hint: compute "
                     "offsets from block ids, sizes, arguments and the loop variable");
    return failure();
  }
  for (Value operand : def->getOperands())
    if (failed(recompute(operand, mapping, blockIds)))
      return failure();
  Operation *clone = b.clone(*def, mapping);
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

LogicalResult
WarpSpecializer::buildTileLoop(function_ref<FailureOr<Value>(ArrayRef<Value>, Value)> body) {
  Value gx = grid[0], gy = grid[1], gz = grid[2];
  Value perSlice = mul(gx, gy);
  Value numTiles = mul(perSlice, gz);
  Value first = BlockIdOp::create(b, loc, 0);
  Value stride = GridDimOp::create(b, loc, 0);
  auto loop = scf::ForOp::create(b, loc, first, numTiles, stride, ValueRange{cst(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  Value bz = divu(t, perSlice);
  Value inSlice = remu(t, perSlice);
  Value perGroup = mul(gx, cst(kGroupRows));
  Value group = divu(inSlice, perGroup);
  Value firstRow = mul(group, cst(kGroupRows));
  Value rows =
      arith::MinUIOp::create(b, loc, arith::SubIOp::create(b, loc, gy, firstRow), cst(kGroupRows));
  Value inGroup = remu(inSlice, perGroup);
  Value by = add(firstRow, remu(inGroup, rows));
  Value bx = divu(inGroup, rows);
  Value base = loop.getRegionIterArg(0);
  FailureOr<Value> count = body({bx, by, bz}, base);
  if (failed(count))
    return failure();
  b.setInsertionPointToEnd(loop.getBody());
  scf::YieldOp::create(b, loc, ValueRange{add(base, *count)});
  return success();
}

LogicalResult WarpSpecializer::recomputeBounds(IRMapping &mapping, ArrayRef<Value> blockIds,
                                               Value &lb, Value &ub, Value &step, Value &count) {
  FailureOr<Value> l = recompute(ring.getLowerBound(), mapping, blockIds);
  FailureOr<Value> u = recompute(ring.getUpperBound(), mapping, blockIds);
  FailureOr<Value> s = recompute(ring.getStep(), mapping, blockIds);
  if (failed(l) || failed(u) || failed(s))
    return failure();
  lb = *l, ub = *u, step = *s;
  count = tripCount(lb, ub, step);
  return success();
}

Value WarpSpecializer::waitForEmptyStage(Value iter) {
  Value stage = arith::RemSIOp::create(b, loc, iter, cst(stages));
  Value round = arith::DivSIOp::create(b, loc, iter, cst(stages));
  // The empty barrier of round r completes phase r - 1; round 0 passes at once (parity 1).
  Value parity =
      arith::XOrIOp::create(b, loc, arith::AndIOp::create(b, loc, round, cst(1)), cst(1));
  MBarrierWaitOp::create(b, loc, barriers, add(stage, cst(stages)), parity);
  return stage;
}

FailureOr<Value> WarpSpecializer::buildProducerLoop(
    ArrayRef<Value> blockIds, Value base,
    function_ref<LogicalResult(IRMapping &, Value iv, Value stage)> body) {
  IRMapping mapping;
  Value lb, ub, step, count;
  if (failed(recomputeBounds(mapping, blockIds, lb, ub, step, count)))
    return failure();
  auto producer = scf::ForOp::create(b, loc, lb, ub, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(producer.getBody());
  Value stage = waitForEmptyStage(iteration(producer.getInductionVar(), lb, step, base));
  if (failed(body(mapping, producer.getInductionVar(), stage)))
    return failure();
  return count;
}

FailureOr<SmallVector<Value>> WarpSpecializer::recomputeOffsets(CopyOp copy, IRMapping &mapping,
                                                                ArrayRef<Value> blockIds) {
  SmallVector<Value> offsets;
  for (Value offset : copy.getSourceOffsets()) {
    FailureOr<Value> recomputed = recompute(offset, mapping, blockIds);
    if (failed(recomputed))
      return failure();
    offsets.push_back(*recomputed);
  }
  return offsets;
}

FailureOr<Value> WarpSpecializer::buildProducerTile(ArrayRef<Value> blockIds, Value base) {
  return buildProducerLoop(blockIds, base, [&](IRMapping &mapping, Value iv, Value stage) {
    SmallVector<CopyOp> copies(ring.getBody()->getOps<CopyOp>());
    int64_t bytes = 0;
    for (CopyOp copy : copies)
      bytes += cast<BufferType>(copy.getDest().getType()).getSizeInBytes();
    MBarrierArriveOp::create(b, loc, barriers, stage, b.getI64IntegerAttr(bytes), UnitAttr());
    mapping.map(ring.getInductionVar(), iv);
    for (CopyOp copy : copies) {
      FailureOr<SmallVector<Value>> offsets = recomputeOffsets(copy, mapping, blockIds);
      if (failed(offsets))
        return failure();
      TmaLoadOp::create(b, copy.getLoc(), copy.getSource(), *offsets,
                        stageOf(copy.getDest(), stage), barriers, stage);
    }
    return success();
  });
}

LogicalResult WarpSpecializer::buildProducerCopies(IRMapping &mapping, ArrayRef<Value> blockIds,
                                                   Value iv, Value stage, ProducerCopyMode mode) {
  mapping.map(ring.getInductionVar(), iv);
  bool staged = mode == ProducerCopyMode::StagedIssue || mode == ProducerCopyMode::StagedRealign;
  // Each stage's edge bytes: 16 per row of each tile, in the loop body's order.
  Value edgeStage = staged ? mul(stage, cst(edgeBlockBytesPerStage(ring))) : Value();
  int64_t edgeOffset = 0;
  for (CopyOp copy : ring.getBody()->getOps<CopyOp>()) {
    FailureOr<SmallVector<Value>> offsets = recomputeOffsets(copy, mapping, blockIds);
    if (failed(offsets))
      return failure();
    Value edgeIndex = staged ? add(edgeStage, cst(edgeOffset)) : Value();
    ProducerCopyOp::create(b, copy.getLoc(), copy.getSource(), *offsets,
                           stageOf(copy.getDest(), stage), staged ? edges : Value(), edgeIndex,
                           ProducerCopyModeAttr::get(b.getContext(), mode));
    edgeOffset += 16 * cast<BufferType>(copy.getDest().getType()).getShape()[0];
  }
  return success();
}

FailureOr<Value> WarpSpecializer::buildLoadingProducerTile(ArrayRef<Value> blockIds, Value base,
                                                           ProducerCopyMode mode) {
  return buildProducerLoop(blockIds, base, [&](IRMapping &mapping, Value iv, Value stage) {
    if (failed(buildProducerCopies(mapping, blockIds, iv, stage, mode)))
      return failure();
    if (mode == ProducerCopyMode::CpAsync) {
      // Arrives when this thread's copies so far have landed.
      MBarrierArriveOp::create(b, loc, barriers, stage, IntegerAttr(), b.getUnitAttr());
    } else {
      // This thread's shared stores, visible to wgmma (the async proxy), then released.
      AsyncProxyFenceOp::create(b, loc);
      MBarrierArriveOp::create(b, loc, barriers, stage, IntegerAttr(), UnitAttr());
    }
    return success();
  });
}

FailureOr<Value> WarpSpecializer::buildStagedProducerTile(ArrayRef<Value> blockIds, Value base) {
  IRMapping mapping;
  Value lb, ub, step, count;
  if (failed(recomputeBounds(mapping, blockIds, lb, ub, step, count)))
    return failure();
  // `ahead` stages of copies in flight, a realigned stage ready before the consumers release
  // the one before it, and the stage waited for is one whose full arrival was made
  // (ahead <= stages).
  int64_t ahead = std::max<int64_t>(1, stages - 1);
  auto at = [&](Value it) { return add(lb, mul(it, step)); };
  auto pipe = scf::ForOp::create(b, loc, cst(0), add(count, cst(ahead)), cst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(pipe.getBody());
  Value it = pipe.getInductionVar();
  {
    auto realign = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, it, cst(ahead)),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inRealign(b);
    b.setInsertionPointToStart(realign.thenBlock());
    Value done = arith::SubIOp::create(b, loc, it, cst(ahead));
    // This thread's copies of iteration `done` landed (the groups of the ahead - 1 iterations
    // after it may be pending); then the warp's (each row is one warp's).
    AsyncWaitOp::create(b, loc, ahead - 1, /*warp=*/true);
    Value stage = arith::RemSIOp::create(b, loc, add(base, done), cst(stages));
    IRMapping realignMapping = mapping;
    if (failed(buildProducerCopies(realignMapping, blockIds, at(done), stage,
                                   ProducerCopyMode::StagedRealign)))
      return failure();
    // The stage's shared writes (cp.async and realigned), visible to wgmma, then released.
    AsyncProxyFenceOp::create(b, loc);
    MBarrierArriveOp::create(b, loc, barriers, stage, IntegerAttr(), UnitAttr());
  }
  {
    auto issue = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, it, count),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inIssue(b);
    b.setInsertionPointToStart(issue.thenBlock());
    Value stage = waitForEmptyStage(add(base, it));
    IRMapping issueMapping = mapping;
    if (failed(buildProducerCopies(issueMapping, blockIds, at(it), stage,
                                   ProducerCopyMode::StagedIssue)))
      return failure();
  }
  AsyncCommitOp::create(b, loc);
  return count;
}

LogicalResult WarpSpecializer::buildLoadingProducer() {
  // One version per copy mode, chosen uniformly: 16-byte cp.async chunks when every tensor
  // allows them, else staged copies where every tile fits them, else realigned loads.
  Value allAligned = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  bool staged = true;
  for (CopyOp copy : ring.getBody()->getOps<CopyOp>()) {
    auto type = cast<BufferType>(copy.getDest().getType());
    int64_t elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    allAligned = arith::AndIOp::create(
        b, loc, allAligned, CpAsyncReadableOp::create(b, loc, b.getI1Type(), copy.getSource()));
    // A column offset not known to be a multiple of 16 bytes takes the staged or realigned copy.
    allAligned = arith::AndIOp::create(
        b, loc, allAligned,
        arith::ConstantIntOp::create(
            b, loc, b.getI1Type(), isKnown16ByteColumn(copy.getSourceOffsets().back(), elemBytes)));
    staged &= layout::fitsStagedCopy({type.getShape()[0], type.getShape()[1], elemBytes, 128}, 128);
  }
  auto versions = scf::IfOp::create(b, loc, allAligned, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(versions.thenBlock());
  if (failed(buildTileLoop([&](ArrayRef<Value> ids, Value base) {
        return buildLoadingProducerTile(ids, base, ProducerCopyMode::CpAsync);
      })))
    return failure();
  b.setInsertionPointToStart(versions.elseBlock());
  return buildTileLoop([&](ArrayRef<Value> ids, Value base) {
    if (staged)
      return buildStagedProducerTile(ids, base);
    return buildLoadingProducerTile(ids, base, ProducerCopyMode::Realigned);
  });
}

FailureOr<Value> WarpSpecializer::buildConsumerTile(ArrayRef<Operation *> moved,
                                                    ArrayRef<Value> blockIds, Value base) {
  Block *tileBody = b.getInsertionBlock();
  for (Operation *op : moved)
    op->moveBefore(tileBody, tileBody->end());
  // Block ids are the tile's.
  SmallVector<BlockIdOp> ids;
  for (Operation *op : moved)
    op->walk([&](BlockIdOp id) { ids.push_back(id); });
  for (BlockIdOp id : ids) {
    id.getResult().replaceAllUsesWith(blockIds[id.getDim()]);
    id.erase();
  }

  b.setInsertionPoint(ring);
  Value lb = ring.getLowerBound(), step = ring.getStep();
  Value count = tripCount(lb, ring.getUpperBound(), step);
  Block *body = ring.getBody();
  b.setInsertionPointToStart(body);
  Value iter = iteration(ring.getInductionVar(), lb, step, base);
  Value stage = arith::RemSIOp::create(b, loc, iter, cst(stages));
  Value round = arith::DivSIOp::create(b, loc, iter, cst(stages));
  MBarrierWaitOp::create(b, loc, barriers, stage, arith::AndIOp::create(b, loc, round, cst(1)));
  // A loading producer's cp.async and shared stores are generic-proxy writes; wgmma reads
  // through the async proxy.
  if (loads)
    AsyncProxyFenceOp::create(b, loc);
  // The copies are the producer's; the mbarriers order the stage's writes and reads.
  SmallVector<GemmOp> gemms;
  for (Operation &op : llvm::make_early_inc_range(*body)) {
    if (isa<CopyOp, BarrierOp>(op))
      op.erase();
    else if (auto gemm = dyn_cast<GemmOp>(op))
      gemms.push_back(gemm);
  }
  llvm::DenseMap<Value, Value> views;
  for (GemmOp gemm : gemms) {
    for (OpOperand &operand : gemm->getOpOperands()) {
      auto alloc = operand.get().getDefiningOp<AllocOp>();
      if (!alloc || !alloc->hasAttr(kStagesAttr))
        continue;
      Value &view = views[operand.get()];
      if (!view)
        view = stageOf(operand.get(), stage);
      operand.set(view);
    }
    gemm->setAttr(kAsyncAttr, b.getUnitAttr());
  }
  // Wait for this iteration's gemms, then free the stage at once: the producer refills it while
  // the next stages (already loaded) are multiplied. Keeping a group in flight across
  // iterations made ptxas serialize the wgmmas of the persistent loop (measured slower).
  b.setInsertionPoint(body->getTerminator());
  MmaWaitOp::create(b, loc, 0, ValueRange{});
  Value lane0 = eq(remu(ThreadIdOp::create(b, loc, 0), cst(32)), cst(0));
  auto release = scf::IfOp::create(b, loc, lane0, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(release.thenBlock());
    MBarrierArriveOp::create(b, loc, barriers, add(stage, cst(stages)), IntegerAttr(), UnitAttr());
  }
  // After the loop every gemm is complete before the accumulators are read.
  b.setInsertionPointAfter(ring);
  SetVector<Value> accumulators;
  for (GemmOp gemm : gemms)
    accumulators.insert(gemm.getC());
  MmaWaitOp::create(b, loc, 0, accumulators.getArrayRef());
  for (StringRef name : {kPipelineAttr, kStagesAttr, kBarriersAttr})
    ring->removeAttr(name);
  // The consumers finish a tile together before the next one reuses block-wide buffers.
  b.setInsertionPointToEnd(tileBody);
  BarrierOp::create(b, loc);
  return count;
}

LogicalResult WarpSpecializer::run() {
  consumerThreads = kernel.getThreads()[0];
  stages = cast<IntegerAttr>(ring->getAttr(kStagesAttr)).getInt();
  loads = getPipelineKind(ring) == PipelineKind::LoadsWgmma;
  int64_t barrierOffset = cast<IntegerAttr>(ring->getAttr(kBarriersAttr)).getInt();
  Block &entry = kernel.getBody().front();
  // Everything but the allocs (and the terminator) moves into the consumers' tile loop.
  SmallVector<Operation *> moved;
  for (Operation &op : entry.without_terminator())
    if (!isa<AllocOp>(op))
      moved.push_back(&op);

  b.setInsertionPoint(entry.getTerminator());
  auto barriersType =
      BufferType::get(b.getContext(), BufferSpace::Shared, {2 * stages}, b.getI64Type());
  auto alloc = AllocOp::create(b, loc, barriersType);
  alloc->setAttr(kOffsetAttr, b.getI64IntegerAttr(barrierOffset));
  barriers = alloc.getBuffer();
  int64_t producerThreads = cast<IntegerAttr>(kernel->getAttr(kProducerThreadsAttr)).getInt();
  if (loads) {
    // The staged copies' edge bytes follow the barriers.
    int64_t bytes = stages * edgeBlockBytesPerStage(ring);
    auto edgesType = BufferType::get(b.getContext(), BufferSpace::Shared, {bytes}, b.getI8Type());
    auto edgesAlloc = AllocOp::create(b, loc, edgesType);
    edgesAlloc->setAttr(kOffsetAttr, b.getI64IntegerAttr(edgeBlocksOffset(barrierOffset, stages)));
    edges = edgesAlloc.getBuffer();
  }
  // Thread 0 initializes the barriers: full[s] completes on one arrival plus the TMA bytes (on
  // one arrival per producer thread for a loading producer), empty[s] on one arrival per
  // consumer warp.
  tid = ThreadIdOp::create(b, loc, 0);
  auto init = scf::IfOp::create(b, loc, eq(tid, cst(0)), /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(init.thenBlock());
    for (int64_t s = 0; s < stages; ++s) {
      MBarrierInitOp::create(b, loc, barriers, cst(s), loads ? producerThreads : 1);
      MBarrierInitOp::create(b, loc, barriers, cst(stages + s), consumerThreads / 32);
    }
  }
  BarrierOp::create(b, loc);
  // The kernel's grid, from its grid region: the launcher starts one block per multiprocessor
  // (at most one per tile) and each block walks the tiles.
  {
    IRMapping mapping;
    Block &gridBlock = kernel.getGrid().front();
    mapping.map(gridBlock.getArguments(), entry.getArguments());
    for (Operation &op : gridBlock.without_terminator())
      b.clone(op, mapping);
    for (Value v : gridBlock.getTerminator()->getOperands().take_front(3))
      grid.push_back(mapping.lookup(v));
  }

  // The consumers take the registers the producer gives back, of the multiprocessor's 64 K:
  // the entry runs one block per multiprocessor (tlc-mark-grid-constants; ptxas allocates the
  // whole entry against the launch bound, so a bound of two blocks of 384 threads, 80
  // registers, leaves wgmma's accumulators no room), whatever blocks_per_sm says.
  int64_t blockRegisters = 65536;
  int64_t producerRegisters = loads ? kLoadProducerRegisters : kTmaProducerRegisters;
  int64_t consumerRegisters = std::clamp<int64_t>(
      (blockRegisters - producerRegisters * producerThreads) / consumerThreads / 8 * 8, 24, 240);
  auto split = WarpSpecializeOp::create(b, loc, producerRegisters, consumerRegisters);
  for (Region *region : {&split.getProducer(), &split.getConsumers()}) {
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(region);
    YieldOp::create(b, loc);
  }
  if (loads) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(split.getProducer().front().getTerminator());
    if (failed(buildLoadingProducer()))
      return failure();
  } else {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(split.getProducer().front().getTerminator());
    auto elected =
        scf::IfOp::create(b, loc, eq(tid, cst(consumerThreads)), /*withElseRegion=*/false);
    b.setInsertionPointToStart(elected.thenBlock());
    if (failed(buildTileLoop(
            [&](ArrayRef<Value> ids, Value base) { return buildProducerTile(ids, base); })))
      return failure();
  }
  b.setInsertionPoint(split.getConsumers().front().getTerminator());
  return buildTileLoop(
      [&](ArrayRef<Value> ids, Value base) { return buildConsumerTile(moved, ids, base); });
}

namespace {
struct WarpSpecializePass : public tlc::tile::impl::TileWarpSpecializeBase<WarpSpecializePass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    SmallVector<scf::ForOp> rings;
    kernel.walk([&](scf::ForOp loop) {
      if (std::optional<PipelineKind> kind = getPipelineKind(loop); kind && hasProducer(*kind))
        rings.push_back(loop);
    });
    if (rings.empty())
      return;
    scf::ForOp ring = rings.front();
    if (rings.size() > 1 || ring->getParentOp() != kernel) {
      ring.emitError() << "a ring with a producer warpgroup must be the only one of its kernel "
                       << "and directly in its body; hint: tile-software-pipeline makes only "
                       << "such loops 'tma_wgmma' or 'loads_wgmma' rings";
      return signalPassFailure();
    }
    if (!ring->hasAttr(kBarriersAttr) || !isa<IntegerAttr>(ring->getAttr(kStagesAttr))) {
      ring.emitError() << "this ring has no mbarriers placed in shared memory yet; hint: run "
                       << "tile-shared-memory-layout before tile-warp-specialize";
      return signalPassFailure();
    }
    if (!kernel->hasAttr(kProducerThreadsAttr)) {
      ring.emitError() << "this ring has no producer warpgroup ('" << kProducerThreadsAttr
                       << "' on the kernel); hint: run tile-software-pipeline";
      return signalPassFailure();
    }
    if (failed(WarpSpecializer(kernel, ring).run()))
      return signalPassFailure();
  }
};
} // namespace
