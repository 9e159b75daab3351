//===- Parser.cpp - Recursive-descent parser of the .tile language --------===//
#include "Parser.h"

#include "llvm/ADT/ScopeExit.h"

using namespace tlc::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::success;

SourceLocator::SourceLocator(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                             mlir::MLIRContext *context)
    : sourceMgr(sourceMgr), bufferId(bufferId), context(context) {
  // Line endings are "\n", "\r\n" and a lone "\r"; SourceMgr knows only the first two.
  StringRef text = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  bool loneCR = false;
  for (size_t i = text.find('\r'); i != StringRef::npos; i = text.find('\r', i + 1))
    if (i + 1 == text.size() || text[i + 1] != '\n') {
      loneCR = true;
      break;
    }
  if (!loneCR)
    return;
  lineStarts.push_back(0);
  for (size_t i = 0, e = text.size(); i != e; ++i)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == e || text[i + 1] != '\n')))
      lineStarts.push_back(i + 1);
}

mlir::Location SourceLocator::get(SMLoc loc) const {
  auto [line, col] = sourceMgr.getLineAndColumn(loc, bufferId);
  if (!lineStarts.empty()) {
    unsigned offset = loc.getPointer() - sourceMgr.getMemoryBuffer(bufferId)->getBufferStart();
    auto next = llvm::upper_bound(lineStarts, offset);
    line = next - lineStarts.begin();
    col = offset - *std::prev(next) + 1;
  }
  StringRef file = sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier();
  return mlir::FileLineColLoc::get(context, file, line, col);
}

namespace {
class Parser {
public:
  Parser(StringRef buffer, const SourceLocator &locator) : lexer(buffer), locator(locator) {
    tok = lexer.lex();
  }

  FailureOr<FileAST> parseFile();

private:
  // Token handling.
  void consume() { tok = lexer.lex(); }
  /// The token after the current one.
  Token peek() const {
    Lexer copy = lexer;
    return copy.lex();
  }
  bool consumeIf(Token::Kind kind) {
    if (!tok.is(kind))
      return false;
    consume();
    return true;
  }
  LogicalResult emitError(SMLoc loc, const llvm::Twine &message) {
    locator.emitError(loc) << message;
    return failure();
  }
  /// Reports "expected X, found Y" at the current token (or the lexer's message for a bad token).
  LogicalResult emitExpected(StringRef what) {
    if (tok.is(Token::error))
      return emitError(tok.getLoc(), lexer.getErrorMessage());
    std::string found = tok.is(Token::eof) ? "end of file" : ("'" + tok.getSpelling() + "'").str();
    return emitError(tok.getLoc(), "expected " + what + ", found " + found);
  }
  LogicalResult expect(Token::Kind kind, StringRef context = {}) {
    if (consumeIf(kind))
      return success();
    std::string what = Token::describe(kind).str();
    if (!context.empty())
      what += " " + context.str();
    return emitExpected(what);
  }
  FailureOr<Name> parseName(StringRef what) {
    if (!tok.is(Token::identifier)) {
      if (tok.isKeyword())
        return (void)(emitError(tok.getLoc(), "expected " + what + ", found keyword '" +
                                                  tok.getSpelling() + "'")),
               failure();
      return (void)(emitExpected(what)), failure();
    }
    Name name{tok.getSpelling().str(), tok.getLoc()};
    consume();
    return name;
  }

  // Declarations.
  FailureOr<std::unique_ptr<KernelDecl>> parseKernel();
  LogicalResult parseConstParam(KernelDecl &kernel);
  LogicalResult parseParam(KernelDecl &kernel);
  LogicalResult parseLaunchList(std::vector<ExprPtr> &out, SMLoc &loc, StringRef what);

