//===- PatternsImpl.h - Shared pieces of the tile-to-NVVM lowering --------===//
#ifndef TLC_LIB_CONVERSION_TILETONVVM_PATTERNSIMPL_H
#define TLC_LIB_CONVERSION_TILETONVVM_PATTERNSIMPL_H

#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"
#include "tlc/Layout/Layout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace tlc {

/// A tensor argument after the ABI expansion: base pointer, sizes and strides (i64 each).
struct TensorValues {
  mlir::Value base;
  llvm::SmallVector<mlir::Value> sizes, strides;
};

/// Recovers the expanded values of a tensor: the tensor is the result of an
/// `unrealized_conversion_cast` from (base, sizes..., strides...) placed by the kernel rewrite.
std::optional<TensorValues> getTensorValues(mlir::Value tensor);

/// A pattern for an op on a tensor argument (`op.getTensor()`): fails unless the tensor is
/// lowered (getTensorValues), else hands its values to `lower`, which replaces or erases `op`.
template <typename OpTy> struct LoweredTensorPattern : mlir::OpRewritePattern<OpTy> {
  explicit LoweredTensorPattern(mlir::MLIRContext *ctx) : mlir::OpRewritePattern<OpTy>(ctx) {}
  mlir::LogicalResult matchAndRewrite(OpTy op, mlir::PatternRewriter &rewriter) const final {
    std::optional<TensorValues> values = getTensorValues(op.getTensor());
    if (!values)
      return mlir::failure();
    lower(op, *values, rewriter);
    return mlir::success();
  }
  virtual void lower(OpTy op, const TensorValues &values,
                     mlir::PatternRewriter &rewriter) const = 0;
};

/// Patterns for element access and sizes: tile.dim, tile.load, tile.store, tile.atomic_add.
void populateMemoryOpsToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// Patterns for per-thread (`local`) buffers: tile.alloc, tile.read, tile.write, tile.fill.
void populateLocalBufferToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// Reports, at its source location, every operation the strategy for `arch` cannot lower yet.
mlir::LogicalResult checkSupported(mlir::Operation *root, llvm::StringRef arch);

/// Patterns of the generic strategy for shared and fragment buffers: fill, copy, gemm, reduce,
/// and tile.barrier.
void populateGenericTilesToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// Places the shared and fragment buffers of `func` in its dynamic shared memory and returns the
/// bytes needed: at the offsets tile-shared-memory-layout chose (`tile.offset`, total
/// `tile.shared_bytes` on `kernel`), else 16-byte aligned in declaration order.
mlir::FailureOr<int64_t> allocateBlockBuffers(mlir::gpu::GPUFuncOp func, tile::KernelOp kernel);

/// The memref behind a lowered buffer (the input of its unrealized cast), or null.
mlir::Value getBufferMemref(mlir::Value buffer);

/// Whether `buffer` is a lowered `tile.stage` view of a lowered buffer (a ring's stage, read
/// element by element by loadBufferElement / storeBufferElement).
bool isStageOfLoweredBuffer(mlir::Value buffer);

/// Whether loadBufferElement / storeBufferElement can address `buffer`: a lowered buffer (a cast
/// of its memref) or a ring stage's view of one.
inline bool hasElementAccess(mlir::Value buffer) {
  return getBufferMemref(buffer) || isStageOfLoweredBuffer(buffer);
}

/// A pattern for an op on a buffer (`op.getBuffer()`): fails unless hasElementAccess, else hands
/// its memref (null for a ring stage's view) to `lower`, which replaces or erases `op`.
template <typename OpTy> struct LoweredBufferPattern : mlir::OpRewritePattern<OpTy> {
  explicit LoweredBufferPattern(mlir::MLIRContext *ctx) : mlir::OpRewritePattern<OpTy>(ctx) {}
  mlir::LogicalResult matchAndRewrite(OpTy op, mlir::PatternRewriter &rewriter) const final {
    mlir::Value memref = getBufferMemref(op.getBuffer());
    if (!hasElementAccess(op.getBuffer()))
      return mlir::failure();
    lower(op, memref, rewriter);
    return mlir::success();
  }
  virtual void lower(OpTy op, mlir::Value memref, mlir::PatternRewriter &rewriter) const = 0;
};

