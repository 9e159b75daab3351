//===- CudaToolkitTest.cpp - Tests of CUDA toolkit discovery and ptxas ----===//

#include "tlc/Target/CUDA/CudaToolkit.h"
#include "tlc/Target/CUDA/FatbinWriter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <optional>
#include <string>

using namespace tlc::cuda;

/// Fails the test with the error's message unless \p x holds a value.
#define REQUIRE_OK(x)                                                                              \
  do {                                                                                             \
    if (!(x))                                                                                      \
      FAIL(llvm::toString((x).takeError()));                                                       \
  } while (0)

namespace {

template <typename T> std::string errorText(llvm::Expected<T> &value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

bool haveDefaultToolkit() { return llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"); }

/// Points TMPDIR at a fresh directory for the test's duration, so that the
/// test can check that no temporary file is left behind.
struct ScopedTempDir {
  llvm::SmallString<128> path;
  std::optional<std::string> saved;
  ScopedTempDir() {
    REQUIRE(!llvm::sys::fs::createUniqueDirectory("tlc-toolkit-test", path));
    if (const char *old = std::getenv("TMPDIR"))
      saved = old;
    setenv("TMPDIR", path.c_str(), 1);
    // Temporary files now land here, so count() sees any left behind.
    llvm::SmallString<128> probe;
    REQUIRE(!llvm::sys::fs::createTemporaryFile("probe", "tmp", probe));
    CHECK(llvm::StringRef(probe).starts_with(path));
    llvm::sys::fs::remove(probe);
  }
  ~ScopedTempDir() {
    if (saved)
      setenv("TMPDIR", saved->c_str(), 1);
    else
      unsetenv("TMPDIR");
    llvm::sys::fs::remove_directories(path);
  }
  /// Number of entries left in the directory.
  unsigned count() const {
    unsigned n = 0;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
      ++n;
    return n;
  }
};

const char *kTinyPtx = ".version 8.0\n"
                       ".target sm_90a\n"
                       ".address_size 64\n"
                       "\n"
                       ".visible .entry k(.param .u64 p)\n"
                       "{\n"
                       "\t.reg .b64 %rd<3>;\n"
                       "\t.reg .b32 %r<2>;\n"
                       "\tld.param.u64 %rd1, [p];\n"
                       "\tcvta.to.global.u64 %rd2, %rd1;\n"
                       "\tmov.u32 %r1, %tid.x;\n"
                       "\tst.global.u32 [%rd2], %r1;\n"
                       "\tret;\n"
                       "}\n";

} // namespace

TEST_CASE("find with a bogus explicit path names it", "[toolkit]") {
  auto tk = CudaToolkit::find("/nonexistent/tlc-bogus-cuda", "");
  REQUIRE(!tk);
  std::string msg = errorText(tk);
  CHECK_THAT(msg, Catch::Contains("/nonexistent/tlc-bogus-cuda"));
  CHECK_THAT(msg, Catch::Contains("--cuda-path"));
}

TEST_CASE("find searches CUDA_PATH, /usr/local/cuda and PATH", "[toolkit]") {
  if (!haveDefaultToolkit()) {
    // Nothing can be found unless ptxas is on PATH; the message must say
    // where it looked.
    auto tk = CudaToolkit::find("", "/nonexistent/tlc-env-cuda");
    if (!tk) {
      std::string msg = errorText(tk);
      CHECK_THAT(msg, Catch::Contains("/nonexistent/tlc-env-cuda"));
      CHECK_THAT(msg, Catch::Contains("/usr/local/cuda"));
      CHECK_THAT(msg, Catch::Contains("--cuda-path"));
    } else {
      WARN("found a toolkit on PATH at " << tk->root().str());
    }
    return;
  }
  auto explicitTk = CudaToolkit::find("/usr/local/cuda", "/nonexistent");
  REQUIRE_OK(explicitTk);
  CHECK(explicitTk->root() == "/usr/local/cuda");
  CHECK(explicitTk->ptxasPath() == "/usr/local/cuda/bin/ptxas");

  auto envTk = CudaToolkit::find("", "/usr/local/cuda");
  REQUIRE_OK(envTk);
  CHECK(envTk->root() == "/usr/local/cuda");

  // A stale CUDA_PATH falls through to /usr/local/cuda.
  auto fallback = CudaToolkit::find("", "/nonexistent/tlc-env-cuda");
  REQUIRE_OK(fallback);
  CHECK(fallback->root() == "/usr/local/cuda");
}

TEST_CASE("ptxas version", "[toolkit]") {
  if (!haveDefaultToolkit()) {
    WARN("no CUDA toolkit at /usr/local/cuda; skipping");
    SUCCEED();
    return;
  }
  auto tk = CudaToolkit::find("/usr/local/cuda", "");
  REQUIRE_OK(tk);
  auto version = tk->version();
  REQUIRE_OK(version);
  INFO(*version);
  llvm::StringRef v = *version;
  auto [major, minor] = v.split('.');
  unsigned majorNum = 0, minorNum = 0;
  CHECK(!major.getAsInteger(10, majorNum));
  CHECK(!minor.getAsInteger(10, minorNum));
  CHECK(majorNum >= 11);
}

TEST_CASE("assemble a tiny kernel", "[toolkit]") {
  if (!haveDefaultToolkit()) {
    WARN("no CUDA toolkit at /usr/local/cuda; skipping");
    SUCCEED();
    return;
  }
  auto tk = CudaToolkit::find("/usr/local/cuda", "");
  REQUIRE_OK(tk);
  ScopedTempDir tmp;
  auto result = tk->assemble(kTinyPtx, "sm_90a");
  REQUIRE_OK(result);
  CHECK(tmp.count() == 0);
  REQUIRE(result->cubin.size() > 64);
  CHECK(llvm::StringRef(result->cubin)
            .starts_with("\x7f"
                         "ELF"));
  CHECK_THAT(result->log, Catch::Contains("Compiling entry function 'k'"));
  REQUIRE(result->kernels.size() == 1);
  const PtxasKernelInfo &k = result->kernels[0];
  CHECK(k.name == "k");
  CHECK(k.isEntry);
  CHECK(k.registers > 0);
  CHECK(k.registers <= 255);
  CHECK(k.spillStoreBytes == 0);
  CHECK(k.spillLoadBytes == 0);
  CHECK(k.stackFrameBytes == 0);
  CHECK(k.sharedBytes == 0);

  // The cubin is accepted by the fatbin packager.
  auto entry = makeElfEntry(result->cubin, "sm_90a");
  REQUIRE_OK(entry);

  // Extra arguments reach ptxas.
  auto limited = tk->assemble(kTinyPtx, "sm_90a", {"-maxrregcount=24"});
  REQUIRE_OK(limited);
  CHECK(tmp.count() == 0);
}

TEST_CASE("assemble reports ptxas errors", "[toolkit]") {
  if (!haveDefaultToolkit()) {
    WARN("no CUDA toolkit at /usr/local/cuda; skipping");
    SUCCEED();
    return;
  }
  auto tk = CudaToolkit::find("/usr/local/cuda", "");
  REQUIRE_OK(tk);
  ScopedTempDir tmp;
  const char *bad = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                    ".visible .entry bad()\n{\n\tfoo.bar %r1;\n}\n";
  auto result = tk->assemble(bad, "sm_90a");
  REQUIRE(!result);
  std::string msg = errorText(result);
  INFO(msg);
  CHECK_THAT(msg, Catch::Contains("ptxas failed for sm_90a"));
  CHECK_THAT(msg, Catch::Contains("line 6; error"));
  CHECK_THAT(msg, Catch::Contains("foo"));
  CHECK(tmp.count() == 0);

  auto badArch = tk->assemble(kTinyPtx, "-o /etc/passwd");
  REQUIRE(!badArch);
  CHECK_THAT(errorText(badArch), Catch::Contains("invalid ptxas architecture"));

  auto unknownArch = tk->assemble(kTinyPtx, "sm_1");
  REQUIRE(!unknownArch);
  CHECK_THAT(errorText(unknownArch), Catch::Contains("ptxas"));
  CHECK(tmp.count() == 0);
}

TEST_CASE("parse ptxas -v output", "[toolkit]") {
  const char *log = "ptxas info    : 32 bytes gmem, 64 bytes cmem[3], 8 bytes cmem[4]\n"
                    "ptxas info    : Compiling entry function 'k2' for 'sm_80'\n"
                    "ptxas info    : Function properties for k2\n"
                    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                    "ptxas info    : Used 4 registers, used 0 barriers, 352 bytes cmem[0]\n"
                    "ptxas info    : Compile time = 1.273 ms\n"
                    "ptxas info    : Compiling entry function '_Z2k1Pfi' for 'sm_80'\n"
                    "ptxas info    : Function properties for _Z2k1Pfi\n"
                    "    232 bytes stack frame, 164 bytes spill stores, 160 bytes spill "
                    "loads\n"
                    "ptxas info    : Used 24 registers, used 1 barriers, 1024 bytes smem, "
                    "364 bytes cmem[0], 8 bytes cmem[2], 232 bytes cumulative stack size\n"
                    "ptxas info    : Compile time = 1.730 ms\n"
                    "ptxas info    : Function properties for helper\n"
                    "    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
  std::vector<PtxasKernelInfo> infos = parsePtxasLog(log);
  REQUIRE(infos.size() == 3);

  CHECK(infos[0].name == "k2");
  CHECK(infos[0].isEntry);
  CHECK(infos[0].registers == 4);
  CHECK(infos[0].barriers == 0);
  CHECK(infos[0].constantBytes == 352);
  CHECK(infos[0].sharedBytes == 0);

  CHECK(infos[1].name == "_Z2k1Pfi");
  CHECK(infos[1].isEntry);
  CHECK(infos[1].registers == 24);
  CHECK(infos[1].barriers == 1);
  CHECK(infos[1].stackFrameBytes == 232);
  CHECK(infos[1].spillStoreBytes == 164);
  CHECK(infos[1].spillLoadBytes == 160);
  CHECK(infos[1].sharedBytes == 1024);
  CHECK(infos[1].constantBytes == 372);

  CHECK(infos[2].name == "helper");
  CHECK(!infos[2].isEntry);
  CHECK(infos[2].stackFrameBytes == 16);
  CHECK(infos[2].registers == 0);

  CHECK(parsePtxasLog("").empty());
  CHECK(parsePtxasLog("garbage\nptxas info    : Used x registers\n").empty());
}

TEST_CASE("parse ptxas errors and place them in the PTX", "[toolkit]") {
  const char *ptx = ".version 8.0\n"
                    ".target sm_90a\n"
                    ".visible .entry first(\n"
                    "  .param .u64 a)\n"
                    "{\n"
                    "  ret;\n"
                    "}\n"
                    ".visible .entry second__tma(\n"
                    "  .param .u64 a)\n"
                    "{\n"
                    "  bogus.instruction %r1;\n"
                    "}\n";
  const char *log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas /tmp/tlc-1.ptx, line 11; error   : Unknown instruction 'bogus.instruction'\n"
      "ptxas error   : Entry function 'first' uses too much shared data (0x40000 bytes)\n"
      "ptxas /tmp/tlc-1.ptx, line 99; error   : Beyond the end\n"
      "ptxas /tmp/tlc-1.ptx, line 6; warning : Not an error\n"
      "ptxas fatal   : Ptx assembly aborted due to errors\n";
  std::vector<PtxasError> errors = parsePtxasErrors(log, ptx);
  REQUIRE(errors.size() == 4);
  CHECK(errors[0].entry == "second__tma");
  CHECK(errors[0].ptxLine == 11);
  CHECK(errors[0].ptxText == "bogus.instruction %r1;");
  CHECK(errors[0].message == "Unknown instruction 'bogus.instruction'");
  CHECK(errors[1].entry == "first");
  CHECK(errors[1].ptxLine == 0);
  CHECK(errors[1].message == "Entry function 'first' uses too much shared data (0x40000 bytes)");
  // A line past the PTX: the last entry before it, no text.
  CHECK(errors[2].entry == "second__tma");
  CHECK(errors[2].ptxLine == 99);
  CHECK(errors[2].ptxText.empty());
  // Warnings are not errors; a fatal line without an entry is kept without one.
  CHECK(errors[3].entry.empty());
  CHECK(errors[3].message == "Ptx assembly aborted due to errors");
  CHECK(parsePtxasErrors("", ptx).empty());
}
