// RUN: tlc-opt %s --split-input-file --tlc-expand-float8 | FileCheck %s
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_90a},tlc-expand-float8)' | FileCheck %s --check-prefix=HW
// RUN: tlc-opt %s --split-input-file --pass-pipeline='builtin.module(tile-set-target{arch=sm_80},tlc-expand-float8)' | FileCheck %s

// tlc-expand-float8 alone, on hand-written IR: 8-bit float values become their i8 patterns
// through whatever ops carry them, conversions from and to f32 become integer code (without a
// target, and on sm_80) or cvt (sm_89 and later), constants and bitcasts become bit patterns.

// CHECK-LABEL: gpu.func @convert
// CHECK-SAME:  (%[[X:.+]]: f32, %[[C:.+]]: i1) -> f32
// CHECK:         %[[M:.+]] = memref.alloca() : memref<4xi8>
// Round to nearest even at bit 20 of the f32 pattern, rebias, saturate at 0x7E, NaN is 0x7F.
// CHECK:         %[[U:.+]] = arith.bitcast %[[X]] : f32 to i32
// CHECK:         arith.shrui %{{.+}}, %{{.+}} : i32
// CHECK:         arith.constant 126 : i32
// CHECK:         arith.minsi
// CHECK:         arith.constant 2139095040 : i32
// CHECK:         arith.cmpi ugt
// CHECK:         %[[E:.+]] = arith.trunci %{{.+}} : i32 to i8
// The constant 1.5 is the pattern 0x3C.
// CHECK:         %[[K:.+]] = arith.constant 60 : i8
// CHECK:         %[[S:.+]] = arith.select %[[C]], %[[E]], %[[K]] : i8
// CHECK:         memref.store %[[S]], %[[M]]
// CHECK:         %[[L:.+]] = memref.load %[[M]]
// Back to f32: the pattern moves to the top of an f32, subnormals are m * 2^-9.
// CHECK:         arith.extui %[[L]] : i8 to i32
// CHECK:         arith.uitofp
// CHECK-NOT:     f8E4M3FN
// CHECK:         gpu.return
// HW-LABEL:    gpu.func @convert
// HW:            %[[P:.+]] = nvvm.convert.f32x2.to.f8x2 %{{.+}}, %{{.+}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// HW:            arith.trunci %[[P]] : i16 to i8
// HW:            nvvm.convert.f8x2.to.f16x2 %{{.+}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
gpu.module @m {
gpu.func @convert(%x: f32, %c: i1) -> f32 {
  %m = memref.alloca() : memref<4xf8E4M3FN>
  %e = arith.truncf %x : f32 to f8E4M3FN
  %k = arith.constant 1.5 : f8E4M3FN
  %s = arith.select %c, %e, %k : f8E4M3FN
  %i = arith.constant 0 : index
  memref.store %s, %m[%i] : memref<4xf8E4M3FN>
  %l = memref.load %m[%i] : memref<4xf8E4M3FN>
  %r = arith.extf %l : f8E4M3FN to f32
  gpu.return %r : f32
}
}

// -----

// e5m2 is the high byte of an f16; bf16 goes through f32; loop-carried values and bitcasts
// from i8 become i8.
// CHECK-LABEL: gpu.func @e5m2
// CHECK:         arith.extf %{{.+}} : bf16 to f32
// CHECK:         arith.constant 123 : i32
// CHECK:         %[[T:.+]] = arith.trunci %{{.+}} : i32 to i8
// CHECK:         %[[LOOP:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[V:.+]] = %[[T]]) -> (i8) {
// CHECK-NEXT:      scf.yield %[[B:.+]] : i8
// CHECK:         %[[W:.+]] = arith.extui %[[LOOP]] : i8 to i16
// CHECK:         %[[H:.+]] = arith.shli %[[W]], %{{.+}} : i16
// CHECK:         %[[F16:.+]] = arith.bitcast %[[H]] : i16 to f16
// CHECK:         arith.extf %[[F16]] : f16 to f32
// HW-LABEL:    gpu.func @e5m2
// HW:            nvvm.convert.f32x2.to.f8x2 {{.+}} : i16(f8E5M2)
// HW-NOT:        nvvm.convert.f8x2.to.f16x2
gpu.module @m {
gpu.func @e5m2(%x: bf16, %bits: i8, %n: index) -> f32 {
  %e = arith.truncf %x : bf16 to f8E5M2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = arith.bitcast %bits : i8 to f8E5M2
  %v = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %e) -> (f8E5M2) {
    scf.yield %b : f8E5M2
  }
  %r = arith.extf %v : f8E5M2 to f32
  gpu.return %r : f32
}
}

