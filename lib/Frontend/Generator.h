//===- Generator.h - The frontend's checker and tile-dialect builder ------===//
//
// The private interface shared by the frontend's generation files: `Generator` walks the syntax
// tree once, checking names, types and compile-time values while it builds the `tile` dialect.
// Its members are defined by job: names, scopes and types (Sema.cpp), compile-time values
// (ConstantFolding.cpp), expressions (Expressions.cpp), statements and buffers (Statements.cpp),
// tile operations (TileStatements.cpp), and the specialization of kernels for their compile-time
// parameters and configurations (Specialization.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TLC_LIB_FRONTEND_GENERATOR_H
#define TLC_LIB_FRONTEND_GENERATOR_H

#include "Parser.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Frontend/Frontend.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tlc::frontend {

using llvm::SMLoc;
using mlir::ArrayAttr;
using mlir::ArrayRef;
using mlir::Block;
using mlir::DictionaryAttr;
using mlir::FailureOr;
using mlir::FloatType;
using mlir::InFlightDiagnostic;
using mlir::Location;
using mlir::LogicalResult;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::NamedAttrList;
using mlir::OpBuilder;
using mlir::OwningOpRef;
using mlir::SmallVector;
using mlir::StringRef;
using mlir::Type;
using mlir::Value;

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
std::string typeName(Type type);
/// "128x64", for messages.
std::string shapeText(ArrayRef<int64_t> shape);

/// Whether `type` is one of the f8 types.
inline bool isF8(Type type) {
  return mlir::isa<mlir::Float8E4M3FNType, mlir::Float8E5M2Type>(type);
}

/// Whether `type` is an integer: `int` (index) or a signless integer other than bool.
inline bool isIntLike(Type type) {
  return type.isIndex() || (type.isSignlessInteger() && !type.isInteger(1));
}

/// Checks a file's syntax tree and builds its `tile` dialect in one walk. One Generator serves
/// one file; the state below is that of the kernel being generated.
class Generator {
public:
  Generator(const SourceLocator &locator, const tlc::FrontendOptions &options)
      : locator(locator), options(options), ctx(locator.getContext()), builder(ctx) {}

  /// The module of `file`'s kernels, one tile.kernel per kernel (or per configuration); null
  /// after an error, which has been reported.
  OwningOpRef<ModuleOp> generate(const FileAST &file, SMLoc fileLoc);

private:
  // Diagnostics.
  InFlightDiagnostic error(SMLoc loc) { return locator.emitError(loc); }
  Location loc(SMLoc l) { return locator.get(l); }

