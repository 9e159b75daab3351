//===- ConstantFolding.cpp - Compile-time values --------------------------===//
//
// Constant evaluation: folding of constant operands, compile-time integers, and the
// materialization of constants as SSA values of the type their use needs, with the range
// checks (integers that do not fit, floats that would overflow to inf).
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::frontend;

#include <cmath>

FailureOr<Value> Generator::materialize(SMLoc l, const TValue &v, Type to, StringRef what) {
  Location location = loc(l);
  switch (v.kind) {
  case TValue::Typed:
    if (v.value.getType() != to) {
      error(l) << "expected '" << typeName(to) << "' " << what << ", found '"
               << typeName(v.value.getType()) << "'; convert it with " << typeName(to) << "(...)";
      return failure();
    }
    return v.value;
  case TValue::IntConst:
    if (to.isIndex())
      return Value(arith::ConstantIndexOp::create(builder, location, v.i));
    if (isIntLike(to)) {
      unsigned width = to.getIntOrFloatBitWidth();
      if (width < 64 && (v.i < -(int64_t(1) << (width - 1)) || v.i >= (int64_t(1) << width))) {
        error(l) << "integer " << v.i << " does not fit in '" << typeName(to) << "'";
        return failure();
      }
      return Value(arith::ConstantIntOp::create(builder, location, to, v.i));
    }
    if (auto ft = dyn_cast<FloatType>(to)) {
      // The attribute must have the type's semantics (not double's), or LLVM lowering fails.
      APFloat value(ft.getFloatSemantics());
      APFloat::opStatus status = value.convertFromAPInt(
          APInt(64, v.i, /*isSigned=*/true), /*IsSigned=*/true, APFloat::rmNearestTiesToEven);
      if (status & APFloat::opOverflow)
        return emitFloatOverflow(l, std::to_string(v.i), ft), failure();
      return Value(arith::ConstantFloatOp::create(builder, location, ft, value));
    }
    break;
  case TValue::FloatConst:
    if (auto ft = dyn_cast<FloatType>(to)) {
      APFloat value(v.f);
      bool losesInfo;
      APFloat::opStatus status =
          value.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
      // A finite constant must stay finite: 70000.0 as 'f16' would silently become inf.
      if (std::isfinite(v.f) && (status & APFloat::opOverflow)) {
        std::string text;
        llvm::raw_string_ostream(text) << llvm::format("%g", v.f);
        return emitFloatOverflow(l, text, ft), failure();
      }
      return Value(arith::ConstantFloatOp::create(builder, location, ft, value));
    }
    break;
  case TValue::BoolConst:
    if (to.isInteger(1))
      return Value(arith::ConstantIntOp::create(builder, location, to, v.b ? 1 : 0));
    break;
  }
  error(l) << "expected '" << typeName(to) << "' " << what << ", found "
           << (v.kind == TValue::IntConst     ? "an integer constant"
               : v.kind == TValue::FloatConst ? "a floating-point constant"
                                              : "a boolean constant");
  return failure();
}

FailureOr<Value> Generator::materializeElement(SMLoc l, const TValue &v, Type elementType,
                                               StringRef what) {
  if (!elementType.isUnsignedInteger(8))
    return materialize(l, v, elementType, what);
  TValue value = v;
  if (v.kind == TValue::IntConst && (v.i < 0 || v.i > 255)) {
    error(l) << "integer " << v.i << " does not fit in 'u8'";
    return failure();
  }
  auto wide = materialize(l, value, builder.getI32Type(), what);
  if (failed(wide))
    return failure();
  return Value(arith::TruncIOp::create(builder, loc(l), builder.getI8Type(), *wide));
}

FailureOr<int64_t> Generator::constInt(const Expr &expr, StringRef what) {
  auto value = gen(expr);
  if (failed(value))
    return failure();
  if (value->kind != TValue::IntConst) {
    error(expr.loc) << what << " must be a compile-time integer (a literal or an 'int' "
                    << "parameter), found "
                    << (value->isConst() ? "another constant"
                                         : "'" + typeName(typeOf(*value)) + "' value");
    return failure();
  }
  return value->i;
}

