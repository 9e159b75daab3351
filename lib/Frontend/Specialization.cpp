//===- Specialization.cpp - Kernels, parameters and configurations --------===//
//
// One tile.kernel per kernel, specialized for its compile-time parameters (defaults and -D
// values), or one per configuration of its `configs` block; the kernels' signatures, threads
// and grids.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::frontend;

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
      auto type = bindTypeParam(param, define, overrides);
      if (failed(type))
        return failure();
      symbol.kind = Symbol::TypeConst;
      symbol.type = *type;
      params.append(param.name.text, TypeAttr::get(*type));
    } else {
      auto value = bindValueParam(param, define, overrides);
      if (failed(value))
        return failure();
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

FailureOr<Type> Generator::bindTypeParam(const ConstParamDecl &param, const std::string *define,
                                         DictionaryAttr overrides) {
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
                          << "' has no default; give it with -D " << param.name.text << "=<type>";
    return failure();
  }
  return *type;
}

FailureOr<TValue> Generator::bindValueParam(const ConstParamDecl &param, const std::string *define,
                                            DictionaryAttr overrides) {
  if (define) {
    std::optional<TValue> value = parseDefine(*define, param.kind);
    if (!value) {
      error(param.name.loc) << "'-D " << param.name.text << "=" << *define
                            << "' does not parse as '" << kindName(param.kind) << "'";
      return failure();
    }
    return *value;
  }
  if (Attribute given = overrides ? overrides.get(param.name.text) : Attribute()) {
    if (param.kind == ConstParamDecl::Int)
      return TValue::intConst(cast<IntegerAttr>(given).getInt());
    return TValue::boolConst(cast<BoolAttr>(given).getValue());
  }
  if (!param.defaultValue) {
    error(param.name.loc) << "compile-time parameter '" << param.name.text
                          << "' has no default; give it with -D " << param.name.text << "=<value>";
    return failure();
  }
  // The default is evaluated before the kernel exists: ops it creates (a cast's constant, before
  // the kind check refuses it) go into a scratch block, erased on return.
  Block scratch;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&scratch);
  auto v = gen(*param.defaultValue);
  if (failed(v))
    return failure();
  TValue::Kind want = param.kind == ConstParamDecl::Int ? TValue::IntConst : TValue::BoolConst;
  if (v->kind != want) {
    error(param.defaultValue->loc) << "the default of '" << param.name.text
                                   << "' must be a compile-time '" << kindName(param.kind) << "'";
    return failure();
  }
  return *v;
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

  buffers.clear();
  divergence = {};
  threadDependent.clear();
  varState.clear();
  KernelSignature signature;
  if (failed(resolveSignature(decl, signature)))
    return failure();
  createKernel(decl, module, signature, params, configs, variant);
  Block *grid = &kernel.getGrid().front();
  Block *body = &kernel.getBody().front();

  pushScope();
  llvm::scope_exit exitParams([&] { popScope(); });
  if (failed(bindKernelScope(decl, *body)))
    return failure();

  builder.setInsertionPointToStart(body);
  currentEntry = body;
  const Expr *when = variant ? decl.configWhens[*variant].get() : nullptr;
  if (failed(genThreads(decl)) || failed(genGrid(decl, *grid, when)))
    return failure();

  // The body, on the device.
  builder.setInsertionPointToStart(body);
  currentEntry = body;
  if (failed(genBlock(decl.body)))
    return failure();
  builder.setInsertionPointToEnd(body);
  tile::YieldOp::create(builder, loc(decl.name.loc));
  return checkSharedMemory(decl);
}

