// RUN: tlc-opt %s --tile-set-target | FileCheck %s
// RUN: tlc-opt %s --tile-set-target="arch=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: tlc-opt %s --tile-set-target="arch=sm_86" | FileCheck %s --check-prefix=SM86
// RUN: not tlc-opt %s --tile-set-target="arch=sm9" 2>&1 | FileCheck %s --check-prefix=BAD

// The target is set once on the module: architecture, PTX ISA version, shared memory per block.
// CHECK: module attributes {tile.target = #tile.target<"sm_90a", ptx = 86, shared_bytes = 232448>}
// SM80: module attributes {tile.target = #tile.target<"sm_80", ptx = 86, shared_bytes = 166912>}
// SM86: module attributes {tile.target = #tile.target<"sm_86", ptx = 86, shared_bytes = 101376>}
// BAD: tile-set-target.mlir:[[@LINE+1]]:1: error: tile-set-target: unknown architecture 'sm9'; expected sm_XY or sm_XYa, e.g. sm_90a, sm_80
module {
}
