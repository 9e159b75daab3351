// RUN: tlc-opt %s --verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-widen-gemm-operands))'

// Without tile-set-target the pass cannot tell which tensor cores there are: a located error.

// expected-error @+1 {{has no target; hint: run tile-set-target before tile-widen-gemm-operands}}
tile.kernel @no_target threads [128, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}
