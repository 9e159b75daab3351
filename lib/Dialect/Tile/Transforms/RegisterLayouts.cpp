//===- RegisterLayouts.cpp - Per-op tensor cores: layout inference, conversions -===//
//
// The register strategy of tile-assign-mma-layouts, decided per operation rather than for the
// whole kernel:
//   1. each gemm that mma.sync can run (bf16/f16 operands, A from shared memory or a fragment,
//      B from shared memory, an f32 fragment accumulator, whole swizzle atoms) is a candidate;
//      one that cannot keeps the generic lowering, alone;
//   2. layout inference: fragments that must agree on which thread holds which element are
//      joined into classes (a gemm's A fragment and accumulator, a row reduce's source and
//      result, the fragments a `parallel` body accesses at its point or at its point's row); a
//      class holding the accumulator of a candidate gemm goes to registers, in mma.sync's
//      layout on the kernel's warps: warps stacked along M when rows are involved (row values,
//      A operands, row reduces: each warp owns whole rows) or, on sm_90a, when the rows are 16
//      per warp (wgmma's D fragment), else the squarest warp grid (the fewest operand bytes
//      read from shared memory per product); row values with too few rows to stack the warps
//      take the squarest grid too, each held by the warps of its block row (replicas; a row
//      reduce combines their partial values through a shared `scratch` buffer), while A
//      operands from registers need the stack: where their rows cannot stack the warps (fewer
//      than 16 per warp, or not a multiple), the gemm reads A from a shared copy of the
//      fragment instead (a layout conversion placed before inference), and the fragment's
//      layout is chosen for its other uses;
//   3. every use of a register fragment the layout cannot serve (an element read elsewhere
//      than at the point, a gemm that stays generic, a reduce along columns, an argmax, a scan,
//      a copy from a tensor) gets an explicit layout conversion: the fragment is copied to a
//      fragment kept in shared memory before the op, the op works on that copy, and, if it writes,
//      the copy comes back after it;
//   4. on sm_90a a gemm whose accumulator has 16 rows per warp on a multiple of 4 warps, A
//      K-major from shared memory or registers and B from a shared tile wgmma can describe runs
//      wgmma instead of mma.sync (wgmmaMisfit says why one does not); the layouts stay;
//   5. shared operands of the mma.sync gemms are filled by cp.async where a copy of a tensor
//      tile of their type fills them; other writers (a `parallel` that dequantizes or gathers,
//      a copy from a fragment) write the same swizzled layout element by element. Other
//      tensor tiles copied to shared memory whose rows fill a swizzle take cp.async as well.
// Nothing here is all or nothing: a misfit costs the op it concerns a slower instruction or a
// trip through shared memory, never the kernel its tensor cores.
//
//===----------------------------------------------------------------------===//
#include "tlc/Dialect/Tile/Transforms/Strategy.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

static bool isMmaInput(Type type) { return type.isBF16() || type.isF16(); }

static AllocOp fragmentAlloc(Value value) {
  auto type = dyn_cast<BufferType>(value.getType());
  if (!type || !type.isFragment())
    return {};
  return value.getDefiningOp<AllocOp>();
}

/// Why the register strategy cannot run `gemm` on tensor cores (empty if it can, as far as its
/// own operands tell): mma.sync's rules, or for 8-bit floats, wgmma's (sm_90a: `wgmma`).
static std::string mmaSyncMisfit(GemmOp gemm, bool wgmma) {
  BufferType aType = gemm.getA().getType(), bType = gemm.getB().getType();
  BufferType cType = gemm.getC().getType();
  Type elem = bType.getElementType();
  if (!cType.isFragment() || !cType.getElementType().isF32() || !fragmentAlloc(gemm.getC()))
    return "mma.sync accumulates into an f32 fragment";
  if (isFloat8(elem))
    return wgmma ? float8WgmmaMisfit(gemm)
                 : "f8 operands multiply on sm_90a's wgmma only (with B K-major: [N, K] and "
                   "transpose_b); there is no mma.sync form";
  if (!isMmaInput(elem) || aType.getElementType() != elem)
    return "mma.sync multiplies bf16 or f16 operands of one type";
  if (!bType.isShared())
    return "mma.sync reads B from shared memory";
  if (!aType.isShared() && !(aType.isFragment() && fragmentAlloc(gemm.getA())))
    return "mma.sync reads A from shared memory or a fragment";
  if (gemm.getTransposeA() && !aType.isShared())
    return "a transposed A (transpose_a) comes from shared memory";
  auto a = aType.getShape(), b = bType.getShape();
  if ((gemm.getTransposeA() ? a[0] : a[1]) % 16 != 0)
    return "the k extent is not a multiple of 16";
  if ((aType.isShared() && !layout::chooseSwizzle(a[0], a[1], 2)) ||
      !layout::chooseSwizzle(b[0], b[1], 2))
    return "its shared tiles are not whole swizzle atoms (rows a multiple of 8, rows of 32, 64 "
           "or a multiple of 128 bytes)";
  return "";
}