/// Reads / writes element `coords` of a lowered shared, fragment or local buffer (a cast of its
/// memref) or of a ring stage's view of one; in a swizzled tile (`tile.swizzle` on the cast) at
/// the element's swizzled place.
mlir::Value loadBufferElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                              mlir::ValueRange coords);
void storeBufferElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                        mlir::Value buffer, mlir::ValueRange coords);

/// Whether `reduce` combines partial row values of several warps through its `scratch` buffer
/// (a #tile.blocked row spanning warps, an mma.sync accumulator whose warps split the columns):
/// a barrier between its scratch writes and reads.
bool reducesAcrossWarps(tile::ReduceOp reduce);
/// Whether another op of `op`'s block always runs a block-wide barrier: a barrier, or a row
/// reduce over warps (lowered or not yet).
bool siblingBarrier(mlir::Operation *op);

/// The partial row values of the warps that share rows, meeting in a reduce's `scratch` buffer:
/// where `leader`, each `partial[r]` is stored at writeAt(r); a barrier; then `partial[r]` becomes
/// the combination of the `count` values at readAt(r, k), k = 0 .. count - 1, in that order (every
/// replica of a row gets the same value); a second barrier when `trailingBarrier`.
void exchangeRowPartials(mlir::OpBuilder &b, mlir::Location loc, mlir::Value scratch,
                         mlir::Value leader, llvm::MutableArrayRef<mlir::Value> partial,
                         llvm::function_ref<mlir::Value(int64_t)> writeAt, int64_t count,
                         llvm::function_ref<mlir::Value(int64_t, int64_t)> readAt,
                         llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> combine,
                         bool trailingBarrier);

/// `tensor[indices]` if in bounds, else zero.
mlir::Value buildMaskedLoad(mlir::OpBuilder &b, mlir::Location loc, const TensorValues &t,
                            mlir::Type elementType, mlir::ValueRange indices);
/// `tensor[indices] = value` if in bounds.
void buildMaskedStore(mlir::OpBuilder &b, mlir::Location loc, const TensorValues &t,
                      mlir::Value value, mlir::ValueRange indices);

/// `tensor[indices] = first` and `tensor[indices + (0, .., 1)] = second`, each if in bounds; one
/// 2-element vector store when both are in bounds, the last stride is 1 and the address is
/// aligned for it.
void buildMaskedStorePair(mlir::OpBuilder &b, mlir::Location loc, const TensorValues &t,
                          mlir::Value first, mlir::Value second, mlir::ValueRange indices);
/// Whether the last stride of `t` is 1 and tensor[indices] (elements of `type`) is one element
/// past a boundary of two elements: a pair stored there is misaligned, the pair one element on
/// aligned.
mlir::Value buildPairMisaligned(mlir::OpBuilder &b, mlir::Location loc, const TensorValues &t,
                                mlir::Type type, mlir::ValueRange indices);
/// Whether every run of `elements` (a power of two) elements at a column of a tile at `origin`
/// that is a multiple of `elements` is aligned to the run's bytes: last stride 1, the origin so
/// aligned and dimension `rowDim`'s stride a multiple of `elements`.
mlir::Value buildRowPairsAligned(mlir::OpBuilder &b, mlir::Location loc, const TensorValues &t,
                                 mlir::Type type, mlir::ValueRange origin, unsigned rowDim,
                                 int64_t elements = 2);

/// The `n` consecutive elements tensor[indices + (0, .., k)], k < n (a power of two): as
/// vectors of up to 16 bytes when all are in bounds, the last stride is 1 and the first address
/// is aligned to the vector (decided at run time, per access), else element by element with
/// zero out of bounds.
llvm::SmallVector<mlir::Value> buildMaskedLoadVector(mlir::OpBuilder &b, mlir::Location loc,
                                                     const TensorValues &t, mlir::Type elementType,
                                                     mlir::ValueRange indices, int64_t n);
