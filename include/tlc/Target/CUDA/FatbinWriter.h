//===- FatbinWriter.h - CUDA fatbin container writer and reader -*- C++ -*-===//
//
// Packs cubins and PTX into the CUDA fat binary container that the driver
// loads (cuModuleLoadData / cuLibraryLoadData), byte-identical to
// `fatbinary -64 --compress=false`, and reads such containers back.
//
// Layout (little-endian), as produced by CUDA 13.0 `fatbinary`:
//
//   container header (16 B): u32 magic 0xBA55ED50, u16 version 1,
//                            u16 header size 16, u64 size of the entries.
//   entry header (64 B base):
//     +0x00 u16 kind (1 PTX, 2 ELF)      +0x02 u16 0x0101
//     +0x04 u32 entry header size        +0x08 u64 payload size (padded to 8)
//     +0x10 u32 compressed size (0)      +0x14 u32 offset of the extension
//                                              descriptor (0x40) or 0
//     +0x18 u16 minor  +0x1a u16 major   +0x1c u32 sm (e.g. 90)
//     +0x20 u64 0                        +0x28 u64 flags
//     +0x30 u64 0                        +0x38 u64 uncompressed size (0)
//   extension (PTX entries always; ELF entries whose cubin e_flags has bit
//   0 or 1 set and that carry a .nv.compat section):
//     +0x40 u32 0x48 (data offset)       +0x44 u32 data size N
//     +0x48 u8 0, then N bytes (the .nv.compat section), zero padded so the
//           extension is alignTo(1 + N, 8) bytes: PTX headers are 80 bytes.
//   payload, zero padded to 8; PTX payloads are NUL-terminated.
//
// `fatbinary` also compacts PTX text (comments removed, indentation and
// blank runs shrunk, strings kept); makePtxEntry does the same, so that
// makeElfEntry/makePtxEntry + writeFatbin reproduce its output exactly.
//
// Flags: 0x1 64-bit, 0x10 Linux host, 0x8000 compressed, 0x100000 arch-specific
// target (sm_90a), 0x200000 family-specific target (sm_100f), 0x1000000 for
// ELF entries whose cubin e_flags has bit 1 set (Blackwell-style cubins).
// ELF version fields are the cubin's e_ident[EI_VERSION] (major) and
// e_ident[EI_ABIVERSION] (minor); PTX version fields are the `.version`.
//
//===----------------------------------------------------------------------===//

#ifndef TLC_TARGET_CUDA_FATBINWRITER_H
#define TLC_TARGET_CUDA_FATBINWRITER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tlc::cuda {

/// The magic number that starts every fatbin container.
inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;

/// One image in a fatbin container.
struct FatbinEntry {
  enum class Kind : uint16_t { PTX = 1, ELF = 2 };

  Kind kind = Kind::ELF;
  /// The SM number, e.g. 90 for sm_90a.
  unsigned sm = 0;
  /// True for an arch-specific target such as sm_90a.
  bool archSpecific = false;
  /// True for a family-specific target such as sm_100f (reported by the
  /// reader; parseArch does not produce these).
  bool familySpecific = false;
  /// PTX entries: the PTX ISA version (8.6 -> major 8, minor 6).
  /// ELF entries: the cubin's e_ident[EI_VERSION] / e_ident[EI_ABIVERSION]
  /// (1 / 8 for CUDA 13 cubins); makeElfEntry fills these in.
  unsigned major = 0, minor = 0;
  /// Set by the reader for compressed images; the payload is then the raw
  /// compressed bytes (left as they are) and uncompressedSize their size once
  /// expanded. The writer emits such entries as compressed images.
  bool compressed = false;
  uint64_t uncompressedSize = 0;
  /// The cubin bytes, or the PTX text as stored (makePtxEntry compacts it),
  /// without a terminating NUL: the writer appends one to uncompressed PTX.
  std::string payload;
};

/// Parses "sm_90a" / "sm_80" / "compute_90a" into (sm, archSpecific).
/// Returns an error for anything else, including family-specific ("sm_100f")
/// targets.
llvm::Expected<std::pair<unsigned, bool>> parseArch(llvm::StringRef arch);

/// Builds an ELF entry for \p cubin targeting \p arch ("sm_90a"), taking the
/// version fields from the cubin's ELF identification. Fails when \p cubin is
/// not a 64-bit CUDA ELF image or \p arch does not parse.
llvm::Expected<FatbinEntry> makeElfEntry(llvm::StringRef cubin, llvm::StringRef arch);

/// Builds a PTX entry for \p ptx targeting \p arch. Like `fatbinary`, the
/// payload is the PTX with comments removed and each run of blanks shrunk to
/// its first character (leading indentation removed, string literals kept),
/// and the version fields come from the first ".version" in the text: a
/// decimal major, '.', and only the first digit of the minor. Fails when there
/// is no such version or \p arch does not parse.
llvm::Expected<FatbinEntry> makePtxEntry(llvm::StringRef ptx, llvm::StringRef arch);

/// Serializes \p entries, in order, into one fatbin container. The result is
/// a deterministic function of the entries; for entries made by
/// makeElfEntry / makePtxEntry it matches `fatbinary -64 --compress=false`.
std::string writeFatbin(llvm::ArrayRef<FatbinEntry> entries);

/// Parses the fatbin container(s) in \p bytes (consecutive containers are
/// concatenated; trailing zero bytes are ignored). Validates every size and
/// offset against \p bytes and returns a descriptive error for bad magic,
/// truncation or malformed headers; never reads out of bounds. Uncompressed
/// PTX payloads are returned without their NUL terminator and padding, ELF
/// payloads trimmed to the extent of the ELF image when it can be determined.
llvm::Expected<std::vector<FatbinEntry>> readFatbin(llvm::StringRef bytes);

} // namespace tlc::cuda

#endif // TLC_TARGET_CUDA_FATBINWRITER_H
