//===- MLIRGen.cpp - Semantic checks and tile-dialect generation ----------===//
//
// Walks the syntax tree once, checking names, types and compile-time values while it builds the
// `tile` dialect: every error is reported at its place in the source before any IR is returned.
//
//===----------------------------------------------------------------------===//

#include "Parser.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Frontend/Frontend.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace tlc;
using namespace tlc::frontend;
using llvm::SMLoc;
using llvm::StringRef;

namespace {

/// A value during generation: an SSA value with its type, or a compile-time constant that takes
/// the type its use needs (an integer literal is an `int`, `i32` or `f32` as the context asks).
struct TValue {
  enum Kind { Typed, IntConst, FloatConst, BoolConst };
  Kind kind = Typed;
  Value value;
  int64_t i = 0;
  double f = 0;
  bool b = false;

  static TValue typed(Value v) { return {Typed, v}; }
  static TValue intConst(int64_t v) {
    TValue t;
    t.kind = IntConst;
    t.i = v;
    return t;
  }
  static TValue floatConst(double v) {
    TValue t;
    t.kind = FloatConst;
    t.f = v;
    return t;
  }
  static TValue boolConst(bool v) {
    TValue t;
    t.kind = BoolConst;
    t.b = v;
    return t;
  }
  bool isConst() const { return kind != Typed; }
};

/// What a name stands for.
struct Symbol {
  enum Kind {
    Bound,     ///< a `let`, loop index, scalar parameter or compile-time int/bool
    Var,       ///< a `var`: `slot` is a rank-0 memref
    Tensor,    ///< a tensor parameter: argument `arg`
    Size,      ///< a size name: dimension `dim` of tensor argument `arg`
    TypeConst, ///< a compile-time `type` parameter
    Buffer,    ///< a shared, fragment or local buffer: `slot` is its tile.alloc
  };
  Kind kind = Bound;
  SMLoc loc;
  TValue value;
  Value slot;
  unsigned arg = 0, dim = 0;
  Type type;
};

/// Readable name of a type, in the language's spelling.
static std::string typeName(Type type) {
  if (type.isIndex())
    return "int";
  if (type.isUnsignedInteger(8))
    return "u8";
  if (type.isInteger(1))
    return "bool";
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + std::to_string(d);
  return s;
}

static bool isF8(Type type) { return isa<Float8E4M3FNType, Float8E5M2Type>(type); }

static bool isIntLike(Type type) {
  return type.isIndex() || (type.isSignlessInteger() && !type.isInteger(1));
}

class Generator {
public:
  Generator(const SourceLocator &locator, const tlc::FrontendOptions &options)
      : locator(locator), options(options), ctx(locator.getContext()), builder(ctx) {}

  OwningOpRef<ModuleOp> generate(const FileAST &file, SMLoc fileLoc);

private:
  // Diagnostics.
  InFlightDiagnostic error(SMLoc loc) { return locator.emitError(loc); }
  Location loc(SMLoc l) { return locator.get(l); }

  // Scopes.
  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }
  const Symbol *lookup(StringRef name) const;
  LogicalResult declare(const Name &name, Symbol symbol);

  // Types.
  FailureOr<Type> resolveType(const Name &name, bool forTensor);
  std::optional<Type> builtinType(StringRef name);

  // Kernels.
  /// Generates `decl` as one tile.kernel: specialized with the defaults and -D values, or, with
  /// `variant`, as configuration `*variant` of `configs` (named `<kernel>__<variant>`).
  LogicalResult genKernel(const KernelDecl &decl, ModuleOp module, ArrayAttr configs,
                          std::optional<unsigned> variant);
  /// Binds the compile-time parameters: a -D value, else the value in `overrides` (a
  /// configuration), else the default.
  LogicalResult bindConstParams(const KernelDecl &decl, NamedAttrList &params,
                                DictionaryAttr overrides);
  LogicalResult bindKernelScope(const KernelDecl &decl, Block &entry);
  LogicalResult checkDefines(const FileAST &file);

  // Statements.
  LogicalResult genBlock(const StmtList &stmts);
  LogicalResult genStmt(const Stmt &stmt);
  LogicalResult genBinding(const Stmt &stmt);
  LogicalResult genAssign(const Stmt &stmt);
  LogicalResult genStore(const Stmt &stmt);
  LogicalResult genIf(const Stmt &stmt);
  LogicalResult genFor(const Stmt &stmt);
  LogicalResult genParallel(const Stmt &stmt);
  LogicalResult genBuffer(const Stmt &stmt);
  LogicalResult genTileCall(const Stmt &stmt);
  LogicalResult genCopy(const Expr &call);
  LogicalResult genFill(const Expr &call);
  LogicalResult genGemm(const Expr &call);
  LogicalResult genReduce(const Expr &call);
  LogicalResult genAtomicAdd(const Expr &call);
  /// A buffer named by `expr` (a plain name), or an error.
  FailureOr<Value> genBufferRef(const Expr &expr, StringRef what);
  /// A tensor element reference `X[i, j]` (or a bare tensor name: offsets 0) as tensor + offsets.
  /// With `element`, the indices name one element (atomic_add) rather than a tile's offsets.
  FailureOr<std::pair<Value, SmallVector<Value>>> genTensorRef(const Expr &expr,
                                                               bool element = false);
  /// Keyword arguments of a tile operation: every keyword must be one of `allowed`.
  LogicalResult checkKeywords(const Expr &call, ArrayRef<StringRef> allowed, size_t positional);
  /// A keyword argument's compile-time bool (default when absent).
  FailureOr<bool> boolKeyword(const Expr &call, StringRef name, bool byDefault);
  const Expr *keyword(const Expr &call, StringRef name);
  LogicalResult checkSharedMemory(const KernelDecl &decl);
  /// The value of a constant tensor dimension or stride (a literal or an `int` parameter).
  std::optional<int64_t> constantDim(const Name &name);
  /// Checks the `configs` block and evaluates it: one dictionary per configuration (null when
  /// the kernel has no `configs`).
  FailureOr<ArrayAttr> evalConfigs(const KernelDecl &decl);
  /// Whether a -D names a parameter that one of the configurations of `decl` sets.
  const std::pair<std::string, std::string> *defineOfConfigParam(const KernelDecl &decl) const;
  /// Checks that configuration `variant` gave the kernel the same parameters as configuration 0:
  /// the variants share one launcher.
  LogicalResult checkSameSignature(const KernelDecl &decl, tile::KernelOp first,
                                   tile::KernelOp other, unsigned variant);

  // Expressions.
  FailureOr<TValue> gen(const Expr &expr);
  FailureOr<TValue> genBinary(const Expr &expr);
  FailureOr<TValue> genUnary(const Expr &expr);
  FailureOr<TValue> genCall(const Expr &expr);
  FailureOr<TValue> genLoad(const Expr &expr);
  /// A tensor or buffer element `name[indices]`: the tensor or buffer, its element type and the
  /// index values, after the name, kind and rank checks (messages for reads or writes).
  struct ElementRef {
    Value target;
    Type elementType;
    SmallVector<Value> indices;
  };
  FailureOr<ElementRef> resolveElement(StringRef name, SMLoc l,
                                       const std::vector<ExprPtr> &indices, bool forRead);
  FailureOr<TValue> genSelect(SMLoc l, const TValue &c, const TValue &a, const TValue &b);
  FailureOr<TValue> genCast(SMLoc l, const TValue &v, Type to);
  FailureOr<TValue> foldBinary(const Expr &expr, const TValue &a, const TValue &b);
  /// The error for constant `text` that does not fit in float type `type` (it would be inf).
  void emitFloatOverflow(SMLoc l, StringRef text, FloatType type);

  /// Turns `v` into an SSA value of type `to`; `what` says where, for the error message.
  FailureOr<Value> materialize(SMLoc l, const TValue &v, Type to, StringRef what);
  /// Like materialize, for a value stored into an element of type `elementType`: a u8 element
  /// takes an i32 value, truncated to its low byte.
  FailureOr<Value> materializeElement(SMLoc l, const TValue &v, Type elementType, StringRef what);
  /// The value of an element just read: u8 elements are zero-extended to i32.
  TValue elementValue(Value loaded, Type elementType);
  /// Rejects the storage-only type u8 where a value type is needed.
  LogicalResult checkValueType(Type type, SMLoc l);
  /// The common type of two operands, or an error naming both.
  FailureOr<Type> unify(SMLoc l, StringRef op, const TValue &a, const TValue &b);
  Type typeOf(const TValue &v) const;
  FailureOr<SmallVector<Value>> genIndices(const std::vector<ExprPtr> &exprs);
  /// Requires a compile-time integer.
  FailureOr<int64_t> constInt(const Expr &expr, StringRef what);

  // Thread dependence: tile operations must be reached by every thread of the block.
  /// Whether `v` is provably computed from `thread.x|y|z`: directly, through `let` and `var`
  /// values or through the index of a loop whose bounds are.
  bool dependsOnThreadId(Value v);
  /// Records the assignment of `value` to the `var` slot `slot`.
  void noteVarStore(Value slot, Value value);
  /// Rejects tile operation `name` at `l` under a thread-dependent condition.
  LogicalResult checkUniform(StringRef name, SMLoc l);

  const SourceLocator &locator;
  const tlc::FrontendOptions &options;
  MLIRContext *ctx;
  OpBuilder builder;

  std::vector<llvm::StringMap<Symbol>> scopes;
  /// The current kernel, and where its `var` slots are allocated.
  tile::KernelOp kernel;
  /// The entry block of the region being generated (grid or body).
  Block *currentEntry = nullptr;
  bool inGrid = false;
  bool inParallel = false;
  /// How many `if`/`for`/`parallel` bodies enclose the current statement.
  unsigned controlDepth = 0;
  /// Buffers of the current kernel, for the shared-memory report.
  std::vector<std::pair<Name, tile::BufferType>> buffers;
  /// Compile-time parameters of the current kernel only (for evaluating defaults).
  bool constOnly = false;

  /// The outermost `if` condition or loop bound enclosing the current statement that depends on
  /// thread ids (`what` is "condition" or "loop bound"); null `loc` when there is none.
  struct Divergence {
    SMLoc loc;
    StringRef what;
  };
  Divergence divergence;
  /// Memo of dependsOnThreadId; a `var` read is entered when it is generated, with what the
  /// variable held then.
  llvm::DenseMap<Value, bool> threadDependent;
  /// For each `var` slot of the current kernel: whether it may hold a thread-dependent value, and
  /// the control depth of its declaration.
  llvm::DenseMap<Value, std::pair<bool, unsigned>> varState;
};

} // namespace

