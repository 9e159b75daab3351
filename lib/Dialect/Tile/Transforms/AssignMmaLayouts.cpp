//===- AssignMmaLayouts.cpp - Map gemm tiles onto warps and tensor cores --===//
//
// The tiling decision of the tensor-core strategies. For the first software-pipelined main loop
// whose body only copies tensor tiles into shared buffers and multiplies them, it
//   - maps the accumulator [BM, BN] onto the kernel's warpgroups and the wgmma m64nNk16
//     instruction (sm_90a), or onto its warps and mma.sync m16n8k16 (sm_80 and later),
//     recording the register layout on the fragment's alloc (`tile.layout`);
//   - marks the gemms `tile.mma = #tile.mma<wgmma>` / `<mma_sync>` and the copies `tile.tma`
//     (TMA boxes)
//     / `tile.cp_async` (16-byte chunks).
// A kernel without such a loop may take the register strategy instead (attention: gemms inside
// a loop with softmax between them, A operands from registers): every fragment in mma.sync's
// layout on warps stacked along M, row statistics in the matching row layout, see
// assignRegisterStrategy. Anything that does not fit (shapes, types, other uses) is left
// alone: the generic strategy then lowers it.
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

/// Whether `op` accesses a buffer directly in the body of a `tile.parallel` of `shape` at
/// exactly the point (`rowOnly`: at the point's first coordinate).
static bool atParallelPoint(Operation *op, ValueRange indices, ArrayRef<int64_t> shape,
                            bool rowOnly = false) {
  auto parallel = dyn_cast_or_null<ParallelOp>(op->getParentOp());
  if (!parallel || parallel.getShape() != shape)
    return false;
  auto args = parallel.getBody().getArguments();
  return rowOnly ? indices.size() == 1 && indices[0] == args[0] : llvm::equal(indices, args);
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
  bool operator()(Operation *at, const Twine &text) {
    if (!op) {
      op = at;
      reason = text.str();
    }
    return false;
  }
};


/// Whether the body of `parallel` accesses some rank-2 fragment of its own shape at the point:
/// the fragment whose register slots the body will run on.
static bool hasFragmentDomain(ParallelOp parallel) {
  bool found = false;
  parallel.getBody().walk([&](Operation *op) {
    Value buffer;
    ValueRange indices;
    if (auto read = dyn_cast<ReadOp>(op))
      buffer = read.getBuffer(), indices = read.getIndices();
    else if (auto write = dyn_cast<WriteOp>(op))
      buffer = write.getBuffer(), indices = write.getIndices();
    auto type = buffer ? dyn_cast<BufferType>(buffer.getType()) : BufferType();
    found |= type && type.isFragment() && type.getRank() == 2 &&
             atParallelPoint(op, indices, parallel.getShape());
  });
  return found;
}

/// Every use of the rank-2 fragment `fragment` is one its register layout supports: fill, gemm
/// (accumulator or A operand), copy to a tensor, reduce along rows, element access at the point
/// of a `tile.parallel` over its shape.
static bool registerFragmentUsesFit(Value fragment, Misfit &why) {
  auto shape = cast<BufferType>(fragment.getType()).getShape();
  for (OpOperand &use : fragment.getUses()) {
    Operation *user = use.getOwner();
    if (isa<FillOp>(user))
      continue;
    if (auto gemm = dyn_cast<GemmOp>(user)) {
      if (gemm.getB() == fragment)
        return why(user, "a fragment cannot be a gemm's B operand (B comes from shared memory)");
      continue;
    }
    if (auto copy = dyn_cast<CopyOp>(user)) {
      if (copy.getSource() != fragment || !isa<tile::TensorType>(copy.getDest().getType()))
        return why(user, "a fragment in registers can only be copied to a tensor");
      continue;
    }
    if (auto reduce = dyn_cast<ReduceOp>(user)) {
      // Into a fragment of row values (which then takes the row layout), from one too.
      auto isFragment = [](Value v) { return cast<BufferType>(v.getType()).isFragment(); };
      if (reduce.getSource() != fragment || reduce.getDim() != 1 ||
          !isFragment(reduce.getDest()) || (reduce.getInit() && !isFragment(reduce.getInit())))
        return why(user, "a fragment in registers is reduced along its rows (dim = 1) into a "
                         "rank-1 fragment");
      continue;
    }
    if (auto read = dyn_cast<ReadOp>(user); read && atParallelPoint(read, read.getIndices(), shape))
      continue;
    if (auto write = dyn_cast<WriteOp>(user);
        write && write.getBuffer() == fragment && atParallelPoint(write, write.getIndices(), shape))
      continue;
    return why(user, "a fragment in registers is accessed only at the point of a 'parallel' over "
                     "its shape");
  }
  return true;
}

