//===- AssignMmaLayouts.cpp - Map gemm tiles onto warps and tensor cores --===//
//
// The tiling decision of the tensor-core strategies. For the first software-pipelined main loop
// whose body only copies tensor tiles into shared buffers and multiplies them, it
//   - maps the accumulator [BM, BN] onto the kernel's warpgroups and the wgmma m64nNk16
//     instruction (m64nNk32 for f8 operands, B K-major; sm_90a), or onto its warps and mma.sync
//     m16n8k16 (bf16/f16; sm_80 and later),
//     recording the register layout on the fragment's alloc (`tile.layout`);
//   - marks the gemms `tile.mma = #tile.mma<wgmma>` / `<mma_sync>` and the copies `tile.tma`
//     (TMA boxes)
//     / `tile.cp_async` (16-byte chunks).
// A kernel without such a loop takes the register strategy, decided per op
// (RegisterLayouts.cpp, planRegisterLayouts): each gemm mma.sync can run gets it (wgmma on
// sm_90a where its accumulator has 16 rows per warp), its
// fragments a register layout inferred from their uses, and a use that does not fit the layout
// an explicit conversion through shared memory; what does not fit keeps the generic lowering,
// alone.
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
/// 8-bit floats multiply on wgmma only (m64nNk32), both operands K-major.
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

/// The copy in `loop` that writes `buffer` from a tensor of rank 2 or more (TMA: at most 5, its
/// boxes one element deep in the leading dimensions), if it is the only one.
static CopyOp findFeedingCopy(Value buffer, scf::ForOp loop, bool tma) {
  CopyOp found;
  for (Operation *user : buffer.getUsers()) {
    auto copy = dyn_cast<CopyOp>(user);
    if (!copy || copy.getDest() != buffer)
      continue;
    if (found || copy->getParentOp() != loop)
      return {};
    auto tensor = dyn_cast<tile::TensorType>(copy.getSource().getType());
    // TMA reads tiles of tensors of rank 2 to 5 (boxes of one element in leading dimensions).
    // TMA and cp.async move bytes: a copy that converts (f16 into a bf16 tile) is not theirs.
    Type elem = tensor ? tensor.getElementType() : Type();
    if (!tensor || tensor.getRank() < 2 || (tma && tensor.getRank() > 5) ||
        !(isWgmmaInput(elem) || isFloat8(elem)) ||
        elem != cast<BufferType>(buffer.getType()).getElementType())
      return {};
    found = copy;
  }
  return found;
}

/// Whether `op` accesses a buffer in the body of a `tile.parallel` of `shape` (nested in its
/// conditions and loops too) at exactly the point.
static bool atParallelPoint(Operation *op, ValueRange indices, ArrayRef<int64_t> shape) {
  auto parallel = op->getParentOfType<ParallelOp>();
  return parallel && parallel.getShape() == shape &&
         llvm::equal(indices, parallel.getBody().getArguments());
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
    if (auto read = dyn_cast<ReadOp>(user); read && atParallelPoint(read, read.getIndices(), shape))
      continue;
    if (auto write = dyn_cast<WriteOp>(user);
        write && atParallelPoint(write, write.getIndices(), shape))
      continue;
    return false;
  }
  return true;
}

/// Why a kernel keeps the generic strategy: the first op whose use or shape did not fit, and the
/// rule it broke (`tlc --explain` reports it there).
struct Misfit {
  Operation *op = nullptr;
  std::string reason;
};

