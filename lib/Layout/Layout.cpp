//===- Layout.cpp - Shared-memory swizzles and register fragment layouts --===//
#include "tlc/Layout/Layout.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace tlc::layout {

int64_t swizzleOffset(int64_t offset, int64_t swizzleBytes) {
  if (swizzleBytes < 32)
    return offset;
  int64_t mask = swizzleBytes / 16 - 1;
  return offset ^ (((offset >> 7) & mask) << 4);
}

int64_t SwizzledTile::byteOffset(int64_t row, int64_t col) const {
  int64_t block = col / blockCols();
  int64_t inner = (col % blockCols()) * elemBytes;
  return block * blockBytes() + swizzleOffset(row * swizzleBytes + inner, swizzleBytes);
}

std::optional<int64_t> chooseSwizzle(int64_t rows, int64_t cols, int64_t elemBytes) {
  int64_t rowBytes = cols * elemBytes;
  if (rows % 8 != 0)
    return std::nullopt;
  if (rowBytes % 128 == 0)
    return 128;
  if (rowBytes == 64)
    return 64;
  if (rowBytes == 32)
    return 32;
  return std::nullopt;
}

std::optional<int64_t> chooseCopySwizzle(int64_t rows, int64_t cols, int64_t elemBytes) {
  if (std::optional<int64_t> swizzle = chooseSwizzle(rows, cols, elemBytes))
    return swizzle;
  if (rows > 0 && (cols * elemBytes) % 128 == 0)
    return 128;
  return std::nullopt;
}

unsigned sharedWavefronts(const std::vector<int64_t> &addresses, unsigned accessBytes) {
  // Lanes are served in groups whose requests together span at most 128 bytes.
  unsigned lanesPerPass = accessBytes >= 16 ? 8 : accessBytes == 8 ? 16 : 32;
  unsigned total = 0;
  for (size_t first = 0; first < addresses.size(); first += lanesPerPass) {
    // Per bank, the distinct 4-byte words requested: a bank serves one word per wavefront.
    std::map<int64_t, std::set<int64_t>> words;
    size_t last = std::min(addresses.size(), first + lanesPerPass);
    for (size_t lane = first; lane < last; ++lane)
      for (unsigned b = 0; b < accessBytes; b += 4) {
        int64_t word = (addresses[lane] + b) / 4;
        words[word % 32].insert(word);
      }
    size_t worst = 1;
    for (auto &[bank, set] : words)
      worst = std::max(worst, set.size());
    total += static_cast<unsigned>(worst);
  }
  return total;
}

std::pair<int64_t, int64_t> WgmmaAccLayout::coord(int64_t thread, int64_t slot) const {
  int64_t warpgroup = thread / 128;
  int64_t warp = (thread % 128) / 32;
  int64_t lane = thread % 32;
  int64_t wgM = warpgroup % warpgroupsM;
  int64_t wgN = warpgroup / warpgroupsM;
  int64_t perTile = instrN() / 2;
  int64_t mTile = slot / perTile;
  int64_t reg = slot % perTile;
  int64_t q = reg / 4;
  int64_t e = reg % 4;
  int64_t row = wgM * warpgroupRows() + mTile * 64 + 16 * warp + lane / 4 + 8 * (e / 2);
  int64_t col = wgN * instrN() + 8 * q + 2 * (lane % 4) + e % 2;
  return {row, col};
}

std::optional<WgmmaAccLayout> WgmmaAccLayout::choose(int64_t rows, int64_t cols,
                                                     int64_t warpgroups) {
  if (warpgroups < 1 || rows % 64 != 0)
    return std::nullopt;
  for (int64_t wm = std::min(warpgroups, rows / 64); wm >= 1; --wm) {
    if (warpgroups % wm != 0 || (rows / 64) % wm != 0)
      continue;
    int64_t wn = warpgroups / wm;
    if (cols % wn != 0)
      continue;
    int64_t n = cols / wn;
    if (n % 8 != 0 || n > 256)
      continue;
    return WgmmaAccLayout{rows, cols, wm, wn};
  }
  return std::nullopt;
}

std::optional<WgmmaAccLayout> WgmmaAccLayout::onStackedWarps(int64_t rows, int64_t cols,
                                                             int64_t warpsM, int64_t warpsN,
                                                             int64_t nMultiple) {
  if (warpsN != 1 || warpsM % 4 != 0 || rows != 16 * warpsM || nMultiple % 8 != 0)
    return std::nullopt;
  for (int64_t n = std::min<int64_t>(cols, 256) / nMultiple * nMultiple; n >= nMultiple;
       n -= nMultiple)
    if (cols % n == 0)
      return WgmmaAccLayout{rows, n, warpsM / 4, 1};
  return std::nullopt;
}

