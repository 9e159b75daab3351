//===- WarpSpecialized.cpp - Shared memory, tensor maps and wgmma for sm_90a --===//
//
// The pieces the sm_90a lowering shares: the dynamic shared-memory symbol, the TMA tensor maps
// a kernel's loads need, the recomputation of a value at another point, and wgmma's operand
// descriptors and instructions (shared/shared and register A). The warp-specialized kernels
// themselves (producer warpgroup, mbarrier ring, persistent tile loops) are written out in the
// tile dialect by tile-warp-specialize and lowered op by op (WarpSpecializeToNVVM.cpp).
//
//===----------------------------------------------------------------------===//
#include "PatternsImpl.h"

#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tlc;

StringRef tlc::declareSharedSymbol(Operation *module, Location loc) {
  if (!SymbolTable::lookupSymbolIn(module, kSharedSymbol)) {
    OpBuilder b(module->getContext());
    b.setInsertionPointToStart(&module->getRegion(0).front());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External, kSharedSymbol,
                           Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
  }
  return kSharedSymbol;
}

std::optional<int64_t> tlc::getSharedOffset(Value buffer) {
  auto castOp = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  auto offset = castOp ? castOp->getAttrOfType<IntegerAttr>(tile::kOffsetAttr) : IntegerAttr();
  if (!offset)
    return std::nullopt;
  return offset.getInt();
}

Value tlc::buildSharedBase(OpBuilder &b, Location loc, gpu::GPUFuncOp func) {
  StringRef symbol = declareSharedSymbol(func->getParentOfType<gpu::GPUModuleOp>(), loc);
  return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), symbol);
}

SmallVector<TensorMapParam> tlc::collectTensorMaps(tile::KernelOp kernel) {
  SmallVector<TensorMapParam> maps;
  kernel.walk([&](tile::TmaLoadOp load) {
    auto arg = dyn_cast<BlockArgument>(load.getSource());
    Value buffer = load.getDest();
    if (auto stage = buffer.getDefiningOp<tile::StageOp>())
      buffer = stage.getBuffer();
    auto dest = buffer.getDefiningOp<tile::AllocOp>();
    auto swizzleAttr = dest ? dest->getAttrOfType<IntegerAttr>(tile::kSwizzleAttr) : IntegerAttr();
    if (!arg || !swizzleAttr)
      return; // the load's lowering reports it
    auto type = dest.getBuffer().getType();
    int64_t elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    int64_t swizzle = swizzleAttr.getInt();
    TensorMapParam map{arg.getArgNumber(), type.getShape()[0], swizzle / elemBytes, swizzle,
                       type.getElementType()};
    for (const TensorMapParam &other : maps)
      if (other.argIndex == map.argIndex && other.boxRows == map.boxRows &&
          other.boxCols == map.boxCols && other.swizzle == map.swizzle)
        return;
    maps.push_back(map);
  });
  if (maps.empty())
    return maps;
  kernel.walk([&](tile::CopyOp copy) {
    auto arg = dyn_cast<BlockArgument>(copy.getDest());
    if (!copy.getTmaStore() || !arg)
      return;
    Type element = cast<tile::TensorType>(arg.getType()).getElementType();
    int64_t elemBytes = element.getIntOrFloatBitWidth() / 8;
    TensorMapParam map{
        arg.getArgNumber(), 16, tile::kStoreStagingRowBytes / elemBytes, 128, element,
        /*store=*/true};
    if (llvm::none_of(maps, [&](const TensorMapParam &other) {
          return other.store && other.argIndex == map.argIndex;
        }))
      maps.push_back(map);
  });
  return maps;
}

std::pair<Value, Value> tlc::findStoreMap(gpu::GPUFuncOp func, int64_t arg) {
  tile::EntryAttr entry = tile::getEntry(func);
  if (!entry)
    return {};
  for (tile::TensorMapAttr attr : entry.getTensorMaps())
    if (attr.getStore() && attr.getArg() == arg)
      return {func.getArgument(attr.getParam()), func.getArgument(entry.getStored())};
  return {};
}

Value tlc::rematerialize(OpBuilder &b, Value value, IRMapping &mapping, ArrayRef<Value> blockIds) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *def = value.getDefiningOp();
  if (auto id = dyn_cast<tile::BlockIdOp>(def); id && !blockIds.empty()) {
    mapping.map(value, blockIds[id.getDim()]);
    return blockIds[id.getDim()];
  }
  for (Value operand : def->getOperands())
    rematerialize(b, operand, mapping, blockIds);
  Operation *clone = b.clone(*def, mapping);
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

