//===- TileCopy.cpp - Tile copies from tensors into swizzled shared memory ---===//
//
// A tile copy from a tensor is 16-byte cp.async.cg chunks into the tile's swizzled place
// (zero-filled past the tensor's edges), or, for tensors cp.async cannot read 16 bytes at a
// time, the same chunks as element loads or realigned 16-byte loads and one 16-byte shared store
// each (chosen at run time, uniformly).
//
//===----------------------------------------------------------------------===//
#include "BuilderMath.h"
#include "PatternsImpl.h"

#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;

Value tlc::buildSwizzledOffset(OpBuilder &b, Location loc, const layout::SwizzledTile &tile,
                               Value row, Value col) {
  Math m{b, loc};
  int64_t chunks = tile.swizzleBytes / 16;
  // 16-byte chunks of 16 / elemBytes elements (8 for bf16/f16).
  Value chunk = m.div(col, 16 / tile.elemBytes);
  Value block = m.div(chunk, chunks);
  Value inBlock = m.rem(chunk, chunks);
  Value linear = m.add(m.mul(row, tile.swizzleBytes), m.mul(inBlock, 16));
  Value bits = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, linear, m.i32(7)),
                                     m.i32(chunks - 1));
  Value swizzled =
      arith::XOrIOp::create(b, loc, linear, arith::ShLIOp::create(b, loc, bits, m.i32(4)));
  return m.add(m.mul(block, tile.blockBytes()), swizzled);
}

Value tlc::buildCpAsyncReadable(OpBuilder &b, Location loc, const TensorValues &t,
                                int64_t elemBytes) {
  Math m{b, loc};
  auto eq = arith::CmpIPredicate::eq;
  size_t last = t.strides.size() - 1;
  Value ok = m.cmp(eq, t.strides[last], m.i64(1));
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), t.base);
  ok = m.land(ok, m.cmp(eq, m.land(address, m.i64(15)), m.i64(0)));
  for (size_t d = 0; d < last; ++d)
    ok = m.land(ok, m.cmp(eq, m.land(m.mul(t.strides[d], elemBytes), m.i64(15)), m.i64(0)));
  return ok;
}

Value tlc::buildColumnOffsetAligned(OpBuilder &b, Location loc, Value col, int64_t elemBytes,
                                    bool atRunTime) {
  Math m{b, loc};
  bool known = tile::isKnown16ByteColumn(col, elemBytes);
  if (known || !atRunTime)
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), known);
  Value bytes = m.mul(m.toI64(col), elemBytes);
  return m.cmp(arith::CmpIPredicate::eq, m.land(bytes, m.i64(15)), m.i64(0));
}

namespace {
/// One buildTileCopy: its arguments and the tile's place in the tensor (`lead`: the offset of
/// the leading dimensions, `leadIn`: whether they are inside; `row0`, `col0`: the tile's
/// origin, i64), with a function per TileCopyMode.
struct TileCopy {
  OpBuilder &b;
  Location loc;
  Value smemBase, tid32;
  int64_t threads;
  const TensorValues &t;
  const layout::SwizzledTile &tile;
  Value destBase;
  Type elemType;
  Value lead, leadIn, row0, col0, rows, cols, rowStride, colStride;
  /// Chunks whose element loads are issued together in a tile inside the tensor (Elements).
  int64_t chunksInFlight = 1;

