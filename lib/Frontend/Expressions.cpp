//===- Expressions.cpp - Expressions to arith, math and tile ops ----------===//
//
// Expressions: names, operators, casts, calls of builtin functions and element reads. Constant
// operands are folded (ConstantFolding.cpp); the rest becomes arith, math and tile operations.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "tlc/Dialect/Tile/IR/ScalarCast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::frontend;

#include <cmath>
#include <limits>

FailureOr<TValue> Generator::gen(const Expr &expr) {
  switch (expr.kind) {
  case Expr::IntLit:
    return TValue::intConst(expr.intValue);
  case Expr::FloatLit:
    return TValue::floatConst(expr.floatValue);
  case Expr::BoolLit:
    return TValue::boolConst(expr.boolValue);
  case Expr::Ref:
    return genRef(expr);
  case Expr::BlockIdx:
  case Expr::ThreadIdx: {
    bool isBlock = expr.kind == Expr::BlockIdx;
    if (inGrid || constOnly) {
      error(expr.loc) << "'" << (isBlock ? "block." : "thread.") << expr.name
                      << "' is not available here: it exists only in the kernel body";
      return failure();
    }
    int64_t dim = expr.name == "x" ? 0 : expr.name == "y" ? 1 : 2;
    if (isBlock)
      return TValue::typed(tile::BlockIdOp::create(builder, loc(expr.loc), dim));
    return TValue::typed(tile::ThreadIdOp::create(builder, loc(expr.loc), dim));
  }
  case Expr::Unary:
    return genUnary(expr);
  case Expr::Binary:
    return genBinary(expr);
  case Expr::Ternary: {
    auto c = gen(*expr.operands[0]);
    if (failed(c))
      return failure();
    auto a = gen(*expr.operands[1]);
    if (failed(a))
      return failure();
    auto b = gen(*expr.operands[2]);
    if (failed(b))
      return failure();
    return genSelect(expr.loc, *c, *a, *b);
  }
  case Expr::Call:
    return genCall(expr);
  case Expr::Index:
    return genLoad(expr);
  }
  return failure();
}

FailureOr<TValue> Generator::genRef(const Expr &expr) {
  const Symbol *symbol = lookup(expr.name);
  if (!symbol && expr.name == "inf")
    return TValue::floatConst(std::numeric_limits<double>::infinity());
  if (!symbol) {
    error(expr.loc) << "unknown name '" << expr.name << "'";
    return failure();
  }
  switch (symbol->kind) {
  case Symbol::Bound:
    return symbol->value;
  case Symbol::Var: {
    Value loaded = memref::LoadOp::create(builder, loc(expr.loc), symbol->slot);
    threadDependent[loaded] = varState.lookup(symbol->slot).first;
    return TValue::typed(loaded);
  }
  case Symbol::Tensor:
    error(expr.loc) << "tensor '" << expr.name << "' cannot be used as a value; index it, as in '"
                    << expr.name << "[i]'";
    return failure();
  case Symbol::Size:
    if (constOnly)
      break;
    return TValue::typed(tile::DimOp::create(builder, loc(expr.loc),
                                             currentEntry->getArgument(symbol->arg), symbol->dim));
  case Symbol::TypeConst:
    error(expr.loc) << "type parameter '" << expr.name << "' cannot be used as a value";
    return failure();
  case Symbol::Buffer:
    error(expr.loc) << "buffer '" << expr.name << "' cannot be used as a value; index it, as in '"
                    << expr.name << "[i, j]', or pass it to a tile operation";
    return failure();
  }
  error(expr.loc) << "'" << expr.name << "' is a run-time value; only compile-time "
                  << "parameters can be used here";
  return failure();
}