SmallVector<Value> tlc::loadWgmmaTiles(OpBuilder &b, Location loc, Value accMemref,
                                       const layout::WgmmaAccLayout &layout) {
  int64_t perTile = layout.instrN() / 2;
  auto structType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(perTile, b.getF32Type()));
  SmallVector<Value> tiles;
  for (int64_t m = 0; m < layout.mTiles(); ++m) {
    Value s = LLVM::UndefOp::create(b, loc, structType);
    for (int64_t r = 0; r < perTile; ++r) {
      Value v = memref::LoadOp::create(
          b, loc, accMemref, ValueRange{arith::ConstantIndexOp::create(b, loc, m * perTile + r)});
      s = LLVM::InsertValueOp::create(b, loc, s, v, r);
    }
    tiles.push_back(s);
  }
  return tiles;
}

void tlc::storeWgmmaTiles(OpBuilder &b, Location loc, ArrayRef<Value> tiles, Value accMemref,
                          const layout::WgmmaAccLayout &layout) {
  int64_t perTile = layout.instrN() / 2;
  for (int64_t m = 0; m < layout.mTiles(); ++m)
    for (int64_t r = 0; r < perTile; ++r) {
      Value v = LLVM::ExtractValueOp::create(b, loc, tiles[m], r);
      Value slot = arith::ConstantIndexOp::create(b, loc, m * perTile + r);
      memref::StoreOp::create(b, loc, v, accMemref, ValueRange{slot});
    }
}

namespace {
/// Shared-memory descriptors of wgmma's operand tiles (K-major A; B K-major with `transB`, else
/// MN-major in 64-column blocks of 128-byte rows), built at the builder's position.
struct WgmmaOperands {
  OpBuilder &b;
  Location loc;
  Value smemAddr;

  Value cst32(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }
  /// Descriptor of the operand tile at byte `offset` (i32) of shared memory.
  Value descriptor(Value offset, int64_t leading, int64_t stride, int64_t swizzle) {
    Value addr = arith::AddIOp::create(b, loc, smemAddr, offset);
    Value field = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, addr, cst32(4)),
                                        cst32(0x3FFF));
    Value desc = arith::ExtUIOp::create(b, loc, b.getI64Type(), field);
    uint64_t fixed = layout::wgmmaDescriptor(0, leading, stride, swizzle);
    Value bits = arith::ConstantIntOp::create(b, loc, b.getI64Type(), static_cast<int64_t>(fixed));
    return arith::OrIOp::create(b, loc, desc, bits).getResult();
  }
  /// B's first byte for the warpgroup at column block `wgN` (i32) of N = `instrN` columns.
  Value bBase(Value bStage, const layout::SwizzledTile &tileB, bool transB, Value wgN,
              int64_t instrN) {
    // K-major: N rows of swizzle bytes; MN-major: N in 64-column blocks of bk rows x 128 bytes.
    int64_t bytes =
        transB ? instrN * tileB.swizzleBytes : instrN / tileB.blockCols() * tileB.blockBytes();
    return arith::AddIOp::create(b, loc, bStage, arith::MulIOp::create(b, loc, wgN, cst32(bytes)));
  }
  /// B's descriptor at k step `k0`.
  Value bDescriptor(Value base, const layout::SwizzledTile &tileB, bool transB, int64_t k0) {
    int64_t sw = tileB.swizzleBytes;
    if (transB) {
      int64_t delta = (k0 / tileB.blockCols()) * tileB.blockBytes() +
                      (k0 % tileB.blockCols()) * tileB.elemBytes;
      return descriptor(arith::AddIOp::create(b, loc, base, cst32(delta)), 16, 8 * sw, sw);
    }
    // MN-major: 16 k rows further; 64-column blocks apart by the leading byte offset, 8-row
    // groups by the stride byte offset.
    return descriptor(arith::AddIOp::create(b, loc, base, cst32(k0 * sw)), tileB.blockBytes(),
                      8 * sw, sw);
  }
};
} // namespace

int64_t tlc::wgmmaK(Type elem) { return 256 / elem.getIntOrFloatBitWidth(); }

