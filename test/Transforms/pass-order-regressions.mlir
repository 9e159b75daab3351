// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-explain))' 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: not tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-warp-specialize))' 2>&1 | FileCheck %s --check-prefix=SPECIALIZE

// Pass orders that crashed tlc-opt (found by running each tile pass alone on the lit inputs):
// tile-explain on a TMA ring of a kernel without `tile.producer_threads` (read unchecked), and
// tile-warp-specialize on a ring whose body starts with a copy it erases (its insertion point).

// EXPLAIN:     remark: kernel 'no_producer' for sm_90a, per operation:
// EXPLAIN:     note: pipelined: a ring of 2 stages filled by TMA from a producer warpgroup (its threads not marked on the kernel)
// SPECIALIZE:  error: this ring has no producer warpgroup ('tile.producer_threads' on the kernel); hint: run tile-software-pipeline
tile.kernel @no_producer threads [256, 1, 1] args ["A", "B"] dims [["M", "K"], ["K", "N"]] params {} grid {
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
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %a[%c0, %i] to %as {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 65536 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 2 : i64}
  tile.yield
}

// -----

// The ring's body starts with a copy (its offsets the induction variable itself): the consumers'
// stage views go after the full-stage wait.
// EXPLAIN:     remark: kernel 'first_copy' for sm_90a, per operation:
// SPECIALIZE-LABEL: tile.kernel @first_copy
// SPECIALIZE:       } consumers {
// SPECIALIZE:         scf.for
// SPECIALIZE:           tile.mbarrier_wait %{{.+}}[%[[S:.+]]], parity
// SPECIALIZE:           %[[A:.+]] = tile.stage %{{.+}}[%[[S]]]
// SPECIALIZE-NEXT:      %[[B:.+]] = tile.stage %{{.+}}[%[[S]]]
// SPECIALIZE-NEXT:      tile.gemm %[[A]], %[[B]], %{{.+}} {tile.async
tile.kernel @first_copy threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 65568 : i64} grid {
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
    tile.copy %a[%c0, %i] to %as {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%i, %c0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 65536 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 2 : i64}
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}

// -----

// A register (tma_regs) ring whose body starts with a TMA copy: its consumers too.
// EXPLAIN:     remark: kernel 'register_first_copy'
// SPECIALIZE-LABEL: tile.kernel @register_first_copy
// SPECIALIZE:       } consumers {
// SPECIALIZE:             tile.mbarrier_wait %{{.+}}[%[[S:[0-9]+]]], parity
// SPECIALIZE-NEXT:        tile.stage %{{.+}}[%[[S]]]
// SPECIALIZE-NEXT:        tile.stage %{{.+}}[%[[S]]]
tile.kernel @register_first_copy threads [256, 1, 1] args ["Q", "K", "V", "O"] dims [["B", "S", "128"], ["B", "S", "128"], ["B", "S", "128"], ["B", "S", "128"]] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 98352 : i64} grid {
^bb0(%arg0: !tile.tensor<bf16, 3>, %arg1: !tile.tensor<bf16, 3>, %arg2: !tile.tensor<bf16, 3>, %arg3: !tile.tensor<bf16, 3>):
  %c1 = arith.constant 1 : index
  %0 = tile.dim %arg0[0] : !tile.tensor<bf16, 3>
  tile.yield %c1, %c1, %0 : index, index, index
} body {
^bb0(%arg0: !tile.tensor<bf16, 3>, %arg1: !tile.tensor<bf16, 3>, %arg2: !tile.tensor<bf16, 3>, %arg3: !tile.tensor<bf16, 3>):
  %0 = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x128xbf16>
  %1 = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %2 = tile.alloc {tile.offset = 65536 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %3 = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xf32>
  %4 = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xbf16>
  %5 = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %6 = tile.block_id 2
  tile.copy %arg0[%6, %c0, %c0] to %0 {tile.tma} : !tile.tensor<bf16, 3> to !tile.buffer<shared 128x128xbf16>
  %7 = tile.dim %arg1[1] : !tile.tensor<bf16, 3>
  %8 = arith.ceildivsi %7, %c64 : index
  scf.for %arg4 = %c0 to %8 step %c1 {
    tile.copy %arg1[%6, %arg4, %c0] to %1 {tile.tma} : !tile.tensor<bf16, 3> to !tile.buffer<shared 64x128xbf16>
    tile.copy %arg2[%6, %arg4, %c0] to %2 {tile.tma} : !tile.tensor<bf16, 3> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %0, %1, %3 {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 128x128xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x64xf32>
    tile.mma_wait pending = 0, %3 : !tile.buffer<fragment 128x64xf32>
    tile.copy %3 to %4 : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128x64xbf16>
    tile.gemm %4, %2, %5 {tile.async, tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
    tile.mma_wait pending = 0, %5 : !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 98304 : i64, tile.pipeline = #tile.pipeline<tma_regs>, tile.stages = 2 : i64}
  tile.copy %5 to %arg3[%6, %c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 3>
  tile.yield
}
