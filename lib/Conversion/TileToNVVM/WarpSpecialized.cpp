//===- WarpSpecialized.cpp - sm_90a loads_wgmma rings; wgmma building blocks -===//
//
// Materializes what tile-assign-mma-layouts, tile-software-pipeline and
// tile-shared-memory-layout decided for a kernel whose main loop is a `loads_wgmma` ring (tensors
// TMA cannot read): a producer warpgroup whose 128 threads load the tiles themselves, and the
// kernel's warpgroups consuming them with wgmma. (A TMA ring's producer and consumers are
// written out in the tile dialect by tile-warp-specialize; WarpSpecializeToNVVM.cpp lowers them.)
//
//   thread 0 initializes a full and an empty mbarrier per stage; all threads sync;
//   producer warpgroup (the last 128 threads): setmaxnreg.dec, then every producer thread runs
//     the main loop: wait until stage s is empty (parity of the round), copy its share of each
//     tile into stage s, and arrive on the full barrier (128 arrivals complete it);
//   consumer warpgroups (the kernel's own threads): setmaxnreg.inc, then the kernel body, with
//     the main loop replaced by: wait until stage s is full, fence the async proxy, wgmma over
//     the stage's tiles (one 64xNx16 instruction per 64-row tile and 16-wide k step, descriptors
//     from the swizzled layout), commit, wait, and one arrive per warp on the empty barrier.
//
// The producer recomputes the loop bounds and copy offsets from their definitions (pure
// arithmetic over block ids, tensor sizes and kernel arguments, as the assign pass checked).
// Its copies are 16-byte cp.async chunks when every tensor is 16-byte aligned
// (`cp.async.mbarrier.arrive.noinc` on the full barrier), else staged (buildStagedCopy: the
// aligned blocks by cp.async, realigned in place S - 1 iterations later; fence.proxy.async,
// then an arrive each) or, for tiles the staged copy does not fit, realigned 16-byte loads
// through registers.
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
  return maps;
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

namespace {
/// Builds the sm_90a kernel; one instance per kernel.
class WarpSpecializedBuilder {
public:
  WarpSpecializedBuilder(tile::KernelOp kernel, gpu::GPUFuncOp func, OpBuilder &b)
      : kernel(kernel), func(func), b(b), ctx(kernel.getContext()) {}

  LogicalResult build(IRMapping &mapping);

private:
  Value cstIndex(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value cst32(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }
  Value cst64(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v); }
  Value toI32(Value index) { return arith::IndexCastOp::create(b, loc, b.getI32Type(), index); }
  /// Pointer to byte `offset` (i32 value) of dynamic shared memory.
  Value sharedPtr(Value offset) {
    auto ptr3 = LLVM::LLVMPointerType::get(ctx, 3);
    return LLVM::GEPOp::create(b, loc, ptr3, b.getI8Type(), smemBase, ValueRange{offset});
  }
  Value barrierPtr(Value stage, bool empty) {
    Value off = arith::AddIOp::create(b, loc, cst32(barrierOffset + (empty ? 8 * stages : 0)),
                                      arith::MulIOp::create(b, loc, stage, cst32(8)));
    return sharedPtr(off);
  }
  int64_t bufferOffset(Value buffer) {
    return buffer.getDefiningOp()->getAttrOfType<IntegerAttr>(tile::kOffsetAttr).getInt();
  }
  int64_t bufferSwizzle(Value buffer) {
    return buffer.getDefiningOp()->getAttrOfType<IntegerAttr>(tile::kSwizzleAttr).getInt();
  }
  /// Stage bytes of a ring buffer.
  int64_t stageBytes(Value buffer) {
    return cast<tile::BufferType>(buffer.getType()).getSizeInBytes();
  }

