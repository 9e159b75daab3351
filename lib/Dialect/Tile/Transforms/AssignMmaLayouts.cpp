//===- AssignMmaLayouts.cpp - Map gemm tiles onto warpgroups and wgmma ----===//
//
// The tiling decision of the sm_90a strategy. For each software-pipelined main loop whose
// body only copies tensor tiles into shared buffers and multiplies them, it
//   - maps the accumulator [BM, BN] onto the kernel's warpgroups and the wgmma m64nNk16
//     instruction, recording the register layout on the fragment's alloc (`tile.layout`);
//   - marks the gemms `tile.mma = "wgmma"` and the copies `tile.tma` (TMA boxes).
// Everything else keeps the generic strategy. A loop or an accumulator that does not fit
// (shapes, types, other uses) is left alone: the generic strategy then lowers it.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEASSIGNMMALAYOUTS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

#define DEBUG_TYPE "tile-assign-mma-layouts"

static bool isWgmmaInput(Type type) { return type.isBF16() || type.isF16(); }

/// Whether `value` can be recomputed anywhere in the kernel: built from constants, kernel
/// arguments, block ids, tensor sizes and `extraRoots` with pure arithmetic.
static bool isRematerializable(Value value, KernelOp kernel, ArrayRef<Value> extraRoots) {
  SmallVector<Value> work{value};
  llvm::SmallPtrSet<Value, 16> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second || llvm::is_contained(extraRoots, v))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &kernel.getBody().front())
        return false;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!isa<BlockIdOp, DimOp>(def) && def->getDialect()->getNamespace() != "arith")
      return false;
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// Shared buffer `buffer` is written only by `copy` and read only by wgmma gemms in `loop`.
static bool onlyFedBy(Value buffer, CopyOp copy, scf::ForOp loop) {
  for (Operation *user : buffer.getUsers()) {
    if (user == copy.getOperation())
      continue;
    auto gemm = dyn_cast<GemmOp>(user);
    if (!gemm || gemm->getParentOp() != loop || gemm.getC() == buffer)
      return false;
  }
  return true;
}

/// The copy in `loop` that writes `buffer` from a rank-2 tensor, if it is the only one.
static CopyOp findFeedingCopy(Value buffer, scf::ForOp loop) {
  CopyOp found;
  for (Operation *user : buffer.getUsers()) {
    auto copy = dyn_cast<CopyOp>(user);
    if (!copy || copy.getDest() != buffer)
      continue;
    if (found || copy->getParentOp() != loop)
      return {};
    auto tensor = dyn_cast<tile::TensorType>(copy.getSource().getType());
    if (!tensor || tensor.getRank() != 2 || !isWgmmaInput(tensor.getElementType()))
      return {};
    found = copy;
  }
  return found;
}

/// Every use of the accumulator is one the register layout supports: fill, a wgmma gemm of
/// `gemms`, a copy to a tensor, or an element access at exactly the point of an enclosing
/// `tile.parallel` over the accumulator's shape.
static bool accumulatorUsesFit(Value acc, ArrayRef<GemmOp> gemms) {
  auto shape = cast<BufferType>(acc.getType()).getShape();
  for (OpOperand &use : acc.getUses()) {
    Operation *user = use.getOwner();
    if (isa<FillOp>(user))
      continue;
    if (auto gemm = dyn_cast<GemmOp>(user)) {
      if (!llvm::is_contained(gemms, gemm) || gemm.getC() != acc)
        return false;
      continue;
    }
    if (auto copy = dyn_cast<CopyOp>(user)) {
      if (copy.getSource() != acc || !isa<tile::TensorType>(copy.getDest().getType()))
        return false;
      continue;
    }
    ValueRange indices;
    if (auto read = dyn_cast<ReadOp>(user))
      indices = read.getIndices();
    else if (auto write = dyn_cast<WriteOp>(user))
      indices = write.getIndices();
    else
      return false;
    auto parallel = user->getParentOfType<ParallelOp>();
    if (!parallel || user->getParentOp() != parallel.getOperation() ||
        parallel.getShape() != shape)
      return false;
    if (!llvm::equal(indices, parallel.getBody().getArguments()))
      return false;
  }
  return true;
}

