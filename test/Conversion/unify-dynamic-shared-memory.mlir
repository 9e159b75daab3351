// RUN: tlc-opt %s --pass-pipeline='builtin.module(gpu.module(tlc-unify-dynamic-shared-memory))' --split-input-file | FileCheck %s

// The generic lowering's dynamic shared memory (upstream `__dynamic_shmem__N`) and the
// tensor-core lowerings' `tlc_smem` become one symbol, 1024-byte aligned (issue 17).
// CHECK-LABEL: gpu.module @mixed
// CHECK:         llvm.mlir.global external @tlc_smem() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK-NOT:     __dynamic_shmem__
// CHECK:         llvm.func @k
// CHECK-NEXT:      %[[A:.+]] = llvm.mlir.addressof @tlc_smem : !llvm.ptr<3>
// CHECK-NEXT:      %[[B:.+]] = llvm.mlir.addressof @tlc_smem : !llvm.ptr<3>
// CHECK-NEXT:      %[[C:.+]] = llvm.mlir.addressof @tlc_smem : !llvm.ptr<3>
// CHECK-NEXT:      %[[S:.+]] = llvm.mlir.addressof @static_tile : !llvm.ptr<3>
gpu.module @mixed {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__dynamic_shmem__1() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global external @tlc_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
  llvm.func @k() {
    %0 = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
    %1 = llvm.mlir.addressof @tlc_smem : !llvm.ptr<3>
    %2 = llvm.mlir.addressof @__dynamic_shmem__1 : !llvm.ptr<3>
    %3 = llvm.mlir.addressof @static_tile : !llvm.ptr<3>
    llvm.return
  }
}

// -----

// A module of the generic lowering alone gets `tlc_smem` too.
// CHECK-LABEL: gpu.module @generic
// CHECK:         llvm.mlir.global external @tlc_smem()
// CHECK-NOT:     __dynamic_shmem__0
// CHECK:         llvm.mlir.addressof @tlc_smem
gpu.module @generic {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.func @k() {
    %0 = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
    llvm.return
  }
}

// -----

// Nothing to unify: unchanged.
// CHECK-LABEL: gpu.module @none
// CHECK-NOT:     tlc_smem
gpu.module @none {
  llvm.func @k() {
    llvm.return
  }
}
