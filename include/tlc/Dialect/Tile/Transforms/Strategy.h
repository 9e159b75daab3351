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
/// On a `tile.copy` from a tensor to a shared buffer: issued as TMA boxes.
inline constexpr llvm::StringLiteral kTmaAttr = "tile.tma";
/// On a shared `tile.alloc`: swizzle width in bytes, byte offset in dynamic shared memory, and
/// the number of pipeline stages (copies of the buffer).
inline constexpr llvm::StringLiteral kSwizzleAttr = "tile.swizzle";
inline constexpr llvm::StringLiteral kOffsetAttr = "tile.offset";
inline constexpr llvm::StringLiteral kStagesAttr = "tile.stages";
/// On an `scf.for` with `tile.stages`: how it is pipelined ("tma_wgmma").
inline constexpr llvm::StringLiteral kPipelineAttr = "tile.pipeline";
/// On a `tile.kernel`: threads added for a producer warpgroup, and shared bytes in all.
inline constexpr llvm::StringLiteral kProducerThreadsAttr = "tile.producer_threads";
inline constexpr llvm::StringLiteral kSharedBytesAttr = "tile.shared_bytes";
/// On an `scf.for` over register slots: to be unrolled completely.
inline constexpr llvm::StringLiteral kUnrollAttr = "tile.unroll";

/// The wgmma accumulator layout of `buffer` (a value defined by a `tile.alloc` carrying
/// `tile.layout`), or nullopt.
inline std::optional<layout::WgmmaAccLayout> getWgmmaLayout(mlir::Value buffer) {
  auto alloc = buffer.getDefiningOp<AllocOp>();
  if (!alloc)
    return std::nullopt;
  auto dict = alloc->getAttrOfType<mlir::DictionaryAttr>(kLayoutAttr);
  if (!dict)
    return std::nullopt;
  auto warpgroups = dict.getAs<mlir::DenseI64ArrayAttr>("warpgroups");
  if (!warpgroups || warpgroups.size() != 2)
    return std::nullopt;
  auto shape = alloc.getBuffer().getType().getShape();
  return layout::WgmmaAccLayout{shape[0], shape[1], warpgroups[0], warpgroups[1]};
}

} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_TRANSFORMS_STRATEGY_H
