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
  return !name.empty() && StringRef(Keywords).contains((" " + name + " ").str());
}

/// Macros of the C and C++ standard libraries, and those GCC and Clang predefine in GNU mode
/// (linux, unix, i386): a user's translation unit may define any of them before it includes a
/// launcher header, so such a name cannot appear there as itself.
static bool isLibraryMacro(StringRef name) {
  static constexpr StringLiteral Macros =
      " assert errno EDOM ERANGE EILSEQ EOF BUFSIZ FILENAME_MAX FOPEN_MAX L_tmpnam SEEK_CUR"
      " SEEK_END SEEK_SET TMP_MAX stdin stdout stderr NULL offsetof EXIT_SUCCESS EXIT_FAILURE"
      " RAND_MAX MB_CUR_MAX MB_LEN_MAX CHAR_BIT SCHAR_MIN SCHAR_MAX UCHAR_MAX CHAR_MIN CHAR_MAX"
      " SHRT_MIN SHRT_MAX USHRT_MAX INT_MIN INT_MAX UINT_MAX LONG_MIN LONG_MAX ULONG_MAX"
      " LLONG_MIN LLONG_MAX ULLONG_MAX SIZE_MAX PTRDIFF_MIN PTRDIFF_MAX SIG_ATOMIC_MIN"
      " SIG_ATOMIC_MAX WCHAR_MIN WCHAR_MAX WINT_MIN WINT_MAX WEOF INTPTR_MIN INTPTR_MAX"
      " UINTPTR_MAX INTMAX_MIN INTMAX_MAX UINTMAX_MAX INTMAX_C UINTMAX_C CLOCKS_PER_SEC TIME_UTC"
      " LC_ALL LC_COLLATE LC_CTYPE LC_MONETARY LC_NUMERIC LC_TIME SIGABRT SIGFPE SIGILL SIGINT"
      " SIGSEGV SIGTERM SIG_DFL SIG_ERR SIG_IGN setjmp va_arg va_copy va_end va_start HUGE_VAL"
      " HUGE_VALF HUGE_VALL INFINITY NAN FP_INFINITE FP_NAN FP_NORMAL FP_SUBNORMAL FP_ZERO"
      " FP_FAST_FMA FP_FAST_FMAF FP_FAST_FMAL FP_ILOGB0 FP_ILOGBNAN MATH_ERRNO MATH_ERREXCEPT"
      " math_errhandling DECIMAL_DIG linux unix i386 ";
  if (name.empty() || StringRef(Macros).contains((" " + name + " ").str()))
    return !name.empty();
  // <cfloat>'s FLT_*, DBL_*, LDBL_*; <cstdint>'s [U]INT{8,16,32,64}_{MIN,MAX,C} and their
  // _LEAST and _FAST forms.
  if (name.starts_with("FLT_") || name.starts_with("DBL_") || name.starts_with("LDBL_"))
    return true;
  // POSIX reserves E followed by a digit or an uppercase letter for <errno.h>'s codes (EPERM,
  // EAGAIN, E2BIG) and SIG followed by an uppercase letter or _ for <signal.h>'s (SIGKILL): any
  // such all-caps name may be a macro on some platform.
  auto allCaps = [](StringRef s) {
    return llvm::all_of(s, [](char c) { return llvm::isUpper(c) || llvm::isDigit(c) || c == '_'; });
  };
  if (name.size() > 1 && name[0] == 'E' && (llvm::isUpper(name[1]) || llvm::isDigit(name[1])) &&
      allCaps(name))
    return true;
  if (name.size() > 3 && name.starts_with("SIG") && (llvm::isUpper(name[3]) || name[3] == '_') &&
      allCaps(name))
    return true;
  StringRef rest = name;
  rest.consume_front("U");
  if (!rest.consume_front("INT"))
    return false;
  if (!rest.consume_front("_LEAST"))
    rest.consume_front("_FAST");
  for (StringRef bits : {"8", "16", "32", "64"})
    if (rest.consume_front(bits))
      return rest == "_MIN" || rest == "_MAX" || rest == "_C";
  return false;
}

/// The spelling of a parameter or size name in the generated code: the name, or
/// tlc_user_<name> when it is a library macro (see isLibraryMacro) or a keyword of C (the C
/// interface's declarations) or of GNU C++ that C++ lacks. Users cannot name anything tlc_...,
/// and the generated code's own names never start with tlc_user_.
static std::string cxxName(StringRef name) {
  bool keyword = name == "restrict" || name == "typeof" || name == "typeof_unqual";
  return keyword || isLibraryMacro(name) ? ("tlc_user_" + name).str() : name.str();
}

/// \p expr with every unqualified identifier renamed by cxxName.
static std::string renameIdentifiers(StringRef expr) {
  std::string text;
  for (size_t i = 0; i < expr.size();) {
    if (!isAlnum(expr[i]) && expr[i] != '_') {
      text += expr[i++];
      continue;
    }
    size_t end = i;
    while (end < expr.size() && (isAlnum(expr[end]) || expr[end] == '_'))
      ++end;
    StringRef token = expr.slice(i, end);
    bool qualified = i >= 2 && expr.substr(i - 2, 2) == "::";
    text += isDigit(token.front()) || qualified ? token.str() : cxxName(token);
    i = end;
  }
  return text;
}

