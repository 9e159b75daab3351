//===- FatbinWriter.cpp - CUDA fatbin container writer and reader ---------===//
//
// The layout is documented in FatbinWriter.h; every field was checked byte for
// byte against CUDA 13.0 `fatbinary -64 --compress=false`. The reader bounds-
// checks every access, so it is safe on arbitrary bytes.
//
//===----------------------------------------------------------------------===//

#include "tlc/Target/CUDA/FatbinWriter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
#include <optional>

using namespace llvm;

namespace tlc::cuda {

// Container and entry header constants.
static constexpr uint16_t kContainerVersion = 1;
static constexpr uint16_t kContainerHeaderSize = 16;
static constexpr uint16_t kEntryVersion = 0x0101;
static constexpr uint32_t kEntryBaseSize = 64;
static constexpr uint32_t kExtensionDescOffset = 0x40;
static constexpr uint32_t kExtensionDataOffset = 0x48;

// Entry flags.
static constexpr uint64_t kFlag64Bit = 0x1;
static constexpr uint64_t kFlagLinux = 0x10;
static constexpr uint64_t kFlagCompressed = 0x8000;
static constexpr uint64_t kFlagArchSpecific = 0x100000;
static constexpr uint64_t kFlagFamilySpecific = 0x200000;
static constexpr uint64_t kFlagCubinEFlagsBit1 = 0x1000000;

// ELF64 constants needed to inspect cubins.
static constexpr unsigned kElf64HeaderSize = 64;
static constexpr unsigned kElf64SectionHeaderSize = 64;
static constexpr uint32_t kShtNobits = 8;
static constexpr uint16_t kEmCuda = 190;

//===----------------------------------------------------------------------===//
// Little-endian helpers
//===----------------------------------------------------------------------===//

static void appendLE(std::string &out, uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

static void padTo8(std::string &out) { out.append(alignTo(out.size(), 8) - out.size(), '\0'); }

static uint16_t readLE16(StringRef bytes, uint64_t offset) {
  return support::endian::read16le(bytes.data() + offset);
}
static uint32_t readLE32(StringRef bytes, uint64_t offset) {
  return support::endian::read32le(bytes.data() + offset);
}
static uint64_t readLE64(StringRef bytes, uint64_t offset) {
  return support::endian::read64le(bytes.data() + offset);
}

/// True when [offset, offset + size) lies within [0, limit), without overflow.
static bool inBounds(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

//===----------------------------------------------------------------------===//
// Minimal, bounds-checked ELF64 inspection of cubins
//===----------------------------------------------------------------------===//

namespace {
/// What the fatbin writer and reader need to know about a cubin.
struct CubinInfo {
  uint8_t elfVersion = 0; ///< e_ident[EI_VERSION]
  uint8_t abiVersion = 0; ///< e_ident[EI_ABIVERSION]
  uint32_t eFlags = 0;
  /// Bytes covered by the headers, sections and segments; nullopt when the
  /// tables do not fit in the buffer.
  std::optional<uint64_t> extent;
  /// Contents of the .nv.compat section, when present and in bounds.
  std::optional<StringRef> nvCompat;
};
} // namespace

/// Returns the ELF facts of \p bytes, or nullopt when it is not a
/// little-endian ELF64 image.
static std::optional<CubinInfo> inspectCubin(StringRef bytes) {
  if (bytes.size() < kElf64HeaderSize || !bytes.starts_with("\x7f"
                                                            "ELF"))
    return std::nullopt;
  // EI_CLASS ELFCLASS64, EI_DATA ELFDATA2LSB.
  if (bytes[4] != 2 || bytes[5] != 1)
    return std::nullopt;
  CubinInfo info;
  info.elfVersion = static_cast<uint8_t>(bytes[6]);
  info.abiVersion = static_cast<uint8_t>(bytes[8]);
  info.eFlags = readLE32(bytes, 0x30);

  uint64_t phoff = readLE64(bytes, 0x20);
  uint64_t shoff = readLE64(bytes, 0x28);
  uint16_t phentsize = readLE16(bytes, 0x36);
  uint16_t phnum = readLE16(bytes, 0x38);
  uint16_t shentsize = readLE16(bytes, 0x3a);
  uint16_t shnum = readLE16(bytes, 0x3c);
  uint16_t shstrndx = readLE16(bytes, 0x3e);
  uint64_t size = bytes.size();

  bool tablesFit = true;
  uint64_t extent = kElf64HeaderSize;
  auto cover = [&](uint64_t offset, uint64_t length) {
    if (!inBounds(offset, length, size)) {
      tablesFit = false;
      return;
    }
    extent = std::max(extent, offset + length);
  };

  if (phnum != 0) {
    cover(phoff, uint64_t(phentsize) * phnum);
    if (tablesFit && phentsize >= 0x28)
      for (unsigned i = 0; i < phnum; ++i) {
        uint64_t ph = phoff + uint64_t(i) * phentsize;
        cover(readLE64(bytes, ph + 0x08), readLE64(bytes, ph + 0x20));
      }
  }

  bool sectionsOk = shnum != 0 && shentsize >= kElf64SectionHeaderSize &&
                    inBounds(shoff, uint64_t(shentsize) * shnum, size);
  if (shnum != 0)
    cover(shoff, uint64_t(shentsize) * shnum);
  if (sectionsOk) {
    auto sectionHeader = [&](unsigned i) { return shoff + uint64_t(i) * shentsize; };
    std::optional<StringRef> names;
    if (shstrndx < shnum) {
      uint64_t sh = sectionHeader(shstrndx);
      uint64_t off = readLE64(bytes, sh + 0x18);
      uint64_t len = readLE64(bytes, sh + 0x20);
      if (inBounds(off, len, size))
        names = bytes.substr(off, len);
    }
    for (unsigned i = 0; i < shnum; ++i) {
      uint64_t sh = sectionHeader(i);
      uint32_t nameOff = readLE32(bytes, sh + 0x00);
      uint32_t type = readLE32(bytes, sh + 0x04);
      uint64_t off = readLE64(bytes, sh + 0x18);
      uint64_t len = readLE64(bytes, sh + 0x20);
      if (type == kShtNobits || type == 0)
        continue;
      cover(off, len);
      if (!names || nameOff >= names->size() || info.nvCompat || !inBounds(off, len, size))
        continue;
      StringRef name = names->substr(nameOff);
      name = name.take_until([](char c) { return c == '\0'; });
      if (name == ".nv.compat")
        info.nvCompat = bytes.substr(off, len);
    }
  }
  if (tablesFit)
    info.extent = extent;
  return info;
}

//===----------------------------------------------------------------------===//
// Arch parsing and entry construction
//===----------------------------------------------------------------------===//

Expected<std::pair<unsigned, bool>> parseArch(StringRef arch) {
  StringRef rest = arch;
  if (!rest.consume_front("sm_") && !rest.consume_front("compute_"))
    return createStringError("invalid CUDA architecture '%s': expected sm_<N>[a] or "
                             "compute_<N>[a], e.g. sm_90a",
                             arch.str().c_str());
  bool archSpecific = rest.consume_back("a");
  if (!archSpecific && rest.ends_with("f"))
    return createStringError("family-specific CUDA architecture '%s' is not supported; use the "
                             "arch-specific ('a') or the plain target",
                             arch.str().c_str());
  unsigned sm = 0;
  if (rest.size() < 2 || rest.size() > 3 || !llvm::all_of(rest, isDigit) ||
      rest.getAsInteger(10, sm) || sm < 10)
    return createStringError("invalid CUDA architecture '%s': expected sm_<N>[a] or "
                             "compute_<N>[a] with a two- or three-digit N, e.g. sm_90a",
                             arch.str().c_str());
  return std::make_pair(sm, archSpecific);
}

/// An entry of `kind` for the parsed arch `target` (SM number, arch-specific) with version
/// fields `major`.`minor` and `payload`.
static FatbinEntry makeEntry(FatbinEntry::Kind kind, std::pair<unsigned, bool> target,
                             unsigned major, unsigned minor, std::string payload) {
  FatbinEntry entry;
  entry.kind = kind;
  entry.sm = target.first;
  entry.archSpecific = target.second;
  entry.major = major;
  entry.minor = minor;
  entry.payload = std::move(payload);
  return entry;
}

Expected<FatbinEntry> makeElfEntry(StringRef cubin, StringRef arch) {
  auto parsed = parseArch(arch);
  if (!parsed)
    return parsed.takeError();
  std::optional<CubinInfo> info = inspectCubin(cubin);
  if (!info)
    return createStringError("cubin for %s is not a 64-bit little-endian ELF "
                             "image (%zu bytes)",
                             arch.str().c_str(), cubin.size());
  unsigned machine = readLE16(cubin, 0x12);
  if (machine != kEmCuda)
    return createStringError("cubin for %s is an ELF image for machine %u, "
                             "not CUDA (%u)",
                             arch.str().c_str(), machine, unsigned(kEmCuda));
  return makeEntry(FatbinEntry::Kind::ELF, *parsed, info->elfVersion, info->abiVersion,
                   cubin.str());
}

/// Finds the PTX ISA version the way `fatbinary` does: the first occurrence
/// of ".version" anywhere in the text (comments included), optional
/// whitespace, a decimal major, '.', and a single minor digit.
static Expected<std::pair<unsigned, unsigned>> findPtxVersion(StringRef ptx) {
  size_t pos = ptx.find(".version");
  if (pos == StringRef::npos)
    return createStringError("PTX has no '.version' directive");
  StringRef rest = ptx.drop_front(pos + strlen(".version"));
  rest = rest.drop_while(isSpace);
  StringRef majorText = rest.take_while(isDigit);
  rest = rest.drop_front(majorText.size());
  unsigned major = 0;
  if (majorText.empty() || !rest.consume_front(".") || rest.empty() || !isDigit(rest.front()))
    return createStringError("PTX '.version' is not followed by <major>.<minor>");
  if (majorText.getAsInteger(10, major) || major > 0xffff)
    return createStringError("PTX '.version' major %s is out of range", majorText.str().c_str());
  return std::make_pair(major, unsigned(rest.front() - '0'));
}

/// Applies the PTX text compaction of `fatbinary`: removes `//` comments (up
/// to, not including, '\n' or '\r') and `/* */` comments (an unterminated one
/// runs to the end; the opening '*' may close it, as in "/*/"), and drops a
/// space or tab whose preceding input character is whitespace (so leading
/// indentation goes and runs shrink to their first character). A '"' not
/// preceded by '\\' opens or closes a string, copied verbatim.
static std::string compactPtx(StringRef ptx) {
  std::string out;
  out.reserve(ptx.size());
  char prev = '\0';
  size_t i = 0, n = ptx.size();
  while (i < n) {
    char c = ptx[i];
    if (c == '"' && prev != '\\') {
      size_t j = i + 1;
      while (j < n && !(ptx[j] == '"' && ptx[j - 1] != '\\'))
        ++j;
      j = std::min(j + 1, n);
      out.append(ptx.data() + i, j - i);
      prev = ptx[j - 1];
      i = j;
      continue;
    }
    if (c == '/' && i + 1 < n && ptx[i + 1] == '/') {
      i = std::min(ptx.find_first_of("\n\r", i), n);
      prev = '/';
      continue;
    }
    if (c == '/' && i + 1 < n && ptx[i + 1] == '*') {
      size_t close = ptx.find("*/", i + 1);
      if (close == StringRef::npos)
        break;
      i = close + 2;
      prev = '/';
      continue;
    }
    if ((c == ' ' || c == '\t') && isSpace(prev)) {
      prev = c;
      ++i;
      continue;
    }
    out.push_back(c);
    prev = c;
    ++i;
  }
  return out;
}

Expected<FatbinEntry> makePtxEntry(StringRef ptx, StringRef arch) {
  auto parsed = parseArch(arch);
  if (!parsed)
    return parsed.takeError();
  auto version = findPtxVersion(ptx);
  if (!version)
    return createStringError("cannot package PTX for %s: %s", arch.str().c_str(),
                             toString(version.takeError()).c_str());
  return makeEntry(FatbinEntry::Kind::PTX, *parsed, version->first, version->second,
                   compactPtx(ptx));
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

/// Appends one entry (header, extension, padded payload) to \p out.
static void writeEntry(std::string &out, const FatbinEntry &entry) {
  bool isPtx = entry.kind == FatbinEntry::Kind::PTX;
  uint64_t flags = kFlag64Bit | kFlagLinux;
  if (entry.archSpecific)
    flags |= kFlagArchSpecific;
  if (entry.familySpecific)
    flags |= kFlagFamilySpecific;
  if (entry.compressed)
    flags |= kFlagCompressed;

  // The payload as stored: PTX text gets a NUL terminator.
  std::string payload = entry.payload;
  if (isPtx && !entry.compressed)
    payload.push_back('\0');

  // The extension: PTX entries always carry an empty one; ELF entries carry
  // the cubin's .nv.compat section when the cubin's e_flags asks for it.
  bool hasExtension = isPtx;
  StringRef extensionData;
  if (!isPtx && !entry.compressed) {
    if (std::optional<CubinInfo> info = inspectCubin(entry.payload)) {
      if (info->eFlags & 0x2)
        flags |= kFlagCubinEFlagsBit1;
      if ((info->eFlags & 0x3) && info->nvCompat) {
        hasExtension = true;
        extensionData = *info->nvCompat;
      }
    }
  }
  uint64_t extensionSize = hasExtension ? (kExtensionDataOffset - kExtensionDescOffset) +
                                              alignTo(1 + extensionData.size(), 8)
                                        : 0;
  uint64_t headerSize = kEntryBaseSize + extensionSize;

  appendLE(out, static_cast<uint16_t>(entry.kind), 2);
  appendLE(out, kEntryVersion, 2);
  appendLE(out, headerSize, 4);
  appendLE(out, alignTo(payload.size(), 8), 8);
  appendLE(out, entry.compressed ? payload.size() : 0, 4);
  appendLE(out, hasExtension ? kExtensionDescOffset : 0, 4);
  appendLE(out, entry.minor, 2);
  appendLE(out, entry.major, 2);
  appendLE(out, entry.sm, 4);
  appendLE(out, 0, 8);
  appendLE(out, flags, 8);
  appendLE(out, 0, 8);
  appendLE(out, entry.compressed ? entry.uncompressedSize : 0, 8);
  if (hasExtension) {
    appendLE(out, kExtensionDataOffset, 4);
    appendLE(out, extensionData.size(), 4);
    out.push_back('\0');
    out.append(extensionData.data(), extensionData.size());
    padTo8(out);
  }
  out += payload;
  padTo8(out);
}

std::string writeFatbin(ArrayRef<FatbinEntry> entries) {
  std::string body;
  for (const FatbinEntry &entry : entries)
    writeEntry(body, entry);
  std::string out;
  out.reserve(kContainerHeaderSize + body.size());
  appendLE(out, kFatbinMagic, 4);
  appendLE(out, kContainerVersion, 2);
  appendLE(out, kContainerHeaderSize, 2);
  appendLE(out, body.size(), 8);
  out += body;
  return out;
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

static std::string hex(uint64_t value) { return "0x" + utohexstr(value, /*LowerCase=*/true); }

/// Parses the entries in bytes[begin, end) of one container into \p entries.
static Error readEntries(StringRef bytes, uint64_t begin, uint64_t end,
                         std::vector<FatbinEntry> &entries) {
  uint64_t offset = begin;
  while (offset < end) {
    uint64_t left = end - offset;
    if (left < kEntryBaseSize)
      return createStringError("truncated fatbin: entry header at offset %s "
                               "needs %u bytes, only %llu remain",
                               hex(offset).c_str(), unsigned(kEntryBaseSize),
                               (unsigned long long)left);
    uint16_t kind = readLE16(bytes, offset + 0x00);
    uint32_t headerSize = readLE32(bytes, offset + 0x04);
    uint64_t payloadSize = readLE64(bytes, offset + 0x08);
    uint32_t compressedSize = readLE32(bytes, offset + 0x10);
    if (kind != uint16_t(FatbinEntry::Kind::PTX) && kind != uint16_t(FatbinEntry::Kind::ELF))
      return createStringError("unsupported fatbin entry kind %u at offset %s "
                               "(expected 1 for PTX or 2 for ELF)",
                               unsigned(kind), hex(offset).c_str());
    if (headerSize < kEntryBaseSize || headerSize > left)
      return createStringError("malformed fatbin: entry at offset %s declares "
                               "a %u-byte header, but it must be at least %u "
                               "and only %llu bytes remain",
                               hex(offset).c_str(), unsigned(headerSize), unsigned(kEntryBaseSize),
                               (unsigned long long)left);
    if (payloadSize > left - headerSize)
      return createStringError("truncated fatbin: entry at offset %s declares "
                               "a %llu-byte payload, only %llu bytes remain",
                               hex(offset).c_str(), (unsigned long long)payloadSize,
                               (unsigned long long)(left - headerSize));

    FatbinEntry entry;
    entry.kind = static_cast<FatbinEntry::Kind>(kind);
    entry.minor = readLE16(bytes, offset + 0x18);
    entry.major = readLE16(bytes, offset + 0x1a);
    entry.sm = readLE32(bytes, offset + 0x1c);
    uint64_t flags = readLE64(bytes, offset + 0x28);
    entry.archSpecific = flags & kFlagArchSpecific;
    entry.familySpecific = flags & kFlagFamilySpecific;
    entry.compressed = flags & kFlagCompressed;
    StringRef payload = bytes.substr(offset + headerSize, payloadSize);
    if (entry.compressed) {
      if (compressedSize > payloadSize)
        return createStringError("malformed fatbin: entry at offset %s "
                                 "declares %u compressed bytes in a %llu-byte "
                                 "payload",
                                 hex(offset).c_str(), unsigned(compressedSize),
                                 (unsigned long long)payloadSize);
      payload = payload.take_front(compressedSize);
      entry.uncompressedSize = readLE64(bytes, offset + 0x38);
    } else if (entry.kind == FatbinEntry::Kind::PTX) {
      payload = payload.take_until([](char c) { return c == '\0'; });
    } else if (std::optional<CubinInfo> info = inspectCubin(payload)) {
      if (info->extent && *info->extent <= payload.size())
        payload = payload.take_front(*info->extent);
    }
    entry.payload = payload.str();
    entries.push_back(std::move(entry));
    offset += headerSize + payloadSize;
  }
  return Error::success();
}

Expected<std::vector<FatbinEntry>> readFatbin(StringRef bytes) {
  std::vector<FatbinEntry> entries;
  uint64_t offset = 0;
  do {
    uint64_t left = bytes.size() - offset;
    // Containers may be followed by zero padding (e.g. section alignment).
    if (offset != 0 && llvm::all_of(bytes.substr(offset), [](char c) { return c == '\0'; }))
      break;
    if (left < kContainerHeaderSize)
      return createStringError("truncated fatbin: the header at offset %s "
                               "needs %u bytes, only %llu present",
                               hex(offset).c_str(), unsigned(kContainerHeaderSize),
                               (unsigned long long)left);
    uint32_t magic = readLE32(bytes, offset);
    if (magic != kFatbinMagic)
      return createStringError("not a fatbin: bad magic %s at offset %s "
                               "(expected %s)",
                               hex(magic).c_str(), hex(offset).c_str(), hex(kFatbinMagic).c_str());
    uint16_t version = readLE16(bytes, offset + 4);
    uint16_t headerSize = readLE16(bytes, offset + 6);
    uint64_t bodySize = readLE64(bytes, offset + 8);
    if (version != kContainerVersion)
      return createStringError("unsupported fatbin version %u at offset %s "
                               "(expected %u)",
                               unsigned(version), hex(offset).c_str(), unsigned(kContainerVersion));
    if (headerSize < kContainerHeaderSize || headerSize > left)
      return createStringError("malformed fatbin: header at offset %s "
                               "declares size %u (expected %u)",
                               hex(offset).c_str(), unsigned(headerSize),
                               unsigned(kContainerHeaderSize));
    if (bodySize > left - headerSize)
      return createStringError("truncated fatbin: container at offset %s "
                               "declares %llu bytes of entries, only %llu "
                               "present",
                               hex(offset).c_str(), (unsigned long long)bodySize,
                               (unsigned long long)(left - headerSize));
    uint64_t begin = offset + headerSize, end = begin + bodySize;
    if (Error err = readEntries(bytes, begin, end, entries))
      return err;
    offset = end;
  } while (offset < bytes.size());
  return entries;
}

} // namespace tlc::cuda
