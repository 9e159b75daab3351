//===- PtxEmitter.cpp - gpu.module to LLVM IR and PTX ---------------------===//
#include "tlc/Target/CUDA/PtxEmitter.h"
#include "tlc/Dialect/Tile/IR/TileAttrs.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <mutex>

using namespace mlir;

static constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

unsigned tlc::cuda::ptxVersionFor(llvm::StringRef arch) {
  // One table of architecture facts: the tile dialect's target.
  return tile::TargetAttr::getPtxVersion(arch);
}

static std::unique_ptr<llvm::TargetMachine> createTargetMachine(llvm::StringRef arch,
                                                                std::string &error) {
  // Architectures compile on several threads (tlc -j); the target registers once.
  static std::once_flag registered;
  std::call_once(registered, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  llvm::Triple triple(kTriple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string features = "+ptx" + std::to_string(tlc::cuda::ptxVersionFor(arch));
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(triple, arch, features, options, std::nullopt, std::nullopt,
                                  llvm::CodeGenOptLevel::Aggressive));
}

/// Links the libdevice functions `module` calls; only those are kept, internalized.
static LogicalResult linkLibdevice(llvm::Module &module, llvm::StringRef path, Location loc) {
  bool needed = llvm::any_of(module.functions(), [](llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_");
  });
  if (!needed)
    return success();
  if (path.empty())
    return emitError(loc) << "the kernel calls CUDA math functions from libdevice, and no CUDA "
                             "toolkit was found to provide them; give --cuda-path",
           failure();
  // The file is read once per process; each module materializes only the functions it links
  // (a lazy module: kernels compiled apart each link their few functions, not all of libdevice).
  static std::mutex mutex;
  static llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> files;
  llvm::MemoryBufferRef bitcode;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<llvm::MemoryBuffer> &file = files[path];
    if (!file) {
      auto buffer = llvm::MemoryBuffer::getFile(path);
      if (!buffer)
        return emitError(loc) << "cannot read libdevice '" << path
                              << "': " << buffer.getError().message(),
               failure();
      file = std::move(*buffer);
    }
    bitcode = file->getMemBufferRef();
  }
  auto library = llvm::getLazyBitcodeModule(bitcode, module.getContext());
  if (!library)
    return emitError(loc) << "cannot parse libdevice '" << path
                          << "': " << llvm::toString(library.takeError()),
           failure();
  (*library)->setTargetTriple(module.getTargetTriple());
  (*library)->setDataLayout(module.getDataLayout());
  bool failed = llvm::Linker::linkModules(
      module, std::move(*library), llvm::Linker::Flags::LinkOnlyNeeded,
      [](llvm::Module &m, const llvm::StringSet<> &linked) {
        llvm::internalizeModule(m, [&linked](const llvm::GlobalValue &gv) {
          return !gv.hasName() || !linked.count(gv.getName());
        });
      });
  if (failed)
    return emitError(loc) << "cannot link libdevice '" << path << "'", failure();
  return success();
}

bool tlc::cuda::callsLibdevice(ModuleOp lowered) {
  for (auto gpuModule : lowered.getOps<gpu::GPUModuleOp>())
    for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>())
      if (func.isExternal() && func.getSymName().starts_with("__nv_"))
        return true;
  return false;
}

bool tlc::cuda::isKnownArch(llvm::StringRef arch) {
  if (!arch.starts_with("sm_"))
    return false;
  std::string error;
  auto tm = createTargetMachine("sm_80", error);
  if (!tm)
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      tm->getTarget().createMCSubtargetInfo(tm->getTargetTriple(), "sm_80", ""));
  return info && info->isCPUStringValid(arch);
}

FailureOr<std::unique_ptr<llvm::Module>>
tlc::cuda::translateToLLVMIR(ModuleOp lowered, llvm::LLVMContext &llvmContext, llvm::StringRef arch,
                             llvm::StringRef libdevicePath) {
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
    return gpuModule.emitError("cannot create the NVPTX target for '") << arch << "': " << error,
           failure();
  module->setTargetTriple(llvm::Triple(kTriple));
  module->setDataLayout(tm->createDataLayout());
  // libdevice branches on __nvvm_reflect("__CUDA_FTZ"): keep denormals (IEEE behaviour).
  module->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  if (failed(linkLibdevice(*module, libdevicePath, gpuModule.getLoc())))
    return failure();

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

SmallVector<OwningOpRef<ModuleOp>> tlc::cuda::splitKernels(ModuleOp lowered, unsigned maxParts) {
  auto gpuModules = lowered.getOps<gpu::GPUModuleOp>();
  if (gpuModules.empty() || maxParts < 2)
    return {};
  gpu::GPUModuleOp gpuModule = *gpuModules.begin();
  SmallVector<LLVM::LLVMFuncOp> definitions;
  SmallVector<int64_t> weights;
  for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
    if (func.isExternal())
      continue;
    if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      return {};
    definitions.push_back(func);
    int64_t ops = 0;
    func.walk([&](Operation *) { ++ops; });
    weights.push_back(ops);
  }
  if (definitions.size() < 2)
    return {};
  // Consecutive kernels, in groups of about equal size (operations), at most maxParts of them.
  int64_t total = 0;
  for (int64_t weight : weights)
    total += weight;
  unsigned groups = std::min<unsigned>(maxParts, definitions.size());
  SmallVector<SmallVector<LLVM::LLVMFuncOp>> partKernels(1);
  int64_t done = 0;
  for (auto [func, weight] : llvm::zip(definitions, weights)) {
    // A new group once this one holds its share of the operations seen so far.
    if (!partKernels.back().empty() && partKernels.size() < groups &&
        done >= static_cast<int64_t>(partKernels.size()) * total / groups)
      partKernels.emplace_back();
    partKernels.back().push_back(func);
    done += weight;
  }
  if (partKernels.size() < 2)
    return {};
  SmallVector<OwningOpRef<ModuleOp>> parts;
  for (ArrayRef<LLVM::LLVMFuncOp> kernels : partKernels) {
    OwningOpRef<ModuleOp> part = ModuleOp::create(lowered.getLoc());
    (*part)->setAttrs(lowered->getAttrDictionary());
    OpBuilder b(part->getBodyRegion());
    Operation *partGpu = b.cloneWithoutRegions(*gpuModule.getOperation());
    b.setInsertionPointToStart(&partGpu->getRegion(0).emplaceBlock());
    for (Operation &op : gpuModule.getBody()->getOperations()) {
      auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
      if (!func || func.isExternal() || llvm::is_contained(kernels, func))
        b.clone(op);
    }
    parts.push_back(std::move(part));
  }
  return parts;
}
