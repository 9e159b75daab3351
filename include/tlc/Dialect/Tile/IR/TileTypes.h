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
/// The type of an element's value in registers: `ui8` (the language's u8, a storage type) is held
/// as a signless i8; every other element type is itself.
inline mlir::Type getStorageType(mlir::Type type) {
  if (type.isUnsignedInteger(8))
    return mlir::IntegerType::get(type.getContext(), 8);
  return type;
}
/// The type a `reduce` of `kind` over elements of `type` combines in: f32 for sums of floats
/// narrower than 32 bits (bf16, f16, the 8-bit floats: one rounding at the end, whatever order
/// the lowering adds in), else the element type itself (max and min are exact in any type).
inline mlir::Type getReduceAccumulatorType(mlir::Type type, llvm::StringRef kind) {
  auto floatType = mlir::dyn_cast<mlir::FloatType>(type);
  if (kind == "sum" && floatType && floatType.getWidth() < 32)
    return mlir::Float32Type::get(type.getContext());
  return type;
}
} // namespace tlc::tile

#define GET_TYPEDEF_CLASSES
#include "tlc/Dialect/Tile/IR/TileOpsTypes.h.inc"

#endif // TLC_DIALECT_TILE_IR_TILETYPES_H
