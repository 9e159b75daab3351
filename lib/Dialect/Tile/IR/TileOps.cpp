//===- TileOps.cpp - Operations of the tile dialect -----------------------===//
#include "tlc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tlc::tile;

#define GET_OP_CLASSES
#include "tlc/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

int64_t KernelOp::getNumThreads() {
  int64_t n = 1;
  for (int64_t t : getThreads())
    n *= t;
  return n;
}

Value KernelOp::getWhenCondition() {
  auto yield = dyn_cast<YieldOp>(getGrid().front().getTerminator());
  return yield && yield.getValues().size() == 4 ? yield.getValues()[3] : Value();
}

std::string KernelOp::getDisplayName() {
  auto of = (*this)->getAttrOfType<StringAttr>("variant_of");
  auto variant = (*this)->getAttrOfType<IntegerAttr>("variant");
  auto configs = (*this)->getAttrOfType<ArrayAttr>("configs");
  if (!of || !variant)
    return ("'" + getSymName() + "'").str();
  std::string name = ("'" + of.getValue() + "' (configuration " + Twine(variant.getInt())).str();
  int64_t index = variant.getInt();
  auto config = configs && index >= 0 && index < static_cast<int64_t>(configs.size())
                    ? dyn_cast<DictionaryAttr>(configs[index])
                    : DictionaryAttr();
  if (config && !config.empty()) {
    name += ":";
    for (auto [i, entry] : llvm::enumerate(config.getValue())) {
      name += (i ? ", " : " ") + entry.getName().str() + " = ";
      llvm::raw_string_ostream os(name);
      if (auto integer = dyn_cast<IntegerAttr>(entry.getValue());
          integer && integer.getType().isInteger(1))
        os << (integer.getInt() ? "true" : "false");
      else if (auto integer = dyn_cast<IntegerAttr>(entry.getValue()))
        os << integer.getInt();
      else if (auto type = dyn_cast<TypeAttr>(entry.getValue()))
        os << type.getValue();
      else
        os << entry.getValue();
    }
  }
  return name + ")";
}

LogicalResult KernelOp::verify() {
  ArrayRef<int64_t> threads = getThreads();
  if (threads.size() != 3)
    return emitOpError("expects 3 thread dimensions, got ") << threads.size();
  for (int64_t t : threads)
    if (t < 1)
      return emitOpError("thread dimensions must be positive");
  if (getNumThreads() > 1024)
    return emitOpError("a block holds at most 1024 threads, got ") << getNumThreads();

  Block &grid = getGrid().front();
  Block &body = getBody().front();
  if (grid.getArgumentTypes() != body.getArgumentTypes())
    return emitOpError("'grid' and 'body' regions must take the same arguments");
  unsigned numArgs = body.getNumArguments();
  if (getArgNames().size() != numArgs)
    return emitOpError("expects ") << numArgs << " argument names, got " << getArgNames().size();
  if (getDimNames().size() != numArgs)
    return emitOpError("expects ")
           << numArgs << " dimension name lists, got " << getDimNames().size();
  for (auto [type, dims] : llvm::zip(body.getArgumentTypes(), getDimNames())) {
    auto list = dyn_cast<ArrayAttr>(dims);
    if (!list || !llvm::all_of(list, [](Attribute a) { return isa<StringAttr>(a); }))
      return emitOpError("'dim_names' entries must be arrays of strings");
    unsigned rank = 0;
    if (auto tensor = dyn_cast<TensorType>(type))
      rank = tensor.getRank();
    else if (!type.isIntOrIndexOrFloat())
      return emitOpError("kernel arguments must be tensors or scalars, got ") << type;
    if (list.size() != rank)
      return emitOpError("argument of type ")
             << type << " needs " << rank << " dimension names, got " << list.size();
  }
  auto gridYield = dyn_cast<YieldOp>(grid.getTerminator());
  // Three block counts, then optionally a configuration's `when` condition (i1).
  if (!gridYield || gridYield.getValues().size() < 3 || gridYield.getValues().size() > 4 ||
      !llvm::all_of(gridYield.getValues().take_front(3).getTypes(),
                    [](Type t) { return t.isIndex(); }) ||
      (gridYield.getValues().size() == 4 && !gridYield.getValues()[3].getType().isInteger(1)))
    return emitOpError("'grid' region must yield three 'index' values and optionally an 'i1' "
                       "condition");
  auto bodyYield = dyn_cast<YieldOp>(body.getTerminator());
  if (!bodyYield || !bodyYield.getValues().empty())
    return emitOpError("'body' region must end with a 'tile.yield' of no values");
  return success();
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  if (isa<ParallelOp>((*this)->getParentOp()) && !getValues().empty())
    return emitOpError("in a 'tile.parallel' body yields no values");
  return success();
}

