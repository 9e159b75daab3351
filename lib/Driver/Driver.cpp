//===- Driver.cpp - tlc's compile entry point -----------------------------===//
#include "tlc/Driver/Driver.h"

#include "LaunchInfo.h"
#include "OutputFile.h"
#include "tlc/Conversion/TileToNVVM/TileToNVVM.h"
#include "tlc/Dialect/Tile/IR/TileAttrs.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"
#include "tlc/Frontend/Frontend.h"
#include "tlc/Pipeline/Pipeline.h"
#include "tlc/Target/CUDA/CudaToolkit.h"
#include "tlc/Target/CUDA/FatbinWriter.h"
#include "tlc/Target/CUDA/LauncherGen.h"
#include "tlc/Target/CUDA/PtxEmitter.h"
#include "tlc/Target/CUDA/PtxMerge.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <thread>

using namespace mlir;
using namespace tlc;

const char *tlc::getVersion() { return TLC_VERSION; }

namespace {

/// What one architecture's compile produced.
struct ArchOutput {
  std::string arch;
  std::string mlir, llvmIR, ptx;
  cuda::PtxasResult ptxas;
  bool haveCubin = false;
  /// Dynamic shared memory each kernel needs, from convert-tile-to-nvvm.
  llvm::StringMap<int64_t> sharedBytes;
  /// Kernels this architecture compiled by the sm_90a strategy (entry <name>__tma).
  llvm::StringMap<cuda::TmaEntryInfo> tma;
  /// Kernels whose ring a loading producer warpgroup fills (entry <name>__loads).
  llvm::StringMap<cuda::LoadsEntryInfo> loads;
  /// Configurations left out of this architecture's image: they do not fit its shared memory.
  llvm::StringSet<> omitted;
  /// Configurations with a `__tma` entry but no plain entry in this image: the launches TMA
  /// cannot serve run the configuration named here (plainServers).
  llvm::StringMap<std::string> plainServer;
};

/// One compile of one buffer (a whole file, or one chunk of a split file).
class Compilation {
public:
  Compilation(const CompileOptions &options, MLIRContext &context, llvm::SourceMgr &sourceMgr,
              TimingScope &timing)
      : options(options), context(context), sourceMgr(sourceMgr), timing(timing) {}

  /// Runs every stage the options ask for; collects outputs in `outputs` and text in `text`.
  LogicalResult run(OutputSet &outputs, std::string &text);

private:
  /// Compiles `module` for one architecture; runs concurrently with the other architectures'
  /// compiles (the module is only read), its diagnostics ordered by architecture.
  LogicalResult compileArch(ModuleOp module, StringRef arch, ArchOutput &out);
  /// compileArch's stages after the MLIR pipeline: LLVM IR, PTX, ptxas.
  LogicalResult finishArch(OwningOpRef<ModuleOp> lowered, ModuleOp module, StringRef arch,
                           ArchOutput &out, TimingScope &archTimer);
  /// The PTX of a lowered module (`--emit=llvm`: its LLVM IR in `out`, and an empty string).
  FailureOr<std::string> emitPtx(ModuleOp lowered, StringRef arch, ArchOutput &out,
                                 TimingScope &archTimer);
  /// Runs the passes `build` adds on `module`; timed under `timer`.
  LogicalResult runPasses(ModuleOp module, function_ref<void(OpPassManager &)> build,
                          TimingScope &timer);
  /// Runs tlc's pipeline on a copy of `module` (of its kernels in `only` when given); timed
  /// under `timer`.
  FailureOr<OwningOpRef<ModuleOp>> lowerModule(ModuleOp module, const PipelineOptions &options,
                                               TimingScope &timer,
                                               const llvm::StringSet<> *only = nullptr);
  /// The --arch values (sm_90a when none), each one the NVPTX backend knows.
  FailureOr<std::vector<std::string>> checkArchs();
  /// Names that become C++ identifiers in the launchers (output stem, namespace, kernels,
  /// parameters, sizes), each checked where it is declared; for --emit=fatbin.
  LogicalResult checkLauncherNames(ModuleOp module);
  /// Finds the CUDA toolkit when the stage needs it (ptxas, libdevice), and ptxas's options.
  LogicalResult findToolkit();
  /// The fatbin (one ELF per architecture, then the PTX of each), launchers and manifest.
  LogicalResult package(ModuleOp module, const std::vector<ArchOutput> &results,
                        std::vector<cuda::KernelLaunchInfo> &launchInfo, OutputSet &outputs);
  /// A ptxas failure: each error ptxas gives for a PTX line or an entry is reported at the
  /// kernel it belongs to, with the PTX line; what cannot be placed, as `tlc: error: ...`.
  void reportPtxasFailure(ModuleOp module, StringRef arch, StringRef ptx, StringRef message);
  /// --explain: a remark per kernel entry with the registers and spills ptxas reported.
  void explainRegisters(ModuleOp module, const ArchOutput &out);
  /// Where errors without a place in the source are reported (`tlc: error: ...`): the command
  /// line, the toolkit, packaging.
  Location commandLineLoc() { return getCommandLineLoc(&context); }
  std::string prefix() const;
  std::string manifest(const std::vector<cuda::KernelLaunchInfo> &kernels,
                       const std::vector<ArchOutput> &archs, ModuleOp module) const;

  const CompileOptions &options;
  MLIRContext &context;
  llvm::SourceMgr &sourceMgr;
  /// `--time-passes`: the root of the stages' timers (disabled otherwise).
  TimingScope &timing;
  std::optional<cuda::CudaToolkit> toolkit;
  /// Options every ptxas run gets beyond -arch/-O3.
  std::vector<std::string> ptxasArgs;
  /// The tile dialect of cuda::kRepackEntry, which images with `__tma` entries carry, and the
  /// buffer it was parsed from.
  llvm::SourceMgr repackSourceMgr;
  OwningOpRef<ModuleOp> repackModule;
};

} // namespace

/// The path prefix of the binary outputs: `-o` less one of tlc's own output extensions
/// (`-o k.fatbin` means the prefix k), or the input's stem in the current directory.
std::string Compilation::prefix() const {
  if (options.outputPath.empty())
    return llvm::sys::path::stem(options.inputPath).str();
  StringRef path = options.outputPath;
  StringRef extension = llvm::sys::path::extension(path);
  if (llvm::is_contained({".fatbin", ".h", ".cpp", ".json", ".cubin"}, extension))
    path = path.drop_back(extension.size());
  return path.str();
}

/// Moves the functions and globals of `from`'s gpu.module into `into`'s, except symbols `into`
/// already defines (the same kernel or declaration compiled twice). Each entry carries its
/// `tile.entry` along.
static void mergeGpuModules(ModuleOp into, ModuleOp from) {
  auto target = *into.getOps<gpu::GPUModuleOp>().begin();
  auto source = *from.getOps<gpu::GPUModuleOp>().begin();
  SymbolTable symbols(target);
  for (Operation &op : llvm::make_early_inc_range(source.getBody()->getOperations())) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name || symbols.lookup(name))
      continue;
    op.moveBefore(target.getBody(), target.getBody()->end());
  }
}