FailureOr<TValue> Generator::genUnary(const Expr &expr) {
  auto operand = gen(*expr.operands[0]);
  if (failed(operand))
    return failure();
  Location l = loc(expr.loc);
  if (expr.op == Token::exclaim) {
    if (operand->kind == TValue::BoolConst)
      return TValue::boolConst(!operand->b);
    auto v = materialize(expr.operands[0]->loc, *operand, builder.getI1Type(), "operand of '!'");
    if (failed(v))
      return failure();
    Value one = arith::ConstantIntOp::create(builder, l, builder.getI1Type(), 1);
    return TValue::typed(arith::XOrIOp::create(builder, l, *v, one));
  }
  if (expr.op == Token::tilde) {
    if (operand->kind == TValue::IntConst)
      return TValue::intConst(~operand->i);
    Type type = typeOf(*operand);
    if (operand->isConst() || !isIntLike(type)) {
      error(expr.loc) << "'~' needs an integer operand, found "
                      << (operand->kind == TValue::FloatConst ? std::string("a float constant")
                                                              : "'" + typeName(type) + "'")
                      << (type.isInteger(1) ? "; use '!' to negate a 'bool'" : "");
      return failure();
    }
    Value ones = *materialize(expr.loc, TValue::intConst(-1), type, "");
    return TValue::typed(arith::XOrIOp::create(builder, l, operand->value, ones));
  }
  // Negation.
  if (operand->kind == TValue::IntConst) {
    if (operand->i == INT64_MIN) {
      error(expr.loc) << "integer overflow in constant expression";
      return failure();
    }
    return TValue::intConst(-operand->i);
  }
  if (operand->kind == TValue::FloatConst)
    return TValue::floatConst(-operand->f);
  Type type = typeOf(*operand);
  if (operand->kind == TValue::BoolConst || type.isInteger(1)) {
    error(expr.loc) << "cannot negate a 'bool'; use '!'";
    return failure();
  }
  if (failed(checkArithmeticType(expr.loc, "-", type)))
    return failure();
  if (isa<FloatType>(type))
    return TValue::typed(arith::NegFOp::create(builder, l, operand->value));
  Value zero = *materialize(expr.loc, TValue::intConst(0), type, "");
  return TValue::typed(arith::SubIOp::create(builder, l, zero, operand->value));
}

