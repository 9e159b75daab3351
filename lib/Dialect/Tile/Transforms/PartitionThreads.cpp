//===- PartitionThreads.cpp - Spread element-wise bodies over threads -----===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEPARTITIONTHREADS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc::tile;

#define DEBUG_TYPE "tile-partition-threads"

/// The thread's linear index in its block: x + y * Tx + z * Tx * Ty.
static Value buildLinearThreadId(OpBuilder &b, Location loc, ArrayRef<int64_t> threads) {
  Value linear;
  int64_t stride = 1;
  for (int dim = 0; dim < 3; ++dim) {
    if (threads[dim] == 1)
      continue;
    Value id = ThreadIdOp::create(b, loc, dim);
    if (stride != 1)
      id = arith::MulIOp::create(b, loc, id, arith::ConstantIndexOp::create(b, loc, stride));
    linear = linear ? arith::AddIOp::create(b, loc, linear, id).getResult() : id;
    stride *= threads[dim];
  }
  return linear ? linear : arith::ConstantIndexOp::create(b, loc, 0).getResult();
}

/// Replaces `op` by a per-thread loop over its points.
static void partition(ParallelOp op, ArrayRef<int64_t> threads, int64_t numThreads) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t points = op.getNumPoints();
  Value tid = buildLinearThreadId(b, loc, threads);
  scf::ForOp loop;
  Value linear = buildPointLoop(b, loc, points, numThreads, tid, loop);

  SmallVector<Value> coords = delinearizeIndex(b, loc, linear, op.getShape());

  // The body may touch buffers other threads read next: synchronize after the loop.
  bool touchesBlockBuffers = false;
  op.getBody().walk([&](Operation *inner) {
    for (Type type : inner->getOperandTypes())
      if (auto buffer = dyn_cast<BufferType>(type); buffer && !buffer.isLocal())
        touchesBlockBuffers = true;
  });
  if (touchesBlockBuffers) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(loop);
    BarrierOp::create(b, loc);
  }

  IRMapping mapping;
  Block &body = op.getBody().front();
  for (auto [arg, coord] : llvm::zip(body.getArguments(), coords))
    mapping.map(arg, coord);
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  op.erase();
}

/// The register-layout fragment a `tile.parallel` iterates over: one with a layout, of the
/// parallel's shape, accessed in the body at exactly the point's coordinates. Null if none.
static Value findLayoutDomain(ParallelOp op) {
  Value found;
  op.getBody().walk([&](Operation *inner) {
    Value buffer;
    if (auto read = dyn_cast<ReadOp>(inner))
      buffer = read.getBuffer();
    else if (auto write = dyn_cast<WriteOp>(inner))
      buffer = write.getBuffer();
    if (buffer && getAccLayout(buffer) &&
        cast<BufferType>(buffer.getType()).getShape() == op.getShape())
      found = buffer;
  });
  return found;
}

/// Whether `value`, inside the body of `op`, is the same at every column of a row: defined
/// outside the body, the row argument, or a pure op of such values at the body's top level.
static bool isColumnInvariant(Value value, ParallelOp op, DenseMap<Value, bool> &memo) {
  Block &body = op.getBody().front();
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() != &body ? !op->isAncestor(arg.getOwner()->getParentOp())
                                   : arg.getArgNumber() == 0;
  Operation *def = value.getDefiningOp();
  if (!op->isProperAncestor(def))
    return true;
  if (auto it = memo.find(value); it != memo.end())
    return it->second;
  bool invariant = def->getBlock() == &body && isPure(def) && def->getNumRegions() == 0 &&
                   llvm::all_of(def->getOperands(), [&](Value operand) {
                     return isColumnInvariant(operand, op, memo);
                   });
  memo[value] = invariant;
  return invariant;
}

/// The tensor element loads of a `parallel` body over a #tile.blocked fragment that can read a
/// whole vector of the thread's consecutive columns at once (tile.load_vector): at the body's
/// top level, the last index the column plus a column-invariant value, the other indices
/// column-invariant. None when the body writes a tensor: the loads of a vector's later columns
/// would move before the stores of its earlier ones.
static SmallVector<LoadOp> findVectorLoads(ParallelOp op) {
  Block &body = op.getBody().front();
  if (body.getNumArguments() != 2)
    return {};
  bool writesTensors = false;
  body.walk([&](Operation *inner) { writesTensors |= isa<StoreOp, AtomicAddOp>(inner); });
  if (writesTensors)
    return {};
  Value col = body.getArgument(1);
  DenseMap<Value, bool> memo;
  auto invariant = [&](Value v) { return isColumnInvariant(v, op, memo); };
  SmallVector<LoadOp> loads;
  for (auto load : body.getOps<LoadOp>()) {
    ValueRange indices = load.getIndices();
    if (!llvm::all_of(indices.drop_back(), invariant))
      continue;
    Value last = indices.back();
    auto add = last.getDefiningOp<arith::AddIOp>();
    bool columnPlus = last == col || (add && ((add.getLhs() == col && invariant(add.getRhs())) ||
                                              (add.getRhs() == col && invariant(add.getLhs()))));
    if (columnPlus)
      loads.push_back(load);
  }
  return loads;
}

