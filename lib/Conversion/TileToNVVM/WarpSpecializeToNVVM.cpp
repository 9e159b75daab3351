//===- WarpSpecializeToNVVM.cpp - Roles, mbarriers, TMA loads, ring gemms --===//
//
// The ops tile-warp-specialize writes, one pattern each:
//
//   tile.warp_specialize  -> scf.if (thread >= the kernel's threads) with setmaxnreg.dec on the
//                            producer side and setmaxnreg.inc on the consumers'
//   tile.mbarrier_*       -> nvvm.mbarrier.init / try_wait.parity / arrive(.expect_tx) on the
//                            mbarrier's shared address (its buffer's offset + 8 * index)
//   tile.tma_load         -> one cp.async.bulk.tensor box per column block of the swizzled tile,
//                            through the entry's tensor-map parameter for that tensor and box
//   tile.producer_copy    -> the producer threads' shares of a tile: cp.async chunks, realigned
//                            loads, or the staged copy's issue and realign phases (TileCopy.cpp)
//   tile.cp_async_readable, tile.async_commit -> the alignment test; cp.async.commit_group
//   tile.grid_dim         -> gpu.grid_dim
//   tile.cluster_size / cluster_rank / cluster_barrier -> %cluster_nctarank, %cluster_ctarank,
//                            barrier.cluster.arrive + wait; a `cluster` mbarrier_init counts
//                            every block's arrivals and fences the init for the cluster, an
//                            arrive `at` a rank reaches that block's barrier through mapa, a
//                            `multicast` tma_load issues this block's share of the boxes for
//                            both blocks of a pair
//   tile.gemm on a wgmma accumulator layout (a ring's consumers) -> wgmma.mma_async from the
//                            stage's descriptors, one group; waited for at once unless async
//
//===----------------------------------------------------------------------===//
#include "PatternsImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;

/// The shared address (`!llvm.ptr<3>`) of mbarrier `barriers[index]`, or null while its buffer is
/// not lowered.
static Value mbarrierPtr(OpBuilder &b, Location loc, Value barriers, Value index) {
  std::optional<int64_t> offset = getSharedOffset(barriers);
  if (!offset)
    return Value();
  auto cst32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
  Value i = arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
  Value bytes =
      arith::AddIOp::create(b, loc, cst32(*offset), arith::MulIOp::create(b, loc, i, cst32(8)));
  Value base =
      buildSharedBase(b, loc, barriers.getParentRegion()->getParentOfType<gpu::GPUFuncOp>());
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), b.getI8Type(),
                             base, ValueRange{bytes});
}

static bool isLoweredMBarrier(Value barriers) { return getSharedOffset(barriers).has_value(); }

/// The blocks of this block's cluster (1 for a launch without clusters), as i32.
static Value clusterSize(OpBuilder &b, Location loc) {
  return NVVM::ClusterDim::create(b, loc, b.getI32Type());
}

namespace {

struct ClusterSizeLowering : OpRewritePattern<tile::ClusterSizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::ClusterSizeOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::IndexCastOp>(op, rewriter.getIndexType(),
                                                    clusterSize(rewriter, op.getLoc()));
    return success();
  }
};

struct ClusterRankLowering : OpRewritePattern<tile::ClusterRankOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::ClusterRankOp op, PatternRewriter &rewriter) const override {
    Value rank = NVVM::ClusterId::create(rewriter, op.getLoc(), rewriter.getI32Type());
    rewriter.replaceOpWithNewOp<arith::IndexCastOp>(op, rewriter.getIndexType(), rank);
    return success();
  }
};

struct ClusterBarrierLowering : OpRewritePattern<tile::ClusterBarrierOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::ClusterBarrierOp op,
                                PatternRewriter &rewriter) const override {
    NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), UnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, op.getLoc(), UnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct NamedBarrierLowering : OpRewritePattern<tile::NamedBarrierOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::NamedBarrierOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value id = arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(), op.getId());
    Value count = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                               static_cast<int64_t>(op.getThreads()));
    if (op.getArrive())
      NVVM::BarrierArriveOp::create(rewriter, loc, id, count);
    else
      NVVM::BarrierOp::create(rewriter, loc, Type(), id, count, NVVM::BarrierReductionAttr(),
                              Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct GridDimLowering : OpRewritePattern<tile::GridDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::GridDimOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::GridDimOp>(op, static_cast<gpu::Dimension>(op.getDim()));
    return success();
  }
};

