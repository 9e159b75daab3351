//===- Strategy.h - Decisions the tile passes record for the lowering -----===//
//
// The tiling, shared-memory layout and pipelining passes decide; the conversion to NVVM
// materializes. Their decisions travel as the verified `tile.*` attributes of TileAttrs.h
// (visible in tlc-opt output); this header computes with the register layouts.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_DIALECT_TILE_TRANSFORMS_STRATEGY_H
#define TLC_DIALECT_TILE_TRANSFORMS_STRATEGY_H

#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Layout/Layout.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <optional>
#include <string>

namespace mlir::scf {
class ForOp;
} // namespace mlir::scf

namespace tlc::tile {

/// The register layout of a fragment, resolved for its shape: wgmma's accumulator
/// (#tile.wgmma_acc) or mma.sync's (#tile.mma_sync_acc). Both are stacks of m16n8 fragments per
/// warp; slot s of thread t holds element coord(t, s). A rank-1 fragment of row values beside an
/// mma.sync accumulator (#tile.mma_sync_rows: attention's row maximum and sum) holds in slot r
/// of thread t the row coord(t, r).first, replicated over the four lanes of a quad and the warps
/// of a block row (mma.warpsN); `mma` then describes the accumulator it sits beside. The blocked
/// layouts of element-wise and row-wise work (#tile.blocked, #tile.blocked_rows) are described by
/// `blocked`.
struct AccLayout {
  enum class Kind { Wgmma, MmaSync, MmaSyncRows, Blocked, BlockedRows };
  Kind kind = Kind::Wgmma;
  layout::WgmmaAccLayout wgmma;
  layout::MmaSyncAccLayout mma;
  layout::BlockedLayout blocked;