FailureOr<TValue> Generator::genBinary(const Expr &expr) {
  auto a = gen(*expr.operands[0]);
  if (failed(a))
    return failure();
  auto b = gen(*expr.operands[1]);
  if (failed(b))
    return failure();
  if (a->isConst() && b->isConst())
    return foldBinary(expr, *a, *b);
  // `false && x` and `true || x` are constants (x has no effects; it is still checked), so an
  // `if` on a compile-time parameter and run-time sizes drops its branch where the parameter
  // decides it (genIf); `true && x` and `false || x` are x.
  if (expr.op == Token::amp_amp || expr.op == Token::pipe_pipe) {
    const TValue *known = a->kind == TValue::BoolConst   ? &*a
                          : b->kind == TValue::BoolConst ? &*b
                                                         : nullptr;
    const TValue &other = known == &*a ? *b : *a;
    // A thread-dependent side is kept: a tile op under `false && thread.x == 0` is still the
    // error it is for every value of the parameter.
    if (known && !other.isConst() && typeOf(other).isInteger(1) &&
        !dependsOnThreadId(other.value)) {
      bool absorbing = expr.op == Token::amp_amp ? !known->b : known->b;
      return absorbing ? *known : other;
    }
  }

  StringRef opName = Token::describe(expr.op).drop_front().drop_back();
  auto type = unify(expr.loc, opName, *a, *b);
  if (failed(type))
    return failure();
  if (failed(checkArithmeticType(expr.loc, opName, *type)))
    return failure();
  auto lhs = materialize(expr.operands[0]->loc, *a, *type, "operand");
  if (failed(lhs))
    return failure();
  auto rhs = materialize(expr.operands[1]->loc, *b, *type, "operand");
  if (failed(rhs))
    return failure();
  Location l = loc(expr.loc);
  Value x = *lhs, y = *rhs;
  bool isFloat = isa<FloatType>(*type);
  bool isBool = type->isInteger(1);

  switch (expr.op) {
  case Token::amp_amp:
  case Token::pipe_pipe:
    if (!isBool) {
      error(expr.loc) << "'" << opName << "' needs 'bool' operands, found '" << typeName(*type)
                      << "'";
      return failure();
    }
    if (expr.op == Token::amp_amp)
      return TValue::typed(arith::AndIOp::create(builder, l, x, y));
    return TValue::typed(arith::OrIOp::create(builder, l, x, y));
  case Token::equal_equal:
  case Token::not_equal:
  case Token::less:
  case Token::less_equal:
  case Token::greater:
  case Token::greater_equal: {
    if (isBool && expr.op != Token::equal_equal && expr.op != Token::not_equal) {
      error(expr.loc) << "'" << opName << "' cannot compare 'bool' values";
      return failure();
    }
    if (isFloat) {
      arith::CmpFPredicate pred = llvm::StringSwitch<arith::CmpFPredicate>(opName)
                                      .Case("==", arith::CmpFPredicate::OEQ)
                                      .Case("!=", arith::CmpFPredicate::UNE)
                                      .Case("<", arith::CmpFPredicate::OLT)
                                      .Case("<=", arith::CmpFPredicate::OLE)
                                      .Case(">", arith::CmpFPredicate::OGT)
                                      .Default(arith::CmpFPredicate::OGE);
      return TValue::typed(arith::CmpFOp::create(builder, l, pred, x, y));
    }
    arith::CmpIPredicate pred = llvm::StringSwitch<arith::CmpIPredicate>(opName)
                                    .Case("==", arith::CmpIPredicate::eq)
                                    .Case("!=", arith::CmpIPredicate::ne)
                                    .Case("<", arith::CmpIPredicate::slt)
                                    .Case("<=", arith::CmpIPredicate::sle)
                                    .Case(">", arith::CmpIPredicate::sgt)
                                    .Default(arith::CmpIPredicate::sge);
    return TValue::typed(arith::CmpIOp::create(builder, l, pred, x, y));
  }
  case Token::amp:
  case Token::pipe:
  case Token::caret:
  case Token::less_less:
  case Token::greater_greater:
    return genBitwise(expr, x, y, *type);
  default:
    break;
  }
  if (isBool) {
    error(expr.loc) << "arithmetic '" << opName << "' cannot be applied to 'bool' values";
    return failure();
  }
  // A run-time value divided by a constant zero is undefined on the device; say so here.
  if (!isFloat && (expr.op == Token::slash || expr.op == Token::percent) &&
      b->kind == TValue::IntConst && b->i == 0) {
    error(expr.loc) << "division by zero";
    return failure();
  }
  using tile::ScalarArith;
  switch (expr.op) {
  case Token::plus:
    return TValue::typed(tile::buildScalarArith(builder, l, ScalarArith::Add, x, y));
  case Token::minus:
    return TValue::typed(tile::buildScalarArith(builder, l, ScalarArith::Sub, x, y));
  case Token::star:
    return TValue::typed(tile::buildScalarArith(builder, l, ScalarArith::Mul, x, y));
  case Token::slash:
    return TValue::typed(tile::buildScalarArith(builder, l, ScalarArith::Div, x, y));
  case Token::percent:
    return TValue::typed(tile::buildScalarArith(builder, l, ScalarArith::Rem, x, y));
  default:
    break;
  }
  error(expr.loc) << "unsupported operator '" << opName << "'";
  return failure();
}

