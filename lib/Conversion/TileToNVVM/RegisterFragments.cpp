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
#include "BuilderMath.h"
#include "PatternsImpl.h"

#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;

std::optional<tile::AccLayout> tlc::getRegisterLayout(Value buffer) {
  auto castOp = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  auto type = dyn_cast<tile::BufferType>(buffer.getType());
  if (!castOp || !type)
    return std::nullopt;
  return tile::AccLayout::fromAttr(castOp->getAttr(tile::kLayoutAttr), type.getShape());
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

/// `values` converted to `to`: two at a time where f32 values become bf16 or f16 and `paired`
/// (sm_80 on: one cvt.rn.bf16x2.f32 or cvt.rn.f16x2.f32 per pair instead of two roundings and
/// a pack), one by one otherwise.
static SmallVector<Value> convertElements(OpBuilder &b, Location loc, ArrayRef<Value> values,
                                          Type from, Type to, bool paired) {
  SmallVector<Value> converted;
  bool pairs =
      paired && !values.empty() && values.front().getType().isF32() && (to.isBF16() || to.isF16());
  auto index = [&](int64_t k) {
    return LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(k));
  };
  auto type = VectorType::get({2}, to);
  for (size_t i = 0; i < values.size(); ++i) {
    if (!pairs || i + 1 == values.size()) {
      converted.push_back(convertElement(b, loc, values[i], from, to));
      continue;
    }
    Value narrow =
        to.isBF16() ? NVVM::ConvertF32x2ToBF16x2Op::create(b, loc, type, values[i + 1], values[i],
                                                           Value(), NVVM::FPRoundingMode::RN)
                          .getResult()
                    : NVVM::ConvertF32x2ToF16x2Op::create(b, loc, type, values[i + 1], values[i],
                                                          Value(), NVVM::FPRoundingMode::RN)
                          .getResult();
    converted.push_back(LLVM::ExtractElementOp::create(b, loc, narrow, index(0)));
    converted.push_back(LLVM::ExtractElementOp::create(b, loc, narrow, index(1)));
    ++i;
  }
  return converted;
}

/// Where copy(acc, C[r0, c0]) stages its rows (tile::addStoreStaging): `slabs` 2048-byte slabs
/// per warp in TMA's 128-byte swizzle (a `tma_store` copy; `storeMap` its map parameter where
/// the entry has one, `storeFlag` whether the launch encoded it), or 0 slabs: 16 padded rows of
/// storeStagingPitch bytes per warp.
struct StagedStore {
  int64_t scratchOffset = 0;
  int64_t slabs = 0;
  Value storeMap, storeFlag;
};