//===----------------------------------------------------------------------===//
// Scopes and types
//===----------------------------------------------------------------------===//

const Symbol *Generator::lookup(StringRef name) const {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end())
      return &found->second;
  }
  return nullptr;
}

LogicalResult Generator::declare(const Name &name, Symbol symbol) {
  if (builtinType(name.text) || name.text == "block" || name.text == "thread")
    return error(name.loc) << "'" << name.text << "' is a reserved name", failure();
  if (const Symbol *previous = lookup(name.text)) {
    auto diag = error(name.loc) << "redefinition of '" << name.text << "'";
    diag.attachNote(loc(previous->loc)) << "'" << name.text << "' was defined here";
    return failure();
  }
  symbol.loc = name.loc;
  scopes.back()[name.text] = symbol;
  return success();
}

std::optional<Type> Generator::builtinType(StringRef name) {
  return llvm::StringSwitch<std::optional<Type>>(name)
      .Case("f64", Float64Type::get(ctx))
      .Case("f32", Float32Type::get(ctx))
      .Case("f16", Float16Type::get(ctx))
      .Case("bf16", BFloat16Type::get(ctx))
      .Case("tf32", FloatTF32Type::get(ctx))
      .Case("f8e4m3", Float8E4M3FNType::get(ctx))
      .Case("f8e5m2", Float8E5M2Type::get(ctx))
      .Case("i64", IntegerType::get(ctx, 64))
      .Case("i32", IntegerType::get(ctx, 32))
      .Case("i16", IntegerType::get(ctx, 16))
      .Case("i8", IntegerType::get(ctx, 8))
      .Case("u8", IntegerType::get(ctx, 8, IntegerType::Unsigned))
      .Case("bool", IntegerType::get(ctx, 1))
      .Case("int", IndexType::get(ctx))
      .Default(std::nullopt);
}

FailureOr<Type> Generator::resolveType(const Name &name, bool forTensor) {
  std::optional<Type> type = builtinType(name.text);
  if (!type) {
    const Symbol *symbol = lookup(name.text);
    if (symbol && symbol->kind == Symbol::TypeConst)
      type = symbol->type;
  }
  if (!type) {
    error(name.loc) << "unknown type '" << name.text
                    << "'; expected one of f64, f32, tf32, f16, bf16, f8e4m3, f8e5m2, i64, i32, "
                    << "i16, i8, bool, int"
                    << " or a 'type' parameter";
    return failure();
  }
  if (forTensor && (type->isIndex() || type->isInteger(1) || type->isTF32())) {
    error(name.loc) << "'" << name.text << "' cannot be a tensor element type; use "
                    << (type->isIndex()       ? "'i64' or 'i32'"
                        : type->isInteger(1) ? "'i8'"
                                             : "'f32' (tf32 is a tensor-core compute type)");
    return failure();
  }
  return *type;
}

Type Generator::typeOf(const TValue &v) const {
  switch (v.kind) {
  case TValue::Typed:
    return v.value.getType();
  case TValue::IntConst:
    return IndexType::get(ctx);
  case TValue::FloatConst:
    return Float32Type::get(ctx);
  case TValue::BoolConst:
    return IntegerType::get(ctx, 1);
  }
  return {};
}

