// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline))' | FileCheck %s

// tile-software-pipeline on loops of the register strategy (decisions written by hand, as
// tile-assign-mma-layouts leaves them). Only tile-assign-mma-layouts' main loop (rank-2 tiles,
// one accumulator, A from shared memory without transpose_a) is the cp.async ring
// (cp_async_mma); other pipelined loops of cp.async copies and mma.sync gemms keep their body in
// place and issue their copies ahead (cp_async_regs), wherever they are (here under an `if`,
// with offsets read from a tensor before the loop).

// Two accumulators (a dual GEMM): not the ring, whose products go to one accumulator.
// CHECK-LABEL: tile.kernel @dual
// CHECK:         tile.alloc {tile.stages = 3 : i64} : !tile.buffer<shared 64x32xbf16>
// CHECK-NEXT:    tile.alloc {tile.stages = 3 : i64} : !tile.buffer<shared 32x64xbf16>
// CHECK-NEXT:    tile.alloc {tile.stages = 3 : i64} : !tile.buffer<shared 32x64xbf16>
// CHECK:         } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 3 : i64}
tile.kernel @dual threads [128, 1, 1] args ["A", "B", "B2", "C"] dims [["M", "K"], ["K", "N"], ["K", "N"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %b2: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %b2: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 64x32xbf16>
  %bs = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %bs2 = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %acc2 = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %n = arith.ceildivsi %k, %c32 : index
  scf.for %i = %c0 to %n step %c1 {
    %col = arith.muli %i, %c32 : index
    tile.copy %a[%c0, %col] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.copy %b[%col, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
    tile.copy %b2[%col, %c0] to %bs2 {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
    tile.gemm %as, %bs2, %acc2 {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.stages = 3 : i64}
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// A read transposed (transpose_a): not the ring either, which reads A K-major.
// CHECK-LABEL: tile.kernel @transposed_a
// CHECK:         } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
tile.kernel @transposed_a threads [128, 1, 1] args ["A", "B", "C"] dims [["K", "M"], ["K", "N"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %bs = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %k = tile.dim %a[0] : !tile.tensor<bf16, 2>
  %n = arith.ceildivsi %k, %c32 : index
  scf.for %i = %c0 to %n step %c1 {
    %row = arith.muli %i, %c32 : index
    tile.copy %a[%row, %c0] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
    tile.copy %b[%row, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<mma_sync>, transpose_a} : !tile.buffer<shared 32x64xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.stages = 2 : i64}
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// Under a uniform `if`, from a row offset read from a tensor before the loop (a grouped GEMM).
// CHECK-LABEL: tile.kernel @grouped
// CHECK:         scf.if
// CHECK:           } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
tile.kernel @grouped threads [128, 1, 1] args ["A", "B", "Off", "C"] dims [["M", "K"], ["K", "N"], ["G"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %off: !tile.tensor<i32, 1>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %off: !tile.tensor<i32, 1>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 64x32xbf16>
  %bs = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %g = tile.block_id 2
  %start32 = tile.load %off[%g] : !tile.tensor<i32, 1>
  %start = arith.index_cast %start32 : i32 to index
  %m = tile.dim %a[0] : !tile.tensor<bf16, 2>
  %inside = arith.cmpi slt, %start, %m : index
  scf.if %inside {
    %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
    %n = arith.ceildivsi %k, %c32 : index
    scf.for %i = %c0 to %n step %c1 {
      %col = arith.muli %i, %c32 : index
      tile.copy %a[%start, %col] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
      tile.copy %b[%col, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
      tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
    } {tile.stages = 2 : i64}
    tile.copy %acc to %c[%start, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  }
  tile.yield
}

// -----

// A staged buffer read by a `parallel` after the loop: its stages would be gone. In order.
// CHECK-LABEL: tile.kernel @read_after
// CHECK-NOT:     tile.pipeline
// CHECK:         } {tile.stages = 2 : i64}
tile.kernel @read_after threads [128, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 64x32xbf16>
  %bs = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %n = arith.ceildivsi %k, %c32 : index
  scf.for %i = %c0 to %n step %c1 {
    %col = arith.muli %i, %c32 : index
    tile.copy %a[%c0, %col] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.copy %b[%col, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.stages = 2 : i64}
  tile.parallel [64, 32] {
  ^bb0(%r: index, %q: index):
    %v = tile.read %as[%r, %q] : !tile.buffer<shared 64x32xbf16>
    %w = arith.extf %v : bf16 to f32
    tile.store %w, %c[%r, %q] : !tile.tensor<f32, 2>
  }
  tile.yield
}

// -----

// A loop that has the main ring's shape (rank-2 tiles, one accumulator, A K-major), but whose
// gemm runs wgmma on the register strategy's accumulator (mma.sync's layout, 16 rows per warp):
// per op, so a register ring, not a main-loop ring (those read a #tile.wgmma_acc accumulator).
// CHECK-LABEL: tile.kernel @register_wgmma
// CHECK:         tile.alloc {tile.stages = 2 : i64} : !tile.buffer<shared 64x32xbf16>
// CHECK-NEXT:    tile.alloc {tile.stages = 2 : i64} : !tile.buffer<shared 32x64xbf16>
// CHECK:         } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
// CHECK-NOT:     tile.producer_threads
tile.kernel @register_wgmma threads [128, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 64x32xbf16>
  %bs = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %n = arith.ceildivsi %k, %c32 : index
  scf.for %i = %c0 to %n step %c1 {
    %col = arith.muli %i, %c32 : index
    tile.copy %a[%c0, %col] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.copy %b[%col, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.stages = 2 : i64}
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// A row offset in a variable (`var`: a scalar memref) that the loop reads but does not write
// (attention_varlen's k0, summed before the loop): the copies' offsets are the same at any
// iteration, the loop is a ring.
// CHECK-LABEL: tile.kernel @variable_offset
// CHECK:         } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
tile.kernel @variable_offset threads [128, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 64x32xbf16>
  %bs = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %row = memref.alloca() : memref<index>
  %y = tile.block_id 1
  memref.store %y, %row[] : memref<index>
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %n = arith.ceildivsi %k, %c32 : index
  scf.for %i = %c0 to %n step %c1 {
    %r = memref.load %row[] : memref<index>
    %col = arith.muli %i, %c32 : index
    tile.copy %a[%r, %col] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.copy %b[%col, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.stages = 2 : i64}
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// The same variable written in the loop: a later iteration's offset is not known yet, the loop
// runs in order.
// CHECK-LABEL: tile.kernel @variable_written
// CHECK-NOT:     tile.pipeline
tile.kernel @variable_written threads [128, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 64x32xbf16>
  %bs = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %row = memref.alloca() : memref<index>
  %y = tile.block_id 1
  memref.store %y, %row[] : memref<index>
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %n = arith.ceildivsi %k, %c32 : index
  scf.for %i = %c0 to %n step %c1 {
    %r = memref.load %row[] : memref<index>
    %col = arith.muli %i, %c32 : index
    tile.copy %a[%r, %col] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
    tile.copy %b[%col, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
    %next = arith.addi %r, %c1 : index
    memref.store %next, %row[] : memref<index>
  } {tile.stages = 2 : i64}
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}
