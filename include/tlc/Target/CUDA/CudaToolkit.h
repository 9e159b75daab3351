//===- CudaToolkit.h - Finding the CUDA toolkit, running ptxas --*- C++ -*-===//
//
// Finds a CUDA toolkit (explicit path, $CUDA_PATH, /usr/local/cuda, ptxas on
// PATH), reports its version and assembles PTX into cubins with ptxas,
// parsing the resource usage that `ptxas -v` prints for each function.
//
//===----------------------------------------------------------------------===//

#ifndef TLC_TARGET_CUDA_CUDATOOLKIT_H
#define TLC_TARGET_CUDA_CUDATOOLKIT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tlc::cuda {

/// Resource usage of one function, as reported by `ptxas -v`.
struct PtxasKernelInfo {
  std::string name;
  /// True for kernels (`Compiling entry function`), false for device
  /// functions that only have a `Function properties` block.
  bool isEntry = false;
  unsigned registers = 0;
  unsigned barriers = 0;
  uint64_t stackFrameBytes = 0;
  uint64_t spillStoreBytes = 0;
  uint64_t spillLoadBytes = 0;
  /// Static shared memory (`N bytes smem`).
  uint64_t sharedBytes = 0;
  /// Sum of the `N bytes cmem[K]` banks on the function's line; ptxas 13 only
  /// prints these for some targets, so 0 may mean "not reported".
  uint64_t constantBytes = 0;
};

/// The outcome of one ptxas run.
struct PtxasResult {
  /// The cubin (ELF) bytes.
  std::string cubin;
  /// Everything ptxas printed (stdout and stderr, interleaved).
  std::string log;
  /// One record per function, in the order ptxas first mentions them.
  std::vector<PtxasKernelInfo> kernels;
};

/// Parses the per-function lines of `ptxas -v` output. Lines it does not
/// recognize are ignored.
std::vector<PtxasKernelInfo> parsePtxasLog(llvm::StringRef log);

/// One error ptxas reported, placed in the PTX it compiled.
struct PtxasError {
  /// The entry the error is in: the one whose body holds `ptxLine`, or the one
  /// the message names (`Entry function '<name>' ...`); empty when neither.
  std::string entry;
  /// The PTX line (1-based) the error names, 0 when none.
  unsigned ptxLine = 0;
  /// That line's text, trimmed.
  std::string ptxText;
  /// What ptxas said, after "error :" / "fatal :".
  std::string message;
};

/// The errors in a failed ptxas run's output \p log ("ptxas <file>, line <n>;
/// error : <what>" and "ptxas error : Entry function '<name>' uses too much
/// ..."), placed in \p ptx, the text ptxas compiled. Other lines are ignored.
std::vector<PtxasError> parsePtxasErrors(llvm::StringRef log, llvm::StringRef ptx);

/// A CUDA toolkit installation that has a usable ptxas.
class CudaToolkit {
public:
  /// Locates a toolkit. Tries, in order: \p explicitPath (a `--cuda-path`
  /// value; when non-empty it must be valid, there is no fallback),
  /// \p cudaPathEnv (the value of $CUDA_PATH, empty when unset),
  /// /usr/local/cuda, and the directory above the `bin/` holding a `ptxas`
  /// found on PATH. A root is valid when <root>/bin/ptxas is executable. The
  /// error names every place searched.
  static llvm::Expected<CudaToolkit> find(llvm::StringRef explicitPath,
                                          llvm::StringRef cudaPathEnv);

  /// The toolkit root, e.g. /usr/local/cuda.
  llvm::StringRef root() const { return rootPath; }
  /// The ptxas executable, <root>/bin/ptxas.
  llvm::StringRef ptxasPath() const { return ptxas; }

  /// The release reported by `ptxas --version`, e.g. "13.0".
  /// A ptxas still running after \p timeoutSeconds (0: no limit) is killed and reported.
  llvm::Expected<std::string> version(unsigned timeoutSeconds = 0) const;

  /// The ptxas arguments that compile one input's functions on all cores:
  /// `-split-compile 0` from ptxas 13 (the same code as a serial run; the cubin
  /// records the flag, not the core count), none for older or unknown releases.
  std::vector<std::string> parallelArgs(unsigned timeoutSeconds = 0) const;

  /// Assembles \p ptx for \p arch (e.g. "sm_90a") with
  /// `ptxas -arch=<arch> -O3 -v <extraArgs...> <in> -o <out>`, using temporary
  /// files that are removed afterwards (also on a fatal signal). A ptxas still
  /// running after \p timeoutSeconds (0: no limit) is killed and reported. On
  /// failure the error carries ptxas's own diagnostics.
  llvm::Expected<PtxasResult> assemble(llvm::StringRef ptx, llvm::StringRef arch,
                                       llvm::ArrayRef<std::string> extraArgs = {},
                                       unsigned timeoutSeconds = 0) const;

private:
  CudaToolkit(std::string root, std::string ptxas)
      : rootPath(std::move(root)), ptxas(std::move(ptxas)) {}

  std::string rootPath;
  std::string ptxas;
};

} // namespace tlc::cuda

#endif // TLC_TARGET_CUDA_CUDATOOLKIT_H
