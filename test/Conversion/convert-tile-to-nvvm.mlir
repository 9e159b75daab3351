// RUN: tlc-opt %s --split-input-file --tile-set-target --convert-tile-to-nvvm | FileCheck %s

// convert-tile-to-nvvm: every tile.kernel becomes a gpu.func kernel of gpu.module @tlc_kernels
// with the parameters of docs/abi.md; the host-side grid region is dropped; sizes, indices and
// masked element accesses are lowered to gpu, arith, scf and llvm operations.

// CHECK-LABEL: module attributes {gpu.container_module{{[,}]}}
// CHECK-NEXT:  gpu.module @tlc_kernels {
// CHECK-NEXT:    gpu.func @abi(
// CHECK-SAME:      %[[X:[^:]+]]: !llvm.ptr<1>, %[[XM:[^:]+]]: i64, %[[XN:[^:]+]]: i64, %[[XSM:[^:]+]]: i64, %[[XSN:[^:]+]]: i64,
// CHECK-SAME:      %[[Y:[^:]+]]: !llvm.ptr<1>, %[[YK:[^:]+]]: i64, %[[YSK:[^:]+]]: i64,
// CHECK-SAME:      %[[S:[^:]+]]: f32, %[[D:[^:]+]]: f64, %[[I:[^:]+]]: i32, %[[J:[^:]+]]: i64, %[[P:[^:]+]]: i8, %[[N:[^:]+]]: i64)
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 64, 2, 1>, tile.entry = #tile.entry<"abi", kind = plain, threads = 64, compute_threads = 0, shared_bytes = 0, maps = []>}
// A bool travels as a byte and an `int` as a 64-bit integer.
// CHECK-DAG:       %[[PB:.+]] = arith.trunci %[[P]] : i8 to i1
// CHECK-DAG:       %[[NI:.+]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NOT:       tile.
// CHECK:           scf.if %[[PB]] {
// CHECK-NEXT:        arith.index_cast %[[NI]] : index to i64
// CHECK:           gpu.return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   tile.kernel
tile.kernel @abi threads [64, 2, 1] args ["X", "Y", "s", "d", "i", "j", "p", "n"]
    dims [["M", "N"], ["K"], [], [], [], [], [], []] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i32, 1>, %s: f32, %d: f64, %i: i32, %j: i64, %p: i1, %n: index):
  %m = tile.dim %x[0] : !tile.tensor<f32, 2>
  %c1 = arith.constant 1 : index
  tile.yield %m, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i32, 1>, %s: f32, %d: f64, %i: i32, %j: i64, %p: i1, %n: index):
  scf.if %p {
    tile.store %i, %y[%n] : !tile.tensor<i32, 1>
  }
  tile.yield
}

// -----

