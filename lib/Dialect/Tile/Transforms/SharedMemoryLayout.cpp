//===- SharedMemoryLayout.cpp - Swizzle, place and check shared buffers ---===//
//
// For kernels of a tensor-core strategy (a pipelined main loop: the sm_90a strategy's TMA ring
// or the mma.sync strategy's cp.async ring; or the register strategy's cp.async copies):
//   - each shared buffer a TMA or cp.async copy fills gets the widest swizzle (128/64/32 B) whose
//     atom the TMA box, the wgmma descriptor and ldmatrix all accept (`tile.swizzle`; XOR of
//     16-byte chunks with the row, conflict-free for cp.async writes and ldmatrix reads); one
//     that no gemm reads (cp.async in, a blocked register layout's vectors out) takes 128 B for
//     any number of rows whose rows are multiples of 128 bytes;
//   - every shared buffer, and every fragment that is not held in registers, gets a byte offset
//     in dynamic shared memory (`tile.offset`): 1024-byte aligned when swizzled, 16 otherwise,
//     times its pipeline stages; buffers whose live ranges (in the kernel's top-level order)
//     do not overlap share bytes, and so do buffers used only in different branches of one
//     `if` (a kernel choosing its tile by the shapes needs the largest branch's bytes only);
//   - the pipeline's mbarriers (two per stage) follow, and the total goes on the kernel
//     (`tile.shared_bytes`), checked against the architecture's limit with a located error.
// A loop's `stages` is an upper bound: when its ring does not fit the architecture (e.g. four
// 48 KiB stages on sm_80's 163 KiB), the pass lowers it, down to two stages, first.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#include <array>

namespace tlc::tile {
#define GEN_PASS_DEF_TILESHAREDMEMORYLAYOUT
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

#define DEBUG_TYPE "tile-shared-memory-layout"

namespace {
/// A shared buffer to place: bytes (all stages), alignment, the top-level ops between which it
/// is live, and its offset once placed.
struct Placement {
  AllocOp alloc;
  int64_t bytes, align, first, last;
  /// The innermost region holding every use of the buffer.
  Region *uses;
  int64_t offset = 0;
};
} // namespace

/// A shared buffer to place, with the innermost region holding every use of it.
struct SharedAlloc {
  AllocOp alloc;
  Region *uses;
};

/// The shared buffers of `kernel` that tile-shared-memory-layout places (not local ones, not
/// fragments kept in registers), in walk order.
static SmallVector<SharedAlloc> sharedAllocs(KernelOp kernel) {
  SmallVector<SharedAlloc> allocs;
  kernel.walk([&](AllocOp alloc) {
    if (alloc.getBuffer().getType().isLocal() || alloc->hasAttr(kLayoutAttr))
      return;
    allocs.push_back({alloc, usesRegion({alloc.getBuffer()}, alloc->getParentRegion())});
  });
  return allocs;
}

/// The stages of pipelined `loop`, at most its `stages`, whose ring fits `limit` beside the
/// other buffers (not counting `without`); the ring's allocs into `ringAllocs` when given.
static int64_t stagesThatFit(scf::ForOp loop, ArrayRef<SharedAlloc> allocs, int64_t limit,
                             Operation *without = nullptr,
                             SmallVectorImpl<AllocOp> *ringAllocs = nullptr) {
  int64_t ring = 0, other = 0;
  for (SharedAlloc a : allocs) {
    if (a.alloc->use_empty() || a.alloc == without ||
        inExclusiveBranches(a.uses, &loop.getRegion()))
      continue;
    bool staged = a.alloc->hasAttr(kStagesAttr);
    if (staged && loop->isAncestor(a.uses->getParentOp()) && ringAllocs)
      ringAllocs->push_back(a.alloc);
    (staged ? ring : other) += a.alloc.getBuffer().getType().getSizeInBytes() + 1024;
  }
  int64_t stages = cast<IntegerAttr>(loop->getAttr(kStagesAttr)).getInt();
  int64_t fitting = stages;
  while (fitting > 2 && other + fitting * ring + 16 * fitting > limit)
    --fitting;
  return fitting;
}

/// `stages` is an upper bound: a ring that does not fit `limit` bytes of shared memory gets
/// fewer stages (down to 2) before anything is placed. Buffers used only in another branch of an
/// `if` than the loop do not count (they share bytes with the ring, collectPlacements), nor does
/// the store staging scratch (addStoreStaging: where it does not fit beside the ring, the copies
/// store directly instead, runOnOperation).
static void fitStages(KernelOp kernel, ArrayRef<SharedAlloc> allocs, int64_t limit) {
  Operation *scratch = nullptr;
  kernel.getBody().walk([&](CopyOp copy) {
    if (Value s = copy.getScratch())
      scratch = s.getDefiningOp();
  });
  Builder b(kernel.getContext());
  kernel.walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kPipelineAttr))
      return;
    SmallVector<AllocOp> ringAllocs;
    int64_t stages = cast<IntegerAttr>(loop->getAttr(kStagesAttr)).getInt();
    int64_t fitting = stagesThatFit(loop, allocs, limit, scratch, &ringAllocs);
    if (fitting == stages)
      return;
    loop->setAttr(kStagesAttr, b.getI64IntegerAttr(fitting));
    for (AllocOp alloc : ringAllocs)
      alloc->setAttr(kStagesAttr, b.getI64IntegerAttr(fitting));
  });
}

