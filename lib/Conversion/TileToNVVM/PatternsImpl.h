//===- PatternsImpl.h - Shared pieces of the tile-to-NVVM lowering --------===//
#ifndef TLC_LIB_CONVERSION_TILETONVVM_PATTERNSIMPL_H
#define TLC_LIB_CONVERSION_TILETONVVM_PATTERNSIMPL_H

#include "tlc/Dialect/Tile/IR/TileOps.h"

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

} // namespace tlc

#endif // TLC_LIB_CONVERSION_TILETONVVM_PATTERNSIMPL_H