void tlc::buildWarpgroupMma(OpBuilder &b, Location loc, Value smemAddr, Value wgM, Value wgN,
                            const layout::WgmmaAccLayout &layout, Value aStage,
                            const layout::SwizzledTile &tileA, bool transA, Value bStage,
                            const layout::SwizzledTile &tileB, bool transB, Type elemType,
                            SmallVectorImpl<Value> &tiles) {
  MLIRContext *ctx = b.getContext();
  WgmmaOperands ops{b, loc, smemAddr};
  int64_t bk = transA ? tileA.rows : tileA.cols, kStep = wgmmaK(elemType);
  int64_t swA = tileA.swizzleBytes;
  auto structType = tiles.front().getType();
  // Rows of A this warpgroup reads start at wgM * warpgroupRows (a multiple of 64, so of the
  // 8-row swizzle period); B's columns at wgN * N. A^T ([K, M], transA) holds them as columns:
  // 64-column blocks of K rows x 128 bytes, one per 64-row tile.
  int64_t warpgroupA = transA ? layout.warpgroupRows() / tileA.blockCols() * tileA.blockBytes()
                              : layout.warpgroupRows() * swA;
  int64_t tileStepA = transA ? 64 / tileA.blockCols() * tileA.blockBytes() : 64 * swA;
  Value aRows = arith::MulIOp::create(b, loc, wgM, ops.cst32(warpgroupA));
  Value aBase = arith::AddIOp::create(b, loc, aStage, aRows);
  Value bBase = ops.bBase(bStage, tileB, transB, wgN, layout.instrN());
  auto elem = elemType.isBF16()                 ? NVVM::WGMMATypes::bf16
              : elemType.isF16()                ? NVVM::WGMMATypes::f16
              : isa<Float8E4M3FNType>(elemType) ? NVVM::WGMMATypes::e4m3
                                                : NVVM::WGMMATypes::e5m2;
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, layout.instrN(), kStep);
  for (int64_t kk = 0; kk < bk / kStep; ++kk) {
    int64_t k0 = kk * kStep;
    // A, K-major: the k step lies in column block k0 / blockCols, at byte (k0 % blockCols) *
    // elemBytes (32 bytes further per step, whatever the element). A^T, M-major: k0 rows
    // further, as an MN-major B (leading byte offset: the column blocks' distance).
    int64_t aDelta = transA ? k0 * swA
                            : (k0 / tileA.blockCols()) * tileA.blockBytes() +
                                  (k0 % tileA.blockCols()) * tileA.elemBytes;
    Value bDesc = ops.bDescriptor(bBase, tileB, transB, k0);
    for (int64_t m = 0; m < layout.mTiles(); ++m) {
      Value aDesc =
          ops.descriptor(arith::AddIOp::create(b, loc, aBase, ops.cst32(aDelta + m * tileStepA)),
                         transA ? tileA.blockBytes() : 16, 8 * swA, swA);
      tiles[m] = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, structType, tiles[m], aDesc, bDesc, shape, NVVM::WGMMATypesAttr::get(ctx, elem),
          NVVM::WGMMATypesAttr::get(ctx, elem),
          NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
          NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
          NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
          NVVM::MMALayoutAttr::get(ctx, transA ? NVVM::MMALayout::col : NVVM::MMALayout::row),
          NVVM::MMALayoutAttr::get(ctx, transB ? NVVM::MMALayout::col : NVVM::MMALayout::row),
          NVVM::MMAIntOverflowAttr());
    }
  }
}

void tlc::buildWarpgroupMmaRegA(OpBuilder &b, Location loc, Value smemAddr, Value wgN,
                                const layout::WgmmaAccLayout &layout, ArrayRef<Value> aRegs,
                                Value bStage, const layout::SwizzledTile &tileB, bool transB,
                                bool bf16, Value &tile) {
  WgmmaOperands ops{b, loc, smemAddr};
  int64_t n = layout.instrN(), regs = n / 2;
  Value bBase = ops.bBase(bStage, tileB, transB, wgN, n);
  // MLIR's nvvm.wgmma.mma_async reads A from shared memory only: the register form as PTX, its
  // accumulators tied in and out (as the op's own lowering does).
  std::string type = bf16 ? "bf16" : "f16";
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(2 * regs + 5) +
                     ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." +
                     type + "." + type + " {";
  std::string constraints;
  for (int64_t i = 0; i < regs; ++i) {
    text += (i ? ", $" : "$") + std::to_string(i);
    constraints += (i ? ",=f" : "=f");
  }
  text += "}, {";
  for (int64_t i = 0; i < 4; ++i)
    text += (i ? ", $" : "$") + std::to_string(2 * regs + i);
  // scale-d 1 (accumulate), A and B unscaled, B transposed when it is MN-major.
  text += "}, $" + std::to_string(2 * regs + 4) + ", p, 1, 1, " + (transB ? "0" : "1") + ";\n}\n";
  for (int64_t i = 0; i < regs; ++i)
    constraints += "," + std::to_string(i);
  constraints += ",r,r,r,r,l,n";
  Value one = ops.cst32(1);
  for (int64_t kk = 0; kk < static_cast<int64_t>(aRegs.size()) / 4; ++kk) {
    SmallVector<Value> operands;
    for (int64_t i = 0; i < regs; ++i)
      operands.push_back(LLVM::ExtractValueOp::create(b, loc, tile, i));
    llvm::append_range(operands, aRegs.slice(4 * kk, 4));
    operands.push_back(ops.bDescriptor(bBase, tileB, transB, 16 * kk));
    operands.push_back(one);
    tile = LLVM::InlineAsmOp::create(
               b, loc, tile.getType(), operands, text, constraints,
               /*has_side_effects=*/true, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None,
               LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr())
               .getResult(0);
  }
}
