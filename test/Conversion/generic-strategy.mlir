// RUN: tlc-opt %s --split-input-file --tile-set-target --convert-tile-to-nvvm | FileCheck %s

// The generic strategy of convert-tile-to-nvvm: shared and fragment buffers are views of the
// block's dynamic shared memory, local buffers per-thread allocas; copy, fill, gemm and reduce
// are spread element by element over the block's threads (consecutive threads on consecutive
// elements) and followed by a gpu.barrier; tile.barrier is a gpu.barrier; atomic_add is a masked
// llvm.atomicrmw.

// Shared and fragment buffers are memref.views of gpu.dynamic_shared_memory at 16-byte-aligned
// offsets in declaration order (3 x f16 = 6 bytes at 0, 2 x 5 x f32 = 40 bytes at 16, 7 x i8 at
// 64, 16 x f64 at 80: 208 bytes); local buffers take no shared memory. The module records each
// kernel's bytes in its `tile.entry`, 0 for kernels without block buffers.
// CHECK-LABEL: module attributes {gpu.container_module, tile.target = {{.+}}}
// CHECK-LABEL: gpu.func @offsets(
// CHECK-SAME:    tile.entry = #tile.entry<"offsets", kind = plain, threads = 128, compute_threads = 0, shared_bytes = 208, maps = []>
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG:     %[[C80:.+]] = arith.constant 80 : index
// CHECK:         %[[BASE:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[A:.+]] = memref.view %[[BASE]][%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[L:.+]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT:    %[[B:.+]] = memref.view %[[BASE]][%[[C16]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x5xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[C:.+]] = memref.view %[[BASE]][%[[C64]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<7xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[D:.+]] = memref.view %[[BASE]][%[[C80]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf64, #gpu.address_space<workgroup>>
// CHECK-NOT:     gpu.dynamic_shared_memory
// CHECK:         memref.load %[[A]][
// CHECK:         memref.load %[[B]][
// CHECK:         memref.store %{{.+}}, %[[L]][
// CHECK:         memref.load %[[L]][
// CHECK:         memref.load %[[C]][
// CHECK:         memref.load %[[D]][
// CHECK:         gpu.return
// CHECK-LABEL: gpu.func @no_buffers(
// CHECK-SAME:    shared_bytes = 0,
// CHECK-NOT:     gpu.dynamic_shared_memory
// CHECK:         gpu.return
// CHECK-LABEL: gpu.func @local_only(
// CHECK-SAME:    shared_bytes = 0,
// CHECK-NOT:     gpu.dynamic_shared_memory
// CHECK:         memref.alloca() : memref<8xi32>
// CHECK-NOT:     gpu.dynamic_shared_memory
// CHECK:         gpu.return
tile.kernel @offsets threads [128, 1, 1] args ["X", "Y"] dims [["N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>, %y: !tile.tensor<i8, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>, %y: !tile.tensor<i8, 1>):
  %a = tile.alloc : !tile.buffer<shared 3xf16>
  %l = tile.alloc : !tile.buffer<local 4xf32>
  %b = tile.alloc : !tile.buffer<fragment 2x5xf32>
  %c = tile.alloc : !tile.buffer<shared 7xi8>
  %d = tile.alloc : !tile.buffer<shared 16xf64>
  %i = arith.constant 1 : index
  %v = tile.read %a[%i] : !tile.buffer<shared 3xf16>
  %vf = arith.extf %v : f16 to f32
  tile.store %vf, %x[%i] : !tile.tensor<f32, 1>
  %w = tile.read %b[%i, %i] : !tile.buffer<fragment 2x5xf32>
  tile.write %w, %l[%i] : !tile.buffer<local 4xf32>
  %s = tile.read %l[%i] : !tile.buffer<local 4xf32>
  tile.store %s, %x[%i] : !tile.tensor<f32, 1>
  %u = tile.read %c[%i] : !tile.buffer<shared 7xi8>
  tile.store %u, %y[%i] : !tile.tensor<i8, 1>
  %t = tile.read %d[%i] : !tile.buffer<shared 16xf64>
  %tf = arith.truncf %t : f64 to f32
  tile.store %tf, %x[%i] : !tile.tensor<f32, 1>
  tile.yield
}
tile.kernel @no_buffers threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  tile.store %v, %x[%c0] : !tile.tensor<f32, 1>
  tile.yield
}
tile.kernel @local_only threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<i32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<i32, 1>):
  %l = tile.alloc : !tile.buffer<local 8xi32>
  %c0 = arith.constant 0 : index
  %v = tile.read %l[%c0] : !tile.buffer<local 8xi32>
  tile.store %v, %x[%c0] : !tile.tensor<i32, 1>
  tile.yield
}

// -----