  Value ext(Value v) const { return arith::ExtUIOp::create(b, loc, b.getI64Type(), v); }
  /// TileCopyMode::CompactElements.
  void compactElements() const;
  /// One chunk (row `grow` of the tensor, i64; column `c` of the tile, i32) as element loads
  /// (zero outside the tensor when `checked`), a vector of 16 / elemBytes elements.
  Value elementChunk(Value grow, Value c, bool checked) const;
  /// TileCopyMode::Elements, in `whole` (then: the tile is inside the tensor; else: an edge tile).
  void elementChunks(scf::IfOp whole) const;
  /// TileCopyMode::Realigned.
  void realignedChunks() const;
  /// TileCopyMode::CpAsync, in `whole` (as for elementChunks).
  void cpAsyncChunks(scf::IfOp whole) const;
  /// buildStagedCopy's phases.
  void stagedIssue(Value edgeBase) const;
  void stagedRealign(Value edgeBase) const;
  /// Whether the staged copy takes whole blocks: the tile starts inside the tensor's columns
  /// and the column stride is 1 (the same in every row).
  Value stagedBlocks() const;
  /// The address (i64) of row `grow`'s element in the tile's first column.
  Value rowAddress(Value baseAddr, Value grow) const;
  /// Elements per 16-byte chunk, chunks per tile row, chunks of the tile.
  int64_t chunkElems() const { return 16 / tile.elemBytes; }
  int64_t rowChunks() const { return tile.cols / chunkElems(); }
  int64_t chunkCount() const { return tile.rows * rowChunks(); }
  /// The address (i64) of the byte past the tensor's last element.
  Value tensorEnd(Value baseAddr) const;
  /// The staged copy of the 16-byte block at `addr` (i64, 16-byte aligned) into shared byte
  /// `dst` (i32): its first `bytes` (i64, 0..16) bytes, the rest zero. cp.async when the block
  /// lies before `end` (the byte past the tensor's last), else (the tensor's last block, which
  /// cp.async would read whole: compute-sanitizer reports the bytes past the allocation) element
  /// by element, from the tensor's base on.
  void stagedBlock(Value baseAddr, Value end, Value addr, Value dst, Value bytes) const;
};

/// Bytes `shift` (i32, 0..15) .. shift + 15 of the 32 in `low`, `high` (vector<4xi32> each):
/// whole words by two selects (8 and 4 bytes), then the remaining 0..3 bytes by a funnel shift
/// per word.
Value realignWords(OpBuilder &b, Location loc, Value low, Value high, Value shift) {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  auto words = VectorType::get({4}, b.getI32Type());
  SmallVector<Value> w;
  for (Value v : {low, high})
    for (int64_t i = 0; i < 4; ++i)
      w.push_back(LLVM::ExtractElementOp::create(b, loc, v, m.i32(i)));
  auto shiftWords = [&](ArrayRef<Value> in, int64_t by, Value cond, int64_t count) {
    SmallVector<Value> out;
    for (int64_t i = 0; i < count; ++i)
      out.push_back(arith::SelectOp::create(b, loc, cond, in[i + by], in[i]));
    return out;
  };
  Value q2 = m.cmp(P::ne, arith::AndIOp::create(b, loc, shift, m.i32(8)), m.i32(0));
  Value q1 = m.cmp(P::ne, arith::AndIOp::create(b, loc, shift, m.i32(4)), m.i32(0));
  SmallVector<Value> u = shiftWords(w, 2, q2, 6);
  SmallVector<Value> x = shiftWords(u, 1, q1, 5);
  Value bits = m.mul(arith::AndIOp::create(b, loc, shift, m.i32(3)), 8);
  Value out = LLVM::PoisonOp::create(b, loc, words);
  for (int64_t i = 0; i < 4; ++i) {
    Value word = LLVM::FshrOp::create(b, loc, x[i + 1], x[i], bits);
    out = LLVM::InsertElementOp::create(b, loc, out, word, m.i32(i));
  }
  return out;
}
} // namespace

void TileCopy::compactElements() const {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  // Element by element, masked, into the same swizzled place: a compact loop that adds few
  // registers to the function it shares with the cp.async version.
  auto elements =
      scf::ForOp::create(b, loc, arith::IndexCastOp::create(b, loc, b.getIndexType(), tid32),
                         m.index(tile.rows * tile.cols), m.index(threads));
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(elements.getBody());
  Value e = m.toI32(elements.getInductionVar());
  Value r = m.div(e, tile.cols);
  Value c = m.rem(e, tile.cols);
  int64_t perChunk = 16 / tile.elemBytes;
  Value chunkCol = m.mul(m.div(c, perChunk), perChunk);
  Value at = m.add(destBase, m.add(buildSwizzledOffset(b, loc, tile, r, chunkCol),
                                   m.mul(m.rem(c, perChunk), tile.elemBytes)));
  Value grow = m.add(row0, ext(r)), gcol = m.add(col0, ext(c));
  Value rowIn = m.land(m.cmp(P::sge, grow, m.i64(0)), m.cmp(P::slt, grow, rows));
  Value colIn = m.land(m.cmp(P::sge, gcol, m.i64(0)), m.cmp(P::slt, gcol, cols));
  Value in = m.land(leadIn, m.land(rowIn, colIn));
  auto load = scf::IfOp::create(b, loc, TypeRange{elemType}, in, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard branch(b);
    b.setInsertionPointToStart(load.thenBlock());
    Value offset = m.add(lead, m.add(m.mul(grow, rowStride), m.mul(gcol, colStride)));
    Value ptr = LLVM::GEPOp::create(b, loc, t.base.getType(), elemType, t.base,
                                    ArrayRef<LLVM::GEPArg>{offset});
    scf::YieldOp::create(b, loc, LLVM::LoadOp::create(b, loc, elemType, ptr).getResult());
    b.setInsertionPointToStart(load.elseBlock());
    scf::YieldOp::create(b, loc,
                         arith::ConstantOp::create(b, loc, b.getZeroAttr(elemType)).getResult());
  }
  LLVM::StoreOp::create(b, loc, load.getResult(0), m.sharedPtr(smemBase, at));
}

