// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-explain))' --verify-diagnostics

// tile-explain reads the decisions of the tile passes and remarks, per kernel with gemms, what
// each pipelined loop, tile copy and gemm lowers to. It changes nothing.

module attributes {tile.target = #tile.target<"sm_90a", ptx = 86, shared_bytes = 232448>} {
// expected-remark @+1 {{kernel 'k' for sm_90a, per operation:}}
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
  // expected-note @+1 {{pipelined: a ring of 2 stages filled by TMA from a producer warpgroup (128 threads), full/empty mbarriers per stage; whole tiles only (no stream-K: an accumulator does not start at zero); with --cluster-pairs, blocks in pairs (clusters of two, tiles of adjacent rows) loading 2 of its 2 copies once for both (TMA multicast)}}
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-note @+1 {{copy: TMA boxes of 128 x 64, 128-byte swizzle, issued by the producer warpgroup}}
    tile.copy %a[%c0, %i] to %as {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    // expected-note @+1 {{copy: TMA boxes of 64 x 128, 128-byte swizzle, issued by the producer warpgroup}}
    tile.copy %b[%i, %c0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    // expected-note @+1 {{gemm: wgmma m64n128k16 on 2 x 1 warpgroups, A and B from shared memory, 128-byte swizzle}}
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 65536 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 2 : i64}
  // expected-note @+1 {{copy: from registers, each thread stores its own elements (16-byte vectors of a row, a quad's pairs transposed by 4 shuffles, where the rows are 16-byte aligned; else pairs; one element on where a row is one element off, by a quad shuffle)}}
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}
}

// -----

// Without the target: a located error.
module {
// expected-error @+1 {{tile-explain needs the module's target ('tile.target'); run tile-set-target{arch=...} first (tlc does)}}
tile.kernel @k threads [64, 1, 1] args ["A"] dims [["M", "K"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>):
  %as = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 32x32xf32>
  tile.gemm %as, %as, %acc : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
  tile.yield
}
}
