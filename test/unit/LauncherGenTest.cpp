// Unit tests for the launcher generator (and, through a mock driver, the
// run-time library).

#include "tlc/Target/CUDA/LauncherGen.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

using namespace tlc::cuda;
using Kind = LaunchParam::Kind;

//===----------------------------------------------------------------------===//
// Sample kernels
//===----------------------------------------------------------------------===//

static LaunchParam tensor(std::string name, std::string dtype, std::vector<std::string> dims) {
  return LaunchParam{Kind::Tensor, std::move(name), std::move(dtype), std::move(dims)};
}

static LaunchParam scalar(std::string name, std::string dtype) {
  return LaunchParam{Kind::Scalar, std::move(name), std::move(dtype), {}};
}

static std::string fatbinBytes() {
  // Starts like a real fatbin header; contains a NUL and high bytes.
  return std::string("\x50\xed\x55\xba\x01\x00\x10\x00"
                     "tlc-test-fatbin\xff\x80",
                     25);
}

static LauncherInfo singleKernelFile(std::string stem, KernelLaunchInfo kernel) {
  LauncherInfo info;
  info.fileStem = stem;
  info.headerName = stem + ".h";
  info.kernels.push_back(std::move(kernel));
  info.fatbin = fatbinBytes();
  return info;
}

/// kernel fill(X: tensor<f32>[N]) grid(cdiv(N, 256)) threads(256)
static KernelLaunchInfo fillKernel() {
  KernelLaunchInfo k;
  k.name = "fill";
  k.params = {tensor("X", "f32", {"N"})};
  k.sizeSymbols = {"N"};
  k.grid[0] = "tlc::rt::ceilDiv(N, 256)";
  k.threads[0] = 256;
  return k;
}

/// kernel vector_add(X, Y, Z: tensor<f32>[N]) grid(cdiv(N, 1024)) threads(256)
static KernelLaunchInfo vectorAddKernel() {
  KernelLaunchInfo k;
  k.name = "vector_add";
  k.params = {tensor("X", "f32", {"N"}), tensor("Y", "f32", {"N"}), tensor("Z", "f32", {"N"})};
  k.sizeSymbols = {"N"};
  k.grid[0] = "tlc::rt::ceilDiv(N, 1024)";
  k.threads[0] = 256;
  return k;
}

/// kernel scale_bias_relu(X: tensor<f32>[M, N], bias: tensor<f32>[N],
///                        Y: tensor<f32>[M, N], scale: f32)
static KernelLaunchInfo scaleBiasReluKernel() {
  KernelLaunchInfo k;
  k.name = "scale_bias_relu";
  k.params = {tensor("X", "f32", {"M", "N"}), tensor("bias", "f32", {"N"}),
              tensor("Y", "f32", {"M", "N"}), scalar("scale", "f32")};
  k.sizeSymbols = {"M", "N"};
  k.grid[0] = "tlc::rt::ceilDiv(N, 128)";
  k.grid[1] = "M";
  k.threads[0] = 128;
  return k;
}

/// Every scalar type, a rank-3 tensor with a constant dimension, a bf16
/// tensor and dynamic shared memory above 48 KiB.
static KernelLaunchInfo mixedKernel() {
  KernelLaunchInfo k;
  k.name = "mixed";
  k.params = {tensor("X", "f32", {"M", "4", "N"}),
              scalar("flag", "bool"),
              tensor("Y", "bf16", {"N"}),
              scalar("n", "i32"),
              scalar("alpha", "f64"),
              scalar("count", "i64")};
  k.sizeSymbols = {"M", "N"};
  k.grid[0] = "tlc::rt::ceilDiv(N, 64)";
  k.grid[1] = "M";
  k.grid[2] = "";
  k.threads[0] = 64;
  k.threads[1] = 2;
  k.sharedBytes = 65536;
  return k;
}

/// A grid over a scalar parameter: grid(cdiv(N, 256), 1, batches).
static KernelLaunchInfo batchedKernel() {
  KernelLaunchInfo k;
  k.name = "batched";
  k.params = {tensor("X", "f32", {"N"}), scalar("batches", "i32")};
  k.sizeSymbols = {"N"};
  k.grid[0] = "tlc::rt::ceilDiv(N, 256)";
  k.grid[2] = "batches";
  k.threads[0] = 256;
  return k;
}

/// A kernel without parameters.
static KernelLaunchInfo emptyKernel() {
  KernelLaunchInfo k;
  k.name = "nothing";
  k.threads[0] = 32;
  return k;
}

/// gemm(A: bf16[M, K], B: bf16[K, N], C: f32[M, N]) with an sm_90a entry (gemm__tma) that
/// takes tensor maps of A and B.
static KernelLaunchInfo tmaKernel() {
  KernelLaunchInfo k;
  k.name = "gemm";
  k.params = {tensor("A", "bf16", {"M", "K"}), tensor("B", "bf16", {"K", "N"}),
              tensor("C", "f32", {"M", "N"})};
  k.sizeSymbols = {"M", "K", "N"};
  k.grid[0] = "tlc::rt::ceilDiv(N, 128)";
  k.grid[1] = "tlc::rt::ceilDiv(M, 128)";
  k.threads[0] = 128;
  k.tma.present = true;
  k.tma.threads = 384;
  k.tma.sharedBytes = 200000;
  k.tma.maps = {{0, 128, 64, 128}, {1, 64, 128, 128}};
  return k;
}

/// Parameter and size names that the C and C++ libraries, or the platform, define as macros.
static KernelLaunchInfo macroNamesKernel() {
  KernelLaunchInfo k;
  k.name = "macros";
  k.params = {tensor("errno", "f32", {"INT64_MAX", "EOF"}),
              tensor("stdin", "f32", {"EOF"}),
              scalar("linux", "i32"),
              scalar("assert", "f32"),
              tensor("NULL", "f32", {"unix"}),
              tensor("EPERM", "f32", {"E2BIG"}),
              scalar("SIGKILL", "f32")};
  k.sizeSymbols = {"INT64_MAX", "EOF", "unix", "E2BIG"};
  k.grid[0] = "tlc::rt::ceilDiv(EOF, 256)";
  k.grid[1] = "INT64_MAX";
  k.grid[2] = "linux";
  k.threads[0] = 256;
  return k;
}

/// kernel mm<BM, BN>(A: [M, K], B: [K, N], C: [M, N], alpha: f32)
///   grid(cdiv(N, BN), cdiv(M, BM)) configs { (BM = 128, BN = 128), (BM = 64, BN = 64) }
/// compiled as its two variants, mm__0 (256 threads) and mm__1 (128 threads).
static std::vector<KernelLaunchInfo> mmVariants() {
  std::vector<KernelLaunchInfo> variants;
  for (int i = 0; i < 2; ++i) {
    int tile = i == 0 ? 128 : 64;
    KernelLaunchInfo k;
    k.name = "mm__" + std::to_string(i);
    k.variantOf = "mm";
    k.variant = i;
    k.config = "BM = " + std::to_string(tile) + ", BN = " + std::to_string(tile);
    k.params = {tensor("A", "f32", {"M", "K"}), tensor("B", "f32", {"K", "N"}),
                tensor("C", "f32", {"M", "N"}), scalar("alpha", "f32")};
    k.sizeSymbols = {"M", "K", "N"};
    k.grid[0] = "tlc::rt::ceilDiv(N, " + std::to_string(tile) + ")";
    k.grid[1] = "tlc::rt::ceilDiv(M, " + std::to_string(tile) + ")";
    k.threads[0] = i == 0 ? 256 : 128;
    variants.push_back(k);
  }
  return variants;
}

/// A file with the variants of mm only.
static LauncherInfo mmFile(std::string stem) {
  LauncherInfo info;
  info.fileStem = stem;
  info.headerName = stem + ".h";
  info.kernels = mmVariants();
  info.fatbin = fatbinBytes();
  return info;
}

/// mm's variants as kernel pv, whose variant 0 has the condition M > 100 and is not in every
/// image (the mock image has pv__1 only).
static LauncherInfo pvFile() {
  LauncherInfo info = mmFile("pv");
  for (KernelLaunchInfo &k : info.kernels) {
    k.name = "pv__" + std::to_string(k.variant);
    k.variantOf = "pv";
  }
  info.kernels[0].when = "M > 100";
  info.kernels[0].everyImage = false;
  return info;
}

/// gemm's TMA kernel as two configurations, ps__0 (128 x 128 tiles, 128 threads) and ps__1 (64 x
/// 64, 64 threads), each with a `__tma` entry; ps__0 has no plain entry, ps__1's serves its
/// launches TMA cannot (the mock image has ps__0__tma and ps__1).
static LauncherInfo psFile() {
  LauncherInfo info;
  info.fileStem = "ps";
  info.headerName = "ps.h";
  for (int i = 0; i < 2; ++i) {
    KernelLaunchInfo k = tmaKernel();
    int tile = i == 0 ? 128 : 64;
    k.name = "ps__" + std::to_string(i);
    k.variantOf = "ps";
    k.variant = i;
    k.grid[0] = "tlc::rt::ceilDiv(N, " + std::to_string(tile) + ")";
    k.grid[1] = "tlc::rt::ceilDiv(M, " + std::to_string(tile) + ")";
    k.threads[0] = tile;
    for (TensorMapInfo &map : k.tma.maps)
      map.readOnly = true;
    info.kernels.push_back(k);
  }
  info.kernels[0].plainServer = 1;
  info.fatbin = fatbinBytes();
  return info;
}

static size_t countOf(llvm::StringRef text, llvm::StringRef needle) { return text.count(needle); }