  void buildPrologue();
  /// The persistent tile loop: `body` gets the tile's block ids and the number of main-loop
  /// iterations run by earlier tiles (the ring's position); it returns this tile's count.
  void buildTileLoop(function_ref<Value(ArrayRef<Value> blockIds, Value base)> body);
  /// The iteration of a producer's loop over [lb, ub) step `step` at `iv`, counted over the
  /// tiles (`base`: earlier tiles' iterations; index).
  Value iteration(Value iv, Value lb, Value step, Value base) {
    return arith::AddIOp::create(
        b, loc, base, arith::DivSIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, lb), step));
  }
  /// The ring stage of iteration `iter` (index), i32.
  Value stageOf(Value iter) {
    return toI32(arith::RemSIOp::create(b, loc, iter, cstIndex(stages)));
  }
  /// Waits until the stage of iteration `iter` (index) is empty and returns that stage (i32).
  Value waitForEmptyStage(Value iter);
  /// The producer: every producer thread runs the loop; `mode` is CpAsync or Realigned.
  void buildLoadingProducer(scf::ForOp loop, IRMapping mapping);
  Value buildLoadingProducerTile(scf::ForOp loop, IRMapping mapping, ArrayRef<Value> blockIds,
                                 Value base, TileCopyMode mode);
  /// The loads_wgmma producer's tile for tensors at any alignment: iteration i realigns the
  /// staged copies (buildStagedCopy) of iteration i - (stages - 1), whose blocks have landed,
  /// and marks that stage full; then it waits for iteration i's stage and issues its copies.
  Value buildStagedProducerTile(scf::ForOp loop, IRMapping mapping, ArrayRef<Value> blockIds,
                                Value base);
  /// For each copy of a loads_wgmma loop at iteration `iv` into ring stage `stage` (i32): the
  /// copy, its tensor, its offsets, its tile, its stage's byte offset and its edge blocks' one.
  void forEachRingCopy(
      scf::ForOp loop, IRMapping &mapping, ArrayRef<Value> blockIds, Value iv, Value stage,
      function_ref<void(const TensorValues &t, ValueRange offsets, const layout::SwizzledTile &tile,
                        Value destBase, Value edgeBase, Type elemType)>
          body);
  Value buildConsumerLoop(scf::ForOp loop, IRMapping &mapping, Value base);
  /// Iterations of `for lb to ub step step`.
  Value tripCount(Value lb, Value ub, Value step) {
    Value span = arith::SubIOp::create(b, loc, ub, lb);
    Value n = arith::CeilDivSIOp::create(b, loc, span, step);
    return arith::MaxSIOp::create(b, loc, n, cstIndex(0));
  }
  /// A producer's view of the main loop: its bounds rematerialized from the block ids, and its
  /// trip count.
  struct LoopBounds {
    Value lb, ub, step, count;
  };
  LoopBounds producerBounds(scf::ForOp loop, IRMapping &mapping, ArrayRef<Value> blockIds) {
    Value lb = rematerialize(b, loop.getLowerBound(), mapping, blockIds);
    Value ub = rematerialize(b, loop.getUpperBound(), mapping, blockIds);
    Value step = rematerialize(b, loop.getStep(), mapping, blockIds);
    return {lb, ub, step, tripCount(lb, ub, step)};
  }

  tile::KernelOp kernel;
  gpu::GPUFuncOp func;
  OpBuilder &b;
  MLIRContext *ctx;
  Location loc = UnknownLoc::get(kernel.getContext());
  Value smemBase, tid;
  /// The kernel's grid (x, y, z) as computed by its grid region, on the device.
  SmallVector<Value, 3> grid;
  int64_t stages = 1, barrierOffset = 0, consumerThreads = 0;
};

/// Registers per producer thread (setmaxnreg): each keeps kLoadChunks chunks' two 16-byte
/// blocks in flight.
static constexpr int64_t kLoadProducerRegisters = 152;
static constexpr int64_t kLoadChunks = 4;
} // namespace

void WarpSpecializedBuilder::buildPrologue() {
  // Thread 0 initializes the barriers: full[s] completes on one arrive per producer thread,
  // empty[s] on one arrive per consumer warp.
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, cstIndex(0));
  auto init = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(init.thenBlock());
    for (int64_t s = 0; s < stages; ++s) {
      NVVM::MBarrierInitOp::create(b, loc, barrierPtr(cst32(s), false), cst32(128), Value());
      NVVM::MBarrierInitOp::create(b, loc, barrierPtr(cst32(s), true), cst32(consumerThreads / 32),
                                   Value());
    }
  }
  gpu::BarrierOp::create(b, loc);
}

