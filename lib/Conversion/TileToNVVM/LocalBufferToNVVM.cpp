//===- LocalBufferToNVVM.cpp - Per-thread buffers and what is not lowered -===//
#include "PatternsImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;

namespace {

/// The memref behind a local buffer: the input of the cast placed by AllocOpLowering.
static Value getLocalMemref(Value buffer) {
  auto cast = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  if (!cast || cast.getInputs().size() != 1 || !isa<MemRefType>(cast.getInputs()[0].getType()))
    return {};
  return cast.getInputs()[0];
}

struct AllocOpLowering : OpRewritePattern<tile::AllocOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::AllocOp op, PatternRewriter &rewriter) const override {
    auto type = op.getBuffer().getType();
    if (!type.isLocal())
      return failure();
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value memref = memref::AllocaOp::create(rewriter, op.getLoc(), memrefType);
    rewriter.replaceOpWithNewOp<UnrealizedConversionCastOp>(op, type, memref);
    return success();
  }
};

struct ReadOpLowering : OpRewritePattern<tile::ReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::ReadOp op, PatternRewriter &rewriter) const override {
    Value memref = getLocalMemref(op.getBuffer());
    if (!memref)
      return failure();
    rewriter.replaceOpWithNewOp<memref::LoadOp>(op, memref, op.getIndices());
    return success();
  }
};

struct WriteOpLowering : OpRewritePattern<tile::WriteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::WriteOp op, PatternRewriter &rewriter) const override {
    Value memref = getLocalMemref(op.getBuffer());
    if (!memref)
      return failure();
    rewriter.replaceOpWithNewOp<memref::StoreOp>(op, op.getValue(), memref, op.getIndices());
    return success();
  }
};

/// fill of a local buffer: a loop nest of stores.
struct FillOpLowering : OpRewritePattern<tile::FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::FillOp op, PatternRewriter &rewriter) const override {
    Value memref = getLocalMemref(op.getBuffer());
    if (!memref)
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

/// True when `op` touches a shared or fragment buffer.
static bool usesBlockBuffer(Operation *op) {
  auto isBlockBuffer = [](Type type) {
    auto buffer = dyn_cast<tile::BufferType>(type);
    return buffer && !buffer.isLocal();
  };
  return llvm::any_of(op->getOperandTypes(), isBlockBuffer) ||
         llvm::any_of(op->getResultTypes(), isBlockBuffer);
}

LogicalResult tlc::checkSupported(Operation *root, StringRef arch) {
  WalkResult result = root->walk([&](Operation *op) {
    if (!isa<tile::TileDialect>(op->getDialect()))
      return WalkResult::advance();
    bool unsupported = isa<tile::CopyOp, tile::GemmOp, tile::ReduceOp>(op) ||
                       (isa<tile::AllocOp, tile::FillOp, tile::ReadOp, tile::WriteOp>(op) &&
                        usesBlockBuffer(op));
    if (!unsupported)
      return WalkResult::advance();
    StringRef what = op->getName().stripDialect();
    if (isa<tile::AllocOp>(op))
      what = cast<tile::AllocOp>(op).getBuffer().getType().isShared() ? "shared buffers"
                                                                       : "fragment buffers";
    else if (isa<tile::ReadOp, tile::WriteOp>(op))
      what = "element access to shared and fragment buffers";
    op->emitError() << "'" << what << "' is not supported yet for '" << arch
                    << "': tlc cannot generate code for shared-memory and fragment tiles yet";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}