/// Stores `values` at tensor[indices + (0, .., k)] likewise: vectors of up to 16 bytes when
/// in bounds, contiguous and aligned, else each element that is in bounds. With `knownAligned`
/// the caller has checked that the last stride is 1 and the first address is aligned to the
/// vectors: only the bounds are checked. With `realign`, a 16-byte vector in bounds and
/// contiguous but not aligned is stored in the widest aligned pieces its address allows (8- or
/// 4-byte ones; 2-byte elements off a 4-byte boundary: one element, pairs, one element).
void buildMaskedStoreVector(mlir::OpBuilder &b, mlir::Location loc, const TensorValues &t,
                            llvm::ArrayRef<mlir::Value> values, mlir::ValueRange indices,
                            bool knownAligned = false, bool realign = false);

/// Combines two partial results of a reduction of `kind` ("sum", "max", "min"): addf / maximumf /
/// minimumf on floats (NaN propagates), addi / maxsi / minsi on integers.
mlir::Value buildReduceCombine(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef kind,
                               mlir::Value x, mlir::Value y);

/// Converts a scalar of element type `from` (held in its storage type) to element type `to`
/// (its storage type is the result): float/int widening, narrowing and conversion; an unsigned
/// `from` or `to` (the language's u8, stored as i8) selects zero extension and unsigned
/// conversions. Callers pass the declared element type, never the storage type, so that u8 is
/// never sign-extended.
mlir::Value convertElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                           mlir::Type from, mlir::Type to);

/// A loop that spreads `points` linear indices over the threads of the enclosing gpu.func
/// (thread t takes k * T + t), guarded at the tail; `body` gets the linear index.
void buildThreadLoop(mlir::OpBuilder &b, mlir::Location loc, int64_t points,
                     llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::Value)> body);

/// Row-major coordinates of a linear index in `shape`.
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b, mlir::Location loc,
                                           mlir::Value linear, llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// The tensor-core pieces (WarpSpecialized.cpp, WarpSpecializeToNVVM.cpp, MmaSyncPipeline.cpp,
// RegisterFragments.cpp)
//===----------------------------------------------------------------------===//

/// One TMA tensor map a kernel takes as a `__grid_constant__` parameter: a box of
/// [boxRows, boxCols] elements of the rank-2 tensor argument `argIndex`, with a swizzle.
struct TensorMapParam {
  unsigned argIndex;
  int64_t boxRows, boxCols, swizzle;
  mlir::Type elementType;
  /// A store map (tile.copy's `tma_store`): the launch encodes it where it can, and says so in
  /// the i32 parameter after the maps.
  bool store = false;
};

/// On the `unrealized_conversion_cast` that stands for a tensor argument of the kernel: the
/// argument's index (i64), by which a TMA load finds its tensor-map parameter.
inline constexpr llvm::StringLiteral kTensorArgAttr = "tile.argument";

/// Patterns for what tile-warp-specialize writes (WarpSpecializeToNVVM.cpp): tile.warp_specialize,
/// the mbarrier ops, tile.tma_load, tile.producer_copy, tile.cp_async_readable,
/// tile.async_commit, tile.grid_dim, and gemms on a wgmma accumulator layout.
void populateWarpSpecializePatterns(mlir::RewritePatternSet &patterns);
/// The stream-K workspace ops (StreamKToNVVM.cpp).
void populateStreamKPatterns(mlir::RewritePatternSet &patterns);

/// The distinct tensor maps the TMA loads of `kernel` need, in order of first use, then the store
/// maps of its `tma_store` copies (none where it has no TMA loads: only `__tma` entries have
/// maps).
llvm::SmallVector<TensorMapParam> collectTensorMaps(tile::KernelOp kernel);

/// Clones the definition of `value` (pure ops, recursively) at the builder's position; block
/// ids become `blockIds` when given (a persistent loop's current tile).
mlir::Value rematerialize(mlir::OpBuilder &b, mlir::Value value, mlir::IRMapping &mapping,
                          llvm::ArrayRef<mlir::Value> blockIds);

/// The base of dynamic shared memory as an `!llvm.ptr<3>` (symbol `tlc_smem`, 1024-byte aligned,
/// declared in `func`'s gpu.module on first use).
mlir::Value buildSharedBase(mlir::OpBuilder &b, mlir::Location loc, mlir::gpu::GPUFuncOp func);

