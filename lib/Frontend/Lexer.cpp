//===- Lexer.cpp - Lexer of the .tile language ----------------------------===//
#include "Lexer.h"

#include "llvm/ADT/StringSwitch.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace tlc::frontend;
using llvm::StringRef;

bool Token::isKeyword() const {
  switch (kind) {
#define TOK_KEYWORD(SPELLING) case kw_##SPELLING:
#include "TokenKinds.def"
    return true;
  default:
    return false;
  }
}

std::optional<int64_t> Token::getIntegerValue() const {
  uint64_t value;
  bool hex = spelling.starts_with_insensitive("0x");
  if (spelling.drop_front(hex ? 2 : 0).getAsInteger(hex ? 16 : 10, value) ||
      value > uint64_t(INT64_MAX))
    return std::nullopt;
  return int64_t(value);
}

std::optional<double> Token::getFloatValue() const {
  std::string text = spelling.str();
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  // ERANGE also flags underflow (1e-320 is a subnormal, 1e-400 rounds to zero): only an
  // overflow to infinity is out of range.
  if (end != text.c_str() + text.size() || (errno == ERANGE && std::isinf(value)))
    return std::nullopt;
  return value;
}

StringRef Token::describe(Kind kind) {
  switch (kind) {
  case eof:
    return "end of file";
  case error:
    return "invalid token";
  case identifier:
    return "identifier";
  case integer:
    return "integer literal";
  case floating:
    return "floating-point literal";
#define TOK_PUNCT(NAME, SPELLING)                                                                  \
  case NAME:                                                                                       \
    return "'" SPELLING "'";
#define TOK_KEYWORD(SPELLING)                                                                      \
  case kw_##SPELLING:                                                                              \
    return "'" #SPELLING "'";
#include "TokenKinds.def"
  }
  return "token";
}

bool Lexer::skipTrivia(Token &err) {
  while (cur != buffer.end()) {
    char c = *cur;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++cur;
      continue;
    }
    if (c == '/' && cur + 1 != buffer.end() && cur[1] == '/') {
      // A comment ends at any line ending: "\n", "\r\n" or a lone "\r".
      while (cur != buffer.end() && *cur != '\n' && *cur != '\r')
        ++cur;
      continue;
    }
    if (c == '/' && cur + 1 != buffer.end() && cur[1] == '*') {
      const char *start = cur;
      cur += 2;
      while (cur != buffer.end() && !(*cur == '*' && cur + 1 != buffer.end() && cur[1] == '/'))
        ++cur;
      if (cur == buffer.end()) {
        errorMessage = "unterminated '/*' comment";
        err = Token(Token::error, StringRef(start, 2));
        return false;
      }
      cur += 2;
      continue;
    }
    break;
  }
  return true;
}