Value TileCopy::elementChunk(Value grow, Value c, bool checked) const {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  int64_t perChunk = 16 / tile.elemBytes;
  Value rowIn =
      checked ? m.land(leadIn, m.land(m.cmp(P::sge, grow, m.i64(0)), m.cmp(P::slt, grow, rows)))
              : Value();
  Value rowStart = m.add(lead, m.mul(grow, rowStride));
  Value chunk = LLVM::PoisonOp::create(b, loc, VectorType::get({perChunk}, elemType));
  for (int64_t i = 0; i < perChunk; ++i) {
    Value gcol = m.add(col0, m.add(ext(c), m.i64(i)));
    Value offset = m.add(rowStart, m.mul(gcol, colStride));
    auto load = [&] {
      Value ptr = LLVM::GEPOp::create(b, loc, t.base.getType(), elemType, t.base,
                                      ArrayRef<LLVM::GEPArg>{offset});
      return LLVM::LoadOp::create(b, loc, elemType, ptr).getResult();
    };
    Value value;
    if (!checked) {
      value = load();
    } else {
      Value in = m.land(rowIn, m.land(m.cmp(P::sge, gcol, m.i64(0)), m.cmp(P::slt, gcol, cols)));
      auto guarded = scf::IfOp::create(b, loc, TypeRange{elemType}, in, true);
      OpBuilder::InsertionGuard branch(b);
      b.setInsertionPointToStart(guarded.thenBlock());
      scf::YieldOp::create(b, loc, load());
      b.setInsertionPointToStart(guarded.elseBlock());
      scf::YieldOp::create(b, loc,
                           arith::ConstantOp::create(b, loc, b.getZeroAttr(elemType)).getResult());
      b.setInsertionPointAfter(guarded);
      value = guarded.getResult(0);
    }
    chunk = LLVM::InsertElementOp::create(b, loc, chunk, value, m.i32(i));
  }
  return chunk;
}

