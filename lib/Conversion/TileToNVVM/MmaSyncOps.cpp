//===- MmaSyncOps.cpp - cp.async tiles, ldmatrix + mma.sync, row reductions -===//
//
// The building blocks of the mma.sync strategies (sm_80 and later), and the patterns of the
// register strategy that use them outside a pipelined main loop:
//   - a tile copy from a tensor (TileCopy.cpp) into the tile's swizzled place;
//   - a gemm is, per 16-wide k step, ldmatrix.x4 of the warp's A rows (or A from registers: an
//     accumulator-layout fragment is already m16n8k16's A layout, two n8 tiles per k16) and B
//     columns, then mma.sync m16n8k16 into the accumulator registers;
//   - on sm_90a, a gemm marked wgmma whose accumulator has mma.sync's layout on warps stacked
//     along M (16 rows each: wgmma's D fragment, slot for slot) runs wgmma m64nNk16 from
//     descriptors of its swizzled shared tiles, waited for at once;
//   - a reduce of an accumulator along its rows combines a thread's slots of each row, then the
//     four lanes of the quad holding the row (two xor shuffles), then the initial value.
//
//===----------------------------------------------------------------------===//
#include "BuilderMath.h"
#include "PatternsImpl.h"

#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tlc;

namespace {
/// One warp's share of c += A * op(B) on mma.sync (buildWarpMma), in two halves: the operand
/// registers of a k step, then their products. The constructor computes the lane's swizzled
/// addresses once, at the builder's position.
class WarpMma {
public:
  WarpMma(OpBuilder &b, Location loc, Value smemBase, Value tid32,
          const layout::MmaSyncAccLayout &acc, const MmaOperandA &a,
          const layout::SwizzledTile &bTile, bool transB, bool bf16);
  /// 16-wide k steps of one product.
  int64_t kSteps() const { return kDepth / 16; }
  /// The operand registers of k step `step`: A's (4 per m16 tile: ldmatrix.x4 from the shared
  /// tile at a.base, or packed slot pairs of a register fragment), then B's (2 per n8 tile,
  /// ldmatrix.x4 from the shared tile at `bBase`).
  SmallVector<Value> load(const MmaOperandA &a, Value bBase, int64_t step);
  /// c += the product of `frags` (from load), one mma.sync m16n8k16 per m16 x n8 tile.
  void multiply(ArrayRef<Value> frags, SmallVectorImpl<Value> &c);

private:
  SmallVector<Value> ldmatrix(Value offset, bool trans);
  Value kMove(Value laneBase, const layout::SwizzledTile &tile, int64_t k0);

  OpBuilder &b;
  Location loc;
  Value smemBase;
  layout::MmaSyncAccLayout acc;
  layout::SwizzledTile tileA, tileB;
  layout::MmaSyncAccLayout aRegisters;
  bool transB, bf16, aInRegisters = false, aTransposed = false;
  int64_t kDepth = 0;
  Value aLane, bLane;
  SmallVector<Value> aTiles, bPairs;
};
} // namespace

