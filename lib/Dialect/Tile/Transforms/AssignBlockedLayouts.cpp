//===- AssignBlockedLayouts.cpp - Registers for element-wise and row work ---===//
//
// The register layout of memory-bound kernels (softmax, norms, casts, element-wise maps): in a
// kernel whose gemms do not run on tensor cores, fragments go to registers in a blocked layout
// (#tile.blocked: each thread holds vectors of consecutive elements of a row, consecutive
// threads hold consecutive vectors) instead of shared memory:
//   1. layout inference joins the fragments that must agree on which thread holds which
//      element: those a `parallel` accesses at its point, the row values it reads at the
//      point's row, a row reduce's source, destination and init, the two sides of a copy
//      between fragments of one shape;
//   2. each class takes the widest vectors (16 bytes of its narrowest element) and the most
//      threads per row (a warp's lanes, or whole warps) that keep every thread busy
//      (layout::BlockedLayout::choose), within a register budget; a class that fits none stays
//      in shared memory, alone;
//   3. every use a layout cannot serve (an element read elsewhere than at the point, a column
//      reduce, an argmax, a scan, a gemm, a copy of row values to a tensor) gets an explicit
//      layout conversion through shared memory (convertThroughShared), as in the mma.sync
//      register strategy;
//   4. a row reduce whose rows span several warps gets a `scratch` buffer in shared memory,
//      where the warps' partial values meet.
//   5. copies of tensor tiles into a shared tile that only copies into blocked fragments read
//      take cp.async (markAsyncCopies): a `pipelined` loop of them becomes a ring
//      (tile-software-pipeline), which keeps the next rows in flight while the block computes.
// The lowering then moves whole vectors between tensors and registers (16-byte accesses where
// in bounds, contiguous and aligned, checked at run time), and from such shared tiles (16-byte
// shared loads), runs `parallel` bodies on each thread's slots without barriers, and reduces
// rows with warp shuffles.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILEASSIGNBLOCKEDLAYOUTS
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

static AllocOp fragmentAlloc(Value value) {
  auto type = dyn_cast<BufferType>(value.getType());
  if (!type || !type.isFragment())
    return {};
  return value.getDefiningOp<AllocOp>();
}

/// Element types held in blocked registers: 8- to 32-bit integers and floats (row reductions
/// shuffle 32-bit lanes; 8-bit floats, data only, are held as their bytes).
static bool isBlockedElement(Type type) {
  if (type.isF32() || type.isF16() || type.isBF16() || isFloat8(type))
    return true;
  return type.isInteger() && type.getIntOrFloatBitWidth() >= 8 &&
         type.getIntOrFloatBitWidth() <= 32;
}

/// Registers per thread of a fragment of `type` with `slots` slots.
static int64_t registersOf(BufferType type, int64_t slots) {
  return (slots * type.getElementType().getIntOrFloatBitWidth() + 31) / 32;
}

namespace {
struct BlockedPlanner {
  KernelOp kernel;
  int64_t threads;
  RegisterPlan &plan;
  llvm::EquivalenceClasses<Operation *> classes;

  void join(Value x, Value y) {
    AllocOp a = fragmentAlloc(x), b = fragmentAlloc(y);
    if (a && b)
      classes.unionSets(a.getOperation(), b.getOperation());
  }

  void run() {
    SmallVector<AllocOp> fragments;
    // Fragments nothing uses (a branch a compile-time parameter leaves out) take no registers
    // and count against no budget.
    for (auto alloc : kernel.getBody().getOps<AllocOp>())
      if (alloc.getBuffer().getType().isFragment() && !alloc->use_empty()) {
        fragments.push_back(alloc);
        classes.insert(alloc.getOperation());
      }
    if (fragments.empty())
      return;
    inferClasses();
    chooseLayouts(fragments);
    markAsyncCopies();
    convertMisfits();
    addScratch();
    addBarriers();
  }

