// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts{stage-stores=false},tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout,tile-pipeline-register-rings,tile-place-async-waits),convert-tile-to-nvvm)' | FileCheck %s

// The register strategy of convert-tile-to-nvvm (kernels/attention.tile at BM = 32, BN = 16,
// D = 32 on two warps). Fragments are per-thread arrays: three row statistics of 2 slots, O (16),
// P (8 x bf16), S (8).
// CHECK-LABEL: gpu.func @attention_fwd(
// CHECK-SAME:    known_block_size = array<i32: 64, 1, 1>
// CHECK-COUNT-3: memref.alloca() : memref<2xf32>
// CHECK:         memref.alloca() : memref<16xf32>
// CHECK:         memref.alloca() : memref<8xbf16>
// CHECK:         memref.alloca() : memref<8xf32>
// Q's tile: a barrier (a run of copies), 16-byte cp.async chunks (or element copies for tensors
// cp.async cannot read 16 bytes at a time), one group.
// CHECK:         gpu.barrier
// CHECK:         scf.if
// CHECK:           nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache =  cg, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK:         } else {
// CHECK:         nvvm.cp.async.commit.group
// The ring's prologue: K and V of iteration 0 into stage 0, one group each.
// CHECK:         gpu.barrier
// CHECK:         nvvm.cp.async.commit.group
// CHECK:         nvvm.cp.async.commit.group
// Before the loop (Q's first use): Q has landed; K0 and V0 may still be pending.
// CHECK-NEXT:    nvvm.cp.async.wait.group 2
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    scf.for
// Iteration i: K_i has landed (V_i may be pending) ...
// CHECK:           nvvm.cp.async.wait.group 1
// CHECK-NEXT:      gpu.barrier
// ... K and V of iteration i + 1 into the other stage, which every thread is done with once past
// that barrier (no barrier of their own) ...
// CHECK-NOT:       gpu.barrier
// CHECK:           nvvm.cp.async.commit.group
// CHECK-NOT:       gpu.barrier
// CHECK:           nvvm.cp.async.commit.group
// ... S = Q K^T from a cleared accumulator, per k16 step an ldmatrix.x4 of Q and one of K (two
// n8 tiles), two mma.sync.
// CHECK:           nvvm.ldmatrix {{.+}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK:           nvvm.ldmatrix {{.+}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK:           nvvm.mma.sync A[{{.+}}]  B[{{.+}}]  C[%[[ZERO:.+]], %[[ZERO]], %[[ZERO]], %[[ZERO]]]
// CHECK-SAME:        shape = #nvvm.shape<m = 16, n = 8, k = 16>
// Row maximum: the thread's slots of each row, then its quad (lanes xor 1, xor 2).
// CHECK:           arith.maximumf
// CHECK:           gpu.shuffle  xor %{{.+}}, %c1_i32, %c32_i32 : f32
// CHECK:           gpu.shuffle  xor %{{.+}}, %c2_i32, %c32_i32 : f32
// CHECK:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// Row sum, accumulated.
// CHECK:           gpu.shuffle  xor
// CHECK:           arith.addf
// V_i has landed: O += P V with P from registers (slot pairs as bf16x2) and V row-major through
// ldmatrix.trans, four n8 tiles of D = 32.
// CHECK:           nvvm.cp.async.wait.group 2
// CHECK-NEXT:      gpu.barrier
// CHECK-NOT:       nvvm.ldmatrix {{.+}}mma_layout<row>
// CHECK-COUNT-4:   llvm.bitcast %{{.+}} : vector<2xbf16> to i32
// CHECK-COUNT-2:   nvvm.ldmatrix {{.+}}layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-4:   nvvm.mma.sync
// After the loop no copy is in flight; O / l is stored in pairs.
// CHECK:         nvvm.cp.async.wait.group 0
// CHECK:         arith.divf
// CHECK:         llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NOT:     tile.

