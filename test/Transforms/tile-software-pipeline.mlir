// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts,tile-software-pipeline))' | FileCheck %s
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{tma=false},tile-software-pipeline))' | FileCheck %s --check-prefix=LOADS
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{tma=false},tile-software-pipeline{producer-loads=false}))' | FileCheck %s --check-prefix=CPASYNC
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts,tile-software-pipeline))' | FileCheck %s --check-prefix=SM80
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_75},tile.kernel(tile-assign-mma-layouts,tile-software-pipeline))' | FileCheck %s --check-prefix=GENERIC
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{main-loops=false},tile-software-pipeline{main-loops=false}))' | FileCheck %s --check-prefix=REG90
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts{main-loops=false},tile-software-pipeline{main-loops=false}))' | FileCheck %s --check-prefix=REG80

// tile-software-pipeline: the pipelined TMA/wgmma loop becomes a 3-stage ring (each buffer its
// copies fill is tripled), served by a producer warpgroup added to the kernel.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-SAME:    tile.producer_threads = 128 : i64
// CHECK:         tile.alloc {tile.stages = 3 : i64} : !tile.buffer<shared 128x64xbf16>
// CHECK-NEXT:    tile.alloc {tile.stages = 3 : i64} : !tile.buffer<shared 64x128xbf16>
// CHECK-NEXT:    tile.alloc {tile.layout = {{.+}}} : !tile.buffer<fragment 128x128xf32>
// CHECK:         } {tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 3 : i64}
// Without TMA (the entry for tensors TMA cannot read) the cp.async copies feeding wgmma get a
// producer warpgroup that loads the tiles itself (loads_wgmma); with producer-loads=false the
// multiplying warps copy S - 1 iterations ahead themselves (cp_async_mma, gemms on wgmma).
// LOADS-LABEL: tile.kernel @gemm
// LOADS-SAME:    tile.producer_threads = 128 : i64
// LOADS:         tile.alloc {tile.stages = 3 : i64} : !tile.buffer<shared 128x64xbf16>
// LOADS:         } {tile.pipeline = #tile.pipeline<loads_wgmma>, tile.stages = 3 : i64}
// CPASYNC-LABEL: tile.kernel @gemm
// CPASYNC-NOT:     tile.producer_threads
// CPASYNC:         } {tile.pipeline = #tile.pipeline<cp_async_mma>, tile.stages = 3 : i64}
// The mma.sync strategy: the same ring of cp.async copies, no producer warpgroup.
// SM80-LABEL: tile.kernel @gemm
// SM80-NOT:     tile.producer_threads
// SM80:         tile.alloc {tile.stages = 3 : i64} : !tile.buffer<shared 128x64xbf16>
// SM80:         } {tile.pipeline = #tile.pipeline<cp_async_mma>, tile.stages = 3 : i64}
// With main-loops=false (tlc --codegen=register) the kernel takes the register strategy: its
// accumulator on warps stacked along M where wgmma fits (sm_90a: 16 rows per warp), else the
// squarest warp grid (sm_80), and the loop is a register ring, without a producer.
// REG90-LABEL: tile.kernel @gemm
// REG90-NOT:     tile.producer_threads
// REG90:         tile.alloc {tile.stages = 3 : i64} : !tile.buffer<shared 128x64xbf16>
// REG90-NEXT:    tile.alloc {tile.stages = 3 : i64} : !tile.buffer<shared 64x128xbf16>
// REG90-NEXT:    tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
// REG90:         } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 3 : i64}
// REG80-LABEL: tile.kernel @gemm
// REG80-NOT:     tile.producer_threads
// REG80:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [2, 4]>} : !tile.buffer<fragment 128x128xf32>
// REG80:         } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 3 : i64}
// Without a tensor-core mapping (here sm_75) the loop runs in order: no ring, no producer.
// GENERIC-LABEL: tile.kernel @gemm
// GENERIC-NOT:     tile.producer_threads
// GENERIC-NOT:     tile.pipeline
// GENERIC:         } {tile.stages = 3 : i64}
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

// stages = 1: the TMA ring and the loading producer's keep one stage (the producer waits for it
// to be empty); the cp.async ring refills the stage the previous iteration read, so it takes two.
// LOADS-LABEL: tile.kernel @one_stage
// LOADS:         tile.alloc {tile.stages = 1 : i64} : !tile.buffer<shared 128x64xbf16>
// LOADS:         } {tile.pipeline = #tile.pipeline<loads_wgmma>, tile.stages = 1 : i64}
// CPASYNC-LABEL: tile.kernel @one_stage
// CPASYNC:         tile.alloc {tile.stages = 2 : i64} : !tile.buffer<shared 128x64xbf16>
// CPASYNC:         } {tile.pipeline = #tile.pipeline<cp_async_mma>, tile.stages = 2 : i64}
// CHECK-LABEL: tile.kernel @one_stage
// CHECK:         } {tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 1 : i64}
// SM80-LABEL: tile.kernel @one_stage
// SM80:         tile.alloc {tile.stages = 2 : i64} : !tile.buffer<shared 128x64xbf16>
// SM80:         } {tile.pipeline = #tile.pipeline<cp_async_mma>, tile.stages = 2 : i64}
// GENERIC-LABEL: tile.kernel @one_stage
// GENERIC:         } {tile.stages = 1 : i64}
tile.kernel @one_stage threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
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
  } {tile.stages = 1 : i64}
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
