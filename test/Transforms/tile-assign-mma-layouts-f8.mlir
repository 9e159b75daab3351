// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts))' | FileCheck %s
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{tma=false}))' | FileCheck %s --check-prefix=NOTMA
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts))' | FileCheck %s --check-prefix=SM80
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{cp-async-wgmma=false tma=false}))' | FileCheck %s --check-prefix=SM80

// 8-bit float operands (f8e4m3, f8e5m2) multiply on wgmma m64nNk32, which reads both operands
// K-major: a pipelined loop whose B is [N, K] (transpose_b) gets the sm_90a main loop, fed by
// TMA or (the entry for tensors TMA cannot read) by cp.async. mma.sync has no f8 form before
// sm_89 and tlc none at all: on sm_80, or with wgmma off, the gemm keeps the generic lowering.

// CHECK-LABEL: tile.kernel @f8_nt
// CHECK:         tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
// CHECK:           tile.copy %{{.+}} to %{{.+}} {tile.tma}
// CHECK:           tile.copy %{{.+}} to %{{.+}} {tile.tma}
// CHECK:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {tile.mma = #tile.mma<wgmma>, transpose_b}
// NOTMA-LABEL: tile.kernel @f8_nt
// NOTMA:         tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
// NOTMA:           tile.copy %{{.+}} to %{{.+}} {tile.cp_async, tile.unaligned}
// NOTMA:           tile.copy %{{.+}} to %{{.+}} {tile.cp_async, tile.unaligned}
// NOTMA:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {tile.mma = #tile.mma<wgmma>, transpose_b}
// SM80-LABEL: tile.kernel @f8_nt
// SM80-NOT:     tile.layout
// SM80-NOT:     tile.mma
// SM80:         tile.yield
tile.kernel @f8_nt threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["N", "K"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<f8E4M3FN, 2>, %b: !tile.tensor<f8E4M3FN, 2>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<f8E4M3FN, 2>, %b: !tile.tensor<f8E4M3FN, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc : !tile.buffer<shared 128x128xf8E4M3FN>
  %bs = tile.alloc : !tile.buffer<shared 128x128xf8E4M3FN>
  %acc = tile.alloc : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[1] : !tile.tensor<f8E4M3FN, 2>
  %c128 = arith.constant 128 : index
  %nk = arith.ceildivsi %k, %c128 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c128 : index
    tile.copy %a[%row, %col] to %as : !tile.tensor<f8E4M3FN, 2> to !tile.buffer<shared 128x128xf8E4M3FN>
    %bx = tile.block_id 0
    %brow = arith.muli %bx, %c128 : index
    tile.copy %b[%brow, %col] to %bs : !tile.tensor<f8E4M3FN, 2> to !tile.buffer<shared 128x128xf8E4M3FN>
    tile.gemm %as, %bs, %acc {transpose_b} : !tile.buffer<shared 128x128xf8E4M3FN>, !tile.buffer<shared 128x128xf8E4M3FN>, !tile.buffer<fragment 128x128xf32>
  } {tile.stages = 3 : i64}
  %by = tile.block_id 1
  %row = arith.muli %by, %c128 : index
  %bx = tile.block_id 0
  %col = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%row, %col] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}

// -----

// A row-major f8 B ([K, N]): wgmma cannot transpose 8-bit operands, so no strategy takes the
// loop, and the gemm keeps the generic lowering on every target.
// CHECK-LABEL: tile.kernel @f8_nn
// CHECK-NOT:     tile.layout
// CHECK-NOT:     tile.mma
// CHECK:         tile.yield
// NOTMA-LABEL: tile.kernel @f8_nn
// NOTMA-NOT:     tile.mma
// NOTMA:         tile.yield
// SM80-LABEL: tile.kernel @f8_nn
// SM80-NOT:     tile.mma
// SM80:         tile.yield
tile.kernel @f8_nn threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<f8E5M2, 2>, %b: !tile.tensor<f8E5M2, 2>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<f8E5M2, 2>, %b: !tile.tensor<f8E5M2, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc : !tile.buffer<shared 128x128xf8E5M2>
  %bs = tile.alloc : !tile.buffer<shared 128x128xf8E5M2>
  %acc = tile.alloc : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[1] : !tile.tensor<f8E5M2, 2>
  %c128 = arith.constant 128 : index
  %nk = arith.ceildivsi %k, %c128 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c128 : index
    tile.copy %a[%row, %col] to %as : !tile.tensor<f8E5M2, 2> to !tile.buffer<shared 128x128xf8E5M2>
    %bx = tile.block_id 0
    %bcol = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %bcol] to %bs : !tile.tensor<f8E5M2, 2> to !tile.buffer<shared 128x128xf8E5M2>
    tile.gemm %as, %bs, %acc : !tile.buffer<shared 128x128xf8E5M2>, !tile.buffer<shared 128x128xf8E5M2>, !tile.buffer<fragment 128x128xf32>
  } {tile.stages = 3 : i64}
  tile.yield
}

