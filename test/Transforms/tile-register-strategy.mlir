// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts,tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout))' | FileCheck %s
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_90a},tile.kernel(tile-assign-mma-layouts,tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout))' | FileCheck %s

// The register strategy (kernels/attention.tile at BM = 32, BN = 16, D = 32 on two warps): no
// pipelined loop of copies and products alone, so every fragment goes to registers in mma.sync's
// layout with the warps stacked along M (also on sm_90a: mma.sync), the row statistics in the
// matching row layout, the gemms on mma.sync, the tile copies on cp.async into swizzled tiles.
// The pipelined loop copies K and V one block ahead: two stages each ("cp_async_regs").
// CHECK-LABEL: tile.kernel @attention_fwd
// CHECK-SAME:    tile.shared_bytes = 6144
// CHECK:         tile.alloc {tile.offset = 0 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 32x32xbf16>
// CHECK:         tile.alloc {tile.offset = 2048 : i64, tile.stages = 2 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 16x32xbf16>
// CHECK:         tile.alloc {tile.offset = 4096 : i64, tile.stages = 2 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 16x32xbf16>
// CHECK:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [2, 1]>} : !tile.buffer<fragment 32x16xf32>
// CHECK:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [2, 1]>} : !tile.buffer<fragment 32x16xbf16>
// CHECK:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [2, 1]>} : !tile.buffer<fragment 32x32xf32>
// CHECK-COUNT-3: tile.alloc {tile.layout = #tile.mma_sync_rows<warps = 2>} : !tile.buffer<fragment 32xf32>
// CHECK:         tile.copy {{.+}} {tile.cp_async}
// CHECK:         scf.for
// CHECK:           tile.copy {{.+}} {tile.cp_async}
// CHECK:           tile.copy {{.+}} {tile.cp_async}
// CHECK:           tile.gemm {{.+}} {clear, tile.mma = #tile.mma<mma_sync>, transpose_b}
// Element-wise bodies run on the thread's slots: 8 of S (32x16 on 2 warps), ...
// CHECK:           scf.for %{{.+}} = %{{.+}} to %c8 step
// CHECK:             tile.read_slot
// CHECK:           } {tile.unroll}
// CHECK:           tile.reduce {{.+}} {dim = 1 : i64, kind = "max"}
// ... 16 of O, reading the row statistics at the row slot of each accumulator slot: slot / 16 * 2
// + slot % 4 / 2 (one m16 tile, four n8 tiles per warp) ...
// CHECK:           scf.for %[[SLOT:.+]] = %{{.+}} to %c16{{.*}} step
// CHECK:             %[[T:.+]] = arith.divui %[[SLOT]], %c16{{(_[0-9]+)?}} :
// CHECK:             %[[TM:.+]] = arith.muli %[[T]], %c2{{(_[0-9]+)?}} :
// CHECK:             %[[E:.+]] = arith.remui %[[SLOT]], %c4{{(_[0-9]+)?}} :
// CHECK:             %[[H:.+]] = arith.divui %[[E]], %c2{{(_[0-9]+)?}} :
// CHECK:             %[[ROW:.+]] = arith.addi %[[TM]], %[[H]]
// CHECK:             tile.read_slot %{{.+}}[%[[ROW]]] : !tile.buffer<fragment 32xf32>
// ... and 2 of each row statistic (one m16 tile: rows l / 4 and l / 4 + 8).
// CHECK:           scf.for %{{.+}} = %{{.+}} to %c2 step
// CHECK:           tile.reduce {{.+}} {accumulate, dim = 1 : i64, kind = "sum"}
// CHECK:           tile.gemm {{.+}} {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<fragment 32x16xbf16>, !tile.buffer<shared 16x32xbf16>, !tile.buffer<fragment 32x32xf32>
// CHECK:         } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
// CHECK:         tile.copy {{.+}} : !tile.buffer<fragment 32x32xf32> to !tile.tensor<bf16, 4>

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

// -----