WarpMma::WarpMma(OpBuilder &b, Location loc, Value smemBase, Value tid32,
                 const layout::MmaSyncAccLayout &acc, const MmaOperandA &a,
                 const layout::SwizzledTile &tileB, bool transB, bool bf16)
    : b(b), loc(loc), smemBase(smemBase), acc(acc), tileB(tileB), transB(transB), bf16(bf16) {
  Math m{b, loc};
  Value lane = m.rem(tid32, 32);
  Value warp = m.div(tid32, 32);
  Value wm = m.div(warp, acc.warpsN);
  Value wn = m.rem(warp, acc.warpsN);
  // Lane l gives the row address of matrix l / 8, row l % 8, of an ldmatrix.x4.
  Value matrix = m.div(lane, 8);
  Value inMatrix = m.rem(lane, 8);
  Value low = m.mul(m.rem(matrix, 2), 8);
  Value high = m.mul(m.div(matrix, 2), 8);
  Value warpRow = m.mul(wm, acc.warpRows());
  Value warpCol = m.mul(wn, acc.warpCols());
  aInRegisters = a.inRegisters();
  aRegisters = a.registers;
  tileA = a.tile;
  aTransposed = a.transposed;
  kDepth = aInRegisters ? a.registers.cols : aTransposed ? a.tile.rows : a.tile.cols;
  // A, K-major: lane row warpRow + (matrix % 2) * 8 + l % 8, column chunk (matrix / 2) * 8.
  // A^T, M-major ([K, M], loaded transposed): lane row (matrix / 2) * 8 + l % 8 (k), column
  // warpRow + 16 mi + (matrix % 2) * 8 (m) for the mi-th m16 tile.
  if (!aInRegisters && !aTransposed)
    aLane = buildSwizzledOffset(b, loc, tileA, m.add(warpRow, m.add(low, inMatrix)), high);
  if (aTransposed)
    for (int64_t mi = 0; mi < acc.mTiles(); ++mi)
      aTiles.push_back(buildSwizzledOffset(b, loc, tileA, m.add(high, inMatrix),
                                           m.add(warpRow, m.add(low, 16 * mi))));
  // B^T, K-major: lane row warpCol + (matrix / 2) * 8 + l % 8, column chunk (matrix % 2) * 8.
  // B, row-major (loaded transposed): lane row (matrix % 2) * 8 + l % 8, column
  // warpCol + 16 p + (matrix / 2) * 8 for the p-th pair of n8 tiles.
  if (transB) {
    bLane = buildSwizzledOffset(b, loc, tileB, m.add(warpCol, m.add(high, inMatrix)), low);
  } else {
    for (int64_t ni = 0; ni < acc.nTiles(); ni += 2)
      bPairs.push_back(buildSwizzledOffset(b, loc, tileB, m.add(low, inMatrix),
                                           m.add(warpCol, m.add(high, 8 * ni))));
  }
}

SmallVector<Value> WarpMma::ldmatrix(Value offset, bool trans) {
  MLIRContext *ctx = b.getContext();
  auto i32 = b.getI32Type();
  auto x4 = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32});
  Math m{b, loc};
  Value regs = NVVM::LdMatrixOp::create(
      b, loc, x4, m.sharedPtr(smemBase, offset), b.getI32IntegerAttr(4),
      NVVM::MMALayoutAttr::get(ctx, trans ? NVVM::MMALayout::col : NVVM::MMALayout::row),
      NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
      NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16));
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i) {
    Value reg = LLVM::ExtractValueOp::create(b, loc, regs, i);
    // bf16 pairs travel as i32, f16 pairs as vector<2xf16>.
    out.push_back(bf16 ? reg
                       : LLVM::BitcastOp::create(b, loc, VectorType::get({2}, b.getF16Type()), reg)
                             .getResult());
  }
  return out;
}

/// Addresses: each lane's swizzled offset is computed once (it depends on the lane only); the k
/// steps and tiles then only add or XOR constants. Moving by a multiple of 8 rows keeps the
/// swizzle (it XORs with row bits below 8), so it adds rows * swizzle bytes; moving by 16
/// columns inside a swizzle block flips bits above the lane's 16-byte chunk, so it XORs
/// (k % blockCols) * 2 into the in-row part.
Value WarpMma::kMove(Value laneBase, const layout::SwizzledTile &tile, int64_t k0) {
  Math m{b, loc};
  int64_t block = k0 / tile.blockCols();
  int64_t within = (k0 % tile.blockCols()) * tile.elemBytes;
  Value moved =
      within ? arith::XOrIOp::create(b, loc, laneBase, m.i32(within)).getResult() : laneBase;
  return m.add(moved, block * tile.blockBytes());
}