// -----

// Outside a main loop (a `parallel` scales each k block's product into the accumulator: the
// blockwise-scaled fp8 GEMM), the register strategy runs the f8 gemm on wgmma with its
// accumulator on warps stacked along M (8 warps x 16 rows). mma.sync has no f8 form: on sm_80
// and with wgmma off the gemm keeps the generic lowering.
// CHECK-LABEL: tile.kernel @f8_blockwise
// CHECK:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
// CHECK:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {clear, tile.mma = #tile.mma<wgmma>, transpose_b}
// NOTMA-LABEL: tile.kernel @f8_blockwise
// NOTMA:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {clear, tile.mma = #tile.mma<wgmma>, transpose_b}
// SM80-LABEL: tile.kernel @f8_blockwise
// SM80-NOT:     tile.mma
// SM80:         tile.yield
tile.kernel @f8_blockwise threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["N", "K"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<f8E4M3FN, 2>, %b: !tile.tensor<f8E4M3FN, 2>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<f8E4M3FN, 2>, %b: !tile.tensor<f8E4M3FN, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc : !tile.buffer<shared 128x128xf8E4M3FN>
  %bs = tile.alloc : !tile.buffer<shared 128x128xf8E4M3FN>
  %part = tile.alloc : !tile.buffer<fragment 128x128xf32>
  %acc = tile.alloc : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[1] : !tile.tensor<f8E4M3FN, 2>
  %c128 = arith.constant 128 : index
  %nk = arith.ceildivsi %k, %c128 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c128 : index
    tile.copy %a[%row, %col] to %as : !tile.tensor<f8E4M3FN, 2> to !tile.buffer<shared 128x128xf8E4M3FN>
    %bx = tile.block_id 0
    %brow = arith.muli %bx, %c128 : index
    tile.copy %b[%brow, %col] to %bs : !tile.tensor<f8E4M3FN, 2> to !tile.buffer<shared 128x128xf8E4M3FN>
    tile.gemm %as, %bs, %part {clear, transpose_b} : !tile.buffer<shared 128x128xf8E4M3FN>, !tile.buffer<shared 128x128xf8E4M3FN>, !tile.buffer<fragment 128x128xf32>
    tile.parallel [128, 128] {
    ^bb0(%r: index, %q: index):
      %x = tile.read %acc[%r, %q] : !tile.buffer<fragment 128x128xf32>
      %y = tile.read %part[%r, %q] : !tile.buffer<fragment 128x128xf32>
      %s = arith.addf %x, %y : f32
      tile.write %s, %acc[%r, %q] : !tile.buffer<fragment 128x128xf32>
    }
  } {tile.stages = 3 : i64}
  tile.yield
}

// -----

// A copy that converts (f8e4m3 and f16 tensors into bf16 tiles) is not a byte copy: neither TMA
// nor cp.async may take it, so the loop is no main loop. The register strategy runs the gemm
// (wgmma on sm_90a, mma.sync on sm_80) and leaves the converting copies to the generic lowering.
// CHECK-LABEL: tile.kernel @converting_copies
// CHECK-NOT:       tile.tma
// CHECK:           tile.copy %{{.+}} to %{{.+}} : !tile.tensor<f8E4M3FN, 2> to !tile.buffer<shared 128x64xbf16>
// CHECK:           tile.copy %{{.+}} to %{{.+}} : !tile.tensor<f16, 2> to !tile.buffer<shared 128x64xbf16>
// CHECK:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {tile.mma = #tile.mma<wgmma>, transpose_b}
// NOTMA-LABEL: tile.kernel @converting_copies
// NOTMA-NOT:       tile.cp_async
// NOTMA:           tile.gemm
// SM80-LABEL: tile.kernel @converting_copies
// SM80-NOT:       tile.cp_async
// SM80:           tile.gemm
tile.kernel @converting_copies threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["N", "K"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<f8E4M3FN, 2>, %b: !tile.tensor<f16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<f8E4M3FN, 2>, %b: !tile.tensor<f16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc : !tile.buffer<shared 128x64xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[1] : !tile.tensor<f8E4M3FN, 2>
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %nk = arith.ceildivsi %k, %c64 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c64 : index
    tile.copy %a[%row, %col] to %as : !tile.tensor<f8E4M3FN, 2> to !tile.buffer<shared 128x64xbf16>
    %bx = tile.block_id 0
    %brow = arith.muli %bx, %c128 : index
    tile.copy %b[%brow, %col] to %bs : !tile.tensor<f16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.gemm %as, %bs, %acc {transpose_b} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 128x64xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.stages = 3 : i64}
  tile.yield
}