//===----------------------------------------------------------------------===//
// DimOp, LoadOp, StoreOp
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  unsigned rank = getTensor().getType().getRank();
  if (getDim() >= rank)
    return emitOpError("dimension ")
           << getDim() << " is out of range for a tensor of rank " << rank;
  return success();
}

static LogicalResult verifyIndexCount(Operation *op, tlc::tile::TensorType type,
                                      size_t numIndices) {
  if (numIndices != type.getRank())
    return op->emitOpError("expects ") << type.getRank() << " indices for a tensor of rank "
                                       << type.getRank() << ", got " << numIndices;
  return success();
}

LogicalResult LoadOp::verify() {
  return verifyIndexCount(*this, getTensor().getType(), getIndices().size());
}

LogicalResult LoadVectorOp::verify() {
  if (failed(verifyIndexCount(*this, getTensor().getType(), getIndices().size())))
    return failure();
  Type element = getStorageType(getTensor().getType().getElementType());
  int64_t n = getResults().size();
  if (n < 2 || n > 16 || !llvm::isPowerOf2_64(n))
    return emitOpError("loads 2, 4, 8 or 16 elements, not ") << n;
  for (Type type : getResultTypes())
    if (type != element)
      return emitOpError("results must be the tensor's element type ")
             << element << ", not " << type;
  return success();
}

LogicalResult StoreOp::verify() {
  return verifyIndexCount(*this, getTensor().getType(), getIndices().size());
}

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

int64_t ParallelOp::getNumPoints() {
  int64_t n = 1;
  for (int64_t s : getShape())
    n *= s;
  return n;
}

LogicalResult ParallelOp::verify() {
  ArrayRef<int64_t> shape = getShape();
  if (shape.empty())
    return emitOpError("expects a non-empty shape");
  for (int64_t s : shape)
    if (s < 1)
      return emitOpError("shape extents must be positive, got ") << s;
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError("must be inside a 'tile.kernel'");
  if ((*this)->getParentOfType<ParallelOp>())
    return emitOpError("cannot be nested in another 'tile.parallel'");
  Block &body = getBody().front();
  if (body.getNumArguments() != shape.size() ||
      !llvm::all_of(body.getArgumentTypes(), [](Type t) { return t.isIndex(); }))
    return emitOpError("body must take ") << shape.size() << " 'index' arguments";
  return success();
}

//===----------------------------------------------------------------------===//
// Buffers and tile operations
//===----------------------------------------------------------------------===//

/// "[128, 64]" for diagnostics.
static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

LogicalResult FillOp::verify() {
  if (getValue().getType() != getStorageType(getBuffer().getType().getElementType()))
    return emitOpError("fill value of type ")
           << getValue().getType() << " does not match the buffer's element type "
           << getBuffer().getType().getElementType();
  return success();
}

