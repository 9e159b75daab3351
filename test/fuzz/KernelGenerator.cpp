//===- KernelGenerator.cpp - tlc-kernel-gen: random .tile kernels ---------===//
//
// A random program generator for the .tile language in the spirit of Csmith and YARPGen:
//
//   tlc-kernel-gen --seed S --kernels N [--first I] [--features all|gemm,attention,...]
//
// writes one .tile file of N small kernels `k<I>`, `k<I+1>`, ... to stdout. Kernel `k<i>` is a
// function of (S, i) alone: the same seed gives byte-identical output, and `--first i --kernels 1`
// reproduces one kernel of a larger file. Each kernel is preceded by a comment
//
//   // tlc-kernel-gen seed S kernel i: <template>; stores Y, Z; atomics C
//
// naming the tensors it writes with plain stores and those it only adds to with `atomic_add`
// (a runner zeroes those instead of poisoning them).
//
// Every kernel is built from a template (GEMM main loop with an epilogue, attention-like online
// softmax, dequantizing GEMM, element-wise, reduction, transpose through buffers, atomics) whose
// shapes, types, transposes, loops, expressions, thread counts and strides are random. The
// generated programs are meant for differential testing (fast vs. reference code generation), so
// they are deterministic and race-free by construction:
//   - an output element is written by one thread of one block (tiles indexed by block ids,
//     `parallel` points), or only through `atomic_add`;
//   - outputs are never read; a `parallel` body writes a buffer only at its own point and reads
//     buffers it writes only there; rank-1 buffers are written only by `parallel`s over them;
//   - tile operations sit only under block-uniform conditions;
//   - float expressions keep moderate magnitudes (tracked per node), divide only by values
//     >= 1, take exp/exp2 of non-positive arguments and logs of values >= 1, and compare
//     (select, ternary) only index values or values read unchanged from inputs, so rounding
//     differences between code generators cannot flip a branch.
// Inputs are assumed to hold values of magnitude <= 1 (integers: <= 1000) and scalars to be
// positive and moderate.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

/// splitmix64: a small generator whose sequence is fixed by its definition (unlike the
/// standard library's distributions), so the output is the same on every platform.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}

  uint64_t next() {
    state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// A number in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }

  /// True with probability percent / 100.
  bool chance(int percent) { return range(0, 99) < percent; }

  template <typename T> T pick(std::initializer_list<T> items) {
    auto it = items.begin();
    std::advance(it, range(0, static_cast<int64_t>(items.size()) - 1));
    return *it;
  }

  template <typename T> const T &pick(const std::vector<T> &items) {
    return items[range(0, static_cast<int64_t>(items.size()) - 1)];
  }

  /// An index chosen with the given relative weights.
  size_t weighted(std::initializer_list<int> weights) {
    int total = 0;
    for (int w : weights)
      total += w;
    int64_t x = range(0, total - 1);
    size_t i = 0;
    for (int w : weights) {
      if (x < w)
        return i;
      x -= w;
      ++i;
    }
    return 0;
  }

private:
  uint64_t state;
};

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

enum class Ty { F32, F16, BF16, I32, I8, U8, Index, Bool, F8E4M3, F8E5M2 };

const char *tyName(Ty t) {
  switch (t) {
  case Ty::F32:
    return "f32";
  case Ty::F16:
    return "f16";
  case Ty::BF16:
    return "bf16";
  case Ty::I32:
    return "i32";
  case Ty::I8:
    return "i8";
  case Ty::U8:
    return "u8";
  case Ty::Index:
    return "int";
  case Ty::Bool:
    return "bool";
  case Ty::F8E4M3:
    return "f8e4m3";
  case Ty::F8E5M2:
    return "f8e5m2";
  }
  return "f32";
}

bool isFloat(Ty t) { return t == Ty::F32 || t == Ty::F16 || t == Ty::BF16; }

int64_t tyBytes(Ty t) {
  switch (t) {
  case Ty::F32:
  case Ty::I32:
    return 4;
  case Ty::F16:
  case Ty::BF16:
    return 2;
  case Ty::I8:
  case Ty::U8:
  case Ty::Bool:
  case Ty::F8E4M3:
  case Ty::F8E5M2:
    return 1;
  case Ty::Index:
    return 8;
  }
  return 4;
}

/// The type an element of storage type `t` has as a value (u8 reads as i32).
Ty valueTy(Ty t) { return t == Ty::U8 ? Ty::I32 : t; }

/// The largest magnitude float expressions may reach before they are scaled down.
constexpr double kMaxMag = 256.0;
/// Total bytes of shared and fragment buffers per kernel (fragments live in shared memory on
/// the generic path); stays well below the 227 KiB (sm_90a) and 163 KiB (sm_80) limits.
constexpr int64_t kMaxBufferBytes = 96 * 1024;

//===----------------------------------------------------------------------===//
// Kernel text
//===----------------------------------------------------------------------===//

/// A compile-time extent: its spelling (a literal or an `int` parameter) and its value.
struct Dim {
  std::string text;
  int64_t value = 0;
};

/// A buffer declared at the top of the kernel body.
struct Buffer {
  std::string name;
  std::string space; // shared, fragment, local
  Ty ty = Ty::F32;
  std::vector<Dim> dims;
  int64_t elements() const {
    int64_t n = 1;
    for (const Dim &d : dims)
      n *= d.value;
    return n;
  }
};

/// One kernel being generated: parameters, launch shape and body lines.
class Kernel {
public:
  Kernel(Rng &random, std::string kernelName) : rng(random), name(std::move(kernelName)) {
    useParams = rng.chance(45);
  }

  Rng &rng;
  std::string name;
  std::string templ;
  bool useParams;
  std::vector<std::string> cparams, args, grid;
  std::string threads;
  std::vector<std::string> lines;
  std::vector<std::string> stores, atomics;
  std::map<Ty, std::string> typeAlias;
  int64_t bufferBytes = 0;
  int nextName = 0;

  /// A compile-time integer: an `int` parameter `n` with default `v`, or the literal.
  Dim constant(const std::string &n, int64_t v) {
    if (!useParams)
      return {std::to_string(v), v};
    for (const std::string &p : cparams)
      if (p.rfind(n + ":", 0) == 0)
        return {n, v};
    cparams.push_back(n + ": int = " + std::to_string(v));
    return {n, v};
  }

  /// Declares `n: type = t`; uses of `t` are then spelled `n`.
  void typeParam(const std::string &n, Ty t) {
    cparams.push_back(n + ": type = " + tyName(t));
    typeAlias[t] = n;
  }

  std::string ty(Ty t) const {
    auto it = typeAlias.find(t);
    return it == typeAlias.end() ? tyName(t) : it->second;
  }

  /// Declares a tensor parameter; `dims` and `strides` are spelled as in the source.
  void tensor(const std::string &n, Ty t, const std::vector<std::string> &dims,
              const std::vector<std::string> &strides = {}) {
    std::string s = n + ": tensor<" + ty(t) + ">[" + join(dims) + "]";
    if (!strides.empty())
      s += " strides [" + join(strides) + "]";
    args.push_back(s);
  }

  void scalar(const std::string &n, Ty t) { args.push_back(n + ": " + ty(t)); }

  /// Declares a buffer and counts its shared-memory bytes.
  Buffer buffer(const std::string &space, const std::string &n, Ty t, std::vector<Dim> dims) {
    Buffer b{n, space, t, std::move(dims)};
    std::vector<std::string> texts;
    for (const Dim &d : b.dims)
      texts.push_back(d.text);
    line("let " + n + " = " + space + "<" + ty(t) + ">[" + join(texts) + "];");
    if (space != "local")
      bufferBytes += (b.elements() * tyBytes(t) + 15) / 16 * 16;
    return b;
  }

  std::string fresh(const std::string &prefix) { return prefix + std::to_string(nextName++); }

  void line(const std::string &s) { lines.push_back(std::string(2 * depth, ' ') + s); }
  void open(const std::string &head) {
    line(head + " {");
    ++depth;
  }
  void close() {
    --depth;
    line("}");
  }
  /// `} else {` / `} else if c {` between two branches.
  void elseOpen(const std::string &head = "else") {
    --depth;
    line("} " + head + " {");
    ++depth;
  }

  static std::string join(const std::vector<std::string> &items) {
    std::string s;
    for (size_t i = 0; i < items.size(); ++i)
      s += (i ? ", " : "") + items[i];
    return s;
  }

  std::string render(uint64_t seed, int64_t index) const {
    std::ostringstream os;
    os << "// tlc-kernel-gen seed " << seed << " kernel " << index << ": " << templ;
    if (!stores.empty())
      os << "; stores " << join(stores);
    if (!atomics.empty())
      os << "; atomics " << join(atomics);
    os << "\n";
    std::string head = "kernel " + name;
    os << head;
    if (!cparams.empty())
      os << "<" << join(cparams) << ">";
    os << "(";
    std::string indent(4, ' ');
    for (size_t i = 0; i < args.size(); ++i)
      os << (i ? ",\n" + indent : "\n" + indent) << args[i];
    os << ")\n  grid(" << join(grid) << ") threads(" << threads << ")\n{\n";
    for (const std::string &l : lines)
      os << l << "\n";
    os << "}\n";
    return os.str();
  }

private:
  int depth = 1;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// A typed expression with a bound on its magnitude; `exact` when it is a value read unchanged
/// from an input (both code generators see the same bits, so comparing it is meaningful).
struct Val {
  std::string text;
  Ty ty = Ty::F32;
  double mag = 1.0;
  bool exact = false;
  bool lit = false; ///< made of literals only: an untyped constant
};

/// What an expression may use at the place it is generated.
struct Scope {
  std::vector<Val> vals;          ///< typed leaves (element reads, scalars, lets)
  std::vector<std::string> conds; ///< bool conditions independent of rounding
  void add(const std::string &text, Ty ty, double mag, bool exact = false) {
    vals.push_back({text, ty, mag, exact});
  }
};

/// Generates random typed expressions over a scope.
class ExprGen {
public:
  ExprGen(Rng &random, const Kernel &kernel) : rng(random), k(kernel) {}

  /// An expression of type `t` (a float type or i32), `depth` levels of operators at most.
  /// A constant made of literals only is converted to `t` explicitly (so that a `let` of it
  /// has type `t`).
  Val value(Ty t, int depth, const Scope &s) {
    Val v = t == Ty::I32 ? intOp(depth, s) : floatOp(t, depth, s);
    return arg(v, t);
  }

  /// A bool condition from the scope's exact conditions (`true` when there are none).
  std::string cond(const Scope &s, int depth = 1) {
    if (s.conds.empty())
      return "true";
    std::string a = rng.pick(s.conds);
    if (depth <= 0 || rng.chance(60))
      return a;
    switch (rng.range(0, 2)) {
    case 0: {
      std::string b = cond(s, depth - 1);
      return "(" + a + " && " + b + ")";
    }
    case 1: {
      std::string b = cond(s, depth - 1);
      return "(" + a + " || " + b + ")";
    }
    default:
      return "!" + a;
    }
  }

private:
  Rng &rng;
  const Kernel &k;

  Val literal(Ty t) {
    if (t == Ty::I32) {
      int64_t v = rng.pick({1, 2, 3, 5, 7, 11, -3, 100});
      return {std::to_string(v), t, static_cast<double>(v < 0 ? -v : v), true, true};
    }
    const char *text = rng.pick({"0.5", "1.5", "2.0", "0.25", "0.75", "1.0", "0.125", "3.0"});
    return {text, t, std::atof(text), true, true};
  }

  /// An operand of a builtin call or select: builtins of literals fold to typed f32 / int
  /// constants, so a literal operand is converted to `t` first.
  Val arg(Val v, Ty t) {
    if (!v.lit)
      return v;
    return {k.ty(t) + "(" + v.text + ")", t, v.mag, v.exact, false};
  }

