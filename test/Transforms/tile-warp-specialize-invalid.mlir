// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-warp-specialize))' --verify-diagnostics

// tile-warp-specialize's preconditions: each missing one is a located error.

// The ring's mbarriers are not placed (tile-shared-memory-layout has not run).
tile.kernel @k threads [256, 1, 1] args ["A", "B"] dims [["M", "K"], ["K", "N"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.stages = 2 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.stages = 2 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{this ring has no mbarriers placed in shared memory yet; hint: run tile-shared-memory-layout before tile-warp-specialize}}
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %a[%c0, %i] to %as {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 2 : i64}
  tile.yield
}

// -----

// No producer warpgroup on the kernel.
tile.kernel @k threads [256, 1, 1] args ["A", "B"] dims [["M", "K"], ["K", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{this ring has no producer warpgroup ('tile.producer_threads' on the kernel); hint: run tile-software-pipeline}}
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %a[%c0, %i] to %as {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 65536 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 2 : i64}
  tile.yield
}

// -----

// A ring inside another loop (a persistent loop written in the source).
tile.kernel @k threads [256, 1, 1] args ["A", "B"] dims [["M", "K"], ["K", "N"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %t = %c0 to %c4 step %c1 {
    // expected-error @+1 {{a ring with a producer warpgroup must be the only one of its kernel and directly in its body; hint: tile-software-pipeline makes only such loops 'tma_wgmma', 'loads_wgmma' or 'tma_regs' rings}}
    scf.for %i = %c0 to %c4 step %c1 {
      tile.copy %a[%t, %i] to %as {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
      tile.copy %b[%i, %c0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
      tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
    } {tile.barriers = 65536 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 2 : i64}
  }
  tile.yield
}

// -----

// A copy offset the producer cannot recompute: it is read from a tensor.
tile.kernel @k threads [256, 1, 1] args ["A", "B", "O"] dims [["M", "K"], ["K", "N"], ["G"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %o: !tile.tensor<i32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %o: !tile.tensor<i32, 1>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'tile.load' op computes a TMA copy's offset or the ring loop's bounds, but the producer warpgroup cannot recompute it (not pure arithmetic)}}
  %first = tile.load %o[%c0] : !tile.tensor<i32, 1>
  %row = arith.index_cast %first : i32 to index
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %a[%row, %i] to %as {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 65536 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 2 : i64}
  tile.yield
}
