//===- Lexer.h - Tokens and lexer of the .tile language -------------------===//
#ifndef TLC_LIB_FRONTEND_LEXER_H
#define TLC_LIB_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>

namespace tlc::frontend {

/// One token: its kind and its spelling in the source buffer.
class Token {
public:
  enum Kind {
#define TOK_MARKER(NAME) NAME,
#define TOK_IDENTIFIER(NAME) NAME,
#define TOK_LITERAL(NAME) NAME,
#define TOK_PUNCT(NAME, SPELLING) NAME,
#define TOK_KEYWORD(SPELLING) kw_##SPELLING,
#include "TokenKinds.def"
  };

  Token(Kind kind = eof, llvm::StringRef spelling = {}) : kind(kind), spelling(spelling) {}

  Kind getKind() const { return kind; }
  bool is(Kind k) const { return kind == k; }
  bool isKeyword() const;
  llvm::StringRef getSpelling() const { return spelling; }
  llvm::SMLoc getLoc() const { return llvm::SMLoc::getFromPointer(spelling.data()); }
  llvm::SMLoc getEndLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data() + spelling.size());
  }

  /// The value of an integer token; nullopt on overflow.
  std::optional<int64_t> getIntegerValue() const;
  /// The value of a floating-point token.
  std::optional<double> getFloatValue() const;

  /// How a token of this kind is written, for diagnostics ("'('", "identifier").
  static llvm::StringRef describe(Kind kind);

private:
  Kind kind;
  llvm::StringRef spelling;
};

/// Splits a buffer into tokens. Bad characters and unterminated comments become `error` tokens
/// whose message `getErrorMessage()` holds; the parser reports them at the token's location.
class Lexer {
public:
  explicit Lexer(llvm::StringRef buffer) : buffer(buffer), cur(buffer.begin()) {}

  Token lex();
  llvm::StringRef getErrorMessage() const { return errorMessage; }

private:
  Token makeToken(Token::Kind kind, const char *start) {
    return Token(kind, llvm::StringRef(start, cur - start));
  }
  Token makeError(const char *start, llvm::StringRef message) {
    errorMessage = message;
    return makeToken(Token::error, start);
  }
  Token lexIdentifierOrKeyword(const char *start);
  Token lexNumber(const char *start);
  /// Skips whitespace and comments; returns false (with an error token in `err`) for an
  /// unterminated block comment.
  bool skipTrivia(Token &err);

  llvm::StringRef buffer;
  const char *cur;
  llvm::StringRef errorMessage;
};

} // namespace tlc::frontend

#endif // TLC_LIB_FRONTEND_LEXER_H