FailureOr<TValue> Generator::genBitwise(const Expr &expr, Value x, Value y, Type type) {
  StringRef opName = Token::describe(expr.op).drop_front().drop_back();
  bool isShift = expr.op == Token::less_less || expr.op == Token::greater_greater;
  if (!isIntLike(type) && (isShift || !type.isInteger(1))) {
    auto diag = error(expr.loc) << "'" << opName << "' needs integer"
                                << (isShift ? "" : " or 'bool'") << " operands, found '"
                                << typeName(type) << "'";
    if (auto ft = dyn_cast<FloatType>(type))
      diag << "; hint: 'bitcast<i" << ft.getWidth() << ">(x)' gives the bits of a float";
    return failure();
  }
  Location l = loc(expr.loc);
  switch (expr.op) {
  case Token::amp:
    return TValue::typed(arith::AndIOp::create(builder, l, x, y));
  case Token::pipe:
    return TValue::typed(arith::OrIOp::create(builder, l, x, y));
  case Token::caret:
    return TValue::typed(arith::XOrIOp::create(builder, l, x, y));
  default:
    break;
  }
  // Shifts: a constant amount must lie in [0, width); a run-time amount outside it (negative
  // included) shifts every bit out: `<<` gives 0 and `>>` (arithmetic) the sign, 0 or -1.
  int64_t width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  if (std::optional<int64_t> c = getConstantIntValue(y); c && (*c < 0 || *c >= width)) {
    error(expr.operands[1]->loc) << "shift amount " << *c << " is out of range for '"
                                 << typeName(type) << "' (0 to " << width - 1 << ")";
    return failure();
  }
  if (expr.op == Token::less_less) {
    Value zero = *materialize(expr.loc, TValue::intConst(0), type, "");
    Value bits = *materialize(expr.loc, TValue::intConst(width), type, "");
    Value inRange = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ult, y, bits);
    Value shifted = arith::ShLIOp::create(builder, l, x, y);
    return TValue::typed(arith::SelectOp::create(builder, l, inRange, shifted, zero));
  }
  Value last = *materialize(expr.loc, TValue::intConst(width - 1), type, "");
  Value amount = arith::MinUIOp::create(builder, l, y, last);
  return TValue::typed(arith::ShRSIOp::create(builder, l, x, amount));
}

FailureOr<TValue> Generator::genSelect(SMLoc l, const TValue &c, const TValue &a, const TValue &b) {
  if (c.kind == TValue::BoolConst) {
    // Only one side is used, but both must have one type, as with a run-time condition.
    if (failed(unify(l, "?:", a, b)))
      return failure();
    return c.b ? a : b;
  }
  auto cond = materialize(l, c, builder.getI1Type(), "condition");
  if (failed(cond))
    return failure();
  auto type = unify(l, "?:", a, b);
  if (failed(type))
    return failure();
  auto x = materialize(l, a, *type, "value");
  if (failed(x))
    return failure();
  auto y = materialize(l, b, *type, "value");
  if (failed(y))
    return failure();
  return TValue::typed(arith::SelectOp::create(builder, loc(l), *cond, *x, *y));
}