/// The store map parameter of entry `func` for tensor argument `arg` and the i32 parameter that
/// says whether the launch encoded the store maps; nulls where the entry has none.
std::pair<mlir::Value, mlir::Value> findStoreMap(mlir::gpu::GPUFuncOp func, int64_t arg);

/// The byte offset in dynamic shared memory of a lowered shared buffer that
/// tile-shared-memory-layout placed (its `tile.offset`), if any.
std::optional<int64_t> getSharedOffset(mlir::Value buffer);

/// The one dynamic shared memory symbol of a module (1024-byte aligned, as the 128-byte swizzle
/// atoms need).
inline constexpr llvm::StringLiteral kSharedSymbol = "tlc_smem";

/// Declares kSharedSymbol (extern, 1024-byte aligned) in `module` unless it is there; returns
/// its name.
llvm::StringRef declareSharedSymbol(mlir::Operation *module, mlir::Location loc);

/// Emits the body of `kernel`, whose main loop is marked
/// `tile.pipeline = #tile.pipeline<cp_async_mma>`, into
/// `func`: the loop becomes a cp.async ring feeding ldmatrix + mma.sync (MmaSyncPipeline.cpp).
mlir::LogicalResult buildMmaSyncBody(tile::KernelOp kernel, mlir::gpu::GPUFuncOp func,
                                     mlir::OpBuilder &b, mlir::IRMapping &mapping);

/// The register layout of a lowered fragment (an unrealized cast carrying `tile.layout`).
std::optional<tile::AccLayout> getRegisterLayout(mlir::Value buffer);

/// Lowers a fragment alloc with a wgmma layout to a per-thread slot array in the entry block of
/// `func`; returns the buffer-typed cast that stands for it.
mlir::Value lowerRegisterFragment(mlir::OpBuilder &b, tile::AllocOp alloc,
                                  mlir::gpu::GPUFuncOp func);

/// Ties the f32 registers of `values` (an LLVM struct) to this point of the program, as
/// CUTLASS's warpgroup_fence_operand does (an empty side-effecting inline asm reading and
/// rewriting each): reads after a wgmma wait cannot move above it, and each value becomes a
/// distinct register (no copies the asynchronous multiply would have to serialize against).
mlir::Value fenceAccumulators(mlir::OpBuilder &b, mlir::Location loc, mlir::Value values);

/// fill, read_slot, write_slot and copy-to-tensor of register-layout fragments.
void populateRegisterFragmentPatterns(mlir::RewritePatternSet &patterns);

//===----------------------------------------------------------------------===//
// mma.sync building blocks (MmaSyncOps.cpp), shared by the cp.async ring (MmaSyncPipeline.cpp)
// and the register strategy's patterns
//===----------------------------------------------------------------------===//

/// Byte offset (i32) of element (row, col) of a swizzled tile, for a row known at run time and a
/// column that is a multiple of 8 elements (a 16-byte chunk); both i32.
mlir::Value buildSwizzledOffset(mlir::OpBuilder &b, mlir::Location loc,
                                const layout::SwizzledTile &tile, mlir::Value row, mlir::Value col);

/// The swizzled tile and byte offset (i32, built at the builder's position) of a shared buffer
/// placed by tile-shared-memory-layout (allocateBlockBuffers keeps both on the buffer's cast),
/// or of one stage of it (a lowered `tile.stage`).
std::optional<std::pair<layout::SwizzledTile, mlir::Value>>
getSwizzledTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer);

/// Whether getSwizzledTile knows `buffer` (checked before a pattern builds anything).
bool isSwizzledTile(mlir::Value buffer);

/// Whether cp.async can read `t` 16 bytes at a time (i1): unit last stride, 16-byte aligned base
/// and rows.
mlir::Value buildCpAsyncReadable(mlir::OpBuilder &b, mlir::Location loc, const TensorValues &t,
                                 int64_t elemBytes);

