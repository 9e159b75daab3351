//===- GenericTilesToNVVM.cpp - Portable lowering of tile operations ------===//
//
// The generic strategy: shared and fragment buffers live in dynamic shared memory and every tile
// operation is spread element by element over the block's threads (consecutive threads on
// consecutive elements), followed by a barrier. It runs on every architecture and defines the
// semantics the tensor-core strategies must reproduce; it is not fast.
//
//===----------------------------------------------------------------------===//

#include "PatternsImpl.h"

#include "tlc/Dialect/Tile/IR/ScalarCast.h"

#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;

Value tlc::getBufferMemref(Value buffer) {
  auto cast = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  if (!cast || cast.getInputs().size() != 1 || !isa<MemRefType>(cast.getInputs()[0].getType()))
    return {};
  return cast.getInputs()[0];
}

/// The memref indices of element `coords` of a lowered block buffer: the coordinates, or, in a
/// swizzled tile (tile-shared-memory-layout swizzles the tiles ldmatrix, cp.async or TMA
/// access; the cast keeps `tile.swizzle`), the element's place in the swizzled layout. A
/// swizzled tile is a permutation of its rows x cols elements, so the place is written as
/// indices of the same [rows, cols] memref.
static SmallVector<Value> elementIndices(OpBuilder &b, Location loc, Value buffer,
                                         ValueRange coords) {
  auto castOp = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  // A ring stage is laid out as its buffer.
  if (castOp && castOp->hasAttr(kStageViewAttr))
    castOp = castOp.getInputs()[0].getDefiningOp<UnrealizedConversionCastOp>();
  auto swizzle = castOp ? castOp->getAttrOfType<IntegerAttr>(tile::kSwizzleAttr) : IntegerAttr();
  if (!swizzle || coords.size() != 2)
    return SmallVector<Value>(coords);
  auto type = cast<tile::BufferType>(buffer.getType());
  int64_t elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t cols = type.getShape()[1];
  layout::SwizzledTile tile{type.getShape()[0], cols, elemBytes, swizzle.getInt()};
  auto i32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
  auto toI32 = [&](Value v) { return arith::IndexCastOp::create(b, loc, b.getI32Type(), v); };
  Value row = toI32(coords[0]), col = toI32(coords[1]);
  // The 16-byte chunk's place, then the element's bytes inside it.
  Value inChunk = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, col, i32(16 / elemBytes)), i32(elemBytes));
  Value bytes = arith::AddIOp::create(b, loc, buildSwizzledOffset(b, loc, tile, row, col), inChunk);
  Value element = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                             arith::DivUIOp::create(b, loc, bytes, i32(elemBytes)));
  Value width = arith::ConstantIndexOp::create(b, loc, cols);
  return {arith::DivUIOp::create(b, loc, element, width),
          arith::RemUIOp::create(b, loc, element, width)};
}

/// The memref.view a lowered shared buffer's cast holds, or null.
static memref::ViewOp sharedView(Value buffer) {
  Value memref = getBufferMemref(buffer);
  return memref ? memref.getDefiningOp<memref::ViewOp>() : memref::ViewOp();
}

bool tlc::isStageOfLoweredBuffer(Value buffer) {
  auto castOp = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  return castOp && castOp->hasAttr(kStageViewAttr) && sharedView(castOp.getInputs()[0]);
}

/// The memref of a lowered buffer; for a ring stage's view (tile.stage), its buffer's view of
/// the dynamic shared memory moved by the stage's byte offset, built at the builder.
static Value bufferMemref(OpBuilder &b, Location loc, Value buffer) {
  if (!isStageOfLoweredBuffer(buffer))
    return getBufferMemref(buffer);
  auto castOp = buffer.getDefiningOp<UnrealizedConversionCastOp>();
  memref::ViewOp whole = sharedView(castOp.getInputs()[0]);
  Value stageBytes = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), castOp.getInputs()[1]);
  Value shift = arith::AddIOp::create(b, loc, whole.getByteShift(), stageBytes);
  return memref::ViewOp::create(b, loc, whole.getType(), whole.getSource(), shift, ValueRange{});
}

Value tlc::loadBufferElement(OpBuilder &b, Location loc, Value buffer, ValueRange coords) {
  return memref::LoadOp::create(b, loc, bufferMemref(b, loc, buffer),
                                elementIndices(b, loc, buffer, coords));
}