  // Statements.
  LogicalResult parseBlock(StmtList &out);
  LogicalResult parseStatement(StmtList &out);
  LogicalResult parseBinding(StmtList &out, Stmt::Kind kind);
  LogicalResult parseIf(StmtList &out);
  LogicalResult parseFor(StmtList &out);
  LogicalResult parseParallel(StmtList &out);
  LogicalResult parseExprList(std::vector<ExprPtr> &out, Token::Kind close, StringRef what);
  /// Arguments of a call after its '(' up to and including ')': positional, then `name = expr`.
  LogicalResult parseCallArgs(Expr &call);
  /// A tensor dimension or stride: a name or an integer literal.
  FailureOr<Name> parseDim(StringRef what);
  LogicalResult parseConfigs(KernelDecl &kernel);
  LogicalResult parseBuffer(StmtList &out, std::unique_ptr<Stmt> stmt);

  // Expressions, by increasing precedence.
  FailureOr<ExprPtr> parseExpr();
  FailureOr<ExprPtr> parseBinary(int minPrecedence);
  FailureOr<ExprPtr> parseUnary();
  FailureOr<ExprPtr> parsePrimary();

  static int precedence(Token::Kind kind);

  Lexer lexer;
  const SourceLocator &locator;
  Token tok;
  // Nesting depths, each limited to kMaxDepth. They are kept apart so that the error names
  // what is actually too deep: a plain expression inside deeply nested blocks is fine.
  unsigned blockDepth = 0;  ///< '{' blocks
  unsigned elseIfDepth = 0; ///< links of an 'else if' chain
  unsigned exprDepth = 0;   ///< parentheses, unary and conditional operators, operator chains
};
} // namespace

/// Nesting deeper than this is refused rather than risking the stack (here and in the recursive
/// walk of the syntax tree that generates IR).
static constexpr unsigned kMaxDepth = 200;

FailureOr<FileAST> Parser::parseFile() {
  FileAST file;
  while (!tok.is(Token::eof)) {
    if (!tok.is(Token::kw_kernel))
      return (void)(emitExpected("'kernel'")), failure();
    auto kernel = parseKernel();
    if (failed(kernel))
      return failure();
    file.kernels.push_back(std::move(*kernel));
  }
  if (file.kernels.empty())
    return (void)(emitError(tok.getLoc(), "expected at least one 'kernel' in the file")), failure();
  return file;
}

FailureOr<std::unique_ptr<KernelDecl>> Parser::parseKernel() {
  auto kernel = std::make_unique<KernelDecl>();
  consume(); // 'kernel'
  auto name = parseName("kernel name");
  if (failed(name))
    return failure();
  kernel->name = *name;

  if (consumeIf(Token::less)) {
    do {
      if (failed(parseConstParam(*kernel)))
        return failure();
    } while (consumeIf(Token::comma));
    if (failed(expect(Token::greater, "to close the compile-time parameter list")))
      return failure();
  }

  if (failed(expect(Token::l_paren, "to begin the parameter list")))
    return failure();
  if (!tok.is(Token::r_paren)) {
    do {
      if (failed(parseParam(*kernel)))
        return failure();
    } while (consumeIf(Token::comma));
  }
  if (failed(expect(Token::r_paren, "to close the parameter list")))
    return failure();

  if (!tok.is(Token::kw_grid))
    return (void)(emitExpected("'grid(...)' after the parameter list")), failure();
  if (failed(parseLaunchList(kernel->grid, kernel->gridLoc, "grid")))
    return failure();
  if (!tok.is(Token::kw_threads))
    return (void)(emitExpected("'threads(...)' after 'grid(...)'")), failure();
  if (failed(parseLaunchList(kernel->threads, kernel->threadsLoc, "threads")))
    return failure();
  if (tok.is(Token::identifier) && tok.getSpelling() == "blocks_per_sm") {
    std::vector<ExprPtr> blocks;
    if (failed(parseLaunchList(blocks, kernel->blocksPerSmLoc, "blocks_per_sm")))
      return failure();
    if (blocks.size() != 1)
      return (void)(emitError(kernel->blocksPerSmLoc,
                              "'blocks_per_sm(...)' takes one count of blocks")),
             failure();
    kernel->blocksPerSm = std::move(blocks.front());
  }
  if (tok.is(Token::identifier) && tok.getSpelling() == "configs" && failed(parseConfigs(*kernel)))
    return failure();
  if (failed(parseBlock(kernel->body)))
    return failure();
  return kernel;
}

