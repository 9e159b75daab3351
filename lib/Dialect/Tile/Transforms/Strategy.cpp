//===- Strategy.cpp - Register layouts of accumulator fragments -----------===//
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <numeric>

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

FragmentLayoutAttrInterface AccLayout::toAttr(MLIRContext *ctx) const {
  if (kind == Kind::Wgmma)
    return WgmmaAccLayoutAttr::get(ctx, wgmma.warpgroupsM, wgmma.warpgroupsN);
  if (kind == Kind::MmaSync)
    return MmaSyncAccLayoutAttr::get(ctx, mma.warpsM, mma.warpsN);
  if (kind == Kind::Blocked)
    return BlockedLayoutAttr::get(ctx, blocked.vec, blocked.threadsPerRow, blocked.threads);
  if (kind == Kind::BlockedRows)
    return BlockedRowsLayoutAttr::get(ctx, blocked.threadsPerRow, blocked.threads);
  return MmaSyncRowsLayoutAttr::get(ctx, mma.warpsM, mma.warpsN);
}

std::optional<AccLayout> AccLayout::fromAttr(Attribute attr, ArrayRef<int64_t> shape) {
  // The dialect verified the layout against the fragment's shape (verifyOperationAttribute).
  auto fragment = dyn_cast_or_null<FragmentLayoutAttrInterface>(attr);
  bool rows = isa_and_nonnull<MmaSyncRowsLayoutAttr, BlockedRowsLayoutAttr>(attr);
  if (!fragment || shape.size() != (rows ? 1u : 2u))
    return std::nullopt;
  AccLayout layout;
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(attr)) {
    layout.kind = Kind::Blocked;
    layout.blocked = layout::BlockedLayout{shape[0], shape[1], blocked.getVec(),
                                           blocked.getThreadsPerRow(), blocked.getThreads()};
  } else if (auto blockedRows = dyn_cast<BlockedRowsLayoutAttr>(attr)) {
    layout.kind = Kind::BlockedRows;
    layout.blocked = layout::BlockedLayout{shape[0], 0, 1, blockedRows.getThreadsPerRow(),
                                           blockedRows.getThreads()};
  } else if (auto wgmma = dyn_cast<WgmmaAccLayoutAttr>(attr)) {
    layout.kind = Kind::Wgmma;
    layout.wgmma =
        layout::WgmmaAccLayout{shape[0], shape[1], wgmma.getWarpgroupsM(), wgmma.getWarpgroupsN()};
  } else if (auto mma = dyn_cast<MmaSyncAccLayoutAttr>(attr)) {
    layout.kind = Kind::MmaSync;
    layout.mma = layout::MmaSyncAccLayout{shape[0], shape[1], mma.getWarpsM(), mma.getWarpsN()};
  } else {
    // Beside an accumulator of any width: the rows alone decide the slots.
    auto rowsAttr = cast<MmaSyncRowsLayoutAttr>(attr);
    layout.kind = Kind::MmaSyncRows;
    layout.mma = layout::MmaSyncAccLayout{shape[0], 16 * rowsAttr.getReplicas(),
                                          rowsAttr.getWarps(), rowsAttr.getReplicas()};
  }
  return layout;
}

std::optional<AccLayout> tlc::tile::getAccLayout(Value buffer) {
  auto alloc = buffer.getDefiningOp<AllocOp>();
  if (!alloc)
    return std::nullopt;
  return AccLayout::fromAttr(alloc->getAttr(kLayoutAttr), alloc.getBuffer().getType().getShape());
}

std::optional<layout::WgmmaAccLayout> tlc::tile::getRegisterWgmmaInstr(GemmOp gemm) {
  std::optional<AccLayout> acc = getAccLayout(gemm.getC());
  return acc ? getRegisterWgmmaInstr(*acc, gemm.getTransposeB()) : std::nullopt;
}

std::optional<layout::WgmmaAccLayout> tlc::tile::getRegisterWgmmaInstr(const AccLayout &acc,
                                                                       bool transposeB) {
  if (acc.kind != AccLayout::Kind::MmaSync)
    return std::nullopt;
  const layout::MmaSyncAccLayout &l = acc.mma;
  return layout::WgmmaAccLayout::onStackedWarps(l.rows, l.cols, l.warpsM, l.warpsN,
                                                transposeB ? 8 : 64);
}

bool tlc::tile::isRegisterWgmma(GemmOp gemm) {
  std::optional<AccLayout> acc = getAccLayout(gemm.getC());
  return getMmaKind(gemm) == MmaKind::Wgmma && acc && acc->kind == AccLayout::Kind::MmaSync;
}

namespace {
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value div(Value a, int64_t d) { return arith::DivUIOp::create(b, loc, a, cst(d)); }
  Value rem(Value a, int64_t d) { return arith::RemUIOp::create(b, loc, a, cst(d)); }
  Value mul(Value a, int64_t m) { return arith::MulIOp::create(b, loc, a, cst(m)); }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
};
} // namespace

