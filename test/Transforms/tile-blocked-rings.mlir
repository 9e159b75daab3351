// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts,tile-assign-blocked-layouts,tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout,tile-pipeline-register-rings,tile-place-async-waits))' | FileCheck %s
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target{arch=sm_75},tile.kernel(tile-assign-mma-layouts,tile-assign-blocked-layouts,tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout,tile-pipeline-register-rings,tile-place-async-waits))' | FileCheck %s --check-prefix=SM75
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts,tile-assign-blocked-layouts,tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout,tile-pipeline-register-rings,tile-place-async-waits),convert-tile-to-nvvm)' | FileCheck %s --check-prefix=NVVM

// Rings in a kernel of blocked register layouts (no gemms), from `tlc --emit=tile` of:
//   if N <= 512 {
//     for i in pipelined(8, stages = 3) {
//       copy(X[block.x * 8 + i, 0], xs);    // xs = shared<bf16>[1, 512]
//       copy(xs, x);                        // x = fragment<f32>[1, 512], in registers
//       parallel (r, c) in x { x[r, c] = x[r, c] * 2.0; }
//       copy(x, Y[block.x * 8 + i, 0]);
//     }
//   } else {
//     copy(X[block.x * 2, 0], ys);          // ys = shared<bf16>[2, 256], written by a parallel
//     parallel (r, c) in ys { ys[r, c] = ys[r, c] + 1.0; }
//     copy(ys, y);
//     copy(y, Y[block.x * 2, 0]);
//   }
// tile-assign-blocked-layouts marks the copy into xs cp.async (only a copy into registers reads
// xs), not the copy into ys (a `parallel` writes it). tile-software-pipeline makes the loop a
// ring: its other copies fill registers or store them. tile-shared-memory-layout gives xs three
// stages and the copy swizzle (one row of 1024 bytes: 128 B), and places ys at the same offset:
// the two are used in different branches of one `if`. The ring's copies of iterations past the
// loop's end read nothing (their row moves to M: zero-filled).

// CHECK-LABEL: tile.kernel @rows
// CHECK-SAME:    tile.shared_bytes = 3072 : i64
// CHECK:         %[[XS:.*]] = tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 1x512xbf16>
// CHECK-NEXT:    %[[YS:.*]] = tile.alloc {tile.offset = 0 : i64} : !tile.buffer<shared 2x256xbf16>
// CHECK-NEXT:    %[[X:.*]] = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 128, threads = 128>}
// CHECK:         scf.if
// Prologue: iterations 0 and 1 into stages 0 and 1.
// CHECK:           %[[IN0:.*]] = arith.cmpi slt, %[[I0:.*]], %c8 : index
// CHECK:           %[[ROW0:.*]] = arith.addi %{{.*}}, %[[I0]] : index
// CHECK:           %[[M0:.*]] = tile.dim %arg0[0]
// CHECK-NEXT:      %[[G0:.*]] = arith.select %[[IN0]], %[[ROW0]], %[[M0]] : index
// CHECK-NEXT:      %[[S0:.*]] = tile.stage %[[XS]][%{{.*}}]
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.copy %arg0[%[[G0]], %{{.*}}] to %[[S0]] {tile.cp_async}
// CHECK:           tile.copy %arg0[%{{.*}}, %{{.*}}] to %{{.*}} {tile.cp_async}
// CHECK:           scf.for %[[IV:.*]] = %c0 to %c8 step %c1 {
// CHECK:             %[[CUR:.*]] = tile.stage %[[XS]][%{{.*}}]
// CHECK-NEXT:        tile.async_wait pending = 1
// CHECK-NEXT:        tile.barrier
// CHECK:             tile.copy %arg0[%{{.*}}, %{{.*}}] to %{{.*}} {tile.cp_async}
// CHECK-NEXT:        tile.copy %[[CUR]] to %[[X]] :
// CHECK:             tile.copy %[[X]] to %arg1
// CHECK-NEXT:      }
// CHECK-NEXT:      tile.async_wait pending = 0
// CHECK:         } else {
// CHECK-NOT:       tile.cp_async
// CHECK:           tile.copy %arg0[%{{.*}}, %{{.*}}] to %[[YS]] :
// CHECK:         }

// No cp.async before sm_80: the loop runs in order, xs unswizzled.
// SM75-LABEL: tile.kernel @rows
// SM75-NOT:     tile.cp_async
// SM75-NOT:     tile.stage
// SM75:         tile.yield

