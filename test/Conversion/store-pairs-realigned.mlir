// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts{stage-stores=false},tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout,tile-pipeline-register-rings,tile-place-async-waits),convert-tile-to-nvvm)' | FileCheck %s

// copy(acc, C[...]) of an mma.sync accumulator (64x64 over 4 warps: 16 pairs of neighbouring
// columns per thread). Where every pair of the tile is aligned (last stride 1, an even row
// stride and origin: uniform in the block) each pair is one 4-byte store, and where the rows are
// 16-byte aligned too (row stride and origin multiples of 8 elements) each quad transposes the
// pairs of four 8-column blocks of a row (two rounds of xor shuffles, lanes 1 then 2 apart: 4
// shuffles per group) and each lane stores 8 neighbouring elements as one 16-byte vector, masked
// element by element at the tile's edges (4 groups per thread). Otherwise a row whose
// pairs are one element off stores one element on: each lane takes the first element of the
// quad's next lane (the quad's last lane that of the quad's first lane 8 columns on, slot 4),
// the quad's first lane stores the row's first element alone and the last lane the last one.
// Input: `tlc --emit=tile` of a 64x64x32 register-strategy GEMM.

// CHECK-LABEL: gpu.func @mm(
// CHECK-NOT:       gpu.shuffle
// CHECK:           %[[ROWS:.+]] = arith.andi %arg13, %c7_i64 : i64
// CHECK:           scf.if
// CHECK-NEXT:      %[[LANE_I:.+]] = arith.remui %thread_id_x, %c32 : index
// CHECK-NEXT:      %[[LANE_Q:.+]] = arith.index_cast %[[LANE_I]] : index to i32
// CHECK-NEXT:      %[[Q:.+]] = arith.andi %[[LANE_Q]], %c3_i32 : i32
// CHECK-NEXT:      %[[Q0:.+]] = arith.andi %[[Q]], %c1_i32 : i32
// CHECK-NEXT:      %[[BIT0:.+]] = arith.cmpi ne, %[[Q0]], %c0_i32 : i32
// CHECK-NEXT:      %[[Q1:.+]] = arith.andi %[[Q]], %c2_i32 : i32
// CHECK-NEXT:      %[[BIT1:.+]] = arith.cmpi ne, %[[Q1]], %c0_i32 : i32
// CHECK-NEXT:      %[[SIX:.+]] = arith.muli %[[Q]], %c6_i32 : i32
// CHECK-COUNT-4:   llvm.bitcast %{{.+}} : vector<2xbf16> to i32
// CHECK-NEXT:      %[[SEND:.+]] = arith.select %[[BIT0]], %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:      %[[GOT:.+]], %{{.+}} = gpu.shuffle  xor %[[SEND]], %c1_i32, %c32_i32 : i32
// CHECK-COUNT-3:   gpu.shuffle  xor
// CHECK:           llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK-COUNT-8:   llvm.store %{{.+}}, %{{.+}} : bf16, !llvm.ptr<1>
// CHECK-COUNT-4:   gpu.shuffle  xor
// CHECK:           llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK-COUNT-4:   gpu.shuffle  xor
// CHECK:           llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK-COUNT-4:   gpu.shuffle  xor
// CHECK:           llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK-NOT:       gpu.shuffle
// CHECK:           } else {
// CHECK-COUNT-16:  llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NOT:       gpu.shuffle
// CHECK:           %[[LANE_INDEX:.+]] = arith.remui %thread_id_x, %c32 : index
// CHECK-NEXT:      %[[LANE:.+]] = arith.index_cast %[[LANE_INDEX]] : index to i32
// CHECK-NEXT:      %[[QUAD:.+]] = arith.andi %[[LANE]], %c3_i32 : i32
// CHECK-NEXT:      %[[FIRST:.+]] = arith.cmpi eq, %[[QUAD]], %c0_i32 : i32
// CHECK-NEXT:      %[[LAST:.+]] = arith.cmpi eq, %[[QUAD]], %c3_i32 : i32
// CHECK-NEXT:      %[[PLUS:.+]] = arith.addi %[[LANE]], %c1_i32 : i32
// CHECK-NEXT:      %[[WRAP:.+]] = arith.andi %[[PLUS]], %c3_i32 : i32
// CHECK-NEXT:      %[[BASE:.+]] = arith.andi %[[LANE]], %c-4_i32 : i32
// CHECK-NEXT:      %[[SOURCE:.+]] = arith.ori %[[BASE]], %[[WRAP]] : i32
// CHECK:           memref.load %alloca[%c4] : memref<32xf32>
// CHECK:           arith.select %[[FIRST]], %{{.+}}, %{{.+}} : bf16
// CHECK:           gpu.shuffle  idx %{{.+}}, %[[SOURCE]], %c32_i32 : i32
// CHECK:           scf.if %{{.+}} {
// CHECK:             scf.if %[[FIRST]] {
// CHECK:                 scf.if %{{.+}} {
// CHECK-NEXT:            llvm.store %{{.+}}, %{{.+}} : bf16, !llvm.ptr<1>
// CHECK:             llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK:           } else {
// CHECK:             llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-COUNT-15:  gpu.shuffle  idx
// CHECK-NOT:       gpu.shuffle
// The last pair of each row (no pair 8 columns on): the quad's last lane stores its second
// element alone.
// CHECK:           scf.if %[[LAST]] {
// CHECK:               scf.if %{{.+}} {
// CHECK-NEXT:          llvm.store %{{.+}}, %{{.+}} : bf16, !llvm.ptr<1>

