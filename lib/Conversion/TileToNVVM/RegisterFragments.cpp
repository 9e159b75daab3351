//===- RegisterFragments.cpp - Accumulators held in registers -------------===//
//
// A fragment with a register layout (tile-assign-mma-layouts: wgmma's or mma.sync's) lives in
// registers: a per-thread
// array of its slots, allocated in the entry block so that LLVM promotes it to registers once the
// slot loops are unrolled. fill, read_slot/write_slot and copy to a tensor index the slots
// directly; the element a slot holds follows from the layout (tile::AccLayout: wgmma's or
// mma.sync's).
//
//===----------------------------------------------------------------------===//
#include "PatternsImpl.h"

#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace tlc;

std::optional<tile::AccLayout> tlc::getRegisterLayout(Value buffer) {
  auto castOp = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  if (!castOp)
    return std::nullopt;
  return tile::AccLayout::fromAttr(castOp->getAttr(tile::kLayoutAttr),
                                   cast<tile::BufferType>(buffer.getType()).getShape());
}

Value tlc::lowerRegisterFragment(OpBuilder &b, tile::AllocOp alloc, gpu::GPUFuncOp func) {
  auto layout = tile::getAccLayout(alloc.getBuffer());
  auto type = alloc.getBuffer().getType();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  auto memrefType = MemRefType::get({layout->slots()}, tile::getStorageType(type.getElementType()));
  Value memref = memref::AllocaOp::create(b, alloc.getLoc(), memrefType);
  auto castOp = UnrealizedConversionCastOp::create(b, alloc.getLoc(), type, memref);
  castOp->setAttr(tile::kLayoutAttr, alloc->getAttr(tile::kLayoutAttr));
  return castOp.getResult(0);
}

/// Ties the accumulator registers in `tile` (an LLVM struct of f32) to this point of the program,
/// as CUTLASS's warpgroup_fence_operand does: an empty side-effecting inline asm that reads and
/// rewrites each of them. Reads of the values after a wgmma wait then cannot move above the
/// wait, and each register enters the next wgmma as a distinct value (no copies, which ptxas
/// would have to serialize against the asynchronous multiply).
Value tlc::fenceAccumulators(OpBuilder &b, Location loc, Value tile) {
  auto type = cast<LLVM::LLVMStructType>(tile.getType());
  unsigned n = type.getBody().size();
  SmallVector<Value> values;
  for (unsigned i = 0; i < n; ++i)
    values.push_back(LLVM::ExtractValueOp::create(b, loc, tile, i));
  std::string constraints;
  for (unsigned i = 0; i < n; ++i)
    constraints += (i ? ",=f" : "=f");
  for (unsigned i = 0; i < n; ++i)
    constraints += "," + std::to_string(i);
  auto asmOp =
      LLVM::InlineAsmOp::create(b, loc, type, values, "", constraints, /*has_side_effects=*/true,
                                /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
                                LLVM::AsmDialectAttr(), ArrayAttr());
  return asmOp.getResult(0);
}

static Value linearThreadId(OpBuilder &b, Location loc) {
  return gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
}

