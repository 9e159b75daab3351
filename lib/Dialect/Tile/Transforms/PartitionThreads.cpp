//===- PartitionThreads.cpp - Spread element-wise bodies over threads -----===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"

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
      b, loc, arith::MulIOp::create(b, loc, loop.getInductionVar(),
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

namespace {
struct PartitionThreadsPass
    : public tlc::tile::impl::TilePartitionThreadsBase<PartitionThreadsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    SmallVector<int64_t> threads(kernel.getThreads());
    int64_t numThreads = kernel.getNumThreads();
    SmallVector<ParallelOp> ops;
    kernel.getBody().walk([&](ParallelOp op) { ops.push_back(op); });
    for (ParallelOp op : ops)
      partition(op, threads, numThreads);
  }
};
} // namespace
