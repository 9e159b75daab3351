// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(llvm.func(tlc-mark-grid-constants))' --verify-diagnostics | FileCheck %s

// tlc-mark-grid-constants, alone on hand-written llvm.funcs: each tensor-map parameter of the
// entry's #tile.entry becomes a 128-byte byval __grid_constant__ parameter; an entry with a
// producer warpgroup gets one block per multiprocessor; other functions are left alone.

// CHECK-LABEL: llvm.func @gemm__tma(
// CHECK-SAME:    %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME:    nvvm.minctasm = 1 : i32
llvm.func @gemm__tma(%a: !llvm.ptr, %map: !llvm.ptr) attributes {tile.entry = #tile.entry<"gemm", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 1024, maps = [#tile.tensor_map<param = 1, arg = 0, box = [128, 64], swizzle = 128, element = bf16>]>} {
  llvm.return
}

// -----

// CHECK-LABEL: llvm.func @gemm__loads(%{{.+}}: !llvm.ptr)
// CHECK-SAME:    nvvm.minctasm = 1 : i32
llvm.func @gemm__loads(%a: !llvm.ptr) attributes {tile.entry = #tile.entry<"gemm", kind = loads, threads = 384, compute_threads = 256, shared_bytes = 0, maps = []>} {
  llvm.return
}

// -----

// CHECK-LABEL: llvm.func @plain(%{{.+}}: !llvm.ptr)
// CHECK-NOT:     minctasm
// CHECK-NOT:     grid_constant
llvm.func @plain(%a: !llvm.ptr) attributes {tile.entry = #tile.entry<"plain", kind = plain, threads = 128, compute_threads = 0, shared_bytes = 0, maps = []>} {
  llvm.return
}

// CHECK-LABEL: llvm.func @helper(%{{.+}}: !llvm.ptr)
// CHECK-NOT:     grid_constant
llvm.func @helper(%a: !llvm.ptr) {
  llvm.return
}

// -----

// Precondition: the tensor-map parameters are pointers (after tlc-gpu-to-nvvm).
// expected-error @+1 {{tensor map parameter 1 must be a pointer (the CUtensorMap passed by value); got 'i32'}}
llvm.func @early(%a: !llvm.ptr, %map: i32) attributes {tile.entry = #tile.entry<"early", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, maps = [#tile.tensor_map<param = 1, arg = 0, box = [64, 64], swizzle = 128, element = bf16>]>} {
  llvm.return
}
