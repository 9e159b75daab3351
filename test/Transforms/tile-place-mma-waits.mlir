// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-place-mma-waits))' | FileCheck %s

// tile-place-mma-waits alone, on hand-written register-strategy kernels (wgmma gemms on
// mma.sync-layout accumulators, as tile-assign-mma-layouts leaves them on sm_90a).

// FlashAttention-3's order: S = Q K^T and O += P V issued back to back; the mask waits for S
// only (P V, issued after it, may still run); the softmax's write of P, P V's A fragment, waits
// for P V (PTX: A's registers are the gemm's until a wait completes it), and so O's rescaling
// needs no other. The mma.sync gemm stays synchronous. The loop body waits for nothing else
// before its end.
// CHECK-LABEL: tile.kernel @overlap
// CHECK:         scf.for
// CHECK:           tile.gemm %{{.*}}, %{{.*}}, %[[S:.*]] {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b}
// CHECK-NEXT:      tile.gemm %[[P:.*]], %{{.*}}, %[[O:.*]] {tile.async, tile.mma = #tile.mma<wgmma>}
// CHECK-NEXT:      tile.mma_wait pending = 1, %[[S]] : !tile.buffer<fragment 64x64xf32>
// CHECK-NEXT:      scf.if
// CHECK:           tile.reduce %[[S]]
// CHECK:           tile.mma_wait pending = 0, %[[O]] : !tile.buffer<fragment 64x128xf32>
// CHECK-NEXT:      tile.write_slot %{{.*}}, %[[P]]
// CHECK-NEXT:      tile.read_slot %[[O]]
// CHECK:           tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {tile.mma = #tile.mma<mma_sync>}
// CHECK-NEXT:    }
tile.kernel @overlap threads [128, 1, 1] args ["K"] dims [["S", "D"]] params {} grid {
^bb0(%k: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%k: !tile.tensor<bf16, 2>):
  %qs = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x64xbf16>
  %ks = tile.alloc {tile.offset = 8192 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x64xbf16>
  %vs = tile.alloc {tile.offset = 16384 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xbf16>
  %o = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x128xf32>
  %o2 = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x128xf32>
  %m = tile.alloc {tile.layout = #tile.mma_sync_rows<warps = 4>} : !tile.buffer<fragment 64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = tile.block_id 0
  %edge = arith.cmpi eq, %x, %c0 : index
  scf.for %i = %c0 to %c4 step %c1 {
    tile.gemm %qs, %ks, %s {clear, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
    tile.gemm %p, %vs, %o {tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 64x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 64x128xf32>
    scf.if %edge {
      %v = tile.read_slot %s[%c0] : !tile.buffer<fragment 64x64xf32>
      tile.write_slot %v, %s[%c1] : !tile.buffer<fragment 64x64xf32>
    }
    tile.reduce %s, %m {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 64x64xf32> to !tile.buffer<fragment 64xf32>
    %one = arith.constant 1.0 : bf16
    tile.write_slot %one, %p[%c0] : !tile.buffer<fragment 64x64xbf16>
    %w = tile.read_slot %o[%c0] : !tile.buffer<fragment 64x128xf32>
    tile.write_slot %w, %o[%c1] : !tile.buffer<fragment 64x128xf32>
    tile.gemm %p, %vs, %o2 {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<fragment 64x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 64x128xf32>
  }
  tile.yield
}

// -----

// What else needs a gemm done: a barrier (another thread may write its tiles next), a copy into
// its shared operand, another gemm on its accumulator, and the block's end. A wait completes
// every gemm issued before the one it names (groups complete in order).
// CHECK-LABEL: tile.kernel @needs
// CHECK:         tile.gemm %[[QS:.*]], %[[KS:.*]], %[[S:.*]] {clear, tile.async
// CHECK-NEXT:    tile.mma_wait pending = 0, %[[S]]
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.gemm %[[QS]], %[[KS]], %[[S]] {clear, tile.async
// CHECK-NEXT:    tile.gemm %[[QS]], %[[KS]], %[[S2:.*]] {clear, tile.async
// CHECK-NEXT:    tile.mma_wait pending = 0, %[[S]], %[[S2]]
// CHECK-NEXT:    tile.copy %{{.*}} to %[[KS]]
// CHECK-NEXT:    tile.gemm %[[QS]], %[[KS]], %[[S]] {clear, tile.async
// CHECK-NEXT:    tile.mma_wait pending = 0, %[[S]]
// CHECK-NEXT:    tile.gemm %[[QS]], %[[KS]], %[[S]] {tile.async
// CHECK-NEXT:    tile.mma_wait pending = 0, %[[S]]
// CHECK-NEXT:    tile.yield
tile.kernel @needs threads [128, 1, 1] args ["K"] dims [["S", "D"]] params {} grid {
^bb0(%k: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%k: !tile.tensor<bf16, 2>):
  %qs = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x64xbf16>
  %ks = tile.alloc {tile.offset = 8192 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x64xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %s2 = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  tile.gemm %qs, %ks, %s {clear, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.barrier
  tile.gemm %qs, %ks, %s {clear, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.gemm %qs, %ks, %s2 {clear, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.copy %k[%c0, %c0] to %ks {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
  tile.gemm %qs, %ks, %s {clear, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.gemm %qs, %ks, %s {tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.yield
}
