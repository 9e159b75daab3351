//===- FrontendFuzzer.cpp - libFuzzer target for the .tile frontend -------===//
//
// Feeds arbitrary bytes to tlc::importTileFile, the frontend `tlc --check` runs. Built with
// clang and -fsanitize=fuzzer,address together with the frontend's own sources (see
// CMakeLists.txt), so ASan and the coverage feedback reach the lexer, parser and generator.
//
// Besides crashes, leaks and timeouts, the target aborts on these contract violations:
//   - import failed but no error was reported;
//   - an error is not located in the input (file:line:col of the fuzzed buffer), or at the
//     command line for errors about the `// -D` lines;
//   - an error comes from the IR verifier (the frontend generated invalid IR);
//   - import succeeded but the module does not verify.
//
// Leading lines `// -D NAME=VALUE` of the input become `-D` overrides (FrontendOptions::defines),
// so that the fuzzer also reaches the handling of command-line parameters.
//
//===----------------------------------------------------------------------===//

#include "tlc/Frontend/Frontend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

static constexpr const char *kBufferName = "fuzz.tile";

/// Stops the run with a message; libFuzzer saves the input as a crash.
[[noreturn]] static void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "tlc-fuzz-frontend: %s\n%s\n", what, detail.c_str());
  std::abort();
}

static std::string describe(mlir::Diagnostic &diag) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << diag.getLocation() << ": " << diag.str();
  for (mlir::Diagnostic &note : diag.getNotes())
    os << "\n  note: " << note.getLocation() << ": " << note.str();
  return s;
}

/// Parses the leading `// -D NAME=VALUE` lines. As on the command line, NAME is not empty and
/// there is no NUL.
static void parseDefines(llvm::StringRef text,
                         std::vector<std::pair<std::string, std::string>> &defines) {
  while (text.consume_front("// -D ")) {
    auto [line, rest] = text.split('\n');
    size_t eq = line.find('=');
    if (eq != llvm::StringRef::npos && eq != 0 && !line.contains('\0'))
      defines.emplace_back(line.take_front(eq).str(), line.drop_front(eq + 1).str());
    text = rest;
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  tlc::FrontendOptions options;
  parseDefines(text, options.defines);

  // A fresh context per input: nothing carries over from one input to the next, and the
  // uniqued attributes and locations of earlier inputs do not pile up.
  mlir::DialectRegistry registry;
  tlc::registerFrontendDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // Keep "see current operation" notes on verifier errors: they tell verifier errors apart.
  context.printOpOnDiagnostic(true);
  context.printStackTraceOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  // A copy, so that ASan sees reads past the end of the input (the copy is NUL-terminated,
  // as every buffer the driver reads).
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, kBufferName),
                               llvm::SMLoc());

  unsigned errors = 0;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
      return mlir::success();
    ++errors;
    // Errors about the command line (the `// -D` lines stand for it, e.g. a -D naming no
    // parameter) are located at the command line, as tlc prints them (`tlc: error: ...`).
    auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation());
    bool commandLine = diag.getLocation() == tlc::getCommandLineLoc(&context);
    if (!commandLine &&
        (!loc || loc.getFilename() != kBufferName || loc.getLine() == 0 || loc.getColumn() == 0))
      fail("an error is not located in the input", describe(diag));
    for (mlir::Diagnostic &note : diag.getNotes())
      if (llvm::StringRef(note.str()).starts_with("see current operation"))
        fail("the frontend generated IR that does not verify", describe(diag));
    return mlir::success(); // swallowed
  });

  mlir::OwningOpRef<mlir::ModuleOp> module = tlc::importTileFile(sourceMgr, &context, options);
  if (!module) {
    if (errors == 0)
      fail("import failed without an error", "");
    return 0;
  }
  if (errors != 0)
    fail("import succeeded but reported an error", "");
  if (mlir::failed(mlir::verify(*module)))
    fail("the imported module does not verify", "");
  // Print it too: the custom printers of the tile dialect are part of `tlc --emit=tile`.
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  return 0;
}
