//===- Explain.cpp - What each tile op of a kernel lowers to --------------===//
//
// `tlc --explain`, per operation: after the tile passes decided, one remark per kernel with
// gemms, with a note at each gemm (its instruction and operands), each tile copy (TMA boxes,
// cp.async chunks, register stores or element loads), each reduce (shuffles, warps meeting in
// shared memory, or the generic lowering) and each `pipelined` loop (the ring it became, or why
// it runs in order). It reads only the verified decisions (TileAttrs.h).
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "llvm/Support/FormatVariadic.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEEXPLAIN
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

static std::string swizzleOf(Value buffer) {
  auto alloc = buffer.getDefiningOp<AllocOp>();
  auto swizzle = alloc ? alloc->getAttrOfType<IntegerAttr>(kSwizzleAttr) : IntegerAttr();
  if (swizzle && swizzle.getInt() == 16)
    return ", 16-byte column blocks (no swizzle: the tile's element reads are as conflict-free "
           "without one)";
  return swizzle ? llvm::formatv(", {0}-byte swizzle", swizzle.getInt()).str() : "";
}

/// The swizzles of a gemm's shared operands: one where they agree, else each named.
static std::string operandSwizzles(GemmOp gemm) {
  std::string a = swizzleOf(gemm.getA()), b = swizzleOf(gemm.getB());
  if (a == b || a.empty() || b.empty())
    return b;
  return a + " (A)" + b + " (B)";
}

/// wgmma's k depth for the gemm's operands: 32 bytes of each row (k16 bf16/f16, k32 f8).
static int64_t wgmmaK(GemmOp gemm) {
  return 256 / gemm.getA().getType().getElementType().getIntOrFloatBitWidth();
}

static std::string describeGemm(GemmOp gemm) {
  std::optional<MmaKind> kind = getMmaKind(gemm);
  std::optional<AccLayout> acc = getAccLayout(gemm.getC());
  // wgmma on the register strategy's accumulator (warps stacked along M, 16 rows each).
  if (kind == MmaKind::Wgmma && acc && acc->kind == AccLayout::Kind::MmaSync) {
    const layout::MmaSyncAccLayout &l = acc->mma;
    if (std::optional<layout::WgmmaAccLayout> instr = getRegisterWgmmaInstr(gemm))
      return llvm::formatv(
                 "gemm: wgmma m64n{0}k{6} ({1} per k step) on {2} warpgroup{3}, A from {4}, "
                 "B from shared memory{5}",
                 instr->cols, l.cols / instr->cols, instr->warpgroupsM,
                 instr->warpgroupsM == 1 ? "" : "s",
                 gemm.getA().getType().isFragment() ? "registers"
                 : gemm.getTransposeA()             ? "shared memory (transposed: M-major)"
                                                    : "shared memory",
                 swizzleOf(gemm.getB()), wgmmaK(gemm))
          .str();
  }
  if (kind == MmaKind::Wgmma && acc) {
    Type elem = gemm.getA().getType().getElementType();
    // 8-bit products: wgmma keeps about 14 significant bits of the f32 accumulator per k step
    // (measured on the H100 against an f32 reference: about (K / 32) 2^-15 of the largest |C|).
    bool float8 = isFloat8(elem);
    return llvm::formatv("gemm: wgmma m64n{0}k{1}{2} on {3} x {4} warpgroups, A and B from "
                         "shared memory{5}{6}",
                         acc->wgmma.instrN(), wgmmaK(gemm),
                         isa<Float8E4M3FNType>(elem) ? " (f8e4m3)"
                         : isa<Float8E5M2Type>(elem) ? " (f8e5m2)"
                                                     : "",
                         acc->wgmma.warpgroupsM, acc->wgmma.warpgroupsN, operandSwizzles(gemm),
                         float8 ? "; its f32 accumulator keeps about 14 significant bits per k "
                                  "step (error near K / 32 * 2^-15 of the largest |C|)"
                                : "")
        .str();
  }
  if (kind == MmaKind::MmaSync && acc)
    return llvm::formatv("gemm: ldmatrix + mma.sync m16n8k16 on {0} x {1} warps, A from {2}, B "
                         "from shared memory",
                         acc->mma.warpsM, acc->mma.warpsN,
                         gemm.getA().getType().isFragment() ? "registers"
                         : gemm.getTransposeA() ? "shared memory (transposed: ldmatrix.trans)"
                                                : "shared memory")
        .str();
  return "gemm: no tensor cores (the generic lowering: multiply-adds over shared memory)";
}