  /// A leaf of type `t`: a scope value of that type, a converted one, or a literal.
  Val leaf(Ty t, const Scope &s) {
    std::vector<const Val *> same, other;
    for (const Val &v : s.vals) {
      if (v.ty == t)
        same.push_back(&v);
      else if (v.ty != Ty::Bool && v.ty != Ty::Index && (t != Ty::I32 || v.exact) &&
               !(t != Ty::F32 && v.mag > 1000.0))
        other.push_back(&v);
    }
    int roll = static_cast<int>(rng.range(0, 99));
    if (!same.empty() && roll < 75)
      return *rng.pick(same);
    if (!other.empty() && roll < 90) {
      Val v = *rng.pick(other);
      if (t == Ty::I32) {
        // Float inputs (exact) become small integers: x * 8 is exact, truncation agrees.
        if (isFloat(v.ty))
          return {"i32(" + v.text + " * 8.0)", t, v.mag * 8 + 1, true};
        return {"i32(" + v.text + ")", t, v.mag, v.exact};
      }
      return {k.ty(t) + "(" + v.text + ")", t, v.mag, v.exact && isFloat(v.ty)};
    }
    return literal(t);
  }

  /// Scales a value whose bound grew too large back to a moderate range.
  Val fit(Val v) {
    if (v.ty == Ty::I32 || v.mag <= kMaxMag)
      return v;
    return {"(" + v.text + " * 0.0078125)", v.ty, v.mag / 128, false, v.lit};
  }

  Val floatOp(Ty t, int depth, const Scope &s) {
    if (depth <= 0 || rng.chance(20))
      return leaf(t, s);
    const std::string T = k.ty(t);
    size_t op = rng.weighted({6, 5, 5, 3, 3, 3, 1, 1, 3, 2, 1, 2, 1, 1, 1, 1, 3, 2, 1, 2});
    switch (op) {
    case 0:   // +
    case 1: { // -
      Val a = floatOp(t, depth - 1, s);
      Val b = floatOp(t, depth - 1, s);
      return fit({"(" + a.text + (op == 0 ? " + " : " - ") + b.text + ")", t, a.mag + b.mag, false,
                  a.lit && b.lit});
    }
    case 2: { // *
      Val a = floatOp(t, depth - 1, s);
      Val b = floatOp(t, depth - 1, s);
      if (a.mag * b.mag > kMaxMag)
        b = {"tanh(" + arg(b, t).text + ")", t, 1.0};
      return fit({"(" + a.text + " * " + b.text + ")", t, a.mag * b.mag, false, a.lit && b.lit});
    }
    case 3: { // division by a value >= 1
      Val a = arg(floatOp(t, depth - 1, s), t);
      Val b = arg(floatOp(t, depth - 1, s), t);
      return {"(" + a.text + " / (abs(" + b.text + ") + 1.0))", t, a.mag};
    }
    case 4:
    case 5: { // max, min
      Val a = arg(floatOp(t, depth - 1, s), t);
      Val b = arg(floatOp(t, depth - 1, s), t);
      return {std::string(op == 4 ? "max(" : "min(") + a.text + ", " + b.text + ")", t,
              a.mag > b.mag ? a.mag : b.mag};
    }
    case 6: { // abs
      Val a = arg(floatOp(t, depth - 1, s), t);
      return {"abs(" + a.text + ")", t, a.mag};
    }
    case 7: { // negation
      Val a = floatOp(t, depth - 1, s);
      return {"-(" + a.text + ")", t, a.mag, false, a.lit};
    }
    case 8: { // fma
      Val a = arg(floatOp(t, depth - 1, s), t);
      Val b = arg(floatOp(t, depth - 1, s), t);
      Val c = arg(floatOp(t, depth - 1, s), t);
      if (a.mag * b.mag > kMaxMag)
        b = {"tanh(" + b.text + ")", t, 1.0};
      return fit({"fma(" + a.text + ", " + b.text + ", " + c.text + ")", t, a.mag * b.mag + c.mag});
    }
    case 9: { // exp2 of a non-positive value
      Val a = arg(floatOp(t, depth - 1, s), t);
      return {"exp2(-abs(" + a.text + "))", t, 1.0};
    }
    case 10: { // exp of a non-positive value
      Val a = arg(floatOp(t, depth - 1, s), t);
      return {"exp(min(" + a.text + ", 0.0))", t, 1.0};
    }
    case 11: { // tanh / erf
      Val a = arg(floatOp(t, depth - 1, s), t);
      return {std::string(rng.chance(70) ? "tanh(" : "erf(") + a.text + ")", t, 1.0};
    }
    case 12: { // sqrt
      Val a = arg(floatOp(t, depth - 1, s), t);
      return {"sqrt(abs(" + a.text + "))", t, a.mag < 1 ? 1.0 : a.mag};
    }
    case 13: { // rsqrt of a value >= 1
      Val a = arg(floatOp(t, depth - 1, s), t);
      return {"rsqrt(abs(" + a.text + ") + 1.0)", t, 1.0};
    }
    case 14: { // logarithms of values >= 1
      Val a = arg(floatOp(t, depth - 1, s), t);
      return {std::string(rng.chance(50) ? "log(" : "log2(") + "abs(" + a.text + ") + 1.0)", t,
              a.mag + 1.0};
    }
    case 15: { // a round trip through another float type
      Ty via = rng.pick({Ty::F16, Ty::BF16, Ty::F32});
      Val a = floatOp(t, depth - 1, s);
      // Only of literals: rounding a computed value and combining it with itself again
      // (`x + f32(bf16(-x))`) isolates its rounding error, which differs between code
      // generations that accumulate in different orders (the campaign flagged such kernels).
      if (via == t || a.mag > 1000.0 || !a.lit)
        return a;
      return {T + "(" + k.ty(via) + "(" + a.text + "))", t, a.mag};
    }
    case 16: { // select
      std::string c = cond(s);
      Val a = arg(floatOp(t, depth - 1, s), t);
      Val b = arg(floatOp(t, depth - 1, s), t);
      return {"select(" + c + ", " + a.text + ", " + b.text + ")", t,
              a.mag > b.mag ? a.mag : b.mag};
    }
    case 17: { // ternary
      std::string c = cond(s);
      Val a = arg(floatOp(t, depth - 1, s), t);
      Val b = arg(floatOp(t, depth - 1, s), t);
      return {"(" + c + " ? " + a.text + " : " + b.text + ")", t, a.mag > b.mag ? a.mag : b.mag};
    }
    case 18: { // scaled by a literal
      Val a = floatOp(t, depth - 1, s);
      const char *f = rng.pick({"0.5", "0.25", "2.0", "1.5"});
      return fit({"(" + a.text + " * " + f + ")", t, a.mag * std::atof(f), false, a.lit});
    }
    default: { // a value converted from i32
      Val a = intOp(depth - 1, s);
      return fit({T + "(" + a.text + ")", t, a.mag});
    }
    }
  }

