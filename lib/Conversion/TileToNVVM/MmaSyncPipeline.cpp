//===- MmaSyncPipeline.cpp - sm_80..sm_90: cp.async ring, ldmatrix, mma.sync -===//
//
// Materializes a main loop marked `tile.pipeline = #tile.pipeline<cp_async_mma>`
// (tile-software-pipeline) in a kernel of the mma.sync strategy:
//
//   prologue: the copies of iterations 0 .. S-2 into stages 0 .. S-2, one cp.async group each;
//   iteration i: wait until at most S-2 groups are pending (stage i % S has landed), barrier,
//     then per 16-wide k step ldmatrix the warp's A and B fragments from the swizzled stage and
//     mma.sync m16n8k16 into the accumulator registers; then the copies of iteration i + S - 1
//     into stage (i + S - 1) % S (the stage iteration i - 1 read, which every thread has left
//     at the barrier), one group;
//   drain: wait for every group, barrier.
//
// With gemms marked wgmma (sm_90a, tensors TMA cannot read), iteration i issues the stage's
// wgmma, then the copies of iteration i + S - 1 (they run while the tensor cores multiply), then
// waits for the wgmma.
//
// Each copy moves its tile in 16-byte chunks spread over the threads: cp.async.cg with the source
// size cut at the tensor's edge (the rest of the chunk is zero-filled), into the chunk's swizzled
// place (layout::SwizzledTile). A tensor cp.async cannot read 16 bytes at a time from (last stride
// not 1, base or row stride not 16-byte aligned) takes, uniformly for the block, element-wise
// masked loads and shared stores instead: slower, same layout, same answer. The copies and the
// products are MmaSyncOps.cpp's building blocks.
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
  Value toI32(Value index) { return arith::IndexCastOp::create(b, loc, b.getI32Type(), index); }
  static int64_t attrInt(Value buffer, StringRef name) {
    return buffer.getDefiningOp()->getAttrOfType<IntegerAttr>(name).getInt();
  }
  layout::SwizzledTile tileOf(Value buffer) {
    auto type = cast<tile::BufferType>(buffer.getType());
    return {type.getShape()[0], type.getShape()[1],
            type.getElementType().getIntOrFloatBitWidth() / 8, attrInt(buffer, tile::kSwizzleAttr)};
  }
  /// Byte offset (i32) of stage `stage` of ring buffer `buffer`.
  Value stageBase(Value buffer, Value stage) {
    Value stageOffset = arith::MulIOp::create(b, loc, stage, cst32(tileOf(buffer).bytes()));
    return arith::AddIOp::create(b, loc, cst32(attrInt(buffer, tile::kOffsetAttr)), stageOffset);
  }

  void issueCopies(scf::ForOp loop, IRMapping mapping, Value iv, Value stage);
  /// The products of `stage`; `overlapped` (the next copies) is built after them, or, for wgmma,
  /// between issuing them and waiting for them, so that it runs while the tensor cores multiply.
  void compute(scf::ForOp loop, IRMapping &mapping, Value stage,
               llvm::function_ref<void()> overlapped);
  /// compute() for gemms marked wgmma (sm_90a, tensors TMA cannot read).
  void computeWgmma(ArrayRef<tile::GemmOp> gemms, Value acc, Value stage,
                    llvm::function_ref<void()> overlapped);
  void buildMainLoop(scf::ForOp loop, IRMapping &mapping);
  void buildRing(scf::ForOp loop, IRMapping &mapping, Value lb, Value step, Value count);
  /// The copies of iteration `it` + S - 1 (into its stage), one group; an empty group past the end.
  void issueNext(scf::ForOp loop, IRMapping &mapping, Value lb, Value step, Value count, Value it);

  tile::KernelOp kernel;
  gpu::GPUFuncOp func;
  OpBuilder &b;
  MLIRContext *ctx;
  Location loc;
  Value smemBase, tid, tid32;
  int64_t threads = 0, stages = 1;
  /// How the loop being built copies: 16-byte cp.async chunks, or element loads.
  TileCopyMode copyMode = TileCopyMode::CpAsync;
  /// Whether its gemms are wgmma (read through the async proxy) rather than mma.sync.
  bool wgmma = false;
};
} // namespace