void TileCopy::elementChunks(scf::IfOp whole) const {
  Math m{b, loc};
  int64_t perChunk = chunkElems(), chunksPerRow = rowChunks(), chunks = chunkCount();
  // The same chunks, each as perChunk element loads (in flight together) and one 16-byte
  // store into its swizzled place. A loop over the thread's chunks from its id, so that the
  // trip count is unknown and the loads of different chunks are not all hoisted together.
  // Elements outside the tensor (edge tiles only) are zero and not read.
  // Inside the tensor, `chunksInFlight` chunks per loop iteration when they divide the thread's
  // share: their loads are issued before their stores.
  int64_t group = chunks % (threads * chunksInFlight) == 0 ? chunksInFlight : 1;
  auto chunkLoads = [&](bool checked) {
    int64_t together = checked ? 1 : group;
    auto loop =
        scf::ForOp::create(b, loc, m.toIndex(tid32), m.index(chunks), m.index(threads * together));
    OpBuilder::InsertionGuard body(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<std::pair<Value, Value>> stores;
    for (int64_t j = 0; j < together; ++j) {
      Value chunkId = m.add(m.toI32(loop.getInductionVar()), m.i32(j * threads));
      Value r = m.div(chunkId, chunksPerRow), c = m.mul(m.rem(chunkId, chunksPerRow), perChunk);
      Value chunk = elementChunk(m.add(row0, ext(r)), c, checked);
      Value dst = m.sharedPtr(smemBase, m.add(destBase, buildSwizzledOffset(b, loc, tile, r, c)));
      stores.push_back({chunk, dst});
    }
    for (auto [chunk, dst] : stores)
      LLVM::StoreOp::create(b, loc, chunk, dst, /*alignment=*/16);
  };
  OpBuilder::InsertionGuard branch(b);
  b.setInsertionPointToStart(whole.thenBlock());
  chunkLoads(/*checked=*/false);
  b.setInsertionPointToStart(whole.elseBlock());
  chunkLoads(/*checked=*/true);
}

void TileCopy::realignedChunks() const {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  int64_t elemBytes = tile.elemBytes;
  int64_t perChunk = chunkElems(), chunksPerRow = rowChunks(), chunks = chunkCount();
  auto words = VectorType::get({4}, b.getI32Type());
  // A chunk's two aligned 16-byte loads may reach past its own bytes, never past the tensor's
  // end (nor before the 16-byte block holding the base).
  Value baseAddr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), t.base);
  Value end = tensorEnd(baseAddr);
  int64_t group = chunks % (threads * chunksInFlight) == 0 ? chunksInFlight : 1;
  auto loop =
      scf::ForOp::create(b, loc, m.toIndex(tid32), m.index(chunks), m.index(threads * group));
  OpBuilder::InsertionGuard body(b);
  b.setInsertionPointToStart(loop.getBody());
  // First every chunk's loads (in flight together), then their realignment and stores.
  struct Loaded {
    Value low, high, shift, dst;
  };
  SmallVector<Loaded> loaded;
  for (int64_t j = 0; j < group; ++j) {
    Value chunkId = m.add(m.toI32(loop.getInductionVar()), m.i32(j * threads));
    Value r = m.div(chunkId, chunksPerRow), c = m.mul(m.rem(chunkId, chunksPerRow), perChunk);
    Value grow = m.add(row0, ext(r)), gcol = m.add(col0, ext(c));
    Value addr =
        m.add(baseAddr, m.mul(m.add(lead, m.add(m.mul(grow, rowStride), gcol)), elemBytes));
    Value aligned = arith::AndIOp::create(b, loc, addr, m.i64(~int64_t(15)));
    Value shift = arith::TruncIOp::create(b, loc, b.getI32Type(),
                                          arith::AndIOp::create(b, loc, addr, m.i64(15)));
    // Whole chunk inside the tensor, unit column stride, both loads below `end`.
    Value rowIn = m.land(leadIn, m.land(m.cmp(P::sge, grow, m.i64(0)), m.cmp(P::slt, grow, rows)));
    Value colsIn =
        m.land(m.cmp(P::sge, gcol, m.i64(0)), m.cmp(P::sle, m.add(gcol, perChunk), cols));
    Value fits = m.cmp(P::ule, m.add(aligned, 32), end);
    Value fast = m.land(m.land(rowIn, colsIn), m.land(m.cmp(P::eq, colStride, m.i64(1)), fits));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{words, words}, fast, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard branch(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      auto loadAt = [&](Value address) {
        Value ptr = LLVM::IntToPtrOp::create(b, loc, t.base.getType(), address);
        return LLVM::LoadOp::create(b, loc, words, ptr, /*alignment=*/16).getResult();
      };
      // The second block only when the chunk straddles two (else the first again: an L1 hit).
      Value straddles = m.cmp(P::ne, shift, m.i32(0));
      Value next = arith::SelectOp::create(b, loc, straddles, m.add(aligned, 16), aligned);
      scf::YieldOp::create(b, loc, ValueRange{loadAt(aligned), loadAt(next)});
      // Partly or wholly outside the tensor, a strided tensor, or the tensor's last bytes: the
      // elements one by one (zero outside), already in place.
      b.setInsertionPointToStart(ifOp.elseBlock());
      Value chunk = elementChunk(grow, c, /*checked=*/true);
      Value asWords = LLVM::BitcastOp::create(b, loc, words, chunk);
      scf::YieldOp::create(b, loc, ValueRange{asWords, asWords});
    }
    Value dst = m.sharedPtr(smemBase, m.add(destBase, buildSwizzledOffset(b, loc, tile, r, c)));
    loaded.push_back({ifOp.getResult(0), ifOp.getResult(1),
                      arith::SelectOp::create(b, loc, fast, shift, m.i32(0)), dst});
  }
  for (const Loaded &l : loaded)
    LLVM::StoreOp::create(b, loc, realignWords(b, loc, l.low, l.high, l.shift), l.dst,
                          /*alignment=*/16);
}