std::pair<Value, Value> tlc::tile::buildAccCoords(OpBuilder &b, Location loc,
                                                  const AccLayout &layout, Value tid, Value slot) {
  IndexMath m{b, loc};
  if (layout.isBlocked()) {
    const layout::BlockedLayout &l = layout.blocked;
    Value rowInPass = m.div(tid, l.threadsPerRow);
    if (layout.kind == AccLayout::Kind::BlockedRows)
      return {m.add(m.mul(slot, l.rowsPerPass()), rowInPass), m.cst(0)};
    Value v = m.rem(slot, l.vec);
    Value step = m.div(slot, l.vec);
    Value cc = m.rem(step, l.colSteps());
    Value rr = m.div(step, l.colSteps());
    Value row = m.add(m.mul(rr, l.rowsPerPass()), rowInPass);
    Value col =
        m.add(m.mul(m.add(m.mul(cc, l.threadsPerRow), m.rem(tid, l.threadsPerRow)), l.vec), v);
    return {row, col};
  }
  Value lane = m.rem(tid, 32);
  if (layout.kind == AccLayout::Kind::MmaSyncRows) {
    // Row slot r: 16 (r / 2) + lane / 4 + 8 (r % 2) in the warp's rows.
    const layout::MmaSyncAccLayout &l = layout.mma;
    // The warps of a block row (replicas) hold the same rows.
    Value warpRow = l.warpsN == 1 ? m.div(tid, 32) : m.div(m.div(tid, 32), l.warpsN);
    Value row = m.add(m.add(m.mul(warpRow, l.warpRows()), m.mul(m.div(slot, 2), 16)),
                      m.add(m.div(lane, 4), m.mul(m.rem(slot, 2), 8)));
    return {row, m.cst(0)};
  }
  // Inside an m16n8 fragment: element e of lane l is at (l / 4 + 8 (e / 2), 2 (l % 4) + e % 2).
  Value e = m.rem(slot, 4);
  Value inRow = m.add(m.div(lane, 4), m.mul(m.div(e, 2), 8));
  Value inCol = m.add(m.mul(m.rem(lane, 4), 2), m.rem(e, 2));
  Value fragment = m.div(slot, 4);
  if (layout.kind == AccLayout::Kind::Wgmma) {
    const layout::WgmmaAccLayout &l = layout.wgmma;
    Value warpgroup = m.div(tid, 128);
    Value warp = m.div(m.rem(tid, 128), 32);
    Value wgM = m.rem(warpgroup, l.warpgroupsM);
    Value wgN = m.div(warpgroup, l.warpgroupsM);
    int64_t perTile = l.instrN() / 8; // fragments per 64-row tile
    Value mTile = m.div(fragment, perTile);
    Value q = m.rem(fragment, perTile);
    Value row = m.add(m.add(m.mul(wgM, l.warpgroupRows()), m.mul(mTile, 64)),
                      m.add(m.mul(warp, 16), inRow));
    Value col = m.add(m.add(m.mul(wgN, l.instrN()), m.mul(q, 8)), inCol);
    return {row, col};
  }
  const layout::MmaSyncAccLayout &l = layout.mma;
  Value warp = m.div(tid, 32);
  Value wm = m.div(warp, l.warpsN);
  Value wn = m.rem(warp, l.warpsN);
  Value mi = m.div(fragment, l.nTiles());
  Value ni = m.rem(fragment, l.nTiles());
  Value row = m.add(m.add(m.mul(wm, l.warpRows()), m.mul(mi, 16)), inRow);
  Value col = m.add(m.add(m.mul(wn, l.warpCols()), m.mul(ni, 8)), inCol);
  return {row, col};
}

void tlc::tile::addReduceScratch(KernelOp kernel, function_ref<int64_t(const AccLayout &)> values) {
  kernel.getBody().walk([&](ReduceOp reduce) {
    std::optional<AccLayout> src = getAccLayout(reduce.getSource());
    int64_t count = src && !reduce.getScratch() ? values(*src) : 0;
    if (!count)
      return;
    OpBuilder b(kernel.getContext());
    b.setInsertionPointToStart(&kernel.getBody().front());
    Type elem =
        getReduceAccumulatorType(reduce.getDest().getType().getElementType(), reduce.getKind());
    auto type = BufferType::get(kernel.getContext(), BufferSpace::Shared, {count}, elem);
    reduce.getScratchMutable().assign(AllocOp::create(b, reduce.getLoc(), type).getBuffer());
  });
}

int64_t tlc::tile::storeStagingBytes(const AccLayout &layout, int64_t elemBytes) {
  bool accumulator =
      layout.kind == AccLayout::Kind::Wgmma || layout.kind == AccLayout::Kind::MmaSync;
  if (!accumulator || (elemBytes != 1 && elemBytes != 2 && elemBytes != 4))
    return 0;
  return layout.threads() / 32 * 16 * storeStagingPitch(elemBytes);
}