/// For each kernel with configurations, the configuration whose plain entry serves the launches
/// of every configuration that TMA cannot (docs/abi.md, "One plain entry per kernel on sm_90a"):
/// the last one without `when` or `on`, which the launcher may take for any sizes on every
/// architecture. Kernels without such a configuration are not in the map.
static llvm::StringMap<std::string> plainServers(ModuleOp module) {
  llvm::StringMap<std::string> servers;
  for (tile::KernelOp kernel : module.getOps<tile::KernelOp>()) {
    StringRef of = tile::getVariantOf(kernel);
    if (!of.empty() && !kernel.getWhenCondition() && !kernel->hasAttr(tile::kArchsAttr))
      servers[of] = kernel.getSymName().str();
  }
  return servers;
}

/// How kernel `kernel` uses its tensor argument `index`: "read", "write", "readwrite" (both, or
/// atomic_add) or "none" (sizes only). The differential tests poison what is only written.
static const char *tensorAccess(tile::KernelOp kernel, unsigned index) {
  bool read = false, written = false;
  for (Operation *user : kernel.getBody().getArgument(index).getUsers()) {
    if (isa<tile::LoadOp>(user)) {
      read = true;
    } else if (isa<tile::StoreOp>(user)) {
      written = true;
    } else if (isa<tile::AtomicAddOp>(user)) {
      read = written = true;
    } else if (auto copy = dyn_cast<tile::CopyOp>(user)) {
      bool source = copy.getSource() == kernel.getBody().getArgument(index);
      read |= source;
      written |= !source;
    }
  }
  return read && written ? "readwrite" : written ? "write" : read ? "read" : "none";
}

/// The entries of a lowered module's gpu.module, each with its `tile.entry`.
static SmallVector<std::pair<StringRef, tile::EntryAttr>> loweredEntries(ModuleOp module) {
  SmallVector<std::pair<StringRef, tile::EntryAttr>> entries;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    for (Operation &op : gpuModule.getBody()->getOperations())
      if (tile::EntryAttr entry = tile::getEntry(&op))
        entries.push_back({cast<SymbolOpInterface>(op).getName(), entry});
  return entries;
}

LogicalResult Compilation::runPasses(ModuleOp module, function_ref<void(OpPassManager &)> build,
                                     TimingScope &timer) {
  PassManager pm(&context);
  build(pm);
  // The verifier after every pass took 5 % of gemm.tile's CPU time: by default the IR is
  // verified once, after the last pass (`--verify-each`: after every pass, as tlc-opt does).
  pm.enableVerifier(options.verifyEach);
  if (options.timePasses)
    pm.enableTiming(timer);
  if (failed(pm.run(module)))
    return failure();
  if (options.verifyEach)
    return success();
  TimingScope verifyTimer = timer.nest("verifier");
  return verify(module);
}

FailureOr<OwningOpRef<ModuleOp>> Compilation::lowerModule(ModuleOp module,
                                                          const PipelineOptions &pipelineOptions,
                                                          TimingScope &timer,
                                                          const llvm::StringSet<> *only) {
  OwningOpRef<ModuleOp> lowered = cast<ModuleOp>(module->clone());
  if (only)
    for (auto kernel : llvm::make_early_inc_range(lowered->getOps<tile::KernelOp>()))
      if (!only->contains(kernel.getSymName()))
        kernel.erase();
  if (failed(runPasses(
          *lowered, [&](OpPassManager &pm) { buildTlcPipeline(pm, pipelineOptions); }, timer)))
    return failure();
  return lowered;
}

