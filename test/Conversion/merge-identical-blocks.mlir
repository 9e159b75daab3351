// RUN: tlc-opt %s --pass-pipeline='builtin.module(llvm.func(tlc-merge-identical-blocks))' | FileCheck %s

// tlc-merge-identical-blocks merges identical blocks whose differing operands are values or
// global addresses (the masked stores of an epilogue: one block, the address an argument) ...
// CHECK-LABEL: llvm.func @global_stores
// CHECK:         llvm.cond_br %{{.+}}, ^[[S:bb[0-9]+]](%arg1 : !llvm.ptr<1>), ^[[S]](%arg2 : !llvm.ptr<1>)
// CHECK:       ^[[S]](%[[P:.+]]: !llvm.ptr<1>):
// CHECK-NEXT:    llvm.store %arg3, %[[P]]
// CHECK-NOT:     llvm.store
// CHECK:         llvm.return
llvm.func @global_stores(%c: i1, %p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %v: f32) {
  llvm.cond_br %c, ^bb1, ^bb2
^bb1:
  llvm.store %v, %p : f32, !llvm.ptr<1>
  llvm.br ^bb3
^bb2:
  llvm.store %v, %q : f32, !llvm.ptr<1>
  llvm.br ^bb3
^bb3:
  llvm.return
}

// ... but keeps them apart where a block argument would receive a local buffer's address (a
// fragment: LLVM keeps buffers whose address is a phi in local memory), GEPs included.
// CHECK-LABEL: llvm.func @local_stores
// CHECK:         llvm.cond_br %{{.+}}, ^[[A:bb[0-9]+]], ^[[B:bb[0-9]+]]
// CHECK:       ^[[A]]:
// CHECK-NEXT:    llvm.store %arg1, %{{.+}} : f32, !llvm.ptr
// CHECK:       ^[[B]]:
// CHECK-NEXT:    llvm.store %arg1, %{{.+}} : f32, !llvm.ptr
llvm.func @local_stores(%c: i1, %v: f32, %i: i64) -> f32 {
  %n = llvm.mlir.constant(4 : i64) : i64
  %a = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
  %b = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
  %ai = llvm.getelementptr %a[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %bi = llvm.getelementptr %b[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  llvm.cond_br %c, ^bb1, ^bb2
^bb1:
  llvm.store %v, %ai : f32, !llvm.ptr
  llvm.br ^bb3
^bb2:
  llvm.store %v, %bi : f32, !llvm.ptr
  llvm.br ^bb3
^bb3:
  %x = llvm.load %ai : !llvm.ptr -> f32
  llvm.return %x : f32
}

// ... also where the argument would be a struct holding such an address (a local buffer's
// memref descriptor).
// CHECK-LABEL: llvm.func @local_descriptors
// CHECK:         llvm.cond_br %{{.+}}, ^[[A:bb[0-9]+]], ^[[B:bb[0-9]+]]
// CHECK:       ^[[A]]:
// CHECK-NEXT:    llvm.call @use(%{{.+}}) : (!llvm.struct<(ptr, i64)>) -> ()
// CHECK:       ^[[B]]:
// CHECK-NEXT:    llvm.call @use(%{{.+}}) : (!llvm.struct<(ptr, i64)>) -> ()
llvm.func @use(!llvm.struct<(ptr, i64)>)
llvm.func @local_descriptors(%c: i1) {
  %n = llvm.mlir.constant(4 : i64) : i64
  %a = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
  %b = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
  %u = llvm.mlir.undef : !llvm.struct<(ptr, i64)>
  %da0 = llvm.insertvalue %a, %u[0] : !llvm.struct<(ptr, i64)>
  %da = llvm.insertvalue %n, %da0[1] : !llvm.struct<(ptr, i64)>
  %db0 = llvm.insertvalue %b, %u[0] : !llvm.struct<(ptr, i64)>
  %db = llvm.insertvalue %n, %db0[1] : !llvm.struct<(ptr, i64)>
  llvm.cond_br %c, ^bb1, ^bb2
^bb1:
  llvm.call @use(%da) : (!llvm.struct<(ptr, i64)>) -> ()
  llvm.br ^bb3
^bb2:
  llvm.call @use(%db) : (!llvm.struct<(ptr, i64)>) -> ()
  llvm.br ^bb3
^bb3:
  llvm.return
}
