// RUN: tlc-opt %s --pass-pipeline='builtin.module(gpu.module(tlc-gpu-to-nvvm))' | FileCheck %s

// tlc-gpu-to-nvvm lowers to LLVM/NVVM as upstream's convert-gpu-to-nvvm does (64-bit
// indices), but keeps identical blocks apart: two branches storing into different buffers stay
// two stores, each to its own buffer (upstream's pass merged them into one block whose argument
// picks the buffer, the shape that kept fragments in local memory).
// CHECK-LABEL: llvm.func @k
// CHECK-SAME:    nvvm.kernel
// CHECK:         nvvm.read.ptx.sreg.tid.x
// CHECK:         llvm.cond_br %{{.+}}, ^[[A:bb[0-9]+]], ^[[B:bb[0-9]+]]
// CHECK-NOT:     !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>)
// CHECK:       ^[[A]]:
// CHECK:         llvm.store
// CHECK:       ^[[B]]:
// CHECK:         llvm.store
gpu.module @m {
  gpu.func @k(%c: i1, %v: f32) kernel {
    %a = memref.alloca() : memref<4xf32>
    %b = memref.alloca() : memref<4xf32>
    %i = gpu.thread_id x
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    memref.store %v, %a[%i] : memref<4xf32>
    cf.br ^bb3
  ^bb2:
    memref.store %v, %b[%i] : memref<4xf32>
    cf.br ^bb3
  ^bb3:
    %x = memref.load %a[%i] : memref<4xf32>
    %y = memref.load %b[%i] : memref<4xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %a[%i] : memref<4xf32>
    gpu.return
  }
}
