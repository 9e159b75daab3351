// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts,tile-partition-threads))' | FileCheck %s

// Side effects of a parallel body run over register slots (issue 17's differential campaign).
// A row fragment's value is replicated over the four lanes of a quad: an atomic update from a
// parallel over it is done by one lane of the quad, not four times.
// CHECK-LABEL: tile.kernel @rowsum
// CHECK:         %[[TID:.+]] = tile.thread_id 0
// CHECK:         scf.for
// CHECK:           %[[V:.+]] = tile.read_slot
// CHECK:           %[[LANE:.+]] = arith.remui %[[TID]], %[[C4:.+]] : index
// CHECK:           %[[LEAD:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}} : index
// CHECK-NEXT:      scf.if %[[LEAD]] {
// CHECK-NEXT:        tile.atomic_add %[[V]], %{{.+}}[%{{.+}}] : !tile.tensor<f32, 1>
// CHECK-NEXT:      }
// CHECK-NEXT:    } {tile.unroll}
  tile.kernel @rowsum threads [128, 1, 1] args ["A", "B", "R"] dims [["M", "K"], ["N", "K"], ["M"]] params {} grid {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 1>):
    %0 = tile.dim %arg0[0] : !tile.tensor<bf16, 2>
    %c64 = arith.constant 64 : index
    %1 = arith.ceildivsi %0, %c64 : index
    %c1 = arith.constant 1 : index
    %c1_0 = arith.constant 1 : index
    tile.yield %1, %c1, %c1_0 : index, index, index
  } body {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 1>):
    %0 = tile.alloc : !tile.buffer<shared 64x32xbf16>
    %1 = tile.alloc : !tile.buffer<shared 32x32xbf16>
    %2 = tile.alloc : !tile.buffer<fragment 64x32xf32>
    %3 = tile.alloc : !tile.buffer<fragment 64xf32>
    %4 = tile.block_id 0
    %c64 = arith.constant 64 : index
    %5 = arith.muli %4, %c64 : index
    %c0 = arith.constant 0 : index
    tile.copy %arg0[%5, %c0] to %0 : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    %c0_0 = arith.constant 0 : index
    %c0_1 = arith.constant 0 : index
    tile.copy %arg1[%c0_0, %c0_1] to %1 : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
    tile.gemm %0, %1, %2 {clear, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 64x32xf32>
    tile.reduce %2, %3 {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 64x32xf32> to !tile.buffer<fragment 64xf32>
    tile.parallel [64] {
    ^bb0(%arg3: index):
      %6 = tile.block_id 0
      %c64_2 = arith.constant 64 : index
      %7 = arith.muli %6, %c64_2 : index
      %8 = arith.addi %7, %arg3 : index
      %9 = tile.read %3[%arg3] : !tile.buffer<fragment 64xf32>
      tile.atomic_add %9, %arg2[%8] : !tile.tensor<f32, 1>
    }
    tile.yield
  }

// -----

// A parallel over the accumulator's slots that writes a buffer in shared memory (a fragment
// without a register layout) is followed by a barrier: other threads read it next.
// CHECK-LABEL: tile.kernel @staged
// CHECK:         tile.write %{{.+}}, %[[CO:.+]][%{{.+}}, %{{.+}}] : !tile.buffer<fragment 64x128xf32>
// CHECK-NEXT:    } {tile.unroll}
// CHECK-NEXT:    tile.barrier
// CHECK:         tile.copy %[[CO]] to
  tile.kernel @staged threads [128, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 2>):
    %0 = tile.dim %arg1[1] : !tile.tensor<bf16, 2>
    %c128 = arith.constant 128 : index
    %1 = arith.ceildivsi %0, %c128 : index
    %2 = tile.dim %arg0[0] : !tile.tensor<bf16, 2>
    %c64 = arith.constant 64 : index
    %3 = arith.ceildivsi %2, %c64 : index
    %c1 = arith.constant 1 : index
    tile.yield %1, %3, %c1 : index, index, index
  } body {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 2>):
    %0 = tile.alloc : !tile.buffer<fragment 64x128xf32>
    %1 = tile.alloc : !tile.buffer<shared 64x32xbf16>
    %2 = tile.alloc : !tile.buffer<shared 32x128xbf16>
    %3 = tile.alloc : !tile.buffer<fragment 64x128xf32>
    %cst = arith.constant 0.000000e+00 : f32
    tile.fill %3, %cst : !tile.buffer<fragment 64x128xf32>, f32
    %4 = tile.dim %arg0[1] : !tile.tensor<bf16, 2>
    %c32 = arith.constant 32 : index
    %5 = arith.ceildivsi %4, %c32 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %arg3 = %c0 to %5 step %c1 {
      %10 = tile.block_id 1
      %c64_0 = arith.constant 64 : index
      %11 = arith.muli %10, %c64_0 : index
      %c32_1 = arith.constant 32 : index
      %12 = arith.muli %arg3, %c32_1 : index
      tile.copy %arg0[%11, %12] to %1 : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
      %c32_2 = arith.constant 32 : index
      %13 = arith.muli %arg3, %c32_2 : index
      %14 = tile.block_id 0
      %c128_3 = arith.constant 128 : index
      %15 = arith.muli %14, %c128_3 : index
      tile.copy %arg1[%13, %15] to %2 : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x128xbf16>
      tile.gemm %1, %2, %3 : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x128xbf16>, !tile.buffer<fragment 64x128xf32>
    } {tile.stages = 2 : i64}
    tile.parallel [64, 128] {
    ^bb0(%arg3: index, %arg4: index):
      %10 = tile.read %3[%arg3, %arg4] : !tile.buffer<fragment 64x128xf32>
      tile.write %10, %0[%arg3, %arg4] : !tile.buffer<fragment 64x128xf32>
    }
    %6 = tile.block_id 1
    %c64 = arith.constant 64 : index
    %7 = arith.muli %6, %c64 : index
    %8 = tile.block_id 0
    %c128 = arith.constant 128 : index
    %9 = arith.muli %8, %c128 : index
    tile.copy %0 to %arg2[%7, %9] : !tile.buffer<fragment 64x128xf32> to !tile.tensor<f32, 2>
    tile.yield
  }
