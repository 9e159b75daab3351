//===- MmaSyncPipeline.cpp - sm_80..sm_90: cp.async ring, ldmatrix, mma.sync -===//
//
// Materializes a main loop marked `tile.pipeline = "cp_async_mma"` (tile-software-pipeline) in a
// kernel of the mma.sync strategy:
//
//   prologue: the copies of iterations 0 .. S-2 into stages 0 .. S-2, one cp.async group each;
//   iteration i: wait until at most S-2 groups are pending (stage i % S has landed), barrier,
//     then per 16-wide k step ldmatrix the warp's A and B fragments from the swizzled stage and
//     mma.sync m16n8k16 into the accumulator registers; then the copies of iteration i + S - 1
//     into stage (i + S - 1) % S (the stage iteration i - 1 read, which every thread has left
//     at the barrier), one group;
//   drain: wait for every group, barrier.
//
// Each copy moves its tile in 16-byte chunks spread over the threads: cp.async.cg with the source
// size cut at the tensor's edge (the rest of the chunk is zero-filled), into the chunk's swizzled
// place (layout::SwizzledTile). A tensor cp.async cannot read 16 bytes at a time from (last stride
// not 1, base or row stride not 16-byte aligned) takes, uniformly for the block, element-wise
// masked loads and shared stores instead: slower, same layout, same answer.
//
//===----------------------------------------------------------------------===//
#include "PatternsImpl.h"

#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;

namespace {
class MmaSyncBuilder {
public:
  MmaSyncBuilder(tile::KernelOp kernel, gpu::GPUFuncOp func, OpBuilder &b)
      : kernel(kernel), func(func), b(b), ctx(kernel.getContext()), loc(kernel.getLoc()) {}

  LogicalResult build(IRMapping &mapping);

private:
  Value cstIndex(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value cst32(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }
  Value cst64(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v); }
  Value toI32(Value index) { return arith::IndexCastOp::create(b, loc, b.getI32Type(), index); }
  Value toI64(Value index) { return arith::IndexCastOp::create(b, loc, b.getI64Type(), index); }
  Value sharedPtr(Value offset) {
    return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, 3), b.getI8Type(),
                               smemBase, ValueRange{offset});
  }
  static int64_t attrInt(Value buffer, StringRef name) {
    return buffer.getDefiningOp()->getAttrOfType<IntegerAttr>(name).getInt();
  }
  layout::SwizzledTile tileOf(Value buffer) {
    auto type = cast<tile::BufferType>(buffer.getType());
    return {type.getShape()[0], type.getShape()[1],
            type.getElementType().getIntOrFloatBitWidth() / 8,
            attrInt(buffer, tile::kSwizzleAttr)};
  }
  /// Byte offset (i32) of element (row, col) in `tile`, for a row known only at run time and a
  /// column that is a multiple of 8 (a 16-byte chunk).
  Value swizzledOffset(const layout::SwizzledTile &tile, Value row, Value col) {
    Value chunks = cst32(tile.swizzleBytes / 16);
    Value chunk = arith::DivUIOp::create(b, loc, col, cst32(8));
    Value block = arith::DivUIOp::create(b, loc, chunk, chunks);
    Value inBlock = arith::RemUIOp::create(b, loc, chunk, chunks);
    Value linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, cst32(tile.swizzleBytes)),
        arith::MulIOp::create(b, loc, inBlock, cst32(16)));
    Value bits = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, linear, cst32(7)),
                                       cst32(tile.swizzleBytes / 16 - 1));
    Value swizzled = arith::XOrIOp::create(b, loc, linear,
                                           arith::ShLIOp::create(b, loc, bits, cst32(4)));
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, block, cst32(tile.blockBytes())), swizzled);
  }

  void issueCopies(scf::ForOp loop, IRMapping mapping, Value iv, Value stage);
  void compute(scf::ForOp loop, IRMapping &mapping, Value stage);
  void buildMainLoop(scf::ForOp loop, IRMapping &mapping);
  void buildRing(scf::ForOp loop, IRMapping &mapping, Value lb, Value step, Value count);

  tile::KernelOp kernel;
  gpu::GPUFuncOp func;
  OpBuilder &b;
  MLIRContext *ctx;
  Location loc;
  Value smemBase, tid, tid32;
  int64_t threads = 0, stages = 1;
  /// Whether the loop being built copies with 16-byte cp.async chunks (else element by element).
  bool vectorCopies = true;
};
} // namespace

