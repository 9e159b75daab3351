// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{tma-stores=true},tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout,tile-warp-specialize{pairs=true}),convert-tile-to-nvvm)' | FileCheck %s
// RUN: tlc-opt %s --tlc-pipeline | FileCheck %s --check-prefix=LOWERED

// The sm_90a strategy of convert-tile-to-nvvm: the kernel becomes the entry gemm__tma, whose
// parameters end with the TMA tensor maps (one per tensor and box: A in 128x64 boxes, B in 64x64
// boxes, 128-byte swizzle) and whose block adds a producer warpgroup (256 + 128 threads). B's
// tile does not depend on the block row: the entry's blocks may run in pairs (`cluster = 2`).
// C's store map (16 x 64 boxes: the staged rows of tile.copy's tma_store) follows the load maps,
// then the i32 that says whether the launch encoded it, then the stream-K workspace.
// CHECK: module attributes {gpu.container_module, tile.target = {{.+}}}
// CHECK: llvm.mlir.global external @tlc_smem() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK-LABEL: gpu.func @gemm__tma(
// CHECK-SAME:    %[[MAPA:[a-z0-9]+]]: !llvm.ptr, %[[MAPB:[a-z0-9]+]]: !llvm.ptr, %[[MAPC:[a-z0-9]+]]: !llvm.ptr, %[[STORED:[a-z0-9]+]]: i32, %[[WS:[a-z0-9]+]]: !llvm.ptr<1>) kernel
// CHECK-SAME:    known_block_size = array<i32: 384, 1, 1>, tile.entry = #tile.entry<"gemm", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 131120, cluster = 2,
// CHECK-SAME:    stored = 18, maps = [#tile.tensor_map<param = 15, arg = 0, box = [128, 64], swizzle = 128, element = bf16>, #tile.tensor_map<param = 16, arg = 1, box = [64, 64], swizzle = 128, element = bf16>, #tile.tensor_map<param = 17, arg = 2, box = [16, 64], swizzle = 128, element = bf16, store = 1>], stream_k = 65536>
// The accumulator: 64 registers per thread, allocated in the entry block.
// CHECK:         memref.alloca() : memref<64xf32>
// Thread 0 initializes a full (count 1) and an empty (count 8, one per consumer warp of each
// block of the cluster) mbarrier per stage, the latter fenced for the cluster; then the whole
// cluster syncs.
// CHECK:         nvvm.mbarrier.init %{{.+}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK:         %[[N:.+]] = nvvm.read.ptx.sreg.cluster.nctarank : i32
// CHECK:         %[[COUNT:.+]] = arith.muli %[[N]], %c8_i32 : i32
// CHECK:         nvvm.mbarrier.init %{{.+}}, %[[COUNT]] : !llvm.ptr<3>, i32
// CHECK-NEXT:    nvvm.fence.mbarrier.init
// CHECK:         nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// The producer warpgroup gives registers back; one thread walks the pairs of tiles (the grid's
// blocks divided by the cluster's) and the stages.
// CHECK:         nvvm.setmaxregister  decrease 72
// CHECK:         gpu.grid_dim  x
// CHECK-NEXT:    arith.shrui
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c32768_i32
// One box of A, two of B (64 columns each), B's multicast to the pair: rank 0 issues box 0,
// rank 1 box 1 (mask 0b11); without clusters the block loads both.
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAPA]], %{{.+}}, box[%{{.+}}] :
// CHECK:             nvvm.read.ptx.sreg.cluster.nctarank
// CHECK:             scf.if
// CHECK:               nvvm.read.ptx.sreg.cluster.ctarank
// CHECK:               scf.if
// CHECK:                 nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAPB]], %{{.+}}, box[%{{.+}}] multicast_mask = %{{.+}} :
// CHECK:               } else {
// CHECK:                 nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAPB]], %{{.+}}, box[%{{.+}}] multicast_mask = %{{.+}} :
// CHECK:             } else {
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAPB]], %{{.+}}, box[%{{.+}}] :
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAPB]], %{{.+}}, box[%{{.+}}] :
// After its last tile the producer waits for each stage's last release (three stages).
// CHECK-COUNT-3:   nvvm.mbarrier.try_wait.parity
// The consumers take the registers, walk the same tiles, wait for a full stage and run four
// k16 steps of wgmma 64x128 per warpgroup, then free the stage.
// CHECK:         nvvm.setmaxregister  increase 216
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:     nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK:             nvvm.wgmma.commit.group.sync.aligned
// CHECK:             nvvm.wgmma.wait.group.sync.aligned 0
// Lane r of each warp releases the stage in block r of the cluster (release at CTA scope).
// CHECK:             nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:        nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<7>
// Stream-K: a piece that ends its tile first adds the slots of the blocks with the tile's
// earlier iterations (a flag acquired by one thread, a barrier of the consumers, 16 vectors of 4
// per thread through L2; tlc.entry's `stream_k` = 64 slots x 4 bytes x 256 threads), ...
// CHECK:           scf.while
// CHECK:             llvm.inline_asm has_side_effects "ld.acquire.gpu.global.b32 $0, [$1];"
// CHECK:           nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}}
// CHECK-COUNT-16:  ld.global.cg.v4.f32
// ... then the epilogue: the ReLU on the registers, then the rows staged through the warp's
// slabs of the scratch (tma_store): the slab free of earlier bulk stores' reads, pairs into
// shared memory; where the launch encoded C's store map, a proxy fence, a warp sync and one TMA
// bulk store of the chunk by lane 0; else a warp sync and 16-byte vectors out to C, in a loop
// over the 16 rows of the chunk (4 rows a pass). The second chunk's slab is the other one: it
// waits for all but the last bulk store.
// CHECK:           arith.maximumf
// CHECK:           nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT:      nvvm.bar.warp.sync
// CHECK:           llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK:           %[[ENCODED:.+]] = arith.cmpi ne, %[[STORED]], %c0_i32 : i32
// CHECK:           scf.if %[[ENCODED]] {
// CHECK-NEXT:        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:        nvvm.bar.warp.sync
// CHECK:             nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAPC]], %{{.+}}, box[%{{.+}}, %{{.+}}]
// CHECK-NEXT:        nvvm.cp.async.bulk.commit.group
// CHECK:           } else {
// CHECK-NEXT:        nvvm.bar.warp.sync
// CHECK:             scf.for %{{.+}} = %c0 to %c4 step %c1 {
// CHECK:               llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK:               llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK:           nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK:           nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAPC]]
// A piece that ends before its tile's last iteration stores its slot and signals it.
// CHECK:         } else {
// CHECK-COUNT-16:  llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:           nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}}
// CHECK:           llvm.getelementptr %[[WS]]
// CHECK:           "fence.acq_rel.gpu;\0A\09st.relaxed.gpu.global.b32 [$0], 1;"
// CHECK:         nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}}
// The block's shared memory outlives the bulk stores' reads of it.
// CHECK:         nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT:    gpu.return
// CHECK-NOT:     tile.

