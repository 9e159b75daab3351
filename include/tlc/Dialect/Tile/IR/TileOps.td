// Operations of the `tile` dialect.
#ifndef TLC_DIALECT_TILE_TILEOPS_TD
#define TLC_DIALECT_TILE_TILEOPS_TD

include "tlc/Dialect/Tile/IR/TileBase.td"
include "tlc/Dialect/Tile/IR/TileTypes.td"
include "tlc/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [Symbol, IsolatedFromAbove, AutomaticAllocationScope]> {
  let summary = "a GPU kernel with its host-side grid computation";
  let description = [{
    A kernel has two regions with the same entry-block arguments (the kernel's parameters):
    `grid` runs on the host and yields the launch grid (three `index` values, then, for a
    configuration with a `when` condition, that condition as an `i1`); `body` runs on the
    device, once per block of `threads` threads. `arg_names` names the parameters and `dim_names`
    names each tensor parameter's size symbols (an empty list for scalars); launchers use both.
    `params` records the compile-time parameters the kernel was specialized with.

    ```mlir
    tile.kernel @vector_add threads [256, 1, 1] args ["X", "Y"] dims [["N"], ["N"]]
        params {BLOCK = 1024 : i64} grid {
    ^bb0(%x: !tile.tensor<f32, 1>, %y: !tile.tensor<f32, 1>):
      ...
      tile.yield %gx, %c1, %c1 : index, index, index
    } body {
    ^bb0(%x: !tile.tensor<f32, 1>, %y: !tile.tensor<f32, 1>):
      ...
      tile.yield
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       DenseI64ArrayAttr:$threads,
                       StrArrayAttr:$arg_names,
                       ArrayAttr:$dim_names,
                       DictionaryAttr:$params);
  let regions = (region SizedRegion<1>:$grid, SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `threads` $threads `args` $arg_names `dims` $dim_names `params` $params
    attr-dict-with-keyword `grid` $grid `body` $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The kernel's parameter types (the entry-block arguments of both regions).
    ::mlir::TypeRange getArgumentTypes() { return getBody().getArgumentTypes(); }
    /// Total number of threads in a block.
    int64_t getNumThreads();
    /// A configuration's `when` condition: the grid region's fourth value (an i1), or null
    /// for a kernel without one.
    ::mlir::Value getWhenCondition();
    /// The kernel as its source names it, for diagnostics: `'gemm'`, or for a configuration
    /// of a kernel with `configs` (symbol gemm__1) `'gemm' (configuration 1: BM = 128, BN = 128,
    /// STAGES = 6)`.
    std::string getDisplayName();
  }];
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "ParallelOp", "WarpSpecializeOp"]>]> {
  let summary = "terminates a tile region, yielding values where the parent expects them";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Indices and sizes
//===----------------------------------------------------------------------===//

def Tile_BlockIdOp : Tile_Op<"block_id", [Pure]> {
  let summary = "the block's index in the grid along one dimension (0 = x, 1 = y, 2 = z)";
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>:$dim);
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins "int64_t":$dim), [{
    build($_builder, $_state, $_builder.getIndexType(), $_builder.getI64IntegerAttr(dim));
  }]>];
  let assemblyFormat = "$dim attr-dict";
}

def Tile_ThreadIdOp : Tile_Op<"thread_id", [Pure]> {
  let summary = "the thread's index in its block along one dimension (0 = x, 1 = y, 2 = z)";
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>:$dim);
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins "int64_t":$dim), [{
    build($_builder, $_state, $_builder.getIndexType(), $_builder.getI64IntegerAttr(dim));
  }]>];
  let assemblyFormat = "$dim attr-dict";
}

def Tile_GridDimOp : Tile_Op<"grid_dim", [Pure]> {
  let summary = "the number of blocks in the grid along one dimension (0 = x, 1 = y, 2 = z)";
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>:$dim);
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins "int64_t":$dim), [{
    build($_builder, $_state, $_builder.getIndexType(), $_builder.getI64IntegerAttr(dim));
  }]>];
  let assemblyFormat = "$dim attr-dict";
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "the run-time size of a tensor along one dimension";
  let arguments = (ins Tile_TensorType:$tensor, I64Attr:$dim);
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins "::mlir::Value":$tensor, "int64_t":$dim), [{
    build($_builder, $_state, $_builder.getIndexType(), tensor, $_builder.getI64IntegerAttr(dim));
  }]>];
  let assemblyFormat = "$tensor `[` $dim `]` attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Element access
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [
    TypesMatchWith<"result type is the tensor's element type", "tensor", "result",
                   "::tlc::tile::getStorageType(::llvm::cast<::tlc::tile::TensorType>($_self).getElementType())">]> {
  let summary = "masked load of one element of a global tensor";
  let description = [{
    Reads `tensor[indices]`. When an index is outside `[0, size)` of its dimension the load is not
    performed and the result is zero.
  }];
  let arguments = (ins Arg<Tile_TensorType, "", [MemRead]>:$tensor, Variadic<Index>:$indices);
  let results = (outs AnyType:$result);
  let builders = [OpBuilder<(ins "::mlir::Value":$tensor, "::mlir::ValueRange":$indices), [{
    build($_builder, $_state,
          ::tlc::tile::getStorageType(
              ::llvm::cast<::tlc::tile::TensorType>(tensor.getType()).getElementType()),
          tensor,
          indices);
  }]>];
  let assemblyFormat = "$tensor `[` $indices `]` attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
}