LogicalResult Parser::parseConstParam(KernelDecl &kernel) {
  ConstParamDecl param;
  auto name = parseName("compile-time parameter name");
  if (failed(name))
    return failure();
  param.name = *name;
  if (failed(expect(Token::colon, "after the parameter name")))
    return failure();
  if (!tok.is(Token::identifier) ||
      !(tok.getSpelling() == "int" || tok.getSpelling() == "bool" || tok.getSpelling() == "type"))
    return emitExpected("'int', 'bool' or 'type' as the kind of a compile-time parameter");
  param.kind = tok.getSpelling() == "int"    ? ConstParamDecl::Int
               : tok.getSpelling() == "bool" ? ConstParamDecl::Bool
                                             : ConstParamDecl::Type;
  consume();
  if (consumeIf(Token::equal)) {
    // Additive level: a '>' here closes the parameter list (parenthesize comparisons).
    auto value = parseBinary(precedence(Token::plus));
    if (failed(value))
      return failure();
    param.defaultValue = std::move(*value);
  }
  kernel.constParams.push_back(std::move(param));
  return success();
}

LogicalResult Parser::parseParam(KernelDecl &kernel) {
  ParamDecl param;
  auto name = parseName("parameter name");
  if (failed(name))
    return failure();
  param.name = *name;
  if (failed(expect(Token::colon, "after the parameter name")))
    return failure();
  if (consumeIf(Token::kw_tensor)) {
    param.isTensor = true;
    if (failed(expect(Token::less, "after 'tensor'")))
      return failure();
    auto dtype = parseName("element type");
    if (failed(dtype))
      return failure();
    param.dtype = *dtype;
    if (failed(expect(Token::greater, "after the element type")) ||
        failed(expect(Token::l_square, "to begin the tensor's shape")))
      return failure();
    do {
      auto dim = parseDim("size (a run-time name such as 'N', or a constant)");
      if (failed(dim))
        return failure();
      param.dims.push_back(*dim);
    } while (consumeIf(Token::comma));
    if (failed(expect(Token::r_square, "to close the tensor's shape")))
      return failure();
    if (tok.is(Token::identifier) && tok.getSpelling() == "strides") {
      SMLoc stridesLoc = tok.getLoc();
      consume();
      if (failed(expect(Token::l_square, "after 'strides'")))
        return failure();
      do {
        auto stride = parseDim("stride (a run-time name or a constant)");
        if (failed(stride))
          return failure();
        param.strides.push_back(*stride);
      } while (consumeIf(Token::comma));
      if (failed(expect(Token::r_square, "to close the strides")))
        return failure();
      if (param.strides.size() != param.dims.size())
        return emitError(stridesLoc, "tensor '" + param.name.text + "' has " +
                                         llvm::Twine(param.dims.size()) + " dimensions but " +
                                         llvm::Twine(param.strides.size()) + " strides");
    }
  } else {
    auto dtype = parseName("parameter type");
    if (failed(dtype))
      return failure();
    param.dtype = *dtype;
  }
  kernel.params.push_back(std::move(param));
  return success();
}

FailureOr<Name> Parser::parseDim(StringRef what) {
  if (tok.is(Token::integer)) {
    if (!tok.getIntegerValue())
      return (void)(emitError(tok.getLoc(), "integer literal '" + tok.getSpelling() +
                                                "' does not fit in 64 bits")),
             failure();
    Name name{tok.getSpelling().str(), tok.getLoc()};
    consume();
    return name;
  }
  return parseName(what);
}