  //===--------------------------------------------------------------------===//
  // Names, scopes, types, keyword arguments and uniformity (Sema.cpp)
  //===--------------------------------------------------------------------===//

  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }
  const Symbol *lookup(StringRef name) const;
  LogicalResult declare(const Name &name, Symbol symbol);
  /// Whether `name` is reserved: a type name, 'block' or 'thread'.
  bool isReservedName(StringRef name);

  FailureOr<Type> resolveType(const Name &name, bool forTensor);
  std::optional<Type> builtinType(StringRef name);
  Type typeOf(const TValue &v) const;
  /// Rejects the storage-only type u8 where a value type is needed.
  LogicalResult checkValueType(Type type, SMLoc l);
  /// Rejects arithmetic (operator or function `what`) on 8-bit floats, a storage format.
  LogicalResult checkArithmeticType(SMLoc l, StringRef what, Type type);
  /// The common type of two operands, or an error naming both.
  FailureOr<Type> unify(SMLoc l, StringRef op, const TValue &a, const TValue &b);

  /// Keyword arguments of a tile operation: every keyword must be one of `allowed`.
  LogicalResult checkKeywords(const Expr &call, ArrayRef<StringRef> allowed, size_t positional);
  /// A keyword argument's compile-time bool (default when absent).
  FailureOr<bool> boolKeyword(const Expr &call, StringRef name, bool byDefault);
  const Expr *keyword(const Expr &call, StringRef name);

  // Thread dependence: tile operations must be reached by every thread of the block.
  /// Whether `v` is provably computed from `thread.x|y|z`: directly, through `let` and `var`
  /// values or through the index of a loop whose bounds are.
  bool dependsOnThreadId(Value v);
  /// Records the assignment of `value` to the `var` slot `slot`.
  void noteVarStore(Value slot, Value value);
  /// Rejects tile operation `name` at `l` under a thread-dependent condition.
  LogicalResult checkUniform(StringRef name, SMLoc l);

  //===--------------------------------------------------------------------===//
  // Compile-time values (ConstantFolding.cpp)
  //===--------------------------------------------------------------------===//

  /// Turns `v` into an SSA value of type `to`; `what` says where, for the error message.
  FailureOr<Value> materialize(SMLoc l, const TValue &v, Type to, StringRef what);
  /// Like materialize, for a value stored into an element of type `elementType`: a u8 element
  /// takes an i32 value, truncated to its low byte.
  FailureOr<Value> materializeElement(SMLoc l, const TValue &v, Type elementType, StringRef what);
  /// Requires a compile-time integer.
  FailureOr<int64_t> constInt(const Expr &expr, StringRef what);
  /// The error for constant `text` that does not fit in float type `type` (it would be inf).
  void emitFloatOverflow(SMLoc l, StringRef text, FloatType type);
  /// Binary operator `expr` on two constants.
  FailureOr<TValue> foldBinary(const Expr &expr, const TValue &a, const TValue &b);
  FailureOr<TValue> foldBoolBinary(const Expr &expr, const TValue &a, const TValue &b);
  FailureOr<TValue> foldIntBinary(const Expr &expr, int64_t x, int64_t y);
  FailureOr<TValue> foldFloatBinary(const Expr &expr, double x, double y);
  /// `x << y` or `x >> y` on 64-bit constants.
  FailureOr<TValue> foldShift(const Expr &expr, int64_t x, int64_t y);
  /// `cdiv`, `min` or `max` (the call `expr`) of two constants.
  FailureOr<TValue> foldMinMax(const Expr &expr, const TValue &a, const TValue &b);
  /// `abs` of an integer or float constant.
  FailureOr<TValue> foldAbs(const Expr &expr, const TValue &arg);

  //===--------------------------------------------------------------------===//
  // Expressions (Expressions.cpp)
  //===--------------------------------------------------------------------===//

  FailureOr<TValue> gen(const Expr &expr);
  /// A name used as a value.
  FailureOr<TValue> genRef(const Expr &expr);
  FailureOr<TValue> genBinary(const Expr &expr);
  FailureOr<TValue> genUnary(const Expr &expr);
  FailureOr<TValue> genSelect(SMLoc l, const TValue &c, const TValue &a, const TValue &b);
  FailureOr<TValue> genCast(SMLoc l, const TValue &v, Type to);
  /// `&`, `|`, `^`, `<<`, `>>` on two run-time integers (or bools, but shifts) of type `type`.
  FailureOr<TValue> genBitwise(const Expr &expr, Value x, Value y, Type type);
  /// `bitcast<T>(x)`: the bits of `x` read as a `T` of the same width.
  FailureOr<TValue> genBitcast(const Expr &expr);
  FailureOr<TValue> genBits(const Expr &expr);
  FailureOr<TValue> genLoad(const Expr &expr);
  FailureOr<SmallVector<Value>> genIndices(const std::vector<ExprPtr> &exprs);
  /// The value of an element just read: u8 elements are zero-extended to i32.
  TValue elementValue(Value loaded, Type elementType);
  /// A tensor or buffer element `name[indices]`: the tensor or buffer, its element type and the
  /// index values, after the name, kind and rank checks (messages for reads or writes).
  struct ElementRef {
    Value target;
    Type elementType;
    SmallVector<Value> indices;
  };
  FailureOr<ElementRef> resolveElement(StringRef name, SMLoc l, const std::vector<ExprPtr> &indices,
                                       bool forRead);

  // Calls: casts and the builtin functions of Builtins.def.
  struct BuiltinFunction;
  static const BuiltinFunction *lookupFunction(StringRef name);
  static bool isBuiltinFunction(StringRef name);
  FailureOr<TValue> genCall(const Expr &expr);
  /// The arguments of call `expr`, after checking that there are `arity` of them.
  FailureOr<SmallVector<TValue>> genCallArgs(const Expr &expr, size_t arity);
  FailureOr<TValue> genMinMax(const Expr &expr, ArrayRef<TValue> args);
  FailureOr<TValue> genAbs(const Expr &expr, ArrayRef<TValue> args);
  template <typename OpTy> FailureOr<TValue> genMath(const Expr &expr, ArrayRef<TValue> args);
  FailureOr<TValue> genSelectCall(const Expr &expr, ArrayRef<TValue> args);
  FailureOr<TValue> genFma(const Expr &expr, ArrayRef<TValue> args);

  //===--------------------------------------------------------------------===//
  // Statements and buffers (Statements.cpp)
  //===--------------------------------------------------------------------===//

  LogicalResult genBlock(const StmtList &stmts);
  LogicalResult genStmt(const Stmt &stmt);
  LogicalResult genBinding(const Stmt &stmt);
  LogicalResult genAssign(const Stmt &stmt);
  LogicalResult genStore(const Stmt &stmt);
  LogicalResult genIf(const Stmt &stmt);
  LogicalResult genFor(const Stmt &stmt);
  LogicalResult genParallel(const Stmt &stmt);
  LogicalResult genBuffer(const Stmt &stmt);
  LogicalResult checkSharedMemory(const KernelDecl &decl);

  //===--------------------------------------------------------------------===//
  // Tile operations (TileStatements.cpp)
  //===--------------------------------------------------------------------===//

  struct TileOpInfo;
  /// The tile operation of Builtins.def named `name`, or null.
  static const TileOpInfo *lookupTileOp(StringRef name);
  static bool isTileOp(StringRef name);
  LogicalResult genTileCall(const Stmt &stmt);
  LogicalResult genCopy(const Expr &call);
  LogicalResult genFill(const Expr &call);
  LogicalResult genGemm(const Expr &call);
  LogicalResult genReduce(const Expr &call);
  /// reduce's `index = buf` for argmax/argmin: a buffer of `dst`'s shape and placement holding
  /// i32 or i64 positions.
  FailureOr<Value> genReduceIndex(const Expr &indexExpr, Value dst);
  /// reduce's `index_offset`: an index the same for every thread of the block.
  FailureOr<Value> genIndexOffset(const Expr &offsetExpr);
  LogicalResult genScan(const Expr &call);
  /// The compile-time `dim` keyword of `call` on a buffer of `rank` (default: the last
  /// dimension), or an error.
  FailureOr<int64_t> dimKeyword(const Expr &call, unsigned rank);
  LogicalResult genAtomicAdd(const Expr &call);
  /// A buffer named by `expr` (a plain name), or an error.
  FailureOr<Value> genBufferRef(const Expr &expr, StringRef what);
  /// The source and destination buffers of `reduce(src, dst, ...)` or `scan(src, dst, ...)`,
  /// their types and the `dim` keyword (dimKeyword on the source).
  struct SourceAndDest {
    Value src, dst;
    tile::BufferType srcType, dstType;
    int64_t dim;
  };
  FailureOr<SourceAndDest> genSourceAndDest(const Expr &call);
  /// A tensor element reference `X[i, j]` (or a bare tensor name: offsets 0) as tensor + offsets.
  /// With `element`, the indices name one element (atomic_add) rather than a tile's offsets.
  FailureOr<std::pair<Value, SmallVector<Value>>> genTensorRef(const Expr &expr,
                                                               bool element = false);

  //===--------------------------------------------------------------------===//
  // Kernels, compile-time parameters and configurations (Specialization.cpp)
  //===--------------------------------------------------------------------===//

  /// Generates `decl` as one tile.kernel: specialized with the defaults and -D values, or, with
  /// `variant`, as configuration `*variant` of `configs` (named `<kernel>__<variant>`).
  LogicalResult genKernel(const KernelDecl &decl, ModuleOp module, ArrayAttr configs,
                          std::optional<unsigned> variant);
  LogicalResult checkDefines(const FileAST &file);
  /// Binds the compile-time parameters: a -D value, else the value in `overrides` (a
  /// configuration), else the default.
  LogicalResult bindConstParams(const KernelDecl &decl, NamedAttrList &params,
                                DictionaryAttr overrides);
  /// The value of type parameter `param`: from `define`, else `overrides`, else its default.
  FailureOr<Type> bindTypeParam(const ConstParamDecl &param, const std::string *define,
                                DictionaryAttr overrides);
  /// The value of int or bool parameter `param`: from `define`, else `overrides`, else its
  /// default.
  FailureOr<TValue> bindValueParam(const ConstParamDecl &param, const std::string *define,
                                   DictionaryAttr overrides);
  /// The run-time parameters of a kernel as tile.kernel records them.
  struct KernelSignature {
    SmallVector<Type> argTypes;
    SmallVector<mlir::Attribute> argNames, dimNames, strideNames;
  };
  /// Checks the parameters of `decl` and resolves their types, sizes and strides.
  LogicalResult resolveSignature(const KernelDecl &decl, KernelSignature &signature);
  /// The type of run-time parameter `param`.
  FailureOr<Type> resolveParamType(const ParamDecl &param);
  /// The stride names of tensor parameter `param` (literals for constant strides).
  FailureOr<mlir::Attribute> resolveStrides(const KernelDecl &decl, const ParamDecl &param);
  /// Creates the tile.kernel of `decl` (named for `variant`) with empty grid and body blocks.
  void createKernel(const KernelDecl &decl, ModuleOp module, const KernelSignature &signature,
                    const NamedAttrList &params, ArrayAttr configs,
                    std::optional<unsigned> variant);
  LogicalResult bindKernelScope(const KernelDecl &decl, Block &entry);
  /// Checks the thread counts of `decl` and sets them on the kernel.
  LogicalResult genThreads(const KernelDecl &decl);
  /// Generates the grid region, computed on the host from sizes and scalar parameters.
  /// The grid region: three block counts, then `when`'s condition (i1) for a configuration
  /// that has one.
  LogicalResult genGrid(const KernelDecl &decl, Block &grid, const Expr *when);
  /// Replaces `ifOp` (an scf.if) by the operations of its then (else) branch.
  void keepBranch(mlir::Operation *ifOp, bool then);
  /// The value of a constant tensor dimension or stride (a literal or an `int` parameter).
  std::optional<int64_t> constantDim(const Name &name);
  /// Checks the `configs` block and evaluates it: one dictionary per configuration (null when
  /// the kernel has no `configs`).
  FailureOr<ArrayAttr> evalConfigs(const KernelDecl &decl);
  /// The value of one entry `name = expr` of a configuration, for parameter `param`.
  FailureOr<mlir::Attribute> evalConfigEntry(const KernelDecl &decl, const ConstParamDecl &param,
                                             const Name &name, const Expr &expr);
  /// Whether a -D names a parameter that one of the configurations of `decl` sets.
  const std::pair<std::string, std::string> *defineOfConfigParam(const KernelDecl &decl) const;
  /// Generates the kernels of configurations `configs` of `decl`, one per configuration.
  LogicalResult genVariants(const KernelDecl &decl, ModuleOp module, ArrayAttr configs,
                            const llvm::StringMap<SMLoc> &declared);
  /// Checks that configuration `variant` gave the kernel the same parameters as configuration 0:
  /// the variants share one launcher.
  LogicalResult checkSameSignature(const KernelDecl &decl, tile::KernelOp first,
                                   tile::KernelOp other, unsigned variant);

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

} // namespace tlc::frontend

#endif // TLC_LIB_FRONTEND_GENERATOR_H