static std::string errorText(const LauncherInfo &info) {
  llvm::Error e = verifyLauncherInfo(info);
  return e ? llvm::toString(std::move(e)) : std::string();
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

TEST_CASE("launcher signature of a one-tensor kernel", "[launcher]") {
  LauncherInfo info = singleKernelFile("fill", fillKernel());
  REQUIRE(errorText(info).empty());
  LauncherFiles files = generateLauncher(info);
  const std::string decl = "tlc::rt::Status launch(CUstream stream, "
                           "CUdeviceptr X, int64_t N);";
  // Nested launcher and the file-level forwarder.
  CHECK(countOf(files.header, decl) == 2);
  CHECK(countOf(files.header, "namespace tlc::fill {") == 1);
  CHECK(countOf(files.header, "namespace fill {") == 1);
  CHECK(countOf(files.header, "/// X: f32[N] (dense, row-major)") == 1);
  CHECK(countOf(files.header, "void unload();") == 1);
  CHECK(countOf(files.header, "#include <cuda.h>") == 1);
  CHECK(countOf(files.header, "#include <cstdint>") == 1);
  CHECK(countOf(files.header, "#include \"tlc/Runtime/Runtime.h\"") == 1);
  CHECK(countOf(files.source, "#include \"fill.h\"") == 1);
  // Pointer, size, stride.
  CHECK(countOf(files.source, "void *tlc_args[] = {&tlc_arg0, &tlc_arg1, "
                              "&tlc_arg2};") == 1);
  CHECK(countOf(files.source, "int64_t tlc_arg2 = 1; // stride 0 of X") == 1);
}

TEST_CASE("launcher signature of a three-tensor kernel", "[launcher]") {
  LauncherInfo info = singleKernelFile("vector_add", vectorAddKernel());
  REQUIRE(errorText(info).empty());
  LauncherFiles files = generateLauncher(info);
  const std::string decl = "tlc::rt::Status launch(CUstream stream, CUdeviceptr X, CUdeviceptr Y, "
                           "CUdeviceptr Z, int64_t N);";
  CHECK(countOf(files.header, decl) == 2);
  for (const char *doc : {"/// X: f32[N] (dense, row-major)", "/// Y: f32[N] (dense, row-major)",
                          "/// Z: f32[N] (dense, row-major)"})
    CHECK(countOf(files.header, doc) == 1);
  // The shared size is one argument (of the kernel's, the file's and the C launch), validated
  // once, passed three times.
  CHECK(countOf(files.header, "int64_t N") == 3);
  CHECK(countOf(files.source, "if (N < 0)") == 1);
  CHECK(countOf(files.source, "= N; // size 0 of") == 3);
  // Nine device parameters as in docs/abi.md.
  CHECK(countOf(files.source, "&tlc_arg8}") == 1);
  CHECK(countOf(files.source, "&tlc_arg9") == 0);
  CHECK(countOf(files.source, "getFunction(\"vector_add\"") == 1);
  CHECK(countOf(files.source, "static_cast<int64_t>(tlc::rt::ceilDiv(N, 1024))") == 1);
  CHECK(countOf(files.source, "const unsigned tlc_block[3] = {256, 1, 1};") == 1);
  CHECK(countOf(files.source, "return vector_add::launch(stream, X, Y, Z, N);") == 1);
}

TEST_CASE("launcher signature of a 2-D kernel with a scalar", "[launcher]") {
  LauncherInfo info = singleKernelFile("scale_bias_relu", scaleBiasReluKernel());
  REQUIRE(errorText(info).empty());
  LauncherFiles files = generateLauncher(info);
  const std::string decl = "tlc::rt::Status launch(CUstream stream, CUdeviceptr X, CUdeviceptr "
                           "bias, CUdeviceptr Y, float scale, int64_t M, int64_t N);";
  CHECK(countOf(files.header, decl) == 2);
  CHECK(countOf(files.header, "/// X: f32[M, N] (dense, row-major)") == 1);
  CHECK(countOf(files.header, "/// bias: f32[N] (dense, row-major)") == 1);
  CHECK(countOf(files.header, "/// scale: f32 (scalar, passed as float)") == 1);
  // M and N appear once each in the parameter lists (the kernel's, the file's, the C launch).
  CHECK(countOf(files.header, "int64_t M") == 3);
  CHECK(countOf(files.header, "int64_t N") == 3);
  // Row-major strides of X: [N, 1].
  CHECK(countOf(files.source, "int64_t tlc_arg1 = M; // size 0 of X") == 1);
  CHECK(countOf(files.source, "int64_t tlc_arg2 = N; // size 1 of X") == 1);
  CHECK(countOf(files.source, "int64_t tlc_arg3 = tlc_arg2; // stride 0 of X") == 1);
  CHECK(countOf(files.source, "int64_t tlc_arg4 = 1; // stride 1 of X") == 1);
  CHECK(countOf(files.source, "float tlc_arg13 = scale; // scale") == 1);
  CHECK(countOf(files.source, "&tlc_arg13}") == 1);
}

TEST_CASE("launcher scalars, constant dimensions and shared memory", "[launcher]") {
  LauncherInfo info = singleKernelFile("mixed", mixedKernel());
  REQUIRE(errorText(info).empty());
  LauncherFiles files = generateLauncher(info);
  CHECK(countOf(files.header, "tlc::rt::Status launch(CUstream stream, CUdeviceptr X, bool "
                              "flag, CUdeviceptr Y, int32_t n, double alpha, int64_t count, "
                              "int64_t M, int64_t N);") == 2);
  CHECK(countOf(files.header, "/// X: f32[M, 4, N] (dense, row-major)") == 1);
  CHECK(countOf(files.header, "/// Y: bf16[N] (dense, row-major)") == 1);
  // Strides of [M, 4, N]: [4 * N, N, 1].
  CHECK(countOf(files.source, "int64_t tlc_arg2 = 4; // size 1 of X") == 1);
  CHECK(countOf(files.source, "int64_t tlc_arg4 = tlc_arg2 * tlc_arg3; // stride 0 of X") == 1);
  CHECK(countOf(files.source, "int64_t tlc_arg5 = tlc_arg3; // stride 1 of X") == 1);
  CHECK(countOf(files.source, "uint8_t tlc_arg7 = flag ? 1 : 0;") == 1);
  CHECK(countOf(files.source, "int32_t tlc_arg11 = n;") == 1);
  CHECK(countOf(files.source, "double tlc_arg12 = alpha;") == 1);
  CHECK(countOf(files.source, "int64_t tlc_arg13 = count;") == 1);
  // Only sizes are validated, not the constant.
  CHECK(countOf(files.source, " < 0)") == 2);
  // An empty grid expression means 1.
  CHECK(countOf(files.source, "static_cast<int64_t>(M), static_cast<int64_t>(1)}") == 1);
  CHECK(countOf(files.source, "tlc_block, 65536, stream, tlc_args)") == 1);
}

TEST_CASE("launcher for a file with several kernels", "[launcher]") {
  LauncherInfo info = singleKernelFile("ops", vectorAddKernel());
  info.kernels.push_back(scaleBiasReluKernel());
  info.kernels.push_back(emptyKernel());
  REQUIRE(errorText(info).empty());
  LauncherFiles files = generateLauncher(info);
  CHECK(countOf(files.header, "namespace vector_add {") == 1);
  CHECK(countOf(files.header, "namespace scale_bias_relu {") == 1);
  CHECK(countOf(files.header, "namespace nothing {") == 1);
  // One declaration per kernel and no file-level forwarder.
  CHECK(countOf(files.header, "tlc::rt::Status launch(") == 3);
  CHECK(countOf(files.header, "tlc::rt::Status launch(CUstream stream);") == 1);
  CHECK(countOf(files.header, "CUresult tlc_ops_nothing_launch(CUstream stream);") == 1);
  CHECK(countOf(files.source, "void **tlc_args = nullptr;") == 1);
  // One image and one cache for the whole file.
  CHECK(countOf(files.source, "alignas(8) static const unsigned char "
                              "tlc_fatbin[] = {") == 1);
  CHECK(countOf(files.source, "static tlc::rt::ModuleCache cache(") == 1);
}

TEST_CASE("launcher dispatcher for the variants of a kernel", "[launcher]") {
  LauncherInfo info = mmFile("mm");
  REQUIRE(errorText(info).empty());
  LauncherFiles files = generateLauncher(info);
  const std::string decl = "tlc::rt::Status launch(CUstream stream, CUdeviceptr A, CUdeviceptr B, "
                           "CUdeviceptr C, float alpha, int64_t M, int64_t K, int64_t N);";
  // The dispatcher, one launch per variant, and the file-level forwarder.
  CHECK(countOf(files.header, decl) == 4);
  CHECK(countOf(files.header, "\nnamespace mm {\n") == 1);
  CHECK(countOf(files.header, "namespace mm__") == 0);
  CHECK(countOf(files.header, "namespace variant0 {") == 1);
  CHECK(countOf(files.header, "namespace variant1 {") == 1);
  CHECK(countOf(files.header, "constexpr int num_variants = 2;") == 1);
  CHECK(countOf(files.header, "int select_for(int tlc_multiprocessors, float alpha, "
                              "int64_t M, int64_t K, int64_t N);") == 1);
  CHECK(countOf(files.header, "int select(float alpha, int64_t M, int64_t K, int64_t N);") == 1);
  CHECK(countOf(files.header, "/// (variant0 and variant1 below)") == 1);
  CHECK(countOf(files.header, "/// Configuration 1 of 'mm' (BM = 64, BN = 64): kernel 'mm__1',\n"
                              "/// grid (tlc::rt::ceilDiv(N, 64), tlc::rt::ceilDiv(M, 64), 1) of "
                              "(128, 1, 1) threads.\n") == 1);
  CHECK(countOf(files.header, "/// A: f32[M, K] (dense, row-major)") == 1);
  CHECK(countOf(files.header, "see mm::launch.") == 1);

  // Each variant launches its own entry with its own block.
  CHECK(countOf(files.source, "getFunction(\"mm__0\", &tlc_function)") == 1);
  CHECK(countOf(files.source, "getFunction(\"mm__1\", &tlc_function)") == 1);
  CHECK(countOf(files.source, "const unsigned tlc_block[3] = {256, 1, 1};") == 1);
  CHECK(countOf(files.source, "const unsigned tlc_block[3] = {128, 1, 1};") == 1);
  CHECK(countOf(files.source, "negativeSizeError(\"mm__0\", \"M\", M);") == 1);
  // The blocks of every variant's grid, and the choice.
  CHECK(countOf(files.source,
                "static void tlc_variantBlocks(int64_t *tlc_blocks, float alpha, int64_t M, "
                "int64_t K, int64_t N) {\n  (void)alpha;\n  (void)M;\n  (void)K;\n  (void)N;\n"
                "  tlc_blocks[0] = tlc::rt::gridBlocks(static_cast<int64_t>(tlc::rt::ceilDiv(N, "
                "128)),\n      static_cast<int64_t>(tlc::rt::ceilDiv(M, 128)),\n"
                "      static_cast<int64_t>(1)); // mm__0\n"
                "  tlc_blocks[1] = tlc::rt::gridBlocks(static_cast<int64_t>(tlc::rt::ceilDiv(N, "
                "64)),\n      static_cast<int64_t>(tlc::rt::ceilDiv(M, 64)),\n"
                "      static_cast<int64_t>(1)); // mm__1\n}\n") == 1);
  CHECK(countOf(files.source, "int select_for(int tlc_multiprocessors, float alpha, int64_t M, "
                              "int64_t K, int64_t N) {\n  int64_t tlc_blocks[2];\n"
                              "  tlc_variantBlocks(tlc_blocks, alpha, M, K, N);\n"
                              "  return tlc::rt::chooseVariant(tlc_blocks, 2, "
                              "tlc_multiprocessors);\n}\n") == 1);
  CHECK(countOf(files.source, "int select(float alpha, int64_t M, int64_t K, int64_t N) {\n"
                              "  if (M < 0)\n    return -1;\n") == 1);
  CHECK(countOf(files.source, "tlc::rt::selectVariant(tlc_blocks, 2, &tlc_variant)") == 2);
  // The dispatcher checks the sizes under the kernel's name, then picks a variant.
  CHECK(countOf(files.source, "negativeSizeError(\"mm\", \"M\", M);") == 1);
  CHECK(countOf(files.source,
                "  tlc::rt::Status tlc_status = tlc::rt::selectVariant(tlc_blocks, 2, "
                "&tlc_variant);\n  if (!tlc_status.ok())\n    return tlc_status;\n"
                "  switch (tlc_variant) {\n"
                "  case 0:\n    return variant0::launch(stream, A, B, C, alpha, M, K, N);\n"
                "  default:\n    return variant1::launch(stream, A, B, C, alpha, M, K, N);\n"
                "  }\n}\n} // namespace mm\n") == 1);
  CHECK(countOf(files.source, "  return mm::launch(stream, A, B, C, alpha, M, K, N);") == 1);

  // Next to another kernel: no file-level forwarder.
  LauncherInfo ops = mmFile("ops");
  ops.kernels.insert(ops.kernels.begin(), vectorAddKernel());
  REQUIRE(errorText(ops).empty());
  LauncherFiles opsFiles = generateLauncher(ops);
  CHECK(countOf(opsFiles.header, decl) == 3);
  CHECK(countOf(opsFiles.header, "namespace vector_add {") == 1);
  CHECK(countOf(opsFiles.source, "return mm::launch(") == 0);

  // A single configuration, of a kernel without scalars or sizes.
  KernelLaunchInfo only = emptyKernel();
  only.variantOf = only.name;
  only.name += "__0";
  only.variant = 0;
  LauncherInfo single = singleKernelFile("single", only);
  REQUIRE(errorText(single).empty());
  LauncherFiles singleFiles = generateLauncher(single);
  CHECK(countOf(singleFiles.header, "constexpr int num_variants = 1;") == 1);
  CHECK(countOf(singleFiles.header, "int select_for(int tlc_multiprocessors);") == 1);
  CHECK(countOf(singleFiles.header, "int select();") == 1);
  CHECK(countOf(singleFiles.header, "(variant0 below)") == 1);
  CHECK(countOf(singleFiles.source,
                "  switch (tlc_variant) {\n  default:\n    return variant0::launch(stream);\n") ==
        1);
}

TEST_CASE("launcher embeds the fatbin bytes", "[launcher]") {
  LauncherInfo info = singleKernelFile("vector_add", vectorAddKernel());
  info.fatbin.clear();
  for (int i = 0; i < 40; ++i)
    info.fatbin.push_back(static_cast<char>(i * 7));
  LauncherFiles files = generateLauncher(info);
  CHECK(countOf(files.source, "/// The fatbin image (40 bytes).") == 1);
  // 16 bytes a line: 0, 7, ..., 105 on the first line.
  CHECK(countOf(files.source, "{\n    0x00, 0x07, 0x0e, 0x15, 0x1c, 0x23, 0x2a, 0x31, 0x38, "
                              "0x3f, 0x46, 0x4d, 0x54, 0x5b, 0x62, 0x69,\n    0x70,") == 1);
  // 273 = 0x111 wraps to 0x11 (byte 39).
  CHECK(countOf(files.source, " 0x11,\n};") == 1);
  CHECK(countOf(files.source, "0x") == 40);

  info.fatbin.clear();
  LauncherFiles empty = generateLauncher(info);
  CHECK(countOf(empty.source, "tlc_fatbin[] = {0};") == 1);
  CHECK(countOf(empty.source, "tlc_fatbinSize = 0;") == 1);
}

TEST_CASE("launcher output is deterministic", "[launcher]") {
  LauncherInfo info = singleKernelFile("ops", mixedKernel());
  info.kernels.push_back(vectorAddKernel());
  info.kernels.push_back(scaleBiasReluKernel());
  LauncherFiles a = generateLauncher(info);
  LauncherInfo copy = info;
  LauncherFiles b = generateLauncher(copy);
  LauncherFiles c = generateLauncher(info);
  CHECK(a.header == b.header);
  CHECK(a.source == b.source);
  CHECK(a.header == c.header);
  CHECK(a.source == c.source);
  // And sensitive to its input.
  copy.kernels[0].threads[0] = 128;
  CHECK(generateLauncher(copy).source != a.source);
}

TEST_CASE("launcher in a custom namespace", "[launcher]") {
  LauncherInfo info = singleKernelFile("vector_add", vectorAddKernel());
  LauncherFiles plain = generateLauncher(info);
  // The default is tlc::<file stem>, with the guard derived from the stem.
  CHECK(countOf(plain.header, "namespace tlc::vector_add {") == 1);
  CHECK(countOf(plain.header, "#ifndef TLC_GENERATED_vector_add_H") == 1);
  CHECK(countOf(plain.source, "namespace tlc::vector_add {") == 1);

  info.cxxNamespace = "myapp::kernels";
  REQUIRE(errorText(info).empty());
  LauncherFiles files = generateLauncher(info);
  CHECK(countOf(files.header, "namespace myapp::kernels {") == 1);
  CHECK(countOf(files.header, "} // namespace myapp::kernels\n") == 1);
  CHECK(countOf(files.header, "namespace vector_add {") == 1);
  CHECK(countOf(files.header, "namespace tlc::") == 0);
  CHECK(countOf(files.header, "#ifndef TLC_GENERATED_myapp__kernels_vector_add_H") == 1);
  CHECK(countOf(files.header, "tlc::rt::Status launch(CUstream stream, CUdeviceptr X, "
                              "CUdeviceptr Y, CUdeviceptr Z, int64_t N);") == 2);
  CHECK(countOf(files.source, "namespace myapp::kernels {") == 1);
  CHECK(countOf(files.source, "} // namespace myapp::kernels\n") == 1);
  CHECK(countOf(files.source, "namespace tlc::") == 0);
  // Only the namespace (four times: twice in the C interface) and the C prefix (twice) change.
  const long long grown =
      static_cast<long long>(files.source.size()) - static_cast<long long>(plain.source.size());
  CHECK(grown == 4 * (static_cast<long long>(sizeof("myapp::kernels")) -
                      static_cast<long long>(sizeof("tlc::vector_add"))) +
                     2 * (static_cast<long long>(sizeof("myapp_kernels_")) -
                          static_cast<long long>(sizeof("tlc_vector_add_"))));

  auto withNamespace = [](std::string ns, std::string stem = "ops") {
    LauncherInfo info = singleKernelFile(stem, vectorAddKernel());
    info.cxxNamespace = std::move(ns);
    return errorText(info);
  };
  CHECK(withNamespace("app").empty());
  CHECK(withNamespace("tlc::mine").empty());
  CHECK(withNamespace("a::b::c").empty());
  // A custom namespace frees the file stem 'rt'.
  CHECK(withNamespace("app::rt", "rt").empty());
  CHECK_THAT(withNamespace("my-app::k"), Catch::Contains("'my-app' is not a valid C++ identifier"));
  CHECK_THAT(withNamespace("app::::k"), Catch::Contains("namespace 'app::::k': component ''"));
  CHECK_THAT(withNamespace("::app"), Catch::Contains("is not a valid C++"));
  CHECK_THAT(withNamespace("app::"), Catch::Contains("is not a valid C++"));
  CHECK_THAT(withNamespace("app::tlc"), Catch::Contains("'tlc' is reserved"));
  CHECK_THAT(withNamespace("std"), Catch::Contains("'std' is reserved"));
  CHECK_THAT(withNamespace("app::new"), Catch::Contains("'new' is reserved"));
  CHECK_THAT(withNamespace("tlc"), Catch::Contains("reserved for tlc itself"));
  CHECK_THAT(withNamespace("tlc::rt"), Catch::Contains("reserved for tlc itself"));
  CHECK_THAT(withNamespace("tlc::rt::x"), Catch::Contains("reserved for tlc itself"));
}

TEST_CASE("launcher info verification", "[launcher]") {
  CHECK(scalarCxxType("f32") == "float");
  CHECK(scalarCxxType("bool") == "bool");
  CHECK(scalarCxxType("f16").empty());

  auto withKernel = [](auto edit) {
    KernelLaunchInfo k = scaleBiasReluKernel();
    edit(k);
    return errorText(singleKernelFile("sbr", k));
  };
  CHECK(withKernel([](KernelLaunchInfo &) {}).empty());
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.params[3].name = "stream"; }),
             Catch::Contains("'stream' is reserved"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.params[0].name = "tlc_x"; }),
             Catch::Contains("'tlc_x' is reserved"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.params[1].name = "new"; }),
             Catch::Contains("'new' is reserved"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.params[1].name = "b-1"; }),
             Catch::Contains("not a valid C++ identifier"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.params[1].name = "X"; }),
             Catch::Contains("duplicate parameter 'X'"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.params[3].dtype = "f16"; }),
             Catch::Contains("scalar parameter 'scale' has type 'f16'"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.sizeSymbols = {"N", "M"}; }),
             Catch::Contains("do not match"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.sizeSymbols = {"M"}; }),
             Catch::Contains("do not match"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.params[0].dims[0] = "012"; }),
             Catch::Contains("neither a size name nor a decimal constant"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.params[3].name = "M"; }),
             Catch::Contains("size 'M' has the name of a parameter"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.threads[1] = 0; }),
             Catch::Contains("block dimension 0"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.threads[1] = 16; }),
             Catch::Contains("2048 threads exceeds the limit of 1024"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.grid[0] = "N; abort()"; }),
             Catch::Contains("not a single C++ expression"));
  CHECK_THAT(withKernel([](KernelLaunchInfo &k) { k.name = "launch"; }),
             Catch::Contains("'launch' is reserved"));

  // Variants.
  auto withVariants = [](auto edit) {
    LauncherInfo info = mmFile("mm");
    edit(info);
    return errorText(info);
  };
  CHECK(withVariants([](LauncherInfo &) {}).empty());
  CHECK_THAT(withVariants([](LauncherInfo &i) { i.kernels[1].variant = 2; }),
             Catch::Contains("kernel 'mm__1': variant 2 of 'mm' where variant 1 was expected"));
  CHECK_THAT(withVariants([](LauncherInfo &i) { std::swap(i.kernels[0], i.kernels[1]); }),
             Catch::Contains("variant 1 of 'mm' where variant 0 was expected"));
  CHECK_THAT(withVariants([](LauncherInfo &i) { i.kernels[1].params[3].dtype = "f64"; }),
             Catch::Contains("kernel 'mm__1': its parameters differ from those of 'mm__0'"));
  CHECK_THAT(withVariants([](LauncherInfo &i) { i.kernels[1].params[0].dims[1] = "64"; }),
             Catch::Contains("its parameters differ"));
  CHECK_THAT(withVariants([](LauncherInfo &i) {
               for (KernelLaunchInfo &k : i.kernels)
                 k.variantOf = "launch";
             }),
             Catch::Contains("'launch' is reserved"));
  CHECK_THAT(withVariants([](LauncherInfo &i) {
               i.kernels.push_back(fillKernel()), i.kernels.back().name = "mm";
             }),
             Catch::Contains("'mm' names both a kernel and the kernel it is a variant of"));
  CHECK_THAT(withVariants([](LauncherInfo &i) { i.kernels[0].name = "mm-0"; }),
             Catch::Contains("the entry name of a variant of 'mm' is not an identifier"));
  CHECK_THAT(withVariants([](LauncherInfo &i) { i.kernels[0].variant = -1; }),
             Catch::Contains("variant of 'mm' without an index"));
  CHECK_THAT(withVariants([](LauncherInfo &i) { i.kernels[0].variantOf.clear(); }),
             Catch::Contains("kernel 'mm__0': variant 0 of no kernel"));
  CHECK_THAT(withVariants([](LauncherInfo &i) { i.kernels[0].config = "BM = 1\n#error"; }),
             Catch::Contains("the configuration text spans lines"));

  LauncherInfo twice = singleKernelFile("ops", vectorAddKernel());
  twice.kernels.push_back(vectorAddKernel());
  CHECK_THAT(errorText(twice), Catch::Contains("duplicate kernel 'vector_add'"));
  LauncherInfo badStem = singleKernelFile("my-ops", vectorAddKernel());
  CHECK_THAT(errorText(badStem), Catch::Contains("file stem 'my-ops'"));
  LauncherInfo rtStem = singleKernelFile("rt", vectorAddKernel());
  CHECK_THAT(errorText(rtStem), Catch::Contains("file stem 'rt'"));
  LauncherInfo badHeader = singleKernelFile("ops", vectorAddKernel());
  badHeader.headerName = "a\"b.h";
  CHECK_THAT(errorText(badHeader), Catch::Contains("cannot be used in an #include"));
}

