//===- DiffPlan.h - tlc-difftest's manifests, grids, cases and comparison --*- C++ -*-===//
//
// Everything the differential test runner does that needs no GPU: a minimal JSON reader, the
// manifest model, the evaluator of the manifest's grid expressions, the choice of sizes and
// strides per case, element encodings and the element-wise comparison of two results. Standard
// C++17 only (no CUDA, no LLVM), header-only, so that DiffPlanTest.cpp checks it anywhere.
//
//===----------------------------------------------------------------------===//

#ifndef TLC_TEST_GPU_DIFFTEST_DIFFPLAN_H
#define TLC_TEST_GPU_DIFFTEST_DIFFPLAN_H

#include "../Float8Reference.h"
#include "../HalfFloat.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tlc::difftest {

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// A parsed JSON value. Objects keep their members in document order.
struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  /// A Number's value.
  double number = 0;
  /// A String's value, or a Number's literal text (kept to read 64-bit integers exactly).
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  bool isNull() const { return kind == Kind::Null; }
  bool isString() const { return kind == Kind::String; }
  bool isArray() const { return kind == Kind::Array; }
  bool isObject() const { return kind == Kind::Object; }

  /// The member \p key of an object, or null if absent or not an object.
  const Json *get(const std::string &key) const {
    if (kind != Kind::Object)
      return nullptr;
    for (const auto &member : members)
      if (member.first == key)
        return &member.second;
    return nullptr;
  }

  /// The value of a Number that is an integer (64-bit, exactly), else nothing.
  std::optional<int64_t> asInt() const {
    if (kind != Kind::Number)
      return std::nullopt;
    if (text.find_first_of(".eE") == std::string::npos) {
      errno = 0;
      char *end = nullptr;
      long long v = std::strtoll(text.c_str(), &end, 10);
      if (errno != 0 || *end != '\0')
        return std::nullopt;
      return static_cast<int64_t>(v);
    }
    if (number != std::floor(number) || std::fabs(number) > 9007199254740992.0)
      return std::nullopt;
    return static_cast<int64_t>(number);
  }
};

namespace detail {

/// Recursive-descent JSON parser over a string (RFC 8259, without duplicate-key checks).
class JsonParser {
public:
  explicit JsonParser(const std::string &text) : Text(text) {}