LogicalResult Generator::resolveSignature(const KernelDecl &decl, KernelSignature &signature) {
  for (const ParamDecl &param : decl.params) {
    auto type = resolveParamType(param);
    if (failed(type))
      return failure();
    signature.argTypes.push_back(*type);
    signature.argNames.push_back(builder.getStringAttr(param.name.text));
    SmallVector<Attribute> dims;
    for (const Name &dim : param.dims) {
      std::optional<int64_t> value = constantDim(dim);
      if (value && *value < 0) {
        error(dim.loc) << "a tensor size cannot be negative, got " << *value;
        return failure();
      }
      dims.push_back(builder.getStringAttr(value ? std::to_string(*value) : dim.text));
    }
    auto strides = resolveStrides(decl, param);
    if (failed(strides))
      return failure();
    signature.dimNames.push_back(builder.getArrayAttr(dims));
    signature.strideNames.push_back(*strides);
  }
  return success();
}

FailureOr<Type> Generator::resolveParamType(const ParamDecl &param) {
  auto type = resolveType(param.dtype, param.isTensor);
  if (failed(type) || (!param.isTensor && failed(checkValueType(*type, param.dtype.loc))))
    return failure();
  if (param.isTensor) {
    if (param.dims.size() > 8) {
      error(param.name.loc) << "tensors have at most 8 dimensions";
      return failure();
    }
    return Type(tile::TensorType::get(ctx, *type, param.dims.size()));
  }
  // The launch ABI (docs/abi.md) passes f32, f64, i32, i64 and bool scalars, and `int` as
  // i64; narrower types have no launcher type.
  bool narrow =
      type->isF16() || type->isBF16() || isF8(*type) || type->isInteger(8) || type->isInteger(16);
  if (narrow) {
    error(param.dtype.loc) << "scalar parameter '" << param.name.text << "' cannot have type '"
                           << typeName(*type) << "'; scalar parameters are f32, f64, i32, "
                           << "i64, int or bool (convert inside the kernel)";
    return failure();
  }
  return *type;
}

FailureOr<Attribute> Generator::resolveStrides(const KernelDecl &decl, const ParamDecl &param) {
  SmallVector<Attribute> strides;
  for (const Name &stride : param.strides) {
    std::optional<int64_t> value = constantDim(stride);
    if (!value && isReservedName(stride.text)) {
      error(stride.loc) << "'" << stride.text << "' is a reserved name";
      return failure();
    }
    if (!value) {
      const Symbol *existing = lookup(stride.text);
      bool isSize = llvm::any_of(decl.params, [&](const ParamDecl &p) {
        return llvm::any_of(p.dims, [&](const Name &d) { return d.text == stride.text; });
      });
      bool isParam =
          llvm::any_of(decl.params, [&](const ParamDecl &p) { return p.name.text == stride.text; });
      if (existing || isSize || isParam) {
        error(stride.loc) << "stride name '" << stride.text
                          << "' is already used; strides need names of their own";
        return failure();
      }
    }
    strides.push_back(builder.getStringAttr(value ? std::to_string(*value) : stride.text));
  }
  return Attribute(builder.getArrayAttr(strides));
}

void Generator::createKernel(const KernelDecl &decl, ModuleOp module,
                             const KernelSignature &signature, const NamedAttrList &params,
                             ArrayAttr configs, std::optional<unsigned> variant) {
  builder.setInsertionPointToEnd(module.getBody());
  std::string symbol = decl.name.text;
  if (variant)
    symbol += "__" + std::to_string(*variant);
  kernel = tile::KernelOp::create(
      builder, loc(decl.name.loc), builder.getStringAttr(symbol),
      builder.getDenseI64ArrayAttr({1, 1, 1}), builder.getArrayAttr(signature.argNames),
      builder.getArrayAttr(signature.dimNames), params.getDictionary(ctx));
  if (llvm::any_of(decl.params, [](const ParamDecl &p) { return !p.strides.empty(); }))
    kernel->setAttr("strides", builder.getArrayAttr(signature.strideNames));
  if (configs)
    kernel->setAttr("configs", configs);
  if (variant) {
    kernel->setAttr("variant_of", builder.getStringAttr(decl.name.text));
    kernel->setAttr("variant", builder.getI64IntegerAttr(*variant));
    SmallVector<Attribute> archs;
    for (const Name &arch : decl.configArchs[*variant])
      archs.push_back(builder.getStringAttr(arch.text));
    if (!archs.empty())
      kernel->setAttr(tile::kArchsAttr, builder.getArrayAttr(archs));
  }
  SmallVector<Location> argLocs;
  for (const ParamDecl &param : decl.params)
    argLocs.push_back(loc(param.name.loc));
  builder.createBlock(&kernel.getGrid(), {}, signature.argTypes, argLocs);
  builder.createBlock(&kernel.getBody(), {}, signature.argTypes, argLocs);
}