std::pair<int64_t, int64_t> MmaSyncAccLayout::coord(int64_t thread, int64_t slot) const {
  int64_t warp = thread / 32;
  int64_t lane = thread % 32;
  int64_t wm = warp / warpsN;
  int64_t wn = warp % warpsN;
  int64_t fragment = slot / 4;
  int64_t e = slot % 4;
  int64_t mi = fragment / nTiles();
  int64_t ni = fragment % nTiles();
  int64_t row = wm * warpRows() + 16 * mi + lane / 4 + 8 * (e / 2);
  int64_t col = wn * warpCols() + 8 * ni + 2 * (lane % 4) + e % 2;
  return {row, col};
}

int64_t MmaSyncAccLayout::rowOf(int64_t thread, int64_t rowSlot) const {
  int64_t warp = thread / 32;
  int64_t lane = thread % 32;
  return (warp / warpsN) * warpRows() + 16 * (rowSlot / 2) + lane / 4 + 8 * (rowSlot % 2);
}

std::optional<MmaSyncAccLayout> MmaSyncAccLayout::choose(int64_t rows, int64_t cols,
                                                         int64_t warps) {
  std::optional<MmaSyncAccLayout> best;
  int64_t bestSkew = 0;
  for (int64_t wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0)
      continue;
    int64_t wn = warps / wm;
    if (rows % (16 * wm) != 0 || cols % (16 * wn) != 0)
      continue;
    int64_t skew = std::abs(rows / wm - cols / wn);
    // Square warp blocks read the fewest operand bytes per multiply; ties: taller blocks.
    if (!best || skew < bestSkew) {
      best = MmaSyncAccLayout{rows, cols, wm, wn};
      bestSkew = skew;
    }
  }
  return best;
}

std::pair<int64_t, int64_t> BlockedLayout::coord(int64_t thread, int64_t slot) const {
  int64_t v = slot % vec;
  int64_t cc = (slot / vec) % colSteps();
  int64_t rr = slot / (vec * colSteps());
  return {rr * rowsPerPass() + thread / threadsPerRow,
          (cc * threadsPerRow + thread % threadsPerRow) * vec + v};
}

static bool isPowerOf2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

bool BlockedLayout::isValid() const {
  if (!isPowerOf2(vec) || !isPowerOf2(threadsPerRow) || threads <= 0 || threads % 32 != 0 ||
      threads % threadsPerRow != 0 || (threadsPerRow > 32 && threadsPerRow % 32 != 0))
    return false;
  if (rows <= 0 || rows % rowsPerPass() != 0)
    return false;
  return cols == 0 || (cols > 0 && cols % (threadsPerRow * vec) == 0);
}

std::optional<BlockedLayout> BlockedLayout::choose(int64_t rows, const std::vector<int64_t> &colsOf,
                                                   int64_t threads, int64_t maxVec) {
  auto fits = [&](int64_t vec, int64_t perRow) {
    for (int64_t cols : colsOf)
      if (!BlockedLayout{rows, cols, vec, perRow, threads}.isValid())
        return false;
    return BlockedLayout{rows, 0, vec, perRow, threads}.isValid();
  };
  // Row values alone: the fewest threads per row (the fewest slots per thread).
  if (colsOf.empty()) {
    for (int64_t perRow = 1; perRow <= threads; perRow *= 2)
      if (fits(1, perRow))
        return BlockedLayout{rows, 0, 1, perRow, threads};
    return std::nullopt;
  }
  // Widest vectors first (the fewest, widest memory accesses); then a row within one warp
  // (shuffles alone reduce it), as many threads per row as fit; else the fewest warps per row.
  for (int64_t vec = maxVec; vec >= 1; vec /= 2) {
    for (int64_t perRow = 32; perRow >= 1; perRow /= 2)
      if (fits(vec, perRow))
        return BlockedLayout{rows, 0, vec, perRow, threads};
    for (int64_t perRow = 64; perRow <= threads; perRow *= 2)
      if (fits(vec, perRow))
        return BlockedLayout{rows, 0, vec, perRow, threads};
  }
  return std::nullopt;
}

uint64_t wgmmaDescriptor(uint32_t sharedAddress, uint32_t leadingBytes, uint32_t strideBytes,
                         int64_t swizzleBytes) {
  uint64_t mode = swizzleBytes == 128 ? 1 : swizzleBytes == 64 ? 2 : swizzleBytes == 32 ? 3 : 0;
  uint64_t desc = (sharedAddress >> 4) & 0x3FFF;
  desc |= static_cast<uint64_t>((leadingBytes >> 4) & 0x3FFF) << 16;
  desc |= static_cast<uint64_t>((strideBytes >> 4) & 0x3FFF) << 32;
  desc |= mode << 62;
  return desc;
}

} // namespace tlc::layout

bool tlc::layout::fitsStagedCopy(const SwizzledTile &tile, int64_t threads) {
  int64_t chunksPerRow = tile.cols * tile.elemBytes / 16;
  int64_t chunks = tile.rows * chunksPerRow;
  return chunksPerRow > 0 && 32 % chunksPerRow == 0 && threads % 32 == 0 && chunks % threads == 0;
}
