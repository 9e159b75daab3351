//===- OutputFile.h - All-or-nothing output files -------------------------===//
#ifndef TLC_LIB_DRIVER_OUTPUTFILE_H
#define TLC_LIB_DRIVER_OUTPUTFILE_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

/// Outputs collected in memory and written together at the end, as a set: every destination is
/// checked first (it must be a regular file or not exist), then each file is written to a
/// temporary in its directory, and only when all are written are they renamed into place.
/// Temporaries are removed on every exit path, a fatal signal included, so that a failed
/// compile leaves neither partial outputs nor temporaries.
class OutputSet {
public:
  void add(std::string path, std::string contents) {
    files.push_back({std::move(path), std::move(contents)});
  }
  /// Writes every file; on an error leaves none of them and returns the error.
  llvm::Error commit();

private:
  struct File {
    std::string path, contents;
  };
  std::vector<File> files;
};

} // namespace tlc

#endif // TLC_LIB_DRIVER_OUTPUTFILE_H