  Val intOp(int depth, const Scope &s) {
    const Ty t = Ty::I32;
    if (depth <= 0 || rng.chance(25))
      return leaf(t, s);
    size_t op = rng.weighted({5, 4, 3, 2, 2, 1, 2, 2, 2});
    auto cap = [](Val v) {
      if (v.mag > 1e6)
        return Val{"(" + v.text + " % 1000)", Ty::I32, 1000.0, v.exact, v.lit};
      return v;
    };
    switch (op) {
    case 0:
    case 1: {
      Val a = intOp(depth - 1, s);
      Val b = intOp(depth - 1, s);
      return cap({"(" + a.text + (op == 0 ? " + " : " - ") + b.text + ")", t, a.mag + b.mag,
                  a.exact && b.exact, a.lit && b.lit});
    }
    case 2: {
      // Products stay below 2^31: signed overflow would be undefined.
      Val a = intOp(depth - 1, s);
      Val b = intOp(depth - 1, s);
      if (a.mag > 1e6)
        a = {"(" + a.text + " % 1000)", t, 1000.0, a.exact, a.lit};
      if (a.mag * b.mag > 1e9)
        b = {"(" + b.text + " % 16)", t, 16.0, b.exact, b.lit};
      return cap({"(" + a.text + " * " + b.text + ")", t, a.mag * b.mag, a.exact && b.exact,
                  a.lit && b.lit});
    }
    case 3:
    case 4: {
      Val a = arg(intOp(depth - 1, s), t);
      Val b = arg(intOp(depth - 1, s), t);
      return {std::string(op == 3 ? "max(" : "min(") + a.text + ", " + b.text + ")", t,
              a.mag > b.mag ? a.mag : b.mag, a.exact && b.exact};
    }
    case 5: {
      Val a = arg(intOp(depth - 1, s), t);
      return {"abs(" + a.text + ")", t, a.mag, a.exact};
    }
    case 6: { // remainder / quotient by a positive constant
      Val a = intOp(depth - 1, s);
      int64_t d = rng.pick({3, 4, 7, 16});
      bool rem = rng.chance(60);
      return {"(" + a.text + (rem ? " % " : " / ") + std::to_string(d) + ")", t,
              rem ? static_cast<double>(d) : a.mag, a.exact, a.lit};
    }
    case 7: {
      std::string c = cond(s);
      Val a = arg(intOp(depth - 1, s), t);
      Val b = arg(intOp(depth - 1, s), t);
      return {"select(" + c + ", " + a.text + ", " + b.text + ")", t, a.mag > b.mag ? a.mag : b.mag,
              a.exact && b.exact};
    }
    default: {
      std::string c = cond(s);
      Val a = arg(intOp(depth - 1, s), t);
      Val b = arg(intOp(depth - 1, s), t);
      return {"(" + c + " ? " + a.text + " : " + b.text + ")", t, a.mag > b.mag ? a.mag : b.mag,
              a.exact && b.exact};
    }
    }
  }
};

//===----------------------------------------------------------------------===//
// Shared pieces of the templates
//===----------------------------------------------------------------------===//

/// `v` if it reads `elem`, else `elem + v`: an epilogue must not drop the value it is given
/// (a wrong product would go unnoticed).
std::string dependOn(const std::string &elem, const Val &v) {
  if (v.text.find(elem) != std::string::npos)
    return v.text;
  return "(" + elem + " + " + v.text + ")";
}

/// Index conditions of a 2-D point (r, c) in a tile whose global indices are `row`, `col`.
void addPointConds(Scope &s, const std::string &r, const std::string &c, const std::string &row,
                   const std::string &col, const std::string &rows, const std::string &cols) {
  s.conds.push_back("(" + r + " < " + c + ")");
  s.conds.push_back("(" + c + " % 2 == 0)");
  s.conds.push_back("((" + r + " + " + c + ") % 3 != 0)");
  s.conds.push_back("(" + row + " < " + rows + " - 1)");
  s.conds.push_back("(" + col + " >= " + cols + " / 2)");
  s.conds.push_back("(" + r + " == 0)");
}

/// Float leaves made from the point's indices (small, exact).
void addIndexVals(Scope &s, const std::string &r, const std::string &c) {
  s.add("f32(" + r + " % 4)", Ty::F32, 3.0, true);
  s.add("f32(" + c + " % 8) * 0.125", Ty::F32, 1.0, false);
}

/// A thread count: a multiple of 32 from 32 to 256, sometimes as `WARPS * 32`.
std::string threadsText(Kernel &k, int64_t warps) {
  if (k.useParams && k.rng.chance(40)) {
    Dim w = k.constant("WARPS", warps);
    return w.text + " * 32";
  }
  return std::to_string(warps * 32);
}

/// A loop header over `n` K-tiles named `var`: pipelined or plain.
std::string kLoop(Kernel &k, const std::string &var, const std::string &n, bool pipelined) {
  if (!pipelined)
    return "for " + var + " in range(" + n + ")";
  int64_t stages = k.rng.pick({1, 2, 2, 2, 3, 3, 4, 8});
  Dim s = k.constant("STAGES", stages);
  return "for " + var + " in pipelined(" + n + ", stages = " + s.text + ")";
}

/// Picks the output element type of a gemm-like result.
Ty outputTy(Rng &rng, Ty in) { return rng.pick({in, in, Ty::F32, Ty::BF16, Ty::F16}); }

/// An epilogue statement on the accumulator-shaped fragment `acc` (rows `rowBase + r`, columns
/// `colBase + c`): `acc[r, c] = f(acc[r, c], ...)`.
void epilogueStatement(Kernel &k, ExprGen &eg, const Buffer &acc, const Scope &outer,
                       const std::string &rowIdx, const std::string &colIdx, double accMag) {
  Rng &rng = k.rng;
  Scope s = outer;
  s.add(acc.name + "[r, c]", acc.ty, accMag);
  k.open("parallel (r, c) in " + acc.name);
  k.line("let row = " + rowIdx + ";");
  k.line("let col = " + colIdx + ";");
  if (rng.chance(40)) {
    Val v = eg.value(acc.ty, 2, s);
    std::string n = k.fresh("v");
    k.line("let " + n + " = " + v.text + ";");
    s.add(n, acc.ty, v.mag);
    s.add(n, acc.ty, v.mag); // twice as likely as the other leaves
  }
  Val v = eg.value(acc.ty, rng.range(1, 3), s);
  k.line(acc.name + "[r, c] = " + dependOn(acc.name + "[r, c]", v) + ";");
  k.close();
}

//===----------------------------------------------------------------------===//
// Template: GEMM main loop with an epilogue
//===----------------------------------------------------------------------===//

void genGemm(Kernel &k, bool dequant) {
  Rng &rng = k.rng;
  k.templ = dequant ? "dequant-gemm" : "gemm";
  // Precision: bf16/f16 products in f32 (most), i8 in i32 (exact), f16 in f16, 8-bit floats in
  // f32 (wgmma k32 on sm_90a with B K-major; f16 copies of the tiles elsewhere). 8-bit values are
  // only stored, converted and multiplied: every other use goes through f32(...) casts.
  size_t prec = dequant ? 0 : rng.weighted({84, 7, 5, 4});
  bool integer = prec == 1, float8 = prec == 3;
  Ty t = integer     ? Ty::I8
         : prec == 2 ? Ty::F16
         : float8    ? rng.pick({Ty::F8E4M3, Ty::F8E5M2})
                     : rng.pick({Ty::BF16, Ty::F16});
  Ty accTy = integer ? Ty::I32 : prec == 2 ? Ty::F16 : Ty::F32;
  if (rng.chance(40))
    k.typeParam("T", t);
  // Most kernels aim at a tensor-core strategy: shapes the wgmma ring takes (64-row tiles on
  // whole warpgroups, a warpgroup's columns of a row-major B in 64-column blocks), accumulator
  // uses its register layout supports; for plain loops (the register strategy) warps that
  // split the rows into 16-row tiles. The rest is random and mostly generic.
  bool aimTc = (prec == 0 || float8) && rng.chance(80);
  int64_t warps = aimTc ? rng.pick({4, 4, 8}) : rng.pick({1, 2, 4, 8});
  int64_t bm = aimTc ? rng.pick({64, 64, 128, 128, 192})
                     : rng.pick({8, 16, 16, 32, 32, 48, 64, 64, 96, 128});
  int64_t bn =
      aimTc ? rng.pick({64, 64, 128, 128, 96}) : rng.pick({8, 16, 16, 32, 32, 48, 64, 64, 96, 128});
  int64_t bk = aimTc ? rng.pick({16, 32, 32, 64}) : rng.pick({16, 32, 32, 64, 16, 32, 32, 64, 48});
  bool transA = !dequant && !aimTc && rng.chance(25);
  bool transB = rng.chance(35);
  if (aimTc && bm == 192)
    warps = 4;
  // wgmma reads 8-bit operands K-major only, 32 of them per k step; a row-major B (30 %) is
  // converted to f16 tiles first (tile-widen-gemm-operands), then wgmma with an MN-major B.
  if (aimTc && float8) {
    transB = rng.chance(70);
    bk = std::max<int64_t>(bk, 32);
  }
  if (aimTc && bn == 96)
    transB = true; // a row-major B needs 64-column blocks
  bool batched = rng.chance(aimTc ? 4 : 15);
  bool split = !batched && !dequant && rng.chance(12);
  // Several output tiles per block along N: the main loop nested in a loop over them.
  int64_t tilesPerBlock = !split && rng.chance(8) ? 2 : 1;
  // A second product: into the same accumulator (A2 B2) or into a second one (A B2, gated).
  size_t second = dequant ? 0 : rng.weighted({80, 10, 10});
  // How A reaches the gemm. gemm: 0 copied to shared, 1 copied to a fragment, 2 scaled into a
  // fragment by a `parallel`, 3 copied to shared and then to a fragment. dequant: 0 = B is
  // dequantized into shared memory, 1 = A is dequantized into a fragment.
  size_t aMode = dequant ? rng.weighted({5, 5}) : rng.weighted({80, 6, integer ? 0 : 9, 5});
  if (!dequant && (transA || aimTc))
    aMode = aimTc && rng.chance(20) ? 2 : 0;
  size_t loopKind =
      rng.weighted({aimTc ? 65 : 45, 25, 10}); // pipelined, range(cdiv), range(0, K, BK)
  size_t outMode = rng.weighted({40, 20, aimTc ? 4 : 12, 8, split ? 60 : 6, 8});
  // Split-K blocks (block.z) each hold a partial product of the same output tile: only atomic
  // sums combine them deterministically (stores would race; the campaign caught it).
  if (split)
    outMode = 4;
  // 0 copy acc -> C, 1 parallel stores, 2 through shared, 3 transposed stores, 4 atomic_add,
  // 5 through a fragment of the output type.
  Ty cTy = outMode == 4 ? (integer ? Ty::I32 : Ty::F32)
           : integer    ? Ty::I32
           : prec == 2  ? rng.pick({Ty::F16, Ty::F32})
                        : outputTy(rng, t);
  // None, sum -> atomics, max -> softmax-like.
  size_t rowStat = rng.weighted({aimTc ? 92 : 60, aimTc ? 4 : 20, aimTc || integer ? 0 : 20});
  if (aimTc && warps == 8 && bm == 64 && !transB)
    bn = 128;
  // Shared/fragment bytes: A and B tiles (their quantized or second forms), the accumulators,
  // the output tile staged through a buffer.
  auto bytes = [&] {
    int64_t operands = (bm * bk + bk * bn) * tyBytes(t) * (dequant || aMode == 3 ? 2 : 1);
    if (second == 1)
      operands += (bm * bk + bk * bn) * tyBytes(t);
    if (second == 2)
      operands += bk * bn * tyBytes(t) + bm * bn * tyBytes(accTy);
    return operands + bm * bn * tyBytes(accTy) +
           (outMode == 2 || outMode == 5 ? bm * bn * tyBytes(cTy) : 0) + bm * 4;
  };
  while (bytes() > kMaxBufferBytes) {
    if (bk > 32)
      bk /= 2;
    else if (bn >= bm && bn > 16)
      bn /= 2;
    else
      bm = aimTc && bm == 192 ? 128 : bm / 2; // aimed tiles stay whole 64-row wgmma tiles
  }
  if (aimTc && loopKind != 0)
    warps = std::min<int64_t>(warps, bm / 16);
  Dim BM = k.constant("BM", bm), BN = k.constant("BN", bn), BK = k.constant("BK", bk);
  k.threads = threadsText(k, warps);
  std::string T = k.ty(t);
  std::string accT = k.ty(accTy);
  std::string zero = integer ? "0" : "0.0";
  std::string z = batched ? "block.z, " : "";
  std::vector<std::string> lead;
  if (batched)
    lead.push_back("NB");
  auto dims = [&](std::vector<std::string> d) {
    d.insert(d.begin(), lead.begin(), lead.end());
    return d;
  };
  // Strides: padded rows or a transposed view, on the inputs.
  auto strides = [&](const std::string &ld) -> std::vector<std::string> {
    int roll = static_cast<int>(rng.range(0, 99));
    if (batched || roll >= 25)
      return {};
    if (roll < 15)
      return {ld, "1"};
    return {"1", ld};
  };
  auto bDims = [&] {
    return dims(transB ? std::vector<std::string>{"N", "K"} : std::vector<std::string>{"K", "N"});
  };

  // Operands.
  Ty qTy = rng.pick({Ty::U8, Ty::U8, Ty::I32, Ty::F32, Ty::F16});
  bool aQuant = dequant && aMode == 1;
  bool bQuant = dequant && aMode == 0;
  if (transA)
    k.tensor("At", t, dims({"K", "M"}), strides("lda"));
  else
    k.tensor("A", aQuant ? qTy : t, dims({"M", "K"}),
             aQuant ? std::vector<std::string>{} : strides("lda"));
  k.tensor("B", bQuant ? qTy : t, bDims(), bQuant ? std::vector<std::string>{} : strides("ldb"));
  if (second == 1)
    k.tensor(
        transA ? "A2t" : "A2", t,
        dims(transA ? std::vector<std::string>{"K", "M"} : std::vector<std::string>{"M", "K"}));
  if (second)
    k.tensor("B2", t, bDims(), strides("ldb2"));
  bool scaleVec = dequant && rng.chance(60);
  if (scaleVec)
    k.tensor("qs", Ty::F32, {bQuant ? "N" : "M"});

  // Epilogue inputs.
  bool bias = rng.chance(45);
  Ty biasTy = integer ? Ty::I32 : rng.pick({Ty::F32, t});
  if (bias)
    k.tensor("bias", biasTy, {"N"});
  bool residual = !integer && rng.chance(20);
  if (residual)
    k.tensor("R", t, dims({"M", "N"}));
  bool alpha = !integer && (rng.chance(40) || (dequant && !scaleVec));
  if (alpha)
    k.scalar("alpha", Ty::F32);

  // Outputs.
  if (outMode == 3) {
    k.tensor("CT", cTy, dims({"N", "M"}));
    k.stores.push_back("CT");
  } else {
    std::vector<std::string> cStrides;
    if (!batched && rng.chance(10))
      cStrides = {"ldc", "1"};
    k.tensor("C", cTy, dims({"M", "N"}), cStrides);
    (outMode == 4 ? k.atomics : k.stores).push_back("C");
  }
  Ty rsTy = integer ? Ty::I32 : Ty::F32;
  if (rowStat == 1) {
    k.tensor("rs_out", rsTy, dims({"M"}));
    k.atomics.push_back("rs_out");
  }

  Dim SPLIT{"1", 1};
  if (split)
    SPLIT = k.constant("SPLIT", rng.range(2, 4));
  k.grid = {"cdiv(N, " + BN.text + (tilesPerBlock > 1 ? " * 2" : "") + ")",
            "cdiv(M, " + BM.text + ")"};
  if (batched)
    k.grid.push_back("NB");
  if (split)
    k.grid.push_back(SPLIT.text);

  // Buffers.
  std::vector<Dim> aShape = transA ? std::vector<Dim>{BK, BM} : std::vector<Dim>{BM, BK};
  std::vector<Dim> bShape = transB ? std::vector<Dim>{BN, BK} : std::vector<Dim>{BK, BN};
  bool aShared = dequant ? !aQuant : aMode == 0 || aMode == 3;
  bool aFragment = dequant ? aQuant : aMode != 0;
  if (aShared)
    k.buffer("shared", "As", t, aShape);
  if (aFragment)
    k.buffer("fragment", "Af", t, aShape);
  std::string aName = aFragment ? "Af" : "As";
  k.buffer("shared", "Bs", t, bShape);
  if (second == 1)
    k.buffer("shared", "As2", t, aShape);
  if (second)
    k.buffer("shared", "Bs2", t, bShape);
  bool bStage = bQuant && rng.chance(60) && qTy != Ty::F16;
  if (bStage)
    k.buffer("shared", "Bq", qTy, bShape);
  Buffer acc = k.buffer("fragment", "acc", accTy, {BM, BN});
  Buffer acc2;
  if (second == 2)
    acc2 = k.buffer("fragment", "acc2", accTy, {BM, BN});
  if (rowStat)
    k.buffer("fragment", "rs", accTy, {BM});

  std::string rowBase = "block.y * " + BM.text;
  std::string colBase = "block.x * " + BN.text;
  if (tilesPerBlock > 1) {
    k.open("for tt in range(2)");
    colBase = "(block.x * 2 + tt) * " + BN.text;
  }
  bool clearFirst = !split && !rng.chance(aimTc ? 95 : 80);
  if (!clearFirst) {
    // The first product clears the accumulators otherwise (peeled out of the loop below).
    std::string init = zero;
    if (rng.chance(10))
      init = integer ? "3" : alpha ? (accTy == Ty::F32 ? "alpha" : accT + "(alpha)") : "0.5";
    k.line("fill(acc, " + init + ");");
    if (second == 2)
      k.line("fill(acc2, " + zero + ");");
  }
  // A uniform branch around the products in the loop (always taken).
  bool guardGemm = rng.chance(6);

  // The main loop.
  if (split || clearFirst)
    loopKind = loopKind == 2 ? 1 : loopKind;
  std::string kOff;
  std::string header;
  if (split) {
    header = kLoop(k, "kk", "cdiv(K, " + BK.text + " * " + SPLIT.text + ")", loopKind == 0);
    kOff = "(kk * " + SPLIT.text + " + block.z) * " + BK.text;
  } else if (loopKind == 2) {
    header = "for k in range(0, K, " + BK.text + ")";
    kOff = "k";
  } else {
    header = kLoop(k, "k", "cdiv(K, " + BK.text + ")", loopKind == 0);
    kOff = "k * " + BK.text;
  }

  auto quantValue = [&](const std::string &elem, Ty q) -> std::string {
    // A dequantized value of magnitude <= ~1 as f32.
    switch (q) {
    case Ty::U8:
      return "f32(" + elem + " - 128) * 0.0078125";
    case Ty::I32:
      return "f32(" + elem + " % 16 - 8) * 0.125";
    case Ty::F16:
      return "f32(" + elem + ")";
    default:
      return elem;
    }
  };
  auto emitBody = [&](const std::string &kOffset, bool clear) {
    std::string aOff = transA ? kOffset + ", " + rowBase : rowBase + ", " + kOffset;
    std::string aTensor = transA ? "At" : "A";
    // A operand.
    if (dequant ? !aQuant : aMode == 0) {
      k.line("copy(" + aTensor + "[" + z + aOff + "], As);");
    } else if (!dequant && aMode == 1) {
      k.line("copy(A[" + z + aOff + "], Af);");
    } else if (!dequant && aMode == 3) {
      k.line("copy(" + aTensor + "[" + z + aOff + "], As);");
      k.line("copy(As, Af);");
    } else {
      k.open("parallel (r, c) in Af");
      std::string elem = "A[" + z + rowBase + " + r, " + kOffset + " + c]";
      std::string v = aQuant ? quantValue(elem, qTy) : "f32(" + elem + ")";
      std::string scale = scaleVec ? " * qs[" + rowBase + " + r]" : alpha ? " * alpha" : "";
      if (!aQuant && !alpha)
        scale = " * 0.5";
      k.line("Af[r, c] = " + T + "(" + v + scale + ");");
      k.close();
    }
    // B operand.
    std::string bOff = transB ? colBase + ", " + kOffset : kOffset + ", " + colBase;
    if (!bQuant) {
      k.line("copy(B[" + z + bOff + "], Bs);");
    } else {
      std::string gIdx =
          transB ? colBase + " + r, " + kOffset + " + c" : kOffset + " + r, " + colBase + " + c";
      std::string colOf = transB ? "r" : "c";
      std::string elem;
      if (bStage) {
        k.line("copy(B[" + z + bOff + "], Bq);");
        elem = "Bq[r, c]";
      } else {
        elem = "B[" + z + gIdx + "]";
      }
      std::string scale = scaleVec ? " * qs[" + colBase + " + " + colOf + "]"
                          : alpha  ? " * alpha"
                                   : "";
      k.open("parallel (r, c) in Bs");
      k.line("Bs[r, c] = " + T + "(" + quantValue(elem, qTy) + scale + ");");
      k.close();
    }
    if (second == 1)
      k.line("copy(" + std::string(transA ? "A2t" : "A2") + "[" + z + aOff + "], As2);");
    if (second)
      k.line("copy(B2[" + z + bOff + "], Bs2);");
    std::string opts;
    if (transA)
      opts += ", transpose_a = true";
    if (transB)
      opts += ", transpose_b = true";
    std::string clearOpt = clear ? ", clear = true" : "";
    if (guardGemm && !clear)
      k.open("if " + kOffset + " < K");
    k.line("gemm(" + aName + ", Bs, acc" + opts + clearOpt + ");");
    if (second == 1)
      k.line("gemm(As2, Bs2, acc" + opts + ");");
    if (second == 2)
      k.line("gemm(" + aName + ", Bs2, acc2" + opts + clearOpt + ");");
    if (guardGemm && !clear)
      k.close();
  };

  if (clearFirst) {
    // The first K tile clears the accumulator; the loop runs over the rest.
    emitBody("0", true);
    std::string h = loopKind == 0 ? kLoop(k, "k", "cdiv(K, " + BK.text + ") - 1", true)
                                  : "for k in range(1, cdiv(K, " + BK.text + "))";
    k.open(h);
    emitBody(loopKind == 0 ? "(k + 1) * " + BK.text : "k * " + BK.text, false);
    k.close();
  } else {
    k.open(header);
    emitBody(kOff, false);
    k.close();
  }

  // Epilogue.
  ExprGen eg(rng, k);
  Scope s;
  std::string rowIdx = rowBase + " + r", colIdx = colBase + " + c";
  addPointConds(s, "r", "c", "row", "col", "M", "N");
  if (bias)
    s.add(biasTy == Ty::F32 || biasTy == Ty::I32 ? "bias[col]" : "f32(bias[col])",
          integer ? Ty::I32 : Ty::F32, integer ? 1000.0 : 1.0, true);
  if (residual)
    s.add("f32(R[" + z + "row, col])", Ty::F32, 1.0, true);
  if (alpha)
    s.add("alpha", Ty::F32, 4.0);
  if (integer)
    s.add("i32(c)", Ty::I32, 128.0, true);
  else if (rng.chance(30))
    addIndexVals(s, "r", "c");
  double accMag = integer ? 2e7 : 16.0; // i8 products: up to 2^14 per k step

  if (second == 2) {
    // Gated: acc = acc * g(acc2).
    k.open("parallel (r, c) in acc");
    if (integer)
      k.line("acc[r, c] = acc[r, c] - acc2[r, c] % 1024;");
    else
      k.line("acc[r, c] = acc[r, c] * " +
             rng.pick<std::string>({"tanh(acc2[r, c])", "exp2(-abs(acc2[r, c]))",
                                    "(acc2[r, c] / (abs(acc2[r, c]) + 1.0))"}) +
             ";");
    k.close();
  }
  if (rowStat == 2) {
    k.line("reduce(acc, rs, dim = 1, op = max);");
    k.open("parallel (r, c) in acc");
    k.line("acc[r, c] = exp2(acc[r, c] - rs[r]);");
    k.close();
  }
  int statements = static_cast<int>(rng.range(0, 2));
  for (int i = 0; i < statements; ++i) {
    if (rng.chance(20)) {
      // A block-uniform branch around the epilogue.
      std::string c = rng.pick<std::string>(
          {"block.x % 2 == 0", "K > " + BK.text, "M >= N", "block.y == 0", "N % 2 == 1"});
      k.open("if " + c);
      epilogueStatement(k, eg, acc, s, rowIdx, colIdx, accMag);
      k.elseOpen();
      epilogueStatement(k, eg, acc, s, rowIdx, colIdx, accMag);
      k.close();
    } else {
      epilogueStatement(k, eg, acc, s, rowIdx, colIdx, accMag);
    }
  }
  if (accTy == Ty::F32 && rng.chance(10)) {
    // Uses the accumulator's register layout does not serve: each goes through a layout
    // conversion (shared memory) in the register strategy, the gemms keep tensor cores.
    // The transposed copy only where it fits the buffer budget (the tiles were sized without it).
    if (bm == bn && rng.chance(50) && k.bufferBytes + bm * bn * 4 <= kMaxBufferBytes) {
      std::string at = k.fresh("at");
      k.lines.insert(k.lines.begin(),
                     "  let " + at + " = fragment<f32>[" + BM.text + ", " + BN.text + "];");
      k.bufferBytes += bm * bn * 4;
      k.open("parallel (r, c) in " + at);
      k.line(at + "[r, c] = acc[c, r];"); // the transposed point
      k.close();
      k.open("parallel (r, c) in acc");
      k.line("acc[r, c] = acc[r, c] + 0.5 * " + at + "[r, c];");
      k.close();
    } else {
      std::string cs = k.fresh("cs");
      k.lines.insert(k.lines.begin(), "  let " + cs + " = fragment<f32>[" + BN.text + "];");
      k.bufferBytes += bn * 4;
      k.line("reduce(acc, " + cs + ", dim = 0, op = max);"); // along the columns
      k.open("parallel (r, c) in acc");
      k.line("acc[r, c] = acc[r, c] - 0.5 * " + cs + "[c];");
      k.close();
    }
  }
  if (rowStat == 1) {
    k.line("reduce(acc, rs, dim = 1, op = sum);");
    k.open("parallel (r) in rs");
    std::string v = accTy == rsTy ? "rs[r]" : k.ty(rsTy) + "(rs[r])";
    k.line("atomic_add(rs_out[" + z + rowBase + " + r], " + v + ");");
    k.close();
  }

  // Output.
  std::string cT = k.ty(cTy);
  auto convert = [&](const std::string &v) { return cTy == accTy ? v : cT + "(" + v + ")"; };
  auto storeAll = [&](const std::string &dstOf) {
    // parallel stores of an expression of the accumulator.
    Scope so = s;
    so.add("acc[r, c]", accTy, accMag);
    so.add("acc[r, c]", accTy, accMag);
    k.open("parallel (r, c) in acc");
    k.line("let row = " + rowIdx + ";");
    k.line("let col = " + colIdx + ";");
    Val v = eg.value(accTy, static_cast<int>(rng.range(0, 2)), so);
    k.line(dstOf + " = " + convert(dependOn("acc[r, c]", v)) + ";");
    k.close();
  };
  switch (outMode) {
  case 0:
    if (rng.chance(12)) {
      // Either way each element is written once, by one block.
      k.open("if " + rng.pick<std::string>({"block.x % 2 == 0", "M > N", "block.y == 1"}));
      k.line("copy(acc, C[" + z + rowBase + ", " + colBase + "]);");
      k.elseOpen();
      storeAll("C[" + z + "row, col]");
      k.close();
    } else {
      k.line("copy(acc, C[" + z + rowBase + ", " + colBase + "]);");
    }
    break;
  case 1:
    storeAll("C[" + z + "row, col]");
    break;
  case 3:
    storeAll("CT[" + z + "col, row]");
    break;
  case 2:
    // The output tile staged in shared memory.
    k.lines.insert(k.lines.begin(),
                   "  let Cs = shared<" + cT + ">[" + BM.text + ", " + BN.text + "];");
    k.bufferBytes += bm * bn * tyBytes(cTy);
    k.line("copy(acc, Cs);");
    k.line("copy(Cs, C[" + z + rowBase + ", " + colBase + "]);");
    break;
  case 4:
    k.open("parallel (r, c) in acc");
    k.line("atomic_add(C[" + z + rowIdx + ", " + colIdx + "], " + convert("acc[r, c]") + ");");
    k.close();
    break;
  default:
    k.lines.insert(k.lines.begin(),
                   "  let Co = fragment<" + cT + ">[" + BM.text + ", " + BN.text + "];");
    k.bufferBytes += bm * bn * tyBytes(cTy);
    k.open("parallel (r, c) in acc");
    k.line("Co[r, c] = " + convert("acc[r, c]") + ";");
    k.close();
    k.line("copy(Co, C[" + z + rowBase + ", " + colBase + "]);");
    break;
  }
  if (tilesPerBlock > 1)
    k.close();
}

//===----------------------------------------------------------------------===//
// Template: attention-like loop with online softmax
//===----------------------------------------------------------------------===//

void genAttention(Kernel &k) {
  Rng &rng = k.rng;
  k.templ = "attention";
  Ty t = rng.pick({Ty::BF16, Ty::F16});
  if (rng.chance(40))
    k.typeParam("T", t);
  std::string T = k.ty(t);
  int64_t warps = rng.pick({1, 2, 4, 4, 8});
  int64_t bm = 16 * warps * rng.pick({1, 1, 2});
  if (bm > 128)
    bm = 128;
  int64_t bn = rng.pick({16, 32, 32, 64});
  int64_t d = rng.pick({16, 32, 64, 64, 128});
  bool kT = rng.chance(20);      // K given as [D, S]: B row-major
  bool pShared = rng.chance(12); // P through shared memory (generic)
  bool causal = !kT && rng.chance(30);
  bool rank3 = rng.chance(40);
  bool softcap = rng.chance(15);
  bool useExp = rng.chance(15); // exp instead of exp2
  bool simple = rng.chance(15); // no online softmax: O = T(S * scale) V
  bool lse = !simple && rng.chance(25);
  auto bytes = [&] {
    return (bm * d + 2 * bn * d) * 2 + bm * bn * 6 + bm * d * 4 + 3 * bm * 4 +
           (pShared ? bm * bn * 2 : 0);
  };
  while (bytes() > kMaxBufferBytes) {
    if (d > 32 && d >= bn)
      d /= 2;
    else if (bn > 16)
      bn /= 2;
    else if (bm > 16)
      bm /= 2;
    else
      break;
  }
  // The register strategy gives each warp whole 16-row tiles; a few kernels keep a misfit.
  if (bm % (16 * warps) != 0 && rng.chance(85))
    warps = bm / 16;
  Dim BM = k.constant("BM", bm), BN = k.constant("BN", bn), D = k.constant("D", d);
  k.threads = threadsText(k, warps);
  std::string h = rank3 ? "block.y, " : "";
  std::vector<std::string> lead;
  if (rank3)
    lead.push_back("H");
  auto dims = [&](std::vector<std::string> v) {
    v.insert(v.begin(), lead.begin(), lead.end());
    return v;
  };
  std::string sk = causal || rng.chance(50) ? "S" : "SK";
  k.tensor("Q", t, dims({"S", D.text}));
  if (kT)
    k.tensor("KT", t, dims({D.text, sk}));
  else
    k.tensor("K", t, dims({sk, D.text}));
  k.tensor("V", t, dims({sk, D.text}));
  Ty oTy = rng.pick({t, t, Ty::F32});
  k.tensor("O", oTy, dims({"S", D.text}));
  k.stores.push_back("O");
  if (lse) {
    k.tensor("L", Ty::F32, dims({"S"}));
    k.stores.push_back("L");
  }
  k.scalar("scale", Ty::F32);
  k.grid = {"cdiv(S, " + BM.text + ")"};
  if (rank3)
    k.grid.push_back("H");

  k.buffer("shared", "Qs", t, {BM, D});
  k.buffer("shared", "Ks", t, kT ? std::vector<Dim>{D, BN} : std::vector<Dim>{BN, D});
  k.buffer("shared", "Vs", t, {BN, D});
  k.buffer("fragment", "s", Ty::F32, {BM, BN});
  k.buffer("fragment", "p", t, {BM, BN});
  if (pShared)
    k.buffer("shared", "Ps", t, {BM, BN});
  k.buffer("fragment", "o", Ty::F32, {BM, D});
  if (!simple) {
    k.buffer("fragment", "m", Ty::F32, {BM});
    k.buffer("fragment", "m_new", Ty::F32, {BM});
    k.buffer("fragment", "l", Ty::F32, {BM});
  }
  std::string q0 = "block.x * " + BM.text;
  k.line("copy(Q[" + h + q0 + ", 0], Qs);");
  k.line("fill(o, 0.0);");
  if (!simple) {
    k.line("fill(l, 0.0);");
    k.line("fill(m, -inf);");
  }
  std::string nBlocks = "cdiv(" + sk + ", " + BN.text + ")";
  if (causal)
    nBlocks = "min(cdiv((block.x + 1) * " + BM.text + ", " + BN.text + "), " + nBlocks + ")";
  if (rng.chance(50)) {
    k.line("let n_blocks = " + nBlocks + ";");
    nBlocks = "n_blocks";
  }
  k.open(kLoop(k, "j", nBlocks, rng.chance(60)));
  if (kT)
    k.line("copy(KT[" + h + "0, j * " + BN.text + "], Ks);");
  else
    k.line("copy(K[" + h + "j * " + BN.text + ", 0], Ks);");
  k.line("copy(V[" + h + "j * " + BN.text + ", 0], Vs);");
  k.line(std::string("gemm(Qs, Ks, s") + (kT ? "" : ", transpose_b = true") + ", clear = true);");
  if (softcap) {
    k.open("parallel (r, c) in s");
    k.line("s[r, c] = 8.0 * tanh(s[r, c] * 0.125);");
    k.close();
  }
  std::string maskCond = "k >= " + sk;
  if (causal)
    maskCond = "(" + maskCond + " || k > q)";
  bool guard = rng.chance(50);
  if (guard) {
    std::string g = "(j + 1) * " + BN.text + " > " + sk;
    if (causal)
      g += " || (j + 1) * " + BN.text + " > " + q0 + " + 1";
    k.open("if " + g);
  }
  k.open("parallel (r, c) in s");
  if (causal)
    k.line("let q = " + q0 + " + r;");
  k.line("let k = j * " + BN.text + " + c;");
  k.line("s[r, c] = select(" + maskCond + ", " + (simple ? "0.0" : "-inf") + ", s[r, c]);");
  k.close();
  if (guard)
    k.close();
  std::string ex = useExp ? "exp(" : "exp2(";
  if (simple) {
    k.open("parallel (r, c) in s");
    k.line("p[r, c] = " + T + "(tanh(s[r, c] * scale));");
    k.close();
  } else {
    k.line("reduce(s, m_new, dim = 1, op = max, init = m);");
    k.open("parallel (r, c) in o");
    k.line("o[r, c] = o[r, c] * " + ex + "(m[r] - m_new[r]) * scale);");
    k.close();
    k.open("parallel (r) in l");
    k.line("l[r] = l[r] * " + ex + "(m[r] - m_new[r]) * scale);");
    k.line("m[r] = m_new[r];");
    k.close();
    k.open("parallel (r, c) in s");
    if (rng.chance(50))
      k.line("s[r, c] = " + ex + "fma(s[r, c], scale, -(m[r] * scale)));");
    else
      k.line("s[r, c] = " + ex + "(s[r, c] - m[r]) * scale);");
    k.line("p[r, c] = " + T + "(s[r, c]);");
    k.close();
    k.line(rng.chance(70) ? "reduce(s, l, dim = 1, op = sum, accumulate = true);"
                          : "reduce(s, l, dim = 1, op = sum, init = l);");
  }
  if (pShared) {
    k.line("copy(p, Ps);");
    k.line("gemm(Ps, Vs, o);");
  } else {
    k.line("gemm(p, Vs, o);");
  }
  k.close();
  if (!simple) {
    k.open("parallel (r, c) in o");
    k.line("o[r, c] = o[r, c] / l[r];");
    k.close();
  }
  if (lse) {
    k.open("parallel (r) in l");
    k.line("L[" + h + q0 + " + r] = m[r] * scale + " + (useExp ? "log(" : "log2(") + "l[r]);");
    k.close();
  }
  if (rng.chance(70)) {
    k.line("copy(o, O[" + h + q0 + ", 0]);");
  } else {
    k.open("parallel (r, c) in o");
    std::string v = "o[r, c]";
    k.line("O[" + h + q0 + " + r, c] = " + (oTy == Ty::F32 ? v : k.ty(oTy) + "(" + v + ")") + ";");
    k.close();
  }
}

//===----------------------------------------------------------------------===//
// Template: element-wise kernels
//===----------------------------------------------------------------------===//

/// An input tensor of an element-wise kernel.
struct Input {
  std::string name;
  Ty ty;
};

void genElementwise(Kernel &k) {
  Rng &rng = k.rng;
  k.templ = "elementwise";
  ExprGen eg(rng, k);
  bool integer = rng.chance(20);
  Ty compute = integer ? Ty::I32 : rng.pick({Ty::F32, Ty::F32, Ty::F16, Ty::BF16});
  std::vector<Ty> inTys = integer ? std::vector<Ty>{Ty::I32, Ty::U8, Ty::I32}
                                  : std::vector<Ty>{Ty::F32, Ty::F16, Ty::BF16, compute};
  int rank = static_cast<int>(rng.weighted({25, 60, 15})) + 1;
  size_t mode = rng.weighted({45, 25, 15, 15});
  // 0: parallel over a tile of the grid; 1: staged through buffers; 2: a loop over column tiles
  // (grid over rows); 3: thread-level code with thread.x.
  if (rank == 1 && mode == 2)
    mode = 0;
  int64_t warps = rng.pick({1, 2, 4, 4, 8});
  k.threads = threadsText(k, warps);
  int64_t nt = warps * 32;

  Dim BM{"1", 1}, BN;
  if (rank == 1) {
    BN = k.constant("BLOCK", rng.pick({64, 128, 256, 512, 1024}));
  } else {
    int64_t bm = rng.pick({1, 2, 4, 8, 16, 32, 64}), bn = rng.pick({16, 32, 64, 128, 256});
    // Staged tiles: at most three buffers of 4096 elements.
    while (mode == 1 && bm * bn > 4096)
      bm /= 2;
    BM = k.constant("BM", bm);
    BN = k.constant("BN", bn);
  }
  if (mode == 3)
    BN = {std::to_string(nt), nt};
  std::vector<std::string> dims =
      rank == 1 ? std::vector<std::string>{"N"} : std::vector<std::string>{"M", "N"};
  if (rank == 3)
    dims.insert(dims.begin(), "NB");
  std::string z = rank == 3 ? "block.z, " : "";

  // Inputs (some strided), scalars, outputs.
  std::vector<Input> inputs;
  int nIn = static_cast<int>(rng.range(1, 3));
  for (int i = 0; i < nIn; ++i) {
    Input in{i == 0 ? "X" : i == 1 ? "U" : "V", rng.pick(inTys)};
    std::vector<std::string> st;
    if (rank >= 2 && rng.chance(20)) {
      std::string ld = "ld" + std::to_string(i);
      st = rank == 2 ? std::vector<std::string>{ld, "1"}
                     : std::vector<std::string>{"bs" + in.name, ld, "1"};
    }
    k.tensor(in.name, in.ty, dims, st);
    inputs.push_back(in);
  }
  bool rowVec = rank >= 2 && rng.chance(30);
  if (rowVec)
    k.tensor("bias", integer ? Ty::I32 : Ty::F32, {"N"});
  bool scalar = rng.chance(50);
  if (scalar)
    k.scalar("alpha", integer ? Ty::I32 : Ty::F32);
  std::vector<Input> outputs;
  int nOut = static_cast<int>(rng.range(1, 2));
  for (int i = 0; i < nOut; ++i) {
    Ty ot = integer ? rng.pick({Ty::I32, Ty::U8}) : rng.pick({Ty::F32, Ty::F16, Ty::BF16, compute});
    Input out{i == 0 ? "Y" : "Z", ot};
    k.tensor(out.name, ot, dims);
    k.stores.push_back(out.name);
    outputs.push_back(out);
  }

  // The grid: tiles of [BM, BN] (rank 1: BN), batches along z.
  if (rank == 1)
    k.grid = {"cdiv(N, " + BN.text + ")"};
  else if (mode == 2)
    k.grid = {"cdiv(M, " + BM.text + ")"};
  else
    k.grid = {"cdiv(N, " + BN.text + ")", "cdiv(M, " + BM.text + ")"};
  if (rank == 3) {
    if (k.grid.size() == 1)
      k.grid.push_back("1");
    k.grid.push_back("NB");
  }
  std::string rowBase = mode == 2 ? "block.x * " + BM.text : "block.y * " + BM.text;
  std::string colBase = mode == 2 ? "j * " + BN.text : "block.x * " + BN.text;

  // Staging buffers (mode 1).
  std::vector<Dim> tile = rank == 1 ? std::vector<Dim>{BN} : std::vector<Dim>{BM, BN};
  std::vector<std::string> staged;
  std::string stagedOut;
  Ty stagedOutTy = compute;
  bool square = false;
  if (mode == 1) {
    for (size_t i = 0; i < inputs.size() && i < 2; ++i) {
      std::string space = rng.pick({"shared", "fragment"});
      Ty bt = inputs[i].ty == Ty::U8 && rng.chance(50) ? Ty::I32 : inputs[i].ty;
      if (!integer && rng.chance(30))
        bt = compute;
      std::string n = "t" + inputs[i].name;
      k.buffer(space, n, bt, tile);
      staged.push_back(n);
      inputs[i].ty = bt;
    }
    if (rng.chance(60)) {
      stagedOut = "u";
      stagedOutTy = outputs[0].ty;
      k.buffer(rng.pick({"shared", "fragment"}), stagedOut, stagedOutTy, tile);
    }
    square = rank == 2 && BM.value == BN.value;
  }
  bool local = rng.chance(20);
  if (local)
    k.buffer("local", "tmp", compute, {{"2", 2}});

  // A per-thread variable computed the same way by every thread (uniform), used in the body.
  std::vector<Val> uniforms;
  if (mode != 3 && rng.chance(15)) {
    std::string n = k.fresh("u");
    std::string step = integer ? (scalar ? "alpha % 7" : "3") : (scalar ? "alpha * 0.25" : "0.5");
    k.line("var " + n + ": " + k.ty(compute) + " = " + (integer ? "1" : "0.25") + ";");
    k.open("for t in range(" + std::to_string(rng.range(1, 4)) + ")");
    if (integer)
      k.line(n + " = " + n + " * 2 + " + step + ";");
    else
      k.line(n + " = " + n + " * 0.5 + " +
             (compute == Ty::F32 ? step : k.ty(compute) + "(" + step + ")") + ";");
    k.close();
    uniforms.push_back({n, compute, integer ? 200.0 : 4.0});
  }
  for (size_t i = 0; i < staged.size(); ++i) {
    std::string off = rank == 1 ? colBase : rowBase + ", " + colBase;
    k.line("copy(" + inputs[i].name + "[" + z + off + "], " + staged[i] + ");");
  }

  // The element-wise body at one point.
  auto body = [&](const std::string &r, const std::string &c) {
    Scope s;
    std::string row = rank == 1 ? "" : "row";
    std::string col = "col";
    if (rank >= 2) {
      k.line("let row = " + rowBase + " + " + r + ";");
      addPointConds(s, r, c, "row", "col", "M", "N");
    } else {
      s.conds.push_back("(" + c + " % 2 == 0)");
      s.conds.push_back("(col < N - 1)");
      s.conds.push_back("(" + c + " < " + std::to_string(BN.value / 2) + ")");
    }
    k.line("let col = " + colBase + " + " + c + ";");
    std::string gidx = rank == 1 ? "col" : "row, col";
    std::string bidx = rank == 1 ? c : r + ", " + c;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Ty vt = valueTy(inputs[i].ty);
      double mag = vt == Ty::I32 ? (inputs[i].ty == Ty::U8 ? 255.0 : 1000.0) : 1.0;
      if (i < staged.size()) {
        s.add(staged[i] + "[" + bidx + "]", vt, mag, true);
        if (square && rng.chance(50))
          s.add(staged[i] + "[" + c + ", " + r + "]", vt, mag, true); // transposed read
      } else {
        s.add(inputs[i].name + "[" + z + gidx + "]", vt, mag, true);
        if (rng.chance(25)) // a neighbour (masked at the edges)
          s.add(inputs[i].name + "[" + z + (rank == 1 ? "col + 1" : "row, col + 1") + "]", vt, mag,
                true);
      }
      if (isFloat(vt) && rng.chance(30))
        s.conds.push_back("(" + s.vals.back().text + " > 0.0)");
      if (vt == Ty::I32 && rng.chance(30))
        s.conds.push_back("(" + s.vals.back().text + " % 3 == 1)");
    }
    if (rowVec)
      s.add("bias[col]", integer ? Ty::I32 : Ty::F32, integer ? 1000.0 : 1.0, true);
    if (scalar)
      s.add("alpha", integer ? Ty::I32 : Ty::F32, integer ? 1000.0 : 4.0, true);
    if (!integer && rng.chance(30))
      addIndexVals(s, rank == 1 ? c : r, c);
    if (integer)
      s.add("i32(" + c + ")", Ty::I32, static_cast<double>(BN.value), true);
    for (const Val &u : uniforms)
      s.vals.push_back(u);
    // A few lets, maybe a local scratch pair or a small reduction loop.
    int lets = static_cast<int>(rng.range(0, 2));
    for (int i = 0; i < lets; ++i) {
      Val v = eg.value(compute, 2, s);
      std::string n = k.fresh("v");
      k.line("let " + n + " = " + v.text + ";");
      s.add(n, compute, v.mag);
    }
    if (local) {
      Val a = eg.value(compute, 2, s);
      Val b = eg.value(compute, 2, s);
      k.line("tmp[0] = " + a.text + ";");
      k.line("tmp[1] = " + b.text + ";");
      s.add("tmp[0]", compute, a.mag);
      s.add("tmp[1]", compute, b.mag);
    }
    if (rng.chance(20) && !inputs.empty() && !(0 < staged.size())) {
      // A small window sum along the row (neighbours are inputs, never outputs).
      std::string n = k.fresh("w");
      Ty vt = valueTy(inputs[0].ty);
      std::string zero = vt == Ty::I32 ? "0" : "0.0";
      k.line("var " + n + ": " + k.ty(vt) + " = " + zero + ";");
      k.open("for t in range(3)");
      k.line(n + " = " + n + " + " + inputs[0].name + "[" + z +
             (rank == 1 ? "col + t" : "row, col + t") + "];");
      k.close();
      s.add(n, vt, vt == Ty::I32 ? 3000.0 : 3.0);
    }
    // Stores.
    int branches = static_cast<int>(rng.weighted({75, 15, 10})) + 1;
    bool branch = branches > 1;
    for (int pass = 0; pass < branches; ++pass) {
      if (pass == 0 && branch)
        k.open("if " + eg.cond(s));
      else if (pass + 1 < branches)
        k.elseOpen("else if " + eg.cond(s));
      else if (branch)
        k.elseOpen();
      for (size_t i = 0; i < outputs.size(); ++i) {
        Ty ot = valueTy(outputs[i].ty);
        Val v = eg.value(ot == Ty::I32 ? Ty::I32 : compute, static_cast<int>(rng.range(1, 3)), s);
        std::string text = v.text;
        if (valueTy(outputs[i].ty) != v.ty)
          text = k.ty(ot) + "(" + text + ")";
        if (i == 0 && !stagedOut.empty()) {
          if (valueTy(stagedOutTy) != ot)
            text = k.ty(valueTy(stagedOutTy)) + "(" + text + ")";
          k.line(stagedOut + "[" + bidx + "] = " + text + ";");
        } else {
          k.line(outputs[i].name + "[" + z + gidx + "] = " + text + ";");
        }
      }
      if (branch && pass + 1 == branches)
        k.close();
    }
  };

