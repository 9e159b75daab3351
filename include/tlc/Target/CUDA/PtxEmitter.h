//===- PtxEmitter.h - gpu.module to LLVM IR and PTX -----------------------===//
#ifndef TLC_TARGET_CUDA_PTXEMITTER_H
#define TLC_TARGET_CUDA_PTXEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <string>

namespace tlc::cuda {

/// The PTX ISA version tlc writes for `arch`, times ten: 86 (`.version 8.6`, accepted by ptxas
/// 12.6 through 13.0) unless the architecture needs a newer one (sm_101/sm_120: 8.7,
/// sm_103/sm_121: 8.8, sm_110: 9.0).
unsigned ptxVersionFor(llvm::StringRef arch);

/// Translates the (single) gpu.module of a lowered module to LLVM IR for `arch`, links the
/// libdevice functions it calls (`__nv_*`, from `libdevicePath`; empty when no toolkit was found)
/// and optimizes it at O3. Errors are emitted as diagnostics on the module.
mlir::FailureOr<std::unique_ptr<llvm::Module>> translateToLLVMIR(mlir::ModuleOp lowered,
                                                                 llvm::LLVMContext &llvmContext,
                                                                 llvm::StringRef arch,
                                                                 llvm::StringRef libdevicePath);

/// Whether the gpu.module of a lowered module calls CUDA math functions (`__nv_*`, linked from
/// libdevice).
bool callsLibdevice(mlir::ModuleOp lowered);

/// True when `arch` ("sm_90a") is a processor the NVPTX backend knows.
bool isKnownArch(llvm::StringRef arch);

/// Compiles optimized LLVM IR to PTX text with the NVPTX target.
mlir::FailureOr<std::string> emitPtx(llvm::Module &module, llvm::StringRef arch,
                                     mlir::Location loc);

/// The kernels of a lowered module's gpu.module in at most `maxParts` modules (consecutive
/// kernels of about equal size each; every global and declaration of the gpu.module in each),
/// so that they go through LLVM and the NVPTX back end apart and concurrently. Empty when there
/// is nothing to split: fewer than two parts, or a definition that is not a kernel (a call
/// between parts would cross modules).
llvm::SmallVector<mlir::OwningOpRef<mlir::ModuleOp>> splitKernels(mlir::ModuleOp lowered,
                                                                  unsigned maxParts);

} // namespace tlc::cuda

#endif // TLC_TARGET_CUDA_PTXEMITTER_H