/// Every use of the rank-1 fragment `rows` (one value per accumulator row) is one the row
/// layout supports: fill, the result or initial value of a row reduce, element access in a
/// `tile.parallel` over the rows, or a read of the point's row in one over an accumulator.
static bool rowFragmentUsesFit(Value rows, Misfit &why) {
  auto shape = cast<BufferType>(rows.getType()).getShape();
  for (OpOperand &use : rows.getUses()) {
    Operation *user = use.getOwner();
    if (isa<FillOp>(user))
      continue;
    if (auto reduce = dyn_cast<ReduceOp>(user)) {
      if (reduce.getSource() == rows)
        return why(user, "a fragment of row values cannot be reduced further in registers");
      continue;
    }
    if (auto write = dyn_cast<WriteOp>(user);
        write && write.getValue() != rows && atParallelPoint(write, write.getIndices(), shape))
      continue;
    auto read = dyn_cast<ReadOp>(user);
    const char *rowAccess = "a fragment of row values is accessed at the point of a 'parallel' "
                            "over its rows, or read at the row of one over a fragment";
    if (!read)
      return why(user, rowAccess);
    if (atParallelPoint(read, read.getIndices(), shape))
      continue;
    auto parallel = dyn_cast<ParallelOp>(read->getParentOp());
    if (!parallel || parallel.getShape().size() != 2 || parallel.getShape()[0] != shape[0] ||
        !atParallelPoint(read, read.getIndices(), parallel.getShape(), /*rowOnly=*/true) ||
        !hasFragmentDomain(parallel))
      return why(user, rowAccess);
  }
  return true;
}