void tlc::storeBufferElement(OpBuilder &b, Location loc, Value value, Value buffer,
                             ValueRange coords) {
  memref::StoreOp::create(b, loc, value, bufferMemref(b, loc, buffer),
                          elementIndices(b, loc, buffer, coords));
}

Value tlc::convertElement(OpBuilder &b, Location loc, Value value, Type from, Type to) {
  return tile::buildScalarCast(b, loc, value, tile::getStorageType(to), from.isUnsignedInteger(),
                               to.isUnsignedInteger());
}

Value tlc::buildReduceCombine(OpBuilder &b, Location loc, StringRef kind, Value x, Value y) {
  using tile::ScalarArith;
  ScalarArith op = kind == "sum"   ? ScalarArith::Add
                   : kind == "max" ? ScalarArith::Maximum
                                   : ScalarArith::Minimum;
  return tile::buildScalarArith(b, loc, op, x, y);
}

void tlc::buildThreadLoop(OpBuilder &b, Location loc, int64_t points,
                          function_ref<void(OpBuilder &, Location, Value)> body) {
  auto func = b.getInsertionBlock()->getParent()->getParentOfType<gpu::GPUFuncOp>();
  SmallVector<int64_t, 3> threads = {1, 1, 1};
  if (auto known = func.getKnownBlockSizeAttr())
    for (auto [i, t] : llvm::enumerate(known.asArrayRef()))
      threads[i] = t;
  // Warp-specialized kernels run tile code on their compute threads only.
  if (tile::EntryAttr entry = tile::getEntry(func); entry && entry.getComputeThreads())
    threads[0] = entry.getComputeThreads();
  int64_t numThreads = threads[0] * threads[1] * threads[2];
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  if (threads[1] > 1 || threads[2] > 1) {
    Value y = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
    Value z = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
    Value tx = arith::ConstantIndexOp::create(b, loc, threads[0]);
    Value txy = arith::ConstantIndexOp::create(b, loc, threads[0] * threads[1]);
    tid = arith::AddIOp::create(b, loc, tid, arith::MulIOp::create(b, loc, y, tx));
    tid = arith::AddIOp::create(b, loc, tid, arith::MulIOp::create(b, loc, z, txy));
  }
  OpBuilder::InsertionGuard guard(b);
  scf::ForOp loop;
  Value linear = tile::buildPointLoop(b, loc, points, numThreads, tid, loop);
  body(b, loc, linear);
}

SmallVector<Value> tlc::delinearize(OpBuilder &b, Location loc, Value linear,
                                    ArrayRef<int64_t> shape) {
  return tile::delinearizeIndex(b, loc, linear, shape);
}

namespace {

/// Calls `body` for every linear index in [0, points): spread over the block's threads, or, when
/// the destination is a local buffer (private to each thread), all of them in every thread.
static void buildElementLoop(OpBuilder &b, Location loc, int64_t points, bool perThread,
                             function_ref<void(OpBuilder &, Location, Value)> body) {
  if (!perThread)
    return buildThreadLoop(b, loc, points, body);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, zero, arith::ConstantIndexOp::create(b, loc, points), one);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(b, loc, loop.getInductionVar());
}

/// Replaces `op` by buildElementLoop over `points` (then a barrier unless `perThread`).
static void replaceByElementLoop(PatternRewriter &rewriter, Operation *op, int64_t points,
                                 bool perThread,
                                 function_ref<void(OpBuilder &, Location, Value)> body) {
  buildElementLoop(rewriter, op->getLoc(), points, perThread, body);
  if (!perThread)
    gpu::BarrierOp::create(rewriter, op->getLoc());
  rewriter.eraseOp(op);
}

/// fill of a shared or fragment buffer.
struct FillOpLowering : OpRewritePattern<tile::FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::FillOp op, PatternRewriter &rewriter) const override {
    auto type = op.getBuffer().getType();
    Value memref = getBufferMemref(op.getBuffer());
    if (type.isLocal() || !memref || getRegisterLayout(op.getBuffer()))
      return failure();
    Value value = op.getValue();
    replaceByElementLoop(rewriter, op, type.getNumElements(), /*perThread=*/false,
                         [&](OpBuilder &b, Location loc, Value linear) {
                           memref::StoreOp::create(b, loc, value, memref,
                                                   delinearize(b, loc, linear, type.getShape()));
                         });
    return success();
  }
};

