//===- Strategy.cpp - Register layouts of accumulator fragments -----------===//
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

FragmentLayoutAttrInterface AccLayout::toAttr(MLIRContext *ctx) const {
  if (kind == Kind::Wgmma)
    return WgmmaAccLayoutAttr::get(ctx, wgmma.warpgroupsM, wgmma.warpgroupsN);
  if (kind == Kind::MmaSync)
    return MmaSyncAccLayoutAttr::get(ctx, mma.warpsM, mma.warpsN);
  return MmaSyncRowsLayoutAttr::get(ctx, mma.warpsM);
}

std::optional<AccLayout> AccLayout::fromAttr(Attribute attr, ArrayRef<int64_t> shape) {
  // The dialect verified the layout against the fragment's shape (verifyOperationAttribute).
  auto fragment = dyn_cast_or_null<FragmentLayoutAttrInterface>(attr);
  if (!fragment || shape.size() != (isa<MmaSyncRowsLayoutAttr>(attr) ? 1u : 2u))
    return std::nullopt;
  AccLayout layout;
  if (auto wgmma = dyn_cast<WgmmaAccLayoutAttr>(attr)) {
    layout.kind = Kind::Wgmma;
    layout.wgmma =
        layout::WgmmaAccLayout{shape[0], shape[1], wgmma.getWarpgroupsM(), wgmma.getWarpgroupsN()};
  } else if (auto mma = dyn_cast<MmaSyncAccLayoutAttr>(attr)) {
    layout.kind = Kind::MmaSync;
    layout.mma = layout::MmaSyncAccLayout{shape[0], shape[1], mma.getWarpsM(), mma.getWarpsN()};
  } else {
    // Beside an accumulator of any width: the rows alone decide the slots.
    layout.kind = Kind::MmaSyncRows;
    layout.mma =
        layout::MmaSyncAccLayout{shape[0], 16, cast<MmaSyncRowsLayoutAttr>(attr).getWarps(), 1};
  }
  return layout;
}

std::optional<AccLayout> tlc::tile::getAccLayout(Value buffer) {
  auto alloc = buffer.getDefiningOp<AllocOp>();
  if (!alloc)
    return std::nullopt;
  return AccLayout::fromAttr(alloc->getAttr(kLayoutAttr), alloc.getBuffer().getType().getShape());
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
  Value lane = m.rem(tid, 32);
  if (layout.kind == AccLayout::Kind::MmaSyncRows) {
    // Row slot r: 16 (r / 2) + lane / 4 + 8 (r % 2) in the warp's rows.
    const layout::MmaSyncAccLayout &l = layout.mma;
    Value row = m.add(m.add(m.mul(m.div(tid, 32), l.warpRows()), m.mul(m.div(slot, 2), 16)),
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

Value tlc::tile::buildRowSlot(OpBuilder &b, Location loc, const AccLayout &layout, Value slot) {
  IndexMath m{b, loc};
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
