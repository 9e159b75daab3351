// Passes over the `tile` dialect.
#ifndef TLC_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TLC_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSetTarget : Pass<"tile-set-target", "mlir::ModuleOp"> {
  let summary = "Set the module's target: the architecture every later pass reads";
  let description = [{
    Puts `tile.target = #tile.target<"sm_90a", ptx = 86, shared_bytes = 232448>` on the module:
    the architecture, the PTX ISA version the NVPTX backend emits for it and the shared memory
    one block may use. The passes that decide by architecture (tile-assign-mma-layouts,
    tile-shared-memory-layout, convert-tile-to-nvvm) read it through `tile::getTarget` and fail
    with a located error where it is missing; tlc runs this pass first. An unknown architecture
    is an error. A kernel that is one configuration limited to other architectures
    (`tile.archs`, from `on ARCH` in its `configs` entry) is removed: this target's image
    leaves it out; so is one whose `when` condition (its grid's fourth result) is the constant
    false, since the launcher never chooses it.
  }];
  let options = [Option<"arch", "arch", "std::string", "\"sm_90a\"", "Target architecture">];
  let dependentDialects = ["tlc::tile::TileDialect"];
}

def TileWidenGemmOperands : Pass<"tile-widen-gemm-operands", "tlc::tile::KernelOp"> {
  let summary = "Give 8-bit float gemms without an 8-bit tensor-core form f16 operands";
  let description = [{
    A gemm of 8-bit float shared tiles (f8e4m3, f8e5m2) with an f32 fragment accumulator that the
    target's tensor cores cannot take as it is (no wgmma m64nNk32: before sm_90a, or its operands
    not both K-major in shared memory) gets, right before it, a copy of each 8-bit operand into
    a new shared f16 tile of the same shape (exact: every e4m3 and e5m2 value is an f16), and
    multiplies those; tile-assign-mma-layouts then picks mma.sync or wgmma for it. Gemms that
    wgmma takes as they are, other types and targets without tensor cores are left alone. Needs
    tile-set-target first (a located error otherwise).
  }];
}