namespace {

struct FillSlots : OpRewritePattern<tile::FillOp> {
  FillSlots(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(tile::FillOp op, PatternRewriter &rewriter) const override {
    auto layout = getRegisterLayout(op.getBuffer());
    if (!layout)
      return failure();
    Value memref = getBufferMemref(op.getBuffer());
    Location loc = op.getLoc();
    // Each slot gets its own register (through a fence): a wgmma accumulator that starts as
    // one shared constant would need copies inside the main loop.
    int64_t n = layout->slots();
    auto structType = LLVM::LLVMStructType::getLiteral(
        getContext(), SmallVector<Type>(n, op.getValue().getType()));
    Value values = LLVM::UndefOp::create(rewriter, loc, structType);
    for (int64_t s = 0; s < n; ++s)
      values = LLVM::InsertValueOp::create(rewriter, loc, values, op.getValue(), s);
    if (op.getValue().getType().isF32())
      values = fenceAccumulators(rewriter, loc, values);
    for (int64_t s = 0; s < n; ++s)
      memref::StoreOp::create(rewriter, loc, LLVM::ExtractValueOp::create(rewriter, loc, values, s),
                              memref, ValueRange{arith::ConstantIndexOp::create(rewriter, loc, s)});
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReadSlot : LoweredBufferPattern<tile::ReadSlotOp> {
  using LoweredBufferPattern::LoweredBufferPattern;
  void lower(tile::ReadSlotOp op, Value memref, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<memref::LoadOp>(op, memref, ValueRange{op.getSlot()});
  }
};

struct WriteSlot : LoweredBufferPattern<tile::WriteSlotOp> {
  using LoweredBufferPattern::LoweredBufferPattern;
  void lower(tile::WriteSlotOp op, Value memref, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<memref::StoreOp>(op, op.getValue(), memref,
                                                 ValueRange{op.getSlot()});
  }
};

/// copy(acc, C[r0, c0]): each thread stores its slots, converted, masked at the edges.
struct CopySlotsToTensor : OpRewritePattern<tile::CopyOp> {
  CopySlotsToTensor(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(tile::CopyOp op, PatternRewriter &rewriter) const override {
    auto layout = getRegisterLayout(op.getSource());
    // Row values (a quad holds each row) go through shared memory (tile-assign-mma-layouts).
    if (!layout || layout->kind == tile::AccLayout::Kind::MmaSyncRows)
      return failure();
    auto tensor = getTensorValues(op.getDest());
    if (!tensor)
      return failure();
    Location loc = op.getLoc();
    Value memref = getBufferMemref(op.getSource());
    Type dstType = cast<tile::TensorType>(op.getDest().getType()).getElementType();
    SmallVector<Value> offsets(op.getDestOffsets());
    size_t lead = offsets.size() - 2;
    Value tid = linearThreadId(rewriter, loc);
    // Slots 2j and 2j + 1 hold neighbouring columns of one row: stored as a pair.
    for (int64_t s = 0; s < layout->slots(); s += 2) {
      auto [row, col] = tile::buildAccCoords(rewriter, loc, *layout, tid,
                                             arith::ConstantIndexOp::create(rewriter, loc, s));
      SmallVector<Value> pair;
      for (int64_t i = 0; i < 2; ++i) {
        Value value = memref::LoadOp::create(
            rewriter, loc, memref,
            ValueRange{arith::ConstantIndexOp::create(rewriter, loc, s + i)});
        pair.push_back(convertElement(rewriter, loc, value, dstType));
      }
      SmallVector<Value> indices(offsets);
      indices[lead] = arith::AddIOp::create(rewriter, loc, offsets[lead], row);
      indices[lead + 1] = arith::AddIOp::create(rewriter, loc, offsets[lead + 1], col);
      buildMaskedStorePair(rewriter, loc, *tensor, pair[0], pair[1], indices);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// copy between a register fragment and a buffer in shared memory (a shared tile, or a
/// fragment kept there: an explicit layout conversion of tile-assign-mma-layouts): each thread
/// moves its own slots to or from their elements (swizzled where the tile is), converted; a
/// barrier follows, as after every block-wide write or read of shared memory.
struct CopySlotsAndBuffer : OpRewritePattern<tile::CopyOp> {
  CopySlotsAndBuffer(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(tile::CopyOp op, PatternRewriter &rewriter) const override {
    auto srcLayout = getRegisterLayout(op.getSource());
    auto dstLayout = getRegisterLayout(op.getDest());
    if (static_cast<bool>(srcLayout) == static_cast<bool>(dstLayout))
      return failure();
    Value slots = srcLayout ? op.getSource() : op.getDest();
    Value buffer = srcLayout ? op.getDest() : op.getSource();
    auto bufferType = dyn_cast<tile::BufferType>(buffer.getType());
    if (!bufferType || bufferType.isLocal() || !getBufferMemref(buffer) || !getBufferMemref(slots))
      return failure();
    const tile::AccLayout &layout = srcLayout ? *srcLayout : *dstLayout;
    Location loc = op.getLoc();
    Value memref = getBufferMemref(slots);
    Type dstType = cast<tile::BufferType>(op.getDest().getType()).getElementType();
    Type srcType = cast<tile::BufferType>(op.getSource().getType()).getElementType();
    bool rows = layout.kind == tile::AccLayout::Kind::MmaSyncRows;
    Value tid = linearThreadId(rewriter, loc);
    for (int64_t s = 0; s < layout.slots(); ++s) {
      Value slot = arith::ConstantIndexOp::create(rewriter, loc, s);
      auto [row, col] = tile::buildAccCoords(rewriter, loc, layout, tid, slot);
      SmallVector<Value> coords{row};
      if (!rows)
        coords.push_back(col);
      if (srcLayout) {
        Value value = memref::LoadOp::create(rewriter, loc, memref, ValueRange{slot});
        storeBufferElement(rewriter, loc, convertElement(rewriter, loc, value, dstType), buffer,
                           coords);
      } else {
        Value value = loadBufferElement(rewriter, loc, buffer, coords);
        memref::StoreOp::create(
            rewriter, loc,
            convertElement(rewriter, loc, value, dstType, srcType.isUnsignedInteger()), memref,
            ValueRange{slot});
      }
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tlc::populateRegisterFragmentPatterns(RewritePatternSet &patterns) {
  patterns.add<FillSlots, ReadSlot, WriteSlot, CopySlotsToTensor, CopySlotsAndBuffer>(
      patterns.getContext());
}
