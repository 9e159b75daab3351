//===- WarpSpecialize.cpp - A ring's producer and consumers, in tiles ------===//
//
// A kernel whose top-level main loop is a `tma_wgmma` or `loads_wgmma` ring, or whose register
// ring is `tma_regs` (tile-software-pipeline, placed by tile-shared-memory-layout), becomes, in
// the tile dialect:
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
//     loop the accumulators handed over; a barrier of the consumers after the tile.
//     `tma_regs`: the body stays as the register strategy placed it (its wgmma waits included);
//     each iteration waits on full[s], its TMA copies' tiles read at stage s, and each consumer
//     warp releases the stage at the iteration's end, where its gemms are complete
//   }
//
// Pairs (opt-in, the `pairs` option; a TMA ring whose trip count does not depend on the block
// row, with a copy whose offsets do not either: B's tiles of a GEMM): the kernel is marked
// `tile.cluster = 2` and a launch may start its blocks in clusters of two along x. The blocks
// of a cluster walk pairs of tiles in adjacent block rows (2 r and 2 r + 1 of one column), in
// lockstep: both issue such a copy as a `multicast` load (each half of its boxes, written to
// both), each empty[s] completes on the consumer warps of both blocks (lane r of each warp
// arrives `at` block r), and the producer waits for the last releases of its stages before the
// block exits. A tile past the grid (the second of a pair when the rows are odd) passes the
// ring's stages on without using them. A launch without clusters (cluster size 1) walks single
// tiles as before.
//
// Stream-K (a TMA ring whose trip count is the same for every tile and whose accumulators are
// sums over it: planStreamK): both roles walk the same work units. With a workspace
// (tile.stream_k_active), the tiles of the last partial wave and of one full wave before it
// (all tiles when there are fewer than blocks) are split along K: block c takes iterations
// [c * total / P, (c + 1) * total / P) of them, in pieces cut at tile boundaries, processed last
// piece first. A piece that ends before its tile's last iteration stores its accumulators in
// slot c of the workspace and signals it (each block has at most one such piece, its first);
// the piece that ends the tile adds the slots of the blocks before it that hold the tile's
// earlier iterations (in block order: deterministic), then runs the epilogue. The other tiles
// (whole, before the split ones) are walked as above.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"
#include "tlc/Layout/Layout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

/// Registers per producer thread, at least and at most: a TMA producer issues boxes from one
/// thread (fewer than 56 made ptxas spill the stream-K schedule's indices); a loading one keeps
/// several chunks' 16-byte blocks in flight per thread.
static constexpr int64_t kTmaProducerRegisters = 56;
static constexpr int64_t kTmaProducerRegistersMax = 96;
static constexpr int64_t kLoadProducerRegisters = 152;
/// A `tma_regs` ring's producer issues one tile's boxes at a time and leaves the rest to the
/// consumers, whose softmax and two accumulators need nearly all of them: for attention at
/// BM = 128 (two consumer warpgroups), 56 + 224 spilled 40 bytes in the consumers, 24 + 240 52
/// in the producer, 40 + 232 8 (ptxas).
static constexpr int64_t kRegisterRingProducerRegisters = 40;
/// Block rows of a group of tiles walked together (blocks running at once share rows of A and
/// columns of B in L2).
static constexpr int64_t kGroupRows = 8;

/// A copy the producer issues by TMA (marked by tile-choose-strategy).
static bool isTmaCopy(Operation *op) { return isa<CopyOp>(op) && op->hasAttr(kTmaAttr); }

