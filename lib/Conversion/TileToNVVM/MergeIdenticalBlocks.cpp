//===- MergeIdenticalBlocks.cpp - Block merging that keeps locals apart ---===//
//
// Upstream's block merging, applied to a copy of the function and kept unless a block argument
// it adds receives the address of a local buffer (Passes.td).
//
//===----------------------------------------------------------------------===//
#include "tlc/Conversion/TileToNVVM/TileToNVVM.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace tlc {
#define GEN_PASS_DEF_MERGEIDENTICALBLOCKS
#include "tlc/Conversion/Passes.h.inc"
} // namespace tlc

using namespace mlir;

/// Whether `value` is, or is a struct holding, an address derived from an `llvm.alloca`
/// (through GEPs, casts and insertvalue: a memref descriptor of a local buffer).
static bool carriesLocalAddress(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (isa<LLVM::AllocaOp>(def))
    return true;
  if (auto gep = dyn_cast<LLVM::GEPOp>(def))
    return carriesLocalAddress(gep.getBase());
  if (auto cast = dyn_cast<LLVM::AddrSpaceCastOp>(def))
    return carriesLocalAddress(cast.getArg());
  if (auto cast = dyn_cast<LLVM::BitcastOp>(def))
    return carriesLocalAddress(cast.getArg());
  if (auto insert = dyn_cast<LLVM::InsertValueOp>(def))
    return carriesLocalAddress(insert.getValue()) || carriesLocalAddress(insert.getContainer());
  return false;
}

/// The block arguments of `region` (pointers and structs) that some predecessor passes a local
/// address.
static unsigned countLocalAddressArguments(Region &region) {
  unsigned count = 0;
  for (Block &block : region) {
    for (BlockArgument arg : block.getArguments()) {
      if (!isa<LLVM::LLVMPointerType, LLVM::LLVMStructType>(arg.getType()))
        continue;
      bool local = false;
      for (auto it = block.pred_begin(); it != block.pred_end() && !local; ++it) {
        auto branch = dyn_cast<BranchOpInterface>((*it)->getTerminator());
        if (!branch)
          continue;
        SuccessorOperands operands = branch.getSuccessorOperands(it.getSuccessorIndex());
        Value incoming = operands[arg.getArgNumber()];
        local = incoming && carriesLocalAddress(incoming);
      }
      count += local;
    }
  }
  return count;
}

namespace {
struct MergeIdenticalBlocksPass
    : public tlc::impl::MergeIdenticalBlocksBase<MergeIdenticalBlocksPass> {
  void runOnOperation() override {
    LLVM::LLVMFuncOp func = getOperation();
    if (func.getBody().empty() || func.getBody().hasOneBlock())
      return;
    unsigned before = countLocalAddressArguments(func.getBody());
    // Merge on a detached copy; take its body only if no local address became an argument.
    OwningOpRef<LLVM::LLVMFuncOp> copy(cast<LLVM::LLVMFuncOp>(func->clone()));
    IRRewriter rewriter(&getContext());
    if (failed(simplifyRegions(rewriter, copy->getBody(), /*mergeBlocks=*/true)))
      return;
    if (countLocalAddressArguments(copy->getBody()) > before)
      return;
    func.getBody().takeBody(copy->getBody());
  }
};
} // namespace