SmallVector<Value> WarpMma::load(const MmaOperandA &a, Value bBase, int64_t step) {
  Math m{b, loc};
  int64_t k0 = 16 * step;
  Type half = bf16 ? Type(b.getBF16Type()) : Type(b.getF16Type());
  auto pairType = VectorType::get({2}, half);
  // Two register slots (neighbouring columns of one row) as one operand register.
  auto pack = [&](Value lo, Value hi) -> Value {
    Value v = LLVM::UndefOp::create(b, loc, pairType);
    v = LLVM::InsertElementOp::create(b, loc, v, lo, m.i32(0));
    v = LLVM::InsertElementOp::create(b, loc, v, hi, m.i32(1));
    return bf16 ? LLVM::BitcastOp::create(b, loc, b.getI32Type(), v).getResult() : v;
  };
  SmallVector<Value> frags;
  // A: x4 = rows +0/+8 (matrix % 2), k +0/+8 (matrix / 2): a0..a3 of m16n8k16.
  if (aInRegisters) {
    // Tiles 2kk and 2kk + 1 of the fragment: (rows +0, k +0), (+8, +0), (+0, +8), (+8, +8).
    int64_t nA = aRegisters.nTiles();
    for (int64_t mi = 0; mi < acc.mTiles(); ++mi) {
      int64_t s0 = (mi * nA + k0 / 8) * 4, s1 = s0 + 4;
      for (int64_t s : {s0, s0 + 2, s1, s1 + 2})
        frags.push_back(pack(a.slots[s], a.slots[s + 1]));
    }
  } else if (aTransposed) {
    // Matrices (k +0, m +0), (k +0, m +8), (k +8, m +0), (k +8, m +8), transposed: a0..a3.
    for (int64_t mi = 0; mi < acc.mTiles(); ++mi)
      llvm::append_range(frags,
                         ldmatrix(m.add(m.add(a.base, aTiles[mi]), k0 * tileA.swizzleBytes), true));
  } else {
    Value aK = m.add(a.base, kMove(aLane, tileA, k0));
    for (int64_t mi = 0; mi < acc.mTiles(); ++mi)
      llvm::append_range(frags, ldmatrix(m.add(aK, 16 * mi * tileA.swizzleBytes), false));
  }
  // B, two n8 tiles per x4: b0, b1 of tile ni, then of ni + 1.
  for (int64_t ni = 0; ni < acc.nTiles(); ni += 2) {
    Value offset;
    if (transB)
      offset = m.add(m.add(bBase, kMove(bLane, tileB, k0)), 8 * ni * tileB.swizzleBytes);
    else
      offset = m.add(m.add(bBase, bPairs[ni / 2]), k0 * tileB.swizzleBytes);
    llvm::append_range(frags, ldmatrix(offset, /*trans=*/!transB));
  }
  return frags;
}

void WarpMma::multiply(ArrayRef<Value> frags, SmallVectorImpl<Value> &c) {
  auto f32 = b.getF32Type();
  auto result = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  auto ptxType = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  ArrayRef<Value> bFrags = frags.drop_front(4 * acc.mTiles());
  for (int64_t mi = 0; mi < acc.mTiles(); ++mi)
    for (int64_t ni = 0; ni < acc.nTiles(); ++ni) {
      int64_t s0 = (mi * acc.nTiles() + ni) * 4;
      Value d = NVVM::MmaOp::create(
          b, loc, result, frags.slice(4 * mi, 4), bFrags.slice(2 * ni, 2),
          ValueRange{c[s0], c[s0 + 1], c[s0 + 2], c[s0 + 3]}, ArrayRef<int64_t>{16, 8, 16},
          std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
      for (int64_t e = 0; e < 4; ++e)
        c[s0 + e] = LLVM::ExtractValueOp::create(b, loc, d, e);
    }
}

void tlc::buildWarpMma(OpBuilder &b, Location loc, Value smemBase, Value tid32,
                       const layout::MmaSyncAccLayout &acc, const MmaOperandA &a, Value bBase,
                       const layout::SwizzledTile &tileB, bool transB, bool bf16,
                       SmallVectorImpl<Value> &c) {
  WarpMma warp(b, loc, smemBase, tid32, acc, a, tileB, transB, bf16);
  for (int64_t step = 0; step < warp.kSteps(); ++step)
    warp.multiply(warp.load(a, bBase, step), c);
}

//===----------------------------------------------------------------------===//
// The register strategy
//===----------------------------------------------------------------------===//

TileCopyMode tlc::elementMode(Operation *copy) {
  return copy->hasAttr(tile::kUnalignedAttr) ? TileCopyMode::Elements
                                             : TileCopyMode::CompactElements;
}

void tlc::buildAsyncProxyFence(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
}

std::optional<std::pair<layout::SwizzledTile, Value>>
tlc::getSwizzledTile(OpBuilder &b, Location loc, Value buffer) {
  auto castOp = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  if (!castOp)
    return std::nullopt;
  if (castOp->hasAttr(kStageViewAttr)) {
    auto whole = getSwizzledTile(b, loc, castOp.getInputs()[0]);
    if (!whole)
      return std::nullopt;
    whole->second = arith::AddIOp::create(b, loc, whole->second, castOp.getInputs()[1]);
    return whole;
  }
  auto swizzle = castOp->getAttrOfType<IntegerAttr>(tile::kSwizzleAttr);
  auto offset = castOp->getAttrOfType<IntegerAttr>(tile::kOffsetAttr);
  if (!swizzle || !offset)
    return std::nullopt;
  auto type = cast<tile::BufferType>(buffer.getType());
  layout::SwizzledTile tile{type.getShape()[0], type.getShape()[1],
                            type.getElementType().getIntOrFloatBitWidth() / 8, swizzle.getInt()};
  return std::make_pair(
      tile, Value(arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset.getInt())));
}