namespace {
/// One unit of work of a block: a tile (its block ids) and the ring iterations [kBegin, kEnd)
/// of it (null: all of them), `base` the ring iterations of earlier units. With stream-K,
/// `firstBlock` is the block that holds the tile's first iteration (the contributors of a
/// piece that ends the tile are the blocks from it to this one, exclusive).
struct WorkUnit {
  SmallVector<Value, 3> ids;
  Value base, kBegin, kEnd, firstBlock;
  /// The unit's place among this block's units (0, 1, ...; without stream-K).
  Value ordinal;
};

/// Rewrites one kernel; `ring` is its `tma_wgmma` loop.
class WarpSpecializer {
public:
  WarpSpecializer(KernelOp kernel, scf::ForOp ring, bool allowPairs, bool allowOverlap)
      : kernel(kernel), ring(ring), b(kernel.getContext()), loc(kernel.getLoc()),
        allowPairs(allowPairs), allowOverlap(allowOverlap) {}

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
  using UnitBody = function_ref<FailureOr<Value>(const WorkUnit &)>;
  /// The persistent loop over the grid's tiles: `body` gets each unit and returns its ring
  /// iterations; the result counts the block's ring iterations. With stream-K, the whole tiles
  /// and then the split ones (buildStreamKLoops).
  FailureOr<Value> buildTileLoop(UnitBody body);
  /// `body` on `unit` at the builder's position in `loop`, whose iteration argument then counts
  /// the unit's ring iterations.
  LogicalResult buildUnit(scf::ForOp loop, const WorkUnit &unit, UnitBody body);
  /// The block ids of tile `t` (groups of kGroupRows block rows walked together); with pairs,
  /// `t` counts pairs of rows and the row is this block's of the pair.
  SmallVector<Value, 3> tileIds(Value t);
  FailureOr<Value> buildStreamKLoops(UnitBody body);
  /// Whether the ring's blocks can run in pairs: its bounds do not depend on the block row and
  /// some of its copies (collected in `multicast`) do not either.
  bool planPairs();
  /// The walkers of the grid's tiles (clusters with pairs, else blocks), their count and this
  /// one's index; the workspace slot of walker `c` (this block's of the pair).
  Value walkers();
  Value walker();
  Value slotOf(Value c);
  /// The ring's bounds for `unit`: iterations [kBegin, kEnd) of `lb .. ub step step`.
  void restrictBounds(const WorkUnit &unit, Value &lb, Value &ub, Value step);
  /// The producer's loop over the unit's ring iterations (its bounds recomputed): each waits
  /// for its stage to be empty, then runs `body` with the mapping, the loop variable, the ring
  /// iteration and the stage. Returns the unit's iterations.
  FailureOr<Value> buildProducerLoop(
      const WorkUnit &unit,
      function_ref<LogicalResult(IRMapping &, Value iv, Value iter, Value stage)> body);
  /// The offsets of the ring's copy `copy`, recomputed (recompute).
  FailureOr<SmallVector<Value>> recomputeOffsets(CopyOp copy, IRMapping &mapping,
                                                 ArrayRef<Value> blockIds);
  /// The TMA producer's tile: per iteration, the stage's bytes expected on full[s] and a TMA
  /// load of each copy.
  FailureOr<Value> buildProducerTile(const WorkUnit &unit);
  /// The loading producer (a `loads_wgmma` ring): every producer thread runs the loop, in one
  /// of two versions chosen at run time: 16-byte cp.async chunks when every tensor allows them,
  /// else staged copies (any alignment) where every tile fits them, else realigned loads.
  LogicalResult buildLoadingProducer();
  FailureOr<Value> buildLoadingProducerTile(const WorkUnit &unit, ProducerCopyMode mode);
  /// The staged version: iteration it first realigns the copies of iteration it - ahead (their
  /// blocks have landed) and marks that stage full, then waits for iteration it's stage to be
  /// empty and issues its copies.
  FailureOr<Value> buildStagedProducerTile(const WorkUnit &unit);
  /// The loop bounds, recomputed for the tile `blockIds`, and the trip count.
  LogicalResult recomputeBounds(IRMapping &mapping, ArrayRef<Value> blockIds, Value &lb, Value &ub,
                                Value &step, Value &count);
  /// Waits until the stage of ring iteration `iter` is empty (parity of its round; round 0
  /// passes at once) and returns the stage.
  Value waitForEmptyStage(Value iter);
  /// Waits until the stage of ring iteration `iter` is full (parity of its round) and returns
  /// the stage.
  Value waitForFullStage(Value iter);
  /// A producer_copy of each of the ring's copies at iteration `iv` into stage `stage`.
  LogicalResult buildProducerCopies(IRMapping &mapping, ArrayRef<Value> blockIds, Value iv,
                                    Value stage, ProducerCopyMode mode);
  /// Moves the kernel's body (`moved`) into the tile loop at the builder's position and rewrites
  /// its main loop into the consumers' side of the ring. With pairs, a tile past the grid's rows
  /// only passes the stages on (buildIdleConsumers).
  FailureOr<Value> buildConsumerTile(ArrayRef<Operation *> moved, const WorkUnit &unit);
  FailureOr<Value> buildConsumerBody(ArrayRef<Operation *> moved, const WorkUnit &unit);
  /// The consumers of a tile outside the grid: each stage waited for full, then released.
  FailureOr<Value> buildIdleConsumers(const WorkUnit &unit);
  /// A `tma_regs` ring's consumers (the body moved into `tileBody`, before `tileEnd` or at its
  /// end): each iteration waits for its stage to be full, reads the ring's tiles at that stage,
  /// and releases it at its end (its wgmma gemms are complete there).
  FailureOr<Value> buildRegisterConsumers(Block *tileBody, Operation *tileEnd,
                                          const WorkUnit &unit);
  /// Moves the builder's insertion point past the ops `erased` will select (ops about to be
  /// erased: the insertion point may be one of them, a body's first op).
  void keepInsertionPoint(function_ref<bool(Operation *)> erased) {
    Block::iterator at = b.getInsertionPoint();
    while (at != b.getInsertionBlock()->end() && erased(&*at))
      ++at;
    b.setInsertionPoint(b.getInsertionBlock(), at);
  }
  /// The consumer warps' release of `stage` (lane 0 of each; to both blocks with pairs).
  void releaseStage(Value stage);
  /// A `tma_regs` ring's consumers with its last gemm a step behind (planOverlap): the first
  /// iteration without it before the loop, each later one issuing the previous iteration's after
  /// its first gemm and waiting for it (then releasing that iteration's stage) before the first
  /// op that needs it, the last iteration's after the loop; all of it only where the ring has an
  /// iteration. `iter`: the body's ring iteration; false where the body's
  /// waits are not as tile-place-mma-waits leaves them (nothing changed then).
  bool overlapLastGemm(const OverlapPlan &plan, Value iter, const WorkUnit &unit);
  /// Lane 0 of each consumer warp arrives on mbarrier `index` + `offset` (the sum computed where
  /// it arrives) of this block; with `cluster`, lane r on that of block r of the cluster.
  void releaseBarrier(Value index, int64_t offset = 0, bool cluster = false);
  /// After a stream-K unit's main loop (the accumulators complete): the ops after `from` (the
  /// epilogue) run where the unit ends its tile, after the contributors' slots are added; a
  /// unit that does not stores its accumulators in its block's slot and signals it.
  void buildStreamKEpilogue(const WorkUnit &unit, Operation *from);

  KernelOp kernel;
  scf::ForOp ring;
  OpBuilder b;
  Location loc;
  Value barriers, tid, edges;
  SmallVector<Value, 3> grid;
  int64_t stages = 1, consumerThreads = 0;
  /// The ring is `loads_wgmma`: the producer threads load the tiles themselves.
  bool loads = false;
  /// The ring is `tma_regs`: a loop of the register strategy (its waits placed already).
  bool registerRing = false;
  /// A `tma_regs` ring's TMA copies before it in the kernel's body (attention's Q): the producer
  /// loads them once per tile.
  SmallVector<CopyOp> tileCopies;
  /// Stream-K: the accumulators the ring's gemms sum into and their byte offsets in a slot
  /// (empty: no stream-K); per region, the ring's iterations per tile, the split iterations
  /// (total), the blocks (P) and this block (c).
  SmallVector<std::pair<Value, int64_t>> partials;
  Value iters, total, blocks, block;
  /// Pairs (planPairs): the copies one block issues for the cluster, the launch's cluster size
  /// and this block's rank in it, and the grid's rows counted in pairs (the rows without).
  bool pairs = false, allowPairs = false;
  /// Whether a `tma_regs` ring's consumers may overlap its last gemm with the next iteration.
  bool allowOverlap = false;
  llvm::SmallPtrSet<Operation *, 4> multicast;
  Value clusterSize, clusterRank, pairRows;
  /// log2 of the cluster's size (1 or 2 blocks): divisions by it are shifts (a division by a
  /// run-time value costs the producer registers).
  Value clusterShift;
};

} // namespace