// tile.dim is the size argument of that dimension; block and thread indices are gpu ops. Y is
// dense: its last (only) stride is the constant 1 (docs/abi.md), so the index is the offset.
// CHECK-LABEL: gpu.func @dims_and_indices(
// CHECK-SAME:      %[[X:[^:]+]]: !llvm.ptr<1>, %[[M:[^:]+]]: i64, %[[N:[^:]+]]: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %[[Y:[^:]+]]: !llvm.ptr<1>, %[[YN:[^:]+]]: i64, %[[YS:[^:]+]]: i64)
// CHECK-DAG:       %[[DN:.+]] = arith.index_cast %[[N]] : i64 to index
// CHECK-DAG:       %[[BY:.+]] = gpu.block_id  y
// CHECK-DAG:       %[[TZ:.+]] = gpu.thread_id  z
// CHECK:           %[[SUM:.+]] = arith.addi %[[DN]], %[[BY]] : index
// CHECK-NEXT:      %[[IDX:.+]] = arith.addi %[[SUM]], %[[TZ]] : index
// CHECK-NEXT:      %[[I64:.+]] = arith.index_cast %[[IDX]] : index to i64
// CHECK-NEXT:      %[[OK:.+]] = arith.cmpi ult, %[[I64]], %[[YN]] : i64
// CHECK-NOT:       %[[YS]]
// CHECK-NEXT:      %[[PTR:.+]] = llvm.getelementptr %[[Y]][%[[I64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
tile.kernel @dims_and_indices threads [32, 1, 2] args ["X", "Y"] dims [["M", "N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<f32, 1>):
  %n = tile.dim %x[1] : !tile.tensor<f32, 2>
  %by = tile.block_id 1
  %tz = tile.thread_id 2
  %sum = arith.addi %n, %by : index
  %idx = arith.addi %sum, %tz : index
  %v = arith.constant 1.0 : f32
  tile.store %v, %y[%idx] : !tile.tensor<f32, 1>
  tile.yield
}

// -----

// A masked load: every index is compared (unsigned, so negative indices fail too) with its
// size, the offset is the sum of index * stride (X declares run-time strides), and the load
// happens only in bounds; out of bounds the value is zero.
// CHECK-LABEL: gpu.func @masked_load(
// CHECK-SAME:      %[[X:[^:]+]]: !llvm.ptr<1>, %[[M:[^:]+]]: i64, %[[N:[^:]+]]: i64, %[[SM:[^:]+]]: i64, %[[SN:[^:]+]]: i64,
// CHECK-SAME:      %[[Y:[^:]+]]: !llvm.ptr<1>, %{{[^:]+}}: i64, %{{[^:]+}}: i64)
// CHECK-DAG:       %[[ZERO:.+]] = arith.constant 0.000000e+00 : f16
// CHECK-DAG:       %[[R:.+]] = gpu.block_id  x
// CHECK-DAG:       %[[C:.+]] = gpu.thread_id  x
// CHECK:           %[[R64:.+]] = arith.index_cast %[[R]] : index to i64
// CHECK-NEXT:      %[[ROK:.+]] = arith.cmpi ult, %[[R64]], %[[M]] : i64
// CHECK-NEXT:      %[[ROFF:.+]] = arith.muli %[[R64]], %[[SM]] : i64
// CHECK-NEXT:      %[[C64:.+]] = arith.index_cast %[[C]] : index to i64
// CHECK-NEXT:      %[[COK:.+]] = arith.cmpi ult, %[[C64]], %[[N]] : i64
// CHECK-NEXT:      %[[OK:.+]] = arith.andi %[[ROK]], %[[COK]] : i1
// CHECK-NEXT:      %[[COFF:.+]] = arith.muli %[[C64]], %[[SN]] : i64
// CHECK-NEXT:      %[[OFF:.+]] = arith.addi %[[ROFF]], %[[COFF]] : i64
// CHECK-NEXT:      %[[PTR:.+]] = llvm.getelementptr %[[X]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// CHECK-NEXT:      %[[V:.+]] = scf.if %[[OK]] -> (f16) {
// CHECK-NEXT:        %[[L:.+]] = llvm.load %[[PTR]] : !llvm.ptr<1> -> f16
// CHECK-NEXT:        scf.yield %[[L]] : f16
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[ZERO]] : f16
// CHECK-NEXT:      }
tile.kernel @masked_load threads [32, 1, 1] args ["X", "Y"] dims [["M", "N"], ["M"]] params {} attributes {strides = [["sm", "sn"], []]} grid {
^bb0(%x: !tile.tensor<f16, 2>, %y: !tile.tensor<f16, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f16, 2>, %y: !tile.tensor<f16, 1>):
  %r = tile.block_id 0
  %c = tile.thread_id 0
  %v = tile.load %x[%r, %c] : !tile.tensor<f16, 2>
  tile.store %v, %y[%r] : !tile.tensor<f16, 1>
  tile.yield
}

// -----

// A masked store: no else branch, nothing is written out of bounds. Y is dense: the index is
// the offset.
// CHECK-LABEL: gpu.func @masked_store(
// CHECK-SAME:      %[[Y:[^:]+]]: !llvm.ptr<1>, %[[N:[^:]+]]: i64, %[[S:[^:]+]]: i64, %[[V:[^:]+]]: i64)
// CHECK:           %[[T:.+]] = gpu.thread_id  x
// CHECK-NEXT:      %[[T64:.+]] = arith.index_cast %[[T]] : index to i64
// CHECK-NEXT:      %[[OK:.+]] = arith.cmpi ult, %[[T64]], %[[N]] : i64
// CHECK-NEXT:      %[[PTR:.+]] = llvm.getelementptr %[[Y]][%[[T64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
// CHECK-NEXT:      scf.if %[[OK]] {
// CHECK-NEXT:        llvm.store %[[V]], %[[PTR]] : i64, !llvm.ptr<1>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.return
tile.kernel @masked_store threads [32, 1, 1] args ["Y", "v"] dims [["N"], []] params {} grid {
^bb0(%y: !tile.tensor<i64, 1>, %v: i64):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%y: !tile.tensor<i64, 1>, %v: i64):
  %t = tile.thread_id 0
  tile.store %v, %y[%t] : !tile.tensor<i64, 1>
  tile.yield
}

// -----

// Several kernels share one gpu.module, in order.
// CHECK-LABEL: gpu.module @tlc_kernels
// CHECK-NEXT:    gpu.func @first() kernel attributes {known_block_size = array<i32: 32, 1, 1>, tile.entry = #tile.entry<"first", kind = plain
// CHECK:         gpu.func @second() kernel attributes {known_block_size = array<i32: 128, 8, 1>, tile.entry = #tile.entry<"second", kind = plain
// CHECK-NOT:   gpu.module
tile.kernel @first threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}
tile.kernel @second threads [128, 8, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}

// -----

// A module without kernels is left alone.
// CHECK-LABEL: module attributes {tile.target = {{.+}}} {
// CHECK-NEXT:    llvm.func @not_a_kernel()
// CHECK-NOT:   gpu.module
llvm.func @not_a_kernel()
