//===- FatbinWriterTest.cpp - Tests of the fatbin writer and reader -------===//

#include "tlc/Target/CUDA/FatbinWriter.h"
#include "tlc/Target/CUDA/CudaToolkit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <random>
#include <utility>

using namespace tlc::cuda;

/// Fails the test with the error's message unless \p x holds a value.
#define REQUIRE_OK(x)                                                                              \
  do {                                                                                             \
    if (!(x))                                                                                      \
      FAIL(llvm::toString((x).takeError()));                                                       \
  } while (0)

namespace {

uint16_t le16(const std::string &s, size_t off) {
  return llvm::support::endian::read16le(s.data() + off);
}
uint32_t le32(const std::string &s, size_t off) {
  return llvm::support::endian::read32le(s.data() + off);
}
uint64_t le64(const std::string &s, size_t off) {
  return llvm::support::endian::read64le(s.data() + off);
}

void putLE(std::string &s, size_t off, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    s[off + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

/// Consumes an Expected's error and returns its message ("" on success).
template <typename T> std::string errorText(llvm::Expected<T> &value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

/// A minimal CUDA ELF64 image: header, .shstrtab, optionally .nv.compat, and
/// the section header table at the end (296 bytes with .nv.compat).
std::string makeFakeCubin(uint32_t eFlags, bool withCompat, const std::string &compat) {
  std::string names = std::string("\0.shstrtab\0.nv.compat\0", 22);
  std::string elf(64, '\0');
  elf.replace(0, 4,
              "\x7f"
              "ELF");
  elf[4] = 2;               // ELFCLASS64
  elf[5] = 1;               // little-endian
  elf[6] = 1;               // EI_VERSION
  elf[7] = 0x41;            // CUDA OS/ABI
  elf[8] = 8;               // ABI version
  putLE(elf, 0x10, 2, 2);   // ET_EXEC
  putLE(elf, 0x12, 190, 2); // EM_CUDA
  putLE(elf, 0x14, 1, 4);
  putLE(elf, 0x30, eFlags, 4);
  putLE(elf, 0x34, 64, 2); // e_ehsize
  size_t namesOff = elf.size();
  elf += names;
  elf.resize((elf.size() + 7) & ~size_t(7), '\0');
  size_t compatOff = elf.size();
  if (withCompat) {
    elf += compat;
    elf.resize((elf.size() + 7) & ~size_t(7), '\0');
  }
  size_t shoff = elf.size();
  unsigned shnum = withCompat ? 3 : 2;
  elf.resize(shoff + 64 * shnum, '\0');
  // [1] .shstrtab
  putLE(elf, shoff + 64 + 0x00, 1, 4);
  putLE(elf, shoff + 64 + 0x04, 3, 4); // SHT_STRTAB
  putLE(elf, shoff + 64 + 0x18, namesOff, 8);
  putLE(elf, shoff + 64 + 0x20, names.size(), 8);
  if (withCompat) {
    putLE(elf, shoff + 128 + 0x00, 11, 4);
    putLE(elf, shoff + 128 + 0x04, 0x70000086, 4);
    putLE(elf, shoff + 128 + 0x18, compatOff, 8);
    putLE(elf, shoff + 128 + 0x20, compat.size(), 8);
  }
  putLE(elf, 0x28, shoff, 8);
  putLE(elf, 0x3a, 64, 2);
  putLE(elf, 0x3c, shnum, 2);
  putLE(elf, 0x3e, 1, 2);
  return elf;
}

/// A unique temporary directory, removed with its contents on destruction.
struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { REQUIRE(!llvm::sys::fs::createUniqueDirectory("tlc-fatbin-test", path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
};

void writeFile(const std::string &path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  REQUIRE(!ec);
  os << bytes;
}

std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  REQUIRE(buffer);
  return (*buffer)->getBuffer().str();
}

} // namespace

TEST_CASE("parseArch accepts sm_/compute_ targets", "[fatbin]") {
  auto a = parseArch("sm_90a");
  REQUIRE_OK(a);
  CHECK(a->first == 90);
  CHECK(a->second);
  auto b = parseArch("sm_80");
  REQUIRE_OK(b);
  CHECK(b->first == 80);
  CHECK(!b->second);
  auto c = parseArch("compute_90a");
  REQUIRE_OK(c);
  CHECK(c->first == 90);
  CHECK(c->second);
  auto d = parseArch("sm_120a");
  REQUIRE_OK(d);
  CHECK(d->first == 120);

  for (const char *bad : {"", "sm_", "sm90", "sm_9", "sm_90b", "sm_1000", "gfx90a", "sm_9x", "sm_a",
                          "sm_90aa", "sm_-90"}) {
    auto r = parseArch(bad);
    INFO(bad);
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains("invalid CUDA architecture"));
  }
  auto f = parseArch("sm_100f");
  REQUIRE(!f);
  CHECK_THAT(errorText(f), Catch::Contains("family-specific"));
}

TEST_CASE("empty fatbin is a bare header", "[fatbin]") {
  std::string bytes = writeFatbin({});
  REQUIRE(bytes.size() == 16);
  CHECK(le32(bytes, 0) == 0xBA55ED50);
  CHECK(le16(bytes, 4) == 1);
  CHECK(le16(bytes, 6) == 16);
  CHECK(le64(bytes, 8) == 0);
  auto entries = readFatbin(bytes);
  REQUIRE_OK(entries);
  CHECK(entries->empty());
}

TEST_CASE("PTX entry header, extension and padding", "[fatbin]") {
  std::string ptx = ".version 8.6\n"; // 13 bytes, 14 with NUL, padded to 16
  auto entry = makePtxEntry(ptx, "sm_90a");
  REQUIRE_OK(entry);
  CHECK(entry->major == 8);
  CHECK(entry->minor == 6);
  std::string bytes = writeFatbin({*entry});
  REQUIRE(bytes.size() == 16 + 80 + 16);
  CHECK(le64(bytes, 8) == 80 + 16);
  const size_t e = 16;
  CHECK(le16(bytes, e + 0x00) == 1);      // PTX
  CHECK(le16(bytes, e + 0x02) == 0x0101); //
  CHECK(le32(bytes, e + 0x04) == 80);     // header size
  CHECK(le64(bytes, e + 0x08) == 16);     // padded payload size
  CHECK(le32(bytes, e + 0x10) == 0);      // compressed size
  CHECK(le32(bytes, e + 0x14) == 0x40);   // extension descriptor offset
  CHECK(le16(bytes, e + 0x18) == 6);      // minor
  CHECK(le16(bytes, e + 0x1a) == 8);      // major
  CHECK(le32(bytes, e + 0x1c) == 90);
  CHECK(le64(bytes, e + 0x20) == 0);
  CHECK(le64(bytes, e + 0x28) == 0x100011);
  CHECK(le64(bytes, e + 0x30) == 0);
  CHECK(le64(bytes, e + 0x38) == 0);
  CHECK(le32(bytes, e + 0x40) == 0x48); // extension data offset
  CHECK(le32(bytes, e + 0x44) == 0);    // extension data size
  CHECK(le64(bytes, e + 0x48) == 0);
  CHECK(bytes.substr(e + 80) == ptx + std::string(3, '\0'));

  // A plain (not arch-specific) target drops the 0x100000 flag; the writer
  // always appends a NUL, even after one already in the text.
  auto plain = makePtxEntry(ptx + std::string(1, '\0'), "sm_80");
  REQUIRE_OK(plain);
  std::string plainBytes = writeFatbin({*plain});
  CHECK(le64(plainBytes, e + 0x28) == 0x11);
  CHECK(le32(plainBytes, e + 0x1c) == 80);
  CHECK(le64(plainBytes, e + 0x08) == 16);
}

TEST_CASE("PTX version comes from the .version directive", "[fatbin]") {
  auto a = makePtxEntry("// header\n  .version 7.8 // c\n.target sm_80\n", "sm_80");
  REQUIRE_OK(a);
  CHECK(a->major == 7);
  CHECK(a->minor == 8);
  // fatbinary keeps only the first digit of the minor version.
  auto b = makePtxEntry(".version  10.12\n", "sm_90");
  REQUIRE_OK(b);
  CHECK(b->major == 10);
  CHECK(b->minor == 1);
  auto c = makePtxEntry(".target sm_90a\n.address_size 64\n", "sm_90a");
  REQUIRE(!c);
  CHECK_THAT(errorText(c), Catch::Contains(".version"));
  // The first ".version" counts, even inside a comment (as in fatbinary).
  auto e = makePtxEntry("/*\n.version 9.0\n*/\n.version 8.6\n", "sm_90");
  REQUIRE_OK(e);
  CHECK(e->major == 9);
  CHECK(e->minor == 0);
  for (const char *bad : {".version 8.\n", ".version x8.6\n", ".version 8 .6\n", ".version +8.6\n",
                          ".version 123456.7\n"}) {
    INFO(bad);
    auto r = makePtxEntry(bad, "sm_90");
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains(".version"));
  }
  auto d = makePtxEntry(".version 8.6\n", "sm90");
  REQUIRE(!d);
  CHECK_THAT(errorText(d), Catch::Contains("sm90"));
}

TEST_CASE("PTX text is compacted like fatbinary does", "[fatbin]") {
  // Expected outputs were produced by CUDA 13.0 `fatbinary`.
  const std::pair<const char *, const char *> cases[] = {
      {".version 8.6\n.target sm_90a\n\t  .address_size 64   \n\n\n"
       "// comment\t with\ttabs\n/* block\n\t comment */\n"
       ".visible .entry k()\t{\n\tmov.u32 \t%r1,\t%r2; // x\n  \r\n"
       "\tret;\t\n}\t\n\n",
       ".version 8.6\n.target sm_90a\n.address_size 64 \n\n\n\n\n"
       ".visible .entry k()\t{\nmov.u32 %r1,\t%r2; \n\r\nret;\t\n}\t\n\n"},
      {".version 8.6\n.file 1 \"a  b//c\t\td\"\n", ".version 8.6\n.file 1 \"a  b//c\t\td\"\n"},
      {".version 8.6\nx /* a\nb */ y\n", ".version 8.6\nx  y\n"},
      {".version 8.6\n/*/ x */y\n", ".version 8.6\n x */y\n"},
      {".version 8.6\nx// c /* d\ny */\n", ".version 8.6\nx\ny */\n"},
      {".version 8.6\nx // c\rz", ".version 8.6\nx \rz"},
      {".version 8.6\nx /* unterminated\nabc\n", ".version 8.6\nx "},
      {".version 8.6\n\"a\\\"  b\"  c\n", ".version 8.6\n\"a\\\"  b\" c\n"},
      {"  \t.version 8.6\na\x0b  x\n", " .version 8.6\na\x0bx\n"},
  };
  for (auto [in, expected] : cases) {
    INFO(in);
    auto entry = makePtxEntry(in, "sm_90a");
    REQUIRE_OK(entry);
    CHECK(entry->payload == expected);
  }
}

TEST_CASE("ELF entry header and padding", "[fatbin]") {
  // Hopper-style cubin (e_flags low bits 0x4): no extension.
  std::string cubin = makeFakeCubin(0x6005a04, true, std::string(12, '\x07'));
  REQUIRE(cubin.size() == 296);
  cubin += "abc"; // odd size: padded with zeros, no NUL added
  auto entry = makeElfEntry(cubin, "sm_90a");
  REQUIRE_OK(entry);
  CHECK(entry->major == 1);
  CHECK(entry->minor == 8);
  std::string bytes = writeFatbin({*entry});
  const size_t e = 16;
  REQUIRE(bytes.size() == 16 + 64 + 304);
  CHECK(le64(bytes, 8) == 64 + 304);
  CHECK(le16(bytes, e + 0x00) == 2);
  CHECK(le16(bytes, e + 0x02) == 0x0101);
  CHECK(le32(bytes, e + 0x04) == 64);
  CHECK(le64(bytes, e + 0x08) == 304);
  CHECK(le32(bytes, e + 0x10) == 0);
  CHECK(le32(bytes, e + 0x14) == 0);
  CHECK(le16(bytes, e + 0x18) == 8);
  CHECK(le16(bytes, e + 0x1a) == 1);
  CHECK(le32(bytes, e + 0x1c) == 90);
  CHECK(le64(bytes, e + 0x28) == 0x100011);
  CHECK(le64(bytes, e + 0x38) == 0);
  CHECK(bytes.substr(e + 64) == cubin + std::string(5, '\0'));

  auto notElf = makeElfEntry("not an elf image", "sm_90a");
  REQUIRE(!notElf);
  CHECK_THAT(errorText(notElf), Catch::Contains("ELF"));
}

TEST_CASE("Blackwell-style cubins carry .nv.compat in an extension", "[fatbin]") {
  std::string compat("\x02\x09\x01\x00\x02\x02\x01\x00\x09\x00\x00\x05", 12);
  std::string cubin = makeFakeCubin(0x6006402, true, compat);
  auto entry = makeElfEntry(cubin, "sm_100a");
  REQUIRE_OK(entry);
  std::string bytes = writeFatbin({*entry});
  const size_t e = 16;
  // 0x48 + alignTo(1 + 12, 8) = 88.
  REQUIRE(le32(bytes, e + 0x04) == 88);
  CHECK(le32(bytes, e + 0x14) == 0x40);
  CHECK(le32(bytes, e + 0x1c) == 100);
  CHECK(le64(bytes, e + 0x28) == 0x1100011);
  CHECK(le32(bytes, e + 0x40) == 0x48);
  CHECK(le32(bytes, e + 0x44) == 12);
  CHECK(bytes[e + 0x48] == '\0');
  CHECK(bytes.substr(e + 0x49, 12) == compat);
  CHECK(bytes.substr(e + 0x55, 3) == std::string(3, '\0'));
  CHECK(bytes.substr(e + 88) == cubin);

  // e_flags bit 1 without a .nv.compat section: flag, but no extension.
  auto noCompat = makeElfEntry(makeFakeCubin(0x6006402, false, ""), "sm_100");
  REQUIRE_OK(noCompat);
  std::string b2 = writeFatbin({*noCompat});
  CHECK(le32(b2, e + 0x04) == 64);
  CHECK(le32(b2, e + 0x14) == 0);
  CHECK(le64(b2, e + 0x28) == 0x1000011);
}

TEST_CASE("write then read round-trips", "[fatbin]") {
  std::vector<FatbinEntry> in;
  auto elf = makeElfEntry(makeFakeCubin(0x6006402, true, "\x02\x0b\x05\x00"), "sm_100a");
  REQUIRE_OK(elf);
  in.push_back(*elf);
  auto elf2 = makeElfEntry(makeFakeCubin(0x6005a04, false, ""), "sm_90");
  REQUIRE_OK(elf2);
  in.push_back(*elf2);
  auto ptx = makePtxEntry(".version 8.6\n.target sm_90a\n// odd length!\n", "sm_90a");
  REQUIRE_OK(ptx);
  in.push_back(*ptx);
  FatbinEntry compressed;
  compressed.kind = FatbinEntry::Kind::PTX;
  compressed.sm = 80;
  compressed.major = 8;
  compressed.minor = 0;
  compressed.compressed = true;
  compressed.uncompressedSize = 1234;
  compressed.payload = std::string("\x28\xb5\x2f\xfd\x00\x01\x02", 7);
  in.push_back(compressed);
  FatbinEntry family = *elf2;
  family.sm = 100;
  family.familySpecific = true;
  family.payload = "8 bytes!";
  in.push_back(family);

  std::string bytes = writeFatbin(in);
  auto out = readFatbin(bytes);
  REQUIRE_OK(out);
  REQUIRE(out->size() == in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    INFO("entry " << i);
    const FatbinEntry &a = in[i], &b = (*out)[i];
    CHECK(a.kind == b.kind);
    CHECK(a.sm == b.sm);
    CHECK(a.archSpecific == b.archSpecific);
    CHECK(a.familySpecific == b.familySpecific);
    CHECK(a.major == b.major);
    CHECK(a.minor == b.minor);
    CHECK(a.compressed == b.compressed);
    CHECK(a.uncompressedSize == b.uncompressedSize);
    CHECK(a.payload == b.payload);
  }
  CHECK(writeFatbin(*out) == bytes);

  // Two concatenated containers followed by zero padding read as one list.
  std::string twice = bytes + bytes + std::string(24, '\0');
  auto both = readFatbin(twice);
  REQUIRE_OK(both);
  CHECK(both->size() == 2 * in.size());
}

TEST_CASE("reader rejects bad magic and truncation", "[fatbin]") {
  auto ptx = makePtxEntry(".version 8.6\n.target sm_90a\n", "sm_90a");
  REQUIRE_OK(ptx);
  auto elf = makeElfEntry(makeFakeCubin(0x6005a04, true, "abcd"), "sm_90a");
  REQUIRE_OK(elf);
  std::string good = writeFatbin({*elf, *ptx});

  {
    auto r = readFatbin("");
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains("truncated"));
  }
  {
    auto r = readFatbin(llvm::StringRef(good).take_front(10));
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains("truncated"));
  }
  {
    std::string bad = good;
    bad[0] = 0x51;
    auto r = readFatbin(bad);
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains("bad magic 0xba55ed51"));
  }
  {
    std::string bad = good;
    putLE(bad, 4, 2, 2);
    auto r = readFatbin(bad);
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains("version"));
  }
  {
    // Every proper prefix is an error, never a crash.
    for (size_t n = 0; n < good.size(); ++n) {
      auto r = readFatbin(llvm::StringRef(good).take_front(n));
      INFO("prefix " << n);
      REQUIRE(!r);
      CHECK_THAT(errorText(r), Catch::Contains("fatbin"));
    }
  }
  {
    // A container size that claims more than is present.
    std::string bad = good;
    putLE(bad, 8, le64(good, 8) + 8, 8);
    auto r = readFatbin(bad);
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains("truncated fatbin: container"));
  }
  {
    // An entry payload size that runs past the container.
    std::string bad = good;
    putLE(bad, 16 + 8, ~uint64_t(0) - 3, 8);
    auto r = readFatbin(bad);
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains("payload"));
  }
  {
    std::string bad = good;
    putLE(bad, 16 + 4, 0xffffffffu, 4);
    auto r = readFatbin(bad);
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains("header"));
  }
  {
    std::string bad = good;
    putLE(bad, 16, 7, 2);
    auto r = readFatbin(bad);
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains("kind 7"));
  }
  {
    // Trailing garbage after a container.
    auto r = readFatbin(good + "garbage!");
    REQUIRE(!r);
    CHECK_THAT(errorText(r), Catch::Contains("offset"));
  }
}

