//===- LocalBufferToNVVM.cpp - Per-thread buffers and what is not lowered -===//
#include "PatternsImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;

namespace {

struct AllocOpLowering : OpRewritePattern<tile::AllocOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::AllocOp op, PatternRewriter &rewriter) const override {
    auto type = op.getBuffer().getType();
    if (!type.isLocal())
      return failure();
    auto memrefType = MemRefType::get(type.getShape(), tile::getStorageType(type.getElementType()));
    Value memref = memref::AllocaOp::create(rewriter, op.getLoc(), memrefType);
    rewriter.replaceOpWithNewOp<UnrealizedConversionCastOp>(op, type, memref);
    return success();
  }
};

struct ReadOpLowering : LoweredBufferPattern<tile::ReadOp> {
  using LoweredBufferPattern::LoweredBufferPattern;
  void lower(tile::ReadOp op, Value, PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       loadBufferElement(rewriter, op.getLoc(), op.getBuffer(), op.getIndices()));
  }
};

struct WriteOpLowering : LoweredBufferPattern<tile::WriteOp> {
  using LoweredBufferPattern::LoweredBufferPattern;
  void lower(tile::WriteOp op, Value, PatternRewriter &rewriter) const override {
    storeBufferElement(rewriter, op.getLoc(), op.getValue(), op.getBuffer(), op.getIndices());
    rewriter.eraseOp(op);
  }
};

/// fill of a local buffer: a loop nest of stores.
struct FillOpLowering : OpRewritePattern<tile::FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::FillOp op, PatternRewriter &rewriter) const override {
    Value memref = getBufferMemref(op.getBuffer());
    if (!memref || !op.getBuffer().getType().isLocal())
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d : op.getBuffer().getType().getShape()) {
      lbs.push_back(arith::ConstantIndexOp::create(rewriter, loc, 0));
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, d));
      steps.push_back(arith::ConstantIndexOp::create(rewriter, loc, 1));
    }
    Value value = op.getValue();
    scf::buildLoopNest(rewriter, loc, lbs, ubs, steps,
                       [&](OpBuilder &b, Location l, ValueRange ivs) {
                         memref::StoreOp::create(b, l, value, memref, ivs);
                       });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tlc::populateLocalBufferToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<AllocOpLowering, ReadOpLowering, WriteOpLowering, FillOpLowering>(
      patterns.getContext());
}

LogicalResult tlc::checkSupported(Operation *root, StringRef arch) {
  // tf32 is a tensor-core input format only.
  WalkResult result = root->walk([&](tile::AllocOp op) {
    Type type = op.getBuffer().getType().getElementType();
    if (!type.isTF32())
      return WalkResult::advance();
    op->emitError() << "buffers of 'tf32' are not supported yet for '" << arch
                    << "': tlc has no tensor-core strategy for this type yet";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}
