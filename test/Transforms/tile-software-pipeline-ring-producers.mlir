// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-software-pipeline{ring-producers=true}))' | FileCheck %s
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-software-pipeline))' | FileCheck %s --check-prefix=OFF
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-software-pipeline{ring-producers=true}))' | FileCheck %s --check-prefix=OFF
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-software-pipeline{ring-producers=true stage-stores=false}))' | FileCheck %s --check-prefix=DIRECT

// tile-software-pipeline's ring-producers on register rings (decisions written by hand, as
// tile-assign-mma-layouts leaves them for attention): a ring whose copies TMA can issue and only
// wgmma gemms read becomes `tma_regs` (its copies `tile.tma`, a producer warpgroup on the
// kernel); without the option, or on sm_80, it stays `cp_async_regs`. The kernel's blocks then
// walk the grid one per multiprocessor, so its accumulator's copy to a tensor stages its rows
// through a shared scratch (16 rows of 144 bytes per warp, tile::addStoreStaging) unless
// stage-stores is off; a cp_async_regs ring's kernel keeps its blocks' shared memory (OFF).

// CHECK-LABEL: tile.kernel @attention
// CHECK-SAME:    tile.producer_threads = 128
// CHECK:         %[[SCRATCH:.+]] = tile.alloc : !tile.buffer<shared 18432xi8>
// CHECK:         tile.copy %{{.+}} to %{{.+}} {tile.tma}
// CHECK:         scf.for
// CHECK:           tile.copy %{{.+}} to %{{.+}} {tile.tma}
// CHECK-NEXT:      tile.copy %{{.+}} to %{{.+}} {tile.tma}
// CHECK:         } {tile.pipeline = #tile.pipeline<tma_regs>, tile.stages = 2 : i64}
// CHECK-NEXT:    tile.copy %{{.+}} to %{{.+}} scratch %[[SCRATCH]] :
// OFF-LABEL:   tile.kernel @attention
// OFF-NOT:       tile.producer_threads
// OFF-NOT:       tile.tma
// OFF-NOT:       xi8>
// OFF:           } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
// OFF-NOT:       scratch
// DIRECT-LABEL: tile.kernel @attention
// DIRECT-SAME:    tile.producer_threads = 128
// DIRECT-NOT:     scratch
// DIRECT:         } {tile.pipeline = #tile.pipeline<tma_regs>, tile.stages = 2 : i64}
// DIRECT-NOT:     scratch
// DIRECT-LABEL: tile.kernel @scaled
tile.kernel @attention threads [256, 1, 1] args ["Q", "K", "V", "O"] dims [["B", "S", "128"], ["B", "S", "128"], ["B", "S", "128"], ["B", "S", "128"]] params {} grid {
^bb0(%q: !tile.tensor<bf16, 3>, %k: !tile.tensor<bf16, 3>, %v: !tile.tensor<bf16, 3>, %o: !tile.tensor<bf16, 3>):
  %c1 = arith.constant 1 : index
  %b = tile.dim %q[0] : !tile.tensor<bf16, 3>
  tile.yield %c1, %c1, %b : index, index, index
} body {
^bb0(%q: !tile.tensor<bf16, 3>, %k: !tile.tensor<bf16, 3>, %v: !tile.tensor<bf16, 3>, %o: !tile.tensor<bf16, 3>):
  %qs = tile.alloc : !tile.buffer<shared 128x128xbf16>
  %ks = tile.alloc : !tile.buffer<shared 64x128xbf16>
  %vs = tile.alloc : !tile.buffer<shared 64x128xbf16>
  %s = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %bz = tile.block_id 2
  tile.copy %q[%bz, %c0, %c0] to %qs {tile.cp_async} : !tile.tensor<bf16, 3> to !tile.buffer<shared 128x128xbf16>
  %len = tile.dim %k[1] : !tile.tensor<bf16, 3>
  %n = arith.ceildivsi %len, %c64 : index
  scf.for %j = %c0 to %n step %c1 {
    %row = arith.muli %j, %c64 : index
    tile.copy %k[%bz, %row, %c0] to %ks {tile.cp_async} : !tile.tensor<bf16, 3> to !tile.buffer<shared 64x128xbf16>
    tile.copy %v[%bz, %row, %c0] to %vs {tile.cp_async} : !tile.tensor<bf16, 3> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %qs, %ks, %s {clear, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 128x128xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x64xf32>
    tile.copy %s to %p : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128x64xbf16>
    tile.gemm %p, %vs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.stages = 2 : i64}
  tile.copy %acc to %o[%bz, %c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 3>
  tile.yield
}

// -----

// A ring whose body loads tensor elements (fp8_gemm_blockwise's scales) keeps each thread's
// stores: the scratch measured slower there.
// CHECK-LABEL: tile.kernel @scaled
// CHECK-SAME:    tile.producer_threads = 128
// CHECK-NOT:     scratch
// CHECK:         } {tile.pipeline = #tile.pipeline<tma_regs>, tile.stages = 2 : i64}
// CHECK-NOT:     scratch
tile.kernel @scaled threads [256, 1, 1] args ["A", "B", "S", "C"] dims [["M", "K"], ["N", "K"], ["KB"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %sc: !tile.tensor<f32, 1>, %c: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %sc: !tile.tensor<f32, 1>, %c: !tile.tensor<bf16, 2>):
  %as = tile.alloc : !tile.buffer<shared 128x64xbf16>
  %bs = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %n = arith.ceildivsi %k, %c64 : index
  scf.for %i = %c0 to %n step %c1 {
    %kk = arith.muli %i, %c64 : index
    tile.copy %a[%c0, %kk] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%c0, %kk] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 128x64xf32>
    %s = tile.load %sc[%i] : !tile.tensor<f32, 1>
  } {tile.stages = 2 : i64}
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 128x64xf32> to !tile.tensor<bf16, 2>
  tile.yield
}

// -----

// A column offset not known to be a multiple of 16 bytes (a kernel argument): no TMA box may
// start there, the ring stays cp.async.
// CHECK-LABEL: tile.kernel @unknown_column
// CHECK-NOT:     tile.producer_threads
// CHECK:         } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
tile.kernel @unknown_column threads [128, 1, 1] args ["A", "B", "C", "col"] dims [["M", "K"], ["K", "N"], ["M", "N"], []] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>, %col: index):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>, %col: index):
  %as = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %bs = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %acc2 = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %n = arith.ceildivsi %k, %c64 : index
  scf.for %i = %c0 to %n step %c1 {
    %kk = arith.muli %i, %c64 : index
    %kc = arith.addi %kk, %col : index
    tile.copy %a[%c0, %kc] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
    tile.copy %b[%kk, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
    tile.gemm %as, %bs, %acc2 {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.stages = 2 : i64}
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}

// -----

// A stage read by mma.sync (ldmatrix) as well: only wgmma gemms read a producer's stages.
// CHECK-LABEL: tile.kernel @mma_sync_reader
// CHECK-NOT:     tile.producer_threads
// CHECK:         } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 2 : i64}
tile.kernel @mma_sync_reader threads [128, 1, 1] args ["A", "B", "C"] dims [["M", "K"], ["K", "N"], ["M", "N"]] params {} grid {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%a: !tile.tensor<bf16, 2>, %b: !tile.tensor<bf16, 2>, %c: !tile.tensor<f32, 2>):
  %as = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %bs = tile.alloc : !tile.buffer<shared 64x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %acc2 = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %k = tile.dim %a[1] : !tile.tensor<bf16, 2>
  %n = arith.ceildivsi %k, %c64 : index
  scf.for %i = %c0 to %n step %c1 {
    %kk = arith.muli %i, %c64 : index
    tile.copy %a[%c0, %kk] to %as {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
    tile.copy %b[%kk, %c0] to %bs {tile.cp_async} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
    tile.gemm %as, %bs, %acc {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
    tile.gemm %as, %bs, %acc2 {tile.mma = #tile.mma<mma_sync>} : !tile.buffer<shared 64x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 64x64xf32>
  } {tile.stages = 2 : i64}
  tile.copy %acc to %c[%c0, %c0] : !tile.buffer<fragment 64x64xf32> to !tile.tensor<f32, 2>
  tile.yield
}