TEST_CASE("reader survives arbitrary bytes", "[fatbin]") {
  auto ptx = makePtxEntry(".version 8.6\n.target sm_90a\n", "sm_90a");
  REQUIRE_OK(ptx);
  auto elf = makeElfEntry(makeFakeCubin(0x6006402, true, "abcdefgh"), "sm_100a");
  REQUIRE_OK(elf);
  std::string good = writeFatbin({*elf, *ptx});
  std::mt19937 rng(12345);
  size_t ok = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string bytes = good;
    int flips = 1 + rng() % 4;
    for (int i = 0; i < flips; ++i)
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0)
      bytes.resize(rng() % bytes.size());
    // Reading into a heap copy of exactly the right size lets sanitizers and
    // valgrind catch any out-of-bounds read.
    std::unique_ptr<char[]> copy(new char[bytes.size() + 1]);
    memcpy(copy.get(), bytes.data(), bytes.size());
    auto r = readFatbin(llvm::StringRef(copy.get(), bytes.size()));
    if (r)
      ++ok;
    else
      llvm::consumeError(r.takeError());
  }
  CHECK(ok > 0);
}

namespace {

const char *const kFatbinary = "/usr/local/cuda/bin/fatbinary";

bool haveFatbinaryAndPtxas() {
  return llvm::sys::fs::can_execute(kFatbinary) &&
         llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas");
}

/// Runs `fatbinary -64 --compress=false` over \p images (each an --image3
/// value such as "kind=elf,sm=90a,file=k.cubin") and returns the fatbin.
std::string runFatbinary(const TempDir &dir, const std::vector<std::string> &images) {
  std::string out = dir.file("out.fatbin");
  std::string create = "--create=" + out;
  std::vector<std::string> imageArgs;
  for (const std::string &image : images)
    imageArgs.push_back("--image3=" + image);
  std::vector<llvm::StringRef> args = {kFatbinary, "-64", "--compress=false", create};
  args.insert(args.end(), imageArgs.begin(), imageArgs.end());
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(kFatbinary, args, std::nullopt, {}, 0, 0, &err);
  INFO(err);
  REQUIRE(rc == 0);
  std::string bytes = readFile(out);
  llvm::sys::fs::remove(out);
  return bytes;
}

} // namespace

