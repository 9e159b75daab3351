// Conversion passes out of the `tile` dialect.
#ifndef TLC_CONVERSION_PASSES_TD
#define TLC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToNVVM : Pass<"convert-tile-to-nvvm", "mlir::ModuleOp"> {
  let summary = "Lower tile kernels to a gpu.module of NVVM-ready functions";
  let description = [{
    Moves every `tile.kernel` into a `gpu.module` as a `gpu.func` kernel whose parameters follow the
    launch ABI of docs/abi.md (a tensor becomes a global pointer, its sizes and its strides), drops
    the host-side `grid` region, and lowers block/thread indices, sizes and masked element accesses
    to `gpu`, `arith`, `scf` and `llvm` operations. The remaining upstream conversions
    (`tlc-gpu-to-nvvm` and friends) finish the job.

    Preconditions, each a located error when not met: the module's target (`tile-set-target`);
    no `tile.parallel` left (`tile-partition-threads`); every instruction, copy and pipeline
    decision legal for the target (wgmma and TMA on sm_90a, mma.sync and cp.async on sm_80 and
    later); and in a kernel with tensor-core decisions, the shared-memory placement of
    `tile-shared-memory-layout` (offsets, swizzles, barriers, `tile.shared_bytes`).

    Kernels marked `tile.omitted` (configurations that do not fit the target's shared memory)
    are dropped. With omit-unfit-variants, a configuration whose generic buffers do not fit is
    dropped with a warning too; a kernel none of whose configurations fits is an error.
  }];
  let options = [
    Option<"omitUnfitVariants", "omit-unfit-variants", "bool", "false",
           "A configuration that does not fit is left out (a warning), not an error">
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect", "mlir::NVVM::NVVMDialect"];
}

def MarkGridConstants : Pass<"tlc-mark-grid-constants", "mlir::LLVM::LLVMFuncOp"> {
  let summary = "Pass TMA tensor maps by value as __grid_constant__ kernel parameters";
  let description = [{
    Runs after tlc-gpu-to-nvvm: each tensor-map parameter of a kernel's `tile.entry`
    becomes a 128-byte, 64-byte aligned `byval` parameter marked `nvvm.grid_constant`, so the kernel
    reads the CUtensorMap the launcher passes by value in parameter space (no device copy) and
    TMA instructions take its generic address (docs/abi.md). A kernel with a producer
    warpgroup gets one block per multiprocessor (`nvvm.minctasm`). Precondition, a located
    error when not met: each tensor-map parameter is a pointer (`tlc-gpu-to-nvvm` first).
  }];
}

def UnifyDynamicSharedMemory
    : Pass<"tlc-unify-dynamic-shared-memory", "mlir::gpu::GPUModuleOp"> {
  let summary = "One dynamic shared memory symbol per module: `tlc_smem`, 1024-byte aligned";
  let description = [{
    Runs after tlc-gpu-to-nvvm. The generic lowering reaches dynamic shared memory through
    `gpu.dynamic_shared_memory`, which upstream lowers to a global of its own
    (`__dynamic_shmem__N`, 16-byte aligned); the tensor-core lowerings address it through
    `tlc_smem` (1024-byte aligned, as 128-byte swizzle atoms need). Two symbols need not start
    at the same address: ptxas placed the first as a static variable 1024 bytes below the second,
    so a kernel mixing both lowerings had two views of its shared memory 1 KiB apart (issue 17:
    generic stores into one buffer overwrote the last rows of a swizzled tile). Every address of
    a zero-length shared array becomes `tlc_smem`'s, and the other symbols are erased.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def LowerStructuredControlFlow : Pass<"tlc-scf-to-cf"> {
  let summary = "scf to cf in time linear in the function's length";
  let description = [{
    Lowers `scf.if`, `scf.for`, `scf.while`, `scf.index_switch`, `scf.execute_region`,
    `scf.parallel` and `scf.forall` to blocks and `cf` branches with upstream's patterns (the IR is
    the one `convert-scf-to-cf` gives), applied in reverse pre-order: nested ops before their
    parents, later ops of a block before earlier ones. Each lowering splits its block, moving the
    ops after it into the continuation block; visited last-to-first, a split moves only the ops up
    to the next (already lowered) op, so a function of n statements lowers in O(n). Upstream's
    pass visits first-to-last under the dialect conversion driver: each split moves the rest of
    the block, O(n^2) time and memory (4,000 bounds-checked statements took 11 s and 3.4 GB).
    Ops a lowering creates (`scf.parallel` becomes `scf.for`) are lowered by the next round.
  }];
  let dependentDialects = ["mlir::cf::ControlFlowDialect", "mlir::arith::ArithDialect"];
}

def MergeIdenticalBlocks : Pass<"tlc-merge-identical-blocks", "mlir::LLVM::LLVMFuncOp"> {
  let summary = "Merges identical blocks unless a merged block would address local memory "
                "through a block argument";
  let description = [{
    Runs after tlc-gpu-to-nvvm and the canonicalization that keeps blocks apart. Merges
    structurally identical blocks of a function (upstream's region simplification: the operands
    that differ become block arguments), and keeps the result unless one of the block arguments
    it adds receives an address derived from an `llvm.alloca` (a fragment or local buffer):
    such an argument takes the buffers' addresses, and LLVM then keeps them in local memory
    (an else-if chain copying into different fragments had a 32-byte stack frame). Merges
    whose new arguments carry values or global and shared addresses stay: the masked stores of
    linear_attention's per-chunk output merge into shared blocks (8 fewer registers; 3.5 %
    faster on the H100 than with blocks apart). The function is merged on a copy and the
    copy kept or dropped as a whole.
  }];
}

def ConvertGpuToNVVM : Pass<"tlc-gpu-to-nvvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "gpu, arith, cf, memref and math to the LLVM and NVVM dialects (64-bit indices)";
  let description = [{
    Upstream's `convert-gpu-to-nvvm` conversion (its patterns, type conversions and legality,
    index width 64) without the greedy in-dialect rewrite it runs first. The gpu ops tlc emits
    (thread and block ids, grid sizes, barriers, shuffles, dynamic shared memory) need none of
    its rewrites, and that driver merges identical blocks: identical copies into different
    fragments down an else-if chain became one copy through a block argument choosing the
    fragment, so the fragments' addresses were taken and LLVM left them in local memory (a
    stack frame where separate `if`s had none). The later canonicalizations keep blocks apart
    for the same reason; tlc-merge-identical-blocks merges those it can safely.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect"];
}

