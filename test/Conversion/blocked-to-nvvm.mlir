// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-blocked-layouts,tile-partition-threads,tile-shared-memory-layout),convert-tile-to-nvvm)' | FileCheck %s
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-blocked-layouts,tile-partition-threads,tile-shared-memory-layout),convert-tile-to-nvvm)' | FileCheck %s --check-prefix=SYNC

// The lowering of blocked register layouts (RegisterFragments.cpp, MemoryOpsToNVVM.cpp): a
// fragment is a per-thread array of its slots; a copy between a tensor and a #tile.blocked
// fragment moves each thread's vectors as 16-byte accesses where the vector is in bounds (its
// first and last element), the tensor's last stride is 1 and the address is 16-byte aligned,
// checked at run time, with masked element accesses otherwise; `parallel` bodies run on the
// thread's slots (no barrier); a row reduce combines the thread's slots of the row, then the
// row's lanes by xor shuffles, then, where a row spans several warps, the warps' values through
// the reduce's shared `scratch` (lane 0 of each warp stores, barrier, every thread combines its
// row's warps, barrier for the next reduce).

// softmax's shape: f32 [8, 256] on 256 threads, #tile.blocked<vec = 4, threads_per_row = 32>:
// 8 slots per thread (two vectors of 4), one row slot of row values.
// CHECK-LABEL: gpu.func @softmax(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: !llvm.ptr<1>, %[[XM:[a-z0-9]+]]: i64, %[[XN:[a-z0-9]+]]: i64, %[[XS0:[a-z0-9]+]]: i64, %[[XS1:[a-z0-9]+]]: i64,
// CHECK-DAG:     memref.alloca() : memref<1xf32>
// CHECK-DAG:     %[[SLOTS:.+]] = memref.alloca() : memref<8xf32>
// The first vector of the copy in: its first element in bounds, its last (column + 3) in bounds,
// the address 16-byte aligned; then one 16-byte load, else 4 masked loads. X is dense, so its
// last stride is the constant 1 (docs/abi.md): the column is the offset itself, and the check
// that the last stride is 1 folds away (strided-tensor below keeps it).
// CHECK-NOT:     %[[XS1]]
// CHECK:         %[[FIRST:.+]] = llvm.getelementptr %[[X]][%{{.+}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK:         arith.cmpi ult, %{{.+}}, %[[XN]] : i64
// CHECK:         %[[ADDR:.+]] = llvm.ptrtoint %[[FIRST]] : !llvm.ptr<1> to i64
// CHECK-NEXT:    %[[LOW:.+]] = arith.andi %[[ADDR]], %c15_i64 : i64
// CHECK-NEXT:    %[[ALIGNED:.+]] = arith.cmpi eq, %[[LOW]], %c0_i64 : i64
// CHECK-NEXT:    %[[INB:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK-NEXT:    %[[OK:.+]] = arith.andi %[[INB]], %[[ALIGNED]] : i1
// Both paths yield the vector (the fallback builds it from masked element loads); it is taken
// apart after the join, so LLVM keeps the 16-byte load whole.
// CHECK-NEXT:    %[[V:.+]] = scf.if %[[OK]] -> (vector<4xf32>) {
// CHECK-NEXT:      %[[VEC:.+]] = llvm.load %[[FIRST]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NEXT:      scf.yield %[[VEC]] : vector<4xf32>
// CHECK-NEXT:    } else {
// CHECK-COUNT-4:   llvm.load %{{.+}} : !llvm.ptr<1> -> f32
// CHECK-COUNT-4:   llvm.insertelement
// CHECK:           scf.yield %{{.+}} : vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[E0:.+]] = llvm.extractelement %[[V]][%c0_i32 : i32] : vector<4xf32>
// CHECK-NEXT:    %[[E1:.+]] = llvm.extractelement %[[V]][%c1_i32 : i32] : vector<4xf32>
// CHECK-NEXT:    %[[E2:.+]] = llvm.extractelement %[[V]][%c2_i32 : i32] : vector<4xf32>
// CHECK-NEXT:    %[[E3:.+]] = llvm.extractelement %[[V]][%c3_i32 : i32] : vector<4xf32>
// CHECK-NEXT:    memref.store %[[E0]], %[[SLOTS]][%c0] : memref<8xf32>
// CHECK:         memref.store %[[E3]], %[[SLOTS]][%c3] : memref<8xf32>
// The second vector (slots 4 to 7), then no other global vector load.
// CHECK:         llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:         memref.store %{{.+}}, %[[SLOTS]][%c7] : memref<8xf32>
// CHECK-NOT:     vector<4xf32>
// The row maximum: the thread's 8 slots, then lanes xor 1, 2, 4, 8, 16 (32 threads per row).
// CHECK-COUNT-7: arith.maximumf
// CHECK:         gpu.shuffle  xor %{{.+}}, %c1_i32, %c32_i32 : f32
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    gpu.shuffle  xor %{{.+}}, %c2_i32, %c32_i32 : f32
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    gpu.shuffle  xor %{{.+}}, %c4_i32, %c32_i32 : f32
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    gpu.shuffle  xor %{{.+}}, %c8_i32, %c32_i32 : f32
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    gpu.shuffle  xor %{{.+}}, %c16_i32, %c32_i32 : f32
// CHECK-NEXT:    %[[MAX:.+]] = arith.maximumf
// CHECK-NEXT:    memref.store %[[MAX]], %{{.+}}[%c0] : memref<1xf32>
// CHECK-NOT:     gpu.shuffle
// The body on the thread's slots: exp(x - m) for each of the 8 slots.
// CHECK-COUNT-8: math.exp
// The copy out: the same check, one 16-byte store per vector, else 4 masked stores.
// CHECK:         llvm.ptrtoint
// CHECK:         scf.if %{{.+}} {
// CHECK-COUNT-4:   llvm.insertelement
// CHECK-NEXT:      llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT:    } else {
// CHECK-COUNT-4:   llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<1>
// CHECK:         llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:         gpu.return
// Registers are private and rows fit in a warp: no barrier in the whole kernel.
// SYNC-LABEL: gpu.func @softmax(
// SYNC-NOT:     gpu.barrier
// SYNC-LABEL: gpu.func @rownorm(
tile.kernel @softmax threads [256, 1, 1] args ["X", "Y"] dims [["M", "N"], ["M", "N"]] params {} grid {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 2>):
  %m = tile.dim %X[0] : !tile.tensor<f32, 2>
  %c8 = arith.constant 8 : index
  %g = arith.ceildivsi %m, %c8 : index
  %c1 = arith.constant 1 : index
  tile.yield %g, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 2>):
  %x = tile.alloc : !tile.buffer<fragment 8x256xf32>
  %mx = tile.alloc : !tile.buffer<fragment 8xf32>
  %bx = tile.block_id 0
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  %c0 = arith.constant 0 : index
  tile.copy %X[%row, %c0] to %x : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x256xf32>
  tile.reduce %x, %mx {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 8x256xf32> to !tile.buffer<fragment 8xf32>
  tile.parallel [8, 256] {
  ^bb0(%r: index, %c: index):
    %v = tile.read %x[%r, %c] : !tile.buffer<fragment 8x256xf32>
    %mr = tile.read %mx[%r] : !tile.buffer<fragment 8xf32>
    %d = arith.subf %v, %mr : f32
    %e = math.exp %d : f32
    tile.write %e, %x[%r, %c] : !tile.buffer<fragment 8x256xf32>
  }
  tile.copy %x to %Y[%row, %c0] : !tile.buffer<fragment 8x256xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// A row of 4096 f32 values from a bf16 tensor, #tile.blocked<vec = 8, threads_per_row = 256>:
// 16 slots per thread, each vector one 16-byte load of 8 bf16 (converted to f32), and the sum of
// the row across the 8 warps through an 8-value shared scratch.
// CHECK-LABEL: gpu.func @rownorm(
// CHECK:         %[[SMEM:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-DAG:     %[[ROW:.+]] = memref.alloca() : memref<1xf32>
// CHECK-DAG:     memref.alloca() : memref<16xf32>
// CHECK-DAG:     %[[SCRATCH:.+]] = memref.view %[[SMEM]][%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[LOW:.+]] = arith.andi %{{.+}}, %c15_i64 : i64
// CHECK:         scf.if %{{.+}} -> (vector<8xbf16>) {
// CHECK-NEXT:      llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK:         } else {
// CHECK-COUNT-8:   llvm.load %{{.+}} : !llvm.ptr<1> -> bf16
// CHECK-COUNT-8:   llvm.insertelement
// CHECK:         arith.extf %{{.+}} : bf16 to f32
// CHECK:         llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// The thread's 16 slots, then the warp's lanes.
// CHECK-COUNT-15: arith.addf
// CHECK:         gpu.shuffle  xor %{{.+}}, %c1_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.+}}, %c2_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.+}}, %c4_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.+}}, %c8_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.+}}, %c16_i32, %c32_i32 : f32
// CHECK-NEXT:    %[[WARPSUM:.+]] = arith.addf
// Lane 0 of each warp stores the warp's sum at scratch[warp]; after a barrier every thread adds
// the 8 values of its row (warps 8 (t / 256) and on); a second barrier before the scratch is
// written again.
// CHECK-NEXT:    %[[TID:.+]] = gpu.thread_id  x
// CHECK-NEXT:    %[[WARP:.+]] = arith.divui %[[TID]], %c32 : index
// CHECK-NEXT:    %[[LANE:.+]] = arith.remui %[[TID]], %c32 : index
// CHECK-NEXT:    %[[LEADER:.+]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK-NEXT:    scf.if %[[LEADER]] {
// CHECK-NEXT:      memref.store %[[WARPSUM]], %[[SCRATCH]][%[[WARP]]] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    %[[GROUP:.+]] = arith.divui %[[TID]], %c256 : index
// CHECK-NEXT:    %[[FIRSTWARP:.+]] = arith.muli %[[GROUP]], %c8 : index
// CHECK-NEXT:    memref.load %[[SCRATCH]][%[[FIRSTWARP]]] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-7: memref.load %[[SCRATCH]][
// CHECK-NEXT:    %[[SUM:.+]] = arith.addf
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.store %[[SUM]], %[[ROW]][%c0] : memref<1xf32>
// CHECK-NOT:     gpu.barrier
// The copy out: f32 to bf16 two at a time (the low element second), 16-byte stores of 8 bf16.
// CHECK:         nvvm.convert.f32x2.to.bf16x2 %[[HI:.+]], %[[LO:.+]] {rnd = #nvvm.fp_rnd_mode<rn>} : vector<2xbf16>
// CHECK-NOT:     arith.truncf %{{.+}} : f32 to bf16
// CHECK:         llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK:         llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK:         gpu.return
tile.kernel @rownorm threads [256, 1, 1] args ["X", "Y"] dims [["M", "N"], ["M", "N"]] params {} grid {
^bb0(%X: !tile.tensor<bf16, 2>, %Y: !tile.tensor<bf16, 2>):
  %m = tile.dim %X[0] : !tile.tensor<bf16, 2>
  %c1 = arith.constant 1 : index
  tile.yield %m, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<bf16, 2>, %Y: !tile.tensor<bf16, 2>):
  %x = tile.alloc : !tile.buffer<fragment 1x4096xf32>
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

// A tensor declared with run-time strides keeps them: its vector accesses also check that the
// last stride is 1, and its element accesses multiply by it; Y is dense (last stride the
// constant 1), a declared constant stride is the constant itself.
// CHECK-LABEL: gpu.func @strided(
// CHECK-SAME:    %[[SX:[a-z0-9]+]]: !llvm.ptr<1>, %{{[a-z0-9]+}}: i64, %[[SXN:[a-z0-9]+]]: i64, %{{[a-z0-9]+}}: i64, %[[SXS1:[a-z0-9]+]]: i64,
// CHECK-SAME:    %[[SY:[a-z0-9]+]]: !llvm.ptr<1>, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %[[SYS0:[a-z0-9]+]]: i64, %[[SYS1:[a-z0-9]+]]: i64,
// CHECK-SAME:    %[[SZ:[a-z0-9]+]]: !llvm.ptr<1>, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %[[SZS0:[a-z0-9]+]]: i64, %[[SZS1:[a-z0-9]+]]: i64)
// CHECK:         arith.muli %{{.+}}, %[[SXS1]] : i64
// CHECK:         arith.cmpi eq, %[[SXS1]], %c1_i64 : i64
// CHECK:         llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT:     %[[SYS1]]
// CHECK-NOT:     %[[SZS0]]
// CHECK-NOT:     %[[SZS1]]
// CHECK:         llvm.store %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:         gpu.return
tile.kernel @strided threads [256, 1, 1] args ["X", "Y", "Z"] dims [["M", "N"], ["M", "N"], ["N", "M"]] params {} attributes {strides = [["ld", "sn"], [], ["1", "3"]]} grid {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 2>, %Z: !tile.tensor<f32, 2>):
  %m = tile.dim %X[0] : !tile.tensor<f32, 2>
  %c8 = arith.constant 8 : index
  %g = arith.ceildivsi %m, %c8 : index
  %c1 = arith.constant 1 : index
  tile.yield %g, %c1, %c1 : index, index, index
} body {
^bb0(%X: !tile.tensor<f32, 2>, %Y: !tile.tensor<f32, 2>, %Z: !tile.tensor<f32, 2>):
  %x = tile.alloc : !tile.buffer<fragment 8x256xf32>
  %bx = tile.block_id 0
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  %c0 = arith.constant 0 : index
  tile.copy %X[%row, %c0] to %x : !tile.tensor<f32, 2> to !tile.buffer<fragment 8x256xf32>
  tile.copy %x to %Y[%row, %c0] : !tile.buffer<fragment 8x256xf32> to !tile.tensor<f32, 2>
  tile.copy %x to %Z[%c0, %row] : !tile.buffer<fragment 8x256xf32> to !tile.tensor<f32, 2>
  tile.yield
}