namespace {
struct AssignMmaLayoutsPass
    : public tlc::tile::impl::TileAssignMmaLayoutsBase<AssignMmaLayoutsPass> {
  using TileAssignMmaLayoutsBase::TileAssignMmaLayoutsBase;

  void runOnOperation() override {
    // sm_90a: wgmma on warpgroups; sm_80 and later otherwise: mma.sync on warps.
    StringRef archName = arch;
    unsigned sm = 0;
    if (!archName.starts_with("sm_") ||
        archName.drop_front(3).take_while(llvm::isDigit).getAsInteger(10, sm))
      return;
    kind = archName == "sm_90a" ? AccLayout::Kind::Wgmma : AccLayout::Kind::MmaSync;
    if (kind == AccLayout::Kind::MmaSync && sm < 80)
      return;
    KernelOp kernel = getOperation();
    auto threads = kernel.getThreads();
    int64_t group = kind == AccLayout::Kind::Wgmma ? 128 : 32;
    if (threads[1] != 1 || threads[2] != 1 || threads[0] % group != 0 ||
        threads[0] > (kind == AccLayout::Kind::Wgmma ? 512 : 1024))
      return;
    int64_t warpgroups = threads[0] / group;
    SmallVector<scf::ForOp> loops;
    kernel.getBody().walk([&](scf::ForOp loop) {
      if (loop->hasAttr("tile.stages"))
        loops.push_back(loop);
    });
    // One producer warpgroup serves one main loop: the first that fits.
    for (scf::ForOp loop : loops)
      if (assign(kernel, loop, warpgroups))
        return;
  }

  AccLayout::Kind kind = AccLayout::Kind::Wgmma;

  /// `warpgroups`: warpgroups (wgmma) or warps (mma.sync) of the kernel.
  bool assign(KernelOp kernel, scf::ForOp loop, int64_t warpgroups) {
    bool wgmma = kind == AccLayout::Kind::Wgmma;
    SmallVector<GemmOp> gemms;
    SmallVector<CopyOp> copies;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (auto gemm = dyn_cast<GemmOp>(op))
        gemms.push_back(gemm);
      else if (auto copy = dyn_cast<CopyOp>(op))
        copies.push_back(copy);
      else if (!isa<BlockIdOp, DimOp>(op) && op.getDialect()->getNamespace() != "arith")
        return false;
    }
    if (gemms.empty() || !isRematerializable(loop.getLowerBound(), kernel, {}) ||
        !isRematerializable(loop.getUpperBound(), kernel, {}) ||
        !isRematerializable(loop.getStep(), kernel, {}))
      return false;

    Value acc;
    AccLayout accLayout;
    accLayout.kind = kind;
    for (GemmOp gemm : gemms) {
      auto aType = gemm.getA().getType();
      auto bType = gemm.getB().getType();
      auto cType = gemm.getC().getType();
      if (!aType.isShared() || !bType.isShared() || !cType.isFragment() ||
          gemm.getTransposeA() || gemm.getClear() || !cType.getElementType().isF32() ||
          aType.getElementType() != bType.getElementType() ||
          !isWgmmaInput(aType.getElementType()) || !gemm.getC().getDefiningOp<AllocOp>())
        return false;
      if (acc && acc != gemm.getC())
        return false;
      acc = gemm.getC();
      auto a = aType.getShape(), b = bType.getShape();
      int64_t bm = a[0], bk = a[1];
      int64_t bn = gemm.getTransposeB() ? b[0] : b[1];
      if (bk % 16 != 0 || !layout::chooseSwizzle(bm, bk, 2))
        return false;
      if (gemm.getTransposeB()) {
        if (!layout::chooseSwizzle(bn, bk, 2))
          return false;
      } else if (wgmma ? (bn * 2) % 128 != 0 : !layout::chooseSwizzle(bk, bn, 2)) {
        // Row-major B: wgmma reads it MN-major in 64-column blocks of 128 bytes; ldmatrix.trans
        // reads rows of any swizzled width.
        return false;
      }
      if (wgmma) {
        auto chosen = layout::WgmmaAccLayout::choose(bm, bn, warpgroups);
        if (!chosen)
          return false;
        // Split along N, a warpgroup's columns of a row-major B start at a 64-column block.
        if (!gemm.getTransposeB() && chosen->warpgroupsN > 1 && chosen->instrN() % 64 != 0)
          return false;
        accLayout.wgmma = *chosen;
      } else {
        auto chosen = layout::MmaSyncAccLayout::choose(bm, bn, warpgroups);
        // Beyond 128 accumulator registers per thread the operands no longer fit beside them.
        if (!chosen || chosen->slots() > 128)
          return false;
        accLayout.mma = *chosen;
      }
      for (Value operand : {gemm.getA(), gemm.getB()}) {
        CopyOp copy = findFeedingCopy(operand, loop);
        if (!copy || !onlyFedBy(operand, copy, loop) || !operand.getDefiningOp<AllocOp>())
          return false;
        for (Value offset : copy.getSourceOffsets())
          if (!isRematerializable(offset, kernel, {loop.getInductionVar()}))
            return false;
      }
    }
    // Copies that feed no gemm have no place in the producer warpgroup.
    for (CopyOp copy : copies)
      if (!llvm::any_of(gemms, [&](GemmOp g) {
            return g.getA() == copy.getDest() || g.getB() == copy.getDest();
          }))
        return false;
    if (!accumulatorUsesFit(acc, gemms))
      return false;

    Builder b(kernel.getContext());
    auto alloc = acc.getDefiningOp<AllocOp>();
    alloc->setAttr(kLayoutAttr, accLayout.toAttr(kernel.getContext()));
    for (GemmOp gemm : gemms)
      gemm->setAttr(kMmaAttr, b.getStringAttr(wgmma ? "wgmma" : "mma_sync"));
    for (CopyOp copy : copies)
      copy->setAttr(wgmma ? kTmaAttr : kCpAsyncAttr, b.getUnitAttr());
    LLVM_DEBUG(llvm::dbgs() << (wgmma ? "wgmma" : "mma.sync") << " main loop at " << loop.getLoc()
                            << "\n");
    return true;
  }
};
} // namespace