def Tile_LoadVectorOp : Tile_Op<"load_vector"> {
  let summary = "masked loads of consecutive elements of a global tensor";
  let description = [{
    Result `e` is `tensor[i0, ..., ik + e]` (k the last dimension), each masked as `tile.load`
    is: zero where an index is outside `[0, size)`. tile-partition-threads forms it from the
    `tile.load`s of a `parallel` body over a #tile.blocked fragment whose last index is the
    point's column plus a value the same for the whole vector; the conversion reads the elements
    with 16-byte accesses where they are in bounds, the last stride is 1 and the address is
    aligned, element by element otherwise.
  }];
  let arguments = (ins Arg<Tile_TensorType, "", [MemRead]>:$tensor, Variadic<Index>:$indices);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat =
      "$tensor `[` $indices `]` attr-dict `:` qualified(type($tensor)) `->` type($results)";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    TypesMatchWith<"value type is the tensor's element type", "tensor", "value",
                   "::tlc::tile::getStorageType(::llvm::cast<::tlc::tile::TensorType>($_self).getElementType())">]> {
  let summary = "masked store of one element of a global tensor";
  let description = [{
    Writes `value` to `tensor[indices]` when every index is inside `[0, size)` of its dimension;
    otherwise nothing is written.
  }];
  let arguments = (ins AnyType:$value, Arg<Tile_TensorType, "", [MemWrite]>:$tensor,
                       Variadic<Index>:$indices);
  let assemblyFormat = "$value `,` $tensor `[` $indices `]` attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Element-wise bodies
//===----------------------------------------------------------------------===//

def Tile_ParallelOp : Tile_Op<"parallel", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "an element-wise body over a static index space, spread over the block's threads";
  let description = [{
    Runs the body once for every point of the index space `shape` (row-major, last index fastest);
    the entry block's `index` arguments are the point's coordinates. The iterations are independent
    and their order is unspecified: `tile-partition-threads` distributes them over the threads of the
    block.

    ```mlir
    tile.parallel [16, 256] {
    ^bb0(%r: index, %c: index):
      ...
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$shape);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$shape $body attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of points of the index space.
    int64_t getNumPoints();
  }];
}

//===----------------------------------------------------------------------===//
// Buffers and tile operations
//===----------------------------------------------------------------------===//

def Tile_AnyTensorOrBuffer : AnyTypeOf<[Tile_TensorType, Tile_BufferType]>;

def Tile_AllocOp : Tile_Op<"alloc", [HasParent<"KernelOp">]> {
  let summary = "a shared, fragment or local buffer of the kernel";
  let description = [{
    Declares a buffer for the whole kernel body. Its contents are undefined until written.
    ```mlir
    %as = tile.alloc : !tile.buffer<shared 128x64xbf16>
    ```
  }];
  let results = (outs Res<Tile_BufferType, "", [MemAlloc]>:$buffer);
  let assemblyFormat = "attr-dict `:` qualified(type($buffer))";
}

def Tile_FillOp : Tile_Op<"fill"> {
  let summary = "sets every element of a buffer to a value";
  let arguments = (ins Arg<Tile_BufferType, "", [MemWrite]>:$buffer, AnyType:$value);
  let assemblyFormat = "$buffer `,` $value attr-dict `:` qualified(type($buffer)) `,` type($value)";
  let hasVerifier = 1;
}

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "copies a tile between a tensor and a buffer, or between buffers";
  let description = [{
    The tile's shape is the buffer's shape (both buffers' when copying between buffers, which must
    agree). A tensor side takes one offset per tensor dimension; a buffer of rank r covers the
    tensor's last r dimensions from the offsets on, the leading dimensions being indexed by their
    offsets alone. Reads outside the tensor's bounds yield zero and writes outside are dropped.
    Element types may differ: values are converted (e.g. an f32 fragment stored to a bf16 tensor).
    ```mlir
    tile.copy %A[%m, %k] to %As : !tile.tensor<bf16, 2> to !tile.buffer<shared 128x64xbf16>
    tile.copy %acc to %C[%m, %n] : !tile.buffer<fragment 128x128xf32> to !tile.tensor<bf16, 2>
    ```
    `scratch` (set by tile-assign-mma-layouts, never by the frontend) is a rank-1 shared buffer
    of i8 through which a copy from a register fragment (wgmma's or mma.sync's accumulator
    layout) to a tensor stages its rows: each warp owns 16 rows of storeStagingPitch bytes
    (Strategy.h), writes a 16-row chunk of its fragment, 128 bytes wide, there and stores the
    chunk's rows as 16-byte vectors: masks and alignment tests per vector, not per pair.
    ```mlir
    tile.copy %acc to %C[%m, %n] scratch %s : !tile.buffer<shared 18432xi8>
        : !tile.buffer<fragment 128x256xf32> to !tile.tensor<bf16, 2>
    ```
    With `tma_store` (tile-assign-mma-layouts, sm_90a; needs `scratch`) the scratch holds one or
    two 2048-byte slabs per warp (storeStagingSlabs), each a 16-row x 128-byte box in TMA's
    128-byte swizzle: in an entry whose parameters have a store map for the tensor (a `__tma`
    entry), each chunk goes out as one TMA bulk store (cp.async.bulk.tensor) where the launch
    encoded that map, and as 16-byte vectors where it could not (rows not 16-byte aligned);
    elsewhere always as vectors.
  }];
  let arguments = (ins Arg<Tile_AnyTensorOrBuffer, "", [MemRead]>:$source,
                       Variadic<Index>:$sourceOffsets,
                       Arg<Tile_AnyTensorOrBuffer, "", [MemWrite]>:$dest,
                       Variadic<Index>:$destOffsets,
                       Arg<Optional<Tile_BufferType>, "", [MemRead, MemWrite]>:$scratch,
                       UnitAttr:$tma_store);
  let assemblyFormat = [{
    $source (`[` $sourceOffsets^ `]`)? `to` $dest (`[` $destOffsets^ `]`)?
    (`scratch` $scratch^ `:` qualified(type($scratch)))? attr-dict `:`
    qualified(type($source)) `to` qualified(type($dest))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source, "::mlir::ValueRange":$sourceOffsets,
                   "::mlir::Value":$dest, "::mlir::ValueRange":$destOffsets), [{
      build($_builder, $_state, source, sourceOffsets, dest, destOffsets, ::mlir::Value(),
            false);
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_GemmOp : Tile_Op<"gemm"> {
  let summary = "tile matrix product on tensor cores: C (+)= op(A) @ op(B)";
  let description = [{
    A is [M, K] ([K, M] with `transpose_a`), in shared memory or a fragment; B is [K, N] ([N, K]
    with `transpose_b`) in shared memory; C is an [M, N] fragment. With `clear`, C = op(A) @ op(B);
    otherwise C += op(A) @ op(B). Inputs f16, bf16, f8e4m3 or f8e5m2 accumulate in f32 (f16 inputs
    may accumulate in f16); tf32 in f32; i8 in i32.
  }];
  let arguments = (ins Arg<Tile_BufferType, "", [MemRead]>:$a,
                       Arg<Tile_BufferType, "", [MemRead]>:$b,
                       Arg<Tile_BufferType, "", [MemRead, MemWrite]>:$c,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b, UnitAttr:$clear);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,`
    qualified(type($c))
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [AttrSizedOperandSegments]> {
  let summary = "reduces a buffer along one dimension into a buffer of rank one less";
  let description = [{
    `kind` is "sum", "max", "min", "argmax" or "argmin". Without `accumulate`, dst = reduce(src)
    (combined with `init` when given: dst = op(init, reduce(src))); with `accumulate`,
    dst = op(dst, reduce(src)). A "sum" of floats narrower than 32 bits (bf16, f16, 8-bit floats)
    adds in f32, init or dst included, and rounds once into dst (getReduceAccumulatorType), so
    that every lowering agrees within that rounding whatever order it adds in.
    ```mlir
    tile.reduce %s, %m {dim = 1 : i64, kind = "max"} : !tile.buffer<fragment 128x128xf32> to
        !tile.buffer<fragment 128xf32>
    ```
    "argmax" and "argmin" also write, into `index` (a buffer of the destination's shape with
    i32 or i64 elements), the position along `dim` of the element dst holds, plus
    `index_offset` (0 when absent): the first such position on ties; a NaN wins over numbers
    (as arith.maximumf / arith.minimumf propagate it) and the first NaN is taken. dst holds the
    element at that position. With `accumulate`, the current dst and index are the running
    result of earlier (lower-indexed) tiles: they are replaced only by a strictly better element
    (or the first NaN), so ties keep the earlier index. `init` does not combine with them.
    `scratch` (set by tile-assign-blocked-layouts and tile-assign-mma-layouts, never by the
    frontend) is a rank-1 shared buffer of the accumulator type (f32 for narrow float sums, else
    the element type), one value per warp and row, where a row of a #tile.blocked source spans
    several warps or the warps of a #tile.mma_sync_acc source split the columns: their partial
    results meet there.
    ```mlir
    tile.reduce %s, %m index %i : !tile.buffer<fragment 16x64xf32> offset %j
        {accumulate, dim = 1 : i64, kind = "argmax"} : !tile.buffer<fragment 16x64xf32> to
        !tile.buffer<fragment 16xf32>
    ```
  }];
  let arguments = (ins Arg<Tile_BufferType, "", [MemRead]>:$source,
                       Arg<Tile_BufferType, "", [MemRead, MemWrite]>:$dest,
                       Optional<Tile_BufferType>:$init,
                       Arg<Optional<Tile_BufferType>, "", [MemRead, MemWrite]>:$index,
                       Optional<Index>:$indexOffset,
                       Arg<Optional<Tile_BufferType>, "", [MemRead, MemWrite]>:$scratch,
                       I64Attr:$dim, StrAttr:$kind, UnitAttr:$accumulate);
  let assemblyFormat = [{
    $source `,` $dest (`init` $init^ `:` qualified(type($init)))?
    (`index` $index^ `:` qualified(type($index)))? (`offset` $indexOffset^)?
    (`scratch` $scratch^ `:` qualified(type($scratch)))? attr-dict `:`
    qualified(type($source)) `to` qualified(type($dest))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the reduction also gives the position of its result ("argmax", "argmin").
    bool isArgReduce() { return getKind() == "argmax" || getKind() == "argmin"; }
  }];
}

def Tile_ScanOp : Tile_Op<"scan"> {
  let summary = "prefix sums or products of a buffer along one dimension";
  let description = [{
    dst has src's shape and element type; along `dim`, dst[.., i, ..] is the sum (`kind` "sum")
    or product ("prod") of src[.., 0..i, ..] (inclusive), or of src[.., 0..i-1, ..] with
    `exclusive` (0 or 1 at position 0). Each line is combined in order, in f32 for float types
    narrower than f32 and in the element type otherwise.
    ```mlir
    tile.scan %x, %y {dim = 1 : i64, kind = "sum"} : !tile.buffer<fragment 16x64xf32> to
        !tile.buffer<fragment 16x64xf32>
    ```
  }];
  let arguments = (ins Arg<Tile_BufferType, "", [MemRead]>:$source,
                       Arg<Tile_BufferType, "", [MemWrite]>:$dest,
                       I64Attr:$dim, StrAttr:$kind, UnitAttr:$exclusive);
  let assemblyFormat = [{
    $source `,` $dest attr-dict `:` qualified(type($source)) `to` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def Tile_ReadOp : Tile_Op<"read", [
    TypesMatchWith<"result type is the buffer's element type", "buffer", "result",
                   "::tlc::tile::getStorageType(::llvm::cast<::tlc::tile::BufferType>($_self).getElementType())">]> {
  let summary = "reads one element of a buffer";
  let arguments = (ins Arg<Tile_BufferType, "", [MemRead]>:$buffer, Variadic<Index>:$indices);
  let results = (outs AnyType:$result);
  let builders = [OpBuilder<(ins "::mlir::Value":$buffer, "::mlir::ValueRange":$indices), [{
    build($_builder, $_state,
          ::tlc::tile::getStorageType(
              ::llvm::cast<::tlc::tile::BufferType>(buffer.getType()).getElementType()),
          buffer,
          indices);
  }]>];
  let assemblyFormat = "$buffer `[` $indices `]` attr-dict `:` qualified(type($buffer))";
  let hasVerifier = 1;
}

def Tile_WriteOp : Tile_Op<"write", [
    TypesMatchWith<"value type is the buffer's element type", "buffer", "value",
                   "::tlc::tile::getStorageType(::llvm::cast<::tlc::tile::BufferType>($_self).getElementType())">]> {
  let summary = "writes one element of a buffer";
  let arguments = (ins AnyType:$value, Arg<Tile_BufferType, "", [MemWrite]>:$buffer,
                       Variadic<Index>:$indices);
  let assemblyFormat = "$value `,` $buffer `[` $indices `]` attr-dict `:` qualified(type($buffer))";
  let hasVerifier = 1;
}


def Tile_ReadSlotOp : Tile_Op<"read_slot", [
    TypesMatchWith<"result type is the buffer's element type", "buffer", "result",
                   "::tlc::tile::getStorageType(::llvm::cast<::tlc::tile::BufferType>($_self).getElementType())">]> {
  let summary = "reads the calling thread's register slot of a distributed fragment";
  let description = [{
    A fragment with a register layout (attribute `tile.layout` on its `tile.alloc`, e.g. the
    wgmma accumulator layout) is spread over the threads: each holds `slots` of its elements.
    `tile.read_slot %f[%s]` reads slot `%s` of the calling thread; which element that is follows
    from the layout. `tile-partition-threads` produces it from a `tile.parallel` over such a
    fragment, together with the element's coordinates.
  }];
  let arguments = (ins Arg<Tile_BufferType, "", [MemRead]>:$buffer, Index:$slot);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$buffer `[` $slot `]` attr-dict `:` qualified(type($buffer))";
  let hasVerifier = 1;
}

def Tile_WriteSlotOp : Tile_Op<"write_slot", [
    TypesMatchWith<"value type is the buffer's element type", "buffer", "value",
                   "::tlc::tile::getStorageType(::llvm::cast<::tlc::tile::BufferType>($_self).getElementType())">]> {
  let summary = "writes the calling thread's register slot of a distributed fragment";
  let arguments = (ins AnyType:$value, Arg<Tile_BufferType, "", [MemWrite]>:$buffer,
                       Index:$slot);
  let assemblyFormat = "$value `,` $buffer `[` $slot `]` attr-dict `:` qualified(type($buffer))";
  let hasVerifier = 1;
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [
    TypesMatchWith<"value type is the tensor's element type", "tensor", "value",
                   "::tlc::tile::getStorageType(::llvm::cast<::tlc::tile::TensorType>($_self).getElementType())">]> {
  let summary = "atomically adds a value to one element of a global tensor (masked)";
  let arguments = (ins AnyType:$value, Arg<Tile_TensorType, "", [MemRead, MemWrite]>:$tensor,
                       Variadic<Index>:$indices);
  let assemblyFormat = "$value `,` $tensor `[` $indices `]` attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "synchronizes the threads of the block and orders their buffer accesses";
  let description = [{
    Every thread of the block waits here until all have arrived; shared-memory writes before it
    are visible to every thread after it. Placed by the compiler between tile operations.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_NamedBarrierOp : Tile_Op<"named_barrier"> {
  let summary = "waits at (or arrives on) one of the block's named barriers, with a thread count";
  let description = [{
    Named barrier `$id` completes once `threads` threads (a multiple of 32) have reached it:
    those that wait here (`bar.sync id, threads`) and those that only arrive (`arrive`:
    `bar.arrive id, threads`, which goes on at once). Whole warps execute it. Barrier 0 is the
    block's (`tile.barrier`), 1 the consumers' of a `tile.warp_specialize`: `$id`, when
    constant, is 2 to 15. tile-ping-pong passes a turn between consumer warpgroups with it.
    ```mlir
    tile.named_barrier %id, threads = 256
    tile.named_barrier arrive %next, threads = 256
    ```
  }];
  let arguments = (ins Index:$id, ConfinedAttr<I64Attr, [IntMinValue<32>, IntMaxValue<1024>]>:$threads,
                       UnitAttr:$arrive);
  let assemblyFormat = "(`arrive` $arrive^)? $id `,` `threads` `=` $threads attr-dict";
  let hasVerifier = 1;
}

def Tile_StageOp : Tile_Op<"stage", [Pure, AllTypesMatch<["buffer", "result"]>]> {
  let summary = "one stage of a multi-buffered shared buffer";
  let description = [{
    A shared buffer whose alloc carries `tile.stages = S` holds S copies of its tile (a software
    pipeline's ring); `tile.stage %buf[%i]` is copy `%i` (0 <= %i < S), a buffer of the same type.
    tile-pipeline-register-rings addresses the stages with it.
    ```mlir
    %k1 = tile.stage %ks[%s] : !tile.buffer<shared 64x128xbf16>
    ```
  }];
  let arguments = (ins Tile_BufferType:$buffer, Index:$index);
  let results = (outs Tile_BufferType:$result);
  let assemblyFormat = "$buffer `[` $index `]` attr-dict `:` qualified(type($buffer))";
  let hasVerifier = 1;
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait"> {
  let summary = "waits until at most `pending` groups of this thread's cp.async copies are in flight";
  let description = [{
    Each `tile.copy` marked `tile.cp_async` is one group of asynchronous copies, issued in program
    order; this thread waits here until at most `pending` of its most recent groups are still
    landing (`cp.async.wait_group`). Other threads' copies are visible only after a
    `tile.barrier` that follows. With `warp`, the warp's threads then wait for each other
    (`bar.warp.sync`): every lane's copies so far have landed. Placed by tile-place-async-waits,
    tile-pipeline-register-rings and tile-warp-specialize.
    ```mlir
    tile.async_wait pending = 1
    tile.async_wait pending = 0 warp
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative, IntMaxValue<63>]>:$pending,
                       UnitAttr:$warp);
  let assemblyFormat = "`pending` `=` $pending (`warp` $warp^)? attr-dict";
}

def Tile_AsyncCommitOp : Tile_Op<"async_commit"> {
  let summary = "closes this thread's group of cp.async copies issued since the last one";
  let description = [{
    `tile.producer_copy` in the staged modes issues cp.async copies without a group of their own;
    this op makes those issued since the previous group one group (`cp.async.commit_group`),
    which `tile.async_wait` counts.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_MmaWaitOp : Tile_Op<"mma_wait"> {
  let summary = "waits until at most `pending` of this thread's latest async wgmma gemms run";
  let description = [{
    A gemm marked `tile.async` (wgmma) is issued as one wgmma group and returns at once; its
    accumulator's registers are written later. This op waits until at most `pending` of the
    thread's most recent groups are still running (`wgmma.wait_group`: older ones are complete),
    then hands the registers of `buffers` (the accumulators of the gemms it completes) to the
    ops that follow. Placed by tile-place-mma-waits.
    ```mlir
    tile.mma_wait pending = 1, %s : !tile.buffer<fragment 64x64xf32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative, IntMaxValue<63>]>:$pending,
                       Variadic<Tile_BufferType>:$buffers);
  let assemblyFormat = [{
    `pending` `=` $pending (`,` $buffers^ `:` qualified(type($buffers)))? attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_AsyncProxyFenceOp : Tile_Op<"async_proxy_fence"> {
  let summary = "makes this thread's shared-memory writes visible to the async proxy (wgmma)";
  let description = [{
    wgmma reads shared memory through the async proxy: a thread's writes (`st.shared`, cp.async)
    reach it only after `fence.proxy.async.shared::cta`, followed by a `tile.barrier` for the
    other threads' writes.
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Warp specialization: mbarriers, TMA loads, warpgroup roles (tile-warp-specialize)
//===----------------------------------------------------------------------===//

/// An op on mbarrier `$barriers[$index]` (a shared rank-1 buffer of i64).
class Tile_MBarrierOp<string mnemonic, list<Trait> traits = []> : Tile_Op<mnemonic, traits> {
  let hasVerifier = 1;
}

def Tile_MBarrierInitOp : Tile_MBarrierOp<"mbarrier_init"> {
  let summary = "initializes an mbarrier to complete a phase after `count` arrivals";
  let description = [{
    Element `%i` of a shared buffer of i64 is an mbarrier; one thread initializes it (its phase
    0 completes after `count` arrivals, and each later phase after as many), and a
    `tile.barrier` makes it visible to the block before any other op uses it. With `cluster`
    (in a kernel marked `tile.cluster`), a phase takes `count` arrivals from each block of the
    launch's cluster (`count` times the cluster's size, 1 for a launch without clusters), and a
    `tile.cluster_barrier` publishes the barrier to the cluster.
    ```mlir
    tile.mbarrier_init %bars[%c0], count = 1 : !tile.buffer<shared 6xi64>
    tile.mbarrier_init %bars[%c3], count = 8 cluster : !tile.buffer<shared 6xi64>
    ```
  }];
  let arguments = (ins Arg<Tile_BufferType, "", [MemWrite]>:$barriers, Index:$index,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$count, UnitAttr:$cluster);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` `count` `=` $count (`cluster` $cluster^)? attr-dict `:`
    qualified(type($barriers))
  }];
}

def Tile_MBarrierWaitOp : Tile_MBarrierOp<"mbarrier_wait"> {
  let summary = "waits until the mbarrier's phase of the given parity has completed";
  let description = [{
    The calling thread waits until the phase whose parity is the low bit of `%parity` has
    completed (`mbarrier.try_wait.parity` in a loop); the writes that the arrivals of that phase
    released (TMA bytes included) are then visible to it. A wait for parity 1 before any phase
    completed passes at once (the barrier's phase -1 counts as completed).
    ```mlir
    tile.mbarrier_wait %bars[%s], parity %p : !tile.buffer<shared 6xi64>
    ```
  }];
  let arguments = (ins Arg<Tile_BufferType, "", [MemRead, MemWrite]>:$barriers, Index:$index,
                       Index:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` `parity` $parity attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_MBarrierArriveOp : Tile_MBarrierOp<"mbarrier_arrive"> {
  let summary = "the calling thread arrives on an mbarrier, releasing its prior writes";
  let description = [{
    With `expect_tx = n`, the arrival also expects `n` more bytes of asynchronous copies (TMA
    loads naming this barrier) before the phase completes. With `after_copies`, the arrival
    happens once this thread's cp.async copies issued so far have landed
    (`cp.async.mbarrier.arrive.noinc`). With `at %r` (in a kernel marked `tile.cluster`), the
    thread arrives on the mbarrier of the same offset in block `%r` of its cluster (`mapa`;
    0 <= %r < tile.cluster_size, this block itself for a launch without clusters).
    ```mlir
    tile.mbarrier_arrive %bars[%s] : !tile.buffer<shared 6xi64>
    tile.mbarrier_arrive %bars[%s], expect_tx = 32768 : !tile.buffer<shared 6xi64>
    tile.mbarrier_arrive %bars[%e] at %r : !tile.buffer<shared 6xi64>
    ```
  }];
  let arguments = (ins Arg<Tile_BufferType, "", [MemRead, MemWrite]>:$barriers, Index:$index,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$expect_tx,
                       UnitAttr:$after_copies, Optional<Index>:$rank);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`,` `expect_tx` `=` $expect_tx^)? (`after_copies` $after_copies^)?
    (`at` $rank^)? attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_TmaLoadOp : Tile_Op<"tma_load"> {
  let summary = "loads a tile of a tensor into a swizzled shared buffer by TMA, completing on an mbarrier";
  let description = [{
    Issued by one thread: the tensor memory accelerator copies the tile at `offsets` (one per
    tensor dimension; the buffer covers the last two, elements outside the tensor read as zero)
    into `dest` (a shared buffer of rank 2 placed and swizzled by tile-shared-memory-layout, or a
    stage of one), one box per column block of the swizzle, and counts its bytes on mbarrier
    `%bars[%i]` (expected there by a `tile.mbarrier_arrive ... expect_tx`). The kernel takes one
    tensor map per tensor and box as a parameter (docs/abi.md). With `multicast` (in a kernel
    marked `tile.cluster`), both blocks of a 2-block cluster issue the same load and share it:
    the block of rank r issues the boxes b with b % 2 = r, each written at the same shared
    offset in both blocks and counted on each one's mbarrier `%i` (a launch without clusters
    loads the tile as without `multicast`).
    ```mlir
    tile.tma_load %a[%row, %k] to %as1, %bars[%s] : !tile.tensor<bf16, 2> to
        !tile.buffer<shared 128x64xbf16>, !tile.buffer<shared 6xi64>
    ```
  }];
  let arguments = (ins Arg<Tile_TensorType, "", [MemRead]>:$source, Variadic<Index>:$offsets,
                       Arg<Tile_BufferType, "", [MemWrite]>:$dest,
                       Arg<Tile_BufferType, "", [MemRead, MemWrite]>:$barriers, Index:$index,
                       UnitAttr:$multicast);
  let assemblyFormat = [{
    $source `[` $offsets `]` `to` $dest `,` $barriers `[` $index `]` (`multicast` $multicast^)?
    attr-dict `:`
    qualified(type($source)) `to` qualified(type($dest)) `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_CpAsyncReadableOp : Tile_Op<"cp_async_readable", [Pure]> {
  let summary = "whether cp.async can read a tensor's rows in aligned 16-byte chunks";
  let description = [{
    True when the tensor's last stride is 1 and its base address and other strides are multiples
    of 16 bytes (a run-time test of the launch's arguments).
    ```mlir
    %ok = tile.cp_async_readable %a : !tile.tensor<bf16, 3>
    ```
  }];
  let arguments = (ins Tile_TensorType:$tensor);
  let results = (outs I1:$result);
  let assemblyFormat = "$tensor attr-dict `:` qualified(type($tensor))";
}

def Tile_ProducerCopyOp : Tile_Op<"producer_copy", [AttrSizedOperandSegments]> {
  let summary = "the producer warpgroup's threads copy a tile of a tensor into a swizzled shared tile";
  let description = [{
    Run by every thread of the producer warpgroup (`tile.warp_specialize`'s producer region):
    the threads share the tile at `offsets` (one per tensor dimension; the tile covers the last
    two, elements outside the tensor read as zero) of `source` and write it into `dest` (a shared
    tile of rank 2 placed and swizzled by tile-shared-memory-layout, or a stage of one), as
    `mode` says (#tile.producer_copy). The staged modes keep the 16-byte block past each row's
    end at byte `edge_index` of `edges` (a shared buffer of i8; 16 bytes per row of the tile).
    ```mlir
    tile.producer_copy %a[%b0, %row, %k] to %as1 {mode = #tile.producer_copy<cp_async>} :
        !tile.tensor<bf16, 3> to !tile.buffer<shared 128x64xbf16>
    ```
  }];
  let arguments = (ins Arg<Tile_TensorType, "", [MemRead]>:$source, Variadic<Index>:$offsets,
                       Arg<Tile_BufferType, "", [MemWrite]>:$dest,
                       Optional<Tile_BufferType>:$edges, Optional<Index>:$edge_index,
                       Tile_ProducerCopyModeAttr:$mode);
  let assemblyFormat = [{
    $source `[` $offsets `]` `to` $dest (`edges` $edges^ `[` $edge_index `]`)? attr-dict `:`
    qualified(type($source)) `to` qualified(type($dest)) (`,` qualified(type($edges))^)?
  }];
  let hasVerifier = 1;
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [
    RecursiveMemoryEffects, NoRegionArguments, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "runs a producer warpgroup and the kernel's own threads (consumers) apart";
  let description = [{
    The kernel's block has `tile.producer_threads` more threads than `threads` says: those (the
    last ones) run `producer`, after lowering their register budget to `producer_registers` per
    thread (`setmaxnreg.dec`); the kernel's threads run `consumers`, after raising theirs to
    `consumer_registers`. `tile.barrier` inside `consumers` synchronizes the consumer threads
    only. Written by tile-warp-specialize; the regions talk through mbarriers.
    ```mlir
    tile.warp_specialize producer_registers = 40, consumer_registers = 232 producer {
      ...
    } consumers {
      ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<24>, IntMaxValue<256>]>:$producer_registers,
                       ConfinedAttr<I64Attr, [IntMinValue<24>, IntMaxValue<256>]>:$consumer_registers);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumers);
  let assemblyFormat = [{
    `producer_registers` `=` $producer_registers `,` `consumer_registers` `=` $consumer_registers
    attr-dict-with-keyword `producer` $producer `consumers` $consumers
  }];
  let hasVerifier = 1;
}


//===----------------------------------------------------------------------===//
// Clusters: blocks launched in pairs share a ring's loads (tile-warp-specialize)
//===----------------------------------------------------------------------===//

/// An op of a kernel whose blocks may run in clusters (`tile.cluster` on the kernel).
class Tile_ClusterOp<string mnemonic, list<Trait> traits = []> : Tile_Op<mnemonic, traits> {
  let hasVerifier = 1;
}

def Tile_ClusterSizeOp : Tile_ClusterOp<"cluster_size", [Pure]> {
  let summary = "the number of blocks in this block's cluster (1 for a launch without clusters)";
  let description = [{
    In a kernel marked `tile.cluster` (tile-warp-specialize), the launcher may start the blocks
    in clusters of that many along x (docs/abi.md); this is the launch's cluster size
    (`%cluster_nctarank`): that many or 1.
    ```mlir
    %n = tile.cluster_size
    ```
  }];
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, $_builder.getIndexType()); }]>];
  let assemblyFormat = "attr-dict";
}

def Tile_ClusterRankOp : Tile_ClusterOp<"cluster_rank", [Pure]> {
  let summary = "this block's rank in its cluster (0 for a launch without clusters)";
  let description = [{
    `%cluster_ctarank`: 0 .. tile.cluster_size - 1.
    ```mlir
    %r = tile.cluster_rank
    ```
  }];
  let results = (outs Index:$result);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, $_builder.getIndexType()); }]>];
  let assemblyFormat = "attr-dict";
}

def Tile_ClusterBarrierOp : Tile_ClusterOp<"cluster_barrier"> {
  let summary = "synchronizes every thread of every block of the cluster";
  let description = [{
    Every thread of the block arrives (`barrier.cluster.arrive`, release) and waits for every
    thread of the cluster's blocks (`barrier.cluster.wait`, acquire): the mbarriers the blocks
    initialized before it (`fence.mbarrier_init` by their initializing thread) and their shared
    writes are then visible to the whole cluster. A `tile.barrier` of the block for a launch
    without clusters.
    ```mlir
    tile.cluster_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Stream-K: partial tiles through a workspace (tile-warp-specialize)
//===----------------------------------------------------------------------===//

def Tile_StreamKActiveOp : Tile_Op<"stream_k_active", [Pure]> {
  let summary = "whether the launch passed a stream-K workspace";
  let description = [{
    In a kernel marked `tile.stream_k` (tile-warp-specialize), the entry's last parameter is a
    workspace the launcher passes when it splits tiles along K (docs/abi.md); this is true when
    the launch passed one (not null), false when every tile is whole.
    ```mlir
    %on = tile.stream_k_active
    ```
  }];
  let results = (outs I1:$result);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, $_builder.getI1Type()); }]>];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

/// An op on partial slot `$slot` of a stream-K workspace.
class Tile_PartialOp<string mnemonic> : Tile_Op<mnemonic> {
  let hasVerifier = 1;
}

def Tile_PartialStoreOp : Tile_PartialOp<"partial_store"> {
  let summary = "every thread stores its slots of a register fragment into a workspace slot";
  let description = [{
    Run by every thread of the kernel's block (the consumers of a warp-specialized one): thread
    t stores register slot i of `%acc` (a fragment of f32 with a register layout) at byte
    `offset + ((i / 4) * T + t) * 16 + (i % 4) * 4` of partial slot `%slot` of the stream-K
    workspace (T: the block's threads), in 16-byte vectors. Nothing is ordered with other
    threads: a `tile.barrier` and a `tile.partial_signal` publish the slot.
    ```mlir
    tile.partial_store %acc, %slot, offset = 0 : !tile.buffer<fragment 128x256xf32>
    ```
  }];
  // No declared effects: it writes the workspace (unknown to MLIR), never dead.
  let arguments = (ins Tile_BufferType:$buffer, Index:$slot,
                       ConfinedAttr<I64Attr, [IntMinValue<0>]>:$offset);
  let assemblyFormat = [{
    $buffer `,` $slot `,` `offset` `=` $offset attr-dict `:` qualified(type($buffer))
  }];
}

def Tile_PartialAddOp : Tile_PartialOp<"partial_add"> {
  let summary = "every thread adds a workspace slot's values into its slots of a register fragment";
  let description = [{
    The inverse of `tile.partial_store` with the same addresses: thread t adds the f32 at byte
    `offset + ((i / 4) * T + t) * 16 + (i % 4) * 4` of partial slot `%slot` to its register
    slot i of `%acc`, reading through L2 (`ld.global.cg`). The slot must have been published
    (`tile.partial_wait` by one thread, then a `tile.barrier`).
    ```mlir
    tile.partial_add %acc, %slot, offset = 0 : !tile.buffer<fragment 128x256xf32>
    ```
  }];
  // No declared effects: it reads the workspace (unknown to MLIR) after a wait.
  let arguments = (ins Tile_BufferType:$buffer, Index:$slot,
                       ConfinedAttr<I64Attr, [IntMinValue<0>]>:$offset);
  let assemblyFormat = [{
    $buffer `,` $slot `,` `offset` `=` $offset attr-dict `:` qualified(type($buffer))
  }];
}

def Tile_PartialSignalOp : Tile_PartialOp<"partial_signal"> {
  let summary = "one thread marks a workspace slot as written, releasing the block's stores";
  let description = [{
    Run by one thread after a `tile.barrier` that follows the block's `tile.partial_store`s:
    `fence.acq_rel.gpu`, then flag `%slot` of the workspace becomes 1. The launcher zeroes the
    flags before each launch (docs/abi.md).
    ```mlir
    tile.partial_signal %slot
    ```
  }];
  let arguments = (ins Index:$slot);
  let assemblyFormat = "$slot attr-dict";
}

def Tile_PartialWaitOp : Tile_PartialOp<"partial_wait"> {
  let summary = "one thread waits until a workspace slot is written";
  let description = [{
    Run by one thread: spins (`ld.acquire.gpu`) until flag `%slot` of the workspace is 1; a
    `tile.barrier` after it makes the slot readable to the block (`tile.partial_add`).
    ```mlir
    tile.partial_wait %slot
    ```
  }];
  let arguments = (ins Index:$slot);
  let assemblyFormat = "$slot attr-dict";
}

#endif // TLC_DIALECT_TILE_TILEOPS_TD
