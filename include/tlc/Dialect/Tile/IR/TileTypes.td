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

#endif // TLC_DIALECT_TILE_TILETYPES_TD