LogicalResult Generator::genThreads(const KernelDecl &decl) {
  // Threads: compile-time, at most 1024, whole warps.
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
  if (!decl.blocksPerSm)
    return success();
  // blocks_per_sm(E): E blocks of these threads must fit a multiprocessor (2048 threads, 32
  // blocks).
  auto blocks = constInt(*decl.blocksPerSm, "a count of blocks per multiprocessor");
  if (failed(blocks))
    return failure();
  int64_t most = std::min<int64_t>(32, 2048 / total);
  if (*blocks < 1 || *blocks > most) {
    auto diag = error(decl.blocksPerSm->loc)
                << "blocks_per_sm(" << *blocks << ") asks for " << *blocks << " blocks of " << total
                << " threads on one multiprocessor, which holds 2048 threads in at "
                << "most 32 blocks";
    diag.attachNote() << "hint: a count from 1 to " << most
                      << " (the blocks ptxas fits the registers for)";
    return failure();
  }
  kernel->setAttr(tile::kMinBlocksAttr, builder.getI64IntegerAttr(*blocks));
  return success();
}

LogicalResult Generator::genGrid(const KernelDecl &decl, Block &grid, const Expr *when) {
  builder.setInsertionPointToStart(&grid);
  currentEntry = &grid;
  inGrid = true;
  llvm::scope_exit exitGrid([&] { inGrid = false; });
  // Scalar parameters are the grid block's own arguments.
  pushScope();
  llvm::scope_exit exitGridScope([&] { popScope(); });
  for (auto [index, param] : llvm::enumerate(decl.params)) {
    if (param.isTensor)
      continue;
    Symbol symbol;
    symbol.value = TValue::typed(grid.getArgument(index));
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
  if (when) {
    auto v = gen(*when);
    if (failed(v))
      return failure();
    auto cond = materialize(when->loc, *v, builder.getI1Type(), "as the condition of 'when'");
    if (failed(cond))
      return failure();
    sizes.push_back(*cond);
  }
  tile::YieldOp::create(builder, loc(decl.gridLoc), sizes);
  return success();
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
      auto value = evalConfigEntry(decl, *param, name, *expr);
      if (failed(value))
        return failure();
      entries.append(name.text, *value);
    }
    configs.push_back(entries.getDictionary(ctx));
  }
  // `on ARCH`: architecture names as --arch takes them.
  for (const std::vector<Name> &archs : decl.configArchs)
    for (const Name &arch : archs) {
      if (!tile::TargetAttr::isValidArch(arch.text)) {
        auto diag = error(arch.loc) << "'" << arch.text << "' is not an architecture";
        diag.attachNote() << "hint: name one as --arch does, as in 'on sm_90a' or 'on (sm_90a, "
                          << "sm_100a)'";
        return failure();
      }
    }
  // An architecture none of the `on` lists names still needs a configuration.
  if (llvm::none_of(decl.configArchs,
                    [](const std::vector<Name> &archs) { return archs.empty(); })) {
    auto diag = error(decl.configsLoc) << "every configuration of kernel '" << decl.name.text
                                       << "' is limited to some architectures ('on')";
    diag.attachNote() << "hint: leave 'on' off at least one configuration: the images of other "
                      << "architectures take those";
    return failure();
  }
  // Where no `when` holds the launcher chooses among the configurations without one: there
  // must be one.
  if (llvm::all_of(decl.configWhens, [](const ExprPtr &when) { return when != nullptr; })) {
    auto diag = error(decl.configsLoc) << "every configuration of kernel '" << decl.name.text
                                       << "' has a 'when' condition";
    diag.attachNote() << "hint: leave 'when' off at least one configuration: the launcher "
                      << "chooses among those where no condition holds";
    return failure();
  }
  // Both at once: in the image of an architecture no `on` names, where no `when` holds.
  bool fallback = false;
  for (auto [archs, when] : llvm::zip(decl.configArchs, decl.configWhens))
    fallback |= archs.empty() && !when;
  if (!fallback) {
    auto diag = error(decl.configsLoc) << "kernel '" << decl.name.text
                                       << "' has no configuration without both 'on' and 'when'";
    diag.attachNote() << "hint: leave both off one configuration: an architecture no 'on' "
                      << "names, where no 'when' holds, has no other to launch";
    return failure();
  }
  return builder.getArrayAttr(configs);
}