StoreChunks tlc::tile::storeStagingChunks(const AccLayout &layout, int64_t elemBytes) {
  int64_t chunkCols = kStoreStagingRowBytes / elemBytes;
  StoreChunks chunks;
  for (int64_t f = 0, e = layout.slots() / 4; f < e; ++f) {
    auto [r, c] = layout.coord(0, 4 * f);
    chunks[{r, c / chunkCols}].push_back({f, c});
  }
  return chunks;
}

/// The staging bytes `copy` needs (0: it does not stage).
static int64_t stagingBytesOf(CopyOp copy) {
  auto tensor = dyn_cast<tile::TensorType>(copy.getDest().getType());
  std::optional<AccLayout> layout = getAccLayout(copy.getSource());
  if (!tensor || !layout || tensor.getRank() < 2 || !tensor.getElementType().isIntOrFloat())
    return 0;
  unsigned bits = tensor.getElementType().getIntOrFloatBitWidth();
  return bits % 8 ? 0 : storeStagingBytes(*layout, bits / 8);
}

bool tlc::tile::isTmaStorable(CopyOp copy) {
  auto tensor = dyn_cast<tile::TensorType>(copy.getDest().getType());
  std::optional<AccLayout> layout = getAccLayout(copy.getSource());
  // The store map describes a tensor argument of the kernel as the launch passes it.
  if (!tensor || !isa<BlockArgument>(copy.getDest()) || !layout ||
      layout->kind != AccLayout::Kind::Wgmma || tensor.getRank() != 2 ||
      !tensor.getElementType().isIntOrFloat())
    return false;
  unsigned bits = tensor.getElementType().getIntOrFloatBitWidth();
  if (bits != 16 && bits != 32)
    return false;
  // TMA writes asynchronously: nothing else in the kernel may read or write the tensor.
  for (Operation *user : copy.getDest().getUsers())
    if (user != copy.getOperation() && isa<LoadOp, StoreOp, AtomicAddOp, CopyOp>(user))
      return false;
  // The 8-column blocks of each (16-row tile, 128-byte chunk) of a warp's part: all of them.
  StoreChunks chunks = storeStagingChunks(*layout, bits / 8);
  int64_t blocks = kStoreStagingRowBytes / (bits / 8) / 8;
  return !chunks.empty() && llvm::all_of(chunks, [&](const auto &chunk) {
    return static_cast<int64_t>(chunk.second.size()) == blocks;
  });
}

/// The warps of the accumulator layout `copy` stores (0 where it has none).
static int64_t warpsOf(CopyOp copy) {
  std::optional<AccLayout> layout = getAccLayout(copy.getSource());
  return layout ? layout->threads() / 32 : 0;
}

int64_t tlc::tile::storeStagingSlabs(int64_t scratchBytes, const AccLayout &layout) {
  return scratchBytes / (layout.threads() / 32 * kTmaStoreSlabBytes);
}

int64_t tlc::tile::storeStagingSlabs(CopyOp copy) {
  int64_t warps = warpsOf(copy);
  if (!copy.getScratch() || !warps)
    return 0;
  return cast<BufferType>(copy.getScratch().getType()).getShape()[0] / (warps * kTmaStoreSlabBytes);
}

void tlc::tile::addStoreStaging(KernelOp kernel, bool tmaStores) {
  SmallVector<CopyOp> copies;
  int64_t bytes = 0;
  kernel.getBody().walk([&](CopyOp copy) {
    int64_t need = copy.getScratch() ? 0 : stagingBytesOf(copy);
    if (!need)
      return;
    if (tmaStores && isTmaStorable(copy)) {
      copy.setTmaStore(true);
      need = 2 * warpsOf(copy) * kTmaStoreSlabBytes;
    }
    copies.push_back(copy);
    bytes = std::max(bytes, need);
  });
  if (copies.empty())
    return;
  bytes = llvm::alignTo(bytes, kTmaStoreSlabBytes);
  OpBuilder b(kernel.getContext());
  b.setInsertionPointToStart(&kernel.getBody().front());
  auto type = BufferType::get(kernel.getContext(), BufferSpace::Shared, {bytes}, b.getI8Type());
  Value scratch = AllocOp::create(b, copies.front().getLoc(), type).getBuffer();
  for (CopyOp copy : copies)
    copy.getScratchMutable().assign(scratch);
}

