// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts))' | FileCheck %s
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts))' | FileCheck %s --check-prefix=SM80
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_75},tile.kernel(tile-assign-mma-layouts))' | FileCheck %s --check-prefix=SM75
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{tma=false}))' | FileCheck %s --check-prefix=NOTMA

// tile-assign-mma-layouts: the tiling decision of the sm_90a strategy. A pipelined loop that copies
// tensor tiles into shared buffers and multiplies them gets the accumulator mapped onto the
// kernel's warpgroups and wgmma m64nNk16 (256 threads, 128x128: two warpgroups of 64 rows, N = 128),
// wgmma gemms and TMA copies.

// CHECK-LABEL: tile.kernel @gemm
// CHECK:         tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
// CHECK:         scf.for
// CHECK:           tile.copy %{{.+}} to %{{.+}} {tile.tma}
// CHECK:           tile.copy %{{.+}} to %{{.+}} {tile.tma}
// CHECK:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {tile.mma = #tile.mma<wgmma>}
// An element-wise epilogue at the accumulator's points keeps the layout.
// CHECK:         tile.parallel
// sm_80 to sm_90 (without 'a'): mma.sync m16n8k16 on the 8 warps, 2 x 4 blocks of 64 x 32,
// and cp.async copies.
// SM80-LABEL: tile.kernel @gemm
// SM80:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [2, 4]>} : !tile.buffer<fragment 128x128xf32>
// SM80:           tile.copy %{{.+}} to %{{.+}} {tile.cp_async}
// SM80:           tile.copy %{{.+}} to %{{.+}} {tile.cp_async}
// SM80:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {tile.mma = #tile.mma<mma_sync>}
// sm_90a without TMA (tlc's plain entry, for launches whose tensors TMA cannot read): a
// cp.async ring feeding wgmma, its copies marked for unaligned tensors.
// NOTMA-LABEL: tile.kernel @gemm
// NOTMA:         tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
// NOTMA:           tile.copy %{{.+}} to %{{.+}} {tile.cp_async, tile.unaligned}
// NOTMA:           tile.copy %{{.+}} to %{{.+}} {tile.cp_async, tile.unaligned}
// NOTMA:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {tile.mma = #tile.mma<wgmma>}
// NOTMA-LABEL: tile.kernel @transposed_epilogue
// Before sm_80 there is no tensor-core strategy.
// SM75-LABEL: tile.kernel @gemm
// SM75-NOT:     tile.layout
// SM75-NOT:     tile.mma
tile.kernel @gemm threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
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
  %as = tile.alloc : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 128x128xf32>
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
    tile.copy %a[%row, %col] to %as : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.stages = 3 : i64}
  tile.parallel [128, 128] {
  ^bb0(%r: index, %col: index):
    %v = tile.read %acc[%r, %col] : !tile.buffer<fragment 128x128xf32>
    %z = arith.constant 0.0 : f32
    %w = arith.maximumf %v, %z : f32
    tile.write %w, %acc[%r, %col] : !tile.buffer<fragment 128x128xf32>
  }
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}

// -----

// An access to the accumulator at other coordinates than the point's (a transpose) does not fit
// a main-loop ring: the register strategy takes the kernel, per op. On sm_90a the accumulator
// gets mma.sync's layout on the 8 warps stacked along M (16 rows each: wgmma's D fragment) and
// the gemm wgmma; the transposed read goes through a copy of the accumulator in shared memory.
// On sm_80 the squarest warp grid and mma.sync.
// CHECK-LABEL: tile.kernel @transposed_epilogue
// CHECK-NOT:     tile.tma
// CHECK:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
// CHECK:           tile.copy %{{.+}} to %{{.+}} {tile.cp_async}
// CHECK:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {tile.mma = #tile.mma<wgmma>}
// CHECK:         tile.copy %{{.+}} to %{{.+}} : !tile.buffer<fragment 128x128xf32> to !tile.buffer<fragment 128x128xf32>
// NOTMA:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
// NOTMA:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {tile.mma = #tile.mma<wgmma>}
// SM80-LABEL: tile.kernel @transposed_epilogue
// SM80:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [2, 4]>} : !tile.buffer<fragment 128x128xf32>
// SM80:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {tile.mma = #tile.mma<mma_sync>}
tile.kernel @transposed_epilogue threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
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
  %as = tile.alloc : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 128x128xf32>
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
    tile.copy %a[%row, %col] to %as : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.stages = 3 : i64}
  tile.parallel [128, 128] {
  ^bb0(%r: index, %col: index):
    %v = tile.read %acc[%col, %r] : !tile.buffer<fragment 128x128xf32>
    %h = arith.truncf %v : f32 to bf16
    tile.store %h, %c[%r, %col] : !tile.tensor<bf16, 2>
  }
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}

// -----

// 96 rows do not split into 64-row wgmma tiles: no layout.
// CHECK-LABEL: tile.kernel @ragged_tile
// CHECK-NOT:     tile.layout
// CHECK:         tile.yield
tile.kernel @ragged_tile threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
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
  %as = tile.alloc : !tile.buffer<shared 96x64xbf16>
  %bs = tile.alloc : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 96x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 96x128xf32>, f32
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
    tile.copy %a[%row, %col] to %as : !tile.tensor<bf16, 2> to !tile.buffer<shared 96x64xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc : !tile.buffer<shared 96x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 96x128xf32>
  } {tile.stages = 3 : i64}
  
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 96x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}
