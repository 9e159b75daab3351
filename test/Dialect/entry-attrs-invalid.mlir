// RUN: tlc-opt %s --split-input-file --verify-diagnostics

// #tile.entry and #tile.tensor_map are verified where they are parsed, and `tile.entry` where
// it sits: on a function whose parameters hold its tensor maps.

// expected-error @+2 {{tensor map swizzle is 0, 32, 64 or 128 bytes, got 48}}
// expected-error @+1 {{failed to parse Tile_EntryAttr parameter 'maps'}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, maps = [#tile.tensor_map<param = 0, arg = 0, box = [64, 64], swizzle = 48, element = bf16>]>}

// -----

// expected-error @+2 {{tensor map box [512, 64] must have 1 to 256 elements per dimension}}
// expected-error @+1 {{failed to parse Tile_EntryAttr parameter 'maps'}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, maps = [#tile.tensor_map<param = 0, arg = 0, box = [512, 64], swizzle = 128, element = bf16>]>}

// -----

// expected-error @+1 {{a 'tma' entry has tensor maps, other entries none}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, maps = []>}

// -----

// expected-error @+1 {{a 'loads' entry has a producer warpgroup (compute_threads > 0)}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = loads, threads = 384, compute_threads = 0, shared_bytes = 0, maps = []>}

// -----

// expected-error @+1 {{a 'plain' entry has no producer warpgroup (compute_threads = 0)}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = plain, threads = 384, compute_threads = 256, shared_bytes = 0, maps = []>}

// -----

// expected-error @+1 {{entry threads 2048 is out of range [1, 1024]}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = plain, threads = 2048, compute_threads = 0, shared_bytes = 0, maps = []>}

// -----

// expected-error @+1 {{entry maps must be #tile.tensor_map attributes}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, maps = [{param = 0 : i64}]>}

// -----

// expected-error @+1 {{tensor map parameter 3 of 'tile.entry' is past the function's 1 parameters}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, maps = [#tile.tensor_map<param = 3, arg = 0, box = [64, 64], swizzle = 128, element = bf16>]>}

// -----

// expected-error @+1 {{'tile.entry' must be a #tile.entry, got {entry = "f"}}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = {entry = "f"}}

// -----

// expected-error @+1 {{'tile.entry' belongs on a kernel function (gpu.func or llvm.func)}}
llvm.mlir.global external @g() {tile.entry = #tile.entry<"f", kind = plain, threads = 32, compute_threads = 0, shared_bytes = 0, maps = []>} : i32

// -----

// expected-error @+1 {{entry stream_k (bytes of a partial slot) must be a non-negative multiple of 16, not 40}}
llvm.func @f(%ws: !llvm.ptr<1>) attributes {tile.entry = #tile.entry<"f", kind = loads, threads = 384, compute_threads = 256, shared_bytes = 0, maps = [], stream_k = 40>}

// -----

// expected-error @+1 {{only an entry with a producer warpgroup takes a stream-K workspace}}
llvm.func @f(%ws: !llvm.ptr<1>) attributes {tile.entry = #tile.entry<"f", kind = plain, threads = 32, compute_threads = 0, shared_bytes = 0, maps = [], stream_k = 64>}

// -----

// expected-error @+1 {{entry cluster (blocks a launch may group along x) must be 1 or 2, not 3}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, cluster = 3, maps = [#tile.tensor_map<param = 0, arg = 0, box = [128, 64], swizzle = 128, element = bf16>]>}

// -----

// expected-error @+1 {{only a 'tma' entry shares its loads in clusters}}
llvm.func @f(%a: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = loads, threads = 384, compute_threads = 256, shared_bytes = 0, cluster = 2, maps = []>}

// -----

// expected-error @+2 {{tensor map store is 0 (a load map) or 1 (a store map), got 2}}
// expected-error @+1 {{failed to parse Tile_EntryAttr parameter 'maps'}}
llvm.func @f(%m: !llvm.ptr) attributes {tile.entry = #tile.entry<"f", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, maps = [#tile.tensor_map<param = 0, arg = 0, box = [16, 64], swizzle = 128, element = bf16, store = 2>]>}

// -----

// expected-error @+1 {{an entry with store maps names the parameter of their flag (stored = P)}}
llvm.func @f(%m: !llvm.ptr, %flag: i32) attributes {tile.entry = #tile.entry<"f", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, maps = [#tile.tensor_map<param = 0, arg = 0, box = [16, 64], swizzle = 128, element = bf16, store = 1>]>}

// -----

// expected-error @+1 {{only an entry with store maps has a flag parameter (stored)}}
llvm.func @f(%m: !llvm.ptr, %flag: i32) attributes {tile.entry = #tile.entry<"f", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, stored = 1, maps = [#tile.tensor_map<param = 0, arg = 0, box = [128, 64], swizzle = 128, element = bf16>]>}

// -----

// expected-error @+1 {{entry stored (the flag's parameter) must follow the last tensor map, parameter 2, not 3}}
llvm.func @f(%m0: !llvm.ptr, %m1: !llvm.ptr, %x: i32, %flag: i32) attributes {tile.entry = #tile.entry<"f", kind = tma, threads = 384, compute_threads = 256, shared_bytes = 0, stored = 3, maps = [#tile.tensor_map<param = 0, arg = 0, box = [128, 64], swizzle = 128, element = bf16>, #tile.tensor_map<param = 1, arg = 1, box = [16, 64], swizzle = 128, element = bf16, store = 1>]>}
