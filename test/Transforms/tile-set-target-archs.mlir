// RUN: tlc-opt %s --tile-set-target | FileCheck %s
// RUN: tlc-opt %s --tile-set-target="arch=sm_80" | FileCheck %s --check-prefix=SM80

// A configuration limited to some architectures (`on ARCH`: tile.archs) is removed for the
// others: their images leave it out. Configurations without tile.archs stay everywhere. A
// configuration whose `when` (the grid's fourth result) is the constant false is removed for
// every architecture (the launcher never chooses it); one whose condition is not a constant
// stays.
// CHECK: tile.kernel @k__0
// CHECK-SAME: tile.archs = ["sm_90a", "sm_100a"]
// CHECK: tile.kernel @k__1
// CHECK-NOT: @k__2
// CHECK: tile.kernel @k__3
// CHECK-NOT: @k__2
// SM80-NOT: @k__0
// SM80: tile.kernel @k__1
// SM80-NOT: @k__{{[02]}}
// SM80: tile.kernel @k__3
// SM80-NOT: @k__{{[02]}}

module {
  tile.kernel @k__0 threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} attributes {variant_of = "k", variant = 0 : i64, tile.archs = ["sm_90a", "sm_100a"]} grid {
  ^bb0(%x: !tile.tensor<bf16, 2>):
    %c1 = arith.constant 1 : index
    tile.yield %c1, %c1, %c1 : index, index, index
  } body {
  ^bb0(%x: !tile.tensor<bf16, 2>):
    tile.yield
  }
  tile.kernel @k__1 threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} attributes {variant_of = "k", variant = 1 : i64} grid {
  ^bb0(%x: !tile.tensor<bf16, 2>):
    %c1 = arith.constant 1 : index
    tile.yield %c1, %c1, %c1 : index, index, index
  } body {
  ^bb0(%x: !tile.tensor<bf16, 2>):
    tile.yield
  }
  tile.kernel @k__2 threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} attributes {variant_of = "k", variant = 2 : i64} grid {
  ^bb0(%x: !tile.tensor<bf16, 2>):
    %c1 = arith.constant 1 : index
    %false = arith.constant false
    tile.yield %c1, %c1, %c1, %false : index, index, index, i1
  } body {
  ^bb0(%x: !tile.tensor<bf16, 2>):
    tile.yield
  }
  tile.kernel @k__3 threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} attributes {variant_of = "k", variant = 3 : i64} grid {
  ^bb0(%x: !tile.tensor<bf16, 2>):
    %c1 = arith.constant 1 : index
    %m = tile.dim %x[0] : !tile.tensor<bf16, 2>
    %big = arith.cmpi sgt, %m, %c1 : index
    tile.yield %c1, %c1, %c1, %big : index, index, index, i1
  } body {
  ^bb0(%x: !tile.tensor<bf16, 2>):
    tile.yield
  }
}