namespace {
struct AssignMmaLayoutsPass
    : public tlc::tile::impl::TileAssignMmaLayoutsBase<AssignMmaLayoutsPass> {
  using TileAssignMmaLayoutsBase::TileAssignMmaLayoutsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    FailureOr<TargetAttr> target = requireTarget(kernel, "tile-assign-mma-layouts");
    if (failed(target) || failed(requireUnplaced(kernel, "tile-assign-mma-layouts")))
      return signalPassFailure();
    // Decisions are made once: a second run would assign over the first.
    WalkResult decided = kernel.walk([](Operation *op) {
      return op->hasAttr(kMmaAttr) || op->hasAttr(kLayoutAttr) ? WalkResult::interrupt()
                                                               : WalkResult::advance();
    });
    if (decided.wasInterrupted()) {
      kernel.emitError() << "tile-assign-mma-layouts: kernel '" << kernel.getSymName()
                         << "' already has tensor-core assignments (the pass runs once)";
      return signalPassFailure();
    }
    Misfit why;
    plan = RegisterPlan();
    mainLoopRing = false;
    std::string chosen = choose(kernel, *target, why);
    // A main loop's accumulator stored to a tensor stages its rows through shared memory. (Not
    // on the register strategy: attention's output is one store after a long loop, and there
    // the scratch would only take shared memory from its stages and blocks.)
    if (mainLoopRing && stageStores)
      addStoreStaging(kernel, tma && tmaStores && target->hasWgmma());
    // --explain: kernels with gemms say which strategy they take, or where the generic one
    // begins to be needed.
    bool hasGemm = false;
    kernel.getBody().walk([&](GemmOp) { hasGemm = true; });
    if (!explain || !hasGemm)
      return;
    std::string head =
        ("kernel '" + kernel.getSymName() + "' for " + target->getArch() + ": ").str();
    if (!chosen.empty()) {
      InFlightDiagnostic remark = kernel.emitRemark() << head << chosen;
      // The per-op register strategy: what kept its place, and where layouts are converted.
      for (auto &[gemm, reason] : plan.genericGemms)
        remark.attachNote(gemm.getLoc())
            << "this gemm keeps the generic lowering (no tensor cores): " << reason;
      for (auto &[gemm, reason] : plan.notWgmma)
        remark.attachNote(gemm.getLoc()) << "this gemm runs mma.sync, not wgmma: " << reason;
      for (auto &[alloc, reason] : plan.registerMisfits)
        remark.attachNote(alloc->getLoc()) << "this fragment stays in shared memory: " << reason;
      for (auto &[op, reason] : plan.conversions)
        remark.attachNote(op->getLoc()) << "layout conversion: " << reason;
      // A loop that copies tiles without `pipelined` waits for them at every step.
      kernel.getBody().walk([&](scf::ForOp loop) {
        bool copies = llvm::any_of(loop.getBody()->getOps<CopyOp>(),
                                   [](CopyOp copy) { return copy->hasAttr(kCpAsyncAttr); });
        if (copies && !loop->hasAttr(kStagesAttr))
          remark.attachNote(loop.getLoc())
              << "hint: this loop waits for its tile copies at every step; "
                 "'for k in pipelined(n, stages = 2)' copies the next step's tiles meanwhile";
      });
      return;
    }
    Operation *at = why.op ? why.op : kernel.getOperation();
    at->emitRemark() << head << "generic strategy (no tensor cores): "
                     << (why.reason.empty() ? "no tensor-core strategy for this target"
                                            : why.reason);
  }