FailureOr<Attribute> Generator::evalConfigEntry(const KernelDecl &decl, const ConstParamDecl &param,
                                                const Name &name, const Expr &expr) {
  if (param.kind == ConstParamDecl::Type) {
    std::optional<Type> type =
        expr.kind == Expr::Ref ? builtinType(expr.name) : std::optional<Type>();
    if (!type || type->isIndex() || type->isInteger(1)) {
      error(expr.loc) << "'" << name.text << "' is a type parameter; give a data type";
      return failure();
    }
    return Attribute(TypeAttr::get(*type));
  }
  if (const Expr *ref = findParamRef(expr, decl)) {
    error(ref->loc) << "the values of a configuration are constants; '" << ref->name
                    << "' is a compile-time parameter";
    return failure();
  }
  auto value = gen(expr);
  if (failed(value))
    return failure();
  bool isInt = param.kind == ConstParamDecl::Int;
  if (value->kind != (isInt ? TValue::IntConst : TValue::BoolConst)) {
    error(expr.loc) << "'" << name.text << "' needs a compile-time '" << (isInt ? "int" : "bool")
                    << "'";
    return failure();
  }
  return isInt ? Attribute(builder.getI64IntegerAttr(value->i))
               : Attribute(builder.getBoolAttr(value->b));
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
    error(param.name.loc) << "configuration " << variant << " makes parameter '" << param.name.text
                          << "' " << b << " where configuration 0 makes it " << a
                          << "; the configurations of a kernel share one launcher and "
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
    if (failed(genVariants(*decl, *module, *configs, declared)))
      return nullptr;
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

LogicalResult Generator::genVariants(const KernelDecl &decl, ModuleOp module, ArrayAttr configs,
                                     const llvm::StringMap<SMLoc> &declared) {
  // One kernel per configuration, `<kernel>__<i>`; any error in one is located in the source
  // as usual, with a note pointing at the configuration.
  tile::KernelOp first;
  for (unsigned i = 0, e = configs.size(); i != e; ++i) {
    std::string symbol = decl.name.text + "__" + std::to_string(i);
    if (auto it = declared.find(symbol); it != declared.end()) {
      auto diag = error(decl.configLocs[i])
                  << "configuration " << i << " of kernel '" << decl.name.text
                  << "' is compiled as kernel '" << symbol << "', which is already defined";
      diag.attachNote(loc(it->second)) << "'" << symbol << "' is defined here";
      return failure();
    }
    Location configLoc = loc(decl.configLocs[i]);
    ScopedDiagnosticHandler inConfig(ctx, [&, i](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error ||
          diag.getSeverity() == DiagnosticSeverity::Warning)
        diag.attachNote(configLoc) << "in configuration " << i;
      return failure(); // reported by the handler below
    });
    if (failed(genKernel(decl, module, configs, i)))
      return failure();
    if (!first)
      first = kernel;
    else if (failed(checkSameSignature(decl, first, kernel, i)))
      return failure();
  }
  return success();
}
