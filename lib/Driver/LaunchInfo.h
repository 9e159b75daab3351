//===- LaunchInfo.h - Host launch descriptions from tile kernels ----------===//
#ifndef TLC_LIB_DRIVER_LAUNCHINFO_H
#define TLC_LIB_DRIVER_LAUNCHINFO_H

#include "tlc/Target/CUDA/LauncherGen.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

namespace tlc {

/// Describes every `tile.kernel` of `module` for the launcher generator: parameters, size
/// symbols, threads, and the grid as C++ expressions over sizes and scalar parameters (from the
/// kernel's `grid` region). Emits a located error for a grid the host cannot compute.
mlir::FailureOr<std::vector<cuda::KernelLaunchInfo>> extractLaunchInfo(mlir::ModuleOp module);

/// The name of a scalar or element type in the language's spelling ("f32", "int", "bool").
std::string dtypeName(mlir::Type type);

/// Compile-time values as "BM = 128, CAUSAL = false, T = bf16" (in the dictionary's order).
std::string constantsText(mlir::DictionaryAttr constants);

} // namespace tlc

#endif // TLC_LIB_DRIVER_LAUNCHINFO_H