// copy: a loop of ceil(256 / 128) = 2 steps per thread; at step k thread t takes element
// k * 128 + t of the 4 x 64 tile, as (linear / 64, linear % 64). A tensor side is a masked
// access at offset + coordinate: a bounds-checked llvm.load (zero outside) or llvm.store.
// Values are converted to the destination's type. A barrier follows each copy. The tensors are
// dense: their last stride is the constant 1 (docs/abi.md), the column its own offset.
// CHECK-LABEL: gpu.func @copies(
// CHECK-SAME:      %[[X:[^:]+]]: !llvm.ptr<1>, %[[XM:[^:]+]]: i64, %[[XN:[^:]+]]: i64, %[[XSM:[^:]+]]: i64, %[[XSN:[^:]+]]: i64,
// CHECK-SAME:      %[[Y:[^:]+]]: !llvm.ptr<1>, %[[YM:[^:]+]]: i64, %[[YN:[^:]+]]: i64, %[[YSM:[^:]+]]: i64, %[[YSN:[^:]+]]: i64)
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG:     %[[C128:.+]] = arith.constant 128 : index
// CHECK-DAG:     %[[C1024:.+]] = arith.constant 1024 : index
// CHECK:         %[[S:.+]] = memref.view %{{.+}}[%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[F:.+]] = memref.view %{{.+}}[%[[C1024]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[ROW0:.+]] = gpu.block_id  x
// CHECK-NEXT:    %[[TID:.+]] = gpu.thread_id  x
// CHECK-NEXT:    scf.for %[[K:.+]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK-NEXT:      %[[BASE:.+]] = arith.muli %[[K]], %[[C128]] : index
// CHECK-NEXT:      %[[LIN:.+]] = arith.addi %[[BASE]], %[[TID]] : index
// CHECK-NEXT:      %[[COL:.+]] = arith.remui %[[LIN]], %[[C64]] : index
// CHECK-NEXT:      %[[ROW:.+]] = arith.divui %[[LIN]], %[[C64]] : index
// CHECK-NEXT:      %[[I:.+]] = arith.addi %[[ROW0]], %[[ROW]] : index
// CHECK-NEXT:      %[[J:.+]] = arith.addi %[[COL]], %[[C64]] : index
// CHECK-NEXT:      %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[IOK:.+]] = arith.cmpi ult, %[[I64]], %[[XM]] : i64
// CHECK-NEXT:      %[[IOFF:.+]] = arith.muli %[[I64]], %[[XSM]] : i64
// CHECK-NEXT:      %[[J64:.+]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:      %[[JOK:.+]] = arith.cmpi ult, %[[J64]], %[[XN]] : i64
// CHECK-NEXT:      %[[OK:.+]] = arith.andi %[[IOK]], %[[JOK]] : i1
// CHECK-NEXT:      %[[OFF:.+]] = arith.addi %[[IOFF]], %[[J64]] : i64
// CHECK-NEXT:      %[[PTR:.+]] = llvm.getelementptr %[[X]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT:      %[[V:.+]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT:        %[[LD:.+]] = llvm.load %[[PTR]] : !llvm.ptr<1> -> f32
// CHECK-NEXT:        scf.yield %[[LD]] : f32
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[ZERO]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[V]], %[[S]][%[[ROW]], %[[COL]]] : memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// Buffer to buffer: same coordinates, f32 truncated to bf16.
// CHECK-NEXT:    %[[TID2:.+]] = gpu.thread_id  x
// CHECK-NEXT:    scf.for %[[K2:.+]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK-NEXT:      %[[BASE2:.+]] = arith.muli %[[K2]], %[[C128]] : index
// CHECK-NEXT:      %[[LIN2:.+]] = arith.addi %[[BASE2]], %[[TID2]] : index
// CHECK-NEXT:      %[[COL2:.+]] = arith.remui %[[LIN2]], %[[C64]] : index
// CHECK-NEXT:      %[[ROW2:.+]] = arith.divui %[[LIN2]], %[[C64]] : index
// CHECK-NEXT:      %[[E:.+]] = memref.load %[[S]][%[[ROW2]], %[[COL2]]] : memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[EB:.+]] = arith.truncf %[[E]] : f32 to bf16
// CHECK-NEXT:      memref.store %[[EB]], %[[F]][%[[ROW2]], %[[COL2]]] : memref<4x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// Buffer to tensor: a masked llvm.store.
// CHECK-NEXT:    %[[TID3:.+]] = gpu.thread_id  x
// CHECK-NEXT:    scf.for
// CHECK:           %[[E3:.+]] = memref.load %[[F]][%[[ROW3:.+]], %[[COL3:.+]]] : memref<4x64xbf16, #gpu.address_space<workgroup>>
// CHECK:           %[[YOK:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK:           %[[YPTR:.+]] = llvm.getelementptr %[[Y]][%{{.+}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// CHECK-NEXT:      scf.if %[[YOK]] {
// CHECK-NEXT:        llvm.store %[[E3]], %[[YPTR]] : bf16, !llvm.ptr<1>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    gpu.return
tile.kernel @copies threads [128, 1, 1] args ["X", "Y"] dims [["M", "N"], ["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<bf16, 2>):
  %s = tile.alloc : !tile.buffer<shared 4x64xf32>
  %f = tile.alloc : !tile.buffer<fragment 4x64xbf16>
  %r = tile.block_id 0
  %c = arith.constant 64 : index
  tile.copy %x[%r, %c] to %s : !tile.tensor<f32, 2> to !tile.buffer<shared 4x64xf32>
  tile.copy %s to %f : !tile.buffer<shared 4x64xf32> to !tile.buffer<fragment 4x64xbf16>
  tile.copy %f to %y[%r, %c] : !tile.buffer<fragment 4x64xbf16> to !tile.tensor<bf16, 2>
  tile.yield
}

// -----

// A rank-4 tensor into a rank-2 buffer: the two leading dimensions are indexed by their offsets
// alone, the last two by offset + coordinate. A 2-D block (32 x 2 threads) linearizes the thread
// index as x + y * 32 (+ z * 64).
// CHECK-LABEL: gpu.func @rank4_copy(
// CHECK-SAME:      %[[Q:[^:]+]]: !llvm.ptr<1>, %[[B:[^:]+]]: i64, %[[H:[^:]+]]: i64, %[[S:[^:]+]]: i64, %[[D:[^:]+]]: i64, %[[SB:[^:]+]]: i64, %[[SH:[^:]+]]: i64, %[[SS:[^:]+]]: i64, %[[SD:[^:]+]]: i64)
// CHECK-DAG:     %[[C3I:.+]] = arith.constant 3 : i64
// CHECK-DAG:     %[[C7:.+]] = arith.constant 7 : index
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : index
// CHECK:         %[[BX:.+]] = gpu.block_id  x
// CHECK-NEXT:    %[[TX:.+]] = gpu.thread_id  x
// CHECK-NEXT:    %[[TY:.+]] = gpu.thread_id  y
// CHECK-NEXT:    %[[TZ:.+]] = gpu.thread_id  z
// CHECK-NEXT:    %[[YOFF:.+]] = arith.muli %[[TY]], %[[C32]] : index
// CHECK-NEXT:    %[[XY:.+]] = arith.addi %[[TX]], %[[YOFF]] : index
// CHECK-NEXT:    %[[ZOFF:.+]] = arith.muli %[[TZ]], %[[C64]] : index
// CHECK-NEXT:    %[[TID:.+]] = arith.addi %[[XY]], %[[ZOFF]] : index
// CHECK-NEXT:    scf.for
// CHECK:           %[[COL:.+]] = arith.remui %{{.+}}, %[[C64]] : index
// CHECK-NEXT:      %[[ROW:.+]] = arith.divui %{{.+}}, %[[C64]] : index
// CHECK-NEXT:      %[[I2:.+]] = arith.addi %[[ROW]], %[[C7]] : index
// CHECK-NEXT:      %[[I0:.+]] = arith.index_cast %[[BX]] : index to i64
// CHECK-NEXT:      %[[OK0:.+]] = arith.cmpi ult, %[[I0]], %[[B]] : i64
// CHECK-NEXT:      %[[OFF0:.+]] = arith.muli %[[I0]], %[[SB]] : i64
// CHECK-NEXT:      %[[OK1:.+]] = arith.cmpi ugt, %[[H]], %[[C3I]] : i64
// CHECK-NEXT:      %[[OK01:.+]] = arith.andi %[[OK0]], %[[OK1]] : i1
// CHECK-NEXT:      %[[OFF1:.+]] = arith.muli %[[SH]], %[[C3I]] : i64
// CHECK:           %[[I264:.+]] = arith.index_cast %[[I2]] : index to i64
// CHECK-NEXT:      arith.cmpi ult, %[[I264]], %[[S]] : i64
// CHECK:           %[[I364:.+]] = arith.index_cast %[[COL]] : index to i64
// CHECK-NEXT:      arith.cmpi ult, %[[I364]], %[[D]] : i64
// CHECK:           llvm.getelementptr %[[Q]][%{{.+}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// CHECK:           llvm.load %{{.+}} : !llvm.ptr<1> -> bf16
// CHECK:           %[[W:.+]] = arith.extf %{{.+}} : bf16 to f32
// CHECK-NEXT:      memref.store %[[W]], %{{.+}}[%[[ROW]], %[[COL]]] : memref<2x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
tile.kernel @rank4_copy threads [32, 2, 1] args ["Q"] dims [["B", "H", "S", "D"]] params {} grid {
^bb0(%q: !tile.tensor<bf16, 4>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%q: !tile.tensor<bf16, 4>):
  %s = tile.alloc : !tile.buffer<shared 2x64xf32>
  %b = tile.block_id 0
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c0 = arith.constant 0 : index
  tile.copy %q[%b, %c3, %c7, %c0] to %s : !tile.tensor<bf16, 4> to !tile.buffer<shared 2x64xf32>
  tile.yield
}

// -----

// gemm: each thread computes whole elements (m, n) of C: an inner scf.for over K carries an f32
// sum that starts from C[m, n] and adds A[m, k] * B[n, k] (B transposed), widened to f32; the
// result is stored back to C, then a barrier.
// CHECK-LABEL: gpu.func @gemm_bf16(
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK-DAG:     %[[C1024:.+]] = arith.constant 1024 : index
// CHECK-DAG:     %[[C2048:.+]] = arith.constant 2048 : index
// CHECK:         %[[A:.+]] = memref.view %{{.+}}[%[[C0]]][] : {{.+}} to memref<16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[B:.+]] = memref.view %{{.+}}[%[[C1024]]][] : {{.+}} to memref<16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[C:.+]] = memref.view %{{.+}}[%[[C2048]]][] : {{.+}} to memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[TID:.+]] = gpu.thread_id  x
// CHECK-NEXT:    scf.for %{{.+}} = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK:           %[[N:.+]] = arith.remui %{{.+}}, %[[C16]] : index
// CHECK-NEXT:      %[[M:.+]] = arith.divui %{{.+}}, %[[C16]] : index
// CHECK-NEXT:      %[[INIT:.+]] = memref.load %[[C]][%[[M]], %[[N]]] : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[SUM:.+]] = scf.for %[[K:.+]] = %[[C0]] to %[[C32]] step %[[C1]] iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:        %[[AV:.+]] = memref.load %[[A]][%[[M]], %[[K]]] : memref<16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:        %[[AF:.+]] = arith.extf %[[AV]] : bf16 to f32
// CHECK-NEXT:        %[[BV:.+]] = memref.load %[[B]][%[[N]], %[[K]]] : memref<16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:        %[[BF:.+]] = arith.extf %[[BV]] : bf16 to f32
// CHECK-NEXT:        %[[P:.+]] = arith.mulf %[[AF]], %[[BF]] : f32
// CHECK-NEXT:        %[[NEXT:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:        scf.yield %[[NEXT]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[SUM]], %[[C]][%[[M]], %[[N]]] : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    gpu.return
tile.kernel @gemm_bf16 threads [64, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %a = tile.alloc : !tile.buffer<shared 16x32xbf16>
  %b = tile.alloc : !tile.buffer<shared 16x32xbf16>
  %c = tile.alloc : !tile.buffer<fragment 16x16xf32>
  tile.gemm %a, %b, %c {transpose_b} : !tile.buffer<shared 16x32xbf16>, !tile.buffer<shared 16x32xbf16>, !tile.buffer<fragment 16x16xf32>
  tile.yield
}

// -----

// gemm of i8 into i32 with clear and A transposed: the sum starts at 0 and multiplies in i32;
// 16 elements over 32 threads are guarded.
// CHECK-LABEL: gpu.func @gemm_i8_clear(
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK:         %[[A:.+]] = memref.view %{{.+}} to memref<8x4xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[C:.+]] = memref.view %{{.+}} to memref<4x4xi32, #gpu.address_space<workgroup>>
// CHECK:           %[[IN:.+]] = arith.cmpi ult, %{{.+}}, %[[C16]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK-NEXT:        %[[N:.+]] = arith.remui
// CHECK-NEXT:        %[[M:.+]] = arith.divui
// CHECK-NEXT:        %[[SUM:.+]] = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (i32) {
// CHECK-NEXT:          %[[AV:.+]] = memref.load %[[A]][%[[K]], %[[M]]]
// CHECK-NEXT:          %[[AI:.+]] = arith.extsi %[[AV]] : i8 to i32
// CHECK-NEXT:          %[[BV:.+]] = memref.load %[[A]][%[[K]], %[[N]]]
// CHECK-NEXT:          %[[BI:.+]] = arith.extsi %[[BV]] : i8 to i32
// CHECK-NEXT:          %[[P:.+]] = arith.muli %[[AI]], %[[BI]] : i32
// CHECK-NEXT:          %[[NEXT:.+]] = arith.addi %[[ACC]], %[[P]] : i32
// CHECK-NEXT:          scf.yield %[[NEXT]] : i32
// CHECK-NEXT:        }
// CHECK-NEXT:        memref.store %[[SUM]], %[[C]][%[[M]], %[[N]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
tile.kernel @gemm_i8_clear threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %a = tile.alloc : !tile.buffer<shared 8x4xi8>
  %c = tile.alloc : !tile.buffer<fragment 4x4xi32>
  tile.gemm %a, %a, %c {clear, transpose_a} : !tile.buffer<shared 8x4xi8>, !tile.buffer<shared 8x4xi8>, !tile.buffer<fragment 4x4xi32>
  tile.yield
}