/// Why a gemm on mma.sync's registers cannot run wgmma instead (empty if it can): A from a shared
/// tile (K-major, or M-major with transpose_a in 128-byte swizzled rows) or from a register
/// fragment of the accumulator's layout, B K-major (transpose_b) or MN-major in 128-byte
/// swizzled rows, and an accumulator whose warps are stacked along M, 16 rows each.
static std::string wgmmaMisfit(GemmOp gemm) {
  BufferType aType = gemm.getA().getType(), bType = gemm.getB().getType();
  if (!aType.isShared()) {
    std::optional<AccLayout> a = getAccLayout(gemm.getA());
    if (!a || a->kind != AccLayout::Kind::MmaSync || a->mma.warpsN != 1)
      return "its A fragment is not in registers on warps stacked along M";
  }
  // A^T [K, M] (transpose_a) is M-major: 64-column blocks of 128-byte rows, one per warpgroup,
  // read as B without transpose_b is (wgmma's transposed-A form, 16-bit elements only).
  auto a = aType.getShape();
  if (gemm.getTransposeA() && layout::chooseSwizzle(a[0], a[1], 2) != 128)
    return "wgmma reads a transposed A (transpose_a) in 128-byte swizzled rows: M a multiple of "
           "64 (ldmatrix.trans then)";
  bool mnMajor = !gemm.getTransposeB();
  auto b = bType.getShape();
  if (mnMajor && layout::chooseSwizzle(b[0], b[1], 2) != 128)
    return "wgmma reads a row-major B (no transpose_b) in 128-byte swizzled rows: N a multiple "
           "of 64";
  std::optional<AccLayout> acc = getAccLayout(gemm.getC());
  if (!acc || acc->kind != AccLayout::Kind::MmaSync)
    return "its accumulator has no mma.sync register layout";
  const layout::MmaSyncAccLayout &l = acc->mma;
  if (!getRegisterWgmmaInstr(gemm))
    return ("wgmma needs 16 accumulator rows per warp on a multiple of 4 warps (BM = 16 x "
            "warps); this one has " +
            Twine(l.rows) + " rows on " + Twine(l.warps()) + " warps")
        .str();
  return "";
}

namespace {
struct Planner {
  KernelOp kernel;
  int64_t warps;
  /// Whether gemms may run wgmma (sm_90a).
  bool wgmma;
  RegisterPlan &plan;

  llvm::EquivalenceClasses<Operation *> classes;
  /// Fragments that need whole rows per warp: A operands from registers.
  llvm::DenseSet<Operation *> rowBound;
  /// Fragments whose elements are combined with row values or reduced into them: each warp holds
  /// the rows of its block, which warps splitting the columns hold as replicas (a row reduce
  /// then meets their partial values in shared memory).
  llvm::DenseSet<Operation *> rowReaders;
  SmallVector<GemmOp> candidates;

  void join(Value x, Value y) {
    AllocOp a = fragmentAlloc(x), b = fragmentAlloc(y);
    if (a && b)
      classes.unionSets(a.getOperation(), b.getOperation());
  }

  void run();
  /// A operands from registers whose rows cannot stack the warps: the gemm reads a shared copy.
  void convertUnstackedOperands();
  /// The fragments, joined into classes that must share a layout (rowBound: need whole rows).
  SmallVector<AllocOp> inferClasses();
  /// Registers for the classes holding a candidate's accumulator, within the register budget.
  void chooseRegisters(ArrayRef<AllocOp> fragments);
  /// The candidates whose fragments got registers (the others stay generic, with a reason).
  SmallVector<GemmOp> selectMmaGemms();
  /// Why the use of `fragment` by tile-level op `at` needs a conversion, or null.
  const char *misfitReason(Operation *at, Value fragment, ArrayRef<GemmOp> mma);
  /// A conversion through shared memory for every use its register layout cannot serve.
  void convertMisfits(ArrayRef<GemmOp> mma);
  /// A shared buffer for each row reduce whose rows are split over warps (replicas): the warps'
  /// partial values meet there.
  void addReduceScratch();
  /// mma.sync on the gemms, cp.async on the copies that fill their shared operands.
  void markMmaGemms(ArrayRef<GemmOp> mma);
  std::optional<std::string> chooseLayouts(ArrayRef<Operation *> members,
                                           SmallVectorImpl<std::pair<AllocOp, AccLayout>> &out);
  /// One warp grid for a class whose `rows` do not stack its warps: whole 16 x 16 tiles of every
  /// rank-2 member, as square as the widest allows (MmaSyncAccLayout::choose).
  std::optional<layout::MmaSyncAccLayout> chooseReplicatedGrid(ArrayRef<Operation *> members,
                                                               int64_t rows);
};
} // namespace

