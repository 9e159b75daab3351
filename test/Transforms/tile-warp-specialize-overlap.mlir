// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-warp-specialize{overlap=true}))' | FileCheck %s
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-warp-specialize))' | FileCheck %s --check-prefix=SERIAL

// tile-warp-specialize{overlap} on attention's key loop (the input of
// tile-warp-specialize-register-ring.mlir with a row maximum of S between the gemms): the
// consumers issue each iteration's P V (the body's last gemm, A from registers) one iteration
// late, after the next iteration's Q K^T, and wait for it only before the first op that touches
// P or O (here the conversion of S into P), so that the row maximum runs while it multiplies.
// CHECK-LABEL: tile.kernel @attention
// CHECK:       } consumers {
// Only where the ring has an iteration:
// CHECK:         %[[ANY:.+]] = arith.cmpi slt, %c0{{.*}}, %[[N:.+]] : index
// CHECK-NEXT:    scf.if %[[ANY]] {
// The first iteration: its stage, Q K^T waited for, the row maximum, S into P; no P V yet.
// CHECK:           tile.mbarrier_wait %[[BARS:.+]][%[[S0:.+]]], parity
// CHECK:           %[[K0:.+]] = tile.stage %{{.+}}[%[[S0]]]
// CHECK:           tile.gemm %{{.+}}, %[[K0]], %[[SF:.+]] {clear, tile.async
// CHECK-NEXT:      tile.mma_wait pending = 0, %[[SF]]
// CHECK-NEXT:      tile.reduce %[[SF]]
// CHECK-NEXT:      tile.copy %[[SF]] to %[[P:[^ ]+]]
// CHECK-NOT:       tile.gemm
// The others: from the second iteration, Q K^T, then the previous iteration's P V on the
// previous stage; Q K^T's wait leaves P V running through the row maximum; P V completes
// before S becomes P, then the previous stage is released.
// CHECK:           scf.for %{{.+}} = %[[LB1:.+]] to
// CHECK:             tile.mbarrier_wait %[[BARS]][%[[S:.+]]], parity
// CHECK:             %[[K:.+]] = tile.stage %{{.+}}[%[[S]]]
// CHECK:             %[[PREV:.+]] = arith.remsi %{{.+}}, %c2
// CHECK-NEXT:        %[[V1:.+]] = tile.stage %{{.+}}[%[[PREV]]]
// CHECK-NEXT:        tile.gemm %{{.+}}, %[[K]], %[[SF]] {clear, tile.async
// CHECK-NEXT:        tile.gemm %[[P]], %[[V1]], %[[O:[^ ]+]] {tile.async
// CHECK-NEXT:        tile.mma_wait pending = 1, %[[SF]]
// CHECK-NEXT:        tile.reduce %[[SF]]
// CHECK-NEXT:        tile.mma_wait pending = 0, %[[O]]
// CHECK:             scf.if
// CHECK:               %[[E:.+]] = arith.addi %[[PREV]], %c2
// CHECK-NEXT:          tile.mbarrier_arrive %[[BARS]][%[[E]]] :
// CHECK:             tile.copy %[[SF]] to %[[P]]
// CHECK-NEXT:      }
// After the loop, the last iteration's P V on its stage, waited for, its stage released.
// CHECK:           %[[SL:.+]] = arith.remsi %{{.+}}, %c2
// CHECK-NEXT:      %[[VL:.+]] = tile.stage %{{.+}}[%[[SL]]]
// CHECK-NEXT:      tile.gemm %[[P]], %[[VL]], %[[O]] {tile.async
// CHECK-NEXT:      tile.mma_wait pending = 0, %[[O]]
// CHECK:           scf.if
// CHECK:             tile.mbarrier_arrive %[[BARS]]
// CHECK:         }
// Then Q's tile is released, as without the overlap.
// CHECK:         scf.if
// CHECK-NEXT:      tile.mbarrier_arrive %[[BARS]][%c5] :

// Without the option, the body keeps its order.
// SERIAL:      } consumers {
// SERIAL-NOT:    arith.cmpi slt
// SERIAL:        tile.gemm %{{.+}} {clear, tile.async
// SERIAL-NEXT:   tile.mma_wait pending = 0
// SERIAL-NEXT:   tile.reduce
// SERIAL-NEXT:   tile.copy
// SERIAL-NEXT:   tile.gemm
// SERIAL-NEXT:   tile.mma_wait pending = 0

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
  %m = tile.alloc {tile.layout = #tile.mma_sync_rows<warps = 8>} : !tile.buffer<fragment 128xf32>
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
    tile.reduce %3, %m {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128xf32>
    tile.copy %3 to %4 : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128x64xbf16>
    tile.gemm %4, %2, %5 {tile.async, tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
    tile.mma_wait pending = 0, %5 : !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 98304 : i64, tile.pipeline = #tile.pipeline<tma_regs>, tile.stages = 2 : i64}
  tile.copy %5 to %arg3[%6, %c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 3>
  tile.yield
}
