//===- TileAttrs.cpp - Layouts, targets and the verified tile.* attributes ===//
#include "tlc/Dialect/Tile/IR/TileAttrs.h"
#include "tlc/Dialect/Tile/IR/TileOps.h"
#include "tlc/Layout/Layout.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

#include "tlc/Dialect/Tile/IR/TileAttrInterfaces.cpp.inc"
#include "tlc/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tlc/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tlc/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Register layouts
//===----------------------------------------------------------------------===//

std::optional<std::pair<int64_t, int64_t>>
FragmentLayoutAttrInterface::getOwner(ArrayRef<int64_t> shape, int64_t row, int64_t col) {
  int64_t slots = getNumSlots(shape);
  for (int64_t thread = 0, e = getNumThreads(); thread < e; ++thread)
    for (int64_t slot = 0; slot < slots; ++slot)
      if (getCoord(shape, thread, slot) == std::make_pair(row, shape.size() == 1 ? 0 : col))
        return std::make_pair(thread, slot);
  return std::nullopt;
}

static layout::WgmmaAccLayout wgmmaLayout(WgmmaAccLayoutAttr attr, ArrayRef<int64_t> shape) {
  return {shape[0], shape[1], attr.getWarpgroupsM(), attr.getWarpgroupsN()};
}

static layout::MmaSyncAccLayout mmaLayout(int64_t warpsM, int64_t warpsN, ArrayRef<int64_t> shape) {
  // A row layout sits beside an accumulator of any width: its rows alone decide the slots.
  return {shape[0], shape.size() == 2 ? shape[1] : 16 * warpsN, warpsM, warpsN};
}

LogicalResult WgmmaAccLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         int64_t warpgroupsM, int64_t warpgroupsN) {
  if (warpgroupsM < 1 || warpgroupsN < 1 || warpgroupsM * warpgroupsN > 4)
    return emitError() << "wgmma accumulator layouts take 1 to 4 warpgroups, got " << warpgroupsM
                       << " x " << warpgroupsN;
  return success();
}

int64_t WgmmaAccLayoutAttr::getNumThreads() const {
  return 128 * getWarpgroupsM() * getWarpgroupsN();
}

LogicalResult WgmmaAccLayoutAttr::verifyShape(function_ref<InFlightDiagnostic()> emitError,
                                              ArrayRef<int64_t> shape) const {
  if (shape.size() != 2)
    return emitError() << "a wgmma accumulator layout needs a rank-2 fragment";
  if (shape[0] % (64 * getWarpgroupsM()) != 0 || shape[1] % getWarpgroupsN() != 0)
    return emitError() << "a " << shape[0] << "x" << shape[1] << " fragment does not split into "
                       << getWarpgroupsM() << " x " << getWarpgroupsN()
                       << " warpgroups of 64-row wgmma tiles";
  int64_t n = shape[1] / getWarpgroupsN();
  if (n % 8 != 0 || n > 256)
    return emitError() << "wgmma's N would be " << n << " (a multiple of 8, at most 256)";
  return success();
}

int64_t WgmmaAccLayoutAttr::getNumSlots(ArrayRef<int64_t> shape) const {
  return wgmmaLayout(*this, shape).slots();
}

std::pair<int64_t, int64_t> WgmmaAccLayoutAttr::getCoord(ArrayRef<int64_t> shape, int64_t thread,
                                                         int64_t slot) const {
  return wgmmaLayout(*this, shape).coord(thread, slot);
}

LogicalResult MmaSyncAccLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                           int64_t warpsM, int64_t warpsN) {
  if (warpsM < 1 || warpsN < 1 || warpsM * warpsN > 32)
    return emitError() << "mma.sync accumulator layouts take 1 to 32 warps, got " << warpsM << " x "
                       << warpsN;
  return success();
}

int64_t MmaSyncAccLayoutAttr::getNumThreads() const { return 32 * getWarpsM() * getWarpsN(); }

