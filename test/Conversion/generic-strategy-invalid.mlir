// RUN: tlc-opt %s --split-input-file --tile-set-target --convert-tile-to-nvvm --verify-diagnostics
// RUN: not tlc-opt %s --split-input-file --tile-set-target="arch=sm_80" --convert-tile-to-nvvm 2>&1 | FileCheck %s --check-prefix=SM80

// What the generic strategy cannot compile: buffers of tf32 (a tensor-core type without a
// strategy yet), located at the buffer and naming the architecture; and kernels
// whose shared and fragment buffers (fragments live in shared memory too), with each buffer's
// offset aligned to 16 bytes, need more than 227 KiB.

tile.kernel @k threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %ok = tile.alloc : !tile.buffer<shared 16x8xf32>
  // expected-error @+1 {{buffers of 'tf32' are not supported yet for 'sm_90a': tlc has no tensor-core strategy for this type yet}}
  %a = tile.alloc : !tile.buffer<shared 16x8xtf32>
  tile.yield
}

// -----

// 64 KiB of shared buffers (what the frontend counts) plus 192 KiB of fragments.
// expected-error @+1 {{kernel 'fragments' needs 262144 bytes of shared memory for its buffers (fragments without a register layout are kept there too); 232448 bytes is the limit}}
tile.kernel @fragments threads [128, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %s = tile.alloc : !tile.buffer<shared 128x128xf32>
  %acc = tile.alloc : !tile.buffer<fragment 128x256xf32>
  %row = tile.alloc : !tile.buffer<fragment 64x256xf32>
  %l = tile.alloc : !tile.buffer<local 1024xf32>
  tile.yield
}

// -----

// 6 + 232440 = 232446 bytes fit, but the fragment's offset is aligned to 16: 232456 do not.
// expected-error @+1 {{kernel 'aligned' needs 232456 bytes of shared memory for its buffers (fragments without a register layout are kept there too); 232448 bytes is the limit}}
tile.kernel @aligned threads [32, 1, 1] args ["X"] dims [["N"]] params {} grid {
^bb0(%x: !tile.tensor<f32, 1>):
  %c1 = arith.constant 1 : index
  tile.yield %c1, %c1, %c1 : index, index, index
} body {
^bb0(%x: !tile.tensor<f32, 1>):
  %s = tile.alloc : !tile.buffer<shared 3xf16>
  %f = tile.alloc : !tile.buffer<fragment 232440xi8>
  tile.yield
}

// The error names the architecture the pass targets.
// SM80: generic-strategy-invalid.mlir:{{[0-9]+}}:8: error: buffers of 'tf32' are not supported yet for 'sm_80'
// SM80: error: kernel 'fragments' needs 262144 bytes
