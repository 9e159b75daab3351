//===- TileTypes.h - Types of the tile dialect ----------------------------===//
#ifndef TLC_DIALECT_TILE_IR_TILETYPES_H
#define TLC_DIALECT_TILE_IR_TILETYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

namespace tlc::tile {
/// Where a buffer lives.
enum class BufferSpace : unsigned { Shared = 0, Fragment = 1, Local = 2 };
/// "shared", "fragment" or "local".
llvm::StringRef stringifyBufferSpace(BufferSpace space);
} // namespace tlc::tile

#define GET_TYPEDEF_CLASSES
#include "tlc/Dialect/Tile/IR/TileOpsTypes.h.inc"

#endif // TLC_DIALECT_TILE_IR_TILETYPES_H
