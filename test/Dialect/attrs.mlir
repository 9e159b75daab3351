// RUN: tlc-opt %s | tlc-opt | FileCheck %s

// The typed attributes of the contract between passes print and parse back.

// CHECK: module attributes {tile.target = #tile.target<"sm_80", ptx = 86, shared_bytes = 166912>}
module attributes {tile.target = #tile.target<"sm_80", ptx = 86, shared_bytes = 166912>} {
// CHECK: tile.kernel @k {{.+}} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 33808 : i64}
tile.kernel @k threads [256, 1, 1] args ["X"] dims [["M", "N"]] params {} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 33808 : i64} grid {
^bb0(%x: !tile.tensor<bf16, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<bf16, 2>):
  // CHECK: tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  // CHECK: tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 2]>} : !tile.buffer<fragment 128x64xf32>
  // CHECK: tile.alloc {tile.layout = #tile.mma_sync_rows<warps = 8>} : !tile.buffer<fragment 128xf32>
  // CHECK: tile.alloc {tile.layout = #tile.mma_sync_rows<warps = 4, replicas = 2>} : !tile.buffer<fragment 64xf32>
  // CHECK: tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.wgmma_acc<warpgroups = [2, 1]>} : !tile.buffer<fragment 128x128xf32>
  %mma = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 2]>} : !tile.buffer<fragment 128x64xf32>
  %rows = tile.alloc {tile.layout = #tile.mma_sync_rows<warps = 8>} : !tile.buffer<fragment 128xf32>
  %rows2 = tile.alloc {tile.layout = #tile.mma_sync_rows<warps = 4, replicas = 2>} : !tile.buffer<fragment 64xf32>
  %a = tile.alloc {tile.offset = 0 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x64xbf16>
  %a2 = tile.alloc : !tile.buffer<shared 128x64xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // CHECK: scf.for
  // CHECK: tile.copy {{.+}} {tile.tma}
  // CHECK: tile.gemm {{.+}} {tile.mma = #tile.mma<wgmma>}
  // CHECK: } {tile.barriers = 32768 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 2 : i64}
  scf.for %i = %c0 to %c4 step %c1 {
    tile.copy %x[%c0, %i] to %a {tile.tma} : !tile.tensor<bf16, 2> to !tile.buffer<shared 64x64xbf16>
    tile.gemm %a2, %a, %mma {tile.mma = #tile.mma<wgmma>} : !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 64x64xbf16>, !tile.buffer<fragment 128x64xf32>
  } {tile.barriers = 32768 : i64, tile.pipeline = #tile.pipeline<tma_wgmma>, tile.stages = 2 : i64}
  // CHECK: scf.for
  // CHECK: } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 3 : i64}
  scf.for %i = %c0 to %c4 step %c1 {
  } {tile.pipeline = #tile.pipeline<cp_async_regs>, tile.stages = 3 : i64}
  // CHECK: } {tile.unroll}
  scf.for %i = %c0 to %c4 step %c1 {
  } {tile.unroll}
  tile.yield
}
}