std::optional<layout::MmaSyncAccLayout> Planner::chooseReplicatedGrid(ArrayRef<Operation *> members,
                                                                      int64_t rows) {
  int64_t widest = 0;
  for (Operation *member : members) {
    auto shape = cast<AllocOp>(member).getBuffer().getType().getShape();
    if (shape.size() == 2)
      widest = std::max(widest, shape[1]);
  }
  // Row values alone: 16 columns per warp, as if beside the narrowest accumulator.
  std::optional<layout::MmaSyncAccLayout> grid =
      layout::MmaSyncAccLayout::choose(rows, widest ? widest : 16 * warps, warps);
  if (!grid)
    return std::nullopt;
  for (Operation *member : members) {
    auto shape = cast<AllocOp>(member).getBuffer().getType().getShape();
    if (shape.size() == 2 && shape[1] % (16 * grid->warpsN) != 0)
      return std::nullopt;
  }
  return grid;
}

/// Layouts for one class of fragments, or why it stays in shared memory.
std::optional<std::string>
Planner::chooseLayouts(ArrayRef<Operation *> members,
                       SmallVectorImpl<std::pair<AllocOp, AccLayout>> &out) {
  int64_t rows = 0;
  bool needRows = false, wholeRows = false;
  for (Operation *member : members) {
    // An element access outside a `parallel` is one thread's (possibly under a condition on
    // the thread): no block-wide conversion can serve it there, so the fragment stays in
    // shared memory.
    for (Operation *user : member->getUsers())
      if (isa<ReadOp, WriteOp>(user) && !user->getParentOfType<ParallelOp>())
        return std::string("the fragment is read or written element by element outside a "
                           "'parallel'");
    auto type = cast<AllocOp>(member).getBuffer().getType();
    if (rows && type.getShape()[0] != rows)
      return std::string("fragments that share a layout have different row counts");
    rows = type.getShape()[0];
    wholeRows |= rowBound.contains(member);
    needRows |= rowReaders.contains(member) || type.getRank() == 1;
    Type elem = type.getElementType();
    if (type.getRank() == 1 ? !elem.isF32()
                            : (type.getShape()[1] % 16 != 0 || !(elem.isF32() || isMmaInput(elem))))
      return std::string("fragments in registers are f32 rows, or f32/bf16/f16 tiles of a "
                         "multiple of 16 columns");
  }
  needRows |= wholeRows;
  bool stacked = rows % (16 * warps) == 0;
  // wgmma (sm_90a) runs on warps stacked along M with 16 rows each: take that grid when the
  // rows allow it, rows or not.
  needRows |= wgmma && rows == 16 * warps && warps % 4 == 0;
  if (wholeRows && !stacked)
    return ("its " + Twine(rows) + " rows do not split into " + Twine(warps) +
            " warps of 16-row tiles (A operands from registers need whole rows per warp: a "
            "multiple of " +
            Twine(16 * warps) + " rows)")
        .str();
  // Row values with too few rows to stack the warps: warps also split the columns, and the
  // warps of a block row hold its row values as replicas.
  int64_t warpsM = warps, warpsN = 1;
  if (needRows && !stacked) {
    std::optional<layout::MmaSyncAccLayout> grid = chooseReplicatedGrid(members, rows);
    if (!grid)
      return ("its " + Twine(rows) + " rows and their columns do not split into " + Twine(warps) +
              " warps of 16 x 16 tiles")
          .str();
    warpsM = grid->warpsM;
    warpsN = grid->warpsN;
  }
  for (Operation *member : members) {
    auto alloc = cast<AllocOp>(member);
    auto shape = alloc.getBuffer().getType().getShape();
    AccLayout layout;
    if (shape.size() == 1) {
      layout.kind = AccLayout::Kind::MmaSyncRows;
      layout.mma = layout::MmaSyncAccLayout{rows, 16 * warpsN, warpsM, warpsN};
    } else if (needRows) {
      layout.kind = AccLayout::Kind::MmaSync;
      layout.mma = layout::MmaSyncAccLayout{rows, shape[1], warpsM, warpsN};
    } else {
      auto chosen = layout::MmaSyncAccLayout::choose(rows, shape[1], warps);
      if (!chosen)
        return ("its " + Twine(rows) + " x " + Twine(shape[1]) + " elements do not split into " +
                Twine(warps) + " warps of 16 x 16 tiles")
            .str();
      layout.kind = AccLayout::Kind::MmaSync;
      layout.mma = *chosen;
    }
    out.push_back({alloc, layout});
  }
  return std::nullopt;
}

