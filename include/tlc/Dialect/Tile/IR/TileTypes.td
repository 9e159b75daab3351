// Types of the `tile` dialect.
#ifndef TLC_DIALECT_TILE_TILETYPES_TD
#define TLC_DIALECT_TILE_TILETYPES_TD

include "tlc/Dialect/Tile/IR/TileBase.td"

def Tile_TensorType : Tile_Type<"Tensor", "tensor"> {
  let summary = "a global-memory tensor view with run-time sizes and strides";
  let description = [{
    `!tile.tensor<f32, 2>` is a rank-2 tensor of f32 in global memory. Its sizes and strides (in
    elements) are run-time values; see docs/abi.md for how it is passed to a kernel.
  }];
  let parameters = (ins "::mlir::Type":$elementType, "unsigned":$rank);
  let assemblyFormat = "`<` $elementType `,` $rank `>`";
  let genVerifyDecl = 1;
}

def Tile_BufferType : Tile_Type<"Buffer", "buffer"> {
  let summary = "a tile of static shape in shared memory, registers, or per-thread storage";
  let description = [{
    `!tile.buffer<shared 128x64xbf16>` is a tile visible to the whole block (shared memory);
    `!tile.buffer<fragment 128x128xf32>` is a tile distributed over the block's threads (registers,
    laid out by the compiler); `!tile.buffer<local 16xf32>` is private to each thread.
  }];
  let parameters = (ins "::tlc::tile::BufferSpace":$space,
                        ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    int64_t getNumElements() const;
    /// Size in bytes (elements of less than a byte round up).
    int64_t getSizeInBytes() const;
    bool isShared() const { return getSpace() == ::tlc::tile::BufferSpace::Shared; }
    bool isFragment() const { return getSpace() == ::tlc::tile::BufferSpace::Fragment; }
    bool isLocal() const { return getSpace() == ::tlc::tile::BufferSpace::Local; }
  }];
}

#endif // TLC_DIALECT_TILE_TILETYPES_TD
