//===- StreamKToNVVM.cpp - Partial tiles through the stream-K workspace ----===//
//
// The stream-K ops tile-warp-specialize writes, one pattern each, on the workspace the entry
// takes as its last parameter (`stream_k` on its #tile.entry; docs/abi.md): P = gridDim.x flags
// of 4 bytes first (the launcher zeroes them), the region rounded up to 128 bytes, then P slots
// of `stream_k` bytes.
//
//   tile.stream_k_active  -> the workspace pointer is not null
//   tile.partial_store    -> each thread's register slots as 16-byte vectors, interleaved over
//                            the threads: slot i of thread t at ((i / 4) * T + t) * 16 + i % 4 * 4
//   tile.partial_add      -> the same addresses read with ld.global.cg (L2, where the other
//                            block's stores are) and added to the registers
//   tile.partial_signal   -> fence.acq_rel.gpu, then the slot's flag set to 1
//   tile.partial_wait     -> a loop of ld.acquire.gpu of the flag until it is not 0
//
//===----------------------------------------------------------------------===//
#include "PatternsImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;

namespace {
/// The stream-K workspace of the entry around `op` and its slot size; null where the entry takes
/// none.
struct Workspace {
  Value base;
  int64_t slotBytes = 0;
};
} // namespace

static Workspace findWorkspace(Operation *op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  tile::EntryAttr entry = func ? tile::getEntry(func) : tile::EntryAttr();
  if (!entry || entry.getStreamK() == 0)
    return {};
  return {func.getArgument(func.getNumArguments() - 1), entry.getStreamK()};
}

static Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

static Value gep(OpBuilder &b, Location loc, Value base, Value bytes) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base, ValueRange{bytes});
}

/// The flags' bytes: 4 per block, rounded up to 128.
static Value flagBytes(OpBuilder &b, Location loc) {
  Value blocks = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                            gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  Value bytes = arith::MulIOp::create(b, loc, blocks, i64Const(b, loc, 4));
  Value rounded = arith::AddIOp::create(b, loc, bytes, i64Const(b, loc, 127));
  return arith::AndIOp::create(b, loc, rounded, i64Const(b, loc, ~int64_t{127}));
}

/// The address of flag `slot`.
static Value flagPtr(OpBuilder &b, Location loc, const Workspace &ws, Value slot) {
  Value index = arith::IndexCastOp::create(b, loc, b.getI64Type(), slot);
  return gep(b, loc, ws.base, arith::MulIOp::create(b, loc, index, i64Const(b, loc, 4)));
}

/// The address where this thread's first vector of `slot` at byte `offset` goes.
static Value threadSlotPtr(OpBuilder &b, Location loc, const Workspace &ws, Value slot,
                           int64_t offset) {
  Value index = arith::IndexCastOp::create(b, loc, b.getI64Type(), slot);
  Value start =
      arith::AddIOp::create(b, loc, flagBytes(b, loc),
                            arith::MulIOp::create(b, loc, index, i64Const(b, loc, ws.slotBytes)));
  Value thread = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                            gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value bytes =
      arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, start, i64Const(b, loc, offset)),
                            arith::MulIOp::create(b, loc, thread, i64Const(b, loc, 16)));
  return gep(b, loc, ws.base, bytes);
}

/// The threads that hold the fragment: the entry's compute threads (the consumers).
static int64_t fragmentThreads(Operation *op) {
  tile::EntryAttr entry = tile::getEntry(op->getParentOfType<gpu::GPUFuncOp>());
  return entry.getComputeThreads() ? entry.getComputeThreads() : entry.getThreads();
}

static LLVM::InlineAsmOp inlineAsm(OpBuilder &b, Location loc, Type result, ValueRange operands,
                                   StringRef text, StringRef constraints) {
  return LLVM::InlineAsmOp::create(b, loc, result, operands, text, constraints,
                                   /*has_side_effects=*/true, /*is_align_stack=*/false,
                                   LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
                                   ArrayAttr());
}

namespace {

struct StreamKActiveLowering : OpRewritePattern<tile::StreamKActiveOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::StreamKActiveOp op,
                                PatternRewriter &rewriter) const override {
    Workspace ws = findWorkspace(op);
    if (!ws.base)
      return failure();
    Location loc = op.getLoc();
    Value null = LLVM::ZeroOp::create(rewriter, loc, ws.base.getType());
    rewriter.replaceOpWithNewOp<LLVM::ICmpOp>(op, LLVM::ICmpPredicate::ne, ws.base, null);
    return success();
  }
};

