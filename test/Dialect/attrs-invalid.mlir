// RUN: tlc-opt %s --split-input-file --verify-diagnostics

// The verified contract between passes (TileAttrs.td): every discardable tile.* attribute is
// checked for its type, its value and the op it sits on; layouts against the fragment's shape
// and the kernel's threads.
tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{'tile.stages' must be an i64 integer, got "three"}}
  %a = tile.alloc {tile.stages = "three"} : !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{'tile.stages' = 0 is out of range [1, 64]}}
  %a = tile.alloc {tile.stages = 0 : i64} : !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{'tile.layout' must be a fragment layout (#tile.wgmma_acc, #tile.mma_sync_acc, #tile.mma_sync_rows, #tile.blocked, #tile.blocked_rows), got {kind = "wgmma"}}}
  %a = tile.alloc {tile.layout = {kind = "wgmma"}} : !tile.buffer<fragment 128x128xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{'tile.layout' belongs on the 'tile.alloc' of a fragment}}
  %a = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<shared 128x128xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{a 96x128 fragment does not split into 2 x 1 warpgroups of 64-row wgmma tiles}}
  %a = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 96x128xf32>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{wgmma's N would be 512 (a multiple of 8, at most 256)}}
  %a = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [1, 1]>} : !tile.buffer<fragment 64x512xf32>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{the layout spreads the fragment over 256 threads, but the kernel has 128}}
  %a = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{a 64x20 fragment does not split into 4 x 1 warps of m16n8 tiles}}
  %a = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x20xf32>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{a row layout needs a rank-1 fragment}}
  %a = tile.alloc {tile.layout = #tile.mma_sync_rows<warps = 4>} : !tile.buffer<fragment 64x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{row layouts take 1 to 32 warps, got 8 x 8}}
  %a = tile.alloc {tile.layout = #tile.mma_sync_rows<warps = 8, replicas = 8>} : !tile.buffer<fragment 128xf32>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{mma.sync accumulator layouts take 1 to 32 warps, got 0 x 4}}
  %a = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [0, 4]>} : !tile.buffer<fragment 64x64xf32>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{'tile.swizzle' is 16 (column blocks, no swizzle), 32, 64 or 128 bytes, got 48}}
  %a = tile.alloc {tile.swizzle = 48 : i64} : !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{'tile.swizzle' belongs on the 'tile.alloc' of a shared buffer}}
  %a = tile.alloc {tile.swizzle = 128 : i64} : !tile.buffer<fragment 64x64xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{'tile.offset' = -16 is out of range [0, 1073741824]}}
  %a = tile.alloc {tile.offset = -16 : i64} : !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{unknown attribute 'tile.stage' of the tile dialect}}
  %a = tile.alloc {tile.stage = 2 : i64} : !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  %a = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.tma' belongs on a 'tile.copy' from a tensor to a shared buffer}}
  tile.copy %a to %x[%c0, %c0] {tile.tma} : !tile.buffer<shared 64x64xbf16> to !tile.tensor<bf16, 2>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  %a = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a copy is either 'tile.tma' or 'tile.cp_async', not both}}
  tile.copy %x[%c0, %c0] to %a {tile.tma, tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  %a = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %c = tile.alloc : !tile.buffer<fragment 64x64xf32>
  // expected-error @+1 {{'tile.mma' must be #tile.mma<wgmma> or #tile.mma<mma_sync>, got "wgmma"}}
  tile.gemm %a, %a, %c {tile.mma = "wgmma"} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{'tile.mma' belongs on a 'tile.gemm'}}
  %a = tile.alloc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.pipeline' belongs on an 'scf.for' with 'tile.stages'}}
  scf.for %i = %c0 to %c1 step %c1 {
  } {tile.pipeline = #tile.pipeline<tma_wgmma>}
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.barriers' belongs on an 'scf.for' with 'tile.pipeline' = #tile.pipeline<tma_wgmma>, #tile.pipeline<loads_wgmma> or #tile.pipeline<tma_regs>}}
  scf.for %i = %c0 to %c1 step %c1 {
  } {tile.barriers = 1024 : i64, tile.pipeline = #tile.pipeline<cp_async_mma>, tile.stages = 2 : i64}
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.unroll' must be a unit attribute}}
  scf.for %i = %c0 to %c1 step %c1 {
  } {tile.unroll = 4 : i64}
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{'tile.target' belongs on a builtin.module}}
  %a = tile.alloc {tile.target = #tile.target<"sm_90a", ptx = 86, shared_bytes = 232448>} : !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

// expected-error @+1 {{unknown architecture 'sm_9'; expected sm_XY or sm_XYa}}
module attributes {tile.target = #tile.target<"sm_9", ptx = 86, shared_bytes = 1024>} {
}

// -----

// expected-error @+1 {{'tile.target' must be a #tile.target}}
module attributes {tile.target = "sm_90a"} {
}

// -----

// expected-error @+1 {{'tile.producer_threads' = 64 is out of range [128, 128]}}
tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} attributes {tile.producer_threads = 64 : i64} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  %a = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.unaligned' belongs on a 'tile.copy' with 'tile.cp_async'}}
  tile.copy %x[%c0, %c0] to %a {tile.tma, tile.unaligned} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

// Blocked register layouts (#tile.blocked, #tile.blocked_rows): powers of two, whole warps, at
// most 1024 threads, and a fragment shape that splits into passes of threads / threads_per_row
// rows and threads_per_row * vec columns.
tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{vec must be a power of two, at most 32, got 3}}
  %a = tile.alloc {tile.layout = #tile.blocked<vec = 3, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x384xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{vec must be a power of two, at most 32, got 64}}
  %a = tile.alloc {tile.layout = #tile.blocked<vec = 64, threads_per_row = 4, threads = 256>} : !tile.buffer<fragment 64x256xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{blocked layouts take a multiple of 32 threads, at most 1024, got 100}}
  %a = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 4, threads = 100>} : !tile.buffer<fragment 100x16xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{blocked layouts take a multiple of 32 threads, at most 1024, got 2048}}
  %a = tile.alloc {tile.layout = #tile.blocked_rows<threads_per_row = 32, threads = 2048>} : !tile.buffer<fragment 64xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{threads_per_row must be a power of two dividing 256, got 24}}
  %a = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 24, threads = 256>} : !tile.buffer<fragment 8x96xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{threads_per_row must be a power of two dividing 256, got 512}}
  %a = tile.alloc {tile.layout = #tile.blocked_rows<threads_per_row = 512, threads = 256>} : !tile.buffer<fragment 8xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{a 3x256 fragment does not split into passes of 8 rows and 128 columns}}
  %a = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 3x256xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{a 8x192 fragment does not split into passes of 8 rows and 128 columns}}
  %a = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x192xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{a blocked layout needs a rank-2 fragment}}
  %a = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{a blocked row layout needs a rank-1 fragment}}
  %a = tile.alloc {tile.layout = #tile.blocked_rows<threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x256xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{4 rows do not split into passes of 8 rows}}
  %a = tile.alloc {tile.layout = #tile.blocked_rows<threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 4xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  // expected-error @+1 {{the layout spreads the fragment over 128 threads, but the kernel has 256}}
  %a = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 128>} : !tile.buffer<fragment 4x128xf32>
  tile.yield
}