LogicalResult MmaSyncAccLayoutAttr::verifyShape(function_ref<InFlightDiagnostic()> emitError,
                                                ArrayRef<int64_t> shape) const {
  if (shape.size() != 2)
    return emitError() << "an mma.sync accumulator layout needs a rank-2 fragment";
  if (shape[0] % (16 * getWarpsM()) != 0 || shape[1] % (8 * getWarpsN()) != 0)
    return emitError() << "a " << shape[0] << "x" << shape[1] << " fragment does not split into "
                       << getWarpsM() << " x " << getWarpsN() << " warps of m16n8 tiles";
  return success();
}

int64_t MmaSyncAccLayoutAttr::getNumSlots(ArrayRef<int64_t> shape) const {
  return mmaLayout(getWarpsM(), getWarpsN(), shape).slots();
}

std::pair<int64_t, int64_t> MmaSyncAccLayoutAttr::getCoord(ArrayRef<int64_t> shape, int64_t thread,
                                                           int64_t slot) const {
  return mmaLayout(getWarpsM(), getWarpsN(), shape).coord(thread, slot);
}

LogicalResult MmaSyncRowsLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                            int64_t warps, int64_t replicas) {
  if (warps < 1 || replicas < 1 || warps * replicas > 32)
    return emitError() << "row layouts take 1 to 32 warps, got " << warps << " x " << replicas;
  return success();
}

int64_t MmaSyncRowsLayoutAttr::getNumThreads() const { return 32 * getWarps() * getReplicas(); }

LogicalResult MmaSyncRowsLayoutAttr::verifyShape(function_ref<InFlightDiagnostic()> emitError,
                                                 ArrayRef<int64_t> shape) const {
  if (shape.size() != 1)
    return emitError() << "a row layout needs a rank-1 fragment";
  if (shape[0] % (16 * getWarps()) != 0)
    return emitError() << shape[0] << " rows do not split into " << getWarps()
                       << " warps of 16-row tiles";
  return success();
}

int64_t MmaSyncRowsLayoutAttr::getNumSlots(ArrayRef<int64_t> shape) const {
  return mmaLayout(getWarps(), getReplicas(), shape).rowSlots();
}

std::pair<int64_t, int64_t> MmaSyncRowsLayoutAttr::getCoord(ArrayRef<int64_t> shape, int64_t thread,
                                                            int64_t slot) const {
  return {mmaLayout(getWarps(), getReplicas(), shape).rowOf(thread, slot), 0};
}

static LogicalResult verifyBlockedParams(function_ref<InFlightDiagnostic()> emitError, int64_t vec,
                                         int64_t threadsPerRow, int64_t threads) {
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    return emitError() << "blocked layouts take a multiple of 32 threads, at most 1024, got "
                       << threads;
  if (!llvm::isPowerOf2_64(vec) || vec > 32)
    return emitError() << "vec must be a power of two, at most 32, got " << vec;
  if (!llvm::isPowerOf2_64(threadsPerRow) || threads % threadsPerRow != 0)
    return emitError() << "threads_per_row must be a power of two dividing " << threads << ", got "
                       << threadsPerRow;
  return success();
}

LogicalResult BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t vec,
                                        int64_t threadsPerRow, int64_t threads) {
  return verifyBlockedParams(emitError, vec, threadsPerRow, threads);
}

static layout::BlockedLayout blockedLayout(int64_t vec, int64_t threadsPerRow, int64_t threads,
                                           ArrayRef<int64_t> shape) {
  return layout::BlockedLayout{shape[0], shape.size() == 2 ? shape[1] : 0, vec, threadsPerRow,
                               threads};
}

int64_t BlockedLayoutAttr::getNumThreads() const { return getThreads(); }

LogicalResult BlockedLayoutAttr::verifyShape(function_ref<InFlightDiagnostic()> emitError,
                                             ArrayRef<int64_t> shape) const {
  if (shape.size() != 2)
    return emitError() << "a blocked layout needs a rank-2 fragment";
  if (!blockedLayout(getVec(), getThreadsPerRow(), getThreads(), shape).isValid())
    return emitError() << "a " << shape[0] << "x" << shape[1]
                       << " fragment does not split into passes of "
                       << getThreads() / getThreadsPerRow() << " rows and "
                       << getThreadsPerRow() * getVec() << " columns";
  return success();
}

