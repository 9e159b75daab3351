//===- TileStatements.cpp - Tile operations: copy, fill, gemm... ----------===//
//
// The tile operations, statements that act for the whole block (atomic_add: for one thread),
// with the checks of their operands' kinds, shapes and element types.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::frontend;

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

/// A tile operation: its name, the member that generates it, and whether it acts for the whole
/// block.
struct Generator::TileOpInfo {
  llvm::StringLiteral name;
  LogicalResult (Generator::*gen)(const Expr &call);
  bool wholeBlock;
};

const Generator::TileOpInfo *Generator::lookupTileOp(StringRef name) {
  static constexpr TileOpInfo tileOps[] = {
#define TLC_TILE_OP(NAME, GEN, WHOLE_BLOCK) {#NAME, &Generator::GEN, WHOLE_BLOCK},
#include "Builtins.def"
  };
  for (const TileOpInfo &op : tileOps)
    if (op.name == name)
      return &op;
  return nullptr;
}

bool Generator::isTileOp(StringRef name) { return lookupTileOp(name) != nullptr; }

/// "copy, fill, ... and atomic_add": the tile operations, for messages.
static std::string tileOpList() {
  static constexpr llvm::StringLiteral names[] = {
#define TLC_TILE_OP(NAME, GEN, WHOLE_BLOCK) #NAME,
#include "Builtins.def"
  };
  std::string list;
  for (auto [i, name] : llvm::enumerate(names))
    list += (i == 0 ? "" : i + 1 == std::size(names) ? " and " : ", ") + name.str();
  return list;
}

LogicalResult Generator::genTileCall(const Stmt &stmt) {
  const Expr &call = *stmt.value;
  StringRef name = call.name;
  const TileOpInfo *op = lookupTileOp(name);
  if (!op) {
    const Symbol *symbol = lookup(name);
    if (symbol || builtinType(name) || isBuiltinFunction(name))
      error(call.loc) << "the value of '" << name << "(...)' is unused; bind it with 'let'";
    else
      error(call.loc) << "unknown operation '" << name << "'; tile operations are " << tileOpList();
    return failure();
  }
  if (inGrid) {
    error(call.loc) << "'" << name << "' cannot appear in 'grid(...)'";
    return failure();
  }
  if (op->wholeBlock) {
    if (inParallel) {
      error(call.loc) << "'" << name << "' is a tile operation for the whole block and cannot "
                      << "appear inside 'parallel'";
      return failure();
    }
    if (failed(checkUniform(name, call.loc)))
      return failure();
  }
  return (this->*op->gen)(call);
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
  }
  tile::CopyOp::create(builder, loc(call.loc), src->value, src->offsets, dst->value, dst->offsets);
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
                    << shape(bt) << (*tb ? " (transposed)" : "") << ": the inner dimensions " << ka
                    << " and " << kb << " differ";
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
  bool accOk = ea.isF16()                ? (ec.isF32() || ec.isF16())
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

FailureOr<int64_t> Generator::dimKeyword(const Expr &call, unsigned rank) {
  const Expr *d = keyword(call, "dim");
  if (!d)
    return static_cast<int64_t>(rank) - 1;
  auto v = constInt(*d, "'dim'");
  if (failed(v))
    return failure();
  if (*v < 0 || *v >= static_cast<int64_t>(rank)) {
    error(d->loc) << "'dim' = " << *v << " is out of range for a buffer of rank " << rank;
    return failure();
  }
  return *v;
}

FailureOr<Generator::SourceAndDest> Generator::genSourceAndDest(const Expr &call) {
  auto src = genBufferRef(*call.operands[0], "the source of '" + call.name + "'");
  if (failed(src))
    return failure();
  auto dst = genBufferRef(*call.operands[1], "the destination of '" + call.name + "'");
  if (failed(dst))
    return failure();
  auto st = cast<tile::BufferType>(src->getType()), dt = cast<tile::BufferType>(dst->getType());
  auto dim = dimKeyword(call, st.getRank());
  if (failed(dim))
    return failure();
  return SourceAndDest{*src, *dst, st, dt, *dim};
}

FailureOr<Value> Generator::genReduceIndex(const Expr &indexExpr, Value dst) {
  auto dt = cast<tile::BufferType>(dst.getType());
  auto v = genBufferRef(indexExpr, "'index'");
  if (failed(v))
    return failure();
  auto it = cast<tile::BufferType>(v->getType());
  Type elem = it.getElementType();
  if (*v == dst) {
    error(indexExpr.loc) << "'index' must be another buffer than the destination";
    return failure();
  }
  if (it.getShape() != dt.getShape()) {
    error(indexExpr.loc) << "'index' is [" << shapeText(it.getShape())
                         << "] but must have the destination's shape [" << shapeText(dt.getShape())
                         << "]";
    return failure();
  }
  if (!elem.isSignlessInteger(32) && !elem.isSignlessInteger(64)) {
    error(indexExpr.loc) << "'index' must hold 'i32' or 'i64' elements, found '" << typeName(elem)
                         << "'";
    return failure();
  }
  if (it.isLocal() != dt.isLocal()) {
    error(indexExpr.loc) << (dt.isLocal() ? "'index' must be a local buffer, as the "
                                            "destination is"
                                          : "'index' cannot be a local buffer: the "
                                            "destination is not");
    return failure();
  }
  return *v;
}

