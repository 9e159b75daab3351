//===- TileAttrs.h - Attributes of the tile dialect -----------------------===//
//
// The typed contract between the tile passes and the conversion: register layouts of fragments,
// instruction and pipeline kinds, the target, and the names of the discardable `tile.*`
// attributes the passes put on ops. TileDialect::verifyOperationAttribute checks every one of
// them (type, value and the op it sits on), so a pass reads only what the verifier accepted.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_DIALECT_TILE_IR_TILEATTRS_H
#define TLC_DIALECT_TILE_IR_TILEATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include <optional>
#include <utility>

#include "tlc/Dialect/Tile/IR/TileAttrInterfaces.h.inc"
#include "tlc/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tlc/Dialect/Tile/IR/TileAttrs.h.inc"

namespace tlc::tile {

class KernelOp;

/// On the module: its #tile.target (tile-set-target).
inline constexpr llvm::StringLiteral kTargetAttr = "tile.target";
/// On a fragment `tile.alloc`: its register layout (a FragmentLayoutAttrInterface attribute).
inline constexpr llvm::StringLiteral kLayoutAttr = "tile.layout";
/// On a `tile.gemm`: the instruction family chosen for it (#tile.mma<...>).
inline constexpr llvm::StringLiteral kMmaAttr = "tile.mma";
/// On a `tile.copy` from a tensor to a shared buffer: issued as TMA boxes (sm_90a), or as
/// cp.async chunks (unit attributes).
inline constexpr llvm::StringLiteral kTmaAttr = "tile.tma";
inline constexpr llvm::StringLiteral kCpAsyncAttr = "tile.cp_async";
/// On a `tile.cp_async` copy: its launches are expected to break cp.async's 16-byte alignment
/// (the plain entry of an sm_90a kernel whose TMA entry takes the aligned ones), so the element
/// version is the fast one: 16-byte chunks of element loads (unit attribute).
inline constexpr llvm::StringLiteral kUnalignedAttr = "tile.unaligned";
/// On a shared `tile.alloc`: swizzle width in bytes (32, 64, 128), byte offset in dynamic shared
/// memory, and the number of pipeline stages (copies of the buffer). `tile.stages` on an
/// `scf.for`: the stages `pipelined(n, stages = S)` asked for.
inline constexpr llvm::StringLiteral kSwizzleAttr = "tile.swizzle";
inline constexpr llvm::StringLiteral kOffsetAttr = "tile.offset";
inline constexpr llvm::StringLiteral kStagesAttr = "tile.stages";
/// On an `scf.for` with `tile.stages`: how it is pipelined (#tile.pipeline<...>).
inline constexpr llvm::StringLiteral kPipelineAttr = "tile.pipeline";
/// On a "tma_wgmma" or "loads_wgmma" loop: byte offset of its mbarriers (full[S], then empty[S],
/// 8 bytes each). A "loads_wgmma" loop's edge blocks follow them (edgeBlocksOffset).
inline constexpr llvm::StringLiteral kBarriersAttr = "tile.barriers";
/// On a `tile.kernel`: threads added for a producer warpgroup, and shared bytes in all.
inline constexpr llvm::StringLiteral kProducerThreadsAttr = "tile.producer_threads";
inline constexpr llvm::StringLiteral kSharedBytesAttr = "tile.shared_bytes";
/// On a `tile.kernel` that is one configuration of several (`variant_of`): it does not fit the
/// target's shared memory and is left out of that architecture's image (unit attribute; set by
/// tile-shared-memory-layout{omit-unfit-variants}, read by convert-tile-to-nvvm, which drops it).
inline constexpr llvm::StringLiteral kOmittedAttr = "tile.omitted";
/// On a `tile.kernel` that is one configuration of several (`variant_of`), from `on ARCH` in its
/// `configs` entry: the architectures (as given to --arch) whose images have it; tile-set-target
/// removes it for the others (an array of strings, not empty).
inline constexpr llvm::StringLiteral kArchsAttr = "tile.archs";
/// On a `tile.kernel` (`blocks_per_sm(E)`), and on the entries convert-tile-to-nvvm emits for it:
/// at least E blocks resident per multiprocessor (tlc-mark-grid-constants makes it
/// `nvvm.minctasm`, PTX `.minnctapersm`: ptxas fits the registers to them).
inline constexpr llvm::StringLiteral kMinBlocksAttr = "tile.min_blocks";
/// On a `tile.kernel` whose ring tile-warp-specialize split along K (stream-K), and read by
/// convert-tile-to-nvvm: the bytes of one partial slot of the workspace its entry takes as its
/// last parameter (docs/abi.md).
inline constexpr llvm::StringLiteral kStreamKAttr = "tile.stream_k";
/// On a `tile.kernel` whose ring tile-warp-specialize shares between the blocks of a cluster,
/// and read by convert-tile-to-nvvm: the blocks along x a launch may group into one cluster
/// (2: pairs of tiles in adjacent block rows share the loads that do not depend on the row).
inline constexpr llvm::StringLiteral kClusterAttr = "tile.cluster";
/// On a `tile.gemm` marked wgmma on the register strategy's accumulator: issued without
/// waiting for it (unit attribute); the `tile.mma_wait` tile-place-mma-waits placed before the
/// first op that needs its result completes it.
inline constexpr llvm::StringLiteral kAsyncAttr = "tile.async";
/// On an `scf.for` over register slots: to be unrolled completely.
inline constexpr llvm::StringLiteral kUnrollAttr = "tile.unroll";
/// On each kernel entry convert-tile-to-nvvm emits (gpu.func, then llvm.func): what a launch of
/// it needs (#tile.entry), read by tlc-mark-grid-constants and the driver.
inline constexpr llvm::StringLiteral kEntryAttr = "tile.entry";

/// The module's target: `tile.target` on the closest enclosing builtin.module (`op` itself
/// when it is one); null when none is set.
TargetAttr getTarget(mlir::Operation *op);

/// The module's target, or a located error on `op` saying that `pass` needs one.
mlir::FailureOr<TargetAttr> requireTarget(mlir::Operation *op, llvm::StringRef pass);

/// Passes that add or grow shared buffers (layouts, conversions, pipeline stages) run before
/// tile-shared-memory-layout places them: a located error on `kernel` saying so when its
/// shared memory is already placed (`tile.shared_bytes`).
mlir::LogicalResult requireUnplaced(KernelOp kernel, llvm::StringRef pass);

/// `tile.mma` of a gemm / `tile.pipeline` of a loop, if set.
std::optional<MmaKind> getMmaKind(mlir::Operation *gemm);
std::optional<PipelineKind> getPipelineKind(mlir::Operation *loop);
/// Whether a loop of `kind` is an mbarrier ring filled by a producer warpgroup (`tma_wgmma`,
/// `loads_wgmma`, `tma_regs`).
inline bool hasProducer(PipelineKind kind) {
  return kind == PipelineKind::TmaWgmma || kind == PipelineKind::LoadsWgmma ||
         kind == PipelineKind::TmaRegs;
}

/// The mbarriers of a ring with a producer at `tile.barriers`: full[s] and empty[s] per stage;
/// a `tma_regs` ring has two more, for the tiles its producer loads once per block tile
/// (attention's Q: full at 2 S, empty at 2 S + 1).
inline int64_t ringBarrierCount(PipelineKind kind, int64_t stages) {
  return 2 * stages + (kind == PipelineKind::TmaRegs ? 2 : 0);
}

/// A "loads_wgmma" loop's edge blocks: per stage, one 16-byte block per row of each tile its
/// copies fill (in the loop body's order), where the producer's staged copy puts the block past
/// a misaligned row's width. They start at the first 16-byte boundary after the loop's `stages`
/// pairs of mbarriers at `barriers`, and take `stages` times edgeBlockBytesPerStage(loop).
inline int64_t edgeBlocksOffset(int64_t barriers, int64_t stages) {
  return (barriers + 16 * stages + 15) / 16 * 16;
}
int64_t edgeBlockBytesPerStage(mlir::Operation *loop);

/// The kernel a configuration belongs to (its `variant_of`); empty for a kernel without
/// configurations.
llvm::StringRef getVariantOf(KernelOp kernel);

/// `tile.entry` of a kernel function, if set.
EntryAttr getEntry(mlir::Operation *func);

} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_IR_TILEATTRS_H
