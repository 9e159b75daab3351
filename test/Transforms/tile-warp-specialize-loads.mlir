// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-warp-specialize))' | FileCheck %s

// tile-warp-specialize on a loads_wgmma ring (tensors TMA cannot read: the producer's 128 threads
// load the tiles themselves), 3 stages, mbarriers at byte 98304, the staged copies' edge bytes
// after them.
// CHECK-LABEL: tile.kernel @gemm
// CHECK:       %[[BARS:.+]] = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 6xi64>
// 3 stages x 16 bytes x (128 + 64 rows), at the first 16-byte boundary after the barriers.
// CHECK:       %[[EDGES:.+]] = tile.alloc {tile.offset = 98352 : i64} : !tile.buffer<shared 9216xi8>
// Full barriers complete on one arrival per producer thread.
// CHECK-DAG:     tile.mbarrier_init %[[BARS]][%{{.+}}], count = 128 :
// CHECK-DAG:     tile.mbarrier_init %[[BARS]][%{{.+}}], count = 8 :
// CHECK:       tile.warp_specialize producer_registers = 152, consumer_registers = 176 producer {
// Every producer thread runs the loop (no election), in two versions chosen at run time.
// CHECK-NOT:     arith.cmpi eq
// CHECK:         %[[A_OK:.+]] = tile.cp_async_readable %arg0 : !tile.tensor<bf16, 2>
// CHECK:         tile.cp_async_readable %arg1 : !tile.tensor<bf16, 2>
// CHECK:         scf.if
// The aligned version: 16-byte cp.async chunks, one noinc arrival per thread.
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               tile.mbarrier_wait %[[BARS]]
// CHECK:               tile.producer_copy %arg0[%{{.+}}, %{{.+}}] to %{{.+}} {mode = #tile.producer_copy<cp_async>}
// CHECK:               tile.producer_copy %arg1[%{{.+}}, %{{.+}}] to %{{.+}} {mode = #tile.producer_copy<cp_async>}
// CHECK:               tile.mbarrier_arrive %[[BARS]][%{{.+}}] after_copies
// CHECK:         } else {
// The staged version: iteration it realigns iteration it - 2's blocks, then issues its own.
// CHECK:           scf.for
// CHECK:             scf.for %[[IT:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:               scf.if
// CHECK:                 tile.async_wait pending = 1 warp
// CHECK:                 tile.producer_copy %arg0[{{.+}}] to %{{.+}} edges %[[EDGES]][%{{.+}}] {mode = #tile.producer_copy<staged_realign>}
// CHECK:                 tile.producer_copy %arg1[{{.+}}] to %{{.+}} edges %[[EDGES]][%{{.+}}] {mode = #tile.producer_copy<staged_realign>}
// CHECK:                 tile.async_proxy_fence
// CHECK:                 tile.mbarrier_arrive %[[BARS]][%{{.+}}] :
// CHECK:               scf.if
// CHECK:                 tile.mbarrier_wait
// CHECK:                 tile.producer_copy %arg0[{{.+}}] to %{{.+}} edges %[[EDGES]][%{{.+}}] {mode = #tile.producer_copy<staged_issue>}
// CHECK:                 tile.producer_copy %arg1[{{.+}}] to %{{.+}} edges %[[EDGES]][%{{.+}}] {mode = #tile.producer_copy<staged_issue>}
// CHECK:               tile.async_commit
// CHECK:       } consumers {
// The consumers fence the async proxy after each full-barrier wait (the producer's writes are
// generic-proxy writes).
// CHECK:           tile.mbarrier_wait %[[BARS]]
// CHECK-NEXT:      tile.async_proxy_fence
// CHECK:           tile.gemm

tile.kernel @gemm threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 107568 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %n = tile.dim %b[1] : !tile.tensor<bf16, 2>
  %c128 = arith.constant 128 : index
  %gx = arith.ceildivsi %n, %c128 : index
  %m = tile.dim %a[0] : !tile.tensor<bf16, 2>
  %gy = arith.ceildivsi %m, %c128 : index
  %c1 = arith.constant 1 : index
  tile.yield %gx, %gy, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 49152 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %nk = arith.ceildivsi %k, %c64 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c64 : index
    tile.copy %a[%row, %col] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 98304 : i64, tile.pipeline = #tile.pipeline<loads_wgmma>, tile.stages = 3 : i64}
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}