  bool uniformIf = rng.chance(15) && mode != 3;
  auto emitParallel = [&]() {
    std::string over;
    if (mode == 1 && rng.chance(50))
      over = staged.empty() ? (stagedOut.empty() ? "" : stagedOut) : staged[0];
    if (over.empty())
      over = rank == 1 ? "[" + BN.text + "]" : "[" + BM.text + ", " + BN.text + "]";
    k.open(rank == 1 ? "parallel (c) in " + over : "parallel (r, c) in " + over);
    body("r", "c");
    k.close();
  };

  if (mode == 3) {
    // Thread-level: each thread one column of the block's row (rank >= 2) or one element.
    k.grid = rank == 1 ? std::vector<std::string>{"cdiv(N, " + BN.text + ")"}
                       : std::vector<std::string>{"cdiv(N, " + BN.text + ")", "M"};
    if (rank == 3)
      k.grid.push_back("NB");
    rowBase = "block.y";
    if (rank >= 2)
      k.line("let r = 0;");
    k.line("let c = thread.x;");
    if (rng.chance(50)) {
      k.open("if block.x * " + BN.text + " + c < N");
      body("r", "c");
      k.close();
    } else {
      body("r", "c");
    }
    return;
  }
  if (mode == 2) {
    k.open("for j in range(cdiv(N, " + BN.text + "))");
    emitParallel();
    k.close();
    return;
  }
  if (uniformIf) {
    k.open("if " + rng.pick({std::string("block.x % 2 == 0"), std::string("N > 100"),
                             std::string("block.x == 0")}));
    emitParallel();
    k.elseOpen();
    emitParallel();
    k.close();
  } else {
    emitParallel();
  }
  if (!stagedOut.empty()) {
    std::string off = rank == 1 ? colBase : rowBase + ", " + colBase;
    k.line("copy(" + stagedOut + ", " + outputs[0].name + "[" + z + off + "]);");
  }
}