/// copy: one element per thread and step; tensor sides masked, values converted.
struct CopyOpLowering : OpRewritePattern<tile::CopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::CopyOp op, PatternRewriter &rewriter) const override {
    if (op->hasAttr(tile::kCpAsyncAttr))
      return failure(); // MmaSyncOps.cpp
    if (getRegisterLayout(op.getSource()) || getRegisterLayout(op.getDest()))
      return failure();
    auto srcBuffer = dyn_cast<tile::BufferType>(op.getSource().getType());
    auto dstBuffer = dyn_cast<tile::BufferType>(op.getDest().getType());
    tile::BufferType shapeType = srcBuffer ? srcBuffer : dstBuffer;
    std::optional<TensorValues> srcTensor, dstTensor;
    if (!srcBuffer && !(srcTensor = getTensorValues(op.getSource())))
      return failure();
    if (!dstBuffer && !(dstTensor = getTensorValues(op.getDest())))
      return failure();
    if ((srcBuffer && !hasElementAccess(op.getSource())) ||
        (dstBuffer && !hasElementAccess(op.getDest())))
      return failure();
    Type srcType = srcBuffer ? srcBuffer.getElementType()
                             : cast<tile::TensorType>(op.getSource().getType()).getElementType();
    // Values travel in their storage types; srcType/dstType keep the unsignedness of u8.
    Type dstType = dstBuffer ? dstBuffer.getElementType()
                             : cast<tile::TensorType>(op.getDest().getType()).getElementType();
    ArrayRef<int64_t> shape = shapeType.getShape();
    SmallVector<Value> srcOffsets(op.getSourceOffsets()), dstOffsets(op.getDestOffsets());

    // Tensor indices of a tile coordinate: the buffer covers the tensor's last dimensions.
    auto tensorIndices = [&](OpBuilder &b, Location loc, ArrayRef<Value> offsets,
                             ArrayRef<Value> coords) {
      SmallVector<Value> indices(offsets);
      size_t lead = offsets.size() - coords.size();
      for (auto [i, c] : llvm::enumerate(coords))
        indices[lead + i] = arith::AddIOp::create(b, loc, offsets[lead + i], c);
      return indices;
    };
    // A local destination is private to each thread: every thread copies the whole tile.
    bool perThread = dstBuffer && dstBuffer.isLocal();
    replaceByElementLoop(
        rewriter, op, shapeType.getNumElements(), perThread,
        [&](OpBuilder &b, Location loc, Value linear) {
          SmallVector<Value> coords = delinearize(b, loc, linear, shape);
          Value value;
          if (srcBuffer) {
            value = loadBufferElement(b, loc, op.getSource(), coords);
          } else {
            value = buildMaskedLoad(b, loc, *srcTensor, tile::getStorageType(srcType),
                                    tensorIndices(b, loc, srcOffsets, coords));
          }
          value = convertElement(b, loc, value, srcType, dstType);
          if (dstBuffer)
            storeBufferElement(b, loc, value, op.getDest(), coords);
          else
            buildMaskedStore(b, loc, *dstTensor, value, tensorIndices(b, loc, dstOffsets, coords));
        });
    return success();
  }
};

