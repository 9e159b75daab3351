// RUN: tlc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-pipeline-register-rings))' | FileCheck %s

// tile-pipeline-register-rings alone, on hand-written input as tile-software-pipeline and
// tile-shared-memory-layout leave it: a three-stage ring of two copies (attention's K and V)
// whose tiles a wgmma gemm and an mma.sync gemm read, with an element-wise op between them.

// Prologue: iterations 0 and 1 into stages 0 and 1, one copy (group) each, in the body's order.
// CHECK-LABEL: tile.kernel @ring
// CHECK:         %[[K:.*]] = tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 64 : i64}
// CHECK:         %[[V:.*]] = tile.alloc {tile.offset = 12288 : i64, tile.stages = 3 : i64, tile.swizzle = 64 : i64}
// CHECK:         %[[K0:.*]] = tile.stage %[[K]][%[[S0:.*]]] :
// CHECK-NEXT:    tile.copy %{{.*}} to %[[K0]] {tile.cp_async}
// CHECK:         %[[V0:.*]] = tile.stage %[[V]][%[[S0]]] :
// CHECK-NEXT:    tile.copy %{{.*}} to %[[V0]] {tile.cp_async}
// CHECK:         %[[K1:.*]] = tile.stage %[[K]][%[[S1:.*]]] :
// CHECK-NEXT:    tile.copy %{{.*}} to %[[K1]] {tile.cp_async}
// CHECK:         %[[V1:.*]] = tile.stage %[[V]][%[[S1]]] :
// CHECK-NEXT:    tile.copy %{{.*}} to %[[V1]] {tile.cp_async}
// Iteration i: the copies of iteration i + 2 into stage (i + 2) % 3, their offsets recomputed.
// CHECK:         scf.for %[[IV:.*]] = %[[LB:.*]] to %{{.*}} step %[[STEP:.*]] {
// CHECK:           %[[I:.*]] = arith.divui %{{.*}}, %[[STEP]] : index
// The body reads stage i % 3: before K's first reader, the rest of this set (V) and the next
// set may be landing (1 + 2 = 3: iteration i + 2's set is not issued yet); wgmma in the loop:
// fenced.
// CHECK:           %[[ST:.*]] = arith.remui %[[I]], %c3
// CHECK-NEXT:      %[[KS:.*]] = tile.stage %[[K]][%[[ST]]] :
// CHECK-NEXT:      %[[VS:.*]] = tile.stage %[[V]][%[[ST]]] :
// CHECK-NEXT:      tile.async_wait pending = 3
// CHECK-NEXT:      tile.async_proxy_fence
// CHECK-NEXT:      tile.barrier
// Past that barrier every thread is done with stage (i - 1) % 3: the copies of iteration i + 2
// refill it there, without a barrier of their own.
// CHECK:           %[[AHEAD:.*]] = arith.addi %[[I]], %c2
// CHECK:           %[[NS:.*]] = arith.remui %[[AHEAD]], %c3
// An iteration past the loop's end reads nothing: its row moves past the tensor (zero-filled).
// CHECK:           %[[NEXT:.*]] = arith.addi %[[IV]], %{{.*}} : index
// CHECK:           %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %{{.*}} : index
// CHECK:           %[[ROW:.*]] = arith.muli %[[NEXT]], %c64
// CHECK:           %[[KEND:.*]] = tile.dim %arg1[0]
// CHECK-NEXT:      %[[KROW:.*]] = arith.select %[[IN]], %[[ROW]], %[[KEND]] : index
// CHECK-NEXT:      %[[KN:.*]] = tile.stage %[[K]][%[[NS]]] :
// CHECK-NEXT:      tile.copy %arg1[%[[KROW]], %c0] to %[[KN]] {tile.cp_async}
// CHECK:           %[[VEND:.*]] = tile.dim %arg2[0]
// CHECK-NEXT:      %[[VROW:.*]] = arith.select %[[IN]], %[[ROW]], %[[VEND]] : index
// CHECK-NEXT:      %[[VN:.*]] = tile.stage %[[V]][%[[NS]]] :
// CHECK-NEXT:      tile.copy %arg2[%[[VROW]], %c0] to %[[VN]] {tile.cp_async}
// CHECK-NEXT:      tile.gemm %{{.*}}, %[[KS]], %{{.*}} {clear, tile.mma = #tile.mma<wgmma>, transpose_b}
// Before V's first reader: iteration i + 2's set was issued since (0 + 2 x 2 = 4).
// CHECK:           tile.fill
// CHECK-NEXT:      tile.async_wait pending = 4
// CHECK-NEXT:      tile.async_proxy_fence
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.gemm %{{.*}}, %[[VS]], %{{.*}} {tile.mma = #tile.mma<mma_sync>}
// CHECK-NEXT:    }
// CHECK-NOT:     tile.pipeline
// CHECK-NEXT:    tile.async_wait pending = 0
// CHECK-NEXT:    tile.copy %{{.*}} to %arg3
tile.kernel @ring threads [128, 1, 1] args ["Q", "K", "V", "O"] dims [["S", "D"], ["S", "D"], ["S", "D"], ["S", "D"]] params {} attributes {tile.shared_bytes = 45056 : i64} grid {
^bb0(%q: !tile.tensor<bf16, 2>, %k: !tile.tensor<bf16, 2>, %v: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%q: !tile.tensor<bf16, 2>, %k: !tile.tensor<bf16, 2>, %v: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>):
  %ks = tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %vs = tile.alloc {tile.offset = 12288 : i64, tile.stages = 3 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %qs = tile.alloc {tile.offset = 24576 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x32xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %len = tile.dim %k[0] : !tile.tensor<bf16, 2>
  %n = arith.ceildivsi %len, %c64 : index
  scf.for %i = %c0 to %n step %c1 {
    %row = arith.muli %i, %c64 : index
    tile.copy %k[%row, %c0] to %ks {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.copy %v[%row, %c0] to %vs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.gemm %qs, %ks, %s {clear, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x64xf32>
    tile.fill %acc, %zero : !tile.buffer<fragment 64x32xf32>, f32
    tile.gemm %p, %vs, %acc {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<fragment 64x64xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x32xf32>
  } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 3 : i64}
  tile.copy %acc to %o[%c0, %c0] : !tile.buffer<fragment 64x32xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// Precondition: the shared memory is placed (tile-shared-memory-layout may still lower S).
tile.kernel @unplaced threads [128, 1, 1] args ["K", "O"] dims [["S", "D"], ["S", "D"]] params {} grid {
^bb0(%k: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%k: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>):
  %ks = tile.alloc {tile.stages = 2 : i64} : !tile.buffer<shared 64x32xbf16>
  %qs = tile.alloc : !tile.buffer<shared 64x32xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{is a register ring whose shared memory is not placed yet; hint: run tile-shared-memory-layout before tile-pipeline-register-rings}}
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %k[%i, %c0] to %ks {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.gemm %qs, %ks, %s {clear, tile.mma = #tile.mma<mma_sync>, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
  tile.yield
}

// -----

// Precondition: the buffers hold the ring's stages.
tile.kernel @short_buffer threads [128, 1, 1] args ["K", "O"] dims [["S", "D"], ["S", "D"]] params {} attributes {tile.shared_bytes = 16384 : i64} grid {
^bb0(%k: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%k: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>):
  %ks = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %qs = tile.alloc {tile.offset = 8192 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @+1 {{fills a ring of 3 stages whose buffer does not hold as many}}
    tile.copy %k[%i, %c0] to %ks {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.gemm %qs, %ks, %s {clear, tile.mma = #tile.mma<mma_sync>, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 3 : i64}
  tile.yield
}

// -----

// FlashAttention-3's order: the two gemms that read the ring's tiles are issued back to back, so
// V's wait joins K's (pending 0: V is the later copy of the set, and with two stages the next
// set is issued after this first wait), one fence and one barrier before both.
// CHECK-LABEL: tile.kernel @merged
// CHECK:         scf.for
// CHECK:           tile.async_wait pending = 0
// CHECK-NEXT:      tile.async_proxy_fence
// CHECK-NEXT:      tile.barrier
// CHECK:           tile.copy
// CHECK:           tile.copy
// CHECK-NEXT:      tile.gemm
// CHECK-NEXT:      tile.gemm
// CHECK-NOT:       tile.async_wait
// CHECK:         tile.async_wait pending = 0
tile.kernel @merged threads [128, 1, 1] args ["K", "V"] dims [["S", "D"], ["S", "D"]] params {} attributes {tile.shared_bytes = 40960 : i64} grid {
^bb0(%k: !tile.tensor<bf16, 2>, %v: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%k: !tile.tensor<bf16, 2>, %v: !tile.tensor<bf16, 2>):
  %ks = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %vs = tile.alloc {tile.offset = 8192 : i64, tile.stages = 2 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %qs = tile.alloc {tile.offset = 16384 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xbf16>
  %o = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x32xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %k[%i, %c0] to %ks {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.copy %v[%i, %c0] to %vs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.gemm %qs, %ks, %s {clear, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x64xf32>
    tile.gemm %p, %vs, %o {tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 64x64xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x32xf32>
  } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
  tile.yield
}
