// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{tma=false cp-async-wgmma=false},tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout),convert-tile-to-nvvm)' | FileCheck %s --check-prefix=MMA
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{tma=false},tile-partition-threads,tile-software-pipeline{producer-loads=false},tile-shared-memory-layout),convert-tile-to-nvvm)' | FileCheck %s
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target,tile.kernel(tile-assign-mma-layouts{tma=false},tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout,tile-warp-specialize),convert-tile-to-nvvm)' | FileCheck %s --check-prefix=LOADS
// RUN: tlc-opt %s --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tile.kernel(tile-assign-mma-layouts{tma=false},tile-partition-threads,tile-software-pipeline,tile-shared-memory-layout),convert-tile-to-nvvm)' | FileCheck %s --check-prefix=SM80

// tlc's plain entry of an sm_90a GEMM (tile-assign-mma-layouts{tma=false}): by default a ring
// filled by a producer warpgroup that loads the tiles itself (LOADS, entry `gemm__loads`); with
// tile-software-pipeline{producer-loads=false} (`tlc --codegen=cp-async-wgmma`) the cp.async
// ring in the multiplying warps feeding wgmma; with cp-async-wgmma=false (`tlc
// --codegen=mma-sync`), mma.sync (sm_80: mma.sync either way). Its copies are marked
// `tile.unaligned`. Its version for tensors cp.async cannot read 16 bytes at a time moves the
// same 16-byte chunks as 8 bf16 element loads and one 16-byte shared store each, in a loop over
// the thread's chunks (from its id, step 256); in the wgmma ring a tile inside the tensor takes
// two chunks per iteration (step 512), the 16 loads before the two stores, and an edge tile one
// chunk, checked.
// CHECK-LABEL: gpu.func @gemm(
// CHECK:         nvvm.cp.async.shared.global {{.+}}, 16, cache = cg
// CHECK:         scf.for %{{.+}} = %{{.+}} to %c1024 step %c512
// CHECK-COUNT-16:  llvm.load %{{.+}} : !llvm.ptr<1> -> bf16
// CHECK-NOT:       llvm.load
// CHECK:           llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NEXT:      llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK:         scf.for %{{.+}} = %{{.+}} to %c1024 step %c256
// CHECK:           scf.if
// CHECK:           llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// Each stage: this thread's copies landed, made visible to wgmma's async proxy, a barrier, then
// wgmma from the stage's swizzled tiles; while it runs, the copies of the iteration S - 1 ahead
// into the stage the previous iteration read (here the element version's loads and 16-byte
// shared stores, one cp.async group); then the wait.
// CHECK:         nvvm.cp.async.wait.group
// CHECK-NEXT:    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    gpu.barrier
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT:     nvvm.wgmma
// CHECK:         llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NOT:     nvvm.wgmma
// CHECK:         nvvm.cp.async.commit.group
// CHECK-NOT:     nvvm.wgmma
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// MMA-LABEL:   gpu.func @gemm(
// MMA-NOT:       step %c512
// MMA:           scf.for %{{.+}} = %{{.+}} to %c1024 step %c256
// MMA-COUNT-8:     llvm.load %{{.+}} : !llvm.ptr<1> -> bf16
// MMA:           llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// MMA-NOT:       nvvm.wgmma
// MMA:           nvvm.mma.sync
// The loading producer: 384 threads, a persistent tile loop in both roles; full barriers
// expect one arrival per producer thread (128), empty barriers one per consumer warp (8). The
// producer gives up registers, then waits for a free stage and fills it: where every tensor
// is cp.async-readable (16-byte aligned base and row strides), with 16-byte cp.async and one
// noinc cp.async arrival per thread; otherwise staged, a loop to count + 2 whose iteration
// it first finishes the copies of iteration it - 2 (S - 1 = 2 ahead): its blocks landed
// (wait_group 1, then a warp barrier: each row is one warp's) and, where the rows are not
// 16-byte aligned, each chunk is realigned in place from its own block and the next (4
// chunks' loads, a warp barrier, their funnel shifts and stores); a generic-to-async proxy
// fence and an arrival. Then it waits for a free stage and issues cp.async of the aligned
// 16-byte blocks covering each row of iteration it: in a tile inside the tensor whole blocks,
// and the block past the tile's width (a row's last chunk) cut to the row's misalignment;
// in an edge tile, a loop, each block cut at the tensor's edge and the tensor's last block
// element by element; for a tile left of the tensor or a strided tensor, element loads. One
// cp.async group per iteration. Consumers take the registers, wait for a full stage, fence,
// and multiply with wgmma.
// LOADS-LABEL: gpu.func @gemm__loads(
// LOADS-SAME:    known_block_size = array<i32: 384, 1, 1>, tile.entry = #tile.entry<"gemm", kind = loads, threads = 384, compute_threads = 256
// LOADS:         nvvm.mbarrier.init %{{.+}}, %c128_i32
// LOADS-NEXT:    llvm.getelementptr
// LOADS-NEXT:    nvvm.mbarrier.init %{{.+}}, %c8_i32
// LOADS:         %[[PRODUCER:.+]] = arith.cmpi uge, %thread_id_x{{.*}}, %c256
// LOADS-NEXT:    scf.if %[[PRODUCER]] {
// LOADS-NEXT:      nvvm.setmaxregister decrease 152
// LOADS:           scf.if
// LOADS:             scf.for
// LOADS:               nvvm.mbarrier.try_wait.parity
// LOADS:               nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache = cg :
// LOADS:               nvvm.cp.async.mbarrier.arrive %{{.+}} {noinc = true}
// LOADS:           } else {
// LOADS:             scf.for %{{.+}} = %c0 to %{{.+}} step %c1 {
// LOADS:               scf.if
// LOADS-NEXT:            arith.subi
// LOADS-NEXT:            nvvm.cp.async.wait.group 1
// LOADS-NEXT:            nvvm.bar.warp.sync
// LOADS:                 scf.if
// LOADS-COUNT-8:           llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// LOADS-NEXT:              nvvm.bar.warp.sync
// LOADS:                   llvm.intr.fshr
// LOADS:                   llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// LOADS:                 nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// LOADS:                 nvvm.mbarrier.arrive
// LOADS:               scf.if
// LOADS:                 nvvm.mbarrier.try_wait.parity
// LOADS:                 scf.if
// LOADS:                   scf.if
// LOADS:                     nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache =  cg : !llvm.ptr<3>, !llvm.ptr<1>
// LOADS-NEXT:                arith.cmpi eq
// LOADS-NEXT:                scf.if
// LOADS:                       nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache =  cg, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// LOADS:                   } else {
// LOADS:                     scf.for %{{.+}} = %{{.+}} to %c1024 step %c128 {
// LOADS:                       scf.if
// LOADS:                         nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache =  cg, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// LOADS:                       } else {
// LOADS-COUNT-8:                 llvm.load %{{.+}} : !llvm.ptr<1> -> bf16
// LOADS:                 } else {
// LOADS:                   scf.for %{{.+}} = %{{.+}} to %c1024 step %c128 {
// LOADS:                     llvm.load %{{.+}} : !llvm.ptr<1> -> bf16
// LOADS:                     llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// LOADS:               nvvm.cp.async.commit.group
// LOADS:         nvvm.setmaxregister increase 176
// LOADS:           nvvm.mbarrier.try_wait.parity
// LOADS-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// LOADS-COUNT-4:   nvvm.wgmma.mma_async
// LOADS-NOT:       cp.async
// LOADS:           nvvm.mbarrier.arrive
// SM80-LABEL:  gpu.func @gemm(
// SM80-NOT:      nvvm.wgmma
// SM80:          nvvm.mma.sync
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
  %by = tile.block_id 1
  %bx = tile.block_id 0
  %row = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  scf.for %i = %c0 to %nk step %c1 {
    %col = arith.muli %i, %c64 : index
    tile.copy %a[%row, %col] to %as : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %b[%col, %n0] to %bs : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x128xbf16>
    tile.gemm %as, %bs, %acc : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
  } {tile.stages = 3 : i64}
  tile.copy %acc to %c[%row, %n0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
  tile.yield
}
