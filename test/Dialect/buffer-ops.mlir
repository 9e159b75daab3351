// RUN: tlc-opt %s | tlc-opt | FileCheck %s
// RUN: tlc-opt %s --mlir-print-op-generic | tlc-opt | FileCheck %s

// The buffer type in each memory space and the buffer operations (alloc, fill, copy, gemm,
// reduce, read, write) and atomic_add survive a print/parse round trip, in the custom and in
// the generic form.

// CHECK-LABEL: tile.kernel @buffers
// CHECK:      } body {
// CHECK-NEXT: ^bb0(%[[A:.+]]: !tile.tensor<bf16, 2>, %[[B:.+]]: !tile.tensor<bf16, 2>, %[[C:.+]]: !tile.tensor<f32, 2>):
// CHECK-NEXT:   %[[AS:.+]] = tile.alloc : !tile.buffer<shared 128x32xbf16>
// CHECK-NEXT:   %[[BS:.+]] = tile.alloc : !tile.buffer<shared 32x64xbf16>
// CHECK-NEXT:   %[[ACC:.+]] = tile.alloc : !tile.buffer<fragment 128x64xf32>
// CHECK-NEXT:   %[[ROW:.+]] = tile.alloc : !tile.buffer<fragment 128xf32>
// CHECK-NEXT:   %[[INIT:.+]] = tile.alloc : !tile.buffer<fragment 128xf32>
// CHECK-NEXT:   %[[LOC:.+]] = tile.alloc : !tile.buffer<local 4x2x2xi8>
// CHECK-NEXT:   %[[AT:.+]] = tile.alloc : !tile.buffer<shared 32x128xbf16>
// CHECK-NEXT:   %[[BT:.+]] = tile.alloc : !tile.buffer<shared 64x32xbf16>
// CHECK-NEXT:   %[[AF:.+]] = tile.alloc : !tile.buffer<fragment 128x32xf16>
// CHECK-NEXT:   %[[BH:.+]] = tile.alloc : !tile.buffer<shared 32x64xf16>
// CHECK-NEXT:   %[[ACCH:.+]] = tile.alloc : !tile.buffer<fragment 128x64xf16>
// CHECK:        tile.fill %[[ACC]], %[[ZERO:.+]] : !tile.buffer<fragment 128x64xf32>, f32
// CHECK-NEXT:   tile.copy %[[A]][%[[M:.+]], %[[K:.+]]] to %[[AS]] : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x32xbf16>
// CHECK-NEXT:   tile.copy %[[B]][%[[K]], %[[N:.+]]] to %[[BS]] : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
// CHECK-NEXT:   tile.gemm %[[AS]], %[[BS]], %[[ACC]] : !tile.buffer<shared 128x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 128x64xf32>
// CHECK-NEXT:   tile.gemm %[[AT]], %[[BT]], %[[ACC]] {clear, transpose_a, transpose_b} : !tile.buffer<shared 32x128xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 128x64xf32>
// CHECK-NEXT:   tile.gemm %[[AF]], %[[BH]], %[[ACCH]] : !tile.buffer<fragment 128x32xf16>, !tile.buffer<shared 32x64xf16>, !tile.buffer<fragment 128x64xf16>
// CHECK-NEXT:   tile.reduce %[[ACC]], %[[ROW]] {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128xf32>
// CHECK-NEXT:   tile.reduce %[[ACC]], %[[ROW]] init %[[INIT]] : !tile.buffer<fragment 128xf32> {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128xf32>
// CHECK-NEXT:   tile.reduce %[[ACC]], %[[ROW]] {accumulate, dim = 1 : i64, kind = "min"} : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128xf32>
// CHECK-NEXT:   %[[E:.+]] = tile.read %[[ROW]][%[[M]]] : !tile.buffer<fragment 128xf32>
// CHECK-NEXT:   tile.write %[[E]], %[[ROW]][%[[K]]] : !tile.buffer<fragment 128xf32>
// CHECK-NEXT:   %[[L:.+]] = tile.read %[[LOC]][%[[M]], %[[M]], %[[K]]] : !tile.buffer<local 4x2x2xi8>
// CHECK-NEXT:   tile.copy %[[ACC]] to %[[C]][%[[M]], %[[N]]] : !tile.buffer<fragment 128x64xf32> to !tile.tensor<f32, 2>
// CHECK-NEXT:   tile.copy %[[ROW]] to %[[INIT]] : !tile.buffer<fragment 128xf32> to !tile.buffer<fragment 128xf32>
// CHECK-NEXT:   tile.atomic_add %[[E]], %[[C]][%[[M]], %[[N]]] : !tile.tensor<f32, 2>
// CHECK-NEXT:   %[[SV:.+]] = tile.read_slot %[[ACC]][%[[K]]] : !tile.buffer<fragment 128x64xf32>
// CHECK-NEXT:   tile.write_slot %[[SV]], %[[ACC]][%[[K]]] : !tile.buffer<fragment 128x64xf32>
// CHECK-NEXT:   tile.yield
tile.kernel @buffers threads [128, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]]
    params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 128x32xbf16>
  %bs = tile.alloc : !tile.buffer<shared 32x64xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 128x64xf32>
  %row = tile.alloc : !tile.buffer<fragment 128xf32>
  %init = tile.alloc : !tile.buffer<fragment 128xf32>
  %loc = tile.alloc : !tile.buffer<local 4x2x2xi8>
  %at = tile.alloc : !tile.buffer<shared 32x128xbf16>
  %bt = tile.alloc : !tile.buffer<shared 64x32xbf16>
  %af = tile.alloc : !tile.buffer<fragment 128x32xf16>
  %bh = tile.alloc : !tile.buffer<shared 32x64xf16>
  %acch = tile.alloc : !tile.buffer<fragment 128x64xf16>
  %zero = arith.constant 0.0 : f32
  %m = tile.block_id 0
  %k = arith.constant 0 : index
  %n = tile.block_id 1
  tile.fill %acc, %zero : !tile.buffer<fragment 128x64xf32>, f32
  tile.copy %a[%m, %k] to %as : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x32xbf16>
  tile.copy %b[%k, %n] to %bs : !tile.tensor<bf16, 2> to !tile.buffer<shared 32x64xbf16>
  tile.gemm %as, %bs, %acc : !tile.buffer<shared 128x32xbf16>, !tile.buffer<shared 32x64xbf16>, !tile.buffer<fragment 128x64xf32>
  tile.gemm %at, %bt, %acc {clear, transpose_a, transpose_b} : !tile.buffer<shared 32x128xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 128x64xf32>
  tile.gemm %af, %bh, %acch : !tile.buffer<fragment 128x32xf16>, !tile.buffer<shared 32x64xf16>, !tile.buffer<fragment 128x64xf16>
  tile.reduce %acc, %row {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128xf32>
  tile.reduce %acc, %row init %init : !tile.buffer<fragment 128xf32> {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128xf32>
  tile.reduce %acc, %row {accumulate, dim = 1 : i64, kind = "min"} : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128xf32>
  %e = tile.read %row[%m] : !tile.buffer<fragment 128xf32>
  tile.write %e, %row[%k] : !tile.buffer<fragment 128xf32>
  %l = tile.read %loc[%m, %m, %k] : !tile.buffer<local 4x2x2xi8>
  tile.copy %acc to %c[%m, %n] : !tile.buffer<fragment 128x64xf32> to !tile.tensor<f32, 2>
  tile.copy %row to %init : !tile.buffer<fragment 128xf32> to !tile.buffer<fragment 128xf32>
  tile.atomic_add %e, %c[%m, %n] : !tile.tensor<f32, 2>
  %sv = tile.read_slot %acc[%k] : !tile.buffer<fragment 128x64xf32>
  tile.write_slot %sv, %acc[%k] : !tile.buffer<fragment 128x64xf32>
  tile.yield
}

// argmax / argmin with their index buffer (and offset), and scan.
// CHECK-LABEL: tile.kernel @arg_reduce_and_scan
// CHECK:        tile.reduce %[[S:.+]], %[[D:.+]] index %[[I:.+]] : !tile.buffer<fragment 16xi32> {dim = 1 : i64, kind = "argmax"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
// CHECK-NEXT:   tile.reduce %[[S]], %[[D]] index %[[I]] : !tile.buffer<fragment 16xi32> offset %[[O:.+]] {accumulate, dim = 1 : i64, kind = "argmin"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
// CHECK-NEXT:   tile.scan %[[S]], %[[S]] {dim = 0 : i64, exclusive, kind = "prod"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16x8xf32>
tile.kernel @arg_reduce_and_scan threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %s = tile.alloc : !tile.buffer<fragment 16x8xf32>
  %d = tile.alloc : !tile.buffer<fragment 16xf32>
  %i = tile.alloc : !tile.buffer<fragment 16xi32>
  %o = arith.constant 8 : index
  tile.reduce %s, %d index %i : !tile.buffer<fragment 16xi32> {dim = 1 : i64, kind = "argmax"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.reduce %s, %d index %i : !tile.buffer<fragment 16xi32> offset %o {accumulate, dim = 1 : i64, kind = "argmin"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16xf32>
  tile.scan %s, %s {dim = 0 : i64, exclusive, kind = "prod"} : !tile.buffer<fragment 16x8xf32> to !tile.buffer<fragment 16x8xf32>
  tile.yield
}