/// Whether a fragment got a register layout.
static bool inRegisters(Value v) { return static_cast<bool>(getAccLayout(v)); }

void Planner::run() {
  // 1. The gemms mma.sync can run.
  kernel.getBody().walk([&](GemmOp gemm) {
    std::string why = mmaSyncMisfit(gemm, wgmma);
    if (why.empty())
      candidates.push_back(gemm);
    else
      plan.genericGemms.push_back({gemm, why});
  });
  if (candidates.empty())
    return;
  convertUnstackedOperands();
  // 2. Layout inference: which fragments must agree; the classes that get registers.
  SmallVector<AllocOp> fragments = inferClasses();
  chooseRegisters(fragments);
  SmallVector<GemmOp> mma = selectMmaGemms();
  // 3. Conversions where a use does not fit its fragment's layout.
  convertMisfits(mma);
  addReduceScratch();
  // 4. The gemms and the copies that fill their shared operands.
  markMmaGemms(mma);
  plan.mmaGemms = std::move(mma);
}

void Planner::convertUnstackedOperands() {
  // One shared copy per fragment, refreshed before each gemm that reads it.
  llvm::DenseMap<Operation *, Value> copies;
  for (GemmOp gemm : candidates) {
    AllocOp a = fragmentAlloc(gemm.getA());
    if (!a)
      continue;
    BufferType type = a.getBuffer().getType();
    auto shape = type.getShape();
    int64_t elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    // A tile the gemm cannot read from shared memory either keeps the fragment (and then the
    // class's own reason).
    if (shape[0] % (16 * warps) == 0 || !layout::chooseSwizzle(shape[0], shape[1], elemBytes))
      continue;
    Value &tile = copies[a.getOperation()];
    if (!tile) {
      OpBuilder b(a);
      b.setInsertionPointAfter(a);
      auto sharedType =
          BufferType::get(kernel.getContext(), BufferSpace::Shared, shape, type.getElementType());
      tile = AllocOp::create(b, a.getLoc(), sharedType).getBuffer();
    }
    OpBuilder b(gemm);
    CopyOp::create(b, gemm.getLoc(), a.getBuffer(), ValueRange{}, tile, ValueRange{});
    gemm.getAMutable().set(tile);
    plan.conversions.push_back(
        {gemm, (describeFragment(a, "A's fragment") +
                " goes through shared memory for this gemm, which reads A from there (A "
                "from registers needs whole rows per warp: a multiple of " +
                Twine(16 * warps) + " rows; it has " + Twine(shape[0]) + ")")
                   .str()});
  }
}

SmallVector<AllocOp> Planner::inferClasses() {
  SmallVector<AllocOp> fragments;
  for (auto alloc : kernel.getBody().getOps<AllocOp>())
    if (alloc.getBuffer().getType().isFragment()) {
      fragments.push_back(alloc);
      classes.insert(alloc.getOperation());
    }
  for (GemmOp gemm : candidates)
    if (AllocOp a = fragmentAlloc(gemm.getA())) {
      join(gemm.getA(), gemm.getC());
      rowBound.insert(a);
      rowBound.insert(fragmentAlloc(gemm.getC()));
    }
  kernel.getBody().walk([&](ReduceOp reduce) {
    AllocOp src = fragmentAlloc(reduce.getSource()), dst = fragmentAlloc(reduce.getDest());
    AllocOp init = reduce.getInit() ? fragmentAlloc(reduce.getInit()) : AllocOp();
    if (!src || !dst || src.getBuffer().getType().getRank() != 2 || reduce.getDim() != 1 ||
        (reduce.getInit() && !init) || reduce.isArgReduce())
      return;
    join(reduce.getSource(), reduce.getDest());
    if (init)
      join(reduce.getSource(), reduce.getInit());
    rowReaders.insert(src);
  });
  kernel.getBody().walk([&](ParallelOp parallel) {
    auto [domain, rows] = joinParallelAccesses(parallel, [&](Value x, Value y) { join(x, y); });
    if (rows)
      rowReaders.insert(fragmentAlloc(domain));
  });
  return fragments;
}

