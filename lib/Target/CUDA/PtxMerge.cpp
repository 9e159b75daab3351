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

std::optional<std::string> tlc::cuda::mergePtx(ArrayRef<std::string> parts) {
  // Each part: header, `// .globl` line, its module-scope declarations, a blank line, its entry.
  // The whole module's PTX declares every variable after the first `// .globl` line; the other
  // entries follow their `// .globl` lines directly.
  StringRef header;
  SmallVector<std::string> preambles, functions;
  llvm::SetVector<StringRef> declarations;
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
    if (entry == lines.size() || !lines[entry].starts_with(".visible .entry ") ||
        llvm::count_if(ArrayRef(lines).drop_front(entry), startsFunction) != 1)
      return std::nullopt;
    std::string preamble;
    for (StringRef line : ArrayRef(lines).take_front(entry)) {
      if (isModuleScopeDeclaration(line))
        declarations.insert(line);
      else if (line.trim().starts_with("// .globl"))
        preamble += line.str() + "\n";
      else if (!line.empty())
        return std::nullopt;
    }
    preambles.push_back(std::move(preamble));
    // Labels and the local depot carry the function's number in the module.
    std::string function = llvm::join(ArrayRef(lines).drop_front(entry), "\n");
    if (index != 0) {
      std::string number = std::to_string(index);
      for (auto [from, to] :
           {std::pair<std::string, std::string>{"$L__BB0_", "$L__BB" + number + "_"},
            {"__local_depot0", "__local_depot" + number}}) {
        std::string renamed;
        StringRef rest = function;
        for (size_t found; (found = rest.find(from)) != StringRef::npos;
             rest = rest.drop_front(found + from.size()))
          renamed += rest.take_front(found).str() + to;
        function = renamed + rest.str();
      }
    }
    functions.push_back(std::move(function));
  }
  std::string merged = header.str();
  for (auto [index, preamble, function] : llvm::enumerate(preambles, functions)) {
    merged += preamble;
    if (index == 0) {
      for (StringRef declaration : declarations)
        merged += declaration.str() + "\n";
      merged += "\n";
    }
    merged += function;
  }
  return merged;
}
