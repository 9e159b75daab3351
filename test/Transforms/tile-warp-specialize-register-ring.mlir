// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-warp-specialize))' | FileCheck %s

// tile-warp-specialize alone on a `tma_regs` ring (attention's key loop) as
// tile-software-pipeline{ring-producers}, tile-shared-memory-layout, tile-place-async-waits and
// tile-place-mma-waits leave it: Q a TMA copy before the ring (a tile copy, once per tile), K and
// V the ring's TMA copies, the body's wgmma waits already placed. Registers: 40 for the producer,
// 232 for the two consumer warpgroups (40 x 128 + 232 x 256 = 168 x 384, the block's allocation).
// CHECK-LABEL: tile.kernel @attention
// The mbarriers: full[s] = s, empty[s] = 2 + s, then the tile copies' full (4) and empty (5).
// CHECK:       %[[BARS:.+]] = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 6xi64>
// CHECK:         tile.mbarrier_init %[[BARS]][%{{.+}}], count = 1
// CHECK:         tile.mbarrier_init %[[BARS]][%{{.+}}], count = 8
// CHECK:         tile.mbarrier_init %[[BARS]][%c4], count = 1
// CHECK-NEXT:    %c5 = arith.constant 5
// CHECK-NEXT:    tile.mbarrier_init %[[BARS]][%c5], count = 8
// CHECK:       tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
// The producer: one thread walks the tiles; per tile it waits for Q's tile to be released, loads
// it, then per key block waits for the stage to be empty, expects both boxes' bytes and issues
// them.
// CHECK:         scf.for
// CHECK:           tile.mbarrier_wait %[[BARS]][%c5], parity
// CHECK:           tile.mbarrier_arrive %[[BARS]][%c4], expect_tx = 32768
// CHECK:           tile.tma_load %arg0[{{.+}}] to %{{.+}}, %[[BARS]][%{{.+}}] : !tile.tensor<bf16, 3> to !tile.buffer<shared 128x128xbf16>
// CHECK:           scf.for
// CHECK:             tile.mbarrier_wait %[[BARS]]
// CHECK-NEXT:        tile.mbarrier_arrive %[[BARS]][%[[S:.+]]], expect_tx = 32768
// CHECK:             %[[KS:.+]] = tile.stage %{{.+}}[%[[S]]]
// CHECK-NEXT:        tile.tma_load %arg1[{{.+}}] to %[[KS]], %[[BARS]][%[[S]]]
// CHECK:             %[[VS:.+]] = tile.stage %{{.+}}[%[[S]]]
// CHECK-NEXT:        tile.tma_load %arg2[{{.+}}] to %[[VS]], %[[BARS]][%[[S]]]
// CHECK:       } consumers {
// The consumers: per tile, a wait for Q's tile where its copy was, then the ring: a wait for the
// full stage, the body on the stage's views (TMA copies gone, wgmma waits kept), each warp's
// release at the end of the iteration; after the ring each warp releases Q's tile; a barrier of
// the consumers after the tile.
// CHECK:         scf.for
// CHECK-NOT:       tile.copy %arg0
// CHECK:           tile.mbarrier_wait %[[BARS]][%c4], parity
// CHECK:           scf.for
// CHECK:             tile.mbarrier_wait %[[BARS]][%[[CS:.+]]], parity
// CHECK-NEXT:        %[[K:.+]] = tile.stage %{{.+}}[%[[CS]]]
// CHECK-NEXT:        %[[V:.+]] = tile.stage %{{.+}}[%[[CS]]]
// CHECK-NOT:         tile.tma
// CHECK:             tile.gemm %{{.+}}, %[[K]], %{{.+}} {clear, tile.async
// CHECK:             tile.gemm %{{.+}}, %[[V]], %{{.+}} {tile.async
// CHECK-NEXT:        tile.mma_wait pending = 0
// CHECK:             scf.if
// CHECK:               %[[E:.+]] = arith.addi %[[CS]], %{{.+}}
// CHECK-NEXT:          tile.mbarrier_arrive %[[BARS]][%[[E]]] :
// CHECK:           scf.if
// CHECK-NEXT:        tile.mbarrier_arrive %[[BARS]][%c5] :
// CHECK:           tile.copy %{{.+}} to %arg3
// CHECK-NEXT:      tile.barrier
tile.kernel @attention threads [256, 1, 1] args ["Q", "K", "V", "O"] dims [["B", "S", "128"], ["B", "S", "128"], ["B", "S", "128"], ["B", "S", "128"]] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 98352 : i64} grid {
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
    %9 = arith.muli %arg4, %c64 : index
    tile.copy %arg1[%6, %9, %c0] to %1 {tile.tma} : !tile.tensor<bf16, 3> to !tile.buffer<shared 64x128xbf16>
    tile.copy %arg2[%6, %9, %c0] to %2 {tile.tma} : !tile.tensor<bf16, 3> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %0, %1, %3 {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 128x128xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x64xf32>
    tile.mma_wait pending = 0, %3 : !tile.buffer<fragment 128x64xf32>
    tile.copy %3 to %4 : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128x64xbf16>
    tile.gemm %4, %2, %5 {tile.async, tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
    tile.mma_wait pending = 0, %5 : !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 98304 : i64, tile.pipeline = #tile.pipeline<tma_regs>, tile.stages = 2 : i64}
  tile.copy %5 to %arg3[%6, %c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 3>
  tile.yield
}
