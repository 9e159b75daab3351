//===- tlc.cpp - The tlc command line -------------------------------------===//
//
// Parses the command line into a CompileOptions and calls tlc::compile(); `tlc info` prints
// what a fatbin or manifest holds.
//
//===----------------------------------------------------------------------===//

#include "tlc/Driver/Driver.h"

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdlib>

/// Command-line errors read `tlc: error: ...`, like every error without a place in the source.
static std::string failureMessage(const CLI::App *app, const CLI::Error &e) {
  std::string message = e.what();
  if (!message.empty())
    message[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(message[0])));
  return "tlc: error: " + message + "\nrun '" + app->get_name() + " --help' for usage\n";
}

/// Checks a --codegen value: one name or a comma-separated list of them, at most one of the base
/// code generations (the others modify the default or the chosen base), no name twice, and not
/// both direct-stores and tma-stores (TMA stores go out from the staged rows). Returns the
/// error's text, empty when valid.
static std::string checkCodegen(const std::string &value) {
  static const char *const Bases[] = {"reference", "mma-sync", "cp-async-wgmma", "register"};
  static const char *const Modifiers[] = {"merged-blocks",          "cp-async-register-rings",
                                          "overlap-register-rings", "ping-pong-register-rings",
                                          "direct-stores",          "tma-stores"};
  llvm::SmallVector<llvm::StringRef> names;
  llvm::StringRef(value).split(names, ',');
  if (names.size() == 1 && names.front() == "default")
    return "";
  llvm::StringRef base;
  for (auto [i, name] : llvm::enumerate(names)) {
    if (llvm::is_contained(llvm::ArrayRef<llvm::StringRef>(names).take_front(i), name))
      return "'" + name.str() + "' is named twice";
    if (name == "default")
      return "'default' stands alone; a list names only what differs from it";
    if (llvm::is_contained(Bases, name)) {
      if (!base.empty())
        return "'" + base.str() + "' and '" + name.str() +
               "' are two base code generations; choose one";
      base = name;
      continue;
    }
    if (!llvm::is_contained(Modifiers, name)) {
      std::string known = "default";
      for (const char *n : Bases)
        known += std::string(",") + n;
      for (const char *n : Modifiers)
        known += std::string(",") + n;
      return "'" + name.str() + "' is not a code generation (one of {" + known +
             "}, or a comma-separated list)";
    }
  }
  if (llvm::is_contained(names, "direct-stores") && llvm::is_contained(names, "tma-stores"))
    return "'tma-stores' stores the staged rows, which 'direct-stores' turns off; choose one";
  if (base == "reference" && names.size() > 1)
    return "'reference' puts every tile op on its generic lowering; it takes no other code "
           "generation";
  return "";
}