/// The register strategy, for kernels whose gemms are not a pipelined main loop (attention):
/// every fragment of the kernel lives in registers in mma.sync's layout on warps stacked along
/// M (each warp owns whole rows, so row reductions stay inside a quad of lanes and a
/// product's accumulator can be the A operand of the next gemm), the gemms run ldmatrix +
/// mma.sync from swizzled shared tiles, and the copies that fill those tiles are cp.async
/// chunks. All or nothing: a kernel with any fragment or gemm that does not fit keeps the
/// generic strategy.
static bool assignRegisterStrategy(KernelOp kernel, int64_t warps, Misfit &why) {
  SmallVector<GemmOp> gemms;
  kernel.getBody().walk([&](GemmOp gemm) { gemms.push_back(gemm); });
  if (gemms.empty())
    return false;
  // A pipelined loop of copies and products alone is a main loop that did not fit the ring
  // (tile-software-pipeline would take it for one): leave such kernels generic.
  scf::ForOp unfit;
  WalkResult mainLoop = kernel.getBody().walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kStagesAttr))
      return WalkResult::advance();
    for (Operation &op : loop.getBody()->without_terminator())
      if (!isa<CopyOp, GemmOp, BlockIdOp, DimOp>(op) &&
          op.getDialect()->getNamespace() != "arith")
        return WalkResult::advance();
    unfit = loop;
    return WalkResult::interrupt();
  });
  if (mainLoop.wasInterrupted())
    return why(unfit, "this pipelined loop only copies and multiplies tiles, but they do not fit "
                      "the tensor-core main loop (rank-2 bf16/f16 tiles of whole swizzle atoms, "
                      "an f32 accumulator of whole instruction tiles, bounds and offsets from "
                      "block ids, sizes and arguments)");
  SmallVector<AllocOp> accumulators, rows;
  int64_t bm = 0, registers = 0;
  for (auto alloc : kernel.getBody().getOps<AllocOp>()) {
    BufferType type = alloc.getBuffer().getType();
    if (!type.isFragment())
      continue;
    auto shape = type.getShape();
    Type elem = type.getElementType();
    if (bm && shape[0] != bm)
      return why(alloc, "fragments of different row counts cannot share one register layout");
    bm = shape[0];
    if (shape.size() == 2) {
      if (shape[1] % 16 != 0 || !(elem.isF32() || isWgmmaInput(elem)))
        return why(alloc, "a fragment in registers has a multiple of 16 columns and type f32, "
                          "bf16 or f16");
      accumulators.push_back(alloc);
      registers += shape[0] * shape[1] * elem.getIntOrFloatBitWidth() / 32;
    } else if (shape.size() == 1 && elem.isF32()) {
      rows.push_back(alloc);
    } else {
      return why(alloc, "only rank-2 fragments and rank-1 f32 fragments of row values can live in "
                        "registers");
    }
  }
  if (!bm)
    return why(gemms.front(), "the gemm's accumulator is not a fragment");
  if (bm % (16 * warps) != 0)
    return why(gemms.front(), "the " + Twine(bm) + " rows of the fragments do not split into " +
                                  Twine(warps) + " warps of 16-row tiles (a multiple of " +
                                  Twine(16 * warps) + " rows is needed)");
  // Beyond about 200 registers of fragments per thread the operands no longer fit beside them.
  if (registers / (32 * warps) > 200)
    return why(gemms.front(), "the fragments need " + Twine(registers / (32 * warps)) +
                                  " registers per thread (at most 200): fewer rows per warp or "
                                  "narrower fragments");

  SmallVector<CopyOp> copies;
  for (GemmOp gemm : gemms) {
    auto aType = gemm.getA().getType();
    auto bType = gemm.getB().getType();
    auto cType = gemm.getC().getType();
    Type elem = bType.getElementType();
    if (!cType.isFragment() || !cType.getElementType().isF32() || gemm.getTransposeA() ||
        !bType.isShared() || !isWgmmaInput(elem) || aType.getElementType() != elem ||
        !(aType.isShared() || aType.isFragment()))
      return why(gemm, "a tensor-core gemm takes bf16 or f16 operands, A from shared memory or a "
                       "fragment, B from shared memory, an f32 fragment accumulator and no "
                       "transpose_a");
    auto a = aType.getShape(), b = bType.getShape();
    if (a[1] % 16 != 0 || (aType.isShared() && !layout::chooseSwizzle(a[0], a[1], 2)) ||
        !layout::chooseSwizzle(b[0], b[1], 2))
      return why(gemm, "the gemm's k extent must be a multiple of 16 and its shared tiles whole "
                       "swizzle atoms");
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      if (!cast<BufferType>(operand.getType()).isShared())
        continue;
      // Shared operands: filled by copies of tensor tiles, read by mma.sync gemms only.
      for (Operation *user : operand.getUsers()) {
        if (auto other = dyn_cast<GemmOp>(user)) {
          if (other.getC() == operand)
            return why(other, "a shared buffer cannot be both a tensor-core operand and an "
                              "accumulator");
          continue;
        }
        auto copy = dyn_cast<CopyOp>(user);
        auto tensor = copy ? dyn_cast<tile::TensorType>(copy.getSource().getType())
                           : tile::TensorType();
        if (!tensor || copy.getDest() != operand || tensor.getRank() < 2 ||
            tensor.getElementType() != elem)
          return why(user, "a tensor-core operand in shared memory is only filled by copies of "
                           "tensor tiles of its type and read by gemms");
        if (!llvm::is_contained(copies, copy))
          copies.push_back(copy);
      }
    }
  }
  for (AllocOp alloc : accumulators)
    if (!registerFragmentUsesFit(alloc.getBuffer(), why))
      return false;
  for (AllocOp alloc : rows)
    if (!rowFragmentUsesFit(alloc.getBuffer(), why))
      return false;

  MLIRContext *ctx = kernel.getContext();
  Builder b(ctx);
  for (AllocOp alloc : accumulators) {
    AccLayout layout;
    layout.kind = AccLayout::Kind::MmaSync;
    layout.mma = layout::MmaSyncAccLayout{bm, alloc.getBuffer().getType().getShape()[1], warps, 1};
    alloc->setAttr(kLayoutAttr, layout.toAttr(ctx));
  }
  for (AllocOp alloc : rows) {
    AccLayout layout;
    layout.kind = AccLayout::Kind::MmaSyncRows;
    layout.mma = layout::MmaSyncAccLayout{bm, 16, warps, 1};
    alloc->setAttr(kLayoutAttr, layout.toAttr(ctx));
  }
  for (GemmOp gemm : gemms)
    gemm->setAttr(kMmaAttr, MmaKindAttr::get(ctx, MmaKind::MmaSync));
  for (CopyOp copy : copies)
    copy->setAttr(kCpAsyncAttr, b.getUnitAttr());
  LLVM_DEBUG(llvm::dbgs() << "register strategy for " << kernel.getSymName() << "\n");
  return true;
}