void MmaSyncBuilder::issueCopies(scf::ForOp loop, IRMapping mapping, Value iv, Value stage) {
  mapping.map(loop.getInductionVar(), iv);
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto copy = dyn_cast<tile::CopyOp>(op);
    if (!copy)
      continue;
    Value dest = copy.getDest();
    layout::SwizzledTile tile = tileOf(dest);
    auto t = getTensorValues(mapping.lookup(copy.getSource()));
    Type elemType = tile::getStorageType(cast<tile::BufferType>(dest.getType()).getElementType());
    Value row0 = toI64(rematerialize(b, copy.getSourceOffsets()[0], mapping, {}));
    Value col0 = toI64(rematerialize(b, copy.getSourceOffsets()[1], mapping, {}));
    Value stageBase = arith::AddIOp::create(
        b, loc, cst32(attrInt(dest, tile::kOffsetAttr)),
        arith::MulIOp::create(b, loc, stage, cst32(tile.bytes())));
    int64_t chunksPerRow = tile.cols / 8;
    int64_t chunks = tile.rows * chunksPerRow;
    if (!vectorCopies) {
      // Element by element, masked, into the same swizzled place: a compact loop (this path
      // is for tensors cp.async cannot read 16 bytes at a time from; it need not be fast).
      auto elements = scf::ForOp::create(b, loc, tid, cstIndex(tile.rows * tile.cols),
                                         cstIndex(threads));
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(elements.getBody());
      Value e = toI32(elements.getInductionVar());
      Value r = arith::DivUIOp::create(b, loc, e, cst32(tile.cols));
      Value c = arith::RemUIOp::create(b, loc, e, cst32(tile.cols));
      Value chunkCol = arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, c, cst32(8)),
                                             cst32(8));
      Value inChunk = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, c, cst32(8)),
                                            cst32(tile.elemBytes));
      Value at = arith::AddIOp::create(
          b, loc, stageBase,
          arith::AddIOp::create(b, loc, swizzledOffset(tile, r, chunkCol), inChunk));
      Value row = arith::IndexCastOp::create(
          b, loc, b.getIndexType(),
          arith::AddIOp::create(b, loc, row0, arith::ExtUIOp::create(b, loc, b.getI64Type(), r)));
      Value col = arith::IndexCastOp::create(
          b, loc, b.getIndexType(),
          arith::AddIOp::create(b, loc, col0, arith::ExtUIOp::create(b, loc, b.getI64Type(), c)));
      Value value = buildMaskedLoad(b, loc, *t, elemType, ValueRange{row, col});
      LLVM::StoreOp::create(b, loc, value, sharedPtr(at));
      continue;
    }
    for (int64_t first = 0; first < chunks; first += threads) {
      Value chunk = arith::AddIOp::create(b, loc, tid32, cst32(first));
      std::optional<scf::IfOp> guard;
      OpBuilder::InsertionGuard outer(b);
      if (first + threads > chunks) {
        guard = scf::IfOp::create(
            b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, chunk, cst32(chunks)),
            /*withElseRegion=*/false);
        b.setInsertionPointToStart(guard->thenBlock());
      }
      Value r = arith::DivUIOp::create(b, loc, chunk, cst32(chunksPerRow));
      Value c = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, chunk, cst32(chunksPerRow)),
                                      cst32(8));
      Value dst = sharedPtr(arith::AddIOp::create(b, loc, stageBase, swizzledOffset(tile, r, c)));
      Value grow = arith::AddIOp::create(b, loc, row0, arith::ExtUIOp::create(b, loc, b.getI64Type(), r));
      Value gcol = arith::AddIOp::create(b, loc, col0, arith::ExtUIOp::create(b, loc, b.getI64Type(), c));
      {
        // cp.async: 16 bytes, cut at the tensor's last column; nothing from rows outside it.
        Value rowIn = arith::AndIOp::create(
            b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, grow, cst64(0)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, grow, t->sizes[0]));
        Value left = arith::SubIOp::create(b, loc, t->sizes[1], gcol);
        left = arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, left, cst64(0)),
                                      cst64(8));
        Value colIn = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, gcol, cst64(0));
        Value valid = arith::SelectOp::create(
            b, loc, arith::AndIOp::create(b, loc, rowIn, colIn), left, cst64(0));
        Value bytes = arith::TruncIOp::create(
            b, loc, b.getI32Type(), arith::MulIOp::create(b, loc, valid, cst64(2)));
        // The source must be a valid address even when no byte is read: the tensor's base then.
        Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, valid, cst64(0));
        Value offset = arith::SelectOp::create(
            b, loc, any,
            arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, grow, t->strides[0]), gcol),
            cst64(0));
        Value src = LLVM::GEPOp::create(b, loc, t->base.getType(), elemType, t->base,
                                        ArrayRef<LLVM::GEPArg>{offset});
        NVVM::CpAsyncOp::create(b, loc, dst, src, b.getI32IntegerAttr(16),
                                NVVM::LoadCacheModifierKindAttr::get(
                                    ctx, NVVM::LoadCacheModifierKind::CG),
                                bytes);
      }
    }
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
}

