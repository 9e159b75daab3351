//===- MLIRGen.cpp - Entry points of the tile-dialect frontend ------------===//
//
// importTileFile: parses a .tile buffer and hands its syntax tree to the Generator
// (Generator.h), which checks it and builds the `tile` dialect.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::frontend;

Location tlc::getCommandLineLoc(MLIRContext *context) {
  return NameLoc::get(StringAttr::get(context, "tlc"));
}

void tlc::registerFrontendDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                  memref::MemRefDialect>();
}

OwningOpRef<ModuleOp> tlc::importTileFile(llvm::SourceMgr &sourceMgr, MLIRContext *context,
                                          const FrontendOptions &options) {
  DialectRegistry registry;
  registerFrontendDialects(registry);
  context->appendDialectRegistry(registry);
  context->loadAllAvailableDialects();

  unsigned bufferId = sourceMgr.getMainFileID();
  StringRef buffer = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  SourceLocator locator(sourceMgr, bufferId, context);
  auto ast = parseFile(buffer, locator);
  if (failed(ast))
    return nullptr;
  Generator generator(locator, options);
  return generator.generate(*ast, SMLoc::getFromPointer(buffer.data()));
}