/// Turns the accesses at `point` (slot `slot` of `layout`) in the ops `cloned` from a
/// `tile.parallel`'s body, nested ones included (under an `if`, in a loop), into slot accesses;
/// so are reads of a row value at the point's row beside an mma.sync accumulator.
static void rewriteSlotAccesses(ArrayRef<Operation *> cloned, const AccLayout &layout,
                                ArrayRef<Value> point, Value slot) {
  Value row = point.front();
  SmallVector<Operation *> accesses;
  for (Operation *top : cloned)
    top->walk([&](Operation *inner) {
      if (isa<ReadOp, WriteOp>(inner))
        accesses.push_back(inner);
    });
  for (Operation *inner : accesses) {
    OpBuilder at(inner);
    if (auto read = dyn_cast<ReadOp>(inner)) {
      std::optional<AccLayout> own = getAccLayout(read.getBuffer());
      if (!own)
        continue;
      Value slotOf;
      if (llvm::equal(read.getIndices(), point))
        slotOf = slot;
      else if (((layout.kind == AccLayout::Kind::MmaSync &&
                 own->kind == AccLayout::Kind::MmaSyncRows) ||
                (layout.kind == AccLayout::Kind::Blocked &&
                 own->kind == AccLayout::Kind::BlockedRows)) &&
               read.getIndices().size() == 1 && read.getIndices()[0] == row)
        slotOf = buildRowSlot(at, read.getLoc(), layout, slot);
      if (!slotOf)
        continue;
      Value value = ReadSlotOp::create(at, read.getLoc(), read.getType(), read.getBuffer(), slotOf);
      read.getResult().replaceAllUsesWith(value);
      read.erase();
    } else if (auto write = dyn_cast<WriteOp>(inner);
               getAccLayout(write.getBuffer()) && llvm::equal(write.getIndices(), point)) {
      WriteSlotOp::create(at, write.getLoc(), write.getValue(), write.getBuffer(), slot);
      write.erase();
    }
  }
}

/// A row fragment's value is held by several threads (the four lanes of a quad and the warps of
/// a block row beside mma.sync, the threads_per_row threads of a blocked row): each of them runs
/// the body for the row, so an atomic update in `loop` would be applied several times. The first
/// of them does it.
static void guardReplicatedAtomics(scf::ForOp loop, const AccLayout &layout, Value tid) {
  if (!layout.isRows() || layout.rowReplicas() <= 1)
    return;
  SmallVector<AtomicAddOp> atomics;
  loop.getBody()->walk([&](AtomicAddOp atomic) { atomics.push_back(atomic); });
  for (AtomicAddOp atomic : atomics) {
    OpBuilder guardBuilder(atomic);
    Location at = atomic.getLoc();
    Value leader = buildIsRowLeader(guardBuilder, at, layout, tid);
    auto guard = scf::IfOp::create(guardBuilder, at, leader, /*withElseRegion=*/false);
    atomic->moveBefore(guard.thenBlock()->getTerminator());
  }
}

