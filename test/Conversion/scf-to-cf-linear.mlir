// tlc-scf-to-cf lowers every structured op upstream's convert-scf-to-cf lowers, to the same IR,
// visiting them last-to-first (linear time; bench/compile-time.sh, compile-time.linear).
// RUN: tlc-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(tlc-scf-to-cf)))' > %t.ours
// RUN: tlc-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(convert-scf-to-cf)))' > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s < %t.ours

// CHECK-LABEL: gpu.func @mixed
// CHECK-NOT:     scf.
// CHECK:         cf.cond_br
// CHECK:         cf.switch
// CHECK:         gpu.return
gpu.module @m {
  gpu.func @mixed(%n: index, %c: i1, %x: f32, %sel: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %a = scf.if %c -> (f32) {
      %in = scf.if %c -> (f32) {
        scf.yield %x : f32
      } else {
        scf.yield %zero : f32
      }
      scf.yield %in : f32
    } else {
      scf.yield %x : f32
    }
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (f32) {
      %t = scf.if %c -> (f32) {
        %y = arith.addf %acc, %x : f32
        scf.yield %y : f32
      } else {
        scf.yield %acc : f32
      }
      scf.yield %t : f32
    }
    %w = scf.while (%v = %s) : (f32) -> f32 {
      %more = arith.cmpf olt, %v, %x : f32
      scf.condition(%more) %v : f32
    } do {
    ^bb0(%v: f32):
      %v2 = arith.addf %v, %x : f32
      scf.yield %v2 : f32
    }
    %sw = scf.index_switch %sel -> f32
    case 0 {
      scf.yield %w : f32
    }
    case 1 {
      %r = scf.execute_region -> f32 {
        scf.yield %x : f32
      }
      scf.yield %r : f32
    }
    default {
      scf.yield %zero : f32
    }
    scf.parallel (%p) = (%c0) to (%n) step (%c1) {
      scf.if %c {
        scf.yield
      }
      scf.reduce
    }
    gpu.return %sw : f32
  }
}
