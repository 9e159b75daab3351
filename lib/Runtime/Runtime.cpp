//===- Runtime.cpp - Driver-API run-time support for tlc launchers --------===//
//
// Status, the per-launcher module cache and the checked kernel launch used by
// the launchers tlc generates. CUDA driver API only.
//
//===----------------------------------------------------------------------===//

#include "tlc/Runtime/Runtime.h"

#include <atomic>
#include <cstring>

namespace tlc::rt {

/// Dynamic shared memory a kernel may use without opting in.
static constexpr unsigned DefaultDynamicSharedLimit = 48 * 1024;
static constexpr int64_t MaxGridX = 2147483647; // 2^31 - 1
static constexpr int64_t MaxGridYZ = 65535;

Status Status::error(CUresult code, std::string message) {
  if (code == CUDA_SUCCESS)
    code = CUDA_ERROR_UNKNOWN;
  return Status(code, std::move(message));
}

std::string describeResult(CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  std::string out;
  if (cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    out = name;
  else
    out = "CUresult " + std::to_string(static_cast<int>(result));
  if (cuGetErrorString(result, &text) == CUDA_SUCCESS && text) {
    out += " (";
    out += text;
    out += ")";
  }
  return out;
}

Status Status::fromCuda(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return success();
  std::string message = "tlc: ";
  message += call;
  message += " failed: ";
  message += describeResult(result);
  return error(result, std::move(message));
}

Status negativeSizeError(const char *kernel, const char *symbol, int64_t value) {
  std::string message = "tlc: ";
  message += kernel;
  message += ": size '";
  message += symbol;
  message += "' is negative (" + std::to_string(value) + ")";
  return Status::error(CUDA_ERROR_INVALID_VALUE, std::move(message));
}

//===----------------------------------------------------------------------===//
// ModuleCache
//===----------------------------------------------------------------------===//

Status ModuleCache::getFunction(const char *kernelName, CUfunction *out) {
  return lookup(kernelName, out, /*allowMissing=*/false);
}

Status ModuleCache::findFunction(const char *kernelName, CUfunction *out) {
  return lookup(kernelName, out, /*allowMissing=*/true);
}

Status ModuleCache::lookup(const char *kernelName, CUfunction *out, bool allowMissing) {
  if (!out)
    return Status::error(CUDA_ERROR_INVALID_VALUE, "tlc: getFunction: null output pointer");
  *out = nullptr;
  if (!kernelName)
    return Status::error(CUDA_ERROR_INVALID_VALUE, "tlc: getFunction: null kernel name");

  std::lock_guard<std::mutex> lock(Mutex);
  if (!Initialized) {
    // cuInit is itself idempotent; calling it once per cache keeps the fast
    // path free of it.
    if (Status s = Status::fromCuda(cuInit(0), "cuInit"); !s.ok())
      return s;
    Initialized = true;
  }

  CUcontext context = nullptr;
  if (Status s = Status::fromCuda(cuCtxGetCurrent(&context), "cuCtxGetCurrent"); !s.ok())
    return s;
  if (!context) {
    // No current context: use (and keep) device 0's primary context, as the
    // CUDA runtime API would.
    if (!RetainedPrimary) {
      CUdevice device = 0;
      if (Status s = Status::fromCuda(cuDeviceGet(&device, 0), "cuDeviceGet"); !s.ok())
        return s;
      CUcontext primary = nullptr;
      if (Status s = Status::fromCuda(cuDevicePrimaryCtxRetain(&primary, device),
                                      "cuDevicePrimaryCtxRetain");
          !s.ok())
        return s;
      RetainedDevice = device;
      RetainedPrimary = primary;
    }
    if (Status s = Status::fromCuda(cuCtxSetCurrent(RetainedPrimary), "cuCtxSetCurrent"); !s.ok())
      return s;
    context = RetainedPrimary;
  }

  unsigned long long contextId = 0;
  if (Status s = Status::fromCuda(cuCtxGetId(context, &contextId), "cuCtxGetId"); !s.ok())
    return s;

  LoadedModule *loaded = nullptr;
  for (LoadedModule &m : Modules) {
    if (m.ContextId == contextId) {
      loaded = &m;
      break;
    }
  }
  if (!loaded) {
    if (!Image || ImageSize == 0)
      return Status::error(CUDA_ERROR_INVALID_IMAGE, "tlc: the embedded kernel image is empty");
    CUmodule module = nullptr;
    if (Status s = Status::fromCuda(cuModuleLoadData(&module, Image), "cuModuleLoadData"); !s.ok())
      return s;
    Modules.push_back(LoadedModule{contextId, context, module, {}});
    loaded = &Modules.back();
  }

  for (const auto &entry : loaded->Functions) {
    if (std::strcmp(entry.first.c_str(), kernelName) == 0) {
      if (!entry.second && !allowMissing)
        return Status::error(CUDA_ERROR_NOT_FOUND, std::string("tlc: kernel '") + kernelName +
                                                       "' is not in the loaded image");
      *out = entry.second;
      return Status::success();
    }
  }
  CUfunction function = nullptr;
  CUresult result = cuModuleGetFunction(&function, loaded->Module, kernelName);
  if (result == CUDA_ERROR_NOT_FOUND && allowMissing) {
    // Remembered as absent: the architecture the driver loaded has no such entry.
    loaded->Functions.emplace_back(kernelName, nullptr);
    return Status::success();
  }
  if (result != CUDA_SUCCESS) {
    Status s = Status::fromCuda(result, "cuModuleGetFunction");
    return Status::error(s.code(), s.message() + " (kernel '" + kernelName + "')");
  }
  loaded->Functions.emplace_back(kernelName, function);
  *out = function;
  return Status::success();
}

Status encodeTensorMap(CUtensorMap *out, CUdeviceptr base, int rank, const int64_t *sizes,
                       const int64_t *strides, unsigned elementBytes, CUtensorMapDataType dataType,
                       uint32_t boxRows, uint32_t boxCols, unsigned swizzleBytes,
                       const char *kernel, const char *tensor) {
  std::string where = std::string("tlc: ") + kernel + ": tensor '" + tensor + "'";
  if (rank < 2 || rank > 5)
    return Status::error(CUDA_ERROR_INVALID_VALUE, where + " has rank " + std::to_string(rank) +
                                                       "; TMA copies read tensors of rank 2 to 5");
  int64_t colStride = strides[rank - 1], rowStride = strides[rank - 2];
  if (colStride != 1)
    return Status::error(CUDA_ERROR_INVALID_VALUE,
                         where +
                             " must have unit stride in its last dimension for TMA "
                             "copies (it is " +
                             std::to_string(colStride) + ")");
  if (base % 16 != 0)
    return Status::error(CUDA_ERROR_INVALID_VALUE,
                         where + " must start at a 16-byte aligned address for TMA copies");
  if ((rowStride * static_cast<int64_t>(elementBytes)) % 16 != 0 || rowStride < 0)
    return Status::error(
        CUDA_ERROR_INVALID_VALUE,
        where + " has a row stride of " + std::to_string(rowStride) +
            " elements; TMA copies need a non-negative multiple of 16 bytes (pad the "
            "leading dimension to a multiple of " +
            std::to_string(16 / elementBytes) + " elements)");
  for (int d = 0; d + 2 < rank; ++d)
    if (!tmaLeadingStrideOk(sizes[d], strides[d], elementBytes))
      return Status::error(CUDA_ERROR_INVALID_VALUE,
                           where + " has a stride of " + std::to_string(strides[d]) +
                               " elements in dimension " + std::to_string(d) +
                               "; TMA copies need a positive multiple of 16 bytes there");
  CUtensorMapSwizzle swizzle = swizzleBytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                               : swizzleBytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                               : swizzleBytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                    : CU_TENSOR_MAP_SWIZZLE_NONE;
  // The driver's order is innermost first; sizes below 1 (an empty tensor) encode as 1, strides
  // of 0 (a dimension of size 1 or 0) as 16 bytes.
  cuuint64_t dims[5], byteStrides[4];
  cuuint32_t box[5], elementStrides[5];
  for (int i = 0; i < rank; ++i) {
    int d = rank - 1 - i;
    dims[i] = static_cast<cuuint64_t>(sizes[d] < 1 ? 1 : sizes[d]);
    box[i] = i == 0 ? boxCols : i == 1 ? boxRows : 1;
    elementStrides[i] = 1;
    if (i > 0) {
      byteStrides[i - 1] = static_cast<cuuint64_t>(strides[d]) * elementBytes;
      if (byteStrides[i - 1] == 0)
        byteStrides[i - 1] = 16;
    }
  }
  Status s = Status::fromCuda(
      cuTensorMapEncodeTiled(out, dataType, static_cast<cuuint32_t>(rank),
                             reinterpret_cast<void *>(base), dims, byteStrides, box, elementStrides,
                             CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
      "cuTensorMapEncodeTiled");
  if (!s.ok())
    return Status::error(s.code(), s.message() + " (" + where.substr(5) + ")");
  return Status::success();
}

Status encodeTensorMap2D(CUtensorMap *out, CUdeviceptr base, int64_t rows, int64_t cols,
                         int64_t rowStride, int64_t colStride, unsigned elementBytes,
                         CUtensorMapDataType dataType, uint32_t boxRows, uint32_t boxCols,
                         unsigned swizzleBytes, const char *kernel, const char *tensor) {
  const int64_t sizes[2] = {rows, cols}, strides[2] = {rowStride, colStride};
  return encodeTensorMap(out, base, 2, sizes, strides, elementBytes, dataType, boxRows, boxCols,
                         swizzleBytes, kernel, tensor);
}

int32_t encodeStoreMap2D(CUtensorMap *out, CUdeviceptr base, int64_t rows, int64_t cols,
                         int64_t rowStride, int64_t colStride, unsigned elementBytes,
                         uint32_t boxRows, uint32_t boxCols, unsigned swizzleBytes) {
  std::memset(out, 0, sizeof(*out));
  if ((elementBytes != 2 && elementBytes != 4) ||
      !tmaCompatible2D(base, rowStride, colStride, elementBytes))
    return 0;
  // TMA only moves a store map's elements: their type is their size.
  CUtensorMapDataType type =
      elementBytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : CU_TENSOR_MAP_DATA_TYPE_UINT32;
  const int64_t sizes[2] = {rows, cols}, strides[2] = {rowStride, colStride};
  return encodeTensorMap(out, base, 2, sizes, strides, elementBytes, type, boxRows, boxCols,
                         swizzleBytes, "", "")
                 .ok()
             ? 1
             : 0;
}

void ModuleCache::unload() {
  std::lock_guard<std::mutex> lock(Mutex);
  for (const LoadedModule &m : Modules) {
    // Only contexts that still exist with the same identity own the module.
    unsigned long long id = 0;
    if (cuCtxGetId(m.Context, &id) != CUDA_SUCCESS || id != m.ContextId)
      continue;
    // cuModuleUnload works on the current context.
    if (cuCtxPushCurrent(m.Context) != CUDA_SUCCESS)
      continue;
    (void)cuModuleUnload(m.Module);
    CUcontext popped = nullptr;
    (void)cuCtxPopCurrent(&popped);
  }
  Modules.clear();
  if (RetainedPrimary) {
    // Leave no thread pointing at a context we may be about to destroy.
    CUcontext current = nullptr;
    if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == RetainedPrimary)
      (void)cuCtxSetCurrent(nullptr);
    (void)cuDevicePrimaryCtxRelease(RetainedDevice);
    RetainedPrimary = nullptr;
  }
}

//===----------------------------------------------------------------------===//
// Workspaces and TMA operands
//===----------------------------------------------------------------------===//

/// Devices that may have a workspace pool.
static constexpr int MaxPoolDevices = 64;

/// Guards the pools; both have trivial destructors (launches may run during exit).
static std::mutex &poolMutex() {
  static std::mutex *mutex = new std::mutex;
  return *mutex;
}
static CUmemoryPool pools[MaxPoolDevices];
/// Devices found to have no memory pools (or one that could not be created).
static bool poolless[MaxPoolDevices];

/// The device of the current context (device 0 when none is current).
static Status currentDevice(CUdevice *device) {
  CUcontext context = nullptr;
  if (Status s = Status::fromCuda(cuCtxGetCurrent(&context), "cuCtxGetCurrent"); !s.ok())
    return s;
  if (context)
    return Status::fromCuda(cuCtxGetDevice(device), "cuCtxGetDevice");
  return Status::fromCuda(cuDeviceGet(device, 0), "cuDeviceGet");
}

/// tlc's pool on \p device, created on first use; null where the device has no memory pools.
static Status workspacePool(CUdevice device, CUmemoryPool *out) {
  *out = nullptr;
  if (device < 0 || device >= MaxPoolDevices)
    return Status::success();
  std::lock_guard<std::mutex> lock(poolMutex());
  if (pools[device] || poolless[device]) {
    *out = pools[device];
    return Status::success();
  }
  int supported = 0;
  if (Status s = Status::fromCuda(
          cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device),
          "cuDeviceGetAttribute");
      !s.ok())
    return s;
  CUmemPoolProps props;
  std::memset(&props, 0, sizeof(props));
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device;
  CUmemoryPool pool = nullptr;
  if (!supported || cuMemPoolCreate(&pool, &props) != CUDA_SUCCESS) {
    poolless[device] = true;
    return Status::success();
  }
  // Keep freed workspaces for the next launch instead of returning them to the device at each
  // synchronization (the default threshold, 0): trimWorkspaceMemory returns them.
  cuuint64_t threshold = UINT64_MAX;
  (void)cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
  pools[device] = pool;
  *out = pool;
  return Status::success();
}

Status Workspace::allocate(size_t bytes, CUstream stream, bool *available) {
  *available = false;
  release();
  CUdevice device = 0;
  if (Status s = currentDevice(&device); !s.ok())
    return s;
  CUmemoryPool pool = nullptr;
  if (Status s = workspacePool(device, &pool); !s.ok() || !pool)
    return s;
  CUdeviceptr address = 0;
  CUresult result = cuMemAllocFromPoolAsync(&address, bytes ? bytes : 1, pool, stream);
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    return Status::success();
  if (Status s = Status::fromCuda(result, "cuMemAllocFromPoolAsync"); !s.ok())
    return s;
  Address = address;
  Stream = stream;
  *available = true;
  return Status::success();
}

void Workspace::release() {
  if (Address)
    (void)cuMemFreeAsync(Address, Stream);
  Address = 0;
  Stream = nullptr;
}

static std::atomic<StreamK> &streamKSetting() {
  // Automatic by default: only few tiles with a long K split (streamKPays); elsewhere the
  // fix-up costs more than the idle wave saves (bench/RESULTS.md, thirty-second and
  // thirty-ninth sessions).
  static std::atomic<StreamK> mode{StreamK::Automatic};
  return mode;
}

void setStreamK(StreamK mode) { streamKSetting().store(mode); }

void setStreamK(bool enabled) { setStreamK(enabled ? StreamK::On : StreamK::Off); }

StreamK streamKMode() { return streamKSetting().load(); }

bool streamKSplits(int64_t tiles, int multiprocessors, int64_t iterations) {
  switch (streamKMode()) {
  case StreamK::On:
    return useStreamK(tiles, multiprocessors);
  case StreamK::Automatic:
    return streamKPays(tiles, multiprocessors, iterations);
  case StreamK::Off:
    break;
  }
  return false;
}

Status prepareStreamK(int64_t tiles, int multiprocessors, int64_t iterations, int64_t slotBytes,
                      CUstream stream, Workspace &workspace, CUdeviceptr *out) {
  *out = 0;
  if (slotBytes <= 0 || !streamKSplits(tiles, multiprocessors, iterations))
    return Status::success();
  const int64_t flags = streamKFlagBytes(multiprocessors);
  bool available = false;
  if (Status s = workspace.allocate(static_cast<size_t>(flags + multiprocessors * slotBytes),
                                    stream, &available);
      !s.ok() || !available)
    return s;
  if (Status s = Status::fromCuda(
          cuMemsetD32Async(workspace.address(), 0, static_cast<size_t>(flags / 4), stream),
          "cuMemsetD32Async");
      !s.ok())
    return s;
  *out = workspace.address();
  return Status::success();
}

void trimWorkspaceMemory() {
  std::lock_guard<std::mutex> lock(poolMutex());
  for (CUmemoryPool pool : pools)
    if (pool)
      (void)cuMemPoolTrimTo(pool, 0);
}

/// Rows of a repacked copy are padded to a multiple of this many elements (128 bytes for 2-byte
/// elements: whole 128-byte swizzle rows).
static constexpr int64_t RepackRowMultiple = 64;
/// Workspace parts start at multiples of this many bytes.
static constexpr int64_t WorkspaceAlignment = 256;
/// The largest workspace part considered (bytes): larger tensors take the other entries.
static constexpr int64_t MaxRepackBytes = int64_t(1) << 40;

/// prepareTmaOperands, \p lookup giving the repack kernel's function (null: none) when an
/// operand needs a copy.
template <typename Lookup>
static Status prepare(Lookup lookup, const RepackKernel &repack, TmaOperand *operands, int count,
                      CUstream stream, Workspace &workspace, bool *useTma, bool realign) {
  *useTma = false;
  // Whether some copy is needed for TMA to read at all (not only to realign rows).
  bool needed = false;
  // The operand whose copy each operand reads (-1: read in place), and where each copy goes in
  // the workspace.
  std::vector<int> copyOf(count, -1);
  std::vector<int64_t> offsets(count, -1), leading(count, 0);
  int64_t bytes = 0;
  for (int i = 0; i < count; ++i) {
    const TmaOperand &op = operands[i];
    if (op.outerDims > 0) {
      // Rank 3 to 5: read in place or not at all (no copy of such tensors).
      int64_t sizes[5], strides[5];
      for (unsigned d = 0; d < op.outerDims && d < 3; ++d)
        sizes[d] = op.outerSizes[d], strides[d] = op.outerStrides[d];
      int rank = static_cast<int>(op.outerDims) + 2;
      if (rank > 5)
        return Status::success();
      sizes[rank - 2] = op.rows, sizes[rank - 1] = op.cols;
      strides[rank - 2] = *op.rowStride, strides[rank - 1] = *op.colStride;
      if (!tmaCompatible(*op.base, rank, sizes, strides, op.elementBytes))
        return Status::success();
      continue;
    }
    bool compatible = tmaCompatible2D(*op.base, *op.rowStride, *op.colStride, op.elementBytes);
    if (compatible &&
        (!realign || !op.mnMajor || tmaSectorAligned2D(*op.base, *op.rowStride, op.elementBytes)))
      continue;
    // The same tensor (kernel parameter) under two maps is copied once: the later operand
    // reads the first one's copy.
    for (int j = 0; j < i && copyOf[i] < 0; ++j)
      if (offsets[j] >= 0 && operands[j].base == op.base)
        copyOf[i] = j;
    if (copyOf[i] >= 0)
      continue;
    // An operand that cannot be copied: read in place where TMA can, else no TMA.
    int64_t ld = ceilDiv(std::max<int64_t>(op.cols, 1), RepackRowMultiple) * RepackRowMultiple;
    if (!op.readOnly || op.elementBytes != 2 || op.rows < 1 || op.cols < 1 ||
        ceilDiv(op.cols, repack.tileCols) > 65535 ||
        op.rows > MaxRepackBytes / (ld * op.elementBytes)) {
      if (compatible)
        continue;
      return Status::success();
    }
    needed |= !compatible;
    copyOf[i] = i;
    offsets[i] = bytes;
    leading[i] = ld;
    bytes += ceilDiv(op.rows * ld * op.elementBytes, WorkspaceAlignment) * WorkspaceAlignment;
    if (bytes > MaxRepackBytes)
      return Status::success();
  }
  if (bytes == 0) {
    *useTma = true;
    return Status::success();
  }
  // Copies made only to realign rows are skipped where they cannot be made: TMA reads those
  // operands in place.
  auto inPlace = [&] {
    for (int i = 0; i < count; ++i)
      copyOf[i] = -1;
    *useTma = true;
  };
  CUfunction function = nullptr;
  if (Status s = lookup(&function); !s.ok() || !function) {
    if (s.ok() && !needed)
      inPlace();
    return s;
  }
  bool available = false;
  if (Status s = workspace.allocate(static_cast<size_t>(bytes), stream, &available);
      !s.ok() || !available) {
    if (s.ok() && !needed)
      inPlace();
    return s;
  }
  for (int i = 0; i < count; ++i) {
    if (offsets[i] < 0)
      continue;
    TmaOperand &op = operands[i];
    CUdeviceptr source = *op.base;
    CUdeviceptr copy = workspace.address() + static_cast<CUdeviceptr>(offsets[i]);
    int64_t rows = op.rows, cols = op.cols, rowStride = *op.rowStride, colStride = *op.colStride,
            ld = leading[i], one = 1;
    // The repack kernel's parameters (docs/abi.md): S [rows, cols] strides [rowStride,
    // colStride], then D [rows, cols] strides [ld, 1].
    void *args[] = {&source, &rows, &cols, &rowStride, &colStride, &copy, &rows, &cols, &ld, &one};
    const int64_t grid[3] = {ceilDiv(rows, repack.tileRows), ceilDiv(cols, repack.tileCols), 1};
    const unsigned block[3] = {repack.threads, 1, 1};
    if (Status s = launch(function, grid, block, repack.sharedBytes, stream, args); !s.ok())
      return s;
  }
  for (int i = 0; i < count; ++i) {
    int first = copyOf[i];
    if (first < 0)
      continue;
    TmaOperand &op = operands[i];
    *op.base = workspace.address() + static_cast<CUdeviceptr>(offsets[first]);
    *op.rowStride = leading[first];
    *op.colStride = 1;
  }
  *useTma = true;
  return Status::success();
}

Status prepareTmaOperands(ModuleCache &cache, const RepackKernel &repack, TmaOperand *operands,
                          int count, CUstream stream, Workspace &workspace, bool *useTma,
                          bool realign) {
  auto lookup = [&](CUfunction *out) { return cache.findFunction(repack.entry, out); };
  return prepare(lookup, repack, operands, count, stream, workspace, useTma, realign);
}

Status prepareTmaOperands(CUfunction repackFunction, const RepackKernel &repack,
                          TmaOperand *operands, int count, CUstream stream, Workspace &workspace,
                          bool *useTma, bool realign) {
  auto lookup = [&](CUfunction *out) {
    *out = repackFunction;
    return Status::success();
  };
  return prepare(lookup, repack, operands, count, stream, workspace, useTma, realign);
}

//===----------------------------------------------------------------------===//
// Multiprocessor counts and the variant dispatcher
//===----------------------------------------------------------------------===//

/// Devices whose multiprocessor count is cached; larger ordinals are queried each time.
static constexpr int MaxCachedDevices = 64;

Status multiprocessorCount(int *out) {
  if (!out)
    return Status::error(CUDA_ERROR_INVALID_VALUE, "tlc: multiprocessorCount: null output pointer");
  *out = 0;
  // Trivially destructible state only: launches may still run while statics are destroyed at
  // exit.
  static std::atomic<bool> initialized{false};
  static std::atomic<int> counts[MaxCachedDevices];
  if (!initialized.load(std::memory_order_acquire)) {
    if (Status s = Status::fromCuda(cuInit(0), "cuInit"); !s.ok())
      return s;
    initialized.store(true, std::memory_order_release);
  }
  CUdevice device = 0;
  if (Status s = currentDevice(&device); !s.ok())
    return s;
  bool cached = device >= 0 && device < MaxCachedDevices;
  if (cached) {
    int count = counts[device].load(std::memory_order_relaxed);
    if (count > 0) {
      *out = count;
      return Status::success();
    }
  }
  int count = 0;
  if (Status s = Status::fromCuda(
          cuDeviceGetAttribute(&count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
          "cuDeviceGetAttribute");
      !s.ok())
    return s;
  if (cached && count > 0)
    counts[device].store(count, std::memory_order_relaxed);
  *out = count;
  return Status::success();
}

Status presentVariants(ModuleCache &cache, const char *const (*entries)[3], int count,
                       bool *present) {
  for (int i = 0; i < count; ++i) {
    present[i] = false;
    for (const char *entry : entries[i]) {
      if (!entry || present[i])
        continue;
      CUfunction function = nullptr;
      if (Status s = cache.findFunction(entry, &function); !s.ok())
        return s;
      present[i] = function != nullptr;
    }
  }
  return Status::success();
}

Status selectVariant(const int64_t *blocks, int count, int *out) {
  if (!out)
    return Status::error(CUDA_ERROR_INVALID_VALUE, "tlc: selectVariant: null output pointer");
  *out = 0;
  if (count <= 1)
    return Status::success();
  bool anyBlocks = false;
  for (int i = 0; i < count; ++i)
    anyBlocks |= blocks[i] > 0;
  if (!anyBlocks)
    return Status::success();
  int multiprocessors = 0;
  if (Status s = multiprocessorCount(&multiprocessors); !s.ok())
    return s;
  *out = chooseVariant(blocks, count, multiprocessors);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

/// Returns the kernel's name for messages, or "kernel" if unknown.
static std::string kernelLabel(CUfunction function) {
  const char *name = nullptr;
  if (function && cuFuncGetName(&name, function) == CUDA_SUCCESS && name)
    return std::string("'") + name + "'";
  return "kernel";
}

static Status gridError(CUfunction function, const char *axis, int64_t value, int64_t limit) {
  std::string message = "tlc: cannot launch " + kernelLabel(function) + ": grid." + axis + " = " +
                        std::to_string(value);
  if (value < 1)
    message += " must be at least 1";
  else
    message += " exceeds the limit of " + std::to_string(limit) + " blocks";
  return Status::error(CUDA_ERROR_INVALID_VALUE, std::move(message));
}

/// Checks a launch's grid and block and raises the function's dynamic shared memory limit where
/// \p sharedBytes needs it.
static Status checkLaunch(CUfunction function, const int64_t grid[3], const unsigned block[3],
                          unsigned sharedBytes) {
  if (!function)
    return Status::error(CUDA_ERROR_INVALID_HANDLE, "tlc: cannot launch a null function");
  static const char *const Axes[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    int64_t limit = i == 0 ? MaxGridX : MaxGridYZ;
    if (grid[i] < 1 || grid[i] > limit)
      return gridError(function, Axes[i], grid[i], limit);
  }
  for (int i = 0; i < 3; ++i) {
    if (block[i] < 1)
      return Status::error(CUDA_ERROR_INVALID_VALUE, "tlc: cannot launch " + kernelLabel(function) +
                                                         ": block." + Axes[i] +
                                                         " = 0 must be at least 1");
  }
  if (sharedBytes > DefaultDynamicSharedLimit) {
    CUresult result = cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         static_cast<int>(sharedBytes));
    if (result != CUDA_SUCCESS) {
      Status s = Status::fromCuda(result, "cuFuncSetAttribute");
      return Status::error(s.code(), s.message() + " (requesting " + std::to_string(sharedBytes) +
                                         " bytes of dynamic shared memory for " +
                                         kernelLabel(function) + ")");
    }
  }
  return Status::success();
}

Status launch(CUfunction function, const int64_t grid[3], const unsigned block[3],
              unsigned sharedBytes, CUstream stream, void **args) {
  if (Status s = checkLaunch(function, grid, block, sharedBytes); !s.ok())
    return s;
  CUresult result =
      cuLaunchKernel(function, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                     static_cast<unsigned>(grid[2]), block[0], block[1], block[2], sharedBytes,
                     stream, args, nullptr);
  if (result != CUDA_SUCCESS) {
    Status s = Status::fromCuda(result, "cuLaunchKernel");
    return Status::error(s.code(), s.message() + " (" + kernelLabel(function) + ")");
  }
  return Status::success();
}

/// A launch configuration of \p grid, \p block and \p sharedBytes on \p stream with clusters of
/// \p clusterSize blocks along x (\p attribute holds the cluster's dimension).
static CUlaunchConfig clusterConfig(const int64_t grid[3], const unsigned block[3],
                                    unsigned sharedBytes, unsigned clusterSize, CUstream stream,
                                    CUlaunchAttribute &attribute) {
  attribute = CUlaunchAttribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = clusterSize;
  attribute.value.clusterDim.y = 1;
  attribute.value.clusterDim.z = 1;
  CUlaunchConfig config{};
  config.gridDimX = static_cast<unsigned>(grid[0]);
  config.gridDimY = static_cast<unsigned>(grid[1]);
  config.gridDimZ = static_cast<unsigned>(grid[2]);
  config.blockDimX = block[0];
  config.blockDimY = block[1];
  config.blockDimZ = block[2];
  config.sharedMemBytes = sharedBytes;
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

Status launchClusters(CUfunction function, const int64_t grid[3], const unsigned block[3],
                      unsigned sharedBytes, unsigned clusterSize, CUstream stream, void **args) {
  if (Status s = checkLaunch(function, grid, block, sharedBytes); !s.ok())
    return s;
  if (clusterSize < 1 || grid[0] % clusterSize != 0)
    return Status::error(CUDA_ERROR_INVALID_VALUE, "tlc: cannot launch " + kernelLabel(function) +
                                                       ": grid.x = " + std::to_string(grid[0]) +
                                                       " is not a multiple of the cluster's " +
                                                       std::to_string(clusterSize) + " blocks");
  CUlaunchAttribute attribute;
  CUlaunchConfig config = clusterConfig(grid, block, sharedBytes, clusterSize, stream, attribute);
  CUresult result = cuLaunchKernelEx(&config, function, args, nullptr);
  if (result != CUDA_SUCCESS) {
    Status s = Status::fromCuda(result, "cuLaunchKernelEx");
    return Status::error(s.code(), s.message() + " (" + kernelLabel(function) + ")");
  }
  return Status::success();
}

/// Functions whose active cluster count is cached (trivially destructible: launches may run
/// while statics are destroyed at exit); more are queried each time.
static constexpr int MaxCachedClusterFunctions = 64;

Status activeClusters(CUfunction function, unsigned threads, unsigned sharedBytes,
                      unsigned clusterSize, int *out) {
  if (!out)
    return Status::error(CUDA_ERROR_INVALID_VALUE, "tlc: activeClusters: null output pointer");
  *out = 0;
  // Keyed by function (one per context and module): its shared memory and cluster are fixed
  // by the launcher that asks. A slot holds the count plus one once published (0: not yet).
  static std::atomic<CUfunction> functions[MaxCachedClusterFunctions];
  static std::atomic<int> counts[MaxCachedClusterFunctions];
  for (int i = 0; i < MaxCachedClusterFunctions; ++i) {
    CUfunction cached = functions[i].load(std::memory_order_acquire);
    if (!cached)
      break;
    if (cached == function) {
      if (int published = counts[i].load(std::memory_order_acquire); published > 0) {
        *out = published - 1;
        return Status::success();
      }
      break;
    }
  }
  const int64_t grid[3] = {clusterSize, 1, 1};
  const unsigned block[3] = {threads, 1, 1};
  if (Status s = checkLaunch(function, grid, block, sharedBytes); !s.ok())
    return s;
  CUlaunchAttribute attribute;
  CUlaunchConfig config =
      clusterConfig(grid, block, sharedBytes, clusterSize, /*stream=*/nullptr, attribute);
  int count = 0;
  if (Status s = Status::fromCuda(cuOccupancyMaxActiveClusters(&count, function, &config),
                                  "cuOccupancyMaxActiveClusters");
      !s.ok())
    return s;
  for (int i = 0; i < MaxCachedClusterFunctions; ++i) {
    CUfunction expected = nullptr;
    if (functions[i].compare_exchange_strong(expected, function, std::memory_order_acq_rel)) {
      counts[i].store(count + 1, std::memory_order_release);
      break;
    }
    if (expected == function)
      break;
  }
  *out = count;
  return Status::success();
}

static std::atomic<bool> &clusterSwitch() {
  static std::atomic<bool> enabled{true};
  return enabled;
}

void setClusters(bool enabled) { clusterSwitch().store(enabled); }

bool clustersEnabled() { return clusterSwitch().load(); }

} // namespace tlc::rt
