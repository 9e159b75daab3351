//===- CudaToolkit.cpp - Locating the CUDA toolkit and running ptxas ------===//
//
// Tool runs go through llvm::sys::ExecuteAndWait with output redirected to
// temporary files; every temporary file is removed on all paths, a fatal
// signal included (TempFileRemover, RemoveFileOnSignal).
//
//===----------------------------------------------------------------------===//

#include "tlc/Target/CUDA/CudaToolkit.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

namespace tlc::cuda {

//===----------------------------------------------------------------------===//
// ptxas -v parsing
//===----------------------------------------------------------------------===//

/// Returns the record named \p name in \p infos, appending one if needed.
static PtxasKernelInfo &getOrAdd(std::vector<PtxasKernelInfo> &infos, StringRef name) {
  for (PtxasKernelInfo &info : infos)
    if (info.name == name)
      return info;
  infos.emplace_back();
  infos.back().name = name.str();
  return infos.back();
}

/// Parses a leading decimal number off \p text (after whitespace).
static std::optional<uint64_t> consumeNumber(StringRef &text) {
  text = text.ltrim();
  StringRef digits = text.take_while(isDigit);
  uint64_t value = 0;
  if (digits.empty() || digits.getAsInteger(10, value))
    return std::nullopt;
  text = text.drop_front(digits.size()).ltrim();
  return value;
}

/// Applies one comma-separated item of a resource line ("8 bytes stack
/// frame", "Used 24 registers", "352 bytes cmem[0]", ...) to \p info.
static void applyResourceItem(PtxasKernelInfo &info, StringRef item) {
  item = item.trim();
  if (item.consume_front("Used") || item.consume_front("used")) {
    std::optional<uint64_t> n = consumeNumber(item);
    if (!n)
      return;
    if (item.starts_with("register"))
      info.registers = unsigned(*n);
    else if (item.starts_with("barrier"))
      info.barriers = unsigned(*n);
    return;
  }
  std::optional<uint64_t> n = consumeNumber(item);
  if (!n || !item.consume_front("bytes"))
    return;
  item = item.trim();
  if (item == "stack frame")
    info.stackFrameBytes = *n;
  else if (item == "spill stores")
    info.spillStoreBytes = *n;
  else if (item == "spill loads")
    info.spillLoadBytes = *n;
  else if (item == "smem")
    info.sharedBytes = *n;
  else if (item.starts_with("cmem["))
    info.constantBytes += *n;
}

std::vector<PtxasKernelInfo> parsePtxasLog(StringRef log) {
  std::vector<PtxasKernelInfo> infos;
  std::optional<size_t> current;
  SmallVector<StringRef, 8> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    // The message after "ptxas info    :", or the whole (indented) line.
    StringRef message = line;
    if (line.starts_with("ptxas")) {
      size_t colon = line.find(':');
      if (colon == StringRef::npos)
        continue;
      message = line.drop_front(colon + 1).trim();
    }

    StringRef rest = message;
    bool entry = rest.consume_front("Compiling entry function '");
    if (entry || rest.consume_front("Compiling function '")) {
      StringRef name = rest.take_until([](char c) { return c == '\''; });
      PtxasKernelInfo &info = getOrAdd(infos, name);
      info.isEntry |= entry;
      current = &info - infos.data();
      continue;
    }
    rest = message;
    if (rest.consume_front("Function properties for ")) {
      PtxasKernelInfo &info = getOrAdd(infos, rest.trim());
      current = &info - infos.data();
      continue;
    }
    if (!current)
      continue;
    bool frameLine = message.contains("bytes stack frame");
    bool usedLine = message.starts_with("Used ") && message.contains("registers");
    if (!frameLine && !usedLine)
      continue;
    SmallVector<StringRef, 8> items;
    message.split(items, ',');
    for (StringRef item : items)
      applyResourceItem(infos[*current], item);
  }
  return infos;
}

//===----------------------------------------------------------------------===//
// Running tools
//===----------------------------------------------------------------------===//

namespace {
/// The exit code and combined output of one tool run.
struct ToolRun {
  int exitCode = 0;
  std::string output;
  /// Set when the tool ran past its time limit and was killed.
  bool timedOut = false;
};
} // namespace

/// Creates an empty temporary file named after \p suffix; \p path receives
/// its name. A fatal signal removes it (see TempFileRemover).
static Error makeTempFile(StringRef suffix, SmallVectorImpl<char> &path) {
  if (std::error_code ec = sys::fs::createTemporaryFile("tlc-ptxas", suffix, path))
    return createStringError(ec, "cannot create a temporary .%s file: %s", suffix.str().c_str(),
                             ec.message().c_str());
  sys::RemoveFileOnSignal(StringRef(path.data(), path.size()));
  return Error::success();
}

namespace {
/// Removes a file made by makeTempFile when it goes out of scope.
class TempFileRemover {
public:
  explicit TempFileRemover(StringRef path) : path(path.str()) {}
  ~TempFileRemover() {
    sys::fs::remove(path);
    sys::DontRemoveFileOnSignal(path);
  }

private:
  std::string path;
};
} // namespace