/// Whether a tile copy's column offset `col` (index or integer) is a multiple of 16 bytes, so
/// that its rows start on 16-byte chunks (i1): true where tile::knownDivisor proves it; else a
/// test of `col` where `atRunTime` (`col` dominates the insertion point), false otherwise.
mlir::Value buildColumnOffsetAligned(mlir::OpBuilder &b, mlir::Location loc, mlir::Value col,
                                     int64_t elemBytes, bool atRunTime);

/// How buildTileCopy moves a tile: 16-byte cp.async chunks (the tensor's rows and base 16-byte
/// aligned), or, for any alignment, the same chunks as element loads with one 16-byte shared
/// store each (`Elements`, fast; for copies marked `tile.unaligned`) or a compact element loop
/// (`CompactElements`: few registers beside the cp.async version it shares a function with), or
/// (`Realigned`, any alignment, unit column stride) each chunk from the two 16-byte aligned
/// blocks that hold it, shifted into place in registers: two vector loads instead of 16 / size
/// element loads (element loads for chunks at the tensor's edges and its last bytes).
enum class TileCopyMode { CpAsync, Elements, CompactElements, Realigned };

/// The element version of a cp.async copy (`tile.unaligned`: the fast one).
TileCopyMode elementMode(mlir::Operation *copy);

/// One tile copy from tensor `t` at `offsets` (one per tensor dimension, index; the tile covers
/// the last two) into the swizzled tile at byte `destBase` (i32) of dynamic shared memory
/// `smemBase`, spread over `threads` threads (`tid32`: the thread, i32), by `mode`; zero-filled
/// outside the tensor (no cp.async commit).
void buildTileCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value smemBase, mlir::Value tid32,
                   int64_t threads, const TensorValues &t, mlir::ValueRange offsets,
                   const layout::SwizzledTile &tile, mlir::Value destBase, mlir::Type elemType,
                   TileCopyMode mode, int64_t chunksInFlight = 1);

/// A loading producer's copy of a tile from a tensor at any element alignment, in two phases
/// (buildStagedCopy). `Issue`: cp.async of the 16-byte blocks covering each row of the tile,
/// from the block that holds the row's first element: block k into chunk k's swizzled slot, the
/// block past the tile's width at byte `edgeBase + 16 * row` (i32); bytes past the tile's or the
/// tensor's last column, and rows outside the tensor, are zero (cp.async src-size). `Realign`:
/// once the blocks landed (cp.async.wait_group in each thread, then a warp barrier: one warp
/// copies and realigns each row), each chunk is shifted in place by its row's misalignment:
/// two 16-byte shared loads, a funnel shift, one store. Tiles that start left of the tensor or
/// tensors with a column stride other than 1 take element loads in `Issue` and nothing in
/// `Realign`; a tile whose rows are all 16-byte aligned is not realigned.
enum class StagedPhase { Issue, Realign };

/// (layout::fitsStagedCopy says which tiles it can copy.)
void buildStagedCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value smemBase,
                     mlir::Value tid32, int64_t threads, const TensorValues &t,
                     mlir::ValueRange offsets, const layout::SwizzledTile &tile,
                     mlir::Value destBase, mlir::Value edgeBase, mlir::Type elemType,
                     StagedPhase phase);

/// The A operand of a warp's mma.sync products: a swizzled shared tile [M, K] (K-major) at byte
/// `base` (i32), or a register fragment in mma.sync's accumulator layout over [M, K] whose
/// slot values are `slots` (f16 or bf16; two neighbouring n8 tiles make one k16 operand).
struct MmaOperandA {
  mlir::Value base;
  layout::SwizzledTile tile;
  llvm::SmallVector<mlir::Value> slots;
  layout::MmaSyncAccLayout registers;
  /// A shared tile holding A^T ([K, M], M-major; `transpose_a`), read by ldmatrix.trans.
  bool transposed = false;
  bool inRegisters() const { return !slots.empty(); }
};