int main(int argc, char **argv) {
  // `tlc info FILE` is a subcommand; everything else compiles.
  if (argc >= 2 && std::string(argv[1]) == "info") {
    CLI::App app{"tlc info: list the entries of a fatbin or the kernels of a manifest", "tlc info"};
    std::string path;
    app.add_option("file", path, "a .fatbin or .json written by tlc")->required();
    app.failure_message(failureMessage);
    try {
      app.parse(argc - 1, argv + 1);
    } catch (const CLI::ParseError &e) {
      return app.exit(e) == 0 ? 0 : 1;
    }
    return tlc::printInfo(path, llvm::outs(), llvm::errs());
  }

  CLI::App app{"tlc: ahead-of-time compiler for GPU tile kernels", "tlc"};
  tlc::CompileOptions options;
  std::vector<std::string> defines;
  std::string emit = "fatbin";
  bool verbose = false;
  app.add_option("input", options.inputPath, "the .tile file to compile")->required();
  app.add_option("-o,--output", options.outputPath,
                 "output path prefix (fatbin, cubin) or file (text stages; '-' for stdout)");
  app.add_option("--arch", options.archs, "target architecture, repeatable (default sm_90a)");
  app.add_option("-D", defines, "override a compile-time parameter: -D NAME=VALUE");
  app.add_option("--emit", emit, "stop after a stage: tile|mlir|llvm|ptx|cubin|fatbin")
      ->check(CLI::IsMember({"tile", "mlir", "llvm", "ptx", "cubin", "fatbin"}));
  app.add_option("--cuda-path", options.cudaPath, "CUDA toolkit root (for ptxas)");
  app.add_option("--ptxas-timeout", options.ptxasTimeout,
                 "seconds one ptxas run may take before it is killed (default 300; 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--namespace", options.launcherNamespace,
                 "C++ namespace of the generated launchers (default tlc::<output file stem>)");
  app.add_option("-j,--jobs", options.jobs,
                 "threads to compile with: architectures concurrently, kernels inside the "
                 "passes and through LLVM (default: one per core; outputs are the same for "
                 "every value)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--cluster-pairs", options.clusterPairs,
               "sm_90a: TMA rings that can share loads run their blocks in pairs of 2-block "
               "clusters (TMA multicast; docs/pipeline.md)");
  app.add_flag("--every-plain-entry", options.everyPlainEntry,
               "sm_90a: every configuration of a kernel with a TMA entry gets its own entry for "
               "tensors TMA cannot read (default: the last configuration without `when` or `on` "
               "serves those launches for all; docs/abi.md)");
  app.add_flag("--time-passes", options.timePasses,
               "print the time of each stage (frontend, passes, LLVM, PTX, ptxas, outputs)");
  app.add_flag("--verify-each", options.verifyEach,
               "verify the IR after every MLIR pass (slower; by default once after the last)");
  app.add_flag("--check", options.checkOnly, "parse and check only; print diagnostics");
  app.add_flag(
      "--explain", options.explain,
      "say which strategy each kernel with gemms takes per --arch, or why not tensor cores");
  std::string codegen = "default";
  app.add_option("--codegen", codegen,
                 "code generation: default; reference (every tile op on its generic lowering; "
                 "the oracle of the differential tests); for comparison, sm_90a's main loops TMA "
                 "cannot feed as before: cp-async-wgmma (the default, but every thread copies "
                 "S - 1 iterations ahead instead of a producer warpgroup), mma-sync (cp.async "
                 "rings feeding mma.sync instead of wgmma) or register (no main-loop rings: "
                 "every kernel on the per-op register strategy, pipelined loops as register "
                 "rings); merged-blocks (the default, but the lowering to NVVM merges every "
                 "identical block, as upstream's convert-gpu-to-nvvm does, also where that puts "
                 "fragments in local memory); cp-async-register-rings (the default, but sm_90a "
                 "register rings such as attention's key loop keep cp.async copies by every "
                 "thread instead of a TMA producer warpgroup); overlap-register-rings (the "
                 "default, but the consumers of such a ring issue its last gemm one iteration "
                 "late, overlapping it with the next one's work); ping-pong-register-rings (the "
                 "default, but the consumer warpgroups of such a ring take turns issuing its "
                 "gemms); direct-stores (the default, but a copy of a tensor-core accumulator to a "
                 "tensor stores each thread's own pairs instead of staging rows through shared "
                 "memory); tma-stores (the default, but sm_90a's staged rows go out as TMA bulk "
                 "stores where the tensor allows, instead of 16-byte vectors). A comma-separated "
                 "list combines at most one of reference, mma-sync, cp-async-wgmma and register "
                 "with any of the others, e.g. overlap-register-rings,direct-stores")
      ->check(CLI::Validator(checkCodegen, "", "codegen"));
  app.add_flag("--ptx-only", options.ptxOnly,
               "no ptxas: the fatbin carries PTX only (the driver compiles it at load time)");
  app.add_flag("--verify-diagnostics", options.verifyDiagnostics,
               "check expected-error annotations in the input");
  app.add_flag("--split-input-file", options.splitInputFile,
               "compile each '// -----' chunk of the input separately");
  app.add_flag("-v,--verbose", verbose, "log the stages");
  app.set_version_flag("--version", std::string("tlc ") + tlc::getVersion());
  app.failure_message(failureMessage);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }

  spdlog::set_level(verbose ? spdlog::level::info : spdlog::level::warn);
  for (const std::string &d : defines) {
    size_t eq = d.find('=');
    if (eq == std::string::npos || eq == 0) {
      llvm::errs() << "tlc: error: '-D " << d << "' must have the form NAME=VALUE\n";
      return 1;
    }
    options.defines.emplace_back(d.substr(0, eq), d.substr(eq + 1));
  }
  llvm::SmallVector<llvm::StringRef> chosen;
  llvm::StringRef(codegen).split(chosen, ',');
  auto has = [&](llvm::StringRef name) { return llvm::is_contained(chosen, name); };
  options.referenceCodegen = has("reference");
  options.cpAsyncWgmma = !has("mma-sync");
  // A loading producer for main loops TMA cannot feed, unless a base code generation replaces
  // the default's main loops.
  options.producerLoads =
      !has("reference") && !has("mma-sync") && !has("cp-async-wgmma") && !has("register");
  options.ringProducers = !has("cp-async-register-rings");
  options.ringOverlap = has("overlap-register-rings");
  options.ringPingPong = has("ping-pong-register-rings");
  options.mainLoops = !has("register");
  options.mergeBlocks = has("merged-blocks");
  options.stageStores = !has("direct-stores");
  options.tmaStores = has("tma-stores");
  options.emit = emit == "tile"    ? tlc::EmitKind::Tile
                 : emit == "mlir"  ? tlc::EmitKind::MLIR
                 : emit == "llvm"  ? tlc::EmitKind::LLVM
                 : emit == "ptx"   ? tlc::EmitKind::PTX
                 : emit == "cubin" ? tlc::EmitKind::Cubin
                                   : tlc::EmitKind::Fatbin;
  if (const char *cudaPath = std::getenv("CUDA_PATH"))
    options.cudaPathEnv = cudaPath;
  spdlog::info("compiling {} (emit {})", options.inputPath, emit);
  int status = tlc::compile(options, llvm::errs());
  spdlog::info("done, status {}", status);
  return status;
}
