//===- tlc-difftest.cpp - Differential test of tlc's fast and reference builds ---------===//
//
// Runs every kernel of a tlc build ("fast": the normal code generation) and of the same source
// built with `tlc --codegen=reference` (every tile op on its generic lowering: the oracle) on
// the same random inputs, over sizes chosen to hit ragged edges, and compares every tensor the
// kernel writes. Each entry of the fast build for the device's architecture is checked (the
// plain entry and, on sm_90a, the `__tma` entry) against the reference build's plain entry.
// CUDA driver API only; what needs no GPU lives in DiffPlan.h.
//
// Exit status: 0 when everything agrees, 1 on a mismatch or a CUDA error, 2 on a bad command
// line or manifest, 77 when there is no CUDA driver or device.
//
//===----------------------------------------------------------------------===//

#include "DiffPlan.h"

#include "tlc/Runtime/Runtime.h"

#include <cuda.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>
#include <tuple>

using namespace tlc::difftest;

/// Bytes of guard pattern before and after every tensor.
constexpr size_t GuardBytes = 256;
/// Mismatching elements listed per tensor.
constexpr size_t MismatchesShown = 4;
constexpr int ExitSkip = 77;
constexpr int ExitUsage = 2;

namespace {
struct Options {
  std::string fastFatbin, fastManifest, refFatbin, refManifest;
  std::vector<std::string> kernels;
  int cases = 8;
  uint64_t seed = 1;
  std::vector<std::string> caseSpecs;
  int64_t maxElements = int64_t(1) << 24;
  double timeoutSeconds = 10;
  bool verbose = false, list = false, misalign = false;
};
} // namespace

const char *const Usage =
    "usage: tlc-difftest --fast K.fatbin --fast-manifest K.json --ref R.fatbin\n"
    "                    --ref-manifest R.json [options]\n"
    "Runs each kernel's entries of the fast build and the reference build's plain entry on\n"
    "the same inputs and compares every tensor the kernel writes.\n"
    "  --kernel NAME       test only this kernel (its name, or the kernel a variant is of);\n"
    "                      repeatable\n"
    "  --cases N           cases per kernel (default 8; the first 4 are all-1, all-3,\n"
    "                      all-256 and ragged 1000/1111/778)\n"
    "  --seed S            seed of sizes, strides and inputs (default 1)\n"
    "  --case \"M=1000,N=1111,K=778\"\n"
    "                      run this case instead of chosen ones (repeatable); symbols left\n"
    "                      out are drawn; the case a line prints reproduces it with --seed\n"
    "  --max-elements E    at most E elements per tensor in chosen cases (default 2^24)\n"
    "  --misalign          base addresses of 2-byte tensors +2 bytes on odd cases\n"
    "  --timeout S         seconds a kernel may run (default 10)\n"
    "  --list              print kernels, entries and parameters; runs nothing (no GPU)\n"
    "  --verbose           per-tensor details for passing cases too\n";

[[noreturn]] static void usageError(const std::string &message) {
  std::fprintf(stderr, "tlc-difftest: %s\n%s", message.c_str(), Usage);
  std::exit(ExitUsage);
}

static bool parseInt(const std::string &text, int64_t &out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (errno || *end)
    return false;
  out = v;
  return true;
}

static Options parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool hasValue = false;
    if (size_t eq = arg.find('='); arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      hasValue = true;
    }
    auto next = [&]() -> std::string {
      if (hasValue)
        return value;
      if (i + 1 >= argc)
        usageError("'" + arg + "' needs a value");
      return argv[++i];
    };
    auto nextInt = [&](int64_t lo, int64_t hi) {
      std::string v = next();
      int64_t n = 0;
      if (!parseInt(v, n) || n < lo || n > hi)
        usageError("bad value '" + v + "' for '" + arg + "'");
      return n;
    };
    if (arg == "--fast")
      o.fastFatbin = next();
    else if (arg == "--fast-manifest")
      o.fastManifest = next();
    else if (arg == "--ref")
      o.refFatbin = next();
    else if (arg == "--ref-manifest")
      o.refManifest = next();
    else if (arg == "--kernel")
      o.kernels.push_back(next());
    else if (arg == "--cases")
      o.cases = static_cast<int>(nextInt(1, 1000000));
    else if (arg == "--seed")
      o.seed = static_cast<uint64_t>(nextInt(INT64_MIN, INT64_MAX));
    else if (arg == "--case")
      o.caseSpecs.push_back(next());
    else if (arg == "--max-elements")
      o.maxElements = nextInt(1, int64_t(1) << 40);
    else if (arg == "--timeout")
      o.timeoutSeconds = static_cast<double>(nextInt(1, 86400));
    else if (arg == "--misalign" && !hasValue)
      o.misalign = true;
    else if (arg == "--list" && !hasValue)
      o.list = true;
    else if ((arg == "--verbose" || arg == "-v") && !hasValue)
      o.verbose = true;
    else if (arg == "--help" || arg == "-h") {
      std::printf("%s", Usage);
      std::exit(0);
    } else
      usageError("unknown argument '" + std::string(argv[i]) + "'");
  }
  if (o.fastManifest.empty())
    usageError("--fast-manifest is required");
  if (!o.list && (o.fastFatbin.empty() || o.refFatbin.empty() || o.refManifest.empty()))
    usageError("--fast, --ref and --ref-manifest are required (except with --list)");
  return o;
}

static bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return static_cast<bool>(in) || in.eof();
}

static Manifest loadManifest(const std::string &path) {
  std::string text, error;
  if (!readFile(path, text)) {
    std::fprintf(stderr, "tlc-difftest: cannot read '%s'\n", path.c_str());
    std::exit(ExitUsage);
  }
  Manifest m;
  if (!parseManifest(text, m, error)) {
    std::fprintf(stderr, "tlc-difftest: '%s': %s\n", path.c_str(), error.c_str());
    std::exit(ExitUsage);
  }
  return m;
}

static std::string join(const std::vector<std::string> &items, const char *sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? sep : "") + items[i];
  return out;
}

static std::string paramText(const ParamInfo &p) {
  if (!p.isTensor)
    return p.name + ": " + p.dtype;
  std::string text = p.name + ": " + p.dtype + "[" + join(p.dims, ", ") + "]";
  if (!p.strides.empty())
    text += " strides [" + join(p.strides, ", ") + "]";
  return text + " " + p.access;
}