void WarpSpecializedBuilder::buildTileLoop(
    function_ref<Value(ArrayRef<Value> blockIds, Value base)> body) {
  // Tiles first..numTiles step gridDim.x, in groups of kGroupRows rows (grid y) so that the
  // blocks running at once share rows of A and columns of B in L2.
  constexpr int64_t kGroupRows = 8;
  Value gx = grid[0], gy = grid[1], gz = grid[2];
  Value perSlice = arith::MulIOp::create(b, loc, gx, gy);
  Value numTiles = arith::MulIOp::create(b, loc, perSlice, gz);
  Value first = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value stride = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  auto loop = scf::ForOp::create(b, loc, first, numTiles, stride, ValueRange{cstIndex(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  Value bz = arith::DivUIOp::create(b, loc, t, perSlice);
  Value inSlice = arith::RemUIOp::create(b, loc, t, perSlice);
  Value perGroup = arith::MulIOp::create(b, loc, gx, cstIndex(kGroupRows));
  Value group = arith::DivUIOp::create(b, loc, inSlice, perGroup);
  Value firstRow = arith::MulIOp::create(b, loc, group, cstIndex(kGroupRows));
  Value rows = arith::MinUIOp::create(b, loc, arith::SubIOp::create(b, loc, gy, firstRow),
                                      cstIndex(kGroupRows));
  Value inGroup = arith::RemUIOp::create(b, loc, inSlice, perGroup);
  Value by = arith::AddIOp::create(b, loc, firstRow, arith::RemUIOp::create(b, loc, inGroup, rows));
  Value bx = arith::DivUIOp::create(b, loc, inGroup, rows);
  Value base = loop.getRegionIterArg(0);
  Value count = body({bx, by, bz}, base);
  scf::YieldOp::create(b, loc, ValueRange{arith::AddIOp::create(b, loc, base, count)});
}

Value WarpSpecializedBuilder::waitForEmptyStage(Value iter) {
  Value stage = stageOf(iter);
  Value round = toI32(arith::DivSIOp::create(b, loc, iter, cstIndex(stages)));
  // The empty barrier of round r completes phase r - 1; round 0 passes at once (parity 1).
  Value parity =
      arith::XOrIOp::create(b, loc, arith::AndIOp::create(b, loc, round, cst32(1)), cst32(1));
  NVVM::MBarrierTryWaitParityOp::create(b, loc, barrierPtr(stage, true), parity, cst32(10000000));
  return stage;
}

void WarpSpecializedBuilder::buildLoadingProducer(scf::ForOp loop, IRMapping mapping) {
  NVVM::SetMaxRegisterOp::create(b, loc, kLoadProducerRegisters,
                                 NVVM::SetMaxRegisterAction::decrease);
  // One version per copy mode, chosen uniformly: 16-byte cp.async chunks when every tensor
  // allows them, else staged copies (any alignment) where every tile fits them, else realigned
  // loads through registers.
  Value allAligned = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  bool staged = true;
  for (auto copy : loop.getBody()->getOps<tile::CopyOp>()) {
    auto t = getTensorValues(mapping.lookup(copy.getSource()));
    auto type = cast<tile::BufferType>(copy.getDest().getType());
    int64_t elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    allAligned =
        arith::AndIOp::create(b, loc, allAligned, buildCpAsyncReadable(b, loc, *t, elemBytes));
    // A column offset not known to be a multiple of 16 bytes takes the staged or realigned copy.
    allAligned = arith::AndIOp::create(
        b, loc, allAligned,
        buildColumnOffsetAligned(b, loc, copy.getSourceOffsets().back(), elemBytes,
                                 /*atRunTime=*/false));
    staged &= fitsStagedCopy({type.getShape()[0], type.getShape()[1], elemBytes, 128}, 128);
  }
  auto versions = scf::IfOp::create(b, loc, allAligned, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(versions.thenBlock());
  buildTileLoop([&](ArrayRef<Value> blockIds, Value base) {
    return buildLoadingProducerTile(loop, mapping, blockIds, base, TileCopyMode::CpAsync);
  });
  b.setInsertionPointToStart(versions.elseBlock());
  buildTileLoop([&](ArrayRef<Value> blockIds, Value base) {
    if (staged)
      return buildStagedProducerTile(loop, mapping, blockIds, base);
    return buildLoadingProducerTile(loop, mapping, blockIds, base, TileCopyMode::Realigned);
  });
}

void WarpSpecializedBuilder::forEachRingCopy(
    scf::ForOp loop, IRMapping &mapping, ArrayRef<Value> blockIds, Value iv, Value stage,
    function_ref<void(const TensorValues &, ValueRange, const layout::SwizzledTile &, Value, Value,
                      Type)>
        body) {
  mapping.map(loop.getInductionVar(), iv);
  int64_t edgeStage = tile::edgeBlockBytesPerStage(loop);
  Value edges = arith::AddIOp::create(b, loc, cst32(tile::edgeBlocksOffset(barrierOffset, stages)),
                                      arith::MulIOp::create(b, loc, stage, cst32(edgeStage)));
  int64_t edgeOffset = 0;
  for (auto copy : loop.getBody()->getOps<tile::CopyOp>()) {
    Value dest = copy.getDest();
    auto type = cast<tile::BufferType>(dest.getType());
    int64_t elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    layout::SwizzledTile tile{type.getShape()[0], type.getShape()[1], elemBytes,
                              bufferSwizzle(dest)};
    auto t = getTensorValues(mapping.lookup(copy.getSource()));
    SmallVector<Value> offsets;
    for (Value offset : copy.getSourceOffsets())
      offsets.push_back(rematerialize(b, offset, mapping, blockIds));
    Value stageBase =
        arith::AddIOp::create(b, loc, cst32(bufferOffset(dest)),
                              arith::MulIOp::create(b, loc, stage, cst32(stageBytes(dest))));
    Value edgeBase = arith::AddIOp::create(b, loc, edges, cst32(edgeOffset));
    body(*t, offsets, tile, stageBase, edgeBase, tile::getStorageType(type.getElementType()));
    edgeOffset += 16 * tile.rows;
  }
}

Value WarpSpecializedBuilder::buildStagedProducerTile(scf::ForOp loop, IRMapping mapping,
                                                      ArrayRef<Value> blockIds, Value base) {
  auto [lb, ub, step, count] = producerBounds(loop, mapping, blockIds);
  Value ptid = toI32(arith::SubIOp::create(b, loc, tid, cstIndex(consumerThreads)));
  // Iteration it first realigns the copies of iteration it - ahead and marks that stage full,
  // then waits for the stage of iteration it to be empty and issues its copies: `ahead` stages
  // of copies in flight, a realigned stage ready before the consumers release the one before
  // it, and the stage waited for is one whose full arrival was made (ahead <= stages).
  int64_t ahead = std::max<int64_t>(1, stages - 1);
  auto at = [&](Value it) {
    return arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, it, step)).getResult();
  };
  auto pipe = scf::ForOp::create(
      b, loc, cstIndex(0), arith::AddIOp::create(b, loc, count, cstIndex(ahead)), cstIndex(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(pipe.getBody());
  Value it = pipe.getInductionVar();
  {
    auto realign = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, it, cstIndex(ahead)),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inRealign(b);
    b.setInsertionPointToStart(realign.thenBlock());
    Value done = arith::SubIOp::create(b, loc, it, cstIndex(ahead));
    // This thread's copies of iteration `done` landed (the groups of the ahead - 1 iterations
    // after it may be pending); then the warp's (each row is one warp's).
    NVVM::CpAsyncWaitGroupOp::create(b, loc, ahead - 1);
    NVVM::SyncWarpOp::create(b, loc, cst32(-1));
    Value stage = stageOf(arith::AddIOp::create(b, loc, base, done));
    IRMapping realignMapping = mapping;
    forEachRingCopy(loop, realignMapping, blockIds, at(done), stage,
                    [&](const TensorValues &t, ValueRange offsets, const layout::SwizzledTile &tile,
                        Value destBase, Value edgeBase, Type elemType) {
                      buildStagedCopy(b, loc, smemBase, ptid, 128, t, offsets, tile, destBase,
                                      edgeBase, elemType, StagedPhase::Realign);
                    });
    // The stage's shared writes (cp.async and realigned), visible to wgmma, then released.
    NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                               NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    NVVM::MBarrierArriveOp::create(b, loc, Type(), barrierPtr(stage, false), Value(),
                                   NVVM::MemScopeKind::CTA, false);
  }
  auto issue =
      scf::IfOp::create(b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, it, count),
                        /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard inIssue(b);
    b.setInsertionPointToStart(issue.thenBlock());
    Value stage = waitForEmptyStage(arith::AddIOp::create(b, loc, base, it));
    forEachRingCopy(loop, mapping, blockIds, at(it), stage,
                    [&](const TensorValues &t, ValueRange offsets, const layout::SwizzledTile &tile,
                        Value destBase, Value edgeBase, Type elemType) {
                      buildStagedCopy(b, loc, smemBase, ptid, 128, t, offsets, tile, destBase,
                                      edgeBase, elemType, StagedPhase::Issue);
                    });
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
  return count;
}

Value WarpSpecializedBuilder::buildLoadingProducerTile(scf::ForOp loop, IRMapping mapping,
                                                       ArrayRef<Value> blockIds, Value base,
                                                       TileCopyMode mode) {
  auto [lb, ub, step, count] = producerBounds(loop, mapping, blockIds);
  Value ptid = toI32(arith::SubIOp::create(b, loc, tid, cstIndex(consumerThreads)));
  auto producer = scf::ForOp::create(b, loc, lb, ub, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(producer.getBody());
  Value stage = waitForEmptyStage(iteration(producer.getInductionVar(), lb, step, base));
  forEachRingCopy(loop, mapping, blockIds, producer.getInductionVar(), stage,
                  [&](const TensorValues &t, ValueRange offsets, const layout::SwizzledTile &tile,
                      Value destBase, Value, Type elemType) {
                    buildTileCopy(b, loc, smemBase, ptid, 128, t, offsets, tile, destBase, elemType,
                                  mode, kLoadChunks);
                  });
  Value full = barrierPtr(stage, false);
  if (mode == TileCopyMode::CpAsync) {
    // Arrives when this thread's copies so far have landed (not counted beyond the 128).
    NVVM::CpAsyncMBarrierArriveOp::create(b, loc, full, /*noinc=*/true);
  } else {
    // This thread's shared stores, visible to wgmma (the async proxy), then released.
    NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                               NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    NVVM::MBarrierArriveOp::create(b, loc, Type(), full, Value(), NVVM::MemScopeKind::CTA, false);
  }
  return count;
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

Value WarpSpecializedBuilder::buildConsumerLoop(scf::ForOp loop, IRMapping &mapping, Value base) {
  Value lb = mapping.lookupOrDefault(loop.getLowerBound());
  Value ub = mapping.lookupOrDefault(loop.getUpperBound());
  Value step = mapping.lookupOrDefault(loop.getStep());
  SmallVector<tile::GemmOp> gemms;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto gemm = dyn_cast<tile::GemmOp>(op))
      gemms.push_back(gemm);
  Value acc = mapping.lookup(gemms.front().getC());
  layout::WgmmaAccLayout layout = getRegisterLayout(acc)->wgmma;
  Value accMemref = getBufferMemref(acc);

  // Warpgroup coordinates: rows [wgM * rows / Wm, ...) and columns [wgN * N, ...).
  Value warpgroup = toI32(arith::DivUIOp::create(b, loc, tid, cstIndex(128)));
  Value wgM = arith::RemUIOp::create(b, loc, warpgroup, cst32(layout.warpgroupsM));
  Value wgN = arith::DivUIOp::create(b, loc, warpgroup, cst32(layout.warpgroupsM));
  Value isLane0 =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            arith::RemUIOp::create(b, loc, tid, cstIndex(32)), cstIndex(0));
  Value smemAddr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), smemBase);

  Value count = tripCount(lb, ub, step);
  auto consumer = scf::ForOp::create(b, loc, lb, ub, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(consumer.getBody());
  Value local = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, consumer.getInductionVar(), lb), step);
  Value iter = arith::AddIOp::create(b, loc, base, local);
  Value stage = toI32(arith::RemSIOp::create(b, loc, iter, cstIndex(stages)));
  Value round = toI32(arith::DivSIOp::create(b, loc, iter, cstIndex(stages)));
  NVVM::MBarrierTryWaitParityOp::create(b, loc, barrierPtr(stage, false),
                                        arith::AndIOp::create(b, loc, round, cst32(1)),
                                        cst32(10000000));
  // The producer's cp.async and shared stores are generic-proxy writes; wgmma reads through the
  // async proxy.
  NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                             NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));

  // The accumulator of each 64-row tile, as the instruction's register struct.
  int64_t perTile = layout.instrN() / 2;
  auto structType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(perTile, b.getF32Type()));
  SmallVector<Value> tiles = loadWgmmaTiles(b, loc, accMemref, layout);

  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (tile::GemmOp gemm : gemms) {
    Value a = gemm.getA(), bOp = gemm.getB();
    auto aType = cast<tile::BufferType>(a.getType());
    auto bType = cast<tile::BufferType>(bOp.getType());
    int64_t elemBytes = aType.getElementType().getIntOrFloatBitWidth() / 8;
    layout::SwizzledTile tileA{aType.getShape()[0], aType.getShape()[1], elemBytes,
                               bufferSwizzle(a)};
    layout::SwizzledTile tileB{bType.getShape()[0], bType.getShape()[1], elemBytes,
                               bufferSwizzle(bOp)};
    Value aStage = arith::AddIOp::create(
        b, loc, cst32(bufferOffset(a)), arith::MulIOp::create(b, loc, stage, cst32(stageBytes(a))));
    Value bStage =
        arith::AddIOp::create(b, loc, cst32(bufferOffset(bOp)),
                              arith::MulIOp::create(b, loc, stage, cst32(stageBytes(bOp))));
    buildWarpgroupMma(b, loc, smemAddr, wgM, wgN, layout, aStage, tileA, gemm.getTransposeA(),
                      bStage, tileB, gemm.getTransposeB(), aType.getElementType(), tiles);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // Wait for this iteration's multiplies, then free the stage at once: the producer refills it
  // while the next stages (already loaded) are multiplied. Keeping a group in flight across
  // iterations made ptxas serialize the wgmmas of the persistent loop (measured slower).
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  storeWgmmaTiles(b, loc, tiles, accMemref, layout);
  auto release = scf::IfOp::create(b, loc, isLane0, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(release.thenBlock());
    NVVM::MBarrierArriveOp::create(b, loc, Type(), barrierPtr(stage, true), Value(),
                                   NVVM::MemScopeKind::CTA, false);
  }
  // After the loop every group is complete before the accumulator is read.
  b.setInsertionPointAfter(consumer);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  for (int64_t m = 0; m < layout.mTiles(); ++m) {
    Value s = LLVM::UndefOp::create(b, loc, structType);
    for (int64_t r = 0; r < perTile; ++r) {
      Value v = memref::LoadOp::create(b, loc, accMemref, ValueRange{cstIndex(m * perTile + r)});
      s = LLVM::InsertValueOp::create(b, loc, s, v, r);
    }
    s = fenceAccumulators(b, loc, s);
    for (int64_t r = 0; r < perTile; ++r) {
      Value v = LLVM::ExtractValueOp::create(b, loc, s, r);
      memref::StoreOp::create(b, loc, v, accMemref, ValueRange{cstIndex(m * perTile + r)});
    }
  }
  return count;
}