/// c += A * op(B) for the calling warp's part of accumulator layout `acc` (`c`: its f32 slot
/// values, updated): per 16-wide k step, ldmatrix.x4 of A (unless in registers) and of B from the
/// swizzled shared tile at byte `bBase` (B^T K-major when `transB`, else row-major through
/// ldmatrix.trans), then mma.sync m16n8k16 (bf16 or f16 inputs, f32 accumulate).
void buildWarpMma(mlir::OpBuilder &b, mlir::Location loc, mlir::Value smemBase, mlir::Value tid32,
                  const layout::MmaSyncAccLayout &acc, const MmaOperandA &a, mlir::Value bBase,
                  const layout::SwizzledTile &bTile, bool transB, bool bf16,
                  llvm::SmallVectorImpl<mlir::Value> &c);

/// The calling thread's wgmma accumulator slots (`accMemref`, layout `layout`) as one register
/// struct per 64-row tile (the instruction's operand), and back.
llvm::SmallVector<mlir::Value> loadWgmmaTiles(mlir::OpBuilder &b, mlir::Location loc,
                                              mlir::Value accMemref,
                                              const layout::WgmmaAccLayout &layout);
void storeWgmmaTiles(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<mlir::Value> tiles,
                     mlir::Value accMemref, const layout::WgmmaAccLayout &layout);

/// The k depth of one wgmma instruction on operands of `elem`: 32 bytes of each row (k16 for
/// bf16/f16, k32 for f8e4m3/f8e5m2).
int64_t wgmmaK(mlir::Type elem);

/// One warpgroup's share of c += A * op(B) on wgmma for accumulator layout `layout`: per k step
/// (wgmmaK(elem) wide) and 64-row tile, `wgmma.mma_async` m64nNkK from shared-memory descriptors
/// of the swizzled tiles A (K-major, or A^T [K, M] M-major with `transA`, at byte `aStage` of
/// dynamic shared memory, whose shared address is `smemAddr`; i32) and B (MN-major, or K-major
/// with `transB`, at `bStage`), for the warpgroup at (`wgM`, `wgN`) (i32); `elem` is both
/// operands' element type (bf16, f16, f8e4m3, f8e5m2; 8-bit ones K-major only; M-major A in
/// 128-byte swizzled rows). `tiles` holds the accumulator of each 64-row tile as the
/// instruction's register struct, updated. No fence, commit or wait: the caller places them.
void buildWarpgroupMma(mlir::OpBuilder &b, mlir::Location loc, mlir::Value smemAddr,
                       mlir::Value wgM, mlir::Value wgN, const layout::WgmmaAccLayout &layout,
                       mlir::Value aStage, const layout::SwizzledTile &tileA, bool transA,
                       mlir::Value bStage, const layout::SwizzledTile &tileB, bool transB,
                       mlir::Type elem, llvm::SmallVectorImpl<mlir::Value> &tiles);

/// The same with A from registers (wgmma's register form, as PTX: MLIR's op reads A from shared
/// memory only), for one instruction of N = layout.instrN() columns at column block `wgN`:
/// `aRegs` holds 4 i32 registers (bf16/f16 pairs: mma.sync's m16n8k16 A fragment of the warp's 16
/// rows) per 16-wide k step; `tile` is the accumulator struct, updated.
void buildWarpgroupMmaRegA(mlir::OpBuilder &b, mlir::Location loc, mlir::Value smemAddr,
                           mlir::Value wgN, const layout::WgmmaAccLayout &layout,
                           llvm::ArrayRef<mlir::Value> aRegs, mlir::Value bStage,
                           const layout::SwizzledTile &tileB, bool transB, bool bf16,
                           mlir::Value &tile);

/// `fence.proxy.async.shared::cta`: this thread's shared-memory writes, visible to wgmma.
void buildAsyncProxyFence(mlir::OpBuilder &b, mlir::Location loc);

/// On the cast a lowered `tile.stage` becomes: a view of one stage of a ring buffer (its
/// operands: the buffer and the stage's byte offset, i32).
inline constexpr llvm::StringLiteral kStageViewAttr = "tlc.stage_view";

/// cp.async copies, mma.sync gemms and row reductions of the register strategy.
void populateMmaSyncPatterns(mlir::RewritePatternSet &patterns);

} // namespace tlc

#endif // TLC_LIB_CONVERSION_TILETONVVM_PATTERNSIMPL_H