//===----------------------------------------------------------------------===//
// Compiling the generated code
//===----------------------------------------------------------------------===//

namespace {
/// Where the checks below find their inputs; empty fields mean "skip".
struct CompileSetup {
  std::string compiler, tlcInclude, cudaInclude;
};
} // namespace

static std::optional<CompileSetup> compileSetup() {
#if defined(TLC_SOURCE_INCLUDE_DIR)
  CompileSetup setup;
  setup.tlcInclude = TLC_SOURCE_INCLUDE_DIR;
#if defined(TLC_CUDA_INCLUDE_DIR)
  setup.cudaInclude = TLC_CUDA_INCLUDE_DIR;
#else
  setup.cudaInclude = "/usr/local/cuda/include";
#endif
  if (!llvm::sys::fs::exists(setup.cudaInclude + "/cuda.h")) {
    WARN("no cuda.h in " << setup.cudaInclude << "; generated launchers are not compiled");
    return std::nullopt;
  }
#if defined(TLC_CXX_COMPILER)
  setup.compiler = TLC_CXX_COMPILER;
#else
  for (const char *name : {"c++", "g++", "clang++"}) {
    if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName(name)) {
      setup.compiler = *path;
      break;
    }
  }
#endif
  if (setup.compiler.empty()) {
    WARN("no C++ compiler found; generated launchers are not compiled");
    return std::nullopt;
  }
  return setup;
#else
  WARN("TLC_SOURCE_INCLUDE_DIR is not defined; generated launchers are not "
       "compiled");
  return std::nullopt;
#endif
}

static void writeFile(llvm::StringRef path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  REQUIRE(!ec);
  os << text;
}

/// Runs \p args (args[0] is the program), returns its exit code and stores
/// its output in \p output.
static int runProgram(llvm::ArrayRef<std::string> args, llvm::StringRef dir, std::string &output) {
  llvm::SmallString<128> log(dir);
  llvm::sys::path::append(log, "output.txt");
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(args[0], argRefs, std::nullopt, redirects,
                                     /*SecondsToWait=*/300, 0, &error);
  output = error;
  if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getFile(log))
    output += (*buffer)->getBuffer().str();
  return rc;
}

static std::string makeTempDir() {
  llvm::SmallString<128> dir;
  std::error_code ec = llvm::sys::fs::createUniqueDirectory("tlc-launcher-test", dir);
  REQUIRE(!ec);
  return std::string(dir);
}

static void writeLauncher(const std::string &dir, const LauncherInfo &info) {
  REQUIRE(errorText(info).empty());
  LauncherFiles files = generateLauncher(info);
  writeFile(dir + "/" + info.headerName, files.header);
  writeFile(dir + "/" + info.fileStem + ".cpp", files.source);
}

static std::vector<std::string> compileCommand(const CompileSetup &setup, const std::string &dir) {
  return {setup.compiler,
          "-std=c++17",
          "-Wall",
          "-Wextra",
          "-Werror",
          "-fno-exceptions",
          "-I" + dir,
          "-I" + setup.tlcInclude,
          "-I" + setup.cudaInclude};
}

TEST_CASE("generated launchers compile warning-free", "[launcher][compile]") {
  std::optional<CompileSetup> setup = compileSetup();
  if (!setup)
    return;
  std::string dir = makeTempDir();
  LauncherInfo ops = singleKernelFile("ops", mixedKernel());
  ops.kernels.push_back(vectorAddKernel());
  ops.kernels.push_back(emptyKernel());
  std::vector<LauncherInfo> files = {singleKernelFile("vector_add", vectorAddKernel()),
                                     singleKernelFile("scale_bias_relu", scaleBiasReluKernel()),
                                     ops};
  files.push_back(singleKernelFile("nothing", emptyKernel()));
  files.back().fatbin.clear();
  // A custom namespace, also one under tlc::.
  LauncherInfo custom = singleKernelFile("custom", scaleBiasReluKernel());
  custom.cxxNamespace = "myapp::kernels";
  custom.kernels.push_back(vectorAddKernel());
  files.push_back(custom);
  files.push_back(singleKernelFile("mine", fillKernel()));
  files.back().cxxNamespace = "tlc::mine_ops";
  // Variants and their dispatcher: alone, next to other kernels, a single configuration
  // without scalars or sizes.
  files.push_back(mmFile("mm"));
  LauncherInfo mixedOps = mmFile("mixed_ops");
  mixedOps.kernels.insert(mixedOps.kernels.begin(), mixedKernel());
  mixedOps.kernels.push_back(batchedKernel());
  KernelLaunchInfo only = emptyKernel();
  only.variantOf = only.name;
  only.name += "__0";
  only.variant = 0;
  mixedOps.kernels.push_back(only);
  files.push_back(mixedOps);

  std::vector<std::string> args = compileCommand(*setup, dir);
  args.push_back("-fsyntax-only");
  for (const LauncherInfo &info : files) {
    writeLauncher(dir, info);
    args.push_back(dir + "/" + info.fileStem + ".cpp");
  }
  std::string output;
  int rc = runProgram(args, dir, output);
  INFO("compiler output (files kept in " << dir << " on failure):\n" << output);
  CHECK(rc == 0);
  CHECK(output.empty());
  if (rc == 0)
    llvm::sys::fs::remove_directories(dir);
}

/// The compilers the generated code must compile with: the build's, and clang++ when it is
/// another one (clang refuses code GCC lets pass, e.g. an under-aligned CUtensorMap).
static std::vector<std::string> compilers(const CompileSetup &setup) {
  std::vector<std::string> list = {setup.compiler};
  if (llvm::ErrorOr<std::string> clang = llvm::sys::findProgramByName("clang++"))
    if (*clang != setup.compiler)
      list.push_back(*clang);
  return list;
}

/// Checks that \p sources (files in \p dir) compile without a warning under -Wpedantic with
/// every compiler of compilers(), with \p extraArgs.
static void checkCompiles(const CompileSetup &setup, const std::string &dir,
                          const std::vector<std::string> &sources,
                          const std::vector<std::string> &extraArgs = {}) {
  for (const std::string &compiler : compilers(setup)) {
    CompileSetup with = setup;
    with.compiler = compiler;
    std::vector<std::string> args = compileCommand(with, dir);
    args.push_back("-Wpedantic");
    args.push_back("-fsyntax-only");
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    for (const std::string &source : sources)
      args.push_back(dir + "/" + source);
    std::string output;
    int rc = runProgram(args, dir, output);
    INFO(compiler << " output (files in " << dir << "):\n" << output);
    CHECK(rc == 0);
    CHECK(output.empty());
  }
}

TEST_CASE("Runtime.h compiles under -Wpedantic", "[launcher][compile]") {
  std::optional<CompileSetup> setup = compileSetup();
  if (!setup)
    return;
  std::string dir = makeTempDir();
  writeFile(dir + "/runtime.cpp", "#include \"tlc/Runtime/Runtime.h\"\n");
  checkCompiles(*setup, dir, {"runtime.cpp"});
  llvm::sys::fs::remove_directories(dir);
}

/// tmaKernel() whose sm_90a image also has the loading producer's entry (gemm__loads); with
/// \p plain false no image has the plain entry (sm_90a alone).
static KernelLaunchInfo loadsKernel(bool plain) {
  KernelLaunchInfo k = tmaKernel();
  k.loads.present = true;
  k.loads.threads = 384;
  k.loads.sharedBytes = 98352;
  k.plain = plain;
  return k;
}

TEST_CASE("launcher entry lookup: TMA, then the loading producer, then plain", "[launcher]") {
  LauncherInfo both = singleKernelFile("gemm", loadsKernel(/*plain=*/true));
  REQUIRE(errorText(both).empty());
  LauncherFiles files = generateLauncher(both);
  size_t tma = files.source.find("findFunction(\"gemm__tma\"");
  size_t loads = files.source.find("findFunction(\"gemm__loads\"");
  size_t plain = files.source.find("getFunction(\"gemm\"");
  REQUIRE(tma != std::string::npos);
  REQUIRE(loads != std::string::npos);
  REQUIRE(plain != std::string::npos);
  CHECK(tma < loads);
  CHECK(loads < plain);
  CHECK(countOf(files.source, "if (!tlc_tma && !tlc_loads)") == 1);
  // Both warp-specialized entries launch persistent blocks of 384 threads.
  CHECK(countOf(files.source, "tlc_block, 98352, stream, tlc_args)") == 1);
  CHECK(countOf(files.source, "tlc_block, 200000, stream, tlc_args)") == 1);
  CHECK(countOf(files.source, "const unsigned tlc_block[3] = {384, 1, 1};") == 2);

  // sm_90a alone: no plain entry, no plain launch; the header describes the persistent one.
  LauncherInfo only = singleKernelFile("gemm", loadsKernel(/*plain=*/false));
  REQUIRE(errorText(only).empty());
  files = generateLauncher(only);
  CHECK(countOf(files.source, "getFunction(\"gemm__loads\"") == 1);
  CHECK(countOf(files.source, "getFunction(\"gemm\"") == 0);
  CHECK(countOf(files.source, "tlc_grid, tlc_block") == 0);
  CHECK(countOf(files.header, "of tiles, walked by one block of 384 threads per multiprocessor, "
                              "98352 bytes of dynamic shared memory") == 1);

  // Without the plain entry there must be the loading producer's.
  KernelLaunchInfo none = tmaKernel();
  none.plain = false;
  CHECK_THAT(errorText(singleKernelFile("gemm", none)), Catch::Contains("no entry to launch"));
}