LogicalResult Compilation::compileArch(ModuleOp module, StringRef arch, ArchOutput &out) {
  out.arch = arch.str();
  TimingScope archTimer = timing.nest(("compile for " + arch).str());
  PipelineOptions pipelineOptions;
  pipelineOptions.arch = arch.str();
  pipelineOptions.explain = options.explain;
  pipelineOptions.tensorCoreStrategy = !options.referenceCodegen;
  pipelineOptions.cpAsyncWgmma = options.cpAsyncWgmma;
  pipelineOptions.producerLoads = options.producerLoads;
  pipelineOptions.mainLoops = options.mainLoops;
  pipelineOptions.mergeBlocks = options.mergeBlocks;
  pipelineOptions.stageStores = options.stageStores;
  pipelineOptions.tmaStores = options.tmaStores;
  pipelineOptions.clusterPairs = options.clusterPairs;
  pipelineOptions.ringProducers = options.ringProducers;
  pipelineOptions.ringOverlap = options.ringOverlap;
  pipelineOptions.ringPingPong = options.ringPingPong;
  // A configuration that does not fit this architecture's shared memory is left out of its
  // image (a warning); the launcher chooses among those the loaded image has (docs/language.md).
  pipelineOptions.omitUnfitVariants = true;
  PipelineOptions plainOptions = pipelineOptions;
  plainOptions.tma = false;
  // The plain entries are those of kernels the first compile kept: they must fit as well.
  plainOptions.omitUnfitVariants = false;
  // Measured on the H200 (bench/RESULTS.md, 2026-12-03): for 2-D GEMMs whose tensors TMA cannot
  // read, the loading producer is as fast as the cp.async ring at odd K or a misaligned base
  // and up to 2x slower at odd N, so the plain entry keeps the cp.async ring; main loops TMA
  // cannot serve at all (rank-3 tiles) take the producer, 1.2-2x faster there.
  plainOptions.producerLoads = false;

  // Kernels compiled by the sm_90a strategy also get a form without TMA (the cp.async +
  // mma.sync ring, which reads tensors at any alignment), under the plain entry name, for
  // launches whose tensors break TMA's alignment rules (docs/abi.md). Once the tile passes
  // chose TMA copies, that second compile runs beside the rest of the first (`-j`); its
  // diagnostics follow the first compile's, as in a serial run.
  OwningOpRef<ModuleOp> lowered = cast<ModuleOp>(module->clone());
  // Each pass manager gets a timer of its own: pass timers are keyed by the pass's address, and
  // a second pass manager under the same timer can reuse a freed pass's address and its name.
  TimingScope passesTimer = archTimer.nest("MLIR passes");
  TimingScope tileTimer = passesTimer.nest("tile dialect");
  if (failed(runPasses(
          *lowered, [&](OpPassManager &pm) { buildTilePasses(pm, pipelineOptions); }, tileTimer)))
    return failure();
  tileTimer.stop();
  bool choseTma = false, leadingTma = false;
  // The plain compile lowers only the kernels that chose TMA (the others' entries are the first
  // compile's), less those another configuration serves (below).
  llvm::StringSet<> plainKernels;
  lowered->walk([&](tile::TmaLoadOp load) {
    auto kernel = load->getParentOfType<tile::KernelOp>();
    if (kernel->hasAttr(tile::kOmittedAttr))
      return;
    choseTma = true;
    plainKernels.insert(kernel.getSymName());
    leadingTma |= load.getSource().getType().getRank() > 2;
  });
  // Main loops over tiles of rank-3 to rank-5 tensors keep the loading producer in the plain
  // compile (its entry serves the launches TMA cannot read), as before TMA took them.
  if (leadingTma)
    plainOptions.producerLoads = options.producerLoads;
  // One configuration's plain entry serves those of all (unless --every-plain-entry): it is
  // the rare launch's entry (a written tensor TMA cannot read, no memory for the copy, 8-bit
  // tensors TMA cannot read), and one per configuration was most of the image's code.
  if (!options.everyPlainEntry) {
    llvm::StringMap<std::string> servers = plainServers(module);
    auto inImage = [&](StringRef name) {
      auto kernel = lowered->lookupSymbol<tile::KernelOp>(name);
      return kernel && !kernel->hasAttr(tile::kOmittedAttr);
    };
    // In the module's order: --explain's remarks follow the source.
    for (tile::KernelOp kernel : module.getOps<tile::KernelOp>()) {
      StringRef name = kernel.getSymName();
      if (!plainKernels.contains(name))
        continue;
      auto server = servers.find(tile::getVariantOf(kernel));
      if (server == servers.end() || server->second == name || !inImage(server->second))
        continue;
      out.plainServer[name] = server->second;
      if (options.explain)
        kernel.emitRemark()
            << "configuration '" << name << "' on " << arch
            << ": launches its TMA entry cannot serve run '" << server->second
            << "' (its entry for tensors TMA cannot read serves every configuration; "
               "--every-plain-entry gives each its own)";
      plainKernels.erase(name);
    }
  }
  FailureOr<OwningOpRef<ModuleOp>> plain = failure();
  bool plainLaunched = false;
  LogicalResult lowering = success();
  {
    // A thread of its own, not a task of the context's pool: a pool thread waiting for its
    // own tasks runs queued tasks of other groups, and diagnostics are ordered by thread.
    ParallelDiagnosticHandler ordered(&context);
    std::optional<std::thread> plainThread;
    if (choseTma && !plainKernels.empty() && context.isMultithreadingEnabled()) {
      plainThread.emplace([&] {
        ordered.setOrderIDForThread(1);
        TimingScope plainTimer = archTimer.nest("MLIR passes (plain entries)");
        plain = lowerModule(module, plainOptions, plainTimer, &plainKernels);
        ordered.eraseOrderIDForThread();
      });
      plainLaunched = true;
    }
    ordered.setOrderIDForThread(0);
    TimingScope loweringTimer = passesTimer.nest("lowering to NVVM");
    lowering = runPasses(
        *lowered, [&](OpPassManager &pm) { buildLoweringPasses(pm, pipelineOptions); },
        loweringTimer);
    ordered.eraseOrderIDForThread();
    if (plainThread)
      plainThread->join();
  }
  passesTimer.stop();
  if (failed(lowering))
    return failure();
  if (llvm::any_of(loweredEntries(*lowered),
                   [](auto entry) { return entry.second.getKind() == tile::EntryKind::Tma; })) {
    if (!plainKernels.empty()) {
      if (!plainLaunched) {
        TimingScope plainTimer = archTimer.nest("MLIR passes (plain entries)");
        plain = lowerModule(module, plainOptions, plainTimer, &plainKernels);
      }
      if (failed(plain))
        return failure();
      mergeGpuModules(*lowered, **plain);
    }
    // The copy that makes tensors TMA cannot read in place readable (docs/abi.md).
    PipelineOptions repackOptions = pipelineOptions;
    repackOptions.explain = false;
    TimingScope repackTimer = archTimer.nest("MLIR passes (repack entry)");
    FailureOr<OwningOpRef<ModuleOp>> repack =
        lowerModule(*repackModule, repackOptions, repackTimer);
    if (failed(repack))
      return failure();
    mergeGpuModules(*lowered, **repack);
  }
  return finishArch(std::move(lowered), module, arch, out, archTimer);
}

LogicalResult Compilation::finishArch(OwningOpRef<ModuleOp> lowered, ModuleOp module,
                                      StringRef arch, ArchOutput &out, TimingScope &archTimer) {
  auto entries = loweredEntries(*lowered);
  llvm::StringSet<> compiled;
  for (auto [name, entry] : entries) {
    out.sharedBytes[name] = entry.getSharedBytes();
    compiled.insert(entry.getKernel());
  }
  for (tile::KernelOp kernel : module.getOps<tile::KernelOp>())
    if (!compiled.contains(kernel.getSymName()))
      out.omitted.insert(kernel.getSymName());
  for (auto [name, entry] : entries) {
    if (entry.getKind() == tile::EntryKind::Tma) {
      cuda::TmaEntryInfo info;
      info.present = true;
      info.repackSharedBytes = out.sharedBytes.lookup(cuda::kRepackEntry);
      info.threads = entry.getThreads();
      info.sharedBytes = entry.getSharedBytes();
      info.streamKSlotBytes = entry.getStreamK();
      info.cluster = entry.getCluster();
      auto kernel = module.lookupSymbol<tile::KernelOp>(entry.getKernel());
      for (tile::TensorMapAttr map : entry.getTensorMaps()) {
        auto param = static_cast<unsigned>(map.getArg());
        info.maps.push_back({param, map.getBoxRows(), map.getBoxCols(), map.getSwizzle()});
        info.maps.back().store = map.getStore() != 0;
        // Tensors the kernel only reads may be copied for TMA (docs/abi.md).
        info.maps.back().readOnly = kernel && StringRef(tensorAccess(kernel, param)) == "read";
        info.maps.back().mnMajor = kernel && tile::copiedToMnMajorOperand(kernel, param);
      }
      out.tma[entry.getKernel()] = std::move(info);
    } else if (entry.getKind() == tile::EntryKind::Loads) {
      cuda::LoadsEntryInfo info;
      info.present = true;
      info.threads = entry.getThreads();
      info.sharedBytes = entry.getSharedBytes();
      out.loads[entry.getKernel()] = info;
    }
  }
  if (options.emit == EmitKind::MLIR) {
    llvm::raw_string_ostream os(out.mlir);
    lowered->print(os);
    return success();
  }

  FailureOr<std::string> ptx = emitPtx(*lowered, arch, out, archTimer);
  if (failed(ptx))
    return failure();
  if (options.emit == EmitKind::LLVM)
    return success();
  out.ptx = std::move(*ptx);
  if (options.emit == EmitKind::PTX || !toolkit || options.ptxOnly)
    return success();

  TimingScope ptxasTimer = archTimer.nest("ptxas");
  auto result = toolkit->assemble(out.ptx, arch, ptxasArgs, options.ptxasTimeout);
  ptxasTimer.stop();
  if (!result) {
    reportPtxasFailure(module, arch, out.ptx, llvm::toString(result.takeError()));
    return failure();
  }
  out.ptxas = std::move(*result);
  out.haveCubin = true;
  if (options.explain)
    explainRegisters(module, out);
  return success();
}

