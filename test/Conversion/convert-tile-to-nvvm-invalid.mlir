// RUN: tlc-opt %s --tile-set-target --convert-tile-to-nvvm --verify-diagnostics

// tile.parallel has no lowering of its own: tile-partition-threads must run first.

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  // expected-error @+1 {{'tile.parallel' op must be partitioned over threads first (run tile-partition-threads)}}
  tile.parallel [64] {
  ^bb0(%i: index):
    %v = tile.load %x[%i] : !tile.tensor<f32, 1>
    tile.store %v, %x[%i] : !tile.tensor<f32, 1>
  }
  tile.yield
}