/// Whether some op writes the kernel tensor `tensor` (an op whose effects are unknown counts).
static bool isWritten(Value tensor) {
  for (Operation *user : tensor.getUsers()) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects)
      return true;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffectsOnValue(tensor, list);
    if (llvm::any_of(list, [](const MemoryEffects::EffectInstance &effect) {
          return isa<MemoryEffects::Write>(effect.getEffect());
        }))
      return true;
  }
  return false;
}

/// Why a copy of a tensor tile into shared memory `dest` took no cp.async (as the passes that
/// mark copies decide: RegisterLayouts, AssignBlockedLayouts), or empty.
static std::string genericCopyReason(CopyOp copy, BufferType dest) {
  auto tensor = cast<tile::TensorType>(copy.getSource().getType());
  if (tensor.getElementType() != dest.getElementType())
    return llvm::formatv(": it converts {0} to {1}, and cp.async copies bytes as they are",
                         tensor.getElementType(), dest.getElementType())
        .str();
  int64_t elemBytes = cpAsyncElementBytes(dest);
  if (!elemBytes || tensor.getRank() < 2)
    return ": cp.async takes rank-2 tiles of 1-, 2- or 4-byte elements from tensors of rank 2 "
           "or more";
  auto shape = dest.getShape();
  if (shape[0] % 8 != 0)
    return llvm::formatv(": its {0} x {1} tile is not a multiple of 8 rows (cp.async fills "
                         "whole 8-row swizzle atoms)",
                         shape[0], shape[1])
        .str();
  if (!layout::chooseSwizzle(shape[0], shape[1], elemBytes))
    return llvm::formatv(": a row of its {0} x {1} tile is {2} bytes (cp.async fills rows of 32, "
                         "64 or a multiple of 128 bytes)",
                         shape[0], shape[1], shape[1] * elemBytes)
        .str();
  return "";
}

/// Whether `op` is in a ring a producer warpgroup fills (its copies are the producer's; of the
/// copies before a `tma_regs` ring, only the TMA ones are).
static bool inProducerRing(Operation *op) {
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    if (std::optional<PipelineKind> kind = getPipelineKind(loop); kind && hasProducer(*kind))
      return true;
  return false;
}

