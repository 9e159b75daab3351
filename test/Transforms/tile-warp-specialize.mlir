// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-warp-specialize{pairs=true}))' | FileCheck %s
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-warp-specialize))' | FileCheck %s --check-prefix=ALONE

// Without `pairs` (the default) no kernel is marked for clusters and no cluster op appears.
// ALONE-NOT: tile.cluster
// ALONE:     tile.warp_specialize producer_registers = 56, consumer_registers = 224 producer {
// ALONE-NOT: tile.cluster
// ALONE-NOT: multicast

// tile-warp-specialize alone, on a TMA ring as tile-software-pipeline and
// tile-shared-memory-layout leave it (3 stages, mbarriers at byte 98304; A of rank 3, its
// leading offset a kernel argument). Neither the ring's bounds nor B's offsets depend on the
// block row: the blocks may run in pairs (`tile.cluster = 2`), sharing B's loads.
// CHECK-LABEL: tile.kernel @gemm
// The bytes of a stream-K slot: 64 accumulator registers x 4 bytes x 256 consumer threads.
// CHECK-SAME:    tile.cluster = 2 : i64
// CHECK-SAME:    tile.stream_k = 65536 : i64
// The mbarriers: full[s] = s, empty[s] = 3 + s, at the loop's offset.
// CHECK:       %[[BARS:.+]] = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 6xi64>
// CHECK:       %[[TID:.+]] = tile.thread_id 0
// CHECK:       scf.if
// Full barriers complete on one arrival (plus the TMA bytes), empty ones on one per consumer
// warp of each block of the cluster.
// CHECK-DAG:     tile.mbarrier_init %[[BARS]][%{{.+}}], count = 1 :
// CHECK-DAG:     tile.mbarrier_init %[[BARS]][%{{.+}}], count = 1 :
// CHECK-DAG:     tile.mbarrier_init %[[BARS]][%{{.+}}], count = 1 :
// CHECK-DAG:     tile.mbarrier_init %[[BARS]][%{{.+}}], count = 8 cluster :
// CHECK-DAG:     tile.mbarrier_init %[[BARS]][%{{.+}}], count = 8 cluster :
// CHECK-DAG:     tile.mbarrier_init %[[BARS]][%{{.+}}], count = 8 cluster :
// CHECK-NOT:   tile.mbarrier_init
// CHECK:       tile.cluster_barrier
// CHECK-NEXT:  %[[CS:.+]] = tile.cluster_size
// CHECK-NEXT:  %[[CR:.+]] = tile.cluster_rank
// Divisions by the cluster's size (1 or 2) are shifts by its log2.
// CHECK:       %[[SHIFT:.+]] = arith.subi %[[CS]], %{{.+}} : index
// The grid region's block counts, recomputed in the body; its rows counted in pairs.
// CHECK:       %[[N:.+]] = tile.dim %arg1[1]
// CHECK:       tile.dim %arg0[1]
// CHECK-NEXT:  %[[ROWS:.+]] = arith.ceildivsi
// CHECK:       %[[ROWSUP:.+]] = arith.addi %[[ROWS]], %[[SHIFT]] : index
// CHECK-NEXT:  %[[PAIRROWS:.+]] = arith.shrui %[[ROWSUP]], %[[SHIFT]] : index
// CHECK:       tile.warp_specialize producer_registers = 72, consumer_registers = 216 producer {
// One elected producer thread (the first past the 256 consumers) walks the tiles.
// CHECK:         %[[C256:.+]] = arith.constant 256 : index
// CHECK:         %[[ELECTED:.+]] = arith.cmpi eq, %[[TID]], %[[C256]]
// CHECK:         scf.if %[[ELECTED]] {
// Stream-K (the trip count is the same for every tile, the accumulator a zero-filled sum): the
// ring's iterations per tile first, then the split, taken only with a workspace. The walkers
// are the clusters (P = blocks / cluster size, c = block / cluster size).
// CHECK:           tile.dim %arg0[2]
// CHECK:           %[[ITERS:.+]] = arith.maxsi
// CHECK:           %[[GRID:.+]] = tile.grid_dim 0
// CHECK-NEXT:      %[[P:.+]] = arith.shrui %[[GRID]], %[[SHIFT]] : index
// CHECK-NEXT:      %[[BLOCK:.+]] = tile.block_id 0
// CHECK-NEXT:      %[[C:.+]] = arith.shrui %[[BLOCK]], %[[SHIFT]] : index
// CHECK:           %[[ACTIVE:.+]] = tile.stream_k_active
// CHECK:           %[[WORTH:.+]] = arith.andi %[[ACTIVE]]
// CHECK:           %[[SPLIT:.+]] = arith.select %[[WORTH]]
// CHECK:           %[[TOTAL:.+]] = arith.muli %[[SPLIT]], %[[ITERS]]
// One loop over the block's units: whole tiles c, c + P, ..., then its pieces of the split
// iterations [c * total / P, (c + 1) * total / P).
// CHECK:           arith.muli %[[C]], %[[TOTAL]]
// CHECK:           %[[ISSUED:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[BASE:.+]] = %{{.+}}) -> (index) {
// The tile's row: row r of the pair grid is block rows 2 r and 2 r + 1, this block's by rank.
// CHECK:             %[[SCALED:.+]] = arith.shli %{{.+}}, %[[SHIFT]] : index
// CHECK-NEXT:        %[[ROW:.+]] = arith.addi %[[SCALED]], %[[CR]] : index
// The loop bounds, recomputed, then restricted to the unit's iterations [kBegin, kEnd).
// CHECK:             tile.dim %arg0[2]
// CHECK:             arith.minsi
// CHECK:             scf.for %[[K:.+]] = {{.+}} {
// CHECK:               %[[ITER:.+]] = arith.addi %[[BASE]], %{{.+}} : index
// CHECK:               %[[STAGE:.+]] = arith.remsi %[[ITER]], %{{.+}} : index
// CHECK:               %[[ROUND:.+]] = arith.divsi %[[ITER]], %{{.+}} : index
// CHECK:               %[[ODD:.+]] = arith.andi %[[ROUND]], %{{.+}} : index
// CHECK:               %[[PARITY:.+]] = arith.xori %[[ODD]], %{{.+}} : index
// CHECK:               %[[EMPTY:.+]] = arith.addi %[[STAGE]], %{{.+}} : index
// CHECK:               tile.mbarrier_wait %[[BARS]][%[[EMPTY]]], parity %[[PARITY]]
// The stage's bytes: 128 x 64 + 64 x 128 bf16.
// CHECK:               tile.mbarrier_arrive %[[BARS]][%[[STAGE]]], expect_tx = 32768
// A's offsets: the batch (an argument), the tile's row, the k column; B's tile, the same for
// both blocks of a pair, is multicast.
// CHECK:               %[[AROW:.+]] = arith.muli %[[ROW]], %{{.+}} : index
// CHECK:               %[[AS:.+]] = tile.stage %{{.+}}[%[[STAGE]]] : !tile.buffer<shared 128x64xbf16>
// CHECK:               tile.tma_load %arg0[%arg3, %[[AROW]], %{{.+}}] to %[[AS]], %[[BARS]][%[[STAGE]]] : !tile.tensor<bf16, 3> to !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 6xi64>
// CHECK:               %[[BS:.+]] = tile.stage %{{.+}}[%[[STAGE]]] : !tile.buffer<shared 64x128xbf16>
// CHECK:               tile.tma_load %arg1[%{{.+}}, %{{.+}}] to %[[BS]], %[[BARS]][%[[STAGE]]] multicast :
// CHECK:             }
// CHECK:             scf.yield
// After its last unit the producer waits for each stage's last release (the other block's
// consumers release it too, and read what this block multicast).
// CHECK:           %[[LAST0:.+]] = arith.addi %[[ISSUED]]
// CHECK:           tile.mbarrier_wait
// CHECK:           tile.mbarrier_wait
// CHECK:           tile.mbarrier_wait
// CHECK:       } consumers {
// The kernel's body, once per unit, its block ids the tile's.
// CHECK:         %[[CBLOCK:.+]] = tile.block_id 0
// CHECK-NEXT:    %[[CC:.+]] = arith.shrui %[[CBLOCK]], %[[SHIFT]] : index
// CHECK:         tile.stream_k_active
// CHECK:         scf.for %{{.+}} iter_args(%[[CBASE:.+]] = %{{.+}}) -> (index) {
// CHECK-NOT:       tile.block_id
// CHECK:           %[[CSCALED:.+]] = arith.shli %{{.+}}, %[[SHIFT]] : index
// CHECK-NEXT:      %[[CROW:.+]] = arith.addi %[[CSCALED]], %[[CR]] : index
// A tile inside the grid (the second of a pair may not be, with an odd row count).
// CHECK:           %[[INGRID:.+]] = arith.cmpi ult, %[[CROW]], %{{.+}} : index
// CHECK:           scf.if %[[INGRID]] {
// CHECK:             tile.fill
// CHECK:             scf.for
// CHECK:               %[[CITER:.+]] = arith.addi %[[CBASE]]
// CHECK:               %[[CSTAGE:.+]] = arith.remsi %[[CITER]]
// CHECK:               %[[CROUND:.+]] = arith.divsi %[[CITER]]
// CHECK:               %[[CPARITY:.+]] = arith.andi %[[CROUND]]
// CHECK:               tile.mbarrier_wait %[[BARS]][%[[CSTAGE]]], parity %[[CPARITY]]
// CHECK-NOT:           tile.copy
// CHECK:               %[[A:.+]] = tile.stage %{{.+}}[%[[CSTAGE]]]
// CHECK:               %[[B:.+]] = tile.stage %{{.+}}[%[[CSTAGE]]]
// CHECK:               tile.gemm %[[A]], %[[B]], %{{.+}} {tile.async, tile.mma = #tile.mma<wgmma>}
// CHECK:               tile.mma_wait pending = 0
// Lane r of each consumer warp arrives on empty[s] of block r of the cluster.
// CHECK:               %[[LANETID:.+]] = tile.thread_id 0
// CHECK:               %[[LANE:.+]] = arith.remui %[[LANETID]]
// CHECK:               %[[RELEASES:.+]] = arith.cmpi ult, %[[LANE]], %[[CS]] : index
// CHECK:               scf.if %[[RELEASES]]
// CHECK:                 %[[CEMPTY:.+]] = arith.addi %[[CSTAGE]]
// CHECK:                 tile.mbarrier_arrive %[[BARS]][%[[CEMPTY]]] at %[[LANE]] :
// The ring loop is an ordinary loop now.
// CHECK:             }
// CHECK-NOT:         tile.pipeline
// CHECK:             tile.mma_wait pending = 0, %[[ACC:.+]] : !tile.buffer<fragment 128x128xf32>
// The unit that ends its tile (whole tiles too) adds the slots of the blocks from the one with
// the tile's first iteration to this one (those with a split range; slot c of the pair's
// walker: 2 c + rank), then runs the epilogue.
// CHECK:             scf.if
// CHECK:               scf.for %[[FROM:.+]] = %{{.+}} to %[[CC]]
// CHECK:                 scf.if
// CHECK:                   scf.if
// CHECK:                     %[[FROMSLOT0:.+]] = arith.shli %[[FROM]], %[[SHIFT]]
// CHECK-NEXT:                %[[FROMSLOT:.+]] = arith.addi %[[FROMSLOT0]], %[[CR]]
// CHECK-NEXT:                tile.partial_wait %[[FROMSLOT]]
// CHECK:                   tile.barrier
// CHECK:                   tile.partial_add %[[ACC]], %{{.+}}, offset = 0 : !tile.buffer<fragment 128x128xf32>
// CHECK:               tile.copy %[[ACC]] to %arg2
// Otherwise the block's slot: 64 registers x 4 bytes x 256 threads.
// CHECK:             } else {
// CHECK:               %[[SLOT0:.+]] = arith.shli %[[CC]], %[[SHIFT]]
// CHECK-NEXT:          %[[SLOT:.+]] = arith.addi %[[SLOT0]], %[[CR]]
// CHECK-NEXT:          tile.partial_store %[[ACC]], %[[SLOT]], offset = 0
// CHECK:               tile.barrier
// CHECK:               scf.if
// CHECK:                 tile.partial_signal %[[SLOT]]
// CHECK:             tile.barrier
// A tile past the grid: its consumers pass each stage on (waited for full, then released to
// both blocks), without the kernel's body.
// CHECK:           } else {
// CHECK:             scf.for
// CHECK:               tile.mbarrier_wait %[[BARS]]
// CHECK-NOT:           tile.gemm
// CHECK:               tile.mbarrier_arrive %[[BARS]][%{{.+}}] at %{{.+}} :
// CHECK:           scf.yield