// -----

// A reduce's `scratch` (tile-assign-blocked-layouts sets it for rows that span warps): a rank-1
// shared buffer of the type the reduce combines in: the destination's element type, f32 for sums
// of narrower floats.
tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  %s = tile.alloc : !tile.buffer<fragment 1x4096xf32>
  %d = tile.alloc : !tile.buffer<fragment 1xf32>
  %w = tile.alloc : !tile.buffer<fragment 8xf32>
  // expected-error @+1 {{'scratch' must be a rank-1 shared buffer of 'f32' (the type the reduce combines in), got '!tile.buffer<fragment 8xf32>'}}
  tile.reduce %s, %d scratch %w : !tile.buffer<fragment 8xf32> {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 1x4096xf32> to !tile.buffer<fragment 1xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  %s = tile.alloc : !tile.buffer<fragment 1x4096xf32>
  %d = tile.alloc : !tile.buffer<fragment 1xf32>
  %w = tile.alloc : !tile.buffer<shared 8xf16>
  // expected-error @+1 {{'scratch' must be a rank-1 shared buffer of 'f32' (the type the reduce combines in), got '!tile.buffer<shared 8xf16>'}}
  tile.reduce %s, %d scratch %w : !tile.buffer<shared 8xf16> {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 1x4096xf32> to !tile.buffer<fragment 1xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  %s = tile.alloc : !tile.buffer<fragment 1x4096xf32>
  %d = tile.alloc : !tile.buffer<fragment 1xf32>
  %w = tile.alloc : !tile.buffer<shared 8x1xf32>
  // expected-error @+1 {{'scratch' must be a rank-1 shared buffer of 'f32' (the type the reduce combines in), got '!tile.buffer<shared 8x1xf32>'}}
  tile.reduce %s, %d scratch %w : !tile.buffer<shared 8x1xf32> {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 1x4096xf32> to !tile.buffer<fragment 1xf32>
  tile.yield
}

// -----

tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  %s = tile.alloc : !tile.buffer<fragment 1x4096xbf16>
  %d = tile.alloc : !tile.buffer<fragment 1xbf16>
  %w = tile.alloc : !tile.buffer<shared 8xbf16>
  // expected-error @+1 {{'scratch' must be a rank-1 shared buffer of 'f32' (the type the reduce combines in), got '!tile.buffer<shared 8xbf16>'}}
  tile.reduce %s, %d scratch %w : !tile.buffer<shared 8xbf16> {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 1x4096xbf16> to !tile.buffer<fragment 1xbf16>
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %qs = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  // expected-error @+1 {{'tile.async' belongs on a 'tile.gemm' marked wgmma}}
  tile.gemm %qs, %qs, %s {clear, tile.async, tile.mma = #tile.mma<mma_sync>, transpose_b} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.yield
}

// -----

// expected-error @+1 {{'tile.min_blocks' = 0 is out of range [1, 32]}}
tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} attributes {tile.min_blocks = 0 : i64} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  tile.yield
}

// -----

tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // expected-error @+1 {{'tile.min_blocks' belongs on a 'tile.kernel' or the function of its entry}}
  %a = tile.alloc {tile.min_blocks = 2 : i64} : !tile.buffer<shared 64x64xbf16>
  tile.yield
}

// -----

// expected-error @+1 {{'tile.archs' must be a non-empty array of strings}}
tile.kernel @k__0 threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} attributes {variant_of = "k", variant = 0 : i64, tile.archs = []} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  tile.yield
}

// -----

// expected-error @+1 {{'tile.archs' belongs on a 'tile.kernel' that is one configuration ('variant_of')}}
tile.kernel @k threads [128, 1, 1] args ["X"] dims [["M", "N"]] params {} attributes {tile.archs = ["sm_90a"]} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  tile.yield
}