/// Empty for copies that are not worth a note (local buffers).
static std::string describeCopy(CopyOp copy, bool producer) {
  auto source = dyn_cast<BufferType>(copy.getSource().getType());
  auto dest = dyn_cast<BufferType>(copy.getDest().getType());
  if (!source && dest && dest.isShared()) {
    auto shape = dest.getShape();
    if (copy->hasAttr(kTmaAttr))
      // launch() copies a tensor of 16-bit elements TMA cannot read in place to an aligned
      // workspace, unless the kernel writes it (docs/abi.md).
      return llvm::formatv("copy: TMA boxes of {0} x {1}{2}{3}; {4}", shape[0], shape[1],
                           swizzleOf(copy.getDest()),
                           producer ? ", issued by the producer warpgroup" : "",
                           cast<tile::TensorType>(copy.getSource().getType()).getRank() > 2
                               ? "a launch where the tensor is not 16-byte aligned takes the "
                                 "entry for tensors TMA cannot read (tensors of rank 3 or more "
                                 "are read in place)"
                           : isWritten(copy.getSource())
                               ? "the kernel writes this tensor: a launch where it is not "
                                 "16-byte aligned takes the entry for tensors TMA cannot read"
                           : dest.getElementType().getIntOrFloatBitWidth() != 16
                               ? "a launch where the tensor is not 16-byte aligned takes the "
                                 "entry for tensors TMA cannot read (only 16-bit tensors are "
                                 "copied to an aligned workspace)"
                               : "a launch where the tensor is not 16-byte aligned copies it "
                                 "to an aligned workspace first")
          .str();
    // A column offset not known to be a multiple of 16 bytes (TileToNVVM versions on it).
    int64_t elemBytes = dest.getElementType().getIntOrFloatBitWidth() / 8;
    std::string column =
        isKnown16ByteColumn(copy.getSourceOffsets().back(), elemBytes)
            ? ""
            : llvm::formatv("; its column offset is not a known multiple of {0} elements (16 "
                            "bytes): no TMA box can start there, and it takes the version for "
                            "unaligned tensors (outside a pipelined loop, only when the offset "
                            "is not aligned at run time)",
                            16 / elemBytes)
                  .str();
    if (copy->hasAttr(kCpAsyncAttr) && producer)
      return "copy: by the producer warpgroup, cp.async 16-byte chunks" +
             swizzleOf(copy.getDest()) +
             "; for tensors that are not 16-byte aligned, the aligned 16-byte blocks covering "
             "each row by cp.async, realigned in shared memory (chunk by chunk in registers "
             "where a tile does not fit the staging)" +
             column;
    if (copy->hasAttr(kCpAsyncAttr))
      return "copy: cp.async 16-byte chunks" + swizzleOf(copy.getDest()) +
             (copy->hasAttr(kUnalignedAttr)
                  ? "; this entry serves tensors that are not 16-byte aligned: 16-byte chunks of "
                    "element loads for them"
                  : "; element loads for tensors that are not 16-byte aligned") +
             column;
    return "copy: element loads by every thread (the generic lowering)" +
           genericCopyReason(copy, dest);
  }
  if (source && source.isFragment() && !dest) {
    auto layout = getAccLayout(copy.getSource());
    if (!layout)
      return "copy: from a fragment kept in shared memory, element by element (the generic "
             "lowering)";
    auto tensor = dyn_cast<tile::TensorType>(copy.getDest().getType());
    if (copy.getTmaStore())
      return llvm::formatv(
                 "copy: from registers through shared memory: each warp writes 16-row chunks of "
                 "its part (128 bytes wide) to a scratch buffer in TMA's 128-byte swizzle ({0}), "
                 "then one lane stores each chunk with a TMA bulk store "
                 "(cp.async.bulk.tensor, edges clipped by TMA; the warp goes on without waiting "
                 "for it) where the launch can encode the tensor's store map (16-byte aligned "
                 "base and rows); elsewhere their rows go out as 16-byte vectors, each masked and "
                 "tested for alignment on its own (8-, 4- or 2-byte pieces where the rows are not "
                 "16-byte aligned, elements where an edge cuts one)",
                 storeStagingSlabs(copy) > 1 ? "two slabs of 16 rows per warp, used in turn"
                                             : "one slab of 16 rows per warp")
          .str();
    if (copy.getScratch())
      return "copy: from registers through shared memory: each warp writes 16-row chunks of "
             "its part (128 bytes wide) to its rows of a scratch buffer, then stores their rows "
             "as 16-byte vectors, each masked and tested for alignment on its own (8-, 4- or "
             "2-byte pieces where the rows are not 16-byte aligned, elements where an edge cuts "
             "one)";
    bool vectors = tensor && tensor.getElementType().getIntOrFloatBitWidth() == 16 &&
                   !layout->isRows() && !layout->isBlocked();
    return std::string("copy: from registers, each thread stores its own elements (") +
           (vectors ? "16-byte vectors of a row, a quad's pairs transposed by 4 shuffles, where "
                      "the rows are 16-byte aligned; else "
                    : "") +
           "pairs; one element on where a row is one element off, by a quad shuffle)";
  }
  bool fromRegisters = source && getAccLayout(copy.getSource());
  bool toRegisters = dest && getAccLayout(copy.getDest());
  if (dest && (fromRegisters != toRegisters) && !dest.isLocal() && !source.isLocal()) {
    // Pairs of a row into a swizzled tile (a gemm operand): one 32-bit store each.
    std::optional<AccLayout> layout = fromRegisters ? getAccLayout(copy.getSource()) : std::nullopt;
    bool pairs = layout && dest.isShared() && storesSlotPairs(*layout, dest.getElementType());
    return std::string(fromRegisters ? "copy: from registers into shared memory"
                                     : "copy: from shared memory into registers") +
           ", each thread its own elements" +
           (pairs ? " (two of a row per 32-bit store where the tile is swizzled)" : "") +
           (source.isFragment() && dest.isFragment()
                ? " (a layout conversion: the fragment goes through shared memory for an op its "
                  "register layout does not serve)"
                : "");
  }
  if (source && source.isLocal())
    return "";
  if (dest && dest.isLocal())
    return "";
  if (source && dest && source.isShared() && dest.isShared() && dest.getElementType().isF16() &&
      isFloat8(source.getElementType()) &&
      llvm::any_of(copy.getDest().getUsers(), [](Operation *user) { return isa<GemmOp>(user); }))
    return "copy: the 8-bit float tile converted to f16 element by element, for a gemm with no "
           "8-bit tensor-core form on this target (tile-widen-gemm-operands)";
  return "copy: element by element (the generic lowering)";
}

