// RUN: tlc-opt %s --tlc-expand-float8 --verify-diagnostics

// Before convert-tile-to-nvvm the pass reports that it came too early, at the first tile op
// (tile ops tie their result types to their tensors' element types).
tile.kernel @k threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f8E4M3FN, 1>):
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{tlc-expand-float8 runs after convert-tile-to-nvvm, on IR without tile operations}}
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f8E4M3FN, 1>):
  tile.yield
}