TEST_CASE("writer matches fatbinary byte for byte", "[fatbin][toolkit]") {
  if (!haveFatbinaryAndPtxas()) {
    WARN("no CUDA toolkit at /usr/local/cuda; skipping the comparison");
    SUCCEED();
    return;
  }
  auto toolkit = CudaToolkit::find("/usr/local/cuda", "");
  REQUIRE_OK(toolkit);
  TempDir dir;

  // sm_90a must work; newer targets are compared when this ptxas knows them.
  // (arch, the oldest PTX ISA version that supports it).
  const std::pair<const char *, const char *> targets[] = {{"sm_90a", "8.0"},
                                                           {"sm_90", "7.8"},
                                                           {"sm_80", "7.0"},
                                                           {"sm_100a", "8.6"},
                                                           {"sm_120a", "8.7"}};
  for (auto [arch, isa] : targets) {
    INFO(arch);
    std::string ptx = std::string("// tlc test kernel\n.version ") + isa + "\n.target " + arch +
                      "\n.address_size 64\n\n"
                      ".visible .entry k(.param .u64 p)\n{\n"
                      "\t.reg .b64 %rd<3>;\n\t.reg .b32 %r<2>;\n"
                      "\tld.param.u64 %rd1, [p];   // pointer\n"
                      "\tcvta.to.global.u64 %rd2, %rd1;\n"
                      "\tmov.u32 %r1, %tid.x;\n"
                      "\tst.global.u32 [%rd2], %r1;\n\tret;\n}\n";
    auto assembled = toolkit->assemble(ptx, arch);
    if (!assembled) {
      std::string msg = errorText(assembled);
      REQUIRE(std::string(arch) != "sm_90a");
      WARN("ptxas cannot build " << arch << ", not compared: " << msg);
      continue;
    }
    std::string cubinPath = dir.file("k.cubin");
    std::string ptxPath = dir.file("k.ptx");
    writeFile(cubinPath, assembled->cubin);
    writeFile(ptxPath, ptx);
    std::string sm = llvm::StringRef(arch).drop_front(3).str();
    std::string elfImage = "kind=elf,sm=" + sm + ",file=" + cubinPath;
    std::string ptxImage = "kind=ptx,sm=" + sm + ",file=" + ptxPath;

    auto elfEntry = makeElfEntry(assembled->cubin, arch);
    REQUIRE_OK(elfEntry);
    auto ptxEntry = makePtxEntry(ptx, arch);
    REQUIRE_OK(ptxEntry);
    std::string ours = writeFatbin({*elfEntry, *ptxEntry});
    std::string theirs = runFatbinary(dir, {elfImage, ptxImage});
    CHECK(ours.size() == theirs.size());
    CHECK(ours == theirs);
    CHECK(writeFatbin({*ptxEntry, *elfEntry}) == runFatbinary(dir, {ptxImage, elfImage}));
    CHECK(writeFatbin({*elfEntry}) == runFatbinary(dir, {elfImage}));

    // Reading fatbinary's output gives back the exact inputs.
    auto read = readFatbin(theirs);
    REQUIRE_OK(read);
    REQUIRE(read->size() == 2);
    CHECK((*read)[0].kind == FatbinEntry::Kind::ELF);
    CHECK((*read)[0].payload == assembled->cubin);
    CHECK((*read)[0].sm == elfEntry->sm);
    CHECK((*read)[0].archSpecific == elfEntry->archSpecific);
    CHECK((*read)[0].major == elfEntry->major);
    CHECK((*read)[0].minor == elfEntry->minor);
    CHECK((*read)[1].kind == FatbinEntry::Kind::PTX);
    CHECK((*read)[1].payload == ptxEntry->payload);
    CHECK((*read)[1].major == unsigned(isa[0] - '0'));
    CHECK((*read)[1].minor == unsigned(isa[2] - '0'));
  }
}