LogicalResult CopyOp::verify() {
  auto srcTensor = dyn_cast<TensorType>(getSource().getType());
  auto dstTensor = dyn_cast<TensorType>(getDest().getType());
  auto srcBuffer = dyn_cast<BufferType>(getSource().getType());
  auto dstBuffer = dyn_cast<BufferType>(getDest().getType());
  if (srcTensor && dstTensor)
    return emitOpError("copies between two tensors are not supported; go through a buffer");
  auto checkSide = [&](TensorType tensor, BufferType buffer, size_t numOffsets,
                       StringRef side) -> LogicalResult {
    if (tensor) {
      if (numOffsets != tensor.getRank())
        return emitOpError("the ") << side << " tensor of rank " << tensor.getRank() << " needs "
                                   << tensor.getRank() << " offsets, got " << numOffsets;
      return success();
    }
    if (numOffsets != 0)
      return emitOpError("the ") << side << " buffer takes no offsets";
    (void)buffer;
    return success();
  };
  if (failed(checkSide(srcTensor, srcBuffer, getSourceOffsets().size(), "source")) ||
      failed(checkSide(dstTensor, dstBuffer, getDestOffsets().size(), "destination")))
    return failure();
  if (srcBuffer && dstBuffer && srcBuffer.getShape() != dstBuffer.getShape())
    return emitOpError("copies between buffers of different shapes: ")
           << shapeString(srcBuffer.getShape()) << " and " << shapeString(dstBuffer.getShape());
  BufferType buffer = srcBuffer ? srcBuffer : dstBuffer;
  TensorType tensor = srcTensor ? srcTensor : dstTensor;
  if (tensor && buffer.getRank() > tensor.getRank())
    return emitOpError("a buffer of rank ")
           << buffer.getRank() << " cannot be copied to or from a tensor of rank "
           << tensor.getRank();
  if (Value scratch = getScratch()) {
    auto type = cast<BufferType>(scratch.getType());
    if (!srcBuffer || !srcBuffer.isFragment() || !dstTensor)
      return emitOpError("only a copy from a fragment to a tensor takes a scratch buffer");
    if (!type.isShared() || type.getRank() != 1 || !type.getElementType().isInteger(8))
      return emitOpError("the scratch buffer must be a rank-1 shared buffer of i8");
  }
  if (getTmaStore()) {
    Type element = dstTensor ? dstTensor.getElementType() : Type();
    if (!getScratch())
      return emitOpError(
          "'tma_store' stages rows through a scratch buffer, and this copy has none");
    if (dstTensor.getRank() != 2 || !element.isIntOrFloat() ||
        (element.getIntOrFloatBitWidth() != 16 && element.getIntOrFloatBitWidth() != 32))
      return emitOpError("'tma_store' writes rank-2 tensors of 2- or 4-byte elements");
    if (cast<BufferType>(getScratch().getType()).getShape()[0] % 2048)
      return emitOpError("a 'tma_store' scratch is made of 2048-byte slabs");
  }
  return success();
}

