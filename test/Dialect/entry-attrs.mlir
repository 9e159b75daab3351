// RUN: tlc-opt %s | tlc-opt | FileCheck %s

// #tile.entry and #tile.tensor_map, set by convert-tile-to-nvvm on each entry, print and parse
// back on gpu.func and llvm.func alike.

// CHECK-LABEL: llvm.func @gemm__tma(
// CHECK-SAME: tile.entry = #tile.entry<"gemm", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 98352, maps = [#tile.tensor_map<param = 1, arg = 0, box = [128, 64], swizzle = 128, element = bf16>, #tile.tensor_map<param = 2, arg = 0, box = [64, 64], swizzle = 0, element = f16>]>
llvm.func @gemm__tma(%a: !llvm.ptr, %map0: !llvm.ptr, %map1: !llvm.ptr) attributes {tile.entry = #tile.entry<"gemm", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 98352, maps = [#tile.tensor_map<param = 1, arg = 0, box = [128, 64], swizzle = 128, element = bf16>, #tile.tensor_map<param = 2, arg = 0, box = [64, 64], swizzle = 0, element = f16>]>} {
  llvm.return
}

// A store map (tile.copy's tma_store): an i32 flag follows the maps, the parameter `stored` names.
// CHECK-LABEL: llvm.func @stored__tma(
// CHECK-SAME: stored = 3, maps = [#tile.tensor_map<param = 1, arg = 0, box = [128, 64], swizzle = 128, element = bf16>, #tile.tensor_map<param = 2, arg = 1, box = [16, 64], swizzle = 128, element = bf16, store = 1>]>
llvm.func @stored__tma(%a: !llvm.ptr, %map0: !llvm.ptr, %map1: !llvm.ptr, %flag: i32) attributes {tile.entry = #tile.entry<"stored", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, stored = 3, maps = [#tile.tensor_map<param = 1, arg = 0, box = [128, 64], swizzle = 128, element = bf16>, #tile.tensor_map<param = 2, arg = 1, box = [16, 64], swizzle = 128, element = bf16, store = 1>]>} {
  llvm.return
}

// A stream-K entry: its last parameter is the workspace of partial slots of 65536 bytes.
// CHECK-LABEL: llvm.func @split__tma(
// CHECK-SAME: tile.entry = #tile.entry<"split", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, maps = [#tile.tensor_map<param = 1, arg = 0, box = [128, 64], swizzle = 128, element = bf16>], stream_k = 65536>
llvm.func @split__tma(%a: !llvm.ptr, %map0: !llvm.ptr, %ws: !llvm.ptr<1>) attributes {tile.entry = #tile.entry<"split", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, maps = [#tile.tensor_map<param = 1, arg = 0, box = [128, 64], swizzle = 128, element = bf16>], stream_k = 65536>} {
  llvm.return
}

// An entry whose blocks may run in pairs (clusters of two along x).
// CHECK-LABEL: llvm.func @pairs__tma(
// CHECK-SAME: shared_bytes = 0, cluster = 2, maps = [#tile.tensor_map<param = 1, arg = 0, box = [64, 128], swizzle = 128, element = bf16>]>
llvm.func @pairs__tma(%a: !llvm.ptr, %map0: !llvm.ptr) attributes {tile.entry = #tile.entry<"pairs", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, cluster = 2, maps = [#tile.tensor_map<param = 1, arg = 0, box = [64, 128], swizzle = 128, element = bf16>]>} {
  llvm.return
}

// CHECK-LABEL: llvm.func @gemm__loads(
// CHECK-SAME: tile.entry = #tile.entry<"gemm", kind = loads, threads = 384, compute_threads = 256, shared_bytes = 0, maps = []>
llvm.func @gemm__loads(%a: !llvm.ptr) attributes {tile.entry = #tile.entry<"gemm", kind = loads, threads = 384, compute_threads = 256, shared_bytes = 0, maps = []>} {
  llvm.return
}

// CHECK: gpu.func @plain() kernel attributes {tile.entry = #tile.entry<"plain", kind = plain, threads = 128, compute_threads = 0, shared_bytes = 16, maps = []>}
gpu.module @kernels {
  gpu.func @plain() kernel attributes {tile.entry = #tile.entry<"plain", kind = plain, threads = 128, compute_threads = 0, shared_bytes = 16, maps = []>} {
    gpu.return
  }
}
