// Attributes of the `tile` dialect: the typed contract between the tile passes and the
// conversion to NVVM (docs/pipeline.md, "The contract between passes").
#ifndef TLC_DIALECT_TILE_TILEATTRS_TD
#define TLC_DIALECT_TILE_TILEATTRS_TD

include "tlc/Dialect/Tile/IR/TileBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Decisions as enums
//===----------------------------------------------------------------------===//

def Tile_MmaKind : I32EnumAttr<"MmaKind", "tensor-core instruction family of a gemm", [
    I32EnumAttrCase<"Wgmma", 0, "wgmma">,
    I32EnumAttrCase<"MmaSync", 1, "mma_sync">]> {
  let cppNamespace = "::tlc::tile";
  let genSpecializedAttr = 0;
}

def Tile_MmaKindAttr : EnumAttr<Tile_Dialect, Tile_MmaKind, "mma"> {
  let summary = "the instruction a `tile.gemm` runs on (`tile.mma`)";
  let assemblyFormat = "`<` $value `>`";
}

def Tile_PipelineKind : I32EnumAttr<"PipelineKind", "how a pipelined loop is scheduled", [
    I32EnumAttrCase<"TmaWgmma", 0, "tma_wgmma">,
    I32EnumAttrCase<"CpAsyncMma", 1, "cp_async_mma">,
    I32EnumAttrCase<"CpAsyncRegs", 2, "cp_async_regs">,
    I32EnumAttrCase<"LoadsWgmma", 3, "loads_wgmma">,
    I32EnumAttrCase<"TmaRegs", 4, "tma_regs">]> {
  let cppNamespace = "::tlc::tile";
  let genSpecializedAttr = 0;
}

def Tile_ProducerCopyMode : I32EnumAttr<"ProducerCopyMode",
    "how a producer warpgroup's threads copy a tile", [
    I32EnumAttrCase<"CpAsync", 0, "cp_async">,
    I32EnumAttrCase<"Realigned", 1, "realigned">,
    I32EnumAttrCase<"StagedIssue", 2, "staged_issue">,
    I32EnumAttrCase<"StagedRealign", 3, "staged_realign">]> {
  let cppNamespace = "::tlc::tile";
  let genSpecializedAttr = 0;
}