FailureOr<TValue> Generator::genCast(SMLoc l, const TValue &v, Type to) {
  Location location = loc(l);
  if (v.isConst()) {
    TValue c = v;
    if (v.kind == TValue::FloatConst && isIntLike(to)) {
      if (!(std::fabs(v.f) < 9.2e18)) {
        error(l) << "constant " << v.f << " does not fit in '" << typeName(to) << "'";
        return failure();
      }
      c = TValue::intConst(int64_t(v.f));
    } else if (v.kind == TValue::BoolConst && !to.isInteger(1)) {
      c = TValue::intConst(v.b);
    } else if (v.kind == TValue::IntConst && to.isInteger(1)) {
      c = TValue::boolConst(v.i != 0);
    } else if (v.kind == TValue::FloatConst && to.isInteger(1)) {
      c = TValue::boolConst(v.f != 0);
    }
    auto x = materialize(l, c, to, "value");
    if (failed(x))
      return failure();
    return TValue::typed(*x);
  }
  Value x = v.value;
  Type from = x.getType();
  if (from == to)
    return v;
  // 8-bit floats convert to and from f32 only (tlc-expand-float8 lowers those two); every other
  // conversion goes through f32, exact on the way out of f8.
  Type f32 = builder.getF32Type();
  if ((isF8(from) || isF8(to)) && from != f32 && to != f32) {
    auto wide = genCast(l, v, f32);
    if (failed(wide))
      return failure();
    return genCast(l, *wide, to);
  }
  if (to.isInteger(1)) {
    auto zero = materialize(l, isa<FloatType>(from) ? TValue::floatConst(0) : TValue::intConst(0),
                            from, "");
    if (isa<FloatType>(from))
      return TValue::typed(
          arith::CmpFOp::create(builder, location, arith::CmpFPredicate::UNE, x, *zero));
    return TValue::typed(
        arith::CmpIOp::create(builder, location, arith::CmpIPredicate::ne, x, *zero));
  }
  // A bool converts as an unsigned integer.
  return TValue::typed(tile::buildScalarCast(builder, location, x, to, from.isInteger(1), false));
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

/// A builtin function: its name, its number of arguments and the member that generates it.
struct Generator::BuiltinFunction {
  llvm::StringLiteral name;
  unsigned arity;
  FailureOr<TValue> (Generator::*gen)(const Expr &call, ArrayRef<TValue> args);
};

const Generator::BuiltinFunction *Generator::lookupFunction(StringRef name) {
  static constexpr BuiltinFunction functions[] = {
#define TLC_FUNCTION(NAME, ARITY, GEN) {#NAME, ARITY, &Generator::GEN},
#include "Builtins.def"
  };
  for (const BuiltinFunction &function : functions)
    if (function.name == name)
      return &function;
  return nullptr;
}

bool Generator::isBuiltinFunction(StringRef name) { return lookupFunction(name) != nullptr; }

/// "cdiv, min, ..., erf": the builtin functions, for messages.
static std::string functionList() {
  static constexpr llvm::StringLiteral names[] = {
#define TLC_FUNCTION(NAME, ARITY, GEN) #NAME,
#include "Builtins.def"
  };
  std::string list;
  for (StringRef name : names)
    list += (list.empty() ? "" : ", ") + name.str();
  return list;
}

FailureOr<SmallVector<TValue>> Generator::genCallArgs(const Expr &expr, size_t arity) {
  if (expr.operands.size() != arity) {
    error(expr.loc) << "'" << expr.name << "' takes " << arity << " argument"
                    << (arity == 1 ? "" : "s") << ", got " << expr.operands.size();
    return failure();
  }
  SmallVector<TValue> args;
  for (const ExprPtr &operand : expr.operands) {
    auto v = gen(*operand);
    if (failed(v))
      return failure();
    args.push_back(*v);
  }
  return args;
}

FailureOr<TValue> Generator::genCall(const Expr &expr) {
  StringRef name = expr.name;
  for (const Name &k : expr.keywords)
    if (!k.text.empty()) {
      error(k.loc) << "'" << name << "' takes no keyword arguments";
      return failure();
    }
  if (isTileOp(name)) {
    error(expr.loc) << "'" << name << "' is a statement, not a value";
    return failure();
  }
  if (name == "bitcast")
    return genBitcast(expr);
  if (name == "bits")
    return genBits(expr);
  // Casts: a type name called like a function.
  std::optional<Type> castType = builtinType(name);
  if (!castType) {
    const Symbol *symbol = lookup(name);
    if (symbol && symbol->kind == Symbol::TypeConst)
      castType = symbol->type;
  }
  if (castType) {
    if (failed(checkValueType(*castType, expr.loc)))
      return failure();
    auto args = genCallArgs(expr, 1);
    if (failed(args))
      return failure();
    return genCast(expr.loc, (*args)[0], *castType);
  }
  const BuiltinFunction *function = lookupFunction(name);
  if (!function) {
    error(expr.loc) << "unknown function '" << name << "'; available: " << functionList()
                    << ", bitcast<T>(x), bits(T) and casts such as f32(x)";
    return failure();
  }
  auto args = genCallArgs(expr, function->arity);
  if (failed(args))
    return failure();
  return (this->*function->gen)(expr, *args);
}

FailureOr<TValue> Generator::genBitcast(const Expr &expr) {
  if (!expr.typeArg) {
    error(expr.loc) << "'bitcast' needs the type to read the bits as, as in 'bitcast<i32>(x)'";
    return failure();
  }
  const Name &typeArg = *expr.typeArg;
  std::optional<Type> to = builtinType(typeArg.text);
  if (!to)
    if (const Symbol *symbol = lookup(typeArg.text); symbol && symbol->kind == Symbol::TypeConst)
      to = symbol->type;
  if (!to) {
    error(typeArg.loc) << "unknown type '" << typeArg.text << "'";
    return failure();
  }
  if (failed(checkValueType(*to, typeArg.loc)))
    return failure();
  auto args = genCallArgs(expr, 1);
  if (failed(args))
    return failure();
  const TValue &arg = (*args)[0];
  if (arg.isConst()) {
    error(expr.operands[0]->loc) << "'bitcast' needs a value of a known type; convert the "
                                 << "constant first, as in 'bitcast<i32>(f32(1.5))'";
    return failure();
  }
  Type from = arg.value.getType();
  // Types with a fixed bit layout: the sized integers and floats.
  auto bits = [](Type t) -> unsigned {
    if (t.isIndex() || t.isInteger(1))
      return 0;
    return t.getIntOrFloatBitWidth();
  };
  for (auto [type, l] : {std::pair(from, expr.operands[0]->loc), std::pair(*to, typeArg.loc)})
    if (bits(type) == 0) {
      error(l) << "'bitcast' works on sized integers and floats, not '" << typeName(type) << "'"
               << (type.isIndex() ? "; hint: convert it to 'i64' first" : "");
      return failure();
    }
  if (bits(from) != bits(*to)) {
    error(expr.loc) << "'bitcast' from '" << typeName(from) << "' (" << bits(from) << " bits) to '"
                    << typeName(*to) << "' (" << bits(*to) << " bits): the widths must match";
    return failure();
  }
  if (from == *to)
    return arg;
  return TValue::typed(arith::BitcastOp::create(builder, loc(expr.loc), *to, arg.value));
}

/// `bits(T)`: the width in bits of the type T (a type name or a `type` parameter), a
/// compile-time integer: 64 for `int`, 1 for `bool`, 32 for `tf32`.
FailureOr<TValue> Generator::genBits(const Expr &expr) {
  const Expr *arg = expr.operands.size() == 1 ? expr.operands[0].get() : nullptr;
  auto hint = [&](SMLoc l) {
    return error(l) << "'bits' takes a type, as in 'bits(T)' or 'bits(f32)'";
  };
  if (!arg || arg->kind != Expr::Ref) {
    hint(arg ? arg->loc : expr.loc);
    return failure();
  }
  std::optional<Type> type = builtinType(arg->name);
  if (!type)
    if (const Symbol *symbol = lookup(arg->name); symbol && symbol->kind == Symbol::TypeConst)
      type = symbol->type;
  if (!type) {
    hint(arg->loc) << "; '" << arg->name << "' is "
                   << (lookup(arg->name) ? "not a type" : "not a known name");
    return failure();
  }
  if (type->isIndex())
    return TValue::intConst(64);
  return TValue::intConst(type->getIntOrFloatBitWidth());
}

FailureOr<TValue> Generator::genMinMax(const Expr &expr, ArrayRef<TValue> args) {
  StringRef name = expr.name;
  bool bothInt = args[0].kind == TValue::IntConst && args[1].kind == TValue::IntConst;
  if (bothInt || (args[0].isConst() && args[1].isConst() && name != "cdiv"))
    return foldMinMax(expr, args[0], args[1]);
  if (name == "cdiv" && args[1].kind == TValue::IntConst && args[1].i <= 0) {
    error(expr.operands[1]->loc) << "'cdiv' needs a positive divisor, got " << args[1].i;
    return failure();
  }
  auto type = unify(expr.loc, name, args[0], args[1]);
  if (failed(type))
    return failure();
  if (failed(checkArithmeticType(expr.loc, name, *type)))
    return failure();
  auto x = materialize(expr.operands[0]->loc, args[0], *type, "argument");
  if (failed(x))
    return failure();
  auto y = materialize(expr.operands[1]->loc, args[1], *type, "argument");
  if (failed(y))
    return failure();
  bool isFloat = isa<FloatType>(*type);
  if (type->isInteger(1) || (isFloat && name == "cdiv")) {
    error(expr.loc) << "'" << name << "' needs integer" << (name == "cdiv" ? "" : " or float")
                    << " arguments, found '" << typeName(*type) << "'";
    return failure();
  }
  Location l = loc(expr.loc);
  if (name == "cdiv")
    return TValue::typed(arith::CeilDivSIOp::create(builder, l, *x, *y));
  return TValue::typed(tile::buildScalarArith(
      builder, l, name == "min" ? tile::ScalarArith::MinNum : tile::ScalarArith::MaxNum, *x, *y));
}

FailureOr<TValue> Generator::genAbs(const Expr &expr, ArrayRef<TValue> args) {
  if (args[0].kind == TValue::IntConst || args[0].kind == TValue::FloatConst)
    return foldAbs(expr, args[0]);
  Type type = typeOf(args[0]);
  if (type.isInteger(1) || args[0].kind == TValue::BoolConst) {
    error(expr.loc) << "'abs' needs a number, found 'bool'";
    return failure();
  }
  if (failed(checkArithmeticType(expr.loc, "abs", type)))
    return failure();
  Location l = loc(expr.loc);
  Value x = args[0].value;
  if (isa<FloatType>(type))
    return TValue::typed(
        arith::MaxNumFOp::create(builder, l, x, arith::NegFOp::create(builder, l, x)));
  Value zero = *materialize(expr.loc, TValue::intConst(0), type, "");
  return TValue::typed(
      arith::MaxSIOp::create(builder, l, x, arith::SubIOp::create(builder, l, zero, x)));
}

template <typename OpTy>
FailureOr<TValue> Generator::genMath(const Expr &expr, ArrayRef<TValue> args) {
  TValue arg = args[0];
  if (arg.kind == TValue::IntConst)
    arg = TValue::floatConst(double(arg.i));
  Type type = typeOf(arg);
  if (!isa<FloatType>(type) || type.isTF32() || isF8(type)) {
    error(expr.operands[0]->loc) << "'" << expr.name << "' needs an f16, bf16, f32 or f64 "
                                 << "argument, found '" << typeName(type) << "'";
    return failure();
  }
  Value x = *materialize(expr.operands[0]->loc, arg, type, "argument");
  return TValue::typed(OpTy::create(builder, loc(expr.loc), x).getResult());
}

FailureOr<TValue> Generator::genSelectCall(const Expr &expr, ArrayRef<TValue> args) {
  return genSelect(expr.loc, args[0], args[1], args[2]);
}

FailureOr<TValue> Generator::genFma(const Expr &expr, ArrayRef<TValue> args) {
  // a * b + c rounded once (PTX fma.rn): the operands share one float type, that of the
  // non-constant arguments (all the same), f32 when all are constants.
  Type type = Float32Type::get(ctx);
  for (size_t i = 0, first = 3; i < 3; ++i) {
    if (args[i].isConst())
      continue;
    if (first == 3) {
      first = i;
      type = args[i].value.getType();
    } else if (args[i].value.getType() != type) {
      error(expr.loc) << "type mismatch in 'fma': '" << typeName(type) << "' and '"
                      << typeName(args[i].value.getType()) << "'; convert one argument, as in "
                      << typeName(type) << "(...)";
      return failure();
    }
  }
  if (!isa<FloatType>(type) || type.isTF32() || isF8(type)) {
    error(expr.loc) << "'fma' needs f16, bf16, f32 or f64 arguments, found '" << typeName(type)
                    << "'";
    return failure();
  }
  SmallVector<Value, 3> values;
  for (auto [operand, arg] : llvm::zip(expr.operands, args)) {
    auto v = materialize(operand->loc, arg, type, "argument");
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return TValue::typed(
      math::FmaOp::create(builder, loc(expr.loc), values[0], values[1], values[2]));
}

FailureOr<SmallVector<Value>> Generator::genIndices(const std::vector<ExprPtr> &exprs) {
  SmallVector<Value> indices;
  for (const ExprPtr &e : exprs) {
    auto v = gen(*e);
    if (failed(v))
      return failure();
    auto index = materialize(e->loc, *v, builder.getIndexType(), "index");
    if (failed(index))
      return failure();
    indices.push_back(*index);
  }
  return indices;
}

FailureOr<Generator::ElementRef> Generator::resolveElement(StringRef name, SMLoc l,
                                                           const std::vector<ExprPtr> &indices,
                                                           bool forRead) {
  const Symbol *symbol = lookup(name);
  if (!symbol) {
    error(l) << "unknown name '" << name << "'";
    return failure();
  }
  ElementRef ref;
  unsigned rank;
  StringRef what;
  if (symbol->kind == Symbol::Buffer) {
    ref.target = symbol->slot;
    auto type = cast<tile::BufferType>(ref.target.getType());
    ref.elementType = type.getElementType();
    rank = type.getRank();
    what = "buffer";
  } else if (symbol->kind == Symbol::Tensor) {
    if (inGrid || constOnly) {
      error(l) << "tensor elements cannot be read here: 'grid(...)' is computed on the host "
               << "from sizes and scalar parameters";
      return failure();
    }
    ref.target = kernel.getBody().front().getArgument(symbol->arg);
    auto type = cast<tile::TensorType>(ref.target.getType());
    ref.elementType = type.getElementType();
    rank = type.getRank();
    what = "tensor";
  } else {
    error(l) << "'" << name << "' is not a tensor or buffer; "
             << (forRead ? "only tensors and buffers can be indexed"
                         : "only their elements can be written by index");
    return failure();
  }
  if (indices.size() != rank) {
    error(l) << what << " '" << name << "' has rank " << rank << " but is indexed with "
             << indices.size() << " ind" << (indices.size() == 1 ? "ex" : "ices");
    return failure();
  }
  auto values = genIndices(indices);
  if (failed(values))
    return failure();
  ref.indices = std::move(*values);
  // Buffer accesses are not masked: a constant index must lie in the buffer's shape.
  if (auto buffer = dyn_cast<tile::BufferType>(ref.target.getType())) {
    for (auto [i, index] : llvm::enumerate(ref.indices)) {
      std::optional<int64_t> c = getConstantIntValue(index);
      int64_t extent = buffer.getShape()[i];
      if (!c || (*c >= 0 && *c < extent))
        continue;
      error(indices[i]->loc) << "index " << *c << " is out of bounds for dimension " << i
                             << " of buffer '" << name << "' of shape ["
                             << shapeText(buffer.getShape()) << "]; hint: indices of dimension "
                             << i << " run from 0 to " << extent - 1;
      return failure();
    }
  }
  if (ref.elementType.isTF32()) {
    error(l) << "element access to " << what << "s of 'tf32' is not supported (tf32 is a "
             << "tensor-core input format); hint: use an 'f32' buffer";
    return failure();
  }
  return ref;
}

FailureOr<TValue> Generator::genLoad(const Expr &expr) {
  auto ref = resolveElement(expr.name, expr.loc, expr.operands, /*forRead=*/true);
  if (failed(ref))
    return failure();
  Value loaded =
      isa<tile::BufferType>(ref->target.getType())
          ? tile::ReadOp::create(builder, loc(expr.loc), ref->target, ref->indices).getResult()
          : tile::LoadOp::create(builder, loc(expr.loc), ref->target, ref->indices).getResult();
  return elementValue(loaded, ref->elementType);
}

TValue Generator::elementValue(Value loaded, Type elementType) {
  if (!elementType.isUnsignedInteger(8))
    return TValue::typed(loaded);
  return TValue::typed(
      arith::ExtUIOp::create(builder, loaded.getLoc(), builder.getI32Type(), loaded));
}