tile.kernel @gemm threads [256, 1, 1] args ["A", "B", "C", "batch"] dims [["L", "M", "K"], ["K", "N"], ["M", "N"], []] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 98352 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 3>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>, %batch: index):
  %n = tile.dim %b[1] : !tile.tensor<bf16, 2>
  %c128 = arith.constant 128 : index
  %gx = arith.ceildivsi %n, %c128 : index
  %m = tile.dim %a[1] : !tile.tensor<bf16, 3>
  %gy = arith.ceildivsi %m, %c128 : index
  %c1 = arith.constant 1 : index
  tile.yield %gx, %gy, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 3>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>, %batch: index):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 49152 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[2] : !tile.tensor<bf16, 3>
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %nk = arith.ceildivsi %k, %c64 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c64 : index
    tile.copy %a[%batch, %row, %col] to %as {tile.tma} : !tile.tensor<bf16, 3> to !tile.buffer<shared 128x64xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 98304 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 3 : i64}
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}

// blocks_per_sm(2) does not change the budgets: the entry runs one block per multiprocessor
// (ptxas would allocate the whole entry against two blocks' 80 registers and refuse the wgmma).
// CHECK-LABEL: tile.kernel @two_per_sm
// CHECK:       tile.warp_specialize producer_registers = 72, consumer_registers = 216 producer {
tile.kernel @two_per_sm threads [256, 1, 1] args ["A", "B", "C", "batch"] dims [["L", "M", "K"], ["K", "N"], ["M", "N"], []] params {} attributes {tile.min_blocks = 2 : i64, tile.producer_threads = 128 : i64, tile.shared_bytes = 98352 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 3>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>, %batch: index):
  %n = tile.dim %b[1] : !tile.tensor<bf16, 2>
  %c128 = arith.constant 128 : index
  %gx = arith.ceildivsi %n, %c128 : index
  %m = tile.dim %a[1] : !tile.tensor<bf16, 3>
  %gy = arith.ceildivsi %m, %c128 : index
  %c1 = arith.constant 1 : index
  tile.yield %gx, %gy, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 3>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>, %batch: index):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 49152 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[2] : !tile.tensor<bf16, 3>
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %nk = arith.ceildivsi %k, %c64 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c64 : index
    tile.copy %a[%batch, %row, %col] to %as {tile.tma} : !tile.tensor<bf16, 3> to !tile.buffer<shared 128x64xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 98304 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 3 : i64}
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}