//===----------------------------------------------------------------------===//
// Template: reductions
//===----------------------------------------------------------------------===//

void genReduce(Kernel &k) {
  Rng &rng = k.rng;
  k.templ = "reduce";
  ExprGen eg(rng, k);
  Ty in = rng.pick({Ty::F32, Ty::F32, Ty::F16, Ty::BF16});
  Ty acc = rng.pick({Ty::F32, Ty::F32, Ty::F32, in});
  int64_t warps = rng.pick({1, 2, 4, 8});
  k.threads = threadsText(k, warps);
  size_t kind = rng.weighted({30, 20, 20, 15, 15});
  // 0 row reduce over whole rows, 1 softmax / normalize (two passes), 2 column reduce,
  // 3 partial row sums with atomic_add, 4 layer-norm-like (sum and sum of squares).
  std::string opName = rng.pick({"sum", "max", "min"});
  if (kind == 3)
    opName = "sum";
  std::string identity = opName == "sum" ? "0.0" : opName == "max" ? "-inf" : "inf";
  Dim BM = k.constant("BM", rng.pick({1, 2, 4, 8, 16, 32}));
  Dim BN = k.constant("BN", rng.pick({16, 32, 64, 128, 256}));
  std::string space = rng.chance(75) ? "fragment" : "shared";
  std::vector<std::string> st;
  if (rng.chance(20))
    st = kind == 2 ? std::vector<std::string>{"1", "ldx"} : std::vector<std::string>{"ldx", "1"};
  k.tensor("X", in, {"M", "N"}, st);
  bool alpha = rng.chance(40);
  if (alpha)
    k.scalar("alpha", Ty::F32);
  std::string A = k.ty(acc);
  auto pre = [&](const std::string &x, const std::string &mask, bool maskIt) {
    // An optional transform of the loaded tile, then masking of the padding with the identity.
    Scope s;
    s.add(x + "[r, c]", acc, 1.0, true);
    s.add(x + "[r, c]", acc, 1.0, true);
    if (alpha)
      s.add(A + "(alpha)", acc, 4.0);
    bool transform = rng.chance(40);
    if (!transform && !maskIt)
      return;
    k.open("parallel (r, c) in " + x);
    std::string v = x + "[r, c]";
    if (transform)
      v = dependOn(x + "[r, c]", eg.value(acc, 2, s));
    if (maskIt)
      v = "select(" + mask + ", " + v + ", " + identity + ")";
    k.line(x + "[r, c] = " + v + ";");
    k.close();
  };

  if (kind == 2) {
    // Column reduce: grid over column tiles, loop over row tiles, Y[col].
    k.tensor("Y", Ty::F32, {"N"});
    k.stores.push_back("Y");
    k.grid = {"cdiv(N, " + BN.text + ")"};
    k.buffer(space, "x", acc, {BM, BN});
    k.buffer("fragment", "cv", acc, {BN});
    bool accumulate = rng.chance(60);
    if (!accumulate)
      k.buffer("fragment", "cv2", acc, {BN});
    k.line("fill(cv, " + identity + ");");
    k.open("for i in range(cdiv(M, " + BM.text + "))");
    k.line("copy(X[i * " + BM.text + ", block.x * " + BN.text + "], x);");
    pre("x", "i * " + BM.text + " + r < M", opName != "sum" && rng.chance(60));
    if (accumulate) {
      k.line("reduce(x, cv, dim = 0, op = " + opName + ", accumulate = true);");
    } else {
      k.line("reduce(x, cv2, dim = 0, op = " + opName + ", init = cv);");
      k.line("copy(cv2, cv);");
    }
    k.close();
    if (rng.chance(35)) {
      k.line("copy(cv, Y[block.x * " + BN.text + "]);");
      return;
    }
    k.open("parallel (c) in cv");
    std::string v = acc == Ty::F32 ? "cv[c]" : "f32(cv[c])";
    k.line("Y[block.x * " + BN.text + " + c] = " + v + ";");
    k.close();
    return;
  }

  k.buffer(space, "x", acc, {BM, BN});
  k.buffer("fragment", "rv", acc, {BM});
  if (kind == 3) {
    // Each block sums its tile's rows; the blocks of a row add into Y atomically.
    k.tensor("Y", Ty::F32, {"M"});
    k.atomics.push_back("Y");
    k.grid = {"cdiv(N, " + BN.text + ")", "cdiv(M, " + BM.text + ")"};
    k.line("copy(X[block.y * " + BM.text + ", block.x * " + BN.text + "], x);");
    pre("x", "true", false);
    k.line("reduce(x, rv, dim = 1, op = sum);");
    k.open("parallel (r) in rv");
    k.line("atomic_add(Y[block.y * " + BM.text + " + r], " +
           (acc == Ty::F32 ? std::string("rv[r]") : "f32(rv[r])") + ");");
    k.close();
    if (rng.chance(40)) {
      // And the total of the tile's |row sums|, through a reduce of a rank-1 buffer into [1]:
      // terms of one sign, so that the order of the atomics changes the total by rounding
      // only (a signed total of a million random values cancels to near 0, and tlc-difftest's
      // tolerance scales with the result: one failure in 1,536 cases, twenty-fifth session).
      k.tensor("Tot", Ty::F32, {"1"});
      k.atomics.push_back("Tot");
      k.buffer("fragment", "tot", acc, {{"1", 1}});
      k.line("parallel (r) in rv { rv[r] = abs(rv[r]); }");
      k.line("reduce(rv, tot, dim = 0, op = sum);");
      k.open("parallel (i) in tot");
      k.line(std::string("atomic_add(Tot[0], ") + (acc == Ty::F32 ? "tot[i]" : "f32(tot[i])") +
             ");");
      k.close();
    }
    return;
  }

  k.grid = {"cdiv(M, " + BM.text + ")"};
  std::string r0 = "block.x * " + BM.text;
  std::string colMask = "j * " + BN.text + " + c < N";
  if (kind == 0) {
    k.tensor("Y", Ty::F32, {"M"});
    k.stores.push_back("Y");
    bool accumulate = rng.chance(60);
    if (!accumulate)
      k.buffer("fragment", "rv2", acc, {BM});
    k.line("fill(rv, " + identity + ");");
    k.open("for j in range(cdiv(N, " + BN.text + "))");
    k.line("copy(X[" + r0 + ", j * " + BN.text + "], x);");
    pre("x", colMask, opName != "sum" && rng.chance(70));
    if (accumulate) {
      k.line("reduce(x, rv, dim = 1, op = " + opName + ", accumulate = true);");
    } else {
      k.line("reduce(x, rv2, dim = 1, op = " + opName + ", init = rv);");
      k.open("parallel (r) in rv");
      k.line("rv[r] = rv2[r];");
      k.close();
    }
    k.close();
    if (rng.chance(35)) {
      k.line("copy(rv, Y[" + r0 + "]);");
      return;
    }
    k.open("parallel (r) in rv");
    Scope s;
    s.add(acc == Ty::F32 ? "rv[r]" : "f32(rv[r])", Ty::F32, 64.0);
    s.add(acc == Ty::F32 ? "rv[r]" : "f32(rv[r])", Ty::F32, 64.0);
    s.conds.push_back("(r % 2 == 0)");
    Val v = eg.value(Ty::F32, static_cast<int>(rng.range(0, 2)), s);
    k.line("Y[" + r0 + " + r] = " + dependOn(s.vals[0].text, v) + ";");
    k.close();
    return;
  }

  // kind 1 (softmax-like) and 4 (layer-norm-like): two passes over each row.
  Ty outTy = rng.pick({Ty::F32, in});
  k.tensor("Y", outTy, {"M", "N"});
  k.stores.push_back("Y");
  std::string conv = outTy == acc ? "" : k.ty(outTy);
  auto wrap = [&](const std::string &v) { return conv.empty() ? v : conv + "(" + v + ")"; };
  if (kind == 1) {
    k.buffer("fragment", "mt", acc, {BM});
    k.buffer("fragment", "l", acc, {BM});
    k.line("fill(rv, -inf);");
    k.line("fill(l, 0.0);");
    k.open("for j in range(cdiv(N, " + BN.text + "))");
    k.line("copy(X[" + r0 + ", j * " + BN.text + "], x);");
    k.open("parallel (r, c) in x");
    k.line("x[r, c] = select(" + colMask + ", x[r, c], -inf);");
    k.close();
    k.line("reduce(x, mt, dim = 1, op = max, init = rv);");
    k.open("parallel (r) in l");
    k.line("l[r] = l[r] * exp(rv[r] - mt[r]);");
    k.line("rv[r] = mt[r];");
    k.close();
    k.open("parallel (r, c) in x");
    k.line("x[r, c] = exp(x[r, c] - rv[r]);");
    k.close();
    k.line("reduce(x, l, dim = 1, op = sum, accumulate = true);");
    k.close();
    k.open("for j in range(cdiv(N, " + BN.text + "))");
    k.line("copy(X[" + r0 + ", j * " + BN.text + "], x);");
    k.open("parallel (r, c) in x");
    k.line("x[r, c] = exp(x[r, c] - rv[r]) / l[r];");
    k.close();
    if (conv.empty() || rng.chance(50)) {
      k.line("copy(x, Y[" + r0 + ", j * " + BN.text + "]);");
    } else {
      k.open("parallel (r, c) in x");
      k.line("Y[" + r0 + " + r, j * " + BN.text + " + c] = " + wrap("x[r, c]") + ";");
      k.close();
    }
    k.close();
    return;
  }
  // Layer-norm-like: mean and mean of squares, then (x - mean) * rsqrt(var + 0.5).
  k.buffer("fragment", "sq", acc, {BM});
  k.buffer("shared", "x2", acc, {BM, BN});
  k.line("fill(rv, 0.0);");
  k.line("fill(sq, 0.0);");
  k.open("for j in range(cdiv(N, " + BN.text + "))");
  k.line("copy(X[" + r0 + ", j * " + BN.text + "], x);");
  k.open("parallel (r, c) in x");
  k.line("x2[r, c] = x[r, c] * x[r, c];");
  k.close();
  k.line("reduce(x, rv, dim = 1, op = sum, accumulate = true);");
  k.line("reduce(x2, sq, dim = 1, op = sum, accumulate = true);");
  k.close();
  k.open("parallel (r) in rv");
  k.line("rv[r] = rv[r] / " + A + "(N);");
  k.line("sq[r] = rsqrt(max(sq[r] / " + A + "(N) - rv[r] * rv[r], 0.0) + 0.5);");
  k.close();
  k.open("for j in range(cdiv(N, " + BN.text + "))");
  k.line("copy(X[" + r0 + ", j * " + BN.text + "], x);");
  k.open("parallel (r, c) in x");
  std::string v = "(x[r, c] - rv[r]) * sq[r]";
  if (alpha)
    v += " * " + A + "(alpha)";
  k.line("Y[" + r0 + " + r, j * " + BN.text + " + c] = " + wrap(v) + ";");
  k.close();
  k.close();
}