/// Names the generated code relies on, which user names must not shadow.
static bool isReservedName(StringRef name) {
  static const char *const Reserved[] = {"std",      "tlc",         "stream",   "launch",
                                         "unload",   "int32_t",     "int64_t",  "uint8_t",
                                         "size_t",   "CUdeviceptr", "CUstream", "CUfunction",
                                         "CUresult", "CUcontext",   "CUmodule"};
  if (llvm::is_contained(Reserved, name) || isCxxKeyword(name))
    return true;
  // The generated code's own names, the implementation's and cuda.h's macros.
  if (name.starts_with("tlc_") || name.starts_with("__") || name.starts_with("CU_") ||
      name.starts_with("CUDA"))
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

/// Checks that \p name can be used as a C++ name in the generated code. A name the caller
/// spells (\p spelledByCaller: a kernel, file stem or namespace) must not be a library macro;
/// parameters and sizes that are get renamed (cxxName).
static Error checkName(StringRef name, const Twine &what, bool spelledByCaller = true);

std::string repackKernelSource() {
  // A fragment tile per block: each thread loads its elements (vectors where the source allows)
  // before it stores any, so its loads are in flight together. i16 copies the bits of bf16 and
  // f16 alike.
  std::string text;
  raw_string_ostream os(text);
  os << "kernel " << kRepackEntry
     << "(S: tensor<i16>[R, C] strides [SR, SC], D: tensor<i16>[R, C] strides [LD, 1])\n"
     << "  grid(cdiv(R, " << kRepackTileRows << "), cdiv(C, " << kRepackTileCols << ")) threads("
     << kRepackThreads << ")\n"
     << "{\n"
     << "  let t = fragment<i16>[" << kRepackTileRows << ", " << kRepackTileCols << "];\n"
     << "  copy(S[block.x * " << kRepackTileRows << ", block.y * " << kRepackTileCols << "], t);\n"
     << "  copy(t, D[block.x * " << kRepackTileRows << ", block.y * " << kRepackTileCols << "]);\n"
     << "}\n";
  return text;
}

Error checkLauncherName(StringRef name, const Twine &what, bool spelledByCaller) {
  return checkName(name, what, spelledByCaller);
}

static Error checkName(StringRef name, const Twine &what, bool spelledByCaller) {
  if (!isIdentifier(name))
    return fail(what + " '" + name + "' is not a valid C++ identifier");
  if (isReservedName(name))
    return fail(what + " '" + name + "' is reserved in generated launchers; rename it");
  if (spelledByCaller && isLibraryMacro(name))
    return fail(what + " '" + name +
                "' is a macro of the C or C++ library or the platform; rename it");
  return Error::success();
}

static Error verifyKernel(const KernelLaunchInfo &kernel) {
  std::string where = "kernel '" + kernel.name + "'";
  if (!kernel.plain && !kernel.loads.present)
    return fail(where + ": no entry to launch (neither the plain entry nor '" + kernel.name +
                "__loads')");
  if (kernel.variantOf.empty()) {
    if (Error e = checkName(kernel.name, "kernel name"))
      return e;
    if (kernel.variant != -1)
      return fail(where + ": variant " + Twine(kernel.variant) + " of no kernel");
  } else {
    // The variant's own name is only an entry name (a string in the launcher); the kernel it
    // is a variant of names the C++ namespace.
    if (Error e = checkName(kernel.variantOf, "kernel name"))
      return e;
    if (!isIdentifier(kernel.name))
      return fail(where + ": the entry name of a variant of '" + kernel.variantOf +
                  "' is not an identifier");
    if (kernel.variant < 0)
      return fail(where + ": variant of '" + kernel.variantOf + "' without an index");
    if (StringRef(kernel.config).find_first_of("\n\r") != StringRef::npos)
      return fail(where + ": the configuration text spans lines");
  }

  StringSet<> names;
  std::vector<std::string> expectedSymbols;
  StringSet<> seenSymbols;
  for (const LaunchParam &param : kernel.params) {
    if (Error e = checkName(param.name, where + ": parameter", /*spelledByCaller=*/false))
      return e;
    if (!names.insert(param.name).second)
      return fail(where + ": duplicate parameter '" + param.name + "'");
    if (param.dtype.empty())
      return fail(where + ": parameter '" + param.name + "' has no element type");
    if (param.kind == Kind::Scalar) {
      if (scalarCxxType(param.dtype).empty())
        return fail(where + ": scalar parameter '" + param.name + "' has type '" + param.dtype +
                    "'; launchers support f32, f64, i32, i64 and bool scalars");
      if (!param.dims.empty())
        return fail(where + ": scalar parameter '" + param.name + "' has dimensions");
      continue;
    }
    for (const std::string &dim : param.dims) {
      if (isDecimalConstant(dim))
        continue;
      if (!isIdentifier(dim))
        return fail(where + ": dimension '" + dim + "' of tensor '" + param.name +
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
    if (Error e = checkName(symbol, where + ": size", /*spelledByCaller=*/false))
      return e;
    if (names.contains(symbol))
      return fail(where + ": size '" + symbol + "' has the name of a parameter");
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
    return fail(where + ": a block of " + Twine(threads) + " threads exceeds the limit of 1024");
  for (const std::string &expr : kernel.grid) {
    // The expressions come from the compiler; keep them from breaking out of
    // the initializer they are pasted into.
    if (StringRef(expr).find_first_of(";{}\"'#\\\n\r") != StringRef::npos ||
        StringRef(expr).contains("//") || StringRef(expr).contains("/*"))
      return fail(where + ": grid expression '" + expr + "' is not a single C++ expression");
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
    return fail("header name '" + info.headerName + "' cannot be used in an #include");
  StringSet<> kernels, plain;
  for (const KernelLaunchInfo &kernel : info.kernels) {
    if (!kernels.insert(kernel.name).second)
      return fail("duplicate kernel '" + kernel.name + "'");
    if (Error e = verifyKernel(kernel))
      return e;
    if (kernel.variantOf.empty())
      plain.insert(kernel.name);
  }
  // Variants: numbered 0, 1, ... in order, one signature per kernel.
  StringMap<const KernelLaunchInfo *> firstVariant;
  StringMap<int> variantCount;
  for (const KernelLaunchInfo &kernel : info.kernels) {
    if (kernel.variantOf.empty())
      continue;
    std::string where = "kernel '" + kernel.name + "'";
    if (plain.contains(kernel.variantOf))
      return fail(where + ": '" + kernel.variantOf +
                  "' names both a kernel and the kernel it is a variant of");
    int &count = variantCount[kernel.variantOf];
    if (kernel.variant != count)
      return fail(where + ": variant " + Twine(kernel.variant) + " of '" + kernel.variantOf +
                  "' where variant " + Twine(count) +
                  " was expected; variants are numbered 0, 1, ... in order");
    ++count;
    const KernelLaunchInfo *&first = firstVariant[kernel.variantOf];
    if (!first) {
      first = &kernel;
      continue;
    }
    auto same = [](const LaunchParam &a, const LaunchParam &b) {
      return a.kind == b.kind && a.name == b.name && a.dtype == b.dtype && a.dims == b.dims &&
             a.strides == b.strides;
    };
    bool sameParams = kernel.params.size() == first->params.size();
    for (size_t i = 0; sameParams && i != kernel.params.size(); ++i)
      sameParams = same(kernel.params[i], first->params[i]);
    if (!sameParams || kernel.sizeSymbols != first->sizeSymbols)
      return fail(where + ": its parameters differ from those of '" + first->name +
                  "'; the variants of '" + kernel.variantOf + "' share one launcher");
  }
  // A plain entry's server: another variant of the same kernel, which serves its own launches.
  for (const KernelLaunchInfo &kernel : info.kernels) {
    if (kernel.plainServer < 0)
      continue;
    std::string where = "kernel '" + kernel.name + "'";
    if (kernel.variantOf.empty() || kernel.plainServer == kernel.variant ||
        kernel.plainServer >= variantCount.lookup(kernel.variantOf))
      return fail(where + ": plain entry served by variant " + Twine(kernel.plainServer) +
                  ", which is not another variant of its kernel");
    for (const KernelLaunchInfo &server : info.kernels)
      if (server.variantOf == kernel.variantOf && server.variant == kernel.plainServer &&
          server.plainServer >= 0)
        return fail(where + ": plain entry served by variant " + Twine(kernel.plainServer) +
                    ", whose own plain entry is served by another");
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Generation
//===----------------------------------------------------------------------===//

static std::string gridExpr(const std::string &expr) {
  StringRef trimmed = StringRef(expr).trim();
  return trimmed.empty() ? "1" : renameIdentifiers(trimmed);
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
    text += param.kind == Kind::Tensor ? StringRef("CUdeviceptr") : scalarCxxType(param.dtype);
    text += " " + cxxName(param.name);
  }
  for (const std::string &symbol : kernel.sizeSymbols)
    text += ", int64_t " + cxxName(symbol);
  return text;
}

/// The argument list that forwards launch()'s parameters.
static std::string forwardedArgs(const KernelLaunchInfo &kernel) {
  std::string text = "stream";
  for (const LaunchParam &param : kernel.params)
    text += ", " + cxxName(param.name);
  for (const std::string &symbol : kernel.sizeSymbols)
    text += ", " + cxxName(symbol);
  return text;
}

/// "grid (x, y, z) of (a, b, c) threads[, n bytes of dynamic shared memory]".
static void emitLaunchShape(raw_ostream &os, const KernelLaunchInfo &kernel) {
  os << "grid (" << gridExpr(kernel.grid[0]) << ", " << gridExpr(kernel.grid[1]) << ", "
     << gridExpr(kernel.grid[2]) << ")";
  if (!kernel.plain) {
    // Only the sm_90a entries: persistent blocks walk that grid's tiles.
    const LoadsEntryInfo &entry = kernel.loads;
    os << " of tiles, walked by one block of " << entry.threads << " threads per multiprocessor, "
       << entry.sharedBytes << " bytes of dynamic shared memory";
    return;
  }
  os << " of (" << kernel.threads[0] << ", " << kernel.threads[1] << ", " << kernel.threads[2]
     << ") threads";
  if (kernel.sharedBytes)
    os << ", " << kernel.sharedBytes << " bytes of dynamic shared memory";
}

static void emitParamDocs(raw_ostream &os, const KernelLaunchInfo &kernel) {
  for (const LaunchParam &param : kernel.params) {
    os << "/// " << param.name << ": " << shapeText(param);
    if (param.kind == Kind::Tensor)
      os << (param.strides.empty() ? " (dense, row-major)\n" : " (strides in elements)\n");
    else
      os << " (scalar, passed as " << scalarCxxType(param.dtype) << ")\n";
  }
}

/// The parameters of select(): the scalars in declaration order, then the sizes.
static std::string selectParams(const KernelLaunchInfo &kernel) {
  std::string text;
  for (const LaunchParam &param : kernel.params)
    if (param.kind == Kind::Scalar)
      text +=
          (text.empty() ? "" : ", ") + scalarCxxType(param.dtype).str() + " " + cxxName(param.name);
  for (const std::string &symbol : kernel.sizeSymbols)
    text += (text.empty() ? "" : ", ") + std::string("int64_t ") + cxxName(symbol);
  return text;
}

/// The names in selectParams(), comma-separated.
static std::string selectArgs(const KernelLaunchInfo &kernel) {
  std::vector<std::string> names;
  for (const LaunchParam &param : kernel.params)
    if (param.kind == Kind::Scalar)
      names.push_back(cxxName(param.name));
  for (const std::string &symbol : kernel.sizeSymbols)
    names.push_back(cxxName(symbol));
  return join(names, ", ");
}

/// A kernel of the launcher API: a plain kernel, or the variants of one (in order).
struct LauncherEntry {
  std::string name;
  std::vector<const KernelLaunchInfo *> kernels;
  bool isGroup() const { return !kernels.front()->variantOf.empty(); }
};

/// The launcher API's kernels, in order of first appearance.
static std::vector<LauncherEntry> launcherEntries(const LauncherInfo &info) {
  std::vector<LauncherEntry> entries;
  StringMap<size_t> groups;
  for (const KernelLaunchInfo &kernel : info.kernels) {
    if (kernel.variantOf.empty()) {
      entries.push_back({kernel.name, {&kernel}});
      continue;
    }
    auto [it, inserted] = groups.try_emplace(kernel.variantOf, entries.size());
    if (inserted)
      entries.push_back({kernel.variantOf, {}});
    entries[it->second].kernels.push_back(&kernel);
  }
  return entries;
}

static void emitKernelDoc(raw_ostream &os, const KernelLaunchInfo &kernel) {
  os << "/// Launches kernel '" << kernel.name << "' on \\p stream: ";
  emitLaunchShape(os, kernel);
  os << ".\n";
  emitParamDocs(os, kernel);
  os << "/// Sizes are element counts >= 0. Returns an error Status on a "
        "negative size,\n"
        "/// a grid beyond the device limits or a CUDA error; launches "
        "nothing and returns\n"
        "/// success when a grid dimension is 0.\n";
}

/// The namespace the launchers live in.
static std::string launcherNamespace(const LauncherInfo &info) {
  return info.cxxNamespace.empty() ? "tlc::" + info.fileStem : info.cxxNamespace;
}

/// The names keep their case: the headers of stems (or namespaces) that differ only in case,
/// e.g. ops.h and OPS.h, can meet in one translation unit.
static std::string headerGuard(const LauncherInfo &info) {
  std::string guard = "TLC_GENERATED_";
  if (!info.cxxNamespace.empty()) {
    // Headers of equally named files in different namespaces can meet in
    // one translation unit.
    for (char c : info.cxxNamespace)
      guard += c == ':' ? '_' : c;
    guard += "_";
  }
  return guard + info.fileStem + "_H";
}

/// Whether some variant of `entry` has a `when` condition (select() then applies them).
static bool hasWhen(const LauncherEntry &entry) {
  return llvm::any_of(entry.kernels, [](const KernelLaunchInfo *k) { return !k->when.empty(); });
}

/// Whether some architecture's image leaves out a variant of `entry` (launch() and select()
/// then look up which variants the loaded image has).
static bool hasAbsentVariants(const LauncherEntry &entry) {
  return llvm::any_of(entry.kernels, [](const KernelLaunchInfo *k) { return !k->everyImage; });
}

/// The declarations of a kernel with variants: the dispatcher, select, select_for,
/// num_variants and one variant<i>::launch each.
static void emitGroupDecls(raw_ostream &os, const LauncherEntry &entry) {
  const KernelLaunchInfo &first = *entry.kernels.front();
  size_t count = entry.kernels.size();
  os << "/// Launches kernel '" << entry.name << "' on \\p stream in one of its " << count
     << " compiled configurations\n/// (";
  for (size_t i = 0; i != count; ++i)
    os << (i == 0 ? "" : i + 1 == count ? " and " : ", ") << "variant" << i;
  os << " below): the one select() picks from the grid sizes and the\n"
     << "/// device's multiprocessor count.\n";
  emitParamDocs(os, first);
  os << "/// Sizes are element counts >= 0. Returns an error Status on a negative size, a\n"
        "/// failed device query, a grid beyond the device limits or a CUDA error; launches\n"
        "/// nothing and returns success when the chosen variant's grid has a dimension 0.\n"
     << "tlc::rt::Status launch(" << signatureParams(first) << ");\n\n"
     << "/// The number of compiled configurations of '" << entry.name << "'.\n"
     << "constexpr int num_variants = " << count << ";\n\n"
     << "/// The variant launch() runs for these sizes on a device with \\p tlc_multiprocessors\n"
        "/// multiprocessors: the one whose b blocks take the least time by the wave model of\n"
        "/// tlc::rt::chooseVariant (ceil(b / P) / sqrt(b)), a later variant only where it is\n"
        "/// more than 1.1x faster. Makes no driver calls.\n";
  if (hasWhen(entry))
    os << "/// Only among the variants whose `when` condition holds, where one holds; among\n"
          "/// those without a condition otherwise (tlc::rt::applyWhen).\n";
  if (hasAbsentVariants(entry)) {
    os << "/// Some architectures' images leave out variants (that do not fit their shared\n"
          "/// memory, or that name other architectures with `on`):\n"
          "/// select_for() assumes every variant is there; launch() and select() choose among\n"
          "/// those in the image the driver loaded (";
    bool firstAbsent = true;
    for (const KernelLaunchInfo *kernel : entry.kernels)
      if (!kernel->everyImage) {
        os << (firstAbsent ? "" : ", ") << "variant" << kernel->variant;
        firstAbsent = false;
      }
    os << " not in every image).\n";
  }
  os << "int select_for(int tlc_multiprocessors" << (selectParams(first).empty() ? "" : ", ")
     << selectParams(first) << ");\n\n"
     << "/// The variant launch() runs for these sizes on the current context's device (device 0\n"
        "/// when the calling thread has no current context), or -1 when a size is negative or\n"
        "/// the device cannot be queried.\n"
     << "int select(" << selectParams(first) << ");\n";
  for (const KernelLaunchInfo *kernel : entry.kernels) {
    os << "\nnamespace variant" << kernel->variant << " {\n"
       << "/// Configuration " << kernel->variant << " of '" << entry.name << "'";
    if (!kernel->config.empty())
      os << " (" << kernel->config << ")";
    if (!kernel->when.empty())
      os << ", preferred when " << renameIdentifiers(kernel->when);
    os << ": kernel '" << kernel->name << "',\n/// ";
    emitLaunchShape(os, *kernel);
    os << ".\n/// Parameters, sizes and errors as for " << entry.name
       << "::launch, with no choice made.\n"
       << "tlc::rt::Status launch(" << signatureParams(*kernel) << ");\n"
       << "} // namespace variant" << kernel->variant << "\n";
  }
}

/// The prefix of the C interface's functions: the namespace with '_' for '::', then '_'.
static std::string cPrefix(const LauncherInfo &info) {
  std::string prefix, ns = launcherNamespace(info);
  for (StringRef rest = ns; !rest.empty();) {
    auto [part, tail] = rest.split("::");
    prefix += part.str() + "_";
    rest = tail;
  }
  return prefix;
}

/// The C interface (docs/launchers.md): one <prefix><kernel>_launch per kernel of the C++ API
/// and <prefix>unload, declared extern "C" for C++ and plainly for C. Closes the header's
/// `#ifdef __cplusplus`.
static void emitCDecls(raw_ostream &os, const LauncherInfo &info, ArrayRef<LauncherEntry> entries) {
  std::string prefix = cPrefix(info);
  os << "extern \"C\" {\n"
     << "#else\n"
     << "#include <stdbool.h>\n#include <stdint.h>\n"
     << "#endif\n\n"
     << "// The C interface: each launch() above as a function that returns the CUresult of its\n"
     << "// Status (CUDA_ERROR_INVALID_VALUE for a negative size or a grid beyond the device\n"
     << "// limits); the C++ API also has the message.\n";
  for (const LauncherEntry &entry : entries)
    os << "CUresult " << prefix << entry.name << "_launch("
       << signatureParams(*entry.kernels.front()) << ");\n";
  os << "void " << prefix << "unload(void);\n\n"
     << "#ifdef __cplusplus\n"
     << "} // extern \"C\"\n"
     << "#endif\n";
}

static std::string generateHeader(const LauncherInfo &info) {
  std::string text;
  raw_string_ostream os(text);
  std::string guard = headerGuard(info);
  std::string ns = launcherNamespace(info);
  os << "// " << info.headerName << " - launchers for the tlc kernels of '" << info.fileStem
     << "'; generated by tlc, do not edit.\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <cuda.h>\n\n"
     << "#ifdef __cplusplus\n"
     << "#include <cstdint>\n\n"
     << "#include \"tlc/Runtime/Runtime.h\"\n\n"
     << "namespace " << ns << " {\n";
  std::vector<LauncherEntry> entries = launcherEntries(info);
  for (const LauncherEntry &entry : entries) {
    const KernelLaunchInfo &kernel = *entry.kernels.front();
    os << "\nnamespace " << entry.name << " {\n";
    if (entry.isGroup()) {
      emitGroupDecls(os, entry);
    } else {
      emitKernelDoc(os, kernel);
      os << "tlc::rt::Status launch(" << signatureParams(kernel) << ");\n";
    }
    os << "} // namespace " << entry.name << "\n";
  }
  if (entries.size() == 1) {
    const LauncherEntry &entry = entries.front();
    os << "\n/// Launches '" << entry.name << "', the only kernel of this file; see " << entry.name
       << "::launch.\n"
       << "tlc::rt::Status launch(" << signatureParams(*entry.kernels.front()) << ");\n";
  }
  os << "\n/// Unloads the modules the launchers of this file loaded so far, "
        "from every\n"
        "/// context still alive. Do not call it while a launch is in "
        "flight on another thread.\n"
     << "void unload();\n\n"
     << "} // namespace " << ns << "\n\n";
  emitCDecls(os, info, entries);
  os << "\n#endif // " << guard << "\n";
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

static void emitSizeChecks(raw_ostream &os, const KernelLaunchInfo &kernel, StringRef label,
                           bool returnStatus);

/// The device parameters of launch(), in the order of docs/abi.md (`tlc_arg<i>`); returns
/// their count.
/// "tlc_arg<first>, ..., tlc_arg<first + count - 1>".
static std::string argList(unsigned first, unsigned count) {
  std::string list;
  for (unsigned k = 0; k < count; ++k)
    list += (k ? ", tlc_arg" : "tlc_arg") + std::to_string(first + k);
  return list;
}

static unsigned emitDeviceParams(raw_ostream &os, const KernelLaunchInfo &kernel) {
  unsigned numArgs = 0;
  os << "  // Device parameters (docs/abi.md).\n";
  for (const LaunchParam &param : kernel.params) {
    if (param.kind == Kind::Scalar) {
      if (param.dtype == "bool")
        os << "  uint8_t tlc_arg" << numArgs++ << " = " << cxxName(param.name) << " ? 1 : 0; // "
           << param.name << "\n";
      else
        os << "  " << scalarCxxType(param.dtype) << " tlc_arg" << numArgs++ << " = "
           << cxxName(param.name) << "; // " << param.name << "\n";
      continue;
    }
    os << "  CUdeviceptr tlc_arg" << numArgs++ << " = " << cxxName(param.name) << "; // "
       << param.name << "\n";
    size_t rank = param.dims.size();
    unsigned firstSize = numArgs;
    for (size_t d = 0; d != rank; ++d)
      os << "  int64_t tlc_arg" << numArgs++ << " = " << cxxName(param.dims[d]) << "; // size " << d
         << " of " << param.name << "\n";
    if (!param.strides.empty()) {
      for (size_t d = 0; d != rank; ++d)
        os << "  int64_t tlc_arg" << numArgs++ << " = " << cxxName(param.strides[d])
           << "; // stride " << d << " of " << param.name << "\n";
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
  return numArgs;
}

/// The element size of a tensor TMA reads: 2 (bf16, f16) or 1 (f8e4m3, f8e5m2, read as bytes).
static unsigned tmaElementBytes(const LaunchParam &param) {
  return param.dtype == "f8e4m3" || param.dtype == "f8e5m2" ? 1 : 2;
}

/// The element bytes of a tensor a store map writes (tile.copy's `tma_store`: 2 or 4).
static unsigned storeElementBytes(const LaunchParam &param) {
  return param.dtype == "f32" || param.dtype == "i32" || param.dtype == "u32" ? 4 : 2;
}

/// Looks up the entry to launch: the `__tma` entry where the driver loaded that cubin and TMA can
/// address the tensors, otherwise the generic entry (docs/abi.md).
static void emitEntryLookup(raw_ostream &os, const KernelLaunchInfo &kernel,
                            ArrayRef<unsigned> firstArg) {
  os << "  CUfunction tlc_function = nullptr;\n";
  if (kernel.tma.present) {
    // The sm_90a entry where the driver loaded that cubin, on tensors TMA can read: in place, or
    // copied into an aligned workspace (docs/abi.md); otherwise the entries that read any tensor.
    os << "  tlc::rt::Status tlc_status =\n"
       << "      tlc_moduleCache().findFunction(\"" << kernel.name << "__tma\", &tlc_function);\n"
       << "  if (!tlc_status.ok())\n"
       << "    return tlc_status;\n"
       << "  tlc::rt::Workspace tlc_workspace;\n"
       << "  bool tlc_tma = false;\n"
       << "  if (tlc_function) {\n";
    // A tensor of rank 3 to 5: its leading sizes and strides as arrays. (Store maps are encoded
    // at the launch, where the tensor allows: emitTmaLaunch.)
    unsigned loadMaps = 0;
    for (auto [i, map] : llvm::enumerate(kernel.tma.maps)) {
      unsigned a = firstArg[map.param], rank = kernel.params[map.param].dims.size();
      loadMaps += !map.store;
      if (rank <= 2 || map.store)
        continue;
      os << "    const int64_t tlc_outer_sizes" << i << "[] = {" << argList(a + 1, rank - 2)
         << "};\n"
         << "    const int64_t tlc_outer_strides" << i << "[] = {"
         << argList(a + 1 + rank, rank - 2) << "};\n";
    }
    os << "    tlc::rt::TmaOperand tlc_operands[] = {";
    bool first = true;
    for (auto [i, map] : llvm::enumerate(kernel.tma.maps)) {
      if (map.store)
        continue;
      unsigned a = firstArg[map.param], rank = kernel.params[map.param].dims.size();
      os << (first ? "" : ",") << "\n        {&tlc_arg" << a << ", tlc_arg" << a + rank - 1
         << ", tlc_arg" << a + rank << ", &tlc_arg" << a + 2 * rank - 1 << ", &tlc_arg"
         << a + 2 * rank << ", " << tmaElementBytes(kernel.params[map.param]) << ", "
         << (map.readOnly ? "true" : "false");
      if (rank > 2)
        os << ", tlc_outer_sizes" << i << ", tlc_outer_strides" << i << ", " << rank - 2;
      else if (map.mnMajor)
        os << ", nullptr, nullptr, 0, true";
      os << "}";
      first = false;
    }
    os << "};\n"
       << "    const tlc::rt::RepackKernel tlc_repack = {\"" << kRepackEntry << "\", "
       << kRepackThreads << ", " << kernel.tma.repackSharedBytes << ", " << kRepackTileRows << ", "
       << kRepackTileCols
       << "};\n"
       // Grids of at least one block per multiprocessor read each operand tile many times:
       // operands whose rows are not 32-byte aligned are worth a copy (tmaSectorAligned2D).
       << "    int tlc_realign_sms = 0;\n"
       << "    const bool tlc_realign = tlc::rt::multiprocessorCount(&tlc_realign_sms).ok() &&\n"
       << "                             tlc_realign_sms > 0 && tlc_grid[0] * tlc_grid[1] * "
          "tlc_grid[2] >= tlc_realign_sms;\n"
       << "    tlc_status = tlc::rt::prepareTmaOperands(tlc_moduleCache(), tlc_repack, "
          "tlc_operands, "
       << loadMaps << ", stream, tlc_workspace, &tlc_tma, tlc_realign);\n"
       << "    if (!tlc_status.ok())\n"
       << "      return tlc_status;\n"
       << "  }\n";
  } else {
    os << "  tlc::rt::Status tlc_status = tlc::rt::Status::success();\n"
       << "  const bool tlc_tma = false;\n";
  }
  if (kernel.loads.present && !kernel.plain) {
    // Every image is sm_90a's: the entry for tensors TMA cannot read.
    os << "  const bool tlc_loads = !tlc_tma;\n"
       << "  if (tlc_loads)\n"
       << "    tlc_status = tlc_moduleCache().getFunction(\"" << kernel.name
       << "__loads\", &tlc_function);\n"
       << "  if (!tlc_status.ok())\n"
       << "    return tlc_status;\n";
    return;
  }
  if (kernel.loads.present) {
    // The sm_90a entry for tensors TMA cannot read, where the driver loaded that cubin.
    os << "  bool tlc_loads = false;\n"
       << "  if (!tlc_tma) {\n"
       << "    tlc_status = tlc_moduleCache().findFunction(\"" << kernel.name
       << "__loads\", &tlc_function);\n"
       << "    if (!tlc_status.ok())\n"
       << "      return tlc_status;\n"
       << "    tlc_loads = tlc_function != nullptr;\n"
       << "  }\n"
       << "  if (!tlc_tma && !tlc_loads)";
  } else {
    os << "  if (!tlc_tma)";
  }
  if (kernel.plainServer < 0) {
    os << "\n    tlc_status = tlc_moduleCache().getFunction(\"" << kernel.name
       << "\", &tlc_function);\n"
       << "  if (!tlc_status.ok())\n"
       << "    return tlc_status;\n";
    return;
  }
  // An image without this configuration's plain entry: another configuration's launch serves
  // the tensors TMA cannot read (docs/abi.md).
  os << " {\n"
     << "    tlc_status = tlc_moduleCache().findFunction(\"" << kernel.name
     << "\", &tlc_function);\n"
     << "    if (!tlc_status.ok())\n"
     << "      return tlc_status;\n"
     << "    if (!tlc_function)\n"
     << "      return variant" << kernel.plainServer << "::launch(" << forwardedArgs(kernel)
     << ");\n"
     << "  }\n";
}

/// The multiprocessors and tiles of a persistent launch (tlc_sms, tlc_tiles).
static void emitPersistentGrid(raw_ostream &os) {
  os << "    int tlc_sms = 0;\n"
     << "    tlc_status = tlc::rt::multiprocessorCount(&tlc_sms);\n"
     << "    if (!tlc_status.ok())\n"
     << "      return tlc_status;\n"
     << "    const int64_t tlc_tiles = tlc_grid[0] * tlc_grid[1] * tlc_grid[2];\n";
}

/// One block per multiprocessor (at most one per tile, unless tiles are split along K) walks
/// the tiles: the launch of an entry with a producer warpgroup, `args` its parameter array.
/// With `streamK`, `tlc_split` (the stream-K workspace, 0 for none) is declared before.
static void emitPersistentLaunch(raw_ostream &os, unsigned threads, unsigned sharedBytes,
                                 StringRef args, bool streamK = false) {
  os << "    // Persistent: one block per multiprocessor (at most one per tile) walks the tiles.\n";
  if (!streamK)
    emitPersistentGrid(os);
  os << "    const int64_t tlc_blocks[3] = {tlc_tiles < tlc_sms"
     << (streamK ? " && !tlc_split" : "") << " ? tlc_tiles : tlc_sms, 1, 1};\n"
     << "    const unsigned tlc_block[3] = {" << threads << ", 1, 1};\n"
     << "    return tlc::rt::launch(tlc_function, tlc_blocks, tlc_block, " << sharedBytes
     << ", stream, " << args << ");\n";
}

/// The launch in clusters of an entry whose blocks may run in pairs (docs/abi.md): one pair per
/// cluster that fits the device at once (at most one per pair of tiles) walks the pairs of
/// tiles, where clusters are on and the grid's rows make pairs worth it; else the persistent
/// launch that follows. Not with a stream-K workspace (`tlc_split`).
static void emitClusterLaunch(raw_ostream &os, const TmaEntryInfo &tma, bool streamK) {
  os << "    // Pairs: the blocks of a cluster take tiles of adjacent rows and share their loads.\n"
     << "    if (tlc::rt::clustersEnabled() && tlc::rt::useClusters(tlc_grid[1])"
     << (streamK ? " && !tlc_split" : "") << ") {\n"
     << "      int tlc_clusters = 0;\n"
     << "      tlc_status = tlc::rt::activeClusters(tlc_function, " << tma.threads << ", "
     << tma.sharedBytes << ", " << tma.cluster << ", &tlc_clusters);\n"
     << "      if (!tlc_status.ok())\n"
     << "        return tlc_status;\n"
     << "      const int64_t tlc_pairs = tlc_grid[0] * ((tlc_grid[1] + " << tma.cluster - 1
     << ") / " << tma.cluster << ") * tlc_grid[2];\n"
     << "      if (tlc_clusters > 0) {\n"
     << "        const int64_t tlc_blocks[3] = {" << tma.cluster
     << " * (tlc_pairs < tlc_clusters ? tlc_pairs : tlc_clusters), 1, 1};\n"
     << "        const unsigned tlc_block[3] = {" << tma.threads << ", 1, 1};\n"
     << "        return tlc::rt::launchClusters(tlc_function, tlc_blocks, tlc_block, "
     << tma.sharedBytes << ", " << tma.cluster << ", stream, tlc_args);\n"
     << "      }\n"
     << "    }\n";
}

/// The TMA launch: tensor maps by value after the ABI's parameters, persistent blocks.
static void emitTmaLaunch(raw_ostream &os, const KernelLaunchInfo &kernel,
                          ArrayRef<unsigned> firstArg, unsigned numArgs) {
  os << "  if (tlc_tma) {\n";
  bool storeMaps = false;
  for (auto [i, map] : llvm::enumerate(kernel.tma.maps)) {
    const LaunchParam &param = kernel.params[map.param];
    unsigned a = firstArg[map.param], rank = param.dims.size();
    if (map.store) {
      // Where TMA cannot write the tensor in place the entry stores its rows as vectors: the
      // flag after the maps says which (docs/abi.md).
      if (!storeMaps)
        os << "    int32_t tlc_stored = 1;\n";
      storeMaps = true;
      os << "    alignas(128) CUtensorMap tlc_map" << i << ";\n"
         << "    tlc_stored &= tlc::rt::encodeStoreMap2D(&tlc_map" << i << ", tlc_arg" << a
         << ", tlc_arg" << a + 1 << ", tlc_arg" << a + 2 << ", tlc_arg" << a + 3 << ", tlc_arg"
         << a + 4 << ", " << storeElementBytes(param) << ", " << map.boxRows << ", " << map.boxCols
         << ", " << map.swizzle << ");\n";
      continue;
    }
    // 16-bit operands as themselves; 8-bit floats as bytes (TMA does not interpret them).
    unsigned elementBytes = tmaElementBytes(param);
    StringRef dataType = elementBytes == 1       ? "CU_TENSOR_MAP_DATA_TYPE_UINT8"
                         : param.dtype == "bf16" ? "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"
                                                 : "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
    // CUDA 13 declares CUtensorMap 128-byte aligned; a smaller alignas is ill-formed.
    os << "    alignas(128) CUtensorMap tlc_map" << i << ";\n";
    if (rank == 2) {
      os << "    tlc_status = tlc::rt::encodeTensorMap2D(&tlc_map" << i << ", tlc_arg" << a
         << ", tlc_arg" << a + 1 << ", tlc_arg" << a + 2 << ", tlc_arg" << a + 3 << ", tlc_arg"
         << a + 4 << ", " << elementBytes << ", ";
    } else {
      // Rank 3 to 5: boxes of one element in each leading dimension.
      os << "    const int64_t tlc_map_sizes" << i << "[] = {" << argList(a + 1, rank) << "};\n"
         << "    const int64_t tlc_map_strides" << i << "[] = {" << argList(a + 1 + rank, rank)
         << "};\n"
         << "    tlc_status = tlc::rt::encodeTensorMap(&tlc_map" << i << ", tlc_arg" << a << ", "
         << rank << ", tlc_map_sizes" << i << ", tlc_map_strides" << i << ", " << elementBytes
         << ", ";
    }
    os << dataType << ", " << map.boxRows << ", " << map.boxCols << ", " << map.swizzle << ", \""
       << kernel.name << "\", \"" << param.name << "\");\n"
       << "    if (!tlc_status.ok())\n"
       << "      return tlc_status;\n";
  }
  bool streamK = kernel.tma.streamKSlotBytes > 0;
  if (streamK) {
    // Tiles split along K where whole ones would leave multiprocessors idle: a workspace of
    // flags and one partial slot per multiprocessor, its flags zeroed (docs/abi.md).
    emitPersistentGrid(os);
    os << "    tlc::rt::Workspace tlc_split_workspace;\n"
       << "    CUdeviceptr tlc_split = 0;\n"
       << "    tlc_status = tlc::rt::prepareStreamK(tlc_tiles, tlc_sms, "
       << (kernel.iterations.empty() ? "-1" : kernel.iterations) << ", "
       << kernel.tma.streamKSlotBytes << ", stream, tlc_split_workspace, &tlc_split);\n"
       << "    if (!tlc_status.ok())\n"
       << "      return tlc_status;\n";
  }
  os << "    void *tlc_args[] = {";
  for (unsigned i = 0; i != numArgs; ++i)
    os << (i ? ", " : "") << "&tlc_arg" << i;
  for (size_t i = 0; i != kernel.tma.maps.size(); ++i)
    os << ", &tlc_map" << i;
  if (storeMaps)
    os << ", &tlc_stored";
  if (streamK)
    os << ", &tlc_split";
  os << "};\n";
  if (kernel.tma.cluster > 1)
    emitClusterLaunch(os, kernel.tma, streamK);
  emitPersistentLaunch(os, kernel.tma.threads, kernel.tma.sharedBytes, "tlc_args", streamK);
  os << "  }\n";
}

static void emitLaunchBody(raw_ostream &os, const KernelLaunchInfo &kernel) {
  emitSizeChecks(os, kernel, kernel.name, /*returnStatus=*/true);

  os << "  int64_t tlc_grid[3] = {";
  for (int i = 0; i < 3; ++i)
    os << (i ? ", " : "") << "static_cast<int64_t>(" << gridExpr(kernel.grid[i]) << ")";
  os << "};\n"
     << "  if (tlc_grid[0] == 0 || tlc_grid[1] == 0 || tlc_grid[2] == 0)\n"
     << "    return tlc::rt::Status::success();\n";
  unsigned numArgs = emitDeviceParams(os, kernel);
  // The first device parameter of each kernel parameter.
  std::vector<unsigned> firstArg(kernel.params.size());
  {
    unsigned next = 0;
    for (auto [i, param] : llvm::enumerate(kernel.params)) {
      firstArg[i] = next;
      next += param.kind == Kind::Scalar ? 1 : 1 + 2 * param.dims.size();
    }
  }
  emitEntryLookup(os, kernel, firstArg);
  if (kernel.tma.present)
    emitTmaLaunch(os, kernel, firstArg, numArgs);
  if (numArgs == 0) {
    os << "  void **tlc_args = nullptr;\n";
  } else {
    os << "  void *tlc_args[] = {";
    for (unsigned i = 0; i != numArgs; ++i)
      os << (i ? ", " : "") << "&tlc_arg" << i;
    os << "};\n";
  }
  if (kernel.loads.present) {
    os << "  if (tlc_loads) {\n";
    emitPersistentLaunch(os, kernel.loads.threads, kernel.loads.sharedBytes, "tlc_args");
    os << "  }\n";
    if (!kernel.plain) {
      os << "  return tlc::rt::Status::success();\n";
      return;
    }
  }
  os << "  const unsigned tlc_block[3] = {" << kernel.threads[0] << ", " << kernel.threads[1]
     << ", " << kernel.threads[2] << "};\n"
     << "  return tlc::rt::launch(tlc_function, tlc_grid, tlc_block, " << kernel.sharedBytes
     << ", stream, tlc_args);\n";
}

/// The negative-size checks of launch() (sizes only: strides may be negative).
static void emitSizeChecks(raw_ostream &os, const KernelLaunchInfo &kernel, StringRef label,
                           bool returnStatus) {
  for (const std::string &symbol : kernel.sizeSymbols) {
    if (isStrideSymbol(kernel, symbol))
      continue;
    os << "  if (" << cxxName(symbol) << " < 0)\n";
    if (returnStatus)
      os << "    return tlc::rt::negativeSizeError(\"" << label << "\", \"" << symbol << "\", "
         << cxxName(symbol) << ");\n";
    else
      os << "    return -1;\n";
  }
}

/// The definitions for a kernel with variants (see emitGroupDecls).
static void emitGroupDefinitions(raw_ostream &os, const LauncherEntry &entry) {
  const KernelLaunchInfo &first = *entry.kernels.front();
  size_t count = entry.kernels.size();
  for (const KernelLaunchInfo *kernel : entry.kernels) {
    os << "\nnamespace variant" << kernel->variant << " {\n"
       << "tlc::rt::Status launch(" << signatureParams(*kernel) << ") {\n";
    emitLaunchBody(os, *kernel);
    os << "}\n} // namespace variant" << kernel->variant << "\n";
  }

  std::string params = selectParams(first), args = selectArgs(first);
  std::string sep = params.empty() ? "" : ", ";
  // Variants some image leaves out: the lookup of those the loaded image has, and the block
  // counts of those it lacks set to 0.
  bool absent = hasAbsentVariants(entry);
  std::string presentParam = absent ? ", const bool *tlc_present" : "";
  if (absent) {
    os << "\n/// Whether the image the driver loaded has each variant (images leave out variants\n"
          "/// that do not fit their architecture's shared memory).\n"
       << "static tlc::rt::Status tlc_presentVariants(bool *tlc_present) {\n"
       << "  static const char *const tlc_entries[" << count << "][3] = {";
    for (const KernelLaunchInfo *kernel : entry.kernels) {
      auto name = [&](bool has, StringRef suffix) {
        return has ? "\"" + kernel->name + suffix.str() + "\"" : std::string("nullptr");
      };
      os << (kernel->variant ? ",\n      " : "") << "{" << name(true, "") << ", "
         << name(kernel->tma.present, "__tma") << ", " << name(kernel->loads.present, "__loads")
         << "}";
    }
    os << "};\n"
       << "  return tlc::rt::presentVariants(tlc_moduleCache(), tlc_entries, " << count
       << ", tlc_present);\n"
       << "}\n";
  }
  os << "\n/// The blocks of each variant's grid for these sizes.\n"
     << "static void tlc_variantBlocks(int64_t *tlc_blocks" << presentParam << sep << params
     << ") {\n";
  for (const LaunchParam &param : first.params)
    if (param.kind == Kind::Scalar)
      os << "  (void)" << cxxName(param.name) << ";\n";
  for (const std::string &symbol : first.sizeSymbols)
    os << "  (void)" << cxxName(symbol) << ";\n";
  for (const KernelLaunchInfo *kernel : entry.kernels) {
    os << "  tlc_blocks[" << kernel->variant << "] = tlc::rt::gridBlocks(";
    for (int i = 0; i < 3; ++i)
      os << (i ? ",\n      " : "") << "static_cast<int64_t>(" << gridExpr(kernel->grid[i]) << ")";
    os << "); // " << kernel->name << "\n";
  }
  // `when` conditions: the variants whose condition holds are preferred (tlc::rt::applyWhen).
  if (hasWhen(entry)) {
    os << "  const bool tlc_conditional[" << count << "] = {";
    for (const KernelLaunchInfo *kernel : entry.kernels)
      os << (kernel->variant ? ", " : "") << (kernel->when.empty() ? "false" : "true");
    os << "};\n  const bool tlc_holds[" << count << "] = {";
    for (const KernelLaunchInfo *kernel : entry.kernels) {
      std::string holds = "static_cast<bool>(" + renameIdentifiers(kernel->when) + ")";
      if (!kernel->everyImage)
        holds = "tlc_present[" + std::to_string(kernel->variant) + "] && " + holds;
      os << (kernel->variant ? ",\n      " : "") << (kernel->when.empty() ? "false" : holds);
    }
    os << "};\n  tlc::rt::applyWhen(tlc_blocks, tlc_conditional, tlc_holds, " << count << ");\n";
  }
  if (absent)
    os << "  for (int tlc_i = 0; tlc_i < " << count << "; ++tlc_i)\n"
       << "    if (!tlc_present[tlc_i])\n"
       << "      tlc_blocks[tlc_i] = 0;\n";
  os << "}\n\n"
     << "int select_for(int tlc_multiprocessors" << sep << params << ") {\n";
  if (absent) {
    os << "  const bool tlc_present[" << count << "] = {";
    for (size_t i = 0; i != count; ++i)
      os << (i ? ", " : "") << "true";
    os << "};\n";
  }
  std::string presentArg = absent ? ", tlc_present" : "";
  os << "  int64_t tlc_blocks[" << count << "];\n"
     << "  tlc_variantBlocks(tlc_blocks" << presentArg << sep << args << ");\n"
     << "  return tlc::rt::chooseVariant(tlc_blocks, " << count << ", tlc_multiprocessors);\n"
     << "}\n\n"
     << "int select(" << params << ") {\n";
  emitSizeChecks(os, first, entry.name, /*returnStatus=*/false);
  if (absent)
    os << "  bool tlc_present[" << count << "];\n"
       << "  if (!tlc_presentVariants(tlc_present).ok())\n"
       << "    return -1;\n";
  os << "  int64_t tlc_blocks[" << count << "];\n"
     << "  tlc_variantBlocks(tlc_blocks" << presentArg << sep << args << ");\n"
     << "  int tlc_variant = 0;\n"
     << "  if (!tlc::rt::selectVariant(tlc_blocks, " << count << ", &tlc_variant).ok())\n"
     << "    return -1;\n";
  if (absent)
    os << "  return tlc::rt::presentVariant(tlc_variant, tlc_present, " << count << ");\n";
  else
    os << "  return tlc_variant;\n";
  os << "}\n\n"
     << "tlc::rt::Status launch(" << signatureParams(first) << ") {\n";
  emitSizeChecks(os, first, entry.name, /*returnStatus=*/true);
  if (absent)
    os << "  bool tlc_present[" << count << "];\n"
       << "  if (tlc::rt::Status tlc_found = tlc_presentVariants(tlc_present); !tlc_found.ok())\n"
       << "    return tlc_found;\n";
  os << "  int64_t tlc_blocks[" << count << "];\n"
     << "  tlc_variantBlocks(tlc_blocks" << presentArg << sep << args << ");\n"
     << "  int tlc_variant = 0;\n"
     << "  tlc::rt::Status tlc_status = tlc::rt::selectVariant(tlc_blocks, " << count
     << ", &tlc_variant);\n"
     << "  if (!tlc_status.ok())\n"
     << "    return tlc_status;\n";
  if (absent)
    os << "  tlc_variant = tlc::rt::presentVariant(tlc_variant, tlc_present, " << count << ");\n";
  os << "  switch (tlc_variant) {\n";
  for (const KernelLaunchInfo *kernel : entry.kernels) {
    if (static_cast<size_t>(kernel->variant) + 1 == count)
      os << "  default:\n";
    else
      os << "  case " << kernel->variant << ":\n";
    os << "    return variant" << kernel->variant << "::launch(" << forwardedArgs(first) << ");\n";
  }
  os << "  }\n}\n";
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
  std::vector<LauncherEntry> entries = launcherEntries(info);
  for (const LauncherEntry &entry : entries) {
    const KernelLaunchInfo &kernel = *entry.kernels.front();
    os << "\nnamespace " << entry.name << " {\n";
    if (entry.isGroup()) {
      emitGroupDefinitions(os, entry);
    } else {
      os << "tlc::rt::Status launch(" << signatureParams(kernel) << ") {\n";
      emitLaunchBody(os, kernel);
      os << "}\n";
    }
    os << "} // namespace " << entry.name << "\n";
  }
  if (entries.size() == 1) {
    const LauncherEntry &entry = entries.front();
    os << "\ntlc::rt::Status launch(" << signatureParams(*entry.kernels.front()) << ") {\n"
       << "  return " << entry.name << "::launch(" << forwardedArgs(*entry.kernels.front())
       << ");\n}\n";
  }
  os << "\nvoid unload() { tlc_moduleCache().unload(); }\n\n"
     << "} // namespace " << launcherNamespace(info) << "\n";

  // The C interface, declared in the header.
  std::string prefix = cPrefix(info), ns = launcherNamespace(info);
  for (const LauncherEntry &entry : entries) {
    const KernelLaunchInfo &kernel = *entry.kernels.front();
    os << "\nextern \"C\" CUresult " << prefix << entry.name << "_launch("
       << signatureParams(kernel) << ") {\n"
       << "  return " << ns << "::" << entry.name << "::launch(" << forwardedArgs(kernel)
       << ").code();\n}\n";
  }
  os << "\nextern \"C\" void " << prefix << "unload(void) { " << ns << "::unload(); }\n";
  return text;
}

LauncherFiles generateLauncher(const LauncherInfo &info) {
  LauncherFiles files;
  files.header = generateHeader(info);
  files.source = generateSource(info);
  return files;
}

} // namespace tlc::cuda