// A fragment read at another point than the parallel's (a transpose): no register layout fits,
// the kernel keeps the generic strategy.
// CHECK-LABEL: tile.kernel @transposed
// CHECK-NOT:     tile.layout
// CHECK-NOT:     tile.cp_async
// CHECK-NOT:     tile.mma
// CHECK:         tile.yield
  tile.kernel @transposed threads [64, 1, 1] args ["Q", "K", "O"] dims [["S", "32"], ["S", "32"], ["S", "S"]] params {BM = 32 : i64} grid {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 2>):
    %0 = tile.dim %arg0[0] : !tile.tensor<bf16, 2>
    %c32 = arith.constant 32 : index
    %1 = arith.ceildivsi %0, %c32 : index
    %c1 = arith.constant 1 : index
    %c1_0 = arith.constant 1 : index
    tile.yield %1, %c1, %c1_0 : index, index, index
  } body {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 2>):
    %0 = tile.alloc : !tile.buffer<shared 32x32xbf16>
    %1 = tile.alloc : !tile.buffer<shared 32x32xbf16>
    %2 = tile.alloc : !tile.buffer<fragment 32x32xf32>
    %3 = tile.alloc : !tile.buffer<fragment 32x32xf32>
    %4 = tile.block_id 0
    %c32 = arith.constant 32 : index
    %5 = arith.muli %4, %c32 : index
    %c0 = arith.constant 0 : index
    tile.copy %arg0[%5, %c0] to %0 : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
    %6 = tile.block_id 0
    %c32_0 = arith.constant 32 : index
    %7 = arith.muli %6, %c32_0 : index
    %c0_1 = arith.constant 0 : index
    tile.copy %arg1[%7, %c0_1] to %1 : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
    tile.gemm %0, %1, %2 {clear, transpose_b} : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
    tile.parallel [32, 32] {
    ^bb0(%arg3: index, %arg4: index):
      %10 = tile.read %2[%arg4, %arg3] : !tile.buffer<fragment 32x32xf32>
      tile.write %10, %3[%arg3, %arg4] : !tile.buffer<fragment 32x32xf32>
    }
    %8 = tile.block_id 0
    %c32_2 = arith.constant 32 : index
    %9 = arith.muli %8, %c32_2 : index
    %c0_3 = arith.constant 0 : index
    tile.copy %3 to %arg2[%9, %c0_3] : !tile.buffer<fragment 32x32xf32> to !tile.tensor<f32, 2>
    tile.yield
  }

// -----

// 16 rows cannot be stacked over two warps of m16 tiles: generic.
// CHECK-LABEL: tile.kernel @short_rows
// CHECK-NOT:     tile.layout
// CHECK:         tile.yield
  tile.kernel @short_rows threads [64, 1, 1] args ["Q", "K", "O"] dims [["S", "32"], ["S", "32"], ["S", "S"]] params {} grid {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 2>):
    %0 = tile.dim %arg0[0] : !tile.tensor<bf16, 2>
    %c16 = arith.constant 16 : index
    %1 = arith.ceildivsi %0, %c16 : index
    %c1 = arith.constant 1 : index
    %c1_0 = arith.constant 1 : index
    tile.yield %1, %c1, %c1_0 : index, index, index
  } body {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 2>):
    %0 = tile.alloc : !tile.buffer<shared 16x32xbf16>
    %1 = tile.alloc : !tile.buffer<shared 16x32xbf16>
    %2 = tile.alloc : !tile.buffer<fragment 16x16xf32>
    %3 = tile.block_id 0
    %c16 = arith.constant 16 : index
    %4 = arith.muli %3, %c16 : index
    %c0 = arith.constant 0 : index
    tile.copy %arg0[%4, %c0] to %0 : !tile.tensor<bf16, 2> to !tile.buffer<shared 16x32xbf16>
    %5 = tile.block_id 0
    %c16_0 = arith.constant 16 : index
    %6 = arith.muli %5, %c16_0 : index
    %c0_1 = arith.constant 0 : index
    tile.copy %arg1[%6, %c0_1] to %1 : !tile.tensor<bf16, 2> to !tile.buffer<shared 16x32xbf16>
    tile.gemm %0, %1, %2 {clear, transpose_b} : !tile.buffer<shared 16x32xbf16>, !tile.buffer<shared 16x32xbf16>, !tile.buffer<fragment 16x16xf32>
    %7 = tile.block_id 0
    %c16_2 = arith.constant 16 : index
    %8 = arith.muli %7, %c16_2 : index
    %c0_3 = arith.constant 0 : index
    tile.copy %2 to %arg2[%8, %c0_3] : !tile.buffer<fragment 16x16xf32> to !tile.tensor<f32, 2>
    tile.yield
  }

// -----