/// copy(acc, C[r0, c0]) through the warp's rows of its scratch (tile::addStoreStaging), for
/// wgmma's and mma.sync's layouts, whose warps hold 16-row tiles of 8-column blocks (lane l:
/// rows l / 4 and l / 4 + 8, columns 2 (l % 4) and 2 (l % 4) + 1 of each block). For each 16-row
/// tile of the warp's part and each 128-byte-wide chunk of its columns, the warp writes its
/// pairs there (one 2-element store each; the padded pitch, or the swizzle, keeps them
/// conflict-free), then stores the chunk's rows: as one TMA bulk store of the 16 x 128-byte box
/// where the entry has the tensor's store map and the launch encoded it (TMA drops what falls
/// outside the tensor), otherwise as 16-byte vectors (8-byte where a row of the chunk is not a
/// multiple of 16 bytes), a row's lanes side by side, in a loop over the chunk's rows. Each
/// vector is masked and tested for alignment on its own: element stores where an edge cuts it
/// or the tensor's rows are not aligned, so one form serves every shape and row stride.
static void storeStaged(OpBuilder &b, Location loc, const tile::AccLayout &layout,
                        const TensorValues &tensor, ArrayRef<Value> offsets, Value slots,
                        Type srcType, Type dstType, const StagedStore &staging, bool paired,
                        gpu::GPUFuncOp func) {
  Math m{b, loc};
  size_t lead = offsets.size() - 2;
  Type memType = tile::isFloat8(dstType) ? b.getI8Type() : dstType;
  int64_t elemBytes = memType.getIntOrFloatBitWidth() / 8;
  bool swizzled = staging.slabs > 0;
  int64_t pitch = swizzled ? tile::kStoreStagingRowBytes : tile::storeStagingPitch(elemBytes);
  int64_t chunkCols = tile::kStoreStagingRowBytes / elemBytes;
  tile::StoreChunks chunks = tile::storeStagingChunks(layout, elemBytes);
  Value tid = linearThreadId(b, loc);
  Value tid32 = m.toI32(tid);
  Value lane = m.rem(tid32, 32);
  Value warp = m.div(tid32, 32);
  // The warp's part starts where lane 0's slot 0 is.
  auto [warpRow, warpCol] =
      tile::buildAccCoords(b, loc, layout, m.toIndex(m.mul(warp, 32)), m.index(0));
  Value smem = buildSharedBase(b, loc, func);
  // The byte of the scratch holding byte `byteCol` of `row` of the chunk at `slab`.
  auto stagedAt = [&](Value slab, Value row, Value byteCol) {
    if (!swizzled)
      return m.add(slab, m.add(m.mul(row, pitch), byteCol));
    Value block = arith::XOrIOp::create(b, loc, m.div(byteCol, 16), m.rem(row, 8));
    return m.add(slab, m.add(m.mul(row, pitch), m.add(m.mul(block, 16), m.rem(byteCol, 16))));
  };
  Value allLanes = m.i32(-1);
  auto pairType = VectorType::get({2}, memType);
  int64_t index = 0;
  for (auto &[key, fragments] : chunks) {
    auto [tileRow, chunk] = key;
    int64_t chunkCol = chunk * chunkCols;
    Value slab = swizzled ? m.add(m.mul(m.add(m.mul(warp, staging.slabs), index % staging.slabs),
                                        tile::kTmaStoreSlabBytes),
                                  staging.scratchOffset)
                          : m.add(m.mul(warp, 16 * pitch), staging.scratchOffset);
    if (staging.storeMap) {
      // The slab is free once this thread's bulk stores have read it (only lane 0 issues them):
      // all but the previous chunk's where each warp has two slabs.
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, index > 0 && staging.slabs > 1 ? 1 : 0,
                                           b.getUnitAttr());
      NVVM::SyncWarpOp::create(b, loc, allLanes);
    }
    ++index;
    int64_t width = 0;
    for (auto [f, c] : fragments) {
      width = std::max(width, c - chunkCol + 8);
      for (int64_t half = 0; half < 2; ++half) {
        SmallVector<Value, 2> raw;
        for (int64_t e = 0; e < 2; ++e)
          raw.push_back(
              memref::LoadOp::create(b, loc, slots, ValueRange{m.index(4 * f + 2 * half + e)}));
        SmallVector<Value> pair = convertElements(b, loc, raw, srcType, dstType, paired);
        Value vec = LLVM::UndefOp::create(b, loc, pairType);
        for (int64_t e = 0; e < 2; ++e) {
          Value x = pair[e];
          if (x.getType() != memType)
            x = arith::BitcastOp::create(b, loc, memType, x);
          vec = LLVM::InsertElementOp::create(b, loc, vec, x, m.i32(e));
        }
        Value row = m.add(m.div(lane, 4), half * 8);
        Value byteCol = m.add(m.mul(m.rem(lane, 4), 2 * elemBytes), (c - chunkCol) * elemBytes);
        LLVM::StoreOp::create(b, loc, vec, m.sharedPtr(smem, stagedAt(slab, row, byteCol)),
                              /*alignment=*/2 * elemBytes);
      }
    }
    Value rowBase = m.add(offsets[lead], m.add(warpRow, m.index(tileRow)));
    Value colBase = m.add(offsets[lead + 1], m.add(warpCol, m.index(chunkCol)));
    if (staging.storeMap) {
      // The launch encoded the store map: lane 0 stores the box; else the vectors below.
      Value encoded = m.cmp(arith::CmpIPredicate::ne, staging.storeFlag, m.i32(0));
      auto viaTma = scf::IfOp::create(b, loc, encoded, /*withElseRegion=*/true);
      b.setInsertionPointToStart(viaTma.thenBlock());
      // The pairs were written through the generic proxy; TMA reads through the async one.
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
      NVVM::SyncWarpOp::create(b, loc, allLanes);
      auto leader = scf::IfOp::create(b, loc, m.cmp(arith::CmpIPredicate::eq, lane, m.i32(0)),
                                      /*withElseRegion=*/false);
      b.setInsertionPointToStart(leader.thenBlock());
      Value src = m.sharedPtr(smem, slab);
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          b, loc, staging.storeMap, src, ValueRange{m.toI32(colBase), m.toI32(rowBase)}, Value(),
          NVVM::TMAStoreMode::TILE, Value());
      NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
      b.setInsertionPointToStart(viaTma.elseBlock());
    }
    NVVM::SyncWarpOp::create(b, loc, allLanes);
    // The chunk's rows: `perRow` lanes a row, `rows` rows a pass.
    int64_t rowBytes = width * elemBytes;
    int64_t vecBytes = rowBytes % 16 == 0 ? 16 : 8;
    int64_t vecElems = vecBytes / elemBytes;
    int64_t perRow = rowBytes / vecBytes;
    int64_t rows = std::min<int64_t>(16, 32 / perRow);
    int64_t passes = llvm::divideCeil(16, rows);
    Value rowInPass = m.div(lane, perRow);
    Value vecInRow = m.rem(lane, perRow);
    auto pass = scf::ForOp::create(b, loc, m.index(0), m.index(passes), m.index(1));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(pass.getBody());
      Value row = m.add(rowInPass, m.mul(m.toI32(pass.getInductionVar()), rows));
      // Lanes past the chunk's 16 rows (or past whole rows of a pass) store nothing.
      if (rows * perRow != 32 || passes * rows != 16) {
        Value active = m.land(m.cmp(arith::CmpIPredicate::ult, row, m.i32(16)),
                              m.cmp(arith::CmpIPredicate::ult, lane, m.i32(rows * perRow)));
        auto ifOp = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
        b.setInsertionPointToStart(ifOp.thenBlock());
      }
      Value from = stagedAt(slab, row, m.mul(vecInRow, vecBytes));
      auto vecType = VectorType::get({vecElems}, memType);
      Value vec = LLVM::LoadOp::create(b, loc, vecType, m.sharedPtr(smem, from),
                                       /*alignment=*/vecBytes);
      SmallVector<Value> values;
      for (int64_t e = 0; e < vecElems; ++e) {
        Value x = LLVM::ExtractElementOp::create(b, loc, vec, m.i32(e));
        if (memType != dstType)
          x = arith::BitcastOp::create(b, loc, dstType, x);
        values.push_back(x);
      }
      SmallVector<Value> indices(offsets);
      indices[lead] = m.add(rowBase, m.toIndex(row));
      indices[lead + 1] = m.add(colBase, m.toIndex(m.mul(vecInRow, vecElems)));
      buildMaskedStoreVector(b, loc, tensor, values, indices, /*knownAligned=*/false,
                             /*realign=*/true);
    }
    // The next chunk's pairs overwrite these rows (with a store map: the next chunk's wait).
    if (!staging.storeMap)
      NVVM::SyncWarpOp::create(b, loc, allLanes);
    else
      b.setInsertionPointAfter(pass->getParentOp());
  }
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
    if (op.getValue().getType().isF32() && !layout->isBlocked())
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

