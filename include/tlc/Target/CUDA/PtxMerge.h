//===- PtxMerge.h - PTX of kernels compiled apart, as one file -----------===//
#ifndef TLC_TARGET_CUDA_PTXMERGE_H
#define TLC_TARGET_CUDA_PTXMERGE_H

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>

namespace tlc::cuda {

/// The PTX of modules of consecutive kernels (cuda::splitKernels), in module order, as one
/// file: the text NVPTX prints for the unsplit module. The header comes once; every
/// module-scope declaration follows the first entry's `// .globl` line; each entry's labels and
/// local depot are numbered by its place in the module. None (the caller then compiles the
/// module whole) when the headers differ or a part holds anything but `.entry` functions and
/// module-scope variable declarations.
std::optional<std::string> mergePtx(llvm::ArrayRef<std::string> parts);

} // namespace tlc::cuda

#endif // TLC_TARGET_CUDA_PTXMERGE_H
