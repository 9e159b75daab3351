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

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

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

/// `stages` is an upper bound: a ring that does not fit `limit` bytes of shared memory gets
/// fewer stages (down to 2) before anything is placed. Buffers used only in another branch of an
/// `if` than the loop do not count (they share bytes with the ring, collectPlacements).
static void fitStages(KernelOp kernel, ArrayRef<SharedAlloc> allocs, int64_t limit) {
  Builder b(kernel.getContext());
  kernel.walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kPipelineAttr))
      return;
    int64_t ring = 0, other = 0;
    SmallVector<AllocOp> ringAllocs;
    for (SharedAlloc a : allocs) {
      if (a.alloc->use_empty() || inExclusiveBranches(a.uses, &loop.getRegion()))
        continue;
      bool staged = a.alloc->hasAttr(kStagesAttr);
      if (staged && loop->isAncestor(a.uses->getParentOp()))
        ringAllocs.push_back(a.alloc);
      (staged ? ring : other) += a.alloc.getBuffer().getType().getSizeInBytes() + 1024;
    }
    int64_t stages = cast<IntegerAttr>(loop->getAttr(kStagesAttr)).getInt();
    int64_t fitting = stages;
    while (fitting > 2 && other + fitting * ring + 16 * fitting > limit)
      --fitting;
    if (fitting == stages)
      return;
    loop->setAttr(kStagesAttr, b.getI64IntegerAttr(fitting));
    for (AllocOp alloc : ringAllocs)
      alloc->setAttr(kStagesAttr, b.getI64IntegerAttr(fitting));
  });
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
    bool asyncDest = false, mmaOperand = false;
    for (Operation *user : alloc->getUsers()) {
      if (isa<CopyOp>(user))
        asyncDest |= user->hasAttr(kTmaAttr) || user->hasAttr(kCpAsyncAttr);
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
      if (swizzle) {
        alloc->setAttr(kSwizzleAttr, b.getI64IntegerAttr(*swizzle));
        align = 1024;
      }
    }
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
      total = barriers + 16 * stages;
      if (*kind == PipelineKind::LoadsWgmma)
        total = edgeBlocksOffset(barriers, stages) + stages * edgeBlockBytesPerStage(loop);
    });
    kernel->setAttr(kSharedBytesAttr, b.getI64IntegerAttr(total));

    if (total <= limit)
      return;
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
