// RUN: tlc-opt %s --split-input-file --tile-partition-threads | FileCheck %s

// tile-partition-threads: a tile.parallel of P points in a block of T threads becomes a loop of
// ceil(P / T) steps; at step k, thread t takes the point of linear index k * T + t (row-major,
// last index fastest), guarded when T does not divide P.

// 256 points over 128 threads: two steps, no guard; a 1-D space needs no delinearization.
// CHECK-LABEL: tile.kernel @divisible_1d
// CHECK:       } body {
// CHECK-NEXT:  ^bb0(%[[X:.+]]: !tile.tensor<f32, 1>):
// CHECK-NEXT:    %[[TID:.+]] = tile.thread_id 0
// CHECK-NOT:     tile.thread_id
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[STEPS:.+]] = arith.constant 2 : index
// CHECK:         scf.for %[[K:.+]] = %[[ZERO]] to %[[STEPS]] step %[[ONE]] {
// CHECK-NEXT:      %[[T:.+]] = arith.constant 128 : index
// CHECK-NEXT:      %[[BASE:.+]] = arith.muli %[[K]], %[[T]] : index
// CHECK-NEXT:      %[[LIN:.+]] = arith.addi %[[BASE]], %[[TID]] : index
// CHECK-NOT:       scf.if
// CHECK-NOT:       arith.remui
// CHECK-NEXT:      %[[V:.+]] = tile.load %[[X]][%[[LIN]]] : !tile.tensor<f32, 1>
// CHECK-NEXT:      tile.store %[[V]], %[[X]][%[[LIN]]] : !tile.tensor<f32, 1>
// CHECK-NEXT:    }
// CHECK-NOT:     tile.parallel
// CHECK:         tile.yield
tile.kernel @divisible_1d threads [128, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  tile.parallel [256] {
  ^bb0(%i: index):
    %v = tile.load %x[%i] : !tile.tensor<f32, 1>
    tile.store %v, %x[%i] : !tile.tensor<f32, 1>
  }
  tile.yield
}

// -----

