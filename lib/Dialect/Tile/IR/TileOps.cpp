//===- TileOps.cpp - Operations of the tile dialect -----------------------===//
#include "tlc/Dialect/Tile/IR/TileOps.h"

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
    return emitOpError("expects ") << numArgs << " dimension name lists, got "
                                   << getDimNames().size();
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
      return emitOpError("argument of type ") << type << " needs " << rank
                                              << " dimension names, got " << list.size();
  }
  auto gridYield = dyn_cast<YieldOp>(grid.getTerminator());
  if (!gridYield || gridYield.getValues().size() != 3 ||
      !llvm::all_of(gridYield.getValues().getTypes(), [](Type t) { return t.isIndex(); }))
    return emitOpError("'grid' region must yield three 'index' values");
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
    return emitOpError("dimension ") << getDim() << " is out of range for a tensor of rank "
                                     << rank;
  return success();
}

static LogicalResult verifyIndexCount(Operation *op, tlc::tile::TensorType type, size_t numIndices) {
  if (numIndices != type.getRank())
    return op->emitOpError("expects ")
           << type.getRank() << " indices for a tensor of rank " << type.getRank() << ", got "
           << numIndices;
  return success();
}

LogicalResult LoadOp::verify() {
  return verifyIndexCount(*this, getTensor().getType(), getIndices().size());
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
