// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts{stage-stores=false},tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout),convert-tile-to-nvvm)' | FileCheck %s

// The mma.sync strategy of convert-tile-to-nvvm (sm_80 .. sm_90): the kernel keeps its name,
// parameters and threads. The accumulator (128x128 on 8 warps of 64x32: 16 m16n8 fragments, 64
// registers per thread) is a per-thread array in the entry block.
// CHECK-LABEL: gpu.func @gemm(
// CHECK-SAME:    known_block_size = array<i32: 256, 1, 1>
// CHECK:         memref.alloca() : memref<64xf32>
// Two versions of the ring: 16-byte cp.async chunks when every tensor allows them, element
// copies otherwise. Prologue: stages 0 and 1 (4 + 4 chunks per thread: 128x64 and 64x128
// bf16 in 16-byte chunks over 256 threads), one group each. A tile wholly inside its tensor
// takes whole chunks without checks; an edge tile cuts them at the tensor's edge through the
// source size operand (zero fill).
// CHECK:         scf.if
// CHECK:           scf.if
// CHECK:             scf.if
// CHECK-COUNT-4:       nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache =  cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK:             } else {
// CHECK-COUNT-4:       nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache =  cg, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK:             scf.if
// CHECK-COUNT-4:       nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache =  cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK:             } else {
// CHECK-COUNT-4:       nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache =  cg, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK:             nvvm.cp.async.commit.group
// Steady state: wait for the oldest group (S - 2 = 1 may stay pending), sync, then per k16 step
// four ldmatrix.x4 of A, two transposed ldmatrix.x4 of B (row-major), 16 mma.sync m16n8k16.
// CHECK:           scf.for
// CHECK:             nvvm.cp.async.wait.group 1
// CHECK-NEXT:        gpu.barrier
// CHECK-COUNT-4:     nvvm.ldmatrix {{.+}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-COUNT-2:     nvvm.ldmatrix {{.+}}layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-16:    nvvm.mma.sync A[{{.+}}]  B[{{.+}}]  C[{{.+}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// Then the copies of iteration i + 2 and a commit; after the loop, drain.
// CHECK:             nvvm.cp.async.commit.group
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK-NEXT:      gpu.barrier
// The other version copies element by element, masked, into the same places.
// CHECK:         } else {
// CHECK-NOT:       nvvm.cp.async.shared.global
// CHECK:           nvvm.ldmatrix
// Epilogue: ReLU on the registers, paired stores.
// CHECK:         arith.maximumf
// CHECK:         llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NOT:     tile.

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
