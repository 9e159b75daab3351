//===- TileOps.h - Operations of the tile dialect -------------------------===//
#ifndef TLC_DIALECT_TILE_IR_TILEOPS_H
#define TLC_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tlc/Dialect/Tile/IR/TileAttrs.h"
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/IR/TileTypes.h"

#define GET_OP_CLASSES
#include "tlc/Dialect/Tile/IR/TileOps.h.inc"

namespace tlc::tile {
/// Row-major coordinates of the linear index `linear` in `shape` (arith ops on `index`).
llvm::SmallVector<mlir::Value> delinearizeIndex(mlir::OpBuilder &b, mlir::Location loc,
                                                mlir::Value linear, llvm::ArrayRef<int64_t> shape);
} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_IR_TILEOPS_H