tile.kernel @attention_fwd threads [64, 1, 1] args ["Q", "K", "V", "O", "scale"] dims [["B", "H", "S", "32"], ["B", "H", "S", "32"], ["B", "H", "S", "32"], ["B", "H", "S", "32"], []] params {BM = 32 : i64, BN = 16 : i64, CAUSAL = false, D = 32 : i64} grid {
^bb0(%arg0: !tile.tensor<bf16, 4>, %arg1: !tile.tensor<bf16, 4>, %arg2: !tile.tensor<bf16, 4>, %arg3: !tile.tensor<bf16, 4>, %arg4: f32):
  %0 = tile.dim %arg0[2] : !tile.tensor<bf16, 4>
  %c32 = arith.constant 32 : index
  %1 = arith.ceildivsi %0, %c32 : index
  %2 = tile.dim %arg0[1] : !tile.tensor<bf16, 4>
  %3 = tile.dim %arg0[0] : !tile.tensor<bf16, 4>
  tile.yield %1, %2, %3 : index, index, index
} body {
^bb0(%arg0: !tile.tensor<bf16, 4>, %arg1: !tile.tensor<bf16, 4>, %arg2: !tile.tensor<bf16, 4>, %arg3: !tile.tensor<bf16, 4>, %arg4: f32):
  %0 = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %1 = tile.alloc : !tile.buffer<shared 16x32xbf16>
  %2 = tile.alloc : !tile.buffer<shared 16x32xbf16>
  %3 = tile.alloc : !tile.buffer<fragment 32x16xf32>
  %4 = tile.alloc : !tile.buffer<fragment 32x16xbf16>
  %5 = tile.alloc : !tile.buffer<fragment 32x32xf32>
  %6 = tile.alloc : !tile.buffer<fragment 32xf32>
  %7 = tile.alloc : !tile.buffer<fragment 32xf32>
  %8 = tile.alloc : !tile.buffer<fragment 32xf32>
  %9 = tile.block_id 2
  %10 = tile.block_id 1
  %11 = tile.block_id 0
  %c32 = arith.constant 32 : index
  %12 = arith.muli %11, %c32 : index
  %c0 = arith.constant 0 : index
  tile.copy %arg0[%9, %10, %12, %c0] to %0 : !tile.tensor<bf16, 4> to !tile.buffer<shared 32x32xbf16>
  %cst = arith.constant 0.000000e+00 : f32
  tile.fill %5, %cst : !tile.buffer<fragment 32x32xf32>, f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  tile.fill %8, %cst_0 : !tile.buffer<fragment 32xf32>, f32
  %cst_1 = arith.constant 0xFF800000 : f32
  tile.fill %6, %cst_1 : !tile.buffer<fragment 32xf32>, f32
  %13 = tile.block_id 0
  %c1 = arith.constant 1 : index
  %14 = arith.addi %13, %c1 : index
  %c32_2 = arith.constant 32 : index
  %15 = arith.muli %14, %c32_2 : index
  %c16 = arith.constant 16 : index
  %16 = arith.ceildivsi %15, %c16 : index
  %17 = tile.dim %arg0[2] : !tile.tensor<bf16, 4>
  %c16_3 = arith.constant 16 : index
  %18 = arith.ceildivsi %17, %c16_3 : index
  %19 = arith.minsi %16, %18 : index
  %20 = tile.dim %arg0[2] : !tile.tensor<bf16, 4>
  %c16_4 = arith.constant 16 : index
  %21 = arith.ceildivsi %20, %c16_4 : index
  %c0_5 = arith.constant 0 : index
  %c1_6 = arith.constant 1 : index
  scf.for %arg5 = %c0_5 to %21 step %c1_6 {
    %26 = tile.block_id 2
    %27 = tile.block_id 1
    %c16_9 = arith.constant 16 : index
    %28 = arith.muli %arg5, %c16_9 : index
    %c0_10 = arith.constant 0 : index
    tile.copy %arg1[%26, %27, %28, %c0_10] to %1 : !tile.tensor<bf16, 4> to !tile.buffer<shared 16x32xbf16>
    %29 = tile.block_id 2
    %30 = tile.block_id 1
    %c16_11 = arith.constant 16 : index
    %31 = arith.muli %arg5, %c16_11 : index
    %c0_12 = arith.constant 0 : index
    tile.copy %arg2[%29, %30, %31, %c0_12] to %2 : !tile.tensor<bf16, 4> to !tile.buffer<shared 16x32xbf16>
    tile.gemm %0, %1, %3 {clear, transpose_b} : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 16x32xbf16>, !tile.buffer<fragment 32x16xf32>
    tile.parallel [32, 16] {
    ^bb0(%arg6: index, %arg7: index):
      %32 = tile.block_id 0
      %c32_13 = arith.constant 32 : index
      %33 = arith.muli %32, %c32_13 : index
      %34 = arith.addi %33, %arg6 : index
      %c16_14 = arith.constant 16 : index
      %35 = arith.muli %arg5, %c16_14 : index
      %36 = arith.addi %35, %arg7 : index
      %37 = tile.dim %arg0[2] : !tile.tensor<bf16, 4>
      %38 = arith.cmpi sge, %36, %37 : index
      %39 = arith.cmpi sgt, %36, %34 : index
      %false = arith.constant false
      %40 = arith.andi %false, %39 : i1
      %41 = arith.ori %38, %40 : i1
      %42 = tile.read %3[%arg6, %arg7] : !tile.buffer<fragment 32x16xf32>
      %43 = arith.mulf %42, %arg4 : f32
      %cst_15 = arith.constant 0xFF800000 : f32
      %44 = arith.select %41, %cst_15, %43 : f32
      tile.write %44, %3[%arg6, %arg7] : !tile.buffer<fragment 32x16xf32>
    }
    tile.reduce %3, %7 init %6 : !tile.buffer<fragment 32xf32> {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 32x16xf32> to !tile.buffer<fragment 32xf32>
    tile.parallel [32, 32] {
    ^bb0(%arg6: index, %arg7: index):
      %32 = tile.read %5[%arg6, %arg7] : !tile.buffer<fragment 32x32xf32>
      %33 = tile.read %6[%arg6] : !tile.buffer<fragment 32xf32>
      %34 = tile.read %7[%arg6] : !tile.buffer<fragment 32xf32>
      %35 = arith.subf %33, %34 : f32
      %36 = math.exp2 %35 : f32
      %37 = arith.mulf %32, %36 : f32
      tile.write %37, %5[%arg6, %arg7] : !tile.buffer<fragment 32x32xf32>
    }
    tile.parallel [32] {
    ^bb0(%arg6: index):
      %32 = tile.read %8[%arg6] : !tile.buffer<fragment 32xf32>
      %33 = tile.read %6[%arg6] : !tile.buffer<fragment 32xf32>
      %34 = tile.read %7[%arg6] : !tile.buffer<fragment 32xf32>
      %35 = arith.subf %33, %34 : f32
      %36 = math.exp2 %35 : f32
      %37 = arith.mulf %32, %36 : f32
      tile.write %37, %8[%arg6] : !tile.buffer<fragment 32xf32>
      %38 = tile.read %7[%arg6] : !tile.buffer<fragment 32xf32>
      tile.write %38, %6[%arg6] : !tile.buffer<fragment 32xf32>
    }
    tile.parallel [32, 16] {
    ^bb0(%arg6: index, %arg7: index):
      %32 = tile.read %3[%arg6, %arg7] : !tile.buffer<fragment 32x16xf32>
      %33 = tile.read %6[%arg6] : !tile.buffer<fragment 32xf32>
      %34 = arith.subf %32, %33 : f32
      %35 = math.exp2 %34 : f32
      tile.write %35, %3[%arg6, %arg7] : !tile.buffer<fragment 32x16xf32>
      %36 = tile.read %3[%arg6, %arg7] : !tile.buffer<fragment 32x16xf32>
      %37 = arith.truncf %36 : f32 to bf16
      tile.write %37, %4[%arg6, %arg7] : !tile.buffer<fragment 32x16xbf16>
    }
    tile.reduce %3, %8 {accumulate, dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 32x16xf32> to !tile.buffer<fragment 32xf32>
    tile.gemm %4, %2, %5 : !tile.buffer<fragment 32x16xbf16>, !tile.buffer<shared 16x32xbf16>, !tile.buffer<fragment 32x32xf32>
  } {tile.stages = 2 : i64}
  tile.parallel [32, 32] {
  ^bb0(%arg5: index, %arg6: index):
    %26 = tile.read %5[%arg5, %arg6] : !tile.buffer<fragment 32x32xf32>
    %27 = tile.read %8[%arg5] : !tile.buffer<fragment 32xf32>
    %28 = arith.divf %26, %27 : f32
    tile.write %28, %5[%arg5, %arg6] : !tile.buffer<fragment 32x32xf32>
  }
  %22 = tile.block_id 2
  %23 = tile.block_id 1
  %24 = tile.block_id 0
  %c32_7 = arith.constant 32 : index
  %25 = arith.muli %24, %c32_7 : index
  %c0_8 = arith.constant 0 : index
  tile.copy %5 to %arg3[%22, %23, %25, %c0_8] : !tile.buffer<fragment 32x32xf32> to !tile.tensor<bf16, 4>
  tile.yield
}