  bool isRows() const { return kind == Kind::MmaSyncRows || kind == Kind::BlockedRows; }
  bool isBlocked() const { return kind == Kind::Blocked || kind == Kind::BlockedRows; }
  int64_t slots() const {
    switch (kind) {
    case Kind::MmaSyncRows:
      return mma.rowSlots();
    case Kind::Blocked:
      return blocked.slots();
    case Kind::BlockedRows:
      return blocked.rowSlots();
    case Kind::Wgmma:
      return wgmma.slots();
    case Kind::MmaSync:
      break;
    }
    return mma.slots();
  }
  /// The threads the fragment is spread over.
  int64_t threads() const {
    if (isBlocked())
      return blocked.threads;
    if (kind == Kind::Wgmma)
      return 128 * wgmma.warpgroups();
    return 32 * mma.warpsM * mma.warpsN;
  }
  std::pair<int64_t, int64_t> coord(int64_t thread, int64_t slot) const {
    switch (kind) {
    case Kind::MmaSyncRows:
      return {mma.rowOf(thread, slot), 0};
    case Kind::Blocked:
      return blocked.coord(thread, slot);
    case Kind::BlockedRows:
      return {blocked.rowOf(thread, slot), 0};
    case Kind::Wgmma:
      return wgmma.coord(thread, slot);
    case Kind::MmaSync:
      break;
    }
    return mma.coord(thread, slot);
  }
  /// The threads that hold each row value of a row layout (replicas): the threads_per_row threads
  /// of a blocked row; the four lanes of a quad times the warps of a block row beside mma.sync.
  int64_t rowReplicas() const {
    return kind == Kind::BlockedRows ? blocked.threadsPerRow : 4 * mma.warpsN;
  }
  /// The `tile.layout` attribute describing it.
  FragmentLayoutAttrInterface toAttr(mlir::MLIRContext *ctx) const;
  /// Resolves a `tile.layout` attribute for a fragment of `shape`; nullopt if it does not fit.
  static std::optional<AccLayout> fromAttr(mlir::Attribute attr, llvm::ArrayRef<int64_t> shape);
};

/// The layout of `buffer`, a value defined by a `tile.alloc` carrying `tile.layout`, or nullopt.
std::optional<AccLayout> getAccLayout(mlir::Value buffer);

/// Whether tile-warp-specialize splits the tiles of `ring` (a ring directly in `kernel`'s body)
/// along K (stream-K, docs/pipeline.md): a TMA ring whose trip count is the same for every tile,
/// whose body holds copies, gemms, barriers and pure ops, whose gemms accumulate into register
/// fragments of f32 filled with zero before it, with only pure ops, allocs and fills before it.
struct StreamKPlan {
  /// The bytes of one partial slot (every accumulator's registers x 4 x `consumerThreads`);
  /// 0 where the ring cannot be split.
  int64_t slotBytes = 0;
  /// The accumulators and their byte offsets in a slot.
  llvm::SmallVector<std::pair<mlir::Value, int64_t>> accumulators;
  /// Why not, where slotBytes is 0.
  std::string whyNot;
};
StreamKPlan planStreamK(KernelOp kernel, mlir::scf::ForOp ring, int64_t consumerThreads);

/// Whether tile-warp-specialize lets the blocks of `ring` (a ring directly in `kernel`'s body)
/// run in pairs (2-block clusters, docs/pipeline.md): a TMA ring whose bounds do not depend on
/// the block row (`block_id 1`) and with copies whose offsets do not either (`multicast`: loaded
/// once for both blocks of a pair).
struct PairPlan {
  /// The copies the blocks of a pair share; empty where the ring cannot run in pairs.
  llvm::SmallVector<CopyOp> multicast;
  /// Why not, where `multicast` is empty.
  std::string whyNot;
};
PairPlan planPairs(KernelOp kernel, mlir::scf::ForOp ring);

/// Whether tile-warp-specialize's consumers of `ring` (a `tma_regs` ring) overlap the body's last
/// gemm with the next iteration (FlashAttention-3's intra-warpgroup overlap, docs/pipeline.md):
/// iteration i issues its first gemm, then iteration i - 1's last gemm, and waits for that one
/// only where an op needs it (attention: P V of the previous key block runs on the tensor cores
/// while the softmax of this one runs on the warps). Where: the body's last op (its wgmma waits
/// aside) is a register-strategy wgmma gemm with A in registers and B a ring tile, its first
/// gemm another such gemm touching neither of the last one's fragments, and nothing before the
/// first gemm uses them, waits or synchronizes; and some op after the first gemm does not need
/// the last one. `needs`: the first op that does (the consumers wait there; null: the body's
/// end).
struct OverlapPlan {
  GemmOp first, last;
  mlir::Operation *needs = nullptr;
};
std::optional<OverlapPlan> planOverlap(mlir::scf::ForOp ring);
/// Whether `op` (or an op nested in it) needs the overlapped gemm `last` complete: it uses one of
/// its operands, synchronizes the block, or is another gemm or a wgmma wait.
bool needsDeferredGemm(mlir::Operation *op, GemmOp last);

/// Where tile-ping-pong's consumer warpgroups take turns in a ring loop of body `body`
/// (FlashAttention-3's ping-pong, docs/pipeline.md): `first` and `last`, the body's first and
/// last register-strategy wgmma gemms (attention's Q K^T and P V), with other work between
/// them (the softmax) that one warpgroup runs while another's gemms run. Where: the loop is a
/// ring of two or more stages (a TMA copy, or tile-warp-specialize's waits on stage views of
/// a buffer of `tile.stages` >= 2: with one stage the warpgroup holding the turn would wait for
/// a stage the others cannot release), its gemms are directly in the body, nothing in it
/// synchronizes the block, and the ops before `first` and after `last` (where a warpgroup holds
/// the turn) are gemms, wgmma waits, mbarrier waits and arrivals, stage views, TMA copies and
/// pure ops (nothing that waits for another warpgroup).
struct PingPongPlan {
  GemmOp first, last;
};
std::optional<PingPongPlan> planPingPong(mlir::Block &body);

/// The wgmma instruction of one N block that `gemm` would run on the register strategy's
/// accumulator (mma.sync's layout on warps stacked along M, 16 rows each;
/// layout::WgmmaAccLayout::onStackedWarps), N a multiple of 64 for a row-major B (MN-major in
/// 128-byte blocks): nullopt when its accumulator has no such layout.
std::optional<layout::WgmmaAccLayout> getRegisterWgmmaInstr(GemmOp gemm);
/// The same for an accumulator of layout `acc` and B's orientation (conversion patterns, where the
/// accumulator is already lowered).
std::optional<layout::WgmmaAccLayout> getRegisterWgmmaInstr(const AccLayout &acc, bool transposeB);

/// Whether `gemm` runs wgmma on the register strategy's accumulator (mma.sync's layout on warps
/// stacked along M), per op, rather than in a main-loop ring (a #tile.wgmma_acc accumulator).
bool isRegisterWgmma(GemmOp gemm);

/// Whether a copy from a fragment of `layout` into a swizzled shared tile of `destElement`s
/// stores two elements of a row per 32-bit store (mma.sync and wgmma layouts, whose thread holds
/// columns c and c + 1 of a row, into 16-bit elements); the lowering and --explain ask alike.
bool storesSlotPairs(const AccLayout &layout, mlir::Type destElement);

/// (row, col) of slot `slot` (an index) of thread `tid` (an index) in `layout`, as arithmetic
/// (mirrors AccLayout::coord).
std::pair<mlir::Value, mlir::Value> buildAccCoords(mlir::OpBuilder &b, mlir::Location loc,
                                                   const AccLayout &layout, mlir::Value tid,
                                                   mlir::Value slot);

/// Whether thread `tid` (an index) is the first of the replicas holding its rows in row layout
/// `layout` (AccLayout::rowReplicas): lane 0 of a quad in the first warp of a block row beside
/// mma.sync, the first thread of a blocked row.
mlir::Value buildIsRowLeader(mlir::OpBuilder &b, mlir::Location loc, const AccLayout &layout,
                             mlir::Value tid);

/// Gives each row reduce of `kernel` whose source's register layout spreads a row over several
/// warps a `scratch` buffer (in shared memory, at the start of the kernel body) of
/// `values(layout)` elements of the type the reduce combines in; 0: none.
void addReduceScratch(KernelOp kernel, llvm::function_ref<int64_t(const AccLayout &)> values);

/// Store staging (a copy from a wgmma or mma.sync accumulator in registers to a tensor, through
/// its `scratch`): each warp owns 16 rows of storeStagingPitch(elemBytes) bytes, a 128-byte chunk
/// of a 16-row tile of its fragment plus padding that keeps the pair writes conflict-free.
constexpr int64_t kStoreStagingRowBytes = 128;
inline int64_t storeStagingPitch(int64_t elemBytes) {
  return kStoreStagingRowBytes + (elemBytes == 4 ? 32 : 16);
}
/// The bytes of scratch a copy of `layout` (wgmma's or mma.sync's) to elements of `elemBytes`
/// stages through, or 0 where it does not stage (other layouts, elements of other sizes).
int64_t storeStagingBytes(const AccLayout &layout, int64_t elemBytes);
/// The chunks a staged store of `layout` goes out in, for elements of `elemBytes`: fragment f
/// (slots 4f .. 4f + 3) covers rows [r, r + 16) and columns [c, c + 8) of the warp's part ((r, c)
/// its place for thread 0, whose part starts at (0, 0)); a chunk is a 16-row tile's 128-byte-wide
/// column block, keyed (r, c / columns of 128 bytes), with its fragments (f, c) in slot order.
using StoreChunks =
    std::map<std::pair<int64_t, int64_t>, llvm::SmallVector<std::pair<int64_t, int64_t>>>;
StoreChunks storeStagingChunks(const AccLayout &layout, int64_t elemBytes);

/// A copy with `tma_store` stages through slabs of 16 rows x 128 bytes in TMA's 128-byte swizzle
/// (byte b of row r at r * 128 + ((b / 16) ^ (r % 8)) * 16 + b % 16), one or two per warp
/// (two: a chunk's slab is written while the previous chunk's bulk store still reads its own).
constexpr int64_t kTmaStoreSlabBytes = 16 * kStoreStagingRowBytes;
/// Whether `copy` (a staging copy, or one that could stage) may store through TMA: a wgmma
/// accumulator to a rank-2 tensor of 2- or 4-byte elements whose every 128-byte chunk of a warp's
/// 16-row tile is whole (a box of 16 x 128 bytes).
bool isTmaStorable(CopyOp copy);
/// The slabs per warp of a `tma_store` copy's scratch (1 or 2): of `scratchBytes` for the warps
/// of `layout`, or of `copy`'s scratch before the lowering.
int64_t storeStagingSlabs(int64_t scratchBytes, const AccLayout &layout);
int64_t storeStagingSlabs(CopyOp copy);

/// Gives every copy of `kernel` from a register accumulator to a tensor that can stage its stores
/// (storeStagingBytes) one shared scratch buffer, at the start of the kernel body (live
/// throughout: a persistent kernel's producer refills its ring while the consumers store). With
/// `tmaStores`, copies that isTmaStorable get `tma_store` and two swizzled slabs per warp.
void addStoreStaging(KernelOp kernel, bool tmaStores = false);

/// Halves the scratch of `tma_store` copies that have two slabs per warp (tile-shared-memory-
/// layout, where the scratch does not fit beside the ring's stages). Whether any did.
bool shrinkStoreStaging(KernelOp kernel);

/// Takes the scratch (and `tma_store`) from every copy of `kernel` that stages its stores and
/// erases the buffer (tile-shared-memory-layout, where even one slab does not fit beside the
/// ring's stages). Whether any did.
bool dropStoreStaging(KernelOp kernel);

/// The row slot (an index) of a row fragment ("mma_sync_rows", "blocked_rows") holding the row
/// of slot `slot` of `layout` ("mma_sync" or "blocked"; mirrors rowSlotOf).
mlir::Value buildRowSlot(mlir::OpBuilder &b, mlir::Location loc, const AccLayout &layout,
                         mlir::Value slot);

/// Whether `value` can be recomputed anywhere in `kernel`: built from constants, kernel
/// arguments, block ids, tensor sizes and `extraRoots` (a loop's induction variable) with pure
/// arithmetic.
bool isRecomputable(mlir::Value value, KernelOp kernel, llvm::ArrayRef<mlir::Value> extraRoots);

/// Builds a loop that spreads `points` linear indices over `numThreads` threads (`tid`, an
/// index): thread t takes t, t + numThreads, ... below `points`. Leaves `b` inside the loop (and
/// inside the bounds check when `points` is not a multiple of `numThreads`) and returns the
/// linear index there; `loop` is set to the loop.
mlir::Value buildPointLoop(mlir::OpBuilder &b, mlir::Location loc, int64_t points,
                           int64_t numThreads, mlir::Value tid, mlir::scf::ForOp &loop);

/// A positive number every value of `value` (an integer or index) is a multiple of, from its
/// arithmetic: constants, sums, differences, products, shifts by constants, casts, selects and
/// the induction variables of scf.for (their lower bound and step); 1 where nothing is known.
/// A tile copy's column offset must be a multiple of 16 bytes for TMA boxes and 16-byte
/// cp.async chunks.
int64_t knownDivisor(mlir::Value value);

/// Whether knownDivisor proves the column offset `col` of elements of `elemBytes` bytes a
/// multiple of 16 bytes (a TMA box or a 16-byte cp.async chunk may start there).
bool isKnown16ByteColumn(mlir::Value col, int64_t elemBytes);

/// What the per-op register strategy decided (RegisterLayouts.cpp): the gemms on mma.sync, those
/// left to the generic lowering and why, the fragments given registers, those kept in shared
/// memory although a gemm wanted them in registers and why, and the ops whose use of a register
/// fragment goes through a copy in shared memory (an explicit layout conversion) and why.
struct RegisterPlan {
  llvm::SmallVector<GemmOp> mmaGemms;
  /// Those of mmaGemms that run wgmma (the others mma.sync), and why each other one does not.
  llvm::SmallVector<GemmOp> wgmmaGemms;
  llvm::SmallVector<std::pair<GemmOp, std::string>> notWgmma;
  llvm::SmallVector<std::pair<GemmOp, std::string>> genericGemms;
  llvm::SmallVector<AllocOp> registers;
  llvm::SmallVector<std::pair<mlir::Operation *, std::string>> registerMisfits;
  llvm::SmallVector<std::pair<mlir::Operation *, std::string>> conversions;
  /// The shared-memory copy of each converted register fragment (by its alloc).
  llvm::DenseMap<mlir::Operation *, mlir::Value> mirrors;
};

/// The register strategy on `warps` warps, per op: layouts on fragments (`tile.layout`), gemms
/// `tile.mma = #tile.mma<mma_sync>` (or `<wgmma>` where `wgmma` allows it: sm_90a, B in shared
/// memory, A in shared memory or registers, 16 accumulator rows per warp), copies that fill their
/// shared operands
/// `tile.cp_async`, layout conversions inserted where a use does not fit. Records what it did in
/// `plan`.
void planRegisterLayouts(KernelOp kernel, int64_t warps, bool wgmma, RegisterPlan &plan);

/// One element access of a fragment inside a `parallel` body: at the point (a fragment of the
/// parallel's shape indexed by its coordinates), at the point's row (a rank-1 fragment read at
/// the first coordinate of a rank-2 parallel), or other.
struct FragmentAccess {
  mlir::Operation *op;
  mlir::Value buffer;
  enum Kind { AtPoint, AtRow, Other } kind;
};

/// The fragment accesses of `parallel`'s body, nested ones included.
llvm::SmallVector<FragmentAccess> getFragmentAccesses(ParallelOp parallel);

/// Layout inference over one `parallel`: calls `join` for the fragments it accesses at its point
/// (with each other) and for those it reads at the point's row (with a point fragment). Returns
/// a fragment accessed at the point (null if none) and whether one is read at the row.
std::pair<mlir::Value, bool>
joinParallelAccesses(ParallelOp parallel, llvm::function_ref<void(mlir::Value, mlir::Value)> join);

/// Whether `parallel` can run on register slots: it accesses a fragment in registers at its
/// point, and every register fragment only at its point or (a row value) at its row, and no
/// rowReplicaHazard.
bool fitsRegisterSlots(ParallelOp parallel);

/// Whether `parallel` runs over row values (rank 1: several threads hold each, and each runs the
/// body) and its body reads memory outside registers that it also writes: a holder could read
/// what another one already wrote (`Y[r] = Y[r] + s[r]` adding s more than once).
bool rowReplicaHazard(ParallelOp parallel);

/// The explanation of a `parallel` that does not fit register slots (fitsRegisterSlots false).
const char *registerSlotsMisfit(ParallelOp parallel);

/// Whether `op` (or an op nested in it) may write `buffer`.
bool mayWrite(mlir::Operation *op, mlir::Value buffer);

/// Whether every user of shared tile `buffer` is an element read (`tile.read`) or a cp.async
/// copy into it: the copies that refill such a tile wait for every thread first, and its layout
/// serves element reads alone.
bool onlyCpAsyncFillsAndReads(mlir::Value buffer);

/// Whether kernel argument `arg` (a tensor) is copied into a shared tile that a gemm reads as
/// an MN-major operand (B without `transpose_b`, A with `transpose_a`): the tensor's rows then
/// run along the reduction dimension, and TMA boxes of it read rows of the M or N dimension.
/// The launcher copies such tensors whose rows are not 32-byte aligned (docs/abi.md).
bool copiedToMnMajorOperand(KernelOp kernel, unsigned arg);

/// Whether `type` is one of the language's 8-bit floats (f8e4m3, f8e5m2).
inline bool isFloat8(mlir::Type type) {
  return mlir::isa<mlir::Float8E4M3FNType, mlir::Float8E5M2Type>(type);
}

/// Why wgmma m64nNk32 cannot run `gemm` of 8-bit floats (empty if it can, as far as its own
/// operands tell): A and B of one 8-bit float type in shared memory, both K-major (no
/// transpose_a; B as [N, K] with transpose_b), k a multiple of 32, tiles whole swizzle atoms.
std::string float8WgmmaMisfit(GemmOp gemm);

/// The element width in bytes (1, 2 or 4) of a rank-2 shared tile whose elements cp.async can
/// copy in 16-byte chunks (8-, 16- or 32-bit, not tf32), or 0.
int64_t cpAsyncElementBytes(BufferType tile);

/// The innermost region holding every user of `values` (looking through the `tile.stage` views
/// of a ring); `fallback` when they have none.
mlir::Region *usesRegion(llvm::ArrayRef<mlir::Value> values, mlir::Region *fallback);

/// Whether regions `a` and `b` lie in the two branches of one `scf.if`: tile ops run uniformly,
/// so a block runs the ops of one of them only (their buffers are never live together).
bool inExclusiveBranches(mlir::Region *a, mlir::Region *b);

/// Whether `op` or an op nested in it uses `value` as an operand; ops for which `skip` holds do
/// not count (their regions are still searched).
bool usesValue(mlir::Operation *op, mlir::Value value,
               llvm::function_ref<bool(mlir::Operation *)> skip = nullptr);

/// How a layout conversion names the fragment `alloc` declares: "the fragment of line N" where
/// its location has a line, else `otherwise`.
std::string describeFragment(mlir::Operation *alloc, llvm::StringRef otherwise);

/// An explicit layout conversion: routes the uses of register fragment `fragment` by tile-level
/// op `at` through a copy kept in shared memory (one per fragment, `plan.mirrors`), copied in
/// before `at` and, if `at` writes it, back after it; records it with `reason` in `plan`.
void convertThroughShared(mlir::Operation *at, mlir::Value fragment, llvm::StringRef reason,
                          RegisterPlan &plan);

/// An explicit layout conversion (convertThroughShared) for every use of a fragment in
/// `plan.registers` by a tile-level op (the enclosing `parallel` of an element access) for which
/// `misfitReason` gives a reason; once per op and fragment.
void convertMisfitUses(
    RegisterPlan &plan,
    llvm::function_ref<const char *(mlir::Operation *at, mlir::Value fragment)> misfitReason);

} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_TRANSFORMS_STRATEGY_H
