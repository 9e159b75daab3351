// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts,tile-assign-blocked-layouts))' | FileCheck %s --check-prefixes=CHECK,TC
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_75},tile.kernel(tile-assign-mma-layouts,tile-assign-blocked-layouts))' | FileCheck %s --check-prefixes=CHECK,NOTC
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts,tile-assign-blocked-layouts{explain=true}))' 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN

// tile-assign-blocked-layouts: the register layout of element-wise and row-wise work, in kernels
// whose gemms do not run on tensor cores. Fragments that must agree on which thread holds which
// element form a class; each class takes the widest vectors (16 bytes of its narrowest element,
// tensors copied from or to included) and then the most threads per row that keep every thread
// busy; a class that fits none, or the register budget, stays in shared memory. Uses a layout
// cannot serve get a conversion through a shared-memory mirror. With `explain`, one remark per
// fragment and one per conversion (EXPLAIN lines).

// softmax's shape: an f32 [8, 256] tile on 256 threads: vectors of 4 floats (16 bytes), a row per
// warp (32 threads x 4 = 128 columns a pass, 2 vectors per thread and row), 8 rows per pass. The
// row values beside it are #tile.blocked_rows with the same threads per row; the rows fit in
// warps, so the reduce needs no scratch. Nothing stored is read back: no barrier.
// CHECK-LABEL: tile.kernel @softmax
// CHECK:         %[[X:.+]] = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x256xf32>
// CHECK:         %[[M:.+]] = tile.alloc {tile.layout = #tile.blocked_rows<threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8xf32>
// CHECK-NOT:     tile.alloc
// CHECK:         tile.copy %{{.+}} to %[[X]] :
// CHECK-NEXT:    tile.reduce %[[X]], %[[M]] {dim = 1 : i64, kind = "max"}
// CHECK-NEXT:    tile.parallel [8, 256]
// CHECK:           tile.read %[[X]][
// CHECK:           tile.read %[[M]][
// CHECK:           tile.write %{{.+}}, %[[X]][
// CHECK:         }
// CHECK-NEXT:    tile.copy %[[X]] to %{{.+}} :
// CHECK-NOT:     tile.barrier
// CHECK:         tile.yield
tile.kernel @softmax threads [256, 1, 1] args ["X", "Y"] dims [["M", "N"], ["M", "N"]] params {} grid {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 2>):
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>
  %x = tile.alloc : !tile.buffer<fragment 8x256xf32>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked_rows<threads_per_row = 32, threads = 256>
  %m = tile.alloc : !tile.buffer<fragment 8xf32>
  %bx = tile.block_id 0
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  %c0 = arith.constant 0 : index
  tile.copy %X[%row, %c0] to %x : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x256xf32>
  tile.reduce %x, %m {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 8x256xf32> to !tile.buffer<fragment 8xf32>
  tile.parallel [8, 256] {
  ^bb0(%r: index, %c: index):
    %v = tile.read %x[%r, %c] : !tile.buffer<fragment 8x256xf32>
    %mr = tile.read %m[%r] : !tile.buffer<fragment 8xf32>
    %d = arith.subf %v, %mr : f32
    %e = math.exp %d : f32
    tile.write %e, %x[%r, %c] : !tile.buffer<fragment 8x256xf32>
  }
  tile.copy %x to %Y[%row, %c0] : !tile.buffer<fragment 8x256xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// A row of 4096 f32 values copied from a bf16 tensor (rmsnorm's shape, one row per block): the
// tensor's 2-byte elements allow vectors of 8; one row keeps all 256 threads busy only if it
// spans all of them (8 warps), 2 vectors per thread. The row reduce's warps meet in a `scratch`
// shared buffer of one value per warp (and row slot), allocated at the start of the body.
// CHECK-LABEL: tile.kernel @rownorm
// CHECK:         %[[S:.+]] = tile.alloc : !tile.buffer<shared 8xf32>
// CHECK-NEXT:    %[[X:.+]] = tile.alloc {tile.layout = #tile.blocked<vec = 8, threads_per_row = 256, threads = 256>} : !tile.buffer<fragment 1x4096xf32>
// CHECK-NEXT:    %[[SUM:.+]] = tile.alloc {tile.layout = #tile.blocked_rows<threads_per_row = 256, threads = 256>} : !tile.buffer<fragment 1xf32>
// CHECK:         tile.reduce %[[X]], %[[SUM]] scratch %[[S]] : !tile.buffer<shared 8xf32> {dim = 1 : i64, kind = "sum"}
tile.kernel @rownorm threads [256, 1, 1] args ["X", "Y"] dims [["M", "N"], ["M", "N"]] params {} grid {
^bb0(%X: !tile.tensor<bf16, 2>, %Y: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<bf16, 2>, %Y: !tile.tensor<bf16, 2>):
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 8, threads_per_row = 256, threads = 256>
  %x = tile.alloc : !tile.buffer<fragment 1x4096xf32>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked_rows<threads_per_row = 256, threads = 256>
  %s = tile.alloc : !tile.buffer<fragment 1xf32>
  %row = tile.block_id 0
  %c0 = arith.constant 0 : index
  tile.copy %X[%row, %c0] to %x : !tile.tensor<bf16, 2> to !tile.buffer<fragment 1x4096xf32>
  tile.reduce %x, %s {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 1x4096xf32> to !tile.buffer<fragment 1xf32>
  tile.parallel [1, 4096] {
  ^bb0(%r: index, %c: index):
    %v = tile.read %x[%r, %c] : !tile.buffer<fragment 1x4096xf32>
    %sr = tile.read %s[%r] : !tile.buffer<fragment 1xf32>
    %q = arith.divf %v, %sr : f32
    tile.write %q, %x[%r, %c] : !tile.buffer<fragment 1x4096xf32>
  }
  tile.copy %x to %Y[%row, %c0] : !tile.buffer<fragment 1x4096xf32> to !tile.tensor<bf16, 2>
  tile.yield
}

// -----

// A copy between fragments of one shape joins them: the bf16 side sets the vector width for both
// (8 elements), and the copy between them stays in registers (slot by slot). Three rows that no
// wider vector splits evenly still fit: vectors of one element, every row across all 256 threads.
// CHECK-LABEL: tile.kernel @joined
// CHECK:         %[[H:.+]] = tile.alloc {tile.layout = #tile.blocked<vec = 8, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x256xbf16>
// CHECK-NEXT:    %[[F:.+]] = tile.alloc {tile.layout = #tile.blocked<vec = 8, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x256xf32>
// CHECK-NEXT:    %{{.+}} = tile.alloc {tile.layout = #tile.blocked<vec = 1, threads_per_row = 256, threads = 256>} : !tile.buffer<fragment 3x256xf32>
// CHECK-NOT:     tile.alloc
// CHECK:         tile.copy %[[H]] to %[[F]] :
tile.kernel @joined threads [256, 1, 1] args ["X", "Y"] dims [["M", "N"], ["M", "N"]] params {} grid {
^bb0(%X: !tile.tensor<bf16, 2>, %Y: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<bf16, 2>, %Y: !tile.tensor<f32, 2>):
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 8, threads_per_row = 32, threads = 256>
  %h = tile.alloc : !tile.buffer<fragment 8x256xbf16>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 8, threads_per_row = 32, threads = 256>
  %f = tile.alloc : !tile.buffer<fragment 8x256xf32>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 1, threads_per_row = 256, threads = 256>
  %t = tile.alloc : !tile.buffer<fragment 3x256xf32>
  %c0 = arith.constant 0 : index
  tile.copy %X[%c0, %c0] to %h : !tile.tensor<bf16, 2> to !tile.buffer<fragment 8x256xbf16>
  tile.copy %h to %f : !tile.buffer<fragment 8x256xbf16> to !tile.buffer<fragment 8x256xf32>
  tile.copy %f to %Y[%c0, %c0] : !tile.buffer<fragment 8x256xf32> to !tile.tensor<f32, 2>
  tile.copy %X[%c0, %c0] to %t : !tile.tensor<bf16, 2> to !tile.buffer<fragment 3x256xf32>
  tile.copy %t to %Y[%c0, %c0] : !tile.buffer<fragment 3x256xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// A misfit use: this `parallel` reads x elsewhere than at its point (a reversed row), which the
// layout cannot serve: x gets a mirror fragment in shared memory (no layout), filled by a copy
// before the op, which reads the mirror instead. y, written at the point of the same parallel,
// is converted too (copied out before, back after); the copies around stay in registers.
// CHECK-LABEL: tile.kernel @misfit
// CHECK:         %[[X:.+]] = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x256xf32>
// CHECK-NEXT:    %[[XM:.+]] = tile.alloc : !tile.buffer<fragment 8x256xf32>
// CHECK-NEXT:    %[[Y:.+]] = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x256xf32>
// CHECK-NEXT:    %[[YM:.+]] = tile.alloc : !tile.buffer<fragment 8x256xf32>
// CHECK:         tile.copy %{{.+}} to %[[X]] :
// CHECK-DAG:     tile.copy %[[X]] to %[[XM]] :
// CHECK-DAG:     tile.copy %[[Y]] to %[[YM]] :
// CHECK:         tile.parallel [8, 256]
// CHECK:           tile.read %[[XM]][
// CHECK:           tile.write %{{.+}}, %[[YM]][
// CHECK:         }
// CHECK-NEXT:    tile.copy %[[YM]] to %[[Y]] :
// CHECK-NEXT:    tile.copy %[[Y]] to %{{.+}} :
tile.kernel @misfit threads [256, 1, 1] args ["X", "Y"] dims [["M", "N"], ["M", "N"]] params {} grid {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 2>):
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>
  %x = tile.alloc : !tile.buffer<fragment 8x256xf32>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>
  %y = tile.alloc : !tile.buffer<fragment 8x256xf32>
  %c0 = arith.constant 0 : index
  tile.copy %X[%c0, %c0] to %x : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x256xf32>
  // EXPLAIN-DAG: :[[@LINE+2]]:{{[0-9]+}}: remark: layout conversion: the fragment of line [[#@LINE-5]] goes through shared memory for this op (this 'parallel' accesses a fragment in registers elsewhere than at its point (or a row value at its row))
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: layout conversion: the fragment of line [[#@LINE-4]] goes through shared memory for this op (this 'parallel' accesses a fragment in registers elsewhere than at its point (or a row value at its row))
  tile.parallel [8, 256] {
  ^bb0(%r: index, %c: index):
    %c255 = arith.constant 255 : index
    %rc = arith.subi %c255, %c : index
    %v = tile.read %x[%r, %rc] : !tile.buffer<fragment 8x256xf32>
    tile.write %v, %y[%r, %c] : !tile.buffer<fragment 8x256xf32>
  }
  tile.copy %y to %Y[%c0, %c0] : !tile.buffer<fragment 8x256xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// A column reduce and a copy of row values to a tensor are not served by the layouts: the
// fragments go through their mirrors for them.
// CHECK-LABEL: tile.kernel @col_sum
// CHECK:         %[[X:.+]] = tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x256xf32>
// CHECK-NEXT:    %[[XM:.+]] = tile.alloc : !tile.buffer<fragment 8x256xf32>
// CHECK-NEXT:    %[[S:.+]] = tile.alloc {tile.layout = #tile.blocked_rows<threads_per_row = 1, threads = 256>} : !tile.buffer<fragment 256xf32>
// CHECK-NEXT:    %[[SM:.+]] = tile.alloc : !tile.buffer<fragment 256xf32>
// CHECK:         tile.copy %[[X]] to %[[XM]] :
// CHECK-NEXT:    tile.reduce %[[XM]], %[[SM]] {dim = 0 : i64, kind = "sum"}
// CHECK-NEXT:    tile.copy %[[SM]] to %[[S]] :
// CHECK-NEXT:    tile.copy %[[S]] to %[[SM]] :
// CHECK-NEXT:    tile.copy %[[SM]] to %{{.+}}[%{{.+}}] : !tile.buffer<fragment 256xf32> to !tile.tensor<f32, 1>
tile.kernel @col_sum threads [256, 1, 1] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 1>):
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>
  %x = tile.alloc : !tile.buffer<fragment 8x256xf32>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked_rows<threads_per_row = 1, threads = 256>
  %s = tile.alloc : !tile.buffer<fragment 256xf32>
  %c0 = arith.constant 0 : index
  tile.copy %X[%c0, %c0] to %x : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x256xf32>
  // EXPLAIN-DAG: :[[@LINE+2]]:{{[0-9]+}}: remark: layout conversion: the fragment of line [[#@LINE-5]] goes through shared memory for this op (registers are reduced along rows (dim = 1) into row values in registers)
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: layout conversion: the fragment of line [[#@LINE-4]] goes through shared memory for this op (registers are reduced along rows (dim = 1) into row values in registers)
  tile.reduce %x, %s {dim = 0 : i64, kind = "sum"} : !tile.buffer<fragment 8x256xf32> to !tile.buffer<fragment 256xf32>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: layout conversion: the fragment of line [[#@LINE-6]] goes through shared memory for this op (row values are copied to or from a tensor through shared memory)
  tile.copy %s to %Y[%c0] : !tile.buffer<fragment 256xf32> to !tile.tensor<f32, 1>
  tile.yield
}

// -----

// Classes that stay in shared memory (no tile.layout): a fragment read outside a `parallel`
// (element by element at the top level), and a tile of 8 x 8192 floats, 256 registers per thread
// (at most 128 in all). A [3, 100] tile fits no vectors: its rows would span all threads, and 100
// columns do not split over 256 of them.
// CHECK-LABEL: tile.kernel @shared
// CHECK-NOT:     tile.layout
// CHECK:         tile.yield
tile.kernel @shared threads [256, 1, 1] args ["X", "Y"] dims [["M", "N"], ["M"]] params {} grid {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 1>):
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment stays in shared memory: the fragment is read or written element by element outside a 'parallel'
  %x = tile.alloc : !tile.buffer<fragment 8x256xf32>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment stays in shared memory: its class of fragments would take 256 registers per thread (at most 128 with the fragments live beside it); it stays in shared memory
  %big = tile.alloc : !tile.buffer<fragment 8x8192xf32>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment stays in shared memory: its 3 rows (and columns) do not split evenly over 256 threads in vectors (every thread must hold whole vectors of the same number of rows)
  %odd = tile.alloc : !tile.buffer<fragment 3x100xf32>
  %c0 = arith.constant 0 : index
  tile.copy %X[%c0, %c0] to %x : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x256xf32>
  %v = tile.read %x[%c0, %c0] : !tile.buffer<fragment 8x256xf32>
  tile.store %v, %Y[%c0] : !tile.tensor<f32, 1>
  tile.copy %X[%c0, %c0] to %big : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x8192xf32>
  tile.parallel [8, 8192] {
  ^bb0(%r: index, %c: index):
    %w = tile.read %big[%r, %c] : !tile.buffer<fragment 8x8192xf32>
    %w2 = arith.addf %w, %w : f32
    tile.write %w2, %big[%r, %c] : !tile.buffer<fragment 8x8192xf32>
  }
  tile.copy %big to %X[%c0, %c0] : !tile.buffer<fragment 8x8192xf32> to !tile.tensor<f32, 2>
  tile.copy %X[%c0, %c0] to %odd : !tile.tensor<f32, 2> to !tile.buffer<fragment 3x100xf32>
  tile.yield
}

// -----

// The register budget: three classes of 64, 64 and 32 registers per thread (160, more than
// 128): the biggest classes stay in shared memory until the rest fits (the last of the two 64s
// goes; 96 remain).
// CHECK-LABEL: tile.kernel @budget
// CHECK:         tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x2048xf32>
// CHECK-NEXT:    tile.alloc : !tile.buffer<fragment 8x2048xf32>
// CHECK-NEXT:    tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>} : !tile.buffer<fragment 8x1024xf32>
tile.kernel @budget threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%X: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<f32, 2>):
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>
  %a = tile.alloc : !tile.buffer<fragment 8x2048xf32>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment stays in shared memory: its class of fragments would take 64 registers per thread (at most 128 with the fragments live beside it); it stays in shared memory
  %b = tile.alloc : !tile.buffer<fragment 8x2048xf32>
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>
  %c = tile.alloc : !tile.buffer<fragment 8x1024xf32>
  %c0 = arith.constant 0 : index
  tile.copy %X[%c0, %c0] to %a : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x2048xf32>
  tile.copy %X[%c0, %c0] to %b : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x2048xf32>
  tile.copy %X[%c0, %c0] to %c : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x1024xf32>
  tile.yield
}

// -----

// A copy from registers to a tensor the kernel also reads (here: copies from it) sits between two
// barriers, and so does a `parallel` on registers that stores to such a tensor: other threads may
// have read those elements just before (a shifted in-place update) or read them next. A copy to a
// tensor nothing reads (Z) needs none.
// CHECK-LABEL: tile.kernel @read_back
// CHECK:         tile.copy %[[X:arg[0-9]+]][%{{.+}}, %{{.+}}] to %{{.+}} :
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.copy %{{.+}} to %[[Y:arg[0-9]+]][%{{.+}}, %{{.+}}] : !tile.buffer<fragment 8x256xf32> to !tile.tensor<f32, 2>
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.copy %[[Y]][%{{.+}}, %{{.+}}] to %{{.+}} :
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.parallel [8, 256]
// CHECK:           tile.store
// CHECK:         }
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.parallel [8, 256]
// CHECK:           tile.load
// CHECK:         }
// CHECK-NEXT:    tile.copy %{{.+}} to %{{.+}} : !tile.buffer<fragment 8x256xf32> to !tile.tensor<f32, 2>
// CHECK-NEXT:    tile.yield
tile.kernel @read_back threads [256, 1, 1] args ["X", "Y", "Z"] dims [["M", "N"], ["M", "N"], ["M", "N"]] params {} grid {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 2>, %Z: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 2>, %Z: !tile.tensor<f32, 2>):
  // EXPLAIN-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: this fragment is in registers: #tile.blocked<vec = 4, threads_per_row = 32, threads = 256>
  %x = tile.alloc : !tile.buffer<fragment 8x256xf32>
  %c0 = arith.constant 0 : index
  tile.copy %X[%c0, %c0] to %x : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x256xf32>
  tile.copy %x to %Y[%c0, %c0] : !tile.buffer<fragment 8x256xf32> to !tile.tensor<f32, 2>
  tile.copy %Y[%c0, %c0] to %x : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x256xf32>
  tile.parallel [8, 256] {
  ^bb0(%r: index, %c: index):
    %v = tile.read %x[%r, %c] : !tile.buffer<fragment 8x256xf32>
    tile.store %v, %Y[%r, %c] : !tile.tensor<f32, 2>
  }
  tile.parallel [8, 256] {
  ^bb0(%r: index, %c: index):
    %c1 = arith.constant 1 : index
    %c1p = arith.addi %c, %c1 : index
    %w = tile.load %Y[%r, %c1p] : !tile.tensor<f32, 2>
    tile.write %w, %x[%r, %c] : !tile.buffer<fragment 8x256xf32>
  }
  tile.copy %x to %Z[%c0, %c0] : !tile.buffer<fragment 8x256xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// A gemm: on sm_90a the register strategy (tile-assign-mma-layouts) runs it on mma.sync and puts
// its accumulator in registers; tile-assign-blocked-layouts then leaves the whole kernel alone
// (the element-wise fragment e stays in shared memory, for now). On sm_75 the gemm has no tensor
// cores: its fragments stay in shared memory, the rest gets blocked layouts.
// CHECK-LABEL: tile.kernel @gemm
// TC:            tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [{{[0-9]+}}, {{[0-9]+}}]>} : !tile.buffer<fragment 64x64xf32>
// TC-NEXT:       tile.alloc : !tile.buffer<fragment 4x128xf32>
// TC-NOT:        #tile.blocked
// NOTC:          tile.alloc : !tile.buffer<fragment 64x64xf32>
// NOTC-NEXT:     tile.alloc {tile.layout = #tile.blocked<vec = 4, threads_per_row = 32, threads = 128>} : !tile.buffer<fragment 4x128xf32>
// CHECK:         tile.gemm
// CHECK:         tile.yield
tile.kernel @gemm threads [128, 1, 1] args ["A", "B", "C", "X"] dims [["M", "K"], ["K", "N"], ["M", "N"], ["M", "N"]] params {} grid {
^bb0(%A: !tile.tensor<bf16, 2>, %B: !tile.tensor<bf16, 2>, %C: !tile.tensor<f32, 2>, %X: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%A: !tile.tensor<bf16, 2>, %B: !tile.tensor<bf16, 2>, %C: !tile.tensor<f32, 2>, %X: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 64x32xbf16>
  %bs = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 64x64xf32>
  %e = tile.alloc : !tile.buffer<fragment 4x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 64x64xf32>, f32
  %c0 = arith.constant 0 : index
  tile.copy %A[%c0, %c0] to %as : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
  tile.copy %B[%c0, %c0] to %bs : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
  tile.gemm %as, %bs, %acc : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.copy %acc to %C[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.copy %X[%c0, %c0] to %e : !tile.tensor<f32, 2> to !tile.buffer<fragment 4x128xf32>
  tile.parallel [4, 128] {
  ^bb0(%r: index, %c: index):
    %v = tile.read %e[%r, %c] : !tile.buffer<fragment 4x128xf32>
    %w = arith.addf %v, %v : f32
    tile.write %w, %e[%r, %c] : !tile.buffer<fragment 4x128xf32>
  }
  tile.copy %e to %X[%c0, %c0] : !tile.buffer<fragment 4x128xf32> to !tile.tensor<f32, 2>
  tile.yield
}
