//===- Passes.h - Passes over the tile dialect ----------------------------===//
#ifndef TLC_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TLC_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"

namespace tlc::tile {

#define GEN_PASS_DECL
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_TRANSFORMS_PASSES_H