FailureOr<std::string> Compilation::emitPtx(ModuleOp lowered, StringRef arch, ArchOutput &out,
                                            TimingScope &archTimer) {
  std::string libdevice;
  if (toolkit)
    libdevice = (toolkit->root() + "/nvvm/libdevice/libdevice.10.bc").str();
  // With -j, the kernels go through LLVM and the NVPTX back end in groups, two per thread, on
  // the context's threads; the merged PTX is the text the whole module gives (numbered as in
  // it), so the output does not depend on -j. `--emit=llvm` prints the whole module, and a
  // missing libdevice is reported once, by the whole module's compile.
  SmallVector<OwningOpRef<ModuleOp>> parts;
  if (context.isMultithreadingEnabled() && options.emit != EmitKind::LLVM &&
      (!cuda::callsLibdevice(lowered) || llvm::sys::fs::exists(libdevice)))
    parts = cuda::splitKernels(lowered, 2 * context.getThreadPool().getMaxConcurrency());
  if (!parts.empty()) {
    size_t n = parts.size();
    std::vector<std::unique_ptr<llvm::LLVMContext>> contexts(n);
    std::vector<std::unique_ptr<llvm::Module>> modules(n);
    std::vector<std::string> texts(n);
    std::vector<char> ok(n, false);
    auto forEachPart = [&](function_ref<void(size_t)> fn) {
      llvm::ThreadPoolTaskGroup group(context.getThreadPool());
      for (size_t i = 0; i < n; ++i)
        group.async([&fn, i] { fn(i); });
      group.wait();
    };
    TimingScope llvmTimer = archTimer.nest("LLVM IR and its optimization (O3)");
    forEachPart([&](size_t i) {
      contexts[i] = std::make_unique<llvm::LLVMContext>();
      auto module = cuda::translateToLLVMIR(*parts[i], *contexts[i], arch, libdevice);
      if (succeeded(module)) {
        modules[i] = std::move(*module);
        ok[i] = true;
      }
    });
    llvmTimer.stop();
    if (llvm::is_contained(ok, false))
      return failure();
    TimingScope ptxTimer = archTimer.nest("PTX (NVPTX back end)");
    forEachPart([&](size_t i) {
      auto text = cuda::emitPtx(*modules[i], arch, commandLineLoc());
      ok[i] = succeeded(text);
      if (ok[i])
        texts[i] = std::move(*text);
    });
    ptxTimer.stop();
    if (llvm::is_contained(ok, false))
      return failure();
    if (std::optional<std::string> merged = cuda::mergePtx(texts))
      return std::move(*merged);
  }

  llvm::LLVMContext llvmContext;
  TimingScope llvmTimer = archTimer.nest("LLVM IR and its optimization (O3)");
  auto llvmModule = cuda::translateToLLVMIR(lowered, llvmContext, arch, libdevice);
  llvmTimer.stop();
  if (failed(llvmModule))
    return failure();
  if (options.emit == EmitKind::LLVM) {
    llvm::raw_string_ostream os(out.llvmIR);
    (*llvmModule)->print(os, nullptr);
    return std::string();
  }
  TimingScope ptxTimer = archTimer.nest("PTX (NVPTX back end)");
  return cuda::emitPtx(**llvmModule, arch, commandLineLoc());
}

void Compilation::reportPtxasFailure(ModuleOp module, StringRef arch, StringRef ptx,
                                     StringRef message) {
  // The kernel an entry compiles: `<kernel>`, a configuration `<kernel>__<i>`, either with
  // `__tma` or `__loads` (the sm_90a strategy's entries).
  auto kernelLoc = [&](StringRef entry) -> std::optional<Location> {
    if (!entry.consume_back(kTmaEntrySuffix))
      entry.consume_back(kLoadsEntrySuffix);
    for (tile::KernelOp kernel : module.getOps<tile::KernelOp>())
      if (kernel.getSymName() == entry)
        return kernel.getLoc();
    return std::nullopt;
  };
  bool placed = false;
  for (const cuda::PtxasError &error : cuda::parsePtxasErrors(message, ptx)) {
    std::optional<Location> loc = error.entry.empty() ? std::nullopt : kernelLoc(error.entry);
    if (!loc)
      continue;
    auto diag = emitError(*loc) << "ptxas failed for '" << arch << "' on this kernel (entry '"
                                << error.entry << "'): " << error.message;
    if (error.ptxLine && !error.ptxText.empty())
      diag << llvm::formatv(" (PTX line {0}: '{1}')", error.ptxLine, error.ptxText).str();
    placed = true;
  }
  if (placed)
    return;
  // The toolkit's own message already names ptxas and the architecture.
  StringRef rest = message;
  if (rest.consume_front(("ptxas failed for " + arch).str()))
    emitError(commandLineLoc()) << "ptxas failed for '" << arch << "'" << rest;
  else
    emitError(commandLineLoc()) << "ptxas failed for '" << arch << "': " << message;
}

void Compilation::explainRegisters(ModuleOp module, const ArchOutput &out) {
  // --explain, after ptxas: each entry's registers and spills (spills undo what keeping
  // fragments in registers was for).
  module.walk([&](tile::KernelOp kernel) {
    std::string name = kernel.getSymName().str();
    for (const cuda::PtxasKernelInfo &info : out.ptxas.kernels) {
      if (info.name != name && info.name != name + kTmaEntrySuffix.str() &&
          info.name != name + kLoadsEntrySuffix.str())
        continue;
      InFlightDiagnostic remark = emitRemark(kernel.getLoc())
                                  << "kernel '" << info.name << "' for " << out.arch << ": "
                                  << info.registers << " registers per thread, "
                                  << info.spillStoreBytes << " bytes of spill stores, "
                                  << info.spillLoadBytes << " bytes of spill loads (ptxas)";
      if (info.stackFrameBytes)
        remark << ", a " << info.stackFrameBytes << "-byte stack frame";
      if (info.spillStoreBytes || info.spillLoadBytes)
        remark.attachNote() << "hint: spilled registers go through local memory at every use: "
                               "smaller tiles, fewer fragments or more threads per block hold "
                               "fewer values per thread";
      else if (info.stackFrameBytes)
        // Buffers LLVM could not keep in registers: registers have no addresses, so an element
        // chosen at run time needs the buffer in memory.
        remark.attachNote() << "hint: a stack frame without spills holds a fragment or local "
                               "buffer in local memory: one of its elements is chosen by a value "
                               "known only at run time (index it with loop counters and "
                               "constants, or select between elements)";
    }
  });
}

/// Whether both code generations of `kernel` compute the same arithmetic in the same order:
/// no gemm, reduce or atomic_add, whose accumulation order depends on the lowering (a scan
/// combines each line in order on every lowering).
static bool isExact(tile::KernelOp kernel) {
  WalkResult found = kernel.getBody().walk([](Operation *op) {
    return isa<tile::GemmOp, tile::ReduceOp, tile::AtomicAddOp>(op) ? WalkResult::interrupt()
                                                                    : WalkResult::advance();
  });
  return !found.wasInterrupted();
}

