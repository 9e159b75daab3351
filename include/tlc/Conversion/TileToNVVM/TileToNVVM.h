//===- TileToNVVM.h - Lowering of the tile dialect towards NVVM -----------===//
#ifndef TLC_CONVERSION_TILETONVVM_TILETONVVM_H
#define TLC_CONVERSION_TILETONVVM_TILETONVVM_H

// Only the passes' declarations: the dialects they work on are included where they are defined
// (NVVMDialect.h alone takes about 16 s to compile).
#include "mlir/Pass/Pass.h"

namespace tlc {

/// Suffix of the entry name of a kernel compiled by the sm_90a strategy, whose parameters end
/// with TMA tensor maps and whose block has a producer warpgroup (docs/abi.md).
inline constexpr llvm::StringLiteral kTmaEntrySuffix = "__tma";
/// Suffix of the entry name of a kernel whose sm_90a main loop is a ring filled by a producer
/// warpgroup that loads the tiles itself (tensors TMA cannot read; no tensor maps).
inline constexpr llvm::StringLiteral kLoadsEntrySuffix = "__loads";

#define GEN_PASS_DECL_CONVERTTILETONVVM
#define GEN_PASS_DECL_CONVERTGPUTONVVM
#define GEN_PASS_DECL_EXPANDFLOAT8
#define GEN_PASS_DECL_MARKGRIDCONSTANTS
#define GEN_PASS_DECL_LOWERSTRUCTUREDCONTROLFLOW
#define GEN_PASS_DECL_UNIFYDYNAMICSHAREDMEMORY
#define GEN_PASS_DECL_MERGEIDENTICALBLOCKS
#include "tlc/Conversion/Passes.h.inc"

} // namespace tlc

#endif // TLC_CONVERSION_TILETONVVM_TILETONVVM_H