FailureOr<Value> Generator::materialize(SMLoc l, const TValue &v, Type to, StringRef what) {
  Location location = loc(l);
  switch (v.kind) {
  case TValue::Typed:
    if (v.value.getType() != to) {
      error(l) << "expected '" << typeName(to) << "' " << what << ", found '"
               << typeName(v.value.getType()) << "'; convert it with " << typeName(to)
               << "(...)";
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
      APFloat::opStatus status =
          value.convertFromAPInt(APInt(64, v.i, /*isSigned=*/true), /*IsSigned=*/true,
                                 APFloat::rmNearestTiesToEven);
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

TValue Generator::elementValue(Value loaded, Type elementType) {
  if (!elementType.isUnsignedInteger(8))
    return TValue::typed(loaded);
  return TValue::typed(
      arith::ExtUIOp::create(builder, loaded.getLoc(), builder.getI32Type(), loaded));
}

LogicalResult Generator::checkValueType(Type type, SMLoc l) {
  if (isF8(type) || type.isTF32()) {
    // Code generation has no scalar f8 or tf32 arithmetic, loads or conversions yet.
    error(l) << "'" << typeName(type) << "' values (casts, typed bindings, scalar parameters) "
             << "are not supported yet; hint: compute in "
             << (type.isTF32() ? "'f32'" : "'f16', 'bf16' or 'f32'");
    return failure();
  }
  if (!type.isUnsignedInteger(8))
    return success();
  error(l) << "'u8' is a storage type for tensors and buffers; its elements are read as 'i32' "
           << "and stored from 'i32'";
  return failure();
}

FailureOr<Type> Generator::unify(SMLoc l, StringRef op, const TValue &a, const TValue &b) {
  if (!a.isConst() && !b.isConst()) {
    Type ta = a.value.getType(), tb = b.value.getType();
    if (ta != tb) {
      error(l) << "type mismatch in '" << op << "': '" << typeName(ta) << "' and '"
               << typeName(tb) << "'; convert one side, as in " << typeName(ta) << "(...)";
      return failure();
    }
    return ta;
  }
  if (!a.isConst())
    return a.value.getType();
  if (!b.isConst())
    return b.value.getType();
  // Both constants of different kinds: an int and a float make a float.
  if (a.kind == TValue::FloatConst || b.kind == TValue::FloatConst)
    return Type(Float32Type::get(ctx));
  return typeOf(a);
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

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

FailureOr<TValue> Generator::gen(const Expr &expr) {
  switch (expr.kind) {
  case Expr::IntLit:
    return TValue::intConst(expr.intValue);
  case Expr::FloatLit:
    return TValue::floatConst(expr.floatValue);
  case Expr::BoolLit:
    return TValue::boolConst(expr.boolValue);
  case Expr::Ref: {
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
                                               currentEntry->getArgument(symbol->arg),
                                               symbol->dim));
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
  if (isa<FloatType>(type))
    return TValue::typed(arith::NegFOp::create(builder, l, operand->value));
  Value zero = *materialize(expr.loc, TValue::intConst(0), type, "");
  return TValue::typed(arith::SubIOp::create(builder, l, zero, operand->value));
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
  auto overflow = [&]() -> FailureOr<TValue> {
    error(expr.loc) << "integer overflow in constant expression";
    return failure();
  };
  if (a.kind == TValue::BoolConst || b.kind == TValue::BoolConst) {
    if (a.kind != b.kind) {
      error(expr.loc) << "type mismatch in " << Token::describe(op)
                      << ": a boolean and a number";
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
    default:
      error(expr.loc) << Token::describe(op) << " cannot be applied to 'bool' values";
      return failure();
    }
  }
  if (op == Token::amp_amp || op == Token::pipe_pipe) {
    error(expr.loc) << Token::describe(op) << " needs 'bool' operands";
    return failure();
  }
  if (a.kind == TValue::IntConst && b.kind == TValue::IntConst) {
    int64_t x = a.i, y = b.i, r = 0;
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
    case Token::less:
      return TValue::boolConst(x < y);
    case Token::less_equal:
      return TValue::boolConst(x <= y);
    case Token::greater:
      return TValue::boolConst(x > y);
    case Token::greater_equal:
      return TValue::boolConst(x >= y);
    case Token::equal_equal:
      return TValue::boolConst(x == y);
    case Token::not_equal:
      return TValue::boolConst(x != y);
    default:
      break;
    }
  }
  double x = a.kind == TValue::IntConst ? double(a.i) : a.f;
  double y = b.kind == TValue::IntConst ? double(b.i) : b.f;
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
  case Token::less:
    return TValue::boolConst(x < y);
  case Token::less_equal:
    return TValue::boolConst(x <= y);
  case Token::greater:
    return TValue::boolConst(x > y);
  case Token::greater_equal:
    return TValue::boolConst(x >= y);
  case Token::equal_equal:
    return TValue::boolConst(x == y);
  case Token::not_equal:
    return TValue::boolConst(x != y);
  default:
    break;
  }
  error(expr.loc) << "unsupported operator " << Token::describe(op);
  return failure();
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

  StringRef opName = Token::describe(expr.op).drop_front().drop_back();
  auto type = unify(expr.loc, opName, *a, *b);
  if (failed(type))
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
  switch (expr.op) {
  case Token::plus:
    return TValue::typed(isFloat ? arith::AddFOp::create(builder, l, x, y).getResult()
                                 : arith::AddIOp::create(builder, l, x, y).getResult());
  case Token::minus:
    return TValue::typed(isFloat ? arith::SubFOp::create(builder, l, x, y).getResult()
                                 : arith::SubIOp::create(builder, l, x, y).getResult());
  case Token::star:
    return TValue::typed(isFloat ? arith::MulFOp::create(builder, l, x, y).getResult()
                                 : arith::MulIOp::create(builder, l, x, y).getResult());
  case Token::slash:
    return TValue::typed(isFloat ? arith::DivFOp::create(builder, l, x, y).getResult()
                                 : arith::DivSIOp::create(builder, l, x, y).getResult());
  case Token::percent:
    return TValue::typed(isFloat ? arith::RemFOp::create(builder, l, x, y).getResult()
                                 : arith::RemSIOp::create(builder, l, x, y).getResult());
  default:
    break;
  }
  error(expr.loc) << "unsupported operator '" << opName << "'";
  return failure();
}

FailureOr<TValue> Generator::genSelect(SMLoc l, const TValue &c, const TValue &a,
                                       const TValue &b) {
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
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return TValue::typed(arith::ExtFOp::create(builder, location, to, x));
    if (fromFloat.getWidth() > toFloat.getWidth())
      return TValue::typed(arith::TruncFOp::create(builder, location, to, x));
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(builder, location, builder.getF32Type(), x);
    return TValue::typed(arith::TruncFOp::create(builder, location, to, wide));
  }
  if (to.isInteger(1)) {
    if (fromFloat) {
      Value zero = *materialize(l, TValue::floatConst(0), from, "");
      return TValue::typed(
          arith::CmpFOp::create(builder, location, arith::CmpFPredicate::UNE, x, zero));
    }
    Value zero = *materialize(l, TValue::intConst(0), from, "");
    return TValue::typed(
        arith::CmpIOp::create(builder, location, arith::CmpIPredicate::ne, x, zero));
  }
  // Integers go through i64 when one side is `int` (index).
  auto toI64 = [&](Value v) -> Value {
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(builder, location, builder.getI64Type(), v);
    return v;
  };
  if (fromFloat) {
    Type target = to.isIndex() ? builder.getI64Type() : to;
    Value r = arith::FPToSIOp::create(builder, location, target, x);
    if (to.isIndex())
      r = arith::IndexCastOp::create(builder, location, to, r);
    return TValue::typed(r);
  }
  // `from` is an integer, bool or int.
  Value src = toI64(x);
  unsigned fromWidth = src.getType().getIntOrFloatBitWidth();
  bool fromBool = from.isInteger(1);
  if (toFloat) {
    if (fromBool)
      return TValue::typed(arith::UIToFPOp::create(builder, location, to, src));
    return TValue::typed(arith::SIToFPOp::create(builder, location, to, src));
  }
  Type target = to.isIndex() ? builder.getI64Type() : to;
  unsigned toWidth = target.getIntOrFloatBitWidth();
  Value r = src;
  if (fromWidth < toWidth)
    r = fromBool ? arith::ExtUIOp::create(builder, location, target, src).getResult()
                 : arith::ExtSIOp::create(builder, location, target, src).getResult();
  else if (fromWidth > toWidth)
    r = arith::TruncIOp::create(builder, location, target, src);
  if (to.isIndex())
    r = arith::IndexCastOp::create(builder, location, to, r);
  return TValue::typed(r);
}

FailureOr<TValue> Generator::genCall(const Expr &expr) {
  StringRef name = expr.name;
  auto arity = [&](size_t n) -> LogicalResult {
    if (expr.operands.size() == n)
      return success();
    error(expr.loc) << "'" << name << "' takes " << n << " argument" << (n == 1 ? "" : "s")
                    << ", got " << expr.operands.size();
    return failure();
  };
  SmallVector<TValue> args;
  auto genArgs = [&]() -> LogicalResult {
    for (const ExprPtr &operand : expr.operands) {
      auto v = gen(*operand);
      if (failed(v))
        return failure();
      args.push_back(*v);
    }
    return success();
  };

  for (const Name &k : expr.keywords)
    if (!k.text.empty()) {
      error(k.loc) << "'" << name << "' takes no keyword arguments";
      return failure();
    }
  if (name == "copy" || name == "fill" || name == "gemm" || name == "reduce" ||
      name == "atomic_add") {
    error(expr.loc) << "'" << name << "' is a statement, not a value";
    return failure();
  }
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
    if (failed(arity(1)) || failed(genArgs()))
      return failure();
    return genCast(expr.loc, args[0], *castType);
  }

  Location l = loc(expr.loc);
  if (name == "cdiv" || name == "min" || name == "max") {
    if (failed(arity(2)) || failed(genArgs()))
      return failure();
    if (args[0].kind == TValue::IntConst && args[1].kind == TValue::IntConst) {
      int64_t x = args[0].i, y = args[1].i;
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
    if (name == "cdiv" && args[1].kind == TValue::IntConst && args[1].i <= 0) {
      error(expr.operands[1]->loc) << "'cdiv' needs a positive divisor, got " << args[1].i;
      return failure();
    }
    if (args[0].isConst() && args[1].isConst() && name != "cdiv") {
      double x = args[0].kind == TValue::IntConst ? double(args[0].i) : args[0].f;
      double y = args[1].kind == TValue::IntConst ? double(args[1].i) : args[1].f;
      return TValue::floatConst(name == "min" ? std::min(x, y) : std::max(x, y));
    }
    auto type = unify(expr.loc, name, args[0], args[1]);
    if (failed(type))
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
    if (name == "cdiv")
      return TValue::typed(arith::CeilDivSIOp::create(builder, l, *x, *y));
    if (name == "min")
      return TValue::typed(isFloat ? arith::MinNumFOp::create(builder, l, *x, *y).getResult()
                                   : arith::MinSIOp::create(builder, l, *x, *y).getResult());
    return TValue::typed(isFloat ? arith::MaxNumFOp::create(builder, l, *x, *y).getResult()
                                 : arith::MaxSIOp::create(builder, l, *x, *y).getResult());
  }
  if (name == "abs") {
    if (failed(arity(1)) || failed(genArgs()))
      return failure();
    if (args[0].kind == TValue::IntConst) {
      if (args[0].i == INT64_MIN) {
        error(expr.loc) << "integer overflow in constant expression";
        return failure();
      }
      return TValue::intConst(std::abs(args[0].i));
    }
    if (args[0].kind == TValue::FloatConst)
      return TValue::floatConst(std::fabs(args[0].f));
    Type type = typeOf(args[0]);
    if (type.isInteger(1) || args[0].kind == TValue::BoolConst) {
      error(expr.loc) << "'abs' needs a number, found 'bool'";
      return failure();
    }
    Value x = args[0].value;
    if (isa<FloatType>(type))
      return TValue::typed(
          arith::MaxNumFOp::create(builder, l, x, arith::NegFOp::create(builder, l, x)));
    Value zero = *materialize(expr.loc, TValue::intConst(0), type, "");
    return TValue::typed(
        arith::MaxSIOp::create(builder, l, x, arith::SubIOp::create(builder, l, zero, x)));
  }
  static const llvm::StringLiteral mathFunctions[] = {"exp",  "exp2", "log",  "log2",
                                                      "sqrt", "rsqrt", "tanh", "erf"};
  if (llvm::is_contained(mathFunctions, name)) {
    if (failed(arity(1)) || failed(genArgs()))
      return failure();
    TValue arg = args[0];
    if (arg.kind == TValue::IntConst)
      arg = TValue::floatConst(double(arg.i));
    Type type = typeOf(arg);
    if (!isa<FloatType>(type) || type.isTF32() || isa<Float8E4M3FNType, Float8E5M2Type>(type)) {
      error(expr.operands[0]->loc) << "'" << name << "' needs an f16, bf16, f32 or f64 argument, "
                                   << "found '" << typeName(type) << "'";
      return failure();
    }
    Value x = *materialize(expr.operands[0]->loc, arg, type, "argument");
    Value r = llvm::StringSwitch<std::function<Value()>>(name)
                  .Case("exp", [&] { return math::ExpOp::create(builder, l, x).getResult(); })
                  .Case("exp2", [&] { return math::Exp2Op::create(builder, l, x).getResult(); })
                  .Case("log", [&] { return math::LogOp::create(builder, l, x).getResult(); })
                  .Case("log2", [&] { return math::Log2Op::create(builder, l, x).getResult(); })
                  .Case("sqrt", [&] { return math::SqrtOp::create(builder, l, x).getResult(); })
                  .Case("rsqrt", [&] { return math::RsqrtOp::create(builder, l, x).getResult(); })
                  .Case("tanh", [&] { return math::TanhOp::create(builder, l, x).getResult(); })
                  .Default([&] { return math::ErfOp::create(builder, l, x).getResult(); })();
    return TValue::typed(r);
  }
  if (name == "select") {
    if (failed(arity(3)) || failed(genArgs()))
      return failure();
    return genSelect(expr.loc, args[0], args[1], args[2]);
  }
  if (name == "fma") {
    // a * b + c rounded once (PTX fma.rn): the operands share one float type.
    if (failed(arity(3)) || failed(genArgs()))
      return failure();
    // The type of the non-constant arguments (all the same), f32 when all are constants.
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
    if (!isa<FloatType>(type) || type.isTF32() || isa<Float8E4M3FNType, Float8E5M2Type>(type)) {
      error(expr.loc) << "'fma' needs f16, bf16, f32 or f64 arguments, found '"
                      << typeName(type) << "'";
      return failure();
    }
    SmallVector<Value, 3> values;
    for (auto [operand, arg] : llvm::zip(expr.operands, args)) {
      auto v = materialize(operand->loc, arg, type, "argument");
      if (failed(v))
        return failure();
      values.push_back(*v);
    }
    return TValue::typed(math::FmaOp::create(builder, l, values[0], values[1], values[2]));
  }
  error(expr.loc) << "unknown function '" << name
                  << "'; available: cdiv, min, max, abs, select, fma, exp, exp2, log, log2, "
                  << "sqrt, rsqrt, tanh, erf and casts such as f32(x)";
  return failure();
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
  if (isF8(ref.elementType) || ref.elementType.isTF32()) {
    error(l) << "element access to " << what << "s of '" << typeName(ref.elementType)
             << "' is not supported yet; hint: "
             << (ref.elementType.isTF32() ? "use an 'f32' buffer"
                 : symbol->kind == Symbol::Tensor
                     ? "convert the data to 'f16' or 'bf16' on the host"
                     : "use an 'f16', 'bf16' or 'f32' buffer");
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

//===----------------------------------------------------------------------===//
// Thread dependence
//===----------------------------------------------------------------------===//

bool Generator::dependsOnThreadId(Value v) {
  auto found = threadDependent.find(v);
  if (found != threadDependent.end())
    return found->second;
  bool result = false;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // A loop index is as uniform as its bounds; other block arguments (kernel parameters,
    // `parallel` indices) are not provably thread ids.
    if (auto loop = dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp()))
      result = arg == loop.getInductionVar() &&
               (dependsOnThreadId(loop.getLowerBound()) ||
                dependsOnThreadId(loop.getUpperBound()) || dependsOnThreadId(loop.getStep()));
  } else if (isa<tile::ThreadIdOp>(v.getDefiningOp())) {
    result = true;
  } else {
    result = llvm::any_of(v.getDefiningOp()->getOperands(),
                          [&](Value operand) { return dependsOnThreadId(operand); });
  }
  threadDependent[v] = result;
  return result;
}

void Generator::noteVarStore(Value slot, Value value) {
  auto &[dependent, depth] = varState[slot];
  // A thread-dependent value, or any value stored under a thread-dependent condition, makes the
  // variable thread-dependent; a uniform value stored at the declaration's own level (not under
  // a condition or in a loop that may not run) makes it uniform again.
  if (divergence.loc.isValid() || dependsOnThreadId(value))
    dependent = true;
  else if (controlDepth == depth)
    dependent = false;
}

LogicalResult Generator::checkUniform(StringRef name, SMLoc l) {
  if (!divergence.loc.isValid())
    return success();
  auto diag = error(l) << "'" << name << "' must be reached by every thread of the block, but "
                       << "it is under a " << divergence.what << " that depends on the thread "
                       << "index; hint: tile operations act for the whole block: make the "
                       << divergence.what << " the same for every thread (from 'block.x', sizes "
                       << "or parameters) and compute per-thread values inside 'parallel'";
  diag.attachNote(loc(divergence.loc))
      << "this " << divergence.what << " depends on the thread index";
  return failure();
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

LogicalResult Generator::genBlock(const StmtList &stmts) {
  pushScope();
  llvm::scope_exit exit([&] { popScope(); });
  for (const StmtPtr &stmt : stmts)
    if (failed(genStmt(*stmt)))
      return failure();
  return success();
}

LogicalResult Generator::genStmt(const Stmt &stmt) {
  switch (stmt.kind) {
  case Stmt::Let:
  case Stmt::Var:
    return genBinding(stmt);
  case Stmt::Assign:
    return genAssign(stmt);
  case Stmt::Store:
    return genStore(stmt);
  case Stmt::If:
    return genIf(stmt);
  case Stmt::For:
    return genFor(stmt);
  case Stmt::Parallel:
    return genParallel(stmt);
  case Stmt::Buffer:
    return genBuffer(stmt);
  case Stmt::Call:
    return genTileCall(stmt);
  }
  return failure();
}

LogicalResult Generator::genBinding(const Stmt &stmt) {
  auto value = gen(*stmt.value);
  if (failed(value))
    return failure();
  Type type;
  if (stmt.type) {
    auto resolved = resolveType(*stmt.type, /*forTensor=*/false);
    if (failed(resolved) || failed(checkValueType(*resolved, stmt.type->loc)))
      return failure();
    type = *resolved;
  }
  Symbol symbol;
  if (stmt.kind == Stmt::Let) {
    symbol.kind = Symbol::Bound;
    if (type) {
      auto v = materialize(stmt.value->loc, *value, type,
                           ("for '" + stmt.name.text + "'").c_str());
      if (failed(v))
        return failure();
      symbol.value = TValue::typed(*v);
    } else {
      // An untyped constant stays a compile-time constant.
      symbol.value = *value;
    }
    return declare(stmt.name, symbol);
  }
  if (!type)
    type = typeOf(*value);
  auto init = materialize(stmt.value->loc, *value, type, ("for '" + stmt.name.text + "'").c_str());
  if (failed(init))
    return failure();
  // Slots live at the top of the kernel body, where LLVM promotes them to registers.
  Value slot;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&kernel.getBody().front());
    slot = memref::AllocaOp::create(builder, loc(stmt.loc), MemRefType::get({}, type));
  }
  memref::StoreOp::create(builder, loc(stmt.loc), *init, slot);
  varState[slot] = {false, controlDepth};
  noteVarStore(slot, *init);
  symbol.kind = Symbol::Var;
  symbol.slot = slot;
  symbol.type = type;
  return declare(stmt.name, symbol);
}

