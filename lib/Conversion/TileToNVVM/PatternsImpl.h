//===- PatternsImpl.h - Shared pieces of the tile-to-NVVM lowering --------===//
#ifndef TLC_LIB_CONVERSION_TILETONVVM_PATTERNSIMPL_H
#define TLC_LIB_CONVERSION_TILETONVVM_PATTERNSIMPL_H

#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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

/// Patterns for element access and sizes: tile.dim, tile.load, tile.store, tile.atomic_add.
void populateMemoryOpsToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// Patterns for per-thread (`local`) buffers: tile.alloc, tile.read, tile.write, tile.fill.
void populateLocalBufferToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// Reports, at its source location, every operation the strategy for `arch` cannot lower yet.
mlir::LogicalResult checkSupported(mlir::Operation *root, llvm::StringRef arch);

/// Patterns of the generic strategy for shared and fragment buffers: fill, copy, gemm, reduce,
/// and tile.barrier.
void populateGenericTilesToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// Places the shared and fragment buffers of `func` in its dynamic shared memory (16-byte
/// aligned, in declaration order) and returns the bytes needed.
mlir::FailureOr<int64_t> allocateBlockBuffers(mlir::gpu::GPUFuncOp func);

/// The memref behind a lowered buffer (the input of its unrealized cast), or null.
mlir::Value getBufferMemref(mlir::Value buffer);

/// `tensor[indices]` if in bounds, else zero.
mlir::Value buildMaskedLoad(mlir::OpBuilder &b, mlir::Location loc, const TensorValues &t,
                            mlir::Type elementType, mlir::ValueRange indices);
/// `tensor[indices] = value` if in bounds.
void buildMaskedStore(mlir::OpBuilder &b, mlir::Location loc, const TensorValues &t,
                      mlir::Value value, mlir::ValueRange indices);

/// Converts a scalar (held in its storage type) to element type `to` (its storage type is the
/// result): float/int widening, narrowing and conversion; `fromUnsigned` and an unsigned `to`
/// (the language's u8) select zero extension and unsigned conversions.
mlir::Value convertElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                           mlir::Type to, bool fromUnsigned = false);

/// A loop that spreads `points` linear indices over the threads of the enclosing gpu.func
/// (thread t takes k * T + t), guarded at the tail; `body` gets the linear index.
void buildThreadLoop(mlir::OpBuilder &b, mlir::Location loc, int64_t points,
                     llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::Value)> body);

/// Row-major coordinates of a linear index in `shape`.
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b, mlir::Location loc,
                                           mlir::Value linear, llvm::ArrayRef<int64_t> shape);

} // namespace tlc

#endif // TLC_LIB_CONVERSION_TILETONVVM_PATTERNSIMPL_H