void MmaSyncBuilder::compute(scf::ForOp loop, IRMapping &mapping, Value stage) {
  SmallVector<tile::GemmOp> gemms;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto gemm = dyn_cast<tile::GemmOp>(op))
      gemms.push_back(gemm);
  Value acc = mapping.lookup(gemms.front().getC());
  layout::MmaSyncAccLayout layout = getRegisterLayout(acc)->mma;
  Value accMemref = getBufferMemref(acc);
  auto i32 = b.getI32Type();
  auto f32 = b.getF32Type();
  Value lane = arith::RemUIOp::create(b, loc, tid32, cst32(32));
  Value warp = arith::DivUIOp::create(b, loc, tid32, cst32(32));
  Value wm = arith::DivUIOp::create(b, loc, warp, cst32(layout.warpsN));
  Value wn = arith::RemUIOp::create(b, loc, warp, cst32(layout.warpsN));
  // Lane l gives the row address of matrix l / 8, row l % 8, of an ldmatrix.x4.
  Value matrix = arith::DivUIOp::create(b, loc, lane, cst32(8));
  Value inMatrix = arith::RemUIOp::create(b, loc, lane, cst32(8));
  Value low = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, matrix, cst32(2)), cst32(8));
  Value high = arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, matrix, cst32(2)), cst32(8));
  auto x4 = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32});
  auto ldmatrix = [&](Value offset, bool trans) {
    Value regs = NVVM::LdMatrixOp::create(
        b, loc, x4, sharedPtr(offset), b.getI32IntegerAttr(4),
        NVVM::MMALayoutAttr::get(ctx, trans ? NVVM::MMALayout::col : NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16));
    SmallVector<Value> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, regs, i));
    return out;
  };
  // Addresses: each lane's swizzled offset is computed once (it depends on the lane only, and
  // LLVM hoists it out of the main loop); the k steps and tiles then only add or XOR constants.
  // Moving by a multiple of 8 rows keeps the swizzle (it XORs with row bits below 8), so it adds
  // rows * swizzle bytes; moving by 16 columns inside a swizzle block flips bits above the lane's
  // 16-byte chunk, so it XORs (k % blockCols) * 2 into the in-row part.
  auto kMove = [&](Value laneBase, const layout::SwizzledTile &tile, int64_t k0) -> Value {
    int64_t block = k0 / tile.blockCols();
    int64_t within = (k0 % tile.blockCols()) * tile.elemBytes;
    Value moved = within ? arith::XOrIOp::create(b, loc, laneBase, cst32(within)).getResult()
                         : laneBase;
    return block ? arith::AddIOp::create(b, loc, moved, cst32(block * tile.blockBytes())).getResult()
                 : moved;
  };

  int64_t slots = layout.slots();
  SmallVector<Value> c;
  for (int64_t s = 0; s < slots; ++s)
    c.push_back(memref::LoadOp::create(b, loc, accMemref, ValueRange{cstIndex(s)}));
  auto result = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  for (tile::GemmOp gemm : gemms) {
    Value a = gemm.getA(), bOp = gemm.getB();
    bool transB = gemm.getTransposeB();
    layout::SwizzledTile tileA = tileOf(a), tileB = tileOf(bOp);
    Value aBase = arith::AddIOp::create(b, loc, cst32(attrInt(a, tile::kOffsetAttr)),
                                        arith::MulIOp::create(b, loc, stage, cst32(tileA.bytes())));
    Value bBase = arith::AddIOp::create(b, loc, cst32(attrInt(bOp, tile::kOffsetAttr)),
                                        arith::MulIOp::create(b, loc, stage, cst32(tileB.bytes())));
    bool bf16 = cast<tile::BufferType>(a.getType()).getElementType().isBF16();
    auto ptxType = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    auto operand = [&](Value reg) -> Value {
      if (bf16)
        return reg;
      return LLVM::BitcastOp::create(b, loc, VectorType::get({2}, b.getF16Type()), reg);
    };
    Value warpRow = arith::MulIOp::create(b, loc, wm, cst32(layout.warpRows()));
    Value warpCol = arith::MulIOp::create(b, loc, wn, cst32(layout.warpCols()));
    int64_t bk = tileA.cols;
    // A, K-major: lane row warpRow + (matrix % 2) * 8 + l % 8, column chunk (matrix / 2) * 8.
    Value aLane = swizzledOffset(
        tileA, arith::AddIOp::create(b, loc, warpRow, arith::AddIOp::create(b, loc, low, inMatrix)),
        high);
    // B^T, K-major: lane row warpCol + (matrix / 2) * 8 + l % 8, column chunk (matrix % 2) * 8.
    // B, row-major (loaded transposed): lane row (matrix % 2) * 8 + l % 8, column
    // warpCol + 16 p + (matrix / 2) * 8 for the p-th pair of n8 tiles.
    Value bLane;
    SmallVector<Value> bPairs;
    if (transB) {
      bLane = swizzledOffset(
          tileB, arith::AddIOp::create(b, loc, warpCol, arith::AddIOp::create(b, loc, high, inMatrix)),
          low);
    } else {
      for (int64_t ni = 0; ni < layout.nTiles(); ni += 2)
        bPairs.push_back(swizzledOffset(
            tileB, arith::AddIOp::create(b, loc, low, inMatrix),
            arith::AddIOp::create(b, loc, warpCol, arith::AddIOp::create(b, loc, high, cst32(8 * ni)))));
    }
    for (int64_t k0 = 0; k0 < bk; k0 += 16) {
      // A: x4 = rows +0/+8 (matrix % 2), k +0/+8 (matrix / 2): a0..a3 of m16n8k16.
      SmallVector<SmallVector<Value>> aFrags;
      Value aK = arith::AddIOp::create(b, loc, aBase, kMove(aLane, tileA, k0));
      for (int64_t mi = 0; mi < layout.mTiles(); ++mi)
        aFrags.push_back(ldmatrix(
            arith::AddIOp::create(b, loc, aK, cst32(16 * mi * tileA.swizzleBytes)), false));
      // B, two n8 tiles per x4: b0, b1 of tile ni, then of ni + 1.
      SmallVector<std::pair<Value, Value>> bFrags;
      for (int64_t ni = 0; ni < layout.nTiles(); ni += 2) {
        Value offset;
        if (transB)
          offset = arith::AddIOp::create(
              b, loc, arith::AddIOp::create(b, loc, bBase, kMove(bLane, tileB, k0)),
              cst32(8 * ni * tileB.swizzleBytes));
        else
          offset = arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, bBase, bPairs[ni / 2]),
                                         cst32(k0 * tileB.swizzleBytes));
        SmallVector<Value> regs = ldmatrix(offset, /*trans=*/!transB);
        bFrags.push_back({regs[0], regs[1]});
        bFrags.push_back({regs[2], regs[3]});
      }
      for (int64_t mi = 0; mi < layout.mTiles(); ++mi)
        for (int64_t ni = 0; ni < layout.nTiles(); ++ni) {
          int64_t s0 = (mi * layout.nTiles() + ni) * 4;
          SmallVector<Value> aOps, bOps;
          for (Value reg : aFrags[mi])
            aOps.push_back(operand(reg));
          bOps.push_back(operand(bFrags[ni].first));
          bOps.push_back(operand(bFrags[ni].second));
          Value d = NVVM::MmaOp::create(
              b, loc, result, aOps, bOps, ValueRange{c[s0], c[s0 + 1], c[s0 + 2], c[s0 + 3]},
              ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
              std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
          for (int64_t e = 0; e < 4; ++e)
            c[s0 + e] = LLVM::ExtractValueOp::create(b, loc, d, e);
        }
    }
  }
  for (int64_t s = 0; s < slots; ++s)
    memref::StoreOp::create(b, loc, c[s], accMemref, ValueRange{cstIndex(s)});
}

