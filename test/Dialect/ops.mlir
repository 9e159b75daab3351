// RUN: tlc-opt %s | tlc-opt | FileCheck %s
// RUN: tlc-opt %s --mlir-print-op-generic | tlc-opt | FileCheck %s

// Every op and type of the tile dialect survives a print/parse round trip, in the custom and
// in the generic form.

// CHECK-LABEL: tile.kernel @all_ops
// CHECK-SAME: threads [32, 2, 1] args ["X", "Y", "s", "n"] dims {{\[}}["M", "N"], ["K"], [], []]
// CHECK-SAME: params {BM = 64 : i64, C = true, T = f16}
// CHECK-SAME: grid {
// CHECK-NEXT: ^bb0(%[[GX:.+]]: !tile.tensor<f32, 2>, %[[GY:.+]]: !tile.tensor<i8, 1>, %[[GS:.+]]: f32, %[[GN:.+]]: index):
// CHECK:        %[[M:.+]] = tile.dim %[[GX]][0] : !tile.tensor<f32, 2>
// CHECK:        tile.yield %[[M]], %{{.+}}, %{{.+}} : index, index, index
// CHECK:      } body {
// CHECK-NEXT: ^bb0(%[[X:.+]]: !tile.tensor<f32, 2>, %[[Y:.+]]: !tile.tensor<i8, 1>, %[[S:.+]]: f32, %[[N:.+]]: index):
// CHECK:        %[[BX:.+]] = tile.block_id 0
// CHECK:        %[[BZ:.+]] = tile.block_id 2
// CHECK:        %[[TY:.+]] = tile.thread_id 1
// CHECK:        %[[D1:.+]] = tile.dim %[[X]][1] : !tile.tensor<f32, 2>
// CHECK:        %[[V:.+]] = tile.load %[[X]][%[[BX]], %[[TY]]] : !tile.tensor<f32, 2>
// CHECK:        tile.store %[[V]], %[[X]][%[[BZ]], %[[D1]]] : !tile.tensor<f32, 2>
// CHECK:        %{{.+}}:4 = tile.load_vector %[[X]][%[[BX]], %[[TY]]] : !tile.tensor<f32, 2> -> f32, f32, f32, f32
// CHECK:        tile.parallel [4, 8] {
// CHECK-NEXT:   ^bb0(%[[I:.+]]: index, %[[J:.+]]: index):
// CHECK-NEXT:     %[[E:.+]] = tile.load %[[Y]][%[[J]]] : !tile.tensor<i8, 1>
// CHECK-NEXT:     tile.store %[[E]], %[[Y]][%[[I]]] : !tile.tensor<i8, 1>
// CHECK-NEXT:   }
// CHECK:        tile.yield{{$}}
// CHECK-NEXT: }
tile.kernel @all_ops threads [32, 2, 1] args ["X", "Y", "s", "n"] dims [["M", "N"], ["K"], [], []]
    params {BM = 64 : i64, C = true, T = f16} grid {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i8, 1>, %s: f32, %n: index):
  %m = tile.dim %x[0] : !tile.tensor<f32, 2>
  %c1 = arith.constant 1 : index
  tile.yield %m, %c1, %n : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>, %y: !tile.tensor<i8, 1>, %s: f32, %n: index):
  %bx = tile.block_id 0
  %bz = tile.block_id 2
  %ty = tile.thread_id 1
  %d1 = tile.dim %x[1] : !tile.tensor<f32, 2>
  %v = tile.load %x[%bx, %ty] : !tile.tensor<f32, 2>
  tile.store %v, %x[%bz, %d1] : !tile.tensor<f32, 2>
  %vs:4 = tile.load_vector %x[%bx, %ty] : !tile.tensor<f32, 2> -> f32, f32, f32, f32
  tile.parallel [4, 8] {
  ^bb0(%i: index, %j: index):
    %e = tile.load %y[%j] : !tile.tensor<i8, 1>
    tile.store %e, %y[%i] : !tile.tensor<i8, 1>
  }
  tile.yield
}

// A kernel without parameters, and the extra attribute dictionary after 'params'.

// CHECK-LABEL: tile.kernel @no_args
// CHECK-SAME: threads [1024, 1, 1] args [] dims [] params {} attributes {note = "kept"} grid {
tile.kernel @no_args threads [1024, 1, 1] args [] dims [] params {} attributes {note = "kept"} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  tile.yield
}

// Tensors of every element width and of rank 1 to 8.

