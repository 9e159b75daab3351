//===- Driver.h - tlc's compile entry point -------------------------------===//
#ifndef TLC_DRIVER_DRIVER_H
#define TLC_DRIVER_DRIVER_H

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace tlc {

/// The stage after which `tlc` stops and what it writes.
enum class EmitKind { Tile, MLIR, LLVM, PTX, Cubin, Fatbin };

/// Everything the command line says about one compile.
struct CompileOptions {
  std::string inputPath;
  /// Text stages: the output file (empty or "-": standard output). Binary stages: the path
  /// prefix of the outputs, less a trailing .fatbin, .h, .cpp, .json or .cubin (empty: the
  /// input's stem in the current directory; "-" is an error).
  std::string outputPath;
  /// Target architectures, e.g. {"sm_90a"}; empty means sm_90a.
  std::vector<std::string> archs;
  std::vector<std::pair<std::string, std::string>> defines;
  EmitKind emit = EmitKind::Fatbin;
  /// `--cuda-path`, and the value of $CUDA_PATH read by the tool.
  std::string cudaPath, cudaPathEnv;
  /// `--ptxas-timeout`: seconds one ptxas run may take before it is killed; 0: no limit.
  unsigned ptxasTimeout = 300;
  /// Parse and check only.
  bool checkOnly = false;
  /// Remark, for each kernel with gemms and each architecture, which strategy it takes (or, for
  /// the generic one, the first op that keeps it off the tensor cores, and why).
  bool explain = false;
  /// Check `expected-error` annotations instead of printing diagnostics.
  bool verifyDiagnostics = false;
  /// `--codegen=reference`: every tile op takes its generic lowering (no tensor cores, no
  /// pipelining): the oracle the differential tests compare the normal code generation with.
  /// Same entries, ABI and launchers as the normal build.
  bool referenceCodegen = false;
  /// sm_90a's cp.async main-loop rings feed wgmma (PipelineOptions::cpAsyncWgmma); false with
  /// `--codegen=mma-sync` (they take mma.sync, as before wgmma served them).
  bool cpAsyncWgmma = true;
  /// Those rings get a producer warpgroup (PipelineOptions::producerLoads); false with
  /// `--codegen=cp-async-wgmma` (every thread copies, as before the producer).
  bool producerLoads = true;
  /// Pipelined GEMM loops take main-loop rings (PipelineOptions::mainLoops); false with
  /// `--codegen=register`.
  bool mainLoops = true;
  /// The lowering merges identical blocks as upstream's convert-gpu-to-nvvm does
  /// (PipelineOptions::mergeBlocks); true with `--codegen=merged-blocks`.
  bool mergeBlocks = false;
  /// Accumulator copies to tensors stage their rows through shared memory
  /// (PipelineOptions::stageStores); false with `--codegen=direct-stores`.
  bool stageStores = true;
  /// Staged rows of sm_90a's `__tma` entries go out as TMA bulk stores where the launch can encode
  /// the tensor's store map (PipelineOptions::tmaStores); true with `--codegen=tma-stores`.
  bool tmaStores = false;
  /// `--ptx-only`: no ptxas; the fatbin carries PTX alone, which the driver compiles when it
  /// loads it (the toolkit is still used for libdevice when found).
  bool ptxOnly = false;
  /// `-j`: threads the compile uses (architectures concurrently, kernels inside MLIR's passes);
  /// 0: one per core. Outputs are the same for every value.
  unsigned jobs = 0;
  /// `--time-passes`: print each stage's time (frontend, MLIR passes, LLVM, PTX, ptxas per
  /// architecture; outputs) to the error stream.
  bool timePasses = false;
  /// `--verify-each`: verify the IR after every MLIR pass (by default once after each pass
  /// manager's last pass: the verifier after every pass was 5 % of gemm.tile's CPU time).
  bool verifyEach = false;
  /// sm_90a TMA rings that can share loads run their blocks in pairs of 2-block clusters
  /// (PipelineOptions::clusterPairs; `--cluster-pairs`).
  bool clusterPairs = false;
  /// Every configuration of a kernel with a `__tma` entry gets its own plain entry on sm_90a
  /// (`--every-plain-entry`); by default the last configuration without `when` or `on` serves
  /// the launches of all of them that TMA cannot (docs/abi.md).
  bool everyPlainEntry = false;
  /// sm_90a register rings whose copies TMA can issue get a producer warpgroup
  /// (PipelineOptions::ringProducers); false with `--codegen=cp-async-register-rings`.
  bool ringProducers = true;
  /// Their consumers overlap the ring's last gemm with the next iteration
  /// (PipelineOptions::ringOverlap); true with `--codegen=overlap-register-rings`.
  bool ringOverlap = false;
  /// Their consumer warpgroups take turns issuing the ring's gemms
  /// (PipelineOptions::ringPingPong); true with `--codegen=ping-pong-register-rings`.
  bool ringPingPong = false;
  /// Treat `// -----` as separating independent inputs.
  bool splitInputFile = false;
  /// `--namespace`: the C++ namespace of the generated launchers, e.g. "myapp::ops"; empty means
  /// tlc::<output file stem>.
  std::string launcherNamespace;
};

/// Runs one compile. Diagnostics go to `errs` with file:line:col and a caret. Outputs are
/// written only when every stage succeeded, as a set: each to a temporary file, all renamed
/// into place once all are written; destinations must be regular files or not exist.
/// Returns the process exit status: 0 on success, 1 on any error.
int compile(const CompileOptions &options, llvm::raw_ostream &errs);

/// `tlc info <file>`: lists the entries of a fatbin or the kernels of a manifest.
int printInfo(const std::string &path, llvm::raw_ostream &out, llvm::raw_ostream &errs);

/// The version of tlc, e.g. "0.1.0".
const char *getVersion();

} // namespace tlc

#endif // TLC_DRIVER_DRIVER_H
