// RUN: not tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts))' 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: not tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-blocked-layouts))' 2>&1 | FileCheck %s --check-prefix=BLOCKED
// RUN: not tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-software-pipeline))' 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-partition-threads,tile-shared-memory-layout))' | FileCheck %s --check-prefix=AFTER

// The passes that add or grow shared buffers (layouts and their conversions, pipeline stages)
// need the shared memory unplaced: run after tile-shared-memory-layout (`tile.shared_bytes` on
// the kernel) they would leave buffers outside the placement, so each stops with a located
// error. Passes that add none (tile-partition-threads, tile-shared-memory-layout again) may run
// after it.
// MMA:      tile-passes-after-placement.mlir:[[@LINE+6]]:1: error: tile-assign-mma-layouts: the shared memory of kernel 'placed' is already placed ('tile.shared_bytes'); run tile-assign-mma-layouts before tile-shared-memory-layout (tlc does)
// BLOCKED:  tile-passes-after-placement.mlir:[[@LINE+5]]:1: error: tile-assign-blocked-layouts: the shared memory of kernel 'placed' is already placed
// PIPELINE: tile-passes-after-placement.mlir:[[@LINE+4]]:1: error: tile-software-pipeline: the shared memory of kernel 'placed' is already placed
// AFTER:    tile.kernel @placed
// AFTER:    scf.for
// AFTER-NOT: tile.parallel
tile.kernel @placed threads [128, 1, 1] args ["X"] dims [["N"]] params {} attributes {tile.shared_bytes = 0 : i64} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %f = tile.alloc : !tile.buffer<fragment 256xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %f, %zero : !tile.buffer<fragment 256xf32>, f32
  tile.parallel [256] {
  ^bb0(%i: index):
    %v = tile.load %x[%i] : !tile.tensor<f32, 1>
    tile.store %v, %x[%i] : !tile.tensor<f32, 1>
  }
  tile.yield
}