LogicalResult Parser::parseConfigs(KernelDecl &kernel) {
  kernel.configsLoc = tok.getLoc();
  consume(); // configs
  if (failed(expect(Token::l_brace, "after 'configs'")))
    return failure();
  // An empty block would compile no kernel at all: it is a mistake, not "the defaults".
  if (tok.is(Token::r_brace))
    return emitError(kernel.configsLoc,
                     "a 'configs' block needs at least one configuration, as in "
                     "'configs { (BM = 128, BN = 64) }'; remove the block to compile the defaults");
  while (!tok.is(Token::r_brace)) {
    SMLoc configLoc = tok.getLoc();
    if (failed(expect(Token::l_paren, "to begin a configuration, as in '(BM = 128, BN = 64)'")))
      return failure();
    std::vector<std::pair<Name, ExprPtr>> config;
    do {
      auto name = parseName("a compile-time parameter name");
      if (failed(name) || failed(expect(Token::equal, "after the parameter name")))
        return failure();
      auto value = parseExpr();
      if (failed(value))
        return failure();
      config.emplace_back(*name, std::move(*value));
    } while (consumeIf(Token::comma));
    if (failed(expect(Token::r_paren, "to close the configuration")))
      return failure();
    // `(...) on sm_90a` or `on (sm_90a, sm_100a)`: only those architectures' images have it.
    std::vector<Name> archs;
    if (tok.is(Token::identifier) && tok.getSpelling() == "on") {
      consume();
      bool list = consumeIf(Token::l_paren);
      do {
        auto arch = parseName("an architecture, as in 'on sm_90a'");
        if (failed(arch))
          return failure();
        archs.push_back(*arch);
      } while (list && consumeIf(Token::comma));
      if (list && failed(expect(Token::r_paren, "to close the architectures")))
        return failure();
    }
    // `(...) when cond`: the launcher prefers this configuration where cond holds.
    ExprPtr when;
    if (tok.is(Token::identifier) && tok.getSpelling() == "when") {
      consume();
      auto cond = parseExpr();
      if (failed(cond))
        return failure();
      when = std::move(*cond);
    }
    kernel.configs.push_back(std::move(config));
    kernel.configLocs.push_back(configLoc);
    kernel.configWhens.push_back(std::move(when));
    kernel.configArchs.push_back(std::move(archs));
    if (!consumeIf(Token::comma))
      break;
  }
  return expect(Token::r_brace, "to close 'configs'");
}

LogicalResult Parser::parseCallArgs(Expr &call) {
  if (!tok.is(Token::r_paren)) {
    do {
      Name keyword;
      if (tok.is(Token::identifier) && peek().is(Token::equal)) {
        keyword = {tok.getSpelling().str(), tok.getLoc()};
        consume();
        consume();
      } else if (!call.keywords.empty() && !call.keywords.back().text.empty()) {
        return emitError(tok.getLoc(), "positional arguments must come before keyword arguments");
      }
      auto expr = parseExpr();
      if (failed(expr))
        return failure();
      call.operands.push_back(std::move(*expr));
      call.keywords.push_back(keyword);
    } while (consumeIf(Token::comma));
  }
  return expect(Token::r_paren, "to close the argument list");
}

LogicalResult Parser::parseLaunchList(std::vector<ExprPtr> &out, SMLoc &loc, StringRef what) {
  loc = tok.getLoc();
  consume();
  if (failed(expect(Token::l_paren, ("after '" + what + "'").str())))
    return failure();
  if (failed(parseExprList(out, Token::r_paren, what)))
    return failure();
  if (out.empty() || out.size() > 3)
    return emitError(loc, "'" + what + "' takes one to three sizes (x, y, z), got " +
                              llvm::Twine(out.size()));
  return success();
}

LogicalResult Parser::parseExprList(std::vector<ExprPtr> &out, Token::Kind close, StringRef what) {
  if (!tok.is(close)) {
    do {
      auto expr = parseExpr();
      if (failed(expr))
        return failure();
      out.push_back(std::move(*expr));
    } while (consumeIf(Token::comma));
  }
  return expect(close, ("to close the " + what + " list").str());
}