// -----

// reduce: each thread reduces whole rows: the first element, then a loop from 1 combining the
// rest; with init, the result is combined with init[r]; with accumulate, with dst[r]. max is
// arith.maximumf, sum arith.addf. A barrier follows each.
// CHECK-LABEL: gpu.func @reduces(
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK:         %[[X:.+]] = memref.view %{{.+}} to memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[M:.+]] = memref.view %{{.+}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[MT:.+]] = memref.view %{{.+}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[IN:.+]] = arith.cmpi ult, %[[R:.+]], %[[C4]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK-NEXT:        %[[FIRST:.+]] = memref.load %[[X]][%[[R]], %[[C0]]]
// CHECK-NEXT:        %[[RED:.+]] = scf.for %[[J:.+]] = %[[C1]] to %[[C8]] step %[[C1]] iter_args(%[[ACC:.+]] = %[[FIRST]]) -> (f32) {
// CHECK-NEXT:          %[[V:.+]] = memref.load %[[X]][%[[R]], %[[J]]]
// CHECK-NEXT:          %[[MAX:.+]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:          scf.yield %[[MAX]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[INIT:.+]] = memref.load %[[M]][%[[R]]]
// CHECK-NEXT:        %[[RES:.+]] = arith.maximumf %[[INIT]], %[[RED]] : f32
// CHECK-NEXT:        memref.store %[[RES]], %[[MT]][%[[R]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK:           %[[IN2:.+]] = arith.cmpi ult, %[[R2:.+]], %[[C4]] : index
// CHECK-NEXT:      scf.if %[[IN2]] {
// CHECK-NEXT:        %[[FIRST2:.+]] = memref.load %[[X]][%[[R2]], %[[C0]]]
// CHECK-NEXT:        %[[RED2:.+]] = scf.for %[[J2:.+]] = %[[C1]] to %[[C8]] step %[[C1]] iter_args(%[[ACC2:.+]] = %[[FIRST2]]) -> (f32) {
// CHECK-NEXT:          %[[V2:.+]] = memref.load %[[X]][%[[R2]], %[[J2]]]
// CHECK-NEXT:          %[[SUM:.+]] = arith.addf %[[ACC2]], %[[V2]] : f32
// CHECK-NEXT:          scf.yield %[[SUM]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[OLD:.+]] = memref.load %[[M]][%[[R2]]]
// CHECK-NEXT:        %[[RES2:.+]] = arith.addf %[[OLD]], %[[RED2]] : f32
// CHECK-NEXT:        memref.store %[[RES2]], %[[M]][%[[R2]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// Along dim 0, without init: the column index is the destination's, the row the loop's.
// CHECK:             %[[CFIRST:.+]] = memref.load %[[X]][%[[C0]], %[[COL:.+]]]
// CHECK-NEXT:      %[[CRED:.+]] = scf.for %[[RI:.+]] = %[[C1]] to %[[C4]] step %[[C1]] iter_args(%[[CACC:.+]] = %[[CFIRST]]) -> (f32) {
// CHECK-NEXT:        %[[CV:.+]] = memref.load %[[X]][%[[RI]], %[[COL]]]
// CHECK-NEXT:        %[[CMIN:.+]] = arith.minimumf %[[CACC]], %[[CV]] : f32
// CHECK-NEXT:        scf.yield %[[CMIN]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[CRED]], %{{.+}}[%[[COL]]] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
tile.kernel @reduces threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %x2 = tile.alloc : !tile.buffer<fragment 4x8xf32>
  %m = tile.alloc : !tile.buffer<fragment 4xf32>
  %mt = tile.alloc : !tile.buffer<fragment 4xf32>
  %cols = tile.alloc : !tile.buffer<shared 8xf32>
  tile.reduce %x2, %mt init %m : !tile.buffer<fragment 4xf32> {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 4x8xf32> to !tile.buffer<fragment 4xf32>
  tile.reduce %x2, %m {accumulate, dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 4x8xf32> to !tile.buffer<fragment 4xf32>
  tile.reduce %x2, %cols {dim = 0 : i64, kind = "min"} : !tile.buffer<fragment 4x8xf32> to !tile.buffer<shared 8xf32>
  tile.yield
}

// -----

// fill of a shared buffer is spread over the threads and followed by a barrier; fill of a local
// buffer is a loop nest over all its elements in every thread, without a barrier. tile.barrier
// is a gpu.barrier.
// CHECK-LABEL: gpu.func @fills(
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG:     %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[S:.+]] = memref.view %{{.+}} to memref<2x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[L:.+]] = memref.alloca() : memref<2x3xf32>
// CHECK:         scf.for %[[K:.+]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK-NEXT:      %[[BASE:.+]] = arith.muli %[[K]], %[[C64]] : index
// CHECK-NEXT:      %[[LIN:.+]] = arith.addi %[[BASE]], %{{.+}} : index
// CHECK-NEXT:      %[[COL:.+]] = arith.remui %[[LIN]], %[[C64]] : index
// CHECK-NEXT:      %[[ROW:.+]] = arith.divui %[[LIN]], %[[C64]] : index
// CHECK-NEXT:      memref.store %[[Z]], %[[S]][%[[ROW]], %[[COL]]] : memref<2x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    scf.for %[[I:.+]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK-NEXT:      scf.for %[[J:.+]] = %[[C0]] to %[[C3]] step %[[C1]] {
// CHECK-NEXT:        memref.store %[[Z]], %[[L]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[V:.+]] = memref.load %[[L]][%[[C1]], %[[C2]]] : memref<2x3xf32>
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.store %[[V]], %[[S]][%[[C1]], %[[C2]]]
// CHECK-NEXT:    gpu.return
tile.kernel @fills threads [32, 2, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %s = tile.alloc : !tile.buffer<shared 2x64xf32>
  %l = tile.alloc : !tile.buffer<local 2x3xf32>
  %z = arith.constant 0.0 : f32
  tile.fill %s, %z : !tile.buffer<shared 2x64xf32>, f32
  tile.fill %l, %z : !tile.buffer<local 2x3xf32>, f32
  %i = arith.constant 1 : index
  %j = arith.constant 2 : index
  %v = tile.read %l[%i, %j] : !tile.buffer<local 2x3xf32>
  tile.barrier
  tile.write %v, %s[%i, %j] : !tile.buffer<shared 2x64xf32>
  tile.yield
}

