// RUN: tlc-opt %s --tlc-pipeline | FileCheck %s
// RUN: tlc-opt %s --tlc-pipeline=arch=sm_80 | FileCheck %s
// RUN: tlc-opt %s --tlc-pipeline | FileCheck %s --check-prefix=NONE

// --tlc-pipeline: the whole lowering from the tile dialect to the LLVM and NVVM dialects. What
// is left is a gpu.module of llvm.func kernels (no tile, scf, memref, arith, cf or gpu ops), with
// the block shape as nvvm.maxntid and indices read from the NVVM special registers.

// CHECK:       module attributes {gpu.container_module{{[,}]}}
// CHECK-NEXT:  gpu.module @tlc_kernels {
// CHECK-NEXT:    llvm.func @k(%{{.+}}: !llvm.ptr<1>, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: f32)
// CHECK-SAME:      gpu.kernel
// CHECK-SAME:      nvvm.kernel
// CHECK-SAME:      nvvm.maxntid = array<i32: 64, 1, 1>
// CHECK-DAG:     nvvm.read.ptx.sreg.tid.x
// CHECK-DAG:     nvvm.read.ptx.sreg.ctaid.x
// CHECK-DAG:     llvm.load %{{.+}} : !llvm.ptr<1> -> f32
// CHECK-DAG:     llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<1>
// CHECK:         llvm.return
// NONE-NOT: {{^ *(%[^ ]+ = )?(tile|scf|memref|arith|cf|index)\.}}
// NONE-NOT: {{= gpu\.}}
// NONE-NOT: {{^ *gpu\.(func|return|thread_id|block_id)}}
tile.kernel @k threads [64, 1, 1] args ["X", "s"] dims [["N"], []] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>, %s: f32):
  %n = tile.dim %x[0] : !tile.tensor<f32, 1>
  %c64 = arith.constant 64 : index
  %g = arith.ceildivsi %n, %c64 : index
  %c1 = arith.constant 1 : index
  tile.yield %g, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>, %s: f32):
  %acc = memref.alloca() : memref<f32>
  memref.store %s, %acc[] : memref<f32>
  %b = tile.block_id 0
  tile.parallel [128] {
  ^bb0(%i: index):
    %c128 = arith.constant 128 : index
    %base = arith.muli %b, %c128 : index
    %k = arith.addi %base, %i : index
    %v = tile.load %x[%k] : !tile.tensor<f32, 1>
    %a = memref.load %acc[] : memref<f32>
    %w = arith.addf %v, %a : f32
    tile.store %w, %x[%k] : !tile.tensor<f32, 1>
  }
  tile.yield
}
