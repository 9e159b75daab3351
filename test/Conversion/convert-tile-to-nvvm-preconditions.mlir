// RUN: tlc-opt %s --split-input-file --convert-tile-to-nvvm --verify-diagnostics

// convert-tile-to-nvvm checks what the tile passes decided before it lowers anything: the
// target is set, every decision is legal for it, and kernels with tensor-core decisions were
// placed in shared memory. Each missing precondition is a located error (these inputs crashed
// the conversion, or emitted wgmma for sm_80, before the checks).

// expected-error @+1 {{convert-tile-to-nvvm needs the module's target ('tile.target'); run tile-set-target{arch=...} first (tlc does)}}
module {
tile.kernel @k threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  tile.yield
}
}

// -----

module attributes {tile.target = #tile.target<"sm_80", ptx = 86, shared_bytes = 166912>} {
tile.kernel @k threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} attributes {tile.shared_bytes = 65536 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 2]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %a[%c0, %i] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    // expected-error @+1 {{a gemm assigned to wgmma needs sm_90a, but the target is 'sm_80'; hint: the tile passes ran for another target (run tile-assign-mma-layouts and what follows for this one)}}
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.pipeline = #tile.pipeline<cp_async_mma>, tile.stages = 2 : i64}
  tile.yield
}
}

// -----

module attributes {tile.target = #tile.target<"sm_80", ptx = 86, shared_bytes = 166912>} {
tile.kernel @k threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} attributes {tile.shared_bytes = 65536 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 2]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @+1 {{a TMA copy needs sm_90a, but the target is 'sm_80'}}
    tile.copy %a[%c0, %i] to %as {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.stages = 2 : i64}
  tile.yield
}
}

// -----

module attributes {tile.target = #tile.target<"sm_90a", ptx = 86, shared_bytes = 232448>} {
// expected-error @+1 {{kernel 'k' has no place in shared memory yet; hint: run tile-shared-memory-layout before convert-tile-to-nvvm}}
tile.kernel @k threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %a[%c0, %i] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  }
  tile.yield
}
}

// -----

module attributes {tile.target = #tile.target<"sm_90a", ptx = 86, shared_bytes = 232448>} {
tile.kernel @k threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 65568 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  // expected-error @+1 {{this buffer has no place in shared memory yet; hint: run tile-shared-memory-layout before convert-tile-to-nvvm}}
  %bs = tile.alloc {tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %a[%c0, %i] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  }
  tile.yield
}
}

// -----

module attributes {tile.target = #tile.target<"sm_90a", ptx = 86, shared_bytes = 232448>} {
tile.kernel @k threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 65568 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  // expected-error @+1 {{this buffer is filled by TMA or cp.async copies but has no swizzle; hint: run tile-shared-memory-layout before convert-tile-to-nvvm}}
  %bs = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %a[%c0, %i] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  }
  tile.yield
}
}

// -----

// A register ring tile-pipeline-register-rings has not written out.
module attributes {tile.target = #tile.target<"sm_80", ptx = 86, shared_bytes = 166912>} {
tile.kernel @k threads [128, 1, 1] args ["K"] dims [["S", "D"]] params {} attributes {tile.shared_bytes = 16384 : i64} grid {
^bb0(%k: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%k: !tile.tensor<bf16, 2>):
  %ks = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{this register ring is not written out yet; hint: run tile-pipeline-register-rings and tile-place-async-waits before convert-tile-to-nvvm}}
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %k[%i, %c0] to %ks {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.gemm %ks, %ks, %s {clear, tile.mma = #tile.mma<mma_sync>, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
  tile.yield
}
}

// -----

// A cp.async copy nothing waits for (tile-place-async-waits did not run): its tile would be
// read before it lands.
module attributes {tile.target = #tile.target<"sm_80", ptx = 86, shared_bytes = 166912>} {
tile.kernel @k threads [128, 1, 1] args ["K"] dims [["S", "D"]] params {} attributes {tile.shared_bytes = 8192 : i64} grid {
^bb0(%k: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%k: !tile.tensor<bf16, 2>):
  %ks = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{nothing waits for this cp.async copy; hint: run tile-place-async-waits before convert-tile-to-nvvm}}
  tile.copy %k[%c0, %c0] to %ks {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
  tile.gemm %ks, %ks, %s {clear, tile.mma = #tile.mma<mma_sync>, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.yield
}
}

// -----

// An async wgmma gemm nothing waits for (tile-place-mma-waits did not run): its accumulator
// would be read while the tensor cores still write it.
module attributes {tile.target = #tile.target<"sm_90a", ptx = 86, shared_bytes = 232448>} {
tile.kernel @k threads [128, 1, 1] args [] dims [] params {} attributes {tile.shared_bytes = 8192 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %qs = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x64xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  // expected-error @+1 {{nothing waits for this async gemm; hint: run tile-place-mma-waits before convert-tile-to-nvvm}}
  tile.gemm %qs, %qs, %s {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.yield
}
}

// -----

// A ring whose producer warpgroup tile-warp-specialize has not written out.
module attributes {tile.target = #tile.target<"sm_90a", ptx = 86, shared_bytes = 232448>} {
tile.kernel @k threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 65568 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{this ring's producer warpgroup is not written out yet; hint: run tile-warp-specialize before convert-tile-to-nvvm}}
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %a[%c0, %i] to %as {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 65536 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 2 : i64}
  tile.yield
}
}