/// The float type with the fewest mantissa bits that `kernel` rounds values to (an
/// `arith.truncf` result: `bf16(x)` in a body), empty when none is narrower than f32. A result
/// computed through such a rounding differs between two correct code generations by an ulp of
/// that type, whatever the type it is stored in (tlc-difftest's tolerance).
static std::string narrowestRounding(tile::KernelOp kernel) {
  std::string name;
  int fewest = 24; // f32's significand bits
  kernel.getBody().walk([&](arith::TruncFOp trunc) {
    auto type = dyn_cast<FloatType>(trunc.getType());
    if (!type || static_cast<int>(type.getFPMantissaWidth()) >= fewest)
      return;
    fewest = static_cast<int>(type.getFPMantissaWidth());
    name = dtypeName(type);
  });
  return name;
}

/// Whether `kernel` multiplies 8-bit floats in a gemm: on sm_90a's wgmma their f32 accumulator
/// keeps about 14 significant bits per k step (measured: |error| near (K / 32) 2^-15 max |C|),
/// so its results differ from an f32 multiply-add reference by more than f32 rounding
/// (tlc-difftest's tolerance).
static bool multipliesFloat8(tile::KernelOp kernel) {
  WalkResult found = kernel.getBody().walk([](tile::GemmOp gemm) {
    return tile::isFloat8(gemm.getA().getType().getElementType()) ? WalkResult::interrupt()
                                                                  : WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// The manifest's `params` of a kernel: name, kind, dtype, dims, and for tensors strides and
/// access.
static llvm::json::Array manifestParams(const cuda::KernelLaunchInfo &info, tile::KernelOp op) {
  llvm::json::Array params;
  for (auto [index, p] : llvm::enumerate(info.params)) {
    llvm::json::Array dims;
    for (const std::string &d : p.dims)
      dims.push_back(d);
    bool tensor = p.kind == cuda::LaunchParam::Kind::Tensor;
    llvm::json::Object param{{"name", p.name},
                             {"kind", tensor ? "tensor" : "scalar"},
                             {"dtype", p.dtype},
                             {"dims", std::move(dims)}};
    if (tensor) {
      if (!p.strides.empty())
        param["strides"] = llvm::json::Array(p.strides);
      param["access"] = tensorAccess(op, index);
    }
    params.push_back(std::move(param));
  }
  return params;
}

/// The manifest's `constants` of a kernel: its compile-time parameters as compiled.
static llvm::json::Object manifestConstants(tile::KernelOp op) {
  llvm::json::Object constants;
  for (NamedAttribute attr : op.getParams()) {
    // BoolAttr is an IntegerAttr too: test it first.
    if (auto b = dyn_cast<BoolAttr>(attr.getValue()))
      constants[attr.getName().str()] = b.getValue();
    else if (auto i = dyn_cast<IntegerAttr>(attr.getValue()))
      constants[attr.getName().str()] = i.getValue().getSExtValue();
    else if (auto t = dyn_cast<TypeAttr>(attr.getValue()))
      constants[attr.getName().str()] = dtypeName(t.getValue());
  }
  return constants;
}

std::string Compilation::manifest(const std::vector<cuda::KernelLaunchInfo> &kernels,
                                  const std::vector<ArchOutput> &archs, ModuleOp module) const {
  llvm::json::Array kernelList;
  auto kernelOps = llvm::to_vector(module.getOps<tile::KernelOp>());
  for (auto [info, op] : llvm::zip(kernels, kernelOps)) {
    llvm::json::Array targets;
    for (const ArchOutput &arch : archs) {
      // A configuration left out of this architecture's image has no target there.
      if (arch.omitted.contains(info.name))
        continue;
      llvm::json::Object target{{"arch", arch.arch}, {"cubin", arch.haveCubin}};
      // Every entry of this kernel in the architecture's image, with what a launch needs.
      llvm::json::Array entries;
      std::string entry = info.name;
      // For tensors TMA cannot read: the plain entry, or one with a loading producer warpgroup.
      if (auto loads = arch.loads.find(info.name); loads != arch.loads.end()) {
        entry += kLoadsEntrySuffix;
        entries.push_back(llvm::json::Object{{"name", entry},
                                             {"kind", "loads"},
                                             {"threads", loads->second.threads},
                                             {"dynamic_shared_bytes", loads->second.sharedBytes}});
      } else if (auto server = arch.plainServer.find(info.name); server != arch.plainServer.end()) {
        // No plain entry: that configuration's launch serves them.
        target["plain_server"] = server->second;
      } else {
        entries.push_back(llvm::json::Object{
            {"name", info.name},
            {"kind", "plain"},
            {"threads", static_cast<int64_t>(info.threads[0]) * info.threads[1] * info.threads[2]},
            {"dynamic_shared_bytes", arch.sharedBytes.lookup(info.name)}});
      }
      auto tma = arch.tma.find(info.name);
      if (tma != arch.tma.end()) {
        llvm::json::Array maps;
        for (const cuda::TensorMapInfo &map : tma->second.maps) {
          llvm::json::Object object{{"param", static_cast<int64_t>(map.param)},
                                    {"box_rows", map.boxRows},
                                    {"box_cols", map.boxCols},
                                    {"swizzle", map.swizzle},
                                    {"read_only", map.readOnly}};
          // A store map: encoded where the tensor allows it, flagged in the parameter after the
          // maps (docs/abi.md).
          if (map.store)
            object["store"] = true;
          maps.push_back(std::move(object));
        }
        // The copy that makes read-only tensors TMA cannot read in place readable (docs/abi.md).
        llvm::json::Object repack{{"entry", cuda::kRepackEntry.str()},
                                  {"threads", static_cast<int64_t>(cuda::kRepackThreads)},
                                  {"tile_rows", static_cast<int64_t>(cuda::kRepackTileRows)},
                                  {"tile_cols", static_cast<int64_t>(cuda::kRepackTileCols)},
                                  {"dynamic_shared_bytes", tma->second.repackSharedBytes}};
        llvm::json::Object tmaEntry{{"name", info.name + kTmaEntrySuffix.str()},
                                    {"kind", "tma"},
                                    {"threads", tma->second.threads},
                                    {"dynamic_shared_bytes", tma->second.sharedBytes},
                                    {"maps", std::move(maps)},
                                    {"repack", std::move(repack)}};
        // Tiles split along K through a workspace after the maps (docs/abi.md), with the ring's
        // trip count the launcher's automatic rule reads (tlc::rt::streamKPays).
        if (tma->second.streamKSlotBytes) {
          llvm::json::Object streamK{{"slot_bytes", tma->second.streamKSlotBytes}};
          if (!info.iterations.empty())
            streamK["iterations"] = info.iterations;
          tmaEntry["stream_k"] = std::move(streamK);
        }
        if (tma->second.cluster > 1)
          tmaEntry["cluster"] = tma->second.cluster;
        entries.push_back(std::move(tmaEntry));
        entry = info.name + kTmaEntrySuffix.str();
        target["entry"] = entry;
        target["strategy"] = "sm90a: TMA + wgmma, warp-specialized";
        target["threads"] = tma->second.threads;
        target["dynamic_shared_bytes"] = tma->second.sharedBytes;
        target["tensor_maps"] = static_cast<int64_t>(tma->second.maps.size());
      }
      target["entries"] = std::move(entries);
      for (const cuda::PtxasKernelInfo &k : arch.ptxas.kernels) {
        if (k.name != entry)
          continue;
        target["registers"] = k.registers;
        target["spill_stores"] = k.spillStoreBytes;
        target["spill_loads"] = k.spillLoadBytes;
        target["stack_frame"] = k.stackFrameBytes;
        target["shared_bytes"] = k.sharedBytes;
        target["dynamic_shared_bytes"] = arch.sharedBytes.lookup(entry);
      }
      targets.push_back(std::move(target));
    }
    llvm::json::Object entry{
        {"name", info.name},
        {"threads", llvm::json::Array{info.threads[0], info.threads[1], info.threads[2]}},
        {"grid", llvm::json::Array{info.grid[0], info.grid[1], info.grid[2]}},
        {"size_symbols", llvm::json::Array(info.sizeSymbols)},
        {"exact", isExact(op)},
        {"params", manifestParams(info, op)},
        {"constants", manifestConstants(op)},
        {"targets", std::move(targets)}};
    if (std::string rounding = narrowestRounding(op); !rounding.empty())
      entry["rounds_to"] = rounding;
    if (multipliesFloat8(op))
      entry["f8_gemm"] = true;
    if (!info.variantOf.empty()) {
      entry["variant_of"] = info.variantOf;
      entry["variant"] = info.variant;
    }
    if (!info.when.empty())
      entry["when"] = info.when;
    kernelList.push_back(std::move(entry));
  }
  llvm::json::Array archNames;
  for (const ArchOutput &arch : archs)
    archNames.push_back(arch.arch);
  llvm::json::Object root{{"tlc_version", getVersion()},
                          {"source", llvm::sys::path::filename(options.inputPath).str()},
                          {"archs", std::move(archNames)},
                          {"kernels", std::move(kernelList)}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return s;
}

LogicalResult Compilation::run(OutputSet &outputs, std::string &text) {
  FrontendOptions frontendOptions;
  frontendOptions.defines = options.defines;
  TimingScope frontendTimer = timing.nest("frontend (parse, check, tile dialect)");
  OwningOpRef<ModuleOp> module = importTileFile(sourceMgr, &context, frontendOptions);
  if (!module)
    return failure();
  if (options.checkOnly)
    return success();
  if (options.emit == EmitKind::Tile) {
    llvm::raw_string_ostream os(text);
    module->print(os);
    return success();
  }
  FailureOr<std::vector<std::string>> archs = checkArchs();
  if (failed(archs) || (options.emit == EmitKind::Fatbin && failed(checkLauncherNames(*module))))
    return failure();
  frontendTimer.stop();
  auto launchInfo = extractLaunchInfo(*module);
  if (failed(launchInfo) || failed(findToolkit()))
    return failure();
  // The copy kernel `__tma` entries need (sm_90a only: TMA).
  if (llvm::any_of(*archs, [&](StringRef arch) {
        return tile::TargetAttr::get(&context, arch).hasWgmma();
      })) {
    repackSourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(cuda::repackKernelSource(), "<tlc repack>"),
        llvm::SMLoc());
    repackModule = importTileFile(repackSourceMgr, &context, FrontendOptions());
    if (!repackModule)
      return failure();
  }

  // With `-j` above 1 the architectures compile concurrently, each on a thread of its own (not
  // a task of the context's pool, whose waiting threads run other groups' tasks: diagnostics
  // are ordered by thread); their diagnostics come out in --arch order, as serially.
  std::vector<ArchOutput> results(archs->size());
  if (!context.isMultithreadingEnabled() || archs->size() == 1) {
    for (auto [arch, out] : llvm::zip(*archs, results))
      if (failed(compileArch(*module, arch, out)))
        return failure();
  } else {
    ParallelDiagnosticHandler ordered(&context);
    std::vector<char> compiled(archs->size(), false);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < archs->size(); ++i)
      threads.emplace_back([&, i] {
        ordered.setOrderIDForThread(i);
        compiled[i] = succeeded(compileArch(*module, (*archs)[i], results[i]));
        ordered.eraseOrderIDForThread();
      });
    for (std::thread &thread : threads)
      thread.join();
    if (llvm::is_contained(compiled, false))
      return failure();
  }
  TimingScope packageTimer = timing.nest("fatbin, launchers, manifest");

  auto appendText = [&](auto member) {
    for (const ArchOutput &out : results) {
      if (results.size() > 1)
        text += "// ----- " + out.arch + "\n";
      text += out.*member;
    }
  };
  switch (options.emit) {
  case EmitKind::MLIR:
    appendText(&ArchOutput::mlir);
    return success();
  case EmitKind::LLVM:
    appendText(&ArchOutput::llvmIR);
    return success();
  case EmitKind::PTX:
    appendText(&ArchOutput::ptx);
    return success();
  case EmitKind::Cubin:
    for (const ArchOutput &out : results)
      outputs.add(prefix() + (results.size() > 1 ? "." + out.arch : "") + ".cubin",
                  out.ptxas.cubin);
    return success();
  default:
    return package(*module, results, *launchInfo, outputs);
  }
}

FailureOr<std::vector<std::string>> Compilation::checkArchs() {
  std::vector<std::string> archs = options.archs;
  if (archs.empty())
    archs.push_back("sm_90a");
  for (const std::string &arch : archs) {
    auto parsed = cuda::parseArch(arch);
    if (!parsed || !cuda::isKnownArch(arch)) {
      if (!parsed)
        llvm::consumeError(parsed.takeError());
      emitError(commandLineLoc()) << "unknown architecture '" << arch
                                  << "'; expected sm_XY or sm_XYa, e.g. sm_90a, sm_90, sm_80";
      return failure();
    }
  }
  return archs;
}

LogicalResult Compilation::checkLauncherNames(ModuleOp module) {
  // The output's file stem and --namespace name the launchers' namespace: command-line errors.
  cuda::LauncherInfo names;
  names.fileStem = llvm::sys::path::filename(prefix()).str();
  names.cxxNamespace = options.launcherNamespace;
  names.headerName = names.fileStem + ".h";
  if (llvm::Error err = cuda::verifyLauncherInfo(names)) {
    emitError(commandLineLoc()) << "cannot generate a launcher: " << llvm::toString(std::move(err));
    return failure();
  }

  // Names become C++ identifiers in the launchers: check them where they are declared.
  for (tile::KernelOp kernel : module.getOps<tile::KernelOp>()) {
    // Kernel names are spelled by the caller; parameters and sizes only by the launchers.
    auto check = [&](StringRef name, const llvm::Twine &what, Location loc,
                     bool spelledByCaller = false) {
      if (llvm::Error err = cuda::checkLauncherName(name, what, spelledByCaller)) {
        emitError(loc) << llvm::toString(std::move(err));
        return failure();
      }
      return success();
    };
    // A configuration's kernel (`<kernel>__<i>`) lives in the namespace of the kernel it is a
    // variant of.
    StringRef cxxName = kernel.getSymName();
    if (StringRef of = tile::getVariantOf(kernel); !of.empty())
      cxxName = of;
    if (failed(check(cxxName, "kernel name", kernel.getLoc(), /*spelledByCaller=*/true)))
      return failure();
    Block &body = kernel.getBody().front();
    for (auto [index, name] : llvm::enumerate(kernel.getArgNames())) {
      Location loc = body.getArgument(index).getLoc();
      if (failed(check(cast<StringAttr>(name).getValue(), "parameter", loc)))
        return failure();
      for (Attribute dim : cast<ArrayAttr>(kernel.getDimNames()[index])) {
        StringRef size = cast<StringAttr>(dim).getValue();
        if (!llvm::isDigit(size.front()) && failed(check(size, "size", loc)))
          return failure();
      }
    }
  }
  return success();
}

LogicalResult Compilation::findToolkit() {
  // The toolkit provides ptxas (cubins) and libdevice (math functions).
  if (options.ptxOnly && options.emit == EmitKind::Cubin) {
    emitError(commandLineLoc())
        << "'--ptx-only' writes no cubin: use '--emit=fatbin' or '--emit=ptx'";
    return failure();
  }
  bool needCubin =
      !options.ptxOnly && (options.emit == EmitKind::Cubin || options.emit == EmitKind::Fatbin);
  if (options.emit != EmitKind::MLIR) {
    auto found = cuda::CudaToolkit::find(options.cudaPath, options.cudaPathEnv);
    if (found) {
      toolkit = std::move(*found);
    } else if (!needCubin && options.cudaPath.empty()) {
      llvm::consumeError(found.takeError());
    } else {
      std::string message = llvm::toString(found.takeError());
      if (options.emit == EmitKind::Cubin || !options.cudaPath.empty()) {
        emitError(commandLineLoc()) << message;
        return failure();
      }
      emitWarning(commandLineLoc())
          << message << "; the fatbin carries PTX only (the driver compiles it at load)";
    }
  }

  // ptxas 13 compiles an input's functions on all cores (-split-compile 0): the same code as
  // a serial run, and the recorded command line does not depend on the machine.
  if (toolkit && needCubin)
    ptxasArgs = toolkit->parallelArgs(options.ptxasTimeout);
  return success();
}

LogicalResult Compilation::package(ModuleOp module, const std::vector<ArchOutput> &results,
                                   std::vector<cuda::KernelLaunchInfo> &launchInfo,
                                   OutputSet &outputs) {
  // The fatbin: one ELF entry per architecture, then the PTX of each.
  std::vector<cuda::FatbinEntry> entries;
  for (const ArchOutput &out : results) {
    if (!out.haveCubin)
      continue;
    auto entry = cuda::makeElfEntry(out.ptxas.cubin, out.arch);
    if (!entry) {
      emitError(commandLineLoc()) << "cannot package the cubin for '" << out.arch
                                  << "': " << llvm::toString(entry.takeError());
      return failure();
    }
    entries.push_back(std::move(*entry));
  }
  for (const ArchOutput &out : results) {
    auto entry = cuda::makePtxEntry(out.ptx, out.arch);
    if (!entry) {
      emitError(commandLineLoc()) << "cannot package the PTX for '" << out.arch
                                  << "': " << llvm::toString(entry.takeError());
      return failure();
    }
    entries.push_back(std::move(*entry));
  }
  std::string fatbin = cuda::writeFatbin(entries);

  std::string stem = llvm::sys::path::filename(prefix()).str();
  cuda::LauncherInfo launcher;
  launcher.fileStem = stem;
  launcher.cxxNamespace = options.launcherNamespace;
  launcher.headerName = stem + ".h";
  for (cuda::KernelLaunchInfo &kernel : launchInfo)
    for (const ArchOutput &out : results) {
      kernel.sharedBytes =
          std::max<unsigned>(kernel.sharedBytes, out.sharedBytes.lookup(kernel.name));
      if (auto it = out.tma.find(kernel.name); it != out.tma.end())
        kernel.tma = it->second;
      if (auto it = out.loads.find(kernel.name); it != out.loads.end())
        kernel.loads = it->second;
    }
  // Configurations whose plain entry some image left out: the server's variant index.
  llvm::StringMap<int> variantIndex;
  for (const cuda::KernelLaunchInfo &kernel : launchInfo)
    variantIndex[kernel.name] = kernel.variant;
  for (cuda::KernelLaunchInfo &kernel : launchInfo)
    for (const ArchOutput &out : results)
      if (auto it = out.plainServer.find(kernel.name); it != out.plainServer.end())
        kernel.plainServer = variantIndex.lookup(it->second);
  for (cuda::KernelLaunchInfo &kernel : launchInfo)
    kernel.everyImage = llvm::none_of(
        results, [&](const ArchOutput &out) { return out.omitted.contains(kernel.name); });
  // A kernel every architecture serves through its sm_90a entries has no plain one.
  for (cuda::KernelLaunchInfo &kernel : launchInfo)
    kernel.plain = !kernel.loads.present || llvm::any_of(results, [&](const ArchOutput &out) {
      return out.sharedBytes.count(kernel.name) != 0;
    });
  launcher.kernels = launchInfo;
  launcher.fatbin = fatbin;
  if (llvm::Error err = cuda::verifyLauncherInfo(launcher)) {
    emitError(commandLineLoc()) << "cannot generate a launcher: " << llvm::toString(std::move(err));
    return failure();
  }
  cuda::LauncherFiles files = cuda::generateLauncher(launcher);
  outputs.add(prefix() + ".fatbin", std::move(fatbin));
  outputs.add(prefix() + ".h", std::move(files.header));
  outputs.add(prefix() + ".cpp", std::move(files.source));
  outputs.add(prefix() + ".json", manifest(launchInfo, results, module));
  return success();
}

/// Whether the stage writes text (to `-o FILE` or standard output) rather than binary outputs.
static bool isTextStage(EmitKind emit) {
  return emit == EmitKind::Tile || emit == EmitKind::MLIR || emit == EmitKind::LLVM ||
         emit == EmitKind::PTX;
}

int tlc::compile(const CompileOptions &options, llvm::raw_ostream &errs) {
  if (options.outputPath == "-" && !isTextStage(options.emit) && !options.checkOnly &&
      !options.verifyDiagnostics) {
    errs << "tlc: error: '-o -' (standard output) is for the text stages "
         << "(--emit=tile|mlir|llvm|ptx); --emit="
         << (options.emit == EmitKind::Cubin ? "cubin" : "fatbin")
         << " writes files: pass '-o <path prefix>'\n";
    return 1;
  }
  std::string errorMessage;
  auto input = openInputFile(options.inputPath, &errorMessage);
  if (!input) {
    errs << "tlc: error: " << errorMessage << "\n";
    return 1;
  }
  // A lone '\r' (old Mac line endings) ends a line as the lexer reads it; the diagnostics'
  // source lines and carets find lines by '\n': make it one (same length, same offsets).
  if (input->getBuffer().contains('\r')) {
    std::string text = input->getBuffer().str();
    for (size_t i = 0, e = text.size(); i != e; ++i)
      if (text[i] == '\r' && (i + 1 == e || text[i + 1] != '\n'))
        text[i] = '\n';
    input = llvm::MemoryBuffer::getMemBufferCopy(text, input->getBufferIdentifier());
  }
  // `--time-passes`: a tree of each stage's time per architecture, MLIR's passes included.
  DefaultTimingManager timingManager;
  timingManager.setEnabled(options.timePasses);
  timingManager.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
  timingManager.setOutput(createOutputStrategy(DefaultTimingManager::OutputFormat::Text, errs));
  TimingScope rootTimer = timingManager.getRootScope();

  // `-j N`: the architectures, and the kernels inside MLIR's passes, compile on N threads (the
  // pool outlives the context that uses it). Outputs do not depend on N.
  unsigned jobs = options.jobs ? options.jobs : llvm::hardware_concurrency().compute_thread_count();
  std::optional<llvm::DefaultThreadPool> threadPool;
  DialectRegistry registry;
  registerTlcDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  if (jobs > 1) {
    threadPool.emplace(llvm::hardware_concurrency(jobs));
    context.setThreadPool(*threadPool);
  }
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  context.printStackTraceOnDiagnostic(false);

  OutputSet outputs;
  std::string text;
  int fileChunks = 0;
  auto processBuffer = [&](std::unique_ptr<llvm::MemoryBuffer> buffer,
                           llvm::raw_ostream &) -> LogicalResult {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    CompileOptions chunkOptions = options;
    if (options.verifyDiagnostics) {
      chunkOptions.checkOnly = true;
      SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context, errs);
      (void)Compilation(chunkOptions, context, sourceMgr, rootTimer).run(outputs, text);
      return handler.verify();
    }
    SourceMgrDiagnosticHandler handler(sourceMgr, &context, errs);
    // Errors about the command line have no place in the source: "tlc: error: ...".
    ScopedDiagnosticHandler commandLine(&context, [&](Diagnostic &diag) -> LogicalResult {
      if (diag.getLocation() != getCommandLineLoc(&context))
        return failure();
      errs << "tlc: " << (diag.getSeverity() == DiagnosticSeverity::Warning ? "warning" : "error")
           << ": " << diag.str() << "\n";
      for (const Diagnostic &note : diag.getNotes())
        errs << "tlc: note: " << note.str() << "\n";
      return success();
    });
    if (failed(Compilation(chunkOptions, context, sourceMgr, rootTimer).run(outputs, text)))
      return failure();
    // A second chunk's fatbin, launchers and manifest would land on the first one's '-o'
    // prefix, silently replacing them.
    if (options.splitInputFile && !isTextStage(options.emit) && !options.checkOnly &&
        ++fileChunks > 1) {
      errs << "tlc: error: '--split-input-file' compiles each chunk on its own, but --emit="
           << (options.emit == EmitKind::Cubin ? "cubin" : "fatbin")
           << " would write a second chunk's files onto the same '-o' prefix; use it with "
              "--check, --verify-diagnostics or a text stage (--emit=tile|mlir|llvm|ptx), or "
              "split the file\n";
      return failure();
    }
    return success();
  };

  LogicalResult result = options.splitInputFile
                             ? splitAndProcessBuffer(std::move(input), processBuffer, llvm::nulls())
                             : processBuffer(std::move(input), llvm::nulls());
  if (failed(result))
    return 1;
  if (options.verifyDiagnostics || options.checkOnly)
    return 0;

  if (isTextStage(options.emit)) {
    if (options.outputPath.empty() || options.outputPath == "-") {
      llvm::outs() << text;
      llvm::outs().flush();
      return 0;
    }
    outputs.add(options.outputPath, std::move(text));
  }
  TimingScope writeTimer = rootTimer.nest("write outputs");
  if (llvm::Error err = outputs.commit()) {
    errs << "tlc: error: " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// tlc info
//===----------------------------------------------------------------------===//

/// The deepest nesting of arrays and objects `tlc info` reads; a manifest nests 6 deep.
/// llvm::json::parse recurses once per level, so a deeper document could overflow the stack.
static constexpr unsigned kMaxJsonDepth = 256;

/// The offset of the first bracket that opens level `kMaxJsonDepth + 1` of \p text, if any.
/// Brackets inside strings do not count.
static std::optional<size_t> findJsonTooDeep(StringRef text) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0, e = text.size(); i != e; ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return i;
    } else if ((c == ']' || c == '}') && depth) {
      --depth;
    }
  }
  return std::nullopt;
}

