// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-ping-pong))' | FileCheck %s

// tile-ping-pong alone on consumers as tile-warp-specialize leaves them (attention's key loop:
// a wait for the full stage, Q K^T, the softmax's stand-in, P V, the stage's release). The two
// consumer warpgroups pass a turn through named barriers 2 and 3: warpgroup 0 gives itself the
// first at the start, each takes it before the loop and before P V, passes it on after Q K^T
// and after the loop.
// CHECK-LABEL: tile.kernel @attention
// CHECK:       } consumers {
// CHECK-NEXT:    %[[TID:.+]] = tile.thread_id 0
// CHECK:         %[[WG:.+]] = arith.divui %[[TID]], %c128
// CHECK:         %[[OWN:.+]] = arith.addi %[[WG]], %c2
// CHECK:         %[[AFTER:.+]] = arith.addi %[[WG]], %c1
// CHECK:         %[[REM:.+]] = arith.remui %[[AFTER]], %c2
// CHECK-NEXT:    %[[NEXT:.+]] = arith.addi %[[REM]], %c2
// CHECK:         %[[FIRST:.+]] = arith.cmpi eq, %[[WG]], %c0
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK:           tile.named_barrier arrive %c2{{.*}}, threads = 256
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.named_barrier %[[OWN]], threads = 256
// CHECK-NEXT:    scf.for
// CHECK:           tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {clear, tile.async
// CHECK-NEXT:      tile.named_barrier arrive %[[NEXT]], threads = 256
// CHECK-NEXT:      tile.mma_wait pending = 0
// CHECK-NEXT:      tile.copy
// CHECK-NEXT:      tile.named_barrier %[[OWN]], threads = 256
// CHECK-NEXT:      tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {tile.async
// CHECK:           tile.mbarrier_arrive
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.named_barrier arrive %[[NEXT]], threads = 256
// CHECK-NEXT:    tile.copy
tile.kernel @attention threads [256, 1, 1] args ["O"] dims [["B", "S", "128"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%o: !tile.tensor<bf16, 3>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%o: !tile.tensor<bf16, 3>):
  %q = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x128xbf16>
  %ks = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %vs = tile.alloc {tile.offset = 65536 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %sf = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
  %bars = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tile.dim %o[1] : !tile.tensor<bf16, 3>
  tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
  } consumers {
    scf.for %i = %c0 to %n step %c1 {
      %s = arith.remui %i, %c2 : index
      tile.mbarrier_wait %bars[%s], parity %i : !tile.buffer<shared 4xi64>
      %k = tile.stage %ks[%s] : !tile.buffer<shared 64x128xbf16>
      %v = tile.stage %vs[%s] : !tile.buffer<shared 64x128xbf16>
      tile.gemm %q, %k, %sf {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 128x128xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x64xf32>
      tile.mma_wait pending = 0, %sf : !tile.buffer<fragment 128x64xf32>
      tile.copy %sf to %p : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128x64xbf16>
      tile.gemm %p, %v, %acc {tile.async, tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
      tile.mma_wait pending = 0, %acc : !tile.buffer<fragment 128x128xf32>
      %e = arith.addi %s, %c2 : index
      tile.mbarrier_arrive %bars[%e] : !tile.buffer<shared 4xi64>
    }
    tile.copy %acc to %o[%c0, %c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 3>
    tile.barrier
  }
  tile.yield
}

// -----

// Three consumer warpgroups: a ring of turns 2 -> 3 -> 4 -> 2.
// CHECK-LABEL: tile.kernel @three
// CHECK:         arith.remui %{{.+}}, %c3
// CHECK:         tile.named_barrier arrive
// CHECK:         scf.for
tile.kernel @three threads [384, 1, 1] args ["O"] dims [["B", "S", "128"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%o: !tile.tensor<bf16, 3>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%o: !tile.tensor<bf16, 3>):
  %q = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 192x192xbf16>
  %ks = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x192xbf16>
  %vs = tile.alloc {tile.offset = 65536 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x192xbf16>
  %sf = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [12, 1]>} : !tile.buffer<fragment 192x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [12, 1]>} : !tile.buffer<fragment 192x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [12, 1]>} : !tile.buffer<fragment 192x192xf32>
  %bars = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tile.dim %o[1] : !tile.tensor<bf16, 3>
  tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
  } consumers {
    scf.for %i = %c0 to %n step %c1 {
      %s = arith.remui %i, %c2 : index
      tile.mbarrier_wait %bars[%s], parity %i : !tile.buffer<shared 4xi64>
      %k = tile.stage %ks[%s] : !tile.buffer<shared 64x192xbf16>
      %v = tile.stage %vs[%s] : !tile.buffer<shared 64x192xbf16>
      tile.gemm %q, %k, %sf {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 192x192xbf16>, !tile.buffer<shared 64x192xbf16>, !tile.buffer<fragment 192x64xf32>
      tile.mma_wait pending = 0, %sf : !tile.buffer<fragment 192x64xf32>
      tile.copy %sf to %p : !tile.buffer<fragment 192x64xf32> to !tile.buffer<fragment 192x64xbf16>
      tile.gemm %p, %v, %acc {tile.async, tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 192x64xbf16>, !tile.buffer<shared 64x192xbf16>, !tile.buffer<fragment 192x192xf32>
      tile.mma_wait pending = 0, %acc : !tile.buffer<fragment 192x192xf32>
      %e = arith.addi %s, %c2 : index
      tile.mbarrier_arrive %bars[%e] : !tile.buffer<shared 4xi64>
    }
    tile.copy %acc to %o[%c0, %c0, %c0] : !tile.buffer<fragment 192x192xf32> to !tile.tensor<bf16, 3>
    tile.barrier
  }
  tile.yield
}

// -----

// One consumer warpgroup: nothing to take turns with.
// CHECK-LABEL: tile.kernel @one
// CHECK-NOT:     tile.named_barrier
tile.kernel @one threads [128, 1, 1] args ["O"] dims [["B", "S", "128"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%o: !tile.tensor<bf16, 3>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%o: !tile.tensor<bf16, 3>):
  %q = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %ks = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %vs = tile.alloc {tile.offset = 65536 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %sf = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [4, 1]>} : !tile.buffer<fragment 64x128xf32>
  %bars = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tile.dim %o[1] : !tile.tensor<bf16, 3>
  tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
  } consumers {
    scf.for %i = %c0 to %n step %c1 {
      %s = arith.remui %i, %c2 : index
      tile.mbarrier_wait %bars[%s], parity %i : !tile.buffer<shared 4xi64>
      %k = tile.stage %ks[%s] : !tile.buffer<shared 64x128xbf16>
      %v = tile.stage %vs[%s] : !tile.buffer<shared 64x128xbf16>
      tile.gemm %q, %k, %sf {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 64x128xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 64x64xf32>
      tile.mma_wait pending = 0, %sf : !tile.buffer<fragment 64x64xf32>
      tile.copy %sf to %p : !tile.buffer<fragment 64x64xf32> to !tile.buffer<fragment 64x64xbf16>
      tile.gemm %p, %v, %acc {tile.async, tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 64x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 64x128xf32>
      tile.mma_wait pending = 0, %acc : !tile.buffer<fragment 64x128xf32>
      %e = arith.addi %s, %c2 : index
      tile.mbarrier_arrive %bars[%e] : !tile.buffer<shared 4xi64>
    }
    tile.copy %acc to %o[%c0, %c0, %c0] : !tile.buffer<fragment 64x128xf32> to !tile.tensor<bf16, 3>
    tile.barrier
  }
  tile.yield
}

// -----

// Nothing between the gemms (tile-warp-specialize's overlap leaves its loop so): no turns.
// CHECK-LABEL: tile.kernel @adjacent
// CHECK-NOT:     tile.named_barrier
tile.kernel @adjacent threads [256, 1, 1] args ["O"] dims [["B", "S", "128"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%o: !tile.tensor<bf16, 3>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%o: !tile.tensor<bf16, 3>):
  %q = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x128xbf16>
  %ks = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %vs = tile.alloc {tile.offset = 65536 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %sf = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
  %bars = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tile.dim %o[1] : !tile.tensor<bf16, 3>
  tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
  } consumers {
    scf.for %i = %c0 to %n step %c1 {
      %s = arith.remui %i, %c2 : index
      tile.mbarrier_wait %bars[%s], parity %i : !tile.buffer<shared 4xi64>
      %k = tile.stage %ks[%s] : !tile.buffer<shared 64x128xbf16>
      %v = tile.stage %vs[%s] : !tile.buffer<shared 64x128xbf16>
      tile.gemm %q, %k, %sf {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 128x128xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x64xf32>
      tile.mma_wait pending = 0, %sf : !tile.buffer<fragment 128x64xf32>
      tile.gemm %p, %v, %acc {tile.async, tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
      tile.mma_wait pending = 0, %acc : !tile.buffer<fragment 128x128xf32>
      %e = arith.addi %s, %c2 : index
      tile.mbarrier_arrive %bars[%e] : !tile.buffer<shared 4xi64>
    }
    tile.copy %acc to %o[%c0, %c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 3>
    tile.barrier
  }
  tile.yield
}

// -----

// One stage: the warpgroup holding the turn would wait for a stage the others cannot release.
// CHECK-LABEL: tile.kernel @one_stage
// CHECK-NOT:     tile.named_barrier
tile.kernel @one_stage threads [256, 1, 1] args ["O"] dims [["B", "S", "128"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%o: !tile.tensor<bf16, 3>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%o: !tile.tensor<bf16, 3>):
  %q = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x128xbf16>
  %ks = tile.alloc {tile.offset = 32768 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %vs = tile.alloc {tile.offset = 65536 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %sf = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
  %bars = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tile.dim %o[1] : !tile.tensor<bf16, 3>
  tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
  } consumers {
    scf.for %i = %c0 to %n step %c1 {
      %s = arith.remui %i, %c2 : index
      tile.mbarrier_wait %bars[%s], parity %i : !tile.buffer<shared 4xi64>
      
      
      tile.gemm %q, %ks, %sf {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 128x128xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x64xf32>
      tile.mma_wait pending = 0, %sf : !tile.buffer<fragment 128x64xf32>
      tile.copy %sf to %p : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128x64xbf16>
      tile.gemm %p, %vs, %acc {tile.async, tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
      tile.mma_wait pending = 0, %acc : !tile.buffer<fragment 128x128xf32>
      %e = arith.addi %s, %c2 : index
      tile.mbarrier_arrive %bars[%e] : !tile.buffer<shared 4xi64>
    }
    tile.copy %acc to %o[%c0, %c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 3>
    tile.barrier
  }
  tile.yield
}

// -----

// A block barrier in the body would deadlock against the turn: no turns.
// CHECK-LABEL: tile.kernel @barrier
// CHECK-NOT:     tile.named_barrier
tile.kernel @barrier threads [256, 1, 1] args ["O"] dims [["B", "S", "128"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%o: !tile.tensor<bf16, 3>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%o: !tile.tensor<bf16, 3>):
  %q = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x128xbf16>
  %ks = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %vs = tile.alloc {tile.offset = 65536 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %sf = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
  %bars = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tile.dim %o[1] : !tile.tensor<bf16, 3>
  tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
  } consumers {
    scf.for %i = %c0 to %n step %c1 {
      %s = arith.remui %i, %c2 : index
      tile.mbarrier_wait %bars[%s], parity %i : !tile.buffer<shared 4xi64>
      %k = tile.stage %ks[%s] : !tile.buffer<shared 64x128xbf16>
      %v = tile.stage %vs[%s] : !tile.buffer<shared 64x128xbf16>
      tile.barrier
      tile.gemm %q, %k, %sf {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 128x128xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x64xf32>
      tile.mma_wait pending = 0, %sf : !tile.buffer<fragment 128x64xf32>
      tile.copy %sf to %p : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128x64xbf16>
      tile.gemm %p, %v, %acc {tile.async, tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
      tile.mma_wait pending = 0, %acc : !tile.buffer<fragment 128x128xf32>
      %e = arith.addi %s, %c2 : index
      tile.mbarrier_arrive %bars[%e] : !tile.buffer<shared 4xi64>
    }
    tile.copy %acc to %o[%c0, %c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 3>
    tile.barrier
  }
  tile.yield
}

// -----

// Holding the turn, an op that may wait for other warpgroups (a copy to a tensor may go
// through shared memory): no turns.
// CHECK-LABEL: tile.kernel @reduce_in_turn
// CHECK-NOT:     tile.named_barrier
tile.kernel @reduce_in_turn threads [256, 1, 1] args ["O"] dims [["B", "S", "128"]] params {} attributes {tile.producer_threads = 128 : i64} grid {
^bb0(%o: !tile.tensor<bf16, 3>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%o: !tile.tensor<bf16, 3>):
  %q = tile.alloc {tile.offset = 0 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 128x128xbf16>
  %ks = tile.alloc {tile.offset = 32768 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %vs = tile.alloc {tile.offset = 65536 : i64, tile.stages = 2 : i64, tile.swizzle = 128 : i64} : !tile.buffer<shared 64x128xbf16>
  %sf = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xf32>
  %p = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x64xbf16>
  %acc = tile.alloc {tile.layout = #tile.mma_sync_acc<warps = [8, 1]>} : !tile.buffer<fragment 128x128xf32>
  %bars = tile.alloc {tile.offset = 98304 : i64} : !tile.buffer<shared 4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tile.dim %o[1] : !tile.tensor<bf16, 3>
  tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
  } consumers {
    scf.for %i = %c0 to %n step %c1 {
      %s = arith.remui %i, %c2 : index
      tile.mbarrier_wait %bars[%s], parity %i : !tile.buffer<shared 4xi64>
      %k = tile.stage %ks[%s] : !tile.buffer<shared 64x128xbf16>
      %v = tile.stage %vs[%s] : !tile.buffer<shared 64x128xbf16>
      tile.gemm %q, %k, %sf {clear, tile.async, tile.mma = #tile.mma<wgmma>, transpose_b} : !tile.buffer<shared 128x128xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x64xf32>
      tile.mma_wait pending = 0, %sf : !tile.buffer<fragment 128x64xf32>
      tile.copy %sf to %p : !tile.buffer<fragment 128x64xf32> to !tile.buffer<fragment 128x64xbf16>
      tile.gemm %p, %v, %acc {tile.async, tile.mma = #tile.mma<wgmma>} : !tile.buffer<fragment 128x64xbf16>, !tile.buffer<shared 64x128xbf16>, !tile.buffer<fragment 128x128xf32>
      tile.mma_wait pending = 0, %acc : !tile.buffer<fragment 128x128xf32>
      tile.copy %acc to %o[%c0, %c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 3>
      %e = arith.addi %s, %c2 : index
      tile.mbarrier_arrive %bars[%e] : !tile.buffer<shared 4xi64>
    }
    tile.copy %acc to %o[%c0, %c0, %c0] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 3>
    tile.barrier
  }
  tile.yield
}
