// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,convert-tile-to-nvvm)' | FileCheck %s

// tile.load_vector: consecutive elements of the last dimension. Where the last element is in
// bounds and the address 16-byte aligned (the last stride of a dense tensor is the constant 1),
// one 16-byte load; otherwise each element is a masked load of its own (zero outside). Both
// paths yield whole vectors, taken apart after the join.
// CHECK-LABEL: gpu.func @load_vector(
// CHECK-SAME:    %[[W:[a-z0-9]+]]: !llvm.ptr<1>, %[[N:[a-z0-9]+]]: i64,
// CHECK:         %[[FIRST:.+]] = llvm.getelementptr %[[W]][%{{.+}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK:         arith.cmpi ult, %{{.+}}, %[[N]] : i64
// CHECK:         llvm.ptrtoint %[[FIRST]] : !llvm.ptr<1> to i64
// CHECK:         %[[V:.+]]:2 = scf.if %{{.+}} -> (vector<4xf32>, vector<4xf32>) {
// CHECK:           %[[LO4:.+]] = llvm.load %[[FIRST]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:           llvm.getelementptr %[[FIRST]][4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
// CHECK:           %[[HI4:.+]] = llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:           scf.yield %[[LO4]], %[[HI4]] : vector<4xf32>, vector<4xf32>
// The fallback (unit last stride): element k is at FIRST + k, loaded where k is in [-i, N - i);
// no per-element index is formed.
// CHECK:         } else {
// CHECK:           %[[I:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK-NEXT:      %[[LO:.+]] = arith.subi %c0_i64, %[[I]] : i64
// CHECK-NEXT:      %[[HI:.+]] = arith.subi %[[N]], %[[I]] : i64
// CHECK-NEXT:      %[[ABOVE0:.+]] = arith.cmpi sgt, %[[HI]], %c0_i64 : i64
// CHECK-NEXT:      %[[BELOW0:.+]] = arith.cmpi sle, %[[LO]], %c0_i64 : i64
// CHECK-NEXT:      %[[OK0:.+]] = arith.andi %[[BELOW0]], %[[ABOVE0]] : i1
// CHECK-NEXT:      scf.if %[[OK0]] -> (f32) {
// CHECK-NEXT:        llvm.load %[[FIRST]] : !llvm.ptr<1> -> f32
// CHECK:           arith.cmpi sgt, %[[HI]], %c7_i64 : i64
// CHECK-NEXT:      arith.cmpi sle, %[[LO]], %c7_i64 : i64
// CHECK-NEXT:      %[[OK7:.+]] = arith.andi
// CHECK-NEXT:      %[[AT7:.+]] = llvm.getelementptr %[[FIRST]][7] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
// CHECK-NEXT:      scf.if %[[OK7]] -> (f32) {
// CHECK-NEXT:        llvm.load %[[AT7]] : !llvm.ptr<1> -> f32
// CHECK:           scf.yield %{{.+}}, %{{.+}} : vector<4xf32>, vector<4xf32>
// CHECK:         }
// CHECK:         %[[X0:.+]] = llvm.extractelement %[[V]]#0[%c0_i32 : i32] : vector<4xf32>
// CHECK:         %[[X7:.+]] = llvm.extractelement %[[V]]#1[%c3_i32 : i32] : vector<4xf32>
// CHECK:         arith.addf %[[X0]], %[[X7]] : f32
tile.kernel @load_vector threads [32, 1, 1] args ["W", "Y"] dims [["N"], ["N"]] params {} grid {
^bb0(%w: !tile.tensor<f32, 1>, %y: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%w: !tile.tensor<f32, 1>, %y: !tile.tensor<f32, 1>):
  %t = tile.thread_id 0
  %c8 = arith.constant 8 : index
  %i = arith.muli %t, %c8 : index
  %v:8 = tile.load_vector %w[%i] : !tile.tensor<f32, 1> -> f32, f32, f32, f32, f32, f32, f32, f32
  %s = arith.addf %v#0, %v#7 : f32
  tile.store %s, %y[%t] : !tile.tensor<f32, 1>
  tile.yield
}