bool tlc::tile::shrinkStoreStaging(KernelOp kernel) {
  // The scratch each copy needs with one slab per warp; the buffer takes the largest.
  llvm::MapVector<Operation *, int64_t> allocs;
  bool twoSlabs = false;
  kernel.getBody().walk([&](CopyOp copy) {
    Value scratch = copy.getScratch();
    auto alloc = scratch ? scratch.getDefiningOp<AllocOp>() : AllocOp();
    if (!alloc)
      return;
    int64_t need = stagingBytesOf(copy);
    if (copy.getTmaStore()) {
      twoSlabs |= storeStagingSlabs(copy) > 1;
      need = warpsOf(copy) * kTmaStoreSlabBytes;
    }
    allocs[alloc] = llvm::alignTo(std::max(allocs.lookup(alloc), need), kTmaStoreSlabBytes);
  });
  if (!twoSlabs)
    return false;
  for (auto [op, bytes] : allocs) {
    auto alloc = cast<AllocOp>(op);
    auto type = BufferType::get(kernel.getContext(), BufferSpace::Shared, {bytes},
                                IntegerType::get(kernel.getContext(), 8));
    alloc.getBuffer().setType(type);
  }
  return true;
}

bool tlc::tile::dropStoreStaging(KernelOp kernel) {
  llvm::SetVector<Operation *> allocs;
  kernel.getBody().walk([&](CopyOp copy) {
    Value scratch = copy.getScratch();
    if (!scratch || !stagingBytesOf(copy))
      return;
    if (Operation *alloc = scratch.getDefiningOp<AllocOp>())
      allocs.insert(alloc);
    copy.getScratchMutable().clear();
    copy.setTmaStore(false);
  });
  for (Operation *alloc : allocs)
    if (alloc->use_empty())
      alloc->erase();
  return !allocs.empty();
}

Value tlc::tile::buildIsRowLeader(OpBuilder &b, Location loc, const AccLayout &layout, Value tid) {
  IndexMath m{b, loc};
  auto isZero = [&](Value v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v, m.cst(0));
  };
  if (layout.kind != AccLayout::Kind::MmaSyncRows || layout.mma.warpsN == 1)
    return isZero(m.rem(tid, layout.rowReplicas()));
  // Lane 0 of its quad, in the first warp of its block row.
  Value firstLane = isZero(m.rem(tid, 4));
  Value firstWarp = isZero(m.rem(m.div(tid, 32), layout.mma.warpsN));
  return arith::AndIOp::create(b, loc, firstLane, firstWarp);
}

Value tlc::tile::buildRowSlot(OpBuilder &b, Location loc, const AccLayout &layout, Value slot) {
  IndexMath m{b, loc};
  if (layout.kind == AccLayout::Kind::Blocked)
    return m.div(slot, layout.blocked.colSteps() * layout.blocked.vec);
  Value tile = m.mul(m.div(slot, 4 * layout.mma.nTiles()), 2);
  Value half = m.div(m.rem(slot, 4), 2);
  return m.add(tile, half);
}

bool tlc::tile::isRecomputable(Value value, KernelOp kernel, ArrayRef<Value> extraRoots) {
  SmallVector<Value> work{value};
  llvm::SmallPtrSet<Value, 16> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second || llvm::is_contained(extraRoots, v))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &kernel.getBody().front())
        return false;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!isa<BlockIdOp, DimOp>(def) && def->getDialect()->getNamespace() != "arith")
      return false;
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

Value tlc::tile::buildPointLoop(OpBuilder &b, Location loc, int64_t points, int64_t numThreads,
                                Value tid, scf::ForOp &loop) {
  int64_t steps = (points + numThreads - 1) / numThreads;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  loop = scf::ForOp::create(b, loc, zero, arith::ConstantIndexOp::create(b, loc, steps), one);
  b.setInsertionPointToStart(loop.getBody());
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, loop.getInductionVar(),
                            arith::ConstantIndexOp::create(b, loc, numThreads)),
      tid);
  if (points % numThreads != 0) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, linear,
                                          arith::ConstantIndexOp::create(b, loc, points));
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    b.setInsertionPointToStart(guard.thenBlock());
  }
  return linear;
}

/// knownDivisor of zero, a multiple of everything: a large power of two stands for it.
static constexpr int64_t kAnyDivisor = int64_t(1) << 40;

static int64_t knownDivisor(Value value, int depth) {
  constexpr int64_t kAny = kAnyDivisor;
  auto saturate = [](int64_t v) { return v < kAnyDivisor ? v : kAnyDivisor; };
  if (depth > 12)
    return 1;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg != loop.getInductionVar())
      return 1;
    return std::gcd(knownDivisor(loop.getLowerBound(), depth + 1),
                    knownDivisor(loop.getStep(), depth + 1));
  }
  Operation *def = value.getDefiningOp();
  if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
    auto attr = dyn_cast<IntegerAttr>(constant.getValue());
    if (!attr)
      return 1;
    int64_t v = attr.getValue().getSExtValue();
    return v == 0 ? kAny : saturate(v < 0 ? -v : v);
  }
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return std::gcd(knownDivisor(def->getOperand(0), depth + 1),
                    knownDivisor(def->getOperand(1), depth + 1));
  if (isa<arith::MulIOp>(def)) {
    int64_t a = knownDivisor(def->getOperand(0), depth + 1);
    int64_t b = knownDivisor(def->getOperand(1), depth + 1);
    return a >= kAny / b ? kAny : a * b;
  }
  if (auto shift = dyn_cast<arith::ShLIOp>(def)) {
    IntegerAttr amount;
    if (auto c = shift.getRhs().getDefiningOp<arith::ConstantOp>())
      amount = dyn_cast<IntegerAttr>(c.getValue());
    int64_t a = knownDivisor(shift.getLhs(), depth + 1);
    if (!amount || amount.getValue().getZExtValue() >= 40)
      return a;
    return saturate(a << amount.getValue().getZExtValue());
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp>(def))
    return knownDivisor(def->getOperand(0), depth + 1);
  if (auto select = dyn_cast<arith::SelectOp>(def))
    return std::gcd(knownDivisor(select.getTrueValue(), depth + 1),
                    knownDivisor(select.getFalseValue(), depth + 1));
  return 1;
}