// CHECK-LABEL: tile.kernel @tensor_types
// CHECK-NEXT: ^bb0(%{{.+}}: !tile.tensor<f64, 1>, %{{.+}}: !tile.tensor<bf16, 3>, %{{.+}}: !tile.tensor<i64, 8>, %{{.+}}: !tile.tensor<i1, 1>, %{{.+}}: i1):
tile.kernel @tensor_types threads [32, 1, 1] args ["A", "B", "C", "D", "p"]
    dims [["N"], ["N", "N", "N"], ["A", "B", "C", "D", "E", "F", "G", "H"], ["N"], []] params {} grid {
^bb0(%a: !tile.tensor<f64, 1>, %b: !tile.tensor<bf16, 3>, %c: !tile.tensor<i64, 8>, %d: !tile.tensor<i1, 1>, %p: i1):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<f64, 1>, %b: !tile.tensor<bf16, 3>, %c: !tile.tensor<i64, 8>, %d: !tile.tensor<i1, 1>, %p: i1):
  tile.yield
}

// A register ring's explicit ops (tile-pipeline-register-rings, tile-place-async-waits).

// CHECK-LABEL: tile.kernel @ring_ops
// CHECK:         %[[S:.+]] = tile.stage %{{.+}}[%{{.+}}] : !tile.buffer<shared 64x32xbf16>
// CHECK-NEXT:    tile.copy %{{.+}} to %[[S]] {tile.cp_async}
// CHECK-NEXT:    tile.async_wait pending = 3
// CHECK-NEXT:    tile.async_proxy_fence
// CHECK-NEXT:    tile.barrier
// CHECK:         tile.gemm %{{.+}}, %{{.+}}, %[[ACC:.+]] {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b}
// CHECK-NEXT:    tile.mma_wait pending = 1, %[[ACC]] : !tile.buffer<fragment 64x64xf32>
// CHECK-NEXT:    tile.mma_wait pending = 0
tile.kernel @ring_ops threads [128, 1, 1] args ["K"] dims [["S", "D"]] params {} grid {
^bb0(%k: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%k: !tile.tensor<bf16, 2>):
  %ks = tile.alloc {tile.stages = 3 : i64} : !tile.buffer<shared 64x32xbf16>
  %c0 = arith.constant 0 : index
  %i = tile.block_id 0
  %s = tile.stage %ks[%i] : !tile.buffer<shared 64x32xbf16>
  tile.copy %k[%c0, %c0] to %s {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x32xbf16>
  tile.async_wait pending = 3
  tile.async_proxy_fence
  tile.barrier
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  tile.gemm %s, %s, %acc {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x32xbf16>, !tile.buffer<shared 64x32xbf16>, !tile.buffer<fragment 64x64xf32>
  tile.mma_wait pending = 1, %acc : !tile.buffer<fragment 64x64xf32>
  tile.mma_wait pending = 0
  tile.yield
}

// CHECK-LABEL: tile.kernel @warp_specialized_ops
// CHECK:         tile.mbarrier_init %[[BARS:.+]][%{{.+}}], count = 1 : !tile.buffer<shared 4xi64>
// CHECK:         tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
// CHECK:           tile.grid_dim 0
// CHECK:           tile.mbarrier_wait %[[BARS]][%{{.+}}], parity %{{.+}} : !tile.buffer<shared 4xi64>
// CHECK:           tile.mbarrier_arrive %[[BARS]][%{{.+}}], expect_tx = 16384 : !tile.buffer<shared 4xi64>
// CHECK:           tile.tma_load %{{.+}}[%{{.+}}, %{{.+}}] to %{{.+}}, %[[BARS]][%{{.+}}] : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 4xi64>
// CHECK:           %[[OK:.+]] = tile.cp_async_readable %{{.+}} : !tile.tensor<bf16, 2>
// CHECK:           tile.producer_copy %{{.+}}[%{{.+}}, %{{.+}}] to %{{.+}} {mode = #tile.producer_copy<cp_async>} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
// CHECK:           tile.mbarrier_arrive %[[BARS]][%{{.+}}] after_copies : !tile.buffer<shared 4xi64>
// CHECK:           tile.producer_copy %{{.+}}[%{{.+}}, %{{.+}}] to %{{.+}} edges %{{.+}}[%{{.+}}] {mode = #tile.producer_copy<staged_issue>} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 2048xi8>
// CHECK:           tile.async_commit
// CHECK:           tile.async_wait pending = 1 warp
// CHECK:         } consumers {
// CHECK:           tile.mbarrier_arrive %[[BARS]][%{{.+}}] : !tile.buffer<shared 4xi64>
// CHECK:           tile.named_barrier %{{.+}}, threads = 256
// CHECK:           tile.named_barrier arrive %{{.+}}, threads = 256
// CHECK:         }
tile.kernel @warp_specialized_ops threads [128, 1, 1] args ["A"] dims [["M", "K"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>):
  %as = tile.alloc {tile.stages = 2 : i64} : !tile.buffer<shared 128x64xbf16>
  %bars = tile.alloc : !tile.buffer<shared 4xi64>
  %edges = tile.alloc : !tile.buffer<shared 2048xi8>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.mbarrier_init %bars[%c0], count = 1 : !tile.buffer<shared 4xi64>
  tile.barrier
  tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
    %g = tile.grid_dim 0
    tile.mbarrier_wait %bars[%c1], parity %g : !tile.buffer<shared 4xi64>
    tile.mbarrier_arrive %bars[%c0], expect_tx = 16384 : !tile.buffer<shared 4xi64>
    %s = tile.stage %as[%c1] : !tile.buffer<shared 128x64xbf16>
    tile.tma_load %a[%c0, %g] to %s, %bars[%c0] : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 4xi64>
    %ok = tile.cp_async_readable %a : !tile.tensor<bf16, 2>
    tile.producer_copy %a[%c0, %g] to %s {mode = #tile.producer_copy<cp_async>} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.mbarrier_arrive %bars[%c0] after_copies : !tile.buffer<shared 4xi64>
    tile.producer_copy %a[%c0, %g] to %s edges %edges[%c0] {mode = #tile.producer_copy<staged_issue>} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 2048xi8>
    tile.async_commit
    tile.async_wait pending = 1 warp
  } consumers {
    tile.mbarrier_arrive %bars[%c1] : !tile.buffer<shared 4xi64>
    %turn = arith.constant 2 : index
    tile.named_barrier %turn, threads = 256
    tile.named_barrier arrive %turn, threads = 256
  }
  tile.yield
}

// CHECK-LABEL: tile.kernel @stream_k_ops
// CHECK-SAME:    tile.stream_k = 65536 : i64
// CHECK:           %{{.+}} = tile.stream_k_active
// CHECK:           tile.partial_store %[[ACC:.+]], %{{.+}}, offset = 0 : !tile.buffer<fragment 128x128xf32>
// CHECK:           tile.partial_signal %{{.+}}
// CHECK:           tile.partial_wait %{{.+}}
// CHECK:           tile.partial_add %[[ACC]], %{{.+}}, offset = 32768 : !tile.buffer<fragment 128x128xf32>
tile.kernel @stream_k_ops threads [256, 1, 1] args [] dims [] params {} attributes {tile.producer_threads = 128 : i64, tile.stream_k = 65536 : i64} grid {
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  tile.warp_specialize producer_registers = 56, consumer_registers = 224 producer {
  } consumers {
    %on = tile.stream_k_active
    tile.partial_store %acc, %c0, offset = 0 : !tile.buffer<fragment 128x128xf32>
    tile.partial_signal %c0
    tile.partial_wait %c0
    tile.partial_add %acc, %c0, offset = 32768 : !tile.buffer<fragment 128x128xf32>
  }
  tile.yield
}

// Pairs: the cluster's size and rank, a cluster-wide barrier, empty barriers counting every
// block's consumer warps, arrivals on another block's barrier, multicast TMA loads.
// CHECK-LABEL: tile.kernel @cluster_ops
// CHECK-SAME:    tile.cluster = 2 : i64
// CHECK:         tile.mbarrier_init %[[BARS:.+]][%{{.+}}], count = 8 cluster : !tile.buffer<shared 2xi64>
// CHECK:         tile.cluster_barrier
// CHECK:         %[[N:.+]] = tile.cluster_size
// CHECK:         %[[R:.+]] = tile.cluster_rank
// CHECK:         tile.tma_load %{{.+}}[%{{.+}}, %{{.+}}] to %{{.+}}, %[[BARS]][%{{.+}}] multicast :
// CHECK:         tile.mbarrier_arrive %[[BARS]][%{{.+}}] at %[[R]] : !tile.buffer<shared 2xi64>
tile.kernel @cluster_ops threads [256, 1, 1] args ["B"] dims [["K", "N"]] params {} attributes {tile.cluster = 2 : i64, tile.producer_threads = 128 : i64} grid {
^bb0(%b: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%b: !tile.tensor<bf16, 2>):
  %bars = tile.alloc {tile.offset = 16384 : i64} : !tile.buffer<shared 2xi64>
  %bs = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.mbarrier_init %bars[%c1], count = 8 cluster : !tile.buffer<shared 2xi64>
  tile.cluster_barrier
  %n = tile.cluster_size
  %r = tile.cluster_rank
  tile.tma_load %b[%c0, %c0] to %bs, %bars[%c0] multicast : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>, !tile.buffer<shared 2xi64>
  tile.mbarrier_arrive %bars[%c1] at %r : !tile.buffer<shared 2xi64>
  tile.yield
}
