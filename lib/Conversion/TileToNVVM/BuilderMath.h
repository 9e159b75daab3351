//===- BuilderMath.h - Constants and integer arithmetic at one location ---*- C++ -*-===//
//
// The arithmetic the TileToNVVM patterns build address and index computations with.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_LIB_CONVERSION_TILETONVVM_BUILDERMATH_H
#define TLC_LIB_CONVERSION_TILETONVVM_BUILDERMATH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace tlc {
/// Constants and arithmetic at one location.
struct Math {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Value i32(int64_t v) {
    return mlir::arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  mlir::Value i64(int64_t v) {
    return mlir::arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  mlir::Value index(int64_t v) { return mlir::arith::ConstantIndexOp::create(b, loc, v); }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddIOp::create(b, loc, x, y);
  }
  mlir::Value add(mlir::Value x, int64_t y) { return y ? add(x, constLike(x, y)) : x; }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return mlir::arith::MulIOp::create(b, loc, x, y);
  }
  mlir::Value mul(mlir::Value x, int64_t y) { return mul(x, constLike(x, y)); }
  mlir::Value div(mlir::Value x, int64_t y) {
    return mlir::arith::DivUIOp::create(b, loc, x, constLike(x, y));
  }
  mlir::Value rem(mlir::Value x, int64_t y) {
    return mlir::arith::RemUIOp::create(b, loc, x, constLike(x, y));
  }
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y) {
    return mlir::arith::CmpIOp::create(b, loc, p, x, y);
  }
  mlir::Value land(mlir::Value x, mlir::Value y) {
    return mlir::arith::AndIOp::create(b, loc, x, y);
  }
  mlir::Value toI32(mlir::Value x) {
    return mlir::arith::IndexCastOp::create(b, loc, b.getI32Type(), x);
  }
  mlir::Value toI64(mlir::Value x) {
    return mlir::arith::IndexCastOp::create(b, loc, b.getI64Type(), x);
  }
  mlir::Value toIndex(mlir::Value x) {
    return mlir::arith::IndexCastOp::create(b, loc, b.getIndexType(), x);
  }
  mlir::Value constLike(mlir::Value x, int64_t v) {
    if (x.getType().isIndex())
      return index(v);
    return mlir::arith::ConstantIntOp::create(b, loc, x.getType(), v);
  }
  mlir::Value sharedPtr(mlir::Value smemBase, mlir::Value offset) {
    return mlir::LLVM::GEPOp::create(b, loc, smemBase.getType(), b.getI8Type(), smemBase,
                                     mlir::ValueRange{offset});
  }
};

} // namespace tlc

#endif // TLC_LIB_CONVERSION_TILETONVVM_BUILDERMATH_H