/// Whether `value` is computed from the kernel's arguments and constants by pure ops alone.
static bool sameForEveryTile(Value value, KernelOp kernel) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() == &kernel.getBody().front();
  Operation *def = value.getDefiningOp();
  if (isa<BlockIdOp>(def) || def->getNumRegions() || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(),
                      [&](Value operand) { return sameForEveryTile(operand, kernel); });
}

/// Whether `value` may depend on block id `dim` (the ring's induction variable and the kernel's
/// arguments do not; any other block argument or op with regions counts as depending).
static bool dependsOnBlockDim(Value value, int64_t dim, KernelOp kernel, scf::ForOp ring,
                              llvm::DenseMap<Value, bool> &memo) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() != &kernel.getBody().front() && arg != ring.getInductionVar();
  if (auto found = memo.find(value); found != memo.end())
    return found->second;
  Operation *def = value.getDefiningOp();
  bool depends = false;
  if (auto id = dyn_cast<BlockIdOp>(def))
    depends = static_cast<int64_t>(id.getDim()) == dim;
  else if (def->getNumRegions())
    depends = true;
  else
    depends = llvm::any_of(def->getOperands(), [&](Value operand) {
      return dependsOnBlockDim(operand, dim, kernel, ring, memo);
    });
  memo[value] = depends;
  return depends;
}

StreamKPlan tlc::tile::planStreamK(KernelOp kernel, scf::ForOp ring, int64_t consumerThreads) {
  StreamKPlan plan;
  auto refuse = [&](StringRef why) {
    plan.accumulators.clear();
    plan.whyNot = why.str();
    return plan;
  };
  if (getPipelineKind(ring) != PipelineKind::TmaWgmma)
    return refuse("only a ring filled by TMA splits tiles");
  if (ring.getNumResults() || ring->getParentOp() != kernel)
    return refuse("the loop carries values or is not in the kernel's body");
  for (Value bound : {ring.getLowerBound(), ring.getUpperBound(), ring.getStep()})
    if (!sameForEveryTile(bound, kernel))
      return refuse("its trip count is not the same for every tile");
  SetVector<Value> sums;
  for (Operation &op : ring.getBody()->without_terminator()) {
    if (auto gemm = dyn_cast<GemmOp>(op)) {
      if (gemm.getClear())
        return refuse("a gemm overwrites its accumulator ('clear')");
      sums.insert(gemm.getC());
      continue;
    }
    if (isa<CopyOp, BarrierOp>(op))
      continue;
    if (op.getNumRegions() || !isMemoryEffectFree(&op))
      return refuse("its body holds more than copies, gemms and arithmetic");
  }
  // Before the ring: pure ops, allocs and fills; each accumulator filled with zero.
  llvm::SmallPtrSet<Value, 4> zeroed;
  for (Operation &op : kernel.getBody().front()) {
    if (&op == ring.getOperation())
      break;
    if (auto fill = dyn_cast<FillOp>(op)) {
      if (matchPattern(fill.getValue(), m_AnyZeroFloat()))
        zeroed.insert(fill.getBuffer());
      else
        zeroed.erase(fill.getBuffer());
      continue;
    }
    if (isa<AllocOp>(op))
      continue;
    if (op.getNumRegions() || !isMemoryEffectFree(&op))
      return refuse("the kernel does more than arithmetic and fills before the loop");
  }
  int64_t bytes = 0;
  for (Value acc : sums) {
    auto alloc = acc.getDefiningOp<AllocOp>();
    std::optional<AccLayout> layout = getAccLayout(acc);
    auto type = cast<BufferType>(acc.getType());
    if (!alloc || !layout || !type.isFragment() || !type.getElementType().isF32())
      return refuse("an accumulator is not a register fragment of f32");
    if (!zeroed.contains(acc))
      return refuse("an accumulator does not start at zero");
    plan.accumulators.push_back({acc, bytes});
    bytes += layout->slots() * 4 * consumerThreads;
  }
  if (!bytes || bytes % 16)
    return refuse("no accumulator");
  plan.slotBytes = bytes;
  return plan;
}

FailureOr<Value> WarpSpecializer::recompute(Value value, IRMapping &mapping,
                                            ArrayRef<Value> blockIds) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() == &kernel.getBody().front())
      return value;
    // An induction variable the mapping does not know.
    return emitError(arg.getLoc())
           << "a TMA copy's offset or the ring loop's bounds depend on an enclosing loop's "
              "variable, which the producer warpgroup cannot recompute; hint: compute offsets "
              "from block ids, sizes, arguments and the ring's own loop variable";
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

PairPlan tlc::tile::planPairs(KernelOp kernel, scf::ForOp ring) {
  PairPlan plan;
  if (getPipelineKind(ring) != PipelineKind::TmaWgmma) {
    plan.whyNot = "only a TMA + wgmma main loop shares its loads";
    return plan;
  }
  llvm::DenseMap<Value, bool> memo;
  for (Value bound : {ring.getLowerBound(), ring.getUpperBound(), ring.getStep()})
    if (dependsOnBlockDim(bound, 1, kernel, ring, memo)) {
      plan.whyNot = "its trip count depends on the block row";
      return plan;
    }
  for (CopyOp copy : ring.getBody()->getOps<CopyOp>())
    if (llvm::none_of(copy.getSourceOffsets(), [&](Value offset) {
          return dependsOnBlockDim(offset, 1, kernel, ring, memo);
        }))
      plan.multicast.push_back(copy);
  if (plan.multicast.empty())
    plan.whyNot = "every copy depends on the block row";
  return plan;
}

bool WarpSpecializer::planPairs() {
  if (!allowPairs)
    return false;
  for (CopyOp copy : tlc::tile::planPairs(kernel, ring).multicast)
    multicast.insert(copy);
  return !multicast.empty();
}