namespace {
struct AssignMmaLayoutsPass
    : public tlc::tile::impl::TileAssignMmaLayoutsBase<AssignMmaLayoutsPass> {
  using TileAssignMmaLayoutsBase::TileAssignMmaLayoutsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    FailureOr<TargetAttr> target = requireTarget(kernel, "tile-assign-mma-layouts");
    if (failed(target))
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
    std::string chosen = choose(kernel, *target, why);
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
    kind = target.hasWgmma() && tma ? AccLayout::Kind::Wgmma : AccLayout::Kind::MmaSync;
    auto threads = kernel.getThreads();
    if (threads[1] != 1 || threads[2] != 1 || threads[0] % 32 != 0 || threads[0] > 1024) {
      why.reason = "tensor-core strategies need threads(n) with n a multiple of 32, at most 1024";
      return "";
    }
    int64_t group = kind == AccLayout::Kind::Wgmma ? 128 : 32;
    if (threads[0] % group == 0 &&
        threads[0] <= (kind == AccLayout::Kind::Wgmma ? 512 : 1024)) {
      int64_t warpgroups = threads[0] / group;
      SmallVector<scf::ForOp> loops;
      kernel.getBody().walk([&](scf::ForOp loop) {
        if (loop->hasAttr(kStagesAttr))
          loops.push_back(loop);
      });
      // One producer warpgroup serves one main loop: the first that fits.
      for (scf::ForOp loop : loops)
        if (assign(kernel, loop, warpgroups))
          return kind == AccLayout::Kind::Wgmma
                     ? "sm_90a strategy: the pipelined loop is a TMA + wgmma ring fed by a "
                       "producer warpgroup"
                     : "mma.sync strategy: the pipelined loop is a cp.async ring feeding "
                       "ldmatrix + mma.sync";
    }
    // No pipelined main loop: the register strategy (mma.sync, on sm_90a too).
    if (assignRegisterStrategy(kernel, threads[0] / 32, why))
      return "register strategy: fragments in registers on " + std::to_string(threads[0] / 32) +
             " warps, gemms on ldmatrix + mma.sync, tile copies on cp.async";
    return "";
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
          if (!isRecomputable(offset, kernel, {loop.getInductionVar()}))
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
      copy->setAttr(wgmma ? kTmaAttr : kCpAsyncAttr, b.getUnitAttr());
      // Without TMA on a target that has it, this compile serves the launches TMA rejects.
      if (!wgmma && !tma)
        copy->setAttr(kUnalignedAttr, b.getUnitAttr());
    }
    LLVM_DEBUG(llvm::dbgs() << (wgmma ? "wgmma" : "mma.sync") << " main loop at " << loop.getLoc()
                            << "\n");
    return true;
  }
};
} // namespace