/// How the pairs of an accumulator layout line up in a row, where every thread's slots 2j and
/// 2j + 1 hold neighbouring columns and the four lanes of each quad hold the next pairs of the
/// same row (wgmma and mma.sync accumulators): next[j] is the pair of the same thread 8 columns
/// on (-1: none), prev[j] the one 8 columns back. Nullopt where some thread breaks the pattern.
struct QuadRows {
  SmallVector<int64_t> next, prev;
};
static std::optional<QuadRows> quadRows(const tile::AccLayout &layout) {
  int64_t pairs = layout.slots() / 2;
  if (layout.slots() % 2 != 0)
    return std::nullopt;
  QuadRows rows;
  rows.next.assign(pairs, -1);
  rows.prev.assign(pairs, -1);
  for (int64_t tid = 0, e = layout.threads(); tid < e; ++tid) {
    DenseMap<std::pair<int64_t, int64_t>, int64_t> pairAt;
    for (int64_t j = 0; j < pairs; ++j) {
      auto [r, c] = layout.coord(tid, 2 * j);
      auto [r1, c1] = layout.coord(tid, 2 * j + 1);
      auto [qr, qc] = layout.coord(tid - tid % 4, 2 * j);
      if (r1 != r || c1 != c + 1 || qr != r || qc + 2 * (tid % 4) != c)
        return std::nullopt;
      pairAt[{r, c}] = j;
    }
    for (int64_t j = 0; j < pairs; ++j) {
      auto [r, c] = layout.coord(tid, 2 * j);
      auto it = pairAt.find({r, c + 8});
      int64_t next = it == pairAt.end() ? -1 : it->second;
      if (tid == 0)
        rows.next[j] = next;
      else if (rows.next[j] != next)
        return std::nullopt;
    }
  }
  for (int64_t j = 0; j < pairs; ++j)
    if (rows.next[j] >= 0)
      rows.prev[rows.next[j]] = j;
  return rows;
}

/// The value of `value` (at most 32 bits) in lane `lane` of the warp, exactly.
static Value shuffleFrom(OpBuilder &b, Location loc, Value value, Value lane) {
  Type type = value.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  Type i32 = b.getI32Type();
  Value wide = value;
  if (!type.isInteger())
    wide = arith::BitcastOp::create(b, loc, b.getIntegerType(bits), wide);
  if (bits < 32)
    wide = arith::ExtUIOp::create(b, loc, i32, wide);
  Value width = arith::ConstantIntOp::create(b, loc, i32, 32);
  Value other =
      gpu::ShuffleOp::create(b, loc, wide, lane, width, gpu::ShuffleMode::IDX).getShuffleResult();
  if (bits < 32)
    other = arith::TruncIOp::create(b, loc, b.getIntegerType(bits), other);
  if (!type.isInteger())
    other = arith::BitcastOp::create(b, loc, type, other);
  return other;
}

/// A shuffle of `value` (at most 32 bits) with the lane `mask` away (xor) in the warp; narrower
/// values travel widened, exactly.
static Value shuffleXor(OpBuilder &b, Location loc, Value value, int64_t mask) {
  Type type = value.getType();
  Value wide = value;
  if (isa<FloatType>(type) && !type.isF32())
    wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  else if (type.isInteger() && type.getIntOrFloatBitWidth() < 32)
    wide = arith::ExtSIOp::create(b, loc, b.getI32Type(), value);
  Value offset = arith::ConstantIntOp::create(b, loc, b.getI32Type(), mask);
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 32);
  Value other =
      gpu::ShuffleOp::create(b, loc, wide, offset, width, gpu::ShuffleMode::XOR).getShuffleResult();
  if (other.getType() == type)
    return other;
  if (isa<FloatType>(type))
    return arith::TruncFOp::create(b, loc, type, other);
  return arith::TruncIOp::create(b, loc, type, other);
}

/// The runs of four pairs 8 columns apart along a row (each chain of QuadRows::next from a
/// row's first pair, cut into fours; the rest of a chain is left out): in each, a quad's lanes
/// hold 32 neighbouring columns of one row.
static SmallVector<SmallVector<int64_t>> quadGroups(const QuadRows &rows) {
  SmallVector<SmallVector<int64_t>> groups;
  for (int64_t j = 0, e = rows.next.size(); j < e; ++j) {
    if (rows.prev[j] >= 0)
      continue;
    SmallVector<int64_t> chain;
    for (int64_t k = j; k >= 0; k = rows.next[k])
      chain.push_back(k);
    for (size_t g = 0; g + 4 <= chain.size(); g += 4)
      groups.emplace_back(chain.begin() + g, chain.begin() + g + 4);
  }
  return groups;
}

