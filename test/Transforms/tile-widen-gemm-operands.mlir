// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-widen-gemm-operands))' | FileCheck %s --check-prefix=SM80
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_90a},tile.kernel(tile-widen-gemm-operands))' | FileCheck %s --check-prefix=SM90A
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_75},tile.kernel(tile-widen-gemm-operands))' | FileCheck %s --check-prefix=SM75

// An f8 gemm with B K-major (transpose_b): sm_90a's wgmma m64nNk32 takes it as it is; sm_80 has
// no 8-bit tensor-core form, so it multiplies f16 copies of both tiles, converted right before
// it; sm_75 has no tensor cores to widen for.

// SM80-LABEL:  tile.kernel @k_major
// SM80:          %[[B16:.*]] = tile.alloc : !tile.buffer<shared 64x64xf16>
// SM80:          %[[A16:.*]] = tile.alloc : !tile.buffer<shared 64x64xf16>
// SM80:          %[[A8:.*]] = tile.alloc : !tile.buffer<shared 64x64xf8E4M3FN>
// SM80:          %[[B8:.*]] = tile.alloc : !tile.buffer<shared 64x64xf8E4M3FN>
// SM80:          scf.for
// SM80:            tile.copy %[[A8]] to %[[A16]] : !tile.buffer<shared 64x64xf8E4M3FN> to !tile.buffer<shared 64x64xf16>
// SM80-NEXT:       tile.copy %[[B8]] to %[[B16]] : !tile.buffer<shared 64x64xf8E4M3FN> to !tile.buffer<shared 64x64xf16>
// SM80-NEXT:       tile.gemm %[[A16]], %[[B16]], %{{.*}} {transpose_b} : !tile.buffer<shared 64x64xf16>, !tile.buffer<shared 64x64xf16>
// SM90A-LABEL: tile.kernel @k_major
// SM90A-NOT:     xf16>
// SM90A:         tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : !tile.buffer<shared 64x64xf8E4M3FN>, !tile.buffer<shared 64x64xf8E4M3FN>
// SM75-LABEL:  tile.kernel @k_major
// SM75-NOT:      xf16>
// SM75:          tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : !tile.buffer<shared 64x64xf8E4M3FN>, !tile.buffer<shared 64x64xf8E4M3FN>
tile.kernel @k_major threads [128, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["N", "K"], ["M", "N"]] params {} grid {
^bb0(%arg0: !tile.tensor<f8E4M3FN, 2>, %arg1: !tile.tensor<f8E4M3FN, 2>, %arg2: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%arg0: !tile.tensor<f8E4M3FN, 2>, %arg1: !tile.tensor<f8E4M3FN, 2>, %arg2: !tile.tensor<f32, 2>):
  %0 = tile.alloc : !tile.buffer<shared 64x64xf8E4M3FN>
  %1 = tile.alloc : !tile.buffer<shared 64x64xf8E4M3FN>
  %2 = tile.alloc : !tile.buffer<fragment 64x64xf32>
  %cst = arith.constant 0.000000e+00 : f32
  tile.fill %2, %cst : !tile.buffer<fragment 64x64xf32>, f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c4 step %c1 {
    %off = arith.muli %k, %c64 : index
    tile.copy %arg0[%c0, %off] to %0 : !tile.tensor<f8E4M3FN, 2> to !tile.buffer<shared 64x64xf8E4M3FN>
    tile.copy %arg1[%c0, %off] to %1 : !tile.tensor<f8E4M3FN, 2> to !tile.buffer<shared 64x64xf8E4M3FN>
    tile.gemm %0, %1, %2 {transpose_b} : !tile.buffer<shared 64x64xf8E4M3FN>, !tile.buffer<shared 64x64xf8E4M3FN>, !tile.buffer<fragment 64x64xf32>
  }
  tile.copy %2 to %arg2[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// B in [K, N] order (no transpose_b), e5m2: wgmma reads 8-bit floats K-major only, so sm_90a
// widens it too (the f16 gemm may then take wgmma with an MN-major B); a bf16 gemm is left alone.

// SM90A-LABEL: tile.kernel @mn_major
// SM90A:         tile.copy %{{.*}} to %{{.*}} : !tile.buffer<shared 64x64xf8E5M2> to !tile.buffer<shared 64x64xf16>
// SM90A-NEXT:    tile.copy %{{.*}} to %{{.*}} : !tile.buffer<shared 64x64xf8E5M2> to !tile.buffer<shared 64x64xf16>
// SM90A-NEXT:    tile.gemm %{{.*}}, %{{.*}}, %{{.*}} : !tile.buffer<shared 64x64xf16>, !tile.buffer<shared 64x64xf16>
// SM90A-NEXT:    tile.gemm %{{.*}}, %{{.*}}, %{{.*}} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>
tile.kernel @mn_major threads [128, 1, 1] args ["C"] dims [["M", "N"]] params {} grid {
^bb0(%arg0: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%arg0: !tile.tensor<f32, 2>):
  %0 = tile.alloc : !tile.buffer<shared 64x64xf8E5M2>
  %1 = tile.alloc : !tile.buffer<shared 64x64xf8E5M2>
  %2 = tile.alloc : !tile.buffer<fragment 64x64xf32>
  %3 = tile.alloc : !tile.buffer<shared 64x64xbf16>
  tile.gemm %0, %1, %2 : !tile.buffer<shared 64x64xf8E5M2>, !tile.buffer<shared 64x64xf8E5M2>, !tile.buffer<fragment 64x64xf32>
  tile.gemm %3, %3, %2 : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  tile.copy %2 to %arg0[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}

