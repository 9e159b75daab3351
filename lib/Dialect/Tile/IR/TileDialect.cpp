//===- TileDialect.cpp - The tile dialect and its types -------------------===//
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Dialect/Tile/IR/TileTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tlc::tile;

#include "tlc/Dialect/Tile/IR/TileOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tlc/Dialect/Tile/IR/TileOpsTypes.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tlc/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tlc/Dialect/Tile/IR/TileOpsTypes.cpp.inc"
      >();
}

LogicalResult tlc::tile::TensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 Type elementType, unsigned rank) {
  if (!elementType.isIntOrFloat())
    return emitError() << "tensor element type must be an integer or float type, got "
                       << elementType;
  if (rank == 0 || rank > 8)
    return emitError() << "tensor rank must be between 1 and 8, got " << rank;
  return success();
}