int64_t BlockedLayoutAttr::getNumSlots(ArrayRef<int64_t> shape) const {
  return blockedLayout(getVec(), getThreadsPerRow(), getThreads(), shape).slots();
}

std::pair<int64_t, int64_t> BlockedLayoutAttr::getCoord(ArrayRef<int64_t> shape, int64_t thread,
                                                        int64_t slot) const {
  return blockedLayout(getVec(), getThreadsPerRow(), getThreads(), shape).coord(thread, slot);
}

LogicalResult BlockedRowsLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                            int64_t threadsPerRow, int64_t threads) {
  return verifyBlockedParams(emitError, 1, threadsPerRow, threads);
}

int64_t BlockedRowsLayoutAttr::getNumThreads() const { return getThreads(); }

LogicalResult BlockedRowsLayoutAttr::verifyShape(function_ref<InFlightDiagnostic()> emitError,
                                                 ArrayRef<int64_t> shape) const {
  if (shape.size() != 1)
    return emitError() << "a blocked row layout needs a rank-1 fragment";
  if (!blockedLayout(1, getThreadsPerRow(), getThreads(), shape).isValid())
    return emitError() << shape[0] << " rows do not split into passes of "
                       << getThreads() / getThreadsPerRow() << " rows";
  return success();
}

int64_t BlockedRowsLayoutAttr::getNumSlots(ArrayRef<int64_t> shape) const {
  return blockedLayout(1, getThreadsPerRow(), getThreads(), shape).rowSlots();
}

std::pair<int64_t, int64_t> BlockedRowsLayoutAttr::getCoord(ArrayRef<int64_t> shape, int64_t thread,
                                                            int64_t slot) const {
  return {blockedLayout(1, getThreadsPerRow(), getThreads(), shape).rowOf(thread, slot), 0};
}

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

unsigned TargetAttr::getSm(StringRef arch) {
  unsigned sm = 0;
  if (!arch.consume_front("sm_"))
    return 0;
  arch.consume_back("a");
  if (arch.empty() || arch.getAsInteger(10, sm))
    return 0;
  return sm;
}

bool TargetAttr::isValidArch(StringRef arch) { return getSm(arch) >= 10; }

unsigned TargetAttr::getPtxVersion(StringRef arch) {
  unsigned sm = getSm(arch);
  if (sm == 110)
    return 90;
  if (sm == 103 || sm == 121)
    return 88;
  if (sm == 101 || sm == 120)
    return 87;
  return 86;
}

int64_t TargetAttr::getMaxSharedBytes(StringRef arch) {
  unsigned sm = getSm(arch);
  if (sm == 90 || sm == 100 || sm == 101 || sm == 103 || sm == 110)
    return 232448;
  if (sm == 80 || sm == 87)
    return 166912;
  return 101376;
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef arch,
                                 unsigned ptx, int64_t sharedBytes) {
  if (!isValidArch(arch))
    return emitError() << "unknown architecture '" << arch << "'; expected sm_XY or sm_XYa";
  if (ptx < 60)
    return emitError() << "PTX ISA version " << ptx << " is too old (6.0 at least)";
  if (sharedBytes < 0 || sharedBytes > (int64_t(1) << 20))
    return emitError() << "shared memory capacity " << sharedBytes << " is out of range";
  return success();
}

TargetAttr tlc::tile::getTarget(Operation *op) {
  for (; op; op = op->getParentOp())
    if (isa<ModuleOp>(op))
      if (auto target = op->getAttrOfType<TargetAttr>(kTargetAttr))
        return target;
  return {};
}