int tlc::printInfo(const std::string &path, llvm::raw_ostream &out, llvm::raw_ostream &errs) {
  auto buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) {
    errs << "tlc: error: cannot open '" << path << "': " << buffer.getError().message() << "\n";
    return 1;
  }
  StringRef bytes = (*buffer)->getBuffer();
  if (path.size() > 5 && StringRef(path).ends_with(".json")) {
    if (std::optional<size_t> offset = findJsonTooDeep(bytes)) {
      errs << "tlc: error: '" << path << "' is not a tlc manifest: arrays and objects nest more "
           << "than " << kMaxJsonDepth << " deep (at byte " << *offset << ")\n";
      return 1;
    }
    auto json = llvm::json::parse(bytes);
    if (!json) {
      errs << "tlc: error: '" << path
           << "' is not a tlc manifest: " << llvm::toString(json.takeError()) << "\n";
      return 1;
    }
    out << llvm::formatv("{0:2}", *json) << "\n";
    return 0;
  }
  auto entries = cuda::readFatbin(bytes);
  if (!entries) {
    errs << "tlc: error: '" << path << "' is not a fatbin: " << llvm::toString(entries.takeError())
         << "\n";
    return 1;
  }
  out << path << ": " << entries->size() << " entries\n";
  for (const cuda::FatbinEntry &e : *entries) {
    bool ptx = e.kind == cuda::FatbinEntry::Kind::PTX;
    out << llvm::formatv("  {0,-4} {1}_{2}{3}  {4} bytes", ptx ? "PTX" : "ELF",
                         ptx ? "compute" : "sm", e.sm, e.archSpecific ? "a" : "", e.payload.size());
    if (ptx) {
      out << llvm::formatv("  (PTX ISA {0}.{1})", e.major, e.minor);
      // Kernel names: the `.entry` lines.
      StringRef text = e.payload;
      while (true) {
        size_t pos = text.find(".entry ");
        if (pos == StringRef::npos)
          break;
        text = text.drop_front(pos + 7);
        out << " " << text.take_until([](char c) { return c == '(' || c == '\n'; }).trim();
      }
    }
    out << "\n";
  }
  return 0;
}
