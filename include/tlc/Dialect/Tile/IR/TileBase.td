// The `tile` dialect: definition and type constraints.
#ifndef TLC_DIALECT_TILE_TILEBASE_TD
#define TLC_DIALECT_TILE_TILEBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tlc::tile";
  let summary = "Tile-level GPU kernels: kernels, tensors, element-wise bodies";
  let description = [{
    The `tile` dialect is what the tlc frontend produces from a `.tile` file. A `tile.kernel` holds
    a host-side `grid` region (computes the launch grid from run-time sizes) and a device-side `body`.
    Global tensors are `!tile.tensor` values (a pointer with run-time sizes and strides); every element
    access through them is masked at the tensor's bounds. Scalar arithmetic and control flow use the
    upstream `arith`, `math` and `scf` dialects.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // The discardable `tile.*` attributes the passes put on ops: TileAttrs.cpp verifies each.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TLC_DIALECT_TILE_TILEBASE_TD