void Generator::emitFloatOverflow(SMLoc l, StringRef text, FloatType type) {
  APFloat largest = APFloat::getLargest(type.getFloatSemantics());
  SmallString<16> largestText;
  largest.toString(largestText);
  auto diag = error(l) << "constant " << text << " does not fit in '" << typeName(type)
                       << "': it would become "
                       << (APFloat::semanticsHasInf(type.getFloatSemantics()) ? "inf" : "nan");
  diag.attachNote() << "hint: the largest finite '" << typeName(type) << "' is " << largestText
                    << "; write 'inf' if infinity is meant";
}

FailureOr<TValue> Generator::foldBinary(const Expr &expr, const TValue &a, const TValue &b) {
  Token::Kind op = expr.op;
  if (a.kind == TValue::BoolConst || b.kind == TValue::BoolConst)
    return foldBoolBinary(expr, a, b);
  if (op == Token::amp_amp || op == Token::pipe_pipe) {
    error(expr.loc) << Token::describe(op) << " needs 'bool' operands";
    return failure();
  }
  if (a.kind == TValue::IntConst && b.kind == TValue::IntConst)
    return foldIntBinary(expr, a.i, b.i);
  double x = a.kind == TValue::IntConst ? double(a.i) : a.f;
  double y = b.kind == TValue::IntConst ? double(b.i) : b.f;
  return foldFloatBinary(expr, x, y);
}

FailureOr<TValue> Generator::foldBoolBinary(const Expr &expr, const TValue &a, const TValue &b) {
  Token::Kind op = expr.op;
  if (a.kind != b.kind) {
    error(expr.loc) << "type mismatch in " << Token::describe(op) << ": a boolean and a number";
    return failure();
  }
  switch (op) {
  case Token::amp_amp:
    return TValue::boolConst(a.b && b.b);
  case Token::pipe_pipe:
    return TValue::boolConst(a.b || b.b);
  case Token::equal_equal:
    return TValue::boolConst(a.b == b.b);
  case Token::not_equal:
    return TValue::boolConst(a.b != b.b);
  case Token::amp:
    return TValue::boolConst(a.b && b.b);
  case Token::pipe:
    return TValue::boolConst(a.b || b.b);
  case Token::caret:
    return TValue::boolConst(a.b != b.b);
  default:
    error(expr.loc) << Token::describe(op) << " cannot be applied to 'bool' values";
    return failure();
  }
}

/// `x op y` when `op` is a comparison (<, <=, >, >=, ==, !=), else nullopt.
template <typename T> static std::optional<bool> foldComparison(Token::Kind op, T x, T y) {
  switch (op) {
  case Token::less:
    return x < y;
  case Token::less_equal:
    return x <= y;
  case Token::greater:
    return x > y;
  case Token::greater_equal:
    return x >= y;
  case Token::equal_equal:
    return x == y;
  case Token::not_equal:
    return x != y;
  default:
    return std::nullopt;
  }
}

FailureOr<TValue> Generator::foldIntBinary(const Expr &expr, int64_t x, int64_t y) {
  Token::Kind op = expr.op;
  if (std::optional<bool> result = foldComparison(op, x, y))
    return TValue::boolConst(*result);
  auto overflow = [&]() -> FailureOr<TValue> {
    error(expr.loc) << "integer overflow in constant expression";
    return failure();
  };
  int64_t r = 0;
  switch (op) {
  case Token::plus:
    if (__builtin_add_overflow(x, y, &r))
      return overflow();
    return TValue::intConst(r);
  case Token::minus:
    if (__builtin_sub_overflow(x, y, &r))
      return overflow();
    return TValue::intConst(r);
  case Token::star:
    if (__builtin_mul_overflow(x, y, &r))
      return overflow();
    return TValue::intConst(r);
  case Token::slash:
  case Token::percent:
    if (y == 0) {
      error(expr.loc) << "division by zero in constant expression";
      return failure();
    }
    if (x == INT64_MIN && y == -1)
      return overflow();
    return TValue::intConst(op == Token::slash ? x / y : x % y);
  case Token::amp:
    return TValue::intConst(x & y);
  case Token::pipe:
    return TValue::intConst(x | y);
  case Token::caret:
    return TValue::intConst(x ^ y);
  case Token::less_less:
  case Token::greater_greater:
    return foldShift(expr, x, y);
  default:
    // Not an integer operator: as for floats (which report it).
    return foldFloatBinary(expr, double(x), double(y));
  }
}