void TileCopy::cpAsyncChunks(scf::IfOp whole) const {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  int64_t perChunk = chunkElems(), chunksPerRow = rowChunks(), chunks = chunkCount();
  int64_t elemBytes = tile.elemBytes;
  auto cacheGlobal =
      NVVM::LoadCacheModifierKindAttr::get(b.getContext(), NVVM::LoadCacheModifierKind::CG);
  // Calls `body` with this thread's chunks (row r, column c of the tile; i32).
  auto forEachChunk = [&](llvm::function_ref<void(Value r, Value c)> body) {
    for (int64_t first = 0; first < chunks; first += threads) {
      Value chunk = m.add(tid32, first);
      OpBuilder::InsertionGuard outer(b);
      if (first + threads > chunks) {
        auto guard = scf::IfOp::create(b, loc, m.cmp(P::ult, chunk, m.i32(chunks)),
                                       /*withElseRegion=*/false);
        b.setInsertionPointToStart(guard.thenBlock());
      }
      body(m.div(chunk, chunksPerRow), m.mul(m.rem(chunk, chunksPerRow), perChunk));
    }
  };
  OpBuilder::InsertionGuard branch(b);
  b.setInsertionPointToStart(whole.thenBlock());
  Value tileStart = m.add(lead, m.add(m.mul(row0, rowStride), col0));
  forEachChunk([&](Value r, Value c) {
    Value dst = m.sharedPtr(smemBase, m.add(destBase, buildSwizzledOffset(b, loc, tile, r, c)));
    Value offset = m.add(tileStart, m.add(m.mul(ext(r), rowStride), ext(c)));
    Value src = LLVM::GEPOp::create(b, loc, t.base.getType(), elemType, t.base,
                                    ArrayRef<LLVM::GEPArg>{offset});
    NVVM::CpAsyncOp::create(b, loc, dst, src, b.getI32IntegerAttr(16), cacheGlobal, Value());
  });
  b.setInsertionPointToStart(whole.elseBlock());
  forEachChunk([&](Value r, Value c) {
    Value dst = m.sharedPtr(smemBase, m.add(destBase, buildSwizzledOffset(b, loc, tile, r, c)));
    Value grow = m.add(row0, ext(r));
    Value gcol = m.add(col0, ext(c));
    // 16 bytes, cut at the tensor's last column; nothing from rows outside it.
    Value rowIn = m.land(leadIn, m.land(m.cmp(P::sge, grow, m.i64(0)), m.cmp(P::slt, grow, rows)));
    Value left = arith::SubIOp::create(b, loc, cols, gcol);
    left = arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, left, m.i64(0)),
                                  m.i64(16 / elemBytes));
    Value colIn = m.cmp(P::sge, gcol, m.i64(0));
    Value valid = arith::SelectOp::create(b, loc, m.land(rowIn, colIn), left, m.i64(0));
    Value bytes = arith::TruncIOp::create(b, loc, b.getI32Type(), m.mul(valid, elemBytes));
    // The source must be a valid address even when no byte is read: the tensor's base then.
    Value any = m.cmp(P::sgt, valid, m.i64(0));
    Value offset = arith::SelectOp::create(
        b, loc, any, m.add(lead, m.add(m.mul(grow, rowStride), gcol)), m.i64(0));
    Value src = LLVM::GEPOp::create(b, loc, t.base.getType(), elemType, t.base,
                                    ArrayRef<LLVM::GEPArg>{offset});
    NVVM::CpAsyncOp::create(b, loc, dst, src, b.getI32IntegerAttr(16), cacheGlobal, bytes);
  });
}

Value TileCopy::stagedBlocks() const {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  return m.land(m.cmp(P::sge, col0, m.i64(0)), m.cmp(P::eq, colStride, m.i64(1)));
}

Value TileCopy::tensorEnd(Value baseAddr) const {
  Math m{b, loc};
  Value last = m.i64(0);
  for (auto [size, stride] : llvm::zip(t.sizes, t.strides))
    last = m.add(last, m.mul(arith::SubIOp::create(b, loc, size, m.i64(1)), stride));
  return m.add(baseAddr, m.mul(m.add(last, 1), int64_t(tile.elemBytes)));
}

Value TileCopy::rowAddress(Value baseAddr, Value grow) const {
  Math m{b, loc};
  return m.add(baseAddr,
               m.mul(m.add(lead, m.add(m.mul(grow, rowStride), col0)), int64_t(tile.elemBytes)));
}