/// copy(acc, C) of 16-bit elements into rows aligned to 16 bytes: lane q of a quad holds
/// columns 2q and 2q + 1 of each 8-column block of a group (quadGroups); a 4 x 4 transpose of
/// the quad's pairs (32 bits each) by two rounds of xor shuffles, lanes 1 then 2 apart, leaves
/// it columns 8q .. 8q + 7 of the group, which it stores as one 16-byte vector (masked at the
/// edges). Each 32-byte sector of a row is then written whole by one store instead of half by
/// each of two, and a warp stores its rows with a quarter of the instructions. Pairs in no
/// group are stored as pairs.
static void
storeQuadVectors(OpBuilder &b, Location loc, const TensorValues &tensor,
                 ArrayRef<SmallVector<int64_t>> groups, int64_t pairs, Value tid,
                 function_ref<Value(OpBuilder &, int64_t)> slotValue,
                 function_ref<SmallVector<Value>(OpBuilder &, int64_t, int64_t)> indicesOf) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); };
  auto select = [&](Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y).getResult();
  };
  auto bitSet = [&](Value x, int64_t bit) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                 arith::AndIOp::create(b, loc, x, constant(bit)), constant(0))
        .getResult();
  };
  Value lane = arith::IndexCastOp::create(
      b, loc, i32, arith::RemUIOp::create(b, loc, tid, arith::ConstantIndexOp::create(b, loc, 32)));
  Value q = arith::AndIOp::create(b, loc, lane, constant(3));
  Value q0 = bitSet(q, 1), q1 = bitSet(q, 2);
  // Lane q's vector starts 8q columns into the group, 6q after its own first pair.
  Value shift = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                           arith::MulIOp::create(b, loc, q, constant(6)));
  llvm::SmallDenseSet<int64_t> grouped;
  for (ArrayRef<int64_t> group : groups) {
    Type elem;
    SmallVector<Value> x;
    for (int64_t j : group) {
      grouped.insert(j);
      Value lo = slotValue(b, 2 * j), hi = slotValue(b, 2 * j + 1);
      elem = lo.getType();
      auto pairType = VectorType::get({2}, elem);
      Value vec = LLVM::UndefOp::create(b, loc, pairType);
      vec = LLVM::InsertElementOp::create(b, loc, vec, lo, constant(0));
      vec = LLVM::InsertElementOp::create(b, loc, vec, hi, constant(1));
      x.push_back(LLVM::BitcastOp::create(b, loc, i32, vec));
    }
    // Round 1: w[k][i] is the pair of lane (q & ~1) + i in block 2k + q0.
    Value w[2][2];
    for (int k = 0; k < 2; ++k) {
      Value other = shuffleXor(b, loc, select(q0, x[2 * k], x[2 * k + 1]), 1);
      w[k][0] = select(q0, other, x[2 * k]);
      w[k][1] = select(q0, x[2 * k + 1], other);
    }
    // Round 2: y[p] is the pair of lane p in block q.
    Value y[4];
    for (int i = 0; i < 2; ++i) {
      Value other = shuffleXor(b, loc, select(q1, w[0][i], w[1][i]), 2);
      y[i] = select(q1, other, w[0][i]);
      y[2 + i] = select(q1, w[1][i], other);
    }
    SmallVector<Value> values;
    for (Value word : y) {
      Value vec = LLVM::BitcastOp::create(b, loc, VectorType::get({2}, elem), word);
      values.push_back(LLVM::ExtractElementOp::create(b, loc, vec, constant(0)));
      values.push_back(LLVM::ExtractElementOp::create(b, loc, vec, constant(1)));
    }
    SmallVector<Value> at = indicesOf(b, group.front(), 0);
    at.back() = arith::AddIOp::create(b, loc, at.back(), shift);
    buildMaskedStoreVector(b, loc, tensor, values, at, /*knownAligned=*/true);
  }
  for (int64_t j = 0; j < pairs; ++j)
    if (!grouped.contains(j))
      buildMaskedStorePair(b, loc, tensor, slotValue(b, 2 * j), slotValue(b, 2 * j + 1),
                           indicesOf(b, j, 0));
}