int64_t tlc::tile::knownDivisor(Value value) { return ::knownDivisor(value, 0); }

bool tlc::tile::isKnown16ByteColumn(Value col, int64_t elemBytes) {
  return (knownDivisor(col) * elemBytes) % 16 == 0;
}

/// The fragment accesses of `parallel`'s body, nested ones included: at the point (a fragment of
/// the parallel's shape indexed by its coordinates), at the point's row (a rank-1 fragment read
/// at the first coordinate of a rank-2 parallel), or other.
SmallVector<FragmentAccess> tlc::tile::getFragmentAccesses(ParallelOp parallel) {
  SmallVector<FragmentAccess> accesses;
  auto args = parallel.getBody().getArguments();
  parallel.getBody().walk([&](Operation *op) {
    Value buffer;
    ValueRange indices;
    bool write = false;
    if (auto read = dyn_cast<ReadOp>(op)) {
      buffer = read.getBuffer(), indices = read.getIndices();
    } else if (auto w = dyn_cast<WriteOp>(op)) {
      buffer = w.getBuffer(), indices = w.getIndices(), write = true;
    } else {
      return;
    }
    auto type = cast<BufferType>(buffer.getType());
    if (!type.isFragment())
      return;
    FragmentAccess::Kind kind = FragmentAccess::Other;
    if (type.getShape() == parallel.getShape() && llvm::equal(indices, args))
      kind = FragmentAccess::AtPoint;
    else if (!write && type.getRank() == 1 && args.size() == 2 && indices.size() == 1 &&
             indices[0] == args[0] && type.getShape()[0] == parallel.getShape()[0])
      kind = FragmentAccess::AtRow;
    accesses.push_back({op, buffer, kind});
  });
  return accesses;
}

/// Whether `op` (or an op nested in it) may write `buffer`.
std::pair<Value, bool> tlc::tile::joinParallelAccesses(ParallelOp parallel,
                                                       function_ref<void(Value, Value)> join) {
  SmallVector<FragmentAccess> accesses = getFragmentAccesses(parallel);
  Value domain;
  for (const FragmentAccess &access : accesses)
    if (access.kind == FragmentAccess::AtPoint) {
      if (domain)
        join(domain, access.buffer);
      domain = access.buffer;
    }
  bool rows = false;
  if (domain)
    for (const FragmentAccess &access : accesses)
      if (access.kind == FragmentAccess::AtRow) {
        join(domain, access.buffer);
        rows = true;
      }
  return {domain, rows};
}

/// Whether `parallel`'s body reads memory outside registers (a buffer without a register layout,
/// a tensor) that it also writes. Over row values every thread holding the row runs the body
/// (the lanes of a quad, the threads of a blocked row, several warps for long rows): a replica
/// could read what another one already wrote (`Y[r] = Y[r] + s[r]` would add s more than once).
static bool readsWhatItWrites(ParallelOp parallel) {
  llvm::SmallPtrSet<Value, 4> read, written;
  parallel.getBody().walk([&](Operation *op) {
    if (auto r = dyn_cast<ReadOp>(op); r && !getAccLayout(r.getBuffer()))
      read.insert(r.getBuffer());
    else if (auto w = dyn_cast<WriteOp>(op); w && !getAccLayout(w.getBuffer()))
      written.insert(w.getBuffer());
    else if (auto load = dyn_cast<LoadOp>(op))
      read.insert(load.getTensor());
    else if (auto store = dyn_cast<StoreOp>(op))
      written.insert(store.getTensor());
  });
  return llvm::any_of(written, [&](Value v) { return read.contains(v); });
}

const char *tlc::tile::registerSlotsMisfit(ParallelOp parallel) {
  return rowReplicaHazard(parallel)
             ? "this 'parallel' runs over row values, which several threads hold each, and "
               "reads memory it also writes"
             : "this 'parallel' accesses a fragment in registers elsewhere than at its point (or "
               "a row value at its row)";
}

