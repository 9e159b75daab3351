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
  WalkResult result = root->walk([&](tile::AllocOp op) {
    // 8-bit float buffers hold data (element access and copies, through tlc-expand-float8), but
    // no gemm strategy takes them yet; tf32 is a tensor-core input format only.
    Type type = op.getBuffer().getType().getElementType();
    bool float8 = isa<Float8E4M3FNType, Float8E5M2Type>(type);
    if (!type.isTF32() && !float8)
      return WalkResult::advance();
    if (float8 && llvm::none_of(op.getBuffer().getUsers(),
                                [](Operation *user) { return isa<tile::GemmOp>(user); }))
      return WalkResult::advance();
    std::string name;
    llvm::raw_string_ostream os(name);
    os << type;
    op->emitError() << "buffers of '" << name << "' are not supported yet for '" << arch << "'"
                    << (float8 ? " as gemm operands" : "")
                    << ": tlc has no tensor-core strategy for this type yet";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}