module {
  tile.kernel @mm threads [128, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<bf16, 2>):
    %0 = tile.dim %arg1[1] : !tile.tensor<bf16, 2>
    %c64 = arith.constant 64 : index
    %1 = arith.ceildivsi %0, %c64 : index
    %2 = tile.dim %arg0[0] : !tile.tensor<bf16, 2>
    %c64_0 = arith.constant 64 : index
    %3 = arith.ceildivsi %2, %c64_0 : index
    %c1 = arith.constant 1 : index
    tile.yield %1, %3, %c1 : index, index, index
  } body {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<bf16, 2>):
    %0 = tile.alloc : !tile.buffer<shared 64x32xbf16>
    %1 = tile.alloc : !tile.buffer<shared 32x64xbf16>
    %2 = tile.alloc : !tile.buffer<fragment 64x64xf32>
    %cst = arith.constant 0.000000e+00 : f32
    tile.fill %2, %cst : !tile.buffer<fragment 64x64xf32>, f32
    %3 = tile.dim %arg0[1] : !tile.tensor<bf16, 2>
    %c32 = arith.constant 32 : index
    %4 = arith.ceildivsi %3, %c32 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %arg3 = %c0 to %4 step %c1 {
      %9 = tile.block_id 1
      %c64_1 = arith.constant 64 : index
      %10 = arith.muli %9, %c64_1 : index
      %c32_2 = arith.constant 32 : index
      %11 = arith.muli %arg3, %c32_2 : index
      tile.copy %arg0[%10, %11] to %0 : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
      %c32_3 = arith.constant 32 : index
      %12 = arith.muli %arg3, %c32_3 : index
      %13 = tile.block_id 0
      %c64_4 = arith.constant 64 : index
      %14 = arith.muli %13, %c64_4 : index
      tile.copy %arg1[%12, %14] to %1 : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
      tile.gemm %0, %1, %2 : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
    }
    %5 = tile.block_id 1
    %c64 = arith.constant 64 : index
    %6 = arith.muli %5, %c64 : index
    %7 = tile.block_id 0
    %c64_0 = arith.constant 64 : index
    %8 = arith.muli %7, %c64_0 : index
    tile.copy %2 to %arg2[%6, %8] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<bf16, 2>
    tile.yield
  }
}