void TileCopy::stagedBlock(Value baseAddr, Value end, Value addr, Value dst, Value bytes) const {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  int64_t elemBytes = tile.elemBytes;
  auto before = scf::IfOp::create(b, loc, m.cmp(P::ule, m.add(addr, 16), end),
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard branch(b);
  b.setInsertionPointToStart(before.thenBlock());
  // The source must be a valid address even when no byte is read: the tensor's base then.
  Value src = arith::SelectOp::create(b, loc, m.cmp(P::sgt, bytes, m.i64(0)), addr, baseAddr);
  NVVM::CpAsyncOp::create(
      b, loc, m.sharedPtr(smemBase, dst), LLVM::IntToPtrOp::create(b, loc, t.base.getType(), src),
      b.getI32IntegerAttr(16),
      NVVM::LoadCacheModifierKindAttr::get(b.getContext(), NVVM::LoadCacheModifierKind::CG),
      arith::TruncIOp::create(b, loc, b.getI32Type(), bytes));
  b.setInsertionPointToStart(before.elseBlock());
  // A loop (compact code: this block is the tensor's last, copied once per row of tiles).
  auto elements = scf::ForOp::create(b, loc, m.index(0), m.index(16), m.index(elemBytes));
  b.setInsertionPointToStart(elements.getBody());
  Value offset = arith::IndexCastOp::create(b, loc, b.getI64Type(), elements.getInductionVar());
  Value at = m.add(addr, offset);
  Value in = m.land(m.cmp(P::uge, at, baseAddr), m.cmp(P::slt, offset, bytes));
  auto guarded = scf::IfOp::create(b, loc, TypeRange{elemType}, in, true);
  {
    OpBuilder::InsertionGuard inElement(b);
    b.setInsertionPointToStart(guarded.thenBlock());
    Value ptr = LLVM::IntToPtrOp::create(b, loc, t.base.getType(), at);
    scf::YieldOp::create(b, loc, LLVM::LoadOp::create(b, loc, elemType, ptr).getResult());
    b.setInsertionPointToStart(guarded.elseBlock());
    scf::YieldOp::create(b, loc,
                         arith::ConstantOp::create(b, loc, b.getZeroAttr(elemType)).getResult());
  }
  Value to = m.add(dst, arith::TruncIOp::create(b, loc, b.getI32Type(), offset));
  LLVM::StoreOp::create(b, loc, guarded.getResult(0), m.sharedPtr(smemBase, to));
}

void TileCopy::stagedIssue(Value edgeBase) const {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  int64_t elemBytes = tile.elemBytes;
  int64_t perChunk = chunkElems(), chunksPerRow = rowChunks(), chunks = chunkCount();
  auto cacheGlobal =
      NVVM::LoadCacheModifierKindAttr::get(b.getContext(), NVVM::LoadCacheModifierKind::CG);
  Value baseAddr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), t.base);
  Value end = tensorEnd(baseAddr);
  // Columns of the tile inside the tensor: the same in every row.
  Value validCols = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, cols, col0), m.i64(0)),
      m.i64(tile.cols));
  auto blocks = scf::IfOp::create(b, loc, stagedBlocks(), /*withElseRegion=*/true);
  OpBuilder::InsertionGuard branch(b);
  b.setInsertionPointToStart(blocks.thenBlock());
  // A tile wholly inside the tensor, above its last row: every block whole but the one past
  // the tile's width, of which the row's misalignment (shift) bytes are the tile's (its other
  // bytes are the row's or the next row's, so cp.async may read the block whole).
  Value inside = m.land(leadIn, m.land(m.land(m.cmp(P::sge, row0, m.i64(0)),
                                              m.cmp(P::slt, m.add(row0, m.i64(tile.rows)), rows)),
                                       m.cmp(P::sle, m.add(col0, m.i64(tile.cols)), cols)));
  auto whole = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/true);
  b.setInsertionPointToStart(whole.thenBlock());
  // A loop, kIssuePasses chunks of a thread per iteration (compact code: the producer's loop is
  // issue-bound).
  constexpr int64_t kIssuePasses = 4;
  int64_t passes = chunks / threads;
  int64_t together = passes % kIssuePasses == 0 ? kIssuePasses : 1;
  auto interior =
      scf::ForOp::create(b, loc, m.index(0), m.index(chunks), m.index(together * threads));
  b.setInsertionPointToStart(interior.getBody());
  for (int64_t pass = 0; pass < together; ++pass) {
    Value chunk = m.add(tid32, m.add(m.toI32(interior.getInductionVar()), pass * threads));
    Value r = m.div(chunk, chunksPerRow), k = m.rem(chunk, chunksPerRow);
    Value rowAddr = rowAddress(baseAddr, m.add(row0, ext(r)));
    Value shift = arith::AndIOp::create(b, loc, rowAddr, m.i64(15));
    Value aligned = arith::SubIOp::create(b, loc, rowAddr, shift);
    auto copy = [&](Value dst, Value addr, Value bytes) {
      NVVM::CpAsyncOp::create(b, loc, m.sharedPtr(smemBase, dst),
                              LLVM::IntToPtrOp::create(b, loc, t.base.getType(), addr),
                              b.getI32IntegerAttr(16), cacheGlobal, bytes);
    };
    copy(m.add(destBase, buildSwizzledOffset(b, loc, tile, r, m.mul(k, perChunk))),
         m.add(aligned, ext(m.mul(k, 16))), Value());
    auto last = scf::IfOp::create(b, loc, m.cmp(P::eq, k, m.i32(chunksPerRow - 1)),
                                  /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inLast(b);
    b.setInsertionPointToStart(last.thenBlock());
    Value any = m.cmp(P::ne, shift, m.i64(0));
    copy(m.add(edgeBase, m.mul(r, 16)),
         arith::SelectOp::create(b, loc, any, m.add(aligned, 16 * chunksPerRow), baseAddr),
         arith::TruncIOp::create(b, loc, b.getI32Type(), shift));
  }
  // An edge tile (or a tile holding the tensor's last row): each block cut at the tensor's
  // edge, the tensor's last block element by element (a loop, as these tiles are few).
  b.setInsertionPointToStart(whole.elseBlock());
  {
    auto loop = scf::ForOp::create(b, loc, m.toIndex(tid32), m.index(chunks), m.index(threads));
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(loop.getBody());
    Value chunk = m.toI32(loop.getInductionVar());
    Value r = m.div(chunk, chunksPerRow), k = m.rem(chunk, chunksPerRow);
    Value grow = m.add(row0, ext(r));
    Value rowAddr = rowAddress(baseAddr, grow);
    Value aligned = arith::AndIOp::create(b, loc, rowAddr, m.i64(~int64_t(15)));
    Value rowIn = m.land(leadIn, m.land(m.cmp(P::sge, grow, m.i64(0)), m.cmp(P::slt, grow, rows)));
    Value validEnd = m.add(rowAddr, m.mul(validCols, elemBytes));
    // The block at `addr` (i64) into `dst` (i32 offset): its bytes before validEnd, the rest zero.
    auto copyBlock = [&](Value addr, Value dst) {
      Value left = arith::SelectOp::create(b, loc, rowIn,
                                           arith::SubIOp::create(b, loc, validEnd, addr), m.i64(0));
      left =
          arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, left, m.i64(0)), m.i64(16));
      stagedBlock(baseAddr, end, addr, dst, left);
    };
    Value c = m.mul(k, perChunk);
    copyBlock(m.add(aligned, ext(m.mul(k, 16))),
              m.add(destBase, buildSwizzledOffset(b, loc, tile, r, c)));
    // The row's last chunk also copies the block past the tile's width.
    auto last = scf::IfOp::create(b, loc, m.cmp(P::eq, k, m.i32(chunksPerRow - 1)),
                                  /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inLast(b);
    b.setInsertionPointToStart(last.thenBlock());
    copyBlock(m.add(aligned, 16 * chunksPerRow), m.add(edgeBase, m.mul(r, 16)));
  }
  // Element by element (zero outside the tensor), already in place: a loop, as this version
  // is rare.
  b.setInsertionPointToStart(blocks.elseBlock());
  auto loop = scf::ForOp::create(b, loc, m.toIndex(tid32), m.index(chunks), m.index(threads));
  b.setInsertionPointToStart(loop.getBody());
  Value chunk = m.toI32(loop.getInductionVar());
  Value r = m.div(chunk, chunksPerRow), c = m.mul(m.rem(chunk, chunksPerRow), perChunk);
  Value value = elementChunk(m.add(row0, ext(r)), c, /*checked=*/true);
  Value dst = m.sharedPtr(smemBase, m.add(destBase, buildSwizzledOffset(b, loc, tile, r, c)));
  LLVM::StoreOp::create(b, loc, value, dst, /*alignment=*/16);
}

