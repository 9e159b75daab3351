// RUN: tlc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},convert-tile-to-nvvm)' | FileCheck %s

// A configuration tile-shared-memory-layout{omit-unfit-variants} marked `tile.omitted` (it
// does not fit the target's shared memory) is left out of the image; the others are converted.
// CHECK-LABEL: gpu.module
// CHECK-NOT:   @k__0
// CHECK:       gpu.func @k__1(
// CHECK-NOT:   @k__0
tile.kernel @k__0 threads [32, 1, 1] args ["X"] dims [["N"]] params {V = 1 : i64} attributes {tile.omitted, variant = 0 : i64, variant_of = "k"} grid {
^bb0(%arg0: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%arg0: !tile.tensor<f32, 1>):
  %0 = tile.thread_id 0
  %cst = arith.constant 1.000000e+00 : f32
  tile.store %cst, %arg0[%0] : !tile.tensor<f32, 1>
  tile.yield
}
tile.kernel @k__1 threads [32, 1, 1] args ["X"] dims [["N"]] params {V = 2 : i64} attributes {variant = 1 : i64, variant_of = "k"} grid {
^bb0(%arg0: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%arg0: !tile.tensor<f32, 1>):
  %0 = tile.thread_id 0
  %cst = arith.constant 2.000000e+00 : f32
  tile.store %cst, %arg0[%0] : !tile.tensor<f32, 1>
  tile.yield
}

// -----

// With every configuration left out, the kernel is an error (at the last one).
tile.kernel @k__0 threads [32, 1, 1] args ["X"] dims [["N"]] params {} attributes {tile.omitted, variant = 0 : i64, variant_of = "k"} grid {
^bb0(%arg0: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%arg0: !tile.tensor<f32, 1>):
  tile.yield
}
// expected-error@+1 {{no configuration of kernel 'k' fits the 166912 bytes of shared memory of 'sm_80'}}
tile.kernel @k__1 threads [32, 1, 1] args ["X"] dims [["N"]] params {} attributes {tile.omitted, variant = 1 : i64, variant_of = "k"} grid {
^bb0(%arg0: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%arg0: !tile.tensor<f32, 1>):
  tile.yield
}

// -----

// `tile.omitted` belongs on a configuration.
// expected-error@+1 {{'tile.omitted' belongs on a 'tile.kernel' that is one configuration ('variant_of')}}
tile.kernel @plain threads [32, 1, 1] args ["X"] dims [["N"]] params {} attributes {tile.omitted} grid {
^bb0(%arg0: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%arg0: !tile.tensor<f32, 1>):
  tile.yield
}