  /// Tries the strategies for `target` and returns the one taken, in words (empty: generic;
  /// `why` then holds the first misfit).
  std::string choose(KernelOp kernel, TargetAttr target, Misfit &why) {
    // sm_90a: wgmma on warpgroups; sm_80 and later otherwise: mma.sync on warps.
    if (!target.hasWgmma() && !target.hasMmaSync())
      return "";
    auto threads = kernel.getThreads();
    if (threads[1] != 1 || threads[2] != 1 || threads[0] % 32 != 0 || threads[0] > 1024) {
      why.reason = "tensor-core strategies need threads(n) with n a multiple of 32, at most 1024";
      return "";
    }
    // The main-loop rings to try, in order: on sm_90a wgmma, fed by TMA from a producer
    // warpgroup or by the block's own cp.async copies (the entry that serves tensors TMA cannot
    // read, tma = false, has only the latter, then the mma.sync ring); mma.sync elsewhere.
    // Without main loops (--codegen=register) there are none: every kernel takes the register
    // strategy's layouts and rings.
    SmallVector<std::pair<AccLayout::Kind, bool>> rings;
    if (mainLoops && target.hasWgmma()) {
      if (tma)
        rings.push_back({AccLayout::Kind::Wgmma, true});
      // A loop TMA cannot serve (tiles of rank-3 tensors: a batched GEMM) is a cp.async ring
      // feeding wgmma there too (unless cp-async-wgmma is off: tlc --codegen=mma-sync).
      if (cpAsyncWgmma)
        rings.push_back({AccLayout::Kind::Wgmma, false});
    }
    if (mainLoops && (!target.hasWgmma() || !tma))
      rings.push_back({AccLayout::Kind::MmaSync, false});
    SmallVector<scf::ForOp> loops;
    kernel.getBody().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kStagesAttr))
        loops.push_back(loop);
    });
    for (auto [ringKind, viaTma] : rings) {
      kind = ringKind;
      useTma = viaTma;
      int64_t group = kind == AccLayout::Kind::Wgmma ? 128 : 32;
      if (threads[0] % group != 0 || threads[0] > (kind == AccLayout::Kind::Wgmma ? 512 : 1024))
        continue;
      // One producer warpgroup serves one main loop: the first that fits.
      for (scf::ForOp loop : loops)
        if (assign(kernel, loop, threads[0] / group)) {
          mainLoopRing = true;
          if (kind == AccLayout::Kind::MmaSync)
            return "mma.sync strategy: the pipelined loop is a cp.async ring feeding ldmatrix + "
                   "mma.sync";
          return useTma ? "sm_90a strategy: the pipelined loop is a TMA + wgmma ring fed by a "
                          "producer warpgroup"
                        : "sm_90a strategy without TMA: the pipelined loop is a ring feeding "
                          "wgmma";
        }
    }
    // No pipelined main loop: the register strategy (mma.sync, on sm_90a too), per op.
    // On sm_90a a gemm whose operands and accumulator allow it runs wgmma (unless
    // --codegen=mma-sync keeps every gemm on mma.sync).
    planRegisterLayouts(kernel, threads[0] / 32, target.hasWgmma() && cpAsyncWgmma, plan);
    int64_t gemms = plan.mmaGemms.size() + plan.genericGemms.size();
    if (plan.mmaGemms.empty()) {
      if (!plan.registerMisfits.empty())
        why = {plan.registerMisfits.front().first, plan.registerMisfits.front().second};
      else if (!plan.genericGemms.empty())
        why = {plan.genericGemms.front().first.getOperation(), plan.genericGemms.front().second};
      return "";
    }
    size_t onWgmma = plan.wgmmaGemms.size(), onMmaSync = plan.mmaGemms.size() - onWgmma;
    std::string on = !onWgmma     ? " on ldmatrix + mma.sync"
                     : !onMmaSync ? " on wgmma"
                                  : ", " + std::to_string(onWgmma) + " on wgmma and " +
                                        std::to_string(onMmaSync) + " on ldmatrix + mma.sync";
    return "register strategy: " + std::to_string(plan.mmaGemms.size()) + " of " +
           std::to_string(gemms) + (gemms == 1 ? " gemm" : " gemms") + on +
           ", their fragments in registers on " + std::to_string(threads[0] / 32) +
           " warps, the tile copies that feed them on cp.async";
  }

  RegisterPlan plan;
  AccLayout::Kind kind = AccLayout::Kind::Wgmma;
  /// Whether the ring being tried fills its tiles by TMA (else by cp.async).
  bool useTma = true;
  /// Whether the kernel took a main-loop ring (not the register strategy).
  bool mainLoopRing = false;

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
    if (gemms.empty() || !isRecomputable(loop.getLowerBound(), kernel, {}) ||
        !isRecomputable(loop.getUpperBound(), kernel, {}) ||
        !isRecomputable(loop.getStep(), kernel, {}))
      return false;

    Value acc;
    AccLayout accLayout;
    accLayout.kind = kind;
    for (GemmOp gemm : gemms) {
      auto aType = gemm.getA().getType();
      auto bType = gemm.getB().getType();
      auto cType = gemm.getC().getType();
      Type elem = aType.getElementType();
      // f8: wgmma's k32 instruction, with B K-major ([N, K], transpose_b).
      bool f8 = isFloat8(elem) && wgmma && gemm.getTransposeB();
      if (!aType.isShared() || !bType.isShared() || !cType.isFragment() || gemm.getTransposeA() ||
          gemm.getClear() || !cType.getElementType().isF32() || elem != bType.getElementType() ||
          !(isWgmmaInput(elem) || f8) || !gemm.getC().getDefiningOp<AllocOp>())
        return false;
      if (acc && acc != gemm.getC())
        return false;
      acc = gemm.getC();
      auto a = aType.getShape(), b = bType.getShape();
      int64_t bm = a[0], bk = a[1], elemBytes = f8 ? 1 : 2;
      int64_t bn = gemm.getTransposeB() ? b[0] : b[1];
      if ((bk * elemBytes) % 32 != 0 || !layout::chooseSwizzle(bm, bk, elemBytes))
        return false;
      if (gemm.getTransposeB()) {
        if (!layout::chooseSwizzle(bn, bk, elemBytes))
          return false;
      } else if (!layout::chooseSwizzle(bk, bn, 2)) {
        // Row-major B: wgmma reads it MN-major in column blocks of the swizzle's width (64
        // columns of 128 bytes; a BN of 32 or 16 is one block of 64 or 32 bytes), ldmatrix.trans
        // rows of any swizzled width.
        return false;
      }
      if (wgmma) {
        auto chosen = layout::WgmmaAccLayout::choose(bm, bn, warpgroups);
        if (!chosen)
          return false;
        // Split along N, a warpgroup's columns of a row-major B start at a column block.
        if (!gemm.getTransposeB() && chosen->warpgroupsN > 1 &&
            chosen->instrN() % (*layout::chooseSwizzle(bk, bn, 2) / 2) != 0)
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
        CopyOp copy = findFeedingCopy(operand, loop, useTma);
        if (!copy || !onlyFedBy(operand, copy, loop) || !operand.getDefiningOp<AllocOp>())
          return false;
        for (Value offset : copy.getSourceOffsets())
          if (!isRecomputable(offset, kernel, {loop.getInductionVar()}))
            return false;
        // A TMA box must start 16 bytes into a row (else an illegal instruction): its column
        // offset a known multiple of 16 bytes.
        int64_t elemBytes =
            cast<BufferType>(copy.getDest().getType()).getElementType().getIntOrFloatBitWidth() / 8;
        if (useTma && !isKnown16ByteColumn(copy.getSourceOffsets().back(), elemBytes))
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
      gemm->setAttr(kMmaAttr, MmaKindAttr::get(kernel.getContext(),
                                               wgmma ? MmaKind::Wgmma : MmaKind::MmaSync));
    for (CopyOp copy : copies) {
      copy->setAttr(useTma ? kTmaAttr : kCpAsyncAttr, b.getUnitAttr());
      // Without TMA on a target that has it, this compile serves the launches TMA rejects.
      if (!tma)
        copy->setAttr(kUnalignedAttr, b.getUnitAttr());
    }
    LLVM_DEBUG(llvm::dbgs() << (wgmma ? "wgmma" : "mma.sync") << " main loop at " << loop.getLoc()
                            << "\n");
    return true;
  }
};
} // namespace