LogicalResult Generator::genAssign(const Stmt &stmt) {
  const Symbol *symbol = lookup(stmt.name.text);
  if (!symbol) {
    error(stmt.name.loc) << "unknown name '" << stmt.name.text << "'";
    return failure();
  }
  if (symbol->kind != Symbol::Var) {
    auto diag = error(stmt.name.loc) << "cannot assign to '" << stmt.name.text << "'";
    if (symbol->kind == Symbol::Tensor)
      diag << ": it is a tensor; write an element, as in '" << stmt.name.text << "[i] = ...'";
    else
      diag << ": only 'var' bindings can be assigned";
    return failure();
  }
  Value slot = symbol->slot;
  Type type = symbol->type;
  auto value = gen(*stmt.value);
  if (failed(value))
    return failure();
  auto v = materialize(stmt.value->loc, *value, type,
                       ("to assign to '" + stmt.name.text + "'").c_str());
  if (failed(v))
    return failure();
  memref::StoreOp::create(builder, loc(stmt.loc), *v, slot);
  noteVarStore(slot, *v);
  return success();
}

LogicalResult Generator::genStore(const Stmt &stmt) {
  auto ref = resolveElement(stmt.name.text, stmt.name.loc, stmt.indices, /*forRead=*/false);
  if (failed(ref))
    return failure();
  auto value = gen(*stmt.value);
  if (failed(value))
    return failure();
  auto v = materializeElement(stmt.value->loc, *value, ref->elementType,
                              ("to store into '" + stmt.name.text + "'").c_str());
  if (failed(v))
    return failure();
  if (isa<tile::BufferType>(ref->target.getType()))
    tile::WriteOp::create(builder, loc(stmt.loc), *v, ref->target, ref->indices);
  else
    tile::StoreOp::create(builder, loc(stmt.loc), *v, ref->target, ref->indices);
  return success();
}

LogicalResult Generator::genIf(const Stmt &stmt) {
  auto cond = gen(*stmt.value);
  if (failed(cond))
    return failure();
  auto c = materialize(stmt.value->loc, *cond, builder.getI1Type(), "as the condition of 'if'");
  if (failed(c))
    return failure();
  auto ifOp = scf::IfOp::create(builder, loc(stmt.loc), *c, /*withElseRegion=*/stmt.hasElse);
  Divergence outer = divergence;
  llvm::scope_exit restore([&] { divergence = outer; });
  if (!divergence.loc.isValid() && dependsOnThreadId(*c))
    divergence = {stmt.value->loc, "condition"};
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(ifOp.thenBlock());
  ++controlDepth;
  llvm::scope_exit exitDepth([&] { --controlDepth; });
  if (failed(genBlock(stmt.body)))
    return failure();
  if (stmt.hasElse) {
    builder.setInsertionPointToStart(ifOp.elseBlock());
    if (failed(genBlock(stmt.elseBody)))
      return failure();
  }
  return success();
}

LogicalResult Generator::genFor(const Stmt &stmt) {
  const Expr &call = *stmt.value;
  bool pipelined = call.name == "pipelined";
  std::optional<int64_t> stages;
  if (pipelined) {
    if (failed(checkKeywords(call, {"stages"}, 1)))
      return failure();
    const Expr *s = keyword(call, "stages");
    if (!s) {
      error(call.loc) << "'pipelined' needs 'stages = S', the number of buffers in flight";
      return failure();
    }
    auto n = constInt(*s, "'stages'");
    if (failed(n))
      return failure();
    if (*n < 1 || *n > 8) {
      error(s->loc) << "'stages' must be between 1 and 8, got " << *n;
      return failure();
    }
    stages = *n;
  } else if (failed(checkKeywords(call, {}, call.operands.size()))) {
    return failure();
  }
  SmallVector<Value> bounds;
  Value step;
  size_t n = pipelined ? 1 : call.operands.size();
  for (size_t i = 0; i < n; ++i) {
    const Expr &e = *call.operands[i];
    auto v = gen(e);
    if (failed(v))
      return failure();
    if (i == 2) {
      if (v->kind != TValue::IntConst || v->i <= 0) {
        error(e.loc) << "the step of 'range' must be a positive compile-time integer";
        return failure();
      }
    }
    auto x = materialize(e.loc, *v, builder.getIndexType(),
                         pipelined ? "in 'pipelined'" : "in 'range'");
    if (failed(x))
      return failure();
    bounds.push_back(*x);
  }
  Location l = loc(stmt.loc);
  Value lb = n == 1 ? arith::ConstantIndexOp::create(builder, l, 0).getResult() : bounds[0];
  Value ub = n == 1 ? bounds[0] : bounds[1];
  step = n == 3 ? bounds[2] : arith::ConstantIndexOp::create(builder, l, 1).getResult();
  auto loop = scf::ForOp::create(builder, l, lb, ub, step);
  Divergence outer = divergence;
  llvm::scope_exit restore([&] { divergence = outer; });
  for (size_t i = 0; i < n && !divergence.loc.isValid(); ++i)
    if (dependsOnThreadId(bounds[i]))
      divergence = {call.operands[i]->loc, "loop bound"};
  if (stages)
    loop->setAttr("tile.stages", builder.getI64IntegerAttr(*stages));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(loop.getBody());
  pushScope();
  llvm::scope_exit exit([&] { popScope(); });
  Symbol index;
  index.value = TValue::typed(loop.getInductionVar());
  if (failed(declare(stmt.names[0], index)))
    return failure();
  ++controlDepth;
  llvm::scope_exit exitDepth([&] { --controlDepth; });
  return genBlock(stmt.body);
}

LogicalResult Generator::genParallel(const Stmt &stmt) {
  if (inParallel) {
    error(stmt.loc) << "'parallel' cannot be nested in another 'parallel'";
    return failure();
  }
  SmallVector<int64_t> shape;
  int64_t points = 1;
  if (stmt.over) {
    const Symbol *symbol = lookup(stmt.over->text);
    if (!symbol || symbol->kind != Symbol::Buffer) {
      error(stmt.over->loc) << "'parallel ... in " << stmt.over->text
                            << "' needs a buffer or an index space such as '[BM, BN]'";
      return failure();
    }
    auto type = cast<tile::BufferType>(symbol->slot.getType());
    if (type.getRank() != stmt.names.size()) {
      error(stmt.loc) << "'parallel' names " << stmt.names.size() << " ind"
                      << (stmt.names.size() == 1 ? "ex" : "ices") << " but buffer '"
                      << stmt.over->text << "' has rank " << type.getRank();
      return failure();
    }
    shape.append(type.getShape().begin(), type.getShape().end());
  }
  for (const ExprPtr &e : stmt.indices) {
    auto extent = constInt(*e, "the extent of 'parallel'");
    if (failed(extent))
      return failure();
    if (*extent <= 0) {
      error(e->loc) << "the extent of 'parallel' must be positive, got " << *extent;
      return failure();
    }
    if (__builtin_mul_overflow(points, *extent, &points) || points > (int64_t(1) << 31)) {
      error(e->loc) << "the index space of 'parallel' is too large (more than 2^31 points)";
      return failure();
    }
    shape.push_back(*extent);
  }
  auto op = tile::ParallelOp::create(builder, loc(stmt.loc), builder.getDenseI64ArrayAttr(shape));
  Block *body = new Block();
  op.getBody().push_back(body);
  for (size_t i = 0; i < shape.size(); ++i)
    body->addArgument(builder.getIndexType(), loc(stmt.names[i].loc));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(body);
  pushScope();
  inParallel = true;
  ++controlDepth;
  llvm::scope_exit exit([&] {
    popScope();
    inParallel = false;
    --controlDepth;
  });
  for (size_t i = 0; i < shape.size(); ++i) {
    Symbol index;
    index.value = TValue::typed(body->getArgument(i));
    if (failed(declare(stmt.names[i], index)))
      return failure();
  }
  if (failed(genBlock(stmt.body)))
    return failure();
  tile::YieldOp::create(builder, loc(stmt.loc));
  return success();
}

//===----------------------------------------------------------------------===//
// Buffers and tile operations
//===----------------------------------------------------------------------===//

/// The sm_90 limit of shared memory per block (227 KiB).
static constexpr int64_t kMaxSharedBytes = 232448;
/// The CUDA limit of local memory per thread (512 KiB).
static constexpr int64_t kMaxLocalBytes = 512 * 1024;

