// RUN: tlc-opt %s --split-input-file --tile-partition-threads | FileCheck %s

// tile-partition-threads synchronizes after a partitioned 'parallel' whose body touches a shared
// or fragment buffer (other threads may read those next): a tile.barrier right after the thread
// loop, outside any guard. Bodies that touch only local buffers or tensors get no barrier.

// A shared buffer read: the barrier follows the loop.
// CHECK-LABEL: tile.kernel @shared_read
// CHECK:         %[[S:.+]] = tile.alloc : !tile.buffer<shared 128xf32>
// CHECK:         scf.for
// CHECK:           tile.read %[[S]][%{{.+}}] : !tile.buffer<shared 128xf32>
// CHECK-NEXT:      tile.store
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.yield
tile.kernel @shared_read threads [64, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %s = tile.alloc : !tile.buffer<shared 128xf32>
  tile.parallel [128] {
  ^bb0(%i: index):
    %v = tile.read %s[%i] : !tile.buffer<shared 128xf32>
    tile.store %v, %x[%i] : !tile.tensor<f32, 1>
  }
  tile.yield
}

// -----

// A fragment written under a guard (3 x 40 points over 32 threads): the barrier is after the
// loop, not inside the guard.
// CHECK-LABEL: tile.kernel @fragment_write_guarded
// CHECK:         %[[F:.+]] = tile.alloc : !tile.buffer<fragment 3x40xf32>
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK-NOT:         tile.barrier
// CHECK:             tile.write %{{.+}}, %[[F]][%{{.+}}, %{{.+}}] : !tile.buffer<fragment 3x40xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.yield
tile.kernel @fragment_write_guarded threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %f = tile.alloc : !tile.buffer<fragment 3x40xf32>
  tile.parallel [3, 40] {
  ^bb0(%r: index, %c: index):
    %v = tile.load %x[%c] : !tile.tensor<f32, 1>
    tile.write %v, %f[%r, %c] : !tile.buffer<fragment 3x40xf32>
  }
  tile.yield
}

// -----

// The buffer use may be nested in the body's own control flow.
// CHECK-LABEL: tile.kernel @nested_use
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             tile.read %{{.+}}[%{{.+}}] : !tile.buffer<shared 64xf16>
// CHECK-NEXT:        tile.store
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.yield
tile.kernel @nested_use threads [64, 1, 1] args ["X", "p"] dims [["N"], []] params {} grid {
^bb0(%x: !tile.tensor<f16, 1>, %p: i1):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f16, 1>, %p: i1):
  %s = tile.alloc : !tile.buffer<shared 64xf16>
  tile.parallel [64] {
  ^bb0(%i: index):
    scf.if %p {
      %v = tile.read %s[%i] : !tile.buffer<shared 64xf16>
      tile.store %v, %x[%i] : !tile.tensor<f16, 1>
    }
  }
  tile.yield
}

// -----

// Only local buffers and tensors: no barrier.
// CHECK-LABEL: tile.kernel @local_only
// CHECK:         %[[L:.+]] = tile.alloc : !tile.buffer<local 4xf32>
// CHECK:         scf.for
// CHECK:           tile.read %[[L]]
// CHECK:           tile.write %{{.+}}, %[[L]]
// CHECK-NOT:     tile.barrier
// CHECK:         tile.yield
tile.kernel @local_only threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %l = tile.alloc : !tile.buffer<local 4xf32>
  tile.parallel [32] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %v = tile.read %l[%c0] : !tile.buffer<local 4xf32>
    tile.write %v, %l[%c0] : !tile.buffer<local 4xf32>
    tile.store %v, %x[%i] : !tile.tensor<f32, 1>
  }
  tile.yield
}

// -----