TEST_CASE("launcher of a configuration whose plain entry another serves", "[launcher]") {
  LauncherInfo info = psFile();
  REQUIRE(errorText(info).empty());
  LauncherFiles files = generateLauncher(info);
  // Variant 0 looks its plain entry up and, where the image lacks it, runs variant 1's launch.
  CHECK(countOf(files.source, "findFunction(\"ps__0\", &tlc_function)") == 1);
  CHECK(countOf(files.source, "    if (!tlc_function)\n"
                              "      return variant1::launch(stream, A, B, C, M, K, N);\n") == 1);
  CHECK(countOf(files.source, "getFunction(\"ps__0\"") == 0);
  CHECK(countOf(files.source, "getFunction(\"ps__1\", &tlc_function)") == 1);

  // The server is another variant of the same kernel, which serves its own launches.
  info.kernels[0].plainServer = 0;
  CHECK_THAT(errorText(info), Catch::Contains("kernel 'ps__0': plain entry served by variant 0, "
                                              "which is not another variant of its kernel"));
  info.kernels[0].plainServer = 2;
  CHECK_THAT(errorText(info), Catch::Contains("not another variant"));
  info.kernels[0].plainServer = 1;
  info.kernels[1].plainServer = 0;
  CHECK_THAT(errorText(info), Catch::Contains("whose own plain entry is served by another"));
  KernelLaunchInfo single = tmaKernel();
  single.plainServer = 0;
  CHECK_THAT(errorText(singleKernelFile("gemm", single)), Catch::Contains("not another variant"));
}

TEST_CASE("launcher passes a stream-K workspace where tiles are split", "[launcher]") {
  KernelLaunchInfo split = tmaKernel();
  split.tma.streamKSlotBytes = 65536;
  LauncherFiles files = generateLauncher(singleKernelFile("gemm", split));
  // The workspace: prepared after the maps, the last parameter, one block per multiprocessor.
  // Without a trip count the host can compute, -1 (the automatic rule never splits then).
  CHECK(countOf(files.source, "tlc_status = tlc::rt::prepareStreamK(tlc_tiles, tlc_sms, -1, 65536, "
                              "stream, tlc_split_workspace, &tlc_split);") == 1);
  CHECK(countOf(files.source, "&tlc_map0, &tlc_map1, &tlc_split};") == 1);
  CHECK(
      countOf(files.source,
              "tlc_blocks[3] = {tlc_tiles < tlc_sms && !tlc_split ? tlc_tiles : tlc_sms, 1, 1};") ==
      1);
  CHECK(files.source.find("prepareStreamK") > files.source.find("encodeTensorMap2D(&tlc_map1"));
  // With one: the expression, over the launcher's size names.
  split.iterations = "tlc::rt::tripCount(0, tlc::rt::ceilDiv(K, 64), 1)";
  files = generateLauncher(singleKernelFile("gemm", split));
  CHECK(countOf(files.source, "tlc_status = tlc::rt::prepareStreamK(tlc_tiles, tlc_sms, "
                              "tlc::rt::tripCount(0, tlc::rt::ceilDiv(K, 64), 1), 65536, stream, "
                              "tlc_split_workspace, &tlc_split);") == 1);
  // Without it, as before.
  files = generateLauncher(singleKernelFile("gemm", tmaKernel()));
  CHECK(countOf(files.source, "prepareStreamK") == 0);
  CHECK(countOf(files.source, "&tlc_map0, &tlc_map1};") == 1);
}

/// tmaKernel with a store map of C (a 16 x 32 box of its f32 elements: tile.copy's tma_store).
static KernelLaunchInfo tmaStoreKernel() {
  KernelLaunchInfo k = tmaKernel();
  TensorMapInfo store{2, 16, 32, 128};
  store.store = true;
  k.tma.maps.push_back(store);
  return k;
}

TEST_CASE("launcher encodes store maps where it can and flags them", "[launcher]") {
  LauncherFiles files = generateLauncher(singleKernelFile("gemm", tmaStoreKernel()));
  // The store map is not a TMA operand (never copied, never a reason for the plain entry).
  CHECK(countOf(files.source, "tlc_operands, 2, stream, tlc_workspace") == 1);
  CHECK(countOf(files.source, "{&tlc_arg10,") == 0);
  // Encoded at the launch, the flag after the maps (1 where every store map was encoded).
  CHECK(countOf(files.source, "    int32_t tlc_stored = 1;\n") == 1);
  CHECK(countOf(files.source,
                "    tlc_stored &= tlc::rt::encodeStoreMap2D(&tlc_map2, tlc_arg10, "
                "tlc_arg11, tlc_arg12, tlc_arg13, tlc_arg14, 4, 16, 32, 128);\n") == 1);
  CHECK(countOf(files.source, "&tlc_map0, &tlc_map1, &tlc_map2, &tlc_stored};") == 1);
  // With a stream-K workspace: the flag, then the workspace.
  KernelLaunchInfo split = tmaStoreKernel();
  split.tma.streamKSlotBytes = 65536;
  files = generateLauncher(singleKernelFile("gemm", split));
  CHECK(countOf(files.source, "&tlc_map2, &tlc_stored, &tlc_split};") == 1);
}

TEST_CASE("sm_90a launchers compile with every compiler", "[launcher][compile]") {
  std::optional<CompileSetup> setup = compileSetup();
  if (!setup)
    return;
  std::string dir = makeTempDir();
  writeLauncher(dir, singleKernelFile("gemm", tmaKernel()));
  writeLauncher(dir, singleKernelFile("loads", loadsKernel(/*plain=*/true)));
  writeLauncher(dir, singleKernelFile("loads_only", loadsKernel(/*plain=*/false)));
  KernelLaunchInfo split = tmaKernel();
  split.tma.streamKSlotBytes = 65536;
  writeLauncher(dir, singleKernelFile("split", split));
  writeLauncher(dir, singleKernelFile("stored", tmaStoreKernel()));
  checkCompiles(*setup, dir,
                {"gemm.cpp", "loads.cpp", "loads_only.cpp", "split.cpp", "stored.cpp"});
  llvm::sys::fs::remove_directories(dir);
}

TEST_CASE("header guards of file stems that differ in case differ", "[launcher][compile]") {
  LauncherInfo lower = singleKernelFile("ops", fillKernel());
  LauncherInfo upper = singleKernelFile("OPS", vectorAddKernel());
  auto guard = [](const LauncherInfo &info) {
    std::string header = generateLauncher(info).header;
    size_t start = header.find("#ifndef ");
    return header.substr(start, header.find('\n', start) - start);
  };
  CHECK(guard(lower) != guard(upper));
  std::optional<CompileSetup> setup = compileSetup();
  if (!setup)
    return;
  std::string dir = makeTempDir();
  writeLauncher(dir, lower);
  writeLauncher(dir, upper);
  writeFile(dir + "/both.cpp", "#include \"ops.h\"\n#include \"OPS.h\"\n"
                               "auto *lowerLaunch = &tlc::ops::launch;\n"
                               "auto *upperLaunch = &tlc::OPS::launch;\n");
  checkCompiles(*setup, dir, {"both.cpp"});
  llvm::sys::fs::remove_directories(dir);
}

TEST_CASE("names that are library macros", "[launcher][compile]") {
  // Parameters and sizes are renamed in the generated code; the caller never spells them.
  LauncherInfo info = singleKernelFile("macro_names", macroNamesKernel());
  for (int i = 0; i < 2; ++i) {
    KernelLaunchInfo variant = macroNamesKernel();
    variant.variantOf = "macro_mm";
    variant.name = "macro_mm__" + std::to_string(i);
    variant.variant = i;
    info.kernels.push_back(variant);
  }
  REQUIRE(errorText(info).empty());
  LauncherFiles files = generateLauncher(info);
  CHECK_THAT(files.header, Catch::Contains("CUdeviceptr tlc_user_errno"));
  CHECK_THAT(files.header, Catch::Contains("/// errno: f32[INT64_MAX, EOF]"));
  CHECK_THAT(files.source, Catch::Contains("tlc::rt::ceilDiv(tlc_user_EOF, 256)"));
  CHECK_THAT(files.source, Catch::Contains("negativeSizeError(\"macros\", \"EOF\", tlc_user_EOF)"));

  // Kernel names, file stems and namespaces are the caller's: refused.
  LauncherInfo eof = singleKernelFile("ops", fillKernel());
  eof.kernels[0].name = "EOF";
  CHECK_THAT(errorText(eof), Catch::Contains("kernel name 'EOF' is a macro of the C or C++ "
                                             "library or the platform; rename it"));
  LauncherInfo stem = singleKernelFile("stdin", fillKernel());
  CHECK_THAT(errorText(stem), Catch::Contains("file stem 'stdin' is a macro"));
  LauncherInfo ns = singleKernelFile("ops", fillKernel());
  ns.cxxNamespace = "app::linux";
  CHECK_THAT(errorText(ns), Catch::Contains("component 'linux' is a macro"));

  std::optional<CompileSetup> setup = compileSetup();
  if (!setup)
    return;
  std::string dir = makeTempDir();
  writeLauncher(dir, info);
  // GNU mode predefines 'linux' and 'unix'; the headers define the others.
  checkCompiles(*setup, dir, {"macro_names.cpp"},
                {"-std=gnu++17", "-include", "cassert", "-include", "cerrno", "-include", "csignal",
                 "-include", "cstdint", "-include", "cstdio", "-include", "cstdlib"});
  llvm::sys::fs::remove_directories(dir);
}

// A stand-in for libcuda: enough of the driver API for lib/Runtime, recording
// what the launchers ask for. Contexts are fake handles with ids.
static const char MockDriver[] = R"cpp(
#include "mock.h"
#include <cstring>

Mock mock;

static int contextIndex(CUcontext ctx) {
  for (int i = 0; i < 3; ++i)
    if (ctx == mock.contexts[i])
      return i;
  return -1;
}

