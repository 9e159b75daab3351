//===- WidenGemmOperands.cpp - 8-bit float gemms onto 16-bit tensor cores --===//
//
// A gemm of 8-bit float tiles runs on tensor cores only as sm_90a's wgmma m64nNk32, with both
// operands K-major in shared memory (float8WgmmaMisfit). Anywhere else -- sm_80 .. sm_89, or a
// B tile in [K, N] order on sm_90a -- it would take the generic lowering, the whole product in
// f32 FMAs. This pass gives such a gemm a 16-bit form instead: each 8-bit float shared operand
// is converted, right before the gemm, into a shared f16 tile of its shape (every e4m3 and e5m2
// value is an f16 exactly), and the gemm multiplies those:
//
//   tile.gemm %a8, %b8, %acc              %a16 = tile.alloc : !tile.buffer<shared 64x128xf16>
//                                 ->      tile.copy %a8 to %a16      (element by element)
//                                         tile.copy %b8 to %b16
//                                         tile.gemm %a16, %b16, %acc
//
// The product is unchanged (f32 accumulation of exact products); what costs is the conversion
// (one pass over each tile by every thread) and the f16 tiles' shared memory. The copies and
// the gemm are ordinary tile ops from here on: tile-assign-mma-layouts picks mma.sync or wgmma
// for the gemm by its own rules, tile-partition-threads places the barriers, and a `pipelined`
// loop keeps its cp.async ring on the 8-bit tiles (the copies read its stages).
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/IR/Builders.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEWIDENGEMMOPERANDS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

#define DEBUG_TYPE "tile-widen-gemm-operands"

/// Whether `gemm` multiplies 8-bit floats that no tensor-core instruction of `target` takes as
/// they are, while a 16-bit form of it could run on tensor cores: shared 8-bit operands (a
/// fragment A keeps the generic lowering), an f32 fragment accumulator.
static bool needsWidening(GemmOp gemm, TargetAttr target) {
  BufferType a = gemm.getA().getType(), b = gemm.getB().getType(), c = gemm.getC().getType();
  if (!isFloat8(a.getElementType()) || !isFloat8(b.getElementType()))
    return false;
  if (!a.isShared() || !b.isShared() || !c.isFragment() || !c.getElementType().isF32())
    return false;
  if (!target.hasMmaSync() && !target.hasWgmma())
    return false;
  return !target.hasWgmma() || !float8WgmmaMisfit(gemm).empty();
}

namespace {
struct WidenGemmOperandsPass
    : public tlc::tile::impl::TileWidenGemmOperandsBase<WidenGemmOperandsPass> {
  using TileWidenGemmOperandsBase::TileWidenGemmOperandsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    TargetAttr target = getTarget(kernel);
    if (!target) {
      kernel.emitOpError() << "has no target; hint: run tile-set-target before "
                              "tile-widen-gemm-operands";
      return signalPassFailure();
    }
    SmallVector<GemmOp> gemms;
    kernel.getBody().walk([&](GemmOp gemm) {
      if (needsWidening(gemm, target))
        gemms.push_back(gemm);
    });
    Block &entry = kernel.getBody().front();
    for (GemmOp gemm : gemms) {
      OpBuilder b(gemm);
      for (OpOperand *operand : {&gemm.getAMutable(), &gemm.getBMutable()}) {
        Value narrow = operand->get();
        auto type = cast<BufferType>(narrow.getType());
        auto wideType = BufferType::get(kernel.getContext(), BufferSpace::Shared, type.getShape(),
                                        b.getF16Type());
        OpBuilder top = OpBuilder::atBlockBegin(&entry);
        Value wide = AllocOp::create(top, gemm.getLoc(), wideType).getBuffer();
        CopyOp::create(b, gemm.getLoc(), narrow, ValueRange{}, wide, ValueRange{});
        operand->set(wide);
      }
    }
  }
};
} // namespace