def TileAssignMmaLayouts : Pass<"tile-assign-mma-layouts", "tlc::tile::KernelOp"> {
  let summary = "Map gemm tiles onto warpgroups and tensor-core instructions";
  let description = [{
    The tiling decision of the tensor-core strategies. For the first `pipelined` loop whose body
    only copies rank-2 tensor tiles into shared buffers and multiplies them (bf16/f16 in, f32
    accumulator), it maps the accumulator [BM, BN] onto the kernel's warpgroups (threads / 128)
    and wgmma m64nNk16 on sm_90a (64-row tiles along M first, then the rest along N, N <= 256),
    or onto its warps and mma.sync m16n8k16 on sm_80 and later, records that register layout on
    the accumulator's alloc (`tile.layout`), and marks the gemms `tile.mma` and the copies
    `tile.tma` / `tile.cp_async`. A kernel without such a loop may take the register strategy
    (every fragment in registers, mma.sync, cp.async tile copies: attention). Loops, shapes or
    uses that do not fit keep the generic strategy; with `explain`, a remark says which.
  }];
  let options = [
    Option<"tma", "tma", "bool", "true",
           "Use TMA and wgmma where the target has them; off, sm_90a main loops take "
           "cp.async rings (any alignment) feeding wgmma, or mma.sync">,
    Option<"explain", "explain", "bool", "false",
           "Remark which strategy each kernel with gemms takes, or why not a tensor-core one">,
    Option<"cpAsyncWgmma", "cp-async-wgmma", "bool", "true",
           "sm_90a: cp.async main-loop rings feed wgmma (the entry for tensors TMA cannot "
           "read, rank-3 tiles); off, they take mma.sync (tlc --codegen=mma-sync)">,
    Option<"mainLoops", "main-loops", "bool", "true",
           "Give a pipelined GEMM loop a main-loop ring (TMA or cp.async, whole-kernel "
           "accumulator layout); off, every kernel takes the per-op register strategy, its "
           "pipelined loops register rings (tlc --codegen=register)">,
    Option<"stageStores", "stage-stores", "bool", "true",
           "A main-loop ring's accumulator copied to a tensor stages its rows through a "
           "per-warp shared scratch and stores 16-byte vectors; off, each thread stores its "
           "own pairs (tlc --codegen=direct-stores)">,
    Option<"tmaStores", "tma-stores", "bool", "false",
           "With `tma` on sm_90a, staged copies of a wgmma accumulator to a rank-2 tensor of 2- "
           "or 4-byte elements get `tma_store`: rows out by TMA bulk stores where the launch "
           "encodes a store map (opt-in: correct on the H100, not faster than 16-byte vectors: "
           "tlc --codegen=tma-stores)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def TileAssignBlockedLayouts : Pass<"tile-assign-blocked-layouts", "tlc::tile::KernelOp"> {
  let summary = "Give fragments of element-wise and row-wise work blocked register layouts";
  let description = [{
    In a kernel whose gemms do not run on tensor cores (no `tile.mma`, no `tile.layout` from
    tile-assign-mma-layouts), joins the fragments that must share a layout (accessed by one
    `parallel` at its point or row, a row reduce's operands, the sides of a fragment copy),
    gives each class the widest vectors and the most threads per row that keep every thread
    busy (`#tile.blocked` for rank-2 fragments, `#tile.blocked_rows` for row values), converts
    through shared memory every use a layout cannot serve, and gives row reduces whose rows
    span several warps a `scratch` buffer. Classes that fit no layout or the register budget
    stay in shared memory; with `explain`, remarks say which and why.
  }];
  let options = [
    Option<"explain", "explain", "bool", "false",
           "Remark which fragments got registers, which stay in shared memory and why, and the "
           "layout conversions">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

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

def TileSoftwarePipeline : Pass<"tile-software-pipeline", "tlc::tile::KernelOp"> {
  let summary = "Turn pipelined TMA/wgmma loops into a multi-stage ring with a producer warpgroup";
  let description = [{
    A `pipelined(n, stages = S)` loop whose copies are TMA and whose gemms are wgmma gets S copies
    of each buffer its copies fill (`tile.stages = S` on the alloc),
    `tile.pipeline = #tile.pipeline<tma_wgmma>` on the loop, and a producer warpgroup on the kernel (`tile.producer_threads = 128`): the
    lowering then issues the copies from one producer thread into a ring guarded by full/empty
    mbarriers (expect-tx, phase parity) while the kernel's warpgroups consume it. Such a loop of
    cp.async copies (tensors TMA cannot read) and wgmma gemms becomes the same ring,
    `#tile.pipeline<loads_wgmma>`, whose 128 producer threads load the tiles (realigned in
    registers) and arrive on the full barriers; `cp_async_mma` rings (every thread copies S - 1
    iterations ahead) serve mma.sync gemms, and wgmma ones without `producer-loads`. Other
    `pipelined` loops whose cp.async tiles only their copies into registers (and register-strategy
    gemms) read become `cp_async_regs` rings; a tile such a loop fills that is otherwise used only
    in the other branch of an `if` around it first gets an alloc of its own for the loop. With
    `ring-producers` on sm_90a, such a ring directly in the kernel's body, the kernel's only one,
    whose copies are TMA boxes (rank 2 to 5, 16-bit or 8-bit elements, columns at a known
    multiple of 16 bytes, offsets and bounds recomputable from block ids) read by wgmma gemms
    only, on whole warpgroups (at most 3), becomes a `tma_regs` ring instead: its copies `tile.tma`,
    a producer warpgroup on the kernel; the rest of its body stays as it is.
  }];
  let options = [
    Option<"producerLoads", "producer-loads", "bool", "true",
           "Rings of cp.async copies feeding wgmma get a producer warpgroup (loads_wgmma)">,
    Option<"mainLoops", "main-loops", "bool", "true",
           "Loops of copies and gemms may become main-loop rings; off, pipelined loops become "
           "register rings (cp_async_regs) only (tlc --codegen=register)">,
    Option<"ringProducers", "ring-producers", "bool", "false",
           "sm_90a: a kernel's register ring whose copies TMA can issue becomes a tma_regs ring "
           "(a producer warpgroup, persistent blocks); tlc sets it for the TMA compile">,
    Option<"stageStores", "stage-stores", "bool", "true",
           "A tma_regs ring's kernel (persistent blocks) whose ring loads no tensor elements "
           "stages its accumulator copies to tensors through a per-warp shared scratch, as "
           "tile-assign-mma-layouts' stage-stores does for main loops (tlc turns it off with "
           "--codegen=direct-stores and with ping-pong-register-rings)">
  ];
}

def TileSharedMemoryLayout : Pass<"tile-shared-memory-layout", "tlc::tile::KernelOp"> {
  let summary = "Choose swizzles, place shared buffers by liveness, check capacity";
  let description = [{
    In kernels of the sm_90a strategy: gives each TMA-filled shared buffer the widest swizzle its
    rows fill (`tile.swizzle`, 128/64/32 bytes, the mode of both the TMA box and the wgmma
    descriptor), places every shared buffer and shared-memory fragment at a byte offset
    (`tile.offset`; 1024-aligned when swizzled; times its stages; buffers not live at the same
    time share bytes), adds the pipeline's mbarriers and records the total on the kernel
    (`tile.shared_bytes`). A total above the target's limit is a located error; with
    omit-unfit-variants, a kernel that is one configuration of several (`variant_of`) is instead
    marked `tile.omitted` with a located warning: convert-tile-to-nvvm leaves it out of this
    architecture's image (the launcher then chooses among the configurations the image has).
  }];
  let options = [
    Option<"omitUnfitVariants", "omit-unfit-variants", "bool", "false",
           "A configuration that does not fit is left out (a warning), not an error">
  ];
}

def TilePipelineRegisterRings : Pass<"tile-pipeline-register-rings", "tlc::tile::KernelOp"> {
  let summary = "Expand the register strategy's cp.async rings into explicit stages and waits";
  let description = [{
    Each loop marked `tile.pipeline = #tile.pipeline<cp_async_regs>` (tile-software-pipeline)
    becomes its ring, in the tile dialect: before the loop, the copies of iterations 0 .. S-2
    into stages 0 .. S-2 of their buffers (`tile.stage`, one cp.async group per copy); at the top
    of iteration i, the copies of iteration i + S - 1 into stage (i + S - 1) % S, their offsets
    recomputed for that iteration; the rest of the body reads stage i % S, and before the first
    op that reads copy k's tile, `tile.async_wait` for the groups issued after it (the rest of
    the set, then S - 1 sets), an async-proxy fence when a gemm of the loop runs wgmma, and a
    `tile.barrier`; after the loop, a wait for every group. The loop loses its `tile.pipeline`
    and `tile.stages` marks. Runs after tile-shared-memory-layout, which may lower S to fit the
    target: a located error otherwise.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "tlc::tile::KernelOp"> {
  let summary = "Write out a ring's producer warpgroup, mbarriers and persistent tile loops";
  let description = [{
    A kernel whose top-level loop is marked `tile.pipeline = #tile.pipeline<tma_wgmma>`
    (tile-software-pipeline; its ring placed by tile-shared-memory-layout, `tile.barriers`)
    becomes, in the tile dialect: a shared buffer of 2 S mbarriers at that offset (full[s] =
    s, empty[s] = S + s), initialized by thread 0 (`tile.mbarrier_init`: full after one arrival
    plus the stage's TMA bytes, empty after one arrival per consumer warp) and a `tile.barrier`;
    the kernel's grid counts; then `tile.warp_specialize` with

      - `producer`: one elected thread walks the kernel's tiles (a persistent loop: tiles
        block_id.x, + grid_dim.x, ..., in groups of 8 block rows for L2 reuse; block ids become
        the tile's) and the main loop's iterations, counted over the tiles (iteration n uses
        stage n % S in round n / S): `tile.mbarrier_wait` on empty[s] with parity (round & 1) ^ 1,
        `tile.mbarrier_arrive ... expect_tx` on full[s] with the stage's bytes, and a
        `tile.tma_load` per copy into `tile.stage` s of its buffer, its offsets recomputed
        from their definitions;
      - `consumers`: the kernel's body, in the same tile loop, its main loop waiting on full[s]
        (parity round & 1), its gemms reading stage s (`tile.async`, then `tile.mma_wait
        pending = 0`), and one arrival per warp on empty[s]; after the loop, the accumulators
        are handed over (`tile.mma_wait pending = 0`), and after each tile a `tile.barrier`
        (the consumers').

    A `loads_wgmma` ring (tensors TMA cannot read) gets a producer whose 128 threads all run
    the loop, in two versions chosen at run time (`tile.cp_async_readable` of every tensor):
    `tile.producer_copy` in 16-byte cp.async chunks with one `tile.mbarrier_arrive ...
    after_copies` per thread, or staged copies (issued S - 1 iterations before they are
    realigned in place, edge bytes after the barriers) or realigned loads, each followed by an
    async-proxy fence and an arrival; full barriers count 128 arrivals, and the consumers fence
    the async proxy after each wait. Register budgets: 40 per TMA producer thread (152 per
    loading one), the rest of the multiprocessor's 65536 (one block per
    multiprocessor) per consumer thread, at most 240. The loop's `tile.pipeline`,
    `tile.stages` and `tile.barriers` marks are removed, and so is every copy of the loop. Runs
    after tile-shared-memory-layout: a located error otherwise, and for a ring loop that is not
    directly in the kernel's body. With `pairs`, a TMA ring whose bounds and some of whose
    copies do not depend on the block row runs its blocks in pairs when launched in clusters of
    two (`tile.cluster = 2`; docs/pipeline.md): opt-in, `tlc --cluster-pairs`.
  }];
  let options = [Option<"pairs", "pairs", "bool", /*default=*/"false",
                        "Let TMA rings run their blocks in pairs sharing loads (2-block clusters)">,
                 Option<"overlap", "overlap", "bool", /*default=*/"false",
                        "Overlap a tma_regs ring's last gemm with the next iteration (planOverlap)">];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def TilePingPong : Pass<"tile-ping-pong", "tlc::tile::KernelOp"> {
  let summary = "Let a warp-specialized ring's consumer warpgroups take turns issuing its gemms";
  let description = [{
    FlashAttention-3's ping-pong: in the consumers of a `tile.warp_specialize` with two or more
    consumer warpgroups, each ring loop whose body issues two or more register-strategy wgmma
    gemms with other work between the first and the last (planPingPong in Strategy.h) gets a
    turn that passes from warpgroup to warpgroup through named barriers 2, 3, ...
    (`tile.named_barrier`, 256 threads each): a warpgroup waits for its turn before the loop
    and before the body's last gemm, and passes it on after the body's first gemm and after the
    loop; warpgroup 0 gives itself the first turn where the consumers start. One warpgroup's
    last and next first gemm (attention: P V, then the next block's Q K^T) then run on the
    tensor cores while the others compute between theirs (the softmax). Loops that do not
    qualify (one stage, a block barrier in the body, ops that wait for other warpgroups while
    holding the turn, nothing between the gemms as after tile-warp-specialize's overlap) are
    left alone. Runs after tile-warp-specialize; opt-in (`tlc
    --codegen=ping-pong-register-rings`).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def TilePlaceAsyncWaits : Pass<"tile-place-async-waits", "tlc::tile::KernelOp"> {
  let summary = "Order cp.async copies and tensor-core reads with explicit waits and barriers";
  let description = [{
    Outside main-loop rings (which the conversion builds) and register rings (which
    tile-pipeline-register-rings built, waits included): each cp.async copy is one group; before
    the first op that uses its tile, `tile.async_wait` with the groups issued since, then a
    `tile.barrier` (at the end of its block when nothing there uses it). With wgmma gemms in the
    kernel, a `tile.async_proxy_fence` comes before each such barrier. A `tile.barrier` goes
    before each run of cp.async copies (the tiles they overwrite may still be read), and after
    each mma.sync or wgmma gemm one of whose shared operands has writers other than cp.async
    copies (a `parallel`, a copy from a fragment); before such a wgmma gemm, a fence and a
    barrier. Kernels with a producer warpgroup are left alone. A kernel whose register rings are
    not expanded yet is a located error.
  }];
}

def TilePlaceMmaWaits : Pass<"tile-place-mma-waits", "tlc::tile::KernelOp"> {
  let summary = "Issue register-strategy wgmma gemms asynchronously, waiting at first need";
  let description = [{
    Each gemm that runs wgmma on the register strategy's accumulator is marked `tile.async` (one
    wgmma group, issued without waiting) and a `tile.mma_wait pending = n` goes before the first
    later op of its block that needs it done: one that uses its accumulator, that writes or
    stages one of its shared operands, a `tile.barrier` (a writer of another thread may follow),
    a nested region containing any of these, or the block's end. n counts the async gemms issued
    after it (groups complete in order); the wait names the accumulators it completes. Ops that
    write the gemm's A fragment do not wait: the gemm took A's registers when it was issued.
    Independent work written between a gemm and its first use (the softmax of one key block
    between the issue and the use of the next block's scores, FlashAttention-3's order) runs
    while the tensor cores multiply.
  }];
}

def TileExplain : Pass<"tile-explain", "tlc::tile::KernelOp"> {
  let summary = "Remark what each tile op of a kernel with gemms lowers to (tlc --explain)";
  let description = [{
    Runs after the other tile passes and changes nothing: one remark per kernel with gemms, with
    a note at each gemm (wgmma, ldmatrix + mma.sync, or no tensor cores, with its warps or
    warpgroups and where A comes from), each tile copy (TMA boxes, cp.async chunks, stores from
    registers, element loads) and each `pipelined` loop (the ring it became, its stages and
    producer, or that it runs in order). Needs the module's target.
  }];
  let options = [
    Option<"unalignedOnly", "unaligned-only", "bool", "false",
           "Only kernels whose copies serve unaligned tensors (tlc's plain-entry compile)">,
    Option<"overlap", "overlap", "bool", "false",
           "tile-warp-specialize runs with `overlap` (describe the overlapped gemms)">,
    Option<"pingPong", "ping-pong", "bool", "false",
           "tile-ping-pong runs (describe the consumer warpgroups' turns)">
  ];
}

#endif // TLC_DIALECT_TILE_TRANSFORMS_PASSES_TD