LogicalResult Parser::parseBlock(StmtList &out) {
  SMLoc braceLoc = tok.getLoc();
  if (failed(expect(Token::l_brace, "to begin a block")))
    return failure();
  if (++blockDepth > kMaxDepth)
    return emitError(braceLoc, "blocks are nested too deeply");
  while (!tok.is(Token::r_brace)) {
    if (tok.is(Token::eof))
      return emitExpected("'}' to close the block");
    if (failed(parseStatement(out)))
      return failure();
  }
  --blockDepth;
  consume();
  return success();
}

LogicalResult Parser::parseStatement(StmtList &out) {
  switch (tok.getKind()) {
  case Token::kw_let:
    return parseBinding(out, Stmt::Let);
  case Token::kw_var:
    return parseBinding(out, Stmt::Var);
  case Token::kw_if:
    return parseIf(out);
  case Token::kw_for:
    return parseFor(out);
  case Token::kw_parallel:
    return parseParallel(out);
  case Token::identifier: {
    if (peek().is(Token::l_paren)) {
      auto stmt = std::make_unique<Stmt>(Stmt::Call, tok.getLoc());
      auto call = std::make_unique<Expr>(Expr::Call, tok.getLoc());
      call->name = tok.getSpelling().str();
      consume();
      consume();
      if (failed(parseCallArgs(*call)))
        return failure();
      stmt->value = std::move(call);
      out.push_back(std::move(stmt));
      return expect(Token::semicolon, "after the statement");
    }
    auto stmt = std::make_unique<Stmt>(Stmt::Assign, tok.getLoc());
    stmt->name = {tok.getSpelling().str(), tok.getLoc()};
    consume();
    if (consumeIf(Token::l_square)) {
      stmt->kind = Stmt::Store;
      if (failed(parseExprList(stmt->indices, Token::r_square, "index")))
        return failure();
    }
    if (!tok.is(Token::equal))
      return emitExpected(stmt->kind == Stmt::Store ? "'=' after the indexed tensor"
                                                    : "'=' or '[' after a name in a statement");
    consume();
    auto value = parseExpr();
    if (failed(value))
      return failure();
    stmt->value = std::move(*value);
    out.push_back(std::move(stmt));
    return expect(Token::semicolon, "after the statement");
  }
  default:
    return emitExpected("a statement");
  }
}

LogicalResult Parser::parseBinding(StmtList &out, Stmt::Kind kind) {
  auto stmt = std::make_unique<Stmt>(kind, tok.getLoc());
  consume(); // let / var
  auto name = parseName("a name to bind");
  if (failed(name))
    return failure();
  stmt->name = *name;
  if (consumeIf(Token::colon)) {
    auto type = parseName("a type");
    if (failed(type))
      return failure();
    stmt->type = *type;
  }
  if (failed(expect(Token::equal, "in the binding")))
    return failure();
  if (kind == Stmt::Let && tok.is(Token::identifier) &&
      (tok.getSpelling() == "shared" || tok.getSpelling() == "fragment" ||
       tok.getSpelling() == "local") &&
      peek().is(Token::less))
    return parseBuffer(out, std::move(stmt));
  auto value = parseExpr();
  if (failed(value))
    return failure();
  stmt->value = std::move(*value);
  out.push_back(std::move(stmt));
  return expect(Token::semicolon, "after the binding");
}