namespace {
/// The value of index expressions for one thread of warp 0 (tile.read indices after
/// tile-partition-threads): the thread's coordinates, chosen iterations of the loops around the
/// read (`loops`: induction variable -> iteration; other loops at their first), values that do
/// not depend on the thread (block ids, sizes) as 0. nullopt where the expression depends on
/// something else per thread (an element read from memory).
struct LaneEvaluator {
  std::array<int64_t, 3> thread;
  llvm::DenseMap<Value, int64_t> loops;
  llvm::DenseMap<Value, std::optional<int64_t>> memo;

  std::optional<int64_t> eval(Value v) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    std::optional<int64_t> result = compute(v);
    memo[v] = result;
    return result;
  }

  std::optional<int64_t> compute(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg != loop.getInductionVar())
        return std::nullopt;
      std::optional<int64_t> lb = eval(loop.getLowerBound()), step = eval(loop.getStep());
      if (!lb || !step)
        return std::nullopt;
      return *lb + loops.lookup(arg) * *step;
    }
    Operation *op = v.getDefiningOp();
    if (auto id = dyn_cast<ThreadIdOp>(op))
      return thread[id.getDim()];
    if (isa<BlockIdOp, DimOp>(op))
      return 0;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto value = dyn_cast<IntegerAttr>(constant.getValue()))
        return value.getInt();
      return std::nullopt;
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp,
            arith::TruncIOp>(op))
      return eval(op->getOperand(0));
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      std::optional<int64_t> cond = eval(select.getCondition());
      return cond ? eval(*cond ? select.getTrueValue() : select.getFalseValue()) : std::nullopt;
    }
    if (op->getNumOperands() != 2 || op->getNumResults() != 1)
      return std::nullopt;
    std::optional<int64_t> x = eval(op->getOperand(0)), y = eval(op->getOperand(1));
    if (!x || !y)
      return std::nullopt;
    int64_t a = *x, b = *y;
    bool zero = b == 0;
    return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
        .Case([&](arith::AddIOp) { return a + b; })
        .Case([&](arith::SubIOp) { return a - b; })
        .Case([&](arith::MulIOp) { return a * b; })
        .Case<arith::DivSIOp, arith::DivUIOp>(
            [&](Operation *) { return zero ? std::nullopt : std::optional<int64_t>(a / b); })
        .Case<arith::RemSIOp, arith::RemUIOp>(
            [&](Operation *) { return zero ? std::nullopt : std::optional<int64_t>(a % b); })
        .Case([&](arith::CeilDivSIOp) {
          return zero ? std::nullopt : std::optional<int64_t>(llvm::divideCeilSigned(a, b));
        })
        .Case([&](arith::FloorDivSIOp) {
          return zero ? std::nullopt : std::optional<int64_t>(llvm::divideFloorSigned(a, b));
        })
        .Case([&](arith::AndIOp) { return a & b; })
        .Case([&](arith::OrIOp) { return a | b; })
        .Case([&](arith::XOrIOp) { return a ^ b; })
        .Case([&](arith::ShLIOp) {
          return b < 0 || b > 62 ? std::nullopt : std::optional<int64_t>(a << b);
        })
        .Case<arith::ShRSIOp, arith::ShRUIOp>([&](Operation *) {
          return b < 0 || b > 62 ? std::nullopt : std::optional<int64_t>(a >> b);
        })
        .Case([&](arith::MinSIOp) { return std::min(a, b); })
        .Case([&](arith::MaxSIOp) { return std::max(a, b); })
        .Case([&](arith::CmpIOp cmp) {
          return std::optional<int64_t>(
              arith::applyCmpPredicate(cmp.getPredicate(), APInt(64, a), APInt(64, b)));
        })
        .Default([](Operation *) { return std::nullopt; });
  }
};
} // namespace