void TileCopy::stagedRealign(Value edgeBase) const {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  int64_t elemBytes = tile.elemBytes;
  int64_t perChunk = chunkElems(), chunksPerRow = rowChunks(), chunks = chunkCount();
  auto words = VectorType::get({4}, b.getI32Type());
  Value baseAddr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), t.base);
  // Every row 16-byte aligned when the first one is and the row stride is a multiple of 16 bytes.
  Value misaligned =
      arith::OrIOp::create(b, loc, rowAddress(baseAddr, row0), m.mul(rowStride, elemBytes));
  misaligned = m.cmp(P::ne, arith::AndIOp::create(b, loc, misaligned, m.i64(15)), m.i64(0));
  auto realign = scf::IfOp::create(b, loc, m.land(stagedBlocks(), misaligned),
                                   /*withElseRegion=*/false);
  OpBuilder::InsertionGuard branch(b);
  b.setInsertionPointToStart(realign.thenBlock());
  // Passes of one chunk per thread, kRealignPasses at a time: their loads, a warp barrier (a
  // lane's next block is its neighbour's own), then their stores.
  constexpr int64_t kRealignPasses = 4;
  struct Loaded {
    Value own, next, shift, dst;
  };
  // A loop over the groups (compact code: the producer's loop is issue-bound).
  int64_t passes = chunks / threads;
  int64_t together = passes % kRealignPasses == 0 ? kRealignPasses : 1;
  auto groups = scf::ForOp::create(b, loc, m.index(0), m.index(passes * threads),
                                   m.index(together * threads));
  b.setInsertionPointToStart(groups.getBody());
  Value first = m.add(tid32, m.toI32(groups.getInductionVar()));
  {
    SmallVector<Loaded> loaded;
    for (int64_t pass = 0; pass < together; ++pass) {
      Value chunk = m.add(first, pass * threads);
      Value r = m.div(chunk, chunksPerRow), k = m.rem(chunk, chunksPerRow);
      Value shift = arith::TruncIOp::create(
          b, loc, b.getI32Type(),
          arith::AndIOp::create(b, loc, rowAddress(baseAddr, m.add(row0, ext(r))), m.i64(15)));
      Value own = m.add(destBase, buildSwizzledOffset(b, loc, tile, r, m.mul(k, perChunk)));
      Value inRow =
          m.add(destBase, buildSwizzledOffset(b, loc, tile, r, m.mul(m.add(k, 1), perChunk)));
      Value next = arith::SelectOp::create(b, loc, m.cmp(P::ult, k, m.i32(chunksPerRow - 1)), inRow,
                                           m.add(edgeBase, m.mul(r, 16)));
      auto load = [&](Value offset) {
        return LLVM::LoadOp::create(b, loc, words, m.sharedPtr(smemBase, offset), /*alignment=*/16)
            .getResult();
      };
      Value dst = m.sharedPtr(smemBase, own);
      loaded.push_back({load(own), load(next), shift, dst});
    }
    NVVM::SyncWarpOp::create(b, loc, m.i32(-1));
    for (const Loaded &l : loaded)
      LLVM::StoreOp::create(b, loc, realignWords(b, loc, l.own, l.next, l.shift), l.dst,
                            /*alignment=*/16);
  }
}