LogicalResult Parser::parseBuffer(StmtList &out, std::unique_ptr<Stmt> stmt) {
  if (stmt->type)
    return emitError(stmt->type->loc, "a buffer declaration takes no type annotation; the type "
                                      "is part of the buffer, as in 'shared<f16>[64, 64]'");
  stmt->kind = Stmt::Buffer;
  stmt->space = {tok.getSpelling().str(), tok.getLoc()};
  consume();
  consume(); // '<'
  auto type = parseName("an element type");
  if (failed(type))
    return failure();
  stmt->type = *type;
  if (failed(expect(Token::greater, "after the element type")) ||
      failed(expect(Token::l_square, "to begin the buffer's shape, as in '[BM, BN]'")) ||
      failed(parseExprList(stmt->indices, Token::r_square, "extent")))
    return failure();
  if (stmt->indices.empty())
    return emitError(stmt->space.loc, "a buffer needs at least one dimension");
  out.push_back(std::move(stmt));
  return expect(Token::semicolon, "after the buffer declaration");
}

LogicalResult Parser::parseIf(StmtList &out) {
  auto stmt = std::make_unique<Stmt>(Stmt::If, tok.getLoc());
  consume(); // if
  auto cond = parseExpr();
  if (failed(cond))
    return failure();
  stmt->value = std::move(*cond);
  if (failed(parseBlock(stmt->body)))
    return failure();
  if (consumeIf(Token::kw_else)) {
    stmt->hasElse = true;
    if (tok.is(Token::kw_if)) {
      if (++elseIfDepth > kMaxDepth)
        return emitError(tok.getLoc(), "'else if' chain is nested too deeply");
      if (failed(parseIf(stmt->elseBody)))
        return failure();
      --elseIfDepth;
    } else if (failed(parseBlock(stmt->elseBody))) {
      return failure();
    }
  }
  out.push_back(std::move(stmt));
  return success();
}

LogicalResult Parser::parseFor(StmtList &out) {
  auto stmt = std::make_unique<Stmt>(Stmt::For, tok.getLoc());
  consume(); // for
  auto name = parseName("a loop variable");
  if (failed(name))
    return failure();
  stmt->names.push_back(*name);
  if (failed(expect(Token::kw_in, "after the loop variable")))
    return failure();
  SMLoc rangeLoc = tok.getLoc();
  bool pipelined = tok.is(Token::identifier) && tok.getSpelling() == "pipelined";
  if (!pipelined && !tok.is(Token::kw_range))
    return emitExpected("'range(...)' or 'pipelined(...)' after 'in' (loops are written "
                        "'for i in range(n)')");
  auto call = std::make_unique<Expr>(Expr::Call, rangeLoc);
  call->name = pipelined ? "pipelined" : "range";
  consume();
  if (failed(expect(Token::l_paren, pipelined ? "after 'pipelined'" : "after 'range'")) ||
      failed(parseCallArgs(*call)))
    return failure();
  size_t positional = llvm::count_if(call->keywords, [](const Name &k) { return k.text.empty(); });
  if (!pipelined && (positional == 0 || positional > 3 || positional != call->operands.size()))
    return emitError(rangeLoc, "'range' takes (end), (start, end) or (start, end, step)");
  if (pipelined && positional != 1)
    return emitError(rangeLoc, "'pipelined' takes the trip count and 'stages = S', as in "
                               "'pipelined(n, stages = 3)'");
  stmt->value = std::move(call);
  if (failed(parseBlock(stmt->body)))
    return failure();
  out.push_back(std::move(stmt));
  return success();
}

LogicalResult Parser::parseParallel(StmtList &out) {
  auto stmt = std::make_unique<Stmt>(Stmt::Parallel, tok.getLoc());
  consume(); // parallel
  if (failed(expect(Token::l_paren, "after 'parallel'")))
    return failure();
  do {
    auto name = parseName("an index name");
    if (failed(name))
      return failure();
    stmt->names.push_back(*name);
  } while (consumeIf(Token::comma));
  if (failed(expect(Token::r_paren, "to close the index names")) ||
      failed(expect(Token::kw_in, "after the index names")))
    return failure();
  if (tok.is(Token::identifier)) {
    stmt->over = Name{tok.getSpelling().str(), tok.getLoc()};
    consume();
    if (failed(parseBlock(stmt->body)))
      return failure();
    out.push_back(std::move(stmt));
    return success();
  }
  if (failed(expect(Token::l_square, "to begin the index space, as in '[BM, BN]', or a buffer")) ||
      failed(parseExprList(stmt->indices, Token::r_square, "extent")))
    return failure();
  if (stmt->indices.size() != stmt->names.size())
    return emitError(stmt->loc, "'parallel' names " + llvm::Twine(stmt->names.size()) +
                                    " indices but its index space has " +
                                    llvm::Twine(stmt->indices.size()) + " extents");
  if (failed(parseBlock(stmt->body)))
    return failure();
  out.push_back(std::move(stmt));
  return success();
}

