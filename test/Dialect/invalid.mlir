// RUN: tlc-opt %s --split-input-file --verify-diagnostics

// Verifier errors of the tile dialect's types and operations.

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
// expected-error @+1 {{tensor element type must be a signless integer, ui8 or a float type, got 'index'}}
^bb0(%x: !tile.tensor<index, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [[]] params {} grid {
// expected-error @+1 {{tensor rank must be between 1 and 8, got 0}}
^bb0(%x: !tile.tensor<f32, 0>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [[]] params {} grid {
// expected-error @+1 {{tensor rank must be between 1 and 8, got 9}}
^bb0(%x: !tile.tensor<f32, 9>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}
// -----

// expected-error @+1 {{'tile.kernel' op expects 3 thread dimensions, got 2}}
tile.kernel @k threads [32, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op thread dimensions must be positive}}
tile.kernel @k threads [32, 0, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op a block holds at most 1024 threads, got 2048}}
tile.kernel @k threads [64, 32, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op 'grid' and 'body' regions must take the same arguments}}
tile.kernel @k threads [32, 1, 1] args ["s"] dims [[]] params {} grid {
^bb0(%s: f32):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%s: f64):
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op expects 1 argument names, got 2}}
tile.kernel @k threads [32, 1, 1] args ["s", "t"] dims [[]] params {} grid {
^bb0(%s: f32):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%s: f32):
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op expects 1 dimension name lists, got 0}}
tile.kernel @k threads [32, 1, 1] args ["s"] dims [] params {} grid {
^bb0(%s: f32):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%s: f32):
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op 'dim_names' entries must be arrays of strings}}
tile.kernel @k threads [32, 1, 1] args ["X"] dims [[1]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op 'dim_names' entries must be arrays of strings}}
tile.kernel @k threads [32, 1, 1] args ["X"] dims ["N"] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op kernel arguments must be tensors or scalars, got 'vector<4xf32>'}}
tile.kernel @k threads [32, 1, 1] args ["v"] dims [[]] params {} grid {
^bb0(%v: vector<4xf32>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%v: vector<4xf32>):
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op argument of type '!tile.tensor<f32, 2>' needs 2 dimension names, got 1}}
tile.kernel @k threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op argument of type 'f32' needs 0 dimension names, got 1}}
tile.kernel @k threads [32, 1, 1] args ["s"] dims [["N"]] params {} grid {
^bb0(%s: f32):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%s: f32):
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op 'grid' region must yield three 'index' values}}
tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1 : index, index
} body {
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op 'grid' region must yield three 'index' values}}
tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : i64
  tile.yield %c1, %c1, %c1 : i64, i64, i64
} body {
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op 'body' region must end with a 'tile.yield' of no values}}
tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %c1 = arith.constant 1 : index
  tile.yield %c1 : index
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.parallel [32] {
  ^bb0(%i: index):
    // expected-error @+1 {{'tile.yield' op in a 'tile.parallel' body yields no values}}
    tile.yield %i : index
  }
  tile.yield
}

// -----

// expected-error @+1 {{'tile.yield' op expects parent op to be one of 'tile.kernel, tile.parallel, tile.warp_specialize'}}
tile.yield

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.block_id' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %b = tile.block_id 3
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.thread_id' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0}}
  %t = tile.thread_id -1
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{'tile.dim' op dimension 2 is out of range for a tensor of rank 2}}
  %d = tile.dim %x[2] : !tile.tensor<f32, 2>
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op expects 2 indices for a tensor of rank 2, got 1}}
  %v = tile.load %x[%c0] : !tile.tensor<f32, 2>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op failed to verify that result type is the tensor's element type}}
  %v = "tile.load"(%x, %c0) : (!tile.tensor<f32, 1>, index) -> f64
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.store' op expects 1 indices for a tensor of rank 1, got 2}}
  tile.store %v, %x[%c0, %c0] : !tile.tensor<f32, 1>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %c0 = arith.constant 0 : index
  %v = arith.constant 1 : i32
  // expected-error @+1 {{'tile.store' op failed to verify that value type is the tensor's element type}}
  "tile.store"(%v, %x, %c0) : (i32, !tile.tensor<f32, 1>, index) -> ()
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.parallel' op expects a non-empty shape}}
  tile.parallel [] {
  }
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.parallel' op shape extents must be positive, got 0}}
  tile.parallel [4, 0] {
  ^bb0(%i: index, %j: index):
  }
  tile.yield
}

// -----