bool tlc::tile::rowReplicaHazard(ParallelOp parallel) {
  return parallel.getShape().size() == 1 && readsWhatItWrites(parallel);
}

bool tlc::tile::fitsRegisterSlots(ParallelOp parallel) {
  SmallVector<FragmentAccess> accesses = getFragmentAccesses(parallel);
  auto inRegisters = [](Value v) { return static_cast<bool>(getAccLayout(v)); };
  bool hasDomain = llvm::any_of(accesses, [&](const FragmentAccess &a) {
    return a.kind == FragmentAccess::AtPoint && inRegisters(a.buffer);
  });
  // Over row values (held by several threads each) the body runs once per holder: only if no
  // holder can see another's writes.
  if (rowReplicaHazard(parallel))
    return false;
  return hasDomain && llvm::all_of(accesses, [&](const FragmentAccess &a) {
           return !inRegisters(a.buffer) || a.kind != FragmentAccess::Other;
         });
}

int64_t tlc::tile::cpAsyncElementBytes(BufferType tile) {
  Type elem = tile.getElementType();
  unsigned bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 0;
  if (!tile.isShared() || tile.getRank() != 2 || (bits != 8 && bits != 16 && bits != 32) ||
      isa<FloatTF32Type>(elem))
    return 0;
  return bits / 8;
}

Region *tlc::tile::usesRegion(ArrayRef<Value> values, Region *fallback) {
  Region *common = nullptr;
  SmallVector<Operation *> users;
  for (Value value : values)
    llvm::append_range(users, value.getUsers());
  for (size_t i = 0; i < users.size(); ++i) {
    if (isa<StageOp>(users[i]))
      llvm::append_range(users, users[i]->getUsers());
    Region *region = users[i]->getParentRegion();
    if (!common) {
      common = region;
      continue;
    }
    while (!common->isAncestor(region))
      common = common->getParentRegion();
  }
  return common ? common : fallback;
}

bool tlc::tile::inExclusiveBranches(Region *a, Region *b) {
  for (Region *r = a; r; r = r->getParentRegion()) {
    auto branch = dyn_cast_or_null<scf::IfOp>(r->getParentOp());
    if (!branch)
      continue;
    Region &other = r == &branch.getThenRegion() ? branch.getElseRegion() : branch.getThenRegion();
    if (other.isAncestor(b))
      return true;
  }
  return false;
}

