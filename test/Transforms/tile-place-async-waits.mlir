// RUN: tlc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-place-async-waits))' | FileCheck %s

// tile-place-async-waits alone, on hand-written register-strategy kernels (decisions as
// tile-assign-mma-layouts and tile-shared-memory-layout leave them).

// Two copies, then a gemm reading the first: one group (the second copy) may still be landing.
// The second copy's tile is read after the first gemm: nothing else issued since, wait for 0.
// One barrier before the run of copies (their offsets are pure ops between them). mma.sync
// gemms: no fences.
// CHECK-LABEL: tile.kernel @mma_sync
// CHECK:         tile.barrier
// CHECK-NEXT:    tile.copy %arg0[%c0, %[[COL:.*]]] to %[[AS:.*]] {tile.cp_async}
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli
// CHECK-NEXT:    tile.copy %arg1[%[[ROW]], %c0] to %[[BS:.*]] {tile.cp_async}
// CHECK-NEXT:    tile.async_wait pending = 1
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.gemm %[[AS]], %[[AS]], %{{.*}} {clear, tile.mma = #tile.mma<mma_sync>, transpose_b}
// CHECK-NEXT:    tile.async_wait pending = 0
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.gemm %[[AS]], %[[BS]], %{{.*}} {tile.mma = #tile.mma<mma_sync>}
// A copy nothing in its block reads: waited for at the block's end.
// CHECK:         scf.if
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.copy %arg1[%c0, %c0] to %[[CS:.*]] {tile.cp_async}
// CHECK-NEXT:      tile.async_wait pending = 0
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:    }
tile.kernel @mma_sync threads [128, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} attributes {tile.shared_bytes = 24576 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %bs = tile.alloc {tile.offset = 4096 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 32x64xbf16>
  %cs = tile.alloc {tile.offset = 8192 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 32x64xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %x = tile.block_id 0
  %col = arith.muli %x, %c32 : index
  tile.copy %a[%c0, %col] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
  %row = arith.muli %x, %c32 : index
  tile.copy %b[%row, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
  tile.gemm %as, %as, %s {clear, tile.mma = #tile.mma<mma_sync>, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
  %first = arith.cmpi eq, %x, %c0 : index
  scf.if %first {
    tile.copy %b[%c0, %c0] to %cs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
  }
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// wgmma in the kernel: every wait fences this thread's copies for the async proxy before its
// barrier. B is also written by a `parallel` (tile.write, a dequantization). Before the first
// gemm the copy's wait fenced and synced the write as well; before the second, a fence and a
// barrier of their own. A barrier after each (the writes do not wait for the gemm's reads).
// CHECK-LABEL: tile.kernel @wgmma
// CHECK:         tile.copy %arg0[%c0, %c0] to %[[AS:.*]] {tile.cp_async}
// CHECK-NEXT:    tile.write
// CHECK-NEXT:    tile.async_wait pending = 0
// CHECK-NEXT:    tile.async_proxy_fence
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.gemm %[[AS]], %[[BS:.*]], %{{.*}} {tile.mma = #tile.mma<wgmma>}
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.write
// CHECK-NEXT:    tile.async_proxy_fence
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.gemm %[[AS]], %[[BS]], %{{.*}} {tile.mma = #tile.mma<wgmma>}
// CHECK-NEXT:    tile.barrier
tile.kernel @wgmma threads [128, 1, 1] args ["A", "C"] dims [["M", "K"], ["M", "N"]] params {} attributes {tile.shared_bytes = 24576 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %bs = tile.alloc {tile.offset = 4096 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : bf16
  tile.copy %a[%c0, %c0] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
  tile.write %one, %bs[%c0, %c0] : !tile.buffer<shared 32x64xbf16>
  tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.write %one, %bs[%c0, %c0] : !tile.buffer<shared 32x64xbf16>
  tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// A register ring written out (tile-pipeline-register-rings): its copies into stages got their
// waits there; here only the barrier before their run.
// CHECK-LABEL: tile.kernel @ring
// CHECK:         scf.for
// CHECK-NEXT:      %[[KS:.*]] = tile.stage
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.copy %{{.*}} to %[[KS]] {tile.cp_async}
// CHECK-NEXT:      %[[VS:.*]] = tile.stage
// CHECK-NEXT:      tile.copy %{{.*}} to %[[VS]] {tile.cp_async}
// CHECK-NEXT:      tile.async_wait pending = 1
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.gemm
// CHECK-NEXT:    {{^}}  }
// CHECK-NEXT:    tile.async_wait pending = 0
// CHECK-NEXT:    tile.yield
tile.kernel @ring threads [128, 1, 1] args ["K", "V"] dims [["S", "D"], ["S", "D"]] params {} attributes {tile.shared_bytes = 32768 : i64} grid {
^bb0(%k: !tile.tensor<bf16, 2>, %v: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%k: !tile.tensor<bf16, 2>, %v: !tile.tensor<bf16, 2>):
  %ks = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %vs = tile.alloc {tile.offset = 8192 : i64, tile.stages = 2 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 64x32xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %k1 = tile.stage %ks[%i] : !tile.buffer<shared 64x32xbf16>
    tile.copy %k[%i, %c0] to %k1 {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    %v1 = tile.stage %vs[%i] : !tile.buffer<shared 64x32xbf16>
    tile.copy %v[%i, %c0] to %v1 {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.async_wait pending = 1
    tile.barrier
    tile.gemm %k1, %v1, %s {clear, tile.mma = #tile.mma<mma_sync>, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x64xf32>
  }
  tile.async_wait pending = 0
  tile.yield
}

// -----

// Precondition: the register rings are written out first (their copies' waits are theirs).
tile.kernel @unexpanded threads [128, 1, 1] args ["K"] dims [["S", "D"]] params {} attributes {tile.shared_bytes = 16384 : i64} grid {
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
  // expected-error @+1 {{is a register ring not expanded yet; hint: run tile-pipeline-register-rings before tile-place-async-waits}}
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %k[%i, %c0] to %ks {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.gemm %ks, %ks, %s {clear, tile.mma = #tile.mma<mma_sync>, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
  tile.yield
}