/// Shared-memory wavefronts the element reads (tile.read) of a rank-2 shared tile take, summed
/// over the reads and, for each, the first iterations (up to 16) of the innermost loop around
/// it, one warp (warp 0) at a time, when the tile is laid out as `tile`; nullopt when an index
/// is not known per thread (see LaneEvaluator).
static std::optional<unsigned> readWavefronts(AllocOp alloc, const layout::SwizzledTile &tile) {
  auto kernel = alloc->getParentOfType<KernelOp>();
  ArrayRef<int64_t> threads = kernel.getThreads();
  unsigned total = 0;
  for (Operation *user : alloc->getUsers()) {
    auto read = dyn_cast<ReadOp>(user);
    if (!read)
      continue;
    auto loop = read->getParentOfType<scf::ForOp>();
    int64_t iterations = 1;
    if (loop && kernel->isProperAncestor(loop)) {
      LaneEvaluator bounds{{0, 0, 0}, {}, {}};
      std::optional<int64_t> lb = bounds.eval(loop.getLowerBound()),
                             ub = bounds.eval(loop.getUpperBound()),
                             step = bounds.eval(loop.getStep());
      if (lb && ub && step && *step > 0)
        iterations = std::clamp<int64_t>((*ub - *lb + *step - 1) / *step, 1, 16);
    }
    for (int64_t it = 0; it < iterations; ++it) {
      std::vector<int64_t> addresses;
      for (int64_t lane = 0; lane < std::min<int64_t>(32, threads[0] * threads[1] * threads[2]);
           ++lane) {
        LaneEvaluator lanes{
            {lane % threads[0], lane / threads[0] % threads[1], lane / (threads[0] * threads[1])},
            {},
            {}};
        if (loop)
          lanes.loops[loop.getInductionVar()] = it;
        std::optional<int64_t> row = lanes.eval(read.getIndices()[0]),
                               col = lanes.eval(read.getIndices()[1]);
        if (!row || !col)
          return std::nullopt;
        int64_t r = ((*row % tile.rows) + tile.rows) % tile.rows;
        int64_t c = ((*col % tile.cols) + tile.cols) % tile.cols;
        addresses.push_back(tile.byteOffset(r, c));
      }
      total += layout::sharedWavefronts(addresses, tile.elemBytes);
    }
  }
  return total;
}

/// Whether a shared tile that cp.async copies fill and only element reads (tile.read) consume
/// should be stored in 16-byte column blocks without a swizzle (`tile.swizzle = 16`) instead of
/// `swizzle`: when its reads take no more wavefronts so. Such addresses are affine in the row, so
/// a thread's reads of rows r, r + 4, ... share one base register (a swizzle makes each its
/// own: the XOR of the row): w4a16_decode's packed weights, read a column per thread.
static bool preferColumnBlocks(AllocOp alloc, int64_t swizzle) {
  auto type = alloc.getBuffer().getType();
  if (type.getRank() != 2 || !onlyCpAsyncFillsAndReads(alloc.getBuffer()) ||
      llvm::none_of(alloc->getUsers(), [](Operation *user) { return isa<ReadOp>(user); }))
    return false;
  auto shape = type.getShape();
  int64_t elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  layout::SwizzledTile swizzled{shape[0], shape[1], elemBytes, swizzle};
  layout::SwizzledTile blocks{shape[0], shape[1], elemBytes, 16};
  std::optional<unsigned> withSwizzle = readWavefronts(alloc, swizzled);
  std::optional<unsigned> withBlocks = readWavefronts(alloc, blocks);
  LLVM_DEBUG(llvm::dbgs() << "column blocks for " << alloc << ": " << withBlocks.value_or(0)
                          << " wavefronts against " << withSwizzle.value_or(0) << "\n");
  return withSwizzle && withBlocks && *withBlocks <= *withSwizzle;
}

