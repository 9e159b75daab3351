//===- LauncherGen.cpp - C++ launcher generation for tlc kernels ----------===//
//
// Writes the launcher header and source described in docs/abi.md. The text
// depends only on the LauncherInfo (no pointers, hashes or time), so output is
// byte-identical for identical input.
//
//===----------------------------------------------------------------------===//

#include "tlc/Target/CUDA/LauncherGen.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace tlc::cuda {

using Kind = LaunchParam::Kind;

StringRef scalarCxxType(StringRef dtype) {
  return StringSwitch<StringRef>(dtype)
      .Case("f32", "float")
      .Case("f64", "double")
      .Case("i32", "int32_t")
      .Case("i64", "int64_t")
      .Case("bool", "bool")
      .Default("");
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

/// C++17 keywords and alternative tokens (and C++20's, for good measure).
static bool isCxxKeyword(StringRef name) {
  static constexpr StringLiteral Keywords =
      " alignas alignof and and_eq asm auto bitand bitor bool break case catch"
      " char char8_t char16_t char32_t class compl concept const consteval"
      " constexpr constinit const_cast continue co_await co_return co_yield"
      " decltype default delete do double dynamic_cast else enum explicit"
      " export extern false float for friend goto if inline int long mutable"
      " namespace new noexcept not not_eq nullptr operator or or_eq private"
      " protected public register reinterpret_cast requires return short"
      " signed sizeof static static_assert static_cast struct switch template"
      " this thread_local throw true try typedef typeid typename union"
      " unsigned using virtual void volatile wchar_t while xor xor_eq ";
  return !name.empty() &&
         StringRef(Keywords).contains((" " + name + " ").str());
}

/// Names the generated code relies on, which user names must not shadow.
static bool isReservedName(StringRef name) {
  static const char *const Reserved[] = {
      "std",      "tlc",        "stream",   "launch",    "unload",
      "int32_t",  "int64_t",    "uint8_t",  "size_t",    "CUdeviceptr",
      "CUstream", "CUfunction", "CUresult", "CUcontext", "CUmodule",
      "NULL",     "assert",     "offsetof"};
  if (llvm::is_contained(Reserved, name) || isCxxKeyword(name))
    return true;
  // The generated code's own names, the implementation's and cuda.h's macros.
  if (name.starts_with("tlc_") || name.starts_with("__") ||
      name.starts_with("CU_") || name.starts_with("CUDA"))
    return true;
  if (name.size() >= 2 && name[0] == '_' && isUpper(name[1]))
    return true;
  if (name.size() >= 3 && name.starts_with("cu") && isUpper(name[2]))
    return true;
  return false;
}

static bool isIdentifier(StringRef name) {
  if (name.empty() || !(isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) { return isAlnum(c) || c == '_'; });
}

/// A non-negative decimal integer without leading zeros (which C++ would read
/// as octal) that fits in int64_t.
static bool isDecimalConstant(StringRef dim) {
  if (dim.empty() || dim.size() > 18 || !llvm::all_of(dim, isDigit))
    return false;
  return dim == "0" || dim[0] != '0';
}

static Error fail(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// Checks that \p name can be used as a C++ name in the generated code.
static Error checkName(StringRef name, const Twine &what);

Error checkLauncherName(StringRef name, const Twine &what) {
  return checkName(name, what);
}

static Error checkName(StringRef name, const Twine &what) {
  if (!isIdentifier(name))
    return fail(what + " '" + name + "' is not a valid C++ identifier");
  if (isReservedName(name))
    return fail(what + " '" + name +
                "' is reserved in generated launchers; rename it");
  return Error::success();
}

static Error verifyKernel(const KernelLaunchInfo &kernel) {
  std::string where = "kernel '" + kernel.name + "'";
  if (Error e = checkName(kernel.name, "kernel name"))
    return e;

  StringSet<> names;
  std::vector<std::string> expectedSymbols;
  StringSet<> seenSymbols;
  for (const LaunchParam &param : kernel.params) {
    if (Error e = checkName(param.name, where + ": parameter"))
      return e;
    if (!names.insert(param.name).second)
      return fail(where + ": duplicate parameter '" + param.name + "'");
    if (param.dtype.empty())
      return fail(where + ": parameter '" + param.name +
                  "' has no element type");
    if (param.kind == Kind::Scalar) {
      if (scalarCxxType(param.dtype).empty())
        return fail(where + ": scalar parameter '" + param.name +
                    "' has type '" + param.dtype +
                    "'; launchers support f32, f64, i32, i64 and bool scalars");
      if (!param.dims.empty())
        return fail(where + ": scalar parameter '" + param.name +
                    "' has dimensions");
      continue;
    }
    for (const std::string &dim : param.dims) {
      if (isDecimalConstant(dim))
        continue;
      if (!isIdentifier(dim))
        return fail(where + ": dimension '" + dim + "' of tensor '" +
                    param.name +
                    "' is neither a size name nor a decimal constant");
      if (seenSymbols.insert(dim).second)
        expectedSymbols.push_back(dim);
    }
    if (!param.strides.empty() && param.strides.size() != param.dims.size())
      return fail(where + ": tensor '" + param.name + "' has " + Twine(param.dims.size()) +
                  " dimensions but " + Twine(param.strides.size()) + " strides");
    for (const std::string &stride : param.strides) {
      if (isDecimalConstant(stride))
        continue;
      if (!isIdentifier(stride))
        return fail(where + ": stride '" + stride + "' of tensor '" + param.name +
                    "' is neither a name nor a decimal constant");
      if (seenSymbols.insert(stride).second)
        expectedSymbols.push_back(stride);
    }
  }
  for (const std::string &symbol : kernel.sizeSymbols) {
    if (Error e = checkName(symbol, where + ": size"))
      return e;
    if (names.contains(symbol))
      return fail(where + ": size '" + symbol +
                  "' has the name of a parameter");
  }
  if (kernel.sizeSymbols != expectedSymbols)
    return fail(where + ": size symbols [" + join(kernel.sizeSymbols, ", ") +
                "] do not match the distinct tensor dimensions in order of "
                "first appearance [" +
                join(expectedSymbols, ", ") + "]");

  uint64_t threads = 1;
  for (unsigned t : kernel.threads) {
    if (t == 0)
      return fail(where + ": block dimension 0");
    threads *= t;
  }
  if (threads > 1024)
    return fail(where + ": a block of " + Twine(threads) +
                " threads exceeds the limit of 1024");
  for (const std::string &expr : kernel.grid) {
    // The expressions come from the compiler; keep them from breaking out of
    // the initializer they are pasted into.
    if (StringRef(expr).find_first_of(";{}\"'#\\\n\r") != StringRef::npos ||
        StringRef(expr).contains("//") || StringRef(expr).contains("/*"))
      return fail(where + ": grid expression '" + expr +
                  "' is not a single C++ expression");
  }
  return Error::success();
}

/// Checks a user-given launcher namespace such as "myapp::kernels".
static Error verifyNamespace(StringRef ns) {
  SmallVector<StringRef, 4> parts;
  ns.split(parts, "::");
  std::string what = ("namespace '" + ns + "': component").str();
  for (auto [i, part] : llvm::enumerate(parts)) {
    // tlc::<name> is fine; a nested 'tlc' would hide ::tlc from the
    // generated code's tlc::rt references.
    if (i == 0 && part == "tlc")
      continue;
    if (Error e = checkName(part, what))
      return e;
  }
  if (parts.front() == "tlc" && (parts.size() == 1 || parts[1] == "rt"))
    return fail("namespace '" + ns +
                "' is reserved for tlc itself; use e.g. tlc::<name> or a "
                "namespace of your own");
  return Error::success();
}

Error verifyLauncherInfo(const LauncherInfo &info) {
  if (Error e = checkName(info.fileStem, "file stem"))
    return e;
  if (info.cxxNamespace.empty() && info.fileStem == "rt")
    return fail("file stem 'rt' would put the launchers into the run-time "
                "library's namespace tlc::rt; rename the file");
  if (!info.cxxNamespace.empty())
    if (Error e = verifyNamespace(info.cxxNamespace))
      return e;
  if (info.headerName.empty() ||
      StringRef(info.headerName).find_first_of("\"\\\n\r<>") != StringRef::npos)
    return fail("header name '" + info.headerName +
                "' cannot be used in an #include");
  StringSet<> kernels;
  for (const KernelLaunchInfo &kernel : info.kernels) {
    if (!kernels.insert(kernel.name).second)
      return fail("duplicate kernel '" + kernel.name + "'");
    if (Error e = verifyKernel(kernel))
      return e;
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Generation
//===----------------------------------------------------------------------===//

static StringRef gridExpr(const std::string &expr) {
  StringRef trimmed = StringRef(expr).trim();
  return trimmed.empty() ? StringRef("1") : trimmed;
}

/// "f32[M, N]" for a tensor, "f32" for a scalar.
static std::string shapeText(const LaunchParam &param) {
  if (param.kind == Kind::Scalar)
    return param.dtype;
  std::string text = param.dtype + "[" + join(param.dims, ", ") + "]";
  if (!param.strides.empty())
    text += " strides [" + join(param.strides, ", ") + "]";
  return text;
}

/// The parameter list of launch(), without the parentheses.
static std::string signatureParams(const KernelLaunchInfo &kernel) {
  std::string text = "CUstream stream";
  for (const LaunchParam &param : kernel.params) {
    text += ", ";
    text += param.kind == Kind::Tensor ? StringRef("CUdeviceptr")
                                       : scalarCxxType(param.dtype);
    text += " " + param.name;
  }
  for (const std::string &symbol : kernel.sizeSymbols)
    text += ", int64_t " + symbol;
  return text;
}

/// The argument list that forwards launch()'s parameters.
static std::string forwardedArgs(const KernelLaunchInfo &kernel) {
  std::string text = "stream";
  for (const LaunchParam &param : kernel.params)
    text += ", " + param.name;
  for (const std::string &symbol : kernel.sizeSymbols)
    text += ", " + symbol;
  return text;
}

static void emitKernelDoc(raw_ostream &os, const KernelLaunchInfo &kernel) {
  os << "/// Launches kernel '" << kernel.name << "' on \\p stream: grid ("
     << gridExpr(kernel.grid[0]) << ", " << gridExpr(kernel.grid[1]) << ", "
     << gridExpr(kernel.grid[2]) << ") of (" << kernel.threads[0] << ", "
     << kernel.threads[1] << ", " << kernel.threads[2] << ") threads";
  if (kernel.sharedBytes)
    os << ", " << kernel.sharedBytes << " bytes of dynamic shared memory";
  os << ".\n";
  for (const LaunchParam &param : kernel.params) {
    os << "/// " << param.name << ": " << shapeText(param);
    if (param.kind == Kind::Tensor)
      os << (param.strides.empty() ? " (dense, row-major)\n" : " (strides in elements)\n");
    else
      os << " (scalar, passed as " << scalarCxxType(param.dtype) << ")\n";
  }
  os << "/// Sizes are element counts >= 0. Returns an error Status on a "
        "negative size,\n"
        "/// a grid beyond the device limits or a CUDA error; launches "
        "nothing and returns\n"
        "/// success when a grid dimension is 0.\n";
}

/// The namespace the launchers live in.
static std::string launcherNamespace(const LauncherInfo &info) {
  return info.cxxNamespace.empty() ? "tlc::" + info.fileStem
                                   : info.cxxNamespace;
}

static std::string headerGuard(const LauncherInfo &info) {
  std::string guard = "TLC_GENERATED_";
  if (!info.cxxNamespace.empty()) {
    // Headers of equally named files in different namespaces can meet in
    // one translation unit.
    for (char c : info.cxxNamespace)
      guard += c == ':' ? '_' : toUpper(c);
    guard += "_";
  }
  return guard + StringRef(info.fileStem).upper() + "_H";
}

static std::string generateHeader(const LauncherInfo &info) {
  std::string text;
  raw_string_ostream os(text);
  std::string guard = headerGuard(info);
  std::string ns = launcherNamespace(info);
  os << "// " << info.headerName << " - launchers for the tlc kernels of '"
     << info.fileStem << "'; generated by tlc, do not edit.\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <cuda.h>\n#include <cstdint>\n\n"
     << "#include \"tlc/Runtime/Runtime.h\"\n\n"
     << "namespace " << ns << " {\n";
  for (const KernelLaunchInfo &kernel : info.kernels) {
    os << "\nnamespace " << kernel.name << " {\n";
    emitKernelDoc(os, kernel);
    os << "tlc::rt::Status launch(" << signatureParams(kernel) << ");\n"
       << "} // namespace " << kernel.name << "\n";
  }
  if (info.kernels.size() == 1) {
    const KernelLaunchInfo &kernel = info.kernels.front();
    os << "\n/// Launches '" << kernel.name
       << "', the only kernel of this file; see " << kernel.name
       << "::launch.\n"
       << "tlc::rt::Status launch(" << signatureParams(kernel) << ");\n";
  }
  os << "\n/// Unloads the modules the launchers of this file loaded so far, "
        "from every\n"
        "/// context still alive. Do not call it while a launch is in "
        "flight on another thread.\n"
     << "void unload();\n\n"
     << "} // namespace " << ns << "\n\n"
     << "#endif // " << guard << "\n";
  return text;
}

/// Emits the fatbin as a byte array, 16 bytes a line.
static void emitFatbin(raw_ostream &os, StringRef fatbin) {
  os << "/// The fatbin image (" << fatbin.size() << " bytes).\n"
     << "alignas(8) static const unsigned char tlc_fatbin[] = {";
  if (fatbin.empty()) {
    // A zero-length array is ill-formed; the cache is told the size is 0.
    os << "0};\nstatic const size_t tlc_fatbinSize = 0;\n";
    return;
  }
  for (size_t i = 0, e = fatbin.size(); i != e; ++i) {
    os << (i % 16 == 0 ? "\n   " : "") << " 0x"
       << hexdigit(static_cast<unsigned char>(fatbin[i]) >> 4, true)
       << hexdigit(static_cast<unsigned char>(fatbin[i]) & 15, true) << ",";
  }
  os << "\n};\nstatic const size_t tlc_fatbinSize = sizeof(tlc_fatbin);\n";
}

/// True when `symbol` names a stride (strides may be negative; sizes may not).
static bool isStrideSymbol(const KernelLaunchInfo &kernel, StringRef symbol) {
  return llvm::any_of(kernel.params, [&](const LaunchParam &param) {
    return llvm::is_contained(param.strides, symbol) && !llvm::is_contained(param.dims, symbol);
  });
}

static void emitLaunchBody(raw_ostream &os, const KernelLaunchInfo &kernel) {
  for (const std::string &symbol : kernel.sizeSymbols)
    if (!isStrideSymbol(kernel, symbol))
      os << "  if (" << symbol << " < 0)\n"
       << "    return tlc::rt::negativeSizeError(\"" << kernel.name << "\", \""
       << symbol << "\", " << symbol << ");\n";

  os << "  int64_t tlc_grid[3] = {";
  for (int i = 0; i < 3; ++i)
    os << (i ? ", " : "") << "static_cast<int64_t>(" << gridExpr(kernel.grid[i])
       << ")";
  os << "};\n"
     << "  if (tlc_grid[0] == 0 || tlc_grid[1] == 0 || tlc_grid[2] == 0)\n"
     << "    return tlc::rt::Status::success();\n"
     << "  CUfunction tlc_function = nullptr;\n"
     << "  tlc::rt::Status tlc_status =\n"
     << "      tlc_moduleCache().getFunction(\"" << kernel.name
     << "\", &tlc_function);\n"
     << "  if (!tlc_status.ok())\n"
     << "    return tlc_status;\n";

  // The device parameters, in the order of docs/abi.md.
  unsigned numArgs = 0;
  os << "  // Device parameters (docs/abi.md).\n";
  for (const LaunchParam &param : kernel.params) {
    if (param.kind == Kind::Scalar) {
      if (param.dtype == "bool")
        os << "  uint8_t tlc_arg" << numArgs++ << " = " << param.name
           << " ? 1 : 0; // " << param.name << "\n";
      else
        os << "  " << scalarCxxType(param.dtype) << " tlc_arg" << numArgs++
           << " = " << param.name << "; // " << param.name << "\n";
      continue;
    }
    os << "  CUdeviceptr tlc_arg" << numArgs++ << " = " << param.name << "; // "
       << param.name << "\n";
    size_t rank = param.dims.size();
    unsigned firstSize = numArgs;
    for (size_t d = 0; d != rank; ++d)
      os << "  int64_t tlc_arg" << numArgs++ << " = " << param.dims[d]
         << "; // size " << d << " of " << param.name << "\n";
    if (!param.strides.empty()) {
      for (size_t d = 0; d != rank; ++d)
        os << "  int64_t tlc_arg" << numArgs++ << " = " << param.strides[d] << "; // stride " << d
           << " of " << param.name << "\n";
      continue;
    }
    // Dense row-major: stride[d] = size[d + 1] * ... * size[rank - 1].
    for (size_t d = 0; d != rank; ++d) {
      os << "  int64_t tlc_arg" << numArgs++ << " = ";
      if (d + 1 == rank)
        os << "1";
      for (size_t k = d + 1; k != rank; ++k)
        os << (k == d + 1 ? "" : " * ") << "tlc_arg" << firstSize + k;
      os << "; // stride " << d << " of " << param.name << "\n";
    }
  }
  if (numArgs == 0) {
    os << "  void **tlc_args = nullptr;\n";
  } else {
    os << "  void *tlc_args[] = {";
    for (unsigned i = 0; i != numArgs; ++i)
      os << (i ? ", " : "") << "&tlc_arg" << i;
    os << "};\n";
  }
  os << "  const unsigned tlc_block[3] = {" << kernel.threads[0] << ", "
     << kernel.threads[1] << ", " << kernel.threads[2] << "};\n"
     << "  return tlc::rt::launch(tlc_function, tlc_grid, tlc_block, "
     << kernel.sharedBytes << ", stream, tlc_args);\n";
}

static std::string generateSource(const LauncherInfo &info) {
  std::string text;
  raw_string_ostream os(text);
  StringRef stem = info.fileStem;
  os << "// " << stem << " launchers: the embedded fatbin and launch() for "
     << "each kernel; generated by tlc, do not edit.\n"
     << "#include \"" << info.headerName << "\"\n\n"
     << "#include <cuda.h>\n#include <cstddef>\n#include <cstdint>\n\n"
     << "static_assert(sizeof(CUdeviceptr) == 8, \"tlc launchers need a "
        "64-bit CUdeviceptr\");\n\n"
     << "namespace " << launcherNamespace(info) << " {\n\n";
  emitFatbin(os, info.fatbin);
  os << "\n/// The modules loaded from tlc_fatbin, one per context.\n"
     << "static tlc::rt::ModuleCache &tlc_moduleCache() {\n"
     << "  static tlc::rt::ModuleCache cache(tlc_fatbin, tlc_fatbinSize);\n"
     << "  return cache;\n"
     << "}\n";
  for (const KernelLaunchInfo &kernel : info.kernels) {
    os << "\nnamespace " << kernel.name << " {\n"
       << "tlc::rt::Status launch(" << signatureParams(kernel) << ") {\n";
    emitLaunchBody(os, kernel);
    os << "}\n} // namespace " << kernel.name << "\n";
  }
  if (info.kernels.size() == 1) {
    const KernelLaunchInfo &kernel = info.kernels.front();
    os << "\ntlc::rt::Status launch(" << signatureParams(kernel) << ") {\n"
       << "  return " << kernel.name << "::launch(" << forwardedArgs(kernel)
       << ");\n}\n";
  }
  os << "\nvoid unload() { tlc_moduleCache().unload(); }\n\n"
     << "} // namespace " << launcherNamespace(info) << "\n";
  return text;
}

LauncherFiles generateLauncher(const LauncherInfo &info) {
  LauncherFiles files;
  files.header = generateHeader(info);
  files.source = generateSource(info);
  return files;
}

} // namespace tlc::cuda