LogicalResult WarpSpecializedBuilder::build(IRMapping &mapping) {
  loc = kernel.getLoc();
  consumerThreads = kernel.getThreads()[0];
  scf::ForOp mainLoop;
  kernel.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(tile::kPipelineAttr))
      mainLoop = loop;
  });
  if (!mainLoop || mainLoop->getParentOp() != kernel.getOperation())
    return kernel.emitOpError("has no top-level pipelined main loop to specialize");
  stages = cast<IntegerAttr>(mainLoop->getAttr(tile::kStagesAttr)).getInt();
  barrierOffset = cast<IntegerAttr>(mainLoop->getAttr(tile::kBarriersAttr)).getInt();

  smemBase = buildSharedBase(b, loc, func);
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  buildPrologue();
  // The kernel's grid, from its grid region: the launcher starts one block per multiprocessor
  // (at most one per tile) and each block walks the tiles.
  {
    IRMapping gridMapping = mapping;
    Block &gridBlock = kernel.getGrid().front();
    for (auto [arg, bodyArg] : llvm::zip(gridBlock.getArguments(), kernel.getBody().getArguments()))
      gridMapping.map(arg, mapping.lookup(bodyArg));
    for (Operation &op : gridBlock.without_terminator())
      b.clone(op, gridMapping);
    // The three block counts (a configuration's `when` condition after them is the host's).
    for (Value v : gridBlock.getTerminator()->getOperands().take_front(3))
      grid.push_back(gridMapping.lookup(v));
  }

  Value isProducer =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tid, cstIndex(consumerThreads));
  auto split = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(split.thenBlock());
    buildLoadingProducer(mainLoop, mapping);
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(split.elseBlock());
  int64_t regs =
      std::min<int64_t>(240, (65536 - kLoadProducerRegisters * 128) / consumerThreads / 8 * 8);
  NVVM::SetMaxRegisterOp::create(b, loc, regs, NVVM::SetMaxRegisterAction::increase);
  // Register fragments live across tiles in the entry block.
  for (Operation &op : kernel.getBody().front().without_terminator())
    if (auto alloc = dyn_cast<tile::AllocOp>(op); alloc && alloc->hasAttr(tile::kLayoutAttr))
      mapping.map(alloc.getBuffer(), lowerRegisterFragment(b, alloc, func));
  buildTileLoop([&](ArrayRef<Value> blockIds, Value base) {
    IRMapping tileMapping = mapping;
    Value count;
    Block *body = b.getInsertionBlock();
    for (Operation &op : kernel.getBody().front().without_terminator()) {
      if (auto alloc = dyn_cast<tile::AllocOp>(op))
        if (alloc->hasAttr(tile::kStagesAttr) || alloc->hasAttr(tile::kLayoutAttr))
          continue; // the ring (addressed by offset) and register fragments
      if (&op == mainLoop.getOperation()) {
        count = buildConsumerLoop(mainLoop, tileMapping, base);
        continue;
      }
      b.clone(op, tileMapping);
    }
    // Block ids are the tile's.
    SmallVector<tile::BlockIdOp> ids;
    body->walk([&](tile::BlockIdOp op) { ids.push_back(op); });
    for (tile::BlockIdOp op : ids) {
      op.getResult().replaceAllUsesWith(blockIds[op.getDim()]);
      op.erase();
    }
    // The consumers finish a tile together before the next one reuses block-wide buffers.
    NVVM::BarrierOp::create(b, loc, Type(), cst32(1), cst32(consumerThreads),
                            NVVM::BarrierReductionAttr(), Value());
    return count;
  });
  return success();
}

LogicalResult tlc::buildWarpSpecializedBody(tile::KernelOp kernel, gpu::GPUFuncOp func,
                                            OpBuilder &b, IRMapping &mapping) {
  return WarpSpecializedBuilder(kernel, func, b).build(mapping);
}