/// partial_store and partial_add: the fragment's slots in groups of 4 (16 bytes).
template <typename OpTy> struct PartialSlotsLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Workspace ws = findWorkspace(op);
    std::optional<tile::AccLayout> layout = getRegisterLayout(op.getBuffer());
    Value memref = getBufferMemref(op.getBuffer());
    if (!ws.base || !layout || !memref)
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    constexpr bool store = std::is_same_v<OpTy, tile::PartialStoreOp>;
    int64_t threads = fragmentThreads(op);
    Value first = threadSlotPtr(b, loc, ws, op.getSlot(), op.getOffset());
    Type f32 = b.getF32Type();
    auto vecType = VectorType::get({4}, f32);
    auto quad = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    int64_t slots = layout->slots();
    for (int64_t group = 0; group * 4 < slots; ++group) {
      Value ptr = gep(b, loc, first, i64Const(b, loc, group * threads * 16));
      int64_t n = std::min<int64_t>(4, slots - group * 4);
      auto slot = [&](int64_t j) {
        return arith::ConstantIndexOp::create(b, loc, group * 4 + j).getResult();
      };
      if (store) {
        Value vec = LLVM::PoisonOp::create(b, loc, vecType);
        for (int64_t j = 0; j < 4; ++j) {
          Value v = j < n ? memref::LoadOp::create(b, loc, memref, ValueRange{slot(j)}).getResult()
                          : arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f)).getResult();
          vec = LLVM::InsertElementOp::create(b, loc, vec, v, i64Const(b, loc, j));
        }
        LLVM::StoreOp::create(b, loc, vec, ptr, /*alignment=*/16);
        continue;
      }
      Value loaded = inlineAsm(b, loc, quad, ValueRange{ptr},
                               "ld.global.cg.v4.f32 {$0, $1, $2, $3}, [$4];", "=f,=f,=f,=f,l")
                         .getResult(0);
      for (int64_t j = 0; j < n; ++j) {
        Value part = LLVM::ExtractValueOp::create(b, loc, loaded, j);
        Value old = memref::LoadOp::create(b, loc, memref, ValueRange{slot(j)});
        memref::StoreOp::create(b, loc, arith::AddFOp::create(b, loc, old, part), memref,
                                ValueRange{slot(j)});
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct PartialSignalLowering : OpRewritePattern<tile::PartialSignalOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::PartialSignalOp op,
                                PatternRewriter &rewriter) const override {
    Workspace ws = findWorkspace(op);
    if (!ws.base)
      return failure();
    Location loc = op.getLoc();
    // The block's slot stores happen before this thread's (a barrier before the op); the fence
    // makes them visible at GPU scope before the flag.
    inlineAsm(rewriter, loc, LLVM::LLVMVoidType::get(getContext()),
              ValueRange{flagPtr(rewriter, loc, ws, op.getSlot())},
              "fence.acq_rel.gpu;\n\tst.relaxed.gpu.global.b32 [$0], 1;", "l,~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
};

struct PartialWaitLowering : OpRewritePattern<tile::PartialWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::PartialWaitOp op, PatternRewriter &rewriter) const override {
    Workspace ws = findWorkspace(op);
    if (!ws.base)
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value flag = flagPtr(b, loc, ws, op.getSlot());
    auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
    {
      OpBuilder::InsertionGuard guard(b);
      b.createBlock(&loop.getBefore());
      Value value = inlineAsm(b, loc, b.getI32Type(), ValueRange{flag},
                              "ld.acquire.gpu.global.b32 $0, [$1];", "=r,l,~{memory}")
                        .getResult(0);
      Value unset = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, value,
                                          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
      scf::ConditionOp::create(b, loc, unset, ValueRange{});
      b.createBlock(&loop.getAfter());
      scf::YieldOp::create(b, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tlc::populateStreamKPatterns(RewritePatternSet &patterns) {
  patterns
      .add<StreamKActiveLowering, PartialSlotsLowering<tile::PartialStoreOp>,
           PartialSlotsLowering<tile::PartialAddOp>, PartialSignalLowering, PartialWaitLowering>(
          patterns.getContext());
}