CUresult CUDAAPI cuGetErrorName(CUresult e, const char **s) {
  switch (e) {
  case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; return CUDA_SUCCESS;
  case CUDA_ERROR_NO_BINARY_FOR_GPU: *s = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return CUDA_SUCCESS;
  default: *s = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult CUDAAPI cuGetErrorString(CUresult e, const char **s) {
  if (e == CUDA_ERROR_NO_BINARY_FOR_GPU) {
    *s = "no kernel image is available for execution on the device";
    return CUDA_SUCCESS;
  }
  *s = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuInit(unsigned flags) { ++mock.inits; return flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *ctx) { *ctx = mock.current; return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) { mock.current = ctx; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice d) {
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  ++mock.retains; *ctx = mock.contexts[2]; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice d) {
  if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
  ++mock.releases; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *id) {
  int i = contextIndex(ctx);
  if (i < 0 || mock.ids[i] == 0) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  *id = mock.ids[i]; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx) { mock.saved = mock.current; mock.current = ctx; return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *ctx) { *ctx = mock.current; mock.current = mock.saved; return CUDA_SUCCESS; }
CUresult CUDAAPI cuModuleLoadData(CUmodule *m, const void *image) {
  if (mock.failLoad != CUDA_SUCCESS) return mock.failLoad;
  if (std::memcmp(image, "\x50\xed\x55\xba", 4) != 0) return CUDA_ERROR_INVALID_IMAGE;
  ++mock.loads;
  *m = reinterpret_cast<CUmodule>(static_cast<uintptr_t>(0x1000 + mock.loads));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleUnload(CUmodule) { ++mock.unloads; return CUDA_SUCCESS; }
CUresult CUDAAPI cuModuleGetFunction(CUfunction *f, CUmodule, const char *name) {
  ++mock.lookups;
  for (int i = 0; i < 11; ++i) {
    if (mock.names[i] && std::strcmp(mock.names[i], name) == 0) {
      *f = reinterpret_cast<CUfunction>(static_cast<uintptr_t>(0x100 + i));
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}
CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap *, CUtensorMapDataType, cuuint32_t rank,
                                        void *, const cuuint64_t *dims, const cuuint64_t *strides,
                                        const cuuint32_t *box, const cuuint32_t *,
                                        CUtensorMapInterleave, CUtensorMapSwizzle swizzle,
                                        CUtensorMapL2promotion, CUtensorMapFloatOOBfill fill) {
  ++mock.tensorMap.calls;
  if (rank < 2 || rank > 5) return CUDA_ERROR_INVALID_VALUE;
  mock.tensorMap.rank = rank;
  for (cuuint32_t i = 0; i < rank; ++i) {
    mock.tensorMap.dims[i] = dims[i];
    mock.tensorMap.box[i] = box[i];
    if (i + 1 < rank)
      mock.tensorMap.strides[i] = strides[i];
  }
  mock.tensorMap.stride = strides[0];
  mock.tensorMap.swizzle = swizzle;
  mock.tensorMap.fill = fill;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetDevice(CUdevice *d) {
  int i = contextIndex(mock.current);
  if (i < 0) return CUDA_ERROR_INVALID_CONTEXT;
  *d = mock.devices[i]; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *value, CUdevice_attribute a, CUdevice d) {
  if (a == CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED) {
    *value = mock.poolsSupported[d == 0 ? 0 : 1];
    return CUDA_SUCCESS;
  }
  ++mock.attributeQueries;
  if (mock.failAttribute != CUDA_SUCCESS) return mock.failAttribute;
  if (a != CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) return CUDA_ERROR_INVALID_VALUE;
  *value = d == 0 ? mock.multiprocessors[0] : mock.multiprocessors[1];
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props) {
  ++mock.poolCreates;
  *pool = reinterpret_cast<CUmemoryPool>(static_cast<uintptr_t>(0xD000 + props->location.id));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute, void *) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool, size_t) { ++mock.trims; return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t bytes, CUmemoryPool, CUstream) {
  ++mock.allocs;
  mock.allocBytes = bytes;
  if (mock.failAlloc != CUDA_SUCCESS) return mock.failAlloc;
  *p = mock.workspace;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr p, unsigned value, size_t words, CUstream) {
  ++mock.memsets;
  mock.memsetAt = value == 0 ? p : 0;
  mock.memsetWords = words;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr p, CUstream) {
  if (p == mock.workspace) ++mock.frees;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction f) {
  *name = mock.names[reinterpret_cast<uintptr_t>(f) - 0x100];
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncSetAttribute(CUfunction, CUfunction_attribute a, int v) {
  if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) mock.maxDynamicShared = v;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxActiveClusters(int *count, CUfunction, const CUlaunchConfig *config) {
  ++mock.clusterQueries;
  if (config->numAttrs != 1 || config->attrs[0].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
    return CUDA_ERROR_INVALID_VALUE;
  *count = mock.activeClusters;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                CUstream stream, void **params, void **extra);
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params,
                                  void **extra) {
  if (config->numAttrs != 1 || config->attrs[0].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = cuLaunchKernel(f, config->gridDimX, config->gridDimY, config->gridDimZ,
                              config->blockDimX, config->blockDimY, config->blockDimZ,
                              config->sharedMemBytes, config->hStream, params, extra);
  mock.clusterDim = config->attrs[0].value.clusterDim.x;
  return r;
}
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                CUstream stream, void **params, void **extra) {
  ++mock.launches;
  mock.clusterDim = 0;
  mock.function = mock.names[reinterpret_cast<uintptr_t>(f) - 0x100];
  mock.launched.push_back(mock.function);
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  std::memcpy(mock.grid, grid, sizeof grid);
  std::memcpy(mock.block, block, sizeof block);
  mock.shared = shared;
  mock.stream = stream;
  mock.extra = extra;
  mock.args.clear();
  // The repack kernel's parameters are always ten 8-byte values.
  static const std::vector<size_t> repackSizes(10, 8);
  const std::vector<size_t> &sizes =
      std::strcmp(mock.function, "tlc_repack_b16") == 0 ? repackSizes : mock.argSizes;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<unsigned char> bytes(sizes[i]);
    std::memcpy(bytes.data(), params[i], bytes.size());
    mock.args.push_back(bytes);
  }
  return CUDA_SUCCESS;
}
)cpp";

static const char MockHeader[] = R"cpp(
#pragma once
#include <cuda.h>
#include <cstdint>
#include <vector>
/// The last cuTensorMapEncodeTiled call.
struct TensorMapCall {
  int calls = 0;
  cuuint32_t rank = 0;
  cuuint64_t dims[5] = {};
  cuuint64_t stride = 0, strides[4] = {};
  cuuint32_t box[5] = {};
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapFloatOOBfill fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
};
struct Mock {
  CUcontext contexts[3] = {reinterpret_cast<CUcontext>(0xA000), reinterpret_cast<CUcontext>(0xB000),
                           reinterpret_cast<CUcontext>(0xC000)}; // A, B, primary
  unsigned long long ids[3] = {1, 2, 3}; // 0: destroyed
  CUcontext current = nullptr, saved = nullptr;
  const char *names[11] = {"vector_add", "mixed", "batched", "mm__0", "mm__1",  "gemm__tma",
                           "tlc_repack_b16", "gemm", "pv__1", "ps__0__tma", "ps__1"};
  // Contexts A, B and the primary context are on devices 0, 1 and 0; device 0 has 132
  // multiprocessors, every other device 8.
  CUdevice devices[3] = {0, 1, 0};
  int multiprocessors[2] = {132, 8};
  int attributeQueries = 0;
  CUresult failAttribute = CUDA_SUCCESS;
  int inits = 0, retains = 0, releases = 0, loads = 0, unloads = 0, lookups = 0, launches = 0;
  int maxDynamicShared = -1;
  CUresult failLoad = CUDA_SUCCESS;
  const char *function = nullptr;
  unsigned grid[3] = {}, block[3] = {}, shared = 0;
  CUstream stream = nullptr;
  void **extra = nullptr;
  std::vector<size_t> argSizes;
  std::vector<std::vector<unsigned char>> args;
  TensorMapCall tensorMap;
  // Workspaces: memory pools per device (0 and the others), allocations, frees.
  int poolsSupported[2] = {1, 0};
  int poolCreates = 0, trims = 0, allocs = 0, frees = 0;
  size_t allocBytes = 0;
  CUresult failAlloc = CUDA_SUCCESS;
  CUdeviceptr workspace = 0x7000000;
  // Zeroed words (cuMemsetD32Async): the last call's address and count, the calls.
  CUdeviceptr memsetAt = 0;
  size_t memsetWords = 0;
  int memsets = 0;
  std::vector<const char *> launched;
  // Clusters: the active clusters cuOccupancyMaxActiveClusters reports (0: none), its calls,
  // the last launch's cluster size (0 for cuLaunchKernel).
  int activeClusters = 0, clusterQueries = 0;
  unsigned clusterDim = 0;
};
extern Mock mock;
)cpp";

static const char MockMain[] = R"cpp(
#include "mock.h"
#include "va.h"
#include "ops.h"
#include "mm.h"
#include "pv.h"
#include "ps.h"
#include "tg.h"
#include <cstdio>
#include <cstring>
#include <string>

static_assert(tlc::rt::ceilDiv(5, 2) == 3 && tlc::rt::ceilDiv(4, 2) == 2, "");
static_assert(tlc::rt::ceilDiv(0, 3) == 0 && tlc::rt::ceilDiv(1, 3) == 1, "");
static_assert(tlc::rt::ceilDiv(-5, 2) == -2 && tlc::rt::ceilDiv(-4, 2) == -2, "");
static_assert(tlc::rt::ceilDiv(INT64_MAX, 2) == INT64_MAX / 2 + 1, "");
static_assert(tlc::rt::ceilDiv(INT64_MAX, 1) == INT64_MAX, "");
static_assert(tlc::rt::ceilDiv(7, 0) == 0, "");
// Pairs of block rows: any even count, odd ones from 9 on.
static_assert(tlc::rt::useClusters(2) && tlc::rt::useClusters(8) && tlc::rt::useClusters(9), "");
static_assert(!tlc::rt::useClusters(1) && !tlc::rt::useClusters(3) && !tlc::rt::useClusters(7), "");

static_assert(tlc::rt::gridBlocks(2, 3, 4) == 24 && tlc::rt::gridBlocks(0, 5, 5) == 0, "");
static_assert(tlc::rt::gridBlocks(-1, -1, 1) == 0 && tlc::rt::gridBlocks(5, 1, -2) == 0, "");
static_assert(tlc::rt::gridBlocks(INT64_MAX, 2, 1) == INT64_MAX, "");
static_assert(tlc::rt::gridBlocks(1 << 30, 1 << 30, 1 << 30) == INT64_MAX, "");
constexpr int64_t kBlocks[] = {4, 16, 16, 1};
// None fills 132 multiprocessors: the most blocks (ties: the lower index).
static_assert(tlc::rt::chooseVariant(kBlocks, 4, 132) == 1, "");
// On 10: 16 blocks in 2 waves cost as much as 4 in one (2 / sqrt(16) = 1 / sqrt(4)): the lower
// index.
static_assert(tlc::rt::chooseVariant(kBlocks, 4, 10) == 0, "");
// On 4: 4 blocks in one wave (1/2) beat 16 in four (1).
static_assert(tlc::rt::chooseVariant(kBlocks, 4, 4) == 0, "");
// On 1 every variant runs serially: the fewest, largest blocks (1 against 4 / sqrt(4) = 2).
static_assert(tlc::rt::chooseVariant(kBlocks, 4, 1) == 3, "");
static_assert(tlc::rt::chooseVariant(kBlocks, 1, 132) == 0, "");
// The gemm configurations (128x256, 128x128, 64x128 tiles) on an H200's 132 SMs.
constexpr int64_t kGemm2048[] = {128, 256, 512};
static_assert(tlc::rt::chooseVariant(kGemm2048, 3, 132) == 0, "");
// 72 blocks of 128x128 (1 / sqrt(72)) are 1.34x faster than 40 of 128x256 (1 / sqrt(40)).
constexpr int64_t kGemm1000[] = {40, 72, 144};
static_assert(tlc::rt::chooseVariant(kGemm1000, 3, 132) == 1, "");
// More blocks of smaller tiles lose where they add waves: 576 blocks of 128x128 in 5 waves
// against 288 of 128x256 in 3 (3001 x 3000), 1056 in 8 against 544 in 5 (4096 x 4104); 16
// blocks of 64x128 are 1.41x faster than 8 of 128x128 (256 x 512).
constexpr int64_t kGemm3001[] = {288, 576, 1128};
static_assert(tlc::rt::chooseVariant(kGemm3001, 3, 132) == 0, "");
constexpr int64_t kGemm4104[] = {544, 1056, 2112};
static_assert(tlc::rt::chooseVariant(kGemm4104, 3, 132) == 0, "");
constexpr int64_t kGemm1024x3000[] = {96, 192, 384};
static_assert(tlc::rt::chooseVariant(kGemm1024x3000, 3, 132) == 0, "");
constexpr int64_t kGemm256x512[] = {4, 8, 16};
static_assert(tlc::rt::chooseVariant(kGemm256x512, 3, 132) == 2, "");
constexpr int64_t kGemm4096[] = {512, 1024, 2048};
static_assert(tlc::rt::chooseVariant(kGemm4096, 3, 132) == 0, "");
constexpr int64_t kGemm8192[] = {2048, 4096, 8192};
static_assert(tlc::rt::chooseVariant(kGemm8192, 3, 132) == 0, "");
// The 1.1x margin: 48 blocks against 40 are 1.095x faster by the model, 49 1.107x.
constexpr int64_t kMargin48[] = {40, 48};
static_assert(tlc::rt::chooseVariant(kMargin48, 2, 132) == 0, "");
constexpr int64_t kMargin49[] = {40, 49};
static_assert(tlc::rt::chooseVariant(kMargin49, 2, 132) == 1, "");
// Saturated block counts stay finite; over many waves half the blocks (each twice the work)
// are sqrt(2)x faster.
constexpr int64_t kHuge[] = {INT64_MAX, INT64_MAX / 2};
static_assert(tlc::rt::chooseVariant(kHuge, 2, 132) == 1, "");
constexpr int64_t kEmpty[] = {0, 0};
static_assert(tlc::rt::chooseVariant(kEmpty, 2, 132) == 0, "");

/// The blocks left to chooseVariant() after applyWhen(), and its choice on 132 SMs.
struct WhenChoice {
  int64_t blocks[3];
  int chosen;
};
constexpr WhenChoice whenChoice(bool holds0, bool holds2) {
  // Variant 0 and 2 have `when` conditions, variant 1 none; 1 would win on blocks alone.
  WhenChoice c{{100, 8192, 50}, -1};
  const bool conditional[3] = {true, false, true};
  const bool holds[3] = {holds0, false, holds2};
  tlc::rt::applyWhen(c.blocks, conditional, holds, 3);
  c.chosen = tlc::rt::chooseVariant(c.blocks, 3, 132);
  return c;
}
// A condition holds: only the variants whose condition holds keep their blocks.
static_assert(whenChoice(true, false).blocks[1] == 0 && whenChoice(true, false).chosen == 0, "");
static_assert(whenChoice(false, true).blocks[0] == 0 && whenChoice(false, true).chosen == 2, "");
// Both hold: the usual choice between them (100 blocks beat 50 below 132 SMs).
static_assert(whenChoice(true, true).blocks[1] == 0 && whenChoice(true, true).chosen == 0, "");
// None holds: the unconditional variant, whatever the conditional ones' blocks.
static_assert(whenChoice(false, false).blocks[0] == 0 && whenChoice(false, false).blocks[2] == 0 &&
                  whenChoice(false, false).blocks[1] == 8192 && whenChoice(false, false).chosen == 1,
              "");
constexpr int64_t kSomeEmpty[] = {0, 3};
static_assert(tlc::rt::chooseVariant(kSomeEmpty, 2, 132) == 1, "");

// Split where whole tiles leave more than a tenth of the last wave idle, from 8 tiles on.
static_assert(!tlc::rt::useStreamK(7, 132), "");
static_assert(tlc::rt::useStreamK(8, 132), "");
static_assert(tlc::rt::useStreamK(118, 132), "");
static_assert(!tlc::rt::useStreamK(119, 132), "");
static_assert(!tlc::rt::useStreamK(264, 132), "");
static_assert(tlc::rt::useStreamK(288, 132), "");   // 3001 x 3000 with 128 x 256 tiles
static_assert(!tlc::rt::useStreamK(2048, 132), ""); // 8192^2 with 128 x 256: 0.97 of 16 waves
static_assert(!tlc::rt::useStreamK(100, 0), "");
// The automatic rule (StreamK::Automatic): at most a quarter of the multiprocessors busy, and
// (P - tiles) * iterations >= 64 P.
static_assert(tlc::rt::streamKPays(16, 132, 128), "");  // 256 x 512 x 8192, 64 x 128 tiles
static_assert(tlc::rt::streamKPays(16, 132, 55), "");   // 116 * 55 >= 6336
static_assert(!tlc::rt::streamKPays(16, 132, 54), "");  // 116 * 54 < 6336
static_assert(tlc::rt::streamKPays(66, 132, 96), "");   // half, 66 * 96 >= 6336
static_assert(!tlc::rt::streamKPays(66, 132, 95), "");
static_assert(!tlc::rt::streamKPays(67, 132, 1 << 20), ""); // more than half
static_assert(!tlc::rt::streamKPays(64, 132, 64), "");  // 32 x 4096 x 4096, 64 x 64 tiles
static_assert(tlc::rt::streamKPays(64, 132, 128), "");  // 96 x 4096 x 8192, 64 x 128 tiles
static_assert(!tlc::rt::streamKPays(72, 132, 13), "");  // 1000 x 1112 x 776, 128 x 128 tiles
static_assert(!tlc::rt::streamKPays(16, 132, -1), "");  // iterations unknown
static_assert(!tlc::rt::streamKPays(0, 132, 128), "");
static_assert(!tlc::rt::streamKPays(16, 0, 128), "");
static_assert(tlc::rt::streamKPays(1, 132, 49), "");    // 131 * 49 >= 6336
static_assert(!tlc::rt::streamKPays(1, 132, 48), "");
static_assert(tlc::rt::tripCount(0, 128, 1) == 128, "");
static_assert(tlc::rt::tripCount(0, 129, 64) == 3, "");
static_assert(tlc::rt::tripCount(5, 5, 1) == 0, "");
static_assert(tlc::rt::tripCount(7, 5, 1) == 0, "");
static_assert(tlc::rt::tripCount(0, 5, 0) == -1, "");
static_assert(tlc::rt::streamKFlagBytes(132) == 640, "");
static_assert(tlc::rt::streamKFlagBytes(32) == 128, "");
static_assert(tlc::mm::mm::num_variants == 2, "");

static int failures = 0;
#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::printf("line %d: EXPECT(%s) failed\n", __LINE__, #cond);           \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

template <typename T> static T arg(size_t i) {
  T value{};
  if (i < mock.args.size() && mock.args[i].size() == sizeof(T))
    std::memcpy(&value, mock.args[i].data(), sizeof(T));
  else
    ++failures, std::printf("argument %zu missing or of the wrong size\n", i);
  return value;
}

static bool contains(const tlc::rt::Status &s, const char *text) {
  bool found = s.message().find(text) != std::string::npos;
  if (!found)
    std::printf("message '%s' lacks '%s'\n", s.message().c_str(), text);
  return found;
}

int main() {
  CUstream stream = reinterpret_cast<CUstream>(0x5000);
  const CUdeviceptr X = 0x10000, Y = 0x20000, Z = 0x30000;
  mock.argSizes = std::vector<size_t>(9, 8);

  // Errors and empty grids touch neither the driver nor the cache.
  tlc::rt::Status s = tlc::va::launch(stream, X, Y, Z, -3);
  EXPECT(!s.ok());
  EXPECT(s.code() == CUDA_ERROR_INVALID_VALUE);
  EXPECT(s.message() == "tlc: vector_add: size 'N' is negative (-3)");
  EXPECT(tlc::va::launch(stream, X, Y, Z, 0).ok());
  EXPECT(mock.inits == 0 && mock.loads == 0 && mock.launches == 0);

  // No current context: the primary context is retained once and made current.
  s = tlc::va::launch(stream, X, Y, Z, 1000);
  EXPECT(s.ok());
  EXPECT(mock.retains == 1 && mock.current == mock.contexts[2]);
  EXPECT(mock.loads == 1 && mock.launches == 1);
  EXPECT(std::strcmp(mock.function, "vector_add") == 0);
  EXPECT(mock.grid[0] == 1 && mock.grid[1] == 1 && mock.grid[2] == 1);
  EXPECT(mock.block[0] == 256 && mock.block[1] == 1 && mock.block[2] == 1);
  EXPECT(mock.shared == 0 && mock.stream == stream && mock.extra == nullptr);
  EXPECT(arg<CUdeviceptr>(0) == X && arg<int64_t>(1) == 1000 && arg<int64_t>(2) == 1);
  EXPECT(arg<CUdeviceptr>(3) == Y && arg<int64_t>(4) == 1000 && arg<int64_t>(5) == 1);
  EXPECT(arg<CUdeviceptr>(6) == Z && arg<int64_t>(7) == 1000 && arg<int64_t>(8) == 1);

  // Cached per context and per name.
  EXPECT(tlc::va::vector_add::launch(stream, X, Y, Z, 1025).ok());
  EXPECT(mock.grid[0] == 2 && arg<int64_t>(4) == 1025);
  EXPECT(mock.loads == 1 && mock.lookups == 1 && mock.retains == 1 && mock.inits == 1);
  mock.current = mock.contexts[0];
  EXPECT(tlc::va::launch(stream, X, Y, Z, 1).ok());
  EXPECT(tlc::va::launch(stream, X, Y, Z, 1).ok());
  EXPECT(mock.loads == 2 && mock.lookups == 2 && mock.retains == 1);

  // Scalars, a constant dimension, strides, shared memory above 48 KiB.
  mock.argSizes = {8, 8, 8, 8, 8, 8, 8, 1, 8, 8, 8, 4, 8, 8};
  s = tlc::ops::mixed::launch(stream, X, true, Y, -7, 2.5, 1LL << 40, 3, 100);
  EXPECT(s.ok());
  EXPECT(mock.loads == 3 && std::strcmp(mock.function, "mixed") == 0);
  EXPECT(mock.grid[0] == 2 && mock.grid[1] == 3 && mock.grid[2] == 1);
  EXPECT(mock.block[0] == 64 && mock.block[1] == 2 && mock.block[2] == 1);
  EXPECT(mock.shared == 65536 && mock.maxDynamicShared == 65536);
  EXPECT(arg<CUdeviceptr>(0) == X);
  EXPECT(arg<int64_t>(1) == 3 && arg<int64_t>(2) == 4 && arg<int64_t>(3) == 100);
  EXPECT(arg<int64_t>(4) == 400 && arg<int64_t>(5) == 100 && arg<int64_t>(6) == 1);
  EXPECT(arg<uint8_t>(7) == 1);
  EXPECT(arg<CUdeviceptr>(8) == Y && arg<int64_t>(9) == 100 && arg<int64_t>(10) == 1);
  EXPECT(arg<int32_t>(11) == -7 && arg<double>(12) == 2.5);
  EXPECT(arg<int64_t>(13) == (1LL << 40));
  EXPECT(tlc::ops::mixed::launch(stream, X, false, Y, 0, 0.0, 0, 1, 1).ok());
  EXPECT(arg<uint8_t>(7) == 0);

  // Grid limits.
  mock.argSizes = std::vector<size_t>(9, 8);
  int launches = mock.launches;
  s = tlc::va::launch(stream, X, Y, Z, (int64_t(1) << 31) * 1024);
  EXPECT(!s.ok() && s.code() == CUDA_ERROR_INVALID_VALUE);
  EXPECT(contains(s, "'vector_add': grid.x = 2147483648 exceeds the limit of 2147483647"));
  EXPECT(tlc::va::launch(stream, X, Y, Z, ((int64_t(1) << 31) - 1) * 1024).ok());
  EXPECT(mock.grid[0] == 2147483647u);
  s = tlc::ops::mixed::launch(stream, X, true, Y, 0, 0.0, 0, 65536, 1);
  EXPECT(!s.ok() && contains(s, "grid.y = 65536 exceeds the limit of 65535"));
  EXPECT(mock.launches == launches + 1);
  // A zero grid dimension from a scalar launches nothing; a negative one is an error.
  EXPECT(tlc::ops::batched::launch(stream, X, 0, 1000).ok());
  s = tlc::ops::batched::launch(stream, X, -2, 1000);
  EXPECT(!s.ok() && contains(s, "'batched': grid.z = -2 must be at least 1"));
  EXPECT(mock.launches == launches + 1);
  mock.argSizes = {8, 8, 8, 4};
  EXPECT(tlc::ops::batched::launch(stream, X, 5, 1000).ok());
  EXPECT(mock.grid[0] == 4 && mock.grid[1] == 1 && mock.grid[2] == 5);
  EXPECT(arg<int32_t>(3) == 5 && arg<int64_t>(1) == 1000);
  mock.argSizes = std::vector<size_t>(9, 8);

  // A failed load is reported and not cached.
  mock.current = mock.contexts[1];
  mock.failLoad = CUDA_ERROR_NO_BINARY_FOR_GPU;
  s = tlc::va::launch(stream, X, Y, Z, 10);
  EXPECT(!s.ok() && s.code() == CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT(s.message() == "tlc: cuModuleLoadData failed: CUDA_ERROR_NO_BINARY_FOR_GPU "
                        "(no kernel image is available for execution on the device)");
  mock.failLoad = CUDA_SUCCESS;
  EXPECT(tlc::va::launch(stream, X, Y, Z, 10).ok());
  EXPECT(mock.loads == 4);

  // A kernel missing from the image.
  mock.names[0] = "renamed";
  s = tlc::ops::vector_add::launch(stream, X, Y, Z, 10);
  EXPECT(!s.ok() && contains(s, "cuModuleGetFunction failed") && contains(s, "'vector_add'"));
  mock.names[0] = "vector_add";

  // unload: skips destroyed contexts, releases the retained primary context.
  mock.ids[0] = 0; // A destroyed
  tlc::va::unload();
  EXPECT(mock.unloads == 2 && mock.releases == 1);
  EXPECT(mock.current == mock.contexts[1]);
  tlc::va::unload();
  EXPECT(mock.unloads == 2 && mock.releases == 1);
  EXPECT(tlc::va::launch(stream, X, Y, Z, 10).ok());
  EXPECT(mock.loads == 6); // ops loaded in B above, va again now

  // A context re-created at the same address is a new context.
  mock.ids[0] = 7;
  mock.current = mock.contexts[0];
  mock.argSizes = {8, 8, 8, 8, 8, 8, 8, 1, 8, 8, 8, 4, 8, 8};
  EXPECT(tlc::ops::mixed::launch(stream, X, true, Y, 0, 0.0, 0, 1, 1).ok());
  EXPECT(mock.loads == 7);

  // The variants of mm (128x128 tiles, 64x64 tiles) and the dispatcher: the rule.
  using namespace tlc::mm;
  // Time by the model: ceil(b / 132) / sqrt(b); a later variant must be 1.1x faster.
  EXPECT(mm::select_for(132, 1.0f, 256, 64, 256) == 1);   // 4 or 16 blocks: 1/2 or 1/4
  EXPECT(mm::select_for(132, 1.0f, 1024, 64, 1024) == 0); // 64 or 256: 1/8 = 2/16
  EXPECT(mm::select_for(132, 1.0f, 1536, 64, 1536) == 0); // 144 (2 waves) or 576 (5): 2/12 < 5/24
  EXPECT(mm::select_for(132, 1.0f, 4096, 64, 4096) == 0); // 1024 or 4096: 8/32 < 32/64
  EXPECT(mm::select_for(8, 1.0f, 256, 64, 256) == 0);     // 4 or 16 (2 waves): 1/2 = 2/4
  EXPECT(mm::select_for(4, 1.0f, 256, 64, 256) == 0);     // 1/2 < 4/4
  EXPECT(mm::select_for(132, 1.0f, 64, 64, 64) == 0);     // 1 and 1: the lower index
  EXPECT(mm::select_for(132, 1.0f, 0, 64, 64) == 0);      // no blocks at all

  // TMA tensor maps: the encoding launchers of sm_90a entries use, and its errors.
  {
    alignas(128) CUtensorMap map;
    tlc::rt::Status t = tlc::rt::encodeTensorMap2D(&map, 0x10000, 1000, 776, 776, 1, 2,
                                                   CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 128, 64,
                                                   128, "gemm__0", "A");
    EXPECT(t.ok());
    EXPECT(mock.tensorMap.dims[0] == 776 && mock.tensorMap.dims[1] == 1000);
    EXPECT(mock.tensorMap.stride == 776 * 2);
    EXPECT(mock.tensorMap.box[0] == 64 && mock.tensorMap.box[1] == 128);
    EXPECT(mock.tensorMap.swizzle == CU_TENSOR_MAP_SWIZZLE_128B);
    EXPECT(mock.tensorMap.fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    int before = mock.tensorMap.calls;
    t = tlc::rt::encodeTensorMap2D(&map, 0x10000, 10, 10, 20, 2, 2,
                                   CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 64, 64, 128, "k", "B");
    EXPECT(!t.ok() && contains(t, "tensor 'B' must have unit stride"));
    t = tlc::rt::encodeTensorMap2D(&map, 0x10000, 10, 300, 300, 1, 2,
                                   CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 64, 64, 128, "k", "A");
    EXPECT(!t.ok() && contains(t, "row stride of 300 elements") &&
           contains(t, "multiple of 8 elements"));
    t = tlc::rt::encodeTensorMap2D(&map, 0x10002, 10, 304, 304, 1, 2,
                                   CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 64, 64, 128, "k", "A");
    EXPECT(!t.ok() && contains(t, "16-byte aligned address"));
    EXPECT(mock.tensorMap.calls == before);
    static_assert(tlc::rt::tmaCompatible2D(0x10000, 304, 1, 2), "");
    static_assert(!tlc::rt::tmaCompatible2D(0x10000, 300, 1, 2), "");
    static_assert(!tlc::rt::tmaCompatible2D(0x10008, 304, 1, 2), "");
    static_assert(!tlc::rt::tmaCompatible2D(0x10000, 304, 2, 2), "");
    // Leading dimensions: a positive multiple of 16 bytes, or a size of at most 1.
    static_assert(tlc::rt::tmaLeadingStrideOk(9, 264, 2), "");
    static_assert(!tlc::rt::tmaLeadingStrideOk(9, 260, 2), "");
    static_assert(!tlc::rt::tmaLeadingStrideOk(9, 0, 2) && !tlc::rt::tmaLeadingStrideOk(9, -8, 2),
                  "");
    static_assert(tlc::rt::tmaLeadingStrideOk(1, 3, 2) && tlc::rt::tmaLeadingStrideOk(0, -1, 2), "");
    // Rank 4 (NHWC [2, 9, 11, 24] bf16): the driver's order is innermost first, the box one
    // element deep in the leading dimensions.
    static constexpr int64_t sizes[4] = {2, 9, 11, 24}, strides[4] = {9 * 11 * 24, 11 * 24, 24, 1};
    t = tlc::rt::encodeTensorMap(&map, 0x10000, 4, sizes, strides, 2,
                                 CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 64, 64, 128, "conv2d", "X");
    EXPECT(t.ok() && mock.tensorMap.rank == 4);
    EXPECT(mock.tensorMap.dims[0] == 24 && mock.tensorMap.dims[1] == 11 &&
           mock.tensorMap.dims[2] == 9 && mock.tensorMap.dims[3] == 2);
    EXPECT(mock.tensorMap.strides[0] == 48 && mock.tensorMap.strides[1] == 11 * 48 &&
           mock.tensorMap.strides[2] == 9 * 11 * 48);
    EXPECT(mock.tensorMap.box[0] == 64 && mock.tensorMap.box[1] == 64 &&
           mock.tensorMap.box[2] == 1 && mock.tensorMap.box[3] == 1);
    before = mock.tensorMap.calls;
    // A leading stride that is not a multiple of 16 bytes (images 440 bytes apart), one of 0
    // over several entries, and rank 6: errors, nothing encoded.
    static constexpr int64_t odd[4] = {9 * 24 + 4, 24, 24, 1}, sizes20[4] = {2, 9, 1, 24};
    t = tlc::rt::encodeTensorMap(&map, 0x10000, 4, sizes20, odd, 2,
                                 CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 64, 64, 128, "k", "X");
    EXPECT(!t.ok() && contains(t, "stride of 220 elements in dimension 0"));
    static constexpr int64_t broadcast[4] = {0, 11 * 24, 24, 1};
    t = tlc::rt::encodeTensorMap(&map, 0x10000, 4, sizes, broadcast, 2,
                                 CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 64, 64, 128, "k", "X");
    EXPECT(!t.ok() && contains(t, "positive multiple of 16 bytes"));
    const int64_t six[6] = {1, 1, 1, 1, 8, 8};
    t = tlc::rt::encodeTensorMap(&map, 0x10000, 6, six, six, 2,
                                 CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 8, 8, 0, "k", "X");
    EXPECT(!t.ok() && contains(t, "rank 6"));
    EXPECT(mock.tensorMap.calls == before);
    // A leading dimension of size 1 may have any stride.
    const int64_t one[3] = {1, 8, 8}, oneStrides[3] = {3, 8, 1};
    static_assert(tlc::rt::tmaCompatible(0x10000, 4, sizes, strides, 2), "");
    static_assert(!tlc::rt::tmaCompatible(0x10000, 4, sizes20, odd, 2), "");
    static_assert(!tlc::rt::tmaCompatible(0x10000, 4, sizes, broadcast, 2), "");
    static_assert(!tlc::rt::tmaCompatible(0x10002, 4, sizes, strides, 2), "");
    EXPECT(tlc::rt::tmaCompatible(0x10000, 3, one, oneStrides, 2));
  }

  // Negative sizes and empty problems query nothing and launch nothing.
  mock.current = mock.contexts[0]; // device 0: 132 multiprocessors
  int queries = mock.attributeQueries;
  launches = mock.launches;
  s = tlc::mm::launch(stream, X, Y, Z, 1.0f, -1, 64, 256);
  EXPECT(!s.ok() && s.code() == CUDA_ERROR_INVALID_VALUE);
  EXPECT(s.message() == "tlc: mm: size 'M' is negative (-1)");
  EXPECT(tlc::mm::launch(stream, X, Y, Z, 1.0f, 0, 64, 256).ok());
  EXPECT(mm::select(1.0f, 256, -64, 256) == -1);
  EXPECT(mock.attributeQueries == queries && mock.launches == launches);

  // A small problem runs the 64x64 variant, a large one the 128x128 variant; the device is
  // queried once.
  mock.argSizes = std::vector<size_t>(15, 8);
  mock.argSizes.push_back(4);
  EXPECT(mm::select(1.0f, 256, 64, 256) == 1);
  s = tlc::mm::launch(stream, X, Y, Z, 1.5f, 256, 64, 256);
  EXPECT(s.ok() && mock.launches == launches + 1);
  EXPECT(mock.function && std::strcmp(mock.function, "mm__1") == 0);
  EXPECT(mock.grid[0] == 4 && mock.grid[1] == 4 && mock.grid[2] == 1 && mock.block[0] == 128);
  EXPECT(arg<CUdeviceptr>(0) == X && arg<int64_t>(1) == 256 && arg<int64_t>(2) == 64);
  EXPECT(arg<CUdeviceptr>(10) == Z && arg<float>(15) == 1.5f);
  s = mm::launch(stream, X, Y, Z, 1.0f, 4096, 64, 4096);
  EXPECT(s.ok() && mock.function && std::strcmp(mock.function, "mm__0") == 0);
  EXPECT(mock.grid[0] == 32 && mock.grid[1] == 32 && mock.block[0] == 256);
  EXPECT(mock.attributeQueries == queries + 1);

  // pv__0 is not in the loaded image: never chosen, not even where its condition holds, and
  // an empty grid runs (nothing of) pv__1; select_for assumes every variant is there.
  EXPECT(tlc::pv::pv::select_for(132, 1.0f, 256, 64, 256) == 0);
  EXPECT(tlc::pv::pv::select(1.0f, 256, 64, 256) == 1);
  s = tlc::pv::launch(stream, X, Y, Z, 1.0f, 4096, 64, 4096);
  EXPECT(s.ok() && mock.function && std::strcmp(mock.function, "pv__1") == 0);
  EXPECT(mock.grid[0] == 64 && mock.grid[1] == 64 && mock.block[0] == 128);
  EXPECT(tlc::pv::pv::select(1.0f, 0, 64, 256) == 1);
  launches = mock.launches;
  EXPECT(tlc::pv::launch(stream, X, Y, Z, 1.0f, 0, 64, 256).ok() && mock.launches == launches);
  s = tlc::pv::pv::variant0::launch(stream, X, Y, Z, 1.0f, 256, 64, 256);
  EXPECT(!s.ok() && contains(s, "pv__0"));
  EXPECT(mock.attributeQueries == queries + 1);

  // Per device: 512x512 is 16 or 64 blocks, enough for device 1's 8 multiprocessors.
  mock.current = mock.contexts[1];
  EXPECT(mm::select(1.0f, 512, 64, 512) == 0);
  EXPECT(mm::launch(stream, X, Y, Z, 1.0f, 512, 64, 512).ok());
  EXPECT(std::strcmp(mock.function, "mm__0") == 0 && mock.grid[0] == 4);
  mock.current = mock.contexts[0];
  EXPECT(mm::select(1.0f, 512, 64, 512) == 1);
  EXPECT(mock.attributeQueries == queries + 2);
  // Without a current context: device 0, as the launch would use.
  mock.current = nullptr;
  EXPECT(mm::select(1.0f, 512, 64, 512) == 1);
  EXPECT(mock.attributeQueries == queries + 2);

  // A variant by hand.
  mock.current = mock.contexts[0];
  EXPECT(mm::variant0::launch(stream, X, Y, Z, 1.0f, 256, 64, 256).ok());
  EXPECT(std::strcmp(mock.function, "mm__0") == 0 && mock.grid[0] == 2);

  // A failed query (device ordinals from 64 on are not cached) is the launch's error.
  mock.devices[1] = 70;
  mock.current = mock.contexts[1];
  mock.failAttribute = CUDA_ERROR_INVALID_DEVICE;
  launches = mock.launches;
  s = mm::launch(stream, X, Y, Z, 1.0f, 256, 64, 256);
  EXPECT(!s.ok() && s.code() == CUDA_ERROR_INVALID_DEVICE);
  EXPECT(contains(s, "tlc: cuDeviceGetAttribute failed"));
  EXPECT(mm::select(1.0f, 256, 64, 256) == -1);
  EXPECT(mock.launches == launches);
  mock.failAttribute = CUDA_SUCCESS;
  queries = mock.attributeQueries;
  EXPECT(mm::select(1.0f, 512, 64, 512) == 0 && mm::select(1.0f, 512, 64, 512) == 0);
  EXPECT(mock.attributeQueries == queries + 2);

  // TMA operands (docs/abi.md): a tensor TMA cannot read in place that the kernel only reads is
  // copied by tlc_repack_b16 into a workspace with rows padded to 64 elements.
  mock.current = mock.contexts[0];
  {
    CUfunction repackFunction = reinterpret_cast<CUfunction>(static_cast<uintptr_t>(0x106));
    const tlc::rt::RepackKernel repack = {"tlc_repack_b16", 256, 0, 8, 256};
    CUdeviceptr base = 0x10002;
    int64_t rowStride = 300, colStride = 1;
    tlc::rt::TmaOperand op = {&base, 1000, 300, &rowStride, &colStride, 2, true};
    mock.argSizes = std::vector<size_t>(10, 8);
    launches = mock.launches;
    bool useTma = false;
    {
      tlc::rt::Workspace workspace;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, &op, 1, stream, workspace, &useTma);
      EXPECT(s.ok() && useTma && mock.launches == launches + 1 && mock.allocs == 1);
      EXPECT(mock.allocBytes == 1000 * 320 * 2 && mock.poolCreates == 1);
      EXPECT(std::strcmp(mock.function, "tlc_repack_b16") == 0 && mock.stream == stream);
      EXPECT(mock.grid[0] == 125 && mock.grid[1] == 2 && mock.grid[2] == 1);
      EXPECT(mock.block[0] == 256 && mock.shared == 0);
      EXPECT(arg<CUdeviceptr>(0) == 0x10002 && arg<int64_t>(1) == 1000 && arg<int64_t>(2) == 300);
      EXPECT(arg<int64_t>(3) == 300 && arg<int64_t>(4) == 1);
      EXPECT(arg<CUdeviceptr>(5) == mock.workspace && arg<int64_t>(6) == 1000);
      EXPECT(arg<int64_t>(7) == 300 && arg<int64_t>(8) == 320 && arg<int64_t>(9) == 1);
      EXPECT(base == mock.workspace && rowStride == 320 && colStride == 1);
      EXPECT(mock.frees == 0);
    }
    EXPECT(mock.frees == 1);
    // Aligned operands are read in place; a transposed view (last stride 2) is copied.
    CUdeviceptr aligned = 0x20000, view = 0x30000;
    int64_t strides[4] = {304, 1, 1, 2};
    tlc::rt::TmaOperand ops[3] = {{&aligned, 10, 300, &strides[0], &strides[1], 2, true},
                                  {&view, 300, 10, &strides[2], &strides[3], 2, true},
                                  {&view, 300, 10, &strides[2], &strides[3], 2, true}};
    {
      tlc::rt::Workspace workspace;
      launches = mock.launches;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, ops, 3, stream, workspace, &useTma);
      // The tensor under two maps is copied once.
      EXPECT(s.ok() && useTma && mock.launches == launches + 1 && mock.allocBytes == 300 * 64 * 2);
      EXPECT(arg<int64_t>(3) == 1 && arg<int64_t>(4) == 2 && arg<int64_t>(8) == 64);
      EXPECT(aligned == 0x20000 && strides[0] == 304 && view == mock.workspace);
      EXPECT(strides[2] == 64 && strides[3] == 1);
    }
    // Rows 16-byte but not 32-byte aligned (1000 elements: 2000 bytes) are read in place, or
    // with realign (large grids) copied into rows of 1024 elements; where no copy can be made
    // (a tensor the kernel writes, no memory, no repack kernel) they are read in place.
    {
      CUdeviceptr odd = 0x50000;
      int64_t oddStrides[2] = {1000, 1};
      tlc::rt::TmaOperand rows = {&odd,    40,      1000, &oddStrides[0], &oddStrides[1], 2,
                                  true,    nullptr, nullptr, 0,             /*mnMajor=*/true};
      tlc::rt::Workspace workspace;
      launches = mock.launches;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, &rows, 1, stream, workspace, &useTma);
      EXPECT(s.ok() && useTma && mock.launches == launches && odd == 0x50000);
      // A K-major operand (mnMajor false) is read in place even with realign.
      rows.mnMajor = false;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, &rows, 1, stream, workspace, &useTma,
                                      true);
      EXPECT(s.ok() && useTma && mock.launches == launches && odd == 0x50000);
      rows.mnMajor = true;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, &rows, 1, stream, workspace, &useTma,
                                      /*realign=*/true);
      EXPECT(s.ok() && useTma && mock.launches == launches + 1 && mock.allocBytes == 40 * 1024 * 2);
      EXPECT(arg<int64_t>(3) == 1000 && arg<int64_t>(8) == 1024);
      EXPECT(odd == mock.workspace && oddStrides[0] == 1024 && oddStrides[1] == 1);
      // 32-byte aligned rows (1008 elements) stay in place.
      CUdeviceptr even = 0x60000;
      int64_t evenStrides[2] = {1008, 1};
      tlc::rt::TmaOperand wide = {&even, 40,      1000,    &evenStrides[0], &evenStrides[1],
                                  2,     true,    nullptr, nullptr,         0,
                                  true};
      launches = mock.launches;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, &wide, 1, stream, workspace, &useTma,
                                      true);
      EXPECT(s.ok() && useTma && mock.launches == launches && even == 0x60000);
      odd = 0x50000;
      oddStrides[0] = 1000;
      rows.readOnly = false;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, &rows, 1, stream, workspace, &useTma,
                                      true);
      EXPECT(s.ok() && useTma && mock.launches == launches && odd == 0x50000);
      rows.readOnly = true;
      s = tlc::rt::prepareTmaOperands(nullptr, repack, &rows, 1, stream, workspace, &useTma, true);
      EXPECT(s.ok() && useTma && mock.launches == launches && odd == 0x50000);
      tlc::rt::Workspace none;
      mock.failAlloc = CUDA_ERROR_OUT_OF_MEMORY;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, &rows, 1, stream, none, &useTma,
                                      true);
      EXPECT(s.ok() && useTma && mock.launches == launches && odd == 0x50000 &&
             oddStrides[0] == 1000);
      mock.failAlloc = CUDA_SUCCESS;
    }
    // A rank-4 tensor is read in place where TMA can, else never copied: the caller falls back.
    {
      CUdeviceptr x = 0x40000;
      int64_t xStrides[2] = {24, 1};
      const int64_t outerSizes[2] = {2, 9}, outerStrides[2] = {9 * 11 * 24, 11 * 24};
      tlc::rt::TmaOperand x4 = {&x, 11, 24, &xStrides[0], &xStrides[1], 2, true,
                                outerSizes, outerStrides, 2};
      tlc::rt::Workspace workspace;
      launches = mock.launches;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, &x4, 1, stream, workspace, &useTma);
      EXPECT(s.ok() && useTma && mock.launches == launches && x == 0x40000);
      x = 0x40002;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, &x4, 1, stream, workspace, &useTma);
      EXPECT(s.ok() && !useTma && mock.launches == launches && x == 0x40002);
      x = 0x40000;
      const int64_t oddOuter[2] = {9 * 11 * 24, 11 * 24 + 4};
      x4.outerStrides = oddOuter;
      s = tlc::rt::prepareTmaOperands(repackFunction, repack, &x4, 1, stream, workspace, &useTma);
      EXPECT(s.ok() && !useTma && mock.launches == launches);
    }
    // A tensor the kernel writes is never copied; nor without memory: the caller falls back.
    base = 0x10002;
    rowStride = 300;
    int allocs = mock.allocs;
    launches = mock.launches;
    op.readOnly = false;
    tlc::rt::Workspace workspace;
    s = tlc::rt::prepareTmaOperands(repackFunction, repack, &op, 1, stream, workspace, &useTma);
    EXPECT(s.ok() && !useTma && mock.allocs == allocs && base == 0x10002 && rowStride == 300);
    op.readOnly = true;
    mock.failAlloc = CUDA_ERROR_OUT_OF_MEMORY;
    s = tlc::rt::prepareTmaOperands(repackFunction, repack, &op, 1, stream, workspace, &useTma);
    EXPECT(s.ok() && !useTma && mock.allocs == allocs + 1 && base == 0x10002);
    mock.failAlloc = CUDA_ERROR_INVALID_VALUE;
    s = tlc::rt::prepareTmaOperands(repackFunction, repack, &op, 1, stream, workspace, &useTma);
    EXPECT(!s.ok() && contains(s, "cuMemAllocFromPoolAsync") && !useTma);
    mock.failAlloc = CUDA_SUCCESS;
    // Device 1 has no memory pools.
    mock.current = mock.contexts[1];
    s = tlc::rt::prepareTmaOperands(repackFunction, repack, &op, 1, stream, workspace, &useTma);
    EXPECT(s.ok() && !useTma && mock.launches == launches);
    mock.current = mock.contexts[0];
    // Stream-K: flags (4 bytes per multiprocessor, rounded up to 128) and one slot each, the
    // flags zeroed. Automatic by default, only where few tiles meet a long K (streamKPays);
    // never when switched off or without memory; switched on, wherever whole tiles leave the
    // last wave short.
    {
      tlc::rt::Workspace split;
      CUdeviceptr at = 1;
      allocs = mock.allocs;
      EXPECT(tlc::rt::streamKMode() == tlc::rt::StreamK::Automatic);
      tlc::rt::setStreamK(tlc::rt::StreamK::Off);
      EXPECT(tlc::rt::streamKMode() == tlc::rt::StreamK::Off);
      s = tlc::rt::prepareStreamK(16, 132, 128, 65536, stream, split, &at);
      EXPECT(s.ok() && at == 0 && mock.allocs == allocs);
      tlc::rt::setStreamK(tlc::rt::StreamK::Automatic);
      EXPECT(tlc::rt::streamKMode() == tlc::rt::StreamK::Automatic);
      s = tlc::rt::prepareStreamK(288, 132, 16, 65536, stream, split, &at);
      EXPECT(s.ok() && at == 0 && mock.allocs == allocs);
      s = tlc::rt::prepareStreamK(16, 132, -1, 65536, stream, split, &at);
      EXPECT(s.ok() && at == 0 && mock.allocs == allocs);
      s = tlc::rt::prepareStreamK(16, 132, 128, 65536, stream, split, &at);
      EXPECT(s.ok() && at == mock.workspace && mock.allocs == allocs + 1 &&
             mock.allocBytes == 640 + 132 * 65536 && mock.memsetAt == mock.workspace &&
             mock.memsetWords == 160);
      tlc::rt::setStreamK(true);
      EXPECT(tlc::rt::streamKMode() == tlc::rt::StreamK::On);
      s = tlc::rt::prepareStreamK(288, 132, 16, 65536, stream, split, &at);
      EXPECT(s.ok() && at == mock.workspace && mock.allocs == allocs + 2 &&
             mock.allocBytes == 640 + 132 * 65536 && mock.memsetAt == mock.workspace &&
             mock.memsetWords == 160);
      int memsets = mock.memsets;
      s = tlc::rt::prepareStreamK(264, 132, 16, 65536, stream, split, &at);
      EXPECT(s.ok() && at == 0 && mock.allocs == allocs + 2 && mock.memsets == memsets);
      tlc::rt::setStreamK(false);
      EXPECT(tlc::rt::streamKMode() == tlc::rt::StreamK::Off);
      s = tlc::rt::prepareStreamK(288, 132, 16, 65536, stream, split, &at);
      EXPECT(s.ok() && at == 0 && mock.allocs == allocs + 2);
      s = tlc::rt::prepareStreamK(16, 132, 128, 65536, stream, split, &at);
      EXPECT(s.ok() && at == 0 && mock.allocs == allocs + 2);
      tlc::rt::setStreamK(true);
      mock.failAlloc = CUDA_ERROR_OUT_OF_MEMORY;
      s = tlc::rt::prepareStreamK(288, 132, 16, 65536, stream, split, &at);
      EXPECT(s.ok() && at == 0 && mock.memsets == memsets);
      mock.failAlloc = CUDA_SUCCESS;
      tlc::rt::setStreamK(false);
    }
    tlc::rt::trimWorkspaceMemory();
    EXPECT(mock.trims == 1);
  }

  // The generated launcher of a kernel with a `__tma` entry: aligned tensors go to it directly;
  // A with rows of 775 elements is copied first, and the entry reads the copy.
  {
    const CUdeviceptr A = 0x100000, B = 0x200000, C = 0x300000;
    mock.argSizes = std::vector<size_t>(15, 8);
    mock.argSizes.push_back(128);
    mock.argSizes.push_back(128);
    mock.launched.clear();
    int allocs = mock.allocs, frees = mock.frees;
    // The entry's blocks may run in pairs: 8 block rows, 3 clusters fit the device at once.
    mock.activeClusters = 3;
    s = tlc::tg::launch(stream, A, B, C, 1000, 776, 256);
    EXPECT(s.ok() && mock.launched.size() == 1 && std::strcmp(mock.function, "gemm__tma") == 0);
    EXPECT(mock.clusterDim == 2 && mock.grid[0] == 6 && mock.block[0] == 384);
    EXPECT(mock.clusterQueries == 1 && arg<CUdeviceptr>(0) == A && arg<int64_t>(3) == 776);
    // Asked once per function; one block row makes no pairs; clusters can be turned off.
    s = tlc::tg::launch(stream, A, B, C, 1000, 776, 256);
    EXPECT(s.ok() && mock.clusterDim == 2 && mock.clusterQueries == 1);
    s = tlc::tg::launch(stream, A, B, C, 100, 776, 256);
    EXPECT(s.ok() && mock.clusterDim == 0 && mock.grid[0] == 2);
    tlc::rt::setClusters(false);
    EXPECT(!tlc::rt::clustersEnabled());
    mock.launched.clear();
    s = tlc::tg::launch(stream, A, B, C, 1000, 776, 256);
    EXPECT(s.ok() && mock.launched.size() == 1 && std::strcmp(mock.function, "gemm__tma") == 0);
    EXPECT(mock.allocs == allocs && arg<CUdeviceptr>(0) == A && arg<int64_t>(3) == 776);
    EXPECT(mock.block[0] == 384 && mock.grid[0] == 16 && mock.shared == 200000);
    EXPECT(mock.clusterDim == 0);
    mock.launched.clear();
    s = tlc::tg::launch(stream, A, B, C, 1000, 775, 256);
    EXPECT(s.ok() && mock.launched.size() == 2 && mock.allocs == allocs + 1);
    EXPECT(std::strcmp(mock.launched[0], "tlc_repack_b16") == 0);
    EXPECT(std::strcmp(mock.launched[1], "gemm__tma") == 0);
    EXPECT(arg<CUdeviceptr>(0) == mock.workspace && arg<int64_t>(1) == 1000);
    EXPECT(arg<int64_t>(2) == 775 && arg<int64_t>(3) == 832 && arg<int64_t>(4) == 1);
    EXPECT(arg<CUdeviceptr>(5) == B && arg<int64_t>(8) == 256 && arg<CUdeviceptr>(10) == C);
    EXPECT(mock.tensorMap.stride == 256 * 2 && mock.frees == frees + 1);
    // Without memory for the copy: the plain entry, on the tensors as given.
    mock.failAlloc = CUDA_ERROR_OUT_OF_MEMORY;
    mock.argSizes.resize(15);
    mock.launched.clear();
    s = tlc::tg::launch(stream, A, B, C, 1000, 775, 256);
    EXPECT(s.ok() && mock.launched.size() == 1 && std::strcmp(mock.function, "gemm") == 0);
    EXPECT(arg<CUdeviceptr>(0) == A && arg<int64_t>(3) == 775 && mock.block[0] == 128);
    mock.failAlloc = CUDA_SUCCESS;
    tlc::rt::setClusters(true);
  }

  // A configuration whose plain entry the image lacks: TMA where it can, else the launch of the
  // configuration that serves it (docs/abi.md), with that one's grid and block.
  {
    const CUdeviceptr A = 0x100000, B = 0x200000, C = 0x300000;
    mock.argSizes = std::vector<size_t>(15, 8);
    mock.argSizes.push_back(128);
    mock.argSizes.push_back(128);
    mock.launched.clear();
    s = tlc::ps::ps::variant0::launch(stream, A, B, C, 1000, 776, 256);
    EXPECT(s.ok() && mock.launched.size() == 1 && std::strcmp(mock.function, "ps__0__tma") == 0);
    mock.failAlloc = CUDA_ERROR_OUT_OF_MEMORY;
    mock.argSizes.resize(15);
    mock.launched.clear();
    s = tlc::ps::ps::variant0::launch(stream, A, B, C, 1000, 775, 256);
    EXPECT(s.ok() && mock.launched.size() == 1 && std::strcmp(mock.function, "ps__1") == 0);
    EXPECT(mock.block[0] == 64 && mock.grid[0] == 4 && mock.grid[1] == 16);
    EXPECT(arg<CUdeviceptr>(0) == A && arg<int64_t>(3) == 775 && arg<CUdeviceptr>(10) == C);
    mock.failAlloc = CUDA_SUCCESS;
  }

  std::printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
)cpp";