// No stream-K where the ring's trip count depends on the tile (here on block.y, as a causal
// loop's would): the persistent loop walks whole tiles c, c + P, ..., no workspace op. No pairs
// either (the blocks of a pair walk the ring in lockstep): no cluster op, plain mbarriers.
// CHECK-LABEL: tile.kernel @per_tile_trip_count
// CHECK-NOT:     tile.stream_k
// CHECK-NOT:     tile.cluster
// CHECK:         tile.mbarrier_init %{{.+}}, count = 8 :
// CHECK-NOT:     tile.cluster
// CHECK:         tile.barrier
// CHECK-NOT:     tile.cluster
// CHECK:         tile.block_id 0
// CHECK:         tile.grid_dim 0
// CHECK-NOT:     tile.stream_k_active
// CHECK-NOT:     tile.partial_

tile.kernel @per_tile_trip_count threads [256, 1, 1] args ["A", "B", "C", "batch"] dims [["L", "M", "K"], ["K", "N"], ["M", "N"], []] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 98352 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 3>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>, %batch: index):
  %n = tile.dim %b[1] : !tile.tensor<bf16, 2>
  %c128 = arith.constant 128 : index
  %gx = arith.ceildivsi %n, %c128 : index
  %m = tile.dim %a[1] : !tile.tensor<bf16, 3>
  %gy = arith.ceildivsi %m, %c128 : index
  %c1 = arith.constant 1 : index
  tile.yield %gx, %gy, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 3>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>, %batch: index):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 49152 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[2] : !tile.tensor<bf16, 3>
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %nk0 = arith.ceildivsi %k, %c64 : index
  %yb = tile.block_id 1
  %nk = arith.minsi %nk0, %yb : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c64 : index
    tile.copy %a[%batch, %row, %col] to %as {tile.tma} : !tile.tensor<bf16, 3> to !tile.buffer<shared 128x64xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 98304 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 3 : i64}
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}