Value WarpSpecializer::walkers() {
  Value n = GridDimOp::create(b, loc, 0);
  return pairs ? arith::ShRUIOp::create(b, loc, n, clusterShift) : n;
}

Value WarpSpecializer::walker() {
  Value x = BlockIdOp::create(b, loc, 0);
  return pairs ? arith::ShRUIOp::create(b, loc, x, clusterShift) : x;
}

Value WarpSpecializer::slotOf(Value c) {
  return pairs ? add(arith::ShLIOp::create(b, loc, c, clusterShift), clusterRank) : c;
}

SmallVector<Value, 3> WarpSpecializer::tileIds(Value t) {
  Value gx = grid[0], gy = pairRows;
  Value perSlice = mul(gx, gy);
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
  if (pairs)
    by = add(arith::ShLIOp::create(b, loc, by, clusterShift), clusterRank);
  return {bx, by, bz};
}

FailureOr<Value> WarpSpecializer::buildTileLoop(UnitBody body) {
  if (!partials.empty())
    return buildStreamKLoops(body);
  Value numTiles = mul(mul(grid[0], pairRows), grid[2]);
  Value first = walker();
  Value stride = walkers();
  auto loop = scf::ForOp::create(b, loc, first, numTiles, stride, ValueRange{cst(0)});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    WorkUnit unit;
    unit.ids = tileIds(loop.getInductionVar());
    unit.base = loop.getRegionIterArg(0);
    unit.ordinal = divu(arith::SubIOp::create(b, loc, loop.getInductionVar(), first), stride);
    if (failed(buildUnit(loop, unit, body)))
      return failure();
  }
  return loop.getResult(0);
}

LogicalResult WarpSpecializer::buildUnit(scf::ForOp loop, const WorkUnit &unit, UnitBody body) {
  FailureOr<Value> count = body(unit);
  if (failed(count))
    return failure();
  b.setInsertionPointToEnd(loop.getBody());
  scf::YieldOp::create(b, loc, ValueRange{add(unit.base, *count)});
  return success();
}

FailureOr<Value> WarpSpecializer::buildStreamKLoops(UnitBody body) {
  // The ring's iterations per tile: the same for every tile (planStreamK).
  IRMapping mapping;
  Value lb, ub, step;
  if (failed(recomputeBounds(mapping, {}, lb, ub, step, iters)))
    return failure();
  Value tiles = mul(mul(grid[0], pairRows), grid[2]);
  blocks = walkers();
  block = walker();
  auto ult = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  };
  auto select = [&](Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); };
  // Split: every tile when there are fewer tiles than blocks; else the last partial wave's
  // tiles and one full wave's (none when the waves are full); only with a workspace and at
  // least two iterations per block.
  Value rem = remu(tiles, blocks);
  Value split =
      select(ult(tiles, blocks), tiles, select(eq(rem, cst(0)), cst(0), add(rem, blocks)));
  Value worth =
      arith::AndIOp::create(b, loc, StreamKActiveOp::create(b, loc),
                            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                                  mul(split, iters), mul(blocks, cst(2))));
  split = select(worth, split, cst(0));
  Value whole = arith::SubIOp::create(b, loc, tiles, split);
  total = mul(split, iters);

  // One loop over this block's units (one copy of the body): first its whole tiles c, c + P,
  // ... below `whole`, then its split iterations [s, e) in pieces cut at tile boundaries, last
  // piece first.
  Value mine = select(
      ult(block, whole),
      arith::CeilDivUIOp::create(b, loc, arith::SubIOp::create(b, loc, whole, block), blocks),
      cst(0));
  Value s = divu(mul(block, total), blocks);
  Value e = divu(mul(add(block, cst(1)), total), blocks);
  Value safeIters = arith::MaxUIOp::create(b, loc, iters, cst(1));
  Value lastTile = divu(
      arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, e, cst(1)), cst(1)), safeIters);
  Value pieces = select(
      ult(s, e), add(arith::SubIOp::create(b, loc, lastTile, divu(s, safeIters)), cst(1)), cst(0));
  auto loop = scf::ForOp::create(b, loc, cst(0), add(mine, pieces), cst(1), ValueRange{cst(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value u = loop.getInductionVar();
  Value isWhole = ult(u, mine);
  Value tile = arith::SubIOp::create(b, loc, lastTile, arith::SubIOp::create(b, loc, u, mine));
  Value tileBegin = mul(tile, iters);
  WorkUnit unit;
  unit.ids = tileIds(select(isWhole, add(block, mul(u, blocks)), add(whole, tile)));
  unit.base = loop.getRegionIterArg(0);
  unit.kBegin = select(
      isWhole, cst(0),
      arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, s, tileBegin), tileBegin));
  unit.kEnd =
      select(isWhole, iters,
             arith::SubIOp::create(b, loc, arith::MinUIOp::create(b, loc, e, add(tileBegin, iters)),
                                   tileBegin));
  // The block whose range holds split iteration i is ((i + 1) * P - 1) / total.
  unit.firstBlock =
      select(isWhole, block,
             divu(arith::SubIOp::create(b, loc, mul(add(tileBegin, cst(1)), blocks), cst(1)),
                  arith::MaxUIOp::create(b, loc, total, cst(1))));
  if (failed(buildUnit(loop, unit, body)))
    return failure();
  return loop.getResult(0);
}

