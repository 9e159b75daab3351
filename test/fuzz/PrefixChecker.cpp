//===- PrefixChecker.cpp - Every truncation of a kernel fails cleanly -----===//
//
// tlc-check-prefixes FILE...: runs the frontend `tlc --check` runs (tlc::importTileFile) on
// every proper prefix of every FILE, in this one process, and reports each prefix that does
// not fail cleanly. Run by CTest as `truncated-kernels`.
//
// A prefix must be rejected with an error located in it (`<file>:<line>:<col>`), and nothing the
// frontend generates may fail the IR verifier. A prefix that ends after a kernel's closing '}'
// (alone at the start of its line) with only blanks or `//` comments after it is a shorter file
// of whole kernels: it may also be accepted, and then its module must verify. The whole FILE
// must be accepted.
//
// A crash prints the prefix being checked (LLVM's pretty stack trace); a prefix that takes
// longer than --timeout seconds stops the run with its name.
//
//===----------------------------------------------------------------------===//

#include "tlc/Frontend/Frontend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

using llvm::StringRef;

/// What the prefix being checked is, for the crash and timeout messages.
static char currentPrefix[512] = "(none)";

extern "C" void onTimeout(int) {
  const char message[] = "tlc-check-prefixes: FAIL timed out on ";
  (void)!write(2, message, sizeof(message) - 1);
  (void)!write(2, currentPrefix, std::strlen(currentPrefix));
  (void)!write(2, "\n", 1);
  _exit(1);
}

/// Whether `prefix` may be accepted: after the last '}' that starts a line, only blanks and
/// `//` comments.
static bool endsAfterWholeKernel(StringRef prefix) {
  size_t brace = prefix.rfind("\n}");
  if (brace == StringRef::npos)
    return false;
  StringRef rest = prefix.drop_front(brace + 2);
  while (!rest.empty()) {
    if (std::isspace(static_cast<unsigned char>(rest.front()))) {
      rest = rest.drop_front();
    } else if (rest.starts_with("//")) {
      rest = rest.drop_until([](char c) { return c == '\n'; });
    } else {
      return false;
    }
  }
  return true;
}

/// Imports `text` as the file `name`; returns an empty string when the result is what
/// `mustFail` allows, else what is wrong.
static std::string checkPrefix(StringRef name, StringRef text, bool mustFail) {
  mlir::DialectRegistry registry;
  tlc::registerFrontendDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // "see current operation" notes tell verifier errors apart.
  context.printOpOnDiagnostic(true);
  context.printStackTraceOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
  unsigned located = 0;
  std::string problem;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
      return mlir::success();
    std::string message;
    llvm::raw_string_ostream os(message);
    os << diag.getLocation() << ": " << diag.str();
    auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation());
    if (!loc || loc.getFilename() != name || loc.getLine() == 0 || loc.getColumn() == 0) {
      problem = "an error is not located in the input: " + message;
      return mlir::success();
    }
    for (mlir::Diagnostic &note : diag.getNotes())
      if (StringRef(note.str()).starts_with("see current operation"))
        problem = "the frontend generated IR that does not verify: " + message;
    ++located;
    return mlir::success();
  });

  mlir::OwningOpRef<mlir::ModuleOp> module = tlc::importTileFile(sourceMgr, &context, {});
  if (!problem.empty())
    return problem;
  if (!module)
    return located == 0 ? "rejected without an error" : "";
  if (located != 0)
    return "accepted but reported an error";
  if (mlir::failed(mlir::verify(*module)))
    return "accepted, but the module does not verify";
  return mustFail ? "accepted" : "";
}

int main(int argc, char **argv) {
  llvm::sys::PrintStackTraceOnErrorSignal(argv[0]);
  unsigned timeout = 20;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg.consume_front("--timeout=")) {
      if (arg.getAsInteger(10, timeout) || timeout == 0) {
        std::fprintf(stderr, "tlc-check-prefixes: bad --timeout\n");
        return 2;
      }
    } else {
      files.push_back(arg.str());
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: tlc-check-prefixes [--timeout=SECONDS] FILE...\n");
    return 2;
  }
  std::signal(SIGALRM, onTimeout);

  unsigned count = 0, failures = 0;
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer) {
      std::fprintf(stderr, "tlc-check-prefixes: cannot read %s\n", file.c_str());
      return 2;
    }
    StringRef content = (*buffer)->getBuffer();
    for (size_t length = 0; length <= content.size(); ++length) {
      bool whole = length == content.size();
      StringRef prefix = content.take_front(length);
      std::snprintf(currentPrefix, sizeof(currentPrefix), "%s, prefix of %zu bytes", file.c_str(),
                    length);
      llvm::PrettyStackTraceString trace(currentPrefix);
      alarm(timeout);
      std::string problem = checkPrefix(file, prefix, !whole && !endsAfterWholeKernel(prefix));
      alarm(0);
      if (whole && problem.empty())
        continue;
      ++count;
      if (problem.empty())
        continue;
      if (++failures <= 50) {
        llvm::outs() << "FAIL " << (whole ? file + " itself" : std::string(currentPrefix)) << ": "
                     << problem << "\n";
        llvm::outs().flush();
      }
    }
  }
  if (failures != 0) {
    llvm::outs() << failures << " of " << count << " prefixes failed\n";
    return 1;
  }
  llvm::outs() << count << " prefixes of " << files.size()
               << " files: each rejected with a located error (or, past a kernel's closing "
                  "'}', accepted)\n";
  return 0;
}