/// Replaces a `tile.parallel` over a register-layout fragment by a loop over the calling thread's
/// register slots (marked for complete unrolling): slot s of thread t is the point
/// layout.coord(t, s), and accesses at the point become slot accesses. Over a #tile.blocked
/// layout the loop steps over the thread's vectors, with the body once per column of the
/// vector, and tensor element loads at consecutive columns become one tile.load_vector.
static void partitionOverSlots(ParallelOp op, Value domain, ArrayRef<int64_t> threads) {
  AccLayout layout = *getAccLayout(domain);
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  Value tid = buildLinearThreadId(b, loc, threads);
  SmallVector<LoadOp> vectorLoads;
  if (layout.kind == AccLayout::Kind::Blocked && layout.blocked.vec > 1)
    vectorLoads = findVectorLoads(op);
  int64_t perStep = vectorLoads.empty() ? 1 : layout.blocked.vec;
  auto loop = scf::ForOp::create(b, loc, cst(0), cst(layout.slots() / perStep), cst(1));
  loop->setAttr(kUnrollAttr, b.getUnitAttr());
  b.setInsertionPointToStart(loop.getBody());
  Value first = loop.getInductionVar();
  if (perStep > 1)
    first = arith::MulIOp::create(b, loc, first, cst(perStep));
  Block &body = op.getBody().front();

  // The vector loads, at the vector's first column: the ops their indices need, then the loads.
  SmallVector<SmallVector<Value>> vectorValues;
  if (!vectorLoads.empty()) {
    auto [row, col] = buildAccCoords(b, loc, layout, tid, first);
    IRMapping mapping;
    mapping.map(body.getArgument(0), row);
    mapping.map(body.getArgument(1), col);
    SetVector<Operation *> needed;
    for (LoadOp load : vectorLoads) {
      BackwardSliceOptions options;
      options.filter = [&](Operation *def) { return op->isProperAncestor(def); };
      options.omitBlockArguments = true;
      for (Value index : load.getIndices())
        if (Operation *def = index.getDefiningOp(); def && op->isProperAncestor(def)) {
          (void)getBackwardSlice(def, &needed, options);
          needed.insert(def);
        }
    }
    for (Operation &inner : body.without_terminator())
      if (needed.contains(&inner))
        b.clone(inner, mapping);
    for (LoadOp load : vectorLoads) {
      SmallVector<Value> indices;
      for (Value index : load.getIndices())
        indices.push_back(mapping.lookupOrDefault(index));
      SmallVector<Type> types(perStep, load.getType());
      auto vector = LoadVectorOp::create(b, load.getLoc(), types, load.getTensor(), indices);
      vectorValues.push_back(SmallVector<Value>(vector.getResults()));
    }
  }

  for (int64_t e = 0; e < perStep; ++e) {
    Value slot = perStep > 1 ? arith::AddIOp::create(b, loc, first, cst(e)).getResult() : first;
    auto [row, col] = buildAccCoords(b, loc, layout, tid, slot);
    IRMapping mapping;
    mapping.map(body.getArgument(0), row);
    SmallVector<Value> point{row};
    if (body.getNumArguments() == 2) {
      mapping.map(body.getArgument(1), col);
      point.push_back(col);
    }
    for (auto [load, values] : llvm::zip(vectorLoads, vectorValues))
      mapping.map(load.getResult(), values[e]);
    SmallVector<Operation *> cloned;
    for (Operation &inner : body.without_terminator())
      if (!llvm::is_contained(vectorLoads, dyn_cast<LoadOp>(&inner)))
        cloned.push_back(b.clone(inner, mapping));
    rewriteSlotAccesses(cloned, layout, point, slot);
  }
  guardReplicatedAtomics(loop, layout, tid);
  // Registers are private, but the body may also write shared buffers (or shared-memory
  // fragments) that other threads read next, or read ones a later op overwrites: synchronize
  // after the loop then. A shared tile only cp.async copies write needs none after its reads:
  // the copies that refill it wait for every thread first (the barrier before a run of copies,
  // a register ring's wait before its copies).
  bool touchesSharedBuffers = false;
  loop.getBody()->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (auto buffer = dyn_cast<BufferType>(operand.getType());
          buffer && !buffer.isLocal() && !getAccLayout(operand) &&
          !(isa<ReadOp>(inner) && onlyCpAsyncFillsAndReads(operand)))
        touchesSharedBuffers = true;
  });
  if (touchesSharedBuffers) {
    b.setInsertionPointAfter(loop);
    BarrierOp::create(b, loc);
  }
  op.erase();
}

/// A read of a shared buffer (or of a fragment kept in shared memory) outside any `parallel` is
/// every thread's, and nothing waits for it: a block-wide op that writes the buffer after it
/// (later in the block, or in a later iteration of a loop) could overwrite it while a slower warp
/// has yet to read it. A barrier goes before each such writer (block-wide ops run in uniform
/// control flow), unless one already precedes it.
static void synchronizeTopLevelReads(KernelOp kernel) {
  llvm::SmallPtrSet<Value, 4> readAtTopLevel;
  kernel.getBody().walk([&](ReadOp read) {
    auto type = cast<BufferType>(read.getBuffer().getType());
    if (!type.isLocal() && !getAccLayout(read.getBuffer()) && !read->getParentOfType<ParallelOp>())
      readAtTopLevel.insert(read.getBuffer());
  });
  if (readAtTopLevel.empty())
    return;
  SmallVector<Operation *> writers;
  kernel.getBody().walk([&](Operation *op) {
    if (!isa<ParallelOp, CopyOp, FillOp, ReduceOp, ScanOp, GemmOp>(op) ||
        op->getParentOfType<ParallelOp>())
      return;
    if (llvm::any_of(readAtTopLevel, [&](Value buffer) { return mayWrite(op, buffer); }))
      writers.push_back(op);
  });
  for (Operation *op : writers) {
    if (isa_and_nonnull<BarrierOp>(op->getPrevNode()))
      continue;
    OpBuilder b(op);
    BarrierOp::create(b, op->getLoc());
  }
}