// -----

// A local buffer is private to each thread: a copy into it and a reduce into it are done whole
// by every thread (a plain loop over all elements, no thread index, no barrier), like its fill.
// CHECK-LABEL: gpu.func @local_tile_ops(
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK:         %[[L:.+]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:    %[[R:.+]] = memref.alloca() : memref<1xf32>
// CHECK-NOT:     gpu.thread_id
// CHECK-NEXT:    scf.for %[[I:.+]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK:           llvm.load
// CHECK:           memref.store %{{.+}}, %[[L]][%[[I]]] : memref<8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %[[J:.+]] = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK-NEXT:      %[[FIRST:.+]] = memref.load %[[L]][%[[C0]]] : memref<8xf32>
// CHECK-NEXT:      %[[SUM:.+]] = scf.for %[[K:.+]] = %[[C1]] to %[[C8]] step %[[C1]] iter_args(%[[ACC:.+]] = %[[FIRST]]) -> (f32) {
// CHECK-NEXT:        %[[V:.+]] = memref.load %[[L]][%[[K]]] : memref<8xf32>
// CHECK-NEXT:        %[[NEXT:.+]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:        scf.yield %[[NEXT]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[SUM]], %[[R]][%[[J]]] : memref<1xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
tile.kernel @local_tile_ops threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %l = tile.alloc : !tile.buffer<local 8xf32>
  %r = tile.alloc : !tile.buffer<local 1xf32>
  %c0 = arith.constant 0 : index
  tile.copy %x[%c0] to %l : !tile.tensor<f32, 1> to !tile.buffer<local 8xf32>
  tile.reduce %l, %r {dim = 0 : i64, kind = "sum"} : !tile.buffer<local 8xf32> to !tile.buffer<local 1xf32>
  %v = tile.read %r[%c0] : !tile.buffer<local 1xf32>
  %t = tile.thread_id 0
  tile.store %v, %x[%t] : !tile.tensor<f32, 1>
  tile.yield
}

