// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-blocked-layouts,tile-partition-threads))' | FileCheck %s

// tile-partition-threads over a #tile.blocked fragment: the loop steps over the thread's vectors
// (vec consecutive columns of one row), with the body once per column. A tensor element load
// whose last index is the column plus a value the same for the whole vector (W[j + c]), and
// whose other indices do not depend on the column, becomes one tile.load_vector at the vector's
// first column, its results used by the vec copies of the body. Loads that do depend on the
// column otherwise (V[2 * c]) stay element loads.

// rmsnorm's output body: f32 [1, 1024] on 256 threads, #tile.blocked<vec = 4, threads_per_row =
// 256>: one vector of 4 columns per thread.
// CHECK-LABEL: tile.kernel @scale_rows
// CHECK:         scf.for %[[J:[a-z0-9_]+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NEXT:      tile.copy
// CHECK:         scf.for %[[V:[a-z0-9_]+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:           %[[FIRST:.+]] = arith.muli %[[V]], %c4{{.*}} : index
// CHECK:           %[[IDX:.+]] = arith.addi %[[J]], %{{.+}} : index
// CHECK-NEXT:      %[[W:.+]]:4 = tile.load_vector %{{.+}}[%[[IDX]]] : !tile.tensor<f32, 1> -> f32, f32, f32, f32
// CHECK-NOT:       tile.load_vector
// CHECK:           %[[S0:.+]] = arith.addi %[[FIRST]], %c0{{.*}} : index
// CHECK:           tile.read_slot %{{.+}}[%[[S0]]]
// CHECK:           tile.load %{{.+}}[%{{.+}}] : !tile.tensor<f32, 1>
// CHECK:           arith.mulf %{{.+}}, %[[W]]#0 : f32
// CHECK:           tile.write_slot %{{.+}}, %{{.+}}[%[[S0]]]
// CHECK:           arith.mulf %{{.+}}, %[[W]]#1 : f32
// CHECK:           arith.mulf %{{.+}}, %[[W]]#2 : f32
// CHECK:           %[[S3:.+]] = arith.addi %[[FIRST]], %c3{{.*}} : index
// CHECK:           tile.load %{{.+}}[%{{.+}}] : !tile.tensor<f32, 1>
// CHECK:           arith.mulf %{{.+}}, %[[W]]#3 : f32
// CHECK:           tile.write_slot %{{.+}}, %{{.+}}[%[[S3]]]
// CHECK-NEXT:    } {tile.unroll}
tile.kernel @scale_rows threads [256, 1, 1] args ["X", "W", "V", "Y"] dims [["M", "N"], ["N"], ["K"], ["M", "N"]] params {} grid {
^bb0(%X: !tile.tensor<f32, 2>, %W: !tile.tensor<f32, 1>, %V: !tile.tensor<f32, 1>, %Y: !tile.tensor<f32, 2>):
  %m = tile.dim %X[0] : !tile.tensor<f32, 2>
  %c1 = arith.constant 1 : index
  tile.yield %m, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<f32, 2>, %W: !tile.tensor<f32, 1>, %V: !tile.tensor<f32, 1>, %Y: !tile.tensor<f32, 2>):
  %x = tile.alloc : !tile.buffer<fragment 1x1024xf32>
  %row = tile.block_id 0
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1024 = arith.constant 1024 : index
  %n = tile.dim %X[1] : !tile.tensor<f32, 2>
  scf.for %j = %c0 to %n step %c1024 {
    tile.copy %X[%row, %j] to %x : !tile.tensor<f32, 2> to !tile.buffer<fragment 1x1024xf32>
    tile.parallel [1, 1024] {
    ^bb0(%r: index, %c: index):
      %v = tile.read %x[%r, %c] : !tile.buffer<fragment 1x1024xf32>
      %i = arith.addi %j, %c : index
      %w = tile.load %W[%i] : !tile.tensor<f32, 1>
      %c2c = arith.muli %c, %c2 : index
      %u = tile.load %V[%c2c] : !tile.tensor<f32, 1>
      %p = arith.mulf %v, %u : f32
      %y = arith.mulf %p, %w : f32
      tile.write %y, %x[%r, %c] : !tile.buffer<fragment 1x1024xf32>
    }
    tile.copy %x to %Y[%row, %j] : !tile.buffer<fragment 1x1024xf32> to !tile.tensor<f32, 2>
  }
  tile.yield
}


// A body that stores to a tensor keeps its element loads: a later column's load must not move
// before an earlier column's store (Y may be W).
// CHECK-LABEL: tile.kernel @stores_in_body
// CHECK-NOT:     tile.load_vector
// CHECK:         tile.load
// CHECK:         tile.store
// CHECK:         } {tile.unroll}
tile.kernel @stores_in_body threads [256, 1, 1] args ["X", "W", "Y"] dims [["M", "N"], ["N"], ["N"]] params {} grid {
^bb0(%X: !tile.tensor<f32, 2>, %W: !tile.tensor<f32, 1>, %Y: !tile.tensor<f32, 1>):
  %m = tile.dim %X[0] : !tile.tensor<f32, 2>
  %c1 = arith.constant 1 : index
  tile.yield %m, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<f32, 2>, %W: !tile.tensor<f32, 1>, %Y: !tile.tensor<f32, 1>):
  %x = tile.alloc : !tile.buffer<fragment 1x1024xf32>
  %row = tile.block_id 0
  %c0 = arith.constant 0 : index
  tile.copy %X[%row, %c0] to %x : !tile.tensor<f32, 2> to !tile.buffer<fragment 1x1024xf32>
  tile.parallel [1, 1024] {
  ^bb0(%r: index, %c: index):
    %v = tile.read %x[%r, %c] : !tile.buffer<fragment 1x1024xf32>
    %w = tile.load %W[%c] : !tile.tensor<f32, 1>
    %y = arith.mulf %v, %w : f32
    tile.store %y, %Y[%c] : !tile.tensor<f32, 1>
  }
  tile.yield
}
