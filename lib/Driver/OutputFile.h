//===- OutputFile.h - All-or-nothing output files -------------------------===//
#ifndef TLC_LIB_DRIVER_OUTPUTFILE_H
#define TLC_LIB_DRIVER_OUTPUTFILE_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

/// Outputs collected in memory and written together at the end: each to a temporary file in its
/// directory, then renamed into place, so that a failed compile leaves no partial output.
class OutputSet {
public:
  void add(std::string path, std::string contents) {
    files.push_back({std::move(path), std::move(contents)});
  }
  /// Writes every file; on an error removes the temporaries and returns it.
  llvm::Error commit();

private:
  struct File {
    std::string path, contents;
  };
  std::vector<File> files;
};

} // namespace tlc

#endif // TLC_LIB_DRIVER_OUTPUTFILE_H