/// gemm: each thread computes whole elements of C with an f32 (or i32) dot product.
struct GemmOpLowering : OpRewritePattern<tile::GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::GemmOp op, PatternRewriter &rewriter) const override {
    if (getRegisterLayout(op.getC()))
      return failure(); // MmaSyncOps.cpp
    Value a = getBufferMemref(op.getA()), b = getBufferMemref(op.getB()),
          c = getBufferMemref(op.getC());
    if (!a || !b || !c)
      return failure();
    auto at = op.getA().getType(), ct = op.getC().getType();
    Type accType = ct.getElementType();
    // Products in f32 for float inputs, i32 for i8.
    Type mulType = accType.isInteger(32) ? accType : Type(rewriter.getF32Type());
    bool transA = op.getTransposeA(), transB = op.getTransposeB();
    int64_t k = transA ? at.getShape()[0] : at.getShape()[1];
    bool clear = op.getClear();
    replaceByElementLoop(
        rewriter, op, ct.getNumElements(), /*perThread=*/false,
        [&](OpBuilder &bb, Location loc, Value linear) {
          SmallVector<Value> mn = delinearize(bb, loc, linear, ct.getShape());
          Value init = clear
                           ? arith::ConstantOp::create(bb, loc, bb.getZeroAttr(mulType)).getResult()
                           : convertElement(bb, loc, loadBufferElement(bb, loc, op.getC(), mn),
                                            accType, mulType);
          Value zero = arith::ConstantIndexOp::create(bb, loc, 0);
          Value one = arith::ConstantIndexOp::create(bb, loc, 1);
          Value kEnd = arith::ConstantIndexOp::create(bb, loc, k);
          auto loop = scf::ForOp::create(
              bb, loc, zero, kEnd, one, ValueRange{init},
              [&](OpBuilder &lb, Location l, Value kk, ValueRange iter) {
                SmallVector<Value> ai =
                    transA ? SmallVector<Value>{kk, mn[0]} : SmallVector<Value>{mn[0], kk};
                SmallVector<Value> bi =
                    transB ? SmallVector<Value>{mn[1], kk} : SmallVector<Value>{kk, mn[1]};
                Value x = convertElement(lb, l, loadBufferElement(lb, l, op.getA(), ai),
                                         at.getElementType(), mulType);
                Value y = convertElement(lb, l, loadBufferElement(lb, l, op.getB(), bi),
                                         op.getB().getType().getElementType(), mulType);
                Value sum;
                if (isa<FloatType>(mulType))
                  sum = arith::AddFOp::create(lb, l, iter[0], arith::MulFOp::create(lb, l, x, y));
                else
                  sum = arith::AddIOp::create(lb, l, iter[0], arith::MulIOp::create(lb, l, x, y));
                scf::YieldOp::create(lb, l, sum);
              });
          storeBufferElement(bb, loc, convertElement(bb, loc, loop.getResult(0), mulType, accType),
                             op.getC(), mn);
        });
    return success();
  }
};

/// The indices of a source element of the line through destination element `out` along `dim`,
/// at position `r` (a rank-1 source has one line, for its single destination element).
static SmallVector<Value> lineIndex(ValueRange out, int64_t dim, int64_t srcRank, Value r) {
  if (srcRank == 1)
    return {r};
  SmallVector<Value> idx(out);
  idx.insert(idx.begin() + dim, r);
  return idx;
}

/// Whether candidate `x` replaces the best element `best` so far in an argmax (`max`) or argmin:
/// strictly greater (less), or the first NaN (ties and later NaNs keep the earlier element).
static Value beats(OpBuilder &b, Location loc, Value x, Value best, bool max) {
  if (!isa<FloatType>(x.getType()))
    return arith::CmpIOp::create(
        b, loc, max ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, x, best);
  Value better = arith::CmpFOp::create(
      b, loc, max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x, best);
  Value xNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value bestNumber = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, best, best);
  return arith::OrIOp::create(b, loc, better, arith::AndIOp::create(b, loc, xNan, bestNumber));
}

