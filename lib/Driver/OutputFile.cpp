//===- OutputFile.cpp - All-or-nothing output files -----------------------===//
#include "OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

using namespace tlc;
namespace fs = llvm::sys::fs;

/// What a destination that is not a regular file is, for the message.
static const char *describeType(fs::file_type type) {
  switch (type) {
  case fs::file_type::directory_file:
    return "a directory";
  case fs::file_type::character_file:
  case fs::file_type::block_file:
    return "a device";
  case fs::file_type::fifo_file:
    return "a FIFO";
  case fs::file_type::socket_file:
    return "a socket";
  default:
    return "not a regular file";
  }
}

/// Fails when \p path exists (through symbolic links) and is not a regular file: tlc replaces
/// its outputs by renaming, which would replace a device or FIFO rather than write to it.
static llvm::Error checkDestination(const std::string &path) {
  fs::file_status status;
  if (fs::status(path, status) || !fs::exists(status) || fs::is_regular_file(status))
    return llvm::Error::success();
  return llvm::createStringError(std::errc::invalid_argument,
                                 "cannot write '%s': it is %s; tlc writes regular files only",
                                 path.c_str(), describeType(status.type()));
}

llvm::Error OutputSet::commit() {
  for (const File &file : files)
    if (llvm::Error err = checkDestination(file.path))
      return err;

  std::vector<std::string> temporaries;
  size_t renamed = 0;
  // Removes what this commit wrote: the temporaries not yet renamed, and the outputs already
  // renamed (a set of which only some are new is worse than none).
  auto cleanup = [&] {
    for (size_t i = 0; i < temporaries.size(); ++i) {
      fs::remove(i < renamed ? files[i].path : temporaries[i]);
      llvm::sys::DontRemoveFileOnSignal(temporaries[i]);
    }
  };
  auto fail = [&](const std::string &path, std::error_code ec, const std::string &message) {
    cleanup();
    return llvm::createStringError(ec, "cannot write '%s': %s", path.c_str(), message.c_str());
  };
  for (const File &file : files) {
    llvm::SmallString<256> dir(file.path);
    llvm::sys::path::remove_filename(dir);
    if (dir.empty())
      dir = ".";
    if (std::error_code ec = fs::create_directories(dir)) {
      cleanup();
      return llvm::createStringError(ec, "cannot create directory '%s': %s", dir.c_str(),
                                     ec.message().c_str());
    }
    llvm::SmallString<256> model(file.path);
    model += ".tmp-%%%%%%%%";
    int fd;
    llvm::SmallString<256> temp;
    if (std::error_code ec = fs::createUniqueFile(model, fd, temp))
      return fail(file.path, ec, ec.message());
    temporaries.push_back(temp.str().str());
    // Installs the handlers on first use: a fatal signal removes the temporaries.
    llvm::sys::RemoveFileOnSignal(temp);
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << file.contents;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      return fail(file.path, ec, ec.message());
    }
  }
  for (; renamed < files.size(); ++renamed)
    if (std::error_code ec = fs::rename(temporaries[renamed], files[renamed].path))
      return fail(files[renamed].path, ec, ec.message());
  for (const std::string &temp : temporaries)
    llvm::sys::DontRemoveFileOnSignal(temp);
  return llvm::Error::success();
}