  bool parseDocument(Json &out, std::string &error) {
    if (!parseValue(out, 0)) {
      error = Error;
      return false;
    }
    skipSpace();
    if (Pos != Text.size()) {
      error = at("unexpected text after the JSON value");
      return false;
    }
    return true;
  }

private:
  std::string at(const std::string &what) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < Pos && i < Text.size(); ++i) {
      if (Text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
  }
  bool fail(const std::string &what) {
    if (Error.empty())
      Error = at(what);
    return false;
  }
  void skipSpace() {
    while (Pos < Text.size() &&
           (Text[Pos] == ' ' || Text[Pos] == '\t' || Text[Pos] == '\n' || Text[Pos] == '\r'))
      ++Pos;
  }
  bool literal(const char *word) {
    size_t n = std::strlen(word);
    if (Text.compare(Pos, n, word) != 0)
      return false;
    Pos += n;
    return true;
  }

  bool parseValue(Json &out, int depth) {
    if (depth > 256)
      return fail("nesting is too deep");
    skipSpace();
    if (Pos >= Text.size())
      return fail("expected a value, found the end of the input");
    char c = Text[Pos];
    if (c == '{')
      return parseObject(out, depth);
    if (c == '[')
      return parseArray(out, depth);
    if (c == '"') {
      out.kind = Json::Kind::String;
      return parseString(out.text);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber(out);
    if (literal("true")) {
      out.kind = Json::Kind::Bool;
      out.boolean = true;
      return true;
    }
    if (literal("false")) {
      out.kind = Json::Kind::Bool;
      out.boolean = false;
      return true;
    }
    if (literal("null")) {
      out.kind = Json::Kind::Null;
      return true;
    }
    return fail(std::string("unexpected character '") + c + "'");
  }

  bool parseObject(Json &out, int depth) {
    out.kind = Json::Kind::Object;
    ++Pos; // '{'
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == '}') {
      ++Pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (Pos >= Text.size() || Text[Pos] != '"')
        return fail("expected a member name in quotes");
      std::string key;
      if (!parseString(key))
        return false;
      skipSpace();
      if (Pos >= Text.size() || Text[Pos] != ':')
        return fail("expected ':' after the member name");
      ++Pos;
      Json value;
      if (!parseValue(value, depth + 1))
        return false;
      out.members.emplace_back(std::move(key), std::move(value));
      skipSpace();
      if (Pos < Text.size() && Text[Pos] == ',') {
        ++Pos;
        continue;
      }
      if (Pos < Text.size() && Text[Pos] == '}') {
        ++Pos;
        return true;
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  bool parseArray(Json &out, int depth) {
    out.kind = Json::Kind::Array;
    ++Pos; // '['
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == ']') {
      ++Pos;
      return true;
    }
    while (true) {
      Json value;
      if (!parseValue(value, depth + 1))
        return false;
      out.items.push_back(std::move(value));
      skipSpace();
      if (Pos < Text.size() && Text[Pos] == ',') {
        ++Pos;
        continue;
      }
      if (Pos < Text.size() && Text[Pos] == ']') {
        ++Pos;
        return true;
      }
      return fail("expected ',' or ']' in an array");
    }
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool parseHex4(uint32_t &out) {
    if (Pos + 4 > Text.size())
      return fail("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = Text[Pos++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= c - '0';
      else if (c >= 'a' && c <= 'f')
        out |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        out |= c - 'A' + 10;
      else
        return fail("bad hex digit in a \\u escape");
    }
    return true;
  }

  bool parseString(std::string &out) {
    ++Pos; // '"'
    while (true) {
      if (Pos >= Text.size())
        return fail("unterminated string");
      char c = Text[Pos++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (Pos >= Text.size())
        return fail("unterminated escape");
      char e = Text[Pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp = 0;
        if (!parseHex4(cp))
          return false;
        if (cp >= 0xD800 && cp < 0xDC00 && Text.compare(Pos, 2, "\\u") == 0) {
          size_t save = Pos;
          Pos += 2;
          uint32_t low = 0;
          if (!parseHex4(low))
            return false;
          if (low >= 0xDC00 && low < 0xE000)
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          else
            Pos = save;
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        return fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  bool parseNumber(Json &out) {
    size_t start = Pos;
    if (Text[Pos] == '-')
      ++Pos;
    auto digits = [&] {
      size_t first = Pos;
      while (Pos < Text.size() && Text[Pos] >= '0' && Text[Pos] <= '9')
        ++Pos;
      return Pos > first;
    };
    if (!digits())
      return fail("expected digits in a number");
    if (Pos < Text.size() && Text[Pos] == '.') {
      ++Pos;
      if (!digits())
        return fail("expected digits after '.'");
    }
    if (Pos < Text.size() && (Text[Pos] == 'e' || Text[Pos] == 'E')) {
      ++Pos;
      if (Pos < Text.size() && (Text[Pos] == '+' || Text[Pos] == '-'))
        ++Pos;
      if (!digits())
        return fail("expected digits in an exponent");
    }
    out.kind = Json::Kind::Number;
    out.text = Text.substr(start, Pos - start);
    out.number = std::strtod(out.text.c_str(), nullptr);
    return true;
  }

  const std::string &Text;
  size_t Pos = 0;
  std::string Error;
};

} // namespace detail

/// Parses \p text as one JSON document into \p out; on failure returns false with \p error
/// saying where ("line 3, column 7: expected ',' or '}' in an object").
inline bool parseJson(const std::string &text, Json &out, std::string &error) {
  out = Json();
  return detail::JsonParser(text).parseDocument(out, error);
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// An element type of a tensor or scalar parameter.
struct DType {
  enum class Class { Float, Signed, Unsigned, Bool };
  std::string name;
  unsigned bytes = 0;
  Class cls = Class::Float;

  bool isFloat() const { return cls == Class::Float; }
};

/// The element types tlc-difftest can generate and compare: f32 f64 f16 bf16 f8e4m3 f8e5m2 i8
/// i16 i32 i64 u8 bool (and "int", the 64-bit integer a scalar `int` travels as). Nothing for
/// others: kernels using them are skipped.
inline std::optional<DType> lookupDType(const std::string &name) {
  using C = DType::Class;
  static const struct {
    const char *name;
    unsigned bytes;
    C cls;
  } table[] = {{"f32", 4, C::Float},   {"f64", 8, C::Float},  {"f16", 2, C::Float},
               {"bf16", 2, C::Float},  {"i8", 1, C::Signed},  {"i16", 2, C::Signed},
               {"i32", 4, C::Signed},  {"i64", 8, C::Signed}, {"int", 8, C::Signed},
               {"u8", 1, C::Unsigned}, {"bool", 1, C::Bool},  {"f8e4m3", 1, C::Float},
               {"f8e5m2", 1, C::Float}};
  for (const auto &t : table)
    if (name == t.name)
      return DType{t.name, t.bytes, t.cls};
  return std::nullopt;
}

using gputest::bf16ToFloat;
using gputest::f16ToFloat;
using gputest::floatToBf16;
using gputest::floatToF16;

/// The raw bits of the element at \p p (little-endian, as on the GPU).
inline uint64_t elementBits(const DType &t, const uint8_t *p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, t.bytes);
  return bits;
}

/// The value of the floating-point element at \p p.
inline double floatValue(const DType &t, const uint8_t *p) {
  if (t.name == "f64") {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  if (t.name == "f32") {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (t.bytes == 1)
    return gputest::decodeFloat8(t.name == "f8e4m3", *p);
  uint16_t h;
  std::memcpy(&h, p, 2);
  return t.name == "bf16" ? bf16ToFloat(h) : f16ToFloat(h);
}

/// The value of the integer or bool element at \p p.
inline int64_t intValue(const DType &t, const uint8_t *p) {
  switch (t.bytes) {
  case 1:
    return t.cls == DType::Class::Signed ? static_cast<int64_t>(static_cast<int8_t>(*p))
                                         : static_cast<int64_t>(*p);
  case 2: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  default: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  }
}

/// Writes the value \p v, rounded to the element type \p t (a float type), at \p p.
inline void storeFloat(const DType &t, uint8_t *p, double v) {
  if (t.name == "f64") {
    std::memcpy(p, &v, 8);
  } else if (t.name == "f32") {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else if (t.bytes == 1) {
    *p = gputest::encodeFloat8(t.name == "f8e4m3", static_cast<float>(v));
  } else {
    uint16_t h =
        t.name == "bf16" ? floatToBf16(static_cast<float>(v)) : floatToF16(static_cast<float>(v));
    std::memcpy(p, &h, 2);
  }
}

/// Writes the integer \p v, truncated to the element type \p t, at \p p (little-endian).
inline void storeInt(const DType &t, uint8_t *p, int64_t v) {
  uint64_t bits = static_cast<uint64_t>(v);
  std::memcpy(p, &bits, t.bytes);
}

/// "0.123456789" for a float element (with its bits, "-0 [0x8000]", when \p withBits), "-3"
/// for an integer one.
inline std::string formatElement(const DType &t, const uint8_t *p, bool withBits) {
  char buf[96];
  if (t.isFloat()) {
    int n = std::snprintf(buf, sizeof(buf), "%.9g", floatValue(t, p));
    if (withBits)
      std::snprintf(buf + n, sizeof(buf) - n, " [0x%0*llx]", static_cast<int>(t.bytes * 2),
                    static_cast<unsigned long long>(elementBits(t, p)));
  } else {
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(intValue(t, p)));
  }
  return buf;
}

//===----------------------------------------------------------------------===//
// Deterministic random numbers
//===----------------------------------------------------------------------===//

/// splitmix64: a small, fast, portable generator (the same sequence on every platform, which
/// std distributions do not promise), seeded by one 64-bit value.
class Rng {
public:
  explicit Rng(uint64_t seed) : State(seed) {}

  uint64_t next() {
    uint64_t z = (State += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n), n > 0 (the modulo bias is negligible for the small n used here).
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  /// Uniform integer in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
  }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * (static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0));
  }

private:
  uint64_t State;
};

/// Mixes \p b into the seed \p a (order matters).
inline uint64_t mixSeed(uint64_t a, uint64_t b) {
  Rng r(a ^ (b * 0xD6E8FEB86659FD93ull));
  r.next();
  return r.next();
}

/// FNV-1a of \p s: a stable seed component for a name.
inline uint64_t hashName(const std::string &s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

//===----------------------------------------------------------------------===//
// Grid expressions
//===----------------------------------------------------------------------===//

/// Values of the names a grid expression may use: size and stride symbols, scalar parameters.
using Env = std::map<std::string, int64_t>;

/// One grid expression of a manifest, as the generated launchers write it in C++: integer
/// literals, `true`, `false`, names, unary '-', binary + - * / % == != < <= > >= & ^ | (C++
/// precedence; the launchers parenthesise everything anyway), `c ? a : b`, `tlc::rt::ceilDiv(a, b)`
/// and `static_cast<int64_t>(x)`. Evaluated in int64_t with C++ semantics (division truncates,
/// comparisons give 0 or 1); overflow and division by zero are errors; only the chosen arm of a
/// conditional is evaluated. An empty expression means 1.
class GridExpr {
public:
  /// Parses \p text; on failure returns false with \p error naming the expression and what is
  /// not understood.
  bool parse(const std::string &text, std::string &error) {
    Source = text;
    Nodes.clear();
    Tokens.clear();
    Pos = 0;
    Error.clear();
    std::string trimmed = text;
    trimmed.erase(0, trimmed.find_first_not_of(" \t\n"));
    if (trimmed.empty()) {
      Root = addNode(Node{Op::Const, 1, "", -1, -1, -1});
      return true;
    }
    if (!tokenize()) {
      error = Error;
      return false;
    }
    Root = parseConditional();
    if (Root >= 0 && Pos != Tokens.size()) {
      failAt("unexpected '" + Tokens[Pos].text + "'");
      Root = -1;
    }
    if (Root < 0) {
      error = Error;
      return false;
    }
    return true;
  }

  /// Evaluates the expression with the names of \p env into \p out; on failure (an unknown name,
  /// division by zero, overflow) returns false with \p error naming the expression.
  bool eval(const Env &env, int64_t &out, std::string &error) const {
    std::string why;
    if (Root < 0) {
      error = "grid expression '" + Source + "' was not parsed";
      return false;
    }
    if (!evalNode(Root, env, out, why)) {
      error = "grid expression '" + Source + "': " + why;
      return false;
    }
    return true;
  }

  /// The names the expression uses (not tlc::rt::ceilDiv).
  std::set<std::string> names() const {
    std::set<std::string> out;
    for (const Node &n : Nodes)
      if (n.op == Op::Name)
        out.insert(n.name);
    return out;
  }

  const std::string &source() const { return Source; }

private:
  enum class Op {
    Const,
    Name,
    Neg,
    Not,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitXor,
    BitOr,
    CeilDiv,
    Select
  };
  struct Node {
    Op op;
    int64_t value;
    std::string name;
    int a, b, c;
  };
  struct Token {
    enum Kind { Number, Ident, Punct, End } kind;
    std::string text;
    int64_t value;
  };

  int addNode(Node n) {
    Nodes.push_back(std::move(n));
    return static_cast<int>(Nodes.size()) - 1;
  }
  int failAt(const std::string &what) {
    if (Error.empty())
      Error = "grid expression '" + Source + "': " + what;
    return -1;
  }

  bool tokenize() {
    const std::string &s = Source;
    size_t i = 0;
    while (i < s.size()) {
      char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c))) {
        size_t start = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
          ++i;
        // Integer suffixes a C++ literal may carry (L, LL, u...).
        while (i < s.size() && (s[i] == 'l' || s[i] == 'L' || s[i] == 'u' || s[i] == 'U'))
          ++i;
        std::string digits = s.substr(start, i - start);
        errno = 0;
        unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
        if (errno != 0 || v > static_cast<unsigned long long>(INT64_MAX)) {
          failAt("integer literal '" + digits + "' is out of range");
          return false;
        }
        if (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
          failAt("unsupported literal near '" + s.substr(start) + "'");
          return false;
        }
        Tokens.push_back({Token::Number, digits, static_cast<int64_t>(v)});
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t start = i;
        while (i < s.size()) {
          if (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_') {
            ++i;
          } else if (s.compare(i, 2, "::") == 0 && i + 2 < s.size() &&
                     (std::isalpha(static_cast<unsigned char>(s[i + 2])) || s[i + 2] == '_')) {
            i += 2;
          } else {
            break;
          }
        }
        Tokens.push_back({Token::Ident, s.substr(start, i - start), 0});
        continue;
      }
      static const char *const twoChar[] = {"==", "!=", "<=", ">="};
      bool matched = false;
      for (const char *op : twoChar) {
        if (s.compare(i, 2, op) == 0) {
          Tokens.push_back({Token::Punct, op, 0});
          i += 2;
          matched = true;
          break;
        }
      }
      if (matched)
        continue;
      if (std::strchr("+-*/%<>?:(),!&^|", c)) {
        Tokens.push_back({Token::Punct, std::string(1, c), 0});
        ++i;
        continue;
      }
      failAt(std::string("unexpected character '") + c + "'");
      return false;
    }
    return true;
  }

  const Token &peek() const {
    static const Token end{Token::End, "end of expression", 0};
    return Pos < Tokens.size() ? Tokens[Pos] : end;
  }
  bool accept(const char *punct) {
    if (peek().kind == Token::Punct && peek().text == punct) {
      ++Pos;
      return true;
    }
    return false;
  }
  bool expect(const char *punct) {
    if (accept(punct))
      return true;
    failAt(std::string("expected '") + punct + "', found '" + peek().text + "'");
    return false;
  }

  int parseConditional() {
    int cond = parseBitOr();
    if (cond < 0 || !accept("?"))
      return cond;
    int a = parseConditional();
    if (a < 0 || !expect(":"))
      return -1;
    int b = parseConditional();
    if (b < 0)
      return -1;
    return addNode(Node{Op::Select, 0, "", cond, a, b});
  }

  /// One left-associative level of binary operators.
  template <typename Next>
  int parseLevel(Next next, std::initializer_list<std::pair<const char *, Op>> ops) {
    int lhs = next();
    while (lhs >= 0) {
      bool found = false;
      for (const auto &[text, op] : ops) {
        if (accept(text)) {
          int rhs = next();
          if (rhs < 0)
            return -1;
          lhs = addNode(Node{op, 0, "", lhs, rhs, -1});
          found = true;
          break;
        }
      }
      if (!found)
        break;
    }
    return lhs;
  }
  int parseBitOr() {
    return parseLevel([&] { return parseBitXor(); }, {{"|", Op::BitOr}});
  }
  int parseBitXor() {
    return parseLevel([&] { return parseBitAnd(); }, {{"^", Op::BitXor}});
  }
  int parseBitAnd() {
    return parseLevel([&] { return parseEquality(); }, {{"&", Op::BitAnd}});
  }
  int parseEquality() {
    return parseLevel([&] { return parseRelational(); }, {{"==", Op::Eq}, {"!=", Op::Ne}});
  }
  int parseRelational() {
    return parseLevel([&] { return parseAdditive(); },
                      {{"<=", Op::Le}, {">=", Op::Ge}, {"<", Op::Lt}, {">", Op::Gt}});
  }
  int parseAdditive() {
    return parseLevel([&] { return parseMultiplicative(); }, {{"+", Op::Add}, {"-", Op::Sub}});
  }
  int parseMultiplicative() {
    return parseLevel([&] { return parseUnary(); },
                      {{"*", Op::Mul}, {"/", Op::Div}, {"%", Op::Rem}});
  }
  int parseUnary() {
    if (accept("-")) {
      int x = parseUnary();
      return x < 0 ? -1 : addNode(Node{Op::Neg, 0, "", x, -1, -1});
    }
    if (accept("+"))
      return parseUnary();
    if (accept("!")) {
      int x = parseUnary();
      return x < 0 ? -1 : addNode(Node{Op::Not, 0, "", x, -1, -1});
    }
    return parsePrimary();
  }
  int parsePrimary() {
    const Token &t = peek();
    if (t.kind == Token::Number) {
      ++Pos;
      return addNode(Node{Op::Const, t.value, "", -1, -1, -1});
    }
    if (accept("(")) {
      int x = parseConditional();
      if (x < 0 || !expect(")"))
        return -1;
      return x;
    }
    if (t.kind != Token::Ident)
      return failAt("expected a value, found '" + t.text + "'");
    std::string name = t.text;
    ++Pos;
    if (name == "true" || name == "false")
      return addNode(Node{Op::Const, name == "true", "", -1, -1, -1});
    if (name == "static_cast" || name == "std::int64_t") {
      if (name == "static_cast") {
        if (!expect("<"))
          return -1;
        const Token &type = peek();
        if (type.kind != Token::Ident || (type.text != "int64_t" && type.text != "std::int64_t"))
          return failAt("unsupported cast to '" + type.text + "' (only int64_t)");
        ++Pos;
        if (!expect(">"))
          return -1;
      }
      if (!expect("("))
        return -1;
      int x = parseConditional();
      if (x < 0 || !expect(")"))
        return -1;
      return x;
    }
    if (name == "tlc::rt::ceilDiv" || name == "ceilDiv") {
      if (!expect("("))
        return -1;
      int a = parseConditional();
      if (a < 0 || !expect(","))
        return -1;
      int b = parseConditional();
      if (b < 0 || !expect(")"))
        return -1;
      return addNode(Node{Op::CeilDiv, 0, "", a, b, -1});
    }
    if (peek().kind == Token::Punct && peek().text == "(")
      return failAt("unsupported function '" + name + "'");
    if (name.find("::") != std::string::npos)
      return failAt("unsupported name '" + name + "'");
    return addNode(Node{Op::Name, 0, name, -1, -1, -1});
  }

  bool evalNode(int index, const Env &env, int64_t &out, std::string &why) const {
    const Node &n = Nodes[index];
    switch (n.op) {
    case Op::Const:
      out = n.value;
      return true;
    case Op::Name: {
      auto it = env.find(n.name);
      if (it == env.end()) {
        why = "unknown name '" + n.name + "'";
        return false;
      }
      out = it->second;
      return true;
    }
    case Op::Select: {
      int64_t c;
      if (!evalNode(n.a, env, c, why))
        return false;
      return evalNode(c ? n.b : n.c, env, out, why);
    }
    default:
      break;
    }
    int64_t a = 0, b = 0;
    if (!evalNode(n.a, env, a, why))
      return false;
    if (n.op == Op::Neg) {
      if (a == INT64_MIN) {
        why = "overflow";
        return false;
      }
      out = -a;
      return true;
    }
    if (n.op == Op::Not) {
      out = !a;
      return true;
    }
    if (!evalNode(n.b, env, b, why))
      return false;
    bool overflow = false;
    switch (n.op) {
    case Op::Add:
      overflow = __builtin_add_overflow(a, b, &out);
      break;
    case Op::Sub:
      overflow = __builtin_sub_overflow(a, b, &out);
      break;
    case Op::Mul:
      overflow = __builtin_mul_overflow(a, b, &out);
      break;
    case Op::Div:
    case Op::Rem:
    case Op::CeilDiv:
      if (b == 0) {
        why = "division by zero";
        return false;
      }
      if (a == INT64_MIN && b == -1) {
        why = "overflow";
        return false;
      }
      if (n.op == Op::Div) {
        out = a / b;
      } else if (n.op == Op::Rem) {
        out = a % b;
      } else {
        // tlc::rt::ceilDiv: rounds towards +infinity.
        int64_t q = a / b, r = a % b;
        out = (r != 0 && ((r > 0) == (b > 0))) ? q + 1 : q;
      }
      break;
    case Op::Eq:
      out = a == b;
      break;
    case Op::Ne:
      out = a != b;
      break;
    case Op::Lt:
      out = a < b;
      break;
    case Op::Le:
      out = a <= b;
      break;
    case Op::Gt:
      out = a > b;
      break;
    case Op::Ge:
      out = a >= b;
      break;
    case Op::BitAnd:
      out = a & b;
      break;
    case Op::BitXor:
      out = a ^ b;
      break;
    case Op::BitOr:
      out = a | b;
      break;
    default:
      why = "internal error: bad node";
      return false;
    }
    if (overflow) {
      why = "overflow";
      return false;
    }
    return true;
  }

  std::string Source;
  std::vector<Node> Nodes;
  std::vector<Token> Tokens;
  size_t Pos = 0;
  int Root = -1;
  std::string Error;
};

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

/// One kernel parameter (docs/abi.md).
struct ParamInfo {
  std::string name;
  bool isTensor = false;
  std::string dtype;
  /// Tensors: size symbols or decimal constants, one per dimension.
  std::vector<std::string> dims;
  /// Tensors: empty (dense row-major), or stride symbols / decimal constants per dimension.
  std::vector<std::string> strides;
  /// Tensors: "read", "write", "readwrite" or "none". A manifest without it is read as
  /// "readwrite" (random content, compared).
  std::string access = "readwrite";

  bool isWritten() const { return access == "write" || access == "readwrite"; }
};

/// One TMA tensor map a `tma` entry takes after the ABI parameters.
struct MapInfo {
  int param = 0;
  int64_t boxRows = 0, boxCols = 0, swizzle = 0;
  /// Whether the kernel only reads the tensor: a launch may copy it to an aligned workspace.
  bool readOnly = false;
  /// A store map: encoded where TMA can write the tensor in place, flagged in the i32 parameter
  /// after the maps (docs/abi.md).
  bool store = false;
};

/// The entry a tma entry's launches use to copy read-only tensors TMA cannot read in place into
/// an aligned workspace (docs/abi.md); `entry` empty when the manifest names none.
struct RepackInfo {
  std::string entry;
  int64_t threads = 0, tileRows = 0, tileCols = 0, dynamicSharedBytes = 0;
};

/// One entry point of a kernel in one architecture's image.
struct EntryInfo {
  std::string name;
  /// "plain", "tma" (TMA + wgmma ring) or "loads" (a ring its producer warpgroup fills by
  /// loading the tiles); the last two launch persistent blocks of `threads`.
  std::string kind = "plain";

  bool persistent() const { return kind == "tma" || kind == "loads"; }
  /// Threads per block (the product for a plain entry; the kernel's `threads` gives the shape).
  int64_t threads = 0;
  int64_t dynamicSharedBytes = 0;
  std::vector<MapInfo> maps;
  RepackInfo repack;
  /// A tma entry that splits tiles along K (`"stream_k": {"slot_bytes": B}`): B, the bytes of
  /// one partial slot of the workspace it takes after its maps (docs/abi.md); 0 for none.
  int64_t streamKSlotBytes = 0;
  /// A tma entry whose blocks may run in clusters of this many along x (`"cluster": 2`: pairs of
  /// tiles in adjacent rows sharing their loads, docs/abi.md); 1 for none.
  int64_t cluster = 1;
};

/// What one architecture's image holds of a kernel.
struct TargetInfo {
  std::string arch;
  bool cubin = false;
  std::vector<EntryInfo> entries;
  /// The configuration whose launch serves the launches this one's tma entry cannot, where the
  /// image has no plain entry of this one (`"plain_server"`); empty where it has.
  std::string plainServer;

  const EntryInfo *plainEntry() const {
    for (const EntryInfo &e : entries)
      if (e.kind == "plain")
        return &e;
    return nullptr;
  }
};

/// One kernel of a manifest.
struct KernelInfo {
  std::string name;
  std::string variantOf;
  int64_t variant = -1;
  int64_t threads[3] = {1, 1, 1};
  std::string grid[3];
  GridExpr gridExprs[3];
  /// Size arguments of the launcher: sizes, then stride names, in order of first appearance.
  std::vector<std::string> sizeSymbols;
  bool exact = false;
  /// The narrowest float type the kernel rounds values to ("bf16"; empty: none below f32).
  std::string roundsTo;
  /// The kernel multiplies 8-bit floats in a gemm (`f8_gemm`): sm_90a's wgmma accumulates
  /// them with about 14 significant bits per k step.
  bool f8Gemm = false;
  std::vector<ParamInfo> params;
  /// Integer compile-time constants (tile sizes are drawn from them).
  std::map<std::string, int64_t> intConstants;
  std::vector<TargetInfo> targets;

  /// The kernel family: variant_of, else the name (variants share their cases).
  const std::string &family() const { return variantOf.empty() ? name : variantOf; }
};

/// A manifest written by tlc (the .json next to the .fatbin).
struct Manifest {
  std::string version, source;
  std::vector<std::string> archs;
  std::vector<KernelInfo> kernels;

  const KernelInfo *find(const std::string &name) const {
    for (const KernelInfo &k : kernels)
      if (k.name == name)
        return &k;
    return nullptr;
  }
};

/// Whether \p s is a non-negative decimal constant ("128").
inline bool isDecimal(const std::string &s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Whether \p s is a decimal constant, possibly negative ("128", "-1"): a dim or stride that is
/// not a symbol.
inline bool isConstant(const std::string &s) {
  return isDecimal(s) || (s.size() > 1 && s[0] == '-' && isDecimal(s.substr(1)));
}

namespace detail {

/// Reads manifest fields, remembering the first error with its place.
struct ManifestReader {
  std::string error;

  bool fail(const std::string &where, const std::string &what) {
    if (error.empty())
      error = where + ": " + what;
    return false;
  }
  bool str(const Json &obj, const char *key, std::string &out, const std::string &where,
           bool required = true) {
    const Json *v = obj.get(key);
    if (!v)
      return !required || fail(where, std::string("missing '") + key + "'");
    if (!v->isString())
      return fail(where, std::string("'") + key + "' must be a string");
    out = v->text;
    return true;
  }
  bool integer(const Json &obj, const char *key, int64_t &out, const std::string &where,
               bool required = true) {
    const Json *v = obj.get(key);
    if (!v)
      return !required || fail(where, std::string("missing '") + key + "'");
    std::optional<int64_t> i = v->asInt();
    if (!i)
      return fail(where, std::string("'") + key + "' must be an integer");
    out = *i;
    return true;
  }
  bool boolean(const Json &obj, const char *key, bool &out, const std::string &where) {
    const Json *v = obj.get(key);
    if (!v)
      return true;
    if (v->kind != Json::Kind::Bool)
      return fail(where, std::string("'") + key + "' must be true or false");
    out = v->boolean;
    return true;
  }
  bool strings(const Json &obj, const char *key, std::vector<std::string> &out,
               const std::string &where, bool required = true) {
    const Json *v = obj.get(key);
    if (!v)
      return !required || fail(where, std::string("missing '") + key + "'");
    if (!v->isArray())
      return fail(where, std::string("'") + key + "' must be an array of strings");
    out.clear();
    for (const Json &item : v->items) {
      if (item.isString())
        out.push_back(item.text);
      else if (std::optional<int64_t> i = item.asInt())
        out.push_back(std::to_string(*i)); // a constant written as a number
      else
        return fail(where, std::string("'") + key + "' must be an array of strings");
    }
    return true;
  }

  bool param(const Json &p, ParamInfo &out, const std::string &where) {
    if (!p.isObject())
      return fail(where, "must be an object");
    std::string kind;
    if (!str(p, "name", out.name, where) || !str(p, "kind", kind, where) ||
        !str(p, "dtype", out.dtype, where))
      return false;
    if (kind != "tensor" && kind != "scalar")
      return fail(where, "'kind' must be \"tensor\" or \"scalar\", not \"" + kind + "\"");
    out.isTensor = kind == "tensor";
    std::string w = where + " ('" + out.name + "')";
    if (!out.isTensor)
      return true;
    if (!strings(p, "dims", out.dims, w) || !strings(p, "strides", out.strides, w, false) ||
        !str(p, "access", out.access, w, false))
      return false;
    if (!out.strides.empty() && out.strides.size() != out.dims.size())
      return fail(w, "has " + std::to_string(out.dims.size()) + " dims but " +
                         std::to_string(out.strides.size()) + " strides");
    if (out.access != "read" && out.access != "write" && out.access != "readwrite" &&
        out.access != "none")
      return fail(w, "unknown access \"" + out.access + "\"");
    for (const std::string &s : out.dims)
      if (s.empty())
        return fail(w, "has an empty dimension");
    for (const std::string &s : out.strides)
      if (s.empty())
        return fail(w, "has an empty stride");
    return true;
  }

  bool entry(const Json &e, EntryInfo &out, const KernelInfo &kernel, const std::string &where) {
    if (!e.isObject())
      return fail(where, "must be an object");
    if (!str(e, "name", out.name, where) || !str(e, "kind", out.kind, where) ||
        !integer(e, "threads", out.threads, where, false) ||
        !integer(e, "dynamic_shared_bytes", out.dynamicSharedBytes, where, false))
      return false;
    std::string w = where + " ('" + out.name + "')";
    if (out.kind != "plain" && out.kind != "tma" && out.kind != "loads")
      return fail(w, "unknown entry kind \"" + out.kind + "\"");
    if (out.dynamicSharedBytes < 0 || out.dynamicSharedBytes > UINT32_MAX)
      return fail(w, "bad 'dynamic_shared_bytes'");
    if (out.persistent() && out.threads <= 0)
      return fail(w, "a " + out.kind + " entry needs 'threads'");
    if (const Json *maps = e.get("maps")) {
      if (!maps->isArray())
        return fail(w, "'maps' must be an array");
      for (size_t i = 0; i < maps->items.size(); ++i) {
        const Json &m = maps->items[i];
        std::string mw = w + ": map " + std::to_string(i);
        MapInfo map;
        int64_t param = 0;
        if (!m.isObject())
          return fail(mw, "must be an object");
        if (!integer(m, "param", param, mw) || !integer(m, "box_rows", map.boxRows, mw) ||
            !integer(m, "box_cols", map.boxCols, mw) ||
            !integer(m, "swizzle", map.swizzle, mw, false) ||
            !boolean(m, "read_only", map.readOnly, mw) || !boolean(m, "store", map.store, mw))
          return false;
        if (param < 0 || param >= static_cast<int64_t>(kernel.params.size()) ||
            !kernel.params[param].isTensor || kernel.params[param].dims.size() < 2 ||
            kernel.params[param].dims.size() > 5)
          return fail(mw, "'param' " + std::to_string(param) +
                              " is not a tensor parameter of rank 2 to 5");
        if (map.boxRows <= 0 || map.boxCols <= 0 || map.boxRows > 256 || map.boxCols > 256)
          return fail(mw, "bad box");
        map.param = static_cast<int>(param);
        out.maps.push_back(map);
      }
    } else if (out.kind == "tma") {
      return fail(w, "a tma entry needs 'maps'");
    }
    if (const Json *sk = e.get("stream_k")) {
      std::string sw = w + ": stream_k";
      if (!sk->isObject())
        return fail(sw, "must be an object");
      if (!integer(*sk, "slot_bytes", out.streamKSlotBytes, sw))
        return false;
      if (out.kind != "tma" || out.streamKSlotBytes <= 0 || out.streamKSlotBytes % 16)
        return fail(sw, "'slot_bytes' must be a positive multiple of 16, on a tma entry");
    }
    if (e.get("cluster")) {
      if (!integer(e, "cluster", out.cluster, w))
        return false;
      if (out.kind != "tma" || (out.cluster != 1 && out.cluster != 2))
        return fail(w, "'cluster' must be 1 or 2, on a tma entry");
    }
    if (const Json *r = e.get("repack")) {
      std::string rw = w + ": repack";
      if (!r->isObject())
        return fail(rw, "must be an object");
      RepackInfo &repack = out.repack;
      if (!str(*r, "entry", repack.entry, rw) || !integer(*r, "threads", repack.threads, rw) ||
          !integer(*r, "tile_rows", repack.tileRows, rw) ||
          !integer(*r, "tile_cols", repack.tileCols, rw) ||
          !integer(*r, "dynamic_shared_bytes", repack.dynamicSharedBytes, rw, false))
        return false;
      if (repack.threads <= 0 || repack.threads > 1024 || repack.tileRows <= 0 ||
          repack.tileCols <= 0 || repack.dynamicSharedBytes < 0 ||
          repack.dynamicSharedBytes > UINT32_MAX)
        return fail(rw, "bad threads, tile or shared bytes");
    }
    return true;
  }

  bool kernel(const Json &k, KernelInfo &out, const std::string &where) {
    if (!k.isObject())
      return fail(where, "must be an object");
    if (!str(k, "name", out.name, where))
      return false;
    std::string w = "kernel '" + out.name + "'";
    if (!str(k, "variant_of", out.variantOf, w, false) ||
        !integer(k, "variant", out.variant, w, false) || !boolean(k, "exact", out.exact, w) ||
        !str(k, "rounds_to", out.roundsTo, w, false) || !boolean(k, "f8_gemm", out.f8Gemm, w) ||
        !strings(k, "size_symbols", out.sizeSymbols, w, false))
      return false;
    if (const Json *t = k.get("threads")) {
      if (std::optional<int64_t> n = t->asInt()) {
        out.threads[0] = *n;
      } else if (t->isArray() && t->items.size() >= 1 && t->items.size() <= 3) {
        for (size_t i = 0; i < t->items.size(); ++i) {
          std::optional<int64_t> item = t->items[i].asInt();
          if (!item || *item < 1)
            return fail(w, "'threads' must hold positive integers");
          out.threads[i] = *item;
        }
      } else {
        return fail(w, "'threads' must be an array of up to 3 integers");
      }
    }
    std::vector<std::string> grid;
    if (!strings(k, "grid", grid, w, false))
      return false;
    if (grid.size() > 3)
      return fail(w, "'grid' has more than 3 dimensions");
    for (size_t i = 0; i < 3; ++i) {
      out.grid[i] = i < grid.size() ? grid[i] : "";
      std::string why;
      if (!out.gridExprs[i].parse(out.grid[i], why))
        return fail(w, why);
    }
    const Json *params = k.get("params");
    if (!params || !params->isArray())
      return fail(w, "missing 'params' array");
    for (size_t i = 0; i < params->items.size(); ++i) {
      ParamInfo p;
      if (!param(params->items[i], p, w + ": param " + std::to_string(i)))
        return false;
      out.params.push_back(std::move(p));
    }
    // Every symbol a tensor uses is a launcher size argument, listed or not.
    for (const ParamInfo &p : out.params) {
      for (const auto *list : {&p.dims, &p.strides})
        for (const std::string &s : *list)
          if (!isConstant(s) &&
              std::find(out.sizeSymbols.begin(), out.sizeSymbols.end(), s) == out.sizeSymbols.end())
            out.sizeSymbols.push_back(s);
    }
    if (const Json *constants = k.get("constants"); constants && constants->isObject())
      for (const auto &[name, value] : constants->members)
        if (std::optional<int64_t> i = value.asInt())
          out.intConstants[name] = *i;
    const Json *targets = k.get("targets");
    if (targets && !targets->isArray())
      return fail(w, "'targets' must be an array");
    for (size_t i = 0; targets && i < targets->items.size(); ++i) {
      const Json &t = targets->items[i];
      std::string tw = w + ": target " + std::to_string(i);
      TargetInfo target;
      if (!t.isObject())
        return fail(tw, "must be an object");
      if (!str(t, "arch", target.arch, tw) || !boolean(t, "cubin", target.cubin, tw))
        return false;
      tw = w + ": target '" + target.arch + "'";
      const Json *entries = t.get("entries");
      if (!entries || !entries->isArray())
        return fail(tw, "missing 'entries' (a manifest from a tlc without differential-test "
                        "fields?)");
      for (size_t j = 0; j < entries->items.size(); ++j) {
        EntryInfo e;
        if (!entry(entries->items[j], e, out, tw + ": entry " + std::to_string(j)))
          return false;
        target.entries.push_back(std::move(e));
      }
      if (t.get("plain_server")) {
        if (!str(t, "plain_server", target.plainServer, tw))
          return false;
        if (target.plainEntry() || target.plainServer == out.name)
          return fail(tw, "has a plain entry and another configuration serving it");
      }
      if (!target.plainEntry() && target.plainServer.empty() &&
          std::none_of(target.entries.begin(), target.entries.end(),
                       [](const EntryInfo &e) { return e.kind == "loads"; }))
        return fail(tw, "has neither a plain nor a loads entry, nor a plain_server");
      out.targets.push_back(std::move(target));
    }
    return true;
  }
};

} // namespace detail

/// Parses the manifest \p text into \p out; on failure returns false with \p error naming the
/// kernel, parameter or entry at fault.
inline bool parseManifest(const std::string &text, Manifest &out, std::string &error) {
  Json root;
  if (!parseJson(text, root, error))
    return false;
  out = Manifest();
  if (!root.isObject()) {
    error = "the manifest is not a JSON object";
    return false;
  }
  detail::ManifestReader r;
  if (!r.str(root, "tlc_version", out.version, "manifest", false) ||
      !r.str(root, "source", out.source, "manifest", false) ||
      !r.strings(root, "archs", out.archs, "manifest", false)) {
    error = r.error;
    return false;
  }
  const Json *kernels = root.get("kernels");
  if (!kernels || !kernels->isArray()) {
    error = "manifest: missing 'kernels' array";
    return false;
  }
  for (size_t i = 0; i < kernels->items.size(); ++i) {
    KernelInfo k;
    if (!r.kernel(kernels->items[i], k, "kernel " + std::to_string(i))) {
      error = r.error;
      return false;
    }
    out.kernels.push_back(std::move(k));
  }
  return true;
}

/// Why tlc-difftest cannot test \p k (a dtype it cannot generate or compare), or empty.
inline std::string unsupportedReason(const KernelInfo &k) {
  for (const ParamInfo &p : k.params) {
    std::optional<DType> t = lookupDType(p.dtype);
    if (!t)
      return (p.isTensor ? "tensor '" : "scalar '") + p.name + "' has element type '" + p.dtype +
             "', which tlc-difftest does not generate";
    if (!p.isTensor && t->bytes == 1 && t->cls != DType::Class::Bool)
      return "scalar '" + p.name + "' has type '" + p.dtype + "', not an ABI scalar type";
  }
  return "";
}

/// Whether \p a and \p b have the same parameters (names, kinds, dtypes, dims, strides) and,
/// unless \p b is a family reference (one build with the configuration parameters fixed, which
/// serves every variant with its own tiles), the same launch shapes: the fast and reference
/// builds of a kernel must.
inline std::string abiMismatch(const KernelInfo &a, const KernelInfo &b,
                               bool familyReference = false) {
  if (a.params.size() != b.params.size())
    return "different parameter counts (" + std::to_string(a.params.size()) + " vs " +
           std::to_string(b.params.size()) + ")";
  for (size_t i = 0; i < a.params.size(); ++i) {
    const ParamInfo &p = a.params[i], &q = b.params[i];
    if (p.name != q.name || p.isTensor != q.isTensor || p.dtype != q.dtype || p.dims != q.dims ||
        p.strides != q.strides)
      return "parameter " + std::to_string(i) + " ('" + p.name + "') differs";
  }
  if (familyReference)
    return "";
  for (int i = 0; i < 3; ++i)
    if (a.threads[i] != b.threads[i] || a.grid[i] != b.grid[i])
      return "different launch shapes";
  return "";
}

//===----------------------------------------------------------------------===//
// Architectures
//===----------------------------------------------------------------------===//

/// An architecture name, "sm_90a" -> {9, 0, 'a'}.
struct ArchId {
  int major = 0, minor = 0;
  /// 0, 'a' (architecture-specific) or 'f' (family-specific).
  char suffix = 0;
};

/// Parses "sm_<major><minor>[a|f]" (the last digit is the minor version).
inline std::optional<ArchId> parseArch(const std::string &arch) {
  if (arch.compare(0, 3, "sm_") != 0 && arch.compare(0, 8, "compute_") != 0)
    return std::nullopt;
  std::string rest = arch.substr(arch[0] == 's' ? 3 : 8);
  ArchId id;
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    id.suffix = rest.back();
    rest.pop_back();
  }
  if (rest.size() < 2 || !isDecimal(rest))
    return std::nullopt;
  id.minor = rest.back() - '0';
  id.major = std::atoi(rest.substr(0, rest.size() - 1).c_str());
  return id;
}

/// The target of \p k whose image the driver loads on a device of compute capability
/// \p major.\p minor: a cubin for exactly this device ('a' preferred), else the newest cubin of
/// the same major version not newer than the device (plain or 'f'), else the newest PTX the
/// driver can JIT-compile for it (plain PTX not newer than the device, 'a' PTX of exactly the
/// device, 'f' PTX of its major version). Null when none fits; \p why then says so.
inline const TargetInfo *selectTarget(const KernelInfo &k, int major, int minor, std::string &why) {
  const TargetInfo *best = nullptr;
  int bestScore = -1;
  for (const TargetInfo &t : k.targets) {
    std::optional<ArchId> id = parseArch(t.arch);
    if (!id)
      continue;
    int version = id->major * 10 + id->minor, device = major * 10 + minor;
    int score = -1;
    if (t.cubin) {
      if (id->major == major && id->minor == minor)
        score = id->suffix == 'a' ? 3000 : id->suffix == 'f' ? 2900 : 2800;
      else if (id->major == major && id->minor < minor && id->suffix != 'a')
        score = 2000 + version;
    }
    // PTX, JIT-compiled by the driver: plain PTX for any newer device, 'a' PTX for exactly its
    // device, 'f' PTX for newer minor versions of its major.
    bool jitFits = id->suffix == 0     ? version <= device
                   : id->suffix == 'a' ? id->major == major && id->minor == minor
                                       : id->major == major && id->minor <= minor;
    if (score < 0 && jitFits)
      score = 1000 + version;
    if (score > bestScore) {
      bestScore = score;
      best = &t;
    }
  }
  if (!best) {
    why = "kernel '" + k.name + "' has no target for sm_" + std::to_string(major * 10 + minor) +
          " (targets:";
    for (const TargetInfo &t : k.targets)
      why += " " + t.arch;
    why += ")";
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Cases: sizes and strides
//===----------------------------------------------------------------------===//

/// Values of a kernel's size and stride symbols, by name.
using Symbols = std::map<std::string, int64_t>;

/// The size values random cases draw from.
inline const std::vector<int64_t> &edgeSizes() {
  static const std::vector<int64_t> values = {1,   2,   3,   7,    16,   17,  31,  63,
                                              64,  65,  96,  127,  128,  129, 200, 255,
                                              256, 257, 384, 1000, 1024, 1111};
  return values;
}

/// The names used in some tensor's dims, in size_symbols order.
inline std::vector<std::string> dimSymbols(const KernelInfo &k) {
  std::set<std::string> used;
  for (const ParamInfo &p : k.params)
    for (const std::string &d : p.dims)
      if (!isConstant(d))
        used.insert(d);
  std::vector<std::string> out;
  for (const std::string &s : k.sizeSymbols)
    if (used.count(s))
      out.push_back(s);
  return out;
}

/// The names used only in strides, in size_symbols order.
inline std::vector<std::string> strideSymbols(const KernelInfo &k) {
  std::vector<std::string> dims = dimSymbols(k), out;
  for (const std::string &s : k.sizeSymbols)
    if (std::find(dims.begin(), dims.end(), s) == dims.end())
      out.push_back(s);
  return out;
}

/// The value of a dim or stride: a decimal constant or a symbol of \p values.
inline std::optional<int64_t> symbolValue(const std::string &s, const Symbols &values) {
  if (isDecimal(s)) {
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno)
      return std::nullopt;
    return v;
  }
  if (!s.empty() && s[0] == '-' && isDecimal(s.substr(1)))
    return -std::strtoll(s.c_str() + 1, nullptr, 10);
  auto it = values.find(s);
  if (it == values.end())
    return std::nullopt;
  return it->second;
}

/// The number of elements of tensor \p p (product of its dims; saturating), or -1 if a symbol
/// has no value.
inline int64_t elementCount(const ParamInfo &p, const Symbols &values) {
  int64_t n = 1;
  for (const std::string &d : p.dims) {
    std::optional<int64_t> v = symbolValue(d, values);
    if (!v)
      return -1;
    if (*v <= 0)
      return 0;
    if (__builtin_mul_overflow(n, *v, &n))
      return INT64_MAX;
  }
  return n;
}

/// Parses a `--case` value "M=1000,N=1111,K=778" (spaces allowed; values may be negative for
/// strides) into \p out, in order.
inline bool parseCaseSpec(const std::string &text,
                          std::vector<std::pair<std::string, int64_t>> &out, std::string &error) {
  out.clear();
  size_t i = 0;
  while (i <= text.size()) {
    size_t end = text.find(',', i);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(i, end - i);
    item.erase(std::remove_if(item.begin(), item.end(),
                              [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
               item.end());
    i = end + 1;
    if (item.empty()) {
      if (end == text.size())
        break;
      continue;
    }
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::string digits = !value.empty() && value[0] == '-' ? value.substr(1) : value;
    if (name.empty() || !isDecimal(digits) || digits.size() > 18) {
      error = "bad case item '" + item + "' in '" + text + "' (expected NAME=INTEGER)";
      return false;
    }
    out.emplace_back(name, std::strtoll(value.c_str(), nullptr, 10));
  }
  if (out.empty()) {
    error = "empty case '" + text + "'";
    return false;
  }
  return true;
}

/// Sizes for the dims of \p k for case \p index: case 0 sets every size to 1, case 1 to 3, case
/// 2 to 256, case 3 cycles the ragged 1000, 1111, 778; later cases draw from \p rng: about half
/// "ragged" (edge values, at least one not a multiple of 64), half "aligned" (multiples of 64 or
/// of a tile-sized constant of the kernel, sometimes 2048 or 4096 for several waves of
/// persistent blocks). Names in \p given keep their values; the others are shrunk until every
/// tensor has at most \p maxElements elements.
inline Symbols chooseSizes(const KernelInfo &k, int index, Rng &rng, int64_t maxElements,
                           const Symbols &given = {}) {
  std::vector<std::string> syms = dimSymbols(k);
  Symbols out;
  static const int64_t ragged3[] = {1000, 1111, 778};
  std::vector<int64_t> tiles;
  for (const auto &[name, v] : k.intConstants)
    if (v >= 16 && v <= 512)
      tiles.push_back(v);
  bool raggedCase = index >= 4 && rng.below(2) == 0;
  for (size_t i = 0; i < syms.size(); ++i) {
    int64_t v;
    if (index == 0)
      v = 1;
    else if (index == 1)
      v = 3;
    else if (index == 2)
      v = 256;
    else if (index == 3)
      v = ragged3[i % 3];
    else if (raggedCase)
      v = edgeSizes()[rng.below(edgeSizes().size())];
    else if (!tiles.empty() && rng.below(2) == 0)
      v = tiles[rng.below(tiles.size())] * rng.range(1, 3);
    else if (rng.below(8) == 0)
      v = rng.below(2) ? 2048 : 4096;
    else {
      static const int64_t aligned[] = {64, 128, 256, 384, 1024};
      v = aligned[rng.below(5)];
    }
    out[syms[i]] = v;
  }
  for (const auto &[name, v] : given)
    out[name] = v;
  auto isGiven = [&](const std::string &s) { return given.count(s) != 0; };
  if (raggedCase) {
    bool any = false;
    for (const std::string &s : syms)
      any |= out[s] % 64 != 0;
    std::vector<std::string> free;
    for (const std::string &s : syms)
      if (!isGiven(s))
        free.push_back(s);
    if (!any && !free.empty()) {
      static const int64_t raggedValues[] = {1,   3,   7,   17,  31,  63,   65,
                                             127, 129, 200, 255, 257, 1000, 1111};
      out[free[rng.below(free.size())]] = raggedValues[rng.below(14)];
    }
  }
  // Shrink: the outermost free symbol of an oversized tensor (batch-like dims are outer) steps
  // down: a multiple of 16 halves, another size takes one of the 3 next smaller edge values.
  for (int guard = 0; guard < 10000; ++guard) {
    const ParamInfo *big = nullptr;
    for (const ParamInfo &p : k.params)
      if (p.isTensor && elementCount(p, out) > maxElements) {
        big = &p;
        break;
      }
    if (!big)
      break;
    std::string victim;
    for (const std::string &d : big->dims)
      if (!isConstant(d) && !isGiven(d) && out[d] > 1) {
        victim = d;
        break;
      }
    if (victim.empty())
      break; // Only constants or given sizes left: keep what the user asked for.
    int64_t &v = out[victim];
    if (v % 16 == 0) {
      v /= 2;
      continue;
    }
    std::vector<int64_t> smaller;
    for (int64_t e : edgeSizes())
      if (e < v)
        smaller.push_back(e);
    v = smaller.empty()
            ? 1
            : smaller[smaller.size() - 1 - rng.below(std::min<size_t>(3, smaller.size()))];
  }
  return out;
}

/// Chooses the stride symbols of \p k that \p values lacks so that no tensor's elements overlap:
/// per tensor with explicit strides, the dim with stride "1" (else the last) is innermost, then
/// the other dims from last to first; a symbolic stride is the span of the dims placed before it
/// plus a padding from \p rng (half the time 0; a quarter 1-3 elements, making rows unaligned;
/// a quarter up to the next 16-byte multiple). A symbol several tensors use takes the largest
/// value any needs. Given values (--case) are kept as they are.
inline void chooseStrides(const KernelInfo &k, Symbols &values, Rng &rng) {
  std::vector<std::string> strideSyms = strideSymbols(k);
  std::set<std::string> fixed;
  for (const std::string &s : strideSyms)
    if (values.count(s))
      fixed.insert(s);
  // One padding draw per (tensor, dim), made up front so that the fixed point below is stable.
  std::vector<std::vector<int64_t>> pads(k.params.size());
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ParamInfo &p = k.params[i];
    std::optional<DType> t = lookupDType(p.dtype);
    int64_t perRow = t && t->bytes <= 16 ? 16 / t->bytes : 1;
    for (size_t d = 0; d < p.strides.size(); ++d) {
      uint64_t r = rng.below(4);
      // Negative: round up to a multiple of -pad elements.
      pads[i].push_back(r < 2 ? 0 : r == 2 ? rng.range(1, 3) : -perRow);
    }
  }
  for (const std::string &s : strideSyms)
    if (!fixed.count(s))
      values[s] = 0;
  for (int pass = 0; pass < 16; ++pass) {
    bool changed = false;
    for (size_t i = 0; i < k.params.size(); ++i) {
      const ParamInfo &p = k.params[i];
      if (!p.isTensor || p.strides.empty())
        continue;
      size_t rank = p.dims.size();
      size_t inner = rank - 1;
      for (size_t d = 0; d < rank; ++d)
        if (p.strides[d] == "1") {
          inner = d;
          break;
        }
      // Innermost first, then the dims whose strides are given (constants, fixed symbols),
      // then the chosen ones from the inside out: a chosen stride covers every dim placed before
      // it, so in [H, T, D] strides [D, S, 1] S spans all H heads and rows never overlap.
      auto isChosen = [&](size_t d) {
        return std::find(strideSyms.begin(), strideSyms.end(), p.strides[d]) != strideSyms.end() &&
               !fixed.count(p.strides[d]);
      };
      std::vector<size_t> order = {inner};
      for (bool chosenDims : {false, true})
        for (size_t d = rank; d-- > 0;)
          if (d != inner && isChosen(d) == chosenDims)
            order.push_back(d);
      int64_t span = 1; // elements covered by the dims placed so far
      for (size_t d : order) {
        int64_t size = symbolValue(p.dims[d], values).value_or(0);
        const std::string &s = p.strides[d];
        int64_t stride = 0;
        if (!isChosen(d)) {
          stride = symbolValue(s, values).value_or(0);
        } else {
          int64_t pad = pads[i][d];
          int64_t need = pad >= 0 ? span + pad : (span + (-pad) - 1) / (-pad) * (-pad);
          if (values[s] < need) {
            values[s] = need;
            changed = true;
          }
          stride = values[s];
        }
        if (size > 1)
          span += std::llabs(stride) * (size - 1);
      }
    }
    if (!changed)
      break;
  }
  for (const std::string &s : strideSyms)
    if (values[s] == 0)
      values[s] = 1;
}

/// "M=1000,N=1111,K=778,ldc=1003": \p values in \p k's size_symbols order (a --case value).
inline std::string caseText(const KernelInfo &k, const Symbols &values) {
  std::string out;
  for (const std::string &s : k.sizeSymbols) {
    auto it = values.find(s);
    if (it == values.end())
      continue;
    out += (out.empty() ? "" : ",") + s + "=" + std::to_string(it->second);
  }
  return out;
}

/// Where the elements of one tensor lie, in elements relative to its base address.
struct TensorLayout {
  std::vector<int64_t> sizes, strides;
  /// The lowest and highest element offsets addressed; maxOffset < minOffset when empty.
  int64_t minOffset = 0, maxOffset = -1;

  bool empty() const { return maxOffset < minOffset; }
  /// Elements from minOffset to maxOffset: what the allocation covers.
  int64_t span() const { return empty() ? 0 : maxOffset - minOffset + 1; }
  /// Elements addressed (the product of the sizes).
  int64_t count() const {
    if (empty())
      return 0;
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    return n;
  }
};

/// The layout of tensor \p p with \p values: its sizes, its strides (dense row-major when the
/// manifest gives none) and the offsets it spans. False with \p error on a missing symbol, a
/// negative size or an overflow.
inline bool makeLayout(const ParamInfo &p, const Symbols &values, TensorLayout &out,
                       std::string &error) {
  out = TensorLayout();
  size_t rank = p.dims.size();
  for (size_t d = 0; d < rank; ++d) {
    std::optional<int64_t> v = symbolValue(p.dims[d], values);
    if (!v) {
      error = "tensor '" + p.name + "': no value for size '" + p.dims[d] + "'";
      return false;
    }
    if (*v < 0) {
      error = "tensor '" + p.name + "': size '" + p.dims[d] + "' is negative";
      return false;
    }
    out.sizes.push_back(*v);
  }
  out.strides.assign(rank, 1);
  if (p.strides.empty()) {
    for (size_t d = rank; d-- > 1;)
      if (__builtin_mul_overflow(out.strides[d], out.sizes[d], &out.strides[d - 1])) {
        error = "tensor '" + p.name + "' is too large";
        return false;
      }
  } else {
    for (size_t d = 0; d < rank; ++d) {
      std::optional<int64_t> v = symbolValue(p.strides[d], values);
      if (!v) {
        error = "tensor '" + p.name + "': no value for stride '" + p.strides[d] + "'";
        return false;
      }
      out.strides[d] = *v;
    }
  }
  if (std::find(out.sizes.begin(), out.sizes.end(), 0) != out.sizes.end())
    return true; // empty
  int64_t lo = 0, hi = 0;
  const int64_t limit = int64_t(1) << 50;
  for (size_t d = 0; d < rank; ++d) {
    int64_t extent = 0;
    if (__builtin_mul_overflow(out.strides[d], out.sizes[d] - 1, &extent) || extent > limit ||
        extent < -limit) {
      error = "tensor '" + p.name + "' spans too many elements";
      return false;
    }
    (extent < 0 ? lo : hi) += extent;
  }
  if (lo < -limit || hi > limit) {
    error = "tensor '" + p.name + "' spans too many elements";
    return false;
  }
  out.minOffset = lo;
  out.maxOffset = hi;
  return true;
}

/// Calls \p f(index, offset) for every element of \p layout in row-major index order, with
/// offset relative to layout.minOffset (so in [0, span)).
template <typename F> void forEachElement(const TensorLayout &layout, F f) {
  if (layout.empty())
    return;
  size_t rank = layout.sizes.size();
  std::vector<int64_t> index(rank, 0);
  int64_t offset = -layout.minOffset;
  while (true) {
    f(index, offset);
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++index[d] < layout.sizes[d]) {
        offset += layout.strides[d];
        break;
      }
      offset -= layout.strides[d] * (layout.sizes[d] - 1);
      index[d] = 0;
      if (d == 0)
        return;
    }
    if (rank == 0)
      return;
  }
}

/// "[12, 1003]".
inline std::string formatIndex(const std::vector<int64_t> &index) {
  std::string out = "[";
  for (size_t i = 0; i < index.size(); ++i)
    out += (i ? ", " : "") + std::to_string(index[i]);
  return out + "]";
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Fills \p count elements of type \p t at \p out with random inputs from \p rng: floats uniform
/// in [-1, 1] rounded to the type and never zero, signed integers in [-8, 8] never zero (no
/// division by zero in a kernel), u8 in [0, 255], bool 0 or 1.
inline void fillRandom(const DType &t, uint8_t *out, int64_t count, Rng &rng) {
  for (int64_t i = 0; i < count; ++i) {
    uint8_t *p = out + i * t.bytes;
    switch (t.cls) {
    case DType::Class::Float:
      do
        storeFloat(t, p, rng.uniform(-1.0, 1.0));
      while (floatValue(t, p) == 0.0);
      break;
    case DType::Class::Signed: {
      int64_t v = rng.range(-8, 7);
      storeInt(t, p, v >= 0 ? v + 1 : v);
      break;
    }
    case DType::Class::Unsigned:
      storeInt(t, p, rng.range(0, 255));
      break;
    case DType::Class::Bool:
      *p = static_cast<uint8_t>(rng.below(2));
      break;
    }
  }
}

/// Fills \p count elements at \p out with the poison of an output: all-ones bits (a NaN) for
/// floats, 0x5A bytes for integers and bools.
inline void fillPoison(const DType &t, uint8_t *out, int64_t count) {
  std::memset(out, t.isFloat() ? 0xFF : 0x5A, static_cast<size_t>(count) * t.bytes);
}

/// A scalar argument's value: f32/f64 uniform in [0.25, 1.25], integers in [1, 4], bool 0/1.
struct ScalarValue {
  DType type;
  double f = 0;
  int64_t i = 0;

  /// The value as a grid expression sees it (static_cast<int64_t>).
  int64_t asInt() const { return type.isFloat() ? static_cast<int64_t>(f) : i; }
  /// The ABI bytes (docs/abi.md): f32, f64, 32-/64-bit integer, u8 0 or 1; little-endian.
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out(type.bytes);
    if (type.isFloat())
      storeFloat(type, out.data(), f);
    else
      storeInt(type, out.data(), i);
    return out;
  }
  std::string text() const {
    char buf[64];
    if (type.isFloat())
      std::snprintf(buf, sizeof(buf), "%.9g", type.name == "f32" ? static_cast<float>(f) : f);
    else if (type.cls == DType::Class::Bool)
      std::snprintf(buf, sizeof(buf), "%s", i ? "true" : "false");
    else
      std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(i));
    return buf;
  }
};

inline ScalarValue randomScalar(const DType &t, Rng &rng) {
  ScalarValue v{t};
  if (t.isFloat()) {
    v.f = rng.uniform(0.25, 1.25);
    if (t.name == "f32")
      v.f = static_cast<float>(v.f);
  } else if (t.cls == DType::Class::Bool) {
    v.i = static_cast<int64_t>(rng.below(2));
  } else {
    v.i = rng.range(1, 4);
  }
  return v;
}

//===----------------------------------------------------------------------===//
// Case plans
//===----------------------------------------------------------------------===//

/// The case indices of \p count chosen cases of \p k (see chooseSizes): 0 to 3, then random
/// ones whose sizes and strides differ from every earlier case's where 16 draws find such.
inline std::vector<int> chooseCaseIndices(const KernelInfo &k, uint64_t seed, int count,
                                          int64_t maxElements) {
  std::vector<int> out;
  std::set<Symbols> seen;
  uint64_t kernelSeed = mixSeed(seed, hashName(k.family()));
  int next = 4;
  for (int i = 0; i < count; ++i) {
    int index = i < 4 ? i : next++;
    for (int attempt = 0; i >= 4 && attempt < 16; ++attempt, index = next++) {
      Rng rng(mixSeed(kernelSeed, static_cast<uint64_t>(index)));
      Symbols s = chooseSizes(k, index, rng, maxElements);
      chooseStrides(k, s, rng);
      if (!seen.count(s))
        break;
    }
    Rng rng(mixSeed(kernelSeed, static_cast<uint64_t>(index)));
    Symbols s = chooseSizes(k, index, rng, maxElements);
    chooseStrides(k, s, rng);
    seen.insert(s);
    out.push_back(index);
  }
  return out;
}

/// Everything about one case of a kernel that needs no GPU: the symbol values, the scalar
/// arguments, each tensor's layout, the grid, and the seed of the tensor contents.
struct CasePlan {
  Symbols symbols;
  /// The symbols as a --case value.
  std::string text;
  /// By parameter index; only the scalars' are set.
  std::vector<ScalarValue> scalars;
  /// By parameter index; only the tensors' are set.
  std::vector<TensorLayout> layouts;
  int64_t grid[3] = {1, 1, 1};
  /// Seeds the contents: tensor i takes Rng(mixSeed(contentSeed, i + 1)).
  uint64_t contentSeed = 0;
};

/// The grid of \p k for the sizes and scalars of \p plan (planned for \p k, or for another
/// kernel with the same parameters: a reference built with other tiles launches its own grid).
inline bool planGrid(const KernelInfo &k, const CasePlan &plan, int64_t grid[3],
                     std::string &error) {
  Env env(plan.symbols.begin(), plan.symbols.end());
  for (size_t i = 0; i < k.params.size() && i < plan.scalars.size(); ++i)
    if (!k.params[i].isTensor)
      env[k.params[i].name] = plan.scalars[i].asInt();
  for (int d = 0; d < 3; ++d)
    if (!k.gridExprs[d].eval(env, grid[d], error))
      return false;
  return true;
}

/// Plans case \p index of \p k (see chooseSizes; \p given pins symbols) under \p seed. Sizes
/// and strides depend on the kernel family (variants of a kernel share their cases), the seed
/// and the index; scalars and tensor contents on the seed and the symbol values only, so that
/// the printed --case reproduces a case exactly. False with \p error on a bad size or a grid
/// expression that cannot be evaluated. Every dtype of \p k must be supported.
inline bool planCase(const KernelInfo &k, uint64_t seed, int index, const Symbols &given,
                     int64_t maxElements, CasePlan &out, std::string &error) {
  out = CasePlan();
  uint64_t kernelSeed = mixSeed(seed, hashName(k.family()));
  Rng sizeRng(mixSeed(kernelSeed, static_cast<uint64_t>(index)));
  out.symbols = chooseSizes(k, index, sizeRng, maxElements, given);
  chooseStrides(k, out.symbols, sizeRng);
  out.text = caseText(k, out.symbols);
  out.contentSeed = mixSeed(kernelSeed, hashName(out.text));
  Rng scalarRng(mixSeed(out.contentSeed, 0x5CA1A5));
  out.scalars.resize(k.params.size());
  out.layouts.resize(k.params.size());
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ParamInfo &p = k.params[i];
    std::optional<DType> type = lookupDType(p.dtype);
    if (!type) {
      error = "unsupported element type '" + p.dtype + "'";
      return false;
    }
    if (p.isTensor) {
      if (!makeLayout(p, out.symbols, out.layouts[i], error))
        return false;
      continue;
    }
    out.scalars[i] = randomScalar(*type, scalarRng);
  }
  return planGrid(k, out, out.grid, error);
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

/// How close two results of a tensor must be.
struct Tolerance {
  /// Bit-identical (integers always; floats when the kernel is `exact`).
  bool exact = true;
  double rtol = 0;
};

/// The tolerance of an output of type \p t: exact for integers and for kernels marked `exact`;
/// else rtol 2^-7 (bf16), 2^-9 (f16), 1e-4 (f32, f64).
/// Relative tolerance of results rounded to float type \p name: about an ulp (2^-7 for bf16,
/// 2^-9 for f16, 2^-3 and 2^-2 for the 8-bit floats), 1e-4 for f32 and wider.
inline double roundingTolerance(const std::string &name) {
  if (name == "bf16")
    return 1.0 / 128;
  if (name == "f16")
    return 1.0 / 512;
  if (name == "f8e4m3")
    return 1.0 / 8;
  if (name == "f8e5m2")
    return 1.0 / 4;
  return 1e-4;
}

/// The tolerance of a tensor of type \p t: exact for integers and for kernels whose two code
/// generations compute the same arithmetic in the same order; otherwise an ulp of the narrower
/// of \p t and \p roundsTo, the narrowest type the kernel rounds values to on the way (an f32
/// result computed from bf16-rounded probabilities carries their rounding). A kernel that
/// multiplies 8-bit floats on tensor cores (\p f8Gemm) gets at least 2^-6: sm_90a's wgmma keeps
/// about 14 significant bits of its f32 accumulator per k step, an error near (K / 32) 2^-15
/// of the largest |result| (measured on the H100: 4e-3 at K = 4096, where mma.sync and the
/// reference agree bit for bit), while a k step left out or repeated is an error of about
/// |result| sqrt(32 / K).
inline Tolerance toleranceFor(const DType &t, bool kernelExact, const std::string &roundsTo = "",
                              bool f8Gemm = false) {
  Tolerance tol;
  if (!t.isFloat() || kernelExact)
    return tol;
  tol.exact = false;
  tol.rtol =
      std::max(roundingTolerance(t.name), roundsTo.empty() ? 0.0 : roundingTolerance(roundsTo));
  if (f8Gemm)
    tol.rtol = std::max(tol.rtol, 1.0 / 64);
  return tol;
}

/// One element where the results differ.
struct Mismatch {
  std::vector<int64_t> index;
  std::string fast, ref;
};

/// The comparison of one written tensor's fast and reference results.
struct TensorComparison {
  int64_t elements = 0;
  int64_t mismatches = 0;
  /// Of the mismatches: NaN in one result only (the element was written by one path only).
  int64_t oneSided = 0;
  double maxAbs = 0, maxRel = 0, atol = 0;
  /// The element with the largest |fast - ref| (NaN pairs aside).
  bool haveWorst = false;
  Mismatch worst;
  /// The first few mismatches, in index order.
  std::vector<Mismatch> first;
  /// Bytes inside the allocation but between addressed elements that a result changed from the
  /// initial content ("wrote outside the tensor").
  int64_t fastOutside = 0, refOutside = 0;

  bool pass() const { return mismatches == 0 && fastOutside == 0 && refOutside == 0; }
};

/// Compares the results \p fast and \p ref of a tensor of type \p t laid out as \p layout (each
/// the bytes of the span, from layout.minOffset), starting from \p initial: every addressed
/// element must agree (both NaN agree; a NaN in one only is a mismatch; \p tol.exact needs equal
/// bits, else |fast - ref| <= atol + rtol |ref| with atol = max(1e-3, rtol) max |ref| + 1e-6),
/// and bytes between addressed elements must be unchanged. Keeps the first \p keep mismatches.
/// maxRel is |fast - ref| / max(|ref|, atol).
///
/// The atol is one rounding step at the tensor's scale: a bf16 result that went through a bf16
/// intermediate of that scale (attention's probabilities on tensor cores) is off by about that
/// much even where the result itself is small; 1e-3 max |ref| flagged a few such elements in
/// every 16M-element attention case.
inline TensorComparison compareTensor(const DType &t, const TensorLayout &layout, Tolerance tol,
                                      const uint8_t *fast, const uint8_t *ref,
                                      const uint8_t *initial, size_t keep = 4) {
  TensorComparison c;
  int64_t span = layout.span();
  std::vector<uint8_t> addressed(static_cast<size_t>(span), 0);
  double maxRef = 0;
  if (!tol.exact)
    forEachElement(layout, [&](const std::vector<int64_t> &, int64_t k) {
      double r = floatValue(t, ref + k * t.bytes);
      if (std::isfinite(r))
        maxRef = std::max(maxRef, std::fabs(r));
    });
  c.atol = tol.exact ? 0 : std::max(1e-3, tol.rtol) * maxRef + 1e-6;
  bool withBits = tol.exact && t.isFloat();
  forEachElement(layout, [&](const std::vector<int64_t> &index, int64_t k) {
    addressed[static_cast<size_t>(k)] = 1;
    ++c.elements;
    const uint8_t *pf = fast + k * t.bytes, *pr = ref + k * t.bytes;
    bool bad = false;
    if (t.isFloat()) {
      double f = floatValue(t, pf), r = floatValue(t, pr);
      bool nf = std::isnan(f), nr = std::isnan(r);
      if (nf || nr) {
        bad = nf != nr;
        c.oneSided += bad;
      } else {
        double diff = f == r ? 0.0 : std::fabs(f - r); // inf == inf: 0
        if (std::isnan(diff))
          diff = INFINITY;
        if (tol.exact)
          bad = elementBits(t, pf) != elementBits(t, pr);
        else
          bad = !(diff <= c.atol + tol.rtol * std::fabs(r));
        double rel = diff / std::max(std::fabs(r), std::max(c.atol, 1e-300));
        if (!c.haveWorst || diff > c.maxAbs) {
          c.maxAbs = diff;
          c.haveWorst = true;
          c.worst = {index, formatElement(t, pf, withBits), formatElement(t, pr, withBits)};
        }
        c.maxRel = std::max(c.maxRel, rel);
      }
    } else {
      int64_t f = intValue(t, pf), r = intValue(t, pr);
      bad = f != r;
      double diff = std::fabs(static_cast<double>(f) - static_cast<double>(r));
      if (!c.haveWorst || diff > c.maxAbs) {
        c.maxAbs = diff;
        c.haveWorst = true;
        c.worst = {index, formatElement(t, pf, false), formatElement(t, pr, false)};
      }
      if (diff > 0)
        c.maxRel = std::max(c.maxRel, diff / std::max<double>(std::llabs(r), 1));
    }
    if (bad) {
      if (c.first.size() < keep)
        c.first.push_back({index, formatElement(t, pf, withBits), formatElement(t, pr, withBits)});
      ++c.mismatches;
    }
  });
  for (int64_t k = 0; k < span; ++k) {
    if (addressed[static_cast<size_t>(k)])
      continue;
    size_t at = static_cast<size_t>(k) * t.bytes;
    for (unsigned b = 0; b < t.bytes; ++b) {
      c.fastOutside += fast[at + b] != initial[at + b];
      c.refOutside += ref[at + b] != initial[at + b];
    }
  }
  return c;
}

/// The number of bytes that differ between \p a and \p b.
inline int64_t countChanged(const uint8_t *a, const uint8_t *b, size_t n) {
  int64_t changed = 0;
  for (size_t i = 0; i < n; ++i)
    changed += a[i] != b[i];
  return changed;
}

} // namespace tlc::difftest

#endif // TLC_TEST_GPU_DIFFTEST_DIFFPLAN_H
