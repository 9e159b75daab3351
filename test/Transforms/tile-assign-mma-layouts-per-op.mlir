// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts))' | FileCheck %s
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_90a},tile.kernel(tile-assign-mma-layouts))' | FileCheck %s

// The register strategy decides per op (RegisterLayouts.cpp): each gemm mma.sync can run gets
// it, fragments get layouts inferred from their uses, and a use the layout does not serve gets
// an explicit layout conversion: a copy of the fragment kept in shared memory (a fragment
// alloc without a layout), used by that op alone.

// A read at the transposed point: the parallel reads a copy of %s in shared memory; the gemm,
// the fill and the store keep the registers. %t is read at the point with %s, so it shares
// the class and the layout, and is converted too.
// CHECK-LABEL: tile.kernel @transposed_read
// CHECK:         %[[S:.+]] = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [1, 2]>} : !tile.buffer<fragment 32x32xf32>
// CHECK-NEXT:    %[[SM:.+]] = tile.alloc : !tile.buffer<fragment 32x32xf32>
// CHECK-NEXT:    %[[T:.+]] = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [1, 2]>} : !tile.buffer<fragment 32x32xf32>
// CHECK-NEXT:    %[[TM:.+]] = tile.alloc : !tile.buffer<fragment 32x32xf32>
// CHECK:         tile.gemm %{{.+}}, %{{.+}}, %[[S]] {clear, tile.mma = #tile.mma<mma_sync>, transpose_b}
// CHECK:         tile.copy %[[S]] to %[[SM]]
// CHECK-NEXT:    tile.copy %[[T]] to %[[TM]]
// CHECK-NEXT:    tile.parallel [32, 32] {
// CHECK:           tile.read %[[SM]][%{{.+}}, %{{.+}}]
// CHECK:           tile.read %[[SM]][%{{.+}}, %{{.+}}]
// CHECK:           tile.write %{{.+}}, %[[TM]]
// CHECK:         }
// CHECK-NEXT:    tile.copy %[[TM]] to %[[T]]
// CHECK:         tile.copy %[[T]] to %arg2
tile.kernel @transposed_read threads [64, 1, 1] args ["Q", "K", "O"] dims [["S", "32"], ["S", "32"], ["S", "S"]] params {} grid {
^bb0(%q: !tile.tensor<bf16, 2>, %k: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%q: !tile.tensor<bf16, 2>, %k: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>):
  %qs = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %ks = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %s = tile.alloc : !tile.buffer<fragment 32x32xf32>
  %t = tile.alloc : !tile.buffer<fragment 32x32xf32>
  %c0 = arith.constant 0 : index
  tile.copy %q[%c0, %c0] to %qs : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
  tile.copy %k[%c0, %c0] to %ks : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
  tile.gemm %qs, %ks, %s {clear, transpose_b} : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
  tile.parallel [32, 32] {
  ^bb0(%r: index, %c: index):
    %x = tile.read %s[%c, %r] : !tile.buffer<fragment 32x32xf32>
    %y = tile.read %s[%r, %c] : !tile.buffer<fragment 32x32xf32>
    %z = arith.addf %x, %y : f32
    tile.write %z, %t[%r, %c] : !tile.buffer<fragment 32x32xf32>
  }
  tile.copy %t to %o[%c0, %c0] : !tile.buffer<fragment 32x32xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// 64 rows on 8 warps without row values: the squarest warp grid (2 x 4), not a stack. A reduce
// along columns (dim = 0) and a copy from a tensor into the accumulator go through shared
// memory (the copy overwrites the whole fragment: nothing is copied in first); a conditional update at the point under an `if` inside the parallel stays in
// registers. The copies that fill the gemm's operands become cp.async.
// CHECK-LABEL: tile.kernel @grid_layout
// CHECK:         %[[ACC:.+]] = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [2, 4]>} : !tile.buffer<fragment 64x64xf32>
// CHECK-NEXT:    %[[M:.+]] = tile.alloc : !tile.buffer<fragment 64x64xf32>
// CHECK-NEXT:    %[[SUMS:.+]] = tile.alloc : !tile.buffer<fragment 64xf32>
// CHECK-NOT:     tile.copy %[[ACC]] to %[[M]]
// CHECK:         tile.copy %arg2[{{.+}}] to %[[M]]
// CHECK-NEXT:    tile.copy %[[M]] to %[[ACC]]
// CHECK:         tile.copy %arg0[{{.+}}] to %{{.+}} {tile.cp_async}
// CHECK:         tile.copy %arg1[{{.+}}] to %{{.+}} {tile.cp_async}
// CHECK:         tile.gemm {{.+}} {tile.mma = #tile.mma<mma_sync>}
// CHECK:         tile.parallel [64, 64] {
// CHECK:           scf.if
// CHECK:             tile.write %{{.+}}, %[[ACC]]
// CHECK:         tile.copy %[[ACC]] to %[[M]]
// CHECK-NEXT:    tile.reduce %[[M]], %[[SUMS]]
// CHECK-NOT:     tile.copy %[[M]] to %[[ACC]]
tile.kernel @grid_layout threads [256, 1, 1] args ["A", "B", "C0", "S"] dims [["M", "K"], ["K", "N"], ["M", "N"], ["N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c0t: !tile.tensor<f32, 2>, %st: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c0t: !tile.tensor<f32, 2>, %st: !tile.tensor<f32, 1>):
  %as = tile.alloc : !tile.buffer<shared 64x32xbf16>
  %bs = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 64x64xf32>
  %sums = tile.alloc : !tile.buffer<fragment 64xf32>
  %c0 = arith.constant 0 : index
  tile.copy %c0t[%c0, %c0] to %acc : !tile.tensor<f32, 2> to !tile.buffer<fragment 64x64xf32>
  tile.copy %a[%c0, %c0] to %as : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
  tile.copy %b[%c0, %c0] to %bs : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
  tile.gemm %as, %bs, %acc : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.parallel [64, 64] {
  ^bb0(%r: index, %c: index):
    %x = tile.read %acc[%r, %c] : !tile.buffer<fragment 64x64xf32>
    %lim = arith.constant 1.0 : f32
    %big = arith.cmpf ogt, %x, %lim : f32
    scf.if %big {
      tile.write %lim, %acc[%r, %c] : !tile.buffer<fragment 64x64xf32>
    }
  }
  tile.reduce %acc, %sums {dim = 0 : i64, kind = "sum"} : !tile.buffer<fragment 64x64xf32> to !tile.buffer<fragment 64xf32>
  tile.copy %sums to %st[%c0] : !tile.buffer<fragment 64xf32> to !tile.tensor<f32, 1>
  tile.yield
}

// -----

// Two gemms: the i8 one keeps the generic lowering (its i32 accumulator stays in shared
// memory), the bf16 one with A read transposed from shared memory (transpose_a) runs mma.sync.
// CHECK-LABEL: tile.kernel @mixed
// CHECK:         tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [1, 2]>} : !tile.buffer<fragment 32x32xf32>
// CHECK-NEXT:    tile.alloc : !tile.buffer<fragment 32x32xi32>
// CHECK:         tile.gemm {{.+}} {clear, tile.mma = #tile.mma<mma_sync>, transpose_a}
// CHECK-NEXT:    tile.gemm {{.+}} {clear} : !tile.buffer<shared 32x32xi8>
tile.kernel @mixed threads [64, 1, 1] args ["A", "X", "O", "P"] dims [["K", "M"], ["M", "K"], ["M", "M"], ["M", "M"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %x: !tile.tensor<i8, 2>, %o: !tile.tensor<f32, 2>, %p: !tile.tensor<i32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %x: !tile.tensor<i8, 2>, %o: !tile.tensor<f32, 2>, %p: !tile.tensor<i32, 2>):
  %as = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %xs = tile.alloc : !tile.buffer<shared 32x32xi8>
  %s = tile.alloc : !tile.buffer<fragment 32x32xf32>
  %w = tile.alloc : !tile.buffer<fragment 32x32xi32>
  %c0 = arith.constant 0 : index
  tile.copy %a[%c0, %c0] to %as : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
  tile.copy %x[%c0, %c0] to %xs : !tile.tensor<i8, 2> to !tile.buffer<shared 32x32xi8>
  tile.gemm %as, %as, %s {clear, transpose_a} : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
  tile.gemm %xs, %xs, %w {clear} : !tile.buffer<shared 32x32xi8>, !tile.buffer<shared 32x32xi8>, !tile.buffer<fragment 32x32xi32>
  tile.copy %s to %o[%c0, %c0] : !tile.buffer<fragment 32x32xf32> to !tile.tensor<f32, 2>
  tile.copy %w to %p[%c0, %c0] : !tile.buffer<fragment 32x32xi32> to !tile.tensor<i32, 2>
  tile.yield
}

// -----

// Row values copied to a tensor go through shared memory (a quad of lanes holds each row); the
// accumulator read element by element outside a `parallel` (one thread's access, maybe under a
// condition on the thread) keeps its class in shared memory, and its gemm generic.
// CHECK-LABEL: tile.kernel @row_values
// CHECK:         %[[S:.+]] = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [2, 1]>} : !tile.buffer<fragment 32x32xf32>
// CHECK:         %[[M:.+]] = tile.alloc {tile.layout = #tile.mma_sync_rows<warps = 2>} : !tile.buffer<fragment 32xf32>
// CHECK-NEXT:    %[[MM:.+]] = tile.alloc : !tile.buffer<fragment 32xf32>
// CHECK:         tile.reduce %[[S]], %[[M]]
// CHECK-NEXT:    tile.copy %[[M]] to %[[MM]]
// CHECK-NEXT:    tile.copy %[[MM]] to %arg3
// CHECK-LABEL: tile.kernel @element_outside
// CHECK-NOT:     tile.layout
// CHECK-NOT:     tile.mma
tile.kernel @row_values threads [64, 1, 1] args ["Q", "K", "O", "R"] dims [["S", "32"], ["S", "32"], ["S", "S"], ["S"]] params {} grid {
^bb0(%q: !tile.tensor<bf16, 2>, %k: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>, %rt: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%q: !tile.tensor<bf16, 2>, %k: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>, %rt: !tile.tensor<f32, 1>):
  %qs = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %ks = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %s = tile.alloc : !tile.buffer<fragment 32x32xf32>
  %m = tile.alloc : !tile.buffer<fragment 32xf32>
  %c0 = arith.constant 0 : index
  tile.copy %q[%c0, %c0] to %qs : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
  tile.copy %k[%c0, %c0] to %ks : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
  tile.gemm %qs, %ks, %s {clear, transpose_b} : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
  tile.reduce %s, %m {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 32x32xf32> to !tile.buffer<fragment 32xf32>
  tile.copy %m to %rt[%c0] : !tile.buffer<fragment 32xf32> to !tile.tensor<f32, 1>
  tile.copy %s to %o[%c0, %c0] : !tile.buffer<fragment 32x32xf32> to !tile.tensor<f32, 2>
  tile.yield
}
tile.kernel @element_outside threads [64, 1, 1] args ["Q", "K", "R"] dims [["S", "32"], ["S", "32"], ["S"]] params {} grid {
^bb0(%q: !tile.tensor<bf16, 2>, %k: !tile.tensor<bf16, 2>, %rt: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%q: !tile.tensor<bf16, 2>, %k: !tile.tensor<bf16, 2>, %rt: !tile.tensor<f32, 1>):
  %qs = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %ks = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %s = tile.alloc : !tile.buffer<fragment 32x32xf32>
  %c0 = arith.constant 0 : index
  tile.copy %q[%c0, %c0] to %qs : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
  tile.copy %k[%c0, %c0] to %ks : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
  tile.gemm %qs, %ks, %s {clear, transpose_b} : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
  %t = tile.thread_id 0
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %v = tile.read %s[%c0, %c0] : !tile.buffer<fragment 32x32xf32>
    tile.store %v, %rt[%c0] : !tile.tensor<f32, 1>
  }
  tile.yield
}

// -----

// An A operand from registers needs whole rows per warp (warps stacked along M), but 32 rows
// cannot stack 4 warps of 16: the gemm reads A from a shared copy of %p instead (a layout
// conversion inserted before inference), and %p takes %s's layout (2 x 2 warps) through the
// parallel. Both gemms keep tensor cores.
// CHECK-LABEL: tile.kernel @unstacked_a_operand
// CHECK:         %[[S:.+]] = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [2, 2]>} : !tile.buffer<fragment 32x32xf32>
// CHECK:         %[[P:.+]] = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [2, 2]>} : !tile.buffer<fragment 32x32xbf16>
// CHECK-NEXT:    %[[PS:.+]] = tile.alloc : !tile.buffer<shared 32x32xbf16>
// CHECK:         tile.gemm %{{.+}}, %{{.+}}, %[[S]] {clear, tile.mma = #tile.mma<mma_sync>, transpose_b}
// CHECK:         tile.parallel [32, 32]
// CHECK:         tile.copy %[[P]] to %[[PS]]
// CHECK-NEXT:    tile.gemm %[[PS]], %{{.+}}, %{{.+}} {clear, tile.mma = #tile.mma<mma_sync>}
tile.kernel @unstacked_a_operand threads [128, 1, 1] args ["Q", "K", "V", "O"] dims [["S", "32"], ["S", "32"], ["S", "32"], ["S", "32"]] params {} grid {
^bb0(%q: !tile.tensor<bf16, 2>, %k: !tile.tensor<bf16, 2>, %v: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%q: !tile.tensor<bf16, 2>, %k: !tile.tensor<bf16, 2>, %v: !tile.tensor<bf16, 2>, %o: !tile.tensor<f32, 2>):
  %qs = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %ks = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %vs = tile.alloc : !tile.buffer<shared 32x32xbf16>
  %s = tile.alloc : !tile.buffer<fragment 32x32xf32>
  %p = tile.alloc : !tile.buffer<fragment 32x32xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 32x32xf32>
  %c0 = arith.constant 0 : index
  tile.copy %q[%c0, %c0] to %qs : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
  tile.copy %k[%c0, %c0] to %ks : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
  tile.copy %v[%c0, %c0] to %vs : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x32xbf16>
  tile.gemm %qs, %ks, %s {clear, transpose_b} : !tile.buffer<shared 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
  tile.parallel [32, 32] {
  ^bb0(%r: index, %c: index):
    %x = tile.read %s[%r, %c] : !tile.buffer<fragment 32x32xf32>
    %y = arith.truncf %x : f32 to bf16
    tile.write %y, %p[%r, %c] : !tile.buffer<fragment 32x32xbf16>
  }
  tile.gemm %p, %vs, %acc {clear} : !tile.buffer<fragment 32x32xbf16>, !tile.buffer<shared 32x32xbf16>, !tile.buffer<fragment 32x32xf32>
  tile.copy %acc to %o[%c0, %c0] : !tile.buffer<fragment 32x32xf32> to !tile.tensor<f32, 2>
  tile.yield
}