Token Lexer::lex() {
  Token err;
  if (!skipTrivia(err))
    return err;
  if (cur == buffer.end())
    return Token(Token::eof, StringRef(cur, 0));

  const char *start = cur;
  char c = *cur++;
  auto next = [&](char expected) {
    if (cur != buffer.end() && *cur == expected) {
      ++cur;
      return true;
    }
    return false;
  };
  switch (c) {
  case '(':
    return makeToken(Token::l_paren, start);
  case ')':
    return makeToken(Token::r_paren, start);
  case '[':
    return makeToken(Token::l_square, start);
  case ']':
    return makeToken(Token::r_square, start);
  case '{':
    return makeToken(Token::l_brace, start);
  case '}':
    return makeToken(Token::r_brace, start);
  case '<':
    if (next('<'))
      return makeToken(Token::less_less, start);
    return makeToken(next('=') ? Token::less_equal : Token::less, start);
  case '>':
    if (next('>'))
      return makeToken(Token::greater_greater, start);
    return makeToken(next('=') ? Token::greater_equal : Token::greater, start);
  case '=':
    return makeToken(next('=') ? Token::equal_equal : Token::equal, start);
  case '!':
    return makeToken(next('=') ? Token::not_equal : Token::exclaim, start);
  case '+':
    return makeToken(Token::plus, start);
  case '-':
    return makeToken(Token::minus, start);
  case '*':
    return makeToken(Token::star, start);
  case '/':
    return makeToken(Token::slash, start);
  case '%':
    return makeToken(Token::percent, start);
  case '?':
    return makeToken(Token::question, start);
  case ':':
    return makeToken(Token::colon, start);
  case ';':
    return makeToken(Token::semicolon, start);
  case ',':
    return makeToken(Token::comma, start);
  case '.':
    if (cur != buffer.end() && std::isdigit(static_cast<unsigned char>(*cur)))
      return lexNumber(start);
    return makeToken(Token::period, start);
  case '&':
    if (next('&'))
      return makeToken(Token::amp_amp, start);
    return makeToken(Token::amp, start);
  case '|':
    if (next('|'))
      return makeToken(Token::pipe_pipe, start);
    return makeToken(Token::pipe, start);
  case '^':
    return makeToken(Token::caret, start);
  case '~':
    return makeToken(Token::tilde, start);
  default:
    break;
  }
  if (std::isalpha(static_cast<unsigned char>(c)) || c == '_')
    return lexIdentifierOrKeyword(start);
  if (std::isdigit(static_cast<unsigned char>(c)))
    return lexNumber(start);
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
    return makeError(start, "unexpected character in source (only ASCII is accepted)");
  errorMessage = "unexpected character";
  return makeToken(Token::error, start);
}

Token Lexer::lexIdentifierOrKeyword(const char *start) {
  while (cur != buffer.end() && (std::isalnum(static_cast<unsigned char>(*cur)) || *cur == '_'))
    ++cur;
  StringRef spelling(start, cur - start);
  Token::Kind kind = llvm::StringSwitch<Token::Kind>(spelling)
#define TOK_KEYWORD(SPELLING) .Case(#SPELLING, Token::kw_##SPELLING)
#include "TokenKinds.def"
                         .Default(Token::identifier);
  return Token(kind, spelling);
}

Token Lexer::lexNumber(const char *start) {
  auto digits = [&](bool hex = false) {
    while (cur != buffer.end() && (hex ? std::isxdigit(static_cast<unsigned char>(*cur))
                                       : std::isdigit(static_cast<unsigned char>(*cur))))
      ++cur;
  };
  bool isFloat = *start == '.';
  if (*start == '0' && cur != buffer.end() && (*cur == 'x' || *cur == 'X')) {
    // A hexadecimal integer: 0x1F.
    const char *hexStart = ++cur;
    digits(/*hex=*/true);
    if (cur == hexStart)
      return makeError(start, "expected hexadecimal digits after '0x'");
  } else {
    digits();
    if (!isFloat && cur != buffer.end() && *cur == '.' &&
        !(cur + 1 != buffer.end() && std::isalpha(static_cast<unsigned char>(cur[1])))) {
      isFloat = true;
      ++cur;
      digits();
    }
    if (cur != buffer.end() && (*cur == 'e' || *cur == 'E')) {
      const char *exp = cur++;
      if (cur != buffer.end() && (*cur == '+' || *cur == '-'))
        ++cur;
      if (cur == buffer.end() || !std::isdigit(static_cast<unsigned char>(*cur))) {
        cur = exp + 1;
        return makeError(start, "expected digits in the exponent of a floating-point literal");
      }
      digits();
      isFloat = true;
    }
  }
  if (cur != buffer.end() && (std::isalpha(static_cast<unsigned char>(*cur)) || *cur == '_')) {
    while (cur != buffer.end() && (std::isalnum(static_cast<unsigned char>(*cur)) || *cur == '_'))
      ++cur;
    return makeError(start, "invalid suffix on a numeric literal");
  }
  return makeToken(isFloat ? Token::floating : Token::integer, start);
}