bool tlc::isSwizzledTile(Value buffer) {
  auto castOp = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  if (!castOp)
    return false;
  if (castOp->hasAttr(kStageViewAttr))
    return isSwizzledTile(castOp.getInputs()[0]);
  return castOp->hasAttr(tile::kSwizzleAttr) && castOp->hasAttr(tile::kOffsetAttr);
}

namespace {

/// The threads that run `op`'s tile code: the block's, or a warp-specialized entry's consumers.
static int64_t blockThreads(Operation *op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (tile::EntryAttr entry = tile::getEntry(func); entry && entry.getComputeThreads())
    return entry.getComputeThreads();
  return func.getKnownBlockSizeAttr()[0];
}

/// copy(T[...], S) marked cp.async: this thread's chunks of the tile as one cp.async group.
struct CpAsyncTileCopy : OpRewritePattern<tile::CopyOp> {
  CpAsyncTileCopy(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(tile::CopyOp op, PatternRewriter &rewriter) const override {
    if (!op->hasAttr(tile::kCpAsyncAttr))
      return failure();
    auto t = getTensorValues(op.getSource());
    if (!isSwizzledTile(op.getDest()) || !t)
      return failure();
    Location loc = op.getLoc();
    auto tile = getSwizzledTile(rewriter, loc, op.getDest());
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    Value smem = buildSharedBase(rewriter, loc, func);
    Value tid32 =
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                   gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x));
    Type elemType =
        tile::getStorageType(cast<tile::BufferType>(op.getDest().getType()).getElementType());
    Value base = tile->second;
    SmallVector<Value> offsets(op.getSourceOffsets());
    // Both versions are compact; the block takes one uniformly.
    Value readable = arith::AndIOp::create(
        rewriter, loc, buildCpAsyncReadable(rewriter, loc, *t, tile->first.elemBytes),
        buildColumnOffsetAligned(rewriter, loc, offsets.back(), tile->first.elemBytes,
                                 /*atRunTime=*/true));
    auto versions = scf::IfOp::create(rewriter, loc, readable, /*withElseRegion=*/true);
    for (TileCopyMode mode : {TileCopyMode::CpAsync, elementMode(op)}) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(mode == TileCopyMode::CpAsync ? versions.thenBlock()
                                                                      : versions.elseBlock());
      buildTileCopy(rewriter, loc, smem, tid32, blockThreads(op), *t, offsets, tile->first, base,
                    elemType, mode);
    }
    NVVM::CpAsyncCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// gemm marked mma_sync outside a pipelined loop: the accumulator's registers, A from a shared
/// tile or from a register fragment, B from a shared tile.
struct MmaSyncGemm : OpRewritePattern<tile::GemmOp> {
  MmaSyncGemm(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(tile::GemmOp op, PatternRewriter &rewriter) const override {
    auto accLayout = getRegisterLayout(op.getC());
    auto aLayout = getRegisterLayout(op.getA());
    if (tile::getMmaKind(op) != tile::MmaKind::MmaSync || !accLayout ||
        !isSwizzledTile(op.getB()) || !(aLayout || isSwizzledTile(op.getA())))
      return failure();
    Location loc = op.getLoc();
    auto bTile = getSwizzledTile(rewriter, loc, op.getB());
    MmaOperandA a;
    if (aLayout) {
      Value memref = getBufferMemref(op.getA());
      for (int64_t s = 0; s < aLayout->slots(); ++s)
        a.slots.push_back(memref::LoadOp::create(
            rewriter, loc, memref, ValueRange{arith::ConstantIndexOp::create(rewriter, loc, s)}));
      a.registers = aLayout->mma;
    } else {
      auto aTile = getSwizzledTile(rewriter, loc, op.getA());
      a.tile = aTile->first;
      a.base = aTile->second;
      a.transposed = op.getTransposeA();
    }
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    Value smem = buildSharedBase(rewriter, loc, func);
    Value tid32 =
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                   gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x));
    Value accMemref = getBufferMemref(op.getC());
    SmallVector<Value> c;
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0f));
    for (int64_t s = 0; s < accLayout->slots(); ++s)
      c.push_back(op.getClear() ? zero
                                : memref::LoadOp::create(
                                      rewriter, loc, accMemref,
                                      ValueRange{arith::ConstantIndexOp::create(rewriter, loc, s)})
                                      .getResult());
    Value bBase = bTile->second;
    bool bf16 = op.getB().getType().getElementType().isBF16();
    buildWarpMma(rewriter, loc, smem, tid32, accLayout->mma, a, bBase, bTile->first,
                 op.getTransposeB(), bf16, c);
    for (int64_t s = 0; s < accLayout->slots(); ++s)
      memref::StoreOp::create(rewriter, loc, c[s], accMemref,
                              ValueRange{arith::ConstantIndexOp::create(rewriter, loc, s)});
    rewriter.eraseOp(op);
    return success();
  }
};

