//===- PartitionThreads.cpp - Spread element-wise bodies over threads -----===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

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
  int64_t steps = (points + numThreads - 1) / numThreads;

  Value tid = buildLinearThreadId(b, loc, threads);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, zero, arith::ConstantIndexOp::create(b, loc, steps), one);
  b.setInsertionPointToStart(loop.getBody());
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, loop.getInductionVar(),
                            arith::ConstantIndexOp::create(b, loc, numThreads)),
      tid);
  if (points % numThreads != 0) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, linear,
                                          arith::ConstantIndexOp::create(b, loc, points));
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    b.setInsertionPointToStart(guard.thenBlock());
  }

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

/// Replaces a `tile.parallel` over a register-layout fragment by a loop over the calling thread's
/// register slots (marked for complete unrolling): slot s of thread t is the point
/// layout.coord(t, s), and accesses at the point become slot accesses.
static void partitionOverSlots(ParallelOp op, Value domain, ArrayRef<int64_t> threads) {
  AccLayout layout = *getAccLayout(domain);
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  Value tid = buildLinearThreadId(b, loc, threads);
  auto loop = scf::ForOp::create(b, loc, cst(0), cst(layout.slots()), cst(1));
  loop->setAttr(kUnrollAttr, b.getUnitAttr());
  b.setInsertionPointToStart(loop.getBody());
  Value slot = loop.getInductionVar();
  auto [row, col] = buildAccCoords(b, loc, layout, tid, slot);

  IRMapping mapping;
  Block &body = op.getBody().front();
  mapping.map(body.getArgument(0), row);
  SmallVector<Value> point{row};
  if (body.getNumArguments() == 2) {
    mapping.map(body.getArgument(1), col);
    point.push_back(col);
  }
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  // Accesses at the point, nested ones included (under an `if`, in a loop), become slot
  // accesses; so do reads of a row value at the point's row beside an mma.sync accumulator.
  SmallVector<Operation *> accesses;
  loop.getBody()->walk([&](Operation *inner) {
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
  // A row fragment's value is held by several threads (the four lanes of a quad, the
  // threads_per_row threads of a blocked row): each of them runs the body for the row, so an
  // atomic update would be applied several times. The first of them does it.
  if (layout.isRows() && layout.rowReplicas() > 1) {
    SmallVector<AtomicAddOp> atomics;
    loop.getBody()->walk([&](AtomicAddOp atomic) { atomics.push_back(atomic); });
    for (AtomicAddOp atomic : atomics) {
      OpBuilder guardBuilder(atomic);
      Location at = atomic.getLoc();
      Value lane = arith::RemUIOp::create(
          guardBuilder, at, tid,
          arith::ConstantIndexOp::create(guardBuilder, at, layout.rowReplicas()));
      Value leader = arith::CmpIOp::create(guardBuilder, at, arith::CmpIPredicate::eq, lane,
                                           arith::ConstantIndexOp::create(guardBuilder, at, 0));
      auto guard = scf::IfOp::create(guardBuilder, at, leader, /*withElseRegion=*/false);
      atomic->moveBefore(guard.thenBlock()->getTerminator());
    }
  }
  // Registers are private, but the body may also write shared buffers (or shared-memory
  // fragments) that other threads read next: synchronize after the loop then.
  bool touchesSharedBuffers = false;
  loop.getBody()->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (auto buffer = dyn_cast<BufferType>(operand.getType());
          buffer && !buffer.isLocal() && !getAccLayout(operand))
        touchesSharedBuffers = true;
  });
  if (touchesSharedBuffers) {
    b.setInsertionPointAfter(loop);
    BarrierOp::create(b, loc);
  }
  op.erase();
}

namespace {
struct PartitionThreadsPass
    : public tlc::tile::impl::TilePartitionThreadsBase<PartitionThreadsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    SmallVector<int64_t> threads(kernel.getThreads());
    int64_t numThreads = kernel.getNumThreads();
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
