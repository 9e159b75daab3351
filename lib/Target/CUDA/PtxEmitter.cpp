//===- PtxEmitter.cpp - gpu.module to LLVM IR and PTX ---------------------===//
#include "tlc/Target/CUDA/PtxEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

static constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

static std::unique_ptr<llvm::TargetMachine> createTargetMachine(llvm::StringRef arch,
                                                                std::string &error) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  llvm::Triple triple(kTriple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string features = "+ptx" + std::to_string(tlc::cuda::kPtxMajor * 10 + tlc::cuda::kPtxMinor);
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, arch, features, options, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
}

FailureOr<std::unique_ptr<llvm::Module>>
tlc::cuda::translateToLLVMIR(ModuleOp lowered, llvm::LLVMContext &llvmContext,
                             llvm::StringRef arch) {
  auto gpuModules = lowered.getOps<gpu::GPUModuleOp>();
  if (gpuModules.empty())
    return lowered.emitError("no gpu.module to translate: the file has no kernels"), failure();
  gpu::GPUModuleOp gpuModule = *gpuModules.begin();
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(gpuModule, llvmContext, gpuModule.getName());
  if (!module)
    return gpuModule.emitError("translation to LLVM IR failed"), failure();

  std::string error;
  auto tm = createTargetMachine(arch, error);
  if (!tm)
    return gpuModule.emitError("cannot create the NVPTX target for '")
               << arch << "': " << error,
           failure();
  module->setTargetTriple(llvm::Triple(kTriple));
  module->setDataLayout(tm->createDataLayout());

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(*module, mam);
  return module;
}

FailureOr<std::string> tlc::cuda::emitPtx(llvm::Module &module, llvm::StringRef arch,
                                          Location loc) {
  std::string error;
  auto tm = createTargetMachine(arch, error);
  if (!tm)
    return emitError(loc) << "cannot create the NVPTX target for '" << arch << "': " << error,
           failure();
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return emitError(loc) << "the NVPTX target cannot emit PTX", failure();
  pm.run(module);
  return std::string(buffer.str());
}
