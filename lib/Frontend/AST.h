//===- AST.h - Syntax tree of the .tile language --------------------------===//
#ifndef TLC_LIB_FRONTEND_AST_H
#define TLC_LIB_FRONTEND_AST_H

#include "Lexer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tlc::frontend {

/// A name with the place it was written.
struct Name {
  std::string text;
  llvm::SMLoc loc;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// An expression. One node type with a kind keeps the tree small; the fields a kind uses are
/// listed next to it.
struct Expr {
  enum Kind {
    IntLit,    ///< intValue
    FloatLit,  ///< floatValue
    BoolLit,   ///< boolValue
    Ref,       ///< name
    BlockIdx,  ///< name = "x" | "y" | "z": block.<name>
    ThreadIdx, ///< name = "x" | "y" | "z": thread.<name>
    Unary,     ///< op, operands[0]
    Binary,    ///< op, operands[0], operands[1]
    Ternary,   ///< operands[0] ? operands[1] : operands[2]
    Call,      ///< name(operands...)
    Index,     ///< name[operands...]
  };
  Kind kind;
  llvm::SMLoc loc;
  int64_t intValue = 0;
  double floatValue = 0;
  bool boolValue = false;
  std::string name;
  Token::Kind op = Token::error;
  std::vector<ExprPtr> operands;
  /// Call only: the keyword of each operand (`clear = true`), or an empty name when positional.
  std::vector<Name> keywords;
  /// Call only: the type argument of `bitcast<T>(x)`.
  std::optional<Name> typeArg;

  Expr(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

/// A statement; fields by kind as for Expr.
struct Stmt {
  enum Kind {
    Let,      ///< let name [: type] = value;
    Var,      ///< var name [: type] = value;
    Assign,   ///< name = value;
    Store,    ///< name[indices] = value;
    If,       ///< if (value) body else elseBody
    For,      ///< for names[0] in value body (value: a `range(...)` or `pipelined(...)` call)
    Parallel, ///< parallel (names...) in [indices...] body, or in a buffer: `over`
    Call,     ///< a tile operation: value is the call (copy, fill, gemm, reduce, atomic_add)
    Buffer,   ///< let name = space<type>[indices...];
  };
  Kind kind;
  llvm::SMLoc loc;
  Name name;
  std::optional<Name> type;
  ExprPtr value;
  std::vector<ExprPtr> indices;
  std::vector<Name> names;
  StmtList body, elseBody;
  bool hasElse = false;
  /// Parallel over a buffer's index space.
  std::optional<Name> over;
  /// Buffer: "shared", "fragment" or "local".
  Name space;

  Stmt(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
};

/// A run-time parameter: a tensor `X: tensor<T>[M, N]` or a scalar `s: f32`.
struct ParamDecl {
  Name name;
  bool isTensor = false;
  Name dtype;
  /// Size of each dimension: a size name, an integer literal, or an `int` parameter.
  std::vector<Name> dims;
  /// Explicit strides (`strides [ld, 1]`): names or integer literals; empty for dense row-major.
  std::vector<Name> strides;
};

/// A compile-time parameter `BM: int = 128`, `CAUSAL: bool = false`, `T: type = f32`.
struct ConstParamDecl {
  enum Kind { Int, Bool, Type };
  Name name;
  Kind kind = Int;
  ExprPtr defaultValue; ///< may be null: then a -D must give it
};

struct KernelDecl {
  Name name;
  std::vector<ConstParamDecl> constParams;
  std::vector<ParamDecl> params;
  llvm::SMLoc gridLoc, threadsLoc;
  std::vector<ExprPtr> grid, threads;
  /// `blocks_per_sm(E)` after `threads(...)`: at least E blocks resident per multiprocessor
  /// (ptxas fits the registers to them); null when absent.
  llvm::SMLoc blocksPerSmLoc;
  ExprPtr blocksPerSm;
  /// `configs { (BM = 128, BN = 64), ... }`: tuning candidates, each a list of assignments.
  llvm::SMLoc configsLoc;
  std::vector<std::vector<std::pair<Name, ExprPtr>>> configs;
  /// Where each configuration begins (its '('), parallel to `configs`.
  std::vector<llvm::SMLoc> configLocs;
  /// Each configuration's `when` condition (null without one), parallel to `configs`: the
  /// launcher prefers the configurations whose condition holds (docs/language.md).
  std::vector<ExprPtr> configWhens;
  /// Each configuration's architectures (`on sm_90a` or `on (sm_90a, sm_100a)`; empty without
  /// `on`: every architecture), parallel to `configs`.
  std::vector<std::vector<Name>> configArchs;
  StmtList body;
};

struct FileAST {
  std::vector<std::unique_ptr<KernelDecl>> kernels;
};

} // namespace tlc::frontend

#endif // TLC_LIB_FRONTEND_AST_H