static std::string iterations(int64_t n) {
  return std::to_string(n) + (n == 1 ? " iteration" : " iterations");
}

/// The threads of the kernel's producer warpgroup, which tile-software-pipeline marks.
static std::string producerThreads(KernelOp kernel) {
  auto threads = kernel->getAttrOfType<IntegerAttr>(kProducerThreadsAttr);
  return threads ? std::to_string(threads.getInt()) + " threads"
                 : std::string("its threads not marked on the kernel");
}

static std::string describeLoop(scf::ForOp loop, KernelOp kernel, bool overlap, bool pingPong) {
  auto stages = loop->getAttrOfType<IntegerAttr>(kStagesAttr);
  std::optional<PipelineKind> kind = getPipelineKind(loop);
  if (!kind)
    return "pipelined loop: runs in order (only a loop of tile copies and gemms, or a loop of the "
           "register strategy whose copies feed only it, becomes a ring)";
  int64_t s = stages.getInt();
  switch (*kind) {
  case PipelineKind::TmaWgmma: {
    StreamKPlan split = planStreamK(kernel, loop, kernel.getThreads()[0]);
    PairPlan pairs = planPairs(kernel, loop);
    return llvm::formatv("pipelined: a ring of {0} stages filled by TMA from a producer "
                         "warpgroup ({1}), full/empty mbarriers per stage; {2}; {3}",
                         s, producerThreads(kernel),
                         split.slotBytes
                             ? llvm::formatv("stream-K: where whole tiles would leave the last "
                                             "wave short, the launch splits tiles along K, "
                                             "partial sums through a workspace slot of {0} "
                                             "bytes per multiprocessor",
                                             split.slotBytes)
                                   .str()
                             : "whole tiles only (no stream-K: " + split.whyNot + ")",
                         pairs.multicast.empty()
                             ? "blocks alone (no pairs: " + pairs.whyNot + ")"
                             : llvm::formatv("with --cluster-pairs, blocks in pairs (clusters "
                                             "of two, tiles of adjacent rows) loading {0} of its "
                                             "{1} copies once for both (TMA multicast)",
                                             pairs.multicast.size(),
                                             llvm::range_size(loop.getBody()->getOps<CopyOp>()))
                                   .str())
        .str();
  }
  case PipelineKind::CpAsyncMma:
    return llvm::formatv("pipelined: a cp.async ring of {0} stages, copies {1} ahead", s,
                         iterations(s - 1))
        .str();
  case PipelineKind::LoadsWgmma:
    return llvm::formatv("pipelined: a ring of {0} stages filled by a producer warpgroup ({1}) "
                         "that loads the tiles itself, full/empty mbarriers per stage",
                         s, producerThreads(kernel))
        .str();
  case PipelineKind::TmaRegs: {
    std::string overlapped = "each iteration waits for its gemms (the body in order)";
    auto line = [](Operation *op) {
      auto at = op ? dyn_cast<FileLineColLoc>(op->getLoc()) : FileLineColLoc();
      return at ? llvm::formatv(" (line {0})", at.getLine()).str() : std::string();
    };
    std::optional<OverlapPlan> overlapPlan = overlap ? planOverlap(loop) : std::nullopt;
    int64_t warpgroups = kernel.getThreads()[0] / 128;
    if (std::optional<PingPongPlan> turns = pingPong && !overlapPlan && warpgroups >= 2
                                                ? planPingPong(*loop.getBody())
                                                : std::nullopt)
      overlapped += llvm::formatv("; its {0} consumer warpgroups take turns (named barriers) "
                                  "from the last gemm{1} through the next iteration's first{2}, "
                                  "so that one multiplies while the others run the ops between "
                                  "(ping-pong)",
                                  warpgroups, line(turns->last), line(turns->first))
                        .str();
    if (std::optional<OverlapPlan> plan = overlapPlan) {
      overlapped = llvm::formatv("each iteration issues the previous one's last gemm{0} right "
                                 "after its first and waits for it only {1} (it multiplies while "
                                 "the ops between run; its stage is released there)",
                                 line(plan->last),
                                 plan->needs ? "at the first op that needs it" + line(plan->needs)
                                             : std::string("at the iteration's end"))
                       .str();
    }
    return llvm::formatv("pipelined: a ring of {0} stages filled by TMA from a producer "
                         "warpgroup ({1}), full/empty mbarriers per stage; the rest of "
                         "the body stays on the kernel's warps, which walk the grid's blocks "
                         "(one block per multiprocessor); {2}; the launch takes the loop's "
                         "cp.async form where TMA cannot read the tensors",
                         s, producerThreads(kernel), overlapped)
        .str();
  }
  case PipelineKind::CpAsyncRegs:
    return llvm::formatv("pipelined: its cp.async copies run {0} ahead into {1} stages",
                         iterations(s - 1), s)
        .str();
  }
  return "";
}

