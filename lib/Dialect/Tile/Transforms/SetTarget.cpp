//===- SetTarget.cpp - The module's target, set once ----------------------===//
#include "tlc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"

namespace tlc::tile {
#define GEN_PASS_DEF_TILESETTARGET
#include "tlc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tlc::tile

using namespace mlir;
using namespace tlc;
using namespace tlc::tile;

namespace {
struct SetTargetPass : public tlc::tile::impl::TileSetTargetBase<SetTargetPass> {
  using TileSetTargetBase::TileSetTargetBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!TargetAttr::isValidArch(arch)) {
      module.emitError() << "tile-set-target: unknown architecture '" << arch
                         << "'; expected sm_XY or sm_XYa, e.g. sm_90a, sm_80";
      return signalPassFailure();
    }
    module->setAttr(kTargetAttr, TargetAttr::get(&getContext(), arch));
    // Configurations limited to other architectures (`on`: tile.archs) are not compiled for
    // this one: its image leaves them out, and the launcher chooses among those it has. Nor
    // are configurations whose `when` folded to false: the launcher never chooses them.
    for (auto kernel : llvm::make_early_inc_range(module.getOps<KernelOp>())) {
      auto archs = kernel->getAttrOfType<ArrayAttr>(kArchsAttr);
      bool otherArchs = archs && llvm::none_of(archs, [&](Attribute a) {
                          return cast<StringAttr>(a).getValue() == arch;
                        });
      if (otherArchs || neverChosen(kernel))
        kernel.erase();
    }
  }

  /// Whether `kernel` is a configuration whose `when` condition (the grid's fourth result) is
  /// the constant false.
  static bool neverChosen(KernelOp kernel) {
    if (getVariantOf(kernel).empty() || kernel.getGrid().empty())
      return false;
    Operation *yield = kernel.getGrid().front().getTerminator();
    return yield && yield->getNumOperands() == 4 && matchPattern(yield->getOperand(3), m_Zero());
  }
};
} // namespace