/// The shared buffers of `kernel` to place, each with its size (all stages), alignment and the
/// top-level ops of the kernel's body between which it is live; the tiles that TMA or cp.async
/// fill or that ldmatrix/wgmma read get their swizzle.
static SmallVector<Placement> collectPlacements(KernelOp kernel, ArrayRef<SharedAlloc> allocs) {
  Builder b(kernel.getContext());
  Block &body = kernel.getBody().front();
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t index = 0;
  for (Operation &op : body)
    position[&op] = index++;
  auto topLevel = [&](Operation *op) {
    while (op->getBlock() != &body)
      op = op->getParentOp();
    return position.lookup(op);
  };
  SmallVector<Placement> placements;
  for (auto [alloc, uses] : allocs) {
    auto type = alloc.getBuffer().getType();
    int64_t stages = 1;
    if (auto attr = alloc->getAttrOfType<IntegerAttr>(kStagesAttr))
      stages = attr.getInt();
    int64_t align = 16;
    // Tiles that TMA or cp.async fill, or that ldmatrix/wgmma read, are swizzled (any other
    // accessor addresses the swizzled layout element by element).
    Value buffer = alloc.getBuffer();
    bool asyncDest = false, mmaOperand = false, tmaStore = false;
    for (Operation *user : alloc->getUsers()) {
      if (auto copy = dyn_cast<CopyOp>(user)) {
        asyncDest |= user->hasAttr(kTmaAttr) || user->hasAttr(kCpAsyncAttr);
        // TMA's 128-byte swizzle repeats every 1024 bytes: the slabs start on that pattern.
        tmaStore |= copy.getTmaStore() && copy.getScratch() == buffer;
      }
      auto gemm = dyn_cast<GemmOp>(user);
      mmaOperand |= gemm && gemm->hasAttr(kMmaAttr) && gemm.getC() != buffer;
    }
    if (asyncDest || mmaOperand) {
      auto shape = type.getShape();
      int64_t elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
      // A tile no tensor-core instruction reads (cp.async in, 16-byte vectors out) may have
      // fewer than 8 rows.
      auto swizzle = mmaOperand ? layout::chooseSwizzle(shape[0], shape[1], elemBytes)
                                : layout::chooseCopySwizzle(shape[0], shape[1], elemBytes);
      if (swizzle && !mmaOperand && preferColumnBlocks(alloc, *swizzle)) {
        alloc->setAttr(kSwizzleAttr, b.getI64IntegerAttr(16));
        align = 128;
      } else if (swizzle) {
        alloc->setAttr(kSwizzleAttr, b.getI64IntegerAttr(*swizzle));
        align = 1024;
      }
    }
    if (tmaStore)
      align = 1024;
    // A buffer nothing uses (a branch a compile-time parameter leaves out) takes no bytes.
    int64_t bytes = alloc->use_empty() ? 0 : type.getSizeInBytes() * stages;
    Placement p{alloc, bytes, align, topLevel(alloc), topLevel(alloc), uses};
    for (Operation *user : alloc->getUsers())
      p.last = std::max(p.last, topLevel(user));
    placements.push_back(p);
  }
  return placements;
}

/// Places the buffers first fit, biggest first, among buffers live at the same time; sets each
/// alloc's offset and returns the bytes they take.
static int64_t placeFirstFit(MutableArrayRef<Placement> placements) {
  SmallVector<Placement *> order;
  for (Placement &p : placements)
    order.push_back(&p);
  llvm::stable_sort(order, [](Placement *x, Placement *y) { return x->bytes > y->bytes; });
  SmallVector<Placement *> placed;
  int64_t total = 0;
  for (Placement *p : order) {
    int64_t offset = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      offset = llvm::alignTo(offset, p->align);
      for (Placement *q : placed) {
        bool liveTogether =
            p->first <= q->last && q->first <= p->last && !inExclusiveBranches(p->uses, q->uses);
        bool overlap = offset < q->offset + q->bytes && q->offset < offset + p->bytes;
        if (liveTogether && overlap) {
          offset = q->offset + q->bytes;
          moved = true;
        }
      }
    }
    p->offset = offset;
    placed.push_back(p);
    total = std::max(total, offset + p->bytes);
    p->alloc->setAttr(kOffsetAttr,
                      IntegerAttr::get(IntegerType::get(p->alloc.getContext(), 64), offset));
  }
  return total;
}