// 3 x 40 = 120 points over 32 threads: four steps, guarded by linear < 120; the point is
// (linear / 40, linear % 40).
// CHECK-LABEL: tile.kernel @guarded_2d
// CHECK:         %[[TID:.+]] = tile.thread_id 0
// CHECK:         %[[STEPS:.+]] = arith.constant 4 : index
// CHECK:         scf.for %[[K:.+]] = %{{.+}} to %[[STEPS]] step %{{.+}} {
// CHECK:           %[[T:.+]] = arith.constant 32 : index
// CHECK-NEXT:      %[[BASE:.+]] = arith.muli %[[K]], %[[T]] : index
// CHECK-NEXT:      %[[LIN:.+]] = arith.addi %[[BASE]], %[[TID]] : index
// CHECK-NEXT:      %[[P:.+]] = arith.constant 120 : index
// CHECK-NEXT:      %[[IN:.+]] = arith.cmpi ult, %[[LIN]], %[[P]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK-NEXT:        %[[E1:.+]] = arith.constant 40 : index
// CHECK-NEXT:        %[[COL:.+]] = arith.remui %[[LIN]], %[[E1]] : index
// CHECK-NEXT:        %[[ROW:.+]] = arith.divui %[[LIN]], %[[E1]] : index
// CHECK-NEXT:        %[[V:.+]] = tile.load %{{.+}}[%[[ROW]], %[[COL]]] : !tile.tensor<f32, 2>
// CHECK-NEXT:        tile.store %[[V]], %{{.+}}[%[[ROW]], %[[COL]]] : !tile.tensor<f32, 2>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
tile.kernel @guarded_2d threads [32, 1, 1] args ["X"] dims [["M", "N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 2>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 2>):
  tile.parallel [3, 40] {
  ^bb0(%i: index, %j: index):
    %v = tile.load %x[%i, %j] : !tile.tensor<f32, 2>
    tile.store %v, %x[%i, %j] : !tile.tensor<f32, 2>
  }
  tile.yield
}

// -----

// Fewer points than threads: one step, and the threads past the last point do nothing.
// CHECK-LABEL: tile.kernel @fewer_points_than_threads
// CHECK:       } body {
// CHECK:         %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[STEPS:.+]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %{{.+}} = %[[ZERO]] to %[[STEPS]] step %[[ONE]] {
// CHECK:           %[[P:.+]] = arith.constant 10 : index
// CHECK-NEXT:      %[[IN:.+]] = arith.cmpi ult, %{{.+}}, %[[P]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
tile.kernel @fewer_points_than_threads threads [64, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  tile.parallel [10] {
  ^bb0(%i: index):
    %v = tile.load %x[%i] : !tile.tensor<f32, 1>
    tile.store %v, %x[%i] : !tile.tensor<f32, 1>
  }
  tile.yield
}

// -----

// A 3-D block: the linear thread id is x + y * 8 + z * (8 * 4). A 3-D space of 2 x 4 x 8 = 64
// points is one step; its coordinates are (l / 32, (l / 8) % 4, l % 8).
// CHECK-LABEL: tile.kernel @threads_3d
// CHECK:         %[[TX:.+]] = tile.thread_id 0
// CHECK-NEXT:    %[[TY:.+]] = tile.thread_id 1
// CHECK-NEXT:    %[[SY:.+]] = arith.constant 8 : index
// CHECK-NEXT:    %[[Y:.+]] = arith.muli %[[TY]], %[[SY]] : index
// CHECK-NEXT:    %[[XY:.+]] = arith.addi %[[TX]], %[[Y]] : index
// CHECK-NEXT:    %[[TZ:.+]] = tile.thread_id 2
// CHECK-NEXT:    %[[SZ:.+]] = arith.constant 32 : index
// CHECK-NEXT:    %[[Z:.+]] = arith.muli %[[TZ]], %[[SZ]] : index
// CHECK-NEXT:    %[[TID:.+]] = arith.addi %[[XY]], %[[Z]] : index
// CHECK:         scf.for %[[K:.+]] =
// CHECK-NEXT:      %[[T:.+]] = arith.constant 64 : index
// CHECK-NEXT:      %[[BASE:.+]] = arith.muli %[[K]], %[[T]] : index
// CHECK-NEXT:      %[[LIN:.+]] = arith.addi %[[BASE]], %[[TID]] : index
// CHECK-NOT:       scf.if
// CHECK-NEXT:      %[[E2:.+]] = arith.constant 8 : index
// CHECK-NEXT:      %[[C2:.+]] = arith.remui %[[LIN]], %[[E2]] : index
// CHECK-NEXT:      %[[R2:.+]] = arith.divui %[[LIN]], %[[E2]] : index
// CHECK-NEXT:      %[[E1:.+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[C1:.+]] = arith.remui %[[R2]], %[[E1]] : index
// CHECK-NEXT:      %[[C0:.+]] = arith.divui %[[R2]], %[[E1]] : index
// CHECK-NEXT:      %[[V:.+]] = tile.load %{{.+}}[%[[C0]], %[[C1]], %[[C2]]] : !tile.tensor<f32, 3>
// CHECK-NEXT:      tile.store %[[V]], %{{.+}}[%[[C2]], %[[C1]], %[[C0]]] : !tile.tensor<f32, 3>
tile.kernel @threads_3d threads [8, 4, 2] args ["X"] dims [["A", "B", "C"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 3>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 3>):
  tile.parallel [2, 4, 8] {
  ^bb0(%i: index, %j: index, %k: index):
    %v = tile.load %x[%i, %j, %k] : !tile.tensor<f32, 3>
    tile.store %v, %x[%k, %j, %i] : !tile.tensor<f32, 3>
  }
  tile.yield
}

// -----

// Thread dimensions of extent 1 contribute nothing: threads [1, 32, 1] uses only thread_id 1.
// Values defined outside the body are used as they are, and every tile.parallel of the kernel,
// also one nested in scf.for, is partitioned.
// CHECK-LABEL: tile.kernel @outer_values_and_nesting
// CHECK:       } body {
// CHECK-NEXT:  ^bb0(%[[X:.+]]: !tile.tensor<f32, 1>, %[[S:.+]]: f32):
// CHECK-NOT:     tile.thread_id 0
// CHECK:         %[[B:.+]] = tile.block_id 0
// CHECK:         %[[TID:.+]] = tile.thread_id 1
// CHECK-NOT:     tile.thread_id
// CHECK:         scf.for
// CHECK:           %[[LIN:.+]] = arith.addi %{{.+}}, %[[TID]] : index
// CHECK-NEXT:      %[[I:.+]] = arith.addi %[[B]], %[[LIN]] : index
// CHECK-NEXT:      tile.store %[[S]], %[[X]][%[[I]]] : !tile.tensor<f32, 1>
// CHECK:         scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:           %[[TID2:.+]] = tile.thread_id 1
// CHECK:           scf.for
// CHECK:             %[[LIN2:.+]] = arith.addi %{{.+}}, %[[TID2]] : index
// CHECK-NEXT:        tile.store %[[S]], %[[X]][%[[LIN2]]] : !tile.tensor<f32, 1>
// CHECK-NOT:     tile.parallel
tile.kernel @outer_values_and_nesting threads [1, 32, 1] args ["X", "s"] dims [["N"], []] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>, %s: f32):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>, %s: f32):
  %b = tile.block_id 0
  tile.parallel [64] {
  ^bb0(%i: index):
    %idx = arith.addi %b, %i : index
    tile.store %s, %x[%idx] : !tile.tensor<f32, 1>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %r = %c0 to %c4 step %c1 {
    tile.parallel [32] {
    ^bb0(%i: index):
      tile.store %s, %x[%i] : !tile.tensor<f32, 1>
    }
  }
  tile.yield
}
