//===- SoftwarePipeline.cpp - Multi-buffer and warp-specialize main loops -===//
//
// A `pipelined(n, stages = S)` loop whose copies are TMA boxes and whose gemms are wgmma
// (tile-assign-mma-layouts) becomes an S-stage ring: each buffer its copies fill gets S copies
// (`tile.stages = S` on its alloc), the loop is marked `tile.pipeline = "tma_wgmma"`, and the
// kernel gets a producer warpgroup (`tile.producer_threads = 128`) that issues the copies while
// the kernel's own warpgroups consume the stages. The conversion materializes the ring: per
// stage a "full" mbarrier (expect-tx, completed by TMA) and an "empty" one (arrived by the
// consumers), phase parity from the iteration count; the producer runs up to S iterations ahead.
// Other pipelined loops are left to the generic strategy, which runs them in order.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/IR/Builders.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILESOFTWAREPIPELINE
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

#define DEBUG_TYPE "tile-software-pipeline"

/// Whether every copy of `loop` is a TMA copy and every gemm a wgmma, with at least one of each.
static bool isTmaWgmmaLoop(scf::ForOp loop) {
  bool anyCopy = false, anyGemm = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (isa<CopyOp>(op)) {
      if (!op.hasAttr(kTmaAttr))
        return false;
      anyCopy = true;
    } else if (isa<GemmOp>(op)) {
      if (!op.hasAttr(kMmaAttr))
        return false;
      anyGemm = true;
    }
  }
  return anyCopy && anyGemm;
}

namespace {
struct SoftwarePipelinePass
    : public tlc::tile::impl::TileSoftwarePipelineBase<SoftwarePipelinePass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    Builder b(kernel.getContext());
    SmallVector<scf::ForOp> loops;
    kernel.getBody().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kStagesAttr) && isTmaWgmmaLoop(loop))
        loops.push_back(loop);
    });
    // One producer warpgroup serves one ring; kernels with several main loops keep the
    // generic strategy for all but the first.
    if (loops.empty())
      return;
    scf::ForOp loop = loops.front();
    int64_t stages = std::max<int64_t>(
        1, cast<IntegerAttr>(loop->getAttr(kStagesAttr)).getInt());
    loop->setAttr(kPipelineAttr, b.getStringAttr("tma_wgmma"));
    loop->setAttr(kStagesAttr, b.getI64IntegerAttr(stages));
    for (Operation &op : loop.getBody()->without_terminator())
      if (auto copy = dyn_cast<CopyOp>(op))
        copy.getDest().getDefiningOp()->setAttr(kStagesAttr, b.getI64IntegerAttr(stages));
    kernel->setAttr(kProducerThreadsAttr, b.getI64IntegerAttr(128));
  }
};
} // namespace