namespace {
/// One case to run: the index chooseSizes takes and the symbols --case pins.
struct CaseChoice {
  int index;
  Symbols given;
};
} // namespace

/// The cases of \p k: one per --case (its symbols of \p k pinned, the others drawn as in a
/// random case), else --cases chosen ones.
static std::vector<CaseChoice> kernelCases(const Options &o, const KernelInfo &k) {
  std::vector<CaseChoice> out;
  std::set<std::string> symbols(k.sizeSymbols.begin(), k.sizeSymbols.end());
  for (size_t i = 0; i < o.caseSpecs.size(); ++i) {
    std::vector<std::pair<std::string, int64_t>> items;
    std::string error;
    parseCaseSpec(o.caseSpecs[i], items, error); // validated in main
    CaseChoice c{4 + static_cast<int>(i), {}};
    for (const auto &[name, value] : items)
      if (symbols.count(name))
        c.given[name] = value;
    out.push_back(std::move(c));
  }
  if (out.empty())
    for (int index : chooseCaseIndices(k, o.seed, o.cases, o.maxElements))
      out.push_back({index, {}});
  return out;
}

static std::string formatGrid(const int64_t g[3]) {
  return "(" + std::to_string(g[0]) + ", " + std::to_string(g[1]) + ", " + std::to_string(g[2]) +
         ")";
}

/// " scale=0.5 flag=true": the scalar arguments of a case.
static std::string scalarsText(const KernelInfo &k, const CasePlan &plan) {
  std::string out;
  for (size_t i = 0; i < k.params.size(); ++i)
    if (!k.params[i].isTensor)
      out += " " + k.params[i].name + "=" + plan.scalars[i].text();
  return out;
}

static void listTargets(const KernelInfo &k, const char *label) {
  for (const TargetInfo &t : k.targets) {
    std::printf("  %s %s%s:", label, t.arch.c_str(), t.cubin ? "" : " (PTX only)");
    for (const EntryInfo &e : t.entries) {
      std::printf(" %s (%s, %" PRId64 " threads, %" PRId64 " B dynamic shared", e.name.c_str(),
                  e.kind.c_str(), e.threads, e.dynamicSharedBytes);
      for (const MapInfo &m : e.maps)
        std::printf(", map %s box %" PRId64 "x%" PRId64 " swizzle %" PRId64,
                    k.params[m.param].name.c_str(), m.boxRows, m.boxCols, m.swizzle);
      std::printf(")");
    }
    std::printf("\n");
  }
}

/// The reference of \p k in \p ref: the kernel of the same name, else (\p family set) the one
/// kernel of a reference built with the configuration parameters fixed (-D), which serves every
/// variant of its family.
static const KernelInfo *findReference(const Manifest &ref, const KernelInfo &k, bool &family) {
  family = false;
  if (const KernelInfo *r = ref.find(k.name))
    return r;
  if (k.variantOf.empty())
    return nullptr;
  family = true;
  return ref.find(k.variantOf);
}