int Parser::precedence(Token::Kind kind) {
  switch (kind) {
  case Token::pipe_pipe:
    return 1;
  case Token::amp_amp:
    return 2;
  case Token::equal_equal:
  case Token::not_equal:
    return 3;
  case Token::less:
  case Token::less_equal:
  case Token::greater:
  case Token::greater_equal:
    return 4;
  // Bitwise operators bind tighter than comparisons (as in Rust, unlike C): `x & 1 == 0` is
  // `(x & 1) == 0`.
  case Token::pipe:
    return 5;
  case Token::caret:
    return 6;
  case Token::amp:
    return 7;
  case Token::less_less:
  case Token::greater_greater:
    return 8;
  case Token::plus:
  case Token::minus:
    return 9;
  case Token::star:
  case Token::slash:
  case Token::percent:
    return 10;
  default:
    return -1;
  }
}

FailureOr<ExprPtr> Parser::parseExpr() {
  if (++exprDepth > kMaxDepth)
    return (void)(emitError(tok.getLoc(), "expression is nested too deeply")), failure();
  auto cond = parseBinary(1);
  if (failed(cond))
    return failure();
  if (tok.is(Token::question)) {
    auto expr = std::make_unique<Expr>(Expr::Ternary, tok.getLoc());
    consume();
    auto lhs = parseExpr();
    if (failed(lhs) || failed(expect(Token::colon, "in the conditional expression")))
      return failure();
    auto rhs = parseExpr();
    if (failed(rhs))
      return failure();
    expr->operands.push_back(std::move(*cond));
    expr->operands.push_back(std::move(*lhs));
    expr->operands.push_back(std::move(*rhs));
    --exprDepth;
    return expr;
  }
  --exprDepth;
  return cond;
}

FailureOr<ExprPtr> Parser::parseBinary(int minPrecedence) {
  auto lhs = parseUnary();
  if (failed(lhs))
    return failure();
  ExprPtr result = std::move(*lhs);
  // Each operator of a chain puts the tree one level deeper ('a + b + c' is '(a + b) + c'), and
  // generating IR recurses that deep: long chains count towards the nesting limit.
  unsigned chain = 0;
  llvm::scope_exit restoreDepth([&] { exprDepth -= chain; });
  while (true) {
    int prec = precedence(tok.getKind());
    if (prec < minPrecedence)
      return result;
    ++chain;
    if (++exprDepth > kMaxDepth)
      return (void)(emitError(tok.getLoc(), "expression is too long or nested too deeply; split it "
                                            "with 'let' bindings")),
             failure();
    auto expr = std::make_unique<Expr>(Expr::Binary, tok.getLoc());
    expr->op = tok.getKind();
    consume();
    auto rhs = parseBinary(prec + 1);
    if (failed(rhs))
      return failure();
    // Comparisons do not chain: 'a < b < c' is almost always a mistake.
    if ((prec == 3 || prec == 4) && precedence(tok.getKind()) == prec)
      return (void)(emitError(tok.getLoc(),
                              "comparisons cannot be chained; combine them with '&&'")),
             failure();
    expr->operands.push_back(std::move(result));
    expr->operands.push_back(std::move(*rhs));
    result = std::move(expr);
  }
}

