//===- Statements.cpp - Statements and buffers ----------------------------===//
//
// Statements: bindings, assignments, element stores, `if`, `for`, `parallel`, and the buffers
// of a kernel with their memory limits.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::frontend;

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
      auto v = materialize(stmt.value->loc, *value, type, ("for '" + stmt.name.text + "'").c_str());
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
  auto v =
      materialize(stmt.value->loc, *value, type, ("to assign to '" + stmt.name.text + "'").c_str());
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
  // A compile-time condition (a parameter, `false && ...`): both branches were generated and
  // checked; only the taken one stays, so the buffers only the other uses take no registers and
  // no shared memory (a configuration choosing its code path by a parameter).
  if (cond->kind == TValue::BoolConst)
    keepBranch(ifOp.getOperation(), cond->b);
  return success();
}

void Generator::keepBranch(Operation *op, bool then) {
  auto ifOp = cast<scf::IfOp>(op);
  // The generator's caches must not outlive the values they are keyed by.
  ifOp->walk([&](Operation *nested) {
    for (Value result : nested->getResults()) {
      threadDependent.erase(result);
      varState.erase(result);
    }
    for (Region &region : nested->getRegions())
      for (Block &block : region)
        for (Value arg : block.getArguments())
          threadDependent.erase(arg);
  });
  Block *kept = then ? ifOp.thenBlock() : ifOp.elseBlock();
  if (kept) {
    kept->getTerminator()->erase();
    ifOp->getBlock()->getOperations().splice(ifOp->getIterator(), kept->getOperations());
  }
  ifOp->erase();
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
    auto x =
        materialize(e.loc, *v, builder.getIndexType(), pipelined ? "in 'pipelined'" : "in 'range'");
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
// Buffers
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
  auto diag = error(decl.name.loc)
              << "kernel '" << decl.name.text << "' needs " << total << " bytes of shared memory; "
              << kMaxSharedBytes << " bytes (227 KiB) is the per-block limit";
  for (auto &[name, type] : buffers)
    if (type.isShared())
      diag.attachNote(loc(name.loc))
          << "'" << name.text << "': " << shapeText(type.getShape()) << " "
          << typeName(type.getElementType()) << " takes " << type.getSizeInBytes() << " bytes";
  return failure();
}