/// Runs \p program with \p args (args[0] is the program name), stdin from
/// /dev/null and stdout+stderr captured; kills it after \p timeoutSeconds
/// (0: no limit). Fails only when it cannot be run.
static Expected<ToolRun> runTool(StringRef program, ArrayRef<std::string> args,
                                 unsigned timeoutSeconds = 0) {
  SmallString<128> logPath;
  if (Error err = makeTempFile("log", logPath))
    return err;
  TempFileRemover removeLog(logPath);

  SmallVector<StringRef, 16> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {StringRef(), StringRef(logPath), StringRef(logPath)};
  std::string errMsg;
  bool execFailed = false;
  int rc = sys::ExecuteAndWait(program, argRefs, /*Env=*/std::nullopt, redirects, timeoutSeconds,
                               /*MemoryLimit=*/0, &errMsg, &execFailed);
  if (execFailed)
    return createStringError("cannot execute '%s': %s", program.str().c_str(), errMsg.c_str());

  ToolRun run;
  run.exitCode = rc;
  // ExecuteAndWait returns -2 when it killed the child at the time limit.
  run.timedOut = timeoutSeconds != 0 && rc == -2;
  if (auto buffer = MemoryBuffer::getFile(logPath, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false))
    run.output = (*buffer)->getBuffer().str();
  if (rc < 0 && !errMsg.empty())
    run.output += (run.output.empty() ? "" : "\n") + errMsg;
  return run;
}

//===----------------------------------------------------------------------===//
// CudaToolkit
//===----------------------------------------------------------------------===//

/// <root>/bin/ptxas when it is an executable file.
static std::optional<std::string> ptxasUnder(StringRef root) {
  if (root.empty())
    return std::nullopt;
  SmallString<256> path(root);
  sys::path::append(path, "bin", "ptxas");
  if (!sys::fs::is_regular_file(path) || !sys::fs::can_execute(path))
    return std::nullopt;
  return std::string(path);
}

Expected<CudaToolkit> CudaToolkit::find(StringRef explicitPath, StringRef cudaPathEnv) {
  if (!explicitPath.empty()) {
    if (std::optional<std::string> ptxas = ptxasUnder(explicitPath))
      return CudaToolkit(explicitPath.str(), std::move(*ptxas));
    return createStringError("no CUDA toolkit at --cuda-path '%s': '%s/bin/ptxas' is not an "
                             "executable file; pass the toolkit root, e.g. "
                             "--cuda-path=/usr/local/cuda",
                             explicitPath.str().c_str(), explicitPath.str().c_str());
  }

  std::string searched;
  raw_string_ostream os(searched);
  if (!cudaPathEnv.empty()) {
    if (std::optional<std::string> ptxas = ptxasUnder(cudaPathEnv))
      return CudaToolkit(cudaPathEnv.str(), std::move(*ptxas));
    os << "$CUDA_PATH ('" << cudaPathEnv << "'), ";
  } else {
    os << "$CUDA_PATH (unset), ";
  }

  StringRef defaultRoot = "/usr/local/cuda";
  if (std::optional<std::string> ptxas = ptxasUnder(defaultRoot))
    return CudaToolkit(defaultRoot.str(), std::move(*ptxas));
  os << defaultRoot << ", ";

  if (ErrorOr<std::string> onPath = sys::findProgramByName("ptxas")) {
    StringRef root = sys::path::parent_path(sys::path::parent_path(*onPath));
    if (std::optional<std::string> ptxas = ptxasUnder(root))
      return CudaToolkit(root.str(), std::move(*ptxas));
    os << "ptxas on PATH ('" << *onPath << "' is not in <root>/bin)";
  } else {
    os << "ptxas on PATH (not found)";
  }
  return createStringError("cannot find a CUDA toolkit with ptxas; searched "
                           "%s. Install the CUDA toolkit or pass "
                           "--cuda-path=<toolkit root>",
                           searched.c_str());
}

Expected<std::string> CudaToolkit::version(unsigned timeoutSeconds) const {
  Expected<ToolRun> run = runTool(ptxas, {ptxas, "--version"}, timeoutSeconds);
  if (!run)
    return run.takeError();
  if (run->exitCode != 0)
    return createStringError("'%s --version' failed (exit code %d): %s", ptxas.c_str(),
                             run->exitCode, StringRef(run->output).trim().str().c_str());
  // "Cuda compilation tools, release 13.0, V13.0.88"
  StringRef text = run->output;
  size_t pos = text.find("release ");
  if (pos != StringRef::npos) {
    StringRef release = text.drop_front(pos + strlen("release ")).take_while([](char c) {
      return isDigit(c) || c == '.';
    });
    if (!release.empty() && isDigit(release.front()))
      return release.str();
  }
  return createStringError("cannot find the release in the output of '%s "
                           "--version': %s",
                           ptxas.c_str(), text.trim().str().c_str());
}