LogicalResult GemmOp::verify() {
  BufferType a = getA().getType(), b = getB().getType(), c = getC().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands must be rank-2 buffers");
  if (!c.isFragment())
    return emitOpError("the accumulator must be a fragment, got a ")
           << stringifyBufferSpace(c.getSpace()) << " buffer";
  if (!b.isShared())
    return emitOpError("B must be in shared memory, got a ")
           << stringifyBufferSpace(b.getSpace()) << " buffer";
  if (a.isLocal())
    return emitOpError("A must be in shared memory or a fragment");
  int64_t m = getTransposeA() ? a.getShape()[1] : a.getShape()[0];
  int64_t ka = getTransposeA() ? a.getShape()[0] : a.getShape()[1];
  int64_t kb = getTransposeB() ? b.getShape()[1] : b.getShape()[0];
  int64_t n = getTransposeB() ? b.getShape()[0] : b.getShape()[1];
  if (ka != kb)
    return emitOpError("inner dimensions differ: A is ")
           << shapeString(a.getShape()) << (getTransposeA() ? " (transposed)" : "") << ", B is "
           << shapeString(b.getShape()) << (getTransposeB() ? " (transposed)" : "")
           << "; K = " << ka << " vs " << kb;
  if (c.getShape()[0] != m || c.getShape()[1] != n)
    return emitOpError("the accumulator is ")
           << shapeString(c.getShape()) << " but A x B is [" << m << ", " << n << "]";
  Type ta = a.getElementType(), tb = b.getElementType(), tc = c.getElementType();
  if (ta != tb)
    return emitOpError("A and B must have the same element type, got ") << ta << " and " << tb;
  bool ok = false;
  if (ta.isF16())
    ok = tc.isF32() || tc.isF16();
  else if (ta.isBF16() || isa<Float8E4M3FNType, Float8E5M2Type>(ta) || ta.isTF32())
    ok = tc.isF32();
  else if (ta.isSignlessInteger(8))
    ok = tc.isInteger(32);
  else
    return emitOpError("tensor cores do not take ")
           << ta << " inputs; use f16, bf16, tf32, f8e4m3, f8e5m2 or i8";
  if (!ok)
    return emitOpError("an accumulator of ") << tc << " cannot hold products of " << ta;
  return success();
}

/// `dim` names a dimension of `type`.
static LogicalResult verifyDim(Operation *op, int64_t dim, BufferType type) {
  if (dim < 0 || dim >= static_cast<int64_t>(type.getRank()))
    return op->emitOpError("dimension ")
           << dim << " is out of range for a buffer of rank " << type.getRank();
  return success();
}

