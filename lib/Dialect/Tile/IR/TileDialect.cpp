//===- TileDialect.cpp - The tile dialect and its types -------------------===//
#include "tlc/Dialect/Tile/IR/TileDialect.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Dialect/Tile/IR/TileTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
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
  registerAttributes();
}

LogicalResult tlc::tile::TensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                            Type elementType, unsigned rank) {
  if (!elementType.isIntOrFloat() ||
      (elementType.isUnsignedInteger() && !elementType.isUnsignedInteger(8)) ||
      elementType.isSignedInteger())
    return emitError() << "tensor element type must be a signless integer, ui8 or a float type, "
                       << "got " << elementType;
  if (rank == 0 || rank > 8)
    return emitError() << "tensor rank must be between 1 and 8, got " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// BufferType
//===----------------------------------------------------------------------===//

llvm::StringRef tlc::tile::stringifyBufferSpace(BufferSpace space) {
  switch (space) {
  case BufferSpace::Shared:
    return "shared";
  case BufferSpace::Fragment:
    return "fragment";
  case BufferSpace::Local:
    return "local";
  }
  return "unknown";
}

int64_t BufferType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}

int64_t BufferType::getSizeInBytes() const {
  // Each element takes whole bytes in memory: tf32 is stored as 32 bits, bool as one byte.
  Type type = getElementType();
  int64_t bytes = type.isTF32() ? 4 : std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
  return getNumElements() * bytes;
}

Type BufferType::parse(AsmParser &parser) {
  StringRef keyword;
  SmallVector<int64_t> shape;
  Type elementType;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return {};
  std::optional<BufferSpace> space = llvm::StringSwitch<std::optional<BufferSpace>>(keyword)
                                         .Case("shared", BufferSpace::Shared)
                                         .Case("fragment", BufferSpace::Fragment)
                                         .Case("local", BufferSpace::Local)
                                         .Default(std::nullopt);
  if (!space) {
    parser.emitError(loc, "expected 'shared', 'fragment' or 'local', got '") << keyword << "'";
    return {};
  }
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false) || parser.parseType(elementType) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<BufferType>(loc, parser.getContext(), *space, shape, elementType);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<" << stringifyBufferSpace(getSpace()) << " ";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ">";
}

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError, BufferSpace space,
                                 ArrayRef<int64_t> shape, Type elementType) {
  if (!elementType.isIntOrFloat() ||
      (elementType.isUnsignedInteger() && !elementType.isUnsignedInteger(8)) ||
      elementType.isSignedInteger())
    return emitError() << "buffer element type must be a signless integer, ui8 or a float type, "
                       << "got " << elementType;
  if (shape.empty() || shape.size() > 8)
    return emitError() << "buffer rank must be between 1 and 8, got " << shape.size();
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0)
      return emitError() << "buffer dimensions must be positive, got " << d;
    if (__builtin_mul_overflow(n, d, &n) || n > (int64_t(1) << 40))
      return emitError() << "buffer is too large";
  }
  return success();
}