// -----

// atomic_add: a bounds check, then llvm.atomicrmw (fadd for floats, add for integers) under
// scf.if; no barrier.
// CHECK-LABEL: gpu.func @atomics(
// CHECK-SAME:      %[[X:[^:]+]]: !llvm.ptr<1>, %[[XN:[^:]+]]: i64, %[[XS:[^:]+]]: i64, %[[I:[^:]+]]: !llvm.ptr<1>, %[[IN:[^:]+]]: i64, %[[IS:[^:]+]]: i64)
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-DAG:     %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[B:.+]] = gpu.block_id  x
// CHECK-NEXT:    %[[B64:.+]] = arith.index_cast %[[B]] : index to i64
// CHECK-NEXT:    %[[OK:.+]] = arith.cmpi ult, %[[B64]], %[[XN]] : i64
// CHECK-NEXT:    %[[PTR:.+]] = llvm.getelementptr %[[X]][%[[B64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT:    scf.if %[[OK]] {
// CHECK-NEXT:      %{{.+}} = llvm.atomicrmw fadd %[[PTR]], %[[HALF]] monotonic : !llvm.ptr<1>, f32
// CHECK-NEXT:    }
// CHECK:         %[[IPTR:.+]] = llvm.getelementptr %[[I]][%{{.+}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK-NEXT:    scf.if %{{.+}} {
// CHECK-NEXT:      %{{.+}} = llvm.atomicrmw add %[[IPTR]], %[[ONE]] monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT:    }
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
tile.kernel @atomics threads [32, 1, 1] args ["X", "I"] dims [["N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>, %ii: !tile.tensor<i32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>, %ii: !tile.tensor<i32, 1>):
  %b = tile.block_id 0
  %v = arith.constant 0.5 : f32
  tile.atomic_add %v, %x[%b] : !tile.tensor<f32, 1>
  %one = arith.constant 1 : i32
  tile.atomic_add %one, %ii[%b] : !tile.tensor<i32, 1>
  tile.yield
}

// -----

// argmax: the loop carries the best element and its position; a later element replaces them
// when strictly greater (cmpf ogt) or when it is the first NaN (uno with itself, the best ord).
// The position plus the offset, cast to the index buffer's type, goes to the index buffer;
// with accumulate, the result replaces dst and the index only when it beats dst.
// CHECK-LABEL: gpu.func @arg_reduces(
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK:         %[[X:.+]] = memref.view %{{.+}} to memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[M:.+]] = memref.view %{{.+}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[I:.+]] = memref.view %{{.+}} to memref<4xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[XI:.+]] = memref.view %{{.+}} to memref<4x8xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[MI:.+]] = memref.view %{{.+}} to memref<8xi64, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[II:.+]] = memref.view %{{.+}} to memref<8xi64, #gpu.address_space<workgroup>>
// CHECK:           %[[IN:.+]] = arith.cmpi ult, %[[R:.+]], %[[C4]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK-NEXT:        %[[FIRST:.+]] = memref.load %[[X]][%[[R]], %[[C0]]]
// CHECK-NEXT:        %[[RED:.+]]:2 = scf.for %[[J:.+]] = %[[C1]] to %[[C8]] step %[[C1]] iter_args(%[[BEST:.+]] = %[[FIRST]], %[[POS:.+]] = %[[C0]]) -> (f32, index) {
// CHECK-NEXT:          %[[V:.+]] = memref.load %[[X]][%[[R]], %[[J]]]
// CHECK-NEXT:          %[[GT:.+]] = arith.cmpf ogt, %[[V]], %[[BEST]] : f32
// CHECK-NEXT:          %[[NAN:.+]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT:          %[[NUM:.+]] = arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK-NEXT:          %[[FIRSTNAN:.+]] = arith.andi %[[NAN]], %[[NUM]] : i1
// CHECK-NEXT:          %[[TAKE:.+]] = arith.ori %[[GT]], %[[FIRSTNAN]] : i1
// CHECK-NEXT:          %[[NB:.+]] = arith.select %[[TAKE]], %[[V]], %[[BEST]] : f32
// CHECK-NEXT:          %[[NP:.+]] = arith.select %[[TAKE]], %[[J]], %[[POS]] : index
// CHECK-NEXT:          scf.yield %[[NB]], %[[NP]] : f32, index
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[OFF:.+]] = arith.addi %[[RED]]#1, %[[C16]] : index
// CHECK-NEXT:        %[[P32:.+]] = arith.index_cast %[[OFF]] : index to i32
// CHECK-NEXT:        %[[OLD:.+]] = memref.load %[[M]][%[[R]]]
// CHECK-NEXT:        %[[OLDP:.+]] = memref.load %[[I]][%[[R]]]
// CHECK-NEXT:        %[[BGT:.+]] = arith.cmpf ogt, %[[RED]]#0, %[[OLD]] : f32
// CHECK:             %[[BETTER:.+]] = arith.ori %[[BGT]], %{{.+}} : i1
// CHECK-NEXT:        %[[RES:.+]] = arith.select %[[BETTER]], %[[RED]]#0, %[[OLD]] : f32
// CHECK-NEXT:        %[[RESP:.+]] = arith.select %[[BETTER]], %[[P32]], %[[OLDP]] : i32
// CHECK-NEXT:        memref.store %[[RESP]], %[[I]][%[[R]]]
// CHECK-NEXT:        memref.store %[[RES]], %[[M]][%[[R]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// Integers: argmin is a strict signed less-than; no offset, no accumulate.
// CHECK:           %[[FIRST2:.+]] = memref.load %[[XI]][%[[C0]], %[[COL:.+]]]
// CHECK-NEXT:      %[[RED2:.+]]:2 = scf.for %[[J2:.+]] = %[[C1]] to %[[C4]] step %[[C1]] iter_args(%[[BEST2:.+]] = %[[FIRST2]], %[[POS2:.+]] = %[[C0]]) -> (i64, index) {
// CHECK-NEXT:        %[[V2:.+]] = memref.load %[[XI]][%[[J2]], %[[COL]]]
// CHECK-NEXT:        %[[LT:.+]] = arith.cmpi slt, %[[V2]], %[[BEST2]] : i64
// CHECK-NEXT:        %[[NB2:.+]] = arith.select %[[LT]], %[[V2]], %[[BEST2]] : i64
// CHECK-NEXT:        %[[NP2:.+]] = arith.select %[[LT]], %[[J2]], %[[POS2]] : index
// CHECK-NEXT:        scf.yield %[[NB2]], %[[NP2]] : i64, index
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[P64:.+]] = arith.index_cast %[[RED2]]#1 : index to i64
// CHECK-NEXT:      memref.store %[[P64]], %[[II]][%[[COL]]]
// CHECK-NEXT:      memref.store %[[RED2]]#0, %[[MI]][%[[COL]]]
// CHECK:         gpu.barrier
tile.kernel @arg_reduces threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %x = tile.alloc : !tile.buffer<fragment 4x8xf32>
  %m = tile.alloc : !tile.buffer<fragment 4xf32>
  %i = tile.alloc : !tile.buffer<fragment 4xi32>
  %xi = tile.alloc : !tile.buffer<shared 4x8xi64>
  %mi = tile.alloc : !tile.buffer<shared 8xi64>
  %ii = tile.alloc : !tile.buffer<shared 8xi64>
  %off = arith.constant 16 : index
  tile.reduce %x, %m index %i : !tile.buffer<fragment 4xi32> offset %off {accumulate, dim = 1 : i64, kind = "argmax"} : !tile.buffer<fragment 4x8xf32> to !tile.buffer<fragment 4xf32>
  tile.reduce %xi, %mi index %ii : !tile.buffer<shared 8xi64> {dim = 0 : i64, kind = "argmin"} : !tile.buffer<shared 4x8xi64> to !tile.buffer<shared 8xi64>
  tile.yield
}