struct MBarrierInitLowering : OpRewritePattern<tile::MBarrierInitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::MBarrierInitOp op, PatternRewriter &rewriter) const override {
    if (!isLoweredMBarrier(op.getBarriers()))
      return failure();
    Location loc = op.getLoc();
    Value ptr = mbarrierPtr(rewriter, loc, op.getBarriers(), op.getIndex());
    Value count = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), op.getCount());
    if (op.getCluster())
      count = arith::MulIOp::create(rewriter, loc, count, clusterSize(rewriter, loc));
    NVVM::MBarrierInitOp::create(rewriter, loc, ptr, count, Value());
    // Visible to the cluster's other blocks (their arrivals, multicast bytes) after the next
    // cluster barrier.
    if (op.getCluster())
      NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitLowering : OpRewritePattern<tile::MBarrierWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::MBarrierWaitOp op, PatternRewriter &rewriter) const override {
    if (!isLoweredMBarrier(op.getBarriers()))
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value ptr = mbarrierPtr(b, loc, op.getBarriers(), op.getIndex());
    Value parity = arith::AndIOp::create(
        b, loc, arith::IndexCastOp::create(b, loc, b.getI32Type(), op.getParity()),
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, ptr, parity, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 10000000));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveLowering : OpRewritePattern<tile::MBarrierArriveOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::MBarrierArriveOp op,
                                PatternRewriter &rewriter) const override {
    if (!isLoweredMBarrier(op.getBarriers()))
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value ptr = mbarrierPtr(b, loc, op.getBarriers(), op.getIndex());
    if (Value rank = op.getRank()) {
      // The barrier at the same offset in block `rank` of the cluster. Release at CTA scope,
      // as for a local arrival: a cluster-scope release on every stage's release made the
      // GEMMs 1.6-2x slower, launched with clusters or not (H100, bench/RESULTS.md, thirty-third
      // session); the consumers' reads it orders (wgmma, waited for) are complete by then.
      auto ptr7 = LLVM::LLVMPointerType::get(b.getContext(), 7);
      Value remote = NVVM::MapaOp::create(b, loc, ptr7, ptr,
                                          arith::IndexCastOp::create(b, loc, b.getI32Type(), rank));
      NVVM::MBarrierArriveOp::create(b, loc, Type(), remote, Value(), NVVM::MemScopeKind::CTA,
                                     false);
      rewriter.eraseOp(op);
      return success();
    }
    if (op.getAfterCopies())
      NVVM::CpAsyncMBarrierArriveOp::create(b, loc, ptr, /*noinc=*/true);
    else if (std::optional<uint64_t> bytes = op.getExpectTx())
      NVVM::MBarrierArriveExpectTxOp::create(
          b, loc, Type(), ptr,
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), static_cast<int64_t>(*bytes)),
          NVVM::MemScopeKind::CTA, false, Value());
    else
      NVVM::MBarrierArriveOp::create(b, loc, Type(), ptr, Value(), NVVM::MemScopeKind::CTA, false);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The tensor map parameter of `func` for tensor argument `arg` in boxes of `tile`.
static Value findTensorMap(gpu::GPUFuncOp func, int64_t arg, const layout::SwizzledTile &tile) {
  tile::EntryAttr entry = tile::getEntry(func);
  if (!entry)
    return Value();
  for (Attribute attr : entry.getMaps()) {
    auto map = cast<tile::TensorMapAttr>(attr);
    if (map.getArg() == arg && map.getBoxRows() == tile.rows &&
        map.getBoxCols() == tile.blockCols() && map.getSwizzle() == tile.swizzleBytes)
      return func.getArgument(map.getParam());
  }
  return Value();
}

