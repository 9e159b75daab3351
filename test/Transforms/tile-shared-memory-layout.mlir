// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{tma-stores=true},tile-software-pipeline,tile-shared-memory-layout))' | FileCheck %s
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts,tile-software-pipeline,tile-shared-memory-layout))' | FileCheck %s --check-prefix=SM80
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{tma=false},tile-software-pipeline,tile-shared-memory-layout))' | FileCheck %s --check-prefix=LOADS
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target{arch=sm_86},tile.kernel(tile-assign-mma-layouts,tile-software-pipeline,tile-shared-memory-layout))' | FileCheck %s --check-prefix=SM86

// tile-shared-memory-layout: the ring buffers get the 128-byte swizzle of the TMA box and the
// wgmma descriptor (rows of 64 bf16 = 128 bytes), 1024-byte aligned offsets, three stages each
// (3 * 16 KiB for As, then Bs); the store staging scratch of the copy of the accumulator to C
// (tile-assign-mma-layouts, tma_store: 8 warps x two 2048-byte slabs, 1024-byte aligned; without
// TMA, 8 warps x 16 rows x 144 bytes) after them, live throughout (not
// sharing bytes with the ring: a persistent kernel's producer refills the ring while the
// consumers store); the six mbarriers follow; the total is on the kernel.

// sm_80 (163 KiB): the cp.async ring of the mma.sync strategy, no mbarriers.
// SM80-LABEL: tile.kernel @gemm
// SM80-SAME:    tile.shared_bytes = 116736 : i64
// SM80:         tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 18432xi8>
// SM80:         tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64}
// SM80-NOT:     tile.barriers

// sm_86 (99 KiB): three 32 KiB stages do not fit; `stages` is an upper bound, lowered to 2.
// SM86-LABEL: tile.kernel @gemm
// SM86-SAME:    tile.shared_bytes = 83968 : i64
// SM86:         tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64}
// SM86:         } {tile.pipeline = #tile.pipeline<cp_async_mma>, tile.stages = 2 : i64}

// A loading producer's ring (no TMA): after the mbarriers, a 16-byte edge block per row of
// each tile per stage (3 * (128 + 64) * 16 bytes at 116784) for its staged copies.
// LOADS-LABEL: tile.kernel @gemm
// LOADS-SAME:    tile.shared_bytes = 126000 : i64
// LOADS:         } {tile.barriers = 116736 : i64, tile.pipeline = #tile.pipeline<loads_wgmma>, tile.stages = 3 : i64}

// CHECK-LABEL: tile.kernel @gemm
// CHECK-SAME:    tile.shared_bytes = 131120 : i64
// CHECK:         %[[SCRATCH:.+]] = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 32768xi8>
// CHECK:         tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
// CHECK-NEXT:    tile.alloc {tile.offset = 49152 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
// CHECK:         } {tile.barriers = 131072 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 3 : i64}
// CHECK:         tile.copy %{{.+}} to %{{.+}} scratch %[[SCRATCH]] : !tile.buffer<shared 32768xi8> {tma_store}
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

