//===- MmaSyncOps.cpp - cp.async tiles, ldmatrix + mma.sync, row reductions -===//
//
// The building blocks of the mma.sync strategies (sm_80 and later), and the patterns of the
// register strategy that use them outside a pipelined main loop:
//   - a tile copy from a tensor is 16-byte cp.async.cg chunks into the tile's swizzled place
//     (zero-filled past the tensor's edges), or, for tensors cp.async cannot read 16 bytes at a
//     time, the same chunks as element loads and one 16-byte shared store each (chosen at run
//     time, uniformly);
//   - a gemm is, per 16-wide k step, ldmatrix.x4 of the warp's A rows (or A from registers: an
//     accumulator-layout fragment is already m16n8k16's A layout, two n8 tiles per k16) and B
//     columns, then mma.sync m16n8k16 into the accumulator registers;
//   - a reduce of an accumulator along its rows combines a thread's slots of each row, then the
//     four lanes of the quad holding the row (two xor shuffles), then the initial value.
//
//===----------------------------------------------------------------------===//
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
/// Constants and arithmetic at one location.
struct Math {
  OpBuilder &b;
  Location loc;
  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v); }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, constLike(x, y)) : x; }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) { return mul(x, constLike(x, y)); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, loc, x, constLike(x, y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, constLike(x, y)); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value land(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value toI32(Value x) { return arith::IndexCastOp::create(b, loc, b.getI32Type(), x); }
  Value toI64(Value x) { return arith::IndexCastOp::create(b, loc, b.getI64Type(), x); }
  Value toIndex(Value x) { return arith::IndexCastOp::create(b, loc, b.getIndexType(), x); }
  Value constLike(Value x, int64_t v) {
    if (x.getType().isIndex())
      return index(v);
    return arith::ConstantIntOp::create(b, loc, x.getType(), v);
  }
  Value sharedPtr(Value smemBase, Value offset) {
    return LLVM::GEPOp::create(b, loc, smemBase.getType(), b.getI8Type(), smemBase,
                               ValueRange{offset});
  }
};
} // namespace

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
};
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
  int64_t perChunk = 16 / tile.elemBytes;
  int64_t chunksPerRow = tile.cols / perChunk;
  int64_t chunks = tile.rows * chunksPerRow;
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
  int64_t perChunk = 16 / elemBytes;
  int64_t chunksPerRow = tile.cols / perChunk;
  int64_t chunks = tile.rows * chunksPerRow;
  auto words = VectorType::get({4}, b.getI32Type());
  // The byte just past the tensor's last element: a chunk's two aligned 16-byte loads may reach
  // past its own bytes, never past this (nor before the 16-byte block holding the base).
  Value last = m.i64(0);
  for (auto [size, stride] : llvm::zip(t.sizes, t.strides))
    last = m.add(last, m.mul(arith::SubIOp::create(b, loc, size, m.i64(1)), stride));
  Value baseAddr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), t.base);
  Value end = m.add(baseAddr, m.mul(m.add(last, 1), elemBytes));
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
  for (const Loaded &l : loaded) {
    // Bytes shift .. shift + 15 of the 32 loaded: whole words by two selects (8 and 4 bytes),
    // then the remaining 0..3 bytes by a funnel shift per word.
    SmallVector<Value> w;
    for (Value v : {l.low, l.high})
      for (int64_t i = 0; i < 4; ++i)
        w.push_back(LLVM::ExtractElementOp::create(b, loc, v, m.i32(i)));
    auto shiftWords = [&](ArrayRef<Value> in, int64_t by, Value cond, int64_t count) {
      SmallVector<Value> out;
      for (int64_t i = 0; i < count; ++i)
        out.push_back(arith::SelectOp::create(b, loc, cond, in[i + by], in[i]));
      return out;
    };
    Value q2 = m.cmp(P::ne, arith::AndIOp::create(b, loc, l.shift, m.i32(8)), m.i32(0));
    Value q1 = m.cmp(P::ne, arith::AndIOp::create(b, loc, l.shift, m.i32(4)), m.i32(0));
    SmallVector<Value> u = shiftWords(w, 2, q2, 6);
    SmallVector<Value> x = shiftWords(u, 1, q1, 5);
    Value bits = m.mul(arith::AndIOp::create(b, loc, l.shift, m.i32(3)), 8);
    Value out = LLVM::PoisonOp::create(b, loc, words);
    for (int64_t i = 0; i < 4; ++i) {
      Value word = LLVM::FshrOp::create(b, loc, x[i + 1], x[i], bits);
      out = LLVM::InsertElementOp::create(b, loc, out, word, m.i32(i));
    }
    LLVM::StoreOp::create(b, loc, out, l.dst, /*alignment=*/16);
  }
}