/// How a reduce combines its elements: in registers (threads of a row by shuffles, warps that
/// share a row through a scratch buffer in shared memory), or on the generic lowering.
static std::string describeReduce(ReduceOp reduce) {
  std::optional<AccLayout> src = getAccLayout(reduce.getSource());
  if (!src || reduce.getDim() != 1 || reduce.isArgReduce())
    return "reduce: the generic lowering, over the elements in shared memory";
  if (src->kind == AccLayout::Kind::MmaSync) {
    int64_t warps = src->mma.warpsN;
    return llvm::formatv("reduce: in registers: each thread's elements of a row, then its quad by "
                         "xor shuffles{0}",
                         warps > 1 ? llvm::formatv(", then the {0} warps holding each row through "
                                                   "a scratch buffer in shared memory (a barrier)",
                                                   warps)
                                         .str()
                                   : std::string())
        .str();
  }
  if (src->kind == AccLayout::Kind::Blocked) {
    int64_t perRow = src->blocked.threadsPerRow;
    return llvm::formatv("reduce: in registers: each thread's vectors of a row, then the {0} "
                         "threads of the row by xor shuffles{1}",
                         perRow,
                         perRow > 32 ? llvm::formatv(", then its {0} warps through a scratch "
                                                     "buffer in shared memory (a barrier)",
                                                     perRow / 32)
                                           .str()
                                     : std::string())
        .str();
  }
  return "";
}

namespace {
struct ExplainPass : public tlc::tile::impl::TileExplainBase<ExplainPass> {
  using TileExplainBase::TileExplainBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    // A configuration left out of this architecture's image (its warning says so).
    if (kernel->hasAttr(kOmittedAttr))
      return;
    bool hasGemm = false;
    kernel.getBody().walk([&](GemmOp) { hasGemm = true; });
    if (!hasGemm) {
      // Kernels without gemms: what each `pipelined` loop became, and its cp.async copies.
      kernel.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
        auto loop = dyn_cast<scf::ForOp>(op);
        if (loop && loop->hasAttr(kStagesAttr))
          loop.emitRemark() << (getPipelineKind(loop)
                                    ? describeLoop(loop, kernel, overlap, pingPong)
                                    : "pipelined loop: runs in order (in a kernel without gemms, "
                                      "a loop becomes a ring when its copies from tensors fill "
                                      "shared tiles that only copies into registers read, and "
                                      "its other copies fill registers or store them)");
        if (auto copy = dyn_cast<CopyOp>(op); copy && copy->hasAttr(kCpAsyncAttr))
          copy.emitRemark() << describeCopy(copy, /*producer=*/false);
      });
      return;
    }
    FailureOr<TargetAttr> target = requireTarget(kernel, "tile-explain");
    if (failed(target))
      return signalPassFailure();
    // The plain entry of a kernel with a TMA entry: its copies serve unaligned tensors.
    bool plain = false;
    kernel.getBody().walk([&](CopyOp copy) { plain |= copy->hasAttr(kUnalignedAttr); });
    if (unalignedOnly && !plain)
      return;
    InFlightDiagnostic remark =
        kernel.emitRemark() << "kernel '" << kernel.getSymName() << "' for " << target->getArch()
                            << (plain ? " (the entry for tensors TMA cannot read)" : "")
                            << ", per operation:";
    kernel.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      std::string text;
      if (auto gemm = dyn_cast<GemmOp>(op))
        text = describeGemm(gemm);
      else if (auto copy = dyn_cast<CopyOp>(op))
        text = describeCopy(copy, inProducerRing(copy) || (copy->hasAttr(kTmaAttr) &&
                                                           kernel->hasAttr(kProducerThreadsAttr)));
      else if (auto loop = dyn_cast<scf::ForOp>(op); loop && loop->hasAttr(kStagesAttr))
        text = describeLoop(loop, kernel, overlap, pingPong);
      else if (auto reduce = dyn_cast<ReduceOp>(op))
        text = describeReduce(reduce);
      if (!text.empty())
        remark.attachNote(op->getLoc()) << text;
    });
  }
};
} // namespace