TEST_CASE("PTX compaction matches fatbinary on random text", "[fatbin][toolkit]") {
  if (!haveFatbinaryAndPtxas()) {
    WARN("no CUDA toolkit at /usr/local/cuda; skipping the comparison");
    SUCCEED();
    return;
  }
  TempDir dir;
  std::string ptxPath = dir.file("r.ptx");
  const char *pieces[] = {" ",  "  ", "\t", "\n",  "\r\n", "\r", "\v", "\f", "/",  "*", "\"",
                          "\\", "'",  "a",  "%r1", ".",    ";",  "//", "/*", "*/", "{", "}"};
  std::mt19937 rng(2024);
  for (int iter = 0; iter < 150; ++iter) {
    std::string ptx = ".version 8.6\n";
    unsigned n = rng() % 60;
    for (unsigned i = 0; i < n; ++i)
      ptx += pieces[rng() % (sizeof(pieces) / sizeof(pieces[0]))];
    if (rng() % 8 == 0)
      ptx.push_back('\0');
    INFO("PTX: " << ptx);
    writeFile(ptxPath, ptx);
    auto entry = makePtxEntry(ptx, "sm_90a");
    REQUIRE_OK(entry);
    REQUIRE(writeFatbin({*entry}) == runFatbinary(dir, {"kind=ptx,sm=90a,file=" + ptxPath}));
  }
}