void Planner::chooseRegisters(ArrayRef<AllocOp> fragments) {
  MLIRContext *ctx = kernel.getContext();
  // A class goes to registers when it holds a candidate gemm's accumulator.
  llvm::DenseSet<Operation *> accumulators;
  for (GemmOp gemm : candidates)
    accumulators.insert(fragmentAlloc(gemm.getC()));
  llvm::MapVector<Operation *, SmallVector<Operation *>> members;
  for (AllocOp alloc : fragments)
    members[classes.getLeaderValue(alloc.getOperation())].push_back(alloc);
  SmallVector<SmallVector<std::pair<AllocOp, AccLayout>>> chosen;
  for (auto &[leader, list] : members) {
    if (!llvm::any_of(list, [&](Operation *m) { return accumulators.contains(m); }))
      continue;
    SmallVector<std::pair<AllocOp, AccLayout>> layouts;
    if (std::optional<std::string> why = chooseLayouts(list, layouts)) {
      plan.registerMisfits.push_back({list.front(), *why});
      continue;
    }
    chosen.push_back(std::move(layouts));
  }
  // Registers: beyond about 200 per thread the operands no longer fit beside the fragments;
  // the biggest classes stay in shared memory until the rest fits.
  auto registersOf = [&](ArrayRef<std::pair<AllocOp, AccLayout>> layouts) {
    int64_t n = 0;
    // The tiles' registers (row values, a few per thread, are not counted).
    for (auto [alloc, layout] : layouts) {
      BufferType type = alloc.getBuffer().getType();
      if (type.getRank() == 2)
        n += layout.slots() * type.getElementType().getIntOrFloatBitWidth() / 32;
    }
    return n;
  };
  llvm::stable_sort(chosen, [&](auto &x, auto &y) { return registersOf(x) < registersOf(y); });
  int64_t total = 0;
  for (auto &layouts : chosen)
    total += registersOf(layouts);
  while (total > 200 && !chosen.empty()) {
    total -= registersOf(chosen.back());
    plan.registerMisfits.push_back(
        {chosen.back().front().first,
         "the fragments would need more than 200 registers per thread; this one stays in "
         "shared memory"});
    chosen.pop_back();
  }
  for (auto &layouts : chosen)
    for (auto &[alloc, layout] : layouts) {
      alloc->setAttr(kLayoutAttr, layout.toAttr(ctx));
      plan.registers.push_back(alloc);
    }
}

SmallVector<GemmOp> Planner::selectMmaGemms() {
  // The gemms whose fragments got registers run mma.sync.
  SmallVector<GemmOp> mma;
  for (GemmOp gemm : candidates) {
    bool fits =
        inRegisters(gemm.getC()) && (gemm.getA().getType().isShared() || inRegisters(gemm.getA()));
    if (!fits) {
      plan.genericGemms.push_back(
          {gemm, "its accumulator stays in shared memory (see the note on its fragment)"});
      continue;
    }
    // 8-bit floats have no mma.sync form: wgmma, on the layout their accumulator got, or none.
    if (isFloat8(gemm.getA().getType().getElementType()))
      if (std::string why = wgmmaMisfit(gemm); !why.empty()) {
        plan.genericGemms.push_back({gemm, "f8 operands multiply on wgmma only, and " + why});
        continue;
      }
    mma.push_back(gemm);
  }
  return mma;
}