def ExpandFloat8 : Pass<"tlc-expand-float8"> {
  let summary = "8-bit float values to i8 bit patterns, and their conversions to integer code";
  let description = [{
    Runs after convert-tile-to-nvvm, before the upstream conversions: LLVM has no 8-bit float
    types, so every `f8E4M3FN` and `f8E5M2` value, buffer and memref becomes its `i8` bit
    pattern, and the only arithmetic on them, `arith.truncf` to and `arith.extf` from an 8-bit
    float (the frontend routes every other conversion through f32), becomes integer code.
    Rounding is to nearest, ties to even; a finite value beyond the largest finite one (448 for
    e4m3, 57344 for e5m2), and infinity, saturate to it with its sign (the `.satfinite` of PTX's
    `cvt`); NaN stays NaN (0x7F with the sign). On sm_89 and later (the module's target)
    conversions from f32 use `cvt.rn.satfinite.e4m3x2.f32` / `.e5m2x2` and e4m3 to f16 uses
    `cvt.rn.f16x2.e4m3x2`; elsewhere, and without a target, they are integer and f32 arithmetic
    giving the same bits. Constants and bitcasts to and from `i8` become bit patterns.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::NVVM::NVVMDialect"];
}

#endif // TLC_CONVERSION_PASSES_TD
