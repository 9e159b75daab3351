//===- Strategy.cpp - Register layouts of accumulator fragments -----------===//
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

DictionaryAttr AccLayout::toAttr(MLIRContext *ctx) const {
  Builder b(ctx);
  if (kind == Kind::Wgmma)
    return b.getDictionaryAttr(
        {b.getNamedAttr("kind", b.getStringAttr("wgmma")),
         b.getNamedAttr("warpgroups",
                        b.getDenseI64ArrayAttr({wgmma.warpgroupsM, wgmma.warpgroupsN}))});
  return b.getDictionaryAttr(
      {b.getNamedAttr("kind", b.getStringAttr("mma_sync")),
       b.getNamedAttr("warps", b.getDenseI64ArrayAttr({mma.warpsM, mma.warpsN}))});
}

std::optional<AccLayout> AccLayout::fromAttr(DictionaryAttr attr, ArrayRef<int64_t> shape) {
  auto kind = attr.getAs<StringAttr>("kind");
  if (!kind || shape.size() != 2)
    return std::nullopt;
  AccLayout layout;
  if (kind.getValue() == "wgmma") {
    auto groups = attr.getAs<DenseI64ArrayAttr>("warpgroups");
    if (!groups || groups.size() != 2)
      return std::nullopt;
    layout.kind = Kind::Wgmma;
    layout.wgmma = layout::WgmmaAccLayout{shape[0], shape[1], groups[0], groups[1]};
    return layout;
  }
  if (kind.getValue() == "mma_sync") {
    auto warps = attr.getAs<DenseI64ArrayAttr>("warps");
    if (!warps || warps.size() != 2)
      return std::nullopt;
    layout.kind = Kind::MmaSync;
    layout.mma = layout::MmaSyncAccLayout{shape[0], shape[1], warps[0], warps[1]};
    return layout;
  }
  return std::nullopt;
}

std::optional<AccLayout> tlc::tile::getAccLayout(Value buffer) {
  auto alloc = buffer.getDefiningOp<AllocOp>();
  if (!alloc)
    return std::nullopt;
  auto dict = alloc->getAttrOfType<DictionaryAttr>(kLayoutAttr);
  if (!dict)
    return std::nullopt;
  return AccLayout::fromAttr(dict, alloc.getBuffer().getType().getShape());
}

std::pair<Value, Value> tlc::tile::buildAccCoords(OpBuilder &b, Location loc,
                                                  const AccLayout &layout, Value tid,
                                                  Value slot) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  auto div = [&](Value a, int64_t d) { return arith::DivUIOp::create(b, loc, a, cst(d)).getResult(); };
  auto rem = [&](Value a, int64_t d) { return arith::RemUIOp::create(b, loc, a, cst(d)).getResult(); };
  auto mul = [&](Value a, int64_t m) { return arith::MulIOp::create(b, loc, a, cst(m)).getResult(); };
  auto add = [&](Value a, Value c) { return arith::AddIOp::create(b, loc, a, c).getResult(); };
  Value lane = rem(tid, 32);
  // Inside an m16n8 fragment: element e of lane l is at (l / 4 + 8 (e / 2), 2 (l % 4) + e % 2).
  Value e = rem(slot, 4);
  Value inRow = add(div(lane, 4), mul(div(e, 2), 8));
  Value inCol = add(mul(rem(lane, 4), 2), rem(e, 2));
  Value fragment = div(slot, 4);
  if (layout.kind == AccLayout::Kind::Wgmma) {
    const layout::WgmmaAccLayout &l = layout.wgmma;
    Value warpgroup = div(tid, 128);
    Value warp = div(rem(tid, 128), 32);
    Value wgM = rem(warpgroup, l.warpgroupsM);
    Value wgN = div(warpgroup, l.warpgroupsM);
    int64_t perTile = l.instrN() / 8; // fragments per 64-row tile
    Value mTile = div(fragment, perTile);
    Value q = rem(fragment, perTile);
    Value row = add(add(mul(wgM, l.warpgroupRows()), mul(mTile, 64)), add(mul(warp, 16), inRow));
    Value col = add(add(mul(wgN, l.instrN()), mul(q, 8)), inCol);
    return {row, col};
  }
  const layout::MmaSyncAccLayout &l = layout.mma;
  Value warp = div(tid, 32);
  Value wm = div(warp, l.warpsN);
  Value wn = rem(warp, l.warpsN);
  Value mi = div(fragment, l.nTiles());
  Value ni = rem(fragment, l.nTiles());
  Value row = add(add(mul(wm, l.warpRows()), mul(mi, 16)), inRow);
  Value col = add(add(mul(wn, l.warpCols()), mul(ni, 8)), inCol);
  return {row, col};
}