/// The TileCopy of a copy at `offsets` (one per tensor dimension, index).
static TileCopy makeTileCopy(OpBuilder &b, Location loc, Value smemBase, Value tid32,
                             int64_t threads, const TensorValues &t, ValueRange offsets,
                             const layout::SwizzledTile &tile, Value destBase, Type elemType,
                             int64_t chunksInFlight) {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  size_t rank = offsets.size();
  // The leading dimensions are fixed: they move the base and must be inside the tensor.
  Value lead = m.i64(0);
  Value leadIn = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (size_t d = 0; d + 2 < rank; ++d) {
    Value at = m.toI64(offsets[d]);
    lead = m.add(lead, m.mul(at, t.strides[d]));
    leadIn = m.land(leadIn, m.land(m.cmp(P::sge, at, m.i64(0)), m.cmp(P::slt, at, t.sizes[d])));
  }
  Value row0 = m.toI64(offsets[rank - 2]), col0 = m.toI64(offsets[rank - 1]);
  Value rows = t.sizes[rank - 2], cols = t.sizes[rank - 1];
  Value rowStride = t.strides[rank - 2], colStride = t.strides[rank - 1];
  // A copy moves bits: 8-bit floats (which LLVM cannot load) as bytes.
  if (isa<Float8E4M3FNType, Float8E5M2Type>(elemType))
    elemType = b.getI8Type();
  return TileCopy{b,    loc,      smemBase, tid32,     threads,   t,
                  tile, destBase, elemType, lead,      leadIn,    row0,
                  col0, rows,     cols,     rowStride, colStride, chunksInFlight};
}

void tlc::buildStagedCopy(OpBuilder &b, Location loc, Value smemBase, Value tid32, int64_t threads,
                          const TensorValues &t, ValueRange offsets,
                          const layout::SwizzledTile &tile, Value destBase, Value edgeBase,
                          Type elemType, StagedPhase phase) {
  TileCopy copy =
      makeTileCopy(b, loc, smemBase, tid32, threads, t, offsets, tile, destBase, elemType, 1);
  if (phase == StagedPhase::Issue)
    copy.stagedIssue(edgeBase);
  else
    copy.stagedRealign(edgeBase);
}

void tlc::buildTileCopy(OpBuilder &b, Location loc, Value smemBase, Value tid32, int64_t threads,
                        const TensorValues &t, ValueRange offsets, const layout::SwizzledTile &tile,
                        Value destBase, Type elemType, TileCopyMode mode, int64_t chunksInFlight) {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  TileCopy copy = makeTileCopy(b, loc, smemBase, tid32, threads, t, offsets, tile, destBase,
                               elemType, chunksInFlight);
  if (mode == TileCopyMode::CompactElements)
    return copy.compactElements();
  if (mode == TileCopyMode::Realigned)
    return copy.realignedChunks();
  // A tile wholly inside the tensor (all but the edge tiles) takes whole chunks without checks:
  // beside the cp.async, one add per chunk (the rest is the same in every iteration of a loop and
  // LLVM hoists it).
  Value inside = m.land(
      copy.leadIn, m.land(m.land(m.cmp(P::sge, copy.row0, m.i64(0)),
                                 m.cmp(P::sle, m.add(copy.row0, m.i64(tile.rows)), copy.rows)),
                          m.land(m.cmp(P::sge, copy.col0, m.i64(0)),
                                 m.cmp(P::sle, m.add(copy.col0, m.i64(tile.cols)), copy.cols))));
  auto whole = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/true);
  if (mode == TileCopyMode::Elements)
    return copy.elementChunks(whole);
  copy.cpAsyncChunks(whole);
}