/// copy(acc, C[r0, c0]): each thread stores its slots, converted, masked at the edges, as pairs
/// of neighbouring columns. Where the rows' pairs are not all aligned (an odd row stride or
/// origin: an odd N), a row whose pairs are misaligned by one element is stored one element on
/// instead: each lane takes the first element of its quad neighbour's pair (a shuffle), so that
/// every store but a row's first and last element is an aligned pair.
struct CopySlotsToTensor : OpRewritePattern<tile::CopyOp> {
  CopySlotsToTensor(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(tile::CopyOp op, PatternRewriter &rewriter) const override {
    auto layout = getRegisterLayout(op.getSource());
    // Row values (a quad holds each row) go through shared memory (tile-assign-mma-layouts);
    // blocked fragments store whole vectors (CopyBlockedAndTensor).
    if (!layout || layout->isRows() || layout->isBlocked())
      return failure();
    auto tensor = getTensorValues(op.getDest());
    if (!tensor)
      return failure();
    Location loc = op.getLoc();
    Value memref = getBufferMemref(op.getSource());
    Type srcType = cast<tile::BufferType>(op.getSource().getType()).getElementType();
    Type dstType = cast<tile::TensorType>(op.getDest().getType()).getElementType();
    SmallVector<Value> offsets(op.getDestOffsets());
    // Rows staged through the scratch (tile-assign-mma-layouts' stage-stores).
    std::optional<int64_t> scratch =
        op.getScratch() ? getSharedOffset(op.getScratch()) : std::nullopt;
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    if (scratch && func &&
        tile::storeStagingBytes(*layout,
                                tile::getStorageType(dstType).getIntOrFloatBitWidth() / 8) > 0) {
      tile::TargetAttr target = tile::getTarget(op);
      StagedStore staging;
      staging.scratchOffset = *scratch;
      if (op.getTmaStore()) {
        int64_t bytes = cast<tile::BufferType>(op.getScratch().getType()).getSizeInBytes();
        staging.slabs = tile::storeStagingSlabs(bytes, *layout);
        if (staging.slabs < 1)
          return op.emitOpError() << "has 'tma_store' but a scratch of " << bytes
                                  << " bytes, less than a slab per warp";
        auto arg = op.getDest().getDefiningOp<UnrealizedConversionCastOp>();
        auto index = arg ? arg->getAttrOfType<IntegerAttr>(kTensorArgAttr) : IntegerAttr();
        if (index)
          std::tie(staging.storeMap, staging.storeFlag) = findStoreMap(func, index.getInt());
      }
      storeStaged(rewriter, loc, *layout, *tensor, offsets, memref, srcType, dstType, staging,
                  target && target.hasMmaSync(), func);
      // A block's shared memory must outlive the bulk stores' reads of it: every return waits.
      if (staging.storeMap)
        func.walk([&](gpu::ReturnOp ret) {
          auto before = ret->getPrevNode();
          if (before && isa<NVVM::CpAsyncBulkWaitGroupOp>(before))
            return;
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPoint(ret);
          NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, ret.getLoc(), 0, rewriter.getUnitAttr());
        });
      rewriter.eraseOp(op);
      return success();
    }
    size_t lead = offsets.size() - 2;
    Value tid = linearThreadId(rewriter, loc);
    int64_t pairs = layout->slots() / 2;
    auto slotValue = [&](OpBuilder &b, int64_t slot) {
      Value value = memref::LoadOp::create(
          b, loc, memref, ValueRange{arith::ConstantIndexOp::create(b, loc, slot)});
      return convertElement(b, loc, value, srcType, dstType);
    };
    auto indicesOf = [&](OpBuilder &b, int64_t pair, int64_t colShift) {
      auto [row, col] = tile::buildAccCoords(b, loc, *layout, tid,
                                             arith::ConstantIndexOp::create(b, loc, 2 * pair));
      SmallVector<Value> indices(offsets);
      indices[lead] = arith::AddIOp::create(b, loc, offsets[lead], row);
      Value shifted =
          colShift
              ? arith::AddIOp::create(b, loc, col, arith::ConstantIndexOp::create(b, loc, colShift))
                    .getResult()
              : col;
      indices[lead + 1] = arith::AddIOp::create(b, loc, offsets[lead + 1], shifted);
      return indices;
    };
    auto storePairs = [&](OpBuilder &b) {
      for (int64_t j = 0; j < pairs; ++j)
        buildMaskedStorePair(b, loc, *tensor, slotValue(b, 2 * j), slotValue(b, 2 * j + 1),
                             indicesOf(b, j, 0));
    };
    unsigned bits = dstType.getIntOrFloatBitWidth();
    std::optional<QuadRows> rows = quadRows(*layout);
    if (!rows || bits % 8 != 0 || bits > 32) {
      storePairs(rewriter);
      rewriter.eraseOp(op);
      return success();
    }
    // The whole tile's pairs aligned (uniform in the block): the plain pair stores, or, for
    // 16-bit elements in rows aligned to 16 bytes, 16-byte vectors (storeQuadVectors).
    Value aligned = buildRowPairsAligned(rewriter, loc, *tensor, dstType, offsets, lead);
    auto uniform = scf::IfOp::create(rewriter, loc, aligned, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(uniform.thenBlock());
    SmallVector<SmallVector<int64_t>> groups = quadGroups(*rows);
    if (bits == 16 && !groups.empty()) {
      Value vectors = buildRowPairsAligned(rewriter, loc, *tensor, dstType, offsets, lead, 8);
      auto wide = scf::IfOp::create(rewriter, loc, vectors, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard wideGuard(rewriter);
      rewriter.setInsertionPointToStart(wide.thenBlock());
      storeQuadVectors(rewriter, loc, *tensor, groups, pairs, tid, slotValue, indicesOf);
      rewriter.setInsertionPointToStart(wide.elseBlock());
      storePairs(rewriter);
    } else {
      storePairs(rewriter);
    }
    rewriter.setInsertionPointToStart(uniform.elseBlock());
    PatternRewriter &b = rewriter;
    Type i32 = b.getI32Type();
    auto constant = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); };
    Value lane = arith::IndexCastOp::create(
        b, loc, i32,
        arith::RemUIOp::create(b, loc, tid, arith::ConstantIndexOp::create(b, loc, 32)));
    Value quadLane = arith::AndIOp::create(b, loc, lane, constant(3));
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, quadLane, constant(0));
    Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, quadLane, constant(3));
    // The lane whose first element follows this lane's pair: the quad's next lane; for the last
    // lane, the quad's first, which offers its next pair's first element.
    Value source = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, lane, constant(~3)),
        arith::AndIOp::create(b, loc, arith::AddIOp::create(b, loc, lane, constant(1)),
                              constant(3)));
    for (int64_t j = 0; j < pairs; ++j) {
      Value first = slotValue(b, 2 * j), second = slotValue(b, 2 * j + 1);
      int64_t next = rows->next[j];
      Value offered =
          next < 0
              ? first
              : arith::SelectOp::create(b, loc, isFirst, slotValue(b, 2 * next), first).getResult();
      // Every lane of the warp shuffles, whichever way its row goes.
      Value following = shuffleFrom(b, loc, offered, source);
      SmallVector<Value> at = indicesOf(b, j, 0);
      Value misaligned = buildPairMisaligned(b, loc, *tensor, dstType, at);
      auto perRow = scf::IfOp::create(b, loc, misaligned, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard rowGuard(b);
      b.setInsertionPointToStart(perRow.thenBlock());
      SmallVector<Value> on = indicesOf(b, j, 1);
      // A row's first element has no pair on its left: the quad's first lane stores it.
      if (rows->prev[j] < 0) {
        auto lonely = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
        OpBuilder::InsertionGuard singleGuard(b);
        b.setInsertionPointToStart(lonely.thenBlock());
        buildMaskedStore(b, loc, *tensor, first, at);
      }
      if (next < 0) {
        // Nor has its last element one on its right.
        auto last = scf::IfOp::create(b, loc, isLast, /*withElseRegion=*/true);
        OpBuilder::InsertionGuard singleGuard(b);
        b.setInsertionPointToStart(last.thenBlock());
        buildMaskedStore(b, loc, *tensor, second, on);
        b.setInsertionPointToStart(last.elseBlock());
        buildMaskedStorePair(b, loc, *tensor, second, following, on);
      } else {
        buildMaskedStorePair(b, loc, *tensor, second, following, on);
      }
      b.setInsertionPointToStart(perRow.elseBlock());
      buildMaskedStorePair(b, loc, *tensor, first, second, at);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// copy between a register fragment and a buffer in shared memory (a shared tile, or a
/// fragment kept there: an explicit layout conversion of tile-assign-mma-layouts): each thread
/// moves its own slots to or from their elements (swizzled where the tile is), converted; a
/// barrier follows, as after every block-wide write or read of shared memory. Into a swizzled
/// tile of 16-bit elements from mma.sync's or wgmma's layout, slots 2i and 2i + 1 are columns c
/// and c + 1 (c even) of one row, adjacent under the swizzle (it moves whole 16-byte chunks):
/// each pair is one 32-bit store.
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
    bool rows = layout.isRows();
    Value tid = linearThreadId(rewriter, loc);
    bool pairs = srcLayout && tile::storesSlotPairs(layout, dstType) && isSwizzledTile(buffer);
    if (pairs) {
      storeSlotPairs(rewriter, op, layout, memref, tid, srcType, dstType);
      gpu::BarrierOp::create(rewriter, loc);
      rewriter.eraseOp(op);
      return success();
    }
    for (int64_t s = 0; s < layout.slots(); ++s) {
      Value slot = arith::ConstantIndexOp::create(rewriter, loc, s);
      auto [row, col] = tile::buildAccCoords(rewriter, loc, layout, tid, slot);
      SmallVector<Value> coords{row};
      if (!rows)
        coords.push_back(col);
      if (srcLayout) {
        Value value = memref::LoadOp::create(rewriter, loc, memref, ValueRange{slot});
        storeBufferElement(rewriter, loc, convertElement(rewriter, loc, value, srcType, dstType),
                           buffer, coords);
      } else {
        Value value = loadBufferElement(rewriter, loc, buffer, coords);
        memref::StoreOp::create(rewriter, loc,
                                convertElement(rewriter, loc, value, srcType, dstType), memref,
                                ValueRange{slot});
      }
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }

  /// The slot pairs of `slots` (layout `layout`) into the copy's swizzled destination, one
  /// 32-bit store each.
  static void storeSlotPairs(PatternRewriter &b, tile::CopyOp op, const tile::AccLayout &layout,
                             Value slots, Value tid, Type srcType, Type dstType) {
    Location loc = op.getLoc();
    auto tile = getSwizzledTile(b, loc, op.getDest());
    Value base = buildSharedBase(b, loc, op->getParentOfType<gpu::GPUFuncOp>());
    Math m{b, loc};
    int64_t elemBytes = tile->first.elemBytes;
    for (int64_t s = 0; s < layout.slots(); s += 2) {
      auto [row, col] =
          tile::buildAccCoords(b, loc, layout, tid, arith::ConstantIndexOp::create(b, loc, s));
      SmallVector<Value, 2> values;
      for (int64_t e = 0; e < 2; ++e) {
        Value slot = arith::ConstantIndexOp::create(b, loc, s + e);
        Value value = memref::LoadOp::create(b, loc, slots, ValueRange{slot});
        values.push_back(convertElement(b, loc, value, srcType, dstType));
      }
      Value pair = LLVM::UndefOp::create(b, loc, VectorType::get({2}, values[0].getType()));
      for (int64_t e = 0; e < 2; ++e)
        pair = LLVM::InsertElementOp::create(
            b, loc, pair, values[e], arith::ConstantIntOp::create(b, loc, b.getI32Type(), e));
      Value row32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), row);
      Value col32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), col);
      // The 16-byte chunk's place, then the pair's bytes inside it.
      Value inChunk = m.mul(m.rem(col32, 16 / elemBytes), elemBytes);
      Value bytes = m.add(tile->second,
                          m.add(buildSwizzledOffset(b, loc, tile->first, row32, col32), inChunk));
      LLVM::StoreOp::create(b, loc, pair, m.sharedPtr(base, bytes), /*alignment=*/4);
    }
  }
};