void WarpSpecializer::restrictBounds(const WorkUnit &unit, Value &lb, Value &ub, Value step) {
  if (!unit.kBegin)
    return;
  Value start = lb;
  lb = add(start, mul(unit.kBegin, step));
  ub = arith::MinSIOp::create(b, loc, ub, add(start, mul(unit.kEnd, step)));
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

Value WarpSpecializer::waitForFullStage(Value iter) {
  Value stage = arith::RemSIOp::create(b, loc, iter, cst(stages));
  Value round = arith::DivSIOp::create(b, loc, iter, cst(stages));
  MBarrierWaitOp::create(b, loc, barriers, stage, arith::AndIOp::create(b, loc, round, cst(1)));
  return stage;
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
    const WorkUnit &unit,
    function_ref<LogicalResult(IRMapping &, Value iv, Value iter, Value stage)> body) {
  IRMapping mapping;
  Value lb, ub, step, count;
  if (failed(recomputeBounds(mapping, unit.ids, lb, ub, step, count)))
    return failure();
  restrictBounds(unit, lb, ub, step);
  if (unit.kBegin)
    count = arith::SubIOp::create(b, loc, unit.kEnd, unit.kBegin);
  auto producer = scf::ForOp::create(b, loc, lb, ub, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(producer.getBody());
  Value iter = iteration(producer.getInductionVar(), lb, step, unit.base);
  Value stage = waitForEmptyStage(iter);
  if (failed(body(mapping, producer.getInductionVar(), iter, stage)))
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

FailureOr<Value> WarpSpecializer::buildProducerTile(const WorkUnit &unit) {
  ArrayRef<Value> blockIds = unit.ids;
  if (!tileCopies.empty()) {
    // The tile's own copies (attention's Q), once the consumers released the previous tile's.
    Value round = arith::AndIOp::create(b, loc, unit.ordinal, cst(1));
    MBarrierWaitOp::create(b, loc, barriers, cst(2 * stages + 1),
                           arith::XOrIOp::create(b, loc, round, cst(1)));
    int64_t bytes = 0;
    for (CopyOp copy : tileCopies)
      bytes += cast<BufferType>(copy.getDest().getType()).getSizeInBytes();
    MBarrierArriveOp::create(b, loc, barriers, cst(2 * stages), b.getI64IntegerAttr(bytes),
                             UnitAttr(), Value());
    IRMapping mapping;
    for (CopyOp copy : tileCopies) {
      FailureOr<SmallVector<Value>> offsets = recomputeOffsets(copy, mapping, blockIds);
      if (failed(offsets))
        return failure();
      TmaLoadOp::create(b, copy.getLoc(), copy.getSource(), *offsets, copy.getDest(), barriers,
                        cst(2 * stages));
    }
  }
  return buildProducerLoop(unit, [&](IRMapping &mapping, Value iv, Value iter, Value stage) {
    // The ring's copies (a `tma_regs` body may hold other copies: into registers, to tensors).
    SmallVector<CopyOp> copies;
    for (CopyOp copy : ring.getBody()->getOps<CopyOp>())
      if (copy->hasAttr(kTmaAttr))
        copies.push_back(copy);
    int64_t bytes = 0;
    for (CopyOp copy : copies)
      bytes += cast<BufferType>(copy.getDest().getType()).getSizeInBytes();
    MBarrierArriveOp::create(b, loc, barriers, stage, b.getI64IntegerAttr(bytes), UnitAttr(),
                             Value());
    mapping.map(ring.getInductionVar(), iv);
    for (CopyOp copy : copies) {
      FailureOr<SmallVector<Value>> offsets = recomputeOffsets(copy, mapping, blockIds);
      if (failed(offsets))
        return failure();
      auto load = TmaLoadOp::create(b, copy.getLoc(), copy.getSource(), *offsets,
                                    stageOf(copy.getDest(), stage), barriers, stage);
      // With pairs, both blocks issue the copies they share, each its share of the boxes.
      if (multicast.contains(copy))
        load.setMulticast(true);
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

FailureOr<Value> WarpSpecializer::buildLoadingProducerTile(const WorkUnit &unit,
                                                           ProducerCopyMode mode) {
  return buildProducerLoop(unit, [&](IRMapping &mapping, Value iv, Value, Value stage) {
    if (failed(buildProducerCopies(mapping, unit.ids, iv, stage, mode)))
      return failure();
    if (mode == ProducerCopyMode::CpAsync) {
      // Arrives when this thread's copies so far have landed.
      MBarrierArriveOp::create(b, loc, barriers, stage, IntegerAttr(), b.getUnitAttr(), Value());
    } else {
      // This thread's shared stores, visible to wgmma (the async proxy), then released.
      AsyncProxyFenceOp::create(b, loc);
      MBarrierArriveOp::create(b, loc, barriers, stage, IntegerAttr(), UnitAttr(), Value());
    }
    return success();
  });
}

FailureOr<Value> WarpSpecializer::buildStagedProducerTile(const WorkUnit &unit) {
  ArrayRef<Value> blockIds = unit.ids;
  Value base = unit.base;
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
    MBarrierArriveOp::create(b, loc, barriers, stage, IntegerAttr(), UnitAttr(), Value());
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
  if (failed(buildTileLoop([&](const WorkUnit &unit) {
        return buildLoadingProducerTile(unit, ProducerCopyMode::CpAsync);
      })))
    return failure();
  b.setInsertionPointToStart(versions.elseBlock());
  return success(succeeded(buildTileLoop([&](const WorkUnit &unit) {
    if (staged)
      return buildStagedProducerTile(unit);
    return buildLoadingProducerTile(unit, ProducerCopyMode::Realigned);
  })));
}

void WarpSpecializer::releaseBarrier(Value index, int64_t offset, bool cluster) {
  Value lane = remu(ThreadIdOp::create(b, loc, 0), cst(32));
  Value releases = cluster
                       ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, clusterSize)
                       : eq(lane, cst(0));
  auto release = scf::IfOp::create(b, loc, releases, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(release.thenBlock());
  MBarrierArriveOp::create(b, loc, barriers, offset ? add(index, cst(offset)) : index,
                           IntegerAttr(), UnitAttr(), cluster ? lane : Value());
}

void WarpSpecializer::releaseStage(Value stage) { releaseBarrier(stage, stages, pairs); }

bool WarpSpecializer::overlapLastGemm(const OverlapPlan &plan, Value iter, const WorkUnit &unit) {
  Block *body = ring.getBody();
  GemmOp first = plan.first, last = plan.last;
  auto lastWait = dyn_cast_or_null<MmaWaitOp>(last->getNextNode());
  if (!lastWait || lastWait->getNextNode() != body->getTerminator() || lastWait.getPending() != 0)
    return false;
  auto view = last.getB().getDefiningOp<StageOp>();
  if (!view)
    return false;
  Value lb = ring.getLowerBound(), ub = ring.getUpperBound(), step = ring.getStep();
  b.setInsertionPoint(ring);
  auto any =
      scf::IfOp::create(b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub),
                        /*withElseRegion=*/false);
  ring->moveBefore(any.thenBlock()->getTerminator());
  // The first iteration, its last gemm left running.
  b.setInsertionPoint(ring);
  IRMapping first0;
  first0.map(ring.getInductionVar(), lb);
  for (Operation &op : body->without_terminator())
    if (&op != last && &op != lastWait)
      b.clone(op, first0);
  // The others (their ring iteration still counted from lb): the previous iteration's last gemm
  // right after this one's first, on its stage; the waits before the first op that needs it
  // leave it running.
  ring.getLowerBoundMutable().assign(add(lb, step));
  b.setInsertionPoint(first);
  Value previous =
      arith::RemSIOp::create(b, loc, arith::SubIOp::create(b, loc, iter, cst(1)), cst(stages));
  last->moveAfter(first);
  last.getBMutable().assign(stageOf(view.getBuffer(), previous));
  Operation *at = last->getNextNode();
  for (; at != lastWait; at = at->getNextNode()) {
    if (auto wait = dyn_cast<MmaWaitOp>(at)) {
      wait.setPending(wait.getPending() + 1);
      continue;
    }
    if (needsDeferredGemm(at, last))
      break;
  }
  if (at == lastWait) {
    b.setInsertionPointAfter(lastWait);
  } else {
    lastWait->moveBefore(at);
    b.setInsertionPoint(at);
  }
  releaseStage(previous);
  // The last iteration's, after the loop.
  b.setInsertionPointAfter(ring);
  Value lastIter = add(unit.base, arith::SubIOp::create(b, loc, tripCount(lb, ub, step), cst(1)));
  Value lastStage = arith::RemSIOp::create(b, loc, lastIter, cst(stages));
  Value lastView = stageOf(view.getBuffer(), lastStage);
  auto tail = cast<GemmOp>(b.clone(*last));
  tail.getBMutable().assign(lastView);
  MmaWaitOp::create(b, loc, 0, ValueRange{tail.getC()});
  releaseStage(lastStage);
  return true;
}

FailureOr<Value> WarpSpecializer::buildConsumerTile(ArrayRef<Operation *> moved,
                                                    const WorkUnit &unit) {
  if (!pairs)
    return buildConsumerBody(moved, unit);
  // The tile's iterations, recomputed here (the body's own count is inside the branch).
  IRMapping mapping;
  Value lb, ub, step, count;
  if (failed(recomputeBounds(mapping, unit.ids, lb, ub, step, count)))
    return failure();
  if (unit.kBegin)
    count = arith::SubIOp::create(b, loc, unit.kEnd, unit.kBegin);
  auto inGrid = scf::IfOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, unit.ids[1], grid[1]),
      /*withElseRegion=*/true);
  // The idle side first: the body's side restricts the ring's own bounds.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(inGrid.elseBlock()->getTerminator());
  if (failed(buildIdleConsumers(unit)))
    return failure();
  b.setInsertionPoint(inGrid.thenBlock()->getTerminator());
  if (failed(buildConsumerBody(moved, unit)))
    return failure();
  return count;
}

FailureOr<Value> WarpSpecializer::buildIdleConsumers(const WorkUnit &unit) {
  IRMapping mapping;
  Value lb, ub, step, count;
  if (failed(recomputeBounds(mapping, unit.ids, lb, ub, step, count)))
    return failure();
  restrictBounds(unit, lb, ub, step);
  auto idle = scf::ForOp::create(b, loc, lb, ub, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(idle.getBody());
  Value iter = iteration(idle.getInductionVar(), lb, step, unit.base);
  Value stage = waitForFullStage(iter);
  releaseStage(stage);
  return count;
}

FailureOr<Value> WarpSpecializer::buildConsumerBody(ArrayRef<Operation *> moved,
                                                    const WorkUnit &unit) {
  ArrayRef<Value> blockIds = unit.ids;
  Value base = unit.base;
  Block *tileBody = b.getInsertionBlock();
  // Before the branch's terminator with pairs, else at the end of the loop's body.
  Operation *tileEnd = b.getInsertionPoint() == tileBody->end() ? nullptr : &*b.getInsertionPoint();
  for (Operation *op : moved)
    op->moveBefore(tileBody, tileEnd ? tileEnd->getIterator() : tileBody->end());
  // Block ids are the tile's.
  SmallVector<BlockIdOp> ids;
  for (Operation *op : moved)
    op->walk([&](BlockIdOp id) { ids.push_back(id); });
  for (BlockIdOp id : ids) {
    id.getResult().replaceAllUsesWith(blockIds[id.getDim()]);
    id.erase();
  }

  if (registerRing)
    return buildRegisterConsumers(tileBody, tileEnd, unit);

  b.setInsertionPoint(ring);
  Value lb = ring.getLowerBound(), ub = ring.getUpperBound(), step = ring.getStep();
  Value count = tripCount(lb, ub, step);
  if (unit.kBegin) {
    restrictBounds(unit, lb, ub, step);
    ring.getLowerBoundMutable().assign(lb);
    ring.getUpperBoundMutable().assign(ub);
    count = arith::SubIOp::create(b, loc, unit.kEnd, unit.kBegin);
  }
  Block *body = ring.getBody();
  b.setInsertionPointToStart(body);
  Value iter = iteration(ring.getInductionVar(), lb, step, base);
  Value stage = waitForFullStage(iter);
  // A loading producer's cp.async and shared stores are generic-proxy writes; wgmma reads
  // through the async proxy.
  if (loads)
    AsyncProxyFenceOp::create(b, loc);
  // The copies are the producer's; the mbarriers order the stage's writes and reads.
  auto producers = [](Operation *op) { return isa<CopyOp, BarrierOp>(op); };
  keepInsertionPoint(producers);
  SmallVector<GemmOp> gemms;
  for (Operation &op : llvm::make_early_inc_range(*body)) {
    if (producers(&op))
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
  releaseStage(stage);
  // After the loop every gemm is complete before the accumulators are read.
  b.setInsertionPointAfter(ring);
  SetVector<Value> accumulators;
  for (GemmOp gemm : gemms)
    accumulators.insert(gemm.getC());
  auto complete = MmaWaitOp::create(b, loc, 0, accumulators.getArrayRef());
  for (StringRef name : {kPipelineAttr, kStagesAttr, kBarriersAttr})
    ring->removeAttr(name);
  if (unit.kBegin)
    buildStreamKEpilogue(unit, complete);
  // The consumers finish a tile together before the next one reuses block-wide buffers.
  if (tileEnd)
    b.setInsertionPoint(tileEnd);
  else
    b.setInsertionPointToEnd(tileBody);
  BarrierOp::create(b, loc);
  return count;
}

FailureOr<Value> WarpSpecializer::buildRegisterConsumers(Block *tileBody, Operation *tileEnd,
                                                         const WorkUnit &unit) {
  // Planned on the body as placed (its ring copies still there).
  std::optional<OverlapPlan> overlap;
  if (allowOverlap && stages >= 2)
    overlap = planOverlap(ring);
  // The tile's own copies are the producer's: the first waits for them all (full at 2 S, its
  // round the unit's ordinal), the others go; after the ring, whose gemms are their only
  // readers and complete, each warp releases them (empty at 2 S + 1).
  for (auto [i, copy] : llvm::enumerate(tileCopies)) {
    if (i == 0) {
      b.setInsertionPoint(copy);
      MBarrierWaitOp::create(b, loc, barriers, cst(2 * stages),
                             arith::AndIOp::create(b, loc, unit.ordinal, cst(1)));
    }
    copy.erase();
  }
  if (!tileCopies.empty()) {
    b.setInsertionPointAfter(ring);
    releaseBarrier(cst(2 * stages + 1));
  }
  b.setInsertionPoint(ring);
  Value count = tripCount(ring.getLowerBound(), ring.getUpperBound(), ring.getStep());
  Block *body = ring.getBody();
  b.setInsertionPointToStart(body);
  Value iter = iteration(ring.getInductionVar(), ring.getLowerBound(), ring.getStep(), unit.base);
  Value stage = waitForFullStage(iter);
  // The TMA copies are the producer's; every other use of their tiles in the body reads the
  // iteration's stage.
  SmallVector<Value> tiles;
  keepInsertionPoint(isTmaCopy);
  for (Operation &op : llvm::make_early_inc_range(*body))
    if (auto copy = dyn_cast<CopyOp>(op); copy && isTmaCopy(copy)) {
      if (!llvm::is_contained(tiles, copy.getDest()))
        tiles.push_back(copy.getDest());
      copy.erase();
    }
  for (Value tile : tiles) {
    Value view = stageOf(tile, stage);
    tile.replaceUsesWithIf(view, [&](OpOperand &use) {
      return use.getOwner() != view.getDefiningOp() && ring->isProperAncestor(use.getOwner());
    });
  }
  // tile-place-mma-waits completed the iteration's wgmma gemms before its end: the stage is
  // free there; with the last gemm a step behind, once the next iteration has waited for it.
  if (!overlap || !overlapLastGemm(*overlap, iter, unit)) {
    b.setInsertionPoint(body->getTerminator());
    releaseStage(stage);
  }
  for (StringRef name : {kPipelineAttr, kStagesAttr, kBarriersAttr})
    ring->removeAttr(name);
  // The consumers finish a tile together before the next one reuses block-wide buffers.
  if (tileEnd)
    b.setInsertionPoint(tileEnd);
  else
    b.setInsertionPointToEnd(tileBody);
  BarrierOp::create(b, loc);
  return count;
}

void WarpSpecializer::buildStreamKEpilogue(const WorkUnit &unit, Operation *from) {
  Block *tileBody = from->getBlock();
  SmallVector<Operation *> epilogue;
  for (auto it = std::next(from->getIterator()); it != tileBody->end(); ++it)
    if (!it->hasTrait<OpTrait::IsTerminator>())
      epilogue.push_back(&*it);
  b.setInsertionPointAfter(from);
  Value consumer0 = eq(tid, cst(0));
  auto ends = scf::IfOp::create(b, loc, eq(unit.kEnd, iters), /*withElseRegion=*/true);
  {
    // The piece that ends its tile: add the slots of the blocks with the tile's earlier
    // iterations (a block whose range is empty wrote none), in block order.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ends.thenBlock());
    auto contributors = scf::ForOp::create(b, loc, unit.firstBlock, block, cst(1));
    b.setInsertionPointToStart(contributors.getBody());
    Value c = contributors.getInductionVar();
    Value from = divu(mul(c, total), blocks);
    Value to = divu(mul(add(c, cst(1)), total), blocks);
    auto wrote = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, from, to),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(wrote.thenBlock());
    auto waiter = scf::IfOp::create(b, loc, consumer0, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inWaiter(b);
      b.setInsertionPointToStart(waiter.thenBlock());
      PartialWaitOp::create(b, loc, slotOf(c));
    }
    BarrierOp::create(b, loc);
    for (auto [acc, offset] : partials)
      PartialAddOp::create(b, loc, acc, slotOf(c), offset);
    // Then the epilogue.
    for (Operation *op : epilogue)
      op->moveBefore(ends.thenBlock()->getTerminator());
  }
  // A piece that ends before its tile's last iteration (the block's first piece): its block's
  // slot.
  b.setInsertionPointToStart(ends.elseBlock());
  Value slot = slotOf(block);
  for (auto [acc, offset] : partials)
    PartialStoreOp::create(b, loc, acc, slot, offset);
  BarrierOp::create(b, loc);
  auto signaller = scf::IfOp::create(b, loc, consumer0, /*withElseRegion=*/false);
  b.setInsertionPointToStart(signaller.thenBlock());
  PartialSignalOp::create(b, loc, slot);
}

LogicalResult WarpSpecializer::run() {
  consumerThreads = kernel.getThreads()[0];
  stages = cast<IntegerAttr>(ring->getAttr(kStagesAttr)).getInt();
  loads = getPipelineKind(ring) == PipelineKind::LoadsWgmma;
  registerRing = getPipelineKind(ring) == PipelineKind::TmaRegs;
  pairs = planPairs();
  if (pairs)
    kernel->setAttr(kClusterAttr, b.getI64IntegerAttr(2));
  StreamKPlan plan = planStreamK(kernel, ring, consumerThreads);
  partials = plan.accumulators;
  if (plan.slotBytes)
    kernel->setAttr(kStreamKAttr, b.getI64IntegerAttr(plan.slotBytes));
  int64_t barrierOffset = cast<IntegerAttr>(ring->getAttr(kBarriersAttr)).getInt();
  Block &entry = kernel.getBody().front();
  if (registerRing)
    for (Operation &op : entry)
      if (auto copy = dyn_cast<CopyOp>(op); copy && isTmaCopy(copy))
        tileCopies.push_back(copy);
  // Everything but the allocs (and the terminator) moves into the consumers' tile loop.
  SmallVector<Operation *> moved;
  for (Operation &op : entry.without_terminator())
    if (!isa<AllocOp>(op))
      moved.push_back(&op);

  b.setInsertionPoint(entry.getTerminator());
  auto barriersType =
      BufferType::get(b.getContext(), BufferSpace::Shared,
                      {ringBarrierCount(*getPipelineKind(ring), stages)}, b.getI64Type());
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
  // consumer warp (of each block of the cluster with pairs).
  tid = ThreadIdOp::create(b, loc, 0);
  auto init = scf::IfOp::create(b, loc, eq(tid, cst(0)), /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(init.thenBlock());
    for (int64_t s = 0; s < stages; ++s) {
      MBarrierInitOp::create(b, loc, barriers, cst(s), loads ? producerThreads : 1);
      auto empty = MBarrierInitOp::create(b, loc, barriers, cst(stages + s), consumerThreads / 32);
      if (pairs)
        empty.setCluster(true);
    }
    if (registerRing) {
      // The tile copies' full (TMA bytes) and empty (every consumer warp) barriers.
      MBarrierInitOp::create(b, loc, barriers, cst(2 * stages), 1);
      MBarrierInitOp::create(b, loc, barriers, cst(2 * stages + 1), consumerThreads / 32);
    }
  }
  if (pairs) {
    // Every block's barriers initialized before any block of the cluster arrives or loads.
    ClusterBarrierOp::create(b, loc);
    clusterSize = ClusterSizeOp::create(b, loc);
    clusterRank = ClusterRankOp::create(b, loc);
    clusterShift = arith::SubIOp::create(b, loc, clusterSize, cst(1));
  } else {
    BarrierOp::create(b, loc);
  }
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
  pairRows =
      pairs ? arith::ShRUIOp::create(b, loc, add(grid[1], clusterShift), clusterShift) : grid[1];

  // The consumers take the registers the producer gives back. The entry runs one block per
  // multiprocessor (tlc-mark-grid-constants; ptxas allocates the whole entry against the launch
  // bound, so a bound of two blocks of 384 threads, 80 registers, leaves wgmma's accumulators
  // no room), whatever blocks_per_sm says; the block holds what its threads were given at
  // launch (65536 / threads, rounded down to 8, each: 168 x 384), and setmaxnreg.inc waits
  // until the decrease has freed what it takes, so both budgets must fit that (64 producer
  // registers with 224 for 256 consumer threads waited forever). The producer keeps what the
  // consumers' 240 at most leave it, within its bounds.
  int64_t blockRegisters =
      65536 / (consumerThreads + producerThreads) / 8 * 8 * (consumerThreads + producerThreads);
  int64_t producerMin = loads          ? kLoadProducerRegisters
                        : registerRing ? kRegisterRingProducerRegisters
                                       : kTmaProducerRegisters;
  int64_t producerMax = loads ? kLoadProducerRegisters : kTmaProducerRegistersMax;
  // Consumers whose ring accumulators take at most 96 registers (128 x 128 tiles on two
  // warpgroups: 64) leave the producer 72 (its pair walk spilled at 56).
  int64_t accumulatorRegisters = 0;
  for (GemmOp gemm : ring.getBody()->getOps<GemmOp>())
    if (std::optional<AccLayout> layout = getAccLayout(gemm.getC()))
      accumulatorRegisters = std::max<int64_t>(accumulatorRegisters, layout->slots());
  if (pairs && accumulatorRegisters <= 96)
    producerMin = std::max<int64_t>(
        producerMin, std::min<int64_t>(72, blockRegisters / producerThreads / 8 * 8));
  int64_t consumerRegisters = std::clamp<int64_t>(
      (blockRegisters - producerMin * producerThreads) / consumerThreads / 8 * 8, 24, 240);
  int64_t producerRegisters = std::clamp<int64_t>(
      (blockRegisters - consumerRegisters * consumerThreads) / producerThreads / 8 * 8, producerMin,
      producerMax);
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
    FailureOr<Value> issued =
        buildTileLoop([&](const WorkUnit &unit) { return buildProducerTile(unit); });
    if (failed(issued))
      return failure();
    // With pairs, the other block's consumers release this block's stages (and read what this
    // block multicast): the block stays until each stage's last release.
    if (pairs)
      for (int64_t s = 0; s < stages; ++s)
        waitForEmptyStage(add(*issued, cst(s)));
  }
  b.setInsertionPoint(split.getConsumers().front().getTerminator());
  return success(succeeded(
      buildTileLoop([&](const WorkUnit &unit) { return buildConsumerTile(moved, unit); })));
}

namespace {
struct WarpSpecializePass : public tlc::tile::impl::TileWarpSpecializeBase<WarpSpecializePass> {
  using TileWarpSpecializeBase::TileWarpSpecializeBase;
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
                       << "such loops 'tma_wgmma', 'loads_wgmma' or 'tma_regs' rings";
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
    if (failed(WarpSpecializer(kernel, ring, pairs, overlap).run()))
      return signalPassFailure();
  }
};
} // namespace