//===----------------------------------------------------------------------===//
// Template: transposes and copies through buffers
//===----------------------------------------------------------------------===//

void genTranspose(Kernel &k) {
  Rng &rng = k.rng;
  k.templ = "transpose";
  Ty t = rng.pick({Ty::F32, Ty::F16, Ty::BF16, Ty::U8, Ty::I32});
  Ty yt = t == Ty::U8 || t == Ty::I32 ? rng.pick({t, Ty::I32, Ty::F32})
                                      : rng.pick({t, t, Ty::F32, Ty::F16, Ty::BF16});
  int64_t warps = rng.pick({1, 2, 4, 8});
  k.threads = threadsText(k, warps);
  int64_t bm = rng.pick({8, 16, 32, 64}), bn = rng.pick({8, 16, 32, 64, 128});
  size_t kind = rng.weighted({35, 35, 30});
  // 0: a transposed strided view copied through a buffer; 1: transpose in shared memory by a
  // parallel body; 2: a chain of copies between buffers with conversions (up to four).
  while (kind == 2 && bm * bn > 4096)
    bn /= 2;
  Dim BM = k.constant("BM", bm), BN = k.constant("BN", bn);
  bool batched = rng.chance(25);
  std::string z = batched ? "block.z, " : "";
  std::vector<std::string> lead;
  if (batched)
    lead.push_back("NB");
  auto dims = [&](std::vector<std::string> v) {
    v.insert(v.begin(), lead.begin(), lead.end());
    return v;
  };
  std::string b0 = "block.y * " + BM.text, b1 = "block.x * " + BN.text;
  k.grid = {"cdiv(M, " + BN.text + ")", "cdiv(N, " + BM.text + ")"};
  if (batched)
    k.grid.push_back("NB");
  auto space = [&] { return rng.pick({"shared", "shared", "fragment"}); };

  if (kind == 0) {
    // XT[i, j] = X[j, i] for a row-major X of M rows with leading dimension ldx.
    k.tensor("XT", t, dims({"N", "M"}),
             batched ? std::vector<std::string>{"bsx", "1", "ldx"}
                     : std::vector<std::string>{"1", "ldx"});
    k.tensor("Y", yt, dims({"N", "M"}));
    k.stores.push_back("Y");
    k.buffer(space(), "t", t, {BM, BN});
    if (yt != t && rng.chance(50)) {
      k.buffer(space(), "u", yt, {BM, BN});
      k.line("copy(XT[" + z + b0 + ", " + b1 + "], t);");
      k.line("copy(t, u);");
      k.line("copy(u, Y[" + z + b0 + ", " + b1 + "]);");
    } else {
      k.line("copy(XT[" + z + b0 + ", " + b1 + "], t);");
      k.line("copy(t, Y[" + z + b0 + ", " + b1 + "]);");
    }
    return;
  }
  if (kind == 1) {
    // Y = X^T through a square tile: t = tile of X, u[r, c] = t[c, r].
    k.grid = {"cdiv(N, " + BN.text + ")", "cdiv(M, " + BM.text + ")"};
    if (batched)
      k.grid.push_back("NB");
    k.tensor("X", t, dims({"M", "N"}));
    k.tensor("Y", yt, dims({"N", "M"}));
    k.stores.push_back("Y");
    k.buffer(space(), "t", t, {BM, BN});
    k.buffer(space(), "u", yt, {BN, BM});
    k.line("copy(X[" + z + b0 + ", " + b1 + "], t);");
    k.open("parallel (r, c) in u");
    std::string v = "t[c, r]";
    if (valueTy(yt) != valueTy(t))
      v = k.ty(valueTy(yt)) + "(" + v + ")";
    k.line("u[r, c] = " + v + ";");
    k.close();
    k.line("copy(u, Y[" + z + b1 + ", " + b0 + "]);");
    return;
  }
  // A chain of buffer copies, converting on the way.
  k.grid = {"cdiv(N, " + BN.text + ")", "cdiv(M, " + BM.text + ")"};
  if (batched)
    k.grid.push_back("NB");
  bool rank1 = !batched && rng.chance(25);
  bool rowwise = !batched && !rank1 && rng.chance(30);
  if (rank1) {
    k.tensor("X", t, {"N"});
    k.tensor("Y", yt, {"N"});
    k.grid = {"cdiv(N, " + BN.text + ")"};
  } else if (rowwise) {
    // Rank-1 buffers over the last dimension of a matrix: one row segment per block.
    k.tensor("X", t, {"M", "N"});
    k.tensor("Y", yt, {"M", "N"});
    k.grid = {"cdiv(N, " + BN.text + ")", "M"};
    rank1 = true;
    b0 = "block.y";
  } else {
    k.tensor("X", t, dims({"M", "N"}));
    k.tensor("Y", yt, dims({"M", "N"}));
  }
  k.stores.push_back("Y");
  std::vector<Dim> shape = rank1 ? std::vector<Dim>{BN} : std::vector<Dim>{BM, BN};
  std::vector<Ty> chain;
  chain.push_back(t);
  int hops = static_cast<int>(rng.range(1, 3));
  for (int i = 0; i < hops; ++i)
    chain.push_back(isFloat(t) ? rng.pick({Ty::F32, Ty::F16, Ty::BF16, t})
                               : rng.pick({Ty::I32, Ty::F32, t}));
  std::string off = rank1 ? (rowwise ? b0 + ", " + b1 : b1) : b0 + ", " + b1;
  std::string prev;
  for (size_t i = 0; i < chain.size(); ++i) {
    std::string n = "b" + std::to_string(i);
    k.buffer(space(), n, chain[i], shape);
    if (i == 0)
      k.line("copy(X[" + z + off + "], " + n + ");");
    else
      k.line("copy(" + prev + ", " + n + ");");
    prev = n;
  }
  k.line("copy(" + prev + ", Y[" + z + off + "]);");
}