// expected-error @+1 {{'tile.parallel' op must be inside a 'tile.kernel'}}
tile.parallel [4] {
^bb0(%i: index):
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.parallel [4] {
  ^bb0(%i: index):
    // expected-error @+1 {{'tile.parallel' op cannot be nested in another 'tile.parallel'}}
    tile.parallel [4] {
    ^bb0(%j: index):
    }
  }
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.parallel' op body must take 2 'index' arguments}}
  tile.parallel [4, 4] {
  ^bb0(%i: index):
  }
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.parallel' op body must take 1 'index' arguments}}
  tile.parallel [4] {
  ^bb0(%i: i64):
  }
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load_vector' op loads 2, 4, 8 or 16 elements, not 3}}
  %v:3 = tile.load_vector %x[%c0, %c0] : !tile.tensor<f32, 2> -> f32, f32, f32
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load_vector' op results must be the tensor's element type 'bf16', not 'f32'}}
  %v:2 = tile.load_vector %x[%c0, %c0] : !tile.tensor<bf16, 2> -> f32, f32
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load_vector' op expects 2 indices for a tensor of rank 2, got 1}}
  %v:2 = tile.load_vector %x[%c0] : !tile.tensor<f32, 2> -> f32, f32
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %f = tile.alloc : !tile.buffer<fragment 16x16xf32>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.stage' op addresses a stage of a shared buffer, not of '!tile.buffer<fragment 16x16xf32>'}}
  %s = tile.stage %f[%c0] : !tile.buffer<fragment 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %b = tile.alloc : !tile.buffer<shared 16x16xf32>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.stage' op needs a buffer allocated with 'tile.stages' of 2 or more}}
  %s = tile.stage %b[%c0] : !tile.buffer<shared 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %b = tile.alloc {tile.stages = 2 : i64} : !tile.buffer<shared 16x16xf32>
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'tile.stage' op stage 2 is outside the buffer's 2 stages}}
  %s = tile.stage %b[%c2] : !tile.buffer<shared 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.async_wait' op attribute 'pending' failed to satisfy constraint}}
  tile.async_wait pending = -1
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %b = tile.alloc : !tile.buffer<shared 16x16xf32>
  // expected-error @+1 {{'tile.mma_wait' op waits for the accumulators of gemms (fragments), not for '!tile.buffer<shared 16x16xf32>'}}
  tile.mma_wait pending = 0, %b : !tile.buffer<shared 16x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %b = tile.alloc : !tile.buffer<shared 4xi32>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.mbarrier_init' op names an mbarrier in a shared rank-1 buffer of i64, not in '!tile.buffer<shared 4xi32>'}}
  tile.mbarrier_init %b[%c0], count = 1 : !tile.buffer<shared 4xi32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %b = tile.alloc : !tile.buffer<shared 4xi64>
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'tile.mbarrier_wait' op mbarrier 4 is outside the buffer's 4}}
  tile.mbarrier_wait %b[%c4], parity %c4 : !tile.buffer<shared 4xi64>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %b = tile.alloc : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.mbarrier_arrive' op attribute 'expect_tx' failed to satisfy constraint}}
  tile.mbarrier_arrive %b[%c0], expect_tx = 0 : !tile.buffer<shared 4xi64>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["A"] dims [["M", "K"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>):
  %t = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %b = tile.alloc : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.tma_load' op takes one offset per tensor dimension (2), not 1}}
  tile.tma_load %a[%c0] to %t, %b[%c0] : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 4xi64>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["A"] dims [["M", "K"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>):
  %t = tile.alloc : !tile.buffer<fragment 64x64xbf16>
  %b = tile.alloc : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.tma_load' op writes a shared tile of rank 2, not '!tile.buffer<fragment 64x64xbf16>'}}
  tile.tma_load %a[%c0, %c0] to %t, %b[%c0] : !tile.tensor<bf16, 2> to !tile.buffer<fragment 64x64xbf16>, !tile.buffer<shared 4xi64>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["A"] dims [["M", "K"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>):
  %t = tile.alloc : !tile.buffer<shared 64x64xf16>
  %b = tile.alloc : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.tma_load' op copies 'bf16' elements into a tile of 'f16'}}
  tile.tma_load %a[%c0, %c0] to %t, %b[%c0] : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xf16>, !tile.buffer<shared 4xi64>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.warp_specialize' op needs the kernel's producer warpgroup ('tile.producer_threads' on the kernel)}}
  tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
  } consumers {
  }
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args [] dims [] params {} attributes {tile.producer_threads = 128 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.warp_specialize' op attribute 'consumer_registers' failed to satisfy constraint}}
  tile.warp_specialize producer_registers = 40, consumer_registers = 512 producer {
  } consumers {
  }
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["A"] dims [["M", "K"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>):
  %t = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.producer_copy' op in a staged mode needs its edge bytes ('edges')}}
  tile.producer_copy %a[%c0, %c0] to %t {mode = #tile.producer_copy<staged_realign>} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["A"] dims [["M", "K"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>):
  %t = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %e = tile.alloc : !tile.buffer<shared 1024xi8>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.producer_copy' op takes edge bytes ('edges') in the staged modes only}}
  tile.producer_copy %a[%c0, %c0] to %t edges %e[%c0] {mode = #tile.producer_copy<cp_async>} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 1024xi8>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["A"] dims [["M", "K"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>):
  %t = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %e = tile.alloc : !tile.buffer<shared 512xi32>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.producer_copy' op keeps its edge bytes in a shared rank-1 buffer of i8, not '!tile.buffer<shared 512xi32>'}}
  tile.producer_copy %a[%c0, %c0] to %t edges %e[%c0] {mode = #tile.producer_copy<staged_issue>} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 512xi32>
  tile.yield
}

// -----

tile.kernel @k threads [32, 1, 1] args ["A"] dims [["M", "K"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>):
  %t = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.producer_copy' op takes one offset per tensor dimension (2), not 3}}
  tile.producer_copy %a[%c0, %c0, %c0] to %t {mode = #tile.producer_copy<realigned>} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args [] dims [] params {} attributes {tile.producer_threads = 128 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.stream_k_active' op needs a kernel that takes a stream-K workspace ('tile.stream_k' on the kernel; tile-warp-specialize sets it)}}
  %on = tile.stream_k_active
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args [] dims [] params {} attributes {tile.producer_threads = 128 : i64, tile.stream_k = 65536 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %acc = tile.alloc : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.partial_store' op needs a fragment with a register layout ('tile.layout' on its alloc)}}
  tile.partial_store %acc, %c0, offset = 0 : !tile.buffer<fragment 128x128xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args [] dims [] params {} attributes {tile.producer_threads = 128 : i64, tile.stream_k = 65536 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xbf16>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.partial_add' op moves a fragment of f32, not '!tile.buffer<fragment 128x128xbf16>'}}
  tile.partial_add %acc, %c0, offset = 0 : !tile.buffer<fragment 128x128xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args [] dims [] params {} attributes {tile.producer_threads = 128 : i64, tile.stream_k = 65536 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.partial_store' op offset must be a multiple of 16 bytes, not 8}}
  tile.partial_store %acc, %c0, offset = 8 : !tile.buffer<fragment 128x128xf32>
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op 'tile.stream_k' (bytes of a partial slot) must be a multiple of 16}}
tile.kernel @k threads [256, 1, 1] args [] dims [] params {} attributes {tile.producer_threads = 128 : i64, tile.stream_k = 65540 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args [] dims [] params {} attributes {tile.producer_threads = 128 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  // expected-error @+1 {{'tile.cluster_rank' op needs a kernel whose blocks may run in clusters ('tile.cluster' on the kernel; tile-warp-specialize sets it)}}
  %r = tile.cluster_rank
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args [] dims [] params {} attributes {tile.producer_threads = 128 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %bars = tile.alloc : !tile.buffer<shared 2xi64>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.mbarrier_init' op needs a kernel whose blocks may run in clusters ('tile.cluster' on the kernel; tile-warp-specialize sets it)}}
  tile.mbarrier_init %bars[%c0], count = 8 cluster : !tile.buffer<shared 2xi64>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args [] dims [] params {} attributes {tile.cluster = 2 : i64, tile.producer_threads = 128 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %bars = tile.alloc : !tile.buffer<shared 2xi64>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.mbarrier_arrive' op arrives on another block's mbarrier without 'expect_tx' or 'after_copies' (those count this block's copies)}}
  tile.mbarrier_arrive %bars[%c0], expect_tx = 128 at %c0 : !tile.buffer<shared 2xi64>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["B"] dims [["K", "N"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%b: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%b: !tile.tensor<bf16, 2>):
  %bars = tile.alloc : !tile.buffer<shared 2xi64>
  %bs = tile.alloc : !tile.buffer<shared 64x128xbf16>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.tma_load' op needs a kernel whose blocks may run in clusters ('tile.cluster' on the kernel; tile-warp-specialize sets it)}}
  tile.tma_load %b[%c0, %c0] to %bs, %bars[%c0] multicast : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>, !tile.buffer<shared 2xi64>
  tile.yield
}

// -----

// expected-error @+1 {{'tile.kernel' op 'tile.cluster'}}
tile.kernel @k threads [256, 1, 1] args [] dims [] params {} attributes {tile.cluster = 4 : i64, tile.producer_threads = 128 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.named_barrier' op names barrier 1; barriers 0 (the block's) and 1 (the consumers') are the compiler's, and there are 16}}
  tile.named_barrier %c1, threads = 256
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{'tile.named_barrier' op names barrier 16; barriers 0 (the block's) and 1 (the consumers') are the compiler's, and there are 16}}
  tile.named_barrier arrive %c16, threads = 256
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'tile.named_barrier' op counts whole warps: 'threads' must be a multiple of 32, not 100}}
  tile.named_barrier %c2, threads = 100
  tile.yield
}