namespace {
struct SharedMemoryLayoutPass
    : public tlc::tile::impl::TileSharedMemoryLayoutBase<SharedMemoryLayoutPass> {
  using TileSharedMemoryLayoutBase::TileSharedMemoryLayoutBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    // Kernels of a tensor-core strategy (a pipelined main loop, or the register strategy's
    // cp.async copies) or with fragments in registers (the blocked layouts too).
    bool tensorCores = false;
    kernel.walk([&](scf::ForOp loop) { tensorCores |= loop->hasAttr(kPipelineAttr); });
    kernel.walk([&](CopyOp copy) { tensorCores |= copy->hasAttr(kCpAsyncAttr); });
    kernel.walk([&](GemmOp gemm) { tensorCores |= gemm->hasAttr(kMmaAttr); });
    kernel.walk([&](AllocOp alloc) { tensorCores |= alloc->hasAttr(kLayoutAttr); });
    if (!tensorCores)
      return;
    FailureOr<TargetAttr> target = requireTarget(kernel, "tile-shared-memory-layout");
    if (failed(target))
      return signalPassFailure();
    int64_t limit = target->getSharedBytes();
    SmallVector<SharedAlloc> allocs = sharedAllocs(kernel);
    fitStages(kernel, allocs, limit);
    SmallVector<Placement> placements = collectPlacements(kernel, allocs);
    int64_t total = placeFirstFit(placements);
    Builder b(kernel.getContext());

    // Two mbarriers (full, empty) per stage of each pipelined loop; then a loading producer's
    // edge blocks (edgeBlocksOffset).
    kernel.walk([&](scf::ForOp loop) {
      std::optional<PipelineKind> kind = getPipelineKind(loop);
      if (!kind || !hasProducer(*kind))
        return;
      int64_t stages = cast<IntegerAttr>(loop->getAttr(kStagesAttr)).getInt();
      int64_t barriers = llvm::alignTo(total, 8);
      loop->setAttr(kBarriersAttr, b.getI64IntegerAttr(barriers));
      total = barriers + 8 * ringBarrierCount(*kind, stages);
      if (*kind == PipelineKind::LoadsWgmma)
        total = edgeBlocksOffset(barriers, stages) + stages * edgeBlockBytesPerStage(loop);
    });
    kernel->setAttr(kSharedBytesAttr, b.getI64IntegerAttr(total));

    if (total <= limit)
      return;
    // Staged stores give way to pipeline stages: with one slab per warp instead of two (TMA
    // stores), or without the staging scratch (the copies then store each thread's own
    // elements), the ring may fit; place again.
    if (shrinkStoreStaging(kernel) || dropStoreStaging(kernel))
      return runOnOperation();
    // One configuration of several: left out of this architecture's image (convert-tile-to-nvvm
    // drops it, and says so if no configuration is left).
    bool omit = omitUnfitVariants && !getVariantOf(kernel).empty();
    InFlightDiagnostic diag = omit ? kernel.emitWarning() : kernel.emitError();
    diag << "kernel " << kernel.getDisplayName() << " needs " << total
         << " bytes of shared memory; " << limit << " bytes is the limit for '" << target->getArch()
         << "'";
    if (omit)
      diag << "; this configuration is left out of the '" << target->getArch() << "' image";
    for (Placement &p : placements)
      diag.attachNote(p.alloc.getLoc())
          << "this buffer takes " << p.bytes << " bytes"
          << (p.alloc->hasAttr(kStagesAttr) ? " (one copy per pipeline stage)" : "");
    diag.attachNote() << "hint: fewer pipeline stages or smaller tiles";
    if (omit)
      kernel->setAttr(kOmittedAttr, b.getUnitAttr());
    else
      signalPassFailure();
  }
};
} // namespace
