//===- ScalarCast.cpp - Scalar conversion and arithmetic for frontend and conversion -===//
#include "tlc/Dialect/Tile/IR/ScalarCast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

Value tlc::tile::buildScalarCast(OpBuilder &b, Location loc, Value x, Type to, bool fromUnsigned,
                                 bool toUnsigned) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, x);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, to, x);
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  // Integers of `index` type convert through i64.
  Type i64 = b.getI64Type();
  Type target = to.isIndex() ? i64 : to;
  auto toIndex = [&](Value r) -> Value {
    return to.isIndex() ? arith::IndexCastOp::create(b, loc, to, r).getResult() : r;
  };
  if (fromFloat)
    return toIndex(toUnsigned ? arith::FPToUIOp::create(b, loc, target, x).getResult()
                              : arith::FPToSIOp::create(b, loc, target, x).getResult());
  Value src = from.isIndex() ? arith::IndexCastOp::create(b, loc, i64, x).getResult() : x;
  if (toFloat)
    return fromUnsigned ? arith::UIToFPOp::create(b, loc, to, src).getResult()
                        : arith::SIToFPOp::create(b, loc, to, src).getResult();
  unsigned fromWidth = src.getType().getIntOrFloatBitWidth();
  unsigned toWidth = target.getIntOrFloatBitWidth();
  Value r = src;
  if (fromWidth < toWidth)
    r = fromUnsigned ? arith::ExtUIOp::create(b, loc, target, src).getResult()
                     : arith::ExtSIOp::create(b, loc, target, src).getResult();
  else if (fromWidth > toWidth)
    r = arith::TruncIOp::create(b, loc, target, src);
  return toIndex(r);
}

Value tlc::tile::buildScalarArith(OpBuilder &b, Location loc, ScalarArith op, Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (op) {
  case ScalarArith::Add:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case ScalarArith::Sub:
    return isFloat ? arith::SubFOp::create(b, loc, x, y).getResult()
                   : arith::SubIOp::create(b, loc, x, y).getResult();
  case ScalarArith::Mul:
    return isFloat ? arith::MulFOp::create(b, loc, x, y).getResult()
                   : arith::MulIOp::create(b, loc, x, y).getResult();
  case ScalarArith::Div:
    return isFloat ? arith::DivFOp::create(b, loc, x, y).getResult()
                   : arith::DivSIOp::create(b, loc, x, y).getResult();
  case ScalarArith::Rem:
    return isFloat ? arith::RemFOp::create(b, loc, x, y).getResult()
                   : arith::RemSIOp::create(b, loc, x, y).getResult();
  case ScalarArith::MinNum:
    return isFloat ? arith::MinNumFOp::create(b, loc, x, y).getResult()
                   : arith::MinSIOp::create(b, loc, x, y).getResult();
  case ScalarArith::MaxNum:
    return isFloat ? arith::MaxNumFOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case ScalarArith::Minimum:
    return isFloat ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                   : arith::MinSIOp::create(b, loc, x, y).getResult();
  case ScalarArith::Maximum:
    return isFloat ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  }
  llvm_unreachable("unknown ScalarArith");
}