/// --list: the kernels, their entries and, with --verbose, the cases planned; no CUDA call.
static int listKernels(const Options &o, const Manifest &fast, const Manifest *ref,
                       const std::vector<const KernelInfo *> &kernels) {
  std::printf("%s: %s (tlc %s), archs %s\n", o.fastManifest.c_str(), fast.source.c_str(),
              fast.version.c_str(), join(fast.archs, " ").c_str());
  for (const KernelInfo *k : kernels) {
    std::printf("%s", k->name.c_str());
    if (!k->variantOf.empty())
      std::printf(" (variant %" PRId64 " of %s)", k->variant, k->variantOf.c_str());
    std::printf(": threads (%" PRId64 ", %" PRId64 ", %" PRId64 "), grid (%s, %s, %s), %s\n",
                k->threads[0], k->threads[1], k->threads[2], k->grid[0].c_str(), k->grid[1].c_str(),
                k->grid[2].c_str(), k->exact ? "exact" : "with tolerance");
    std::printf("  params:");
    for (const ParamInfo &p : k->params)
      std::printf(" %s;", paramText(p).c_str());
    std::printf("\n  size symbols: %s\n", join(k->sizeSymbols, " ").c_str());
    std::string why = unsupportedReason(*k);
    if (!why.empty())
      std::printf("  not testable: %s\n", why.c_str());
    listTargets(*k, "fast");
    if (ref) {
      bool family = false;
      if (const KernelInfo *r = findReference(*ref, *k, family)) {
        listTargets(*r, family ? "ref (family)" : "ref ");
        if (std::string differs = abiMismatch(*k, *r, family); !differs.empty())
          std::printf("  reference differs: %s\n", differs.c_str());
      } else {
        std::printf("  reference: no kernel '%s'\n", k->name.c_str());
      }
    }
    std::vector<CaseChoice> cases = kernelCases(o, *k);
    for (size_t i = 0; o.verbose && why.empty() && i < cases.size(); ++i) {
      CasePlan plan;
      std::string error;
      if (!planCase(*k, o.seed, cases[i].index, cases[i].given, o.maxElements, plan, error))
        std::printf("  case %zu: %s\n", i, error.c_str());
      else
        std::printf("  case %zu: [%s]%s grid %s\n", i, plan.text.c_str(),
                    scalarsText(*k, plan).c_str(), formatGrid(plan.grid).c_str());
    }
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Device state
//===----------------------------------------------------------------------===//

/// Whether the context is unusable after \p r (a fault in a kernel): nothing can run after it.
static bool isStickyError(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
  case CUDA_ERROR_UNKNOWN:
    return true;
  default:
    return false;
  }
}

static std::string cuText(CUresult r, const char *call) {
  return std::string(call) + " failed: " + tlc::rt::describeResult(r);
}

namespace {
/// One tensor's device allocation: GuardBytes of pattern, the optional misalignment, the span of
/// its elements, GuardBytes of pattern. `initial` is the whole allocation's content before a run.
struct TensorBuffer {
  const ParamInfo *param = nullptr;
  DType type;
  TensorLayout layout;
  size_t lead = 0, spanBytes = 0, allocBytes = 0;
  CUdeviceptr alloc = 0, base = 0;
  std::vector<uint8_t> initial;

  TensorBuffer() = default;
  TensorBuffer(const TensorBuffer &) = delete;
  TensorBuffer &operator=(const TensorBuffer &) = delete;
  ~TensorBuffer() {
    if (alloc)
      (void)cuMemFree(alloc);
  }
  const uint8_t *span(const std::vector<uint8_t> &image) const { return image.data() + lead; }
};

/// The images of all tensors after one run.
using Images = std::vector<std::vector<uint8_t>>;

/// A launch: function, block, grid, dynamic shared memory, kernel parameters.
struct Launch {
  CUfunction function = nullptr;
  unsigned block[3] = {1, 1, 1};
  int64_t grid[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  /// One 8-byte slot per ABI parameter, then the tensor maps; `pointers` point into them.
  std::vector<uint64_t> slots;
  std::vector<CUtensorMap> maps;
  /// With store maps: whether they were encoded (the i32 parameter after the maps).
  bool storeMaps = false;
  int32_t stored = 1;
  std::vector<void *> pointers;
  /// A read-only tensor TMA cannot read in place, copied to an aligned workspace before the
  /// launch as the generated launchers do (docs/abi.md): run() copies it and encodes its map.
  struct Copied {
    size_t map, baseSlot;
    int param;
    int64_t rows, cols;
    unsigned bytes;
    CUtensorMapDataType type;
    uint32_t boxRows, boxCols;
    unsigned swizzle;
    std::string entry, tensor;
  };
  std::vector<Copied> copied;
  CUfunction repackFunction = nullptr;
  tlc::rt::RepackKernel repack = {};
  /// A stream-K entry (docs/abi.md): the bytes of a partial slot, and the workspace pointer
  /// passed after the maps (run() prepares it: the launch splits tiles along K).
  int64_t streamKSlotBytes = 0;
  uint64_t streamK = 0;
  /// Blocks per cluster along x (2: an entry whose blocks run in pairs, launched so; a stream-K
  /// entry then gets no workspace).
  unsigned cluster = 1;

  bool launchesNothing() const { return grid[0] <= 0 || grid[1] <= 0 || grid[2] <= 0; }
  void finalize() {
    pointers.clear();
    for (uint64_t &slot : slots)
      pointers.push_back(&slot);
    for (CUtensorMap &map : maps)
      pointers.push_back(&map);
    if (storeMaps)
      pointers.push_back(&stored);
    if (streamKSlotBytes)
      pointers.push_back(&streamK);
  }
};

enum class RunStatus { Ok, Failed, Fatal };

struct Counters {
  int kernels = 0, cases = 0, failures = 0, skips = 0;
  /// Launches of tma entries that read aligned copies of some tensors.
  int copiedLaunches = 0;
  /// Launches of stream-K entries (a workspace passed: tiles split along K).
  int streamKLaunches = 0;
  /// Launches in clusters (entries whose blocks run in pairs sharing their loads).
  int clusterLaunches = 0;
  /// Launches of entries with store maps: encoded (TMA bulk stores), or not (vector stores).
  int tmaStoreLaunches = 0, vectorStoreLaunches = 0;
  std::set<std::string> entries;
};

class Runner {
public:
  Runner(const Options &o) : Opt(o) {}
  /// Initializes the driver, device 0's primary context and the modules; exits 77 without a
  /// driver or device, 1 on another CUDA error.
  void init();
  /// Tests one kernel; false when the context is dead and the run must stop.
  bool testKernel(const KernelInfo &fast, const KernelInfo &ref);
  Counters &counters() { return Count; }

private:
  struct EntryRun {
    const EntryInfo *entry;
    CUfunction function;
  };
  struct CaseSetup {
    CasePlan plan;
    /// By parameter index (scalars: null).
    std::vector<std::unique_ptr<TensorBuffer>> tensors;
  };

  bool setupCase(const KernelInfo &k, int index, const Symbols &given, bool misalign,
                 CaseSetup &out, std::string &error);
  bool buildLaunch(const KernelInfo &k, const EntryInfo &e, CUfunction f, const CaseSetup &c,
                   Launch &out, std::string &skip, std::string &error);
  RunStatus run(const Launch &l, const CaseSetup &c, Images &out, std::string &error, double &ms);
  std::vector<std::string> runIssues(const CaseSetup &c, const Images &images, const char *who);
  void fatal(const std::string &where, const std::string &error);

  const Options &Opt;
  Counters Count;
  CUdevice Device = 0;
  CUcontext Context = nullptr;
  CUstream Stream = nullptr;
  CUevent Start = nullptr, Done = nullptr;
  CUmodule FastModule = nullptr, RefModule = nullptr;
  std::string FastImage, RefImage;
  int Major = 0, Minor = 0, Multiprocessors = 0;
  /// Alternates clusters and stream-K on the cases of entries that can take both.
  unsigned ClusterTurn = 0;
};
} // namespace

/// Prints "SKIP: ..." and exits 77 when \p r says there is no usable driver or device.
static void skipIfNoDevice(CUresult r, const char *call) {
  if (r == CUDA_SUCCESS)
    return;
  std::printf("SKIP: no CUDA driver or device (%s)\n", cuText(r, call).c_str());
  std::exit(ExitSkip);
}

static void checkInit(CUresult r, const char *call) {
  if (r == CUDA_SUCCESS)
    return;
  std::fprintf(stderr, "tlc-difftest: %s\n", cuText(r, call).c_str());
  std::exit(1);
}

void Runner::init() {
  skipIfNoDevice(cuInit(0), "cuInit");
  int count = 0;
  skipIfNoDevice(cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) {
    std::printf("SKIP: no CUDA device\n");
    std::exit(ExitSkip);
  }
  checkInit(cuDeviceGet(&Device, 0), "cuDeviceGet");
  checkInit(cuDevicePrimaryCtxRetain(&Context, Device), "cuDevicePrimaryCtxRetain");
  checkInit(cuCtxSetCurrent(Context), "cuCtxSetCurrent");
  checkInit(cuDeviceGetAttribute(&Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, Device),
            "cuDeviceGetAttribute");
  checkInit(cuDeviceGetAttribute(&Minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, Device),
            "cuDeviceGetAttribute");
  checkInit(
      cuDeviceGetAttribute(&Multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Device),
      "cuDeviceGetAttribute");
  char name[256] = {};
  checkInit(cuDeviceGetName(name, sizeof(name) - 1, Device), "cuDeviceGetName");
  std::printf("device 0: %s (sm_%d%d, %d multiprocessors)\n", name, Major, Minor, Multiprocessors);
  checkInit(cuStreamCreate(&Stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  checkInit(cuEventCreate(&Start, CU_EVENT_DEFAULT), "cuEventCreate");
  checkInit(cuEventCreate(&Done, CU_EVENT_DEFAULT), "cuEventCreate");
  for (auto [path, image, module] : {std::make_tuple(&Opt.fastFatbin, &FastImage, &FastModule),
                                     std::make_tuple(&Opt.refFatbin, &RefImage, &RefModule)}) {
    if (!readFile(*path, *image) || image->empty()) {
      std::fprintf(stderr, "tlc-difftest: cannot read '%s'\n", path->c_str());
      std::exit(ExitUsage);
    }
    CUresult r = cuModuleLoadData(module, image->data());
    if (r != CUDA_SUCCESS) {
      std::fprintf(stderr, "tlc-difftest: loading '%s': %s\n", path->c_str(),
                   cuText(r, "cuModuleLoadData").c_str());
      std::exit(1);
    }
  }
}

void Runner::fatal(const std::string &where, const std::string &error) {
  std::printf("FATAL %s: %s; the CUDA context is unusable, stopping\n", where.c_str(),
              error.c_str());
  ++Count.failures;
}

bool Runner::setupCase(const KernelInfo &k, int index, const Symbols &given, bool misalign,
                       CaseSetup &c, std::string &error) {
  if (!planCase(k, Opt.seed, index, given, Opt.maxElements, c.plan, error))
    return false;
  c.tensors.clear();
  c.tensors.resize(k.params.size());
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ParamInfo &p = k.params[i];
    if (!p.isTensor)
      continue;
    auto t = std::make_unique<TensorBuffer>();
    t->param = &p;
    t->type = *lookupDType(p.dtype);
    t->layout = c.plan.layouts[i];
    const DType &type = t->type;
    // Misaligned by one element: 16-bit types and 8-bit floats (TMA and 16-byte copies then
    // take their unaligned paths).
    size_t pad = !misalign ? 0 : type.bytes == 2 ? 2 : type.bytes == 1 && type.isFloat() ? 1 : 0;
    t->lead = GuardBytes + pad;
    t->spanBytes = static_cast<size_t>(t->layout.span()) * type.bytes;
    t->allocBytes = t->lead + t->spanBytes + GuardBytes;
    t->initial.resize(t->allocBytes);
    for (size_t b = 0; b < t->allocBytes; ++b)
      t->initial[b] = static_cast<uint8_t>(0xA5 ^ (b * 37));
    uint8_t *span = t->initial.data() + t->lead;
    if (p.access == "write") {
      fillPoison(type, span, t->layout.span());
    } else {
      Rng contentRng(mixSeed(c.plan.contentSeed, i + 1));
      fillRandom(type, span, t->layout.span(), contentRng);
    }
    CUresult r = cuMemAlloc(&t->alloc, t->allocBytes);
    if (r != CUDA_SUCCESS) {
      error = "tensor '" + p.name + "' (" + std::to_string(t->allocBytes) +
              " bytes): " + cuText(r, "cuMemAlloc");
      return false;
    }
    t->base = t->alloc + t->lead -
              static_cast<CUdeviceptr>(t->layout.minOffset * static_cast<int64_t>(type.bytes));
    c.tensors[i] = std::move(t);
  }
  return true;
}

static CUtensorMapDataType tensorMapType(const DType &t) {
  if (t.name == "bf16")
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  if (t.name == "f16")
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  if (t.name == "f32")
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  if (t.name == "f64")
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  if (t.name == "i32")
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  if (t.bytes == 8)
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  if (t.bytes == 2)
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

bool Runner::buildLaunch(const KernelInfo &k, const EntryInfo &e, CUfunction f, const CaseSetup &c,
                         Launch &l, std::string &skip, std::string &error) {
  l.function = f;
  l.sharedBytes = static_cast<unsigned>(e.dynamicSharedBytes);
  l.slots.clear();
  l.maps.clear();
  l.copied.clear();
  // The slot of each tensor's base address (its sizes and strides follow).
  std::vector<size_t> baseSlot(k.params.size(), 0);
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ParamInfo &p = k.params[i];
    baseSlot[i] = l.slots.size();
    if (!p.isTensor) {
      std::vector<uint8_t> bytes = c.plan.scalars[i].bytes();
      uint64_t slot = 0;
      std::memcpy(&slot, bytes.data(), bytes.size());
      l.slots.push_back(slot);
      continue;
    }
    const TensorBuffer &t = *c.tensors[i];
    l.slots.push_back(t.base);
    for (int64_t s : t.layout.sizes)
      l.slots.push_back(static_cast<uint64_t>(s));
    for (int64_t s : t.layout.strides)
      l.slots.push_back(static_cast<uint64_t>(s));
  }
  // This kernel's own grid (a family reference's differs from the variant's the case was
  // planned for).
  int64_t grid[3];
  if (!planGrid(k, c.plan, grid, error))
    return false;
  if (e.persistent()) {
    // Persistent: min(blocks of the kernel's grid, multiprocessors) blocks along x.
    int64_t blocks = tlc::rt::gridBlocks(grid[0], grid[1], grid[2]);
    l.grid[0] = std::min<int64_t>(blocks, Multiprocessors);
    l.streamKSlotBytes = e.streamKSlotBytes;
    if (e.streamKSlotBytes && blocks >= 3)
      // Stream-K on the small cases too: about two thirds as many blocks as tiles, so that the
      // kernel splits every tile (its rule: the last partial wave and one full wave), as a
      // launch on a device with that many multiprocessors would (all blocks resident).
      l.grid[0] = std::min<int64_t>(blocks * 2 / 3, Multiprocessors);
    // Pairs (docs/abi.md): in clusters of two, on every case of an entry without stream-K and
    // on every other case of one with it; fewer clusters than pairs of tiles, so that each walks
    // several (pairs of an odd row count leave a tile past the grid).
    l.cluster = 1;
    if (e.cluster > 1 && (!e.streamKSlotBytes || blocks < 3 || ClusterTurn++ % 2 == 0)) {
      int64_t pairs = grid[0] * ((grid[1] + e.cluster - 1) / e.cluster) * grid[2];
      l.cluster = static_cast<unsigned>(e.cluster);
      l.grid[0] = e.cluster * std::max<int64_t>(1, std::min<int64_t>(pairs, Multiprocessors / 3));
    }
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = static_cast<unsigned>(e.threads);
    l.block[1] = l.block[2] = 1;
    l.maps.resize(e.maps.size());
    l.storeMaps = false;
    l.stored = 1;
    for (size_t m = 0; m < e.maps.size(); ++m) {
      const MapInfo &map = e.maps[m];
      const TensorBuffer &t = *c.tensors[map.param];
      const TensorLayout &lay = t.layout;
      int rank = static_cast<int>(lay.sizes.size());
      if (map.store) {
        // Where TMA cannot write the tensor in place, the entry stores its rows as vectors.
        l.storeMaps = true;
        if (rank != 2) {
          error = "store map of tensor '" + t.param->name + "' of rank " + std::to_string(rank);
          return false;
        }
        l.stored &= tlc::rt::encodeStoreMap2D(
            &l.maps[m], t.base, lay.sizes[0], lay.sizes[1], lay.strides[0], lay.strides[1],
            t.type.bytes, static_cast<uint32_t>(map.boxRows), static_cast<uint32_t>(map.boxCols),
            static_cast<unsigned>(map.swizzle));
        continue;
      }
      bool compatible =
          tlc::rt::tmaCompatible(t.base, rank, lay.sizes.data(), lay.strides.data(), t.type.bytes);
      // Only rank-2 tensors are copied (docs/abi.md).
      if (!compatible && rank == 2 && map.readOnly && !e.repack.entry.empty() &&
          t.type.bytes == 2) {
        // Copied to an aligned workspace in run(), as launch() does.
        if (!l.repackFunction) {
          CUresult r = cuModuleGetFunction(&l.repackFunction, FastModule, e.repack.entry.c_str());
          if (r != CUDA_SUCCESS) {
            error = cuText(r, ("cuModuleGetFunction(" + e.repack.entry + ")").c_str());
            return false;
          }
          l.repack = {e.repack.entry.c_str(), static_cast<unsigned>(e.repack.threads),
                      static_cast<unsigned>(e.repack.dynamicSharedBytes), e.repack.tileRows,
                      e.repack.tileCols};
        }
        l.copied.push_back({m, baseSlot[map.param], map.param, lay.sizes[0], lay.sizes[1],
                            t.type.bytes, tensorMapType(t.type), static_cast<uint32_t>(map.boxRows),
                            static_cast<uint32_t>(map.boxCols), static_cast<unsigned>(map.swizzle),
                            e.name, t.param->name});
        continue;
      }
      if (!compatible) {
        char why[256];
        std::snprintf(why, sizeof(why),
                      "tensor '%s' is not TMA-compatible (last strides [%" PRId64 ", %" PRId64
                      "] of %u-byte elements, rank %d, base %% 16 = %u)",
                      t.param->name.c_str(), lay.strides[rank - 2], lay.strides[rank - 1],
                      t.type.bytes, rank, static_cast<unsigned>(t.base % 16));
        skip = why;
        return false;
      }
      tlc::rt::Status s = tlc::rt::encodeTensorMap(
          &l.maps[m], t.base, rank, lay.sizes.data(), lay.strides.data(), t.type.bytes,
          tensorMapType(t.type), static_cast<uint32_t>(map.boxRows),
          static_cast<uint32_t>(map.boxCols), static_cast<unsigned>(map.swizzle), e.name.c_str(),
          t.param->name.c_str());
      if (!s.ok()) {
        error = s.message();
        return false;
      }
    }
  } else {
    for (int d = 0; d < 3; ++d) {
      l.grid[d] = grid[d];
      l.block[d] = static_cast<unsigned>(k.threads[d]);
    }
    int64_t product = k.threads[0] * k.threads[1] * k.threads[2];
    if (e.threads > 0 && product != e.threads) {
      error = "entry '" + e.name + "' has " + std::to_string(e.threads) +
              " threads but the kernel's block has " + std::to_string(product);
      return false;
    }
  }
  l.finalize();
  return true;
}

RunStatus Runner::run(const Launch &l, const CaseSetup &c, Images &out, std::string &error,
                      double &ms) {
  ms = 0;
  for (const auto &t : c.tensors) {
    if (!t)
      continue;
    CUresult r = cuMemcpyHtoDAsync(t->alloc, t->initial.data(), t->allocBytes, Stream);
    if (r != CUDA_SUCCESS) {
      error = cuText(r, "cuMemcpyHtoDAsync");
      return RunStatus::Fatal;
    }
  }
  CUresult r = cuEventRecord(Start, Stream);
  if (r != CUDA_SUCCESS) {
    error = cuText(r, "cuEventRecord");
    return RunStatus::Fatal;
  }
  // Tensors copied to an aligned workspace first (docs/abi.md): the launch reads the copies.
  Launch withCopies;
  tlc::rt::Workspace workspace;
  const Launch *launch = &l;
  if (!l.copied.empty() && !l.launchesNothing()) {
    withCopies = l;
    size_t n = l.copied.size();
    std::vector<CUdeviceptr> bases(n);
    std::vector<int64_t> rowStrides(n), colStrides(n);
    std::vector<size_t> slotOf(n);
    std::vector<tlc::rt::TmaOperand> operands;
    for (size_t i = 0; i < n; ++i) {
      const Launch::Copied &cp = l.copied[i];
      // One copy per tensor: a later map of the same tensor shares the first one's values.
      size_t first = i;
      for (size_t j = 0; j < i; ++j)
        if (l.copied[j].param == cp.param && first == i)
          first = j;
      slotOf[i] = first;
      if (first == i) {
        bases[i] = l.slots[cp.baseSlot];
        rowStrides[i] = static_cast<int64_t>(l.slots[cp.baseSlot + 3]);
        colStrides[i] = static_cast<int64_t>(l.slots[cp.baseSlot + 4]);
      }
      operands.push_back({&bases[first], cp.rows, cp.cols, &rowStrides[first], &colStrides[first],
                          cp.bytes, true});
    }
    bool useTma = false;
    tlc::rt::Status s =
        tlc::rt::prepareTmaOperands(l.repackFunction, l.repack, operands.data(),
                                    static_cast<int>(n), Stream, workspace, &useTma);
    if (!s.ok() || !useTma) {
      error = s.ok() ? "no aligned copy of the tensors TMA cannot read (workspace unavailable)"
                     : s.message();
      return !s.ok() && isStickyError(s.code()) ? RunStatus::Fatal : RunStatus::Failed;
    }
    for (size_t i = 0; i < n; ++i) {
      const Launch::Copied &cp = l.copied[i];
      size_t at = slotOf[i];
      withCopies.slots[cp.baseSlot] = bases[at];
      withCopies.slots[cp.baseSlot + 3] = static_cast<uint64_t>(rowStrides[at]);
      withCopies.slots[cp.baseSlot + 4] = static_cast<uint64_t>(colStrides[at]);
      s = tlc::rt::encodeTensorMap2D(&withCopies.maps[cp.map], bases[at], cp.rows, cp.cols,
                                     rowStrides[at], colStrides[at], cp.bytes, cp.type, cp.boxRows,
                                     cp.boxCols, cp.swizzle, cp.entry.c_str(), cp.tensor.c_str());
      if (!s.ok()) {
        error = s.message();
        return RunStatus::Failed;
      }
    }
    withCopies.finalize();
    launch = &withCopies;
    ++Count.copiedLaunches;
  }
  // A stream-K entry: the workspace of its grid's blocks, the flags zeroed (docs/abi.md).
  Launch split;
  tlc::rt::Workspace splitWorkspace;
  if (launch->streamKSlotBytes && launch->cluster == 1 && !l.launchesNothing()) {
    split = *launch;
    const int64_t blocks = launch->grid[0];
    bool available = false;
    tlc::rt::Status s = splitWorkspace.allocate(
        static_cast<size_t>(tlc::rt::streamKFlagBytes(blocks) + blocks * l.streamKSlotBytes),
        Stream, &available);
    if (s.ok() && available)
      s = tlc::rt::Status::fromCuda(
          cuMemsetD32Async(splitWorkspace.address(), 0,
                           static_cast<size_t>(tlc::rt::streamKFlagBytes(blocks) / 4), Stream),
          "cuMemsetD32Async");
    if (!s.ok() || !available) {
      error = s.ok() ? "no stream-K workspace (memory unavailable)" : s.message();
      return !s.ok() && isStickyError(s.code()) ? RunStatus::Fatal : RunStatus::Failed;
    }
    split.streamK = splitWorkspace.address();
    split.finalize();
    launch = &split;
    ++Count.streamKLaunches;
  }
  if (!l.launchesNothing()) {
    void **params = const_cast<void **>(launch->pointers.data());
    tlc::rt::Status s =
        launch->cluster > 1
            ? tlc::rt::launchClusters(launch->function, launch->grid, launch->block,
                                      launch->sharedBytes, launch->cluster, Stream, params)
            : tlc::rt::launch(launch->function, launch->grid, launch->block, launch->sharedBytes,
                              Stream, params);
    if (s.ok() && launch->cluster > 1)
      ++Count.clusterLaunches;
    if (s.ok() && launch->storeMaps)
      ++(launch->stored ? Count.tmaStoreLaunches : Count.vectorStoreLaunches);
    if (!s.ok()) {
      error = s.message();
      return isStickyError(s.code()) ? RunStatus::Fatal : RunStatus::Failed;
    }
  }
  if ((r = cuEventRecord(Done, Stream)) != CUDA_SUCCESS) {
    error = cuText(r, "cuEventRecord");
    return RunStatus::Fatal;
  }
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(Opt.timeoutSeconds);
  while ((r = cuEventQuery(Done)) == CUDA_ERROR_NOT_READY) {
    if (std::chrono::steady_clock::now() > deadline) {
      error = "the kernel did not finish within " + std::to_string(int(Opt.timeoutSeconds)) + " s";
      return RunStatus::Fatal;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (r != CUDA_SUCCESS) {
    error = cuText(r, "the kernel (cuEventQuery)");
    return RunStatus::Fatal;
  }
  float elapsed = 0;
  if (cuEventElapsedTime(&elapsed, Start, Done) == CUDA_SUCCESS)
    ms = elapsed;
  out.assign(c.tensors.size(), {});
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const TensorBuffer *t = c.tensors[i].get();
    if (!t)
      continue;
    out[i].resize(t->allocBytes);
    if ((r = cuMemcpyDtoH(out[i].data(), t->alloc, t->allocBytes)) != CUDA_SUCCESS) {
      error = cuText(r, "cuMemcpyDtoH");
      return RunStatus::Fatal;
    }
  }
  return RunStatus::Ok;
}

/// What one run did wrong regardless of the other: clobbered guards, changed inputs.
std::vector<std::string> Runner::runIssues(const CaseSetup &c, const Images &images,
                                           const char *who) {
  std::vector<std::string> issues;
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const TensorBuffer *t = c.tensors[i].get();
    if (!t)
      continue;
    const std::vector<uint8_t> &img = images[i];
    int64_t before = countChanged(img.data(), t->initial.data(), t->lead);
    size_t tail = t->lead + t->spanBytes;
    int64_t after = countChanged(img.data() + tail, t->initial.data() + tail, GuardBytes);
    if (before || after)
      issues.push_back(t->param->name + ": the " + who + " run wrote " + std::to_string(before) +
                       " guard bytes before and " + std::to_string(after) + " after the tensor");
    if (!t->param->isWritten()) {
      int64_t changed = countChanged(t->span(img), t->span(t->initial), t->spanBytes);
      if (changed)
        issues.push_back(t->param->name + ": the " + who + " run changed " +
                         std::to_string(changed) + " bytes of this " + t->param->access +
                         " tensor");
    }
  }
  return issues;
}

bool Runner::testKernel(const KernelInfo &k, const KernelInfo &refK) {
  std::string why;
  const TargetInfo *fastTarget = selectTarget(k, Major, Minor, why);
  if (!fastTarget && !k.variantOf.empty()) {
    // A configuration the images for this device leave out (it does not fit their shared
    // memory): the launcher never runs it here.
    std::printf("%s: SKIP: a configuration left out of the image for this device (%s)\n",
                k.name.c_str(), why.c_str());
    ++Count.skips;
    return true;
  }
  const TargetInfo *refTarget = fastTarget ? selectTarget(refK, Major, Minor, why) : nullptr;
  if (!fastTarget || !refTarget) {
    std::printf("%s: FAIL: %s%s\n", k.name.c_str(), fastTarget ? "reference build: " : "",
                why.c_str());
    ++Count.failures;
    return true;
  }
  // The functions the driver loaded; a tma entry the loaded image lacks is skipped.
  std::vector<EntryRun> entries;
  for (const EntryInfo &e : fastTarget->entries) {
    CUfunction f = nullptr;
    CUresult r = cuModuleGetFunction(&f, FastModule, e.name.c_str());
    if (r == CUDA_ERROR_NOT_FOUND && e.persistent()) {
      std::printf("%s %s: SKIP: not in the image the driver loaded from the fast build\n",
                  k.name.c_str(), e.name.c_str());
      ++Count.skips;
      continue;
    }
    if (r != CUDA_SUCCESS) {
      std::printf("%s %s: FAIL: %s\n", k.name.c_str(), e.name.c_str(),
                  cuText(r, "cuModuleGetFunction").c_str());
      ++Count.failures;
      continue;
    }
    if (e.kind == "plain" && fastTarget->cubin) {
      int version = 0;
      std::optional<ArchId> id = parseArch(fastTarget->arch);
      if (cuFuncGetAttribute(&version, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f) == CUDA_SUCCESS && id &&
          version != id->major * 10 + id->minor)
        std::printf("%s: warning: the driver loaded sm_%d code, not the %s target the "
                    "manifest entries were taken from\n",
                    k.name.c_str(), version, fastTarget->arch.c_str());
    }
    entries.push_back({&e, f});
  }
  const EntryInfo *refEntry = refTarget->plainEntry();
  if (!refEntry) {
    std::printf("%s: FAIL: reference build: no plain entry for %s\n", k.name.c_str(),
                refTarget->arch.c_str());
    ++Count.failures;
    return true;
  }
  CUfunction refFunction = nullptr;
  if (CUresult r = cuModuleGetFunction(&refFunction, RefModule, refEntry->name.c_str());
      r != CUDA_SUCCESS) {
    std::printf("%s: FAIL: reference build: %s ('%s')\n", k.name.c_str(),
                cuText(r, "cuModuleGetFunction").c_str(), refEntry->name.c_str());
    ++Count.failures;
    return true;
  }
  if (entries.empty())
    return true;
  ++Count.kernels;

  std::vector<CaseChoice> cases = kernelCases(Opt, k);
  for (int ci = 0; ci < static_cast<int>(cases.size()); ++ci) {
    int index = cases[ci].index;
    bool misalign = Opt.misalign && ci % 2 == 1;
    CaseSetup c;
    std::string error;
    std::string where = k.name + " case " + std::to_string(ci);
    ++Count.cases;
    if (!setupCase(k, index, cases[ci].given, misalign, c, error)) {
      std::printf("%s [%s]: FAIL: %s\n", where.c_str(), c.plan.text.c_str(), error.c_str());
      ++Count.failures;
      continue;
    }
    if (Opt.verbose)
      std::printf("%s: [%s]%s grid %s%s\n", where.c_str(), c.plan.text.c_str(),
                  scalarsText(k, c.plan).c_str(), formatGrid(c.plan.grid).c_str(),
                  misalign ? " misaligned" : "");

    // The reference once per case.
    Launch refLaunch;
    std::string skip;
    Images refImages;
    double refMs = 0;
    if (!buildLaunch(refK, *refEntry, refFunction, c, refLaunch, skip, error)) {
      std::printf("%s [%s] reference %s: FAIL: %s\n", where.c_str(), c.plan.text.c_str(),
                  refEntry->name.c_str(), error.c_str());
      ++Count.failures;
      continue;
    }
    RunStatus status = run(refLaunch, c, refImages, error, refMs);
    if (status == RunStatus::Fatal) {
      fatal(where + " reference " + refEntry->name, error);
      return false;
    }
    if (status == RunStatus::Failed) {
      std::printf("%s [%s] reference %s: FAIL: %s\n", where.c_str(), c.plan.text.c_str(),
                  refEntry->name.c_str(), error.c_str());
      ++Count.failures;
      continue;
    }
    std::vector<std::string> refIssues = runIssues(c, refImages, "reference");

    for (const EntryRun &er : entries) {
      const EntryInfo &e = *er.entry;
      Launch launch;
      skip.clear();
      std::string head = where + " " + e.name + " [" + c.plan.text + "]";
      if (!buildLaunch(k, e, er.function, c, launch, skip, error)) {
        if (!skip.empty()) {
          std::printf("%s: SKIP: %s\n", head.c_str(), skip.c_str());
          ++Count.skips;
        } else {
          std::printf("%s: FAIL: %s\n", head.c_str(), error.c_str());
          ++Count.failures;
        }
        continue;
      }
      Images fastImages;
      double ms = 0;
      status = run(launch, c, fastImages, error, ms);
      if (status == RunStatus::Fatal) {
        fatal(head, error);
        return false;
      }
      Count.entries.insert(k.name + "/" + e.name);
      if (status == RunStatus::Failed) {
        std::printf("%s: FAIL: %s\n", head.c_str(), error.c_str());
        ++Count.failures;
        continue;
      }
      std::vector<std::string> details = runIssues(c, fastImages, "fast");
      details.insert(details.end(), refIssues.begin(), refIssues.end());
      std::vector<std::string> passing;
      double maxAbs = 0, maxRel = 0;
      int64_t mismatches = 0, compared = 0;
      for (size_t i = 0; i < c.tensors.size(); ++i) {
        const TensorBuffer *t = c.tensors[i].get();
        if (!t || !t->param->isWritten())
          continue;
        TensorComparison cmp = compareTensor(
            t->type, t->layout, toleranceFor(t->type, k.exact, k.roundsTo, k.f8Gemm),
            t->span(fastImages[i]), t->span(refImages[i]), t->span(t->initial), MismatchesShown);
        maxAbs = std::max(maxAbs, cmp.maxAbs);
        maxRel = std::max(maxRel, cmp.maxRel);
        mismatches += cmp.mismatches;
        compared += cmp.elements;
        const std::string &name = t->param->name;
        char buf[512];
        std::string worst;
        if (cmp.haveWorst)
          worst = " at " + name + formatIndex(cmp.worst.index) + " (fast " + cmp.worst.fast +
                  ", ref " + cmp.worst.ref + ")";
        if (cmp.mismatches) {
          std::snprintf(buf, sizeof(buf),
                        "%s: %" PRId64 " of %" PRId64 " elements differ (%" PRId64
                        " written by one path only); max abs err %.3g%s, atol %.3g",
                        name.c_str(), cmp.mismatches, cmp.elements, cmp.oneSided, cmp.maxAbs,
                        worst.c_str(), cmp.atol);
          std::string line = buf;
          for (const Mismatch &m : cmp.first)
            line +=
                "\n      " + name + formatIndex(m.index) + ": fast " + m.fast + ", ref " + m.ref;
          details.push_back(line);
        } else {
          std::snprintf(buf, sizeof(buf), "%s: %" PRId64 " elements agree; max abs err %.3g%s",
                        name.c_str(), cmp.elements, cmp.maxAbs, worst.c_str());
          passing.push_back(buf);
        }
        for (auto [bytes, who] :
             {std::make_pair(cmp.fastOutside, "fast"), std::make_pair(cmp.refOutside, "reference")})
          if (bytes)
            details.push_back(name + ": the " + who + " run changed " + std::to_string(bytes) +
                              " bytes between the tensor's elements (wrote outside the tensor)");
      }
      bool pass = details.empty();
      std::string gridText = formatGrid(launch.grid);
      if (e.persistent())
        gridText += " persistent";
      std::printf("%s: grid %s: %s  max abs %.3g rel %.3g  mismatches %" PRId64 "/%" PRId64,
                  head.c_str(), gridText.c_str(), pass ? "PASS" : "FAIL", maxAbs, maxRel,
                  mismatches, compared);
      if (Opt.verbose)
        std::printf("  (%.3f ms, reference %.3f ms)", ms, refMs);
      std::printf("\n");
      if (!pass) {
        ++Count.failures;
        std::printf("    reproduce: --kernel %s --seed %" PRIu64 " --case \"%s\"%s\n",
                    k.name.c_str(), Opt.seed, c.plan.text.c_str(), misalign ? " --misalign" : "");
      }
      for (const std::string &d : details)
        std::printf("    %s\n", d.c_str());
      if (Opt.verbose)
        for (const std::string &d : passing)
          std::printf("    %s\n", d.c_str());
      std::fflush(stdout);
    }
  }
  return true;
}

int main(int argc, char **argv) {
  Options opt = parseOptions(argc, argv);
  Manifest fast = loadManifest(opt.fastManifest);
  std::optional<Manifest> ref;
  if (!opt.refManifest.empty())
    ref = loadManifest(opt.refManifest);

  std::vector<const KernelInfo *> selected;
  for (const KernelInfo &k : fast.kernels) {
    bool wanted = opt.kernels.empty();
    for (const std::string &name : opt.kernels)
      wanted |= name == k.name || (!k.variantOf.empty() && name == k.variantOf);
    if (wanted)
      selected.push_back(&k);
  }
  for (const std::string &name : opt.kernels) {
    bool found = false;
    for (const KernelInfo *k : selected)
      found |= name == k->name || name == k->variantOf;
    if (!found)
      usageError("no kernel '" + name + "' in '" + opt.fastManifest + "'");
  }
  // A --case must name symbols of the selected kernels (a typo would silently be ignored).
  for (const std::string &spec : opt.caseSpecs) {
    std::vector<std::pair<std::string, int64_t>> items;
    std::string error;
    if (!parseCaseSpec(spec, items, error))
      usageError(error);
    for (const auto &item : items) {
      bool known = false;
      for (const KernelInfo *k : selected)
        known |= std::find(k->sizeSymbols.begin(), k->sizeSymbols.end(), item.first) !=
                 k->sizeSymbols.end();
      if (!known)
        usageError("--case names '" + item.first + "', a size of none of the kernels tested");
    }
  }
  if (opt.list)
    return listKernels(opt, fast, ref ? &*ref : nullptr, selected);

  Runner runner(opt);
  runner.init();
  Counters &count = runner.counters();
  for (const KernelInfo *k : selected) {
    if (std::string why = unsupportedReason(*k); !why.empty()) {
      std::printf("%s: SKIP: %s\n", k->name.c_str(), why.c_str());
      ++count.skips;
      continue;
    }
    // A reference built with the configuration parameters fixed (-D: one kernel, not the
    // variants) serves every variant of its family.
    bool familyReference = false;
    const KernelInfo *r = findReference(*ref, *k, familyReference);
    if (!r) {
      std::printf("%s: FAIL: no kernel '%s' in the reference manifest '%s'\n", k->name.c_str(),
                  k->name.c_str(), opt.refManifest.c_str());
      ++count.failures;
      continue;
    }
    if (std::string why = abiMismatch(*k, *r, familyReference); !why.empty()) {
      std::printf("%s: FAIL: the reference build differs: %s\n", k->name.c_str(), why.c_str());
      ++count.failures;
      continue;
    }
    if (!runner.testKernel(*k, *r))
      break;
  }
  if (count.skips)
    std::printf("difftest: %d skipped\n", count.skips);
  if (count.copiedLaunches)
    std::printf("difftest: %d launches of tma entries read aligned copies of tensors\n",
                count.copiedLaunches);
  if (count.streamKLaunches)
    std::printf("difftest: %d launches of stream-K entries split tiles along K\n",
                count.streamKLaunches);
  if (count.clusterLaunches)
    std::printf("difftest: %d launches in clusters of pairs sharing their loads\n",
                count.clusterLaunches);
  if (count.tmaStoreLaunches || count.vectorStoreLaunches)
    std::printf("difftest: %d launches stored rows with TMA, %d as vectors (store maps not "
                "encoded)\n",
                count.tmaStoreLaunches, count.vectorStoreLaunches);
  std::printf("difftest: %d kernels, %zu entries, %d cases, %d failures\n", count.kernels,
              count.entries.size(), count.cases, count.failures);
  return count.failures ? 1 : 0;
}