/// gemm marked wgmma on the register strategy's accumulator: mma.sync's layout on warps
/// stacked along M, 16 rows each, holds every element where wgmma's D fragment does. Each
/// warpgroup multiplies its 64 rows of A (from the shared tile's descriptor, or from a register
/// fragment of the same layout: each warp's 16 rows, wgmma's register form) by B, in
/// instructions of N <= 256 columns (slots [j N / 2, (j + 1) N / 2) for the j-th), one wgmma
/// group; it waits for them at once unless the gemm is `tile.async` (then its tile.mma_wait,
/// placed by tile-place-mma-waits, does). The async-proxy fences of the operands' writers are
/// placed around it (tile-place-async-waits, tile-pipeline-register-rings).
struct WgmmaGemm : OpRewritePattern<tile::GemmOp> {
  WgmmaGemm(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(tile::GemmOp op, PatternRewriter &rewriter) const override {
    auto acc = getRegisterLayout(op.getC());
    auto aLayout = getRegisterLayout(op.getA());
    if (tile::getMmaKind(op) != tile::MmaKind::Wgmma || !acc ||
        acc->kind != tile::AccLayout::Kind::MmaSync)
      return failure();
    bool aRegisters = aLayout && aLayout->kind == tile::AccLayout::Kind::MmaSync &&
                      aLayout->mma.warpsM == acc->mma.warpsM && aLayout->mma.warpsN == 1;
    if (!(aRegisters || isSwizzledTile(op.getA())) || !isSwizzledTile(op.getB()) ||
        (aRegisters && op.getTransposeA()))
      return failure();
    const layout::MmaSyncAccLayout &l = acc->mma;
    std::optional<layout::WgmmaAccLayout> instr =
        tile::getRegisterWgmmaInstr(*acc, op.getTransposeB());
    if (!instr)
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto bTile = getSwizzledTile(b, loc, op.getB());
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    Value smemAddr =
        LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), buildSharedBase(b, loc, func));
    auto cst32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
    Value tid32 = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                             gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value warpgroup = arith::DivUIOp::create(b, loc, tid32, cst32(128));
    Value accMemref = getBufferMemref(op.getC());
    int64_t perTile = instr->cols / 2, tiles = l.cols / instr->cols;
    auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                       SmallVector<Type>(perTile, b.getF32Type()));
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    auto slot = [&](int64_t s) { return arith::ConstantIndexOp::create(b, loc, s); };
    SmallVector<Value> acc32;
    for (int64_t j = 0; j < tiles; ++j) {
      Value s = LLVM::UndefOp::create(b, loc, structType);
      for (int64_t r = 0; r < perTile; ++r) {
        Value v = op.getClear()
                      ? zero
                      : memref::LoadOp::create(b, loc, accMemref, ValueRange{slot(j * perTile + r)})
                            .getResult();
        s = LLVM::InsertValueOp::create(b, loc, s, v, r);
      }
      acc32.push_back(s);
    }
    bool bf16 = op.getB().getType().getElementType().isBF16();
    // A from registers: the warp's 16 rows of each k16 step as mma.sync's m16n8k16 A fragment
    // (slots of n8 tiles 2kk and 2kk + 1: rows +0/+8, k +0/+8), bf16/f16 pairs as i32.
    SmallVector<Value> aRegs;
    if (aRegisters) {
      Value aMemref = getBufferMemref(op.getA());
      Type half = bf16 ? Type(b.getBF16Type()) : Type(b.getF16Type());
      auto pairType = VectorType::get({2}, half);
      auto pack = [&](int64_t s) -> Value {
        Value v = LLVM::UndefOp::create(b, loc, pairType);
        for (int64_t e = 0; e < 2; ++e)
          v = LLVM::InsertElementOp::create(
              b, loc, v, memref::LoadOp::create(b, loc, aMemref, ValueRange{slot(s + e)}),
              cst32(e));
        return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
      };
      for (int64_t kk = 0; kk < aLayout->mma.nTiles() / 2; ++kk)
        for (int64_t s : {0, 2, 4, 6})
          aRegs.push_back(pack(8 * kk + s));
    }
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    for (int64_t j = 0; j < tiles; ++j) {
      // Instruction j reads B's columns from j N: as the j-th warpgroup along N would.
      if (aRegisters) {
        buildWarpgroupMmaRegA(b, loc, smemAddr, cst32(j), *instr, aRegs, bTile->second,
                              bTile->first, op.getTransposeB(), bf16, acc32[j]);
        continue;
      }
      auto aTile = getSwizzledTile(b, loc, op.getA());
      SmallVector<Value> one{acc32[j]};
      buildWarpgroupMma(b, loc, smemAddr, warpgroup, cst32(j), *instr, aTile->second, aTile->first,
                        op.getTransposeA(), bTile->second, bTile->first, op.getTransposeB(),
                        op.getB().getType().getElementType(), one);
      acc32[j] = one.front();
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    // An async gemm (tile-place-mma-waits) leaves the wait, and handing the registers over, to
    // its tile.mma_wait.
    bool async = op->hasAttr(tile::kAsyncAttr);
    if (!async)
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    for (int64_t j = 0; j < tiles; ++j) {
      Value s = async ? acc32[j] : fenceAccumulators(b, loc, acc32[j]);
      for (int64_t r = 0; r < perTile; ++r)
        memref::StoreOp::create(b, loc, LLVM::ExtractValueOp::create(b, loc, s, r), accMemref,
                                ValueRange{slot(j * perTile + r)});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// reduce(acc, rows, dim = 1): per row slot, the thread's slots of that row, then the quad; where
/// warps also split the columns (row values held by the warps of a block row), then the warps'
/// partial values through the `scratch` buffer (scratch[row * warpsN + wn]), each replica
/// combining them in the same order.
struct ReduceRows : OpRewritePattern<tile::ReduceOp> {
  ReduceRows(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(tile::ReduceOp op, PatternRewriter &rewriter) const override {
    auto src = getRegisterLayout(op.getSource());
    auto dst = getRegisterLayout(op.getDest());
    // argmax / argmin keep the generic lowering (tile-assign-mma-layouts converts their
    // fragments).
    if (!src || !dst || src->kind != tile::AccLayout::Kind::MmaSync ||
        dst->kind != tile::AccLayout::Kind::MmaSyncRows || op.getDim() != 1 || op.isArgReduce() ||
        dst->mma.warpsN != src->mma.warpsN)
      return failure();
    const layout::MmaSyncAccLayout &l = src->mma;
    bool acrossWarps = l.warpsN > 1;
    if (acrossWarps && (!op.getScratch() || !getBufferMemref(op.getScratch())))
      return rewriter.notifyMatchFailure(op, "warps split the rows but the reduce has no scratch");
    // Before this reduce's own barrier joins its block.
    bool trailingBarrier = acrossWarps && !siblingBarrier(op);
    Location loc = op.getLoc();
    Value srcMemref = getBufferMemref(op.getSource()), dstMemref = getBufferMemref(op.getDest());
    Value initMemref = op.getInit() ? getBufferMemref(op.getInit()) : Value();
    StringRef kind = op.getKind();
    auto combine = [&](Value x, Value y) { return buildReduceCombine(rewriter, loc, kind, x, y); };
    // Narrow float sums (f16 accumulators) add in f32 and round once at the store.
    Type elem = op.getDest().getType().getElementType();
    Type acc = tile::getReduceAccumulatorType(elem, kind);
    auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
    auto slot = [&](Value memref, int64_t s) -> Value {
      Value v = memref::LoadOp::create(rewriter, loc, memref, ValueRange{cst(s)});
      return acc == elem ? v : convertElement(rewriter, loc, v, elem, acc);
    };
    // Row slot r over this warp's columns.
    auto warpPartial = [&](int64_t r) {
      int64_t mi = r / 2, half = r % 2;
      Value v;
      for (int64_t ni = 0; ni < l.nTiles(); ++ni)
        for (int64_t e = 2 * half; e < 2 * half + 2; ++e) {
          Value x = slot(srcMemref, (mi * l.nTiles() + ni) * 4 + e);
          v = v ? combine(v, x) : x;
        }
      // The quad: lanes 4g .. 4g + 3 hold row g's columns.
      for (int64_t mask : {1, 2}) {
        Value offset = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), mask);
        Value width = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 32);
        Value other = gpu::ShuffleOp::create(rewriter, loc, v, offset, width, gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        v = combine(v, other);
      }
      return v;
    };
    auto finish = [&](int64_t r, Value v) {
      if (op.getAccumulate())
        v = combine(slot(dstMemref, r), v);
      else if (initMemref)
        v = combine(slot(initMemref, r), v);
      if (acc != elem)
        v = convertElement(rewriter, loc, v, acc, elem);
      memref::StoreOp::create(rewriter, loc, v, dstMemref, ValueRange{cst(r)});
    };
    if (!acrossWarps) {
      for (int64_t r = 0; r < l.rowSlots(); ++r)
        finish(r, warpPartial(r));
      rewriter.eraseOp(op);
      return success();
    }
    SmallVector<Value> partial;
    for (int64_t r = 0; r < l.rowSlots(); ++r)
      partial.push_back(warpPartial(r));
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value warpColumn = arith::RemUIOp::create(
        rewriter, loc, arith::DivUIOp::create(rewriter, loc, tid, cst(32)), cst(l.warpsN));
    // scratch index of (row of row slot r, warp column 0).
    SmallVector<Value> rowBase;
    for (int64_t r = 0; r < l.rowSlots(); ++r) {
      Value row = tile::buildAccCoords(rewriter, loc, *dst, tid, cst(r)).first;
      rowBase.push_back(arith::MulIOp::create(rewriter, loc, row, cst(l.warpsN)));
    }
    // Lane 0 of each quad writes its warp's partial values.
    Value quadLeader =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(rewriter, loc, tid, cst(4)), cst(0));
    exchangeRowPartials(
        rewriter, loc, op.getScratch(), quadLeader, partial,
        [&](int64_t r) { return arith::AddIOp::create(rewriter, loc, rowBase[r], warpColumn); },
        l.warpsN,
        [&](int64_t r, int64_t k) {
          return arith::AddIOp::create(rewriter, loc, rowBase[r], cst(k));
        },
        combine, trailingBarrier);
    for (int64_t r = 0; r < l.rowSlots(); ++r)
      finish(r, partial[r]);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.stage: a view of one stage of a ring buffer (kStageViewAttr), its byte offset the stage
/// times the tile's size.
struct StageView : OpRewritePattern<tile::StageOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::StageOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value stage = arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(), op.getIndex());
    Value offset = arith::MulIOp::create(
        rewriter, loc, stage,
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                     op.getBuffer().getType().getSizeInBytes()));
    auto view = UnrealizedConversionCastOp::create(rewriter, loc, op.getType(),
                                                   ValueRange{op.getBuffer(), offset});
    view->setAttr(kStageViewAttr, rewriter.getUnitAttr());
    rewriter.replaceOp(op, view.getResult(0));
    return success();
  }
};