LogicalResult Generator::genBuffer(const Stmt &stmt) {
  if (controlDepth != 0 || inParallel) {
    error(stmt.loc) << "buffers are declared at the top level of the kernel body, not inside "
                    << "'if', 'for' or 'parallel'";
    return failure();
  }
  tile::BufferSpace space = stmt.space.text == "shared"     ? tile::BufferSpace::Shared
                            : stmt.space.text == "fragment" ? tile::BufferSpace::Fragment
                                                            : tile::BufferSpace::Local;
  auto elementType = resolveType(*stmt.type, /*forTensor=*/false);
  if (failed(elementType))
    return failure();
  if (elementType->isIndex()) {
    error(stmt.type->loc) << "'int' cannot be a buffer element type; use 'i64' or 'i32'";
    return failure();
  }
  SmallVector<int64_t> shape;
  int64_t elements = 1;
  for (const ExprPtr &e : stmt.indices) {
    auto extent = constInt(*e, "a buffer dimension");
    if (failed(extent))
      return failure();
    if (*extent <= 0) {
      error(e->loc) << "buffer dimensions must be positive, got " << *extent;
      return failure();
    }
    if (__builtin_mul_overflow(elements, *extent, &elements) || elements > (int64_t(1) << 31)) {
      error(e->loc) << "buffer '" << stmt.name.text << "' is too large";
      return failure();
    }
    shape.push_back(*extent);
  }
  if (shape.size() > 8) {
    error(stmt.loc) << "buffers have at most 8 dimensions";
    return failure();
  }
  auto type = tile::BufferType::get(ctx, space, shape, *elementType);
  if (type.isLocal() && type.getSizeInBytes() > kMaxLocalBytes) {
    error(stmt.loc) << "local buffer '" << stmt.name.text << "' takes " << type.getSizeInBytes()
                    << " bytes per thread, more than the " << kMaxLocalBytes << " bytes (512 KiB) "
                    << "of local memory a thread may use; hint: a tile shared by the block is a "
                    << "'shared' buffer or a 'fragment'";
    return failure();
  }
  Value buffer;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&kernel.getBody().front());
    buffer = tile::AllocOp::create(builder, loc(stmt.name.loc), type);
  }
  buffers.emplace_back(stmt.name, type);
  Symbol symbol;
  symbol.kind = Symbol::Buffer;
  symbol.slot = buffer;
  return declare(stmt.name, symbol);
}

LogicalResult Generator::checkSharedMemory(const KernelDecl &decl) {
  int64_t total = 0;
  for (auto &[name, type] : buffers)
    if (type.isShared())
      total += type.getSizeInBytes();
  if (total <= kMaxSharedBytes)
    return success();
  auto diag = error(decl.name.loc) << "kernel '" << decl.name.text << "' needs " << total
                                   << " bytes of shared memory; " << kMaxSharedBytes
                                   << " bytes (227 KiB) is the per-block limit";
  for (auto &[name, type] : buffers)
    if (type.isShared())
      diag.attachNote(loc(name.loc))
          << "'" << name.text << "': " << shapeText(type.getShape()) << " "
          << typeName(type.getElementType()) << " takes " << type.getSizeInBytes() << " bytes";
  return failure();
}

const Expr *Generator::keyword(const Expr &call, StringRef name) {
  for (auto [k, operand] : llvm::zip(call.keywords, call.operands))
    if (k.text == name)
      return operand.get();
  return nullptr;
}

LogicalResult Generator::checkKeywords(const Expr &call, ArrayRef<StringRef> allowed,
                                       size_t positional) {
  size_t count = 0;
  llvm::StringMap<SMLoc> seen;
  for (const Name &k : call.keywords) {
    if (k.text.empty()) {
      ++count;
      continue;
    }
    if (!llvm::is_contained(allowed, k.text)) {
      auto diag = error(k.loc) << "'" << call.name << "' has no argument '" << k.text << "'";
      if (!allowed.empty()) {
        std::string list;
        for (StringRef a : allowed)
          list += (list.empty() ? "'" : ", '") + a.str() + "'";
        diag << "; it takes " << list;
      }
      return failure();
    }
    if (!seen.try_emplace(k.text, k.loc).second) {
      error(k.loc) << "argument '" << k.text << "' is given twice";
      return failure();
    }
  }
  if (count != positional) {
    error(call.loc) << "'" << call.name << "' takes " << positional << " positional argument"
                    << (positional == 1 ? "" : "s") << ", got " << count;
    return failure();
  }
  return success();
}

FailureOr<bool> Generator::boolKeyword(const Expr &call, StringRef name, bool byDefault) {
  const Expr *e = keyword(call, name);
  if (!e)
    return byDefault;
  auto v = gen(*e);
  if (failed(v))
    return failure();
  if (v->kind != TValue::BoolConst) {
    error(e->loc) << "'" << name << "' must be a compile-time bool";
    return failure();
  }
  return v->b;
}

FailureOr<Value> Generator::genBufferRef(const Expr &expr, StringRef what) {
  const Symbol *symbol = expr.kind == Expr::Ref ? lookup(expr.name) : nullptr;
  if (!symbol || symbol->kind != Symbol::Buffer) {
    error(expr.loc) << what << " must be a buffer (declared with shared<T>[...], "
                    << "fragment<T>[...] or local<T>[...])";
    return failure();
  }
  return symbol->slot;
}

FailureOr<std::pair<Value, SmallVector<Value>>> Generator::genTensorRef(const Expr &expr,
                                                                        bool element) {
  const Symbol *symbol =
      (expr.kind == Expr::Ref || expr.kind == Expr::Index) ? lookup(expr.name) : nullptr;
  if (!symbol || symbol->kind != Symbol::Tensor)
    return failure();
  Value tensor = kernel.getBody().front().getArgument(symbol->arg);
  auto type = cast<tile::TensorType>(tensor.getType());
  SmallVector<Value> offsets;
  if (expr.kind == Expr::Ref) {
    for (unsigned i = 0; i < type.getRank(); ++i)
      offsets.push_back(arith::ConstantIndexOp::create(builder, loc(expr.loc), 0));
    return std::make_pair(tensor, offsets);
  }
  if (expr.operands.size() != type.getRank()) {
    error(expr.loc) << "tensor '" << expr.name << "' has rank " << type.getRank()
                    << " but is indexed with " << expr.operands.size()
                    << (element ? (expr.operands.size() == 1 ? " index" : " indices")
                                : (expr.operands.size() == 1 ? " offset" : " offsets"));
    return failure();
  }
  auto indices = genIndices(expr.operands);
  if (failed(indices))
    return failure();
  return std::make_pair(tensor, *indices);
}

LogicalResult Generator::genTileCall(const Stmt &stmt) {
  const Expr &call = *stmt.value;
  StringRef name = call.name;
  bool known = name == "copy" || name == "fill" || name == "gemm" || name == "reduce" ||
               name == "atomic_add";
  if (!known) {
    const Symbol *symbol = lookup(name);
    static const llvm::StringLiteral valueFunctions[] = {
        "cdiv", "min", "max", "abs", "select", "fma", "exp", "exp2", "log", "log2", "sqrt",
        "rsqrt", "tanh", "erf"};
    if (symbol || builtinType(name) || llvm::is_contained(valueFunctions, name))
      error(call.loc) << "the value of '" << name << "(...)' is unused; bind it with 'let'";
    else
      error(call.loc) << "unknown operation '" << name
                      << "'; tile operations are copy, fill, gemm, reduce and atomic_add";
    return failure();
  }
  if (inGrid) {
    error(call.loc) << "'" << name << "' cannot appear in 'grid(...)'";
    return failure();
  }
  if (name == "atomic_add")
    return genAtomicAdd(call);
  if (inParallel) {
    error(call.loc) << "'" << name << "' is a tile operation for the whole block and cannot "
                    << "appear inside 'parallel'";
    return failure();
  }
  if (failed(checkUniform(name, call.loc)))
    return failure();
  if (name == "copy")
    return genCopy(call);
  if (name == "fill")
    return genFill(call);
  if (name == "gemm")
    return genGemm(call);
  return genReduce(call);
}

LogicalResult Generator::genCopy(const Expr &call) {
  if (failed(checkKeywords(call, {}, 2)))
    return failure();
  struct Side {
    Value value;
    SmallVector<Value> offsets;
  };
  auto side = [&](const Expr &e, StringRef what) -> FailureOr<Side> {
    const Symbol *symbol =
        (e.kind == Expr::Ref || e.kind == Expr::Index) ? lookup(e.name) : nullptr;
    if (symbol && symbol->kind == Symbol::Buffer) {
      if (e.kind == Expr::Index) {
        error(e.loc) << "a buffer is copied whole; drop the indices after '" << e.name << "'";
        return failure();
      }
      return Side{symbol->slot, {}};
    }
    if (symbol && symbol->kind == Symbol::Tensor) {
      auto ref = genTensorRef(e);
      if (failed(ref))
        return failure();
      return Side{ref->first, ref->second};
    }
    error(e.loc) << "the " << what << " of 'copy' must be a buffer or a tensor tile such as "
                 << "'A[row, col]'";
    return failure();
  };
  auto src = side(*call.operands[0], "source");
  if (failed(src))
    return failure();
  auto dst = side(*call.operands[1], "destination");
  if (failed(dst))
    return failure();
  auto srcBuffer = dyn_cast<tile::BufferType>(src->value.getType());
  auto dstBuffer = dyn_cast<tile::BufferType>(dst->value.getType());
  if (!srcBuffer && !dstBuffer) {
    error(call.loc) << "'copy' between two tensors is not supported; copy through a buffer";
    return failure();
  }
  if (srcBuffer && dstBuffer && srcBuffer.getShape() != dstBuffer.getShape()) {
    error(call.loc) << "'copy' between buffers of different shapes: ["
                    << shapeText(srcBuffer.getShape()) << "] and ["
                    << shapeText(dstBuffer.getShape()) << "]";
    return failure();
  }
  tile::BufferType buffer = srcBuffer ? srcBuffer : dstBuffer;
  Value tensor = srcBuffer ? dst->value : src->value;
  if (!(srcBuffer && dstBuffer)) {
    unsigned rank = cast<tile::TensorType>(tensor.getType()).getRank();
    if (buffer.getRank() > rank) {
      error(call.loc) << "a buffer of rank " << buffer.getRank()
                      << " cannot be copied to or from a tensor of rank " << rank;
      return failure();
    }
    // Code generation cannot convert f8 values yet; an f8 tile copied into an f8 buffer (a
    // tensor-core input) is left to code generation, which reports what it does not support.
    Type tensorElement = cast<tile::TensorType>(tensor.getType()).getElementType();
    if (isF8(tensorElement) && tensorElement != buffer.getElementType()) {
      const Expr &e = *call.operands[srcBuffer ? 1 : 0];
      error(e.loc) << "'copy' between a tensor of '" << typeName(tensorElement)
                   << "' and a buffer of '" << typeName(buffer.getElementType())
                   << "' is not supported yet (it converts the elements); hint: convert the data "
                   << "to 'f16' or 'bf16' on the host";
      return failure();
    }
  }
  tile::CopyOp::create(builder, loc(call.loc), src->value, src->offsets, dst->value,
                       dst->offsets);
  return success();
}