void MmaSyncBuilder::buildMainLoop(scf::ForOp loop, IRMapping &mapping) {
  Value lb = mapping.lookupOrDefault(loop.getLowerBound());
  Value ub = mapping.lookupOrDefault(loop.getUpperBound());
  Value step = mapping.lookupOrDefault(loop.getStep());
  Value count = arith::MaxSIOp::create(
      b, loc, arith::CeilDivSIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb), step),
      cstIndex(0));
  // Whether every tensor takes 16-byte chunks: unit last stride, 16-byte aligned base and rows.
  // The main loop is built twice, for 16-byte cp.async chunks and for element copies, and the
  // block takes one uniformly (one version's registers only, not both).
  Value allOk = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto copy = dyn_cast<tile::CopyOp>(op);
    if (!copy)
      continue;
    auto t = getTensorValues(mapping.lookup(copy.getSource()));
    int64_t elemBytes = tileOf(copy.getDest()).elemBytes;
    Value unit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t->strides[1], cst64(1));
    Value address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), t->base);
    Value baseOk = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, arith::AndIOp::create(b, loc, address, cst64(15)), cst64(0));
    Value rowBytes = arith::MulIOp::create(b, loc, t->strides[0], cst64(elemBytes));
    Value rowOk = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, arith::AndIOp::create(b, loc, rowBytes, cst64(15)), cst64(0));
    allOk = arith::AndIOp::create(b, loc, allOk,
                                  arith::AndIOp::create(b, loc, unit, arith::AndIOp::create(b, loc, baseOk, rowOk)));
  }
  auto versions = scf::IfOp::create(b, loc, allOk, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  for (bool vector : {true, false}) {
    vectorCopies = vector;
    b.setInsertionPointToStart(vector ? versions.thenBlock() : versions.elseBlock());
    buildRing(loop, mapping, lb, step, count);
  }
}