FailureOr<Value> Generator::genIndexOffset(const Expr &offsetExpr) {
  auto v = gen(offsetExpr);
  if (failed(v))
    return failure();
  auto o = materialize(offsetExpr.loc, *v, builder.getIndexType(), "for 'index_offset'");
  if (failed(o))
    return failure();
  if (dependsOnThreadId(*o)) {
    error(offsetExpr.loc) << "'index_offset' must be the same for every thread of the block; "
                          << "it depends on 'thread'";
    return failure();
  }
  return *o;
}

LogicalResult Generator::genReduce(const Expr &call) {
  if (failed(checkKeywords(
          call, {"dim", "op", "init", "accumulate", "clear", "index", "index_offset"}, 2)))
    return failure();
  auto buffers = genSourceAndDest(call);
  if (failed(buffers))
    return failure();
  auto [src, dst, st, dt, dim] = *buffers;
  std::string kind = "sum";
  if (const Expr *o = keyword(call, "op")) {
    static constexpr StringRef kinds[] = {"sum", "max", "min", "argmax", "argmin"};
    if (o->kind != Expr::Ref || !llvm::is_contained(kinds, o->name)) {
      error(o->loc) << "'op' must be sum, max, min, argmax or argmin";
      return failure();
    }
    kind = o->name;
  }
  // argmax / argmin: the positions go to `index`, offset by `index_offset`.
  bool argReduce = kind == "argmax" || kind == "argmin";
  const Expr *indexExpr = keyword(call, "index");
  const Expr *offsetExpr = keyword(call, "index_offset");
  if (!argReduce && (indexExpr || offsetExpr)) {
    error((indexExpr ? indexExpr : offsetExpr)->loc)
        << "'" << (indexExpr ? "index" : "index_offset") << "' is for 'op = argmax' and "
        << "'op = argmin', not 'op = " << kind << "'";
    return failure();
  }
  if (argReduce && !indexExpr) {
    error(call.loc) << "'op = " << kind << "' needs 'index = buf', a buffer of the destination's "
                    << "shape that receives the positions along 'dim'";
    return failure();
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
    if (argReduce) {
      error(i->loc) << "'init' does not combine with 'op = " << kind << "'; hint: fill the "
                    << "destination and the index buffer, then reduce with 'accumulate = true'";
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
  Value index, offset;
  if (indexExpr) {
    auto v = genReduceIndex(*indexExpr, dst);
    if (failed(v))
      return failure();
    index = *v;
  }
  if (offsetExpr) {
    auto v = genIndexOffset(*offsetExpr);
    if (failed(v))
      return failure();
    offset = *v;
  }
  tile::ReduceOp::create(builder, loc(call.loc), src, dst, init, index, offset, Value(),
                         builder.getI64IntegerAttr(dim), builder.getStringAttr(kind),
                         acc ? builder.getUnitAttr() : UnitAttr());
  return success();
}

LogicalResult Generator::genScan(const Expr &call) {
  if (failed(checkKeywords(call, {"dim", "op", "exclusive"}, 2)))
    return failure();
  auto buffers = genSourceAndDest(call);
  if (failed(buffers))
    return failure();
  auto [src, dst, st, dt, dim] = *buffers;
  std::string kind = "sum";
  if (const Expr *o = keyword(call, "op")) {
    if (o->kind != Expr::Ref || (o->name != "sum" && o->name != "prod")) {
      error(o->loc) << "'op' of 'scan' must be sum or prod";
      return failure();
    }
    kind = o->name;
  }
  auto exclusive = boolKeyword(call, "exclusive", false);
  if (failed(exclusive))
    return failure();
  if (dt.getShape() != st.getShape()) {
    error(call.loc) << "'scan' of [" << shapeText(st.getShape()) << "] gives ["
                    << shapeText(st.getShape()) << "], but the destination is ["
                    << shapeText(dt.getShape()) << "]";
    return failure();
  }
  Type elem = st.getElementType();
  if (elem.isUnsignedInteger(8)) {
    error(call.loc) << "'scan' does not take 'u8' buffers; copy the tile into an 'i32' buffer "
                    << "first";
    return failure();
  }
  if (elem.isInteger(1) || isF8(elem)) {
    error(call.loc) << "'scan' does not take '" << typeName(elem) << "' buffers; copy the tile "
                    << "into an '" << (elem.isInteger(1) ? "i32" : "f32") << "' buffer first";
    return failure();
  }
  if (elem != dt.getElementType()) {
    error(call.loc) << "'scan' from '" << typeName(elem) << "' into '"
                    << typeName(dt.getElementType()) << "': element types must match";
    return failure();
  }
  tile::ScanOp::create(builder, loc(call.loc), src, dst, builder.getI64IntegerAttr(dim),
                       builder.getStringAttr(kind),
                       *exclusive ? builder.getUnitAttr() : UnitAttr());
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
    error(target.loc) << "'atomic_add' does not support '" << typeName(elementType) << "' tensors";
    return failure();
  }
  auto v = materialize(call.operands[1]->loc, *value, elementType, "to add");
  if (failed(v))
    return failure();
  tile::AtomicAddOp::create(builder, loc(call.loc), *v, ref->first, ref->second);
  return success();
}