FailureOr<TargetAttr> tlc::tile::requireTarget(Operation *op, StringRef pass) {
  if (TargetAttr target = getTarget(op))
    return target;
  return op->emitError() << pass << " needs the module's target ('" << kTargetAttr
                         << "'); run tile-set-target{arch=...} first (tlc does)";
}

LogicalResult tlc::tile::requireUnplaced(KernelOp kernel, StringRef pass) {
  if (!kernel->hasAttr(kSharedBytesAttr))
    return success();
  return kernel.emitError() << pass << ": the shared memory of kernel '" << kernel.getSymName()
                            << "' is already placed ('" << kSharedBytesAttr << "'); run " << pass
                            << " before tile-shared-memory-layout (tlc does)";
}

StringRef tlc::tile::getVariantOf(KernelOp kernel) {
  if (auto of = kernel->getAttrOfType<StringAttr>("variant_of"))
    return of.getValue();
  return {};
}

std::optional<MmaKind> tlc::tile::getMmaKind(Operation *gemm) {
  if (auto attr = gemm->getAttrOfType<MmaKindAttr>(kMmaAttr))
    return attr.getValue();
  return std::nullopt;
}

std::optional<PipelineKind> tlc::tile::getPipelineKind(Operation *loop) {
  if (auto attr = loop->getAttrOfType<PipelineKindAttr>(kPipelineAttr))
    return attr.getValue();
  return std::nullopt;
}

int64_t tlc::tile::edgeBlockBytesPerStage(Operation *loop) {
  int64_t bytes = 0;
  for (Operation &op : loop->getRegion(0).front())
    if (auto copy = dyn_cast<CopyOp>(op))
      if (auto type = dyn_cast<BufferType>(copy.getDest().getType()))
        bytes += 16 * type.getShape()[0];
  return bytes;
}

//===----------------------------------------------------------------------===//
// The discardable tile.* attributes
//===----------------------------------------------------------------------===//

/// Where the conversion keeps a buffer's decisions while it lowers it: on the cast that stands
/// for the buffer.
static bool isLoweredBuffer(Operation *op) { return isa<UnrealizedConversionCastOp>(op); }

static LogicalResult verifyInteger(Operation *op, NamedAttribute attr, int64_t min, int64_t max) {
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value || !value.getType().isInteger(64))
    return op->emitOpError() << "'" << attr.getName().getValue() << "' must be an i64 integer, got "
                             << attr.getValue();
  if (value.getInt() < min || value.getInt() > max)
    return op->emitOpError() << "'" << attr.getName().getValue() << "' = " << value.getInt()
                             << " is out of range [" << min << ", " << max << "]";
  return success();
}

static LogicalResult verifyUnit(Operation *op, NamedAttribute attr) {
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitOpError() << "'" << attr.getName().getValue() << "' must be a unit attribute";
  return success();
}

static LogicalResult misplaced(Operation *op, NamedAttribute attr, StringRef where) {
  return op->emitOpError() << "'" << attr.getName().getValue() << "' belongs on " << where;
}

static LogicalResult verifyLayout(Operation *op, NamedAttribute attr) {
  auto layout = dyn_cast<FragmentLayoutAttrInterface>(attr.getValue());
  if (!layout)
    return op->emitOpError()
           << "'" << kLayoutAttr << "' must be a fragment layout "
           << "(#tile.wgmma_acc, #tile.mma_sync_acc, #tile.mma_sync_rows, #tile.blocked, "
           << "#tile.blocked_rows), got " << attr.getValue();
  if (isLoweredBuffer(op))
    return success();
  auto alloc = dyn_cast<AllocOp>(op);
  if (!alloc || !alloc.getBuffer().getType().isFragment())
    return misplaced(op, attr, "the 'tile.alloc' of a fragment");
  if (failed(layout.verifyShape([&] { return op->emitOpError(); },
                                alloc.getBuffer().getType().getShape())))
    return failure();
  auto kernel = op->getParentOfType<KernelOp>();
  if (kernel && kernel.getThreads()[0] != layout.getNumThreads())
    return op->emitOpError() << "the layout spreads the fragment over " << layout.getNumThreads()
                             << " threads, but the kernel has " << kernel.getThreads()[0];
  return success();
}

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

