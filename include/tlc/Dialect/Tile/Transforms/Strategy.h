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

#include <optional>
#include <string>

namespace tlc::tile {

/// The register layout of a fragment, resolved for its shape: wgmma's accumulator
/// (#tile.wgmma_acc) or mma.sync's (#tile.mma_sync_acc). Both are stacks of m16n8 fragments per
/// warp; slot s of thread t holds element coord(t, s). A rank-1 fragment of row values beside an
/// mma.sync accumulator (#tile.mma_sync_rows: attention's row maximum and sum) holds in slot r
/// of thread t the row coord(t, r).first, replicated over the four lanes of a quad; `mma` then
/// describes the accumulator it sits beside.
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
  FragmentLayoutAttrInterface toAttr(mlir::MLIRContext *ctx) const;
  /// Resolves a `tile.layout` attribute for a fragment of `shape`; nullopt if it does not fit.
  static std::optional<AccLayout> fromAttr(mlir::Attribute attr, llvm::ArrayRef<int64_t> shape);
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

/// What the per-op register strategy decided (RegisterLayouts.cpp): the gemms on mma.sync, those
/// left to the generic lowering and why, the fragments given registers, those kept in shared
/// memory although a gemm wanted them in registers and why, and the ops whose use of a register
/// fragment goes through a copy in shared memory (an explicit layout conversion) and why.
struct RegisterPlan {
  llvm::SmallVector<GemmOp> mmaGemms;
  llvm::SmallVector<std::pair<GemmOp, std::string>> genericGemms;
  llvm::SmallVector<AllocOp> registers;
  llvm::SmallVector<std::pair<mlir::Operation *, std::string>> registerMisfits;
  llvm::SmallVector<std::pair<mlir::Operation *, std::string>> conversions;
  /// The shared-memory copy of each converted register fragment (by its alloc).
  llvm::DenseMap<mlir::Operation *, mlir::Value> mirrors;
};

/// The register strategy on `warps` warps, per op: layouts on fragments (`tile.layout`), gemms
/// `tile.mma = #tile.mma<mma_sync>`, copies that fill their shared operands `tile.cp_async`,
/// layout conversions inserted where a use does not fit. Records what it did in `plan`.
void planRegisterLayouts(KernelOp kernel, int64_t warps, RegisterPlan &plan);

} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_TRANSFORMS_STRATEGY_H