// The copy out of the ring's stage: one 8-byte shared load per vector of 4 bf16 (its swizzled
// chunk, then its bytes inside), converted into the slots; no barrier after it (the next
// refill waits at the ring's barrier).
// NVVM-LABEL: gpu.func @rows
// NVVM:         nvvm.cp.async.wait.group 1
// NVVM-NEXT:    gpu.barrier
// NVVM:         nvvm.cp.async.commit.group
// NVVM:         %[[V:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xbf16>
// NVVM-NOT:     gpu.barrier
// NVVM-COUNT-4: llvm.extractelement %[[V]]
// NVVM-NOT:     gpu.barrier
// NVVM:         llvm.store %{{.*}} : vector<4xbf16>, !llvm.ptr<1>
// NVVM:         nvvm.cp.async.wait.group 0

module {
  tile.kernel @rows threads [128, 1, 1] args ["X", "Y"] dims [["M", "N"], ["M", "N"]] params {} grid {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>):
    %0 = tile.dim %arg0[0] : !tile.tensor<bf16, 2>
    %c8 = arith.constant 8 : index
    %1 = arith.ceildivsi %0, %c8 : index
    %c1 = arith.constant 1 : index
    %c1_0 = arith.constant 1 : index
    tile.yield %1, %c1, %c1_0 : index, index, index
  } body {
  ^bb0(%arg0: !tile.tensor<bf16, 2>, %arg1: !tile.tensor<bf16, 2>):
    %0 = tile.alloc : !tile.buffer<shared 1x512xbf16>
    %1 = tile.alloc : !tile.buffer<shared 2x256xbf16>
    %2 = tile.alloc : !tile.buffer<fragment 1x512xf32>
    %3 = tile.alloc : !tile.buffer<fragment 2x256xf32>
    %4 = tile.dim %arg0[1] : !tile.tensor<bf16, 2>
    %c512 = arith.constant 512 : index
    %5 = arith.cmpi sle, %4, %c512 : index
    scf.if %5 {
      %c8 = arith.constant 8 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %arg2 = %c0 to %c8 step %c1 {
        %6 = tile.block_id 0
        %c8_0 = arith.constant 8 : index
        %7 = arith.muli %6, %c8_0 : index
        %8 = arith.addi %7, %arg2 : index
        %c0_1 = arith.constant 0 : index
        tile.copy %arg0[%8, %c0_1] to %0 : !tile.tensor<bf16, 2> to !tile.buffer<shared 1x512xbf16>
        tile.copy %0 to %2 : !tile.buffer<shared 1x512xbf16> to !tile.buffer<fragment 1x512xf32>
        tile.parallel [1, 512] {
        ^bb0(%arg3: index, %arg4: index):
          %12 = tile.read %2[%arg3, %arg4] : !tile.buffer<fragment 1x512xf32>
          %cst = arith.constant 2.000000e+00 : f32
          %13 = arith.mulf %12, %cst : f32
          tile.write %13, %2[%arg3, %arg4] : !tile.buffer<fragment 1x512xf32>
        }
        %9 = tile.block_id 0
        %c8_2 = arith.constant 8 : index
        %10 = arith.muli %9, %c8_2 : index
        %11 = arith.addi %10, %arg2 : index
        %c0_3 = arith.constant 0 : index
        tile.copy %2 to %arg1[%11, %c0_3] : !tile.buffer<fragment 1x512xf32> to !tile.tensor<bf16, 2>
      } {tile.stages = 3 : i64}
    } else {
      %6 = tile.block_id 0
      %c2 = arith.constant 2 : index
      %7 = arith.muli %6, %c2 : index
      %c0 = arith.constant 0 : index
      tile.copy %arg0[%7, %c0] to %1 : !tile.tensor<bf16, 2> to !tile.buffer<shared 2x256xbf16>
      tile.parallel [2, 256] {
      ^bb0(%arg2: index, %arg3: index):
        %10 = tile.read %1[%arg2, %arg3] : !tile.buffer<shared 2x256xbf16>
        %cst = arith.constant 1.000000e+00 : bf16
        %11 = arith.addf %10, %cst : bf16
        tile.write %11, %1[%arg2, %arg3] : !tile.buffer<shared 2x256xbf16>
      }
      tile.copy %1 to %3 : !tile.buffer<shared 2x256xbf16> to !tile.buffer<fragment 2x256xf32>
      %8 = tile.block_id 0
      %c2_0 = arith.constant 2 : index
      %9 = arith.muli %8, %c2_0 : index
      %c0_1 = arith.constant 0 : index
      tile.copy %3 to %arg1[%9, %c0_1] : !tile.buffer<fragment 2x256xf32> to !tile.tensor<bf16, 2>
    }
    tile.yield
  }
}
