//===- TileDialect.h - The tile dialect -----------------------------------===//
#ifndef TLC_DIALECT_TILE_IR_TILEDIALECT_H
#define TLC_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tlc/Dialect/Tile/IR/TileOpsDialect.h.inc"

#endif // TLC_DIALECT_TILE_IR_TILEDIALECT_H