// -----

// scan: each thread scans whole lines in order from the identity (-0.0 for a float sum, 1 for
// a product), storing the running value (inclusive) or the one before it (exclusive); f16 is
// combined in f32. A barrier follows each.
// CHECK-LABEL: gpu.func @scans(
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-DAG:     %[[NEGZERO:.+]] = arith.constant -0.000000e+00 : f32
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK:         %[[X:.+]] = memref.view %{{.+}} to memref<4x8xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[Y:.+]] = memref.view %{{.+}} to memref<4x8xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[V:.+]] = memref.alloca() : memref<8xi32>
// CHECK:           scf.if
// CHECK-NEXT:        scf.for %[[C:.+]] = %[[C0]] to %[[C8]] step %[[C1]] iter_args(%[[ACC:.+]] = %[[NEGZERO]]) -> (f32) {
// CHECK-NEXT:          %[[E:.+]] = memref.load %[[X]][%[[R:.+]], %[[C]]]
// CHECK-NEXT:          %[[W:.+]] = arith.extf %[[E]] : f16 to f32
// CHECK-NEXT:          %[[SUM:.+]] = arith.addf %[[ACC]], %[[W]] : f32
// CHECK-NEXT:          %[[T:.+]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK-NEXT:          memref.store %[[T]], %[[Y]][%[[R]], %[[C]]]
// CHECK-NEXT:          scf.yield %[[SUM]] : f32
// CHECK:         gpu.barrier
// A local buffer: every thread scans it, no barrier; exclusive stores the product before it.
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.for %[[K:.+]] = %[[C0]] to %[[C8]] step %[[C1]] iter_args(%[[P:.+]] = %[[ONE]]) -> (i32) {
// CHECK-NEXT:        %[[E2:.+]] = memref.load %[[V]][%[[K]]]
// CHECK-NEXT:        %[[PROD:.+]] = arith.muli %[[P]], %[[E2]] : i32
// CHECK-NEXT:        memref.store %[[P]], %[[V]][%[[K]]]
// CHECK-NEXT:        scf.yield %[[PROD]] : i32
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return
tile.kernel @scans threads [32, 1, 1] args [] dims [] params {} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %x = tile.alloc : !tile.buffer<fragment 4x8xf16>
  %y = tile.alloc : !tile.buffer<shared 4x8xf16>
  %v = tile.alloc : !tile.buffer<local 8xi32>
  tile.scan %x, %y {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 4x8xf16> to !tile.buffer<shared 4x8xf16>
  tile.scan %v, %v {dim = 0 : i64, exclusive, kind = "prod"} : !tile.buffer<local 8xi32> to !tile.buffer<local 8xi32>
  tile.yield
}