LogicalResult TensorMapAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t param,
                                    int64_t arg, int64_t boxRows, int64_t boxCols, int64_t swizzle,
                                    Type element, int64_t store) {
  if (param < 0 || arg < 0)
    return emitError() << "tensor map parameter and argument indices must not be negative";
  // cuTensorMapEncodeTiled: at most 256 elements per box dimension.
  if (boxRows < 1 || boxRows > 256 || boxCols < 1 || boxCols > 256)
    return emitError() << "tensor map box [" << boxRows << ", " << boxCols
                       << "] must have 1 to 256 elements per dimension";
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "tensor map swizzle is 0, 32, 64 or 128 bytes, got " << swizzle;
  if (!element.isIntOrFloat())
    return emitError() << "tensor map element must be an integer or float type, got " << element;
  if (store != 0 && store != 1)
    return emitError() << "tensor map store is 0 (a load map) or 1 (a store map), got " << store;
  return success();
}

LogicalResult EntryAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef kernel,
                                EntryKind kind, int64_t threads, int64_t computeThreads,
                                int64_t sharedBytes, ArrayAttr maps, int64_t streamK,
                                int64_t cluster, int64_t stored) {
  if (kernel.empty())
    return emitError() << "an entry names its kernel";
  if (threads < 1 || threads > 1024)
    return emitError() << "entry threads " << threads << " is out of range [1, 1024]";
  if (computeThreads < 0 || computeThreads >= threads)
    return emitError() << "entry compute_threads " << computeThreads
                       << " must be 0 (no producer) or fewer than its " << threads << " threads";
  if ((kind == EntryKind::Plain) != (computeThreads == 0))
    return emitError() << "a '" << stringifyEntryKind(kind) << "' entry "
                       << (kind == EntryKind::Plain
                               ? "has no producer warpgroup (compute_threads = 0)"
                               : "has a producer warpgroup (compute_threads > 0)");
  if (sharedBytes < 0)
    return emitError() << "entry shared_bytes must not be negative";
  if (!maps)
    return emitError() << "an entry lists its tensor maps (maps = [] when none)";
  if (!llvm::all_of(maps, [](Attribute a) { return isa<TensorMapAttr>(a); }))
    return emitError() << "entry maps must be #tile.tensor_map attributes";
  if ((kind == EntryKind::Tma) != !maps.empty())
    return emitError() << "a 'tma' entry has tensor maps, other entries none";
  if (streamK < 0 || streamK % 16)
    return emitError() << "entry stream_k (bytes of a partial slot) must be a non-negative "
                          "multiple of 16, not "
                       << streamK;
  if (streamK && kind == EntryKind::Plain)
    return emitError() << "only an entry with a producer warpgroup takes a stream-K workspace";
  if (cluster != 1 && cluster != 2)
    return emitError() << "entry cluster (blocks a launch may group along x) must be 1 or 2, not "
                       << cluster;
  if (cluster != 1 && kind != EntryKind::Tma)
    return emitError() << "only a 'tma' entry shares its loads in clusters";
  bool storeMaps = llvm::any_of(maps.getAsRange<TensorMapAttr>(),
                                [](TensorMapAttr map) { return map.getStore(); });
  if (storeMaps != (stored != -1))
    return emitError() << (storeMaps
                               ? "an entry with store maps names the parameter of their flag "
                                 "(stored = P)"
                               : "only an entry with store maps has a flag parameter (stored)");
  if (storeMaps) {
    int64_t last = 0;
    for (auto map : maps.getAsRange<TensorMapAttr>())
      last = std::max(last, map.getParam());
    if (stored != last + 1)
      return emitError() << "entry stored (the flag's parameter) must follow the last tensor map, "
                            "parameter "
                         << last + 1 << ", not " << stored;
  }
  return success();
}

EntryAttr tlc::tile::getEntry(Operation *func) {
  return func->getAttrOfType<EntryAttr>(kEntryAttr);
}

