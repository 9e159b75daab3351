//===- Sema.cpp - Names, scopes, types and uniformity ---------------------===//
//
// The checks of the language that are not about values: what a name stands for and where it
// may be declared, which types exist and which operands agree, keyword arguments, and whether
// a tile operation is reached by every thread of the block.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::frontend;

std::string tlc::frontend::typeName(Type type) {
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

std::string tlc::frontend::shapeText(ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + std::to_string(d);
  return s;
}

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
  if (isReservedName(name.text))
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

bool Generator::isReservedName(StringRef name) {
  return builtinType(name) || name == "block" || name == "thread" || name == "bitcast";
}

std::optional<Type> Generator::builtinType(StringRef name) {
  return llvm::StringSwitch<std::optional<Type>>(name)
#define TLC_TYPE(NAME, GET, HINTED) .Case(#NAME, GET)
#include "Builtins.def"
      .Default(std::nullopt);
}

/// "f64, f32, ..., int": the type names listed in the error for an unknown type.
static std::string hintedTypeList() {
  static constexpr std::pair<llvm::StringLiteral, bool> types[] = {
#define TLC_TYPE(NAME, GET, HINTED) {#NAME, HINTED},
#include "Builtins.def"
  };
  std::string list;
  for (auto [name, hinted] : types)
    if (hinted)
      list += (list.empty() ? "" : ", ") + name.str();
  return list;
}

FailureOr<Type> Generator::resolveType(const Name &name, bool forTensor) {
  std::optional<Type> type = builtinType(name.text);
  if (!type) {
    const Symbol *symbol = lookup(name.text);
    if (symbol && symbol->kind == Symbol::TypeConst)
      type = symbol->type;
  }
  if (!type) {
    error(name.loc) << "unknown type '" << name.text << "'; expected one of " << hintedTypeList()
                    << " or a 'type' parameter";
    return failure();
  }
  if (forTensor && (type->isIndex() || type->isInteger(1) || type->isTF32())) {
    error(name.loc) << "'" << name.text << "' cannot be a tensor element type; use "
                    << (type->isIndex()      ? "'i64' or 'i32'"
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

LogicalResult Generator::checkValueType(Type type, SMLoc l) {
  if (type.isTF32()) {
    // tf32 is a tensor-core input format only; values are computed in f32.
    error(l) << "'tf32' values (casts, typed bindings, scalar parameters) are not supported; "
             << "hint: compute in 'f32'";
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
      error(l) << "type mismatch in '" << op << "': '" << typeName(ta) << "' and '" << typeName(tb)
               << "'; convert one side, as in " << typeName(ta) << "(...)";
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

//===----------------------------------------------------------------------===//
// Keyword arguments
//===----------------------------------------------------------------------===//

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

LogicalResult Generator::checkArithmeticType(SMLoc l, StringRef what, Type type) {
  if (!isF8(type))
    return success();
  error(l) << "'" << what << "' on '" << typeName(type) << "' values: 8-bit floats are a storage "
           << "format; hint: compute in 'f32', as in f32(x)";
  return failure();
}