//===----------------------------------------------------------------------===//
// Template: atomics (column sums, histograms, scatter-adds)
//===----------------------------------------------------------------------===//

void genAtomic(Kernel &k) {
  Rng &rng = k.rng;
  k.templ = "atomic";
  ExprGen eg(rng, k);
  int64_t warps = rng.pick({1, 2, 4, 8});
  int64_t nt = warps * 32;
  k.threads = threadsText(k, warps);
  size_t kind = rng.weighted({40, 30, 30});
  if (kind == 0) {
    // Column sums in per-thread partials (a local buffer), added to Y atomically.
    Ty in = rng.pick({Ty::F32, Ty::F16, Ty::BF16});
    k.tensor("X", in, {"M", "N"});
    k.tensor("Y", Ty::F32, {"N"});
    k.atomics.push_back("Y");
    Dim BR = k.constant("BR", rng.pick({4, 8, 16, 64}));
    int64_t parts = rng.pick({1, 2, 4});
    if (BR.value % parts != 0)
      parts = 1;
    k.grid = {"cdiv(N, " + std::to_string(nt) + ")", "cdiv(M, " + BR.text + ")"};
    k.buffer("local", "part", Ty::F32, {{std::to_string(parts), parts}});
    k.open("parallel (c) in [" + std::to_string(nt) + "]");
    k.line("let col = block.x * " + std::to_string(nt) + " + c;");
    k.open("for i in range(" + std::to_string(parts) + ")");
    k.line("part[i] = 0.0;");
    k.close();
    k.open("for r in range(0, " + BR.text + ", " + std::to_string(parts) + ")");
    k.open("for i in range(" + std::to_string(parts) + ")");
    std::string x = "X[block.y * " + BR.text + " + r + i, col]";
    if (in != Ty::F32)
      x = "f32(" + x + ")";
    Scope s;
    s.add(x, Ty::F32, 1.0, true);
    s.add(x, Ty::F32, 1.0, true);
    Val v = eg.value(Ty::F32, 1, s);
    k.line("part[i] = part[i] + " + v.text + ";");
    k.close();
    k.close();
    std::string sum = "part[0]";
    for (int64_t i = 1; i < parts; ++i)
      sum = "(" + sum + " + part[" + std::to_string(i) + "])";
    k.line("atomic_add(Y[col], " + sum + ");");
    k.close();
    return;
  }
  if (kind == 1) {
    // A histogram of i32 values into 8 or 16 bins (exact: integer sums).
    int64_t bins = rng.pick({8, 16});
    Dim BLOCK = k.constant("BLOCK", rng.pick({nt, 2 * nt, 4 * nt}));
    k.tensor("X", rng.pick({Ty::I32, Ty::U8}), {"N"});
    k.tensor("Hist", Ty::I32, {std::to_string(bins)});
    k.atomics.push_back("Hist");
    k.grid = {"cdiv(N, " + BLOCK.text + ")"};
    k.open("parallel (i) in [" + BLOCK.text + "]");
    k.line("let idx = block.x * " + BLOCK.text + " + i;");
    k.open("if idx < N");
    std::string b = std::to_string(bins);
    k.line("let bin = int((X[idx] % " + b + " + " + b + ") % " + b + ");");
    k.line("atomic_add(Hist[bin], " + std::string(rng.chance(50) ? "1" : "X[idx] % 5") + ");");
    k.close();
    k.close();
    return;
  }
  // A scatter-add of a tile's values into a smaller output (rows folded by a constant).
  Dim BM = k.constant("BM", rng.pick({4, 8, 16})), BN = k.constant("BN", rng.pick({32, 64, 128}));
  int64_t fold = rng.pick({2, 3, 4});
  k.tensor("X", Ty::F32, {"M", "N"});
  k.tensor("Y", Ty::F32, {"M", "N"});
  k.atomics.push_back("Y");
  bool scalar = rng.chance(50);
  if (scalar)
    k.scalar("alpha", Ty::F32);
  k.grid = {"cdiv(N, " + BN.text + ")", "cdiv(M, " + BM.text + ")"};
  k.buffer("shared", "t", Ty::F32, {BM, BN});
  k.line("copy(X[block.y * " + BM.text + ", block.x * " + BN.text + "], t);");
  k.open("parallel (r, c) in t");
  k.line("let row = block.y * " + BM.text + " + r;");
  k.line("let col = block.x * " + BN.text + " + c;");
  Scope s;
  s.add("t[r, c]", Ty::F32, 1.0, true);
  s.add("t[r, c]", Ty::F32, 1.0, true);
  if (scalar)
    s.add("alpha", Ty::F32, 4.0);
  addPointConds(s, "r", "c", "row", "col", "M", "N");
  Val v = eg.value(Ty::F32, 2, s);
  k.line("atomic_add(Y[row / " + std::to_string(fold) + ", col], " + dependOn("t[r, c]", v) + ");");
  k.close();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

const char *const kTemplates[] = {"gemm",   "attention", "dequant", "elementwise",
                                  "reduce", "transpose", "atomic"};
const int kWeights[] = {26, 16, 10, 20, 12, 8, 8};

uint64_t kernelSeed(uint64_t seed, int64_t index) {
  Rng mix(seed * 0x100000001b3ULL ^ static_cast<uint64_t>(index) * 0x9e3779b97f4a7c15ULL);
  mix.next();
  return mix.next();
}

std::string generate(uint64_t seed, int64_t index, const std::set<std::string> &features) {
  Rng rng(kernelSeed(seed, index));
  std::vector<int> weights;
  int total = 0;
  for (size_t i = 0; i < sizeof(kWeights) / sizeof(kWeights[0]); ++i) {
    int w = features.count("all") || features.count(kTemplates[i]) ? kWeights[i] : 0;
    weights.push_back(w);
    total += w;
  }
  int64_t x = rng.range(0, total - 1);
  size_t which = 0;
  for (; which < weights.size(); ++which) {
    if (x < weights[which])
      break;
    x -= weights[which];
  }
  Kernel k(rng, "k" + std::to_string(index));
  std::string name = kTemplates[which];
  if (name == "gemm")
    genGemm(k, false);
  else if (name == "dequant")
    genGemm(k, true);
  else if (name == "attention")
    genAttention(k);
  else if (name == "elementwise")
    genElementwise(k);
  else if (name == "reduce")
    genReduce(k);
  else if (name == "transpose")
    genTranspose(k);
  else
    genAtomic(k);
  if (k.bufferBytes > kMaxBufferBytes) {
    std::cerr << "tlc-kernel-gen: internal error: kernel " << index << " of seed " << seed
              << " has " << k.bufferBytes << " bytes of shared and fragment buffers\n";
    std::exit(3);
  }
  return k.render(seed, index);
}

int usage(const char *argv0) {
  std::cerr << "usage: " << argv0
            << " --seed S --kernels N [--first I] [--features all|LIST]\n"
               "  writes one .tile file of N random kernels k<I>.. k<I+N-1> to stdout;\n"
               "  LIST: comma-separated templates of gemm, attention, dequant, elementwise,\n"
               "  reduce, transpose, atomic\n";
  return 2;
}

bool parseInt(const char *text, int64_t &out) {
  char *end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (!*text || *end)
    return false;
  out = v;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  int64_t seed = -1, kernels = -1, first = 0;
  std::set<std::string> features = {"all"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc)
      return usage(argv[0]);
    const char *v = argv[++i];
    if (a == "--seed") {
      if (!parseInt(v, seed) || seed < 0)
        return usage(argv[0]);
    } else if (a == "--kernels") {
      if (!parseInt(v, kernels) || kernels < 1)
        return usage(argv[0]);
    } else if (a == "--first") {
      if (!parseInt(v, first) || first < 0)
        return usage(argv[0]);
    } else if (a == "--features") {
      features.clear();
      std::stringstream ss(v);
      std::string f;
      while (std::getline(ss, f, ',')) {
        bool known = f == "all";
        for (const char *t : kTemplates)
          known |= f == t;
        if (!known) {
          std::cerr << argv[0] << ": unknown feature '" << f << "'\n";
          return usage(argv[0]);
        }
        features.insert(f);
      }
      if (features.empty())
        return usage(argv[0]);
    } else {
      return usage(argv[0]);
    }
  }
  if (seed < 0 || kernels < 1)
    return usage(argv[0]);
  std::cout << "// Generated by tlc-kernel-gen --seed " << seed << " --kernels " << kernels;
  if (first)
    std::cout << " --first " << first;
  if (!features.count("all")) {
    std::cout << " --features ";
    bool comma = false;
    for (const std::string &f : features) {
      std::cout << (comma ? "," : "") << f;
      comma = true;
    }
  }
  std::cout << "\n";
  for (int64_t i = first; i < first + kernels; ++i)
    std::cout << "\n" << generate(static_cast<uint64_t>(seed), i, features);
  return 0;
}