LogicalResult Generator::genFill(const Expr &call) {
  if (failed(checkKeywords(call, {}, 2)))
    return failure();
  auto buffer = genBufferRef(*call.operands[0], "the first argument of 'fill'");
  if (failed(buffer))
    return failure();
  auto value = gen(*call.operands[1]);
  if (failed(value))
    return failure();
  Type elementType = cast<tile::BufferType>(buffer->getType()).getElementType();
  auto v = materializeElement(call.operands[1]->loc, *value, elementType, "to fill the buffer");
  if (failed(v))
    return failure();
  tile::FillOp::create(builder, loc(call.loc), *buffer, *v);
  return success();
}

LogicalResult Generator::genGemm(const Expr &call) {
  if (failed(checkKeywords(call, {"transpose_a", "transpose_b", "clear"}, 3)))
    return failure();
  auto a = genBufferRef(*call.operands[0], "A of 'gemm'");
  if (failed(a))
    return failure();
  auto b = genBufferRef(*call.operands[1], "B of 'gemm'");
  if (failed(b))
    return failure();
  auto c = genBufferRef(*call.operands[2], "the accumulator of 'gemm'");
  if (failed(c))
    return failure();
  auto ta = boolKeyword(call, "transpose_a", false);
  auto tb = boolKeyword(call, "transpose_b", false);
  auto clear = boolKeyword(call, "clear", false);
  if (failed(ta) || failed(tb) || failed(clear))
    return failure();
  auto at = cast<tile::BufferType>(a->getType()), bt = cast<tile::BufferType>(b->getType()),
       ct = cast<tile::BufferType>(c->getType());
  auto shape = [](tile::BufferType t) { return "[" + shapeText(t.getShape()) + "]"; };
  if (at.getRank() != 2 || bt.getRank() != 2 || ct.getRank() != 2) {
    error(call.loc) << "'gemm' multiplies rank-2 buffers; got A " << shape(at) << ", B "
                    << shape(bt) << ", C " << shape(ct);
    return failure();
  }
  if (!ct.isFragment()) {
    error(call.operands[2]->loc) << "the accumulator of 'gemm' must be a fragment, got a "
                                 << tile::stringifyBufferSpace(ct.getSpace()) << " buffer";
    return failure();
  }
  if (!bt.isShared()) {
    error(call.operands[1]->loc) << "B of 'gemm' must be in shared memory, got a "
                                 << tile::stringifyBufferSpace(bt.getSpace()) << " buffer";
    return failure();
  }
  if (at.isLocal()) {
    error(call.operands[0]->loc) << "A of 'gemm' must be in shared memory or a fragment";
    return failure();
  }
  int64_t m = *ta ? at.getShape()[1] : at.getShape()[0];
  int64_t ka = *ta ? at.getShape()[0] : at.getShape()[1];
  int64_t kb = *tb ? bt.getShape()[1] : bt.getShape()[0];
  int64_t n = *tb ? bt.getShape()[0] : bt.getShape()[1];
  if (ka != kb) {
    error(call.loc) << "'gemm' of A " << shape(at) << (*ta ? " (transposed)" : "") << " and B "
                    << shape(bt) << (*tb ? " (transposed)" : "") << ": the inner dimensions "
                    << ka << " and " << kb << " differ";
    return failure();
  }
  if (ct.getShape()[0] != m || ct.getShape()[1] != n) {
    error(call.loc) << "'gemm' of A " << shape(at) << " and B " << shape(bt) << " gives [" << m
                    << "x" << n << "], but the accumulator is " << shape(ct);
    return failure();
  }
  Type ea = at.getElementType(), eb = bt.getElementType(), ec = ct.getElementType();
  if (ea != eb) {
    error(call.loc) << "A and B of 'gemm' must have the same element type, got '" << typeName(ea)
                    << "' and '" << typeName(eb) << "'";
    return failure();
  }
  bool tensorCore = ea.isF16() || ea.isBF16() || ea.isTF32() || ea.isSignlessInteger(8) ||
                    isa<Float8E4M3FNType, Float8E5M2Type>(ea);
  if (!tensorCore) {
    error(call.loc) << "tensor cores do not take '" << typeName(ea)
                    << "' inputs; use f16, bf16, tf32, f8e4m3, f8e5m2 or i8";
    return failure();
  }
  bool accOk = ea.isF16() ? (ec.isF32() || ec.isF16())
               : ea.isSignlessInteger(8) ? ec.isInteger(32)
                                 : ec.isF32();
  if (!accOk) {
    error(call.operands[2]->loc) << "an accumulator of '" << typeName(ec)
                                 << "' cannot hold products of '" << typeName(ea) << "'; use "
                                 << (ea.isInteger(8) ? "i32" : "f32");
    return failure();
  }
  auto op = tile::GemmOp::create(builder, loc(call.loc), *a, *b, *c);
  if (*ta)
    op.setTransposeA(true);
  if (*tb)
    op.setTransposeB(true);
  if (*clear)
    op.setClear(true);
  return success();
}

LogicalResult Generator::genReduce(const Expr &call) {
  if (failed(checkKeywords(call, {"dim", "op", "init", "accumulate", "clear"}, 2)))
    return failure();
  auto src = genBufferRef(*call.operands[0], "the source of 'reduce'");
  if (failed(src))
    return failure();
  auto dst = genBufferRef(*call.operands[1], "the destination of 'reduce'");
  if (failed(dst))
    return failure();
  auto st = cast<tile::BufferType>(src->getType()), dt = cast<tile::BufferType>(dst->getType());
  int64_t dim = static_cast<int64_t>(st.getRank()) - 1;
  if (const Expr *d = keyword(call, "dim")) {
    auto v = constInt(*d, "'dim'");
    if (failed(v))
      return failure();
    if (*v < 0 || *v >= static_cast<int64_t>(st.getRank())) {
      error(d->loc) << "'dim' = " << *v << " is out of range for a buffer of rank "
                    << st.getRank();
      return failure();
    }
    dim = *v;
  }
  std::string kind = "sum";
  if (const Expr *o = keyword(call, "op")) {
    if (o->kind != Expr::Ref || !(o->name == "sum" || o->name == "max" || o->name == "min")) {
      error(o->loc) << "'op' must be sum, max or min";
      return failure();
    }
    kind = o->name;
  }
  auto accumulate = boolKeyword(call, "accumulate", false);
  auto clear = boolKeyword(call, "clear", true);
  if (failed(accumulate) || failed(clear))
    return failure();
  if (keyword(call, "accumulate") && keyword(call, "clear") && *accumulate == *clear) {
    error(call.loc) << "'accumulate' and 'clear' contradict each other; give one";
    return failure();
  }
  bool acc = *accumulate || !*clear;
  Value init;
  if (const Expr *i = keyword(call, "init")) {
    auto v = genBufferRef(*i, "'init'");
    if (failed(v))
      return failure();
    if (acc) {
      error(i->loc) << "'init' and 'accumulate' cannot be combined";
      return failure();
    }
    if (v->getType() != dt) {
      error(i->loc) << "'init' must have the destination's shape and type";
      return failure();
    }
    init = *v;
  }
  SmallVector<int64_t> expected(st.getShape());
  expected.erase(expected.begin() + dim);
  if (expected.empty())
    expected.push_back(1);
  if (dt.getShape() != ArrayRef<int64_t>(expected)) {
    error(call.loc) << "reducing [" << shapeText(st.getShape()) << "] along dim " << dim
                    << " gives [" << shapeText(expected) << "], but the destination is ["
                    << shapeText(dt.getShape()) << "]";
    return failure();
  }
  if (st.getElementType().isUnsignedInteger(8)) {
    error(call.loc) << "'reduce' does not take 'u8' buffers; copy the tile into an 'i32' buffer "
                    << "first";
    return failure();
  }
  if (st.getElementType() != dt.getElementType()) {
    error(call.loc) << "'reduce' from '" << typeName(st.getElementType()) << "' into '"
                    << typeName(dt.getElementType()) << "': element types must match";
    return failure();
  }
  auto op = tile::ReduceOp::create(builder, loc(call.loc), *src, *dst, init,
                                   builder.getI64IntegerAttr(dim), builder.getStringAttr(kind),
                                   acc ? builder.getUnitAttr() : UnitAttr());
  (void)op;
  return success();
}

