// RUN: tlc-opt %s --split-input-file --verify-diagnostics

// Verifier errors of the buffer type and of the buffer operations.

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{expected 'shared', 'fragment' or 'local', got 'global'}}
  %b = tile.alloc : !tile.buffer<global 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  // expected-error @+1 {{buffer element type must be a signless integer, ui8 or a float type, got 'index'}}
  %b = tile.alloc : !tile.buffer<shared 16xindex>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  // expected-error @+1 {{buffer rank must be between 1 and 8, got 0}}
  %b = tile.alloc : !tile.buffer<shared f32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  // expected-error @+1 {{buffer rank must be between 1 and 8, got 9}}
  %b = tile.alloc : !tile.buffer<local 1x1x1x1x1x1x1x1x1xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  // expected-error @+1 {{buffer dimensions must be positive, got 0}}
  %b = tile.alloc : !tile.buffer<fragment 16x0xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  // expected-error @+1 {{buffer is too large}}
  %b = tile.alloc : !tile.buffer<shared 1048576x1048577xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  tile.parallel [32] {
  ^bb0(%j: index):
    // expected-error @+1 {{'tile.alloc' op expects parent op 'tile.kernel'}}
    %b = tile.alloc : !tile.buffer<local 4xf32>
  }
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<fragment 16x16xf32>
  %v = arith.constant 0 : i32
  // expected-error @+1 {{'tile.fill' op fill value of type 'i32' does not match the buffer's element type 'f32'}}
  tile.fill %b, %v : !tile.buffer<fragment 16x16xf32>, i32
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  // expected-error @+1 {{'tile.copy' op copies between two tensors are not supported; go through a buffer}}
  tile.copy %x[%i, %i] to %x[%i, %i] : !tile.tensor<f32, 2> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<shared 16x16xf32>
  // expected-error @+1 {{'tile.copy' op the source tensor of rank 2 needs 2 offsets, got 1}}
  tile.copy %x[%i] to %b : !tile.tensor<f32, 2> to !tile.buffer<shared 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<shared 16x16xf32>
  // expected-error @+1 {{'tile.copy' op the destination tensor of rank 2 needs 2 offsets, got 0}}
  tile.copy %b to %x : !tile.buffer<shared 16x16xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<shared 16x16xf32>
  %c = tile.alloc : !tile.buffer<fragment 16x16xf32>
  // expected-error @+1 {{'tile.copy' op the destination buffer takes no offsets}}
  tile.copy %b to %c[%i, %i] : !tile.buffer<shared 16x16xf32> to !tile.buffer<fragment 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<shared 16x16xf32>
  // expected-error @+1 {{'tile.copy' op the source buffer takes no offsets}}
  tile.copy %b[%i, %i] to %x[%i, %i] : !tile.buffer<shared 16x16xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<shared 16x16xf32>
  %c = tile.alloc : !tile.buffer<fragment 16x8xf32>
  // expected-error @+1 {{'tile.copy' op copies between buffers of different shapes: [16, 16] and [16, 8]}}
  tile.copy %b to %c : !tile.buffer<shared 16x16xf32> to !tile.buffer<fragment 16x8xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<shared 2x16x16xf32>
  // expected-error @+1 {{'tile.copy' op a buffer of rank 3 cannot be copied to or from a tensor of rank 2}}
  tile.copy %x[%i, %i] to %b : !tile.tensor<f32, 2> to !tile.buffer<shared 2x16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<shared 16x16x1xf16>
  %b = tile.alloc : !tile.buffer<shared 16x16xf16>
  %c = tile.alloc : !tile.buffer<fragment 16x16xf32>
  // expected-error @+1 {{'tile.gemm' op operands must be rank-2 buffers}}
  tile.gemm %a, %b, %c : !tile.buffer<shared 16x16x1xf16>, !tile.buffer<shared 16x16xf16>, !tile.buffer<fragment 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<shared 16x16xf16>
  %b = tile.alloc : !tile.buffer<shared 16x16xf16>
  %c = tile.alloc : !tile.buffer<shared 16x16xf32>
  // expected-error @+1 {{'tile.gemm' op the accumulator must be a fragment, got a shared buffer}}
  tile.gemm %a, %b, %c : !tile.buffer<shared 16x16xf16>, !tile.buffer<shared 16x16xf16>, !tile.buffer<shared 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<shared 16x16xf16>
  %b = tile.alloc : !tile.buffer<fragment 16x16xf16>
  %c = tile.alloc : !tile.buffer<fragment 16x16xf32>
  // expected-error @+1 {{'tile.gemm' op B must be in shared memory, got a fragment buffer}}
  tile.gemm %a, %b, %c : !tile.buffer<shared 16x16xf16>, !tile.buffer<fragment 16x16xf16>, !tile.buffer<fragment 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<local 16x16xf16>
  %b = tile.alloc : !tile.buffer<shared 16x16xf16>
  %c = tile.alloc : !tile.buffer<fragment 16x16xf32>
  // expected-error @+1 {{'tile.gemm' op A must be in shared memory or a fragment}}
  tile.gemm %a, %b, %c : !tile.buffer<local 16x16xf16>, !tile.buffer<shared 16x16xf16>, !tile.buffer<fragment 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<shared 16x32xf16>
  %b = tile.alloc : !tile.buffer<shared 16x8xf16>
  %c = tile.alloc : !tile.buffer<fragment 16x8xf32>
  // expected-error @+1 {{'tile.gemm' op inner dimensions differ: A is [16, 32], B is [16, 8]; K = 32 vs 16}}
  tile.gemm %a, %b, %c : !tile.buffer<shared 16x32xf16>, !tile.buffer<shared 16x8xf16>, !tile.buffer<fragment 16x8xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<shared 32x16xf16>
  %b = tile.alloc : !tile.buffer<shared 8x32xf16>
  %c = tile.alloc : !tile.buffer<fragment 16x16xf32>
  // expected-error @+1 {{'tile.gemm' op the accumulator is [16, 16] but A x B is [16, 8]}}
  tile.gemm %a, %b, %c {transpose_a, transpose_b} : !tile.buffer<shared 32x16xf16>, !tile.buffer<shared 8x32xf16>, !tile.buffer<fragment 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<shared 16x16xf16>
  %b = tile.alloc : !tile.buffer<shared 16x16xbf16>
  %c = tile.alloc : !tile.buffer<fragment 16x16xf32>
  // expected-error @+1 {{'tile.gemm' op A and B must have the same element type, got 'f16' and 'bf16'}}
  tile.gemm %a, %b, %c : !tile.buffer<shared 16x16xf16>, !tile.buffer<shared 16x16xbf16>, !tile.buffer<fragment 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<shared 16x16xf32>
  %b = tile.alloc : !tile.buffer<shared 16x16xf32>
  %c = tile.alloc : !tile.buffer<fragment 16x16xf32>
  // expected-error @+1 {{'tile.gemm' op tensor cores do not take 'f32' inputs; use f16, bf16, tf32, f8e4m3, f8e5m2 or i8}}
  tile.gemm %a, %b, %c : !tile.buffer<shared 16x16xf32>, !tile.buffer<shared 16x16xf32>, !tile.buffer<fragment 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<shared 16x16xbf16>
  %b = tile.alloc : !tile.buffer<shared 16x16xbf16>
  %c = tile.alloc : !tile.buffer<fragment 16x16xf16>
  // expected-error @+1 {{'tile.gemm' op an accumulator of 'f16' cannot hold products of 'bf16'}}
  tile.gemm %a, %b, %c : !tile.buffer<shared 16x16xbf16>, !tile.buffer<shared 16x16xbf16>, !tile.buffer<fragment 16x16xf16>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<shared 16x16xi8>
  %b = tile.alloc : !tile.buffer<shared 16x16xi8>
  %c = tile.alloc : !tile.buffer<fragment 16x16xf32>
  // expected-error @+1 {{'tile.gemm' op an accumulator of 'f32' cannot hold products of 'i8'}}
  tile.gemm %a, %b, %c : !tile.buffer<shared 16x16xi8>, !tile.buffer<shared 16x16xi8>, !tile.buffer<fragment 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  // expected-error @+1 {{'tile.reduce' op kind must be 'sum', 'max', 'min', 'argmax' or 'argmin', got 'mean'}}
  tile.reduce %s, %d {dim = 1 : i64, kind = "mean"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  // expected-error @+1 {{'tile.reduce' op dimension 2 is out of range for a buffer of rank 2}}
  tile.reduce %s, %d {dim = 2 : i64, kind = "sum"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  // expected-error @+1 {{'tile.reduce' op reducing [16, 8] along dimension 0 gives [8], but the destination is [16]}}
  tile.reduce %s, %d {dim = 0 : i64, kind = "sum"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %s = tile.alloc : !tile.buffer<fragment 16xf32>
  %d = tile.alloc : !tile.buffer<fragment 2xf32>
  // expected-error @+1 {{'tile.reduce' op reducing [16] along dimension 0 gives [1], but the destination is [2]}}
  tile.reduce %s, %d {dim = 0 : i64, kind = "max"} : !tile.buffer<fragment 16xf32> to !tile.buffer<fragment 2xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf16>
  // expected-error @+1 {{'tile.reduce' op source and destination element types differ: 'f32' and 'f16'}}
  tile.reduce %s, %d {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf16>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  %n = tile.alloc : !tile.buffer<local 16xf32>
  // expected-error @+1 {{'tile.reduce' op 'init' must have the destination's type '!tile.buffer<fragment 16xf32>'}}
  tile.reduce %s, %d init %n : !tile.buffer<local 16xf32> {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  %n = tile.alloc : !tile.buffer<fragment 16xf32>
  // expected-error @+1 {{'tile.reduce' op 'init' and 'accumulate' cannot be combined}}
  tile.reduce %s, %d init %n : !tile.buffer<fragment 16xf32> {accumulate, dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<local 4x4xf32>
  // expected-error @+1 {{'tile.read' op expects 2 indices for a buffer of rank 2, got 1}}
  %v = tile.read %b[%i] : !tile.buffer<local 4x4xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<local 4xf32>
  // expected-error @+1 {{'tile.read' op failed to verify that result type is the buffer's element type}}
  %v = "tile.read"(%b, %i) : (!tile.buffer<local 4xf32>, index) -> f16
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<local 4xf32>
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.write' op expects 1 indices for a buffer of rank 1, got 2}}
  tile.write %v, %b[%i, %i] : !tile.buffer<local 4xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<local 4xf32>
  %v = arith.constant 1 : i32
  // expected-error @+1 {{'tile.write' op failed to verify that value type is the buffer's element type}}
  "tile.write"(%v, %b, %i) : (i32, !tile.buffer<local 4xf32>, index) -> ()
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.atomic_add' op expects 2 indices for a tensor of rank 2, got 1}}
  tile.atomic_add %v, %x[%i] : !tile.tensor<f32, 2>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %v = arith.constant true
  // expected-error @+1 {{'tile.atomic_add' op atomic_add needs an integer or float element type}}
  tile.atomic_add %v, %y[%i] : !tile.tensor<i1, 1>
  tile.yield
}

// -----

// expected-error @+1 {{'tile.alloc' op expects parent op 'tile.kernel'}}
%b = tile.alloc : !tile.buffer<shared 16xf32>

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<shared 4x4xf32>
  // expected-error @+1 {{'tile.read_slot' op needs a fragment buffer, found '!tile.buffer<shared 4x4xf32>'}}
  %v = tile.read_slot %b[%i] : !tile.buffer<shared 4x4xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %i = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  %b = tile.alloc : !tile.buffer<local 4xf32>
  // expected-error @+1 {{'tile.write_slot' op needs a fragment buffer, found '!tile.buffer<local 4xf32>'}}
  tile.write_slot %v, %b[%i] : !tile.buffer<local 4xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  // expected-error @+1 {{'tile.reduce' op 'argmax' needs an index buffer}}
  tile.reduce %s, %d {dim = 1 : i64, kind = "argmax"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  %i = tile.alloc : !tile.buffer<fragment 16xi32>
  // expected-error @+1 {{'tile.reduce' op only 'argmax' and 'argmin' take an index buffer or offset, not 'max'}}
  tile.reduce %s, %d index %i : !tile.buffer<fragment 16xi32> {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  %i = tile.alloc : !tile.buffer<fragment 8xi32>
  // expected-error @+1 {{'tile.reduce' op the index buffer is [8] but the destination is [16]}}
  tile.reduce %s, %d index %i : !tile.buffer<fragment 8xi32> {dim = 1 : i64, kind = "argmin"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  %i = tile.alloc : !tile.buffer<fragment 16xf32>
  // expected-error @+1 {{'tile.reduce' op the index buffer must have i32 or i64 elements, got 'f32'}}
  tile.reduce %s, %d index %i : !tile.buffer<fragment 16xf32> {dim = 1 : i64, kind = "argmax"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  %i = tile.alloc : !tile.buffer<local 16xi64>
  // expected-error @+1 {{'tile.reduce' op the index buffer and the destination must both be local or neither}}
  tile.reduce %s, %d index %i : !tile.buffer<local 16xi64> {dim = 1 : i64, kind = "argmax"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  %i = tile.alloc : !tile.buffer<fragment 16xi32>
  %n = tile.alloc : !tile.buffer<fragment 16xf32>
  // expected-error @+1 {{'tile.reduce' op 'init' does not combine with 'argmax'}}
  tile.reduce %s, %d init %n : !tile.buffer<fragment 16xf32> index %i : !tile.buffer<fragment 16xi32> {dim = 1 : i64, kind = "argmax"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %t = tile.alloc : !tile.buffer<fragment 16x8xf32>
  // expected-error @+1 {{'tile.scan' op kind must be 'sum' or 'prod', got 'max'}}
  tile.scan %s, %t {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16x8xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %t = tile.alloc : !tile.buffer<fragment 16x8xf32>
  // expected-error @+1 {{'tile.scan' op dimension 2 is out of range for a buffer of rank 2}}
  tile.scan %s, %t {dim = 2 : i64, kind = "sum"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16x8xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %t = tile.alloc : !tile.buffer<fragment 8x16xf32>
  // expected-error @+1 {{'tile.scan' op the destination is [8, 16] but the source is [16, 8]}}
  tile.scan %s, %t {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 8x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %t = tile.alloc : !tile.buffer<fragment 16x8xf16>
  // expected-error @+1 {{'tile.scan' op source and destination element types differ: 'f32' and 'f16'}}
  tile.scan %s, %t {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16x8xf16>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xi1>
  // expected-error @+1 {{'tile.scan' op does not take 'i1' elements}}
  tile.scan %s, %s {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 16x8xi1> to !tile.buffer<fragment 16x8xi1>
  tile.yield
}

// -----

// A copy's `scratch` (tile-assign-mma-layouts' staged stores): only a fragment -> tensor copy
// takes one, a rank-1 shared buffer of i8.
tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<shared 16x16xf32>
  %s = tile.alloc : !tile.buffer<shared 2048xi8>
  // expected-error @+1 {{'tile.copy' op only a copy from a fragment to a tensor takes a scratch buffer}}
  tile.copy %b to %x[%i, %i] scratch %s : !tile.buffer<shared 2048xi8> : !tile.buffer<shared 16x16xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<fragment 16x16xf32>
  %s = tile.alloc : !tile.buffer<shared 512xf32>
  // expected-error @+1 {{'tile.copy' op the scratch buffer must be a rank-1 shared buffer of i8}}
  tile.copy %b to %x[%i, %i] scratch %s : !tile.buffer<shared 512xf32> : !tile.buffer<fragment 16x16xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// `tma_store` (tile-assign-mma-layouts on sm_90a) stages through a scratch of 2048-byte slabs,
// and writes rank-2 tensors of 2- or 4-byte elements.
tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<fragment 16x16xf32>
  // expected-error @+1 {{'tile.copy' op 'tma_store' stages rows through a scratch buffer, and this copy has none}}
  tile.copy %b to %x[%i, %i] {tma_store} : !tile.buffer<fragment 16x16xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<fragment 16xf32>
  %s = tile.alloc : !tile.buffer<shared 2048xi8>
  // expected-error @+1 {{'tile.copy' op 'tma_store' writes rank-2 tensors of 2- or 4-byte elements}}
  tile.copy %b to %y[%i] scratch %s : !tile.buffer<shared 2048xi8> {tma_store} : !tile.buffer<fragment 16xf32> to !tile.tensor<i1, 1>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i1, 1>):
  %i = arith.constant 0 : index
  %b = tile.alloc : !tile.buffer<fragment 16x16xf32>
  %s = tile.alloc : !tile.buffer<shared 3000xi8>
  // expected-error @+1 {{'tile.copy' op a 'tma_store' scratch is made of 2048-byte slabs}}
  tile.copy %b to %x[%i, %i] scratch %s : !tile.buffer<shared 3000xi8> {tma_store} : !tile.buffer<fragment 16x16xf32> to !tile.tensor<f32, 2>
  tile.yield
}