  /// A copy from registers to a tensor the kernel also reads sits between two barriers: other
  /// threads may have read those elements just before (a shifted in-place update) or read them
  /// next (the generic lowering ends every block-wide tile op with one; ops within registers
  /// need none).
  void addBarriers() {
    llvm::DenseSet<Value> readTensors;
    kernel.getBody().walk([&](Operation *op) {
      if (auto load = dyn_cast<LoadOp>(op))
        readTensors.insert(load.getTensor());
      else if (auto copy = dyn_cast<CopyOp>(op);
               copy && isa<tile::TensorType>(copy.getSource().getType()))
        readTensors.insert(copy.getSource());
    });
    auto barriersAround = [](Operation *op) {
      OpBuilder b(op);
      BarrierOp::create(b, op->getLoc());
      b.setInsertionPointAfter(op);
      BarrierOp::create(b, op->getLoc());
    };
    kernel.getBody().walk([&](CopyOp copy) {
      if (inRegisters(copy.getSource()) && readTensors.contains(copy.getDest()))
        barriersAround(copy);
    });
    // Likewise a `parallel` on registers (no barriers of its own) that stores to such a tensor.
    kernel.getBody().walk([&](ParallelOp parallel) {
      bool onRegisters = llvm::any_of(getFragmentAccesses(parallel), [](const FragmentAccess &a) {
        return a.kind == FragmentAccess::AtPoint && inRegisters(a.buffer);
      });
      WalkResult stores = parallel.getBody().walk([&](Operation *op) {
        Value tensor;
        if (auto store = dyn_cast<StoreOp>(op))
          tensor = store.getTensor();
        else if (auto atomic = dyn_cast<AtomicAddOp>(op))
          tensor = atomic.getTensor();
        return tensor && readTensors.contains(tensor) ? WalkResult::interrupt()
                                                      : WalkResult::advance();
      });
      if (onRegisters && stores.wasInterrupted())
        barriersAround(parallel);
    });
  }

  void inferClasses() {
    kernel.getBody().walk([&](ParallelOp parallel) {
      joinParallelAccesses(parallel, [&](Value x, Value y) { join(x, y); });
    });
    kernel.getBody().walk([&](ReduceOp reduce) {
      if (reduce.getDim() != 1 || reduce.isArgReduce() ||
          reduce.getSource().getType().getRank() != 2)
        return;
      join(reduce.getSource(), reduce.getDest());
      if (reduce.getInit())
        join(reduce.getSource(), reduce.getInit());
    });
    kernel.getBody().walk([&](CopyOp copy) {
      auto src = dyn_cast<BufferType>(copy.getSource().getType());
      auto dst = dyn_cast<BufferType>(copy.getDest().getType());
      if (src && dst && src.getShape() == dst.getShape())
        join(copy.getSource(), copy.getDest());
    });
  }

  /// The layouts of one class, or why it stays in shared memory.
  std::optional<std::string> chooseClass(ArrayRef<Operation *> members,
                                         SmallVectorImpl<std::pair<AllocOp, AccLayout>> &out,
                                         int64_t &registers) {
    int64_t rows = 0, minBytes = 4;
    std::vector<int64_t> cols;
    for (Operation *member : members) {
      for (Operation *user : member->getUsers())
        if (isa<ReadOp, WriteOp>(user) && !user->getParentOfType<ParallelOp>())
          return std::string("the fragment is read or written element by element outside a "
                             "'parallel'");
      if (llvm::any_of(member->getUsers(), [](Operation *user) { return isa<GemmOp>(user); }))
        return std::string("a gemm without tensor cores reads and writes it in shared memory");
      BufferType type = cast<AllocOp>(member).getBuffer().getType();
      if (type.getRank() > 2)
        return std::string("blocked register layouts hold rank-1 and rank-2 fragments");
      if (!isBlockedElement(type.getElementType()))
        return std::string("blocked register layouts hold 8- to 32-bit integers and floats");
      if (rows && type.getShape()[0] != rows)
        return std::string("fragments that share a layout have different row counts");
      rows = type.getShape()[0];
      if (type.getRank() == 2) {
        cols.push_back(type.getShape()[1]);
        minBytes = std::min<int64_t>(minBytes, type.getElementType().getIntOrFloatBitWidth() / 8);
        // The tensors and shared tiles it is copied from or to: 16-byte vectors of their
        // elements.
        for (Operation *user : member->getUsers())
          if (auto copy = dyn_cast<CopyOp>(user))
            for (Value side : {copy.getSource(), copy.getDest()}) {
              Type elem;
              if (auto tensor = dyn_cast<tile::TensorType>(side.getType()))
                elem = tensor.getElementType();
              else if (auto shared = dyn_cast<BufferType>(side.getType());
                       shared && shared.isShared())
                elem = shared.getElementType();
              if (elem && elem.isIntOrFloat())
                minBytes = std::min<int64_t>(
                    minBytes, std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8));
            }
      }
    }
    auto chosen = layout::BlockedLayout::choose(rows, cols, threads, 16 / minBytes);
    if (!chosen)
      return ("its " + Twine(rows) + " rows (and columns) do not split evenly over " +
              Twine(threads) + " threads in vectors (every thread must hold whole vectors of " +
              "the same number of rows)")
          .str();
    registers = 0;
    for (Operation *member : members) {
      auto alloc = cast<AllocOp>(member);
      BufferType type = alloc.getBuffer().getType();
      AccLayout layout;
      layout.blocked = *chosen;
      if (type.getRank() == 2) {
        layout.kind = AccLayout::Kind::Blocked;
        layout.blocked.cols = type.getShape()[1];
      } else {
        layout.kind = AccLayout::Kind::BlockedRows;
        layout.blocked.vec = 1;
      }
      registers += registersOf(type, layout.slots());
      out.push_back({alloc, layout});
    }
    return std::nullopt;
  }