FailureOr<ExprPtr> Parser::parseUnary() {
  if (tok.is(Token::minus) || tok.is(Token::exclaim) || tok.is(Token::tilde)) {
    if (++exprDepth > kMaxDepth)
      return (void)(emitError(tok.getLoc(), "expression is nested too deeply")), failure();
    auto expr = std::make_unique<Expr>(Expr::Unary, tok.getLoc());
    expr->op = tok.getKind();
    consume();
    auto operand = parseUnary();
    if (failed(operand))
      return failure();
    expr->operands.push_back(std::move(*operand));
    --exprDepth;
    return expr;
  }
  return parsePrimary();
}

FailureOr<ExprPtr> Parser::parsePrimary() {
  SMLoc loc = tok.getLoc();
  switch (tok.getKind()) {
  case Token::integer: {
    auto value = tok.getIntegerValue();
    if (!value)
      return (void)(emitError(loc, "integer literal '" + tok.getSpelling() +
                                       "' does not fit in 64 bits")),
             failure();
    auto expr = std::make_unique<Expr>(Expr::IntLit, loc);
    expr->intValue = *value;
    consume();
    return expr;
  }
  case Token::floating: {
    auto value = tok.getFloatValue();
    if (!value)
      return (void)(emitError(loc, "floating-point literal '" + tok.getSpelling() +
                                       "' is out of range")),
             failure();
    auto expr = std::make_unique<Expr>(Expr::FloatLit, loc);
    expr->floatValue = *value;
    consume();
    return expr;
  }
  case Token::kw_true:
  case Token::kw_false: {
    auto expr = std::make_unique<Expr>(Expr::BoolLit, loc);
    expr->boolValue = tok.is(Token::kw_true);
    consume();
    return expr;
  }
  case Token::l_paren: {
    consume();
    auto inner = parseExpr();
    if (failed(inner) || failed(expect(Token::r_paren, "to close the parenthesis")))
      return failure();
    return std::move(*inner);
  }
  case Token::identifier: {
    std::string name = tok.getSpelling().str();
    consume();
    if ((name == "block" || name == "thread") && tok.is(Token::period)) {
      consume();
      if (!tok.is(Token::identifier) ||
          !(tok.getSpelling() == "x" || tok.getSpelling() == "y" || tok.getSpelling() == "z"))
        return (void)(emitExpected("'x', 'y' or 'z' after '" + name + ".'")), failure();
      auto expr = std::make_unique<Expr>(name == "block" ? Expr::BlockIdx : Expr::ThreadIdx, loc);
      expr->name = tok.getSpelling().str();
      consume();
      return expr;
    }
    // `bitcast<T>(x)`: the one call with a type argument.
    std::optional<Name> typeArg;
    if (name == "bitcast" && tok.is(Token::less)) {
      consume();
      auto type = parseName("a type name, as in 'bitcast<i32>(x)'");
      if (failed(type) || failed(expect(Token::greater, "after the type of 'bitcast'")))
        return failure();
      typeArg = *type;
      if (!tok.is(Token::l_paren))
        return (void)(emitExpected("'(' after 'bitcast<T>'")), failure();
    }
    if (tok.is(Token::l_paren)) {
      auto expr = std::make_unique<Expr>(Expr::Call, loc);
      expr->name = name;
      expr->typeArg = std::move(typeArg);
      consume();
      if (failed(parseCallArgs(*expr)))
        return failure();
      return expr;
    }
    if (tok.is(Token::l_square)) {
      auto expr = std::make_unique<Expr>(Expr::Index, loc);
      expr->name = name;
      consume();
      if (failed(parseExprList(expr->operands, Token::r_square, "index")))
        return failure();
      return expr;
    }
    auto expr = std::make_unique<Expr>(Expr::Ref, loc);
    expr->name = name;
    return expr;
  }
  default:
    return (void)(emitExpected("an expression")), failure();
  }
}

FailureOr<FileAST> tlc::frontend::parseFile(StringRef buffer, const SourceLocator &locator) {
  return Parser(buffer, locator).parseFile();
}