TEST_CASE("generated launchers pass arguments as docs/abi.md says", "[launcher][compile]") {
  std::optional<CompileSetup> setup = compileSetup();
  if (!setup)
    return;
  std::string runtimeSource = setup->tlcInclude + "/../lib/Runtime/Runtime.cpp";
  if (!llvm::sys::fs::exists(runtimeSource)) {
    WARN("no " << runtimeSource << "; the mock-driver run is skipped");
    return;
  }
  std::string dir = makeTempDir();
  writeLauncher(dir, singleKernelFile("va", vectorAddKernel()));
  LauncherInfo ops = singleKernelFile("ops", mixedKernel());
  ops.kernels.push_back(vectorAddKernel());
  ops.kernels.push_back(batchedKernel());
  writeLauncher(dir, ops);
  writeLauncher(dir, mmFile("mm"));
  writeLauncher(dir, pvFile());
  KernelLaunchInfo tma = tmaKernel();
  for (TensorMapInfo &map : tma.tma.maps)
    map.readOnly = true;
  tma.tma.cluster = 2;
  writeLauncher(dir, singleKernelFile("tg", tma));
  writeLauncher(dir, psFile());
  writeFile(dir + "/mock.h", MockHeader);
  writeFile(dir + "/mock.cpp", MockDriver);
  writeFile(dir + "/main.cpp", MockMain);

  std::vector<std::string> args = compileCommand(*setup, dir);
  for (const char *file : {"/va.cpp", "/ops.cpp", "/mm.cpp", "/pv.cpp", "/tg.cpp", "/ps.cpp",
                           "/mock.cpp", "/main.cpp"})
    args.push_back(dir + file);
  args.push_back(runtimeSource);
  args.push_back("-pthread");
  args.push_back("-o");
  args.push_back(dir + "/mock-run");
  std::string output;
  int rc = runProgram(args, dir, output);
  INFO("compiler output (files kept in " << dir << "):\n" << output);
  REQUIRE(rc == 0);
  CHECK(output.empty());

  rc = runProgram({dir + "/mock-run"}, dir, output);
  INFO("program output (kept in " << dir << " on failure):\n" << output);
  CHECK(rc == 0);
  CHECK_THAT(output, Catch::Contains("PASS: 0 failure(s)"));
  if (rc == 0)
    llvm::sys::fs::remove_directories(dir);
}