struct TmaLoadLowering : OpRewritePattern<tile::TmaLoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::TmaLoadOp op, PatternRewriter &rewriter) const override {
    auto tensor = op.getSource().getDefiningOp<UnrealizedConversionCastOp>();
    auto arg = tensor ? tensor->getAttrOfType<IntegerAttr>(kTensorArgAttr) : IntegerAttr();
    if (!arg || !isSwizzledTile(op.getDest()) || !isLoweredMBarrier(op.getBarriers()))
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = b.getContext();
    auto [tile, stageBase] = *getSwizzledTile(b, loc, op.getDest());
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    Value map = findTensorMap(func, arg.getInt(), tile);
    if (!map)
      return op.emitOpError("has no tensor map among the entry's parameters");
    auto toI32 = [&](Value v) { return arith::IndexCastOp::create(b, loc, b.getI32Type(), v); };
    auto cst32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
    Value full = mbarrierPtr(b, loc, op.getBarriers(), op.getIndex());
    // The tensor's coordinates, innermost first: column, row, then the leading dimensions
    // (boxes of one element there; outside the tensor they read as zero).
    auto offsets = op.getOffsets();
    int64_t rank = offsets.size();
    Value row = toI32(offsets[rank - 2]);
    Value col = toI32(offsets[rank - 1]);
    SmallVector<Value> leading;
    for (int64_t d = rank - 3; d >= 0; --d)
      leading.push_back(toI32(offsets[d]));
    Value smemBase = buildSharedBase(b, loc, func);
    auto ptr3 = LLVM::LLVMPointerType::get(ctx, 3);
    auto ptr7 = LLVM::LLVMPointerType::get(ctx, 7);
    // The boxes b with b % step == first; with `mask`, each written to every block of the
    // cluster the mask names.
    auto issue = [&](Value mask, int64_t step, int64_t first) {
      for (int64_t block = first; block < tile.numBlocks(); block += step) {
        Value at = arith::AddIOp::create(b, loc, stageBase, cst32(block * tile.blockBytes()));
        Value dst = LLVM::GEPOp::create(b, loc, ptr3, b.getI8Type(), smemBase, ValueRange{at});
        dst = LLVM::AddrSpaceCastOp::create(b, loc, ptr7, dst);
        SmallVector<Value> coords{
            arith::AddIOp::create(b, loc, col, cst32(block * tile.blockCols())), row};
        coords.append(leading);
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            b, loc, dst, map, coords, full, ValueRange{}, mask, Value(), NVVM::TMALoadMode::TILE,
            false, NVVM::CTAGroupKindAttr(), Value());
      }
    };
    if (!op.getMulticast()) {
      issue(Value(), 1, 0);
      rewriter.eraseOp(op);
      return success();
    }
    // A pair (the blocks of a 2-block cluster): the block of rank r issues boxes r, r + 2, ...,
    // each written to both (mask 0b11); a launch without clusters loads every box itself. The
    // branches are uniform (one producer thread), and keep no predicate live in the loop.
    Value pair =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, clusterSize(b, loc), cst32(1));
    auto clustered = scf::IfOp::create(b, loc, pair, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(clustered.thenBlock());
      Value mask = arith::ConstantIntOp::create(b, loc, b.getI16Type(), 3);
      Value first =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                NVVM::ClusterId::create(b, loc, b.getI32Type()), cst32(0));
      auto byRank = scf::IfOp::create(b, loc, first, /*withElseRegion=*/true);
      b.setInsertionPointToStart(byRank.thenBlock());
      issue(mask, 2, 0);
      b.setInsertionPointToStart(byRank.elseBlock());
      issue(mask, 2, 1);
      b.setInsertionPointToStart(clustered.elseBlock());
      issue(Value(), 1, 0);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.cp_async_readable: unit last stride, 16-byte aligned base and strides.
struct CpAsyncReadableLowering : OpRewritePattern<tile::CpAsyncReadableOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::CpAsyncReadableOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<TensorValues> t = getTensorValues(op.getTensor());
    if (!t)
      return failure();
    int64_t elemBytes = op.getTensor().getType().getElementType().getIntOrFloatBitWidth() / 8;
    rewriter.replaceOp(op, buildCpAsyncReadable(rewriter, op.getLoc(), *t, elemBytes));
    return success();
  }
};

struct AsyncCommitLowering : OpRewritePattern<tile::AsyncCommitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::AsyncCommitOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

