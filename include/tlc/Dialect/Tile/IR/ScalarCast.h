//===- ScalarCast.h - Scalar conversion and arithmetic for frontend and conversion -*- C++ -*-===//
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

/// The binary arithmetic the frontend (operators, `min`, `max`) and the conversion (`reduce`'s
/// combining) build. `MinNum`/`MaxNum` ignore a NaN operand (the language's `min`, `max`);
/// `Minimum`/`Maximum` propagate it (`reduce`).
enum class ScalarArith { Add, Sub, Mul, Div, Rem, MinNum, MaxNum, Minimum, Maximum };

/// `op` on `x` and `y` (one type): its float form for floats, its signed integer form otherwise.
mlir::Value buildScalarArith(mlir::OpBuilder &b, mlir::Location loc, ScalarArith op, mlir::Value x,
                             mlir::Value y);
} // namespace tlc::tile

#endif // TLC_DIALECT_TILE_IR_SCALARCAST_H