bool tlc::tile::usesValue(Operation *op, Value value, function_ref<bool(Operation *)> skip) {
  WalkResult found = op->walk([&](Operation *inner) {
    return llvm::is_contained(inner->getOperands(), value) && !(skip && skip(inner))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

bool tlc::tile::onlyCpAsyncFillsAndReads(Value buffer) {
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    if (isa<ReadOp>(user))
      return true;
    auto copy = dyn_cast<CopyOp>(user);
    return copy && copy.getDest() == buffer && copy->hasAttr(kCpAsyncAttr);
  });
}

bool tlc::tile::copiedToMnMajorOperand(KernelOp kernel, unsigned arg) {
  Block &body = kernel.getBody().front();
  if (arg >= body.getNumArguments())
    return false;
  Value tensor = body.getArgument(arg);
  WalkResult found = kernel.getBody().walk([&](CopyOp copy) {
    if (copy.getSource() != tensor)
      return WalkResult::advance();
    for (Operation *user : copy.getDest().getUsers())
      if (auto gemm = dyn_cast<GemmOp>(user))
        if ((gemm.getB() == copy.getDest() && !gemm.getTransposeB()) ||
            (gemm.getA() == copy.getDest() && gemm.getTransposeA()))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

bool tlc::tile::mayWrite(Operation *op, Value buffer) {
  WalkResult found = op->walk([&](Operation *inner) {
    bool w = false;
    if (auto write = dyn_cast<WriteOp>(inner))
      w = write.getBuffer() == buffer;
    else if (auto fill = dyn_cast<FillOp>(inner))
      w = fill.getBuffer() == buffer;
    else if (auto copy = dyn_cast<CopyOp>(inner))
      w = copy.getDest() == buffer;
    else if (auto gemm = dyn_cast<GemmOp>(inner))
      w = gemm.getC() == buffer;
    else if (auto reduce = dyn_cast<ReduceOp>(inner))
      w = reduce.getDest() == buffer || reduce.getIndex() == buffer;
    else if (auto scan = dyn_cast<ScanOp>(inner))
      w = scan.getDest() == buffer;
    return w ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Routes `at`'s uses of register fragment `fragment` through a copy kept in shared memory.
void tlc::tile::convertThroughShared(Operation *at, Value fragment, StringRef reason,
                                     RegisterPlan &plan) {
  auto alloc = fragment.getDefiningOp<AllocOp>();
  Value &mirror = plan.mirrors[alloc.getOperation()];
  if (!mirror) {
    OpBuilder b(alloc);
    b.setInsertionPointAfter(alloc);
    mirror = AllocOp::create(b, alloc.getLoc(), alloc.getBuffer().getType()).getBuffer();
  }
  OpBuilder b(at);
  Location loc = at->getLoc();
  // A copy into the fragment overwrites all of it: nothing to carry over.
  auto copy = dyn_cast<CopyOp>(at);
  if (!copy || copy.getDest() != fragment || copy.getSource() == fragment)
    CopyOp::create(b, loc, fragment, ValueRange{}, mirror, ValueRange{});
  bool written = mayWrite(at, fragment);
  at->walk([&](Operation *inner) { inner->replaceUsesOfWith(fragment, mirror); });
  if (written) {
    b.setInsertionPointAfter(at);
    CopyOp::create(b, loc, mirror, ValueRange{}, fragment, ValueRange{});
  }
  plan.conversions.push_back({at, describeFragment(alloc, "a fragment in registers") +
                                      " goes through shared memory for this op (" + reason.str() +
                                      ")"});
}

std::string tlc::tile::describeFragment(Operation *alloc, StringRef otherwise) {
  if (auto line = dyn_cast<FileLineColLoc>(alloc->getLoc()))
    return "the fragment of line " + std::to_string(line.getLine());
  return otherwise.str();
}

void tlc::tile::convertMisfitUses(
    RegisterPlan &plan, function_ref<const char *(Operation *at, Value fragment)> misfitReason) {
  struct Misfit {
    Operation *at;
    Value fragment;
    const char *reason;
  };
  SmallVector<Misfit> misfits;
  for (AllocOp alloc : plan.registers) {
    Value fragment = alloc.getBuffer();
    for (Operation *user : fragment.getUsers()) {
      // The tile-level op the use belongs to.
      Operation *at = user;
      if (auto parallel = user->getParentOfType<ParallelOp>())
        at = parallel;
      const char *reason = misfitReason(at, fragment);
      if (reason && !llvm::any_of(misfits, [&](const Misfit &m) {
            return m.at == at && m.fragment == fragment;
          }))
        misfits.push_back({at, fragment, reason});
    }
  }
  for (const Misfit &m : misfits)
    convertThroughShared(m.at, m.fragment, m.reason, plan);
}

/// Why wgmma m64nNk32 cannot run a gemm of 8-bit floats (empty if it can, as far as its own
/// operands tell): A and B of one 8-bit float type in shared memory, both K-major (no
/// transpose_a; B as [N, K] with transpose_b), k a multiple of 32, tiles whole swizzle atoms.
std::string tlc::tile::float8WgmmaMisfit(GemmOp gemm) {
  BufferType aType = gemm.getA().getType(), bType = gemm.getB().getType();
  if (aType.getElementType() != bType.getElementType())
    return "wgmma multiplies 8-bit float operands of one type";
  if (!aType.isShared() || gemm.getTransposeA())
    return "wgmma reads an 8-bit float A from shared memory, K-major (no transpose_a)";
  if (!bType.isShared() || !gemm.getTransposeB())
    return "wgmma reads 8-bit float operands K-major only: B as [N, K] in shared memory, with "
           "transpose_b";
  auto a = aType.getShape(), b = bType.getShape();
  if (a[1] % 32 != 0)
    return "the k extent is not a multiple of 32 (one wgmma k32 step of 8-bit floats)";
  if (!layout::chooseSwizzle(a[0], a[1], 1) || !layout::chooseSwizzle(b[0], b[1], 1))
    return "its shared tiles are not whole swizzle atoms (rows a multiple of 8, rows of 32, 64 "
           "or a multiple of 128 bytes)";
  return "";
}

bool tlc::tile::storesSlotPairs(const AccLayout &layout, Type destElement) {
  return (layout.kind == AccLayout::Kind::MmaSync || layout.kind == AccLayout::Kind::Wgmma) &&
         destElement.getIntOrFloatBitWidth() == 16 && layout.slots() % 2 == 0;
}

bool tlc::tile::needsDeferredGemm(Operation *op, GemmOp last) {
  WalkResult found = op->walk([&](Operation *inner) {
    if (isa<BarrierOp, GemmOp, MmaWaitOp>(inner) && inner != last)
      return WalkResult::interrupt();
    for (Value operand : inner->getOperands())
      if (operand == last.getA() || operand == last.getB() || operand == last.getC())
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

std::optional<OverlapPlan> tlc::tile::planOverlap(scf::ForOp ring) {
  if (ring.getNumResults() != 0)
    return std::nullopt;
  // The body without its wgmma waits (tile-place-mma-waits may have placed them) and terminator.
  SmallVector<Operation *> ops;
  for (Operation &op : ring.getBody()->without_terminator())
    if (!isa<MmaWaitOp>(op))
      ops.push_back(&op);
  auto registerGemm = [](Operation *op) {
    auto gemm = dyn_cast_or_null<GemmOp>(op);
    return gemm && isRegisterWgmma(gemm) ? gemm : GemmOp();
  };
  GemmOp last = ops.empty() ? GemmOp() : registerGemm(ops.back());
  if (!last || cast<BufferType>(last.getA().getType()).isShared())
    return std::nullopt;
  // B: a ring tile, which a TMA copy of the body fills.
  bool ringTile = llvm::any_of(ops, [&](Operation *op) {
    auto copy = dyn_cast<CopyOp>(op);
    return copy && copy->hasAttr(kTmaAttr) && copy.getDest() == last.getB();
  });
  if (!ringTile)
    return std::nullopt;
  auto firstIt = llvm::find_if(ops, [](Operation *op) { return isa<GemmOp>(op); });
  GemmOp first = registerGemm(*firstIt);
  if (!first || first == last)
    return std::nullopt;
  for (Value operand : first->getOperands())
    if (operand == last.getA() || operand == last.getC())
      return std::nullopt;
  // Before the first gemm: the ring's copies and what does not touch the last gemm's operands.
  for (Operation *op : llvm::make_range(ops.begin(), firstIt))
    if (!(isa<CopyOp>(op) && op->hasAttr(kTmaAttr)) && needsDeferredGemm(op, last))
      return std::nullopt;
  OverlapPlan plan{first, last};
  auto needs = std::find_if(std::next(firstIt), ops.end(),
                            [&](Operation *op) { return needsDeferredGemm(op, last); });
  // Nothing to overlap: the rotation would only cost the first iteration's copy.
  if (needs == std::next(firstIt))
    return std::nullopt;
  plan.needs = *needs == last ? nullptr : *needs;
  return plan;
}

/// Whether `op` (and every op nested in it) may run while a consumer warpgroup holds
/// tile-ping-pong's turn: nothing that waits for another warpgroup of the block.
static bool runsInTurn(Operation *op) {
  WalkResult walk = op->walk([](Operation *inner) {
    if (isMemoryEffectFree(inner) && !isa<BarrierOp>(inner))
      return WalkResult::advance();
    auto copy = dyn_cast<CopyOp>(inner);
    if ((copy && copy->hasAttr(kTmaAttr)) ||
        isa<GemmOp, MmaWaitOp, StageOp, MBarrierWaitOp, MBarrierArriveOp, scf::IfOp, scf::YieldOp>(
            inner))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

std::optional<PingPongPlan> tlc::tile::planPingPong(Block &body) {
  auto loop = dyn_cast_or_null<scf::ForOp>(body.getParentOp());
  if (!loop || loop.getNumResults() != 0)
    return std::nullopt;
  // A ring of two or more stages: before tile-warp-specialize its loop's mark, after it the
  // stage views of its buffers.
  int64_t stages = 0;
  if (auto attr = loop->getAttrOfType<IntegerAttr>(kStagesAttr);
      attr &&
      llvm::any_of(body.getOps<CopyOp>(), [](CopyOp copy) { return copy->hasAttr(kTmaAttr); }))
    stages = attr.getInt();
  bool waits = !body.getOps<MBarrierWaitOp>().empty();
  for (StageOp view : body.getOps<StageOp>())
    if (auto alloc = view.getBuffer().getDefiningOp<AllocOp>(); alloc && waits)
      if (auto attr = alloc->getAttrOfType<IntegerAttr>(kStagesAttr))
        stages = std::max<int64_t>(stages, attr.getInt());
  if (stages < 2)
    return std::nullopt;
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  // The gemms directly in the body; none nested, no block barrier anywhere.
  WalkResult walk = body.walk([&](Operation *op) {
    if (isa<BarrierOp, ClusterBarrierOp, NamedBarrierOp>(op) ||
        (isa<GemmOp>(op) && op->getBlock() != &body))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  auto isGemm = [](Operation *op) { return isa<GemmOp>(op); };
  auto firstIt = llvm::find_if(ops, isGemm);
  auto lastIt = std::find_if(ops.rbegin(), ops.rend(), isGemm);
  if (firstIt == ops.end())
    return std::nullopt;
  auto first = cast<GemmOp>(*firstIt), last = cast<GemmOp>(*lastIt);
  if (first == last || !isRegisterWgmma(first) || !isRegisterWgmma(last))
    return std::nullopt;
  // Work between them for another warpgroup's gemms to overlap.
  if (llvm::all_of(llvm::make_range(std::next(firstIt), lastIt.base() - 1),
                   [](Operation *op) { return isa<GemmOp, MmaWaitOp>(op); }))
    return std::nullopt;
  // What runs while holding the turn.
  if (!llvm::all_of(llvm::make_range(ops.begin(), firstIt), runsInTurn) ||
      !llvm::all_of(llvm::make_range(lastIt.base(), ops.end()), runsInTurn))
    return std::nullopt;
  return PingPongPlan{first, last};
}
