// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts,tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout))' | FileCheck %s
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target{arch=sm_90a},tile.kernel(tile-assign-mma-layouts,tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout))' | FileCheck %s

// Per-op copies in the register strategy: besides the copies that fill the gemm's shared
// operands, a copy of a tensor tile into shared memory that a `parallel` reads (packed u8
// weights a kernel dequantizes, as kernels/w4a16_gemm.tile) takes cp.async when its rows fill a
// swizzle (16 x 64 u8: 64-byte rows, 64-byte swizzle); a tile whose rows fill none (8 x 8 u8:
// 8-byte rows) keeps element copies. Made from this source with `tlc --emit=tile`:
//   let As = shared<f16>[32, 32]; let Bq_s = shared<u8>[16, 64]; let Z_s = shared<u8>[8, 8];
//   let Bs = shared<f16>[32, 64]; let acc = fragment<f32>[32, 64];
//   fill(acc, 0.0); copy(A[...], As); copy(Bq[...], Bq_s); copy(Z[...], Z_s);
//   parallel (kk, n) in Bs { Bs[kk, n] = f16(f32(Bq_s[kk / 2, n] % 16) - f32(Z_s[kk % 8, n % 8])); }
//   gemm(As, Bs, acc); copy(acc, C[...]);
// CHECK-LABEL: tile.kernel @dequant
// CHECK-DAG:     tile.alloc {{{.*}}tile.swizzle = 64 : i64} : !tile.buffer<shared 16x64xui8>
// CHECK-DAG:     tile.alloc {tile.offset = {{[0-9]+}} : i64} : !tile.buffer<shared 8x8xui8>
// CHECK:         tile.copy {{.+}} {tile.cp_async} : !tile.tensor<f16, 2> to !tile.buffer<shared 32x32xf16>
// CHECK:         tile.copy {{.+}} {tile.cp_async} : !tile.tensor<ui8, 2> to !tile.buffer<shared 16x64xui8>
// CHECK:         tile.copy {{[^{]+}} : !tile.tensor<ui8, 2> to !tile.buffer<shared 8x8xui8>
// CHECK:         tile.gemm {{.+}} {tile.mma = #tile.mma<mma_sync>}

module {
  tile.kernel @dequant threads [64, 1, 1] args ["A", "Bq", "Z", "C"] dims [["M", "K"], ["KH", "N"], ["KH", "N"], ["M", "N"]] params {} grid {
  ^bb0(%arg0: !tile.tensor<f16, 2>, %arg1: !tile.tensor<ui8, 2>, %arg2: !tile.tensor<ui8, 2>, %arg3: !tile.tensor<f32, 2>):
    %0 = tile.dim %arg1[1] : !tile.tensor<ui8, 2>
    %c64 = arith.constant 64 : index
    %1 = arith.ceildivsi %0, %c64 : index
    %2 = tile.dim %arg0[0] : !tile.tensor<f16, 2>
    %c32 = arith.constant 32 : index
    %3 = arith.ceildivsi %2, %c32 : index
    %c1 = arith.constant 1 : index
    tile.yield %1, %3, %c1 : index, index, index
  } body {
  ^bb0(%arg0: !tile.tensor<f16, 2>, %arg1: !tile.tensor<ui8, 2>, %arg2: !tile.tensor<ui8, 2>, %arg3: !tile.tensor<f32, 2>):
    %0 = tile.alloc : !tile.buffer<shared 32x32xf16>
    %1 = tile.alloc : !tile.buffer<shared 16x64xui8>
    %2 = tile.alloc : !tile.buffer<shared 8x8xui8>
    %3 = tile.alloc : !tile.buffer<shared 32x64xf16>
    %4 = tile.alloc : !tile.buffer<fragment 32x64xf32>
    %cst = arith.constant 0.000000e+00 : f32
    tile.fill %4, %cst : !tile.buffer<fragment 32x64xf32>, f32
    %5 = tile.block_id 1
    %c32 = arith.constant 32 : index
    %6 = arith.muli %5, %c32 : index
    %c0 = arith.constant 0 : index
    tile.copy %arg0[%6, %c0] to %0 : !tile.tensor<f16, 2> to !tile.buffer<shared 32x32xf16>
    %c0_0 = arith.constant 0 : index
    %7 = tile.block_id 0
    %c64 = arith.constant 64 : index
    %8 = arith.muli %7, %c64 : index
    tile.copy %arg1[%c0_0, %8] to %1 : !tile.tensor<ui8, 2> to !tile.buffer<shared 16x64xui8>
    %c0_1 = arith.constant 0 : index
    %9 = tile.block_id 0
    %c64_2 = arith.constant 64 : index
    %10 = arith.muli %9, %c64_2 : index
    tile.copy %arg2[%c0_1, %10] to %2 : !tile.tensor<ui8, 2> to !tile.buffer<shared 8x8xui8>
    tile.parallel [32, 64] {
    ^bb0(%arg4: index, %arg5: index):
      %c2 = arith.constant 2 : index
      %15 = arith.divsi %arg4, %c2 : index
      %16 = tile.read %1[%15, %arg5] : !tile.buffer<shared 16x64xui8>
      %17 = arith.extui %16 : i8 to i32
      %c16_i32 = arith.constant 16 : i32
      %18 = arith.remsi %17, %c16_i32 : i32
      %19 = arith.sitofp %18 : i32 to f32
      %c8 = arith.constant 8 : index
      %20 = arith.remsi %arg4, %c8 : index
      %c8_5 = arith.constant 8 : index
      %21 = arith.remsi %arg5, %c8_5 : index
      %22 = tile.read %2[%20, %21] : !tile.buffer<shared 8x8xui8>
      %23 = arith.extui %22 : i8 to i32
      %24 = arith.sitofp %23 : i32 to f32
      %25 = arith.subf %19, %24 : f32
      %26 = arith.truncf %25 : f32 to f16
      tile.write %26, %3[%arg4, %arg5] : !tile.buffer<shared 32x64xf16>
    }
    tile.gemm %0, %3, %4 : !tile.buffer<shared 32x32xf16>, !tile.buffer<shared 32x64xf16>, !tile.buffer<fragment 32x64xf32>
    %11 = tile.block_id 1
    %c32_3 = arith.constant 32 : index
    %12 = arith.muli %11, %c32_3 : index
    %13 = tile.block_id 0
    %c64_4 = arith.constant 64 : index
    %14 = arith.muli %13, %c64_4 : index
    tile.copy %4 to %arg3[%12, %14] : !tile.buffer<fragment 32x64xf32> to !tile.tensor<f32, 2>
    tile.yield
  }
}
