//===- TileTypes.h - Types of the tile dialect ----------------------------===//
#ifndef TLC_DIALECT_TILE_IR_TILETYPES_H
#define TLC_DIALECT_TILE_IR_TILETYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "tlc/Dialect/Tile/IR/TileOpsTypes.h.inc"

#endif // TLC_DIALECT_TILE_IR_TILETYPES_H
