//===- Strategy.h - Decisions the tile passes record for the lowering -----===//
//
// The tiling, shared-memory layout and pipelining passes decide; the conversion to NVVM
// materializes. Their decisions travel as attributes on the tile ops (visible in
// `tlc --emit=tile` and tlc-opt output); this header names them and reads them back.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_DIALECT_TILE_TRANSFORMS_STRATEGY_H
#define TLC_DIALECT_TILE_TRANSFORMS_STRATEGY_H

#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Layout/Layout.h"

#include <optional>

namespace tlc::tile {

/// On a fragment `tile.alloc`: its register layout, `{kind = "wgmma", warpgroups = [m, n]}`.
inline constexpr llvm::StringLiteral kLayoutAttr = "tile.layout";
/// On a `tile.gemm`: the instruction family chosen for it ("wgmma").
inline constexpr llvm::StringLiteral kMmaAttr = "tile.mma";
/// On a `tile.copy` from a tensor to a shared buffer: issued as TMA boxes (sm_90a), or as 16-byte
/// cp.async chunks (the mma.sync strategy).
inline constexpr llvm::StringLiteral kTmaAttr = "tile.tma";
inline constexpr llvm::StringLiteral kCpAsyncAttr = "tile.cp_async";
/// On a shared `tile.alloc`: swizzle width in bytes, byte offset in dynamic shared memory, and
/// the number of pipeline stages (copies of the buffer).
inline constexpr llvm::StringLiteral kSwizzleAttr = "tile.swizzle";
inline constexpr llvm::StringLiteral kOffsetAttr = "tile.offset";
inline constexpr llvm::StringLiteral kStagesAttr = "tile.stages";
/// On an `scf.for` with `tile.stages`: how it is pipelined ("tma_wgmma").
inline constexpr llvm::StringLiteral kPipelineAttr = "tile.pipeline";
/// On a "tma_wgmma" loop: byte offset of its mbarriers (full[S], then empty[S], 8 bytes each).
inline constexpr llvm::StringLiteral kBarriersAttr = "tile.barriers";
/// On a `tile.kernel`: threads added for a producer warpgroup, and shared bytes in all.
inline constexpr llvm::StringLiteral kProducerThreadsAttr = "tile.producer_threads";
inline constexpr llvm::StringLiteral kSharedBytesAttr = "tile.shared_bytes";
/// On an `scf.for` over register slots: to be unrolled completely.
inline constexpr llvm::StringLiteral kUnrollAttr = "tile.unroll";

/// The register layout of an accumulator fragment: wgmma's (`{kind = "wgmma", warpgroups =
/// [m, n]}`) or mma.sync's (`{kind = "mma_sync", warps = [m, n]}`). Both are stacks of m16n8
/// fragments per warp; slot s of thread t holds element coord(t, s). A rank-1 fragment of row
/// values beside an mma.sync accumulator (`{kind = "mma_sync_rows", warps = [m, 1]}`: attention's
/// row maximum and sum) holds in slot r of thread t the row coord(t, r).first, replicated over
/// the four lanes of a quad; `mma` then describes the accumulator it sits beside.
struct AccLayout {
  enum class Kind { Wgmma, MmaSync, MmaSyncRows };
  Kind kind = Kind::Wgmma;
  layout::WgmmaAccLayout wgmma;
  layout::MmaSyncAccLayout mma;

  int64_t slots() const {
    if (kind == Kind::MmaSyncRows)
      return mma.rowSlots();
    return kind == Kind::Wgmma ? wgmma.slots() : mma.slots();
  }
  std::pair<int64_t, int64_t> coord(int64_t thread, int64_t slot) const {
    if (kind == Kind::MmaSyncRows)
      return {mma.rowOf(thread, slot), 0};
    return kind == Kind::Wgmma ? wgmma.coord(thread, slot) : mma.coord(thread, slot);
  }
  /// The `tile.layout` attribute describing it.
  mlir::DictionaryAttr toAttr(mlir::MLIRContext *ctx) const;
  /// Reads a `tile.layout` attribute for a fragment of `shape`; nullopt if malformed.
  static std::optional<AccLayout> fromAttr(mlir::DictionaryAttr attr,
                                           llvm::ArrayRef<int64_t> shape);
};

/// The layout of `buffer`, a value defined by a `tile.alloc` carrying `tile.layout`, or nullopt.
std::optional<AccLayout> getAccLayout(mlir::Value buffer);

/// (row, col) of slot `slot` (an index) of thread `tid` (an index) in `layout`, as arithmetic
/// (mirrors AccLayout::coord).
std::pair<mlir::Value, mlir::Value> buildAccCoords(mlir::OpBuilder &b, mlir::Location loc,
                                                   const AccLayout &layout, mlir::Value tid,
                                                   mlir::Value slot);

/// The row slot (an index) of a "mma_sync_rows" fragment holding the row of slot `slot` of the
/// "mma_sync" accumulator layout `layout` (mirrors MmaSyncAccLayout::rowSlotOf).
mlir::Value buildRowSlot(mlir::OpBuilder &b, mlir::Location loc, const AccLayout &layout,
                         mlir::Value slot);

/// Whether `value` can be recomputed anywhere in `kernel`: built from constants, kernel
/// arguments, block ids, tensor sizes and `extraRoots` (a loop's induction variable) with pure
/// arithmetic.
bool isRecomputable(mlir::Value value, KernelOp kernel, llvm::ArrayRef<mlir::Value> extraRoots);

} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_TRANSFORMS_STRATEGY_H