  void chooseLayouts(ArrayRef<AllocOp> fragments) {
    llvm::MapVector<Operation *, SmallVector<Operation *>> members;
    for (AllocOp alloc : fragments)
      members[classes.getLeaderValue(alloc.getOperation())].push_back(alloc);
    struct Chosen {
      SmallVector<std::pair<AllocOp, AccLayout>> layouts;
      int64_t registers;
      /// The innermost region holding every use of the class.
      Region *uses;
    };
    SmallVector<Chosen> chosen;
    for (auto &[leader, list] : members) {
      Chosen c;
      if (std::optional<std::string> why = chooseClass(list, c.layouts, c.registers)) {
        plan.registerMisfits.push_back({list.front(), *why});
        continue;
      }
      SmallVector<Value> buffers;
      for (Operation *member : list)
        buffers.push_back(cast<AllocOp>(member).getBuffer());
      c.uses = usesRegion(buffers, &kernel.getBody());
      chosen.push_back(std::move(c));
    }
    // Beyond about 128 registers per thread the kernel would spill or lose occupancy: the
    // biggest classes stay in shared memory until the rest fits. Classes used only in different
    // branches of one `if` (a kernel choosing its tile by the shapes) are never live together:
    // the budget holds for each class with the classes it may meet.
    llvm::stable_sort(chosen,
                      [](const Chosen &x, const Chosen &y) { return x.registers < y.registers; });
    auto pressure = [&](const Chosen &c) {
      int64_t total = 0;
      for (const Chosen &other : chosen)
        if (&other == &c || !inExclusiveBranches(c.uses, other.uses))
          total += other.registers;
      return total;
    };
    while (!chosen.empty()) {
      // The biggest class among those over the budget leaves.
      auto over =
          llvm::find_if(llvm::reverse(chosen), [&](const Chosen &c) { return pressure(c) > 128; });
      if (over == llvm::reverse(chosen).end())
        break;
      plan.registerMisfits.push_back(
          {over->layouts.front().first,
           ("its class of fragments would take " + Twine(over->registers) +
            " registers per thread (at most 128 with the fragments live beside it); it stays "
            "in shared memory")
               .str()});
      chosen.erase(std::next(over).base());
    }
    MLIRContext *ctx = kernel.getContext();
    for (const Chosen &c : chosen)
      for (auto &[alloc, layout] : c.layouts) {
        alloc->setAttr(kLayoutAttr, layout.toAttr(ctx));
        plan.registers.push_back(alloc);
      }
  }

  static bool inRegisters(Value v) { return static_cast<bool>(getAccLayout(v)); }

  /// Copies of tensor tiles into a shared tile that only copies into blocked fragments of its
  /// shape read take cp.async (sm_80 on): 16-byte chunks that land while the block computes,
  /// read back as 16-byte vectors (tile-place-async-waits orders them; in a `pipelined` loop
  /// tile-software-pipeline runs them stages ahead, as a ring). The tile takes the copy swizzle
  /// (tile-shared-memory-layout), so its rows must be whole multiples of 128 bytes or fit
  /// chooseSwizzle.
  void markAsyncCopies() {
    TargetAttr target = getTarget(kernel);
    if (!target || !target.hasMmaSync())
      return;
    Builder b(kernel.getContext());
    for (auto alloc : kernel.getBody().getOps<AllocOp>()) {
      BufferType type = alloc.getBuffer().getType();
      Type elem = type.getElementType();
      int64_t elemBytes = cpAsyncElementBytes(type);
      if (!elemBytes ||
          !layout::chooseCopySwizzle(type.getShape()[0], type.getShape()[1], elemBytes))
        continue;
      SmallVector<CopyOp> fills;
      bool onlyCopies = llvm::all_of(alloc->getUsers(), [&](Operation *user) {
        auto copy = dyn_cast<CopyOp>(user);
        if (!copy)
          return false;
        if (copy.getDest() == alloc.getBuffer()) {
          auto tensor = dyn_cast<tile::TensorType>(copy.getSource().getType());
          fills.push_back(copy);
          return tensor && tensor.getRank() >= 2 && tensor.getElementType() == elem;
        }
        std::optional<AccLayout> dest = getAccLayout(copy.getDest());
        return dest && dest->kind == AccLayout::Kind::Blocked &&
               cast<BufferType>(copy.getDest().getType()).getShape() == type.getShape();
      });
      if (!onlyCopies)
        continue;
      for (CopyOp copy : fills)
        copy->setAttr(kCpAsyncAttr, b.getUnitAttr());
    }
  }