LogicalResult ReduceOp::verify() {
  BufferType src = getSource().getType(), dst = getDest().getType();
  StringRef kind = getKind();
  if (kind != "sum" && kind != "max" && kind != "min" && !isArgReduce())
    return emitOpError("kind must be 'sum', 'max', 'min', 'argmax' or 'argmin', got '")
           << kind << "'";
  if (failed(verifyDim(*this, getDim(), src)))
    return failure();
  int64_t dim = getDim();
  SmallVector<int64_t> expected(src.getShape());
  expected.erase(expected.begin() + dim);
  if (expected.empty())
    expected.push_back(1);
  if (dst.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("reducing ")
           << shapeString(src.getShape()) << " along dimension " << dim << " gives "
           << shapeString(expected) << ", but the destination is " << shapeString(dst.getShape());
  if (src.getElementType() != dst.getElementType())
    return emitOpError("source and destination element types differ: ")
           << src.getElementType() << " and " << dst.getElementType();
  if (Value init = getInit()) {
    if (init.getType() != dst)
      return emitOpError("'init' must have the destination's type ") << dst;
    if (getAccumulate())
      return emitOpError("'init' and 'accumulate' cannot be combined");
    if (isArgReduce())
      return emitOpError("'init' does not combine with '") << kind << "'";
  }
  if (Value scratch = getScratch()) {
    auto type = cast<BufferType>(scratch.getType());
    Type acc = getReduceAccumulatorType(dst.getElementType(), kind);
    if (!type.isShared() || type.getElementType() != acc || type.getRank() != 1)
      return emitOpError("'scratch' must be a rank-1 shared buffer of ")
             << acc << " (the type the reduce combines in), got " << type;
  }
  if (!isArgReduce()) {
    if (getIndex() || getIndexOffset())
      return emitOpError("only 'argmax' and 'argmin' take an index buffer or offset, not '")
             << kind << "'";
    return success();
  }
  if (!getIndex())
    return emitOpError("'") << kind << "' needs an index buffer";
  BufferType index = getIndex().getType();
  if (index.getShape() != dst.getShape())
    return emitOpError("the index buffer is ")
           << shapeString(index.getShape()) << " but the destination is "
           << shapeString(dst.getShape());
  Type elem = index.getElementType();
  if (!elem.isSignlessInteger(32) && !elem.isSignlessInteger(64))
    return emitOpError("the index buffer must have i32 or i64 elements, got ") << elem;
  if (index.isLocal() != dst.isLocal())
    return emitOpError("the index buffer and the destination must both be local or neither");
  return success();
}

LogicalResult ScanOp::verify() {
  BufferType src = getSource().getType(), dst = getDest().getType();
  StringRef kind = getKind();
  if (kind != "sum" && kind != "prod")
    return emitOpError("kind must be 'sum' or 'prod', got '") << kind << "'";
  if (failed(verifyDim(*this, getDim(), src)))
    return failure();
  if (src.getShape() != dst.getShape())
    return emitOpError("the destination is ")
           << shapeString(dst.getShape()) << " but the source is " << shapeString(src.getShape());
  Type elem = src.getElementType();
  if (elem != dst.getElementType())
    return emitOpError("source and destination element types differ: ")
           << elem << " and " << dst.getElementType();
  if (elem.isInteger(1) || elem.isUnsignedInteger() || isa<Float8E4M3FNType, Float8E5M2Type>(elem))
    return emitOpError("does not take ") << elem << " elements";
  return success();
}

static LogicalResult verifyBufferIndices(Operation *op, BufferType type, size_t numIndices) {
  if (numIndices != type.getRank())
    return op->emitOpError("expects ") << type.getRank() << " indices for a buffer of rank "
                                       << type.getRank() << ", got " << numIndices;
  return success();
}

LogicalResult ReadOp::verify() {
  return verifyBufferIndices(*this, getBuffer().getType(), getIndices().size());
}

LogicalResult WriteOp::verify() {
  return verifyBufferIndices(*this, getBuffer().getType(), getIndices().size());
}

static LogicalResult verifySlotBuffer(Operation *op, BufferType type) {
  if (!type.isFragment())
    return op->emitOpError("needs a fragment buffer, found ") << type;
  return success();
}

LogicalResult ReadSlotOp::verify() { return verifySlotBuffer(*this, getBuffer().getType()); }

LogicalResult WriteSlotOp::verify() { return verifySlotBuffer(*this, getBuffer().getType()); }

LogicalResult AtomicAddOp::verify() {
  if (!getValue().getType().isIntOrFloat() || getValue().getType().isInteger(1))
    return emitOpError("atomic_add needs an integer or float element type");
  return verifyIndexCount(*this, getTensor().getType(), getIndices().size());
}

//===----------------------------------------------------------------------===//
// Utilities
//===----------------------------------------------------------------------===//

SmallVector<Value> tlc::tile::delinearizeIndex(OpBuilder &b, Location loc, Value linear,
                                               ArrayRef<int64_t> shape) {
  SmallVector<Value> coords(shape.size());
  Value rest = linear;
  for (int i = static_cast<int>(shape.size()) - 1; i > 0; --i) {
    Value extent = arith::ConstantIndexOp::create(b, loc, shape[i]);
    coords[i] = arith::RemUIOp::create(b, loc, rest, extent);
    rest = arith::DivUIOp::create(b, loc, rest, extent);
  }
  coords[0] = rest;
  return coords;
}

//===----------------------------------------------------------------------===//
// StageOp
//===----------------------------------------------------------------------===//

LogicalResult StageOp::verify() {
  if (!getBuffer().getType().isShared())
    return emitOpError("addresses a stage of a shared buffer, not of ") << getBuffer().getType();
  auto alloc = getBuffer().getDefiningOp<AllocOp>();
  auto stages = alloc ? alloc->getAttrOfType<IntegerAttr>(kStagesAttr) : IntegerAttr();
  if (!stages || stages.getInt() < 2)
    return emitOpError("needs a buffer allocated with 'tile.stages' of 2 or more (a pipeline "
                       "ring; tile-software-pipeline sets them)");
  if (auto index = getConstantIntValue(getIndex());
      index && (*index < 0 || *index >= stages.getInt()))
    return emitOpError("stage ") << *index << " is outside the buffer's " << stages.getInt()
                                 << " stages";
  return success();
}

//===----------------------------------------------------------------------===//
// MmaWaitOp
//===----------------------------------------------------------------------===//

LogicalResult MmaWaitOp::verify() {
  for (Value buffer : getBuffers())
    if (!cast<BufferType>(buffer.getType()).isFragment())
      return emitOpError("waits for the accumulators of gemms (fragments), not for ")
             << buffer.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Warp specialization: mbarriers, TMA loads, warpgroup roles
//===----------------------------------------------------------------------===//

/// `barriers[index]` names an mbarrier: a shared rank-1 buffer of i64, the index inside it when
/// known.
static LogicalResult verifyMBarrier(Operation *op, Value barriers, Value index) {
  auto type = cast<BufferType>(barriers.getType());
  if (!type.isShared() || type.getRank() != 1 || !type.getElementType().isInteger(64))
    return op->emitOpError("names an mbarrier in a shared rank-1 buffer of i64, not in ") << type;
  if (std::optional<int64_t> i = getConstantIntValue(index);
      i && (*i < 0 || *i >= type.getShape()[0]))
    return op->emitOpError("mbarrier ") << *i << " is outside the buffer's " << type.getShape()[0];
  return success();
}

/// An op that talks to the other blocks of a cluster must be in a kernel whose blocks may run
/// in clusters (tile-warp-specialize marks it); inside an entry (during conversion) the lowering
/// reads the entry.
static LogicalResult verifyClusterKernel(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (kernel && !kernel->hasAttr(kClusterAttr))
    return op->emitOpError("needs a kernel whose blocks may run in clusters ('")
           << kClusterAttr << "' on the kernel; tile-warp-specialize sets it)";
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  if (failed(verifyMBarrier(*this, getBarriers(), getIndex())))
    return failure();
  return getCluster() ? verifyClusterKernel(*this) : success();
}
LogicalResult MBarrierWaitOp::verify() { return verifyMBarrier(*this, getBarriers(), getIndex()); }
LogicalResult MBarrierArriveOp::verify() {
  if (failed(verifyMBarrier(*this, getBarriers(), getIndex())))
    return failure();
  if (getRank() && (getExpectTx() || getAfterCopies()))
    return emitOpError("arrives on another block's mbarrier without 'expect_tx' or "
                       "'after_copies' (those count this block's copies)");
  return getRank() ? verifyClusterKernel(*this) : success();
}

LogicalResult NamedBarrierOp::verify() {
  if (getThreads() % 32 != 0)
    return emitOpError("counts whole warps: 'threads' must be a multiple of 32, not ")
           << getThreads();
  if (std::optional<int64_t> id = getConstantIntValue(getId()); id && (*id < 2 || *id > 15))
    return emitOpError("names barrier ")
           << *id << "; barriers 0 (the block's) and 1 (the consumers') are the compiler's, "
           << "and there are 16";
  return success();
}

LogicalResult ClusterSizeOp::verify() { return verifyClusterKernel(*this); }
LogicalResult ClusterRankOp::verify() { return verifyClusterKernel(*this); }
LogicalResult ClusterBarrierOp::verify() { return verifyClusterKernel(*this); }

LogicalResult TmaLoadOp::verify() {
  if (failed(verifyMBarrier(*this, getBarriers(), getIndex())))
    return failure();
  TensorType source = getSource().getType();
  BufferType dest = getDest().getType();
  if (static_cast<int64_t>(getOffsets().size()) != source.getRank())
    return emitOpError("takes one offset per tensor dimension (")
           << source.getRank() << "), not " << getOffsets().size();
  if (source.getRank() < 2 || source.getRank() > 5)
    return emitOpError("reads tensors of rank 2 to 5 (a TMA box), not of rank ")
           << source.getRank();
  if (!dest.isShared() || dest.getRank() != 2)
    return emitOpError("writes a shared tile of rank 2, not ") << dest;
  if (dest.getElementType() != source.getElementType())
    return emitOpError("copies ") << source.getElementType() << " elements into a tile of "
                                  << dest.getElementType();
  return getMulticast() ? verifyClusterKernel(*this) : success();
}

LogicalResult WarpSpecializeOp::verify() {
  auto kernel = dyn_cast<KernelOp>((*this)->getParentOp());
  if (!kernel)
    return emitOpError("must be directly in a kernel's body");
  if (!kernel->hasAttr(kProducerThreadsAttr))
    return emitOpError("needs the kernel's producer warpgroup ('")
           << kProducerThreadsAttr << "' on the kernel)";
  for (Region *region : {&getProducer(), &getConsumers()})
    if (!region->front().getTerminator() ||
        !cast<YieldOp>(region->front().getTerminator()).getValues().empty())
      return emitOpError("regions yield no values");
  return success();
}

LogicalResult ProducerCopyOp::verify() {
  TensorType source = getSource().getType();
  BufferType dest = getDest().getType();
  if (static_cast<int64_t>(getOffsets().size()) != source.getRank())
    return emitOpError("takes one offset per tensor dimension (")
           << source.getRank() << "), not " << getOffsets().size();
  if (source.getRank() < 2)
    return emitOpError("reads tiles of tensors of rank 2 or more, not of rank ")
           << source.getRank();
  if (!dest.isShared() || dest.getRank() != 2)
    return emitOpError("writes a shared tile of rank 2, not ") << dest;
  bool staged =
      getMode() == ProducerCopyMode::StagedIssue || getMode() == ProducerCopyMode::StagedRealign;
  if (staged != static_cast<bool>(getEdges()))
    return emitOpError(staged ? "in a staged mode needs its edge bytes ('edges')"
                              : "takes edge bytes ('edges') in the staged modes only");
  if (auto edges = getEdges()) {
    auto type = cast<BufferType>(edges.getType());
    if (!type.isShared() || type.getRank() != 1 || !type.getElementType().isInteger(8))
      return emitOpError("keeps its edge bytes in a shared rank-1 buffer of i8, not ") << type;
  }
  return success();
}

/// A stream-K op must be in a kernel that takes the workspace (tile-warp-specialize marks it);
/// inside an entry (during conversion) the lowering checks the entry.
static LogicalResult verifyStreamKKernel(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (kernel && !kernel->hasAttr(kStreamKAttr))
    return op->emitOpError("needs a kernel that takes a stream-K workspace ('")
           << kStreamKAttr << "' on the kernel; tile-warp-specialize sets it)";
  return success();
}

LogicalResult StreamKActiveOp::verify() { return verifyStreamKKernel(*this); }
LogicalResult PartialSignalOp::verify() { return verifyStreamKKernel(*this); }
LogicalResult PartialWaitOp::verify() { return verifyStreamKKernel(*this); }

/// The fragment a partial_store or partial_add moves: f32 with a register layout.
static LogicalResult verifyPartialFragment(Operation *op, Value buffer, int64_t offset) {
  if (failed(verifyStreamKKernel(op)))
    return failure();
  auto type = cast<BufferType>(buffer.getType());
  if (!type.isFragment() || !type.getElementType().isF32())
    return op->emitOpError("moves a fragment of f32, not ") << type;
  if (Operation *def = buffer.getDefiningOp(); def && !def->hasAttr(kLayoutAttr))
    return op->emitOpError("needs a fragment with a register layout ('")
           << kLayoutAttr << "' on its alloc)";
  if (offset % 16)
    return op->emitOpError("offset must be a multiple of 16 bytes, not ") << offset;
  return success();
}

LogicalResult PartialStoreOp::verify() {
  return verifyPartialFragment(*this, getBuffer(), getOffset());
}
LogicalResult PartialAddOp::verify() {
  return verifyPartialFragment(*this, getBuffer(), getOffset());
}
