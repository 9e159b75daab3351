//===- OutputFile.cpp - All-or-nothing output files -----------------------===//
#include "OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace tlc;

llvm::Error OutputSet::commit() {
  std::vector<std::string> temporaries;
  auto cleanup = [&] {
    for (const std::string &t : temporaries)
      llvm::sys::fs::remove(t);
  };
  // First write every temporary, then rename them all: an error while writing leaves nothing.
  for (const File &file : files) {
    llvm::SmallString<256> dir(file.path);
    llvm::sys::path::remove_filename(dir);
    if (dir.empty())
      dir = ".";
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      cleanup();
      return llvm::createStringError(ec, "cannot create directory '%s': %s", dir.c_str(),
                                     ec.message().c_str());
    }
    llvm::SmallString<256> model(file.path);
    model += ".tmp-%%%%%%%%";
    int fd;
    llvm::SmallString<256> temp;
    if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp)) {
      cleanup();
      return llvm::createStringError(ec, "cannot write '%s': %s", file.path.c_str(),
                                     ec.message().c_str());
    }
    temporaries.push_back(temp.str().str());
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << file.contents;
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      cleanup();
      return llvm::createStringError(std::errc::io_error, "cannot write '%s': %s",
                                     file.path.c_str(), message.c_str());
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::error_code ec = llvm::sys::fs::rename(temporaries[i], files[i].path)) {
      cleanup();
      return llvm::createStringError(ec, "cannot write '%s': %s", files[i].path.c_str(),
                                     ec.message().c_str());
    }
  }
  return llvm::Error::success();
}