void TileCopy::cpAsyncChunks(scf::IfOp whole) const {
  Math m{b, loc};
  using P = arith::CmpIPredicate;
  int64_t perChunk = 16 / tile.elemBytes;
  int64_t chunksPerRow = tile.cols / perChunk;
  int64_t chunks = tile.rows * chunksPerRow;
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

void tlc::buildTileCopy(OpBuilder &b, Location loc, Value smemBase, Value tid32, int64_t threads,
                        const TensorValues &t, ValueRange offsets, const layout::SwizzledTile &tile,
                        Value destBase, Type elemType, TileCopyMode mode, int64_t chunksInFlight) {
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
  TileCopy copy{b,    loc,    smemBase, tid32, threads, t,    tile,      destBase,  elemType,
                lead, leadIn, row0,     col0,  rows,    cols, rowStride, colStride, chunksInFlight};
  if (mode == TileCopyMode::CompactElements)
    return copy.compactElements();
  if (mode == TileCopyMode::Realigned)
    return copy.realignedChunks();
  // A tile wholly inside the tensor (all but the edge tiles) takes whole chunks without checks:
  // beside the cp.async, one add per chunk (the rest is the same in every iteration of a loop and
  // LLVM hoists it).
  Value inside = m.land(leadIn, m.land(m.land(m.cmp(P::sge, row0, m.i64(0)),
                                              m.cmp(P::sle, m.add(row0, m.i64(tile.rows)), rows)),
                                       m.land(m.cmp(P::sge, col0, m.i64(0)),
                                              m.cmp(P::sle, m.add(col0, m.i64(tile.cols)), cols))));
  auto whole = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/true);
  if (mode == TileCopyMode::Elements)
    return copy.elementChunks(whole);
  copy.cpAsyncChunks(whole);
}

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

/// Whether `op` or an op nested in it uses `value`.
static bool usesValue(Operation *op, Value value) {
  WalkResult found = op->walk([&](Operation *inner) {
    return llvm::is_contained(inner->getOperands(), value) ? WalkResult::interrupt()
                                                           : WalkResult::advance();
  });
  return found.wasInterrupted();
}

TileCopyMode tlc::elementMode(Operation *copy) {
  return copy->hasAttr(tile::kUnalignedAttr) ? TileCopyMode::Elements
                                             : TileCopyMode::CompactElements;
}

static bool isCpAsyncCopy(Operation *op) {
  return isa<tile::CopyOp>(op) && op->hasAttr(tile::kCpAsyncAttr);
}

void tlc::placeCpAsyncWaits(gpu::GPUFuncOp func) {
  SmallVector<tile::CopyOp> copies;
  func.walk([&](tile::CopyOp copy) {
    if (copy->hasAttr(tile::kCpAsyncAttr))
      copies.push_back(copy);
  });
  // Where each wait goes (before that op; null: the end of the copy's block) and the most
  // groups it may leave pending.
  llvm::MapVector<std::pair<Block *, Operation *>, int64_t> waits;
  for (tile::CopyOp copy : copies) {
    if (copy->hasAttr(tile::kStagesAttr))
      continue; // a ring's copy: buildRegisterRing placed its waits
    Block *block = copy->getBlock();
    int64_t later = 0;
    bool exact = true;
    Operation *at = nullptr;
    for (Operation *op = copy->getNextNode(); op; op = op->getNextNode()) {
      if (op->hasTrait<OpTrait::IsTerminator>())
        break;
      if (usesValue(op, copy.getDest())) {
        at = op;
        break;
      }
      if (isCpAsyncCopy(op)) {
        ++later;
        continue;
      }
      // Groups committed inside nested regions may or may not be: count none.
      op->walk([&](tile::CopyOp inner) { exact &= !inner->hasAttr(tile::kCpAsyncAttr); });
    }
    int64_t pending = exact && at ? later : 0;
    auto key = std::make_pair(block, at);
    auto [it, inserted] = waits.try_emplace(key, pending);
    if (!inserted)
      it->second = std::min(it->second, pending);
  }
  for (auto [key, pending] : waits) {
    auto [block, at] = key;
    OpBuilder b(func.getContext());
    if (at)
      b.setInsertionPoint(at);
    else
      b.setInsertionPoint(block->getTerminator());
    Location loc = at ? at->getLoc() : block->getTerminator()->getLoc();
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(pending));
    gpu::BarrierOp::create(b, loc);
  }
  // Before a run of copies: every thread has finished reading the tiles they overwrite.
  for (tile::CopyOp copy : copies) {
    Operation *prev = copy->getPrevNode();
    if (prev && isCpAsyncCopy(prev))
      continue;
    OpBuilder b(copy);
    gpu::BarrierOp::create(b, copy.getLoc());
  }
}