// Nor where the accumulator starts at something other than zero (each piece would add it).
// CHECK-LABEL: tile.kernel @nonzero_start
// CHECK-NOT:     tile.stream_k
// CHECK:         tile.warp_specialize
// CHECK-NOT:     tile.stream_k_active
// CHECK-NOT:     tile.partial_
tile.kernel @nonzero_start threads [256, 1, 1] args ["A", "B", "C", "batch"] dims [["L", "M", "K"], ["K", "N"], ["M", "N"], []] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 98352 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 3>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>, %batch: index):
  %n = tile.dim %b[1] : !tile.tensor<bf16, 2>
  %c128 = arith.constant 128 : index
  %gx = arith.ceildivsi %n, %c128 : index
  %m = tile.dim %a[1] : !tile.tensor<bf16, 3>
  %gy = arith.ceildivsi %m, %c128 : index
  %c1 = arith.constant 1 : index
  tile.yield %gx, %gy, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 3>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>, %batch: index):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 49152 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 1.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[2] : !tile.tensor<bf16, 3>
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %nk = arith.ceildivsi %k, %c64 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c64 : index
    tile.copy %a[%batch, %row, %col] to %as {tile.tma} : !tile.tensor<bf16, 3> to !tile.buffer<shared 128x64xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 98304 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 3 : i64}
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}

