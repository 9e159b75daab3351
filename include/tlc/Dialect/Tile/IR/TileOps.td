// Operations of the `tile` dialect.
#ifndef TLC_DIALECT_TILE_TILEOPS_TD
#define TLC_DIALECT_TILE_TILEOPS_TD

include "tlc/Dialect/Tile/IR/TileBase.td"
include "tlc/Dialect/Tile/IR/TileTypes.td"
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
    `grid` runs on the host and yields the launch grid (three `index` values); `body` runs on the
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
  }];
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "ParallelOp"]>]> {
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
                   "::llvm::cast<::tlc::tile::TensorType>($_self).getElementType()">]> {
  let summary = "masked load of one element of a global tensor";
  let description = [{
    Reads `tensor[indices]`. When an index is outside `[0, size)` of its dimension the load is not
    performed and the result is zero.
  }];
  let arguments = (ins Arg<Tile_TensorType, "", [MemRead]>:$tensor, Variadic<Index>:$indices);
  let results = (outs AnyType:$result);
  let builders = [OpBuilder<(ins "::mlir::Value":$tensor, "::mlir::ValueRange":$indices), [{
    build($_builder, $_state,
          ::llvm::cast<::tlc::tile::TensorType>(tensor.getType()).getElementType(), tensor,
          indices);
  }]>];
  let assemblyFormat = "$tensor `[` $indices `]` attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    TypesMatchWith<"value type is the tensor's element type", "tensor", "value",
                   "::llvm::cast<::tlc::tile::TensorType>($_self).getElementType()">]> {
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

#endif // TLC_DIALECT_TILE_TILEOPS_TD
