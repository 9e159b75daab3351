//===- PtxMerge.cpp - PTX of kernels compiled apart, as one file ----------===//
#include "tlc/Target/CUDA/PtxMerge.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

/// Whether a line of PTX at module scope declares a variable (`.extern .shared ...;`).
static bool isModuleScopeDeclaration(StringRef line) {
  return line.ends_with(";") && (line.starts_with(".extern ") || line.starts_with(".global ") ||
                                 line.starts_with(".shared ") || line.starts_with(".const "));
}

/// Whether a line of PTX at module scope starts a function.
static bool startsFunction(StringRef line) {
  return line.starts_with(".visible ") || line.starts_with(".entry ") ||
         line.starts_with(".func ") || line.starts_with(".weak ") ||
         line.starts_with(".extern .func");
}

/// `text` with every `from` replaced by `to`.
static std::string replaceAll(StringRef text, StringRef from, StringRef to) {
  std::string result;
  for (size_t found; (found = text.find(from)) != StringRef::npos;
       text = text.drop_front(found + from.size()))
    result += (text.take_front(found) + to).str();
  return result + text.str();
}

std::optional<std::string> tlc::cuda::mergePtx(ArrayRef<std::string> parts) {
  // Each part: the header, the first entry's `// .globl` line, the part's module-scope
  // declarations, a blank line, then its entries, each after its `// .globl` line. The whole
  // module's PTX is the same with every declaration after the first `// .globl` line, and each
  // entry's labels and local depot numbered by the entry's place in the module.
  StringRef header;
  std::string firstGlobl, entries;
  llvm::SetVector<StringRef> declarations;
  unsigned number = 0;
  for (auto [index, part] : llvm::enumerate(parts)) {
    StringRef text = part;
    size_t at = text.find("\n.address_size ");
    if (at == StringRef::npos)
      return std::nullopt;
    size_t end = text.find('\n', at + 1);
    end = end == StringRef::npos ? text.size() : end + 1;
    while (end < text.size() && text[end] == '\n')
      ++end;
    StringRef head = text.take_front(end), body = text.drop_front(end);
    if (index == 0)
      header = head;
    else if (head != header)
      return std::nullopt;
    SmallVector<StringRef> lines;
    body.split(lines, '\n');
    size_t entry = 0;
    while (entry < lines.size() && !startsFunction(lines[entry]))
      ++entry;
    if (entry == lines.size())
      return std::nullopt;
    std::string globl;
    for (StringRef line : ArrayRef(lines).take_front(entry)) {
      if (isModuleScopeDeclaration(line))
        declarations.insert(line);
      else if (line.trim().starts_with("// .globl") && globl.empty())
        globl = line.str() + "\n";
      else if (!line.empty())
        return std::nullopt;
    }
    // The part's entries: each up to the next `// .globl` line, which starts the next one.
    SmallVector<std::string> functions(1);
    for (StringRef line : ArrayRef(lines).drop_front(entry)) {
      if (line.trim().starts_with("// .globl"))
        functions.emplace_back();
      functions.back() += line.str() + "\n";
    }
    // split() gave one line after the text's last newline: the last entry has one too many.
    functions.back().pop_back();
    for (auto [local, function] : llvm::enumerate(functions)) {
      StringRef f = function;
      size_t starts = llvm::count_if(llvm::split(f, '\n'), startsFunction);
      bool entry = f.starts_with(".visible .entry ") || f.contains("\n.visible .entry ");
      if (starts != 1 || !entry)
        return std::nullopt;
      std::string numbered = function;
      if (local != number) {
        numbered = replaceAll(numbered, ("$L__BB" + Twine(local) + "_").str(),
                              ("$L__BB" + Twine(number) + "_").str());
        numbered = replaceAll(numbered, ("__local_depot" + Twine(local)).str(),
                              ("__local_depot" + Twine(number)).str());
      }
      if (index == 0 && local == 0)
        firstGlobl = globl;
      else if (local == 0)
        entries += globl;
      entries += numbered;
      ++number;
    }
  }
  std::string merged = header.str() + firstGlobl;
  for (StringRef declaration : declarations)
    merged += declaration.str() + "\n";
  return merged + "\n" + entries;
}