LogicalResult Generator::genAtomicAdd(const Expr &call) {
  if (failed(checkKeywords(call, {}, 2)))
    return failure();
  const Expr &target = *call.operands[0];
  const Symbol *symbol = target.kind == Expr::Index ? lookup(target.name) : nullptr;
  if (!symbol || symbol->kind != Symbol::Tensor) {
    error(target.loc) << "the first argument of 'atomic_add' must be a tensor element such as "
                      << "'C[i, j]'";
    return failure();
  }
  auto ref = genTensorRef(target, /*element=*/true);
  if (failed(ref))
    return failure();
  auto value = gen(*call.operands[1]);
  if (failed(value))
    return failure();
  Type elementType = cast<tile::TensorType>(ref->first.getType()).getElementType();
  if (isa<Float8E4M3FNType, Float8E5M2Type>(elementType) || elementType.isInteger(8) ||
      elementType.isInteger(16)) {
    error(target.loc) << "'atomic_add' does not support '" << typeName(elementType)
                      << "' tensors";
    return failure();
  }
  auto v = materialize(call.operands[1]->loc, *value, elementType, "to add");
  if (failed(v))
    return failure();
  tile::AtomicAddOp::create(builder, loc(call.loc), *v, ref->first, ref->second);
  return success();
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// Parses a `-D` value as a compile-time parameter of the given kind.
static std::optional<TValue> parseDefine(StringRef text, ConstParamDecl::Kind kind) {
  text = text.trim();
  if (kind == ConstParamDecl::Int) {
    int64_t value;
    if (text.getAsInteger(10, value))
      return std::nullopt;
    return TValue::intConst(value);
  }
  if (kind == ConstParamDecl::Bool) {
    if (text == "true" || text == "1")
      return TValue::boolConst(true);
    if (text == "false" || text == "0")
      return TValue::boolConst(false);
    return std::nullopt;
  }
  return std::nullopt;
}

static StringRef kindName(ConstParamDecl::Kind kind) {
  return kind == ConstParamDecl::Int ? "int" : kind == ConstParamDecl::Bool ? "bool" : "type";
}

LogicalResult Generator::checkDefines(const FileAST &file) {
  for (const auto &[name, value] : options.defines) {
    bool found = false;
    for (const auto &kernel : file.kernels)
      for (const ConstParamDecl &param : kernel->constParams)
        found |= param.name.text == name;
    if (found)
      continue;
    // A command-line error: no place in the source is wrong.
    auto diag = emitError(getCommandLineLoc(builder.getContext()))
                << "'-D " << name << "=" << value << "' names no compile-time parameter of "
                << (file.kernels.size() == 1 ? "kernel '" + file.kernels.front()->name.text + "'"
                                             : std::string("any kernel"));
    std::string known;
    for (const auto &kernel : file.kernels)
      for (const ConstParamDecl &param : kernel->constParams)
        known += (known.empty() ? "'" : ", '") + param.name.text + "'";
    if (known.empty())
      diag.attachNote() << "the file declares no compile-time parameters";
    else
      diag.attachNote() << "compile-time parameters: " << known;
    return failure();
  }
  return success();
}

LogicalResult Generator::bindConstParams(const KernelDecl &decl, NamedAttrList &params,
                                         DictionaryAttr overrides) {
  constOnly = true;
  llvm::scope_exit exit([&] { constOnly = false; });
  for (const ConstParamDecl &param : decl.constParams) {
    const std::string *define = nullptr;
    for (const auto &[name, value] : options.defines)
      if (name == param.name.text)
        define = &value; // the last -D wins
    Symbol symbol;
    if (param.kind == ConstParamDecl::Type) {
      symbol.kind = Symbol::TypeConst;
      std::optional<Type> type;
      if (define) {
        type = builtinType(*define);
        if (!type || type->isIndex() || type->isInteger(1)) {
          error(param.name.loc) << "'-D " << param.name.text << "=" << *define
                                << "' does not name a data type (f64, f32, f16, bf16, i64, "
                                << "i32, i16, i8)";
          return failure();
        }
      } else if (Attribute given = overrides ? overrides.get(param.name.text) : Attribute()) {
        type = cast<TypeAttr>(given).getValue();
      } else if (param.defaultValue) {
        const Expr &e = *param.defaultValue;
        if (e.kind != Expr::Ref) {
          error(e.loc) << "the default of type parameter '" << param.name.text
                       << "' must be a type name";
          return failure();
        }
        auto resolved = resolveType(Name{e.name, e.loc}, /*forTensor=*/true);
        if (failed(resolved))
          return failure();
        type = *resolved;
      }
      if (!type) {
        error(param.name.loc) << "compile-time parameter '" << param.name.text
                              << "' has no default; give it with -D " << param.name.text
                              << "=<type>";
        return failure();
      }
      symbol.type = *type;
      params.append(param.name.text, TypeAttr::get(*type));
    } else {
      std::optional<TValue> value;
      if (define) {
        value = parseDefine(*define, param.kind);
        if (!value) {
          error(param.name.loc) << "'-D " << param.name.text << "=" << *define
                                << "' does not parse as '" << kindName(param.kind) << "'";
          return failure();
        }
      } else if (Attribute given = overrides ? overrides.get(param.name.text) : Attribute()) {
        if (param.kind == ConstParamDecl::Int)
          value = TValue::intConst(cast<IntegerAttr>(given).getInt());
        else
          value = TValue::boolConst(cast<BoolAttr>(given).getValue());
      } else if (param.defaultValue) {
        auto v = gen(*param.defaultValue);
        if (failed(v))
          return failure();
        TValue::Kind want =
            param.kind == ConstParamDecl::Int ? TValue::IntConst : TValue::BoolConst;
        if (v->kind != want) {
          error(param.defaultValue->loc)
              << "the default of '" << param.name.text << "' must be a compile-time '"
              << kindName(param.kind) << "'";
          return failure();
        }
        value = *v;
      } else {
        error(param.name.loc) << "compile-time parameter '" << param.name.text
                              << "' has no default; give it with -D " << param.name.text
                              << "=<value>";
        return failure();
      }
      symbol.value = *value;
      if (param.kind == ConstParamDecl::Int)
        params.append(param.name.text, builder.getI64IntegerAttr(value->i));
      else
        params.append(param.name.text, builder.getBoolAttr(value->b));
    }
    if (failed(declare(param.name, symbol)))
      return failure();
  }
  return success();
}

LogicalResult Generator::bindKernelScope(const KernelDecl &decl, Block &entry) {
  for (auto [index, param] : llvm::enumerate(decl.params)) {
    Symbol symbol;
    if (param.isTensor) {
      symbol.kind = Symbol::Tensor;
      symbol.arg = index;
    } else {
      symbol.value = TValue::typed(entry.getArgument(index));
    }
    if (failed(declare(param.name, symbol)))
      return failure();
  }
  for (auto [index, param] : llvm::enumerate(decl.params)) {
    for (auto [dim, size] : llvm::enumerate(param.dims)) {
      if (constantDim(size))
        continue;
      if (const Symbol *existing = lookup(size.text)) {
        if (existing->kind == Symbol::Size)
          continue; // a size shared by several tensors
        return declare(size, Symbol());
      }
      Symbol symbol;
      symbol.kind = Symbol::Size;
      symbol.arg = index;
      symbol.dim = dim;
      if (failed(declare(size, symbol)))
        return failure();
    }
  }
  return success();
}

LogicalResult Generator::genKernel(const KernelDecl &decl, ModuleOp module, ArrayAttr configs,
                                   std::optional<unsigned> variant) {
  pushScope();
  llvm::scope_exit exit([&] { popScope(); });
  NamedAttrList params;
  DictionaryAttr overrides = variant ? cast<DictionaryAttr>(configs[*variant]) : DictionaryAttr();
  if (failed(bindConstParams(decl, params, overrides)))
    return failure();

  // Parameter types and names.
  SmallVector<Type> argTypes;
  SmallVector<Attribute> argNames, dimNames, strideNames;
  buffers.clear();
  divergence = {};
  threadDependent.clear();
  varState.clear();
  for (const ParamDecl &param : decl.params) {
    auto type = resolveType(param.dtype, param.isTensor);
    if (failed(type) || (!param.isTensor && failed(checkValueType(*type, param.dtype.loc))))
      return failure();
    if (param.isTensor) {
      if (param.dims.size() > 8) {
        error(param.name.loc) << "tensors have at most 8 dimensions";
        return failure();
      }
      argTypes.push_back(tile::TensorType::get(ctx, *type, param.dims.size()));
    } else {
      // The launch ABI (docs/abi.md) passes f32, f64, i32, i64 and bool scalars, and `int` as
      // i64; narrower types have no launcher type.
      bool narrow = type->isF16() || type->isBF16() || type->isInteger(8) || type->isInteger(16);
      if (narrow) {
        error(param.dtype.loc) << "scalar parameter '" << param.name.text << "' cannot have type '"
                               << typeName(*type) << "'; scalar parameters are f32, f64, i32, "
                               << "i64, int or bool (convert inside the kernel)";
        return failure();
      }
      argTypes.push_back(*type);
    }
    argNames.push_back(builder.getStringAttr(param.name.text));
    SmallVector<Attribute> dims, strides;
    for (const Name &dim : param.dims) {
      std::optional<int64_t> value = constantDim(dim);
      if (value && *value < 0) {
        error(dim.loc) << "a tensor size cannot be negative, got " << *value;
        return failure();
      }
      dims.push_back(builder.getStringAttr(value ? std::to_string(*value) : dim.text));
    }
    for (const Name &stride : param.strides) {
      std::optional<int64_t> value = constantDim(stride);
      if (!value && (builtinType(stride.text) || stride.text == "block" ||
                     stride.text == "thread")) {
        error(stride.loc) << "'" << stride.text << "' is a reserved name";
        return failure();
      }
      if (!value) {
        const Symbol *existing = lookup(stride.text);
        bool isSize = llvm::any_of(decl.params, [&](const ParamDecl &p) {
          return llvm::any_of(p.dims, [&](const Name &d) { return d.text == stride.text; });
        });
        bool isParam = llvm::any_of(decl.params,
                                    [&](const ParamDecl &p) { return p.name.text == stride.text; });
        if (existing || isSize || isParam) {
          error(stride.loc) << "stride name '" << stride.text
                            << "' is already used; strides need names of their own";
          return failure();
        }
      }
      strides.push_back(builder.getStringAttr(value ? std::to_string(*value) : stride.text));
    }
    dimNames.push_back(builder.getArrayAttr(dims));
    strideNames.push_back(builder.getArrayAttr(strides));
  }

  builder.setInsertionPointToEnd(module.getBody());
  std::string symbol = decl.name.text;
  if (variant)
    symbol += "__" + std::to_string(*variant);
  kernel = tile::KernelOp::create(
      builder, loc(decl.name.loc), builder.getStringAttr(symbol),
      builder.getDenseI64ArrayAttr({1, 1, 1}), builder.getArrayAttr(argNames),
      builder.getArrayAttr(dimNames), params.getDictionary(ctx));
  if (llvm::any_of(decl.params, [](const ParamDecl &p) { return !p.strides.empty(); }))
    kernel->setAttr("strides", builder.getArrayAttr(strideNames));
  if (configs)
    kernel->setAttr("configs", configs);
  if (variant) {
    kernel->setAttr("variant_of", builder.getStringAttr(decl.name.text));
    kernel->setAttr("variant", builder.getI64IntegerAttr(*variant));
  }
  SmallVector<Location> argLocs;
  for (const ParamDecl &param : decl.params)
    argLocs.push_back(loc(param.name.loc));
  Block *grid = builder.createBlock(&kernel.getGrid(), {}, argTypes, argLocs);
  Block *body = builder.createBlock(&kernel.getBody(), {}, argTypes, argLocs);

  pushScope();
  llvm::scope_exit exitParams([&] { popScope(); });
  if (failed(bindKernelScope(decl, *body)))
    return failure();

  // Threads: compile-time, at most 1024, whole warps.
  builder.setInsertionPointToStart(body);
  currentEntry = body;
  SmallVector<int64_t> threads;
  for (const ExprPtr &e : decl.threads) {
    auto n = constInt(*e, "a thread count");
    if (failed(n))
      return failure();
    if (*n < 1 || *n > 1024) {
      error(e->loc) << "a thread count must be between 1 and 1024, got " << *n;
      return failure();
    }
    threads.push_back(*n);
  }
  int64_t total = 1;
  for (int64_t t : threads)
    total *= t;
  if (total > 1024 || total % 32 != 0) {
    error(decl.threadsLoc) << "a block has " << total << " threads; it must be a multiple of 32 "
                           << "(whole warps) and at most 1024";
    return failure();
  }
  threads.resize(3, 1);
  kernel.setThreads(threads);


  // The grid, computed on the host.
  {
    builder.setInsertionPointToStart(grid);
    currentEntry = grid;
    inGrid = true;
    llvm::scope_exit exitGrid([&] { inGrid = false; });
    // Scalar parameters are the grid block's own arguments.
    pushScope();
    llvm::scope_exit exitGridScope([&] { popScope(); });
    for (auto [index, param] : llvm::enumerate(decl.params)) {
      if (param.isTensor)
        continue;
      Symbol symbol;
      symbol.value = TValue::typed(grid->getArgument(index));
      scopes.back()[param.name.text] = symbol;
    }
    SmallVector<Value> sizes;
    for (const ExprPtr &e : decl.grid) {
      auto v = gen(*e);
      if (failed(v))
        return failure();
      // A grid size that folds to a negative constant or zero can never be launched.
      if (v->kind == TValue::IntConst && v->i <= 0) {
        auto diag = error(e->loc) << "a grid size must be positive, got " << v->i;
        diag.attachNote() << "hint: the grid counts blocks; compute it from sizes, as in "
                          << "'grid(cdiv(N, BN))'";
        return failure();
      }
      auto x = materialize(e->loc, *v, builder.getIndexType(), "as a grid size");
      if (failed(x))
        return failure();
      sizes.push_back(*x);
    }
    while (sizes.size() < 3)
      sizes.push_back(arith::ConstantIndexOp::create(builder, loc(decl.gridLoc), 1));
    tile::YieldOp::create(builder, loc(decl.gridLoc), sizes);
  }

  // The body, on the device.
  builder.setInsertionPointToStart(body);
  currentEntry = body;
  if (failed(genBlock(decl.body)))
    return failure();
  builder.setInsertionPointToEnd(body);
  tile::YieldOp::create(builder, loc(decl.name.loc));
  return checkSharedMemory(decl);
}

std::optional<int64_t> Generator::constantDim(const Name &name) {
  int64_t value;
  if (!StringRef(name.text).getAsInteger(10, value))
    return value;
  const Symbol *symbol = lookup(name.text);
  if (symbol && symbol->kind == Symbol::Bound && symbol->value.kind == TValue::IntConst)
    return symbol->value.i;
  return std::nullopt;
}

/// The first reference to a compile-time parameter of `decl` in `expr`, or null.
static const Expr *findParamRef(const Expr &expr, const KernelDecl &decl) {
  if (expr.kind == Expr::Ref)
    for (const ConstParamDecl &param : decl.constParams)
      if (param.name.text == expr.name)
        return &expr;
  for (const ExprPtr &operand : expr.operands)
    if (const Expr *found = operand ? findParamRef(*operand, decl) : nullptr)
      return found;
  return nullptr;
}

FailureOr<ArrayAttr> Generator::evalConfigs(const KernelDecl &decl) {
  if (decl.configs.empty())
    return ArrayAttr();
  // The values are constants of their own: no parameter of the kernel is in scope.
  std::vector<llvm::StringMap<Symbol>> savedScopes;
  std::swap(savedScopes, scopes);
  pushScope();
  constOnly = true;
  llvm::scope_exit exit([&] {
    constOnly = false;
    std::swap(savedScopes, scopes);
  });
  SmallVector<Attribute> configs;
  for (const auto &config : decl.configs) {
    NamedAttrList entries;
    llvm::StringMap<SMLoc> seen;
    for (const auto &[name, expr] : config) {
      const ConstParamDecl *param = nullptr;
      for (const ConstParamDecl &p : decl.constParams)
        if (p.name.text == name.text)
          param = &p;
      if (!param) {
        error(name.loc) << "'" << name.text << "' is not a compile-time parameter of kernel '"
                        << decl.name.text << "'";
        return failure();
      }
      if (!seen.try_emplace(name.text, name.loc).second) {
        error(name.loc) << "'" << name.text << "' is given twice in one configuration";
        return failure();
      }
      if (param->kind == ConstParamDecl::Type) {
        std::optional<Type> type =
            expr->kind == Expr::Ref ? builtinType(expr->name) : std::optional<Type>();
        if (!type || type->isIndex() || type->isInteger(1)) {
          error(expr->loc) << "'" << name.text << "' is a type parameter; give a data type";
          return failure();
        }
        entries.append(name.text, TypeAttr::get(*type));
        continue;
      }
      if (const Expr *ref = findParamRef(*expr, decl)) {
        error(ref->loc) << "the values of a configuration are constants; '" << ref->name
                        << "' is a compile-time parameter";
        return failure();
      }
      auto value = gen(*expr);
      if (failed(value))
        return failure();
      bool isInt = param->kind == ConstParamDecl::Int;
      if (value->kind != (isInt ? TValue::IntConst : TValue::BoolConst)) {
        error(expr->loc) << "'" << name.text << "' needs a compile-time '"
                         << (isInt ? "int" : "bool") << "'";
        return failure();
      }
      entries.append(name.text, isInt ? Attribute(builder.getI64IntegerAttr(value->i))
                                      : Attribute(builder.getBoolAttr(value->b)));
    }
    configs.push_back(entries.getDictionary(ctx));
  }
  return builder.getArrayAttr(configs);
}

const std::pair<std::string, std::string> *
Generator::defineOfConfigParam(const KernelDecl &decl) const {
  for (const auto &define : options.defines)
    for (const auto &config : decl.configs)
      for (const auto &entry : config)
        if (entry.first.text == define.first)
          return &define;
  return nullptr;
}

/// "tensor<f32>[M, N]" or "f32", for messages.
static std::string signatureText(tile::KernelOp kernel, unsigned index) {
  Type type = kernel.getArgumentTypes()[index];
  auto tensor = dyn_cast<tile::TensorType>(type);
  if (!tensor)
    return typeName(type);
  std::string text = "tensor<" + typeName(tensor.getElementType()) + ">[";
  for (auto [i, dim] : llvm::enumerate(cast<ArrayAttr>(kernel.getDimNames()[index])))
    text += (i ? ", " : "") + cast<StringAttr>(dim).str();
  text += "]";
  if (auto strides = kernel->getAttrOfType<ArrayAttr>("strides")) {
    auto list = cast<ArrayAttr>(strides[index]);
    if (!list.empty()) {
      text += " strides [";
      for (auto [i, stride] : llvm::enumerate(list))
        text += (i ? ", " : "") + cast<StringAttr>(stride).str();
      text += "]";
    }
  }
  return text;
}

LogicalResult Generator::checkSameSignature(const KernelDecl &decl, tile::KernelOp first,
                                            tile::KernelOp other, unsigned variant) {
  for (auto [index, param] : llvm::enumerate(decl.params)) {
    std::string a = signatureText(first, index), b = signatureText(other, index);
    if (a == b)
      continue;
    error(param.name.loc) << "configuration " << variant << " makes parameter '"
                          << param.name.text << "' " << b << " where configuration 0 makes it "
                          << a << "; the configurations of a kernel share one launcher and "
                          << "must agree on its parameters (choose this one with -D instead)";
    return failure();
  }
  return success();
}

OwningOpRef<ModuleOp> Generator::generate(const FileAST &file, SMLoc fileLoc) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc(fileLoc));
  if (failed(checkDefines(file)))
    return nullptr;
  // Every kernel's name, for the names of configurations' kernels (`<kernel>__<i>`).
  llvm::StringMap<SMLoc> declared;
  for (const auto &decl : file.kernels)
    declared.try_emplace(decl->name.text, decl->name.loc);
  llvm::StringMap<SMLoc> names;
  for (const auto &decl : file.kernels) {
    auto [it, inserted] = names.try_emplace(decl->name.text, decl->name.loc);
    if (!inserted) {
      auto diag = error(decl->name.loc) << "redefinition of kernel '" << decl->name.text << "'";
      diag.attachNote(loc(it->second)) << "previous definition is here";
      return nullptr;
    }
    auto configs = evalConfigs(*decl);
    if (failed(configs))
      return nullptr;
    // Without configurations, or with a -D fixing one of their parameters: one kernel, the
    // defaults and -D values.
    if (!*configs || defineOfConfigParam(*decl)) {
      if (failed(genKernel(*decl, *module, *configs, std::nullopt)))
        return nullptr;
      continue;
    }
    // One kernel per configuration, `<kernel>__<i>`; any error in one is located in the source
    // as usual, with a note pointing at the configuration.
    tile::KernelOp first;
    for (unsigned i = 0, e = configs->size(); i != e; ++i) {
      std::string symbol = decl->name.text + "__" + std::to_string(i);
      if (auto it = declared.find(symbol); it != declared.end()) {
        auto diag = error(decl->configLocs[i])
                    << "configuration " << i << " of kernel '" << decl->name.text
                    << "' is compiled as kernel '" << symbol << "', which is already defined";
        diag.attachNote(loc(it->second)) << "'" << symbol << "' is defined here";
        return nullptr;
      }
      Location configLoc = loc(decl->configLocs[i]);
      ScopedDiagnosticHandler inConfig(ctx, [&, i](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error ||
            diag.getSeverity() == DiagnosticSeverity::Warning)
          diag.attachNote(configLoc) << "in configuration " << i;
        return failure(); // reported by the handler below
      });
      if (failed(genKernel(*decl, *module, *configs, i)))
        return nullptr;
      if (!first)
        first = kernel;
      else if (failed(checkSameSignature(*decl, first, kernel, i)))
        return nullptr;
    }
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

Location tlc::getCommandLineLoc(MLIRContext *context) {
  return NameLoc::get(StringAttr::get(context, "tlc"));
}

void tlc::registerFrontendDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                  memref::MemRefDialect>();
}

OwningOpRef<ModuleOp> tlc::importTileFile(llvm::SourceMgr &sourceMgr, MLIRContext *context,
                                          const FrontendOptions &options) {
  DialectRegistry registry;
  registerFrontendDialects(registry);
  context->appendDialectRegistry(registry);
  context->loadAllAvailableDialects();

  unsigned bufferId = sourceMgr.getMainFileID();
  StringRef buffer = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  SourceLocator locator(sourceMgr, bufferId, context);
  auto ast = parseFile(buffer, locator);
  if (failed(ast))
    return nullptr;
  Generator generator(locator, options);
  return generator.generate(*ast, SMLoc::getFromPointer(buffer.data()));
}