void MmaSyncBuilder::buildRing(scf::ForOp loop, IRMapping &mapping, Value lb, Value step,
                               Value count) {
  // Prologue: iterations 0 .. S-2, one group each (empty groups past the end keep the count).
  for (int64_t p = 0; p + 1 < stages; ++p) {
    Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, cstIndex(p), count);
    auto ifOp = scf::IfOp::create(b, loc, live, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value iv = arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, cstIndex(p), step));
      issueCopies(loop, mapping, iv, cst32(p));
    }
    // The then-branch committed its group; an empty one keeps every thread's count in step.
    auto commitOnly = scf::IfOp::create(b, loc, arith::XOrIOp::create(
        b, loc, live, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(commitOnly.thenBlock());
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  auto mainLoop = scf::ForOp::create(b, loc, cstIndex(0), count, cstIndex(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(mainLoop.getBody());
    Value it = mainLoop.getInductionVar();
    Value stage = toI32(arith::RemUIOp::create(b, loc, it, cstIndex(stages)));
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(std::max<int64_t>(stages - 2, 0)));
    gpu::BarrierOp::create(b, loc);
    compute(loop, mapping, stage);
    Value next = arith::AddIOp::create(b, loc, it, cstIndex(stages - 1));
    Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, next, count);
    auto ifOp = scf::IfOp::create(b, loc, live, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value iv = arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, next, step));
      issueCopies(loop, mapping, iv, toI32(arith::RemUIOp::create(b, loc, next, cstIndex(stages))));
      b.setInsertionPointToStart(ifOp.elseBlock());
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
  }
  NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
  gpu::BarrierOp::create(b, loc);
}

LogicalResult MmaSyncBuilder::build(IRMapping &mapping) {
  threads = kernel.getThreads()[0];
  scf::ForOp mainLoop;
  kernel.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(tile::kPipelineAttr))
      mainLoop = loop;
  });
  if (!mainLoop)
    return kernel.emitOpError("has no pipelined main loop for the mma.sync strategy");
  stages = std::max<int64_t>(1, cast<IntegerAttr>(mainLoop->getAttr(tile::kStagesAttr)).getInt());
  smemBase = buildSharedBase(b, loc, func);
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  tid32 = toI32(tid);
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (auto alloc = dyn_cast<tile::AllocOp>(op)) {
      if (alloc->hasAttr(tile::kStagesAttr))
        continue; // the ring: addressed by offset
      if (alloc->hasAttr(tile::kLayoutAttr)) {
        mapping.map(alloc.getBuffer(), lowerRegisterFragment(b, alloc, func));
        continue;
      }
    }
    if (&op == mainLoop.getOperation()) {
      buildMainLoop(mainLoop, mapping);
      continue;
    }
    b.clone(op, mapping);
  }
  return success();
}

LogicalResult tlc::buildMmaSyncBody(tile::KernelOp kernel, gpu::GPUFuncOp func, OpBuilder &b,
                                    IRMapping &mapping) {
  return MmaSyncBuilder(kernel, func, b).build(mapping);
}