/// reduce: each thread reduces whole rows of the reduced dimension. argmax / argmin carry the
/// best element and its position.
struct ReduceOpLowering : OpRewritePattern<tile::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::ReduceOp op, PatternRewriter &rewriter) const override {
    if (getRegisterLayout(op.getSource()) || getRegisterLayout(op.getDest()))
      return failure(); // MmaSyncOps.cpp
    Value src = getBufferMemref(op.getSource()), dst = getBufferMemref(op.getDest());
    Value init = op.getInit() ? getBufferMemref(op.getInit()) : Value();
    Value index = op.getIndex() ? getBufferMemref(op.getIndex()) : Value();
    if (!src || !dst || (op.getInit() && !init) || (op.getIndex() && !index))
      return failure();
    auto st = op.getSource().getType(), dt = op.getDest().getType();
    StringRef kind = op.getKind();
    int64_t dim = op.getDim();
    auto combine = [&](OpBuilder &b, Location l, Value x, Value y) {
      return buildReduceCombine(b, l, kind, x, y);
    };
    bool argReduce = op.isArgReduce(), argMax = kind == "argmax";
    bool accumulate = op.getAccumulate();
    Value indexOffset = op.getIndexOffset();
    Type indexType = argReduce ? op.getIndex().getType().getElementType() : Type();
    // Narrow float sums add in f32 and round once at the store.
    Type elem = st.getElementType();
    Type acc = tile::getReduceAccumulatorType(elem, kind);
    auto widen = [&](OpBuilder &b, Location l, Value v) {
      return acc == elem ? v : convertElement(b, l, v, elem, acc);
    };
    // A local destination is private to each thread: every thread reduces the whole source.
    bool perThread = dt.isLocal();
    replaceByElementLoop(
        rewriter, op, dt.getNumElements(), perThread,
        [&](OpBuilder &b, Location loc, Value linear) {
          SmallVector<Value> out = delinearize(b, loc, linear, dt.getShape());
          auto element = [&](OpBuilder &lb, Location l, Value r) {
            return widen(
                lb, l,
                loadBufferElement(lb, l, op.getSource(), lineIndex(out, dim, st.getRank(), r)));
          };
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          Value one = arith::ConstantIndexOp::create(b, loc, 1);
          Value end = arith::ConstantIndexOp::create(b, loc, st.getShape()[dim]);
          SmallVector<Value> first = {element(b, loc, zero)};
          if (argReduce)
            first.push_back(zero);
          auto loop = scf::ForOp::create(
              b, loc, one, end, one, first,
              [&](OpBuilder &lb, Location l, Value r, ValueRange iter) {
                Value v = element(lb, l, r);
                if (!argReduce) {
                  scf::YieldOp::create(lb, l, combine(lb, l, iter[0], v));
                  return;
                }
                Value take = beats(lb, l, v, iter[0], argMax);
                scf::YieldOp::create(lb, l,
                                     ValueRange{arith::SelectOp::create(lb, l, take, v, iter[0]),
                                                arith::SelectOp::create(lb, l, take, r, iter[1])});
              });
          Value result = loop.getResult(0);
          if (argReduce) {
            Value position = loop.getResult(1);
            if (indexOffset)
              position = arith::AddIOp::create(b, loc, position, indexOffset);
            position = arith::IndexCastOp::create(b, loc, indexType, position);
            if (accumulate) {
              // The running result of earlier tiles stays unless this tile's beats it.
              Value old = loadBufferElement(b, loc, op.getDest(), out);
              Value oldPosition = loadBufferElement(b, loc, op.getIndex(), out);
              Value better = beats(b, loc, result, old, argMax);
              result = arith::SelectOp::create(b, loc, better, result, old);
              position = arith::SelectOp::create(b, loc, better, position, oldPosition);
            }
            storeBufferElement(b, loc, position, op.getIndex(), out);
          } else if (accumulate) {
            result = combine(b, loc, widen(b, loc, loadBufferElement(b, loc, op.getDest(), out)),
                             result);
          } else if (init) {
            result = combine(b, loc, widen(b, loc, loadBufferElement(b, loc, op.getInit(), out)),
                             result);
          }
          if (acc != elem)
            result = convertElement(b, loc, result, acc, elem);
          storeBufferElement(b, loc, result, op.getDest(), out);
        });
    return success();
  }
};

