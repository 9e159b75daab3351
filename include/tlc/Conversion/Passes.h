//===- Passes.h - Conversion passes out of the tile dialect ---------------===//
#ifndef TLC_CONVERSION_PASSES_H
#define TLC_CONVERSION_PASSES_H

#include "tlc/Conversion/TileToNVVM/TileToNVVM.h"

namespace tlc {

#define GEN_PASS_REGISTRATION
#include "tlc/Conversion/Passes.h.inc"

} // namespace tlc

#endif // TLC_CONVERSION_PASSES_H
