//===- LowerStructuredControlFlow.cpp - scf to cf in linear time -----------===//
//
// Upstream's scf-to-cf patterns, applied last-to-first so that no block split moves more than
// the ops up to the next lowered op (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/TileToNVVM/TileToNVVM.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace tlc {
#define GEN_PASS_DEF_LOWERSTRUCTUREDCONTROLFLOW
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;

namespace {
/// A rewriter the pass drives itself (PatternRewriter's constructor is for drivers).
class LoweringRewriter : public PatternRewriter {
public:
  explicit LoweringRewriter(MLIRContext *context) : PatternRewriter(context) {}
};

/// Whether `op` is a structured op a lowering replaces (terminators go with their parents).
static bool isStructured(Operation *op) {
  return isa<scf::SCFDialect>(op->getDialect()) && !op->hasTrait<OpTrait::IsTerminator>();
}

/// The ops whose lowerings need single-block regions (`scf.parallel` and `scf.forall` become
/// `scf.for` nests; `scf.index_switch` takes each case's first block's yield): they lower
/// before the ops nested in them.
static bool isOuterFirst(Operation *op) {
  return isa<scf::ParallelOp, scf::ForallOp, scf::IndexSwitchOp>(op);
}

/// The ops nested in `root` selected by `filter`, last-to-first: enclosing before nested
/// (reverse post-order) or nested before enclosing (reverse pre-order); either way a block's
/// later ops before its earlier ones.
template <WalkOrder order>
static SmallVector<Operation *> collectLastFirst(Operation *root,
                                                 function_ref<bool(Operation *)> filter) {
  SmallVector<Operation *> ops;
  root->walk<order>([&](Operation *op) {
    if (op != root && filter(op))
      ops.push_back(op);
  });
  std::reverse(ops.begin(), ops.end());
  return ops;
}

struct LowerStructuredControlFlowPass
    : public tlc::impl::LowerStructuredControlFlowBase<LowerStructuredControlFlowPass> {
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    populateSCFToControlFlowConversionPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    PatternApplicator applicator(patterns);
    applicator.applyDefaultCostModel();
    LoweringRewriter rewriter(&getContext());
    auto lower = [&](Operation *op) {
      rewriter.setInsertionPoint(op);
      if (succeeded(applicator.matchAndRewrite(op, rewriter)))
        return success();
      return op->emitOpError("cannot be lowered to control flow"), failure();
    };
    // First the ops that need single-block regions, enclosing before nested (scf.forall
    // becomes scf.parallel, which the next round lowers).
    for (unsigned round = 0; round < 3; ++round)
      for (Operation *op : collectLastFirst<WalkOrder::PostOrder>(getOperation(), isOuterFirst))
        if (failed(lower(op)))
          return signalPassFailure();
    // Then the rest, nested before enclosing.
    for (Operation *op : collectLastFirst<WalkOrder::PreOrder>(getOperation(), isStructured))
      if (failed(lower(op)))
        return signalPassFailure();
  }

  FrozenRewritePatternSet patterns;
};
} // namespace