const char *Planner::misfitReason(Operation *at, Value fragment, ArrayRef<GemmOp> mma) {
  const char *reason = nullptr;
  if (auto parallel = dyn_cast<ParallelOp>(at)) {
    if (!fitsRegisterSlots(parallel))
      reason = registerSlotsMisfit(parallel);
  } else if (isa<FillOp>(at)) {
  } else if (auto gemm = dyn_cast<GemmOp>(at)) {
    if (!llvm::is_contained(mma, gemm) || gemm.getB() == fragment)
      reason = "this gemm does not run on mma.sync, which would read the fragment in "
               "registers";
  } else if (auto copy = dyn_cast<CopyOp>(at)) {
    Value other = copy.getSource() == fragment ? copy.getDest() : copy.getSource();
    auto otherBuffer = dyn_cast<BufferType>(other.getType());
    // Row values (rank 1) go to a tensor through shared memory: a quad holds each row.
    bool tensorDest = copy.getSource() == fragment && !otherBuffer &&
                      cast<BufferType>(fragment.getType()).getRank() == 2;
    bool bufferSide = otherBuffer && !otherBuffer.isLocal() && !inRegisters(other);
    if (!tensorDest && !bufferSide)
      reason = "registers are copied to a tensor, or to or from a buffer in shared memory";
  } else if (auto reduce = dyn_cast<ReduceOp>(at); reduce && reduce.isArgReduce()) {
    reason = "argmax and argmin run on the generic lowering, over shared memory";
  } else if (isa<ScanOp>(at)) {
    reason = "scans run on the generic lowering, over shared memory";
  } else if (auto reduce = dyn_cast<ReduceOp>(at)) {
    bool fits = reduce.getSource() == fragment
                    ? reduce.getDim() == 1 && inRegisters(reduce.getDest()) &&
                          (!reduce.getInit() || inRegisters(reduce.getInit()))
                    : inRegisters(reduce.getSource());
    if (!fits)
      reason = "registers are reduced along rows (dim = 1) into row values in registers";
  } else {
    reason = "this op accesses a fragment in registers element by element";
  }
  return reason;
}

void Planner::convertMisfits(ArrayRef<GemmOp> mma) {
  convertMisfitUses(plan,
                    [&](Operation *at, Value fragment) { return misfitReason(at, fragment, mma); });
}

void Planner::addReduceScratch() {
  // scratch[row * warpsN + wn]: the partial value of warp column wn for a row.
  tile::addReduceScratch(kernel, [](const AccLayout &src) -> int64_t {
    bool split = src.kind == AccLayout::Kind::MmaSync && src.mma.warpsN > 1;
    return split ? src.mma.rows * src.mma.warpsN : 0;
  });
}

void Planner::markMmaGemms(ArrayRef<GemmOp> mma) {
  MLIRContext *ctx = kernel.getContext();
  Builder b(ctx);
  for (GemmOp gemm : mma) {
    std::string whyNot = wgmma ? wgmmaMisfit(gemm) : "";
    bool onWgmma = wgmma && whyNot.empty();
    if (onWgmma)
      plan.wgmmaGemms.push_back(gemm);
    else if (wgmma)
      plan.notWgmma.push_back({gemm, whyNot});
    gemm->setAttr(kMmaAttr, MmaKindAttr::get(ctx, onWgmma ? MmaKind::Wgmma : MmaKind::MmaSync));
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      auto type = cast<BufferType>(operand.getType());
      if (!type.isShared())
        continue;
      for (Operation *user : operand.getUsers()) {
        auto copy = dyn_cast<CopyOp>(user);
        auto tensor =
            copy ? dyn_cast<tile::TensorType>(copy.getSource().getType()) : tile::TensorType();
        if (tensor && copy.getDest() == operand && tensor.getRank() >= 2 &&
            tensor.getElementType() == type.getElementType())
          copy->setAttr(kCpAsyncAttr, b.getUnitAttr());
      }
    }
  }
  // The other copies of tensor tiles into shared memory (packed weights a `parallel`
  // dequantizes, tiles it gathers from) take cp.async too where their tile is swizzled (whole
  // 16-byte chunks per row); their readers address the swizzled layout element by element.
  kernel.walk([&](CopyOp copy) {
    auto tensor = dyn_cast<tile::TensorType>(copy.getSource().getType());
    auto dest = dyn_cast<BufferType>(copy.getDest().getType());
    int64_t elemBytes = dest ? cpAsyncElementBytes(dest) : 0;
    if (!tensor || !elemBytes || copy->hasAttr(kCpAsyncAttr) || tensor.getRank() < 2 ||
        tensor.getElementType() != dest.getElementType())
      return;
    if (layout::chooseSwizzle(dest.getShape()[0], dest.getShape()[1], elemBytes))
      copy->setAttr(kCpAsyncAttr, b.getUnitAttr());
  });
}

void tlc::tile::planRegisterLayouts(KernelOp kernel, int64_t warps, bool wgmma,
                                    RegisterPlan &plan) {
  Planner{kernel, warps, wgmma, plan}.run();
}
