//===- LauncherGen.h - C++ launcher generation for tlc kernels --*- C++ -*-===//
//
// Generates the host launcher (a header and a source file) for the kernels of
// one .tile file from a plain description: no MLIR types, LLVM Support only.
// The launchers implement docs/abi.md and link against lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TLC_TARGET_CUDA_LAUNCHERGEN_H
#define TLC_TARGET_CUDA_LAUNCHERGEN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc::cuda {

/// One parameter of a kernel, in declaration order.
struct LaunchParam {
  enum class Kind { Tensor, Scalar };
  Kind kind = Kind::Tensor;
  /// The parameter's name in the .tile source; also its C++ name.
  std::string name;
  /// Element type ("f32", "f64", "f16", "bf16", "i32", "i64", "bool", ...).
  /// Tensors may have any element type; scalars must be one of f32, f64,
  /// i32, i64, bool (see scalarCxxType).
  std::string dtype;
  /// Tensors only: one entry per dimension, a size symbol ("M") or a
  /// non-negative decimal constant ("128", for a specialized compile-time
  /// size). Empty for a rank-0 tensor and for scalars.
  std::vector<std::string> dims;
  /// Tensors only: explicit strides in elements, one per dimension, each a stride symbol
  /// ("ldA") or a decimal constant ("1"). Empty for a dense row-major tensor, whose strides
  /// the launcher computes from its sizes.
  std::vector<std::string> strides;
};

/// One TMA tensor map an sm_90a entry takes after its ABI parameters (docs/abi.md).
struct TensorMapInfo {
  /// Index into KernelLaunchInfo::params of the rank-2 tensor it describes.
  unsigned param = 0;
  /// Box in elements, and the swizzle in bytes (128, 64, 32).
  int64_t boxRows = 0, boxCols = 0, swizzle = 0;
  /// Whether the kernel only reads the tensor: launch() may then copy it into an aligned
  /// workspace where TMA cannot read it in place (docs/abi.md).
  bool readOnly = false;
  /// Whether the tensor feeds a gemm's MN-major operand (tile::copiedToMnMajorOperand): the
  /// launcher copies it where its rows are not 32-byte aligned in large grids (docs/abi.md).
  bool mnMajor = false;
  /// A store map (the kernel writes the tensor through it): encoded in place where the tensor
  /// allows it, never copied; the i32 parameter after the maps says whether it was (docs/abi.md).
  bool store = false;
};

/// The kernel every sm_90a image with a `__tma` entry carries to copy a tensor of 2-byte
/// elements that TMA cannot read (any alignment and strides) into an aligned workspace
/// (docs/abi.md): its entry name, block and the tile each block copies.
inline constexpr llvm::StringLiteral kRepackEntry = "tlc_repack_b16";
inline constexpr unsigned kRepackThreads = 256;
inline constexpr unsigned kRepackTileRows = 8, kRepackTileCols = 256;

/// The .tile source of kRepackEntry.
std::string repackKernelSource();

/// The sm_90a form of a kernel (entry `<name>__tma`): its block has a producer warpgroup, and
/// its parameters end with tensor maps passed by value.
struct TmaEntryInfo {
  bool present = false;
  unsigned threads = 0;
  unsigned sharedBytes = 0;
  std::vector<TensorMapInfo> maps;
  /// The dynamic shared memory of the image's kRepackEntry.
  unsigned repackSharedBytes = 0;
  /// Bytes of one partial slot where the entry can split tiles along K (stream-K): it then takes
  /// a workspace pointer after the tensor maps (docs/abi.md); 0 where it cannot.
  int64_t streamKSlotBytes = 0;
  /// Blocks a launch may group into one cluster along x (2: pairs of tiles in adjacent rows
  /// share their loads, docs/abi.md); 1 where the entry's blocks run alone.
  int64_t cluster = 1;
};

/// The sm_90a form of a kernel for tensors TMA cannot read (entry `<name>__loads`): its block
/// has a producer warpgroup that loads the tiles itself; the ABI's parameters only.
struct LoadsEntryInfo {
  bool present = false;
  unsigned threads = 0;
  unsigned sharedBytes = 0;
};