void tlc::placeMmaOperandBarriers(gpu::GPUFuncOp func) {
  func.walk([&](tile::GemmOp gemm) {
    if (tile::getMmaKind(gemm) != tile::MmaKind::MmaSync)
      return;
    // mma.sync gemms end without a barrier: the cp.async copies that refill their tiles wait
    // for every thread first (placeCpAsyncWaits), other writers do not.
    bool otherWriter = false;
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      if (!cast<tile::BufferType>(operand.getType()).isShared())
        continue;
      for (Operation *user : operand.getUsers()) {
        if (isa<tile::GemmOp>(user) || isCpAsyncCopy(user))
          continue;
        auto copy = dyn_cast<tile::CopyOp>(user);
        otherWriter |= copy ? copy.getDest() == operand
                            : isa<tile::WriteOp, tile::FillOp, tile::WriteSlotOp>(user);
      }
    }
    if (!otherWriter)
      return;
    OpBuilder b(gemm);
    b.setInsertionPointAfter(gemm);
    gpu::BarrierOp::create(b, gemm.getLoc());
  });
}

namespace {

/// The swizzled tile and byte offset (i32, built at the builder's position) of a shared buffer
/// placed by tile-shared-memory-layout (allocateBlockBuffers keeps both on the buffer's cast),
/// or of one stage of it (a stage view of buildRegisterRing).
static std::optional<std::pair<layout::SwizzledTile, Value>>
getSwizzledTile(OpBuilder &b, Location loc, Value buffer) {
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

/// Whether getSwizzledTile knows `buffer` (checked before a pattern builds anything).
static bool isSwizzledTile(Value buffer) {
  auto castOp = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  if (!castOp)
    return false;
  if (castOp->hasAttr(kStageViewAttr))
    return isSwizzledTile(castOp.getInputs()[0]);
  return castOp->hasAttr(tile::kSwizzleAttr) && castOp->hasAttr(tile::kOffsetAttr);
}

static int64_t blockThreads(Operation *op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
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
    Value readable = buildCpAsyncReadable(rewriter, loc, *t, tile->first.elemBytes);
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

/// reduce(acc, rows, dim = 1): per row slot, the thread's slots of that row, then the quad.
struct ReduceRows : OpRewritePattern<tile::ReduceOp> {
  ReduceRows(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(tile::ReduceOp op, PatternRewriter &rewriter) const override {
    auto src = getRegisterLayout(op.getSource());
    auto dst = getRegisterLayout(op.getDest());
    // argmax / argmin keep the generic lowering (tile-assign-mma-layouts converts their
    // fragments).
    if (!src || !dst || src->kind != tile::AccLayout::Kind::MmaSync ||
        dst->kind != tile::AccLayout::Kind::MmaSyncRows || op.getDim() != 1 || op.isArgReduce())
      return failure();
    Location loc = op.getLoc();
    Value srcMemref = getBufferMemref(op.getSource()), dstMemref = getBufferMemref(op.getDest());
    Value initMemref = op.getInit() ? getBufferMemref(op.getInit()) : Value();
    StringRef kind = op.getKind();
    auto combine = [&](Value x, Value y) { return buildReduceCombine(rewriter, loc, kind, x, y); };
    auto slot = [&](Value memref, int64_t s) -> Value {
      return memref::LoadOp::create(rewriter, loc, memref,
                                    ValueRange{arith::ConstantIndexOp::create(rewriter, loc, s)});
    };
    const layout::MmaSyncAccLayout &l = src->mma;
    for (int64_t r = 0; r < l.rowSlots(); ++r) {
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
      if (op.getAccumulate())
        v = combine(slot(dstMemref, r), v);
      else if (initMemref)
        v = combine(slot(initMemref, r), v);
      memref::StoreOp::create(rewriter, loc, v, dstMemref,
                              ValueRange{arith::ConstantIndexOp::create(rewriter, loc, r)});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tlc::populateMmaSyncPatterns(RewritePatternSet &patterns) {
  patterns.add<CpAsyncTileCopy, MmaSyncGemm, ReduceRows>(patterns.getContext());
}

void tlc::buildRegisterRing(scf::ForOp loop, OpBuilder &b, IRMapping &mapping) {
  Location loc = loop.getLoc();
  Math m{b, loc};
  int64_t stages = loop->getAttrOfType<IntegerAttr>(tile::kStagesAttr).getInt();
  Value lb = mapping.lookupOrDefault(loop.getLowerBound());
  Value ub = mapping.lookupOrDefault(loop.getUpperBound());
  Value step = mapping.lookupOrDefault(loop.getStep());
  SmallVector<tile::CopyOp> copies;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto copy = dyn_cast<tile::CopyOp>(op))
      copies.push_back(copy);
  int64_t groups = static_cast<int64_t>(copies.size());

  // Stage `stage` (index) of a staged buffer: the buffer and the stage's byte offset.
  auto view = [&](Value buffer, Value stage) -> Value {
    auto type = cast<tile::BufferType>(buffer.getType());
    Value offset = m.mul(m.toI32(stage), type.getSizeInBytes());
    auto castOp = UnrealizedConversionCastOp::create(b, loc, type,
                                                     ValueRange{mapping.lookup(buffer), offset});
    castOp->setAttr(kStageViewAttr, b.getUnitAttr());
    return castOp.getResult(0);
  };
  // The copies of the iteration at `iv` into stage `stage`, one cp.async group each. Copies of
  // iterations past the end read only inside the tensors (masked): harmless, and they keep every
  // thread's group count in step.
  auto issue = [&](Value iv, Value stage) {
    IRMapping copyMapping = mapping;
    copyMapping.map(loop.getInductionVar(), iv);
    for (tile::CopyOp copy : copies) {
      for (Value offset : copy.getSourceOffsets())
        rematerialize(b, offset, copyMapping, {});
      copyMapping.map(copy.getDest(), view(copy.getDest(), stage));
      Operation *issued = b.clone(*copy, copyMapping);
      // Its waits are placed here, not by placeCpAsyncWaits.
      issued->setAttr(tile::kStagesAttr, b.getI64IntegerAttr(stages));
    }
  };
  for (int64_t p = 0; p + 1 < stages; ++p)
    issue(m.add(lb, m.mul(step, p)), m.index(p));

  // At the first use of copy k's buffer in iteration i: the groups issued after copy k of
  // iteration i (the rest of its set, then the sets of i + 1 .. i + S - 1) may be pending.
  llvm::DenseMap<Operation *, int64_t> waits;
  for (auto [k, copy] : llvm::enumerate(copies)) {
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (isa<tile::CopyOp>(op) || !usesValue(&op, copy.getDest()))
        continue;
      int64_t pending = (groups - 1 - static_cast<int64_t>(k)) + (stages - 1) * groups;
      auto [it, inserted] = waits.try_emplace(&op, pending);
      if (!inserted)
        it->second = std::min(it->second, pending);
      break;
    }
  }

  auto ring = scf::ForOp::create(b, loc, lb, ub, step);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ring.getBody());
    Value iv = ring.getInductionVar();
    Value i = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, lb), step);
    issue(m.add(iv, m.mul(step, stages - 1)), m.rem(m.add(i, stages - 1), stages));
    IRMapping bodyMapping = mapping;
    bodyMapping.map(loop.getInductionVar(), iv);
    Value stage = m.rem(i, stages);
    for (tile::CopyOp copy : copies)
      bodyMapping.map(copy.getDest(), view(copy.getDest(), stage));
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (isa<tile::CopyOp>(op))
        continue;
      if (auto it = waits.find(&op); it != waits.end()) {
        NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(it->second));
        gpu::BarrierOp::create(b, loc);
      }
      b.clone(op, bodyMapping);
    }
  }
  // No copy may still be landing when the block moves on or exits.
  NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
}