static LogicalResult verifyEntry(Operation *op, NamedAttribute attr) {
  auto entry = dyn_cast<EntryAttr>(attr.getValue());
  if (!entry)
    return op->emitOpError() << "'" << kEntryAttr << "' must be a #tile.entry, got "
                             << attr.getValue();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return misplaced(op, attr, "a kernel function (gpu.func or llvm.func)");
  for (TensorMapAttr map : entry.getTensorMaps())
    if (map.getParam() >= static_cast<int64_t>(func.getNumArguments()))
      return op->emitOpError() << "tensor map parameter " << map.getParam() << " of '" << kEntryAttr
                               << "' is past the function's " << func.getNumArguments()
                               << " parameters";
  return success();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  constexpr int64_t kMaxBytes = int64_t(1) << 30;
  if (name == kTargetAttr) {
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be a #tile.target";
    return isa<ModuleOp>(op) ? success() : misplaced(op, attr, "a builtin.module");
  }
  if (name == kLayoutAttr)
    return verifyLayout(op, attr);
  if (name == kEntryAttr)
    return verifyEntry(op, attr);
  if (name == kMmaAttr) {
    if (!isa<MmaKindAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be #tile.mma<wgmma> or "
                               << "#tile.mma<mma_sync>, got " << attr.getValue();
    return isa<GemmOp>(op) ? success() : misplaced(op, attr, "a 'tile.gemm'");
  }
  if (name == kTmaAttr || name == kCpAsyncAttr) {
    if (failed(verifyUnit(op, attr)))
      return failure();
    auto copy = dyn_cast<CopyOp>(op);
    auto dest = copy ? dyn_cast<BufferType>(copy.getDest().getType()) : BufferType();
    if (!copy || !isa<TensorType>(copy.getSource().getType()) || !dest || !dest.isShared())
      return misplaced(op, attr, "a 'tile.copy' from a tensor to a shared buffer");
    if (op->hasAttr(kTmaAttr) && op->hasAttr(kCpAsyncAttr))
      return op->emitOpError() << "a copy is either '" << kTmaAttr << "' or '" << kCpAsyncAttr
                               << "', not both";
    return success();
  }
  if (name == kUnalignedAttr) {
    if (failed(verifyUnit(op, attr)))
      return failure();
    return isa<CopyOp>(op) && op->hasAttr(kCpAsyncAttr)
               ? success()
               : misplaced(op, attr, "a 'tile.copy' with 'tile.cp_async'");
  }
  if (name == kSwizzleAttr) {
    if (failed(verifyInteger(op, attr, 16, 128)))
      return failure();
    int64_t bytes = cast<IntegerAttr>(attr.getValue()).getInt();
    if (bytes != 16 && bytes != 32 && bytes != 64 && bytes != 128)
      return op->emitOpError() << "'" << name << "' is 16 (column blocks, no swizzle), 32, 64 or "
                               << "128 bytes, got " << bytes;
    auto alloc = dyn_cast<AllocOp>(op);
    if (!isLoweredBuffer(op) && (!alloc || !alloc.getBuffer().getType().isShared()))
      return misplaced(op, attr, "the 'tile.alloc' of a shared buffer");
    return success();
  }
  if (name == kOffsetAttr) {
    if (failed(verifyInteger(op, attr, 0, kMaxBytes)))
      return failure();
    return isa<AllocOp>(op) || isLoweredBuffer(op) ? success()
                                                   : misplaced(op, attr, "a 'tile.alloc'");
  }
  if (name == kStagesAttr) {
    if (failed(verifyInteger(op, attr, 1, 64)))
      return failure();
    return isa<AllocOp, scf::ForOp>(op) || isLoweredBuffer(op)
               ? success()
               : misplaced(op, attr, "a 'tile.alloc' or an 'scf.for'");
  }
  if (name == kPipelineAttr) {
    if (!isa<PipelineKindAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be a #tile.pipeline, got "
                               << attr.getValue();
    if (!isa<scf::ForOp>(op) || !op->hasAttr(kStagesAttr))
      return misplaced(op, attr, "an 'scf.for' with 'tile.stages'");
    return success();
  }
  if (name == kBarriersAttr) {
    if (failed(verifyInteger(op, attr, 0, kMaxBytes)))
      return failure();
    if (cast<IntegerAttr>(attr.getValue()).getInt() % 8 != 0)
      return op->emitOpError() << "'" << name << "' must be 8-byte aligned";
    std::optional<PipelineKind> kind = getPipelineKind(op);
    if (!kind || !hasProducer(*kind))
      return misplaced(op, attr,
                       "an 'scf.for' with 'tile.pipeline' = #tile.pipeline<tma_wgmma>, "
                       "#tile.pipeline<loads_wgmma> or #tile.pipeline<tma_regs>");
    return success();
  }
  if (name == kProducerThreadsAttr) {
    if (failed(verifyInteger(op, attr, 128, 128)))
      return failure();
    return isa<KernelOp>(op) ? success() : misplaced(op, attr, "a 'tile.kernel'");
  }
  if (name == kStreamKAttr) {
    if (failed(verifyInteger(op, attr, 16, std::numeric_limits<int32_t>::max())))
      return failure();
    if (cast<IntegerAttr>(attr.getValue()).getInt() % 16 != 0)
      return op->emitOpError() << "'" << name << "' (bytes of a partial slot) must be a multiple "
                               << "of 16";
    return isa<KernelOp>(op) && op->hasAttr(kProducerThreadsAttr)
               ? success()
               : misplaced(op, attr, "a 'tile.kernel' with a producer warpgroup");
  }
  if (name == kClusterAttr) {
    if (failed(verifyInteger(op, attr, 2, 2)))
      return failure();
    return isa<KernelOp>(op) && op->hasAttr(kProducerThreadsAttr)
               ? success()
               : misplaced(op, attr, "a 'tile.kernel' with a producer warpgroup");
  }
  if (name == kSharedBytesAttr) {
    if (failed(verifyInteger(op, attr, 0, kMaxBytes)))
      return failure();
    return isa<KernelOp>(op) ? success() : misplaced(op, attr, "a 'tile.kernel'");
  }
  if (name == kOmittedAttr) {
    if (failed(verifyUnit(op, attr)))
      return failure();
    auto kernel = dyn_cast<KernelOp>(op);
    return kernel && !getVariantOf(kernel).empty()
               ? success()
               : misplaced(op, attr, "a 'tile.kernel' that is one configuration ('variant_of')");
  }
  if (name == kArchsAttr) {
    auto archs = dyn_cast<ArrayAttr>(attr.getValue());
    if (!archs || archs.empty() ||
        !llvm::all_of(archs, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitOpError() << "'" << name << "' must be a non-empty array of strings";
    auto kernel = dyn_cast<KernelOp>(op);
    return kernel && !getVariantOf(kernel).empty()
               ? success()
               : misplaced(op, attr, "a 'tile.kernel' that is one configuration ('variant_of')");
  }
  if (name == kMinBlocksAttr) {
    if (failed(verifyInteger(op, attr, 1, 32)))
      return failure();
    return isa<KernelOp, FunctionOpInterface>(op)
               ? success()
               : misplaced(op, attr, "a 'tile.kernel' or the function of its entry");
  }
  if (name == kAsyncAttr) {
    if (failed(verifyUnit(op, attr)))
      return failure();
    return isa<GemmOp>(op) && getMmaKind(op) == MmaKind::Wgmma
               ? success()
               : misplaced(op, attr, "a 'tile.gemm' marked wgmma");
  }
  if (name == kUnrollAttr) {
    if (failed(verifyUnit(op, attr)))
      return failure();
    return isa<scf::ForOp>(op) ? success() : misplaced(op, attr, "an 'scf.for'");
  }
  return op->emitOpError() << "unknown attribute '" << name << "' of the tile dialect";
}