void MmaSyncBuilder::issueCopies(scf::ForOp loop, IRMapping mapping, Value iv, Value stage) {
  mapping.map(loop.getInductionVar(), iv);
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto copy = dyn_cast<tile::CopyOp>(op);
    if (!copy)
      continue;
    Value dest = copy.getDest();
    auto t = getTensorValues(mapping.lookup(copy.getSource()));
    Type elemType = tile::getStorageType(cast<tile::BufferType>(dest.getType()).getElementType());
    SmallVector<Value> offsets;
    for (Value offset : copy.getSourceOffsets())
      offsets.push_back(rematerialize(b, offset, mapping, {}));
    buildTileCopy(b, loc, smemBase, tid32, threads, *t, offsets, tileOf(dest),
                  stageBase(dest, stage), elemType,
                  copyMode == TileCopyMode::CpAsync ? copyMode : elementMode(copy), wgmma ? 2 : 1);
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
}

void MmaSyncBuilder::compute(scf::ForOp loop, IRMapping &mapping, Value stage,
                             llvm::function_ref<void()> overlapped) {
  SmallVector<tile::GemmOp> gemms;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto gemm = dyn_cast<tile::GemmOp>(op))
      gemms.push_back(gemm);
  Value acc = mapping.lookup(gemms.front().getC());
  if (wgmma) {
    computeWgmma(gemms, acc, stage, overlapped);
    return;
  }
  layout::MmaSyncAccLayout layout = getRegisterLayout(acc)->mma;
  Value accMemref = getBufferMemref(acc);
  SmallVector<Value> c;
  for (int64_t s = 0; s < layout.slots(); ++s)
    c.push_back(memref::LoadOp::create(b, loc, accMemref, ValueRange{cstIndex(s)}));
  for (tile::GemmOp gemm : gemms) {
    MmaOperandA a;
    a.tile = tileOf(gemm.getA());
    a.base = stageBase(gemm.getA(), stage);
    bool bf16 = cast<tile::BufferType>(gemm.getA().getType()).getElementType().isBF16();
    buildWarpMma(b, loc, smemBase, tid32, layout, a, stageBase(gemm.getB(), stage),
                 tileOf(gemm.getB()), gemm.getTransposeB(), bf16, c);
  }
  for (int64_t s = 0; s < layout.slots(); ++s)
    memref::StoreOp::create(b, loc, c[s], accMemref, ValueRange{cstIndex(s)});
  overlapped();
}

void MmaSyncBuilder::computeWgmma(ArrayRef<tile::GemmOp> gemms, Value acc, Value stage,
                                  llvm::function_ref<void()> overlapped) {
  // The warpgroup's accumulator tiles as wgmma's register structs, multiplied by the stage's
  // tiles; while they run, the next copies (into the stage the previous iteration read, which
  // every warpgroup finished with before this iteration's barrier), then the wait: this
  // stage is refilled next iteration, after its barrier.
  layout::WgmmaAccLayout layout = getRegisterLayout(acc)->wgmma;
  Value accMemref = getBufferMemref(acc);
  SmallVector<Value> tiles = loadWgmmaTiles(b, loc, accMemref, layout);
  Value warpgroup = arith::DivUIOp::create(b, loc, tid32, cst32(128));
  Value wgM = arith::RemUIOp::create(b, loc, warpgroup, cst32(layout.warpgroupsM));
  Value wgN = arith::DivUIOp::create(b, loc, warpgroup, cst32(layout.warpgroupsM));
  Value smemAddr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), smemBase);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (tile::GemmOp gemm : gemms) {
    buildWarpgroupMma(b, loc, smemAddr, wgM, wgN, layout, stageBase(gemm.getA(), stage),
                      tileOf(gemm.getA()), gemm.getTransposeA(), stageBase(gemm.getB(), stage),
                      tileOf(gemm.getB()), gemm.getTransposeB(),
                      gemm.getA().getType().getElementType(), tiles);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  overlapped();
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  storeWgmmaTiles(b, loc, tiles, accMemref, layout);
}

