//===- PtxEmitter.h - gpu.module to LLVM IR and PTX -----------------------===//
#ifndef TLC_TARGET_CUDA_PTXEMITTER_H
#define TLC_TARGET_CUDA_PTXEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <string>

namespace tlc::cuda {

/// The PTX ISA version tlc writes (`.version 8.6`): accepted by ptxas 12.6 through 13.0.
inline constexpr unsigned kPtxMajor = 8, kPtxMinor = 6;

/// Translates the (single) gpu.module of a lowered module to LLVM IR for `arch`, links the
/// libdevice functions it calls (`__nv_*`, from `libdevicePath`; empty when no toolkit was found)
/// and optimizes it at O3. Errors are emitted as diagnostics on the module.
mlir::FailureOr<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp lowered, llvm::LLVMContext &llvmContext, llvm::StringRef arch,
                  llvm::StringRef libdevicePath);

/// Compiles optimized LLVM IR to PTX text with the NVPTX target.
mlir::FailureOr<std::string> emitPtx(llvm::Module &module, llvm::StringRef arch,
                                     mlir::Location loc);

} // namespace tlc::cuda

#endif // TLC_TARGET_CUDA_PTXEMITTER_H