//===----------------------------------------------------------------------===//
// The C interface
//===----------------------------------------------------------------------===//

TEST_CASE("C interface declarations", "[launcher]") {
  LauncherInfo info = singleKernelFile("va", vectorAddKernel());
  LauncherFiles files = generateLauncher(info);
  CHECK(countOf(files.header, "CUresult tlc_va_vector_add_launch(CUstream stream, CUdeviceptr X, "
                              "CUdeviceptr Y, CUdeviceptr Z, int64_t N);\n") == 1);
  CHECK(countOf(files.header, "void tlc_va_unload(void);\n") == 1);
  CHECK(countOf(files.source, "return tlc::va::vector_add::launch(stream, X, Y, Z, N).code();") ==
        1);
  info.cxxNamespace = "myapp::kernels";
  CHECK(countOf(generateLauncher(info).header, "CUresult myapp_kernels_vector_add_launch(") == 1);
}

// A C program that launches through the C interface, against the mock driver (probe.cpp reads
// what the mock recorded).
static const char CMain[] = R"c(
#include "va.h"
#include "ops.h"
#include "mm.h"
#include <stdio.h>
#include <string.h>

int mock_launches(void);
const char *mock_function(void);

int main(void) {
  CUstream stream = (CUstream)0x5000;
  int failures = 0;
  if (tlc_va_vector_add_launch(stream, 0x10000, 0x20000, 0x30000, -3) !=
      CUDA_ERROR_INVALID_VALUE)
    ++failures, puts("a negative size is not CUDA_ERROR_INVALID_VALUE");
  if (tlc_va_vector_add_launch(stream, 0x10000, 0x20000, 0x30000, 1000) != CUDA_SUCCESS ||
      mock_launches() != 1 || strcmp(mock_function(), "vector_add") != 0)
    ++failures, puts("vector_add did not launch");
  if (tlc_ops_mixed_launch(stream, 0x10000, true, 0x20000, -7, 2.5, 1LL << 40, 3, 100) !=
          CUDA_SUCCESS || strcmp(mock_function(), "mixed") != 0)
    ++failures, puts("mixed did not launch");
  if (tlc_mm_mm_launch(stream, 0x10000, 0x20000, 0x30000, 1.0f, 256, 64, 256) != CUDA_SUCCESS ||
      strncmp(mock_function(), "mm__", 4) != 0)
    ++failures, puts("mm did not launch");
  tlc_va_unload();
  tlc_ops_unload();
  tlc_mm_unload();
  printf("PASS: %d failure(s)\n", failures);
  return failures != 0;
}
)c";