// The K tile is read again after the loop: registers and mma.sync still, but its copies cannot
// run ahead into stages (no "cp_async_regs", no stages).
// CHECK-LABEL: tile.kernel @read_after
// CHECK:         tile.alloc {tile.offset = 2048 : i64, tile.swizzle = 64 : i64} : !tile.buffer<shared 32x32xbf16>
// CHECK:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [1, 2]>}
// CHECK:         scf.for
// CHECK-NOT:       tile.pipeline
// CHECK:         } {tile.stages = 2 : i64}
  tile.kernel @read_after threads [64, 1, 1] args ["Q", "K", "O"] dims [["S", "32"], ["S", "32"], ["S", "S"]] params {BM = 32 : i64} grid {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 2>):
    %0 = tile.dim %arg0[0] : !tile.tensor<bf16, 2>
    %c32 = arith.constant 32 : index
    %1 = arith.ceildivsi %0, %c32 : index
    %c1 = arith.constant 1 : index
    %c1_0 = arith.constant 1 : index
    tile.yield %1, %c1, %c1_0 : index, index, index
  } body {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 2>):
    %0 = tile.alloc : !tile.buffer<shared 32x32xbf16>
    %1 = tile.alloc : !tile.buffer<shared 32x32xbf16>
    %2 = tile.alloc : !tile.buffer<fragment 32x32xf32>
    %cst = arith.constant 0.000000e+00 : f32
    tile.fill %2, %cst : !tile.buffer<fragment 32x32xf32>, f32
    %3 = tile.block_id 0
    %c32 = arith.constant 32 : index
    %4 = arith.muli %3, %c32 : index
    %c0 = arith.constant 0 : index
    tile.copy %arg0[%4, %c0] to %0 : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
    %5 = tile.dim %arg0[0] : !tile.tensor<bf16, 2>
    %c32_0 = arith.constant 32 : index
    %6 = arith.ceildivsi %5, %c32_0 : index
    %c0_1 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %arg3 = %c0_1 to %6 step %c1 {
      %c32_4 = arith.constant 32 : index
      %9 = arith.muli %arg3, %c32_4 : index
      %c0_5 = arith.constant 0 : index
      tile.copy %arg1[%9, %c0_5] to %1 : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
      tile.gemm %0, %1, %2 {transpose_b} : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
      tile.parallel [32, 32] {
      ^bb0(%arg4: index, %arg5: index):
        %10 = tile.read %2[%arg4, %arg5] : !tile.buffer<fragment 32x32xf32>
        %cst_6 = arith.constant 5.000000e-01 : f32
        %11 = arith.mulf %10, %cst_6 : f32
        tile.write %11, %2[%arg4, %arg5] : !tile.buffer<fragment 32x32xf32>
      }
    } {tile.stages = 2 : i64}
    tile.gemm %0, %1, %2 {transpose_b} : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
    %7 = tile.block_id 0
    %c32_2 = arith.constant 32 : index
    %8 = arith.muli %7, %c32_2 : index
    %c0_3 = arith.constant 0 : index
    tile.copy %2 to %arg2[%8, %c0_3] : !tile.buffer<fragment 32x32xf32> to !tile.tensor<f32, 2>
    tile.yield
  }

// -----

// A row reduce into a shared buffer: row values outside registers do not fit the row layout,
// the kernel keeps the generic strategy.
// CHECK-LABEL: tile.kernel @reduce_shared
// CHECK-NOT:     tile.layout
// CHECK:         tile.yield
  tile.kernel @reduce_shared threads [64, 1, 1] args ["Q", "K", "O"] dims [["S", "32"], ["S", "32"], ["S"]] params {} grid {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 1>):
    %0 = tile.dim %arg0[0] : !tile.tensor<bf16, 2>
    %c32 = arith.constant 32 : index
    %1 = arith.ceildivsi %0, %c32 : index
    %c1 = arith.constant 1 : index
    %c1_0 = arith.constant 1 : index
    tile.yield %1, %c1, %c1_0 : index, index, index
  } body {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>, %arg2: !tile.tensor<f32, 1>):
    %0 = tile.alloc : !tile.buffer<shared 32x32xbf16>
    %1 = tile.alloc : !tile.buffer<shared 32x32xbf16>
    %2 = tile.alloc : !tile.buffer<fragment 32x32xf32>
    %3 = tile.alloc : !tile.buffer<shared 32xf32>
    %4 = tile.block_id 0
    %c32 = arith.constant 32 : index
    %5 = arith.muli %4, %c32 : index
    %c0 = arith.constant 0 : index
    tile.copy %arg0[%5, %c0] to %0 : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
    %6 = tile.block_id 0
    %c32_0 = arith.constant 32 : index
    %7 = arith.muli %6, %c32_0 : index
    %c0_1 = arith.constant 0 : index
    tile.copy %arg1[%7, %c0_1] to %1 : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
    tile.gemm %0, %1, %2 {clear, transpose_b} : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
    tile.reduce %2, %3 {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 32x32xf32> to !tile.buffer<shared 32xf32>
    %8 = tile.block_id 0
    %c32_2 = arith.constant 32 : index
    %9 = arith.muli %8, %c32_2 : index
    tile.copy %3 to %arg2[%9] : !tile.buffer<shared 32xf32> to !tile.tensor<f32, 1>
    tile.yield
  }