/// scan: each thread scans whole lines along the scanned dimension, in order.
struct ScanOpLowering : OpRewritePattern<tile::ScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::ScanOp op, PatternRewriter &rewriter) const override {
    if (getRegisterLayout(op.getSource()) || getRegisterLayout(op.getDest()))
      return failure(); // tile-assign-mma-layouts converts register fragments first
    if (!getBufferMemref(op.getSource()) || !getBufferMemref(op.getDest()))
      return failure();
    auto type = op.getSource().getType();
    Type elem = type.getElementType();
    auto floatType = dyn_cast<FloatType>(elem);
    // Narrow floats are combined in f32.
    Type accType = floatType && floatType.getWidth() < 32 ? rewriter.getF32Type() : elem;
    bool sum = op.getKind() == "sum", exclusive = op.getExclusive();
    int64_t dim = op.getDim();
    // The lines along `dim`, one per element of the shape without it (one for rank 1).
    SmallVector<int64_t> lines(type.getShape());
    lines.erase(lines.begin() + dim);
    if (lines.empty())
      lines.push_back(1);
    int64_t numLines = 1;
    for (int64_t n : lines)
      numLines *= n;
    // The identity: -0.0 for float sums (-0.0 + x is x for every x, -0.0 included), else 0 or 1.
    TypedAttr identity;
    if (floatType)
      identity = rewriter.getFloatAttr(accType, sum ? -0.0 : 1.0);
    else
      identity = rewriter.getIntegerAttr(accType, sum ? 0 : 1);
    // A local destination is private to each thread: every thread scans every line.
    replaceByElementLoop(
        rewriter, op, numLines, op.getDest().getType().isLocal(),
        [&](OpBuilder &b, Location loc, Value linear) {
          SmallVector<Value> out = delinearize(b, loc, linear, lines);
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          Value one = arith::ConstantIndexOp::create(b, loc, 1);
          Value end = arith::ConstantIndexOp::create(b, loc, type.getShape()[dim]);
          Value start = arith::ConstantOp::create(b, loc, identity);
          scf::ForOp::create(
              b, loc, zero, end, one, ValueRange{start},
              [&](OpBuilder &lb, Location l, Value r, ValueRange iter) {
                SmallVector<Value> at = lineIndex(out, dim, type.getRank(), r);
                Value v = convertElement(lb, l, loadBufferElement(lb, l, op.getSource(), at),
                                         type.getElementType(), accType);
                Value next;
                if (floatType)
                  next = sum ? arith::AddFOp::create(lb, l, iter[0], v).getResult()
                             : arith::MulFOp::create(lb, l, iter[0], v).getResult();
                else
                  next = sum ? arith::AddIOp::create(lb, l, iter[0], v).getResult()
                             : arith::MulIOp::create(lb, l, iter[0], v).getResult();
                storeBufferElement(lb, l,
                                   convertElement(lb, l, exclusive ? iter[0] : next, accType, elem),
                                   op.getDest(), at);
                scf::YieldOp::create(lb, l, next);
              });
        });
    return success();
  }
};

struct BarrierOpLowering : OpRewritePattern<tile::BarrierOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::BarrierOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::BarrierOp>(op);
    return success();
  }
};

} // namespace

void tlc::populateGenericTilesToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<FillOpLowering, CopyOpLowering, GemmOpLowering, ReduceOpLowering, ScanOpLowering,
               BarrierOpLowering>(patterns.getContext());
}

FailureOr<int64_t> tlc::allocateBlockBuffers(gpu::GPUFuncOp func, tile::KernelOp kernel) {
  SmallVector<tile::AllocOp> allocs;
  func.walk([&](tile::AllocOp op) {
    if (!op.getBuffer().getType().isLocal())
      allocs.push_back(op);
  });
  // Kernels laid out by tile-shared-memory-layout carry their offsets and total.
  int64_t planned = 0;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(tile::kSharedBytesAttr))
    planned = attr.getInt();
  if (allocs.empty())
    return planned;
  OpBuilder b(func.getBody());
  b.setInsertionPointToStart(&func.getBody().front());
  Location loc = func.getLoc();
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto baseType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(), workgroup);
  Value base = gpu::DynamicSharedMemoryOp::create(b, loc, baseType);
  int64_t offset = planned;
  int64_t total = planned;
  for (tile::AllocOp alloc : allocs) {
    auto type = alloc.getBuffer().getType();
    int64_t at;
    if (auto attr = alloc->getAttrOfType<IntegerAttr>(tile::kOffsetAttr)) {
      at = attr.getInt();
    } else {
      offset = (offset + 15) / 16 * 16;
      at = offset;
      offset += type.getSizeInBytes();
    }
    total = std::max(total, at + type.getSizeInBytes());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(alloc);
    auto memrefType = MemRefType::get(type.getShape(), tile::getStorageType(type.getElementType()),
                                      AffineMap(), workgroup);
    Value shift = arith::ConstantIndexOp::create(b, alloc.getLoc(), at);
    Value view = memref::ViewOp::create(b, alloc.getLoc(), memrefType, base, shift, ValueRange{});
    auto castOp = UnrealizedConversionCastOp::create(b, alloc.getLoc(), type, view);
    // Swizzled tiles are addressed by offset and swizzle (MmaSyncOps.cpp).
    for (StringRef name : {tile::kSwizzleAttr, tile::kOffsetAttr})
      if (Attribute attr = alloc->getAttr(name))
        castOp->setAttr(name, attr);
    alloc.replaceAllUsesWith(castOp.getResult(0));
    alloc.erase();
  }
  return total;
}