/// copy from a swizzled shared tile into a #tile.blocked fragment of its shape (a tile only
/// cp.async copies fill, tile-assign-blocked-layouts): each thread loads its vectors as 16-byte
/// shared loads (whole chunks stay contiguous under the swizzle), values converted. No barrier
/// follows: the cp.async copies that refill the tile wait for every thread first (the barrier
/// before their run, or a ring's wait), and nothing else writes it.
struct CopySharedToBlocked : OpRewritePattern<tile::CopyOp> {
  CopySharedToBlocked(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(tile::CopyOp op, PatternRewriter &rewriter) const override {
    auto layout = getRegisterLayout(op.getDest());
    auto srcType = dyn_cast<tile::BufferType>(op.getSource().getType());
    Value memref = getBufferMemref(op.getDest());
    if (!layout || layout->kind != tile::AccLayout::Kind::Blocked || !srcType ||
        !srcType.isShared() || !isSwizzledTile(op.getSource()) || !memref ||
        srcType.getShape() != cast<tile::BufferType>(op.getDest().getType()).getShape())
      return failure();
    const layout::BlockedLayout &l = layout->blocked;
    Type elem = tile::getStorageType(srcType.getElementType());
    int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
    int64_t pieceBytes = std::min<int64_t>(16, l.vec * elemBytes);
    if (!llvm::isPowerOf2_64(pieceBytes) || pieceBytes < 4)
      return failure();
    int64_t pieceElems = pieceBytes / elemBytes;
    Location loc = op.getLoc();
    Math m{rewriter, loc};
    auto tile = getSwizzledTile(rewriter, loc, op.getSource());
    Value smem = buildSharedBase(rewriter, loc, op->getParentOfType<gpu::GPUFuncOp>());
    Type slotElem = cast<tile::BufferType>(op.getDest().getType()).getElementType();
    auto vectorType = VectorType::get({pieceElems}, elem);
    Value tid = linearThreadId(rewriter, loc);
    for (int64_t first = 0; first < l.slots(); first += pieceElems) {
      auto [row, col] = tile::buildAccCoords(rewriter, loc, *layout, tid, m.index(first));
      Value col32 = m.toI32(col);
      // The chunk's swizzled place, then the piece's bytes inside it.
      Value inChunk = m.mul(m.rem(col32, 16 / elemBytes), elemBytes);
      Value offset = m.add(
          tile->second,
          m.add(buildSwizzledOffset(rewriter, loc, tile->first, m.toI32(row), col32), inChunk));
      Value vector = LLVM::LoadOp::create(rewriter, loc, vectorType, m.sharedPtr(smem, offset),
                                          /*alignment=*/pieceBytes);
      for (int64_t e = 0; e < pieceElems; ++e) {
        Value value = LLVM::ExtractElementOp::create(rewriter, loc, vector, m.i32(e));
        memref::StoreOp::create(
            rewriter, loc, convertElement(rewriter, loc, value, srcType.getElementType(), slotElem),
            memref, ValueRange{m.index(first + e)});
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// copy between a tensor and a #tile.blocked fragment: each thread moves its vectors (vec
/// consecutive elements of a row) as one to four 16-byte accesses where they are in bounds,
/// contiguous and aligned, element by element (masked) where not; values converted.
struct CopyBlockedAndTensor : OpRewritePattern<tile::CopyOp> {
  CopyBlockedAndTensor(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(tile::CopyOp op, PatternRewriter &rewriter) const override {
    auto srcLayout = getRegisterLayout(op.getSource());
    auto dstLayout = getRegisterLayout(op.getDest());
    bool load = dstLayout && dstLayout->kind == tile::AccLayout::Kind::Blocked;
    bool store = srcLayout && srcLayout->kind == tile::AccLayout::Kind::Blocked;
    if (!load && !store)
      return failure();
    Value tensor = load ? op.getSource() : op.getDest();
    auto values = getTensorValues(tensor);
    auto tensorType = dyn_cast<tile::TensorType>(tensor.getType());
    Value slots = load ? op.getDest() : op.getSource();
    Value memref = getBufferMemref(slots);
    if (!values || !tensorType || tensorType.getRank() < 2 || !memref)
      return failure();
    const tile::AccLayout &layout = load ? *dstLayout : *srcLayout;
    const layout::BlockedLayout &l = layout.blocked;
    Location loc = op.getLoc();
    Type tensorElem = tensorType.getElementType();
    Type slotElem = cast<tile::BufferType>(slots.getType()).getElementType();
    SmallVector<Value> offsets(load ? op.getSourceOffsets() : op.getDestOffsets());
    size_t lead = offsets.size() - 2;
    Value tid = linearThreadId(rewriter, loc);
    auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
    tile::TargetAttr target = tile::getTarget(op);
    bool pairedConversions = target && target.hasMmaSync();
    for (int64_t first = 0; first < l.slots(); first += l.vec) {
      auto [row, col] = tile::buildAccCoords(rewriter, loc, layout, tid, cst(first));
      SmallVector<Value> indices(offsets);
      indices[lead] = arith::AddIOp::create(rewriter, loc, offsets[lead], row);
      indices[lead + 1] = arith::AddIOp::create(rewriter, loc, offsets[lead + 1], col);
      if (load) {
        SmallVector<Value> loaded = buildMaskedLoadVector(
            rewriter, loc, *values, tile::getStorageType(tensorElem), indices, l.vec);
        for (auto [e, value] : llvm::enumerate(loaded))
          memref::StoreOp::create(rewriter, loc,
                                  convertElement(rewriter, loc, value, tensorElem, slotElem),
                                  memref, ValueRange{cst(first + e)});
        continue;
      }
      SmallVector<Value> slotValues;
      for (int64_t e = 0; e < l.vec; ++e)
        slotValues.push_back(
            memref::LoadOp::create(rewriter, loc, memref, ValueRange{cst(first + e)}));
      buildMaskedStoreVector(
          rewriter, loc, *values,
          convertElements(rewriter, loc, slotValues, slotElem, tensorElem, pairedConversions),
          indices);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// copy between two register fragments of one layout: slot by slot, converted.
struct CopySlotsToSlots : OpRewritePattern<tile::CopyOp> {
  CopySlotsToSlots(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(tile::CopyOp op, PatternRewriter &rewriter) const override {
    Value src = op.getSource(), dst = op.getDest();
    auto srcLayout = getRegisterLayout(src);
    auto dstLayout = getRegisterLayout(dst);
    Value srcMemref = getBufferMemref(src), dstMemref = getBufferMemref(dst);
    if (!srcLayout || !dstLayout || !srcMemref || !dstMemref ||
        src.getDefiningOp()->getAttr(tile::kLayoutAttr) !=
            dst.getDefiningOp()->getAttr(tile::kLayoutAttr) ||
        cast<tile::BufferType>(src.getType()).getShape() !=
            cast<tile::BufferType>(dst.getType()).getShape())
      return failure();
    Location loc = op.getLoc();
    Type srcElem = cast<tile::BufferType>(src.getType()).getElementType();
    Type dstElem = cast<tile::BufferType>(dst.getType()).getElementType();
    for (int64_t s = 0; s < srcLayout->slots(); ++s) {
      Value slot = arith::ConstantIndexOp::create(rewriter, loc, s);
      Value value = memref::LoadOp::create(rewriter, loc, srcMemref, ValueRange{slot});
      memref::StoreOp::create(rewriter, loc, convertElement(rewriter, loc, value, srcElem, dstElem),
                              dstMemref, ValueRange{slot});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// reduce(x, rows, dim = 1) of a #tile.blocked fragment into #tile.blocked_rows: per row slot,
/// the thread's vectors of the row, then the threads of the row by xor shuffles, then, where a
/// row spans several warps, the warps' partial values through the `scratch` buffer.
struct ReduceBlockedRows : OpRewritePattern<tile::ReduceOp> {
  ReduceBlockedRows(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(tile::ReduceOp op, PatternRewriter &rewriter) const override {
    auto src = getRegisterLayout(op.getSource());
    auto dst = getRegisterLayout(op.getDest());
    if (!src || !dst || src->kind != tile::AccLayout::Kind::Blocked ||
        dst->kind != tile::AccLayout::Kind::BlockedRows || op.getDim() != 1 || op.isArgReduce())
      return failure();
    const layout::BlockedLayout &l = src->blocked;
    bool acrossWarps = l.threadsPerRow > 32;
    if (acrossWarps && (!op.getScratch() || !getBufferMemref(op.getScratch())))
      return rewriter.notifyMatchFailure(op, "a row spans warps but the reduce has no scratch");
    // Before this reduce's own barrier joins its block.
    bool trailingBarrier = acrossWarps && !siblingBarrier(op);
    Location loc = op.getLoc();
    Value srcMemref = getBufferMemref(op.getSource()), dstMemref = getBufferMemref(op.getDest());
    Value initMemref = op.getInit() ? getBufferMemref(op.getInit()) : Value();
    auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
    auto slot = [&](Value memref, int64_t s) -> Value {
      return memref::LoadOp::create(rewriter, loc, memref, ValueRange{cst(s)});
    };
    auto combine = [&](Value x, Value y) {
      return buildReduceCombine(rewriter, loc, op.getKind(), x, y);
    };
    // Narrow float sums add in f32 (the scratch too) and round once at the store.
    Type elem = op.getDest().getType().getElementType();
    Type acc = tile::getReduceAccumulatorType(elem, op.getKind());
    auto widen = [&](Value v) {
      return acc == elem ? v : convertElement(rewriter, loc, v, elem, acc);
    };
    int64_t perRow = l.colSteps() * l.vec;
    SmallVector<Value> partial;
    for (int64_t r = 0; r < l.rowSlots(); ++r) {
      Value v;
      for (int64_t s = r * perRow; s < (r + 1) * perRow; ++s) {
        Value x = widen(slot(srcMemref, s));
        v = v ? combine(v, x) : x;
      }
      for (int64_t mask = 1; mask < std::min<int64_t>(l.threadsPerRow, 32); mask *= 2)
        v = combine(v, shuffleXor(rewriter, loc, v, mask));
      partial.push_back(v);
    }
    if (acrossWarps) {
      // scratch[r * warps + w]: warp w's value of row slot r.
      int64_t warps = l.threads / 32, warpsPerRow = l.threadsPerRow / 32;
      Value scratch = op.getScratch();
      Value tid = linearThreadId(rewriter, loc);
      Value warp = arith::DivUIOp::create(rewriter, loc, tid, cst(32));
      Value lane = arith::RemUIOp::create(rewriter, loc, tid, cst(32));
      Value leader = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane, cst(0));
      Value firstWarp; // after the barrier: the first warp of the thread's row
      exchangeRowPartials(
          rewriter, loc, scratch, leader, partial,
          [&](int64_t r) { return arith::AddIOp::create(rewriter, loc, cst(r * warps), warp); },
          warpsPerRow,
          [&](int64_t r, int64_t k) -> Value {
            if (!firstWarp)
              firstWarp = arith::MulIOp::create(
                  rewriter, loc, arith::DivUIOp::create(rewriter, loc, tid, cst(l.threadsPerRow)),
                  cst(warpsPerRow));
            return arith::AddIOp::create(rewriter, loc, firstWarp, cst(r * warps + k));
          },
          combine, trailingBarrier);
    }
    for (int64_t r = 0; r < l.rowSlots(); ++r) {
      Value v = partial[r];
      if (op.getAccumulate())
        v = combine(widen(slot(dstMemref, r)), v);
      else if (initMemref)
        v = combine(widen(slot(initMemref, r)), v);
      if (acc != elem)
        v = convertElement(rewriter, loc, v, acc, elem);
      memref::StoreOp::create(rewriter, loc, v, dstMemref, ValueRange{cst(r)});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tlc::populateRegisterFragmentPatterns(RewritePatternSet &patterns) {
  patterns.add<FillSlots, ReadSlot, WriteSlot, CopySlotsToTensor, CopySlotsAndBuffer,
               CopySharedToBlocked, CopyBlockedAndTensor, CopySlotsToSlots, ReduceBlockedRows>(
      patterns.getContext());
}

bool tlc::reducesAcrossWarps(tile::ReduceOp reduce) {
  auto layout = getRegisterLayout(reduce.getSource());
  if (!layout || !reduce.getScratch())
    return false;
  if (layout->kind == tile::AccLayout::Kind::MmaSync)
    return layout->mma.warpsN > 1;
  return layout->kind == tile::AccLayout::Kind::Blocked && layout->blocked.threadsPerRow > 32;
}

bool tlc::siblingBarrier(Operation *op) {
  for (Operation &other : *op->getBlock()) {
    if (&other == op)
      continue;
    if (isa<tile::BarrierOp, gpu::BarrierOp>(other))
      return true;
    if (auto reduce = dyn_cast<tile::ReduceOp>(other); reduce && reducesAcrossWarps(reduce))
      return true;
  }
  return false;
}

void tlc::exchangeRowPartials(OpBuilder &b, Location loc, Value scratch, Value leader,
                              MutableArrayRef<Value> partial, function_ref<Value(int64_t)> writeAt,
                              int64_t count, function_ref<Value(int64_t, int64_t)> readAt,
                              function_ref<Value(Value, Value)> combine, bool trailingBarrier) {
  auto ifOp = scf::IfOp::create(b, loc, leader, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [r, value] : llvm::enumerate(partial))
      storeBufferElement(b, loc, value, scratch, ValueRange{writeAt(r)});
  }
  gpu::BarrierOp::create(b, loc);
  for (auto [r, value] : llvm::enumerate(partial)) {
    Value v;
    for (int64_t k = 0; k < count; ++k) {
      Value x = loadBufferElement(b, loc, scratch, ValueRange{readAt(r, k)});
      v = v ? combine(v, x) : x;
    }
    value = v;
  }
  // The reduce may write the scratch again (its next run, in a loop) only after every thread has
  // read it: a barrier, unless another op of its block always runs one, which lies on every path
  // from here to the next run.
  if (trailingBarrier)
    gpu::BarrierOp::create(b, loc);
}