void MmaSyncBuilder::buildMainLoop(scf::ForOp loop, IRMapping &mapping) {
  Value lb = mapping.lookupOrDefault(loop.getLowerBound());
  Value ub = mapping.lookupOrDefault(loop.getUpperBound());
  Value step = mapping.lookupOrDefault(loop.getStep());
  Value count = arith::MaxSIOp::create(
      b, loc, arith::CeilDivSIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb), step),
      cstIndex(0));
  // Whether every tensor takes 16-byte chunks. The main loop is built twice, for 16-byte
  // cp.async chunks and for element copies, and the block takes one uniformly (one version's
  // registers only, not both).
  Value allOk = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto copy = dyn_cast<tile::CopyOp>(op);
    if (!copy)
      continue;
    auto t = getTensorValues(mapping.lookup(copy.getSource()));
    int64_t elemBytes = tileOf(copy.getDest()).elemBytes;
    // A column offset not known to be a multiple of 16 bytes (one from a scalar parameter) takes
    // the element copies: it is computed inside the loop.
    allOk = arith::AndIOp::create(b, loc, allOk, buildCpAsyncReadable(b, loc, *t, elemBytes));
    allOk = arith::AndIOp::create(b, loc, allOk,
                                  buildColumnOffsetAligned(b, loc, copy.getSourceOffsets().back(),
                                                           elemBytes, /*atRunTime=*/false));
  }
  auto versions = scf::IfOp::create(b, loc, allOk, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  for (TileCopyMode mode : {TileCopyMode::CpAsync, TileCopyMode::Elements}) {
    copyMode = mode;
    b.setInsertionPointToStart(mode == TileCopyMode::CpAsync ? versions.thenBlock()
                                                             : versions.elseBlock());
    buildRing(loop, mapping, lb, step, count);
  }
}
void MmaSyncBuilder::issueNext(scf::ForOp loop, IRMapping &mapping, Value lb, Value step,
                               Value count, Value it) {
  Value next = arith::AddIOp::create(b, loc, it, cstIndex(stages - 1));
  Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, next, count);
  auto ifOp = scf::IfOp::create(b, loc, live, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value iv = arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, next, step));
  issueCopies(loop, mapping, iv, toI32(arith::RemUIOp::create(b, loc, next, cstIndex(stages))));
  // Past the end: an empty group keeps every thread's count in step.
  b.setInsertionPointToStart(ifOp.elseBlock());
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
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
      Value offset = arith::MulIOp::create(b, loc, cstIndex(p), step);
      Value iv = arith::AddIOp::create(b, loc, lb, offset);
      issueCopies(loop, mapping, iv, cst32(p));
    }
    // The then-branch committed its group; an empty one keeps every thread's count in step.
    auto commitOnly = scf::IfOp::create(
        b, loc,
        arith::XOrIOp::create(b, loc, live, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)),
        false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(commitOnly.thenBlock());
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  // Iteration i: wait for stage i, sync, multiply it, refill the stage iteration i - 1 read.
  // (Loading a k step's fragments one step ahead, across the barrier too, as CUTLASS's
  // multistage loop does, measured slower here: 266 against 336 TFLOP/s for 128x128 blocks at
  // 4096^3 on the H200; bench/RESULTS.md.)
  auto mainLoop = scf::ForOp::create(b, loc, cstIndex(0), count, cstIndex(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(mainLoop.getBody());
    Value it = mainLoop.getInductionVar();
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(stages - 2));
    // wgmma reads shared memory through the async proxy: this thread's writes (cp.async or
    // st.shared) are made visible to it before the barrier.
    if (wgmma)
      NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                                 NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    gpu::BarrierOp::create(b, loc);
    compute(loop, mapping, toI32(arith::RemUIOp::create(b, loc, it, cstIndex(stages))),
            [&] { issueNext(loop, mapping, lb, step, count, it); });
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
  mainLoop.getBody()->walk(
      [&](tile::GemmOp gemm) { wgmma |= tile::getMmaKind(gemm) == tile::MmaKind::Wgmma; });
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