namespace {
/// Whether a value may differ between the threads of a block, conservatively: a thread index or
/// anything computed from one, a `var` (a memref load: it may have been stored under a
/// divergent condition), a local buffer's element, a region's result, a block argument other
/// than a kernel argument or the index of a loop with uniform bounds.
struct Divergence {
  llvm::DenseMap<Value, bool> memo;

  bool of(Value v) {
    if (auto found = memo.find(v); found != memo.end())
      return found->second;
    memo[v] = true; // a cycle through a block argument: divergent
    bool result = true;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (auto loop = dyn_cast<scf::ForOp>(owner); loop && arg == loop.getInductionVar())
        result = loopDiverges(loop);
      else
        result = !isa<KernelOp>(owner);
    } else if (Operation *def = v.getDefiningOp();
               def->getNumRegions() == 0 && !isa<ThreadIdOp, memref::LoadOp>(def)) {
      auto read = dyn_cast<ReadOp>(def);
      result = (read && cast<BufferType>(read.getBuffer().getType()).isLocal()) ||
               llvm::any_of(def->getOperands(), [&](Value operand) { return of(operand); });
    }
    memo[v] = result;
    return result;
  }
  bool loopDiverges(scf::ForOp loop) {
    return of(loop.getLowerBound()) || of(loop.getUpperBound()) || of(loop.getStep());
  }
  /// The outermost op around `op` (or `op`) that not every thread runs alike: after it, every
  /// thread is back on one path.
  Operation *divergentExtent(Operation *op, KernelOp kernel) {
    Operation *outermost = op;
    for (Operation *p = op->getParentOp(); p && p != kernel; p = p->getParentOp()) {
      auto branch = dyn_cast<scf::IfOp>(p);
      auto loop = dyn_cast<scf::ForOp>(p);
      if ((branch && of(branch.getCondition())) || (loop && loopDiverges(loop)) ||
          (!branch && !loop))
        outermost = p;
    }
    return outermost;
  }
};
} // namespace

/// An element written to a shared buffer (or to a fragment kept in shared memory) outside any
/// `parallel` is one thread's write, or several threads' (under a condition on thread.x, say),
/// and other threads read it next: a barrier follows the write, at the first point every thread
/// reaches again (after the outermost thread-dependent `if` or loop around it). When the buffer
/// is also read outside a `parallel`, a barrier goes before that point too (another thread may
/// still be reading the old value).
static void synchronizeTopLevelWrites(KernelOp kernel) {
  llvm::SmallPtrSet<Value, 4> readAtTopLevel;
  SmallVector<WriteOp> writes;
  auto blockShared = [](Value buffer) {
    return !cast<BufferType>(buffer.getType()).isLocal() && !getAccLayout(buffer);
  };
  kernel.getBody().walk([&](Operation *op) {
    if (op->getParentOfType<ParallelOp>())
      return;
    if (auto read = dyn_cast<ReadOp>(op); read && blockShared(read.getBuffer()))
      readAtTopLevel.insert(read.getBuffer());
    else if (auto write = dyn_cast<WriteOp>(op); write && blockShared(write.getBuffer()))
      writes.push_back(write);
  });
  // Each extent once: a barrier before it when any of its writes is to a buffer read at the
  // top level, one after it in any case.
  Divergence divergence;
  llvm::MapVector<Operation *, bool> extents;
  for (WriteOp write : writes)
    extents[divergence.divergentExtent(write, kernel)] |=
        readAtTopLevel.contains(write.getBuffer());
  for (auto [extent, before] : extents) {
    if (before && !isa_and_nonnull<BarrierOp>(extent->getPrevNode())) {
      OpBuilder builder(extent);
      BarrierOp::create(builder, extent->getLoc());
    }
    if (!isa_and_nonnull<BarrierOp>(extent->getNextNode())) {
      OpBuilder after(extent->getContext());
      after.setInsertionPointAfter(extent);
      BarrierOp::create(after, extent->getLoc());
    }
  }
}

namespace {
struct PartitionThreadsPass
    : public tlc::tile::impl::TilePartitionThreadsBase<PartitionThreadsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    SmallVector<int64_t> threads(kernel.getThreads());
    int64_t numThreads = kernel.getNumThreads();
    synchronizeTopLevelReads(kernel);
    synchronizeTopLevelWrites(kernel);
    SmallVector<ParallelOp> ops;
    kernel.getBody().walk([&](ParallelOp op) { ops.push_back(op); });
    for (ParallelOp op : ops) {
      if (Value domain = findLayoutDomain(op))
        partitionOverSlots(op, domain, threads);
      else
        partition(op, threads, numThreads);
    }
  }
};
} // namespace
