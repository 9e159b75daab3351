//===- Frontend.h - The .tile frontend: text to the tile dialect ----------===//
#ifndef TLC_FRONTEND_FRONTEND_H
#define TLC_FRONTEND_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <string>
#include <utility>
#include <vector>

namespace tlc {

/// Options of the frontend.
struct FrontendOptions {
  /// `-D NAME=VALUE` overrides of compile-time parameters, in command-line order.
  std::vector<std::pair<std::string, std::string>> defines;
};

/// Where diagnostics about the command line (e.g. a `-D` that names nothing) are emitted: a
/// NameLoc "tlc", which the driver prints as `tlc: error: ...`, with no place in the source.
mlir::Location getCommandLineLoc(mlir::MLIRContext *context);

/// Registers the dialects the frontend produces (tile, arith, scf, memref).
void registerFrontendDialects(mlir::DialectRegistry &registry);

/// Parses and checks the main buffer of `sourceMgr` and builds a module of `tile.kernel`s, one per
/// kernel, specialized for the compile-time parameters. Errors are emitted as diagnostics located
/// in the source; the result is null when there was one.
mlir::OwningOpRef<mlir::ModuleOp> importTileFile(llvm::SourceMgr &sourceMgr,
                                                 mlir::MLIRContext *context,
                                                 const FrontendOptions &options);

} // namespace tlc

#endif // TLC_FRONTEND_FRONTEND_H