std::vector<std::string> CudaToolkit::parallelArgs(unsigned timeoutSeconds) const {
  Expected<std::string> release = version(timeoutSeconds);
  if (!release) {
    consumeError(release.takeError());
    return {};
  }
  unsigned major = 0;
  if (StringRef(*release).split('.').first.getAsInteger(10, major) || major < 13)
    return {};
  return {"-split-compile", "0"};
}

/// The entry (`.entry <name>(`) whose body holds line \p line (1-based) of the PTX \p lines.
static StringRef entryAtLine(ArrayRef<StringRef> lines, unsigned line) {
  StringRef entry;
  for (unsigned i = 0; i < lines.size() && i < line; ++i) {
    StringRef text = lines[i].trim();
    size_t at = text.find(".entry ");
    if (at != StringRef::npos)
      entry = text.drop_front(at + strlen(".entry ")).take_until([](char c) {
        return c == '(' || c == ' ';
      });
  }
  return entry;
}

std::vector<PtxasError> parsePtxasErrors(StringRef log, StringRef ptx) {
  SmallVector<StringRef> ptxLines;
  ptx.split(ptxLines, '\n');
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  std::vector<PtxasError> errors;
  for (StringRef line : lines) {
    StringRef rest = line.trim();
    if (!rest.consume_front("ptxas "))
      continue;
    PtxasError error;
    size_t lineAt = rest.find(", line ");
    unsigned ptxLine = 0;
    if (lineAt != StringRef::npos &&
        !rest.drop_front(lineAt + strlen(", line ")).consumeInteger(10, ptxLine) && ptxLine) {
      error.ptxLine = ptxLine;
      error.entry = entryAtLine(ptxLines, ptxLine).str();
      if (ptxLine <= ptxLines.size())
        error.ptxText = ptxLines[ptxLine - 1].trim().str();
      rest = rest.drop_front(rest.find(';') + 1).trim();
    }
    if (!rest.consume_front("error") && !rest.consume_front("fatal"))
      continue;
    rest = rest.ltrim(" :");
    size_t quote = rest.find("Entry function '");
    if (error.entry.empty() && quote != StringRef::npos)
      error.entry = rest.drop_front(quote + strlen("Entry function '"))
                        .take_until([](char c) { return c == '\''; })
                        .str();
    error.message = rest.str();
    errors.push_back(std::move(error));
  }
  return errors;
}

Expected<PtxasResult> CudaToolkit::assemble(StringRef ptx, StringRef arch,
                                            ArrayRef<std::string> extraArgs,
                                            unsigned timeoutSeconds) const {
  if (arch.empty() || !llvm::all_of(arch, [](char c) { return isAlnum(c) || c == '_'; }))
    return createStringError("invalid ptxas architecture '%s' (expected e.g. "
                             "sm_90a)",
                             arch.str().c_str());

  SmallString<128> inPath, outPath;
  if (Error err = makeTempFile("ptx", inPath))
    return err;
  TempFileRemover removeIn(inPath);
  if (Error err = makeTempFile("cubin", outPath))
    return err;
  TempFileRemover removeOut(outPath);

  {
    std::error_code ec;
    raw_fd_ostream os(inPath, ec);
    if (!ec) {
      os << ptx;
      os.close();
      ec = os.error();
    }
    if (ec)
      return createStringError(ec, "cannot write PTX to '%s': %s", inPath.c_str(),
                               ec.message().c_str());
  }

  std::vector<std::string> args = {ptxas, ("-arch=" + arch).str(), "-O3", "-v"};
  args.insert(args.end(), extraArgs.begin(), extraArgs.end());
  args.insert(args.end(), {std::string(inPath), "-o", std::string(outPath)});

  Expected<ToolRun> run = runTool(ptxas, args, timeoutSeconds);
  if (!run)
    return run.takeError();
  StringRef log = run->output;
  if (run->timedOut)
    return createStringError("ptxas did not finish within %u s for %s and was "
                             "killed; raise the limit with --ptxas-timeout "
                             "(0: no limit)",
                             timeoutSeconds, arch.str().c_str());
  if (run->exitCode != 0)
    return createStringError("ptxas failed for %s (exit code %d):\n%s", arch.str().c_str(),
                             run->exitCode, log.rtrim().str().c_str());

  auto cubin = MemoryBuffer::getFile(outPath, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
  if (!cubin)
    return createStringError(cubin.getError(), "cannot read the cubin written by ptxas: %s",
                             cubin.getError().message().c_str());
  if ((*cubin)->getBufferSize() == 0)
    return createStringError("ptxas exited successfully but wrote an empty "
                             "cubin for %s:\n%s",
                             arch.str().c_str(), log.rtrim().str().c_str());

  PtxasResult result;
  result.cubin = (*cubin)->getBuffer().str();
  result.log = log.str();
  result.kernels = parsePtxasLog(log);
  return result;
}

} // namespace tlc::cuda
