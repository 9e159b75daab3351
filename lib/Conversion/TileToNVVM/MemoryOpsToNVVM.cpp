//===- MemoryOpsToNVVM.cpp - Lowering of sizes and masked element access --===//
#include "PatternsImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;

std::optional<TensorValues> tlc::getTensorValues(Value tensor) {
  auto cast = tensor.getDefiningOp<UnrealizedConversionCastOp>();
  auto type = dyn_cast<tile::TensorType>(tensor.getType());
  if (!cast || !type || cast.getInputs().size() != 1 + 2 * type.getRank())
    return std::nullopt;
  TensorValues values;
  values.base = cast.getInputs()[0];
  unsigned rank = type.getRank();
  for (unsigned i = 0; i < rank; ++i) {
    values.sizes.push_back(cast.getInputs()[1 + i]);
    values.strides.push_back(cast.getInputs()[1 + rank + i]);
  }
  return values;
}

namespace {

/// Builds the in-bounds predicate and the element pointer of `tensor[indices]`. Unsigned
/// comparison against the size rejects negative indices too.
static std::pair<Value, Value> buildAddress(OpBuilder &b, Location loc, const TensorValues &t,
                                            Type elementType, ValueRange indices) {
  Type i64 = b.getI64Type();
  Value inBounds, offset;
  for (auto [index, size, stride] : llvm::zip(indices, t.sizes, t.strides)) {
    Value i = arith::IndexCastOp::create(b, loc, i64, index);
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, size);
    inBounds = inBounds ? arith::AndIOp::create(b, loc, inBounds, ok).getResult() : ok;
    Value term = arith::MulIOp::create(b, loc, i, stride);
    offset = offset ? arith::AddIOp::create(b, loc, offset, term).getResult() : term;
  }
  Value ptr = LLVM::GEPOp::create(b, loc, t.base.getType(), elementType, t.base,
                                  ArrayRef<LLVM::GEPArg>{offset});
  return {inBounds, ptr};
}

struct DimOpLowering : OpRewritePattern<tile::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::DimOp op, PatternRewriter &rewriter) const override {
    auto values = getTensorValues(op.getTensor());
    if (!values)
      return failure();
    rewriter.replaceOpWithNewOp<arith::IndexCastOp>(op, rewriter.getIndexType(),
                                                    values->sizes[op.getDim()]);
    return success();
  }
};

struct LoadOpLowering : OpRewritePattern<tile::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::LoadOp op, PatternRewriter &rewriter) const override {
    auto values = getTensorValues(op.getTensor());
    if (!values)
      return failure();
    rewriter.replaceOp(op, buildMaskedLoad(rewriter, op.getLoc(), *values, op.getType(),
                                           op.getIndices()));
    return success();
  }
};

struct StoreOpLowering : OpRewritePattern<tile::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::StoreOp op, PatternRewriter &rewriter) const override {
    auto values = getTensorValues(op.getTensor());
    if (!values)
      return failure();
    buildMaskedStore(rewriter, op.getLoc(), *values, op.getValue(), op.getIndices());
    rewriter.eraseOp(op);
    return success();
  }
};

struct AtomicAddOpLowering : OpRewritePattern<tile::AtomicAddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::AtomicAddOp op, PatternRewriter &rewriter) const override {
    auto values = getTensorValues(op.getTensor());
    if (!values)
      return failure();
    Location loc = op.getLoc();
    Type type = op.getValue().getType();
    auto [inBounds, ptr] = buildAddress(rewriter, loc, *values, type, op.getIndices());
    auto ifOp = scf::IfOp::create(rewriter, loc, inBounds, /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    LLVM::AtomicRMWOp::create(rewriter, loc,
                              isa<FloatType>(type) ? LLVM::AtomicBinOp::fadd
                                                   : LLVM::AtomicBinOp::add,
                              ptr, op.getValue(), LLVM::AtomicOrdering::monotonic);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

Value tlc::buildMaskedLoad(OpBuilder &b, Location loc, const TensorValues &t, Type type,
                           ValueRange indices) {
  auto [inBounds, ptr] = buildAddress(b, loc, t, type, indices);
  auto ifOp = scf::IfOp::create(
      b, loc, inBounds,
      [&](OpBuilder &bb, Location l) {
        scf::YieldOp::create(bb, l, LLVM::LoadOp::create(bb, l, type, ptr).getResult());
      },
      [&](OpBuilder &bb, Location l) {
        scf::YieldOp::create(bb, l,
                             arith::ConstantOp::create(bb, l, bb.getZeroAttr(type)).getResult());
      });
  return ifOp.getResult(0);
}

void tlc::buildMaskedStore(OpBuilder &b, Location loc, const TensorValues &t, Value value,
                           ValueRange indices) {
  auto [inBounds, ptr] = buildAddress(b, loc, t, value.getType(), indices);
  auto ifOp = scf::IfOp::create(b, loc, inBounds, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  LLVM::StoreOp::create(b, loc, value, ptr);
}

void tlc::populateMemoryOpsToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<DimOpLowering, LoadOpLowering, StoreOpLowering, AtomicAddOpLowering>(
      patterns.getContext());
}