// Nor where a gemm overwrites its accumulator (`clear`): the pieces' sums would not add up.
// CHECK-LABEL: tile.kernel @cleared
// CHECK-NOT:     tile.stream_k
// CHECK:         tile.warp_specialize
// CHECK-NOT:     tile.stream_k_active
// CHECK-NOT:     tile.partial_
tile.kernel @cleared threads [256, 1, 1] args ["A", "B", "C", "batch"] dims [["L", "M", "K"], ["K", "N"], ["M", "N"], []] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 98352 : i64} grid {
^bb0(%a: !tile.tensor<bf16, 3>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>, %batch: index):
  %n = tile.dim %b[1] : !tile.tensor<bf16, 2>
  %c128 = arith.constant 128 : index
  %gx = arith.ceildivsi %n, %c128 : index
  %m = tile.dim %a[1] : !tile.tensor<bf16, 3>
  %gy = arith.ceildivsi %m, %c128 : index
  %c1 = arith.constant 1 : index
  tile.yield %gx, %gy, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 3>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<bf16, 2>, %batch: index):
  %as = tile.alloc {tile.offset = 0 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc {tile.offset = 49152 : i64, tile.stages = 3 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !tile.buffer<fragment 128x128xf32>, f32
  %k = tile.dim %a[2] : !tile.tensor<bf16, 3>
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %nk = arith.ceildivsi %k, %c64 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %nk step %c1 {
    %by = tile.block_id 1
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %i, %c64 : index
    tile.copy %a[%batch, %row, %col] to %as {tile.tma} : !tile.tensor<bf16, 3> to !tile.buffer<shared 128x64xbf16>
    %bx = tile.block_id 0
    %n0 = arith.muli %bx, %c128 : index
    tile.copy %b[%col, %n0] to %bs {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc {clear, tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.barriers = 98304 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 3 : i64}
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %r0 = arith.muli %by, %c128 : index
  %c0b = arith.muli %bx, %c128 : index
  tile.copy %acc to %c[%r0, %c0b] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}