// Tensors only (loads, stores, atomic adds): no barrier; a later parallel over a fragment in the
// same kernel gets one.
// CHECK-LABEL: tile.kernel @tensor_only_then_fragment
// CHECK:         scf.for
// CHECK:           tile.load
// CHECK:           tile.atomic_add
// CHECK-NEXT:    }
// CHECK-NOT:     tile.barrier
// CHECK:         scf.for
// CHECK:           tile.write %{{.+}}, %{{.+}}[%{{.+}}] : !tile.buffer<fragment 256xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.yield
tile.kernel @tensor_only_then_fragment threads [128, 1, 1] args ["X", "Y"] dims [["N"], ["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>, %y: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>, %y: !tile.tensor<f32, 1>):
  %f = tile.alloc : !tile.buffer<fragment 256xf32>
  tile.parallel [256] {
  ^bb0(%i: index):
    %v = tile.load %x[%i] : !tile.tensor<f32, 1>
    tile.atomic_add %v, %y[%i] : !tile.tensor<f32, 1>
  }
  tile.parallel [256] {
  ^bb0(%i: index):
    %z = arith.constant 0.0 : f32
    tile.write %z, %f[%i] : !tile.buffer<fragment 256xf32>
  }
  tile.yield
}

// -----

// A body that mixes a local and a shared buffer synchronizes.
// CHECK-LABEL: tile.kernel @local_and_shared
// CHECK:         scf.for
// CHECK:           tile.read %{{.+}} : !tile.buffer<local 2xf32>
// CHECK:           tile.write %{{.+}} : !tile.buffer<shared 32xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.barrier
tile.kernel @local_and_shared threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %l = tile.alloc : !tile.buffer<local 2xf32>
  %s = tile.alloc : !tile.buffer<shared 32xf32>
  tile.parallel [32] {
  ^bb0(%i: index):
    %c1 = arith.constant 1 : index
    %v = tile.read %l[%c1] : !tile.buffer<local 2xf32>
    tile.write %v, %s[%i] : !tile.buffer<shared 32xf32>
  }
  tile.yield
}

// -----

// A shared buffer read outside any 'parallel' (every thread reads it) and then written by a
// block-wide op: a slower warp could read the new value. A barrier goes before the writer, in
// the loop (the read of one iteration precedes the write of the next); the copy that fills the
// buffer first gets one too (conservatively: it is a writer of a buffer read at top level).
// CHECK-LABEL: tile.kernel @top_level_read
// CHECK:         %[[S:.+]] = tile.alloc : !tile.buffer<shared 64xf32>
// CHECK:         scf.for
// CHECK:           tile.barrier
// CHECK-NEXT:      tile.fill %[[S]]
// CHECK:           tile.read %[[S]][%{{.+}}] : !tile.buffer<shared 64xf32>
// CHECK-NEXT:      tile.barrier
// CHECK:           scf.for
// CHECK:             tile.write %{{.+}}, %[[S]][%{{.+}}] : !tile.buffer<shared 64xf32>
// CHECK:           }
// CHECK-NEXT:      tile.barrier
tile.kernel @top_level_read threads [64, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %s = tile.alloc : !tile.buffer<shared 64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %j = %c0 to %c4 step %c1 {
    tile.fill %s, %zero : !tile.buffer<shared 64xf32>, f32
    %v = tile.read %s[%c0] : !tile.buffer<shared 64xf32>
    tile.parallel [64] {
    ^bb0(%i: index):
      %w = arith.addf %v, %v : f32
      tile.write %w, %s[%i] : !tile.buffer<shared 64xf32>
    }
  }
  tile.yield
}

// -----

// An element of a shared buffer written outside any 'parallel' by one thread (under a condition
// on the thread index) and read by the others next: a barrier at the first point every thread
// reaches again, after the `if` (not inside it: the other threads never get there).
// CHECK-LABEL: tile.kernel @top_level_write
// CHECK:         %[[S:.+]] = tile.alloc : !tile.buffer<shared 4xf32>
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK-NOT:         tile.barrier
// CHECK:             tile.write %{{.+}}, %[[S]][%{{.+}}] : !tile.buffer<shared 4xf32>
// CHECK-NOT:         tile.barrier
// CHECK:           }
// CHECK-NEXT:      tile.barrier
// CHECK:           scf.for
// CHECK:             tile.read %[[S]]
tile.kernel @top_level_write threads [64, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %s = tile.alloc : !tile.buffer<shared 4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  scf.for %j = %c0 to %c4 step %c1 {
    %t = tile.thread_id 0
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      tile.write %one, %s[%c0] : !tile.buffer<shared 4xf32>
    }
    tile.parallel [64] {
    ^bb0(%i: index):
      %v = tile.read %s[%c0] : !tile.buffer<shared 4xf32>
      tile.store %v, %x[%i] : !tile.tensor<f32, 1>
    }
  }
  tile.yield
}