/// What the launcher needs to know about one kernel.
struct KernelLaunchInfo {
  /// The kernel's name: its .entry name and, unless it is a variant, its C++
  /// namespace.
  std::string name;
  /// Set when the kernel is one compiled configuration (a variant) of a
  /// kernel with a `configs` block: that kernel's name, the C++ namespace of
  /// the dispatcher all its variants share. `name` is then the entry name,
  /// `<variantOf>__<variant>`. Empty for a plain kernel.
  std::string variantOf;
  /// The configuration's index, 0, 1, ...; -1 for a plain kernel.
  int variant = -1;
  /// The configuration's values for the documentation, e.g.
  /// "BM = 128, BN = 128"; may be empty.
  std::string config;
  std::vector<LaunchParam> params;
  /// The distinct size symbols of the tensor shapes, in order of first
  /// appearance; each is an int64_t argument of launch().
  std::vector<std::string> sizeSymbols;
  /// Grid dimensions: C++ expressions of type convertible to int64_t over the
  /// size symbols and scalar parameter names; they may call
  /// tlc::rt::ceilDiv. An empty expression means 1.
  std::string grid[3] = {"1", "1", "1"};
  /// A variant's `when` condition, a C++ expression over the same names as `grid`: select()
  /// prefers the variants whose condition holds. Empty without one.
  std::string when;
  /// The trip count of the kernel's `pipelined` loop, a C++ expression over the same names as
  /// `grid` (tlc::rt::tripCount); empty where the host cannot compute it. A `__tma` entry that
  /// can split tiles along K passes it to tlc::rt::prepareStreamK (-1 where empty).
  std::string iterations;
  /// Block shape, fixed at compile time.
  unsigned threads[3] = {1, 1, 1};
  /// Dynamic shared memory in bytes.
  unsigned sharedBytes = 0;
  /// Set when an sm_90a cubin carries the warp-specialized form: launch() uses it when the
  /// driver loaded that cubin (it looks the entry up first).
  TmaEntryInfo tma;
  /// Set when an sm_90a cubin carries the `__loads` form: launch() uses it where it does not
  /// use the TMA entry and the driver loaded that cubin.
  LoadsEntryInfo loads;
  /// Whether some image has the plain entry (`<name>`): not when every architecture serves
  /// the kernel through its `__tma` and `__loads` entries (sm_90a only).
  bool plain = true;
  /// The configuration (its index among the kernel's variants) whose launch serves the launches
  /// of this one that its `__tma` entry cannot, where the loaded image has no plain entry of
  /// this one (`<name>`; sm_90a images carry the plain entry of one configuration only, unless
  /// `tlc --every-plain-entry`); -1 for none.
  int plainServer = -1;
  /// Whether every architecture's image has this kernel: not for a configuration left out of
  /// an image whose shared memory it does not fit. launch() and select() of a kernel with such
  /// configurations choose among those the loaded image has.
  bool everyImage = true;
};

/// What the launcher needs to know about one .tile file.
struct LauncherInfo {
  /// The file stem; the launchers live in namespace tlc::<fileStem> unless
  /// cxxNamespace says otherwise.
  std::string fileStem;
  /// The C++ namespace of the launchers, e.g. "myapp::kernels" (`tlc
  /// --namespace`); empty means tlc::<fileStem>. Each component must be a
  /// valid, non-reserved identifier; "tlc" is allowed only as the first
  /// component and "tlc::rt" (the run-time library's) not at all. Launchers of
  /// different files linked into one program need different namespaces.
  std::string cxxNamespace;
  /// The header's file name as the source includes it, e.g. "vector_add.h".
  std::string headerName;
  std::vector<KernelLaunchInfo> kernels;
  /// The fatbin image to embed, as bytes.
  std::string fatbin;
};

/// The generated text.
struct LauncherFiles {
  std::string header, source;
};

/// Returns the C++ type a scalar parameter of element type \p dtype has in
/// launch() ("float", "double", "int32_t", "int64_t", "bool"), or an empty
/// string if scalars of that type are not supported by the ABI.
llvm::StringRef scalarCxxType(llvm::StringRef dtype);

/// Checks that \p info can be turned into launchers that compile: identifiers
/// are valid C++ names that do not collide with each other, with C++
/// keywords or with names the generated code uses (e.g. 'stream', 'launch',
/// anything starting with 'tlc_'); kernel names, the file stem and the
/// namespace are not library macros (checkLauncherName); scalar types are supported; every tensor
/// dimension is a listed size symbol or a constant; sizeSymbols lists exactly
/// the distinct symbols in order of first appearance; block dimensions are
/// at least 1 and at most 1024 threads in all; grid expressions are single
/// expressions. Variants (kernels with variantOf) of one kernel must be
/// numbered 0, 1, ... in order and take the same parameters and sizes; their
/// variantOf is checked as a kernel name, and must differ from the plain
/// kernels' names. Returns the first problem found, naming the kernel and the
/// parameter.
llvm::Error verifyLauncherInfo(const LauncherInfo &info);

/// Checks one name that becomes a C++ identifier in the launchers (kernel, parameter, size or
/// stride): a valid identifier that the generated code does not reserve. A name the caller
/// spells (\p spelledByCaller: a kernel name) must not be a macro of the C or C++ library
/// either (EOF, errno, INT64_MAX, linux, ...); a parameter or size that is one is renamed
/// tlc_user_<name> in the generated code. \p what describes the name ("kernel name",
/// "parameter") for the message.
llvm::Error checkLauncherName(llvm::StringRef name, const llvm::Twine &what, bool spelledByCaller);

/// Generates the launcher header and source for \p info, which must pass
/// verifyLauncherInfo. The output depends on \p info only: identical input
/// gives byte-identical output. The header declares, in namespace
/// <ns>::<kernel> (<ns> is cxxNamespace, or tlc::<fileStem> by default),
/// `tlc::rt::Status launch(CUstream stream, <params>, <size symbols>);`,
/// also <ns>::launch forwarding to it when the file has exactly one kernel,
/// and <ns>::unload(). The variants of a kernel K share <ns>::K: each has
/// <ns>::K::variant<i>::launch, and <ns>::K::launch dispatches to one of them
/// by the problem's shape (see docs/launchers.md), with K::select,
/// K::select_for and K::num_variants; a file whose kernels are the variants of
/// one kernel has the file-level <ns>::launch too.
/// The header is a C header too: compiled as C it declares the C interface, one
/// `CUresult <prefix><kernel>_launch(...)` per kernel of the C++ API (forwarding
/// to <ns>::<kernel>::launch) and `void <prefix>unload(void)`, where <prefix> is
/// <ns> with '_' for '::', then '_'; the source defines them extern "C".
LauncherFiles generateLauncher(const LauncherInfo &info);

} // namespace tlc::cuda

#endif // TLC_TARGET_CUDA_LAUNCHERGEN_H