def Tile_ProducerCopyModeAttr : EnumAttr<Tile_Dialect, Tile_ProducerCopyMode, "producer_copy"> {
  let summary = "how `tile.producer_copy` moves a tile";
  let description = [{
    `cp_async`: 16-byte cp.async chunks (the tensor's rows and base 16-byte aligned, the column
    offset a multiple of 16 bytes); `realigned`: 16-byte loads through registers, realigned with
    funnel shifts (any alignment); `staged_issue`: cp.async of the aligned 16-byte blocks covering
    each row (the block past a misaligned row's width into the edge bytes); `staged_realign`:
    those blocks, landed, shifted into place in the swizzled tile.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_PipelineKindAttr : EnumAttr<Tile_Dialect, Tile_PipelineKind, "pipeline"> {
  let summary = "the ring a pipelined `scf.for` becomes (`tile.pipeline`)";
  let description = [{
    `tma_wgmma`: TMA copies issued by a producer warpgroup into an mbarrier ring, wgmma gemms;
    `cp_async_mma`: cp.async copies S - 1 iterations ahead, ldmatrix + mma.sync gemms;
    `cp_async_regs`: a loop of the register strategy whose cp.async copies run ahead;
    `loads_wgmma`: copies of tensors TMA cannot read (any alignment) loaded by a producer
    warpgroup through registers (or cp.async where aligned) into an mbarrier ring, wgmma gemms;
    `tma_regs`: a loop of the register strategy (its body stays: softmax, masks, any tile op)
    whose copies a producer warpgroup issues as TMA boxes into an mbarrier ring.
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Register layouts of fragments
//===----------------------------------------------------------------------===//

def Tile_FragmentLayoutAttrInterface : AttrInterface<"FragmentLayoutAttrInterface"> {
  let cppNamespace = "::tlc::tile";
  let description = [{
    The register layout of a fragment (`tile.layout` on its `tile.alloc`): the fragment is
    spread over `getNumThreads()` threads, each holding `getNumSlots(shape)` register slots;
    slot s of thread t holds element `getCoord(shape, t, s)` (a rank-1 fragment: the row, and
    column 0). `getOwner` answers the inverse: which thread and slot hold element (i, j) (the
    first such thread where several hold copies).
  }];
  let methods = [
    InterfaceMethod<"The number of threads the fragment is spread over", "int64_t",
                    "getNumThreads">,
    InterfaceMethod<"Checks that a fragment of `shape` fits the layout", "::mlir::LogicalResult",
                    "verifyShape",
                    (ins "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
                         "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"Register slots per thread for a fragment of `shape`", "int64_t",
                    "getNumSlots", (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"The element (row, column) slot `slot` of thread `thread` holds",
                    "std::pair<int64_t, int64_t>", "getCoord",
                    (ins "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$thread,
                         "int64_t":$slot)>
  ];
  let extraClassDeclaration = [{
    /// The (thread, slot) holding element (row, col) of a fragment of `shape`; nullopt when no
    /// thread does.
    std::optional<std::pair<int64_t, int64_t>> getOwner(::llvm::ArrayRef<int64_t> shape,
                                                        int64_t row, int64_t col);
  }];
}

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_WgmmaAccLayoutAttr : Tile_Attr<"WgmmaAccLayout", "wgmma_acc",
    [DeclareAttrInterfaceMethods<Tile_FragmentLayoutAttrInterface>]> {
  let summary = "accumulator layout of wgmma m64nNk16 on warpgroupsM x warpgroupsN warpgroups";
  let description = [{
    Warpgroup (i, j) owns rows [i R / m, (i + 1) R / m) and columns [j C / n, (j + 1) C / n) of an
    [R, C] accumulator, in 64-row instruction tiles of N = C / n columns (a multiple of 8, at
    most 256): PTX's wgmma D fragment layout. `#tile.wgmma_acc<warpgroups = [2, 1]>`.
  }];
  let parameters = (ins "int64_t":$warpgroupsM, "int64_t":$warpgroupsN);
  let assemblyFormat = "`<` `warpgroups` `=` `[` $warpgroupsM `,` $warpgroupsN `]` `>`";
  let genVerifyDecl = 1;
}

def Tile_MmaSyncAccLayoutAttr : Tile_Attr<"MmaSyncAccLayout", "mma_sync_acc",
    [DeclareAttrInterfaceMethods<Tile_FragmentLayoutAttrInterface>]> {
  let summary = "accumulator layout of mma.sync m16n8k16 on warpsM x warpsN warps";
  let description = [{
    Warp w, at (w / n, w % n), owns an [R / m, C / n] block of m16n8 fragments of an [R, C]
    accumulator (PTX's C/D fragment layout). `#tile.mma_sync_acc<warps = [4, 2]>`.
  }];
  let parameters = (ins "int64_t":$warpsM, "int64_t":$warpsN);
  let assemblyFormat = "`<` `warps` `=` `[` $warpsM `,` $warpsN `]` `>`";
  let genVerifyDecl = 1;
}

def Tile_MmaSyncRowsLayoutAttr : Tile_Attr<"MmaSyncRowsLayout", "mma_sync_rows",
    [DeclareAttrInterfaceMethods<Tile_FragmentLayoutAttrInterface>]> {
  let summary = "row values beside an mma.sync accumulator";
  let description = [{
    A rank-1 fragment of R values, one per row of an [R, C] `#tile.mma_sync_acc<warps = [w, n]>`
    accumulator (n = `replicas`, 1 when omitted): warp v, at (v / n, v % n), holds the rows of
    its accumulator block; row slot r of a thread holds row 16 (r / 2) + lane / 4 + 8 (r % 2) of
    that block, replicated over the four lanes of a quad and the n warps of a block row (each
    of them holds the whole row value). `#tile.mma_sync_rows<warps = 4>`,
    `#tile.mma_sync_rows<warps = 4, replicas = 2>`.
  }];
  let parameters = (ins "int64_t":$warps, DefaultValuedParameter<"int64_t", "1">:$replicas);
  let assemblyFormat = "`<` `warps` `=` $warps (`,` `replicas` `=` $replicas^)? `>`";
  let genVerifyDecl = 1;
}

def Tile_BlockedLayoutAttr : Tile_Attr<"BlockedLayout", "blocked",
    [DeclareAttrInterfaceMethods<Tile_FragmentLayoutAttrInterface>]> {
  let summary = "vectors of a row per thread, threads_per_row consecutive threads per row";
  let description = [{
    The register layout of element-wise and row-wise work (layout::BlockedLayout): of an
    [R, C] fragment, each of `threads` threads holds `vec` consecutive elements of a row per
    column step, `threads_per_row` consecutive threads share a row, and a pass covers
    threads / threads_per_row rows. Slot (rr * C / (threads_per_row vec) + cc) vec + v of
    thread t holds element (rr * threads / threads_per_row + t / threads_per_row,
    (cc * threads_per_row + t % threads_per_row) * vec + v): copies from and to tensors move
    whole vectors. `#tile.blocked<vec = 4, threads_per_row = 32, threads = 256>`.
  }];
  let parameters = (ins "int64_t":$vec, "int64_t":$threadsPerRow, "int64_t":$threads);
  let assemblyFormat = [{
    `<` `vec` `=` $vec `,` `threads_per_row` `=` $threadsPerRow `,` `threads` `=` $threads `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_BlockedRowsLayoutAttr : Tile_Attr<"BlockedRowsLayout", "blocked_rows",
    [DeclareAttrInterfaceMethods<Tile_FragmentLayoutAttrInterface>]> {
  let summary = "row values beside a #tile.blocked fragment";
  let description = [{
    A rank-1 fragment of R values, one per row of a #tile.blocked fragment with the same
    threads_per_row and threads: row slot rr of thread t holds row
    rr * threads / threads_per_row + t / threads_per_row, replicated over the threads_per_row
    threads of the row. `#tile.blocked_rows<threads_per_row = 32, threads = 256>`.
  }];
  let parameters = (ins "int64_t":$threadsPerRow, "int64_t":$threads);
  let assemblyFormat = "`<` `threads_per_row` `=` $threadsPerRow `,` `threads` `=` $threads `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// The target
//===----------------------------------------------------------------------===//

def Tile_TargetAttr : Tile_Attr<"Target", "target"> {
  let summary = "the architecture a module is compiled for (`tile.target` on the module)";
  let description = [{
    Set once on the module (`tile-set-target`, which tlc runs first) and read by every pass
    that decides by architecture: `arch` (sm_XY or sm_XYa), the PTX ISA version the NVPTX
    backend emits, and the dynamic shared memory one block may use.
    `#tile.target<"sm_90a", ptx = 86, shared_bytes = 232448>`.
  }];
  let parameters = (ins StringRefParameter<>:$arch, "unsigned":$ptx, "int64_t":$sharedBytes);
  let assemblyFormat = "`<` $arch `,` `ptx` `=` $ptx `,` `shared_bytes` `=` $sharedBytes `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$arch), [{
      return $_get($_ctxt, arch, getPtxVersion(arch), getMaxSharedBytes(arch));
    }]>
  ];
  let extraClassDeclaration = [{
    /// The compute capability (90 for sm_90a); 0 when `arch` is not sm_XY[a].
    static unsigned getSm(::llvm::StringRef arch);
    /// Whether `arch` names an architecture: sm_XY or sm_XYa.
    static bool isValidArch(::llvm::StringRef arch);
    /// The PTX ISA version (86 = 8.6) emitted for `arch`.
    static unsigned getPtxVersion(::llvm::StringRef arch);
    /// Shared memory one block may use on `arch` (bytes): 227 KiB on sm_90/sm_100, 163 KiB on
    /// sm_80/sm_87, 99 KiB on sm_86/sm_89/sm_120 and others.
    static int64_t getMaxSharedBytes(::llvm::StringRef arch);
    unsigned getSm() const { return getSm(getArch()); }
    /// wgmma, TMA and setmaxnreg: sm_90a only.
    bool hasWgmma() const { return getArch() == "sm_90a"; }
    /// mma.sync m16n8k16, ldmatrix and cp.async: sm_80 and later.
    bool hasMmaSync() const { return getSm() >= 80; }
  }];
}


//===----------------------------------------------------------------------===//
// What the conversion tells the driver about each entry
//===----------------------------------------------------------------------===//

def Tile_EntryKind : I32EnumAttr<"EntryKind", "the kind of a kernel entry (docs/abi.md)", [
    I32EnumAttrCase<"Plain", 0, "plain">,
    I32EnumAttrCase<"Tma", 1, "tma">,
    I32EnumAttrCase<"Loads", 2, "loads">]> {
  let cppNamespace = "::tlc::tile";
  let genSpecializedAttr = 0;
}

def Tile_TensorMapAttr : Tile_Attr<"TensorMap", "tensor_map"> {
  let summary = "a TMA tensor-map parameter of a `__tma` entry";
  let description = [{
    Parameter `param` of the entry is a `__grid_constant__` CUtensorMap over kernel argument
    `arg` (a tensor), read in boxes of [rows, cols] elements of type `element` with the given
    swizzle (bytes: 0, 32, 64 or 128; docs/abi.md). With `store = 1` the map is a store map: the
    kernel writes the tensor through it (tile.copy's `tma_store`), the launch encodes it only
    where the tensor allows it in place and says so in the i32 parameter after the maps.
    `#tile.tensor_map<param = 15, arg = 0, box = [128, 64], swizzle = 128, element = bf16>`.
  }];
  let parameters = (ins "int64_t":$param, "int64_t":$arg, "int64_t":$boxRows,
                        "int64_t":$boxCols, "int64_t":$swizzle, "::mlir::Type":$element,
                        DefaultValuedParameter<"int64_t", "0">:$store);
  let assemblyFormat = [{
    `<` `param` `=` $param `,` `arg` `=` $arg `,` `box` `=` `[` $boxRows `,` $boxCols `]` `,`
    `swizzle` `=` $swizzle `,` `element` `=` $element (`,` `store` `=` $store^)? `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_EntryAttr : Tile_Attr<"Entry", "entry"> {
  let summary = "what a launch of a kernel entry needs (`tlc.entry` on the gpu.func)";
  let description = [{
    Set by `convert-tile-to-nvvm` on each entry it emits and read by `tlc-mark-grid-constants`
    and by the driver (launchers, manifest): the `.tile` kernel the entry belongs to, its kind
    (`plain`, `tma`: parameters end with tensor maps, `loads`: a producer warpgroup loads the
    ring), the block's threads along x, the threads that run the tile code (`compute_threads`; the
    rest are a producer warpgroup, 0 when there is none), the dynamic shared memory a launch
    needs in bytes, and the tensor maps of a `tma` entry, and with `stream_k = B` the bytes of
    one partial slot of the stream-K workspace its last parameter points to (docs/abi.md),
    with `cluster = 2` that a launch may start its blocks in clusters of 2 along x, and with
    `stored = P` (an entry with store maps) that its parameter P, the one after the maps, is the
    i32 saying whether the launch encoded them.
    `#tile.entry<"gemm", kind = tma, threads = 384, compute_threads = 256,
    shared_bytes = 98352, maps = [#tile.tensor_map<...>]>`.
  }];
  let parameters = (ins StringRefParameter<>:$kernel, EnumParameter<Tile_EntryKind>:$kind,
                        "int64_t":$threads, "int64_t":$computeThreads, "int64_t":$sharedBytes,
                        "::mlir::ArrayAttr":$maps,
                        DefaultValuedParameter<"int64_t", "0">:$streamK,
                        DefaultValuedParameter<"int64_t", "1">:$cluster,
                        DefaultValuedParameter<"int64_t", "-1">:$stored);
  let assemblyFormat = [{
    `<` $kernel `,` `kind` `=` $kind `,` `threads` `=` $threads `,`
    `compute_threads` `=` $computeThreads `,` `shared_bytes` `=` $sharedBytes `,`
    (`cluster` `=` $cluster^ `,`)? (`stored` `=` $stored^ `,`)? `maps` `=` $maps
    (`,` `stream_k` `=` $streamK^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The tensor maps of a `tma` entry (none for the others).
    auto getTensorMaps() const {
      return getMaps().getAsRange<::tlc::tile::TensorMapAttr>();
    }
    /// A copy with `bytes` of dynamic shared memory.
    EntryAttr withSharedBytes(int64_t bytes) const {
      return get(getContext(), getKernel(), getKind(), getThreads(), getComputeThreads(), bytes,
                 getMaps(), getStreamK(), getCluster(), getStored());
    }
  }];
}

#endif // TLC_DIALECT_TILE_TILEATTRS_TD