static const char CProbe[] = R"cpp(
#include "mock.h"
extern "C" int mock_launches(void) { return mock.launches; }
extern "C" const char *mock_function(void) { return mock.function; }
)cpp";

TEST_CASE("a C program links and launches through the C interface", "[launcher][compile]") {
  std::optional<CompileSetup> setup = compileSetup();
  if (!setup)
    return;
#if defined(TLC_C_COMPILER)
  std::string cc = TLC_C_COMPILER;
#else
  std::string cc;
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("cc"))
    cc = *path;
#endif
  std::string runtimeSource = setup->tlcInclude + "/../lib/Runtime/Runtime.cpp";
  if (cc.empty() || !llvm::sys::fs::exists(runtimeSource)) {
    WARN("no C compiler or no " << runtimeSource << "; the C interface is not checked");
    return;
  }
  std::string dir = makeTempDir();
  writeLauncher(dir, singleKernelFile("va", vectorAddKernel()));
  writeLauncher(dir, singleKernelFile("ops", mixedKernel()));
  writeLauncher(dir, mmFile("mm"));
  writeFile(dir + "/mock.h", MockHeader);
  writeFile(dir + "/mock.cpp", MockDriver);
  writeFile(dir + "/probe.cpp", CProbe);
  writeFile(dir + "/main.c", CMain);

  std::string output;
  int rc = runProgram({cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                       "-I" + setup->cudaInclude, "-c", dir + "/main.c", "-o", dir + "/main.o"},
                      dir, output);
  INFO("C compiler output (files kept in " << dir << "):\n" << output);
  REQUIRE(rc == 0);
  CHECK(output.empty());

  std::vector<std::string> args = compileCommand(*setup, dir);
  for (const char *file : {"/va.cpp", "/ops.cpp", "/mm.cpp", "/mock.cpp", "/probe.cpp"})
    args.push_back(dir + file);
  args.push_back(runtimeSource);
  args.push_back(dir + "/main.o");
  args.push_back("-pthread");
  args.push_back("-o");
  args.push_back(dir + "/c-run");
  rc = runProgram(args, dir, output);
  INFO("C++ compiler output:\n" << output);
  REQUIRE(rc == 0);

  rc = runProgram({dir + "/c-run"}, dir, output);
  INFO("program output:\n" << output);
  CHECK(rc == 0);
  CHECK_THAT(output, Catch::Contains("PASS: 0 failure(s)"));
  if (rc == 0)
    llvm::sys::fs::remove_directories(dir);
}