/// tile.producer_copy: the producer warpgroup's threads (thread ids from the kernel's own
/// threads on) copy the tile, each its share, as the mode says (buildTileCopy with kLoadChunks
/// chunks in flight per thread, or buildStagedCopy's phases with the edge bytes).
struct ProducerCopyLowering : OpRewritePattern<tile::ProducerCopyOp> {
  using OpRewritePattern::OpRewritePattern;
  static constexpr int64_t kLoadChunks = 4;
  LogicalResult matchAndRewrite(tile::ProducerCopyOp op, PatternRewriter &rewriter) const override {
    std::optional<TensorValues> t = getTensorValues(op.getSource());
    Value edges = op.getEdges();
    std::optional<int64_t> edgesOffset = edges ? getSharedOffset(edges) : std::nullopt;
    if (!t || !isSwizzledTile(op.getDest()) || (edges && !edgesOffset))
      return failure();
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    tile::EntryAttr entry = tile::getEntry(func);
    if (!entry || entry.getComputeThreads() == 0)
      return op.emitOpError("is in an entry without a producer warpgroup");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto cst32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
    int64_t threads = func.getKnownBlockSizeAttr()[0] - entry.getComputeThreads();
    Value tid = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                           gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value ptid = arith::SubIOp::create(b, loc, tid, cst32(entry.getComputeThreads()));
    auto [tile, destBase] = *getSwizzledTile(b, loc, op.getDest());
    Type elemType = tile::getStorageType(op.getDest().getType().getElementType());
    Value smemBase = buildSharedBase(b, loc, func);
    SmallVector<Value> offsets(op.getOffsets());
    switch (op.getMode()) {
    case tile::ProducerCopyMode::CpAsync:
    case tile::ProducerCopyMode::Realigned:
      buildTileCopy(b, loc, smemBase, ptid, threads, *t, offsets, tile, destBase, elemType,
                    op.getMode() == tile::ProducerCopyMode::CpAsync ? TileCopyMode::CpAsync
                                                                    : TileCopyMode::Realigned,
                    kLoadChunks);
      break;
    case tile::ProducerCopyMode::StagedIssue:
    case tile::ProducerCopyMode::StagedRealign: {
      Value edgeBase = arith::AddIOp::create(
          b, loc, cst32(*edgesOffset),
          arith::IndexCastOp::create(b, loc, b.getI32Type(), op.getEdgeIndex()));
      buildStagedCopy(b, loc, smemBase, ptid, threads, *t, offsets, tile, destBase, edgeBase,
                      elemType,
                      op.getMode() == tile::ProducerCopyMode::StagedIssue ? StagedPhase::Issue
                                                                          : StagedPhase::Realign);
      break;
    }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The producer warpgroup (the threads past the kernel's own) and the consumers, apart.
struct WarpSpecializeLowering : OpRewritePattern<tile::WarpSpecializeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::WarpSpecializeOp op,
                                PatternRewriter &rewriter) const override {
    tile::EntryAttr entry = tile::getEntry(op->getParentOfType<gpu::GPUFuncOp>());
    if (!entry || entry.getComputeThreads() == 0)
      return op.emitOpError("is in an entry without a producer warpgroup");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value isProducer =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tid,
                              arith::ConstantIndexOp::create(b, loc, entry.getComputeThreads()));
    auto split = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
    auto move = [&](Region &from, Block *to, int64_t registers, NVVM::SetMaxRegisterAction action) {
      Block &block = from.front();
      rewriter.eraseOp(block.getTerminator());
      rewriter.setInsertionPoint(to->getTerminator());
      NVVM::SetMaxRegisterOp::create(b, loc, registers, action);
      rewriter.inlineBlockBefore(&block, to->getTerminator());
    };
    move(op.getProducer(), split.thenBlock(), op.getProducerRegisters(),
         NVVM::SetMaxRegisterAction::decrease);
    move(op.getConsumers(), split.elseBlock(), op.getConsumerRegisters(),
         NVVM::SetMaxRegisterAction::increase);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.gemm on a wgmma accumulator layout (the consumers of a ring): for each k step of the
/// stage and 64-row tile of the warpgroup's rows, one wgmma.mma_async m64nNk16 from the swizzled
/// tiles' descriptors, as one group; waited for at once unless `tile.async` (its tile.mma_wait
/// completes it then).
struct WgmmaRingGemm : OpRewritePattern<tile::GemmOp> {
  WgmmaRingGemm(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(tile::GemmOp op, PatternRewriter &rewriter) const override {
    auto acc = getRegisterLayout(op.getC());
    if (tile::getMmaKind(op) != tile::MmaKind::Wgmma || !acc ||
        acc->kind != tile::AccLayout::Kind::Wgmma || !isSwizzledTile(op.getA()) ||
        !isSwizzledTile(op.getB()))
      return failure();
    const layout::WgmmaAccLayout &layout = acc->wgmma;
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto cst32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
    // Warpgroup coordinates: rows [wgM * rows / Wm, ...) and columns [wgN * N, ...).
    Value tid = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                           gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value warpgroup = arith::DivUIOp::create(b, loc, tid, cst32(128));
    Value wgM = arith::RemUIOp::create(b, loc, warpgroup, cst32(layout.warpgroupsM));
    Value wgN = arith::DivUIOp::create(b, loc, warpgroup, cst32(layout.warpgroupsM));
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    Value smemAddr =
        LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), buildSharedBase(b, loc, func));
    Value accMemref = getBufferMemref(op.getC());
    SmallVector<Value> tiles = loadWgmmaTiles(b, loc, accMemref, layout);
    auto [tileA, aBase] = *getSwizzledTile(b, loc, op.getA());
    auto [tileB, bBase] = *getSwizzledTile(b, loc, op.getB());
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    buildWarpgroupMma(b, loc, smemAddr, wgM, wgN, layout, aBase, tileA, op.getTransposeA(), bBase,
                      tileB, op.getTransposeB(), op.getA().getType().getElementType(), tiles);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    if (!op->hasAttr(tile::kAsyncAttr)) {
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
      for (Value &t : tiles)
        t = fenceAccumulators(b, loc, t);
    }
    storeWgmmaTiles(b, loc, tiles, accMemref, layout);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tlc::populateWarpSpecializePatterns(RewritePatternSet &patterns) {
  patterns.add<ClusterSizeLowering, ClusterRankLowering, ClusterBarrierLowering,
               NamedBarrierLowering, GridDimLowering, MBarrierInitLowering, MBarrierWaitLowering,
               MBarrierArriveLowering, TmaLoadLowering, CpAsyncReadableLowering,
               AsyncCommitLowering, ProducerCopyLowering, WarpSpecializeLowering, WgmmaRingGemm>(
      patterns.getContext());
}