/// tile.async_wait: cp.async.wait_group (then bar.warp.sync with `warp`).
struct AsyncWait : OpRewritePattern<tile::AsyncWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::AsyncWaitOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::CpAsyncWaitGroupOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(static_cast<int32_t>(op.getPending())));
    // `warp`: then every lane's copies (a row copied by one warp is realigned by it).
    if (op.getWarp())
      NVVM::SyncWarpOp::create(
          rewriter, loc, arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), -1));
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.mma_wait: wgmma.wait_group, then the registers of the accumulators it completes pass
/// through a register fence (fenceAccumulators), so that no use of them moves above the wait.
struct MmaWait : OpRewritePattern<tile::MmaWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::MmaWaitOp op, PatternRewriter &rewriter) const override {
    SmallVector<Value> memrefs;
    for (Value buffer : op.getBuffers()) {
      Value memref = getBufferMemref(buffer);
      if (!memref)
        return failure(); // its fragment is not lowered yet
      memrefs.push_back(memref);
    }
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, op.getPending());
    constexpr int64_t kChunk = 32;
    for (Value memref : memrefs) {
      int64_t slots = cast<MemRefType>(memref.getType()).getNumElements();
      Type element = cast<MemRefType>(memref.getType()).getElementType();
      for (int64_t first = 0; first < slots; first += kChunk) {
        int64_t n = std::min(kChunk, slots - first);
        auto structType =
            LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(n, element));
        Value s = LLVM::UndefOp::create(b, loc, structType);
        for (int64_t r = 0; r < n; ++r)
          s = LLVM::InsertValueOp::create(
              b, loc, s,
              memref::LoadOp::create(b, loc, memref,
                                     ValueRange{arith::ConstantIndexOp::create(b, loc, first + r)}),
              r);
        s = fenceAccumulators(b, loc, s);
        for (int64_t r = 0; r < n; ++r)
          memref::StoreOp::create(b, loc, LLVM::ExtractValueOp::create(b, loc, s, r), memref,
                                  ValueRange{arith::ConstantIndexOp::create(b, loc, first + r)});
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.async_proxy_fence: fence.proxy.async.shared::cta.
struct AsyncProxyFence : OpRewritePattern<tile::AsyncProxyFenceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::AsyncProxyFenceOp op,
                                PatternRewriter &rewriter) const override {
    buildAsyncProxyFence(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tlc::populateMmaSyncPatterns(RewritePatternSet &patterns) {
  patterns.add<CpAsyncTileCopy, MmaSyncGemm, WgmmaGemm, ReduceRows, StageView, AsyncWait,
               AsyncProxyFence, MmaWait>(patterns.getContext());
}