// After the whole pipeline, the tensor maps are 64-byte aligned byval __grid_constant__
// parameters and one block per multiprocessor is asked of ptxas.
// LOWERED: llvm.func @gemm__tma(
// LOWERED-SAME: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.+}}: !llvm.ptr<1>)
// LOWERED-SAME: nvvm.minctasm = 1 : i32

tile.kernel @gemm threads [256, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %n = tile.dim %b[1] : !tile.tensor<bf16, 2>
  %c128 = arith.constant 128 : index
  %gx = arith.ceildivsi %n, %c128 : index
  %m = tile.dim %a[0] : !tile.tensor<bf16, 2>
  %gy = arith.ceildivsi %m, %c128 : index
  %c1 = arith.constant 1 : index
  tile.yield %gx, %gy, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %nk = arith.ceildivsi %k, %c64 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c64 : index
    tile.copy %a[%row, %col] to %as : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.stages = 3 : i64}
  tile.parallel [128, 128] {
  ^bb0(%r: index, %col: index):
    %v = tile.read %acc[%r, %col] : !tile.buffer<fragment 128x128xf32>
    %z = arith.constant 0.0 : f32
    %w = arith.maximumf %v, %z : f32
    tile.write %w, %acc[%r, %col] : !tile.buffer<fragment 128x128xf32>
  }
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}
