// Passes over the `tile` dialect.
#ifndef TLC_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TLC_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TilePartitionThreads : Pass<"tile-partition-threads", "tlc::tile::KernelOp"> {
  let summary = "Distribute element-wise bodies over the threads of a block";
  let description = [{
    Rewrites every `tile.parallel` over a static index space of P points in a kernel of T threads
    into a loop of ceil(P / T) steps: at step k, thread t runs the body for the point of linear index
    k * T + t (consecutive threads take consecutive points, so accesses along the last index are
    coalesced), guarded when T does not divide P. The coordinates are recovered row-major.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

#endif // TLC_DIALECT_TILE_TRANSFORMS_PASSES_TD
