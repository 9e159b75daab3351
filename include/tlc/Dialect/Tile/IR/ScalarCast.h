//===- ScalarCast.h - One scalar conversion for the frontend and the conversion -*- C++ -*-===//
#ifndef TLC_DIALECT_TILE_IR_SCALARCAST_H
#define TLC_DIALECT_TILE_IR_SCALARCAST_H

#include "mlir/IR/Builders.h"

namespace tlc::tile {
/// `x` converted to `to` by arith ops, for signless integers, `index` and floats other than the
/// 8-bit ones (tlc-expand-float8 lowers those): floats widen or narrow (f16 <-> bf16 through
/// f32); floats to integers and back are signed unless `fromUnsigned` / `toUnsigned`; integers
/// sign-extend unless `fromUnsigned`, or truncate; `index` goes through i64. `x` itself when its
/// type is `to`.
mlir::Value buildScalarCast(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, mlir::Type to,
                            bool fromUnsigned, bool toUnsigned);
} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_IR_SCALARCAST_H