FailureOr<TValue> Generator::foldFloatBinary(const Expr &expr, double x, double y) {
  Token::Kind op = expr.op;
  if (std::optional<bool> result = foldComparison(op, x, y))
    return TValue::boolConst(*result);
  if (op == Token::amp || op == Token::pipe || op == Token::caret || op == Token::less_less ||
      op == Token::greater_greater) {
    error(expr.loc) << Token::describe(op) << " needs integer operands, found a float constant";
    return failure();
  }
  // Finite operands whose sum, difference, product or quotient (by a non-zero) is infinite
  // overflowed; a division by zero keeps its IEEE result.
  if ((op == Token::plus || op == Token::minus || op == Token::star ||
       (op == Token::slash && y != 0)) &&
      std::isfinite(x) && std::isfinite(y)) {
    double r = op == Token::plus    ? x + y
               : op == Token::minus ? x - y
               : op == Token::star  ? x * y
                                    : x / y;
    if (std::isinf(r)) {
      error(expr.loc) << "floating-point overflow in constant expression (the result is "
                      << "beyond the range of 'f64')";
      return failure();
    }
  }
  switch (op) {
  case Token::plus:
    return TValue::floatConst(x + y);
  case Token::minus:
    return TValue::floatConst(x - y);
  case Token::star:
    return TValue::floatConst(x * y);
  case Token::slash:
    return TValue::floatConst(x / y);
  case Token::percent:
    return TValue::floatConst(std::fmod(x, y));
  default:
    break;
  }
  error(expr.loc) << "unsupported operator " << Token::describe(op);
  return failure();
}

FailureOr<TValue> Generator::foldMinMax(const Expr &expr, const TValue &a, const TValue &b) {
  StringRef name = expr.name;
  if (a.kind == TValue::IntConst && b.kind == TValue::IntConst) {
    int64_t x = a.i, y = b.i;
    if (name == "min")
      return TValue::intConst(std::min(x, y));
    if (name == "max")
      return TValue::intConst(std::max(x, y));
    if (y <= 0) {
      error(expr.operands[1]->loc) << "'cdiv' needs a positive divisor, got " << y;
      return failure();
    }
    return TValue::intConst(x / y + ((x % y) > 0 ? 1 : 0));
  }
  double x = a.kind == TValue::IntConst ? double(a.i) : a.f;
  double y = b.kind == TValue::IntConst ? double(b.i) : b.f;
  return TValue::floatConst(name == "min" ? std::min(x, y) : std::max(x, y));
}

FailureOr<TValue> Generator::foldAbs(const Expr &expr, const TValue &arg) {
  if (arg.kind == TValue::IntConst) {
    if (arg.i == INT64_MIN) {
      error(expr.loc) << "integer overflow in constant expression";
      return failure();
    }
    return TValue::intConst(std::abs(arg.i));
  }
  return TValue::floatConst(std::fabs(arg.f));
}

FailureOr<TValue> Generator::foldShift(const Expr &expr, int64_t x, int64_t y) {
  if (y < 0 || y >= 64) {
    error(expr.operands[1]->loc) << "shift amount " << y << " is out of range (0 to 63)";
    return failure();
  }
  if (expr.op == Token::greater_greater)
    return TValue::intConst(x >> y);
  int64_t r = static_cast<int64_t>(static_cast<uint64_t>(x) << y);
  if ((r >> y) != x) {
    error(expr.loc) << "integer overflow in constant expression";
    return failure();
  }
  return TValue::intConst(r);
}