  /// Why the use of `fragment` by tile-level op `at` needs a conversion, or null.
  const char *misfitReason(Operation *at, Value fragment) {
    if (auto parallel = dyn_cast<ParallelOp>(at)) {
      return fitsRegisterSlots(parallel) ? nullptr : registerSlotsMisfit(parallel);
    }
    if (isa<FillOp>(at))
      return nullptr;
    if (auto copy = dyn_cast<CopyOp>(at)) {
      Value other = copy.getSource() == fragment ? copy.getDest() : copy.getSource();
      auto otherBuffer = dyn_cast<BufferType>(other.getType());
      auto rank = cast<BufferType>(fragment.getType()).getRank();
      if (!otherBuffer)
        return rank == 2 && cast<tile::TensorType>(other.getType()).getRank() >= 2
                   ? nullptr
                   : "row values are copied to or from a tensor through shared memory";
      if (otherBuffer.isLocal())
        return "registers are not copied to or from local buffers";
      if (!inRegisters(other))
        return nullptr;
      bool same = getAccLayout(other)->toAttr(kernel.getContext()) ==
                      getAccLayout(fragment)->toAttr(kernel.getContext()) &&
                  otherBuffer.getShape() == cast<BufferType>(fragment.getType()).getShape();
      return same ? nullptr : "the two fragments of this copy have different register layouts";
    }
    if (auto reduce = dyn_cast<ReduceOp>(at)) {
      if (reduce.isArgReduce())
        return "argmax and argmin run on the generic lowering, over shared memory";
      bool fits = reduce.getDim() == 1 && inRegisters(reduce.getSource()) &&
                  inRegisters(reduce.getDest()) &&
                  (!reduce.getInit() || inRegisters(reduce.getInit())) &&
                  getAccLayout(reduce.getSource())->kind == AccLayout::Kind::Blocked;
      return fits ? nullptr
                  : "registers are reduced along rows (dim = 1) into row values in registers";
    }
    if (isa<ScanOp>(at))
      return "scans run on the generic lowering, over shared memory";
    if (isa<GemmOp>(at))
      return "a gemm without tensor cores reads and writes shared memory";
    return "this op accesses a fragment in registers element by element";
  }

  void convertMisfits() {
    convertMisfitUses(plan,
                      [&](Operation *at, Value fragment) { return misfitReason(at, fragment); });
  }

  /// A shared buffer for each row reduce whose rows span several warps: the warps' partial
  /// values.
  void addScratch() {
    tile::addReduceScratch(kernel, [&](const AccLayout &src) -> int64_t {
      bool spans = src.kind == AccLayout::Kind::Blocked && src.blocked.threadsPerRow > 32;
      return spans ? src.blocked.rowSlots() * (threads / 32) : 0;
    });
  }
};

struct AssignBlockedLayoutsPass
    : public tlc::tile::impl::TileAssignBlockedLayoutsBase<AssignBlockedLayoutsPass> {
  using TileAssignBlockedLayoutsBase::TileAssignBlockedLayoutsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (failed(requireUnplaced(kernel, "tile-assign-blocked-layouts")))
      return signalPassFailure();
    auto threads = kernel.getThreads();
    if (threads[1] != 1 || threads[2] != 1 || threads[0] % 32 != 0 || threads[0] > 1024)
      return;
    // Kernels whose gemms run on tensor cores keep the register plan of
    // tile-assign-mma-layouts (their other fragments stay in shared memory, for now).
    WalkResult assigned = kernel.walk([](Operation *op) {
      return op->hasAttr(kMmaAttr) || op->hasAttr(kLayoutAttr) ? WalkResult::interrupt()
                                                               : WalkResult::advance();
    });
    if (assigned.wasInterrupted())
      return;
    RegisterPlan plan;
    BlockedPlanner{kernel, threads[0], plan}.run();
    if (!explain)
      return;
    for (AllocOp alloc : plan.registers)
      alloc.emitRemark() << "this fragment is in registers: " << alloc->getAttr(kLayoutAttr);
    for (auto &[alloc, reason] : plan.registerMisfits)
      alloc->emitRemark() << "this fragment stays in shared memory: " << reason;
    for (auto &[op, reason] : plan.conversions)
      op->emitRemark() << "layout conversion: " << reason;
  }
};
} // namespace
