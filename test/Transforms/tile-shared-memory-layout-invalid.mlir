// RUN: not tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts,tile-software-pipeline,tile-shared-memory-layout))' 2>&1 | FileCheck %s

// Stages are lowered to fit (down to 2), but even two stages of 256x128 + 128x256 bf16 (128 KiB
// each) do not fit in 227 KiB: a located error, a note per buffer and a hint.
// CHECK: tile-shared-memory-layout-invalid.mlir:[[@LINE+5]]:1: error: kernel 'too_deep' needs 262176 bytes of shared memory; 232448 bytes is the limit for 'sm_90a'
// CHECK: note: this buffer takes 131072 bytes (one copy per pipeline stage)
// CHECK: note: this buffer takes 131072 bytes (one copy per pipeline stage)
// CHECK: note: hint: fewer pipeline stages or smaller tiles

tile.kernel @too_deep threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
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
  %as = tile.alloc : !tile.buffer<shared 256x128xbf16>
  %bs = tile.alloc : !tile.buffer<shared 128x256xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 256x256xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 256x256xf32>, f32
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %c64 = arith.constant 128 : index
  %c128 = arith.constant 256 : index
  %nk = arith.ceildivsi %k, %c64 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c64 : index
    tile.copy %a[%row, %col] to %as : !tile.tensor<bf16, 2> to !tile.buffer<shared 256x128xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x256xbf16>
    tile.gemm %as, %bs, %acc : !tile.buffer<shared 256x128xbf16>, !tile.buffer<shared 128x256xbf16>, !tile.buffer<fragment 256x256xf32>
  } {tile.stages = 3 : i64}
  
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 256x256xf32> to !tile.tensor<bf16, 2>
  tile.yield
}
