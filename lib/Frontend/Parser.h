//===- Parser.h - Recursive-descent parser of the .tile language ----------===//
#ifndef TLC_LIB_FRONTEND_PARSER_H
#define TLC_LIB_FRONTEND_PARSER_H

#include "AST.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

#include <vector>

namespace tlc::frontend {

/// Maps source pointers of one buffer to MLIR file:line:col locations.
class SourceLocator {
public:
  SourceLocator(llvm::SourceMgr &sourceMgr, unsigned bufferId, mlir::MLIRContext *context);

  mlir::Location get(llvm::SMLoc loc) const;
  mlir::InFlightDiagnostic emitError(llvm::SMLoc loc) const { return mlir::emitError(get(loc)); }
  mlir::MLIRContext *getContext() const { return context; }

private:
  llvm::SourceMgr &sourceMgr;
  unsigned bufferId;
  mlir::MLIRContext *context;
  /// Offsets at which lines begin, filled only when the buffer has a CR-only line ending
  /// ("\r" without "\n"), which llvm::SourceMgr does not count as one.
  std::vector<unsigned> lineStarts;
};

/// Parses a whole buffer; reports the first syntax error and returns failure.
mlir::FailureOr<FileAST> parseFile(llvm::StringRef buffer, const SourceLocator &locator);

} // namespace tlc::frontend

#endif // TLC_LIB_FRONTEND_PARSER_H
